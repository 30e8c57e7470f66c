//! Bundle directories: registry+v1 (`manifests/` + `metadata/annotations.yaml`) and plain+v0 (a flat
//! `manifests/` of Kubernetes objects). Reading follows opm's bundle parser so that rendering gives
//! the `olm.bundle` opm gives; checking reports everything wrong at once, with file:line, where opm
//! stops at the first problem or skips a broken manifest with a log line.

pub mod codes;
mod content;
mod csv_metadata;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::catalog::diagnostic::{Diagnostic, Location};
use crate::catalog::emit::{sort_keys, write_go_json};
use crate::catalog::node::{Kind, Node};
use crate::catalog::semver_range::{Range, Version};
use crate::catalog::{Severity, decode};

pub use csv_metadata::{csv_metadata, migrate_bundle_objects};

pub const ANNOTATION_PREFIX: &str = "operators.operatorframework.io.bundle.";
pub const PACKAGE_KEY: &str = "operators.operatorframework.io.bundle.package.v1";
pub const CHANNELS_KEY: &str = "operators.operatorframework.io.bundle.channels.v1";
pub const DEFAULT_CHANNEL_KEY: &str = "operators.operatorframework.io.bundle.channel.default.v1";
pub const MEDIATYPE_KEY: &str = "operators.operatorframework.io.bundle.mediatype.v1";
pub const MANIFESTS_KEY: &str = "operators.operatorframework.io.bundle.manifests.v1";
pub const METADATA_KEY: &str = "operators.operatorframework.io.bundle.metadata.v1";

/// Object kinds a registry+v1 bundle may carry besides its CSV and CRDs.
pub const SUPPORTED_KINDS: &[&str] = &[
    "ClusterServiceVersion",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleBinding",
    "ConfigMap",
    "ConsoleCLIDownload",
    "ConsoleLink",
    "ConsoleQuickStart",
    "ConsoleYAMLSample",
    "PodDisruptionBudget",
    "PriorityClass",
    "PrometheusRule",
    "Role",
    "RoleBinding",
    "Secret",
    "Service",
    "ServiceAccount",
    "ServiceMonitor",
    "VerticalPodAutoscaler",
    "ConsolePlugin",
    "NetworkPolicy",
    "PodMonitor",
];

/// The two bundle formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    RegistryV1,
    PlainV0,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::RegistryV1 => "registry+v1",
            Format::PlainV0 => "plain+v0",
        })
    }
}

/// A Kubernetes object read from a manifest file.
#[derive(Debug, Clone)]
pub struct Object {
    /// Path relative to the bundle directory.
    pub file: String,
    pub line: u32,
    pub value: Value,
}

impl Object {
    pub fn kind(&self) -> &str {
        self.value.get("kind").and_then(Value::as_str).unwrap_or("")
    }

    pub fn api_version(&self) -> &str {
        self.value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub fn name(&self) -> &str {
        self.value
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    fn location(&self) -> Location {
        Location::new(&self.file, self.line, 1)
    }
}

/// A `{type, value}` pair from `metadata/` or the CSV's `olm.properties` annotation. `raw` is the
/// value's JSON text as opm holds it (it sorts and de-duplicates properties by this text).
#[derive(Debug, Clone)]
pub struct TypedValue {
    pub type_: String,
    pub value: Value,
    pub raw: String,
    pub location: Location,
}

/// One `key: value` of the annotations file.
#[derive(Debug, Clone)]
pub struct Annotation {
    pub key: String,
    pub value: String,
    pub location: Location,
}

/// A registry+v1 bundle directory as opm reads it.
#[derive(Debug, Clone, Default)]
pub struct RegistryBundle {
    pub root: PathBuf,
    /// Manifests in file-name order (the first object of each file), CSVs after the first dropped.
    pub objects: Vec<Object>,
    /// Index into `objects` of the CSV.
    pub csv: Option<usize>,
    /// Every CSV found, with the ones opm drops.
    pub csv_count: usize,
    pub annotations_file: Option<String>,
    pub annotations: Vec<Annotation>,
    pub dependencies_file: Option<String>,
    pub dependencies: Vec<TypedValue>,
    pub properties_file: Option<String>,
    pub properties: Vec<TypedValue>,
    /// Problems met while reading (what opm logs and skips, and what stops it).
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a bundle cannot be rendered. The texts are opm's.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BundleError {
    #[error("{0}")]
    Unreadable(String),
    #[error("no bundle objects found")]
    NoObjects,
    #[error("no csv in bundle")]
    NoCsv,
    #[error("error checking provided apis in bundle {bundle}: {message}")]
    ProvidedApis { bundle: String, message: String },
    #[error("Could not find annotations file")]
    NoAnnotations,
    #[error("get version: {0}")]
    Version(String),
    #[error("get release: {0}")]
    Release(String),
    #[error("{0}")]
    Invalid(String),
}

fn diag(
    code: &'static str,
    severity: Severity,
    loc: Location,
    msg: impl Into<String>,
) -> Diagnostic {
    Diagnostic::new(code, severity, loc, msg)
}

/// Entries of a directory sorted by name as Go's `fs.ReadDir` returns them.
pub(crate) fn read_dir_sorted(dir: &Path) -> std::io::Result<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let is_dir = std::fs::metadata(e.path())
            .map(|m| m.is_dir())
            .unwrap_or(false);
        out.push((name, is_dir));
    }
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
pub(crate) fn read_docs(
    path: &Path,
    rel: &str,
    diags: &mut Vec<Diagnostic>,
    code: &'static str,
) -> Option<(String, Vec<Option<Node>>)> {
    let bytes = match std::fs::read(path) {
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
    let mut v = v.clone();
    sort_keys(&mut v);
    let mut s = String::new();
    write_go_json(&mut s, &v, None, true, 0);
    s
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
        let loc = Location::new(rel, item.pos.line, item.pos.col);
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
    pub fn read(root: &Path) -> RegistryBundle {
        let mut b = RegistryBundle {
            root: root.to_path_buf(),
            ..Default::default()
        };
        b.read_manifests(&root.join("manifests"), "manifests/", |_| true);
        b.read_metadata();
        b
    }

    /// A bundle made of the manifest files of `dir` that `keep` accepts (by file name), with the
    /// package and channels given instead of read from annotations: what a version directory of the
    /// legacy package-manifest format holds. `prefix` is prepended to file names in diagnostics.
    pub fn from_manifests(
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
        b.read_manifests(dir, prefix, keep);
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

    fn read_manifests(&mut self, dir: &Path, prefix: &str, keep: impl Fn(&str) -> bool) {
        let entries = match read_dir_sorted(dir) {
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
            let Some((text, nodes)) = read_docs(
                &dir.join(&name),
                &rel,
                &mut self.diagnostics,
                codes::MANIFEST,
            ) else {
                continue;
            };
            let first = match nodes.first() {
                Some(Some(first)) => first,
                Some(None) if nodes.iter().flatten().next().is_some() => {
                    self.diagnostics.push(diag(
                        codes::SKIPPED_FILE,
                        Severity::Warning,
                        Location::new(&rel, 0, 0),
                        "the first document is empty (only blank lines or comments before a `---`): opm reads nothing from it and skips the whole file",
                    ).with_hint("remove the `---` after the leading comment or blank line"));
                    continue;
                }
                _ => {
                    self.diagnostics.push(diag(
                        codes::MANIFEST,
                        Severity::Error,
                        Location::new(&rel, 0, 0),
                        "holds no object; opm skips it",
                    ));
                    continue;
                }
            };
            if nodes.len() > 1 {
                let second = nodes[1].as_ref().map_or(0, |n| n.pos.line);
                self.diagnostics.push(diag(
                    codes::EXTRA_DOCUMENT,
                    Severity::Warning,
                    Location::new(&rel, second, 1),
                    format!("{} documents in one file: opm reads only the first; put each object in its own file", nodes.len()),
                ));
            }
            let value = node_json(first, &text);
            let object = Object {
                file: rel.clone(),
                line: first.pos.line,
                value,
            };
            if !object.value.is_object() {
                self.diagnostics.push(diag(
                    codes::MANIFEST,
                    Severity::Error,
                    object.location(),
                    "not a Kubernetes object (a mapping is expected); opm skips it",
                ));
                continue;
            }
            if object.kind().is_empty() {
                self.diagnostics.push(diag(
                    codes::MANIFEST,
                    Severity::Error,
                    object.location(),
                    "object has no `kind`; opm skips it",
                ));
                continue;
            }
            if object.kind() == "ClusterServiceVersion" {
                self.csv_count += 1;
                if self.csv.is_some() {
                    continue;
                }
                self.csv = Some(self.objects.len());
            }
            self.objects.push(object);
        }
    }

    fn read_metadata(&mut self) {
        let dir = self.root.join("metadata");
        let entries = match read_dir_sorted(&dir) {
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
            let mut diags = Vec::new();
            let Some((text, nodes)) =
                read_docs(&dir.join(&name), &rel, &mut diags, codes::METADATA_FILE)
            else {
                self.diagnostics.extend(diags);
                continue;
            };
            self.diagnostics.extend(diags);
            // An empty first document reads as nothing (and the rest is not read).
            let Some(Some(doc)) = nodes.first() else {
                self.diagnostics.push(diag(
                    codes::METADATA_FILE,
                    Severity::Warning,
                    Location::new(&rel, 0, 0),
                    "not read: its first document is empty, so opm finds no annotations, dependencies or properties in it",
                ));
                continue;
            };
            let mut used = false;
            if self.annotations_file.is_none()
                && let Some(map) = doc.get("annotations").and_then(Node::as_map)
            {
                let annotations: Vec<Annotation> = map
                    .iter()
                    .map(|e| Annotation {
                        key: e.key_str().to_string(),
                        value: scalar_text(&e.value, &text).unwrap_or_default(),
                        location: Location::new(&rel, e.key.pos.line, e.key.pos.col),
                    })
                    .collect();
                let known = [PACKAGE_KEY, CHANNELS_KEY, DEFAULT_CHANNEL_KEY];
                if annotations.iter().any(|a| {
                    known.iter().any(|k| k.eq_ignore_ascii_case(&a.key)) && !a.value.is_empty()
                }) {
                    self.annotations = annotations;
                    self.annotations_file = Some(rel.clone());
                    used = true;
                }
            }
            if self.dependencies_file.is_none()
                && let Some(list) = doc
                    .get("dependencies")
                    .filter(|d| d.as_seq().is_some_and(|s| !s.is_empty()))
            {
                self.dependencies =
                    typed_list(list, &text, &rel, codes::DEPENDENCY, &mut self.diagnostics);
                self.dependencies_file = Some(rel.clone());
                used = true;
                if name.starts_with("properties") {
                    self.diagnostics.push(diag(
                        codes::METADATA_FILE,
                        Severity::Warning,
                        Location::new(&rel, list.pos.line, 1),
                        format!("{rel} holds `dependencies:`, not `properties:`; opm reads it as the bundle's dependencies"),
                    ).with_hint("rename the key to `properties:` if these are properties, or the file to dependencies.yaml"));
                }
            }
            if self.properties_file.is_none()
                && let Some(list) = doc
                    .get("properties")
                    .filter(|d| d.as_seq().is_some_and(|s| !s.is_empty()))
            {
                self.properties =
                    typed_list(list, &text, &rel, codes::PROPERTY, &mut self.diagnostics);
                self.properties_file = Some(rel.clone());
                used = true;
                if name.starts_with("dependencies") {
                    self.diagnostics.push(diag(
                        codes::METADATA_FILE,
                        Severity::Warning,
                        Location::new(&rel, list.pos.line, 1),
                        format!("{rel} holds `properties:`, not `dependencies:`; opm reads it as the bundle's properties"),
                    ));
                }
            }
            if !used {
                self.diagnostics.push(diag(
                    codes::METADATA_FILE,
                    Severity::Warning,
                    Location::new(&rel, 0, 0),
                    "not read: it holds no annotations, dependencies or properties opm would use",
                ));
            }
        }
    }

    pub fn csv(&self) -> Option<&Object> {
        self.csv.map(|i| &self.objects[i])
    }

    /// An annotation as opm reads it: names match in any case, the last one wins.
    pub fn annotation(&self, key: &str) -> Option<&Annotation> {
        self.annotations
            .iter()
            .rev()
            .find(|a| a.key.eq_ignore_ascii_case(key))
    }

    /// The package name from the annotations.
    pub fn package(&self) -> &str {
        self.annotation(PACKAGE_KEY)
            .map(|a| a.value.as_str())
            .unwrap_or("")
    }

    pub fn channels(&self) -> Vec<String> {
        match self.annotation(CHANNELS_KEY) {
            Some(a) if !a.value.is_empty() => a.value.split(',').map(str::to_string).collect(),
            _ => Vec::new(),
        }
    }

    pub fn default_channel(&self) -> Option<&str> {
        self.annotation(DEFAULT_CHANNEL_KEY)
            .map(|a| a.value.as_str())
            .filter(|s| !s.is_empty())
    }

    /// The bundle's name: its CSV's `metadata.name`.
    pub fn name(&self) -> &str {
        self.csv().map(Object::name).unwrap_or("")
    }

    /// CSV `spec.version` (must be a string for opm).
    pub fn version(&self) -> Result<String, String> {
        match self.csv().and_then(|c| c.value.pointer("/spec/version")) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "json: cannot unmarshal {} into Go value of type string",
                go_type(other)
            )),
        }
    }

    /// CSV `spec.release`: a string, or a number written as text.
    pub fn release(&self) -> Result<String, String> {
        match self.csv().and_then(|c| c.value.pointer("/spec/release")) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => {
                let f = n.as_f64().unwrap_or(0.0);
                Ok(if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    format!("{}", f as i64)
                } else {
                    format!("{f}")
                })
            }
            Some(_) => Err("release field must be a string or number".into()),
        }
    }

    /// The APIs the bundle provides: every version of every CRD in `manifests/`, and the CSV's owned
    /// API services.
    pub fn provided_apis(&self) -> BTreeSet<ApiKey> {
        let mut out = BTreeSet::new();
        for o in &self.objects {
            let api = o.api_version();
            let (v1, v1beta1) = (api.ends_with("/v1"), api.ends_with("/v1beta1"));
            if o.kind() != "CustomResourceDefinition" || !(v1 || v1beta1) {
                continue;
            }
            let spec = o.value.get("spec").unwrap_or(&Value::Null);
            let s = |p: &str| {
                spec.pointer(p)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let (group, kind, plural) = (s("/group"), s("/names/kind"), s("/names/plural"));
            let mut versions: Vec<String> = spec
                .get("versions")
                .and_then(Value::as_array)
                .map(|vs| {
                    vs.iter()
                        .filter_map(|v| v.get("name").and_then(Value::as_str).map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if v1beta1 {
                let v = s("/version");
                if !v.is_empty() {
                    versions.push(v);
                }
            }
            for version in versions {
                out.insert(ApiKey {
                    group: group.clone(),
                    version,
                    kind: kind.clone(),
                    plural: plural.clone(),
                });
            }
        }
        if let Some(csv) = self.csv() {
            for d in definitions(&csv.value, "apiservicedefinitions", "owned") {
                out.insert(ApiKey {
                    group: d.s("group"),
                    version: d.s("version"),
                    kind: d.s("kind"),
                    plural: d.s("name"),
                });
            }
        }
        out
    }

    /// The APIs the CSV requires (`plural.group` CRD names and API services).
    pub fn required_apis(&self) -> Result<BTreeSet<ApiKey>, String> {
        let mut out = BTreeSet::new();
        let Some(csv) = self.csv() else {
            return Ok(out);
        };
        for d in definitions(&csv.value, "customresourcedefinitions", "required") {
            let name = d.s("name");
            let Some((plural, group)) = name.split_once('.') else {
                return Err(format!("couldn't parse plural.group from crd name: {name}"));
            };
            out.insert(ApiKey {
                group: group.into(),
                version: d.s("version"),
                kind: d.s("kind"),
                plural: plural.into(),
            });
        }
        for d in definitions(&csv.value, "apiservicedefinitions", "required") {
            out.insert(ApiKey {
                group: d.s("group"),
                version: d.s("version"),
                kind: d.s("kind"),
                plural: d.s("name"),
            });
        }
        Ok(out)
    }

    /// CRDs the CSV owns that are not in `manifests/`, with the place the CSV lists each.
    pub fn missing_owned_crds(&self) -> Result<Vec<(ApiKey, String)>, String> {
        let Some(csv) = self.csv() else {
            return Ok(Vec::new());
        };
        let provided = self.provided_apis();
        let mut out = Vec::new();
        for d in definitions(&csv.value, "customresourcedefinitions", "owned") {
            let name = d.s("name");
            let Some((plural, group)) = name.split_once('.') else {
                return Err(format!("couldn't parse plural.group from crd name: {name}"));
            };
            let key = ApiKey {
                group: group.into(),
                version: d.s("version"),
                kind: d.s("kind"),
                plural: plural.into(),
            };
            if !provided.contains(&key) {
                out.push((key, name));
            }
        }
        Ok(out)
    }

    /// Properties from the CSV's `olm.properties` annotation (a JSON list), raw texts kept exactly.
    pub fn csv_annotation_properties(&self) -> Result<Vec<TypedValue>, String> {
        let Some(csv) = self.csv() else {
            return Ok(Vec::new());
        };
        let Some(text) = csv
            .value
            .pointer("/metadata/annotations/olm.properties")
            .and_then(Value::as_str)
        else {
            return Ok(Vec::new());
        };
        #[derive(serde::Deserialize)]
        struct Raw<'a> {
            #[serde(rename = "type", default)]
            type_: String,
            #[serde(borrow)]
            value: Option<&'a serde_json::value::RawValue>,
        }
        let list: Vec<Raw> =
            serde_json::from_str(text).map_err(|e| format!("olm.properties annotation: {e}"))?;
        Ok(list
            .into_iter()
            .map(|r| {
                let raw = r
                    .value
                    .map(|v| v.get().to_string())
                    .unwrap_or_else(|| "null".into());
                TypedValue {
                    type_: r.type_,
                    value: serde_json::from_str(&raw).unwrap_or(Value::Null),
                    raw,
                    location: csv.location(),
                }
            })
            .collect())
    }

    /// Stops where opm's parser stops.
    /// Why opm cannot read the CSV into its typed form (a non-string name, annotation or label).
    pub fn csv_type_problem(&self) -> Option<String> {
        let csv = self.csv()?;
        let meta = csv.value.get("metadata")?;
        if let Some(n) = meta.get("name").filter(|n| !n.is_string() && !n.is_null()) {
            return Some(format!("metadata.name is {n}, not a string"));
        }
        for which in ["annotations", "labels"] {
            match meta.get(which) {
                None | Some(Value::Null) => {}
                Some(Value::Object(m)) => {
                    if let Some((k, v)) = m.iter().find(|(_, v)| !v.is_string() && !v.is_null()) {
                        return Some(format!(
                            "metadata.{which}[{k:?}] is {v}, not a string (quote it)"
                        ));
                    }
                }
                Some(other) => return Some(format!("metadata.{which} is {other}, not a map")),
            }
        }
        None
    }

    /// The CSV of a bundle that can be rendered, or why it cannot.
    fn fatal(&self) -> Result<&Object, BundleError> {
        if let Some(d) = self
            .diagnostics
            .iter()
            .find(|d| d.code == codes::NOT_A_BUNDLE)
        {
            return Err(BundleError::Unreadable(d.message.clone()));
        }
        if self.objects.is_empty() {
            return Err(BundleError::NoObjects);
        }
        let csv = self.csv().ok_or(BundleError::NoCsv)?;
        if let Some(p) = self.csv_type_problem() {
            return Err(BundleError::Invalid(format!(
                "the ClusterServiceVersion cannot be read: {p}"
            )));
        }
        match self.missing_owned_crds() {
            Err(e) => {
                return Err(BundleError::ProvidedApis {
                    bundle: self.name().into(),
                    message: e,
                });
            }
            Ok(missing) if !missing.is_empty() => {
                let found: Vec<String> =
                    self.provided_apis().iter().map(ApiKey::to_string).collect();
                return Err(BundleError::ProvidedApis {
                    bundle: self.name().into(),
                    message: format!(
                        "couldn't find {} in bundle. found: [{}]",
                        missing[0].0,
                        found.join(" ")
                    ),
                });
            }
            Ok(_) => {}
        }
        if self.annotations_file.is_none() {
            return Err(BundleError::NoAnnotations);
        }
        Ok(csv)
    }
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        _ => "string",
    }
}

/// An API a bundle provides or requires.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ApiKey {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{} ({})",
            self.group, self.version, self.kind, self.plural
        )
    }
}

struct Def<'v>(&'v Value);

impl Def<'_> {
    fn s(&self, k: &str) -> String {
        self.0
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }
}

fn definitions<'v>(csv: &'v Value, which: &str, list: &str) -> impl Iterator<Item = Def<'v>> {
    csv.get("spec")
        .and_then(|s| s.get(which))
        .and_then(|d| d.get(list))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(Def)
}

/// How to render a bundle directory.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// The bundle's image reference (`image` and a related image); empty when `None`, like opm.
    pub image: Option<String>,
    /// Replace the `olm.bundle.object` properties by one `olm.csv.metadata`.
    pub csv_metadata: bool,
}

/// Renders a registry+v1 bundle directory into the `olm.bundle` blob `opm render DIR` prints.
pub fn render_dir(dir: &Path, opts: &RenderOptions) -> Result<Value, BundleError> {
    render(&RegistryBundle::read(dir), opts)
}

/// A property as opm builds it: type, value and the value's JSON text (for ordering).
struct Prop {
    type_: String,
    raw: String,
    value: Value,
}

impl Prop {
    fn typed(type_: &str, fields: &[(&str, &str)]) -> Prop {
        let mut m = Map::new();
        for (k, v) in fields {
            m.insert(k.to_string(), Value::String(v.to_string()));
        }
        let value = Value::Object(m);
        let mut raw = String::new();
        // opm builds these with HTML escaping off.
        write_go_json(&mut raw, &value, None, false, 0);
        Prop {
            type_: type_.into(),
            raw,
            value,
        }
    }

    fn from(t: &TypedValue) -> Prop {
        Prop {
            type_: t.type_.clone(),
            raw: t.raw.clone(),
            value: t.value.clone(),
        }
    }
}

fn str_of<'v>(v: &'v Value, k: &str) -> &'v str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Renders a bundle already read.
pub fn render(b: &RegistryBundle, opts: &RenderOptions) -> Result<Value, BundleError> {
    let csv = b.fatal()?;
    let version = b.version().map_err(BundleError::Version)?;
    let release = b.release().map_err(BundleError::Release)?;
    let provided = b.provided_apis();

    // The parser's property list: metadata properties, then the annotations' package, the CSV's
    // olm.properties and the provided GVKs; de-duplicated by text.
    let mut listed: Vec<Prop> = b.properties.iter().map(Prop::from).collect();
    let mut derived = Vec::new();
    if !b.package().is_empty() {
        let mut fields = vec![("packageName", b.package()), ("version", version.as_str())];
        if !release.is_empty() {
            fields.push(("release", release.as_str()));
        }
        derived.push(Prop::typed("olm.package", &fields));
    }
    let annotation_props = b.csv_annotation_properties().unwrap_or_default();
    derived.extend(annotation_props.iter().map(Prop::from));
    for api in &provided {
        derived.push(Prop::typed(
            "olm.gvk",
            &[
                ("group", &api.group),
                ("kind", &api.kind),
                ("version", &api.version),
            ],
        ));
    }
    listed.extend(dedup(derived));
    let listed = dedup(listed);

    let mut provided_gvks: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut required_gvks: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut package: Option<(String, String, String)> = None;
    let mut others = Vec::new();
    for p in listed {
        match p.type_.as_str() {
            "olm.gvk" => {
                provided_gvks.insert(gvk_of(&p.value));
            }
            "olm.package" => {
                package = Some((
                    str_of(&p.value, "packageName").into(),
                    str_of(&p.value, "version").into(),
                    str_of(&p.value, "release").into(),
                ));
            }
            _ => others.push(p),
        }
    }
    let mut package_required = Vec::new();
    for d in &b.dependencies {
        match d.type_.as_str() {
            "olm.gvk" => {
                required_gvks.insert(gvk_of(&d.value));
            }
            "olm.package" => package_required.push(Prop::typed(
                "olm.package.required",
                &[
                    ("packageName", str_of(&d.value, "packageName")),
                    ("versionRange", str_of(&d.value, "version")),
                ],
            )),
            _ => others.push(Prop::from(d)),
        }
    }
    for api in b
        .required_apis()
        .map_err(|e| BundleError::Invalid(format!("get required apis: {e}")))?
    {
        required_gvks.insert((api.group, api.kind, api.version));
    }

    let mut props: Vec<Prop> = Vec::new();
    let mut objects = Vec::new();
    for o in &b.objects {
        let mut v = o.value.clone();
        sort_keys(&mut v);
        let mut json = String::new();
        write_go_json(&mut json, &v, None, true, 0);
        let data = base64::engine::general_purpose::STANDARD.encode(json.as_bytes());
        objects.push(Prop::typed("olm.bundle.object", &[("data", &data)]));
    }
    let (pkg, ver, rel) =
        package.unwrap_or_else(|| (b.package().into(), version.clone(), release.clone()));
    let mut fields = vec![("packageName", pkg.as_str()), ("version", ver.as_str())];
    if !rel.is_empty() {
        fields.push(("release", rel.as_str()));
    }
    props.push(Prop::typed("olm.package", &fields));
    for (g, k, v) in &provided_gvks {
        props.push(Prop::typed(
            "olm.gvk",
            &[("group", g), ("kind", k), ("version", v)],
        ));
    }
    for (g, k, v) in &required_gvks {
        props.push(Prop::typed(
            "olm.gvk.required",
            &[("group", g), ("kind", k), ("version", v)],
        ));
    }
    props.extend(package_required);
    props.extend(others);
    props.sort_by(|a, b| (&a.type_, &a.raw).cmp(&(&b.type_, &b.raw)));
    if opts.csv_metadata {
        let meta = csv_metadata(&csv.value)
            .map_err(|e| BundleError::Invalid(format!("olm.csv.metadata: {e}")))?;
        props.push(Prop {
            type_: "olm.csv.metadata".into(),
            raw: String::new(),
            value: meta,
        });
    } else {
        objects.sort_by(|a, b| a.raw.cmp(&b.raw));
        props.extend(objects);
    }
    // opm's render moves bundle objects to the end, keeping their sorted order.

    let image = opts.image.clone().unwrap_or_default();
    let related = related_images(&csv.value, &image);

    let mut blob = Map::new();
    blob.insert("schema".into(), Value::from("olm.bundle"));
    blob.insert("name".into(), Value::from(b.name()));
    blob.insert("package".into(), Value::from(b.package()));
    blob.insert("image".into(), Value::from(image));
    blob.insert(
        "properties".into(),
        Value::Array(
            props
                .into_iter()
                .map(|p| {
                    let mut m = Map::new();
                    m.insert("type".into(), Value::String(p.type_));
                    m.insert("value".into(), p.value);
                    Value::Object(m)
                })
                .collect(),
        ),
    );
    if !related.is_empty() {
        blob.insert("relatedImages".into(), Value::Array(related));
    }
    Ok(Value::Object(blob))
}

fn dedup(props: Vec<Prop>) -> Vec<Prop> {
    let mut seen = BTreeSet::new();
    props
        .into_iter()
        .filter(|p| seen.insert((p.type_.clone(), p.raw.clone())))
        .collect()
}

fn gvk_of(v: &Value) -> (String, String, String) {
    (
        str_of(v, "group").into(),
        str_of(v, "kind").into(),
        str_of(v, "version").into(),
    )
}

/// The CSV's related images, then the bundle image, then the images of the deployments' containers
/// and init containers not listed yet; sorted by image.
fn related_images(csv: &Value, image: &str) -> Vec<Value> {
    let mut list: Vec<(String, String)> = csv
        .pointer("/spec/relatedImages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| {
            (
                str_of(r, "name").to_string(),
                str_of(r, "image").to_string(),
            )
        })
        .collect();
    let listed: BTreeSet<String> = list.iter().map(|(_, i)| i.clone()).collect();
    if !image.is_empty() && !listed.contains(image) {
        list.push((String::new(), image.to_string()));
    }
    let mut operator_images = BTreeSet::new();
    if csv
        .pointer("/spec/install/strategy")
        .and_then(Value::as_str)
        == Some("deployment")
    {
        for d in csv
            .pointer("/spec/install/spec/deployments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for which in ["containers", "initContainers"] {
                for c in d
                    .pointer(&format!("/spec/template/spec/{which}"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    operator_images.insert(str_of(c, "image").to_string());
                }
            }
        }
    }
    for img in operator_images {
        if !listed.contains(&img) {
            list.push((String::new(), img));
        }
    }
    list.sort_by(|a, b| a.1.cmp(&b.1));
    list.into_iter()
        .map(|(name, image)| {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(name));
            m.insert("image".into(), Value::String(image));
            Value::Object(m)
        })
        .collect()
}

/// What `check` found.
#[derive(Debug, Clone)]
pub struct Check {
    pub format: Option<Format>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Check {
    pub fn errors(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}

/// Which bundle format a directory holds, by opm's rule: `manifests/` and `metadata/` make a
/// registry+v1 bundle; `manifests/` alone a plain+v0 bundle.
pub fn detect(dir: &Path) -> Option<Format> {
    let manifests = dir.join("manifests").is_dir();
    let metadata = dir.join("metadata").is_dir();
    match (manifests, metadata) {
        (true, true) => Some(Format::RegistryV1),
        (true, false) => Some(Format::PlainV0),
        _ => None,
    }
}

/// Checks a bundle directory of either format.
pub fn check_dir(dir: &Path) -> Check {
    let mut diagnostics = Vec::new();
    let format = detect(dir);
    match format {
        Some(Format::RegistryV1) => {
            let b = RegistryBundle::read(dir);
            diagnostics = check_registry(&b);
            // The content checks opm's bundle validator makes (not part of reading a bundle, so
            // migrate and render do not make them).
            content::check(&b, &mut diagnostics);
        }
        Some(Format::PlainV0) => diagnostics = check_plain(dir),
        None => diagnostics.push(diag(
            codes::NOT_A_BUNDLE,
            Severity::Error,
            Location::new(".", 0, 0),
            format!("{} is not a bundle: a registry+v1 bundle has manifests/ and metadata/, a plain+v0 bundle has manifests/", dir.display()),
        )),
    }
    if format.is_some() {
        stray_files(dir, &mut diagnostics);
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Check {
        format,
        diagnostics,
    }
}

fn stray_files(dir: &Path, out: &mut Vec<Diagnostic>) {
    let Ok(entries) = read_dir_sorted(dir) else {
        return;
    };
    for (name, is_dir) in entries {
        if name == "manifests" || name == "metadata" || name.starts_with('.') {
            continue;
        }
        let (rel, what) = if is_dir {
            (format!("{name}/"), "directory")
        } else {
            (name.clone(), "file")
        };
        out.push(diag(
            codes::STRAY_FILE,
            Severity::Info,
            Location::new(rel, 0, 0),
            format!("{what} is no part of the bundle format: it is not rendered into the catalog"),
        ));
    }
}

/// Every check of a registry+v1 bundle.
pub fn check_registry(b: &RegistryBundle) -> Vec<Diagnostic> {
    let mut out = b.diagnostics.clone();
    let whole = |f: &str| Location::new(f, 0, 0);

    // Manifests.
    if b.objects.is_empty() && !out.iter().any(|d| d.code == codes::NOT_A_BUNDLE) {
        out.push(diag(
            codes::MANIFEST,
            Severity::Error,
            whole("manifests"),
            "no bundle objects found: manifests/ holds no object opm can read",
        ));
    }
    match b.csv_count {
        0 if !b.objects.is_empty() => out.push(diag(
            codes::CSV_COUNT,
            Severity::Error,
            whole("manifests"),
            "no ClusterServiceVersion in manifests/",
        )),
        n if n > 1 => out.push(diag(
            codes::CSV_COUNT,
            Severity::Error,
            whole("manifests"),
            format!(
                "{n} ClusterServiceVersions in manifests/: a bundle has exactly one (opm uses {})",
                b.csv().map(|c| c.file.as_str()).unwrap_or("the first")
            ),
        )),
        _ => {}
    }
    for o in &b.objects {
        if !SUPPORTED_KINDS.contains(&o.kind()) {
            let near = SUPPORTED_KINDS
                .iter()
                .find(|k| k.eq_ignore_ascii_case(o.kind()));
            let hint = match near {
                Some(k) => format!("kinds are compared exactly: write {k}"),
                None => format!("supported: {}", SUPPORTED_KINDS.join(", ")),
            };
            out.push(
                diag(
                    codes::UNSUPPORTED_KIND,
                    Severity::Error,
                    o.location(),
                    format!("kind {} is not supported in a registry+v1 bundle", o.kind()),
                )
                .with_hint(hint),
            );
        }
        if o.name().is_empty() {
            out.push(diag(
                codes::MANIFEST,
                Severity::Error,
                o.location(),
                format!("{} has no metadata.name", o.kind()),
            ));
        }
    }
    if let Some(csv) = b.csv() {
        if let Some(p) = b.csv_type_problem() {
            out.push(diag(
                codes::CSV,
                Severity::Error,
                csv.location(),
                format!("opm cannot read the ClusterServiceVersion: {p}"),
            ));
        }
        if csv.name().is_empty() {
            out.push(diag(
                codes::CSV,
                Severity::Error,
                csv.location(),
                "the ClusterServiceVersion has no metadata.name (it names the bundle)",
            ));
        }
        match b.version() {
            Err(e) => out.push(diag(
                codes::CSV,
                Severity::Error,
                csv.location(),
                format!("spec.version is not a string: {e}"),
            )),
            Ok(v) if v.is_empty() => out.push(diag(
                codes::CSV,
                Severity::Error,
                csv.location(),
                "the ClusterServiceVersion has no spec.version",
            )),
            Ok(v) => {
                if let Err(e) = Version::parse(&v) {
                    out.push(diag(
                        codes::CSV,
                        Severity::Error,
                        csv.location(),
                        format!("spec.version {v:?} is not a semantic version: {e}"),
                    ));
                }
            }
        }
        if let Err(e) = b.release() {
            out.push(diag(
                codes::CSV,
                Severity::Error,
                csv.location(),
                format!("spec.release: {e}"),
            ));
        }
        match b.missing_owned_crds() {
            Err(e) => out.push(diag(
                codes::OWNED_CRD_MISSING,
                Severity::Error,
                csv.location(),
                e,
            )),
            Ok(missing) => {
                for (key, name) in missing {
                    out.push(
                        diag(
                            codes::OWNED_CRD_MISSING,
                            Severity::Error,
                            csv.location(),
                            format!("the CSV owns CRD {name} ({}/{} {}), but manifests/ has no CRD serving it", key.group, key.version, key.kind),
                        )
                        .with_hint("add the CustomResourceDefinition manifest, or fix the owned entry's name, version and kind"),
                    );
                }
            }
        }
        if let Err(e) = b.required_apis() {
            out.push(diag(codes::CSV, Severity::Error, csv.location(), e));
        }
        match b.csv_annotation_properties() {
            Err(e) => out.push(diag(codes::PROPERTY, Severity::Error, csv.location(), e)),
            Ok(props) => check_properties(&props, &mut out),
        }
    }

    // Annotations.
    if b.annotations_file.is_none() {
        if !out.iter().any(|d| d.code == codes::NOT_A_BUNDLE) {
            out.push(diag(codes::NO_ANNOTATIONS, Severity::Error, whole("metadata"), "Could not find annotations file: no file in metadata/ has `annotations:` with the bundle's package and channels"));
        }
    } else {
        check_annotations(b, &mut out);
    }
    check_dependencies(&b.dependencies, &mut out);
    check_properties(&b.properties, &mut out);
    out
}

fn check_annotations(b: &RegistryBundle, out: &mut Vec<Diagnostic>) {
    let file = b.annotations_file.clone().unwrap_or_default();
    let whole = Location::new(&file, 0, 0);
    for (key, want) in [
        (MEDIATYPE_KEY, "registry+v1"),
        (MANIFESTS_KEY, "manifests/"),
        (METADATA_KEY, "metadata/"),
    ] {
        match b.annotation(key) {
            None => out.push(diag(
                codes::ANNOTATION_VALUE,
                Severity::Error,
                whole.clone(),
                format!("missing annotation {key}: {want}"),
            )),
            Some(a) if a.value != want => out.push(diag(
                codes::ANNOTATION_VALUE,
                Severity::Error,
                a.location.clone(),
                format!(
                    "{key} is {:?}; a registry+v1 bundle needs {want:?}",
                    a.value
                ),
            )),
            _ => {}
        }
    }
    match b.annotation(PACKAGE_KEY) {
        None => out.push(diag(
            codes::PACKAGE_NAME,
            Severity::Error,
            whole.clone(),
            format!("missing annotation {PACKAGE_KEY}: the bundle's package name"),
        )),
        Some(a) if a.value.is_empty() => out.push(diag(
            codes::PACKAGE_NAME,
            Severity::Error,
            a.location.clone(),
            "the package name annotation is empty",
        )),
        Some(a) if !valid_package_name(&a.value) => out.push(diag(
            codes::PACKAGE_NAME,
            Severity::Error,
            a.location.clone(),
            format!(
                "package name {:?} is not a lowercase DNS label (a-z, 0-9, '-', '.')",
                a.value
            ),
        )),
        _ => {}
    }
    let channels = b.channels();
    let channels_loc = b
        .annotation(CHANNELS_KEY)
        .map(|a| a.location.clone())
        .unwrap_or(whole.clone());
    if channels.iter().all(|c| c.trim().is_empty()) {
        out.push(diag(
            codes::NO_CHANNELS,
            Severity::Error,
            channels_loc.clone(),
            format!("{CHANNELS_KEY} lists no channel: a bundle is in at least one"),
        ));
    } else if channels
        .iter()
        .any(|c| c.trim().is_empty() || c.trim() != c)
    {
        out.push(diag(
            codes::NO_CHANNELS,
            Severity::Error,
            channels_loc.clone(),
            format!("{CHANNELS_KEY} {:?} has an empty name or spaces around a name (the list is split on commas as written)", channels.join(",")),
        ));
    }
    if let Some(default) = b.default_channel()
        && !channels.is_empty()
        && !channels.iter().any(|c| c == default)
    {
        let loc = b
            .annotation(DEFAULT_CHANNEL_KEY)
            .map(|a| a.location.clone())
            .unwrap_or(whole.clone());
        out.push(diag(
            codes::DEFAULT_CHANNEL,
            Severity::Error,
            loc,
            format!(
                "default channel {default:?} is not among the bundle's channels ({})",
                channels.join(", ")
            ),
        ));
    }
    for a in &b.annotations {
        if let Some(problem) = annotation_name_problem(&a.key) {
            out.push(diag(
                codes::ANNOTATION_NAME,
                Severity::Warning,
                a.location.clone(),
                problem,
            ));
        }
    }
}

fn valid_package_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.')
        && s.as_bytes()[0].is_ascii_alphanumeric()
        && s.as_bytes()[s.len() - 1].is_ascii_alphanumeric()
}

/// Bundle annotations are named `<namespace>.bundle.<key>.<version>`; the ones under opm's own
/// namespace must be known keys.
fn annotation_name_problem(key: &str) -> Option<String> {
    const KNOWN: &[&str] = &[
        MEDIATYPE_KEY,
        MANIFESTS_KEY,
        METADATA_KEY,
        PACKAGE_KEY,
        CHANNELS_KEY,
        DEFAULT_CHANNEL_KEY,
    ];
    if KNOWN.contains(&key) {
        return None;
    }
    if let Some(k) = KNOWN.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        return Some(format!(
            "annotation {key} differs from {k} only in case: opm reads it (names match in any case), other tools may not; write {k}"
        ));
    }
    let idx = key.find(".bundle.")?;
    let (namespace, rest) = (&key[..idx], &key[idx + ".bundle.".len()..]);
    let version_ok = rest.rsplit_once('.').is_some_and(|(k, v)| {
        !k.is_empty()
            && v.len() > 1
            && v.starts_with('v')
            && v[1..].bytes().all(|c| c.is_ascii_digit())
    });
    if namespace.is_empty() || !version_ok {
        return Some(format!(
            "bundle annotation {key} does not follow <namespace>.bundle.<key>.<version> (for example {PACKAGE_KEY})"
        ));
    }
    if key.starts_with(ANNOTATION_PREFIX) {
        return Some(format!(
            "unknown annotation {key}: opm knows {}",
            KNOWN.join(", ")
        ));
    }
    None
}

fn check_dependencies(deps: &[TypedValue], out: &mut Vec<Diagnostic>) {
    for d in deps {
        let loc = d.location.clone();
        let bad = |m: String| diag(codes::DEPENDENCY, Severity::Error, loc.clone(), m);
        match d.type_.as_str() {
            "" => {}
            "olm.package" => {
                let name = str_of(&d.value, "packageName");
                let range = str_of(&d.value, "version");
                if name.is_empty() {
                    out.push(bad("olm.package dependency has no packageName".into()));
                }
                if range.is_empty() {
                    out.push(bad(format!("olm.package dependency on {name:?} has no version range")));
                } else if let Err(e) = Range::parse(range) {
                    out.push(bad(format!("olm.package dependency on {name:?}: version range {range:?} is invalid: {e}")));
                }
            }
            "olm.gvk" => {
                for f in ["group", "version", "kind"] {
                    if str_of(&d.value, f).is_empty() {
                        out.push(bad(format!("olm.gvk dependency has no {f}")));
                    }
                }
            }
            "olm.constraint" => {
                const KINDS: &[&str] = &["all", "any", "not", "gvk", "package", "cel"];
                let present: Vec<&str> = KINDS.iter().copied().filter(|k| d.value.get(*k).is_some()).collect();
                if present.len() != 1 {
                    out.push(bad(format!(
                        "olm.constraint needs exactly one of {}; found {}",
                        KINDS.join(", "),
                        if present.is_empty() { "none".to_string() } else { present.join(", ") }
                    )));
                }
                if let Some(cel) = d.value.get("cel")
                    && str_of(cel, "rule").is_empty()
                {
                    out.push(bad("olm.constraint cel has no rule".into()));
                }
            }
            "olm.label" => {
                if str_of(&d.value, "label").is_empty() {
                    out.push(bad("olm.label dependency has no label".into()));
                }
            }
            other => out.push(bad(format!("unknown dependency type {other:?}: OLM knows olm.package, olm.gvk, olm.constraint and olm.label"))),
        }
    }
}

fn check_properties(props: &[TypedValue], out: &mut Vec<Diagnostic>) {
    for p in props {
        let bad = |m: String| diag(codes::PROPERTY, Severity::Error, p.location.clone(), m);
        match p.type_.as_str() {
            "olm.package" if str_of(&p.value, "packageName").is_empty() => {
                out.push(bad("olm.package property has no packageName".into()));
            }
            "olm.gvk"
                if str_of(&p.value, "kind").is_empty()
                    || str_of(&p.value, "version").is_empty() =>
            {
                out.push(bad("olm.gvk property needs version and kind".into()));
            }
            "" => out.push(bad("property has no type".into())),
            _ => {}
        }
    }
}

/// Checks a plain+v0 bundle: a flat `manifests/` whose files hold Kubernetes objects.
pub fn check_plain(dir: &Path) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let entries = match read_dir_sorted(&dir.join("manifests")) {
        Ok(e) => e,
        Err(e) => {
            out.push(diag(
                codes::UNREADABLE,
                Severity::Error,
                Location::new("manifests", 0, 0),
                format!("cannot read: {e}"),
            ));
            return out;
        }
    };
    let mut objects = 0usize;
    for (name, is_dir) in entries {
        let rel = format!("manifests/{name}");
        if is_dir {
            out.push(diag(
                codes::PLAIN_SUBDIR,
                Severity::Error,
                Location::new(format!("{rel}/"), 0, 0),
                "a plain+v0 bundle's manifests/ must be flat: subdirectories are not allowed",
            ));
            continue;
        }
        let Some((text, nodes)) = read_docs(
            &dir.join("manifests").join(&name),
            &rel,
            &mut out,
            codes::PLAIN_OBJECT,
        ) else {
            continue;
        };
        for n in nodes.iter().flatten() {
            let loc = Location::new(&rel, n.pos.line, n.pos.col.max(1));
            let v = node_json(n, &text);
            if !v.is_object() {
                out.push(diag(
                    codes::PLAIN_OBJECT,
                    Severity::Error,
                    loc,
                    "not a Kubernetes object (a mapping is expected)",
                ));
                continue;
            }
            let missing: Vec<&str> = [
                ("apiVersion", "/apiVersion"),
                ("kind", "/kind"),
                ("metadata.name", "/metadata/name"),
            ]
            .into_iter()
            .filter(|(_, p)| {
                v.pointer(p)
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
            })
            .map(|(n, _)| n)
            .collect();
            if missing.is_empty() {
                objects += 1;
            } else {
                out.push(diag(
                    codes::PLAIN_OBJECT,
                    Severity::Error,
                    loc,
                    format!("object lacks {}", missing.join(", ")),
                ));
            }
        }
    }
    if objects == 0 {
        out.push(diag(
            codes::PLAIN_EMPTY,
            Severity::Error,
            Location::new("manifests", 0, 0),
            "a plain+v0 bundle needs at least one object in manifests/",
        ));
    }
    out
}
