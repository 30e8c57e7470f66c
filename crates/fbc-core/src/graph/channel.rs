//! One channel's upgrade graph: its entries as nodes, `replaces`, `skips` and `skipRange` as edges of
//! their own kind, pointing from the version a cluster runs to the entry it can upgrade to.

use std::collections::{HashMap, HashSet};

use petgraph::graph::{DiGraph, NodeIndex};

use super::{Chain, check_chain};
use crate::catalog::model::{Bundle, Channel, ChannelEntry, Deprecations, Package};
use crate::catalog::semver_range::{Pre, Range, Version};
use crate::catalog::version_release::{VersionRelease, compare_release};
use crate::catalog::{BlobId, Catalog, PackageIndex, schema};

/// How an entry is linked to an older one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeKind {
    Replaces,
    Skips,
    SkipRange,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Replaces => "replaces",
            EdgeKind::Skips => "skips",
            EdgeKind::SkipRange => "skipRange",
        }
    }
}

/// An entry of the channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryNode {
    pub name: String,
    /// From the bundle's `olm.package` property; `None` when there is no bundle or the version is bad.
    pub version: Option<Version>,
    /// The bundle's release (empty for none): shown beside the version and ordered after it.
    pub release: Vec<Pre>,
    /// No entry of the channel replaces or skips it (a valid channel has exactly one).
    pub head: bool,
    /// Deprecated itself (a bundle deprecation), not through its channel or package.
    pub deprecated: bool,
    /// Named in some entry's `skips`: OLM v0 drops it from the channel and ignores its `replaces`.
    pub skipped: bool,
    /// Place on the replaces chain walked from the head (0 = head): the order OLM v0 keeps. `None`
    /// for entries OLM v0 drops (skipped ones, and stranded ones), and for every entry when the
    /// channel cannot be ordered (no single head, or a cycle).
    pub rank: Option<usize>,
    /// Position in the channel's `entries` list.
    pub position: usize,
}

/// An edge whose older end is not an entry of the channel (a pruned release, or a typo).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutsideEdge {
    pub to: NodeIndex,
    pub kind: EdgeKind,
    pub from: String,
}

/// A channel's upgrade graph. Edges go from the older entry to the newer one that replaces, skips
/// or (through its skipRange) matches it.
#[derive(Clone, Debug)]
pub struct ChannelGraph {
    pub package: String,
    pub channel: String,
    /// Whether this is the package's default channel.
    pub default: bool,
    pub deprecated: bool,
    pub graph: DiGraph<EntryNode, EdgeKind>,
    pub by_name: HashMap<String, NodeIndex>,
    /// `skipRange` text of entries that have one.
    pub skip_ranges: HashMap<NodeIndex, String>,
    pub outside: Vec<OutsideEdge>,
    /// opm's verdict on the replaces chain, with owned names.
    pub chain: ChainSummary,
}

/// [`Chain`] with owned names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainSummary {
    Valid { head: String },
    Empty,
    NoHead,
    MultipleHeads(Vec<String>),
    Cycle(Vec<String>),
    Stranded { head: String, stranded: Vec<String> },
}

impl ChainSummary {
    /// The head, when there is exactly one.
    pub fn head(&self) -> Option<&str> {
        match self {
            ChainSummary::Valid { head } | ChainSummary::Stranded { head, .. } => Some(head),
            _ => None,
        }
    }
}

/// What the graph of a channel needs from its package: versions and deprecations.
pub struct PackageFacts {
    pub versions: HashMap<String, Version>,
    /// Releases of the bundles that have one (as opm reads them: a release that does not parse
    /// counts as none).
    pub releases: HashMap<String, Vec<Pre>>,
    pub deprecated_bundles: HashSet<String>,
    pub deprecated_channels: HashSet<String>,
    pub deprecated: bool,
    pub default_channel: String,
}

impl PackageFacts {
    /// The version and release of bundle `name`, `None` without a readable version.
    pub fn version_release(&self, name: &str) -> Option<VersionRelease> {
        self.versions.get(name).map(|v| VersionRelease {
            version: v.clone(),
            release: self.releases.get(name).cloned().unwrap_or_default(),
        })
    }

    pub fn read(catalog: &Catalog, idx: &PackageIndex) -> PackageFacts {
        let mut versions = HashMap::new();
        let mut releases = HashMap::new();
        for &id in &idx.bundles {
            let Ok(b) = Bundle::read(&catalog.blob(id).value) else {
                continue;
            };
            if let Some(vr) = VersionRelease::of_bundle(&b)
                && !versions.contains_key(b.name)
            {
                if vr.has_release() {
                    releases.insert(b.name.to_string(), vr.release);
                }
                versions.insert(b.name.to_string(), vr.version);
            }
        }
        let mut facts = PackageFacts {
            versions,
            releases,
            deprecated_bundles: HashSet::new(),
            deprecated_channels: HashSet::new(),
            deprecated: false,
            default_channel: idx
                .packages
                .first()
                .and_then(|&id| Package::read(&catalog.blob(id).value).ok())
                .map(|p| p.default_channel.to_string())
                .unwrap_or_default(),
        };
        for &id in idx.deprecations.iter().take(1) {
            let Ok(d) = Deprecations::read(&catalog.blob(id).value) else {
                continue;
            };
            for e in d.entries {
                match e.schema {
                    schema::PACKAGE => facts.deprecated = true,
                    schema::CHANNEL => {
                        facts.deprecated_channels.insert(e.name.to_string());
                    }
                    schema::BUNDLE => {
                        facts.deprecated_bundles.insert(e.name.to_string());
                    }
                    _ => {}
                }
            }
        }
        facts
    }
}

impl EntryNode {
    /// Its version and release, `None` without a version.
    pub fn version_release(&self) -> Option<VersionRelease> {
        version_release(&self.version, &self.release)
    }
}

impl PackageNode {
    /// Its version and release, `None` without a version.
    pub fn version_release(&self) -> Option<VersionRelease> {
        version_release(&self.version, &self.release)
    }
}

fn version_release(v: &Option<Version>, r: &[Pre]) -> Option<VersionRelease> {
    v.as_ref().map(|v| VersionRelease {
        version: v.clone(),
        release: r.to_vec(),
    })
}

impl ChannelGraph {
    /// The graph of channel blob `id` of package `idx`.
    pub fn build(catalog: &Catalog, facts: &PackageFacts, id: BlobId) -> Option<ChannelGraph> {
        let ch = Channel::read(&catalog.blob(id).value).ok()?;
        Some(Self::from_entries(ch.package, ch.name, &ch.entries, facts))
    }

    /// The graph of a channel given its entries.
    pub fn from_entries(
        package: &str,
        channel: &str,
        entries: &[ChannelEntry],
        facts: &PackageFacts,
    ) -> ChannelGraph {
        let chain = check_chain(entries);
        let (mut graph, by_name) = entry_nodes(entries, facts, &chain);
        let (skip_ranges, outside) = link_entries(entries, &mut graph, &by_name);
        add_skip_range_edges(&mut graph, &skip_ranges);
        ChannelGraph {
            package: package.to_string(),
            channel: channel.to_string(),
            default: facts.default_channel == channel,
            deprecated: facts.deprecated_channels.contains(channel),
            graph,
            by_name,
            skip_ranges,
            outside,
            chain: chain.into(),
        }
    }

    /// Whether OLM v0 can order the channel (one head, no cycle), so that ranks mean something.
    pub fn ordered(&self) -> bool {
        matches!(
            self.chain,
            ChainSummary::Valid { .. } | ChainSummary::Stranded { .. }
        )
    }

    /// Whether OLM v0 drops the entry from an ordered channel (it is skipped or stranded).
    pub fn dropped(&self, n: NodeIndex) -> bool {
        self.ordered() && self.graph[n].rank.is_none()
    }

    pub fn node(&self, name: &str) -> Option<NodeIndex> {
        self.by_name.get(name).copied()
    }

    /// Entries newest first: by version and release (entries without a version last), then by
    /// their place in the file.
    pub fn newest_first(&self) -> Vec<NodeIndex> {
        let mut order: Vec<NodeIndex> = self.graph.node_indices().collect();
        order.sort_by(|&a, &b| {
            let (na, nb) = (&self.graph[a], &self.graph[b]);
            match (&na.version, &nb.version) {
                (Some(x), Some(y)) => y
                    .cmp(x)
                    .then_with(|| compare_release(&nb.release, &na.release)),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
            .then(nb.position.cmp(&na.position))
        });
        order
    }
}

/// One node per entry (a repeated entry counts once), with its version, marks and rank.
fn entry_nodes(
    entries: &[ChannelEntry],
    facts: &PackageFacts,
    chain: &Chain,
) -> (DiGraph<EntryNode, EdgeKind>, HashMap<String, NodeIndex>) {
    // Ranks exist only when OLM v0 can order the channel; heads are marked either way (several
    // heads are the problem to show).
    let ranks: HashMap<&str, usize> = match chain {
        Chain::Valid { chain, .. } | Chain::Stranded { chain, .. } => {
            chain.iter().enumerate().map(|(i, n)| (*n, i)).collect()
        }
        _ => HashMap::new(),
    };
    let heads: HashSet<&str> = super::heads(entries).into_iter().collect();
    let skipped: HashSet<&str> = entries
        .iter()
        .flat_map(|e| e.skips.iter().copied())
        .collect();
    let mut graph = DiGraph::with_capacity(entries.len(), entries.len() * 2);
    let mut by_name = HashMap::with_capacity(entries.len());
    for (position, e) in entries.iter().enumerate() {
        if by_name.contains_key(e.name) {
            continue;
        }
        let n = graph.add_node(EntryNode {
            name: e.name.to_string(),
            version: facts.versions.get(e.name).cloned(),
            release: facts.releases.get(e.name).cloned().unwrap_or_default(),
            head: heads.contains(e.name),
            deprecated: facts.deprecated_bundles.contains(e.name),
            skipped: skipped.contains(e.name),
            rank: ranks
                .get(e.name)
                .copied()
                .filter(|_| !skipped.contains(e.name)),
            position,
        });
        by_name.insert(e.name.to_string(), n);
    }
    (graph, by_name)
}

/// `replaces` and `skips` edges between entries; links to names outside the channel, and each
/// entry's skipRange text, are returned.
fn link_entries(
    entries: &[ChannelEntry],
    graph: &mut DiGraph<EntryNode, EdgeKind>,
    by_name: &HashMap<String, NodeIndex>,
) -> (HashMap<NodeIndex, String>, Vec<OutsideEdge>) {
    let mut skip_ranges = HashMap::new();
    let mut outside = Vec::new();
    let mut linked = HashSet::with_capacity(entries.len());
    for e in entries {
        // A repeated entry (an error of its own) counts once, as its first occurrence.
        if !linked.insert(e.name) {
            continue;
        }
        let to = by_name[e.name];
        let mut link = |from: &str, kind: EdgeKind| match by_name.get(from) {
            Some(&f) => {
                graph.add_edge(f, to, kind);
            }
            None => outside.push(OutsideEdge {
                to,
                kind,
                from: from.to_string(),
            }),
        };
        if let Some(r) = e.replaces {
            link(r, EdgeKind::Replaces);
        }
        for s in &e.skips {
            if !s.is_empty() {
                link(s, EdgeKind::Skips);
            }
        }
        if let Some(r) = e.skip_range {
            skip_ranges.insert(to, r.to_string());
        }
    }
    (skip_ranges, outside)
}

/// skipRange edges: from every entry whose version the range matches.
fn add_skip_range_edges(
    graph: &mut DiGraph<EntryNode, EdgeKind>,
    skip_ranges: &HashMap<NodeIndex, String>,
) {
    let ranges: Vec<(NodeIndex, Range)> = skip_ranges
        .iter()
        .filter_map(|(&n, r)| Range::parse(r).ok().map(|r| (n, r)))
        .collect();
    for (to, range) in ranges {
        let matched: Vec<NodeIndex> = graph
            .node_indices()
            .filter(|&n| n != to && graph[n].version.as_ref().is_some_and(|v| range.matches(v)))
            .collect();
        for from in matched {
            graph.add_edge(from, to, EdgeKind::SkipRange);
        }
    }
}

impl From<Chain<'_>> for ChainSummary {
    fn from(chain: Chain) -> Self {
        match chain {
            Chain::Valid { head, .. } => ChainSummary::Valid {
                head: head.to_string(),
            },
            Chain::Empty => ChainSummary::Empty,
            Chain::NoHead => ChainSummary::NoHead,
            Chain::MultipleHeads(h) => {
                ChainSummary::MultipleHeads(h.into_iter().map(String::from).collect())
            }
            Chain::Cycle(c) => ChainSummary::Cycle(c.into_iter().map(String::from).collect()),
            Chain::Stranded { head, stranded, .. } => ChainSummary::Stranded {
                head: head.to_string(),
                stranded: stranded.into_iter().map(String::from).collect(),
            },
        }
    }
}

/// Graphs of every channel of one package, in file order.
pub fn package_channel_graphs(catalog: &Catalog, idx: &PackageIndex) -> Vec<ChannelGraph> {
    let facts = PackageFacts::read(catalog, idx);
    idx.channels
        .iter()
        .filter_map(|&id| ChannelGraph::build(catalog, &facts, id))
        .collect()
}

/// Graphs of every channel of every package, built in parallel.
pub fn all_channel_graphs(catalog: &Catalog) -> Vec<ChannelGraph> {
    use rayon::prelude::*;
    let packages: Vec<&PackageIndex> = catalog.index().packages().collect();
    packages
        .par_iter()
        .flat_map_iter(|idx| package_channel_graphs(catalog, idx))
        .collect()
}

/// A bundle in the package-wide view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageNode {
    pub name: String,
    pub version: Option<Version>,
    /// Empty for none.
    pub release: Vec<Pre>,
    /// Channels listing it.
    pub channels: Vec<String>,
}

/// A package as OLM v1 sees it: every entry of every channel once, linked by the edges of all its
/// channels (each edge remembers its channel). OLM v1 picks the highest version among an installed
/// bundle's successors here, with no chain walk and nothing pruned.
#[derive(Clone, Debug)]
pub struct PackageGraph {
    pub package: String,
    pub graph: DiGraph<PackageNode, (EdgeKind, String)>,
    pub by_name: HashMap<String, NodeIndex>,
}

impl PackageGraph {
    pub fn build(package: &str, channels: &[ChannelGraph]) -> PackageGraph {
        let mut graph: DiGraph<PackageNode, (EdgeKind, String)> = DiGraph::new();
        let mut by_name: HashMap<String, NodeIndex> = HashMap::new();
        for g in channels {
            for n in g.graph.node_indices() {
                let e = &g.graph[n];
                let id = *by_name.entry(e.name.clone()).or_insert_with(|| {
                    graph.add_node(PackageNode {
                        name: e.name.clone(),
                        version: e.version.clone(),
                        release: e.release.clone(),
                        channels: Vec::new(),
                    })
                });
                graph[id].channels.push(g.channel.clone());
            }
        }
        for g in channels {
            use petgraph::visit::EdgeRef;
            for e in g.graph.edge_references() {
                let from = by_name[&g.graph[e.source()].name];
                let to = by_name[&g.graph[e.target()].name];
                graph.add_edge(from, to, (*e.weight(), g.channel.clone()));
            }
        }
        PackageGraph {
            package: package.to_string(),
            graph,
            by_name,
        }
    }
}
