//! Text laid over a file of a loaded catalog: an editor's unsaved buffer read in place of the file on
//! disk. The file's documents are decoded from the text, its blobs replaced (their slots reused, so
//! a buffer typed into for hours does not grow the catalog), its load problems replaced, and the
//! index rebuilt for the packages it held and holds. From then on everything that reads the file —
//! strings left in it, the checks of its payloads, the writer's old text — reads the text instead.

use std::sync::Arc;

use super::decode::{self, Format};
use super::diagnostic::Severity;
use super::node::Node;
use super::payload::Checked;
use super::{Blob, BlobId, BlobState, Catalog, FileId, SourceFile, schema};

/// What laying a text over a file changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overlaid {
    /// The file (new in the catalog when it had no such file).
    pub file: FileId,
    /// The packages the file held before and holds now, sorted: the ones to check again.
    pub packages: Vec<String>,
    /// The blob slots whose value changed (any check kept for them is stale).
    pub blobs: Vec<BlobId>,
}

fn owner(b: &Blob) -> Option<String> {
    if b.state == BlobState::Removed {
        return None;
    }
    Some(if b.meta.schema == schema::PACKAGE {
        b.meta.name.clone()
    } else {
        b.meta.package.clone()
    })
}

impl Catalog {
    /// The file at `rel` (catalog-relative, `/`-separated).
    pub fn file_id(&self, rel: &str) -> Option<FileId> {
        self.files.iter().position(|f| f.path == rel)
    }

    /// The text laid over a file, when one is.
    pub fn overlay_text(&self, file: FileId) -> Option<&str> {
        self.files.get(file)?.overlay.as_deref()
    }

    /// Reads `text` as the content of the file at `rel` (added to the catalog when it has no such
    /// file), in place of what is on disk. Edits made since loading to that file's blobs are
    /// dropped: the text is what the file now holds.
    pub fn overlay(&mut self, rel: &str, text: &str) -> Overlaid {
        let file = match self.file_id(rel) {
            Some(f) => f,
            None => {
                self.files.push(SourceFile {
                    path: rel.to_string(),
                    abs: self.root.join(rel),
                    len: 0,
                    modified: None,
                    hash: 0,
                    format: None,
                    clean: true,
                    blobs: Vec::new(),
                    created: false,
                    checked: None,
                    overlay: None,
                });
                self.files.len() - 1
            }
        };
        let id = u32::try_from(file).unwrap_or(u32::MAX);
        let mut diags = Vec::new();
        let docs = decode::decode(text, id, rel, &mut diags);
        let mut with_meta = Vec::with_capacity(docs.len());
        for doc in docs {
            match decode::meta(&doc.node, rel) {
                Ok(meta) => with_meta.push((doc, meta)),
                Err(d) => diags.push(*d),
            }
        }
        let old = std::mem::take(&mut self.files[file].blobs);
        let mut packages: Vec<String> = old.iter().filter_map(|&b| owner(&self.blobs[b])).collect();
        let mut was_unowned = packages.iter().any(String::is_empty);
        let checked =
            Checked::from_load(text.as_bytes(), 0, with_meta.iter().map(|(d, _)| &d.node));
        let format = with_meta.first().map(|(d, _)| d.format).or_else(|| {
            let first = text.bytes().find(|b| !b.is_ascii_whitespace());
            Some(if first == Some(b'{') {
                Format::Json
            } else {
                Format::Yaml
            })
        });
        // Slots this file's blobs held before and gave up (the buffer had fewer documents then),
        // taken again first, lowest first, so the ids come back as they were.
        let mut spare: Vec<BlobId> = if with_meta.len() > old.len() {
            self.blobs
                .iter()
                .enumerate()
                .filter(|(i, b)| {
                    b.file == file
                        && b.state == BlobState::Removed
                        && b.start == b.end
                        && !old.contains(i)
                        && !self.touched.contains(i)
                })
                .map(|(i, _)| i)
                .collect()
        } else {
            Vec::new()
        };
        spare.reverse();
        let mut ids = Vec::with_capacity(with_meta.len());
        for (i, (doc, meta)) in with_meta.into_iter().enumerate() {
            let blob = Blob {
                file,
                format: doc.format,
                start: doc.start,
                end: doc.end,
                meta,
                value: doc.node,
                original: None,
                state: BlobState::Loaded,
                has_anchors: doc.has_anchors,
            };
            let slot = match old.get(i).copied().or_else(|| spare.pop()) {
                Some(slot) => {
                    self.blobs[slot] = blob;
                    slot
                }
                None => {
                    self.blobs.push(blob);
                    self.blobs.len() - 1
                }
            };
            self.touched.remove(&slot);
            ids.push(slot);
        }
        for &gone in old.iter().skip(ids.len()) {
            let b = &mut self.blobs[gone];
            b.state = BlobState::Removed;
            b.value = Node::NULL;
            b.original = None;
            b.start = 0;
            b.end = 0;
            self.touched.remove(&gone);
        }
        for &b in &ids {
            if let Some(p) = owner(&self.blobs[b]) {
                was_unowned |= p.is_empty();
                packages.push(p);
            }
        }
        let f = &mut self.files[file];
        f.blobs = ids.clone();
        f.len = text.len() as u64;
        f.modified = None;
        f.hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        f.format = format;
        f.clean = !diags.iter().any(|d| d.severity == Severity::Error);
        f.checked = Some(Arc::new(checked));
        f.overlay = Some(text.into());
        self.diagnostics.retain(|d| d.location.file != rel);
        self.diagnostics.extend(diags);
        self.diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        packages.retain(|p| !p.is_empty());
        packages.sort();
        packages.dedup();
        if was_unowned {
            self.reindex();
        } else {
            let mut index = std::mem::take(&mut self.index);
            index.rebuild_packages(self, &packages, &ids);
            self.index = index;
        }
        let mut blobs = old;
        blobs.extend(&ids);
        blobs.sort_unstable();
        blobs.dedup();
        Overlaid {
            file,
            packages,
            blobs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::Validation;

    fn demo() -> (tempfile::TempDir, Catalog) {
        let tmp = tempfile::tempdir().unwrap();
        let src = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/demo-catalog");
        copy(&src, tmp.path());
        let c = crate::catalog::load(tmp.path()).unwrap();
        (tmp, c)
    }

    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    /// A buffer's text is read in place of the file: its problems are found, the index follows it,
    /// and laying the disk's text back gives the load's catalog again (same index, same problems),
    /// without growing the blobs.
    #[test]
    fn overlay_replaces_the_file_and_undoes_cleanly() {
        let (tmp, mut c) = demo();
        let rel = "backup-operator/package.yaml";
        let disk = std::fs::read_to_string(tmp.path().join(rel)).unwrap();
        let before = Validation::run(&c).report().diagnostics;
        let index_before = c.index().clone();
        let blobs = c.blobs.len();
        let o = c.overlay(
            rel,
            &disk.replace("defaultChannel: stable", "defaultChannel: nowhere"),
        );
        assert_eq!(o.packages, ["backup-operator"]);
        let mut v = Validation::run(&c);
        let report = v.report();
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.location.file == rel && d.severity == Severity::Error),
            "{report:?}"
        );
        // A syntax error in the buffer: the file's load problem, and its package's blobs gone.
        c.overlay(rel, "schema: olm.package\nname: [\n");
        assert!(c.diagnostics.iter().any(|d| d.location.file == rel));
        c.overlay(rel, &disk);
        v.forget(&o.blobs);
        v.revalidate(&c, &["backup-operator"]);
        assert_eq!(v.report().diagnostics, before);
        assert_eq!(c.index(), &index_before);
        assert_eq!(c.blobs.len(), blobs);
        assert_eq!(c.overlay_text(o.file), Some(disk.as_str()));
    }

    /// An edit of an overlaid file is written against the buffer's text, not the disk's.
    #[test]
    fn edits_render_against_the_text() {
        let (tmp, mut c) = demo();
        let rel = "cache-operator/catalog.yaml";
        let disk = std::fs::read_to_string(tmp.path().join(rel)).unwrap();
        let buffer = disk.replacen(
            "schema: olm.package",
            "# a comment only the buffer has\nschema: olm.package",
            1,
        );
        c.overlay(rel, &buffer);
        crate::edit::Edit::SetDefaultChannel {
            package: "cache-operator".into(),
            channel: "fast".into(),
        }
        .apply(&mut c)
        .unwrap();
        let pending = c.pending_changes().unwrap();
        assert_eq!(pending.len(), 1);
        let (_, old, new) = &pending[0];
        assert_eq!(old, &buffer);
        assert!(new.contains("# a comment only the buffer has\nschema: olm.package"));
        assert!(new.contains("defaultChannel: fast"));
    }
}
