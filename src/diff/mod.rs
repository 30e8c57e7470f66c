//! Comparing two catalogs by meaning: what a reviewer of a catalog change needs to know (packages,
//! default channels, channels, entries, edges by kind, heads, deprecations, bundles added, removed or
//! changed field by field, objects of other schemas, and which installed versions gained or lost a
//! way to the head), not which lines moved. Every field of every object is compared.

pub mod fields;
pub mod mermaid;
mod render;

use std::collections::{BTreeMap, BTreeSet};

use petgraph::visit::EdgeRef;
use serde::Serialize;
use serde_json::Value;

pub use fields::FieldChange;
pub use render::{markdown, range_text, text};

use crate::catalog::model::{Deprecations, Package};
use crate::catalog::{BlobId, BlobState, Catalog, Str};
use crate::graph::channel::{ChannelGraph, PackageFacts, package_channel_graphs};
use crate::graph::query::{Installed, path_to_head};
use fields::Changes;

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct CatalogDiff {
    pub packages: Vec<PackageDiff>,
    /// Objects of other schemas that belong to no package, added, removed or changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<OtherChange>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
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
pub struct OtherChange {
    pub schema: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub package: String,
    pub name: String,
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
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

/// Whether two pristine blobs were read from identical bytes (same file content, same place).
fn same_source(old: &Catalog, a: BlobId, new: &Catalog, b: BlobId) -> bool {
    let (x, y) = (old.blob(a), new.blob(b));
    let pristine =
        |bl: &crate::catalog::Blob| bl.state == BlobState::Loaded && bl.original.is_none();
    let (fx, fy) = (old.file_of(a), new.file_of(b));
    pristine(x)
        && pristine(y)
        && fx.hash == fy.hash
        && fx.len == fy.len
        && x.start == y.start
        && x.end == y.end
}

/// The JSON of two blobs, unless they are known to be equal without reading them.
fn pair(old: &Catalog, a: BlobId, new: &Catalog, b: BlobId) -> Option<(Value, Value)> {
    if same_source(old, a, new, b) {
        return None;
    }
    // A value that cannot be read back compares as its error, so the object shows as changed
    // rather than silently equal.
    let read = |c: &Catalog, id: BlobId| {
        c.to_json(&c.blob(id).value)
            .unwrap_or_else(|e| Value::String(format!("(cannot be read: {e})")))
    };
    let (x, y) = (read(old, a), read(new, b));
    (x != y).then_some((x, y))
}

fn decoder(c: &Catalog) -> impl Fn(&str) -> Option<Value> + '_ {
    move |data: &str| c.bundle_object(&Str::new(data)).ok()
}

/// Fields of the `olm.package` object other than its name and default channel.
fn package_fields(old: &Catalog, new: &Catalog, package: &str) -> Vec<FieldChange> {
    let first = |c: &Catalog| {
        c.index()
            .package(package)
            .and_then(|i| i.packages.first().copied())
    };
    let (Some(a), Some(b)) = (first(old), first(new)) else {
        return Vec::new();
    };
    let Some((x, y)) = pair(old, a, new, b) else {
        return Vec::new();
    };
    let mut out = Changes::default();
    fields::other_fields(
        &x,
        &y,
        &["schema", "name", "defaultChannel", "properties"],
        &mut out,
    );
    fields::properties(&x, &y, &decoder(old), &mut out);
    out.finish()
}

/// Fields of a channel and of its entries other than names, edges and skipRange.
fn channel_fields(old: &Catalog, a: BlobId, new: &Catalog, b: BlobId) -> Vec<FieldChange> {
    let Some((x, y)) = pair(old, a, new, b) else {
        return Vec::new();
    };
    let mut out = Changes::default();
    fields::other_fields(&x, &y, &["schema", "package", "name", "entries"], &mut out);
    let entries = |v: &Value| -> BTreeMap<String, Value> {
        let mut m = BTreeMap::new();
        for e in v
            .get("entries")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(n) = e.get("name").and_then(Value::as_str) {
                m.entry(n.to_string()).or_insert_with(|| e.clone());
            }
        }
        m
    };
    let (ea, eb) = (entries(&x), entries(&y));
    for (n, va) in &ea {
        if let Some(vb) = eb.get(n) {
            let strip = |v: &Value| -> Value {
                let mut v = v.clone();
                if let Value::Object(m) = &mut v {
                    for k in ["name", "replaces", "skips", "skipRange"] {
                        m.remove(k);
                    }
                }
                v
            };
            fields::compare(&format!("entries[{n}] "), &strip(va), &strip(vb), &mut out);
        }
    }
    out.finish()
}

fn bundle_change(
    old: &Catalog,
    a: BlobId,
    new: &Catalog,
    b: BlobId,
    name: &str,
) -> Option<BundleChange> {
    let (x, y) = pair(old, a, new, b)?;
    let image_of = |v: &Value| {
        v.get("image")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (ia, ib) = (image_of(&x), image_of(&y));
    let mut props = Changes::default();
    fields::properties(
        &x,
        &y,
        &|d| decoder(old)(d).or_else(|| decoder(new)(d)),
        &mut props,
    );
    let mut related = Changes::default();
    fields::related_images(&x, &y, &mut related);
    let mut rest = Changes::default();
    fields::other_fields(
        &x,
        &y,
        &[
            "schema",
            "package",
            "name",
            "image",
            "properties",
            "relatedImages",
        ],
        &mut rest,
    );
    let properties = props.finish();
    let change = BundleChange {
        name: name.to_string(),
        image: (ia != ib).then_some([ia, ib]),
        properties_changed: !properties.is_empty(),
        properties,
        related_images: related.finish(),
        fields: rest.finish(),
    };
    let changed = change.image.is_some()
        || change.properties_changed
        || !change.related_images.is_empty()
        || !change.fields.is_empty();
    changed.then_some(change)
}

fn bundle_names(c: &Catalog, package: &str) -> BTreeSet<String> {
    c.index()
        .package(package)
        .map(|i| {
            i.bundles
                .iter()
                .map(|&id| c.blob(id).name().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Objects of other schemas by (schema, package, name), the n-th of equal keys matched to the n-th.
fn others(old: &Catalog, a: &[BlobId], new: &Catalog, b: &[BlobId]) -> Vec<OtherChange> {
    type Key = (String, String, String);
    let keyed = |c: &Catalog, ids: &[BlobId]| -> BTreeMap<Key, Vec<BlobId>> {
        let mut m: BTreeMap<Key, Vec<BlobId>> = BTreeMap::new();
        for &id in ids {
            let bl = c.blob(id);
            m.entry((bl.schema().into(), bl.package().into(), bl.name().into()))
                .or_default()
                .push(id);
        }
        m
    };
    let (ka, kb) = (keyed(old, a), keyed(new, b));
    let mut keys: Vec<&Key> = ka.keys().chain(kb.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    let empty = Vec::new();
    for k in keys {
        let (la, lb) = (ka.get(k).unwrap_or(&empty), kb.get(k).unwrap_or(&empty));
        let change = |change: &'static str, fields: Vec<FieldChange>| OtherChange {
            schema: k.0.clone(),
            package: k.1.clone(),
            name: k.2.clone(),
            change,
            fields,
        };
        for i in 0..la.len().max(lb.len()) {
            match (la.get(i), lb.get(i)) {
                (Some(&x), Some(&y)) => {
                    if let Some((vx, vy)) = pair(old, x, new, y) {
                        let mut c = Changes::default();
                        fields::other_fields(&vx, &vy, &["schema", "package", "name"], &mut c);
                        out.push(change("changed", c.finish()));
                    }
                }
                (Some(_), None) => out.push(change("removed", Vec::new())),
                (None, Some(_)) => out.push(change("added", Vec::new())),
                (None, None) => {}
            }
        }
    }
    out
}

fn package_others(c: &Catalog, package: &str) -> Vec<BlobId> {
    c.index()
        .package(package)
        .map(|i| i.others.clone())
        .unwrap_or_default()
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
                let (oi, ni) = (old.index().package(name), new.index().package(name));
                for (c, og) in &o.graphs {
                    if let Some(ng) = n.graphs.get(c) {
                        let mut d = diff_channel(c, og, ng);
                        if let (Some(a), Some(b)) =
                            (oi.and_then(|i| i.channel(c)), ni.and_then(|i| i.channel(c)))
                        {
                            d.fields_changed = channel_fields(old, a, new, b);
                        }
                        if channel_changed(&d) {
                            d.picture = mermaid::Picture::build(&d, og, ng);
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
                if let (Some(oi), Some(ni)) = (oi, ni) {
                    for b in ob.intersection(&nb) {
                        if let (Some(x), Some(y)) = (oi.bundle(b), ni.bundle(b))
                            && let Some(c) = bundle_change(o.catalog, x, n.catalog, y, b)
                        {
                            p.bundles_changed.push(c);
                        }
                    }
                }
                let changed = p.default_channel.is_some()
                    || !p.fields_changed.is_empty()
                    || !p.channels_added.is_empty()
                    || !p.channels_removed.is_empty()
                    || !p.channels.is_empty()
                    || !p.deprecations.is_empty()
                    || !p.bundles_added.is_empty()
                    || !p.bundles_removed.is_empty()
                    || !p.bundles_changed.is_empty()
                    || !p.others.is_empty();
                if !changed {
                    continue;
                }
            }
        }
        out.packages.push(p);
    }
    out.others = others(old, &old.index().unowned, new, &new.index().unowned);
    out
}
