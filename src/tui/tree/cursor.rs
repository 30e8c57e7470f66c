//! The graph pane's cursor: an entry of the channel on screen, moved over the graph's entry rows.
//! It follows the tree's selection when that is an entry of the channel shown, and Enter (or an
//! edit key) in the graph pane selects its entry in the tree.

use super::Loaded;
use crate::tui::tree::items::tree_item;
use fbc_core::graph::channel::ChannelGraph;
use fbc_core::graph::channel::EdgeKind;
use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

impl Loaded {
    /// The entry under the graph cursor, when it is in the graph shown.
    pub fn cursor_node(&self) -> Option<NodeIndex> {
        let (g, _) = self.graph.as_ref()?;
        match self.graph_cursor.as_slice() {
            [p, c, e] if *p == g.package && *c == g.channel => g.node(e),
            _ => None,
        }
    }

    /// After the selection or the graph changed: the cursor goes to the selected entry when it is
    /// in the channel shown, stays where it is when it still names an entry shown, and else goes
    /// to the graph's first entry row.
    pub(crate) fn cursor_follow(&mut self) {
        let Some((g, lay)) = &self.graph else {
            self.graph_cursor.clear();
            return;
        };
        let sel = self.tree.selected();
        if let [p, c, e] = sel
            && *p == g.package
            && *c == g.channel
            && g.node(e).is_some()
        {
            self.graph_cursor = sel.to_vec();
            return;
        }
        if self.cursor_node().is_some() {
            return;
        }
        self.graph_cursor = lay
            .rows
            .iter()
            .find_map(|r| r.entry)
            .map(|n| {
                vec![
                    g.package.clone(),
                    g.channel.clone(),
                    g.graph[n].name.clone(),
                ]
            })
            .unwrap_or_default();
    }

    /// Moves the cursor `delta` entry rows (clamped; `isize::MIN`/`MAX` go to the ends) and scrolls
    /// the pane so its row is among the `visible` rows of lanes.
    pub(crate) fn move_cursor(&mut self, delta: isize, visible: usize) {
        let Some((g, lay)) = &self.graph else { return };
        let entries: Vec<(usize, NodeIndex)> = lay
            .rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.entry.map(|n| (i, n)))
            .collect();
        if entries.is_empty() {
            return;
        }
        let here = self.cursor_node();
        let at = entries.iter().position(|&(_, n)| Some(n) == here);
        let next = match at {
            None => 0,
            Some(i) => i.saturating_add_signed(delta).min(entries.len() - 1),
        };
        let (row, n) = entries[next];
        self.graph_cursor = vec![
            g.package.clone(),
            g.channel.clone(),
            g.graph[n].name.clone(),
        ];
        let visible = visible.max(1);
        if row < self.graph_scroll {
            self.graph_scroll = row;
        } else if row >= self.graph_scroll + visible {
            self.graph_scroll = row + 1 - visible;
        }
    }

    /// Enter in the graph pane: the cursor's entry selected in the tree (the filter cleared when it
    /// hides the entry). False when there is no cursor.
    pub(crate) fn select_cursor(&mut self) -> bool {
        if self.cursor_node().is_none() {
            return false;
        }
        let path = self.graph_cursor.clone();
        if tree_item(&self.items, &path).is_none() && self.filter.is_some() {
            self.filter = None;
            self.refilter();
        }
        if tree_item(&self.items, &path).is_none() {
            return false;
        }
        self.select_path(&path);
        true
    }
}

/// The edges of entry `n` in words: what it replaces and skips, then what replaces and skips it,
/// at most `most` names of each kind.
pub fn edge_summary(g: &ChannelGraph, n: NodeIndex, most: usize) -> Vec<String> {
    let mut out = Vec::new();
    let kinds = [EdgeKind::Replaces, EdgeKind::Skips, EdgeKind::SkipRange];
    // An edge runs from the older entry to the one that replaces or skips it.
    for (dir, words) in [
        (
            Direction::Incoming,
            ["replaces →", "skips →", "skipRange covers →"],
        ),
        (
            Direction::Outgoing,
            ["replaced by ←", "skipped by ←", "in skipRange of ←"],
        ),
    ] {
        for (kind, word) in kinds.iter().zip(words) {
            let mut names: Vec<&str> = g
                .graph
                .edges_directed(n, dir)
                .filter(|e| e.weight() == kind)
                .map(|e| {
                    let other = if dir == Direction::Incoming {
                        e.source()
                    } else {
                        e.target()
                    };
                    g.graph[other].name.as_str()
                })
                .collect();
            if names.is_empty() {
                continue;
            }
            names.sort_unstable();
            names.dedup();
            let more = names.len().saturating_sub(most);
            names.truncate(most);
            let mut s = format!("{word} {}", names.join(", "));
            if more > 0 {
                s.push_str(&format!(" (+{more})"));
            }
            out.push(s);
        }
    }
    out
}

/// The entries `n` replaces or skips (`Incoming`), or that replace or skip it (`Outgoing`).
pub fn linked(g: &ChannelGraph, n: NodeIndex, dir: Direction) -> Vec<NodeIndex> {
    g.graph.neighbors_directed(n, dir).collect()
}
