//! Drawing a channel as rows, newest first, with lanes like `git log --graph`.
//!
//! Each entry is a row with its node in a lane column; a `replaces` or `skips` link runs as a lane
//! from the newer entry down to the older one it names (`│` for replaces, `┆` for skips). Lanes merge
//! into the node they reach; an entry with several links forks on the row below it. skipRange links
//! are written on the entry's row (with how many entries they match) rather than drawn, and lanes
//! beyond [`MAX_LANES`] are listed instead of drawn, so a 300-entry channel stays readable.
//!
//! Nodes: `◉` head, `●` entry, `○` entry OLM v0 drops (skipped or stranded), `✗` deprecated bundle.

use std::collections::HashMap;

use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use super::channel::{ChannelGraph, EdgeKind};

/// Lanes drawn at most; further links are listed on the entry's row.
pub const MAX_LANES: usize = 10;

/// What a character of the lane area shows, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    Empty,
    Node,
    Lane(EdgeKind),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub ch: char,
    pub kind: CellKind,
}

/// Marks of an entry row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    pub head: bool,
    pub deprecated: bool,
    /// OLM v0 drops the entry from the channel (skipped or stranded).
    pub dropped: bool,
}

/// One line of the drawing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub cells: Vec<Cell>,
    /// The entry drawn on this row (`None` for a row that only forks lanes).
    pub entry: Option<NodeIndex>,
    pub marks: Marks,
    /// Name, version and notes (links not drawn, skipRange), empty on fork rows.
    pub label: String,
}

impl Row {
    /// The row as plain text, lanes padded to `width` cells.
    pub fn text(&self, width: usize) -> String {
        let mut s: String = self.cells.iter().map(|c| c.ch).collect();
        for _ in self.cells.len()..width {
            s.push(' ');
        }
        if !self.label.is_empty() {
            s.push(' ');
            s.push_str(&self.label);
        }
        s.trim_end().to_string()
    }
}

/// A laid-out channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub rows: Vec<Row>,
    /// Width of the lane area in cells.
    pub width: usize,
}

impl Layout {
    pub fn text(&self) -> String {
        let mut out = String::new();
        for r in &self.rows {
            out.push_str(&r.text(self.width));
            out.push('\n');
        }
        out
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Lane {
    target: NodeIndex,
    kind: EdgeKind,
}

/// A cell of a lane (a blank one is empty).
fn lane_cell(ch: char, kind: EdgeKind) -> Cell {
    Cell {
        ch,
        kind: if ch == ' ' {
            CellKind::Empty
        } else {
            CellKind::Lane(kind)
        },
    }
}

/// The box-drawing character joining the given sides.
fn joint(up: bool, down: bool, left: bool, right: bool, kind: EdgeKind) -> char {
    match (up, down, left, right) {
        (true, true, false, false) => {
            if kind == EdgeKind::Skips {
                '┆'
            } else {
                '│'
            }
        }
        (false, false, true, true) => '─',
        (true, true, true, true) => '┼',
        (true, true, false, true) => '├',
        (true, true, true, false) => '┤',
        (false, true, true, true) => '┬',
        (true, false, true, true) => '┴',
        (false, true, false, true) => '┌',
        (false, true, true, false) => '┐',
        (true, false, false, true) => '└',
        (true, false, true, false) => '┘',
        (true, false, false, false) => '╵',
        (false, true, false, false) => '╷',
        (false, false, false, true) => '╶',
        (false, false, true, false) => '╴',
        (false, false, false, false) => ' ',
    }
}

/// Lays out a channel, newest entry at the top.
pub fn layout(g: &ChannelGraph) -> Layout {
    let order = g.newest_first();
    let row_of: HashMap<NodeIndex, usize> =
        order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut lanes: Vec<Option<Lane>> = Vec::new();
    // Columns whose lane ended on the previous row: an unrelated entry must not take one, or it would
    // look linked to the entry just above it.
    let mut just_freed: Vec<usize> = Vec::new();
    let mut rows = Vec::with_capacity(order.len() + order.len() / 4);
    for (row, &n) in order.iter().enumerate() {
        let before = lanes.clone();
        let (hits, col) = take_column(&mut lanes, &just_freed, n);
        let links = open_links(g, &row_of, row, n, col, &mut lanes);
        let mut notes = links.notes;
        notes.extend(hidden_notes(g, &links.hidden));
        for o in g.outside.iter().filter(|o| o.to == n) {
            notes.push(format!("{} {} (not in channel)", o.kind.as_str(), o.from));
        }
        notes.extend(skip_range_note(g, n));
        rows.push(node_row(g, n, &before, &hits, col, notes));
        if !links.joined.is_empty() {
            rows.push(fork_row(&lanes, &links.joined, col, links.continues_at_col));
        }
        just_freed = (0..lanes.len())
            .filter(|&i| lanes[i].is_none() && (i == col || hits.contains(&i)))
            .collect();
        while lanes.last() == Some(&None) && !just_freed.contains(&(lanes.len() - 1)) {
            lanes.pop();
        }
    }
    // Trailing blank cells are not part of the drawing.
    for r in &mut rows {
        while r.cells.last().is_some_and(|c| c.kind == CellKind::Empty) {
            r.cells.pop();
        }
    }
    let width = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    Layout { rows, width }
}

/// The lanes that reach entry `n` (they end here), and the column its node goes in: the first of
/// them, else the first free column not freed on the row above, else a new one.
fn take_column(
    lanes: &mut Vec<Option<Lane>>,
    just_freed: &[usize],
    n: NodeIndex,
) -> (Vec<usize>, usize) {
    let hits: Vec<usize> = (0..lanes.len())
        .filter(|&i| lanes[i].is_some_and(|l| l.target == n))
        .collect();
    let col = hits
        .first()
        .copied()
        .or_else(|| (0..lanes.len()).find(|&i| lanes[i].is_none() && !just_freed.contains(&i)))
        .unwrap_or(lanes.len());
    if col == lanes.len() {
        lanes.push(None);
    }
    for &h in &hits {
        lanes[h] = None;
    }
    (hits, col)
}

/// The links from an entry to older ones, as placed in lanes.
struct Links {
    /// Links that cannot be drawn downwards (to an entry above).
    notes: Vec<String>,
    /// Links that found no lane.
    hidden: Vec<(EdgeKind, NodeIndex)>,
    /// Lanes the entry forks into: (column, newly opened).
    joined: Vec<(usize, bool)>,
    /// Whether a lane continues below the node in its own column.
    continues_at_col: bool,
}

/// Opens a lane (or joins an open one) for each link from entry `n` (drawn on `row`, column `col`)
/// to an older entry: replaces first, then skips, nearest first (short lanes close soon; when lanes
/// run out, the far ones are listed instead).
fn open_links(
    g: &ChannelGraph,
    row_of: &HashMap<NodeIndex, usize>,
    row: usize,
    n: NodeIndex,
    col: usize,
    lanes: &mut Vec<Option<Lane>>,
) -> Links {
    let mut targets: Vec<(NodeIndex, EdgeKind)> = g
        .graph
        .edges_directed(n, Direction::Incoming)
        .filter(|e| *e.weight() != EdgeKind::SkipRange)
        .map(|e| (e.source(), *e.weight()))
        .collect();
    targets.sort_by_key(|(t, k)| (*k, row_of[t]));
    targets.dedup();
    let mut links = Links {
        notes: Vec::new(),
        hidden: Vec::new(),
        joined: Vec::new(),
        continues_at_col: false,
    };
    for (t, kind) in targets {
        let target_row = row_of[&t];
        if target_row <= row {
            links.notes.push(format!(
                "{} {} (drawn above)",
                kind.as_str(),
                g.graph[t].name
            ));
            continue;
        }
        let lane = Lane { target: t, kind };
        if let Some(existing) = lanes.iter().position(|l| *l == Some(lane)) {
            links.joined.push((existing, false));
            continue;
        }
        if !links.continues_at_col && lanes[col].is_none() {
            lanes[col] = Some(lane);
            links.continues_at_col = true;
            continue;
        }
        let free = (col + 1..lanes.len()).find(|&i| lanes[i].is_none());
        let at = match free {
            Some(i) => i,
            None if lanes.len() < MAX_LANES => {
                lanes.push(None);
                lanes.len() - 1
            }
            None => {
                links.hidden.push((kind, t));
                continue;
            }
        };
        lanes[at] = Some(lane);
        links.joined.push((at, true));
    }
    links
}

/// What the row says about links that found no lane: one note per kind.
fn hidden_notes(g: &ChannelGraph, hidden: &[(EdgeKind, NodeIndex)]) -> Vec<String> {
    let mut notes = Vec::new();
    for kind in [EdgeKind::Replaces, EdgeKind::Skips] {
        let names: Vec<&str> = hidden
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, t)| g.graph[*t].name.as_str())
            .collect();
        match names.as_slice() {
            [] => {}
            [one] => notes.push(format!("{} {one} (not drawn)", kind.as_str())),
            [first, .., last] => notes.push(format!(
                "{} {} more, not drawn ({first} … {last})",
                kind.as_str(),
                names.len()
            )),
        }
    }
    notes
}

/// The entry's skipRange: how many entries it matches, and which of them it prunes (matched entries
/// OLM v0 drops: nobody can install them).
fn skip_range_note(g: &ChannelGraph, n: NodeIndex) -> Option<String> {
    let r = g.skip_ranges.get(&n)?;
    let matched = g
        .graph
        .edges_directed(n, Direction::Incoming)
        .filter(|e| *e.weight() == EdgeKind::SkipRange)
        .count();
    let mut note = format!("skipRange {r:?} matches {matched}");
    if let Some(effect) = super::query::skip_range_effect(g, n)
        && !effect.pruned.is_empty()
    {
        let names: Vec<&str> = effect
            .pruned
            .iter()
            .map(|&p| g.graph[p].name.as_str())
            .collect();
        let shown = match names.as_slice() {
            [a] => a.to_string(),
            [a, b] => format!("{a}, {b}"),
            [first, .., last] => format!("{first} … {last}"),
            [] => String::new(),
        };
        note.push_str(&format!(", prunes {} ({shown})", names.len()));
    }
    Some(note)
}

/// The node row: lanes passing by (as they were above the row), lanes merging into the node.
fn node_row(
    g: &ChannelGraph,
    n: NodeIndex,
    before: &[Option<Lane>],
    hits: &[usize],
    col: usize,
    notes: Vec<String>,
) -> Row {
    let node = &g.graph[n];
    let span = hits.iter().copied().chain([col]);
    let (lo, hi) = (span.clone().min().unwrap_or(col), span.max().unwrap_or(col));
    let marks = Marks {
        head: node.head,
        deprecated: node.deprecated,
        dropped: g.dropped(n),
    };
    let glyph = if node.deprecated {
        '✗'
    } else if node.head {
        '◉'
    } else if marks.dropped {
        '○'
    } else {
        '●'
    };
    let mut cells = Vec::with_capacity(before.len().max(col + 1) * 2);
    for (i, lane_before) in before
        .iter()
        .chain([None].iter())
        .enumerate()
        .take(before.len().max(col + 1))
    {
        let kind = lane_before.map_or(EdgeKind::Replaces, |l| l.kind);
        let (ch, cell_kind) = if i == col {
            (glyph, CellKind::Node)
        } else if i >= lo && i <= hi {
            let up = lane_before.is_some();
            let down = up && !hits.contains(&i);
            (joint(up, down, i > lo, i < hi, kind), CellKind::Lane(kind))
        } else if let Some(l) = lane_before {
            (
                joint(true, true, false, false, l.kind),
                CellKind::Lane(l.kind),
            )
        } else {
            (' ', CellKind::Empty)
        };
        cells.push(Cell {
            ch,
            kind: cell_kind,
        });
        cells.push(lane_cell(if i >= lo && i < hi { '─' } else { ' ' }, kind));
    }
    Row {
        cells,
        entry: Some(n),
        marks,
        label: label(g, n, marks, notes),
    }
}

/// Name, version, marks and notes of an entry row.
fn label(g: &ChannelGraph, n: NodeIndex, marks: Marks, notes: Vec<String>) -> String {
    let node = &g.graph[n];
    let mut label = node.name.clone();
    if let Some(v) = node.version_release() {
        label.push_str(&format!("  {v}"));
    }
    if node.head {
        label.push_str("  [head]");
    }
    if node.deprecated {
        label.push_str("  [deprecated]");
    }
    if marks.dropped {
        label.push_str(if node.skipped {
            "  [skipped]"
        } else {
            "  [stranded]"
        });
    }
    for note in notes {
        label.push_str("  · ");
        label.push_str(&note);
    }
    label
}

/// The fork row below an entry: links to lanes other than the node's own column.
fn fork_row(
    lanes: &[Option<Lane>],
    joined: &[(usize, bool)],
    col: usize,
    continues_at_col: bool,
) -> Row {
    let cols = joined.iter().map(|(c, _)| *c).chain([col]);
    let (lo, hi) = (cols.clone().min().unwrap_or(col), cols.max().unwrap_or(col));
    let mut cells = Vec::with_capacity(lanes.len() * 2);
    for (i, &lane) in lanes.iter().enumerate() {
        let kind = lane.map_or(EdgeKind::Replaces, |l| l.kind);
        let opened = joined.iter().any(|&(c, new)| c == i && new);
        let (up, down) = if i == col {
            (true, continues_at_col)
        } else {
            (lane.is_some() && !opened, lane.is_some())
        };
        let in_span = i >= lo && i <= hi;
        let ch = if in_span {
            joint(up, down, i > lo, i < hi, kind)
        } else if lane.is_some() {
            joint(true, true, false, false, kind)
        } else {
            ' '
        };
        cells.push(lane_cell(ch, kind));
        cells.push(lane_cell(if in_span && i < hi { '─' } else { ' ' }, kind));
    }
    Row {
        cells,
        entry: None,
        marks: Marks::default(),
        label: String::new(),
    }
}
