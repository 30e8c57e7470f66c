//! Comparing two catalogs by meaning: what a reviewer of a catalog change needs to know (packages,
//! default channels, channels, entries, edges by kind, heads, deprecations, bundles added, removed or
//! changed field by field, objects of other schemas, and which installed versions gained or lost a
//! way to the head), not which lines moved. Every field of every object is compared.

pub mod fields;
pub mod git;
pub mod lifecycle;
pub mod mermaid;
mod objects;
mod render;

use std::collections::{BTreeMap, BTreeSet};

use petgraph::visit::EdgeRef;
use rayon::prelude::*;
use serde::Serialize;

pub use fields::FieldChange;
pub use lifecycle::{LifecycleChange, LifecycleLine, PlatformsChange};
pub use render::{markdown, range_text, text};

use crate::catalog::index::PackageIndex;
use crate::catalog::model::{Deprecations, Package};
use crate::catalog::semver_range::Version;
use crate::catalog::{BlobId, Catalog};
use crate::graph::channel::{ChannelGraph, PackageFacts, package_channel_graphs};
use crate::graph::query::{Installed, path_to_head};
use objects::{
    bundle_change, bundle_names, channel_fields, others, package_fields, package_others,
    same_source,
};

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CatalogDiff {
    pub packages: Vec<PackageDiff>,
    /// Objects of other schemas that belong to no package, added, removed or changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<OtherChange>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PackageDiff {
    pub name: String,
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_channel: Option<[String; 2]>,
    /// Other fields of the `olm.package` object: description, icon, properties, anything else.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields_changed: Vec<FieldChange>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels_removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<ChannelDiff>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deprecations: Vec<DeprecationChange>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bundles_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bundles_removed: Vec<String>,
    /// Bundles whose image, properties, related images, objects or other fields changed: published
    /// bundles should be immutable.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bundles_changed: Vec<BundleChange>,
    /// Objects of other schemas that name this package.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<OtherChange>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Other fields of the channel and of its entries (properties, unknown keys).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields_changed: Vec<FieldChange>,
    /// Entries (in both catalogs) that could reach the head before and cannot now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lost_path: Vec<String>,
    /// Entries (in both catalogs) that can reach the head now and could not before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gained_path: Vec<String>,
    /// Removed entries that reached the head before: clusters still running them have no way to
    /// the head in the new catalog.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_lost_path: Vec<String>,
    /// The changed part of the graph, for drawing (not part of the JSON).
    #[serde(skip)]
    pub picture: Option<mermaid::Picture>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkipRangeChange {
    pub entry: String,
    /// `None`: the entry had no skipRange, or has none now.
    pub old: Option<String>,
    pub new: Option<String>,
    /// The versions of the channel's entries the range covers, lowest first: in the new channel,
    /// or, for a range cleared, in the old one (what it covers no more). The links it makes are
    /// said by these rather than one by one.
    #[serde(skip)]
    pub covers: Vec<Version>,
}

impl SkipRangeChange {
    /// What the range covers in words: `now covers 1.0.0–1.2.1 (4 entries)`, or for a range
    /// cleared `no longer covers …` (`None` when it covered nothing).
    pub fn coverage(&self) -> Option<String> {
        let now = self.new.is_some();
        let span = match self.covers.as_slice() {
            [] if now => return Some("now covers no entry of the channel".into()),
            [] => return None,
            [one] => one.to_string(),
            [first, .., last] => format!("{first}–{last}"),
        };
        Some(format!(
            "{} {span} ({})",
            if now {
                "now covers"
            } else {
                "no longer covers"
            },
            crate::text::plural(self.covers.len(), "entry", "entries")
        ))
    }
}

impl ChannelDiff {
    /// Whether `e` is a link that a changed skipRange made or dropped: that skipRange's line says
    /// what it covers instead.
    pub fn by_skip_range(&self, e: &Edge) -> bool {
        e.kind == crate::graph::channel::EdgeKind::SkipRange.as_str()
            && self.skip_ranges_changed.iter().any(|r| r.entry == e.to)
    }
}

/// The versions of the entries of `g` that `entry`'s skipRange covers, lowest first.
fn covered(g: &ChannelGraph, entry: &str) -> Vec<Version> {
    let Some(n) = g.node(entry) else {
        return Vec::new();
    };
    let mut out: Vec<Version> = g
        .graph
        .edges_directed(n, petgraph::Direction::Incoming)
        .filter(|e| *e.weight() == crate::graph::channel::EdgeKind::SkipRange)
        .filter_map(|e| g.graph[e.source()].version.clone())
        .collect();
    out.sort();
    out
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeprecationChange {
    /// `package`, `channel <name>` or `bundle <name>`.
    pub of: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BundleChange {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<[String; 2]>,
    pub properties_changed: bool,
    /// Properties by type (bundle objects decoded, by kind and name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub properties: Vec<FieldChange>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related_images: Vec<FieldChange>,
    /// Any other field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// An object of a schema other than package, channel, bundle and deprecations.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OtherChange {
    pub schema: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub package: String,
    pub name: String,
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    /// An OpenShift lifecycle blob's versions added and removed and platforms changed; its other
    /// changes (a phase moved) are in `fields`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<LifecycleChange>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

impl OtherChange {
    /// How the object is named: `lifecycle (io.openshift.operators.lifecycles.v1alpha1)` for a
    /// package's lifecycle, else its schema and name.
    pub fn title(&self) -> String {
        if self.schema == crate::catalog::lifecycle::SCHEMA && self.name.is_empty() {
            return format!("lifecycle ({})", self.schema);
        }
        format!("{} {:?}", self.schema, self.name)
    }
}

impl CatalogDiff {
    pub fn is_empty(&self) -> bool {
        self.packages.is_empty() && self.others.is_empty()
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

fn reaches_head(g: &ChannelGraph, from: &Installed) -> bool {
    path_to_head(g, from).is_ok()
}

fn installed(g: &ChannelGraph, entry: &str) -> Option<Installed> {
    Installed::resolve(g, entry)
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
                covers: covered(if b.is_some() { new } else { old }, e),
            });
        }
    }
    let relinked = d.head.is_some() || !d.edges_added.is_empty() || !d.edges_removed.is_empty();
    if relinked {
        for e in on.intersection(&nn) {
            let reach = |g: &ChannelGraph| installed(g, e).is_some_and(|i| reaches_head(g, &i));
            match (reach(old), reach(new)) {
                (true, false) => d.lost_path.push(e.clone()),
                (false, true) => d.gained_path.push(e.clone()),
                _ => {}
            }
        }
    }
    for e in &d.entries_removed {
        // A cluster on the removed entry keeps its name and version; the new channel may still
        // offer it an upgrade by name (an edge from outside the channel) or by skipRange.
        let Some(before) = installed(old, e) else {
            continue;
        };
        if reaches_head(old, &before) && !reaches_head(new, &before) {
            d.removed_lost_path.push(e.clone());
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
        || !d.fields_changed.is_empty()
}

/// Compares two catalogs, package by package in parallel; a package read from the same bytes on both
/// sides is passed over without building its graphs.
pub fn diff(old: &Catalog, new: &Catalog) -> CatalogDiff {
    let names: BTreeSet<&String> = old
        .index()
        .package_names()
        .iter()
        .chain(new.index().package_names())
        .collect();
    let names: Vec<&String> = names.into_iter().collect();
    CatalogDiff {
        packages: names
            .into_par_iter()
            .filter(|name| !untouched(old, new, name))
            .filter_map(|name| diff_package(old, new, name))
            .collect(),
        others: others(old, &old.index().unowned, new, &new.index().unowned),
    }
}

/// Whether every object of package `name` was read from the same bytes, at the same place of an
/// identical file, on both sides, in the same order: then nothing in it changed.
fn untouched(old: &Catalog, new: &Catalog, name: &str) -> bool {
    let (Some(a), Some(b)) = (old.index().package(name), new.index().package(name)) else {
        return false;
    };
    let ids = |p: &PackageIndex| -> Vec<BlobId> {
        p.packages
            .iter()
            .chain(&p.channels)
            .chain(&p.bundles)
            .chain(&p.others)
            .chain(&p.deprecations)
            .copied()
            .collect()
    };
    let (x, y) = (ids(a), ids(b));
    x.len() == y.len() && x.iter().zip(&y).all(|(&i, &j)| same_source(old, i, new, j))
}

/// What changed in package `name`; `None` when nothing did.
fn diff_package(old: &Catalog, new: &Catalog, name: &str) -> Option<PackageDiff> {
    let (o, n) = (side(old, name), side(new, name));
    let mut p = PackageDiff {
        name: name.to_string(),
        ..Default::default()
    };
    let (ob, nb) = (bundle_names(old, name), bundle_names(new, name));
    p.bundles_added = nb.difference(&ob).cloned().collect();
    p.bundles_removed = ob.difference(&nb).cloned().collect();
    p.others = others(
        old,
        &package_others(old, name),
        new,
        &package_others(new, name),
    );
    match (o, n) {
        (None, None) => return None,
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
                p.default_channel = Some([o.default_channel.clone(), n.default_channel.clone()]);
            }
            p.fields_changed = package_fields(old, new, name);
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
            p.channels = changed_channels(&o, &n, name);
            p.deprecations = deprecation_changes(&o, &n);
            p.bundles_changed = changed_bundles(&o, &n, name, ob.intersection(&nb));
            if !p.has_changes() {
                return None;
            }
        }
    }
    Some(p)
}

/// The channels of both sides that changed, with what changed in each.
fn changed_channels(o: &Side, n: &Side, package: &str) -> Vec<ChannelDiff> {
    let (oi, ni) = (
        o.catalog.index().package(package),
        n.catalog.index().package(package),
    );
    let mut out = Vec::new();
    for (c, og) in &o.graphs {
        let Some(ng) = n.graphs.get(c) else {
            continue;
        };
        let mut d = diff_channel(c, og, ng);
        if let (Some(a), Some(b)) = (oi.and_then(|i| i.channel(c)), ni.and_then(|i| i.channel(c))) {
            d.fields_changed = channel_fields(o.catalog, a, n.catalog, b);
        }
        if channel_changed(&d) {
            d.picture = mermaid::Picture::build(&d, og, ng);
            out.push(d);
        }
    }
    out
}

/// Deprecation messages added, removed or changed, by what they deprecate.
fn deprecation_changes(o: &Side, n: &Side) -> Vec<DeprecationChange> {
    let scopes: BTreeSet<&String> = o.deprecations.keys().chain(n.deprecations.keys()).collect();
    scopes
        .into_iter()
        .filter_map(|of| {
            let (a, b) = (o.deprecations.get(of), n.deprecations.get(of));
            (a != b).then(|| DeprecationChange {
                of: of.clone(),
                old: a.cloned(),
                new: b.cloned(),
            })
        })
        .collect()
}

/// The bundles on both sides (`common`) whose objects differ.
fn changed_bundles<'a>(
    o: &Side,
    n: &Side,
    package: &str,
    common: impl Iterator<Item = &'a String>,
) -> Vec<BundleChange> {
    let (Some(oi), Some(ni)) = (
        o.catalog.index().package(package),
        n.catalog.index().package(package),
    ) else {
        return Vec::new();
    };
    common
        .filter_map(|b| {
            let (x, y) = (oi.bundle(b)?, ni.bundle(b)?);
            bundle_change(o.catalog, x, n.catalog, y, b)
        })
        .collect()
}

impl PackageDiff {
    fn has_changes(&self) -> bool {
        self.default_channel.is_some()
            || !self.fields_changed.is_empty()
            || !self.channels_added.is_empty()
            || !self.channels_removed.is_empty()
            || !self.channels.is_empty()
            || !self.deprecations.is_empty()
            || !self.bundles_added.is_empty()
            || !self.bundles_removed.is_empty()
            || !self.bundles_changed.is_empty()
            || !self.others.is_empty()
    }
}
