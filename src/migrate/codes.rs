//! Diagnostic codes for package-manifest directories (`FBC23x`–`FBC24x`), with one-line summaries.
//! Problems inside a version directory's manifests keep their bundle codes (`FBC2xx`, see
//! `crate::bundle::codes`).

use crate::catalog::Severity;

pub const NO_PACKAGE_MANIFEST: &str = "FBC230";
pub const PACKAGE_MANIFEST: &str = "FBC231";
pub const DUPLICATE_PACKAGE: &str = "FBC232";
pub const DEFAULT_CHANNEL: &str = "FBC233";
pub const CURRENT_CSV: &str = "FBC234";
pub const REPLACES_MISSING: &str = "FBC235";
pub const CYCLE: &str = "FBC236";
pub const NO_CSV: &str = "FBC237";
pub const SEVERAL_CSVS: &str = "FBC238";
pub const DUPLICATE_CSV: &str = "FBC239";
pub const NOT_IN_CHANNEL: &str = "FBC240";
pub const STRANDED: &str = "FBC241";
pub const NOT_CATALOG_DATA: &str = "FBC242";
pub const UNOWNED_CRD: &str = "FBC243";
pub const OUTPUT_INVALID: &str = "FBC244";
pub const ICON: &str = "FBC245";
pub const UNREADABLE: &str = "FBC246";
pub const UPGRADE_FIELD: &str = "FBC247";
pub const IMAGE: &str = "FBC248";
pub const DEFAULT_CHANNEL_SINGLE: &str = "FBC249";

/// Every migrate rule: code, severity, summary.
pub const RULES: &[(&str, Severity, &str)] = &[
    (
        NO_PACKAGE_MANIFEST,
        Severity::Error,
        "a directory holds ClusterServiceVersions but no package manifest (*.package.yaml)",
    ),
    (
        PACKAGE_MANIFEST,
        Severity::Error,
        "a package manifest is malformed (packageName, channels, channel names) or not the only one in its directory",
    ),
    (
        DUPLICATE_PACKAGE,
        Severity::Error,
        "two package manifests declare the same packageName",
    ),
    (
        DEFAULT_CHANNEL,
        Severity::Error,
        "defaultChannel names no channel, or is missing while there are several channels",
    ),
    (
        CURRENT_CSV,
        Severity::Error,
        "a channel's currentCSV is missing or names no ClusterServiceVersion of the package",
    ),
    (
        REPLACES_MISSING,
        Severity::Error,
        "spec.replaces names a ClusterServiceVersion that is not in the package",
    ),
    (
        CYCLE,
        Severity::Error,
        "ClusterServiceVersions replace each other in a cycle",
    ),
    (
        NO_CSV,
        Severity::Error,
        "a version directory holds manifests but no ClusterServiceVersion",
    ),
    (
        SEVERAL_CSVS,
        Severity::Warning,
        "a version directory holds several ClusterServiceVersions; each becomes its own bundle",
    ),
    (
        DUPLICATE_CSV,
        Severity::Error,
        "two ClusterServiceVersions of a package have the same metadata.name",
    ),
    (
        NOT_IN_CHANNEL,
        Severity::Warning,
        "a ClusterServiceVersion no channel reaches (from currentCSV through replaces and skips): left out",
    ),
    (
        STRANDED,
        Severity::Warning,
        "a ClusterServiceVersion reached only through a skipped one's replaces: left out of the channel, as OLM ignores it",
    ),
    (
        NOT_CATALOG_DATA,
        Severity::Info,
        "a file or directory that is no part of the package-manifest format: not migrated",
    ),
    (
        UNOWNED_CRD,
        Severity::Warning,
        "a CRD beside several ClusterServiceVersions that none of them owns: in no bundle",
    ),
    (
        OUTPUT_INVALID,
        Severity::Error,
        "the migrated catalog would not validate (a bundle cannot be rendered, or validation fails)",
    ),
    (
        ICON,
        Severity::Warning,
        "the default channel head's icon is not base64 data: the package gets no icon",
    ),
    (
        UNREADABLE,
        Severity::Error,
        "a file cannot be read or is not valid YAML or JSON",
    ),
    (
        UPGRADE_FIELD,
        Severity::Error,
        "spec.replaces, spec.skips or the olm.skipRange annotation of a ClusterServiceVersion is malformed",
    ),
    (
        IMAGE,
        Severity::Error,
        "the image template gives an invalid image reference for a bundle",
    ),
    (
        DEFAULT_CHANNEL_SINGLE,
        Severity::Warning,
        "defaultChannel names no channel, but there is only one channel, which becomes the default",
    ),
];
