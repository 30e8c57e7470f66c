//! Diagnostic codes for bundle directories (`FBC2xx`), with one-line summaries.

use crate::catalog::Severity;

pub const UNREADABLE: &str = "FBC200";
pub const NOT_A_BUNDLE: &str = "FBC201";
pub const NO_ANNOTATIONS: &str = "FBC202";
pub const MANIFEST: &str = "FBC203";
pub const EXTRA_DOCUMENT: &str = "FBC204";
pub const CSV_COUNT: &str = "FBC205";
pub const OWNED_CRD_MISSING: &str = "FBC206";
pub const UNSUPPORTED_KIND: &str = "FBC207";
pub const ANNOTATION_VALUE: &str = "FBC208";
pub const PACKAGE_NAME: &str = "FBC209";
pub const NO_CHANNELS: &str = "FBC210";
pub const DEFAULT_CHANNEL: &str = "FBC211";
pub const ANNOTATION_NAME: &str = "FBC212";
pub const DEPENDENCY: &str = "FBC213";
pub const METADATA_FILE: &str = "FBC214";
pub const STRAY_FILE: &str = "FBC215";
pub const CSV: &str = "FBC216";
pub const PROPERTY: &str = "FBC217";
pub const SKIPPED_FILE: &str = "FBC218";
pub const PLAIN_EMPTY: &str = "FBC220";
pub const PLAIN_SUBDIR: &str = "FBC221";
pub const PLAIN_OBJECT: &str = "FBC222";
pub const INSTALL_MODES: &str = "FBC223";
pub const CRD_VERSIONS: &str = "FBC224";
pub const NAMESPACE_TYPE: &str = "FBC225";
pub const ANNOTATION_CASE: &str = "FBC226";

/// Every bundle rule: code, severity, summary.
pub const RULES: &[(&str, Severity, &str)] = &[
    (
        UNREADABLE,
        Severity::Error,
        "a bundle file or directory cannot be read",
    ),
    (
        NOT_A_BUNDLE,
        Severity::Error,
        "the directory is neither a registry+v1 nor a plain+v0 bundle",
    ),
    (
        NO_ANNOTATIONS,
        Severity::Error,
        "metadata/ holds no annotations file",
    ),
    (
        MANIFEST,
        Severity::Error,
        "a manifest is not a Kubernetes object opm can read",
    ),
    (
        EXTRA_DOCUMENT,
        Severity::Warning,
        "a registry+v1 manifest file holds several objects; opm uses only the first",
    ),
    (
        CSV_COUNT,
        Severity::Error,
        "a registry+v1 bundle needs exactly one ClusterServiceVersion",
    ),
    (
        OWNED_CRD_MISSING,
        Severity::Error,
        "a CRD the CSV owns is not in manifests/",
    ),
    (
        UNSUPPORTED_KIND,
        Severity::Error,
        "an object kind the registry+v1 format does not support",
    ),
    (
        ANNOTATION_VALUE,
        Severity::Error,
        "the mediatype, manifests or metadata annotation is missing or wrong",
    ),
    (
        PACKAGE_NAME,
        Severity::Error,
        "no package name annotation, or not a valid package name",
    ),
    (
        NO_CHANNELS,
        Severity::Error,
        "the channels annotation lists no channel",
    ),
    (
        DEFAULT_CHANNEL,
        Severity::Error,
        "the default channel annotation names a channel the bundle is not in",
    ),
    (
        ANNOTATION_NAME,
        Severity::Warning,
        "a bundle annotation that does not follow `<namespace>.bundle.<key>.<version>`",
    ),
    (
        DEPENDENCY,
        Severity::Error,
        "a dependency of an unknown type or with a bad value",
    ),
    (
        METADATA_FILE,
        Severity::Warning,
        "a metadata file that is not what its name says, or not read at all",
    ),
    (
        STRAY_FILE,
        Severity::Info,
        "a file that is no part of the bundle format",
    ),
    (
        CSV,
        Severity::Error,
        "the ClusterServiceVersion lacks a name or a valid version",
    ),
    (
        PROPERTY,
        Severity::Error,
        "a property in metadata/properties.yaml or the CSV's olm.properties is malformed",
    ),
    (
        PLAIN_EMPTY,
        Severity::Error,
        "a plain+v0 bundle with no object",
    ),
    (
        PLAIN_SUBDIR,
        Severity::Error,
        "a plain+v0 manifests/ directory with a subdirectory",
    ),
    (
        INSTALL_MODES,
        Severity::Error,
        "a ClusterServiceVersion without spec.installModes",
    ),
    (
        CRD_VERSIONS,
        Severity::Error,
        "a CustomResourceDefinition listing a version name twice",
    ),
    (
        NAMESPACE_TYPE,
        Severity::Error,
        "an object whose metadata.namespace is not a string",
    ),
    (
        ANNOTATION_CASE,
        Severity::Error,
        "a CSV annotation OLM reads in another case (olm.skiprange for olm.skipRange)",
    ),
    (
        PLAIN_OBJECT,
        Severity::Error,
        "a plain+v0 manifest that is not Kubernetes objects with apiVersion, kind and metadata.name",
    ),
];
