//! Guided edits on a basic template. The edit runs on a view of the catalog the template stands for
//! (its objects as written, its bundles rendered from their images); what changed in the view is
//! written back into the template's `entries`.

use std::collections::HashMap;
use std::path::Path;

use crate::catalog::decode::{self, Format};
use crate::catalog::node::{Kind, Node};
use crate::catalog::{BlobState, Catalog, emit, schema};
use crate::edit::Edit;
use crate::template::source::BundleSource;

use super::doc::key_as_written;
use super::{TemplateDoc, TemplateEditError};

/// Where a blob of the view comes from.
#[derive(Clone, Copy)]
enum Origin {
    /// Entry `i` of the template, as written.
    Entry(usize),
    /// The bundle rendered from the image of entry `i`.
    Bundle(usize),
}

pub(super) fn apply(
    doc: &TemplateDoc,
    edit: &Edit,
    source: &dyn BundleSource,
) -> Result<Node, TemplateEditError> {
    let entries = entries_of(doc.node());
    let (mut view, origins) = view(doc, &entries, source)?;
    let before: Vec<Node> = view.blobs.iter().map(|b| b.value.clone()).collect();
    edit.apply(&mut view)?;

    let mut replaced: HashMap<usize, Option<Node>> = HashMap::new();
    let mut added = Vec::new();
    for (id, blob) in view.blobs.iter().enumerate() {
        let changed = id >= before.len() || blob.value != before[id];
        match origins.get(id) {
            Some(Origin::Entry(i)) if blob.state == BlobState::Removed => {
                replaced.insert(*i, None);
            }
            Some(Origin::Entry(i)) if changed => {
                replaced.insert(*i, Some(blob.value.clone()));
            }
            Some(Origin::Bundle(i)) if blob.state == BlobState::Removed => {
                replaced.insert(*i, None);
            }
            Some(Origin::Bundle(_)) if changed => {
                return Err(TemplateEditError::CannotExpress(format!(
                    "a template lists bundle {} by its image only: what the bundle holds comes from the image",
                    blob.name()
                )));
            }
            Some(_) => {}
            None if blob.state != BlobState::Removed => {
                added.push(new_entry(&blob.value, &entries))
            }
            None => {}
        }
    }

    let mut out = Vec::with_capacity(entries.len() + added.len());
    for (i, e) in entries.into_iter().enumerate() {
        match replaced.remove(&i) {
            Some(None) => {}
            Some(Some(n)) => out.push(n),
            None => out.push(e),
        }
    }
    for n in added {
        let kind = schema_of(&n);
        let at = out
            .iter()
            .rposition(|x| schema_of(x) == kind)
            .map_or(out.len(), |p| p + 1);
        out.insert(at, n);
    }
    Ok(with_entries(doc.node(), out))
}

/// The view: one in-memory catalog of the template's objects and rendered bundles, with the origin
/// of each blob. Entries that are not catalog objects, and images no source resolves, are left out
/// (the rendering reports them).
fn view(
    doc: &TemplateDoc,
    entries: &[Node],
    source: &dyn BundleSource,
) -> Result<(Catalog, Vec<Origin>), TemplateEditError> {
    let mut view = Catalog::in_memory(Path::new("."));
    let file = view
        .create_file("template.yaml", Format::Yaml)
        .map_err(crate::edit::EditError::from)?;
    let mut origins = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let inline = doc.inline(e);
        let (node, origin) = if schema_of(&inline) == schema::BUNDLE {
            let Some(image) = inline.get_field("image").and_then(Node::as_str) else {
                continue;
            };
            let Some(Ok(bundle)) = source.bundle_for_image(image) else {
                continue;
            };
            (emit::to_node(&bundle, false), Origin::Bundle(i))
        } else {
            (e.clone(), Origin::Entry(i))
        };
        let Ok(meta) = decode::meta(&inline, "") else {
            continue;
        };
        let meta = if matches!(origin, Origin::Bundle(_)) {
            match decode::meta(&node, "") {
                Ok(m) => m,
                Err(_) => continue,
            }
        } else {
            meta
        };
        view.add_blob_to(file, node, meta);
        origins.push(origin);
    }
    Ok((view, origins))
}

/// A template entry for an object the edit added: a bundle as `{schema: olm.bundle, image}`, in the
/// key order of the bundle entry it is written after (the template's last one: templates that
/// changed style over time write their newest entries the newer way), `schema` first when there is
/// none, as the release step writes it; anything else as it is.
fn new_entry(value: &Node, entries: &[Node]) -> Node {
    if schema_of(value) != schema::BUNDLE {
        return value.clone();
    }
    let image = value
        .get_field("image")
        .cloned()
        .unwrap_or(Node::string(""));
    let image_first = entries
        .iter()
        .rev()
        .find(|e| schema_of(e) == schema::BUNDLE)
        .and_then(|e| e.as_map().and_then(|m| m.first()))
        .is_some_and(|first| first.key_str().eq_ignore_ascii_case("image"));
    let schema_node = Node::string(schema::BUNDLE);
    if image_first {
        Node::map(vec![("image", image), ("schema", schema_node)])
    } else {
        Node::map(vec![("schema", schema_node), ("image", image)])
    }
}

/// The schema an entry declares (in any letter case), or "".
pub fn schema_of(node: &Node) -> &str {
    key_as_written(node, "schema")
        .and_then(|k| node.get_field(k))
        .and_then(Node::as_str)
        .unwrap_or("")
}

/// The template's entries (none when it has no `entries`).
pub fn entries_of(doc: &Node) -> Vec<Node> {
    key_as_written(doc, "entries")
        .and_then(|k| doc.get_field(k))
        .and_then(Node::as_seq)
        .map(<[Node]>::to_vec)
        .unwrap_or_default()
}

/// The document with `entries` replaced (added when missing).
pub(super) fn with_entries(doc: &Node, entries: Vec<Node>) -> Node {
    let mut doc = doc.clone();
    let key = key_as_written(&doc, "entries").map(str::to_string);
    match key.and_then(|k| doc.get_field_mut(&k).map(|n| (n, k))) {
        Some((n, _)) if matches!(n.kind, Kind::Seq(_)) => n.kind = Kind::Seq(entries.into()),
        Some((n, _)) => *n = Node::seq(entries),
        None => doc.set_field("entries", Node::seq(entries)),
    }
    doc
}
