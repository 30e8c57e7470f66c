//! A picture of what changed in a channel's graph, as Mermaid for a pull-request comment: the
//! changed entries and their direct neighbours (never the whole channel, so a channel of hundreds of
//! entries stays readable), added entries and links highlighted, removed ones drawn dashed, and
//! many links of one kind into one entry folded into a single "N entries" node.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use petgraph::Direction;
use petgraph::visit::EdgeRef;

use super::{ChannelDiff, Edge, edges};
use crate::catalog::version_release::VersionRelease;
use crate::graph::channel::{ChannelGraph, EdgeKind};

/// Nodes drawn at most; the rest of the neighbourhood is counted.
pub const MAX_NODES: usize = 40;
/// Links of one kind into one entry drawn one by one at most; more are folded into one node.
pub const FOLD: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Kept,
    Added,
    Removed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PicNode {
    pub label: String,
    pub status: Status,
    /// The head of the new channel.
    pub head: bool,
    /// A node standing for several entries (folded links).
    pub group: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PicEdge {
    pub from: usize,
    pub to: usize,
    pub kind: &'static str,
    pub status: Status,
}

/// The changed neighbourhood of one channel.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Picture {
    pub nodes: Vec<PicNode>,
    pub edges: Vec<PicEdge>,
    /// Entries of the neighbourhood left out to keep the picture readable.
    pub left_out: usize,
}

fn version_of(old: &ChannelGraph, new: &ChannelGraph, name: &str) -> Option<VersionRelease> {
    let v = |g: &ChannelGraph| g.node(name).and_then(|n| g.graph[n].version_release());
    v(new).or_else(|| v(old))
}

/// Names linked to `name` by replaces or skips, either way, in `g`; links of a kind that come in
/// bulk (more than [`FOLD`] into or out of the entry) are folded when drawn, so their other ends
/// are not neighbours.
fn neighbours(g: &ChannelGraph, name: &str, out: &mut BTreeSet<String>) {
    let Some(n) = g.node(name) else { return };
    for dir in [Direction::Incoming, Direction::Outgoing] {
        for kind in [EdgeKind::Replaces, EdgeKind::Skips] {
            let ends: Vec<_> = g
                .graph
                .edges_directed(n, dir)
                .filter(|e| *e.weight() == kind)
                .map(|e| {
                    if dir == Direction::Incoming {
                        e.source()
                    } else {
                        e.target()
                    }
                })
                .collect();
            if ends.len() <= FOLD {
                out.extend(ends.into_iter().map(|m| g.graph[m].name.clone()));
            }
        }
    }
}

/// Whether the channel's graph changed at all: an entry or a link came or went.
fn relinked(d: &ChannelDiff) -> bool {
    !d.entries_added.is_empty()
        || !d.entries_removed.is_empty()
        || !d.edges_added.is_empty()
        || !d.edges_removed.is_empty()
}

/// The entries the picture is about: those added or removed, both ends of every changed link
/// (the sources of a large group of changed links are drawn as one node, so they are left out), and
/// the heads of both channels.
fn focus(d: &ChannelDiff, old: &ChannelGraph, new: &ChannelGraph) -> BTreeSet<String> {
    let mut focus: BTreeSet<String> = BTreeSet::new();
    focus.extend(d.entries_added.iter().cloned());
    focus.extend(d.entries_removed.iter().cloned());
    // Changed links come in groups (into one entry, of one kind).
    let mut bulk: BTreeMap<(&str, &str, bool), usize> = BTreeMap::new();
    for (added, list) in [(true, &d.edges_added), (false, &d.edges_removed)] {
        for e in list {
            *bulk.entry((e.to.as_str(), e.kind, added)).or_default() += 1;
        }
    }
    for (added, list) in [(true, &d.edges_added), (false, &d.edges_removed)] {
        for e in list {
            focus.insert(e.to.clone());
            let in_channel = old.node(&e.from).is_some() || new.node(&e.from).is_some();
            if in_channel && bulk[&(e.to.as_str(), e.kind, added)] <= FOLD {
                focus.insert(e.from.clone());
            }
        }
    }
    for g in [old, new] {
        if let Some(h) = g.chain.head() {
            focus.insert(h.to_string());
        }
    }
    focus
}

/// The status of an entry or a link, from whether the old and the new channel have it.
fn status_of(in_old: bool, in_new: bool) -> Status {
    match (in_old, in_new) {
        (false, true) => Status::Added,
        (true, false) => Status::Removed,
        _ => Status::Kept,
    }
}

/// Links of one kind and status into one entry.
type Groups<'e> = BTreeMap<(&'e str, &'static str, Status), Vec<&'e Edge>>;

/// The links into the neighbourhood `universe`, grouped by target, kind and status. A changed link
/// is drawn from wherever it comes (its group may be folded); an unchanged one only between entries
/// of the neighbourhood that are in the channel.
fn link_groups<'e>(
    oe: &'e BTreeSet<Edge>,
    ne: &'e BTreeSet<Edge>,
    universe: &BTreeSet<&String>,
    in_channel: impl Fn(&str) -> bool,
) -> Groups<'e> {
    let mut groups: Groups<'e> = BTreeMap::new();
    for e in oe.union(ne) {
        let status = status_of(oe.contains(e), ne.contains(e));
        let from_ok = if status == Status::Kept {
            in_channel(&e.from) && universe.contains(&e.from)
        } else {
            true
        };
        if universe.contains(&e.to) && from_ok {
            groups
                .entry((e.to.as_str(), e.kind, status))
                .or_default()
                .push(e);
        }
    }
    groups
}

/// Names to draw: the focus, then whatever the unfolded links need, each part newest first.
fn names_to_draw(
    focus: &BTreeSet<String>,
    groups: &Groups<'_>,
    old: &ChannelGraph,
    new: &ChannelGraph,
) -> Vec<String> {
    let newest_first = |v: &mut Vec<String>| {
        v.sort_by(|a, b| {
            version_of(old, new, b)
                .cmp(&version_of(old, new, a))
                .then(a.cmp(b))
        });
    };
    let mut first: Vec<String> = focus.iter().cloned().collect();
    newest_first(&mut first);
    let mut needed: BTreeSet<String> = BTreeSet::new();
    for ((to, _, _), es) in groups {
        needed.insert(to.to_string());
        if es.len() <= FOLD {
            needed.extend(es.iter().map(|e| e.from.clone()));
        }
    }
    let mut then: Vec<String> = needed.into_iter().filter(|n| !focus.contains(n)).collect();
    newest_first(&mut then);
    first.extend(then);
    first
}

/// The node standing for a folded group of links: how many entries, oldest … newest. It is marked
/// added or removed only when every entry it stands for was: the link carries the links' `status`
/// (a new skipRange adds links from entries that were there all along). A name that is no entry
/// of either channel (a skip of a bundle outside it) goes by its link.
fn group_node(es: &[&Edge], links: Status, old: &ChannelGraph, new: &ChannelGraph) -> PicNode {
    let of = |n: &str| match (old.node(n).is_some(), new.node(n).is_some()) {
        (false, false) => links,
        (in_old, in_new) => status_of(in_old, in_new),
    };
    let first = es.first().map_or(Status::Kept, |e| of(e.from.as_str()));
    let status = if es.iter().all(|e| of(e.from.as_str()) == first) {
        first
    } else {
        Status::Kept
    };
    let mut names: Vec<&str> = es.iter().map(|e| e.from.as_str()).collect();
    names.sort_by_key(|n| std::cmp::Reverse(version_of(old, new, n)));
    let label = format!(
        "{} entries: {} … {}",
        names.len(),
        names.last().copied().unwrap_or(""),
        names.first().copied().unwrap_or("")
    );
    PicNode {
        label,
        status,
        head: false,
        group: true,
    }
}

impl Picture {
    /// The picture of a changed channel, or `None` when its graph did not change.
    pub fn build(d: &ChannelDiff, old: &ChannelGraph, new: &ChannelGraph) -> Option<Picture> {
        if !relinked(d) {
            return None;
        }
        let focus = focus(d, old, new);
        let mut around = BTreeSet::new();
        for f in &focus {
            neighbours(old, f, &mut around);
            neighbours(new, f, &mut around);
        }
        let universe: BTreeSet<&String> = focus.iter().chain(&around).collect();
        let in_channel = |n: &str| old.node(n).is_some() || new.node(n).is_some();
        // Links into the neighbourhood (from names outside the channel only when they changed).
        let (oe, ne) = (edges(old), edges(new));
        let groups = link_groups(&oe, &ne, &universe, in_channel);
        let mut shown = names_to_draw(&focus, &groups, old, new);
        let total = shown.len();
        shown.truncate(MAX_NODES);
        let mut pic = Picture {
            left_out: total - shown.len(),
            ..Default::default()
        };
        let index = pic.add_entries(&shown, old, new);
        pic.add_links(groups, &index, old, new);
        pic.edges.sort_by_key(|e| (e.to, e.from, e.kind, e.status));
        Some(pic)
    }

    /// Adds a node for each of `shown`; returns where each name went.
    fn add_entries(
        &mut self,
        shown: &[String],
        old: &ChannelGraph,
        new: &ChannelGraph,
    ) -> HashMap<String, usize> {
        let new_head = new.chain.head();
        let mut index: HashMap<String, usize> = HashMap::new();
        for name in shown {
            let status = status_of(old.node(name).is_some(), new.node(name).is_some());
            index.insert(name.clone(), self.nodes.len());
            self.nodes.push(PicNode {
                label: name.clone(),
                status,
                head: new_head == Some(name.as_str()),
                group: false,
            });
        }
        index
    }

    /// Adds the links of each group into a drawn entry: one by one, or, for a large group, one
    /// link from a node standing for all its sources.
    fn add_links(
        &mut self,
        groups: Groups<'_>,
        index: &HashMap<String, usize>,
        old: &ChannelGraph,
        new: &ChannelGraph,
    ) {
        for ((to, kind, status), es) in groups {
            let Some(&to) = index.get(to) else { continue };
            if es.len() > FOLD {
                let from = self.nodes.len();
                self.nodes.push(group_node(&es, status, old, new));
                self.edges.push(PicEdge {
                    from,
                    to,
                    kind,
                    status,
                });
                continue;
            }
            for e in es {
                if let Some(&from) = index.get(&e.from) {
                    self.edges.push(PicEdge {
                        from,
                        to,
                        kind,
                        status,
                    });
                }
            }
        }
    }

    /// The picture as a Mermaid flowchart: older entries on the left, as `opm alpha render-graph`
    /// draws them; added entries and links green, removed ones red and dashed.
    pub fn mermaid(&self) -> String {
        let mut out = String::from(
            "graph LR\n  classDef added fill:#dafbe1,stroke:#1a7f37,stroke-width:2px\n  classDef removed fill:#ffffff,stroke:#cf222e,stroke-width:2px,stroke-dasharray:5 5,color:#cf222e\n  classDef group fill:#f6f8fa,stroke:#8c959f,stroke-dasharray:2 2\n",
        );
        for (i, n) in self.nodes.iter().enumerate() {
            let mut label = n.label.replace('"', "#quot;");
            if n.head {
                label.push_str(" (head)");
            }
            let class = match (n.status, n.group) {
                (Status::Added, _) => ":::added",
                (Status::Removed, _) => ":::removed",
                (Status::Kept, true) => ":::group",
                (Status::Kept, false) => "",
            };
            let _ = writeln!(out, "  n{i}[\"{label}\"]{class}");
        }
        let mut added = Vec::new();
        let mut removed = Vec::new();
        for (i, e) in self.edges.iter().enumerate() {
            let arrow = match e.status {
                Status::Kept => format!("-- {} -->", e.kind),
                Status::Added => format!("== {} ==>", e.kind),
                Status::Removed => format!("-. {} .->", e.kind),
            };
            let _ = writeln!(out, "  n{} {arrow} n{}", e.from, e.to);
            match e.status {
                Status::Added => added.push(i.to_string()),
                Status::Removed => removed.push(i.to_string()),
                Status::Kept => {}
            }
        }
        if self.left_out > 0 {
            let _ = writeln!(
                out,
                "  more[\"… {} more linked entries not drawn\"]:::group",
                self.left_out
            );
        }
        if !added.is_empty() {
            let _ = writeln!(
                out,
                "  linkStyle {} stroke:#1a7f37,stroke-width:3px",
                added.join(",")
            );
        }
        if !removed.is_empty() {
            let _ = writeln!(
                out,
                "  linkStyle {} stroke:#cf222e,stroke-width:2px,stroke-dasharray:5 5",
                removed.join(",")
            );
        }
        out
    }
}
