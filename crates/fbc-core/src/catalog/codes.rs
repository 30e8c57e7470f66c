//! Every diagnostic code, defined once: its name in the code, the code itself, the severity it is
//! reported with, a title (the one-line summary `validate --list-rules` prints and SARIF carries) and,
//! where the title is not enough, a doc line. Codes are stable.
//!
//! The registry is split by what is checked: [`catalog`] (loading and validating a catalog: `FBC00x`,
//! `FBC010`–`FBC054`, `FBC1xx`, `FBC3xx`), [`bundle`] (bundle directories: `FBC200`–`FBC226`),
//! [`migrate`] (package-manifest directories: `FBC230`–`FBC249`) and [`repo`] (repositories of
//! operators and catalogs: `FBC4xx`). Each group has its constants, its
//! [`Rule`]s in listing order (`REGISTRY`), the same as `(code, severity, title)` tuples (`RULES`), and
//! the documentation page that explains every code (`DOC_PAGE`, checked by the tests below).
//!
//! To add a code: add one line to its group here, report it with the constant, document it on the
//! group's page, and show it in a test case.

use super::diagnostic::Severity;

/// One diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The constant's name in the code.
    pub name: &'static str,
    /// `FBCnnn`.
    pub code: &'static str,
    /// The severity it is reported with.
    pub severity: Severity,
    /// One-line summary.
    pub title: &'static str,
    /// A longer explanation, when the title is not enough (else empty).
    pub doc: &'static str,
}

/// Declares a group: one constant per code (with its doc line and title as documentation), the
/// group's `REGISTRY` and its `RULES` tuples, all from one line per code.
macro_rules! registry {
    (
        page $page:literal;
        $(
            $(#[doc = $doc:literal])*
            $name:ident = $code:literal, $severity:ident, $title:literal;
        )*
    ) => {
        use super::{Rule, Severity};

        $(
            $(#[doc = $doc])*
            #[doc = concat!("\n\n`", $code, "` (", stringify!($severity), "): ", $title, ".")]
            pub const $name: &str = $code;
        )*

        /// The page of the documentation that explains every code of this group.
        pub const DOC_PAGE: &str = $page;

        /// Every code of this group, in listing order.
        pub const REGISTRY: &[Rule] = &[$(
            Rule {
                name: stringify!($name),
                code: $code,
                severity: Severity::$severity,
                title: $title,
                doc: concat!("" $(, $doc)*).trim_ascii(),
            },
        )*];

        /// The codes as `(code, severity, title)`.
        pub const RULES: &[(&str, Severity, &str)] = &super::tuples::<{ REGISTRY.len() }>(REGISTRY);
    };
}

/// `rules` as tuples; `N` is their number.
const fn tuples<const N: usize>(rules: &[Rule]) -> [(&'static str, Severity, &'static str); N] {
    let mut out = [("", Severity::Error, ""); N];
    let mut i = 0;
    while i < N {
        out[i] = (rules[i].code, rules[i].severity, rules[i].title);
        i += 1;
    }
    out
}

/// Loading and validating a catalog (`fbc-edit validate`). `FBC00x`: reading files; `FBC010`–`FBC099`:
/// everything opm rejects; `FBC1xx`: checks opm does not make (warnings and notes; they never change
/// the verdict); `FBC3xx`: profile rules.
pub mod catalog {
    registry! {
        page "docs/validate.md";
        // Reading files (FBC00x): the loader reports these.
        /// A file could not be read (permissions, vanished during the walk, not a regular file).
        READ = "FBC001", Error, "a file or directory cannot be read";
        /// A file is not UTF-8 text (binary data or another encoding).
        ENCODING = "FBC002", Error, "a file is not UTF-8 text";
        /// JSON or YAML syntax error.
        SYNTAX = "FBC003", Error, "JSON or YAML syntax error";
        /// A document is not an object, or has no `schema`.
        NOT_A_BLOB = "FBC004", Error, "a document is not an object with a schema";
        /// Top-level keys that differ only in case, or a non-string `schema`/`package`/`name`.
        META = "FBC005", Error, "schema/package/name keys differ only in case, or are not strings";
        /// The file holds no catalog objects (empty file, empty directory).
        EMPTY = "FBC006", Info, "a file or the catalog holds no objects";
        /// Something opm accepts only by accident (for example JSON read as YAML after a trailing comma).
        LENIENT = "FBC007", Warning, "something opm accepts only by accident";
        /// A symbolic link that is not followed.
        SYMLINK = "FBC008", Warning, "a symbolic link that is not followed";
        /// An `.indexignore` file that could not be used.
        IGNORE_FILE = "FBC009", Error, "an .indexignore file that cannot be used";

        // What opm rejects (FBC010–FBC054).
        /// A value of the wrong JSON type for opm's Go structs, or bad base64 in `icon.base64data`.
        TYPE = "FBC010", Error, "a field has the wrong type for opm";
        /// An `olm.bundle.object` whose data is not base64 of a JSON or YAML manifest.
        BUNDLE_OBJECT = "FBC011", Error, "an olm.bundle.object that is not base64 of a manifest";
        PACKAGE_NO_NAME = "FBC012", Error, "an olm.package without a name";
        DUPLICATE_PACKAGE = "FBC013", Error, "a package defined twice";
        PACKAGE_NAME = "FBC014", Error, "a package name that is not a DNS-1123 label";
        CHANNEL_UNKNOWN_PACKAGE = "FBC015", Error, "a channel of a package that is not defined";
        CHANNEL_NO_NAME = "FBC016", Error, "a channel without a name";
        DUPLICATE_CHANNEL = "FBC017", Error, "a channel defined twice in a package";
        DUPLICATE_ENTRY = "FBC018", Error, "an entry listed twice in a channel";
        BUNDLE_NO_PACKAGE = "FBC019", Error, "a bundle without a package";
        BUNDLE_UNKNOWN_PACKAGE = "FBC020", Error, "a bundle of a package that is not defined";
        DUPLICATE_BUNDLE = "FBC021", Error, "a bundle defined twice in a package";
        PROPERTY = "FBC022", Error, "a bundle property value of the wrong shape";
        PACKAGE_PROPERTY_COUNT = "FBC023", Error, "a bundle without exactly one olm.package property";
        PACKAGE_PROPERTY_MISMATCH = "FBC024", Error, "olm.package property names another package";
        IMAGE = "FBC025", Error, "an image or related image that is not a valid pull spec";
        VERSION = "FBC026", Error, "a bundle version that is not semver";
        RELEASE = "FBC027", Error, "an invalid olm.package release";
        BUNDLE_NOT_IN_CHANNEL = "FBC028", Error, "a bundle listed in no channel";
        ENTRY_WITHOUT_BUNDLE = "FBC029", Error, "a channel entry with no olm.bundle";
        DEFAULT_CHANNEL_UNSET = "FBC030", Error, "a package without a default channel";
        DEFAULT_CHANNEL_MISSING = "FBC031", Error, "a default channel that does not exist";
        DEPRECATION_NO_PACKAGE = "FBC032", Error, "an olm.deprecations without a package";
        DEPRECATION_UNKNOWN_PACKAGE = "FBC033", Error, "deprecations for a package that is not defined";
        DUPLICATE_DEPRECATIONS = "FBC034", Error, "more than one olm.deprecations for a package";
        DEPRECATION_NO_SCHEMA = "FBC035", Error, "a deprecation entry without reference.schema";
        DUPLICATE_DEPRECATION_ENTRY = "FBC036", Error, "a deprecation entry listed twice";
        DEPRECATED_BUNDLE_MISSING = "FBC037", Error, "a deprecation of a bundle that does not exist";
        DEPRECATED_CHANNEL_MISSING = "FBC038", Error, "a deprecation of a channel that does not exist";
        DEPRECATED_PACKAGE_NAMED = "FBC039", Error, "a package deprecation that names something";
        DEPRECATION_SCHEMA = "FBC040", Error, "a deprecation of an unknown kind of object";
        DEPRECATION_MESSAGE = "FBC041", Error, "a deprecation without a message";
        PACKAGE_NO_CHANNELS = "FBC042", Error, "a package without channels";
        CHANNEL_EMPTY = "FBC043", Error, "a channel without entries";
        NO_HEAD = "FBC044", Error, "a channel where every entry is replaced or skipped";
        MULTIPLE_HEADS = "FBC045", Error, "a channel with more than one head";
        CYCLE = "FBC046", Error, "a cycle in a channel's replaces chain";
        STRANDED = "FBC047", Error, "entries the head's replaces chain never reaches";
        DUPLICATE_VERSION = "FBC048", Error, "two bundles of a package with the same version";
        RELEASE_NAME = "FBC049", Error, "a bundle with a release not named <package>-v<version>-<release>";
        EMPTY_SKIP = "FBC050", Error, "an empty string in skips";
        SKIP_RANGE = "FBC051", Error, "a skipRange that is not a valid range";
        NO_IMAGE = "FBC052", Error, "a bundle with neither image nor olm.bundle.object";
        BUILD_WITH_RELEASE = "FBC053", Error, "build metadata in a version that has a release";
        ENTRY_NO_NAME = "FBC054", Error, "a channel entry without a name";

        // Checks opm does not make (FBC1xx): warnings and notes, which never change the verdict.
        SKIP_RANGE_MATCHES_NOTHING = "FBC100", Warning, "a skipRange that matches no version of the package";
        SKIP_RANGE_ABOVE_VERSION = "FBC101", Warning, "a skipRange reaching above its entry's own version";
        SKIP_RANGE_ONLY = "FBC102", Warning, "an entry linked only by a skipRange (a second head for opm)";
        DANGLING_EDGE = "FBC103", Warning, "replaces/skips naming a bundle in no channel of the package";
        YAML_TRAP = "FBC104", Warning, "an unquoted YAML value that YAML 1.1 reads as a number or boolean";
        UNKNOWN_SCHEMA = "FBC105", Warning, "an unknown olm.* schema (kept, never checked, by opm)";
        UNKNOWN_PROPERTY = "FBC106", Warning, "an unknown olm.* property type";
        HEAD_WITHOUT_METADATA = "FBC107", Warning, "a channel head without olm.csv.metadata or olm.bundle.object";
        PLAIN_BUNDLE = "FBC108", Warning, "a plain+v0 bundle, which OLM v0 cannot install";
        BUNDLE_NAME = "FBC109", Info, "a bundle name unlike <package>.v<version>";
        SKIP_RANGE_QUIRK = "FBC110", Warning, "a skipRange that blang/semver reads differently than it looks";
        REQUIRED_RANGE = "FBC111", Warning, "an olm.package.required versionRange that is not a valid range";
        // OpenShift lifecycle blobs (FBC120–FBC127): warnings; errors under --profile konflux and for OCP 5.0+.
        /// `io.openshift.operators.lifecycles.v1alpha1` against the enhancement's JSON Schema: a
        /// missing field, a field of the wrong type, an empty list, or a field the schema does not allow.
        LIFECYCLE_SHAPE = "FBC120", Warning, "a lifecycle blob that does not follow the lifecycle schema";
        LIFECYCLE_VERSION_NAME = "FBC121", Warning, "a lifecycle version name that is not MAJOR.MINOR, or listed twice";
        LIFECYCLE_DATE = "FBC122", Warning, "a lifecycle phase date that is not a real YYYY-MM-DD day";
        LIFECYCLE_PHASE_ORDER = "FBC123", Warning, "a lifecycle phase that does not end after it starts";
        LIFECYCLE_PHASE_GAP = "FBC124", Warning, "lifecycle phases with a gap or an overlap between them";
        LIFECYCLE_PLATFORM = "FBC125", Warning, "a lifecycle platform without a name, or a platform version that is not MAJOR.MINOR";
        LIFECYCLE_DUPLICATE = "FBC126", Warning, "more than one lifecycle blob for a package";
        LIFECYCLE_UNKNOWN_PACKAGE = "FBC127", Warning, "a lifecycle blob for a package the catalog does not define";

        // Profile rules (FBC3xx, `validate --profile`): the checks of ecosystem CI.
        PROFILE_METADATA = "FBC300", Error, "profile community, konflux: olm.bundle.object in a catalog for OCP 4.17 or later (konflux: each bundle needs the metadata format of its OCP version)";
        PROFILE_DIGEST = "FBC301", Error, "profile konflux: a bundle image not pinned by digest";
        PROFILE_REGISTRY = "FBC302", Error, "profile community (with --allowed-registry), konflux: a bundle image from a registry not allowed";
        PROFILE_DANGLING = "FBC303", Error, "profile community: a dangling bundle (no upgrade from it under OLM v0)";
        PROFILE_LOOP = "FBC304", Error, "profile community: a loop in a channel's upgrade graph";
        PROFILE_PRUNED = "FBC305", Warning, "profile community: a skipRange without replaces, which may prune the graph";
        PROFILE_REPLACES = "FBC306", Error, "profile community: replaces naming a bundle not in the catalog";
    }
}

/// Bundle directories (`fbc-edit check-bundle`, `render`): `FBC2xx`.
pub mod bundle {
    registry! {
        page "docs/bundles.md";
        UNREADABLE = "FBC200", Error, "a bundle file or directory cannot be read";
        NOT_A_BUNDLE = "FBC201", Error, "the directory is neither a registry+v1 nor a plain+v0 bundle";
        NO_ANNOTATIONS = "FBC202", Error, "metadata/ holds no annotations file";
        MANIFEST = "FBC203", Error, "a manifest is not a Kubernetes object opm can read";
        EXTRA_DOCUMENT = "FBC204", Warning, "a registry+v1 manifest file holds several objects; opm uses only the first";
        CSV_COUNT = "FBC205", Error, "a registry+v1 bundle needs exactly one ClusterServiceVersion";
        OWNED_CRD_MISSING = "FBC206", Error, "a CRD the CSV owns is not in manifests/";
        UNSUPPORTED_KIND = "FBC207", Error, "an object kind the registry+v1 format does not support";
        ANNOTATION_VALUE = "FBC208", Error, "the mediatype, manifests or metadata annotation is missing or wrong";
        PACKAGE_NAME = "FBC209", Error, "no package name annotation, or not a valid package name";
        NO_CHANNELS = "FBC210", Error, "the channels annotation lists no channel";
        DEFAULT_CHANNEL = "FBC211", Error, "the default channel annotation names a channel the bundle is not in";
        ANNOTATION_NAME = "FBC212", Warning, "a bundle annotation that does not follow `<namespace>.bundle.<key>.<version>`";
        DEPENDENCY = "FBC213", Error, "a dependency of an unknown type or with a bad value";
        METADATA_FILE = "FBC214", Warning, "a metadata file that is not what its name says, or not read at all";
        STRAY_FILE = "FBC215", Info, "a file that is no part of the bundle format";
        CSV = "FBC216", Error, "the ClusterServiceVersion lacks a name or a valid version";
        PROPERTY = "FBC217", Error, "a property in metadata/properties.yaml or the CSV's olm.properties is malformed";
        PLAIN_EMPTY = "FBC220", Error, "a plain+v0 bundle with no object";
        PLAIN_SUBDIR = "FBC221", Error, "a plain+v0 manifests/ directory with a subdirectory";
        INSTALL_MODES = "FBC223", Error, "a ClusterServiceVersion without spec.installModes";
        CRD_VERSIONS = "FBC224", Error, "a CustomResourceDefinition listing a version name twice";
        NAMESPACE_TYPE = "FBC225", Error, "an object whose metadata.namespace is not a string";
        ANNOTATION_CASE = "FBC226", Error, "a CSV annotation OLM reads in another case (olm.skiprange for olm.skipRange)";
        // Listed last, after FBC226: SARIF output refers to rules by their place in this list.
        PLAIN_OBJECT = "FBC222", Error, "a plain+v0 manifest that is not Kubernetes objects with apiVersion, kind and metadata.name";
        // Listed after the others for the same reason.
        SKIPPED_FILE = "FBC218", Warning, "a manifest whose first document is empty: opm skips the whole file";
        // Listed after the others for the same reason.
        RELEASE_AND_SUBSTITUTES = "FBC227", Error, "a ClusterServiceVersion with both spec.release and the olm.substitutesFor annotation";
    }
}

/// Package-manifest directories (`fbc-edit migrate`): `FBC23x`–`FBC24x`. Problems inside a version
/// directory's manifests keep their [`bundle`](super::bundle) codes.
pub mod migrate {
    registry! {
        page "docs/migrate.md";
        NO_PACKAGE_MANIFEST = "FBC230", Error, "a directory holds ClusterServiceVersions but no package manifest (*.package.yaml)";
        PACKAGE_MANIFEST = "FBC231", Error, "a package manifest is malformed (packageName, channels, channel names) or not the only one in its directory";
        DUPLICATE_PACKAGE = "FBC232", Error, "two package manifests declare the same packageName";
        DEFAULT_CHANNEL = "FBC233", Error, "defaultChannel names no channel, or is missing while there are several channels";
        CURRENT_CSV = "FBC234", Error, "a channel's currentCSV is missing or names no ClusterServiceVersion of the package";
        REPLACES_MISSING = "FBC235", Error, "spec.replaces names a ClusterServiceVersion that is not in the package";
        CYCLE = "FBC236", Error, "ClusterServiceVersions replace each other in a cycle";
        NO_CSV = "FBC237", Error, "a version directory holds manifests but no ClusterServiceVersion";
        SEVERAL_CSVS = "FBC238", Warning, "a version directory holds several ClusterServiceVersions; each becomes its own bundle";
        DUPLICATE_CSV = "FBC239", Error, "two ClusterServiceVersions of a package have the same metadata.name";
        NOT_IN_CHANNEL = "FBC240", Warning, "a ClusterServiceVersion no channel reaches (from currentCSV through replaces and skips): left out";
        STRANDED = "FBC241", Warning, "a ClusterServiceVersion reached only through a skipped one's replaces: left out of the channel, as OLM ignores it";
        NOT_CATALOG_DATA = "FBC242", Info, "a file or directory that is no part of the package-manifest format: not migrated";
        UNOWNED_CRD = "FBC243", Warning, "a CRD beside several ClusterServiceVersions that none of them owns: in no bundle";
        OUTPUT_INVALID = "FBC244", Error, "the migrated catalog would not validate (a bundle cannot be rendered, or validation fails)";
        ICON = "FBC245", Warning, "the default channel head's icon is not base64 data: the package gets no icon";
        UNREADABLE = "FBC246", Error, "a file cannot be read or is not valid YAML or JSON";
        UPGRADE_FIELD = "FBC247", Error, "spec.replaces, spec.skips or the olm.skipRange annotation of a ClusterServiceVersion is malformed";
        IMAGE = "FBC248", Error, "the image template gives an invalid image reference for a bundle";
        DEFAULT_CHANNEL_SINGLE = "FBC249", Warning, "defaultChannel names no channel, but there is only one channel, which becomes the default";
    }
}

/// Repositories laid out as community-operators-prod, certified-operators or marketplace
/// (`fbc-edit repo check`): `FBC4xx`. Problems inside a catalog keep their [`catalog`] codes.
pub mod repo {
    registry! {
        page "docs/repos.md";
        /// The file is not valid YAML, is not a regular file, or is over the `yaml-file` budget.
        CI_UNREADABLE = "FBC400", Error, "an operator's ci.yaml cannot be read or is not valid YAML";
        /// The rules of operator-pipelines' `ci-schema.json`: `fbc` takes only `enabled`,
        /// `version_promotion_strategy` and `catalog_mapping`; each mapping needs `template_name`,
        /// `type` (`olm.template.basic` or `olm.semver`) and `catalog_names` (strings, at least one,
        /// each once).
        CI_SCHEMA = "FBC401", Error, "ci.yaml does not comply with the pipeline's schema (wrong type, unknown key under fbc, missing or not allowed value)";
        /// YAML readers disagree on a repeated key; the pipeline's reader keeps the last one.
        DUPLICATE_KEY = "FBC402", Warning, "a key written twice in ci.yaml or release-config.yaml (the last one is used)";
        /// The pipeline's `check_catalog_usage_ci_config`.
        CATALOG_MAPPED_TWICE = "FBC403", Error, "a catalog named by more than one mapping of ci.yaml";
        /// A name that would reach outside its directory, or is empty.
        NAME = "FBC404", Error, "a template or catalog name that is not a plain file name";
        /// `make catalogs` stops at it.
        TEMPLATE_MISSING = "FBC405", Error, "a mapped template is not in catalog-templates/";
        /// `make catalogs` never renders it: a leftover, or a mapping is missing.
        TEMPLATE_UNMAPPED = "FBC406", Warning, "a file in catalog-templates/ that no mapping names";
        /// The renderer is chosen by the mapping's type, not by the template's schema.
        TEMPLATE_TYPE = "FBC407", Error, "a mapping's type is not the schema of its template";
        /// The pipeline expects `^v\d+\.\d+$`; another name is neither migrated nor released.
        CATALOG_NAME = "FBC408", Error, "a mapped catalog name that is not an OpenShift version (vX.Y)";
        /// `make catalogs` would create it.
        CATALOG_MISSING = "FBC409", Error, "a mapped catalog that was never generated";
        /// `make catalogs` deletes every `catalogs/*/<op>` before it renders.
        CATALOG_UNMAPPED = "FBC410", Error, "a catalogs/<name>/<op> directory that no mapping produces";
        /// Templates changed and catalogs not re-rendered, or a catalog edited by hand.
        CATALOG_DRIFT = "FBC411", Error, "a committed catalog that differs from its templates' rendering";
        RENDER = "FBC412", Error, "a mapped template that cannot be rendered";
        RELEASE_UNREADABLE = "FBC413", Error, "a release-config.yaml cannot be read or is not valid YAML";
        /// The rules of operator-pipelines' `release-config-schema.json`.
        RELEASE_SCHEMA = "FBC414", Error, "release-config.yaml does not comply with the pipeline's schema";
        /// The pipeline's `check_bundle_release_config`; the release step fails on it.
        RELEASE_TEMPLATE = "FBC415", Error, "release-config.yaml names a template that ci.yaml does not map";
        /// The release step refuses it.
        RELEASE_DEFAULT_CHANNEL = "FBC416", Error, "release-config.yaml's defaultChannel is not among its channels";
        RELEASE_SEMVER_CHANNEL = "FBC417", Error, "release-config.yaml gives a semver template channels other than Candidate, Fast and Stable";
        RELEASE_FBC_DISABLED = "FBC418", Error, "a release-config.yaml in an operator without fbc.enabled";
        READ = "FBC419", Error, "a repository file or directory cannot be read";
        /// Pull-request rules (`--git BASE`), as `parsed_file.py` enforces them.
        PR_BUNDLE_AND_CATALOG = "FBC420", Error, "the change touches a bundle and catalogs at once";
        PR_SEVERAL_BUNDLES = "FBC421", Error, "the change adds more than one bundle";
        PR_MODIFIED_BUNDLE = "FBC422", Error, "the change modifies a bundle that already exists";
        PR_DELETED_BUNDLE_IN_USE = "FBC423", Error, "the change deletes a bundle a catalog still names";
        PR_EXTRA_FILES = "FBC424", Error, "the change touches files outside operators/ and catalogs/";
        PR_DELETE_WITHOUT_FBC = "FBC425", Error, "the change deletes a bundle of an operator without fbc.enabled";
        PR_SEVERAL_OPERATORS = "FBC426", Error, "the change touches bundles and more than one operator";
        PR_ADD_AND_DELETE = "FBC427", Error, "the change adds and deletes bundles at once";
        /// The committed catalog is the release pipeline's opm rendering, while the Makefile pins
        /// another release whose `make catalogs` would rewrite it.
        OPM_PIN_DRIFT = "FBC428", Warning, "a committed catalog rendered by the pipeline's opm, which the Makefile's pinned opm would rewrite";
    }
}

/// Every group, for checks that span them.
pub const GROUPS: &[&[Rule]] = &[
    catalog::REGISTRY,
    bundle::REGISTRY,
    migrate::REGISTRY,
    repo::REGISTRY,
];

/// Every code of every group, in listing order (the SARIF rule list).
pub fn all() -> impl Iterator<Item = &'static Rule> {
    GROUPS.iter().copied().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_code_is_defined_once() {
        let mut seen = HashSet::new();
        for rule in GROUPS.iter().copied().flatten() {
            assert!(
                rule.code.len() == 6 && rule.code.starts_with("FBC"),
                "{}",
                rule.code
            );
            assert!(seen.insert(rule.code), "{} is defined twice", rule.code);
            assert!(!rule.title.is_empty() && !rule.doc.starts_with(' '));
        }
    }

    #[test]
    fn rules_are_the_registry() {
        for group in GROUPS {
            let listed: Vec<_> = group.iter().collect();
            let rules = match group[0].code {
                "FBC001" => catalog::RULES,
                "FBC200" => bundle::RULES,
                "FBC400" => repo::RULES,
                _ => migrate::RULES,
            };
            assert_eq!(listed.len(), rules.len());
            for (r, t) in listed.iter().zip(rules) {
                assert_eq!((r.code, r.severity, r.title), *t);
            }
        }
    }

    /// Every code has its row on its group's page (`| FBC200 | error |`; catalog codes in backquotes).
    #[test]
    fn docs_explain_every_code() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        for (group, page) in [
            (catalog::REGISTRY, catalog::DOC_PAGE),
            (bundle::REGISTRY, bundle::DOC_PAGE),
            (migrate::REGISTRY, migrate::DOC_PAGE),
            (repo::REGISTRY, repo::DOC_PAGE),
        ] {
            let doc = std::fs::read_to_string(root.join(page)).unwrap_or_default();
            for r in group {
                let (code, severity) = if page == catalog::DOC_PAGE {
                    (format!("`{}`", r.code), r.severity.as_str())
                } else {
                    let s = if r.severity == Severity::Info {
                        "note"
                    } else {
                        r.severity.as_str()
                    };
                    (r.code.to_string(), s)
                };
                let row = format!("| {code} | {severity} |");
                assert!(doc.contains(&row), "{page} lacks the row for {}", r.code);
            }
        }
    }
}
