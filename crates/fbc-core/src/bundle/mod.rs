//! Bundle directories: registry+v1 (`manifests/` + `metadata/annotations.yaml`) and plain+v0 (a flat
//! `manifests/` of Kubernetes objects). Reading follows opm's bundle parser so that rendering gives
//! the `olm.bundle` opm gives; checking reports everything wrong at once, with file:line, where opm
//! stops at the first problem or skips a broken manifest with a log line.
//!
//! Here: the bundle's parts as read ([`RegistryBundle`], [`Object`], [`Annotation`]). Beside it:
//! `read` (reading a directory as opm's parser does), `csv` (what the bundle says about itself:
//! package, channels, name, version), `apis` (the APIs a bundle provides and requires), `render` (the `olm.bundle` blob), `check` (every problem of either format), `content`
//! (opm's content checks), `csv_metadata` (the `olm.csv.metadata` property) and `codes`.

mod apis;
mod check;
/// The codes of bundle-directory checks (`FBC2xx`), defined in the registry [`crate::catalog::codes`].
pub use crate::catalog::codes::bundle as codes;
mod content;
mod csv;
mod csv_metadata;
mod lean;
mod plain;
mod read;
mod render;

use std::fmt;
use std::path::PathBuf;

use serde_json::Value;

use crate::catalog::Severity;
use crate::catalog::diagnostic::{Diagnostic, Location};

pub use apis::{ApiKey, CrdNameError};
pub use check::{Check, check_dir, check_registry, detect};
pub use csv::{AnnotationPropertiesError, CsvFieldError};
pub use csv_metadata::{
    CsvMetadataError, MigrateError, MigrationMemo, Mismatch, csv_metadata, migrate_bundle_objects,
    migrate_bundle_objects_with,
};
pub use plain::check_plain;
pub(crate) use read::{ListError, node_json, read_dir_sorted, read_docs};
pub use render::{
    RelatedOrder, RenderOptions, render, render_dir, render_dir_noting, sort_related_images,
};

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
    /// The object as JSON; read for rendering only, only the fields rendering reads (see `json`).
    pub value: Value,
    /// Read for rendering only ([`RegistryBundle::read_for_render`]), an object other than the CSV:
    /// its JSON as Go's encoder writes it (keys sorted, HTML escaped), `value` holding only the
    /// fields rendering reads. `None`: `value` is the whole object.
    pub json: Option<String>,
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
    /// Read for rendering only: objects other than the CSV read as their JSON text.
    lean: bool,
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
    Version(#[source] CsvFieldError),
    #[error("get release: {0}")]
    Release(#[source] CsvFieldError),
    /// The CSV cannot be read as opm's typed CSV to build its `olm.csv.metadata`.
    #[error("olm.csv.metadata: {0}")]
    CsvMetadata(#[source] Box<CsvMetadataError>),
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

/// A string field of a JSON object (empty when absent or not a string).
pub(crate) fn str_of<'v>(v: &'v Value, k: &str) -> &'v str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}
