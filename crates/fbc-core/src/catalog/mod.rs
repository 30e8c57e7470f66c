//! The catalog format: files, blobs with their positions, typed views, the index, and writing back.

pub mod align;
pub mod codes;
pub mod commit;
pub mod decode;
pub mod diagnostic;
pub mod emit;
pub mod gotypes;
pub mod image_ref;
pub mod index;
pub mod json;
pub mod lifecycle;
pub mod load;
pub mod model;
pub mod node;
pub mod node_text;
pub mod overlay;
pub mod payload;
mod reading;
pub mod semver_range;
pub mod version_release;
pub mod write;
pub mod yaml;

pub use yaml::yaml11;

use std::path::PathBuf;
use std::time::SystemTime;

pub use decode::{Format, Meta};
pub use diagnostic::{Diagnostic, Location, Object, OpmError, OpmStage, Severity};
pub use index::{Index, PackageIndex};
pub use load::{LoadError, LoadOptions, Progress, load, load_file, load_with};
pub use node::{Entry, Kind, Node, Pos, Str, Style};
pub use yaml::Keep;

/// Index of a file in [`Catalog::files`].
pub type FileId = usize;
/// Index of a blob in [`Catalog::blobs`].
pub type BlobId = usize;

/// Well-known schema names.
pub mod schema {
    pub const PACKAGE: &str = "olm.package";
    pub const CHANNEL: &str = "olm.channel";
    pub const BUNDLE: &str = "olm.bundle";
    pub const DEPRECATIONS: &str = "olm.deprecations";
}

/// A file of the catalog as it was when loaded.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the catalog root, `/`-separated.
    pub path: String,
    pub abs: PathBuf,
    pub len: u64,
    pub modified: Option<SystemTime>,
    /// xxh3 of the bytes as loaded, to notice changes on disk; 0 in a catalog loaded as an outline,
    /// which is never written.
    pub hash: u64,
    /// Format of the file's documents (of the first one when mixed); `None` for a file with none.
    pub format: Option<Format>,
    /// Whether the file was read and decoded without errors. Files with errors are never rewritten.
    pub clean: bool,
    /// Blobs in file order (including ones added by edits, at their place).
    pub blobs: Vec<BlobId>,
    /// Whether the file is new (created by an edit, not on disk yet).
    pub created: bool,
    /// What the strings left on disk decode to, found by the load (when asked) so they need not be
    /// read again.
    pub checked: Option<std::sync::Arc<payload::Checked>>,
    /// Text read in place of the file on disk (an editor's unsaved buffer, see
    /// [`Catalog::overlay`]): strings left in the file and the writer's old text come from it.
    pub overlay: Option<std::sync::Arc<str>>,
}

/// A string left on disk ([`Str::Deferred`]): its file as loaded and its place there, enough to
/// read it back without the catalog ([`Catalog::stored`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredStr {
    pub key: StrKey,
    /// The file, relative to the catalog root, for messages.
    pub path: String,
    abs: PathBuf,
    file_len: u64,
    modified: Option<SystemTime>,
}

/// What tells a string left on disk from any other: the bytes of its file as loaded (their hash)
/// and its place in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StrKey {
    pub file_hash: u64,
    pub start: u32,
    pub len: u32,
}

impl StoredStr {
    /// Reads the string: one positioned read, refused when the file changed since it was loaded.
    pub fn read(&self) -> std::io::Result<String> {
        use std::io::{Read, Seek, SeekFrom};
        let (mut h, meta) = crate::guard::file::open_regular(&self.abs)?;
        if meta.len() != self.file_len || meta.modified().ok() != self.modified {
            return Err(std::io::Error::other(format!(
                "{} changed on disk since it was loaded",
                self.path
            )));
        }
        h.seek(SeekFrom::Start(u64::from(self.key.start)))?;
        let mut buf = vec![0; self.key.len as usize];
        h.read_exact(&mut buf)?;
        String::from_utf8(buf).map_err(|e| std::io::Error::other(e.to_string()))
    }
}

/// Whether a blob is as loaded, new, or removed by an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobState {
    Loaded,
    Added,
    Removed,
}

/// One catalog object (a top-level JSON object or YAML document).
#[derive(Debug, Clone)]
pub struct Blob {
    pub file: FileId,
    pub format: Format,
    /// Byte range of the document in the file as loaded (for YAML, the text between separators).
    pub start: usize,
    pub end: usize,
    pub meta: Meta,
    /// The current value.
    pub value: Node,
    /// The value as loaded, kept once the blob has been edited.
    pub original: Option<Node>,
    pub state: BlobState,
    /// A YAML document with anchors or aliases: edits rewrite it whole.
    pub has_anchors: bool,
}

impl Blob {
    /// Line of the blob's first key (1-based).
    pub fn line(&self) -> u32 {
        self.original.as_ref().unwrap_or(&self.value).pos().line
    }

    pub fn schema(&self) -> &str {
        &self.meta.schema
    }

    pub fn package(&self) -> &str {
        &self.meta.package
    }

    pub fn name(&self) -> &str {
        &self.meta.name
    }

    /// Whether the blob differs from what is on disk.
    pub fn is_dirty(&self) -> bool {
        match self.state {
            BlobState::Loaded => self.original.as_ref().is_some_and(|o| *o != self.value),
            BlobState::Added => true,
            // A removed blob changes its file only if it was in it (not one added, then removed).
            BlobState::Removed => self.end > self.start,
        }
    }
}

/// A loaded catalog.
#[derive(Debug)]
pub struct Catalog {
    pub root: PathBuf,
    pub files: Vec<SourceFile>,
    pub blobs: Vec<Blob>,
    /// Problems found while loading, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    index: Index,
    /// Blobs changed, added or removed since loading (through [`Catalog::edit`] and its siblings):
    /// the only ones that can make a file dirty.
    touched: std::collections::BTreeSet<BlobId>,
    /// Built in memory: nothing of it is on disk (see [`Catalog::on_disk`]).
    in_memory: bool,
    /// Loaded as an outline ([`LoadOptions::keep`]): some of its values were left out, so it is
    /// never written.
    outline: bool,
    /// Every path the load's walk met under the root (files ignored or not read too), sorted:
    /// what [`Catalog::on_disk`] answers from without asking the disk again.
    walked: Option<Vec<Box<str>>>,
}

impl Catalog {
    /// A catalog with no files, to build in memory (objects added with [`Catalog::create_file`] and
    /// [`Catalog::add_blob_to`] are never written unless saved).
    pub fn in_memory(root: &std::path::Path) -> Catalog {
        Catalog {
            root: root.to_path_buf(),
            files: Vec::new(),
            blobs: Vec::new(),
            diagnostics: Vec::new(),
            index: Index::default(),
            touched: Default::default(),
            in_memory: true,
            outline: false,
            walked: None,
        }
    }

    /// Whether the catalog was loaded as an outline ([`yaml::Keep::Outline`] or
    /// [`yaml::Keep::Checked`]): values were left out of it, so a save refuses it.
    pub fn is_outline(&self) -> bool {
        self.outline
    }

    /// Whether a file is on disk at `rel` below the root (never, for a catalog built in memory): as
    /// the load's walk found it, for a catalog loaded whole. (A file made there since is refused
    /// when a save would create it.)
    pub fn on_disk(&self, rel: &str) -> bool {
        if self.in_memory {
            return false;
        }
        if let Some(walked) = &self.walked {
            return walked.binary_search_by(|p| (**p).cmp(rel)).is_ok();
        }
        crate::guard::reads::note(|| self.root.join(rel).display().to_string());
        self.root.join(rel).exists()
    }

    pub fn index(&self) -> &Index {
        &self.index
    }

    pub fn blob(&self, id: BlobId) -> &Blob {
        &self.blobs[id]
    }

    pub fn file_of(&self, id: BlobId) -> &SourceFile {
        &self.files[self.blobs[id].file]
    }

    /// Where a blob starts, for messages.
    pub fn location(&self, id: BlobId) -> Location {
        let b = &self.blobs[id];
        let n = b.original.as_ref().unwrap_or(&b.value);
        Location::new(&self.files[b.file].path, n.pos().line, n.pos().col)
    }

    /// Where a node of a blob sits (falls back to the blob when the node was made by an edit).
    pub fn node_location(&self, id: BlobId, node: &Node) -> Location {
        if node.pos().is_real() {
            Location::new(
                &self.files[self.blobs[id].file].path,
                node.pos().line,
                node.pos().col,
            )
        } else {
            self.location(id)
        }
    }

    /// Blobs that are not removed, in file order.
    pub fn live_blobs(&self) -> impl Iterator<Item = (BlobId, &Blob)> {
        self.blobs
            .iter()
            .enumerate()
            .filter(|(_, b)| b.state != BlobState::Removed)
    }

    /// Reads a string that was left on disk.
    pub fn resolve(&self, s: &Str) -> std::io::Result<String> {
        match s {
            Str::Inline(v) => Ok(v.to_string()),
            Str::Deferred { file, start, len } if self.overlay_text(*file as usize).is_some() => {
                let text = self.overlay_text(*file as usize).unwrap_or_default();
                text.get(*start as usize..*start as usize + *len as usize)
                    .map(str::to_string)
                    .ok_or_else(|| std::io::Error::other("string outside its file's text"))
            }
            Str::Deferred { .. } => self
                .stored(s)
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "unknown file"))?
                .read(),
        }
    }

    /// Where a string left on disk is, to read it back apart from the catalog (on another thread);
    /// `None` for a string held in memory.
    pub fn stored(&self, s: &Str) -> Option<StoredStr> {
        let Str::Deferred { file, start, len } = s else {
            return None;
        };
        let f = self.files.get(*file as usize)?;
        Some(StoredStr {
            key: StrKey {
                file_hash: f.hash,
                start: *start,
                len: *len,
            },
            path: f.path.clone(),
            abs: f.abs.clone(),
            file_len: f.len,
            modified: f.modified,
        })
    }

    /// Changes a blob's value with `f`, keeping the loaded value for writing back, and refreshes the index.
    pub fn edit<R>(&mut self, id: BlobId, f: impl FnOnce(&mut Node) -> R) -> R {
        let was = self.owner_of(id);
        let blob = &mut self.blobs[id];
        if blob.state == BlobState::Loaded && blob.original.is_none() {
            blob.original = Some(blob.value.clone());
        }
        let r = f(&mut blob.value);
        if let Ok(meta) = decode::meta(&blob.value, "") {
            blob.meta = meta;
        }
        self.reindex_blob(id, was);
        r
    }

    /// Adds a new blob. It goes after the last blob of its package in the file the package already uses
    /// (the file of its `olm.package` blob, else of its other blobs); a package with no file gets
    /// `<package>/catalog.yaml`.
    pub fn add_blob(&mut self, value: Node) -> Result<BlobId, AddError> {
        let meta = decode::meta(&value, "").map_err(AddError::Unreadable)?;
        let pkg = if meta.schema == schema::PACKAGE {
            meta.name.clone()
        } else {
            meta.package.clone()
        };
        let file = self.file_for_package(&pkg);
        let file = match file {
            Some(f) => f,
            None => self.create_file(&format!("{pkg}/catalog.yaml"), Format::Yaml)?,
        };
        Ok(self.add_blob_to(file, value, meta))
    }

    fn file_for_package(&self, pkg: &str) -> Option<FileId> {
        let p = self.index.package(pkg)?;
        p.packages
            .iter()
            .chain(&p.channels)
            .chain(&p.bundles)
            .chain(&p.deprecations)
            .find(|&&b| self.blobs[b].state != BlobState::Removed)
            .map(|&b| self.blobs[b].file)
    }

    /// Creates an empty file (written on save).
    pub fn create_file(&mut self, rel: &str, format: Format) -> Result<FileId, AddError> {
        if rel
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
        {
            return Err(AddError::InvalidPath(rel.to_string()));
        }
        if self.files.iter().any(|f| f.path == rel) {
            return Err(AddError::FileExists(rel.to_string()));
        }
        self.files.push(SourceFile {
            path: rel.to_string(),
            abs: self.root.join(rel),
            len: 0,
            modified: None,
            hash: 0,
            format: Some(format),
            clean: true,
            blobs: Vec::new(),
            created: true,
            checked: None,
            overlay: None,
        });
        Ok(self.files.len() - 1)
    }

    /// Adds a blob to a given file, after the last blob of the same package there (or at the end).
    pub fn add_blob_to(&mut self, file: FileId, value: Node, meta: Meta) -> BlobId {
        let format = self.files[file].format.unwrap_or(Format::Yaml);
        let id = self.blobs.len();
        let pkg_of = |b: &Blob| {
            if b.meta.schema == schema::PACKAGE {
                b.meta.name.clone()
            } else {
                b.meta.package.clone()
            }
        };
        let pkg = if meta.schema == schema::PACKAGE {
            meta.name.clone()
        } else {
            meta.package.clone()
        };
        let at = self.files[file]
            .blobs
            .iter()
            .rposition(|&b| {
                self.blobs[b].state != BlobState::Removed && pkg_of(&self.blobs[b]) == pkg
            })
            .map_or(self.files[file].blobs.len(), |i| i + 1);
        self.blobs.push(Blob {
            file,
            format,
            start: 0,
            end: 0,
            meta,
            value,
            original: None,
            state: BlobState::Added,
            has_anchors: false,
        });
        self.files[file].blobs.insert(at, id);
        self.reindex_blob(id, None);
        id
    }

    /// Puts a blob back to an earlier value and state (for undo): its loaded value is kept for
    /// writing back, so restoring the loaded value leaves the file untouched.
    pub fn restore_blob(&mut self, id: BlobId, value: Node, state: BlobState) {
        let was = self.owner_of(id);
        let blob = &mut self.blobs[id];
        if blob.state == BlobState::Loaded && blob.original.is_none() {
            blob.original = Some(blob.value.clone());
        }
        blob.value = value;
        blob.state = state;
        if let Ok(meta) = decode::meta(&blob.value, "") {
            blob.meta = meta;
        }
        self.reindex_blob(id, was);
    }

    /// Removes a blob (its text is cut from the file on save).
    pub fn remove_blob(&mut self, id: BlobId) {
        let was = self.owner_of(id);
        self.blobs[id].state = BlobState::Removed;
        self.reindex_blob(id, was);
    }

    /// The package blob `id` is indexed under now (`None` when it is removed).
    fn owner_of(&self, id: BlobId) -> Option<String> {
        let b = self
            .blobs
            .get(id)
            .filter(|b| b.state != BlobState::Removed)?;
        Some(if b.meta.schema == schema::PACKAGE {
            b.meta.name.clone()
        } else {
            b.meta.package.clone()
        })
    }

    /// Updates the index for one changed blob (see [`Index::update_blob`]).
    fn reindex_blob(&mut self, id: BlobId, was: Option<String>) {
        self.touched.insert(id);
        let mut index = std::mem::take(&mut self.index);
        index.update_blob(self, id, was.as_deref());
        self.index = index;
    }

    /// Files whose text would change on save.
    pub fn dirty_files(&self) -> Vec<FileId> {
        // Only blobs touched since loading can differ from what was read; a created file is
        // written while any of its (added) blobs is still there.
        let mut files: Vec<FileId> = self
            .touched
            .iter()
            .map(|&b| &self.blobs[b])
            .filter(|b| {
                b.is_dirty() || (self.files[b.file].created && b.state != BlobState::Removed)
            })
            .map(|b| b.file)
            .collect();
        files.sort_unstable();
        files.dedup();
        files
    }

    pub(crate) fn reindex(&mut self) {
        self.index = Index::build(self);
    }
}

impl Catalog {
    /// A node as a `serde_json::Value`, reading strings left on disk; fails when one of them cannot be
    /// read back (its file changed since loading).
    pub fn to_json(&self, node: &Node) -> std::io::Result<serde_json::Value> {
        use serde_json::Value;
        Ok(match &node.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
            Kind::String(s) => Value::String(self.resolve(s)?),
            Kind::Seq(items) => Value::Array(
                items
                    .iter()
                    .map(|i| self.to_json(i))
                    .collect::<Result<_, _>>()?,
            ),
            Kind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|e| Ok((e.key_str().to_string(), self.to_json(&e.value)?)))
                    .collect::<std::io::Result<_>>()?,
            ),
        })
    }
}

impl Catalog {
    /// Decodes an `olm.bundle.object` payload (base64 of a JSON or YAML manifest), reading it from disk
    /// when it was left there.
    pub fn bundle_object(&self, data: &Str) -> Result<serde_json::Value, BundleObjectError> {
        use base64::Engine as _;
        let text = self.resolve(data).map_err(BundleObjectError::Unread)?;
        let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(compact.as_bytes())
            .map_err(BundleObjectError::NotBase64)?;
        let manifest = String::from_utf8(bytes).map_err(BundleObjectError::NotUtf8)?;
        let mut diags = Vec::new();
        let docs = decode::decode(&manifest, u32::MAX, "manifest", &mut diags);
        if let Some(d) = diags.into_iter().find(|d| d.severity == Severity::Error) {
            return Err(BundleObjectError::NotManifest(Box::new(d)));
        }
        // The manifest is held in memory: its long strings are read from its own text.
        docs.first()
            .map(|d| node::json_in_text(&d.node, &manifest))
            .ok_or(BundleObjectError::Empty)
    }
}

/// Why a blob or a file cannot be added to a catalog.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddError {
    /// The blob has no schema, package or name to place it by.
    #[error("{}", .0.message)]
    Unreadable(Box<Diagnostic>),
    /// A file path that is empty, or has an empty, `.` or `..` component.
    #[error("invalid file path {0:?}")]
    InvalidPath(String),
    /// A file the catalog already has.
    #[error("{0} already exists in the catalog")]
    FileExists(String),
}

/// Why an `olm.bundle.object` payload cannot be decoded ([`Catalog::bundle_object`]).
#[derive(Debug, thiserror::Error)]
pub enum BundleObjectError {
    /// The payload was left on disk and cannot be read again.
    #[error("{0}")]
    Unread(#[source] std::io::Error),
    #[error("invalid base64: {0}")]
    NotBase64(#[source] base64::DecodeError),
    #[error("manifest is not UTF-8 text")]
    NotUtf8(#[source] std::string::FromUtf8Error),
    /// The decoded text is not a JSON or YAML document (the reader's first error).
    #[error("{}", .0.message)]
    NotManifest(Box<Diagnostic>),
    #[error("manifest is empty")]
    Empty,
}
