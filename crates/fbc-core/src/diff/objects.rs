//! Comparing the objects of two catalogs field by field: a package's and a channel's own fields,
//! bundles, and objects of other schemas.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::fields::{self, Changes, FieldChange};
use super::{BundleChange, LifecycleChange, OtherChange};
use crate::catalog::lifecycle::Lifecycle;
use crate::catalog::{BlobId, BlobState, Catalog, Str};

/// Whether two pristine blobs were read from identical bytes (same file content, same place).
pub(super) fn same_source(old: &Catalog, a: BlobId, new: &Catalog, b: BlobId) -> bool {
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
pub(super) fn pair(old: &Catalog, a: BlobId, new: &Catalog, b: BlobId) -> Option<(Value, Value)> {
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

pub(super) fn decoder(c: &Catalog) -> impl Fn(&str) -> Option<Value> + '_ {
    move |data: &str| c.bundle_object(&Str::new(data)).ok()
}

/// Fields of the `olm.package` object other than its name and default channel.
pub(super) fn package_fields(old: &Catalog, new: &Catalog, package: &str) -> Vec<FieldChange> {
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
pub(super) fn channel_fields(
    old: &Catalog,
    a: BlobId,
    new: &Catalog,
    b: BlobId,
) -> Vec<FieldChange> {
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

pub(super) fn bundle_change(
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

pub(super) fn bundle_names(c: &Catalog, package: &str) -> BTreeSet<String> {
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
pub(super) fn others(old: &Catalog, a: &[BlobId], new: &Catalog, b: &[BlobId]) -> Vec<OtherChange> {
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
        let lifecycle = k.0 == crate::catalog::lifecycle::SCHEMA;
        let read = |c: &Catalog, id: BlobId| Lifecycle::read(&c.blob(id).value);
        let change = |change: &'static str,
                      lifecycle: Option<LifecycleChange>,
                      fields: Vec<FieldChange>| OtherChange {
            schema: k.0.clone(),
            package: k.1.clone(),
            name: k.2.clone(),
            change,
            lifecycle,
            fields,
        };
        for i in 0..la.len().max(lb.len()) {
            match (la.get(i), lb.get(i)) {
                (Some(&x), Some(&y)) => {
                    let Some((vx, vy)) = pair(old, x, new, y) else {
                        continue;
                    };
                    if lifecycle {
                        let (l, f) =
                            super::lifecycle::compare(&read(old, x), &read(new, y), &vx, &vy);
                        out.push(change("changed", l, f));
                    } else {
                        let mut c = Changes::default();
                        fields::other_fields(&vx, &vy, &["schema", "package", "name"], &mut c);
                        out.push(change("changed", None, c.finish()));
                    }
                }
                (Some(&x), None) => {
                    let l = lifecycle
                        .then(|| LifecycleChange::whole(&read(old, x), false))
                        .flatten();
                    out.push(change("removed", l, Vec::new()));
                }
                (None, Some(&y)) => {
                    let l = lifecycle
                        .then(|| LifecycleChange::whole(&read(new, y), true))
                        .flatten();
                    out.push(change("added", l, Vec::new()));
                }
                (None, None) => {}
            }
        }
    }
    out
}

pub(super) fn package_others(c: &Catalog, package: &str) -> Vec<BlobId> {
    c.index()
        .package(package)
        .map(|i| i.others.clone())
        .unwrap_or_default()
}
