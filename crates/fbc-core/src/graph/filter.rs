//! Drawing part of a channel: opm's `--minimum-edge` (edges below a floor bundle's version left out)
//! and a version window (`--from`/`--to`: only entries in it, and the links between them).

use super::channel::{ChannelGraph, PackageFacts};
use crate::catalog::model::ChannelEntry;
use crate::catalog::semver_range::{Range, Version};

/// Versions to draw, both ends included.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub from: Option<Version>,
    pub to: Option<Version>,
}

impl Window {
    pub fn is_open(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }

    pub fn contains(&self, v: &Version) -> bool {
        self.from.as_ref().is_none_or(|f| v >= f) && self.to.as_ref().is_none_or(|t| v <= t)
    }
}

/// What to leave out of a drawing.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// opm's `--minimum-edge`: the floor bundle's name and version.
    pub minimum_edge: Option<(String, Version)>,
    pub window: Window,
}

impl Filter {
    pub fn is_none(&self) -> bool {
        self.minimum_edge.is_none() && self.window.is_open()
    }
}

/// The entries to draw, with the links that stay. `version` gives a name's version (0.0.0 for names
/// without a bundle, as opm reads them).
///
/// The minimum edge works as opm's `render-graph --minimum-edge`: the floor entry is kept without
/// links; other entries keep the `replaces` and `skips` targets whose version is at least the floor's
/// and the skipRange only if it contains the floor's version; an entry left without links is kept
/// only if it never had any and its own version is at least the floor's. The window then keeps the
/// entries whose version is in it, and of their links those to entries in it.
pub fn entries<'a>(
    entries: &[ChannelEntry<'a>],
    version: &dyn Fn(&str) -> Version,
    filter: &Filter,
) -> Vec<ChannelEntry<'a>> {
    let mut out: Vec<ChannelEntry<'a>> = Vec::with_capacity(entries.len());
    for e in entries {
        let Some((floor_name, floor)) = &filter.minimum_edge else {
            out.push(e.clone());
            continue;
        };
        let mut kept = ChannelEntry {
            name: e.name,
            replaces: None,
            skips: Vec::new(),
            skip_range: None,
            node: e.node,
        };
        if e.name == floor_name {
            out.push(kept);
            continue;
        }
        kept.replaces = e.replaces.filter(|r| !r.is_empty() && version(r) >= *floor);
        kept.skips = e
            .skips
            .iter()
            .copied()
            .filter(|s| version(s) >= *floor)
            .collect();
        kept.skip_range = e
            .skip_range
            .filter(|r| Range::parse(r).is_ok_and(|r| r.matches(floor)));
        let linked = kept.replaces.is_some() || !kept.skips.is_empty() || kept.skip_range.is_some();
        let never_linked =
            e.replaces.is_none_or(str::is_empty) && e.skips.is_empty() && e.skip_range.is_none();
        if linked || (never_linked && version(e.name) >= *floor) {
            out.push(kept);
        }
    }
    if filter.window.is_open() {
        return out;
    }
    let inside = |n: &str| filter.window.contains(&version(n));
    out.into_iter()
        .filter(|e| inside(e.name))
        .map(|mut e| {
            e.replaces = e.replaces.filter(|r| inside(r));
            e.skips.retain(|s| inside(s));
            e
        })
        .collect()
}

/// The graph of a channel with `filter` applied. Heads, skipped and dropped marks and the verdict on
/// the replaces chain are those of the whole channel, so the part drawn says what the channel is.
/// `None` when nothing of the channel is left.
pub fn channel_graph(
    package: &str,
    channel: &str,
    all: &[ChannelEntry],
    facts: &PackageFacts,
    version: &dyn Fn(&str) -> Version,
    filter: &Filter,
) -> Option<ChannelGraph> {
    let whole = ChannelGraph::from_entries(package, channel, all, facts);
    if filter.is_none() {
        return Some(whole);
    }
    let kept = entries(all, version, filter);
    if kept.is_empty() {
        return None;
    }
    Some(part(&whole, &kept, facts))
}

/// The graph of `kept` (entries of `whole`'s channel), marked as in the whole channel.
pub fn part(whole: &ChannelGraph, kept: &[ChannelEntry], facts: &PackageFacts) -> ChannelGraph {
    let mut part = ChannelGraph::from_entries(&whole.package, &whole.channel, kept, facts);
    for n in part.graph.node_indices() {
        if let Some(w) = whole.node(&part.graph[n].name) {
            let (from, to) = (&whole.graph[w], &mut part.graph[n]);
            to.head = from.head;
            to.skipped = from.skipped;
            to.rank = from.rank;
        }
    }
    part.chain = whole.chain.clone();
    part
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::node::{Kind, Node, Pos, Style};

    static NULL: Node = Node::with(Kind::Null, Pos::NONE, Style::Any);

    fn e(
        name: &'static str,
        replaces: &'static str,
        skips: &[&'static str],
        range: &'static str,
    ) -> ChannelEntry<'static> {
        ChannelEntry {
            name,
            replaces: (!replaces.is_empty()).then_some(replaces),
            skips: skips.to_vec(),
            skip_range: (!range.is_empty()).then_some(range),
            node: &NULL,
        }
    }

    fn version(name: &str) -> Version {
        Version::parse(name.trim_start_matches('v'))
            .unwrap_or_else(|_| Version::parse("0.0.0").unwrap())
    }

    fn names(v: &[ChannelEntry]) -> Vec<String> {
        v.iter()
            .map(|e| {
                format!(
                    "{}<{}!{}~{}",
                    e.name,
                    e.replaces.unwrap_or(""),
                    e.skips.join(","),
                    e.skip_range.unwrap_or("")
                )
            })
            .collect()
    }

    #[test]
    fn minimum_edge_keeps_what_opm_keeps() {
        let channel = [
            e("v1.0.0", "", &[], ""),
            e("v1.1.0", "v1.0.0", &[], ""),
            e("v1.2.0", "v1.1.0", &["v1.0.0"], ">=1.0.0 <1.2.0"),
            e("v1.3.0", "v1.2.0", &["v1.1.0"], ">=1.2.0 <1.3.0"),
            e("v0.9.0", "", &[], ""),
        ];
        let filter = Filter {
            minimum_edge: Some(("v1.1.0".into(), version("1.1.0"))),
            window: Window::default(),
        };
        assert_eq!(
            names(&entries(&channel, &version, &filter)),
            vec![
                // v1.0.0 never had links and is below the floor: left out.
                "v1.1.0<!~",
                "v1.2.0<v1.1.0!~>=1.0.0 <1.2.0",
                "v1.3.0<v1.2.0!v1.1.0~",
            ]
        );
    }

    #[test]
    fn a_window_keeps_entries_and_links_inside_it() {
        let channel = [
            e("v1.0.0", "", &[], ""),
            e("v1.1.0", "v1.0.0", &[], ""),
            e("v1.2.0", "v1.1.0", &["v1.0.0"], ""),
            e("v2.0.0", "v1.2.0", &[], ""),
        ];
        let filter = Filter {
            minimum_edge: None,
            window: Window {
                from: Some(version("1.1.0")),
                to: Some(version("1.2.0")),
            },
        };
        assert_eq!(
            names(&entries(&channel, &version, &filter)),
            vec!["v1.1.0<!~", "v1.2.0<v1.1.0!~"]
        );
    }
}
