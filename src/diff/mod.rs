//! Comparing two catalogs by meaning: what a reviewer of a catalog change needs to know (packages,
//! default channels, channels, entries, edges by kind, heads, deprecations, changed bundles, and
//! which installed versions gained or lost a way to the head), not which lines moved.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use petgraph::visit::EdgeRef;
use serde::Serialize;

use crate::catalog::Catalog;
use crate::catalog::model::{Bundle, Deprecations, Package};
use crate::graph::channel::{ChannelGraph, PackageFacts, package_channel_graphs};
use crate::graph::query::{Installed, path_to_head};

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct CatalogDiff {
    pub packages: Vec<PackageDiff>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct PackageDiff {
    pub name: String,
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_channel: Option<[String; 2]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels_removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<ChannelDiff>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deprecations: Vec<DeprecationChange>,
    /// Bundles whose image or properties changed: published bundles should be immutable.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bundles_changed: Vec<BundleChange>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct ChannelDiff {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<[Option<String>; 2]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entries_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entries_removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edges_added: Vec<Edge>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edges_removed: Vec<Edge>,
    /// Entries (in both catalogs) whose skipRange text changed, whether or not it now matches
    /// other entries: a range also decides which versions outside the channel OLM upgrades from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skip_ranges_changed: Vec<SkipRangeChange>,
    /// Entries (in both catalogs) that could reach the head before and cannot now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lost_path: Vec<String>,
    /// Entries (in both catalogs) that can reach the head now and could not before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gained_path: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SkipRangeChange {
    pub entry: String,
    /// `None`: the entry had no skipRange, or has none now.
    pub old: Option<String>,
    pub new: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DeprecationChange {
    /// `package`, `channel <name>` or `bundle <name>`.
    pub of: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct BundleChange {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<[String; 2]>,
    pub properties_changed: bool,
}

impl CatalogDiff {
    pub fn is_empty(&self) -> bool {
        self.packages.is_empty()
    }
}

struct Side<'c> {
    catalog: &'c Catalog,
    default_channel: String,
    graphs: BTreeMap<String, ChannelGraph>,
    deprecations: BTreeMap<String, String>,
}

fn side<'c>(catalog: &'c Catalog, package: &str) -> Option<Side<'c>> {
    let idx = catalog.index().package(package)?;
    let facts = PackageFacts::read(catalog, idx);
    let graphs = package_channel_graphs(catalog, idx)
        .into_iter()
        .map(|g| (g.channel.clone(), g))
        .collect();
    let mut deprecations = BTreeMap::new();
    if let Some(d) = idx
        .deprecations
        .first()
        .and_then(|&id| Deprecations::read(&catalog.blob(id).value).ok())
    {
        for e in d.entries {
            let of = match e.schema {
                crate::catalog::schema::PACKAGE => "package".to_string(),
                crate::catalog::schema::CHANNEL => format!("channel {}", e.name),
                _ => format!("bundle {}", e.name),
            };
            deprecations.insert(of, e.message.to_string());
        }
    }
    let default_channel = idx
        .packages
        .first()
        .and_then(|&id| Package::read(&catalog.blob(id).value).ok())
        .map(|p| p.default_channel.to_string())
        .unwrap_or(facts.default_channel);
    Some(Side {
        catalog,
        default_channel,
        graphs,
        deprecations,
    })
}

fn edges(g: &ChannelGraph) -> BTreeSet<Edge> {
    let mut out: BTreeSet<Edge> = g
        .graph
        .edge_references()
        .map(|e| Edge {
            from: g.graph[e.source()].name.clone(),
            to: g.graph[e.target()].name.clone(),
            kind: e.weight().as_str(),
        })
        .collect();
    out.extend(g.outside.iter().map(|o| Edge {
        from: o.from.clone(),
        to: g.graph[o.to].name.clone(),
        kind: o.kind.as_str(),
    }));
    out
}

/// skipRange text by entry name.
fn skip_ranges(g: &ChannelGraph) -> BTreeMap<&str, &str> {
    g.skip_ranges
        .iter()
        .map(|(&n, r)| (g.graph[n].name.as_str(), r.as_str()))
        .collect()
}

fn reaches_head(g: &ChannelGraph, entry: &str) -> bool {
    Installed::resolve(g, entry).is_some_and(|from| path_to_head(g, &from).is_ok())
}

fn diff_channel(name: &str, old: &ChannelGraph, new: &ChannelGraph) -> ChannelDiff {
    let names = |g: &ChannelGraph| -> BTreeSet<String> {
        g.graph.node_weights().map(|n| n.name.clone()).collect()
    };
    let (on, nn) = (names(old), names(new));
    let (oe, ne) = (edges(old), edges(new));
    let head = |g: &ChannelGraph| g.chain.head().map(String::from);
    let mut d = ChannelDiff {
        name: name.to_string(),
        head: (head(old) != head(new)).then(|| [head(old), head(new)]),
        entries_added: nn.difference(&on).cloned().collect(),
        entries_removed: on.difference(&nn).cloned().collect(),
        edges_added: ne.difference(&oe).cloned().collect(),
        edges_removed: oe.difference(&ne).cloned().collect(),
        ..Default::default()
    };
    let (or, nr) = (skip_ranges(old), skip_ranges(new));
    for e in on.intersection(&nn) {
        let (a, b) = (or.get(e.as_str()), nr.get(e.as_str()));
        if a != b {
            d.skip_ranges_changed.push(SkipRangeChange {
                entry: e.clone(),
                old: a.map(|s| s.to_string()),
                new: b.map(|s| s.to_string()),
            });
        }
    }
    if d.head.is_some() || !d.edges_added.is_empty() || !d.edges_removed.is_empty() {
        for e in on.intersection(&nn) {
            match (reaches_head(old, e), reaches_head(new, e)) {
                (true, false) => d.lost_path.push(e.clone()),
                (false, true) => d.gained_path.push(e.clone()),
                _ => {}
            }
        }
    }
    d
}

fn channel_changed(d: &ChannelDiff) -> bool {
    d.head.is_some()
        || !d.entries_added.is_empty()
        || !d.entries_removed.is_empty()
        || !d.edges_added.is_empty()
        || !d.edges_removed.is_empty()
        || !d.skip_ranges_changed.is_empty()
}

fn bundle_changes(old: &Side, new: &Side, package: &str) -> Vec<BundleChange> {
    let mut out = Vec::new();
    let (Some(oi), Some(ni)) = (
        old.catalog.index().package(package),
        new.catalog.index().package(package),
    ) else {
        return out;
    };
    let mut names: Vec<&str> = oi
        .bundles
        .iter()
        .map(|&id| old.catalog.blob(id).name())
        .collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let (Some(o), Some(n)) = (oi.bundle(name), ni.bundle(name)) else {
            continue;
        };
        let (ob, nb) = (old.catalog.blob(o), new.catalog.blob(n));
        let (Ok(ov), Ok(nv)) = (Bundle::read(&ob.value), Bundle::read(&nb.value)) else {
            continue;
        };
        let props = |c: &Catalog, b: &Bundle| -> Vec<serde_json::Value> {
            // A value that cannot be read back compares as its error, so the bundle shows as changed
            // rather than silently equal.
            b.properties
                .iter()
                .map(|p| {
                    c.to_json(p.node).unwrap_or_else(|e| {
                        serde_json::Value::String(format!("(cannot be read: {e})"))
                    })
                })
                .collect()
        };
        let image = (ov.image != nv.image).then(|| [ov.image.to_string(), nv.image.to_string()]);
        let properties_changed = props(old.catalog, &ov) != props(new.catalog, &nv);
        if image.is_some() || properties_changed {
            out.push(BundleChange {
                name: name.to_string(),
                image,
                properties_changed,
            });
        }
    }
    out
}

/// Compares two catalogs.
pub fn diff(old: &Catalog, new: &Catalog) -> CatalogDiff {
    let names: BTreeSet<&String> = old
        .index()
        .package_names()
        .iter()
        .chain(new.index().package_names())
        .collect();
    let mut out = CatalogDiff::default();
    for name in names {
        let (o, n) = (side(old, name), side(new, name));
        let mut p = PackageDiff {
            name: name.clone(),
            ..Default::default()
        };
        match (o, n) {
            (None, None) => continue,
            (None, Some(n)) => {
                p.change = "added";
                p.channels_added = n.graphs.keys().cloned().collect();
            }
            (Some(o), None) => {
                p.change = "removed";
                p.channels_removed = o.graphs.keys().cloned().collect();
            }
            (Some(o), Some(n)) => {
                p.change = "changed";
                if o.default_channel != n.default_channel {
                    p.default_channel =
                        Some([o.default_channel.clone(), n.default_channel.clone()]);
                }
                p.channels_added = n
                    .graphs
                    .keys()
                    .filter(|c| !o.graphs.contains_key(*c))
                    .cloned()
                    .collect();
                p.channels_removed = o
                    .graphs
                    .keys()
                    .filter(|c| !n.graphs.contains_key(*c))
                    .cloned()
                    .collect();
                for (c, og) in &o.graphs {
                    if let Some(ng) = n.graphs.get(c) {
                        let d = diff_channel(c, og, ng);
                        if channel_changed(&d) {
                            p.channels.push(d);
                        }
                    }
                }
                let scopes: BTreeSet<&String> =
                    o.deprecations.keys().chain(n.deprecations.keys()).collect();
                for of in scopes {
                    let (a, b) = (o.deprecations.get(of), n.deprecations.get(of));
                    if a != b {
                        p.deprecations.push(DeprecationChange {
                            of: of.clone(),
                            old: a.cloned(),
                            new: b.cloned(),
                        });
                    }
                }
                p.bundles_changed = bundle_changes(&o, &n, name);
                let changed = p.default_channel.is_some()
                    || !p.channels_added.is_empty()
                    || !p.channels_removed.is_empty()
                    || !p.channels.is_empty()
                    || !p.deprecations.is_empty()
                    || !p.bundles_changed.is_empty();
                if !changed {
                    continue;
                }
            }
        }
        out.packages.push(p);
    }
    out
}

fn or_none(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("(none)")
}

/// A skipRange as text: quoted (its spaces matter), or `(none)`.
pub fn range_text(v: &Option<String>) -> String {
    v.as_ref().map_or("(none)".into(), |r| format!("{r:?}"))
}

/// Plain text, one fact per line.
pub fn text(d: &CatalogDiff) -> String {
    let mut out = String::new();
    for p in &d.packages {
        let _ = writeln!(out, "package {} ({})", p.name, p.change);
        if let Some([a, b]) = &p.default_channel {
            let _ = writeln!(out, "  default channel: {a} → {b}");
        }
        for c in &p.channels_added {
            let _ = writeln!(out, "  + channel {c}");
        }
        for c in &p.channels_removed {
            let _ = writeln!(out, "  - channel {c}");
        }
        for c in &p.channels {
            let _ = writeln!(out, "  channel {}:", c.name);
            if let Some([a, b]) = &c.head {
                let _ = writeln!(out, "    head: {} → {}", or_none(a), or_none(b));
            }
            for e in &c.entries_added {
                let _ = writeln!(out, "    + entry {e}");
            }
            for e in &c.entries_removed {
                let _ = writeln!(out, "    - entry {e}");
            }
            for e in &c.edges_added {
                let _ = writeln!(out, "    + edge {} → {} ({})", e.from, e.to, e.kind);
            }
            for e in &c.edges_removed {
                let _ = writeln!(out, "    - edge {} → {} ({})", e.from, e.to, e.kind);
            }
            for r in &c.skip_ranges_changed {
                let _ = writeln!(
                    out,
                    "    ~ skipRange of {}: {} → {}",
                    r.entry,
                    range_text(&r.old),
                    range_text(&r.new)
                );
            }
            if !c.lost_path.is_empty() {
                let _ = writeln!(
                    out,
                    "    ! no longer reach the head: {}",
                    c.lost_path.join(", ")
                );
            }
            if !c.gained_path.is_empty() {
                let _ = writeln!(out, "    now reach the head: {}", c.gained_path.join(", "));
            }
        }
        for dep in &p.deprecations {
            let _ = match (&dep.old, &dep.new) {
                (None, Some(m)) => writeln!(out, "  + deprecation of {}: {m:?}", dep.of),
                (Some(m), None) => writeln!(out, "  - deprecation of {}: {m:?}", dep.of),
                (Some(a), Some(b)) => {
                    writeln!(out, "  deprecation of {} reworded: {a:?} → {b:?}", dep.of)
                }
                (None, None) => Ok(()),
            };
        }
        for b in &p.bundles_changed {
            let _ = write!(out, "  ! bundle {} changed", b.name);
            if let Some([a, c]) = &b.image {
                let _ = write!(out, ": image {a} → {c}");
            }
            if b.properties_changed {
                let _ = write!(
                    out,
                    "{}properties changed",
                    if b.image.is_some() { "; " } else { ": " }
                );
            }
            let _ = writeln!(
                out,
                " (published bundles should not change: release a new bundle instead)"
            );
        }
    }
    out
}

/// Markdown for a pull-request comment.
pub fn markdown(d: &CatalogDiff) -> String {
    if d.is_empty() {
        return "No catalog changes.\n".into();
    }
    let mut out = String::from("## Catalog changes\n");
    for p in &d.packages {
        let _ = writeln!(out, "\n### `{}` ({})\n", p.name, p.change);
        if let Some([a, b]) = &p.default_channel {
            let _ = writeln!(out, "- default channel: `{a}` → `{b}`");
        }
        for c in &p.channels_added {
            let _ = writeln!(out, "- channel added: `{c}`");
        }
        for c in &p.channels_removed {
            let _ = writeln!(out, "- channel removed: `{c}`");
        }
        for c in &p.channels {
            let _ = writeln!(out, "- channel `{}`", c.name);
            if let Some([a, b]) = &c.head {
                let _ = writeln!(out, "  - head: `{}` → `{}`", or_none(a), or_none(b));
            }
            for e in &c.entries_added {
                let _ = writeln!(out, "  - entry added: `{e}`");
            }
            for e in &c.entries_removed {
                let _ = writeln!(out, "  - entry removed: `{e}`");
            }
            for e in &c.edges_added {
                let _ = writeln!(
                    out,
                    "  - edge added: `{}` → `{}` ({})",
                    e.from, e.to, e.kind
                );
            }
            for e in &c.edges_removed {
                let _ = writeln!(
                    out,
                    "  - edge removed: `{}` → `{}` ({})",
                    e.from, e.to, e.kind
                );
            }
            for r in &c.skip_ranges_changed {
                let code =
                    |v: &Option<String>| v.as_ref().map_or("(none)".into(), |r| format!("`{r}`"));
                let _ = writeln!(
                    out,
                    "  - skipRange of `{}`: {} → {}",
                    r.entry,
                    code(&r.old),
                    code(&r.new)
                );
            }
            if !c.lost_path.is_empty() {
                let _ = writeln!(
                    out,
                    "  - :warning: no longer reach the head: {}",
                    c.lost_path
                        .iter()
                        .map(|e| format!("`{e}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            if !c.gained_path.is_empty() {
                let _ = writeln!(
                    out,
                    "  - now reach the head: {}",
                    c.gained_path
                        .iter()
                        .map(|e| format!("`{e}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        for dep in &p.deprecations {
            let _ = match (&dep.old, &dep.new) {
                (None, Some(m)) => writeln!(out, "- deprecation added for {}: {m}", dep.of),
                (Some(m), None) => writeln!(out, "- deprecation removed for {}: {m}", dep.of),
                (Some(a), Some(b)) => {
                    writeln!(out, "- deprecation of {} reworded: {a} → {b}", dep.of)
                }
                (None, None) => Ok(()),
            };
        }
        for b in &p.bundles_changed {
            let _ = writeln!(
                out,
                "- :warning: bundle `{}` changed{}{} — published bundles should not change; release a new bundle instead",
                b.name,
                b.image
                    .as_ref()
                    .map_or(String::new(), |[a, c]| format!(": image `{a}` → `{c}`")),
                if b.properties_changed {
                    ", properties changed"
                } else {
                    ""
                }
            );
        }
    }
    out
}
