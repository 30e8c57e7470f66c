//! Which opm release a template is rendered as. opm's `alpha render-template` writes different
//! bytes from one release to the next (see docs/compat.md); an [`OpmVersion`] names the release and
//! answers, for each difference, which behaviour that release has.
//!
//! In a repository laid out as `operators/<op>/`, the operator's `Makefile` pins the release its
//! `make catalogs` downloads (`OPM_VERSION ?= v1.46.0`); [`OpmChoice::resolve`] follows it unless a
//! version is given explicitly, and says which it followed and why.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::edit::release::OperatorDir;
use crate::catalog::model::property_type;
use crate::catalog::schema;

/// An opm release, `v1.<minor>.<patch>`, one fbc-edit can render as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpmVersion {
    minor: u16,
    patch: u16,
}

/// How a semver template links the entries of its channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linking {
    /// opm v1.37–v1.56: within each channel, the head of every minor version replaces the head of
    /// the previous minor version and skips it too, and skips the lower entries of its own minor
    /// version; nothing links across channels.
    ChannelSkipsReplaced,
    /// opm v1.57–v1.60: as [`Linking::ChannelSkipsReplaced`], without skipping the replaced head.
    ChannelReplacesOnly,
    /// opm v1.61 and later: the head of every minor version replaces the head of the previous
    /// minor version of the same major (in another channel when channels are per minor version)
    /// and skips every other lower entry of that major.
    EdgeScoped,
}

/// The Go release an opm release was built with (`go.mod`'s toolchain, else its `go` line): the
/// order `sort.Slice` leaves equal elements in depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GoRelease {
    pub major: u8,
    pub minor: u8,
}

impl fmt::Display for GoRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "go{}.{}", self.major, self.minor)
    }
}

/// Why a version cannot be rendered as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpmVersionError {
    #[error("{0:?} is not an opm version (vMAJOR.MINOR.PATCH, such as v1.46.0)")]
    Syntax(String),
    #[error("opm {version} is not supported: {why}; supported: {}", supported())]
    Unsupported { version: String, why: &'static str },
    #[error("{file}:{line}: OPM_VERSION: {source}")]
    Makefile {
        file: String,
        line: u32,
        source: Box<OpmVersionError>,
    },
    #[error("{file}: {why}")]
    Unreadable { file: String, why: String },
}

/// The supported releases, in words.
pub fn supported() -> &'static str {
    "v1.46.0 to v1.61.x and v1.67.0 to v1.73.x"
}

impl OpmVersion {
    pub const V1_46_0: OpmVersion = OpmVersion {
        minor: 46,
        patch: 0,
    };
    pub const V1_61_0: OpmVersion = OpmVersion {
        minor: 61,
        patch: 0,
    };
    /// The first supported release with a substitutes template (it came in v1.62.0).
    pub const V1_67_0: OpmVersion = OpmVersion {
        minor: 67,
        patch: 0,
    };
    /// The first release comparing a substitute by its VersionRelease.
    pub const V1_69_0: OpmVersion = OpmVersion {
        minor: 69,
        patch: 0,
    };
    pub const V1_71_0: OpmVersion = OpmVersion {
        minor: 71,
        patch: 0,
    };
    /// The release the repositories' pipeline renders with.
    pub const DEFAULT: OpmVersion = OpmVersion::V1_71_0;

    /// Reads `v1.46.0` (the `v` may be left out). Releases before v1.46.0 or after v1.73.x, and
    /// v1.62–v1.66 (which derived a bundle's release from build metadata in ways not reproduced
    /// here), are refused.
    pub fn parse(text: &str) -> Result<OpmVersion, OpmVersionError> {
        let syntax = || OpmVersionError::Syntax(text.to_string());
        let t = text.strip_prefix('v').unwrap_or(text);
        let mut parts = t.split('.');
        let mut number = || -> Result<u16, OpmVersionError> {
            let p = parts.next().ok_or_else(syntax)?;
            if p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            p.parse().map_err(|_| syntax())
        };
        let (major, minor, patch) = (number()?, number()?, number()?);
        if parts.next().is_some() {
            return Err(syntax());
        }
        let unsupported = |why| OpmVersionError::Unsupported {
            version: format!("v{major}.{minor}.{patch}"),
            why,
        };
        if major != 1 || minor < 46 {
            return Err(unsupported("older than v1.46.0"));
        }
        if minor > 73 {
            return Err(unsupported(
                "newer than v1.73.x, whose behaviour is not known here",
            ));
        }
        if (62..=66).contains(&minor) {
            return Err(unsupported(
                "v1.62 to v1.66 derive a bundle's release from its CSV's build metadata and olm.substitutesFor, which is not reproduced",
            ));
        }
        Ok(OpmVersion { minor, patch })
    }

    /// How semver templates link channel entries.
    pub fn linking(self) -> Linking {
        match self.minor {
            ..=56 => Linking::ChannelSkipsReplaced,
            57..=60 => Linking::ChannelReplacesOnly,
            _ => Linking::EdgeScoped,
        }
    }

    /// Whether a semver template's package takes its description and icon from the CSV of the
    /// default channel's head (v1.65.0 and later).
    pub fn package_from_head(self) -> bool {
        self.minor >= 65
    }

    /// Whether a rendered bundle's `olm.package` property carries the CSV's `spec.release`
    /// (v1.62.0 and later).
    pub fn bundle_release(self) -> bool {
        self.minor >= 62
    }

    /// The Go release the opm release was built with.
    pub fn go_release(self) -> GoRelease {
        let minor = match self.minor {
            ..=49 => 22,
            50..=55 => 23,
            56..=61 => 24,
            62..=69 => 25,
            _ => 26,
        };
        GoRelease { major: 1, minor }
    }

    /// The variant of Go's `sort.Slice` the release sorts with (its Go release's).
    pub fn sort(self) -> crate::text::gosort::GoRelease {
        use crate::text::gosort::GoRelease as Sort;
        // Every supported release is built with Go 1.22 or later, where the variant is chosen by
        // the minor version alone.
        if self.go_release().minor < 24 {
            Sort::Go1_19To1_23
        } else {
            Sort::Go1_24On
        }
    }

    /// A rendered bundle as this release writes it: before v1.62 the `olm.package` property has no
    /// `release`.
    pub fn adjust_bundle(self, bundle: &mut Value) {
        if self.bundle_release()
            || bundle.get("schema").and_then(Value::as_str) != Some(schema::BUNDLE)
        {
            return;
        }
        let Some(props) = bundle.get_mut("properties").and_then(Value::as_array_mut) else {
            return;
        };
        for p in props {
            if p.get("type").and_then(Value::as_str) == Some(property_type::PACKAGE)
                && let Some(v) = p.get_mut("value").and_then(Value::as_object_mut)
            {
                v.remove("release");
            }
        }
    }
}

impl Default for OpmVersion {
    fn default() -> Self {
        OpmVersion::DEFAULT
    }
}

impl fmt::Display for OpmVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v1.{}.{}", self.minor, self.patch)
    }
}

impl std::str::FromStr for OpmVersion {
    type Err = OpmVersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OpmVersion::parse(s)
    }
}

/// Why a version was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// `--opm-version`.
    Flag,
    /// The operator's Makefile pins it, at this file and line.
    Makefile { file: PathBuf, line: u32 },
    /// Nothing chose one: the pipeline's release.
    Default,
}

/// The release to render as, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpmChoice {
    pub version: OpmVersion,
    pub reason: Reason,
}

impl Default for OpmChoice {
    fn default() -> Self {
        OpmChoice {
            version: OpmVersion::DEFAULT,
            reason: Reason::Default,
        }
    }
}

impl OpmChoice {
    /// The version `explicit` names when given; else, for a template (or operator directory, or its
    /// `catalog-templates/`) in a repository layout, the one the operator's Makefile pins; else the
    /// default. A Makefile that pins what is not a supported version is an error naming its line.
    pub fn resolve(
        explicit: Option<OpmVersion>,
        path: &Path,
    ) -> Result<OpmChoice, OpmVersionError> {
        if let Some(version) = explicit {
            return Ok(OpmChoice {
                version,
                reason: Reason::Flag,
            });
        }
        let Some(makefile) = makefile_for(path) else {
            return Ok(OpmChoice::default());
        };
        match pinned(&makefile)? {
            Some((version, line)) => Ok(OpmChoice {
                version,
                reason: Reason::Makefile {
                    file: makefile,
                    line,
                },
            }),
            None => Ok(OpmChoice::default()),
        }
    }

    /// Whether something chose the version (the flag or a Makefile), rather than the default.
    pub fn is_chosen(&self) -> bool {
        self.reason != Reason::Default
    }

    /// `rendered as opm v1.46.0 (OPM_VERSION in operators/x/Makefile:87)`.
    pub fn note(&self) -> String {
        let why = match &self.reason {
            Reason::Flag => "--opm-version".to_string(),
            Reason::Makefile { file, line } => {
                format!("OPM_VERSION in {}:{line}", file.display())
            }
            Reason::Default => "the default: no --opm-version and no Makefile pinning one".into(),
        };
        format!("rendered as opm {} ({why})", self.version)
    }
}

/// The operator's Makefile for a path in a repository layout: the path is a template in
/// `operators/<op>/catalog-templates/`, that directory, or the operator directory.
fn makefile_for(path: &Path) -> Option<PathBuf> {
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf()
    };
    // Resolved first: `.` named from inside `catalog-templates/` is that directory.
    let op = OperatorDir::find(&dir.canonicalize().ok()?);
    if !op.templates.is_dir() {
        return None;
    }
    // Only in a repository layout: `<repo>/operators/<op>`.
    let parent = op.dir.parent()?;
    if parent.file_name().is_none_or(|n| n != "operators") {
        return None;
    }
    let makefile = op.dir.join("Makefile");
    makefile.symlink_metadata().is_ok().then_some(makefile)
}

/// The most a Makefile may hold to be read.
const MAKEFILE_LIMIT: u64 = 1 << 20;

/// The version a Makefile pins, with its line: as make sets a variable from plain assignments,
/// `OPM_VERSION = v` and `OPM_VERSION := v` always, `OPM_VERSION ?= v` only when not set before.
/// Only a regular file within its directory and of at most 1 MiB is read.
pub fn pinned(makefile: &Path) -> Result<Option<(OpmVersion, u32)>, OpmVersionError> {
    let file = makefile.display().to_string();
    let text = crate::guard::file::read_text_limited_within(
        crate::guard::file::dir_of(makefile),
        makefile,
        MAKEFILE_LIMIT,
    )
    .map_err(|e| OpmVersionError::Unreadable {
        file: file.clone(),
        why: e.to_string(),
    })?;
    let mut found: Option<(&str, u32)> = None;
    for (i, line) in text.lines().enumerate() {
        let Some((op, value)) = assignment(line) else {
            continue;
        };
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if op != "?=" || found.is_none() {
            found = Some((value, n));
        }
    }
    match found {
        None => Ok(None),
        Some((value, line)) => OpmVersion::parse(value)
            .map(|v| Some((v, line)))
            .map_err(|e| OpmVersionError::Makefile {
                file,
                line,
                source: Box::new(e),
            }),
    }
}

/// `OPM_VERSION <op> <value>` (op `?=`, `:=` or `=`, a `#` comment after the value allowed), as the
/// operator and the value.
fn assignment(line: &str) -> Option<(&'static str, &str)> {
    let rest = line
        .strip_prefix("OPM_VERSION")?
        .trim_start_matches([' ', '\t']);
    let (op, value) = if let Some(v) = rest.strip_prefix("?=") {
        ("?=", v)
    } else if let Some(v) = rest.strip_prefix(":=") {
        (":=", v)
    } else if let Some(v) = rest.strip_prefix('=') {
        ("=", v)
    } else {
        return None;
    };
    let value = value
        .split('#')
        .next()
        .unwrap_or("")
        .trim_matches([' ', '\t', '\r']);
    Some((op, value))
}

/// Every resolved bundle as `opm` writes it (see [`OpmVersion::adjust_bundle`]).
pub(crate) fn adjust_bundles(opm: OpmVersion, bundles: &mut [Value]) {
    for b in bundles {
        opm.adjust_bundle(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_map_to_behaviours() {
        let v = OpmVersion::parse("v1.46.0").unwrap();
        assert_eq!(v, OpmVersion::V1_46_0);
        assert_eq!(v.to_string(), "v1.46.0");
        assert_eq!(v.linking(), Linking::ChannelSkipsReplaced);
        assert!(!v.package_from_head() && !v.bundle_release());
        assert_eq!(v.go_release().to_string(), "go1.22");
        let v = OpmVersion::parse("1.58.0").unwrap();
        assert_eq!(v.linking(), Linking::ChannelReplacesOnly);
        let v = OpmVersion::parse("v1.61.0").unwrap();
        assert_eq!(
            (v.linking(), v.package_from_head(), v.go_release().minor),
            (Linking::EdgeScoped, false, 24)
        );
        let v = OpmVersion::parse("v1.71.0").unwrap();
        assert_eq!(v, OpmVersion::DEFAULT);
        assert!(v.package_from_head() && v.bundle_release());
        assert_eq!(v.go_release().to_string(), "go1.26");
    }

    #[test]
    fn each_release_sorts_with_its_go_releases_sort() {
        use crate::text::gosort::GoRelease as Sort;
        assert_eq!(OpmVersion::V1_46_0.sort(), Sort::Go1_19To1_23);
        assert_eq!(OpmVersion::V1_61_0.sort(), Sort::Go1_24On);
        assert_eq!(OpmVersion::V1_71_0.sort(), Sort::Go1_24On);
    }

    #[test]
    fn unknown_and_unsupported_versions_are_refused_with_the_supported_ones() {
        for (text, why) in [
            ("latest", "is not an opm version"),
            ("v1.46", "is not an opm version"),
            ("v1.46.0.1", "is not an opm version"),
            ("v1.46.x", "is not an opm version"),
            ("v1.45.0", "older than v1.46.0"),
            ("v2.0.0", "older than v1.46.0"),
            ("v1.74.0", "newer than v1.73.x"),
            ("v1.64.0", "v1.62 to v1.66"),
        ] {
            let e = OpmVersion::parse(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
            if !why.contains("not an opm version") {
                assert!(e.contains(supported()), "{e}");
            }
        }
    }

    fn repo(makefile: &str) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let op = root.path().join("operators/op");
        std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
        std::fs::write(op.join("Makefile"), makefile).unwrap();
        root
    }

    #[test]
    fn the_makefile_pins_the_version_as_make_would_set_it() {
        for (text, want) in [
            ("X = 1\nOPM_VERSION ?= v1.46.0\n", Some(("v1.46.0", 2))),
            ("OPM_VERSION?=v1.61.0 # pinned\n", Some(("v1.61.0", 1))),
            (
                "OPM_VERSION ?= v1.46.0\nOPM_VERSION ?= v1.71.0\n",
                Some(("v1.46.0", 1)),
            ),
            (
                "OPM_VERSION ?= v1.46.0\nOPM_VERSION := v1.71.0\n",
                Some(("v1.71.0", 2)),
            ),
            ("OPM_VERSION\t=\tv1.70.0\r\n", Some(("v1.70.0", 1))),
            (
                "OPM_VERSION_X ?= v1.46.0\n  # OPM_VERSION ?= v1.46.0\n",
                None,
            ),
            ("all:\n\techo OPM_VERSION\n", None),
        ] {
            let root = repo(text);
            let root_path = root.path().canonicalize().unwrap();
            let template = root.path().join("operators/op/catalog-templates/t.yaml");
            let choice = OpmChoice::resolve(None, &template).unwrap();
            match want {
                Some((v, line)) => {
                    assert_eq!(choice.version.to_string(), v, "{text:?}");
                    assert_eq!(
                        choice.reason,
                        Reason::Makefile {
                            file: root_path.join("operators/op/Makefile"),
                            line
                        }
                    );
                    assert!(choice.note().contains(&format!("Makefile:{line}")));
                }
                None => assert_eq!(choice, OpmChoice::default(), "{text:?}"),
            }
            // The flag wins.
            let flag = OpmChoice::resolve(Some(OpmVersion::V1_61_0), &template).unwrap();
            assert_eq!(
                (flag.version, flag.reason),
                (OpmVersion::V1_61_0, Reason::Flag)
            );
        }
    }

    #[test]
    fn a_makefile_pinning_an_unsupported_version_names_its_line() {
        let root = repo("\n\nOPM_VERSION ?= $(shell cat v)\n");
        let e = OpmChoice::resolve(None, &root.path().join("operators/op"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Makefile:3: OPM_VERSION: \"$(shell cat v)\" is not an opm version"),
            "{e}"
        );
    }

    #[test]
    fn a_hostile_makefile_is_not_read() {
        let root = repo("");
        let makefile = root.path().join("operators/op/Makefile");
        std::fs::remove_file(&makefile).unwrap();
        crate::guard::file::tests::mkfifo(&makefile);
        let e = OpmChoice::resolve(None, &root.path().join("operators/op"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(&makefile).unwrap();
        let big = format!("OPM_VERSION ?= v1.46.0\n{}", "#".repeat(2 << 20));
        std::fs::write(&makefile, big).unwrap();
        let e = OpmChoice::resolve(None, &root.path().join("operators/op"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than the"), "{e}");
    }

    #[test]
    fn outside_a_repository_layout_the_default_is_used() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("catalog-templates")).unwrap();
        std::fs::write(dir.path().join("Makefile"), "OPM_VERSION ?= v1.46.0\n").unwrap();
        let choice =
            OpmChoice::resolve(None, &dir.path().join("catalog-templates/t.yaml")).unwrap();
        assert_eq!(choice, OpmChoice::default());
        assert!(choice.note().contains("the default"));
    }

    #[test]
    fn before_v1_62_the_package_property_has_no_release() {
        let mut b = serde_json::json!({"schema": "olm.bundle", "properties": [
            {"type": "olm.package", "value": {"packageName": "p", "version": "1.0.0", "release": "2"}}]});
        let kept = b.clone();
        OpmVersion::V1_71_0.adjust_bundle(&mut b);
        assert_eq!(b, kept);
        OpmVersion::V1_46_0.adjust_bundle(&mut b);
        assert_eq!(
            b["properties"][0]["value"],
            serde_json::json!({"packageName": "p", "version": "1.0.0"})
        );
    }
}
