//! Reading a registry+v1 bundle directory the way opm's bundle parser does: manifests (the first
//! object of each file) and `metadata/` (annotations, dependencies, properties), with the file
//! helpers migrate shares. What opm would log and skip, or stop at, becomes a diagnostic.

use std::path::Path;

use serde_json::Value;

use super::{
    Annotation, CHANNELS_KEY, DEFAULT_CHANNEL_KEY, MANIFESTS_KEY, MEDIATYPE_KEY, METADATA_KEY,
    Object, PACKAGE_KEY, RegistryBundle, TypedValue, codes, diag,
};
use crate::catalog::diagnostic::{Diagnostic, Location};
use crate::catalog::emit::{sort_keys, write_go_json_sorted};
use crate::catalog::node::{Kind, Node};
use crate::catalog::{Severity, decode};
use crate::guard::dir::{DirError, Kind as DirKind, MAX_BUNDLE_ENTRIES, list};
use crate::guard::file::Within;

/// Why a directory of a bundle or of package manifests was not listed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ListError {
    #[error(transparent)]
    Io(std::io::Error),
    #[error("more than {max} entries; not read further")]
    TooMany { max: usize },
}

/// The entries of `dir` sorted by name as Go's `fs.ReadDir` returns them, each with whether it is
/// a directory: at most `max` ([`MAX_BUNDLE_ENTRIES`] for a bundle's), else
/// [`ListError::TooMany`] before the rest is read. A link counts as a directory only when it
/// leads to one inside `within`; one leading out of it is no directory, and reading it as a file
/// is refused.
pub(crate) fn read_dir_sorted(
    dir: &Path,
    within: &Within,
    max: usize,
) -> Result<Vec<(String, bool)>, ListError> {
    let entries = list(dir, within, max).map_err(|e| match e {
        DirError::Io { source, .. } => ListError::Io(source),
        DirError::TooMany { max, .. } => ListError::TooMany { max },
    })?;
    let mut out: Vec<(String, bool)> = entries
        .into_iter()
        .map(|e| {
            (
                e.name.to_string_lossy().into_owned(),
                e.kind == DirKind::Dir,
            )
        })
        .collect();
    // Names that are not UTF-8 sort as they are shown.
    out.sort();
    Ok(out)
}

pub(crate) use crate::catalog::node::json_in_text as node_json;

/// A scalar as opm's YAML reader fills a Go string field with it: YAML 1.1 numbers and booleans
/// become their value's text (`1.10` reads as `1.1`, `yes` as `true`).
fn scalar_text(node: &Node, text: &str) -> Option<String> {
    match &node.kind {
        Kind::String(_) => node_json(node, text).as_str().map(str::to_string),
        Kind::Number(n) => Some(n.to_string()),
        Kind::Bool(b) => Some(b.to_string()),
        Kind::Null => Some(String::new()),
        _ => None,
    }
}

/// A file's documents: `(node, line)` with the text they came from. Problems go to `diags`.
/// The file is read only when it resolves inside `within` (the bundle or package-manifest
/// directory the command line names): a link leading out of it is reported and not read.
pub(crate) fn read_docs(
    within: &Within,
    path: &Path,
    rel: &str,
    diags: &mut Vec<Diagnostic>,
    code: &'static str,
) -> Option<(String, Vec<Option<Node>>)> {
    // Only a regular file is read (a FIFO would never end the read), its size checked first.
    let bytes = match within.read_limited(path, crate::catalog::load::MAX_FILE) {
        Ok(b) => b,
        Err(e) => {
            diags.push(diag(
                codes::UNREADABLE,
                Severity::Error,
                Location::new(rel, 0, 0),
                format!("cannot read: {e}"),
            ));
            return None;
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        diags.push(diag(
            code,
            Severity::Error,
            Location::new(rel, 0, 0),
            "not UTF-8 text",
        ));
        return None;
    };
    let nodes = documents(&text, rel, diags, code);
    Some((text, nodes))
}

/// A file's documents as Kubernetes' YAML-or-JSON reader splits them: JSON when the text starts
/// with `{`; otherwise YAML split at `---` lines, where a separator before any text starts nothing
/// but a blank line or a comment does make a document. Empty, comment-only and `null` documents are
/// `None` (opm's decoder reads nothing from them).
fn documents(
    text: &str,
    rel: &str,
    diags: &mut Vec<Diagnostic>,
    code: &'static str,
) -> Vec<Option<Node>> {
    if text.trim_start().starts_with('{') {
        let mut found = Vec::new();
        let docs = decode::decode(text, u32::MAX, rel, &mut found);
        for mut d in found {
            if d.severity == Severity::Error {
                d.code = code;
                diags.push(d);
            }
        }
        return docs.into_iter().map(|d| Some(d.node)).collect();
    }
    let (chunks, separators) = crate::catalog::yaml::split_documents(text, 0, 1);
    for e in separators {
        diags.push(diag(
            code,
            Severity::Error,
            Location::new(rel, e.line, 1),
            format!(
                "text after the document separator `---`: {:?} (only a comment may follow it)",
                e.rest
            ),
        ));
    }
    chunks
        .into_iter()
        .map(
            |chunk| match crate::catalog::yaml::parse_chunk(text, chunk, u32::MAX) {
                Ok(doc) if doc.node.is_null() => None,
                Ok(doc) => Some(doc.node),
                Err(e) => {
                    diags.push(diag(
                        code,
                        Severity::Error,
                        Location::new(rel, e.line, e.col),
                        format!("not valid YAML: {}", e.message),
                    ));
                    None
                }
            },
        )
        .collect()
}

/// The JSON opm stores for a value decoded from YAML: keys sorted, HTML characters escaped.
fn go_raw(v: &Value) -> String {
    let mut s = String::new();
    write_go_json_sorted(&mut s, v, true);
    s
}

/// The list under `key`, when it has items.
fn non_empty_list<'n>(doc: &'n Node, key: &str) -> Option<&'n Node> {
    doc.get(key)
        .filter(|d| d.as_seq().is_some_and(|s| !s.is_empty()))
}

/// `type`/`value` pairs of a `dependencies:` or `properties:` list.
fn typed_list(
    node: &Node,
    text: &str,
    rel: &str,
    code: &'static str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<TypedValue> {
    let mut out = Vec::new();
    for item in node.as_seq().unwrap_or(&[]) {
        let loc = Location::new(rel, item.pos().line, item.pos().col);
        let type_ = item
            .get("type")
            .and_then(|t| scalar_text(t, text))
            .unwrap_or_default();
        if type_.is_empty() {
            diags.push(diag(
                code,
                Severity::Error,
                loc.clone(),
                "entry has no `type`",
            ));
        }
        // opm keeps the JSON its YAML converter made: keys sorted.
        let mut value = item
            .get("value")
            .map(|v| node_json(v, text))
            .unwrap_or(Value::Null);
        sort_keys(&mut value);
        let raw = go_raw(&value);
        out.push(TypedValue {
            type_,
            value,
            raw,
            location: loc,
        });
    }
    out
}

impl RegistryBundle {
    /// Reads a registry+v1 bundle directory. Never fails: what cannot be read is a diagnostic.
    /// Its files are read only when they resolve inside `root`.
    pub fn read(root: &Path) -> RegistryBundle {
        RegistryBundle::read_as(root, false)
    }

    /// [`RegistryBundle::read`], objects other than the CSV read lean when `lean` (see
    /// [`RegistryBundle::read_for_render`]).
    pub(super) fn read_as(root: &Path, lean: bool) -> RegistryBundle {
        RegistryBundle::read_within(root, lean, MAX_BUNDLE_ENTRIES)
    }

    /// [`RegistryBundle::read_as`], `manifests/` and `metadata/` each listed within `max` entries.
    fn read_within(root: &Path, lean: bool, max: usize) -> RegistryBundle {
        let mut b = RegistryBundle {
            root: root.to_path_buf(),
            lean,
            ..Default::default()
        };
        let within = match Within::new(root) {
            Ok(w) => w,
            Err(e) => {
                b.diagnostics.push(diag(
                    codes::NOT_A_BUNDLE,
                    Severity::Error,
                    Location::new(".", 0, 0),
                    format!("cannot read the bundle directory: {e}"),
                ));
                return b;
            }
        };
        b.read_manifests(
            &within,
            &root.join("manifests"),
            "manifests/",
            |_| true,
            max,
        );
        b.read_metadata(&within, max);
        b
    }

    /// The files that could not be read (not regular files, too large, or links leading out of
    /// the directory): reading passes over them, as opm passes over what it cannot read, so a
    /// rendering leaves them out.
    pub fn unread(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.code == codes::UNREADABLE)
    }

    /// A bundle made of the manifest files of `dir` that `keep` accepts (by file name), with the
    /// package and channels given instead of read from annotations: what a version directory of the
    /// legacy package-manifest format holds. `prefix` is prepended to file names in diagnostics.
    /// Files are read only when they resolve inside `within` (the directory migrated).
    pub fn from_manifests(
        within: &Within,
        dir: &Path,
        prefix: &str,
        keep: impl Fn(&str) -> bool,
        package: &str,
        channels: &[String],
        default_channel: Option<&str>,
    ) -> RegistryBundle {
        let mut b = RegistryBundle {
            root: dir.to_path_buf(),
            ..Default::default()
        };
        b.read_manifests(within, dir, prefix, keep, MAX_BUNDLE_ENTRIES);
        let at = Location::new(prefix.trim_end_matches('/'), 0, 0);
        let mut annotation = |key: &str, value: String| {
            b.annotations.push(Annotation {
                key: key.to_string(),
                value,
                location: at.clone(),
            })
        };
        annotation(MEDIATYPE_KEY, "registry+v1".into());
        annotation(MANIFESTS_KEY, "manifests/".into());
        annotation(METADATA_KEY, "metadata/".into());
        annotation(PACKAGE_KEY, package.into());
        annotation(CHANNELS_KEY, channels.join(","));
        if let Some(d) = default_channel {
            annotation(DEFAULT_CHANNEL_KEY, d.into());
        }
        b.annotations_file = Some(String::new());
        b
    }

    fn read_manifests(
        &mut self,
        within: &Within,
        dir: &Path,
        prefix: &str,
        keep: impl Fn(&str) -> bool,
        max: usize,
    ) {
        let entries = match read_dir_sorted(dir, within, max) {
            Ok(e) => e,
            Err(e) => {
                self.diagnostics.push(diag(
                    codes::NOT_A_BUNDLE,
                    Severity::Error,
                    Location::new(prefix.trim_end_matches('/'), 0, 0),
                    format!("cannot read the manifests directory: {e}"),
                ));
                return;
            }
        };
        for (name, is_dir) in entries {
            if !keep(&name) {
                continue;
            }
            let rel = format!("{prefix}{name}");
            if is_dir {
                self.diagnostics.push(diag(
                    codes::STRAY_FILE,
                    Severity::Info,
                    Location::new(&rel, 0, 0),
                    "a directory inside manifests/ is not read (manifests are not read recursively)",
                ));
                continue;
            }
            if name.starts_with('.') {
                continue;
            }
            if let Some(object) = self.read_manifest(within, &dir.join(&name), &rel) {
                self.add_object(object);
            }
        }
    }

    /// The object of one manifest file: its first document, as opm reads it (`None` when opm skips
    /// the file).
    fn read_manifest(&mut self, within: &Within, path: &Path, rel: &str) -> Option<Object> {
        let (text, nodes) = read_docs(within, path, rel, &mut self.diagnostics, codes::MANIFEST)?;
        let first = match nodes.first() {
            Some(Some(first)) => first,
            Some(None) if nodes.iter().flatten().next().is_some() => {
                self.diagnostics.push(diag(
                    codes::SKIPPED_FILE,
                    Severity::Warning,
                    Location::new(rel, 0, 0),
                    "the first document is empty (only blank lines or comments before a `---`): opm reads nothing from it and skips the whole file",
                ).with_hint("remove the `---` after the leading comment or blank line"));
                return None;
            }
            _ => {
                self.diagnostics.push(diag(
                    codes::MANIFEST,
                    Severity::Error,
                    Location::new(rel, 0, 0),
                    "holds no object; opm skips it",
                ));
                return None;
            }
        };
        if nodes.len() > 1 {
            let second = nodes[1].as_ref().map_or(0, |n| n.pos().line);
            self.diagnostics.push(diag(
                codes::EXTRA_DOCUMENT,
                Severity::Warning,
                Location::new(rel, second, 1),
                format!("{} documents in one file: opm reads only the first; put each object in its own file", nodes.len()),
            ));
        }
        let (value, json) = if self.lean && super::lean::is_lean(first, &text) {
            let mut json = String::new();
            super::lean::write_node_go_json(&mut json, first, &text, true);
            (super::lean::fields(first, &text), Some(json))
        } else {
            (node_json(first, &text), None)
        };
        let object = Object {
            file: rel.to_string(),
            line: first.pos().line,
            value,
            json,
        };
        let problem = if !object.value.is_object() {
            "not a Kubernetes object (a mapping is expected); opm skips it"
        } else if object.kind().is_empty() {
            "object has no `kind`; opm skips it"
        } else {
            return Some(object);
        };
        self.diagnostics.push(diag(
            codes::MANIFEST,
            Severity::Error,
            object.location(),
            problem,
        ));
        None
    }

    /// Keeps an object read from `manifests/`: the first CSV is the bundle's, later ones are dropped.
    fn add_object(&mut self, object: Object) {
        if object.kind() == "ClusterServiceVersion" {
            self.csv_count += 1;
            if self.csv.is_some() {
                return;
            }
            self.csv = Some(self.objects.len());
        }
        self.objects.push(object);
    }

    fn read_metadata(&mut self, within: &Within, max: usize) {
        let dir = self.root.join("metadata");
        let entries = match read_dir_sorted(&dir, within, max) {
            Ok(e) => e,
            Err(e) => {
                self.diagnostics.push(diag(
                    codes::NOT_A_BUNDLE,
                    Severity::Error,
                    Location::new("metadata", 0, 0),
                    format!("cannot read the metadata directory: {e}"),
                ));
                return;
            }
        };
        for (name, is_dir) in entries {
            let rel = format!("metadata/{name}");
            if is_dir {
                self.diagnostics.push(diag(
                    codes::STRAY_FILE,
                    Severity::Info,
                    Location::new(&rel, 0, 0),
                    "a directory inside metadata/ is not read",
                ));
                continue;
            }
            self.read_metadata_file(within, &dir.join(&name), &name, &rel);
        }
    }

    /// One file of `metadata/`: the first file with annotations, dependencies or properties supplies
    /// them (opm reads each kind from the first file that has it).
    fn read_metadata_file(&mut self, within: &Within, path: &Path, name: &str, rel: &str) {
        let mut diags = Vec::new();
        let read = read_docs(within, path, rel, &mut diags, codes::METADATA_FILE);
        self.diagnostics.extend(diags);
        let Some((text, nodes)) = read else {
            return;
        };
        // An empty first document reads as nothing (and the rest is not read).
        let Some(Some(doc)) = nodes.first() else {
            self.diagnostics.push(diag(
                codes::METADATA_FILE,
                Severity::Warning,
                Location::new(rel, 0, 0),
                "not read: its first document is empty, so opm finds no annotations, dependencies or properties in it",
            ));
            return;
        };
        let annotations = self.take_annotations(doc, &text, rel);
        let dependencies = self.take_dependencies(doc, &text, name, rel);
        let properties = self.take_properties(doc, &text, name, rel);
        if !(annotations || dependencies || properties) {
            self.diagnostics.push(diag(
                codes::METADATA_FILE,
                Severity::Warning,
                Location::new(rel, 0, 0),
                "not read: it holds no annotations, dependencies or properties opm would use",
            ));
        }
    }

    /// The bundle's annotations, from the first file whose `annotations:` set the package, channels
    /// or default channel. True when `doc` supplied them.
    fn take_annotations(&mut self, doc: &Node, text: &str, rel: &str) -> bool {
        if self.annotations_file.is_some() {
            return false;
        }
        let Some(map) = doc.get("annotations").and_then(Node::as_map) else {
            return false;
        };
        let annotations: Vec<Annotation> = map
            .iter()
            .map(|e| Annotation {
                key: e.key_str().to_string(),
                value: scalar_text(&e.value, text).unwrap_or_default(),
                location: Location::new(rel, e.key.pos().line, e.key.pos().col),
            })
            .collect();
        let known = [PACKAGE_KEY, CHANNELS_KEY, DEFAULT_CHANNEL_KEY];
        if !annotations
            .iter()
            .any(|a| known.iter().any(|k| k.eq_ignore_ascii_case(&a.key)) && !a.value.is_empty())
        {
            return false;
        }
        self.annotations = annotations;
        self.annotations_file = Some(rel.to_string());
        true
    }

    /// The bundle's dependencies, from the first file with a non-empty `dependencies:` list. True
    /// when `doc` supplied them.
    fn take_dependencies(&mut self, doc: &Node, text: &str, name: &str, rel: &str) -> bool {
        if self.dependencies_file.is_some() {
            return false;
        }
        let Some(list) = non_empty_list(doc, "dependencies") else {
            return false;
        };
        self.dependencies = typed_list(list, text, rel, codes::DEPENDENCY, &mut self.diagnostics);
        self.dependencies_file = Some(rel.to_string());
        if name.starts_with("properties") {
            self.diagnostics.push(diag(
                codes::METADATA_FILE,
                Severity::Warning,
                Location::new(rel, list.pos().line, 1),
                format!("{rel} holds `dependencies:`, not `properties:`; opm reads it as the bundle's dependencies"),
            ).with_hint("rename the key to `properties:` if these are properties, or the file to dependencies.yaml"));
        }
        true
    }

    /// The bundle's properties, from the first file with a non-empty `properties:` list. True when
    /// `doc` supplied them.
    fn take_properties(&mut self, doc: &Node, text: &str, name: &str, rel: &str) -> bool {
        if self.properties_file.is_some() {
            return false;
        }
        let Some(list) = non_empty_list(doc, "properties") else {
            return false;
        };
        self.properties = typed_list(list, text, rel, codes::PROPERTY, &mut self.diagnostics);
        self.properties_file = Some(rel.to_string());
        if name.starts_with("dependencies") {
            self.diagnostics.push(diag(
                codes::METADATA_FILE,
                Severity::Warning,
                Location::new(rel, list.pos().line, 1),
                format!("{rel} holds `properties:`, not `dependencies:`; opm reads it as the bundle's properties"),
            ));
        }
        true
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
