//! What every edit needs: finding the package, channel and entry it is about, and changing a
//! channel's entries while recording what undoes the change.

use crate::catalog::model::{Bundle, Channel};
use crate::catalog::node::{Node, ThinVec};
use crate::catalog::version_release::VersionRelease;
use crate::catalog::{BlobId, BlobState, Catalog, PackageIndex};

use super::EditError;

/// The change an edit makes once its preconditions hold: planning an edit reads the catalog and
/// checks, and only the change it returns writes.
pub(super) type Change<'e> =
    Box<dyn FnOnce(&mut Catalog, &mut Recorder) -> Result<(), EditError> + 'e>;

/// Records blobs before they change.
pub(super) struct Recorder {
    pub(super) blobs: Vec<(BlobId, Node, BlobState)>,
}

impl Recorder {
    pub(super) fn new() -> Recorder {
        Recorder { blobs: Vec::new() }
    }

    pub(super) fn touch(&mut self, catalog: &Catalog, id: BlobId) {
        if !self.blobs.iter().any(|(b, _, _)| *b == id) {
            let blob = catalog.blob(id);
            self.blobs.push((id, blob.value.clone(), blob.state));
        }
    }

    /// A blob this edit added: undoing removes it again.
    pub(super) fn added(&mut self, catalog: &Catalog, id: BlobId) {
        let blob = catalog.blob(id);
        self.blobs
            .push((id, blob.value.clone(), BlobState::Removed));
    }
}

pub(super) fn package<'c>(catalog: &'c Catalog, name: &str) -> Result<&'c PackageIndex, EditError> {
    match catalog.index().package(name) {
        Some(p) if !p.packages.is_empty() => Ok(p),
        _ => Err(EditError::NoPackage {
            package: name.to_string(),
        }),
    }
}

pub(super) fn channel_id(catalog: &Catalog, pkg: &str, channel: &str) -> Result<BlobId, EditError> {
    let p = package(catalog, pkg)?;
    p.channel(channel).ok_or_else(|| EditError::NoChannel {
        package: pkg.to_string(),
        channel: channel.to_string(),
        channels: p
            .channels
            .iter()
            .map(|&c| catalog.blob(c).name().to_string())
            .collect(),
    })
}

pub(super) fn read_channel(catalog: &Catalog, id: BlobId) -> Result<Channel<'_>, EditError> {
    Channel::read(&catalog.blob(id).value).map_err(|e| EditError::Unreadable {
        what: "the channel",
        why: e.to_string(),
    })
}

pub(super) fn not_an_entry(entry: &str, channel: &str) -> EditError {
    EditError::NotAnEntry {
        entry: entry.to_string(),
        channel: channel.to_string(),
    }
}

/// A bundle's version and release, as opm compares them.
pub(super) fn version_of(catalog: &Catalog, pkg: &str, bundle: &str) -> Option<VersionRelease> {
    let id = catalog.index().bundle(pkg, bundle)?;
    VersionRelease::of_bundle(&Bundle::read(&catalog.blob(id).value).ok()?)
}

/// The entries list of a channel node, for changing.
pub(super) fn entries_mut(channel: &mut Node) -> Option<&mut ThinVec<Node>> {
    channel.get_field_mut("entries").and_then(Node::as_seq_mut)
}

pub(super) fn entry_mut<'n>(channel: &'n mut Node, name: &str) -> Option<&'n mut Node> {
    entries_mut(channel)?
        .iter_mut()
        .find(|e| e.get_field("name").and_then(Node::as_str) == Some(name))
}

/// Sets (or with `None` removes) a string field of a channel entry.
pub(super) fn set_entry_field(
    catalog: &mut Catalog,
    rec: &mut Recorder,
    id: BlobId,
    entry: &str,
    key: &str,
    value: Option<&str>,
) {
    rec.touch(catalog, id);
    catalog.edit(id, |c| {
        if let Some(e) = entry_mut(c, entry) {
            match value {
                Some(v) => e.set_field(key, Node::string(v)),
                None => {
                    e.remove_field(key);
                }
            }
        }
    });
}

/// Where a new entry goes in a channel's graph: what it replaces and skips, and its skipRange.
#[derive(Clone, Copy)]
pub(super) struct Links<'a> {
    pub(super) replaces: Option<&'a str>,
    pub(super) skips: &'a [String],
    pub(super) skip_range: Option<&'a str>,
}

/// A channel entry with the fields that are set.
pub(super) fn entry_node(name: &str, links: Links) -> Node {
    let mut fields = vec![("name", Node::string(name))];
    if let Some(r) = links.replaces {
        fields.push(("replaces", Node::string(r)));
    }
    if !links.skips.is_empty() {
        fields.push(("skips", strings(links.skips)));
    }
    if let Some(r) = links.skip_range {
        fields.push(("skipRange", Node::string(r)));
    }
    Node::map(fields)
}

pub(super) fn strings(items: &[String]) -> Node {
    Node::seq(items.iter().map(|s| Node::string(s.as_str())))
}

pub(super) fn json_str<'v>(v: &'v serde_json::Value, key: &str) -> &'v str {
    v.get(key).and_then(serde_json::Value::as_str).unwrap_or("")
}
