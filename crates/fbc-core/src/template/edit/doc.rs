//! A template file opened for editing: a one-file catalog whose only blob is the template document,
//! with the file's text kept to read its long strings.

use std::path::{Path, PathBuf};

use crate::catalog::node::{Kind, Node, inlined};
use crate::catalog::{Catalog, Severity, load_file};
use crate::template::{Template, TemplateError, parse_node};

/// Why a template file cannot be opened for editing.
#[derive(Debug, thiserror::Error)]
pub enum DocError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The file does not read as one document (syntax errors and the like), each problem with its line.
    #[error("{0}")]
    Unreadable(String),
    #[error("{0}: changed while it was being read; try again")]
    Changed(String),
}

/// A template file opened for editing.
#[derive(Debug)]
pub struct TemplateDoc {
    /// The template file as a catalog of one file: blob 0 is the template document.
    pub catalog: Catalog,
    /// The file's text as loaded.
    text: String,
    path: PathBuf,
}

impl TemplateDoc {
    /// Opens `path` (a basic or semver template) for editing. It is read only when it resolves
    /// inside the directory it is named in (a symbolic link leading out of it is not followed).
    pub fn open(path: &Path) -> Result<TemplateDoc, DocError> {
        let shown = path.display().to_string();
        let io = |source| DocError::Io {
            path: shown.clone(),
            source,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| io(std::io::Error::from(std::io::ErrorKind::InvalidInput)))?;
        // Read first, inside its directory: the load below follows links wherever they lead.
        let bytes =
            crate::guard::file::read_limited_within(&dir, path, crate::catalog::load::MAX_FILE)
                .map_err(|e| io(e.into()))?;
        let catalog = load_file(&dir, &name).map_err(|e| DocError::Unreadable(e.to_string()))?;
        let errors: Vec<String> = catalog
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.to_string())
            .collect();
        if !errors.is_empty() {
            return Err(DocError::Unreadable(errors.join("\n")));
        }
        if catalog.blobs.is_empty() {
            return Err(DocError::Unreadable(format!(
                "{shown}: holds no template document"
            )));
        }
        let file = &catalog.files[0];
        if bytes.len() as u64 != file.len || xxhash_rust::xxh3::xxh3_64(&bytes) != file.hash {
            return Err(DocError::Changed(shown));
        }
        let text = String::from_utf8(bytes).map_err(|e| DocError::Unreadable(e.to_string()))?;
        Ok(TemplateDoc {
            catalog,
            text,
            path: path.to_path_buf(),
        })
    }

    /// A template held as text (an editor's unsaved buffer) under the name `path`, read as
    /// [`TemplateDoc::open`] reads the file.
    pub fn from_text(path: &Path, text: &str) -> Result<TemplateDoc, DocError> {
        let shown = path.display().to_string();
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| DocError::Io {
                path: shown.clone(),
                source: std::io::Error::from(std::io::ErrorKind::InvalidInput),
            })?;
        let mut catalog = Catalog::in_memory(&dir);
        catalog.overlay(&name, text);
        let errors: Vec<String> = catalog
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.to_string())
            .collect();
        if !errors.is_empty() {
            return Err(DocError::Unreadable(errors.join("\n")));
        }
        if catalog.blobs.is_empty() {
            return Err(DocError::Unreadable(format!(
                "{shown}: holds no template document"
            )));
        }
        Ok(TemplateDoc {
            catalog,
            text: text.to_string(),
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file name, for messages.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// The template document as it is now (long strings may be left in the file).
    pub fn node(&self) -> &Node {
        &self.catalog.blob(0).value
    }

    /// The document with every string held in memory.
    pub fn inlined(&self) -> Node {
        inlined(self.node(), &self.text)
    }

    /// A node of the document (or a copy of one) with its strings held in memory.
    pub fn inline(&self, node: &Node) -> Node {
        inlined(node, &self.text)
    }

    /// The template as it is now, read like `opm alpha render-template` reads it.
    pub fn template(&self) -> Result<Template, TemplateError> {
        parse_node(&self.name(), &self.inlined(), Vec::new())
    }

    /// Replaces the template document (the write-back keeps every unchanged line).
    pub fn replace(&mut self, node: Node) {
        self.catalog.edit(0, |n| *n = node);
    }

    /// Whether the template changed since it was opened.
    pub fn is_dirty(&self) -> bool {
        !self.catalog.dirty_files().is_empty()
    }
}

/// The key of `map` that matches `key` in any letter case, as written (`Bundles` for `bundles`).
pub(super) fn key_as_written<'a>(map: &'a Node, key: &str) -> Option<&'a str> {
    match &map.kind {
        Kind::Map(entries) => entries
            .iter()
            .rev()
            .find(|e| e.key_str().eq_ignore_ascii_case(key))
            .map(|e| e.key_str()),
        _ => None,
    }
}
