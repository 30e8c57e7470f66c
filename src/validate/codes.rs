//! Stable diagnostic codes. `FBC00x`: reading files; `FBC010`–`FBC099`: everything opm rejects;
//! `FBC1xx`: checks opm does not make (warnings and notes; they never change the verdict).
//!
//! [`RULES`] lists them all with a one-line summary (printed by `fbc-edit validate --list-rules`).

use crate::catalog::Severity;

pub use crate::catalog::diagnostic::codes::*;

/// A value of the wrong JSON type for opm's Go structs, or bad base64 in `icon.base64data`.
pub const TYPE: &str = "FBC010";
/// An `olm.bundle.object` whose data is not base64 of a JSON or YAML manifest.
pub const BUNDLE_OBJECT: &str = "FBC011";
pub const PACKAGE_NO_NAME: &str = "FBC012";
pub const DUPLICATE_PACKAGE: &str = "FBC013";
pub const PACKAGE_NAME: &str = "FBC014";
pub const CHANNEL_UNKNOWN_PACKAGE: &str = "FBC015";
pub const CHANNEL_NO_NAME: &str = "FBC016";
pub const DUPLICATE_CHANNEL: &str = "FBC017";
pub const DUPLICATE_ENTRY: &str = "FBC018";
pub const BUNDLE_NO_PACKAGE: &str = "FBC019";
pub const BUNDLE_UNKNOWN_PACKAGE: &str = "FBC020";
pub const DUPLICATE_BUNDLE: &str = "FBC021";
pub const PROPERTY: &str = "FBC022";
pub const PACKAGE_PROPERTY_COUNT: &str = "FBC023";
pub const PACKAGE_PROPERTY_MISMATCH: &str = "FBC024";
pub const IMAGE: &str = "FBC025";
pub const VERSION: &str = "FBC026";
pub const RELEASE: &str = "FBC027";
pub const BUNDLE_NOT_IN_CHANNEL: &str = "FBC028";
pub const ENTRY_WITHOUT_BUNDLE: &str = "FBC029";
pub const DEFAULT_CHANNEL_UNSET: &str = "FBC030";
pub const DEFAULT_CHANNEL_MISSING: &str = "FBC031";
pub const DEPRECATION_NO_PACKAGE: &str = "FBC032";
pub const DEPRECATION_UNKNOWN_PACKAGE: &str = "FBC033";
pub const DUPLICATE_DEPRECATIONS: &str = "FBC034";
pub const DEPRECATION_NO_SCHEMA: &str = "FBC035";
pub const DUPLICATE_DEPRECATION_ENTRY: &str = "FBC036";
pub const DEPRECATED_BUNDLE_MISSING: &str = "FBC037";
pub const DEPRECATED_CHANNEL_MISSING: &str = "FBC038";
pub const DEPRECATED_PACKAGE_NAMED: &str = "FBC039";
pub const DEPRECATION_SCHEMA: &str = "FBC040";
pub const DEPRECATION_MESSAGE: &str = "FBC041";
pub const PACKAGE_NO_CHANNELS: &str = "FBC042";
pub const CHANNEL_EMPTY: &str = "FBC043";
pub const NO_HEAD: &str = "FBC044";
pub const MULTIPLE_HEADS: &str = "FBC045";
pub const CYCLE: &str = "FBC046";
pub const STRANDED: &str = "FBC047";
pub const DUPLICATE_VERSION: &str = "FBC048";
pub const RELEASE_NAME: &str = "FBC049";
pub const EMPTY_SKIP: &str = "FBC050";
pub const SKIP_RANGE: &str = "FBC051";
pub const NO_IMAGE: &str = "FBC052";
pub const BUILD_WITH_RELEASE: &str = "FBC053";
pub const ENTRY_NO_NAME: &str = "FBC054";

pub const SKIP_RANGE_MATCHES_NOTHING: &str = "FBC100";
pub const SKIP_RANGE_ABOVE_VERSION: &str = "FBC101";
pub const SKIP_RANGE_ONLY: &str = "FBC102";
pub const DANGLING_EDGE: &str = "FBC103";
pub const YAML_TRAP: &str = "FBC104";
pub const UNKNOWN_SCHEMA: &str = "FBC105";
pub const UNKNOWN_PROPERTY: &str = "FBC106";
pub const HEAD_WITHOUT_METADATA: &str = "FBC107";
pub const PLAIN_BUNDLE: &str = "FBC108";
pub const BUNDLE_NAME: &str = "FBC109";
pub const SKIP_RANGE_QUIRK: &str = "FBC110";
pub const REQUIRED_RANGE: &str = "FBC111";

/// Profile rules (`validate --profile`): the checks of ecosystem CI.
pub const PROFILE_METADATA: &str = "FBC300";
pub const PROFILE_DIGEST: &str = "FBC301";
pub const PROFILE_REGISTRY: &str = "FBC302";
pub const PROFILE_DANGLING: &str = "FBC303";
pub const PROFILE_LOOP: &str = "FBC304";
pub const PROFILE_PRUNED: &str = "FBC305";
pub const PROFILE_REPLACES: &str = "FBC306";

/// Every code, the severity it is reported with, and what it means.
pub const RULES: &[(&str, Severity, &str)] = {
    use Severity::*;
    &[
        (READ, Error, "a file or directory cannot be read"),
        (ENCODING, Error, "a file is not UTF-8 text"),
        (SYNTAX, Error, "JSON or YAML syntax error"),
        (
            NOT_A_BLOB,
            Error,
            "a document is not an object with a schema",
        ),
        (
            META,
            Error,
            "schema/package/name keys differ only in case, or are not strings",
        ),
        (EMPTY, Info, "a file or the catalog holds no objects"),
        (LENIENT, Warning, "something opm accepts only by accident"),
        (SYMLINK, Warning, "a symbolic link that is not followed"),
        (
            IGNORE_FILE,
            Error,
            "an .indexignore file that cannot be used",
        ),
        (TYPE, Error, "a field has the wrong type for opm"),
        (
            BUNDLE_OBJECT,
            Error,
            "an olm.bundle.object that is not base64 of a manifest",
        ),
        (PACKAGE_NO_NAME, Error, "an olm.package without a name"),
        (DUPLICATE_PACKAGE, Error, "a package defined twice"),
        (
            PACKAGE_NAME,
            Error,
            "a package name that is not a DNS-1123 label",
        ),
        (
            CHANNEL_UNKNOWN_PACKAGE,
            Error,
            "a channel of a package that is not defined",
        ),
        (CHANNEL_NO_NAME, Error, "a channel without a name"),
        (
            DUPLICATE_CHANNEL,
            Error,
            "a channel defined twice in a package",
        ),
        (DUPLICATE_ENTRY, Error, "an entry listed twice in a channel"),
        (BUNDLE_NO_PACKAGE, Error, "a bundle without a package"),
        (
            BUNDLE_UNKNOWN_PACKAGE,
            Error,
            "a bundle of a package that is not defined",
        ),
        (
            DUPLICATE_BUNDLE,
            Error,
            "a bundle defined twice in a package",
        ),
        (
            PROPERTY,
            Error,
            "a bundle property value of the wrong shape",
        ),
        (
            PACKAGE_PROPERTY_COUNT,
            Error,
            "a bundle without exactly one olm.package property",
        ),
        (
            PACKAGE_PROPERTY_MISMATCH,
            Error,
            "olm.package property names another package",
        ),
        (
            IMAGE,
            Error,
            "an image or related image that is not a valid pull spec",
        ),
        (VERSION, Error, "a bundle version that is not semver"),
        (RELEASE, Error, "an invalid olm.package release"),
        (
            BUNDLE_NOT_IN_CHANNEL,
            Error,
            "a bundle listed in no channel",
        ),
        (
            ENTRY_WITHOUT_BUNDLE,
            Error,
            "a channel entry with no olm.bundle",
        ),
        (
            DEFAULT_CHANNEL_UNSET,
            Error,
            "a package without a default channel",
        ),
        (
            DEFAULT_CHANNEL_MISSING,
            Error,
            "a default channel that does not exist",
        ),
        (
            DEPRECATION_NO_PACKAGE,
            Error,
            "an olm.deprecations without a package",
        ),
        (
            DEPRECATION_UNKNOWN_PACKAGE,
            Error,
            "deprecations for a package that is not defined",
        ),
        (
            DUPLICATE_DEPRECATIONS,
            Error,
            "more than one olm.deprecations for a package",
        ),
        (
            DEPRECATION_NO_SCHEMA,
            Error,
            "a deprecation entry without reference.schema",
        ),
        (
            DUPLICATE_DEPRECATION_ENTRY,
            Error,
            "a deprecation entry listed twice",
        ),
        (
            DEPRECATED_BUNDLE_MISSING,
            Error,
            "a deprecation of a bundle that does not exist",
        ),
        (
            DEPRECATED_CHANNEL_MISSING,
            Error,
            "a deprecation of a channel that does not exist",
        ),
        (
            DEPRECATED_PACKAGE_NAMED,
            Error,
            "a package deprecation that names something",
        ),
        (
            DEPRECATION_SCHEMA,
            Error,
            "a deprecation of an unknown kind of object",
        ),
        (
            DEPRECATION_MESSAGE,
            Error,
            "a deprecation without a message",
        ),
        (PACKAGE_NO_CHANNELS, Error, "a package without channels"),
        (CHANNEL_EMPTY, Error, "a channel without entries"),
        (
            NO_HEAD,
            Error,
            "a channel where every entry is replaced or skipped",
        ),
        (MULTIPLE_HEADS, Error, "a channel with more than one head"),
        (CYCLE, Error, "a cycle in a channel's replaces chain"),
        (
            STRANDED,
            Error,
            "entries the head's replaces chain never reaches",
        ),
        (
            DUPLICATE_VERSION,
            Error,
            "two bundles of a package with the same version",
        ),
        (
            RELEASE_NAME,
            Error,
            "a bundle with a release not named <package>-v<version>-<release>",
        ),
        (EMPTY_SKIP, Error, "an empty string in skips"),
        (SKIP_RANGE, Error, "a skipRange that is not a valid range"),
        (
            NO_IMAGE,
            Error,
            "a bundle with neither image nor olm.bundle.object",
        ),
        (
            BUILD_WITH_RELEASE,
            Error,
            "build metadata in a version that has a release",
        ),
        (ENTRY_NO_NAME, Error, "a channel entry without a name"),
        (
            SKIP_RANGE_MATCHES_NOTHING,
            Warning,
            "a skipRange that matches no version of the package",
        ),
        (
            SKIP_RANGE_ABOVE_VERSION,
            Warning,
            "a skipRange reaching above its entry's own version",
        ),
        (
            SKIP_RANGE_ONLY,
            Warning,
            "an entry linked only by a skipRange (a second head for opm)",
        ),
        (
            DANGLING_EDGE,
            Warning,
            "replaces/skips naming a bundle in no channel of the package",
        ),
        (
            YAML_TRAP,
            Warning,
            "an unquoted YAML value that YAML 1.1 reads as a number or boolean",
        ),
        (
            UNKNOWN_SCHEMA,
            Warning,
            "an unknown olm.* schema (kept, never checked, by opm)",
        ),
        (UNKNOWN_PROPERTY, Warning, "an unknown olm.* property type"),
        (
            HEAD_WITHOUT_METADATA,
            Warning,
            "a channel head without olm.csv.metadata or olm.bundle.object",
        ),
        (
            PLAIN_BUNDLE,
            Warning,
            "a plain+v0 bundle, which OLM v0 cannot install",
        ),
        (
            BUNDLE_NAME,
            Info,
            "a bundle name unlike <package>.v<version>",
        ),
        (
            SKIP_RANGE_QUIRK,
            Warning,
            "a skipRange that blang/semver reads differently than it looks",
        ),
        (
            REQUIRED_RANGE,
            Warning,
            "an olm.package.required versionRange that is not a valid range",
        ),
        (
            PROFILE_METADATA,
            Error,
            "profile community, konflux: olm.bundle.object in a catalog for OCP 4.17 or later (konflux: each bundle needs the metadata format of its OCP version)",
        ),
        (
            PROFILE_DIGEST,
            Error,
            "profile konflux: a bundle image not pinned by digest",
        ),
        (
            PROFILE_REGISTRY,
            Error,
            "profile community (with --allowed-registry), konflux: a bundle image from a registry not allowed",
        ),
        (
            PROFILE_DANGLING,
            Error,
            "profile community: a dangling bundle (no upgrade from it under OLM v0)",
        ),
        (
            PROFILE_LOOP,
            Error,
            "profile community: a loop in a channel's upgrade graph",
        ),
        (
            PROFILE_PRUNED,
            Warning,
            "profile community: a skipRange without replaces, which may prune the graph",
        ),
        (
            PROFILE_REPLACES,
            Error,
            "profile community: replaces naming a bundle not in the catalog",
        ),
    ]
};
