//! Checks opm does not make. They report mistakes that pass `opm validate` but hurt users of the catalog
//! (or that opm rejects with a message that does not say why). None of them is an error.
//!
//! Here: the lints of any blob (unknown schemas and property types, YAML 1.1 traps). Beside it:
//! `skip_range`, `channel`, `dangling` (links to names in no channel) and `bundle`.

mod bundle;
mod channel;
mod dangling;
pub mod lifecycle;
mod skip_range;

use super::Cx;
use super::codes as c;
use super::rules::Pkg;
use super::shape::Path;
use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::property_type;
use crate::catalog::node::{Kind, Node};
use crate::catalog::{BlobId, BlobState, Format, schema};
use crate::graph;

const SCHEMAS: [&str; 4] = [
    schema::PACKAGE,
    schema::CHANNEL,
    schema::BUNDLE,
    schema::DEPRECATIONS,
];

/// Template schemas: input to `opm alpha render-template`, not catalog content.
const TEMPLATE_SCHEMAS: [&str; 5] = [
    "olm.template.basic",
    "olm.semver",
    "olm.template.substitutes",
    "olm.composite",
    "olm.composite.catalogs",
];

/// Property types OLM, opm or the console understand (including the legacy `olm.skips` and
/// `olm.skipRange` of early file-based catalogs).
const PROPERTY_TYPES: [&str; 15] = [
    property_type::PACKAGE,
    property_type::PACKAGE_REQUIRED,
    property_type::GVK,
    property_type::GVK_REQUIRED,
    property_type::BUNDLE_OBJECT,
    property_type::CSV_METADATA,
    property_type::CHANNEL,
    property_type::CONSTRAINT,
    "olm.maxOpenShiftVersion",
    "olm.label",
    "olm.label.required",
    "olm.bundle.mediatype",
    "olm.substitutesFor",
    "olm.deprecated",
    "olm.skipRange",
];

const LEGACY_PROPERTY_TYPES: [&str; 1] = ["olm.skips"];

/// Lints for blobs that belong to no package.
pub fn unowned(cx: &Cx, ids: &[BlobId], out: &mut Vec<Diagnostic>) {
    for &id in ids {
        unknown_schema(cx, id, out);
        yaml_traps(cx, id, out);
        if cx.catalog.blob(id).schema() == crate::catalog::lifecycle::SCHEMA {
            lifecycle::blob(cx, id, out);
        }
    }
}

/// Lints for one package.
pub fn package(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let mut d = Vec::new();
    let idx = p.idx;
    for &id in idx
        .packages
        .iter()
        .chain(&idx.channels)
        .chain(&idx.bundles)
        .chain(&idx.deprecations)
        .chain(&idx.others)
    {
        unknown_schema(cx, id, &mut d);
        yaml_traps(cx, id, &mut d);
        unknown_properties(cx, id, &mut d);
    }
    for (id, ch) in p.model_channels() {
        let chain = graph::check_chain(&ch.entries);
        for e in &ch.entries {
            skip_range::skip_range(cx, p, *id, ch.name, e, &mut d);
        }
        channel::skip_range_only(cx, p, *id, ch.name, &ch.entries, &chain, &mut d);
        dangling::check(cx, p, *id, ch.name, &ch.entries, &chain, &mut d);
        channel::head_metadata(cx, p, *id, ch.name, &ch.entries, &chain, &mut d);
    }
    bundle::bundles(cx, p, &mut d);
    lifecycle::package(cx, p.idx, &mut d);
    for diag in &mut d {
        if diag.object.package.is_none() {
            diag.object.package = Some(p.name.to_string());
        }
    }
    out.append(&mut d);
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known name closest to `name`, if it looks like a typo of it.
fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let lower = name.to_lowercase();
    let by_spelling = known
        .iter()
        .map(|k| (levenshtein(&lower, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, k)| k);
    // An old or reworded name sharing the word: `olm.catalog.deprecation` for `olm.deprecations`.
    by_spelling.or_else(|| {
        known.iter().copied().find(|k| {
            let word = k.rsplit('.').next().unwrap_or(k).to_lowercase();
            word.len() >= 6 && lower.contains(&word[..word.len().min(8)])
        })
    })
}

fn unknown_schema(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let s = cat.blob(id).schema();
    if !s.starts_with("olm.") || SCHEMAS.contains(&s) {
        return;
    }
    let at = cat
        .blob(id)
        .value
        .get_field("schema")
        .map_or_else(|| cat.location(id), |n| cat.node_location(id, n));
    let d = if TEMPLATE_SCHEMAS.contains(&s) {
        Diagnostic::warning(
            c::UNKNOWN_SCHEMA,
            at,
            format!("{s} is a template schema: in a catalog opm keeps it as an unknown object and never checks it"),
        )
        .with_hint("render templates with `opm alpha render-template` and keep them outside the catalog directory (or list them in .indexignore)")
    } else {
        let hint = match closest(s, &SCHEMAS) {
            Some(k) => format!("did you mean {k}?"),
            None => "catalog objects use olm.package, olm.channel, olm.bundle or olm.deprecations"
                .to_string(),
        };
        Diagnostic::warning(
            c::UNKNOWN_SCHEMA,
            at,
            format!("unknown schema {s}: opm keeps the object but never reads or checks it"),
        )
        .with_hint(hint)
    };
    out.push(d);
}

fn unknown_properties(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let blob = cat.blob(id);
    let Some(props) = blob.value.get_field("properties").and_then(Node::as_seq) else {
        return;
    };
    for (i, p) in props.iter().enumerate() {
        let Some(t) = p.get_field("type").and_then(Node::as_str) else {
            continue;
        };
        if !t.starts_with("olm.")
            || PROPERTY_TYPES.contains(&t)
            || LEGACY_PROPERTY_TYPES.contains(&t)
        {
            continue;
        }
        let node = p.get_field("type").unwrap_or(p);
        let mut d = Diagnostic::warning(
            c::UNKNOWN_PROPERTY,
            cat.node_location(id, node),
            format!("properties[{i}] has unknown type {t}: OLM ignores it"),
        );
        if let Some(k) = closest(t, &PROPERTY_TYPES) {
            d = d.with_hint(format!("did you mean {k}?"));
        }
        if blob.schema() == schema::BUNDLE {
            d = d.for_bundle(blob.name());
        }
        out.push(d);
    }
}

/// YAML 1.1 reads some unquoted scalars as numbers or booleans that a reader takes for text: `1.10`
/// becomes 1.1, `010` becomes 8, `on`/`yes`/`y` become true.
fn yaml_traps(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let blob = cat.blob(id);
    if blob.format != Format::Yaml {
        return;
    }
    // The load noted every retyped scalar of the file: a blob as loaded from a file without any
    // needs no walk.
    let pristine = blob.state == BlobState::Loaded && blob.original.is_none();
    let checked = cat.files.get(blob.file).and_then(|f| f.checked.as_deref());
    if pristine && checked.is_some_and(|c| !c.has_retyped()) {
        return;
    }
    let node = blob.original.as_ref().unwrap_or(&blob.value);
    let mut found = Vec::new();
    collect_traps(node, &Path::Root, &mut found);
    for (path, n) in found {
        let len = (n.pos().end - n.pos().start) as usize;
        let Some(text) = cx.read_range(blob.file, u64::from(n.pos().start), len) else {
            continue;
        };
        let read_as = match &n.kind {
            Kind::Bool(b) => format!("the boolean {b}"),
            Kind::Number(v) => format!("the number {v}"),
            _ => continue,
        };
        let mut d = Diagnostic::warning(
            c::YAML_TRAP,
            cat.node_location(id, n),
            format!("{path}: unquoted `{text}` is read by opm (YAML 1.1) as {read_as}"),
        )
        .with_hint(format!("quote it if you mean the text: \"{text}\""));
        if blob.schema() == schema::BUNDLE {
            d = d.for_bundle(blob.name());
        }
        out.push(d);
    }
}

fn collect_traps<'n>(node: &'n Node, path: &Path, out: &mut Vec<(String, &'n Node)>) {
    match &node.kind {
        Kind::Map(entries) => {
            for e in entries {
                collect_traps(&e.value, &Path::Key(path, e.key_str()), out);
            }
        }
        Kind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_traps(item, &Path::Index(path, i), out);
            }
        }
        Kind::Bool(_) | Kind::Number(_) if node.is_retyped_scalar() => {
            out.push((path.to_string(), node));
        }
        _ => {}
    }
}
