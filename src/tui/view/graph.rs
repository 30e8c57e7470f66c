//! Drawing the graph pane: the selected channel's lanes, OLM v1's view of them, and review mode's
//! changes of the channel.

use super::{block, text};
use crate::theme::{Role, Theme};
use crate::tui::app::{Loaded, ObjectChange, review_mark};
use crate::tui::layout::CURSOR_LINES;
use crate::tui::tree::{edge_summary, linked};
use fbc_core::graph::channel::{ChannelGraph, EdgeKind};
use fbc_core::graph::layout::CellKind;
use fbc_core::graph::layout::{Cell, Layout, Row};
use petgraph::Direction::{Incoming, Outgoing};
use petgraph::graph::NodeIndex;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use tui_tree_widget::TreeState;

/// Review mode: rows of what the change added in green, ghost rows of what it removed in red
/// (their `+`/`-` marks say the same without colour).
pub(super) fn colour_review_rows(
    l: &Loaded,
    tree: &TreeState<String>,
    f: &mut Frame,
    inner: Rect,
    theme: &Theme,
) {
    let mut previous: Option<&[String]> = None;
    for y in inner.top()..inner.bottom() {
        // Rows below the last item report the last item again.
        let Some(path) = tree.rendered_at(Position::new(inner.x, y)) else {
            continue;
        };
        if previous == Some(path) {
            break;
        }
        previous = Some(path);
        let colour = match review_mark(&l.changes, path) {
            Some(ObjectChange::Added) => Role::Added,
            Some(ObjectChange::Removed) => Role::Removed,
            _ => continue,
        };
        f.buffer_mut()
            .set_style(Rect::new(inner.x, y, inner.width, 1), theme.role(colour));
    }
}

pub(super) fn graph(l: &Loaded, f: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
    let Some((g, lay)) = &l.graph else {
        f.render_widget(
            Paragraph::new("Select a channel to see its upgrade graph.")
                .block(block("graph", focused, theme)),
            area,
        );
        return;
    };
    // Focused, the pane shows its cursor; else the tree's selected entry.
    let selected = if focused {
        l.cursor_node()
    } else {
        l.selected().get(2).and_then(|e| g.node(e))
    };
    let mut lines = legend_lines(l, g, selected, theme);
    let edges = match selected {
        Some(n) if focused => cursor_lines(g, n, area.width.saturating_sub(2) as usize, theme),
        _ => Vec::new(),
    };
    // Review mode: what the change removed or relinked here, listed under the lanes in the room
    // they leave, and in at least half the pane.
    let room = area.height.saturating_sub(3) as usize;
    let review = review_lines(
        l,
        g,
        theme,
        (room / 2).max(room.saturating_sub(lay.rows.len())),
    );
    let visible = room
        .saturating_sub(review.len())
        .saturating_sub(edges.len());
    let start = first_row(l, lay, selected, visible);
    // The selected entry's neighbours are highlighted; with the cursor, what it replaces or skips
    // is marked `→` and what replaces or skips it `←`.
    let links = Links {
        older: selected.map(|n| linked(g, n, Incoming)).unwrap_or_default(),
        newer: selected.map(|n| linked(g, n, Outgoing)).unwrap_or_default(),
        arrows: !edges.is_empty(),
    };
    let room = usize::from(area.width.saturating_sub(2));
    for row in lay.rows.iter().skip(start).take(visible) {
        lines.push(row_line(
            l,
            g,
            (lay.width, room),
            row,
            selected,
            &links,
            theme,
        ));
    }
    lines.extend(edges);
    lines.extend(review);
    f.render_widget(
        Paragraph::new(lines).block(block(&graph_title(l, g), focused, theme)),
        area,
    );
}

/// The pane's title: package and channel, whether it is the default, which rules apply.
fn graph_title(l: &Loaded, g: &ChannelGraph) -> String {
    let mut title = format!("graph · {}/{}", g.package, g.channel);
    if g.default {
        title.push_str(" ★ default");
    }
    if l.olm_v1 {
        title.push_str(" · OLM v1 rules");
    }
    title
}

/// The legend, and under OLM v1 rules what OLM v1 takes from the selected entry.
fn legend_lines(
    l: &Loaded,
    g: &ChannelGraph,
    selected: Option<NodeIndex>,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(
        if l.olm_v1 {
            "◉ head ● entry ○ dropped by OLM v0, kept by OLM v1 ✗ deprecated │ replaces ┆ skips"
        } else {
            "◉ head ● entry ○ dropped by OLM v0 ✗ deprecated │ replaces ┆ skips"
        },
        theme.role(Role::Muted),
    ))];
    if l.olm_v1
        && let Some(n) = selected
    {
        lines.push(Line::from(Span::styled(
            olm_v1_line(g, n),
            theme.role(Role::Lane),
        )));
    }
    lines
}

/// The first row shown: the scroll offset, moved so the selected entry is in view.
fn first_row(l: &Loaded, lay: &Layout, selected: Option<NodeIndex>, visible: usize) -> usize {
    let start = l.graph_scroll.min(lay.rows.len().saturating_sub(1));
    match selected.and_then(|n| lay.rows.iter().position(|r| r.entry == Some(n))) {
        Some(i) if i < start || i >= start + visible => i.saturating_sub(visible / 2),
        _ => start,
    }
}

/// The entries linked to the selected one: those it replaces or skips (`older`), those that
/// replace or skip it (`newer`), and whether their labels carry arrows (the graph's cursor).
struct Links {
    older: Vec<NodeIndex>,
    newer: Vec<NodeIndex>,
    arrows: bool,
}

/// The lines under the lanes for the cursor's entry: its edges in both directions, packed into
/// at most [`CURSOR_LINES`] lines of `width`.
fn cursor_lines(g: &ChannelGraph, n: NodeIndex, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut words = edge_summary(g, n, 3);
    if words.is_empty() {
        words.push("no edges".into());
    }
    let name = format!("{}: ", g.graph[n].name);
    let mut used = name.chars().count();
    let mut lines = vec![vec![Span::styled(
        name,
        Style::default().add_modifier(Modifier::BOLD),
    )]];
    let mut first = true;
    for w in words {
        let len = w.chars().count();
        if !first && used + 3 + len > width && lines.len() < CURSOR_LINES {
            lines.push(Vec::new());
            used = 0;
            first = true;
        }
        let Some(line) = lines.last_mut() else { break };
        if !first {
            line.push(Span::raw(" · "));
            used += 3;
        }
        line.push(Span::styled(w, theme.role(Role::Key)));
        used += len;
        first = false;
    }
    lines.into_iter().map(Line::from).collect()
}

/// One row of lanes and its label: the selected entry reversed, its neighbours underlined (with
/// the cursor, `→` before what it replaces or skips, `←` before what replaces or skips it), and
/// in review mode a new entry's label green and marked `+`. `width` is the lanes' width, `room`
/// the pane's: a label too long for it has its name cut from the left, so the version and marks
/// after it stay in sight.
fn row_line(
    l: &Loaded,
    g: &ChannelGraph,
    (width, room): (usize, usize),
    row: &Row,
    selected: Option<NodeIndex>,
    links: &Links,
    theme: &Theme,
) -> Line<'static> {
    let mut spans: Vec<Span> = row
        .cells
        .iter()
        .map(|c| Span::styled(c.ch.to_string(), cell_style(c, row, theme)))
        .collect();
    spans.push(Span::raw(
        " ".repeat(width.saturating_sub(row.cells.len()) + 1),
    ));
    let mut style = Style::default();
    let added = row.entry.is_some_and(|n| is_added(l, g, n));
    if added {
        style = theme.role(Role::Added).add_modifier(Modifier::BOLD);
    }
    let older = row.entry.is_some_and(|n| links.older.contains(&n));
    let newer = row.entry.is_some_and(|n| links.newer.contains(&n));
    if row.entry.is_some() && row.entry == selected {
        style = style.add_modifier(Modifier::REVERSED);
    } else if links.arrows && older {
        style = theme.role(Role::Key).add_modifier(Modifier::UNDERLINED);
        spans.push(Span::styled("→ ", theme.role(Role::Key)));
    } else if links.arrows && newer {
        style = theme.role(Role::Notice).add_modifier(Modifier::UNDERLINED);
        spans.push(Span::styled("← ", theme.role(Role::Notice)));
    } else if older || newer {
        style = theme.role(Role::Added).add_modifier(Modifier::UNDERLINED);
    }
    if added {
        // The mark stays visible however long the label runs.
        spans.push(Span::styled("+ ", theme.role(Role::Added)));
    }
    // The label comes first; a substitution's note after it is cut at the pane's edge.
    let said = row.entry.and_then(|n| substitution(l, &g.graph[n].name));
    let used: usize = spans.iter().map(|s| text::width(&s.content)).sum();
    let left = room.saturating_sub(used);
    // The name gives way to its version and marks; notes after them (`  · skipRange …`) are cut
    // at the pane's edge rather than cost the name.
    let name = row.entry.map_or("", |n| g.graph[n].name.as_str());
    let (main, notes) = row
        .label
        .find("  · ")
        .map_or((row.label.as_str(), ""), |i| row.label.split_at(i));
    let label = if text::width(main) <= left {
        row.label.clone()
    } else {
        format!("{}{notes}", super::cut::fit(main, name, left))
    };
    spans.push(Span::styled(label, style));
    if let Some(said) = said {
        spans.push(Span::styled(said, theme.role(Role::Notice)));
    }
    Line::from(spans)
}

/// In a substitutes template's rendering: what substitutions made of this entry (in a chain, a
/// substitute is the base of the next one too).
fn substitution(l: &Loaded, name: &str) -> Option<String> {
    let subs = l.ws.templates()?.shown_template().substitutions();
    let mut said = String::new();
    if let Some((base, _)) = subs.iter().find(|(_, s)| s == name) {
        said.push_str(&format!("  ⇐ substitutes {base}"));
    }
    if let Some((_, by)) = subs.iter().find(|(b, _)| b == name) {
        said.push_str(&format!("  ⇒ substituted by {by}"));
    }
    (!said.is_empty()).then_some(said)
}

/// The colour of one cell of the lanes: the node by the entry's marks, a lane by its edge kind.
fn cell_style(c: &Cell, row: &Row, theme: &Theme) -> Style {
    match c.kind {
        CellKind::Node if row.marks.deprecated => theme.role(Role::Deprecated),
        CellKind::Node if row.marks.head => theme.role(Role::Added).add_modifier(Modifier::BOLD),
        CellKind::Node if row.marks.dropped => theme.role(Role::Muted),
        CellKind::Lane(EdgeKind::Skips) => theme.role(Role::Skips),
        CellKind::Lane(_) => theme.role(Role::Lane),
        _ => Style::default(),
    }
}

/// Review mode: whether the change under review added this entry to the channel.
fn is_added(l: &Loaded, g: &ChannelGraph, n: NodeIndex) -> bool {
    l.changes.iter().any(|c| {
        c.object == ObjectChange::Added
            && c.path.len() == 3
            && c.path[0] == g.package
            && c.path[1] == g.channel
            && c.path[2] == g.graph[n].name
    })
}

/// What OLM v1 takes from the selected entry, beside what OLM v0 offers.
pub(super) fn olm_v1_line(
    g: &fbc_core::graph::channel::ChannelGraph,
    n: petgraph::graph::NodeIndex,
) -> String {
    use fbc_core::graph::query::{Installed, v0_offers, v1_successors};
    let from = Installed {
        name: Some(g.graph[n].name.clone()),
        version: g.graph[n].version.clone(),
    };
    let v1 = v1_successors(&[g], &from)
        .into_iter()
        .find(|s| Some(&s.name) != from.name.as_ref());
    let v0 = v0_offers(g, &from)
        .ok()
        .and_then(|o| o.first().map(|o| g.graph[o.entry].name.clone()));
    let v0 = v0.map_or("OLM v0 offers nothing".to_string(), |x| {
        format!("OLM v0 offers {x}")
    });
    match v1 {
        Some(s) => format!(
            "OLM v1 from here takes {} (highest successor); {v0}",
            s.name
        ),
        None => format!("OLM v1 from here: no successor; {v0}"),
    }
}

/// An edge in words: the newer entry first, as the catalog says it.
pub(super) fn edge_words(e: &fbc_core::diff::Edge) -> String {
    match e.kind {
        "skipRange" => format!("skipRange of {} matches {}", e.to, e.from),
        kind => format!("{} {kind} {}", e.to, e.from),
    }
}

/// Review mode: the selected channel's removed entries, removed and added edges and rewritten
/// skipRanges, in at most `room` lines (the rest are in the changes pane).
pub(super) fn review_lines(
    l: &Loaded,
    g: &fbc_core::graph::channel::ChannelGraph,
    theme: &Theme,
    room: usize,
) -> Vec<Line<'static>> {
    let Some(d) = l.channel_review(&g.package, &g.channel) else {
        return Vec::new();
    };
    let selected = l.selected().get(2);
    let (red, green) = (theme.role(Role::Removed), theme.role(Role::Added));
    let mut items: Vec<Line> = Vec::new();
    for e in &d.entries_removed {
        let style = if selected == Some(e) {
            red.add_modifier(Modifier::REVERSED)
        } else {
            red
        };
        items.push(Line::from(Span::styled(format!("- {e}  removed"), style)));
    }
    // A changed skipRange's links are said by its own line: what it now covers.
    for e in d.edges_removed.iter().filter(|e| !d.by_skip_range(e)) {
        items.push(Line::from(Span::styled(
            format!("- {}", edge_words(e)),
            red,
        )));
    }
    for e in d.edges_added.iter().filter(|e| !d.by_skip_range(e)) {
        items.push(Line::from(Span::styled(
            format!("+ {}", edge_words(e)),
            green,
        )));
    }
    for r in &d.skip_ranges_changed {
        items.push(Line::from(Span::styled(
            format!(
                "~ skipRange of {}: {} → {}{}",
                r.entry,
                fbc_core::diff::range_text(&r.old),
                fbc_core::diff::range_text(&r.new),
                r.coverage().map_or_else(String::new, |c| format!(": {c}"))
            ),
            theme.role(Role::Skips),
        )));
    }
    if items.is_empty() || room < 2 {
        return Vec::new();
    }
    // A heading, then as many as fit, then how many more there are.
    if items.len() + 1 > room {
        let more = items.len() - (room - 2);
        items.truncate(room - 2);
        items.push(Line::from(Span::styled(
            format!("… {more} more in the changes pane"),
            theme.role(Role::Muted),
        )));
    }
    let mut out = vec![Line::from(Span::styled(
        "changes in this channel:",
        theme.role(Role::Muted),
    ))];
    out.extend(items);
    out
}
