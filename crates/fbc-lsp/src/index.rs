//! The workspace's symbols beyond the open catalogs: every catalog file and template under the
//! workspace folders, read on the worker the first time `workspace/symbol` is asked, and read
//! again file by file when the client says a file changed (`workspace/didChangeWatchedFiles`) or
//! was saved. Catalogs of open documents are answered from the documents themselves.
//!
//! The walk is bounded: regular files only (links are not followed), names the path policy takes,
//! hidden directories, build output and bundles' `manifests/` and `metadata/` left out, at most [`MOST_FILES`] files of at most the
//! loader's file size and [`MOST_BYTES`] in all, [`DEEPEST`] directories down, each directory
//! listed within [`MOST_ENTRIES`] entries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fbc_core::catalog::model::Bundle;
use fbc_core::catalog::node::Node;
use fbc_core::catalog::schema;
use lsp_server::Request;
use lsp_types::SymbolKind;

use crate::layout::{self, FileKind};
use crate::state::Server;
use crate::worker::Job;

/// Files read at most in one walk.
pub const MOST_FILES: usize = 100_000;
/// Bytes read at most in one walk.
pub const MOST_BYTES: u64 = 8 << 30;
/// Directory levels walked at most below a workspace folder.
pub const DEEPEST: usize = 16;
/// Entries one directory is listed with at most (a repository's `operators/` holds about 900); a
/// directory holding more stops the walk before the rest of it is read.
pub const MOST_ENTRIES: usize = fbc_core::guard::dir::MAX_REPOSITORY_ENTRIES;

/// Directories never walked: build output, and the content of bundle directories (a
/// repository's `operators/<op>/<version>/manifests/`), which holds no catalog or template.
const SKIPPED: [&str; 4] = ["target", "node_modules", "manifests", "metadata"];

/// A named thing in a file: a channel, a bundle (by name and version), a package, a template's
/// bundle image or channel entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    pub package: String,
    pub version: Option<String>,
    /// 0-based line and column (UTF-8 bytes; names are ASCII) of the name.
    pub line: u32,
    pub col: u32,
    pub len: u32,
}

/// The index as the server keeps it.
#[derive(Default)]
pub(crate) struct Index {
    /// Each file's symbols, once the workspace was read.
    pub files: Option<BTreeMap<PathBuf, Vec<Symbol>>>,
    /// Whether the workspace is being read.
    pub building: bool,
    /// `workspace/symbol` requests waiting for the index.
    pub waiting: Vec<Request>,
}

impl Server {
    /// Whether a `workspace/symbol` request waits for the index (which is then being built):
    /// the request is answered when the index comes back.
    pub(crate) fn wait_for_index(&mut self, req: &Request) -> bool {
        if self.index.files.is_some() || self.folders.is_empty() {
            return false;
        }
        self.index.waiting.push(req.clone());
        if !self.index.building {
            self.index.building = true;
            self.jobs.push(Job::Index {
                folders: self.folders.clone(),
                roots: self.settings.catalog_roots.clone(),
                paths: None,
            });
        }
        true
    }

    /// Files that changed on disk: read again when the index exists.
    pub(crate) fn reindex(&mut self, paths: Vec<PathBuf>) {
        let paths: Vec<PathBuf> = paths
            .into_iter()
            .filter(|p| self.folders.iter().any(|f| p.starts_with(f)))
            .collect();
        if self.index.files.is_none() || paths.is_empty() {
            return;
        }
        self.jobs.push(Job::Index {
            folders: self.folders.clone(),
            roots: self.settings.catalog_roots.clone(),
            paths: Some(paths),
        });
    }

    /// The index (or some of its files) read: kept, and the waiting requests answered.
    pub(crate) fn indexed(
        &mut self,
        full: bool,
        files: Vec<(PathBuf, Vec<Symbol>)>,
        note: Option<String>,
    ) {
        if let Some(note) = note {
            self.log(lsp_types::MessageType::WARNING, note);
        }
        if full {
            self.index.building = false;
            self.index.files = Some(BTreeMap::new());
        }
        let Some(index) = self.index.files.as_mut() else {
            return;
        };
        for (path, symbols) in files {
            if symbols.is_empty() {
                index.remove(&path);
            } else {
                index.insert(path, symbols);
            }
        }
        for req in std::mem::take(&mut self.index.waiting) {
            let resp = self.request(req);
            self.out.push(lsp_server::Message::Response(resp));
        }
    }
}

/// Every catalog file and template under `folders`, with what stopped the walk early if anything
/// did.
pub(crate) fn build(
    folders: &[PathBuf],
    roots: &[PathBuf],
) -> (Vec<(PathBuf, Vec<Symbol>)>, Option<String>) {
    let mut walk = Walk::new(MOST_ENTRIES);
    for f in folders {
        walk.dir(f, 0);
    }
    let mut out = Vec::new();
    let mut bytes = 0u64;
    for path in walk.files {
        if bytes > MOST_BYTES {
            walk.stopped.get_or_insert_with(|| {
                format!("the workspace index stopped after {MOST_BYTES} bytes")
            });
            break;
        }
        bytes += path.symlink_metadata().map_or(0, |m| m.len());
        let symbols = file_symbols(&path, roots, folders);
        if !symbols.is_empty() {
            out.push((path, symbols));
        }
    }
    (out, walk.stopped)
}

struct Walk {
    files: Vec<PathBuf>,
    stopped: Option<String>,
    /// Entries one directory is listed with at most.
    most_entries: usize,
}

impl Walk {
    fn new(most_entries: usize) -> Walk {
        Walk {
            files: Vec::new(),
            stopped: None,
            most_entries,
        }
    }

    fn dir(&mut self, dir: &Path, depth: usize) {
        use fbc_core::guard::dir::{self, DirError, Kind};
        if depth > DEEPEST || self.stopped.is_some() {
            return;
        }
        let Ok(within) = fbc_core::guard::file::Within::new(dir) else {
            return;
        };
        let listed = match dir::list(dir, &within, self.most_entries) {
            Ok(l) => l,
            Err(DirError::Io { .. }) => return,
            Err(e @ DirError::TooMany { .. }) => {
                self.stopped = Some(format!("the workspace index stopped at {e}"));
                return;
            }
        };
        // Sorted by name as bytes, which for UTF-8 names is their order as strings.
        let entries = listed
            .into_iter()
            .filter(|e| !e.link)
            .filter_map(|e| Some((e.name.into_string().ok()?, e.kind)))
            .filter(|(n, _)| fbc_core::guard::path::plain_name(n).is_ok());
        for (name, kind) in entries {
            if self.stopped.is_some() {
                return;
            }
            let path = dir.join(&name);
            if kind == Kind::Dir {
                if !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                    self.dir(&path, depth + 1);
                }
            } else if kind == Kind::File && is_candidate(&name) {
                if self.files.len() >= MOST_FILES {
                    self.stopped = Some(format!(
                        "the workspace index stopped after {MOST_FILES} files"
                    ));
                    return;
                }
                self.files.push(path);
            }
        }
    }
}

fn is_candidate(name: &str) -> bool {
    [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
}

/// The symbols of one file: a catalog's channels, bundles and packages, a template's bundle
/// images and channel entries; none for any other file (or one gone).
pub(crate) fn file_symbols(path: &Path, roots: &[PathBuf], folders: &[PathBuf]) -> Vec<Symbol> {
    let is_file = path.symlink_metadata().is_ok_and(|m| m.is_file());
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !is_file || !is_candidate(name) {
        return Vec::new();
    }
    let kind = match layout::classify(path, "", roots, folders) {
        FileKind::Catalog { .. } => FileKind::Catalog {
            root: PathBuf::new(),
            rel: String::new(),
        },
        FileKind::Ci { .. } | FileKind::ReleaseConfig { .. } => return Vec::new(),
        _ => {
            let Ok(text) =
                fbc_core::guard::file::read_text_limited(path, fbc_core::catalog::load::MAX_FILE)
            else {
                return Vec::new();
            };
            layout::classify(path, &text, roots, folders)
        }
    };
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    let Ok(cat) = fbc_core::catalog::load_file(dir, name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match kind {
        FileKind::Catalog { .. } => {
            for (_, blob) in cat.live_blobs() {
                let v = &blob.value;
                let (kind, version) = match blob.schema() {
                    schema::PACKAGE => (SymbolKind::PACKAGE, None),
                    schema::CHANNEL => (SymbolKind::ENUM, None),
                    schema::BUNDLE => (
                        SymbolKind::OBJECT,
                        Bundle::read(v)
                            .ok()
                            .and_then(|b| b.version())
                            .map(str::to_string),
                    ),
                    _ => continue,
                };
                let package = if blob.schema() == schema::PACKAGE {
                    blob.name()
                } else {
                    blob.package()
                };
                if let Some(n) = v.get_field("name") {
                    push(&mut out, n, kind, package, version);
                }
            }
        }
        FileKind::Template => {
            for (_, blob) in cat.live_blobs() {
                let package = blob
                    .value
                    .get_field("package")
                    .or_else(|| blob.value.get_field("Package"))
                    .and_then(Node::as_str)
                    .unwrap_or("")
                    .to_string();
                template_symbols(&blob.value, &package, 0, &mut out);
            }
        }
        _ => {}
    }
    out
}

fn push(out: &mut Vec<Symbol>, n: &Node, kind: SymbolKind, package: &str, version: Option<String>) {
    let (Some(name), p) = (n.as_str(), n.pos()) else {
        return;
    };
    if name.is_empty() || !p.is_real() {
        return;
    }
    out.push(Symbol {
        name: name.to_string(),
        kind,
        package: package.to_string(),
        version,
        line: p.line.saturating_sub(1),
        col: p.col.saturating_sub(1),
        len: p.end.saturating_sub(p.start),
    });
}

/// A template's bundle images (`image`, `Image`), channels and their entries, and packages.
fn template_symbols(node: &Node, package: &str, depth: usize, out: &mut Vec<Symbol>) {
    if depth > 8 {
        return;
    }
    if let Some(items) = node.as_seq() {
        for i in items {
            template_symbols(i, package, depth + 1, out);
        }
        return;
    }
    let Some(map) = node.as_map() else {
        return;
    };
    let schema = node.get_field("schema").and_then(Node::as_str);
    let pkg = match schema {
        Some(schema::PACKAGE) => node.get_field("name").and_then(Node::as_str),
        _ => node.get_field("package").and_then(Node::as_str),
    }
    .unwrap_or(package)
    .to_string();
    for e in map {
        match (e.key_str(), schema) {
            ("image" | "Image", _) => push(out, &e.value, SymbolKind::OBJECT, &pkg, None),
            ("name", Some(schema::PACKAGE)) => push(out, &e.value, SymbolKind::PACKAGE, &pkg, None),
            ("name", Some(schema::CHANNEL)) => push(out, &e.value, SymbolKind::ENUM, &pkg, None),
            ("entries", Some(schema::CHANNEL)) => {
                for entry in e.value.as_seq().unwrap_or_default() {
                    if let Some(n) = entry.get_field("name") {
                        push(out, n, SymbolKind::ENUM_MEMBER, &pkg, None);
                    }
                }
            }
            _ => template_symbols(&e.value, &pkg, depth + 1, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_over_the_bound_stops_the_walk_before_it_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let sub = tmp.path().join("catalogs");
        std::fs::create_dir(&sub).unwrap();
        for f in ["a.yaml", "b.json", "c.txt"] {
            std::fs::write(sub.join(f), "").unwrap();
        }
        std::os::unix::fs::symlink("a.yaml", sub.join("d.yaml")).unwrap();
        std::fs::write(tmp.path().join("z.yaml"), "").unwrap();
        let mut walk = Walk::new(4);
        walk.dir(tmp.path(), 0);
        assert_eq!(walk.stopped, None);
        assert_eq!(
            walk.files,
            [
                sub.join("a.yaml"),
                sub.join("b.json"),
                tmp.path().join("z.yaml")
            ]
        );
        let mut walk = Walk::new(3);
        walk.dir(tmp.path(), 0);
        assert_eq!(
            walk.stopped,
            Some(format!(
                "the workspace index stopped at {}: more than 3 entries; not read further",
                sub.display()
            ))
        );
        assert!(walk.files.is_empty(), "{:?}", walk.files);
    }
}
