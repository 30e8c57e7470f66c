//! Questions about upgrades: what OLM v0 offers a cluster running a given version, the shortest way
//! to the head, what a skipRange matches and what it prunes, and what OLM v1 would pick.

use std::collections::{HashMap, VecDeque};

use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use super::channel::{ChainSummary, ChannelGraph, EdgeKind};
use crate::catalog::semver_range::{Range, Version};
use crate::catalog::version_release::VersionRelease;

pub use super::upgrade::{QueryError, UpgradeQuery, V0Answer};

/// What a cluster runs: an entry of the channel, or a version (perhaps one no longer in the catalog).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// The bundle name, when known.
    pub name: Option<String>,
    pub version: Option<Version>,
}

impl Installed {
    /// Reads what the user typed: an entry name of the channel, or a version (`1.2.0` or `v1.2.0`).
    pub fn resolve(g: &ChannelGraph, text: &str) -> Option<Installed> {
        if let Some(n) = g.node(text) {
            return Some(Installed {
                name: Some(text.to_string()),
                version: g.graph[n].version.clone(),
            });
        }
        let v = Version::parse(text)
            .or_else(|_| Version::parse(text.strip_prefix('v').unwrap_or(text)))
            .ok()?;
        let by_version = g
            .graph
            .node_indices()
            .find(|&n| g.graph[n].version.as_ref() == Some(&v));
        Some(Installed {
            name: by_version.map(|n| g.graph[n].name.clone()),
            version: Some(v),
        })
    }

    /// The bundle name, or `version X`.
    pub fn describe(&self) -> String {
        match (&self.name, &self.version) {
            (Some(n), _) => n.clone(),
            (None, Some(v)) => format!("version {v}"),
            (None, None) => "?".into(),
        }
    }
}

/// One entry OLM v0 would offer, and which links make it an upgrade.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub entry: NodeIndex,
    pub via: Vec<EdgeKind>,
}

/// Why there is no way to the head.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoPath {
    /// OLM v0 cannot order the channel: no single head, or a cycle.
    #[error("{0}")]
    Unordered(String),
    /// Nothing in the channel replaces, skips or has a skipRange matching what is installed.
    #[error("{0}")]
    NoOffer(String),
}

/// The entries of `g` that replace or skip what is installed, or whose skipRange contains its
/// version, with the links that do it.
fn links_from(g: &ChannelGraph, from: &Installed) -> HashMap<NodeIndex, Vec<EdgeKind>> {
    let mut via: HashMap<NodeIndex, Vec<EdgeKind>> = HashMap::new();
    match from.name.as_deref().and_then(|n| g.node(n)) {
        Some(f) => {
            for e in g.graph.edges_directed(f, Direction::Outgoing) {
                via.entry(e.target()).or_default().push(*e.weight());
            }
        }
        None => {
            if let Some(name) = &from.name {
                for o in g.outside.iter().filter(|o| &o.from == name) {
                    via.entry(o.to).or_default().push(o.kind);
                }
            }
            if let Some(v) = &from.version {
                for (&n, r) in &g.skip_ranges {
                    if Range::parse(r).is_ok_and(|r| r.matches(v)) {
                        via.entry(n).or_default().push(EdgeKind::SkipRange);
                    }
                }
            }
        }
    }
    via
}

fn unordered(g: &ChannelGraph) -> Option<NoPath> {
    let why = match &g.chain {
        ChainSummary::Valid { .. } | ChainSummary::Stranded { .. } => return None,
        ChainSummary::Empty => "the channel has no entries".to_string(),
        ChainSummary::NoHead => {
            "the channel has no head (every entry is replaced or skipped)".into()
        }
        ChainSummary::MultipleHeads(h) => format!(
            "the channel has {} heads ({}); OLM v0 needs one to order the entries",
            h.len(),
            h.join(", ")
        ),
        ChainSummary::Cycle(c) => format!("the replaces chain has a cycle: {}", c.join(" -> ")),
    };
    Some(NoPath::Unordered(why))
}

/// What OLM v0 offers a cluster running `from`, best first: entries that replace it, skip it or whose
/// skipRange contains its version, among those OLM v0 keeps in the channel (on the head's replaces
/// chain, not skipped), nearest the head first. OLM v0 takes the first.
pub fn v0_offers(g: &ChannelGraph, from: &Installed) -> Result<Vec<Offer>, NoPath> {
    if let Some(why) = unordered(g) {
        return Err(why);
    }
    let from_node = from.name.as_deref().and_then(|n| g.node(n));
    let via = links_from(g, from);
    let mut offers: Vec<Offer> = via
        .into_iter()
        .filter(|(n, _)| g.graph[*n].rank.is_some() && Some(*n) != from_node)
        .map(|(entry, mut via)| {
            via.sort();
            via.dedup();
            Offer { entry, via }
        })
        .collect();
    offers.sort_by_key(|o| g.graph[o.entry].rank);
    Ok(offers)
}

/// One upgrade step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    pub from: String,
    pub to: NodeIndex,
    pub via: Vec<EdgeKind>,
}

/// The fewest upgrades from `from` to the channel head under OLM v0's rules (edges of skipped or
/// stranded entries are ignored), preferring at each step the offer OLM v0 itself prefers. An empty
/// path means `from` is the head.
pub fn path_to_head(g: &ChannelGraph, from: &Installed) -> Result<Vec<Hop>, NoPath> {
    if let Some(why) = unordered(g) {
        return Err(why);
    }
    let head = g.chain.head().and_then(|h| g.node(h));
    let start = from.name.as_deref().and_then(|n| g.node(n));
    if start.is_some() && start == head {
        return Ok(Vec::new());
    }
    let first = v0_offers(g, from)?;
    if first.is_empty() {
        return Err(NoPath::NoOffer(no_offer(g, from)));
    }
    // Breadth-first from the first offers; the parents remember how each entry was reached.
    let mut parent: HashMap<NodeIndex, (Option<NodeIndex>, Vec<EdgeKind>)> = HashMap::new();
    let mut queue = VecDeque::new();
    for o in first {
        parent.entry(o.entry).or_insert((None, o.via));
        queue.push_back(o.entry);
    }
    while let Some(n) = queue.pop_front() {
        if Some(n) == head {
            break;
        }
        let here = Installed {
            name: Some(g.graph[n].name.clone()),
            version: g.graph[n].version.clone(),
        };
        for o in v0_offers(g, &here)? {
            if o.entry == n || parent.contains_key(&o.entry) || Some(o.entry) == start {
                continue;
            }
            parent.insert(o.entry, (Some(n), o.via));
            queue.push_back(o.entry);
        }
    }
    let Some(head) = head.filter(|h| parent.contains_key(h)) else {
        return Err(NoPath::NoOffer(dead_ends(g, from, &parent)));
    };
    let mut hops = Vec::new();
    let mut cur = head;
    loop {
        let (prev, via) = parent[&cur].clone();
        let from_name = match prev {
            Some(p) => g.graph[p].name.clone(),
            None => from.describe(),
        };
        hops.push(Hop {
            from: from_name,
            to: cur,
            via,
        });
        match prev {
            Some(p) => cur = p,
            None => break,
        }
    }
    hops.reverse();
    Ok(hops)
}

/// Why OLM v0 drops an entry of an ordered channel: the entries that skip it, or that it is off the
/// head's replaces chain.
fn why_dropped(g: &ChannelGraph, n: NodeIndex) -> String {
    let name = &g.graph[n].name;
    let mut skippers: Vec<&str> = g
        .graph
        .edges_directed(n, Direction::Outgoing)
        .filter(|e| *e.weight() == EdgeKind::Skips)
        .map(|e| g.graph[e.target()].name.as_str())
        .collect();
    skippers.sort_unstable();
    skippers.dedup();
    match skippers.as_slice() {
        [] => format!(
            "{name} is not on the replaces chain walked from the head (it is stranded), so OLM v0 drops it"
        ),
        [one] => format!("{one} skips {name}, so OLM v0 drops {name}"),
        many => format!("{} skip {name}, so OLM v0 drops {name}", many.join(" and ")),
    }
}

/// How `to` links from what is installed, in the catalog's words (`v2 replaces v1`).
fn link_words(
    g: &ChannelGraph,
    to_node: NodeIndex,
    kinds: &[EdgeKind],
    from: &Installed,
) -> String {
    let to = &g.graph[to_node].name;
    let what = from.describe();
    let parts: Vec<String> = kinds
        .iter()
        .map(|k| match k {
            EdgeKind::Replaces => format!("{to} replaces {what}"),
            EdgeKind::Skips => format!("{to} skips {what}"),
            EdgeKind::SkipRange => format!(
                "the skipRange {:?} of {to} contains {}",
                g.skip_ranges.get(&to_node).map_or("", String::as_str),
                from.version
                    .as_ref()
                    .map_or_else(|| what.clone(), |v| v.to_string())
            ),
        })
        .collect();
    parts.join(" and ")
}

/// Why nothing OLM v0 keeps is an upgrade from `from`: each link from it ends at an entry OLM v0
/// drops, and the reason names the chain (`v2 replaces v1, but v3 skips v2, so OLM v0 drops v2`).
fn no_offer(g: &ChannelGraph, from: &Installed) -> String {
    let from_node = from.name.as_deref().and_then(|n| g.node(n));
    let mut links: Vec<(NodeIndex, Vec<EdgeKind>)> = links_from(g, from)
        .into_iter()
        .filter(|(n, _)| Some(*n) != from_node)
        .collect();
    links.sort_by_key(|(n, _)| g.graph[*n].position);
    if links.is_empty() {
        return format!(
            "nothing in channel {:?} replaces or skips {}, and no skipRange contains its version",
            g.channel,
            from.describe()
        );
    }
    let reasons: Vec<String> = links
        .iter()
        .map(|(n, kinds)| {
            let mut kinds = kinds.clone();
            kinds.sort();
            kinds.dedup();
            format!(
                "{}, but {}",
                link_words(g, *n, &kinds, from),
                why_dropped(g, *n)
            )
        })
        .collect();
    format!(
        "{}; nothing that OLM v0 keeps in channel {:?} replaces or skips {} or has a skipRange containing its version",
        reasons.join("; "),
        g.channel,
        from.describe()
    )
}

/// Why the upgrades from `from` stop short of the head: where each chain ends, and why.
fn dead_ends(
    g: &ChannelGraph,
    from: &Installed,
    reached: &HashMap<NodeIndex, (Option<NodeIndex>, Vec<EdgeKind>)>,
) -> String {
    let mut ends: Vec<NodeIndex> = reached
        .keys()
        .copied()
        .filter(|&n| {
            let here = Installed {
                name: Some(g.graph[n].name.clone()),
                version: g.graph[n].version.clone(),
            };
            v0_offers(g, &here).is_ok_and(|o| o.iter().all(|o| o.entry == n))
        })
        .collect();
    ends.sort_by_key(|&n| g.graph[n].position);
    let why: Vec<String> = ends
        .iter()
        .take(3)
        .map(|&n| {
            let here = Installed {
                name: Some(g.graph[n].name.clone()),
                version: g.graph[n].version.clone(),
            };
            format!("from {}: {}", g.graph[n].name, no_offer(g, &here))
        })
        .collect();
    let mut out = format!(
        "no chain of upgrades from {} reaches the head",
        from.describe()
    );
    if !why.is_empty() {
        out.push_str(&format!(" ({})", why.join("; ")));
    }
    out
}

/// One upgrade OLM v1 makes: from what is installed to the highest successor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V1Hop {
    pub from: String,
    pub to: String,
    /// The successor's version and release.
    pub version: Option<VersionRelease>,
    /// The channels and links that make it a successor.
    pub via: Vec<(String, EdgeKind)>,
}

/// Where OLM v1's automatic upgrades lead from an installed bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V1Path {
    pub hops: Vec<V1Hop>,
    /// The bundle the upgrades stop at (what is installed when there is no successor).
    pub end: String,
    /// Whether that is the target (the channel head, or the highest version in scope).
    pub reached: bool,
    /// The target.
    pub target: Option<String>,
}

/// The upgrades OLM v1 (operator-controller, `CatalogProvided` policy) makes from `from`, one after
/// the other: each time the highest version among the successors in the channels in scope (entries
/// that replace or skip the installed bundle, or whose skipRange contains its version; nothing is
/// dropped for being skipped), until there is none. `target` is the entry the caller hopes to reach.
pub fn v1_path(graphs: &[&ChannelGraph], from: &Installed, target: Option<&str>) -> V1Path {
    let mut hops = Vec::new();
    let mut here = from.clone();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    if let Some(n) = &from.name {
        seen.insert(n.clone());
    }
    loop {
        let next = v1_successors(graphs, &here)
            .into_iter()
            .find(|s| Some(&s.name) != here.name.as_ref());
        let Some(next) = next else { break };
        if !seen.insert(next.name.clone()) {
            break;
        }
        hops.push(V1Hop {
            from: here.describe(),
            to: next.name.clone(),
            version: next.version.clone(),
            via: next.via.iter().map(|(c, k)| (c.to_string(), *k)).collect(),
        });
        here = Installed {
            name: Some(next.name),
            version: next.version.map(|v| v.version),
        };
    }
    let end = here.describe();
    V1Path {
        reached: target.is_some_and(|t| t == end),
        target: target.map(String::from),
        hops,
        end,
    }
}

/// What an entry's skipRange does in its channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkipRangeEffect {
    /// Entries whose version the range contains, newest first.
    pub matched: Vec<NodeIndex>,
    /// Of those, the ones OLM v0 drops from the channel (skipped or stranded): clusters running them
    /// still upgrade, but nobody can install or upgrade to them any more.
    pub pruned: Vec<NodeIndex>,
}

/// The effect of `entry`'s skipRange (`None` when it has none, or it does not parse).
pub fn skip_range_effect(g: &ChannelGraph, entry: NodeIndex) -> Option<SkipRangeEffect> {
    let range = Range::parse(g.skip_ranges.get(&entry)?).ok()?;
    Some(effect_of(g, &range, Some(entry)))
}

/// The effect a skipRange would have on this channel (for previewing one before setting it).
pub fn range_effect(
    g: &ChannelGraph,
    range: &Range,
    exclude: Option<NodeIndex>,
) -> SkipRangeEffect {
    effect_of(g, range, exclude)
}

fn effect_of(g: &ChannelGraph, range: &Range, exclude: Option<NodeIndex>) -> SkipRangeEffect {
    let matched: Vec<NodeIndex> = g
        .newest_first()
        .into_iter()
        .filter(|&n| {
            Some(n) != exclude
                && g.graph[n]
                    .version
                    .as_ref()
                    .is_some_and(|v| range.matches(v))
        })
        .collect();
    let pruned = matched
        .iter()
        .copied()
        .filter(|&n| g.graph[n].rank.is_none())
        .collect();
    SkipRangeEffect { matched, pruned }
}

/// A bundle OLM v1 would consider as an upgrade.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Successor<'g> {
    pub name: String,
    /// Its version and release: OLM v1 picks the highest.
    pub version: Option<VersionRelease>,
    /// The channels and links that offer it.
    pub via: Vec<(&'g str, EdgeKind)>,
}

/// OLM v1's successors of an installed bundle within the given channels of its package: entries that
/// replace or skip it or whose skipRange contains its version, highest version first (OLM v1 picks
/// the first). OLM v1 does not drop skipped entries.
pub fn v1_successors<'g>(graphs: &[&'g ChannelGraph], from: &Installed) -> Vec<Successor<'g>> {
    let mut found: HashMap<String, Successor<'g>> = HashMap::new();
    for g in graphs {
        let via = links_from(g, from);
        for (n, kinds) in via {
            let node = &g.graph[n];
            let slot = found.entry(node.name.clone()).or_insert_with(|| Successor {
                name: node.name.clone(),
                version: node.version_release(),
                via: Vec::new(),
            });
            for k in kinds {
                if !slot.via.contains(&(g.channel.as_str(), k)) {
                    slot.via.push((g.channel.as_str(), k));
                }
            }
        }
    }
    let mut out: Vec<Successor> = found
        .into_values()
        .map(|mut s| {
            s.via.sort();
            s
        })
        .collect();
    out.sort_by(|a, b| b.version.cmp(&a.version).then(a.name.cmp(&b.name)));
    out
}
