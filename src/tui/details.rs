//! The details pane: what the selected package, channel or entry is, in lines of text.
//!
//! Strings the load left on disk (a long description) are not read here, on every frame: when the
//! selection shows one not read yet, `update` asks for it ([`read_long`]) and a worker's read comes
//! back into [`LongStrings`].

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use petgraph::Direction;
use petgraph::visit::EdgeRef;

use crate::tui::model::Effect;
use crate::tui::tree::Loaded;
use fbc_core::catalog::lifecycle::{Date, Lifecycle, Today};
use fbc_core::catalog::model::{Bundle, Channel, Deprecations, Package, PropertyValue};
use fbc_core::catalog::{BlobId, Catalog, Node, PackageIndex, StoredStr, Str, StrKey, schema};
use fbc_core::graph::channel::EdgeKind;

/// The strings left on disk that the details of the selection show, as read by a worker, and
/// those asked for and not back yet.
#[derive(Debug, Default)]
pub struct LongStrings {
    read: HashMap<StrKey, String>,
    asked: HashSet<StrKey>,
}

impl LongStrings {
    /// Takes what a worker read (an empty text for a string that could not be read back).
    pub fn took(&mut self, read: Vec<(StrKey, String)>) {
        for (key, text) in read {
            self.asked.remove(&key);
            self.read.insert(key, text);
        }
    }
}

/// Text of the details pane for the selection.
pub fn details(l: &Loaded) -> Vec<String> {
    let cat = l.ws.catalog();
    lines(l, &|s: &Str| match s {
        Str::Inline(t) => t.to_string(),
        Str::Deferred { .. } => cat
            .stored(s)
            .and_then(|stored| l.long.read.get(&stored.key).cloned())
            .unwrap_or_default(),
    })
}

/// The read of the strings left on disk that the details of the selection show and that were
/// neither read nor asked for yet; the strings kept are those shown.
pub(crate) fn read_long(l: &mut Loaded) -> Option<Effect> {
    let cat = l.ws.catalog();
    let shown: RefCell<Vec<StoredStr>> = RefCell::new(Vec::new());
    lines(l, &|s: &Str| {
        shown.borrow_mut().extend(cat.stored(s));
        String::new()
    });
    let shown = shown.into_inner();
    let long = &mut l.long;
    long.read
        .retain(|key, _| shown.iter().any(|s| s.key == *key));
    let mut unread: Vec<StoredStr> = shown
        .into_iter()
        .filter(|s| !long.read.contains_key(&s.key) && !long.asked.contains(&s.key))
        .collect();
    unread.dedup_by(|a, b| a.key == b.key);
    if unread.is_empty() {
        return None;
    }
    long.asked.extend(unread.iter().map(|s| s.key));
    Some(Effect::ReadStrings(unread))
}

/// The details' lines, with `text` giving each string of the catalog shown.
fn lines(l: &Loaded, text: &dyn Fn(&Str) -> String) -> Vec<String> {
    let cat = l.ws.catalog();
    let sel = l.selected();
    let Some(idx) = sel.first().and_then(|p| cat.index().package(p)) else {
        return vec!["Select a package, channel or entry.".into()];
    };
    let mut out = match sel {
        [p] => {
            let mut out = package_lines(cat, idx, p, text);
            out.extend(lifecycle_lines(cat, idx, l.today));
            out
        }
        [_, c] => channel_lines(l, c),
        [_, c, e] => entry_lines(l, cat, idx, c, e, text),
        _ => Vec::new(),
    };
    out.extend(deprecation_lines(cat, idx, sel));
    out
}

/// A package: its default channel, icon, description and how many channels and bundles it has.
fn package_lines(
    cat: &Catalog,
    idx: &PackageIndex,
    p: &str,
    text: &dyn Fn(&Str) -> String,
) -> Vec<String> {
    let mut out = vec![format!("package {p}")];
    if let Some(pk) = idx
        .packages
        .first()
        .and_then(|&id| Package::read(&cat.blob(id).value).ok())
    {
        out.push(format!("default channel: {}", pk.default_channel));
        if let Some(icon) = &pk.icon {
            out.push(format!("icon: {}", icon.mediatype));
        }
        if let Some(d) = pk.description {
            out.push(String::new());
            out.extend(text(d).lines().map(String::from));
        }
    }
    out.push(format!(
        "channels: {}  bundles: {}",
        idx.channels.len(),
        idx.bundles.len()
    ));
    out
}

/// The package's OpenShift lifecycle: each version's phases with their dates, the one in effect
/// `today` marked, and the OpenShift versions it runs on.
fn lifecycle_lines(cat: &Catalog, idx: &PackageIndex, today: Date) -> Vec<String> {
    let all = Lifecycle::of_package(cat, idx);
    let Some((_, lc)) = all.first() else {
        return Vec::new();
    };
    let mut out = vec![String::new(), format!("lifecycle (today {today}):")];
    if all.len() > 1 {
        out.push(format!(
            "  {} lifecycle blobs: the console shows \"No data\"; this is the first",
            all.len()
        ));
    }
    for v in &lc.versions {
        let now = match v.today(today) {
            Today::In(i) => format!("now: {}", v.phases[i].name),
            Today::NotYet => "not started yet".into(),
            Today::Ended => "ended".into(),
            Today::Unknown => "dates unclear".into(),
        };
        out.push(format!("  {}  {now}", v.name));
        let current = match v.today(today) {
            Today::In(i) => Some(i),
            _ => None,
        };
        for (i, p) in v.phases.iter().enumerate() {
            let mark = if current == Some(i) { "▶" } else { " " };
            out.push(format!("   {mark} {}  {} – {}", p.name, p.start, p.end));
        }
        if !v.platforms.is_empty() {
            out.push(format!("    runs on: {}", v.platforms_text()));
        }
    }
    out
}

/// A channel: its size, its head (or why it has none) and whether it is the default.
fn channel_lines(l: &Loaded, c: &str) -> Vec<String> {
    let mut out = vec![format!("channel {c}")];
    if let Some((g, _)) = &l.graph {
        out.push(format!("entries: {}", g.graph.node_count()));
        out.push(match g.chain.head() {
            Some(h) => format!("head: {h}"),
            None => format!("head: none ({:?})", g.chain),
        });
        if g.default {
            out.push("the package's default channel".into());
        }
    }
    out
}

/// A channel entry: the bundle of that name, or that there is none; a ghost row says so first.
fn entry_lines(
    l: &Loaded,
    cat: &Catalog,
    idx: &PackageIndex,
    c: &str,
    e: &str,
    text: &dyn Fn(&Str) -> String,
) -> Vec<String> {
    let mut out = vec![format!("entry {e}")];
    if l.is_ghost(l.selected()) {
        out.push(format!(
            "removed from channel {c} by the change under review (nothing to edit here)"
        ));
    }
    let mut bundle = match idx
        .bundle(e)
        .and_then(|id| Bundle::read(&cat.blob(id).value).ok().map(|b| (id, b)))
    {
        None => vec!["no olm.bundle with this name in the package".into()],
        Some((id, b)) => bundle_lines(cat, idx, e, id, &b, text),
    };
    // The links go after the version and image.
    let at = bundle.len().min(2);
    let rest = bundle.split_off(at);
    out.extend(bundle);
    out.extend(link_lines(l, cat, idx, c, e));
    out.extend(rest);
    out
}

/// A channel entry's own links (its `replaces`, `skips` and `skipRange`), then the entries whose
/// links lead to it, and by which.
fn link_lines(l: &Loaded, cat: &Catalog, idx: &PackageIndex, c: &str, e: &str) -> Vec<String> {
    let mut out = Vec::new();
    let channel = idx
        .channel(c)
        .and_then(|id| Channel::read(&cat.blob(id).value).ok());
    if let Some(entry) = channel.as_ref().and_then(|ch| ch.entry(e)) {
        let or_none = |s: Option<&str>| s.unwrap_or("(none)").to_string();
        out.push(format!("replaces: {}", or_none(entry.replaces)));
        out.push(format!(
            "skips: {}",
            if entry.skips.is_empty() {
                "(none)".to_string()
            } else {
                entry.skips.join(", ")
            }
        ));
        out.push(format!("skipRange: {}", or_none(entry.skip_range)));
    }
    let Some((g, _)) = l.graph.as_ref().filter(|(g, _)| g.channel == c) else {
        return out;
    };
    let Some(n) = g.node(e) else {
        return out;
    };
    // Edges point from the older entry to the one whose link names it.
    let mut by: Vec<(String, Vec<EdgeKind>)> = Vec::new();
    for edge in g.graph.edges_directed(n, Direction::Outgoing) {
        let name = g.graph[edge.target()].name.clone();
        match by.iter_mut().find(|(b, _)| *b == name) {
            Some((_, kinds)) => kinds.push(*edge.weight()),
            None => by.push((name, vec![*edge.weight()])),
        }
    }
    for (_, kinds) in &mut by {
        kinds.sort();
        kinds.dedup();
    }
    if by.is_empty() {
        out.push("reached by: no entry (no replaces, skips or skipRange leads here)".into());
    } else {
        by.sort();
        out.push("reached by (their links lead here):".into());
        out.extend(by.into_iter().map(|(name, kinds)| {
            let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
            format!("  {name} ({})", kinds.join(", "))
        }));
    }
    out
}

/// The version and release as opm orders them (`1.0.0 release 2`), or the text as written when
/// it does not parse.
fn shown_version(b: &Bundle) -> String {
    match fbc_core::catalog::version_release::VersionRelease::of_bundle(b) {
        Some(vr) => vr.to_string(),
        None => match (b.version(), b.package_property().and_then(|p| p.release)) {
            (Some(v), Some(r)) => format!("{v} release {r}"),
            (Some(v), None) => v.to_string(),
            (None, _) => "?".into(),
        },
    }
}

/// A bundle: version, image, what it provides and requires, its CSV's name and description, its
/// related images, the channels that list it and where it is defined.
fn bundle_lines(
    cat: &Catalog,
    idx: &PackageIndex,
    e: &str,
    id: BlobId,
    b: &Bundle,
    text: &dyn Fn(&Str) -> String,
) -> Vec<String> {
    let mut out = vec![
        format!("version: {}", shown_version(b)),
        format!("image: {}", b.image),
    ];
    out.extend(requirement_lines(b));
    if let Some(node) = csv_metadata(b) {
        out.extend(csv_lines(node, text));
    }
    if !b.related_images.is_empty() {
        out.push("related images:".into());
        out.extend(
            b.related_images
                .iter()
                .map(|r| format!("  {} {}", r.name, r.image)),
        );
    }
    let listing: Vec<&str> = idx
        .channels_listing(e)
        .iter()
        .map(|&c| cat.blob(c).name())
        .collect();
    out.push(format!("in channels: {}", listing.join(", ")));
    out.push(format!("defined at {}", cat.location(id)));
    out
}

/// The APIs a bundle provides and requires and the packages it requires, as titled lists.
fn requirement_lines(b: &Bundle) -> Vec<String> {
    let mut provided = Vec::new();
    let mut required = Vec::new();
    let mut packages = Vec::new();
    for pr in &b.properties {
        match pr.parse() {
            Ok(PropertyValue::Gvk(g)) => {
                provided.push(format!("{}/{} {}", g.group, g.version, g.kind))
            }
            Ok(PropertyValue::GvkRequired(g)) => {
                required.push(format!("{}/{} {}", g.group, g.version, g.kind))
            }
            Ok(PropertyValue::PackageRequired(r)) => {
                packages.push(format!("{} {}", r.package_name, r.version_range))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (title, list) in [
        ("provides", provided),
        ("requires", required),
        ("requires packages", packages),
    ] {
        if !list.is_empty() {
            out.push(format!("{title}:"));
            out.extend(list.iter().map(|s| format!("  {s}")));
        }
    }
    out
}

/// The bundle's CSV metadata; the last such property when there are several.
fn csv_metadata<'a>(b: &Bundle<'a>) -> Option<&'a Node> {
    b.properties.iter().rev().find_map(|pr| match pr.parse() {
        Ok(PropertyValue::CsvMetadata(node)) => Some(node),
        _ => None,
    })
}

/// The display name and (the first 20 lines of) the description from a bundle's CSV metadata.
fn csv_lines(node: &Node, text: &dyn Fn(&Str) -> String) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(n) = node.get_field("displayName").and_then(|n| n.as_string()) {
        out.push(format!("display name: {}", text(n)));
    }
    if let Some(n) = node.get_field("description").and_then(|n| n.as_string()) {
        out.push("description:".into());
        out.extend(text(n).lines().take(20).map(|s| format!("  {s}")));
    }
    out
}

/// Deprecation messages of the selected object and of the package and channel above it.
fn deprecation_lines(cat: &Catalog, idx: &PackageIndex, sel: &[String]) -> Vec<String> {
    let scopes: Vec<(&str, &str)> = match sel {
        [_] => vec![(schema::PACKAGE, "")],
        [_, c] => vec![(schema::CHANNEL, c.as_str()), (schema::PACKAGE, "")],
        [_, c, e] => vec![
            (schema::BUNDLE, e.as_str()),
            (schema::CHANNEL, c.as_str()),
            (schema::PACKAGE, ""),
        ],
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    if let Some(dep) = idx
        .deprecations
        .first()
        .and_then(|&id| Deprecations::read(&cat.blob(id).value).ok())
    {
        for (schema_name, name) in scopes {
            if let Some(e) = dep
                .entries
                .iter()
                .find(|e| e.schema == schema_name && e.name == name)
            {
                let what = schema_name.trim_start_matches("olm.");
                out.push(format!("deprecated ({what}): {}", e.message));
            }
        }
    }
    out
}
