//! A bundle's version *and* release, ordered as opm orders them (operator-registry v1.62 and later).
//!
//! The `olm.package` property may carry a `release` beside the version: the same version re-spun.
//! opm orders bundles by version first (build metadata ignored), then a bundle without a release
//! before any with one, then the releases by pre-release rules. Every face that shows or compares
//! versions reads them through [`VersionRelease`], and every comparison goes through
//! [`compare_version_release`].
//!
//! The legacy rule: a bundle whose CSV carries a non-empty `olm.substitutesFor` annotation and has
//! no release reads its version's build metadata as the release (opm's `VersionRelease` of a
//! declarative bundle, which its substitutes template compares with); [`VersionRelease::legacy`]
//! applies it, [`uses_legacy_release`] tells whether a catalog bundle is such a bundle.

use std::cmp::Ordering;
use std::fmt;

use super::Catalog;
use super::model::{Bundle, PropertyValue};
use super::node::{Node, Str};
use super::semver_range::{Pre, ReleaseError, Version, VersionError, parse_release};

/// The CSV annotation naming the bundle a legacy re-spin substitutes for.
pub const SUBSTITUTES_FOR: &str = "olm.substitutesFor";

/// A version with its (possibly empty) release.
#[derive(Debug, Clone)]
pub struct VersionRelease {
    pub version: Version,
    /// Empty when the bundle has no release.
    pub release: Vec<Pre>,
}

/// Why a version and release cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionReleaseError {
    #[error("invalid semver version {version:?}: {why}")]
    Version { version: String, why: VersionError },
    #[error("{0}")]
    Release(ReleaseError),
    /// The legacy rule's build metadata is not a release.
    #[error("unable to convert build metadata to release: {0}")]
    Legacy(ReleaseError),
}

/// opm's order of two versions with releases: the versions (build metadata ignored), then no
/// release before a release, then the releases as pre-release identifiers. This is the one
/// comparison every face and template uses.
pub fn compare_version_release(a: &VersionRelease, b: &VersionRelease) -> Ordering {
    a.version
        .cmp(&b.version)
        .then_with(|| compare_release(&a.release, &b.release))
}

/// opm's order of two releases alone: none before any, then identifier by identifier, a shorter
/// list that is a prefix of a longer one first.
pub fn compare_release(a: &[Pre], b: &[Pre]) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => as_pre(a).cmp(&as_pre(b)),
    }
}

/// `0.0.0-<release>`: blang compares pre-release lists exactly as opm compares releases.
fn as_pre(r: &[Pre]) -> Version {
    Version {
        major: 0,
        minor: 0,
        patch: 0,
        pre: r.to_vec(),
        build: Vec::new(),
    }
}

impl VersionRelease {
    /// Reads a version and a release (empty for none), with opm's messages.
    pub fn parse(version: &str, release: &str) -> Result<VersionRelease, VersionReleaseError> {
        let v = Version::parse(version).map_err(|why| VersionReleaseError::Version {
            version: version.to_string(),
            why,
        })?;
        let r = parse_release(release).map_err(VersionReleaseError::Release)?;
        Ok(VersionRelease {
            version: v,
            release: r,
        })
    }

    /// The version and release of a bundle's `olm.package` property (the first one), `None` when
    /// it has none or they do not parse. The legacy rule is not applied (see [`Self::legacy`]).
    pub fn of_bundle(b: &Bundle) -> Option<VersionRelease> {
        let p = b.package_property()?;
        VersionRelease::parse(p.version, p.release.unwrap_or("")).ok()
    }

    /// opm's legacy rule: when `legacy` (the CSV carries `olm.substitutesFor`), there is no
    /// release and the version has build metadata, the build metadata becomes the release and
    /// leaves the version.
    pub fn legacy(mut self, legacy: bool) -> Result<VersionRelease, VersionReleaseError> {
        if legacy && self.release.is_empty() && !self.version.build.is_empty() {
            self.release = parse_release(&self.version.build.join("."))
                .map_err(VersionReleaseError::Legacy)?;
            self.version.build.clear();
        }
        Ok(self)
    }

    /// The release as written (`""` for none).
    pub fn release_text(&self) -> String {
        join(&self.release)
    }

    /// Whether there is a release.
    pub fn has_release(&self) -> bool {
        !self.release.is_empty()
    }
}

fn join(r: &[Pre]) -> String {
    r.iter().map(Pre::to_string).collect::<Vec<_>>().join(".")
}

impl PartialEq for VersionRelease {
    fn eq(&self, o: &Self) -> bool {
        compare_version_release(self, o) == Ordering::Equal
    }
}

impl Eq for VersionRelease {}

impl PartialOrd for VersionRelease {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for VersionRelease {
    fn cmp(&self, o: &Self) -> Ordering {
        compare_version_release(self, o)
    }
}

impl From<Version> for VersionRelease {
    fn from(version: Version) -> Self {
        VersionRelease {
            version,
            release: Vec::new(),
        }
    }
}

/// `1.2.3`, or `1.2.3 release 2` with a release: the words keep it apart from a pre-release.
impl fmt::Display for VersionRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.version)?;
        if !self.release.is_empty() {
            write!(f, " release {}", join(&self.release))?;
        }
        Ok(())
    }
}

/// Whether a catalog bundle follows the legacy release rule, as opm decides it: properties in
/// order, an `olm.csv.metadata` whose annotations carry a non-empty `olm.substitutesFor` says yes;
/// the first `olm.bundle.object` holding a JSON object decides by its own annotation (a CRD says
/// no); anything unreadable is passed over.
pub fn uses_legacy_release(catalog: &Catalog, b: &Bundle) -> bool {
    for p in &b.properties {
        match p.parse() {
            Ok(PropertyValue::CsvMetadata(v)) => {
                if let Some(Some(s)) = annotations(v).map(substitutes_for)
                    && !s.is_empty()
                {
                    return true;
                }
            }
            Ok(PropertyValue::BundleObject(Some(data))) => {
                if let Some(verdict) = object_verdict(catalog, data) {
                    return verdict;
                }
            }
            _ => {}
        }
    }
    false
}

/// A `metadata.annotations`-shaped map of strings (`None` when Go's decoder would refuse it).
fn annotations(owner: &Node) -> Option<&Node> {
    match owner.get_field("annotations") {
        None => Some(&NULL),
        Some(a) if a.is_null() => Some(&NULL),
        Some(a) => {
            let m = a.as_map()?;
            m.iter()
                .all(|e| e.value.is_null() || e.value.as_str().is_some())
                .then_some(a)
        }
    }
}

static NULL: Node = Node::with(
    super::node::Kind::Null,
    super::node::Pos::NONE,
    super::node::Style::Any,
);

fn substitutes_for(annotations: &Node) -> Option<&str> {
    annotations.get(SUBSTITUTES_FOR).and_then(Node::as_str)
}

/// The verdict of one `olm.bundle.object`: `None` when its data is not a JSON object Go would
/// decode as a CSV (so the next property is asked).
fn object_verdict(catalog: &Catalog, data: &Str) -> Option<bool> {
    let text = catalog.resolve(data).ok()?;
    let bytes = crate::text::go_base64::decode(&text).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let obj = value.as_object()?;
    let meta = match obj.iter().find(|(k, _)| k.eq_ignore_ascii_case("metadata")) {
        None => return Some(false),
        Some((_, m)) if m.is_null() => return Some(false),
        Some((_, m)) => m.as_object()?,
    };
    let ann = match meta
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("annotations"))
    {
        None => return Some(false),
        Some((_, a)) if a.is_null() => return Some(false),
        Some((_, a)) => a.as_object()?,
    };
    if !ann.values().all(|v| v.is_null() || v.is_string()) {
        return None;
    }
    Some(
        ann.get(SUBSTITUTES_FOR)
            .and_then(serde_json::Value::as_str)
            .is_some_and(|s| !s.is_empty()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vr(v: &str, r: &str) -> VersionRelease {
        VersionRelease::parse(v, r).unwrap()
    }

    #[test]
    fn versions_first_then_no_release_before_a_release() {
        let mut all = [
            vr("1.0.1", ""),
            vr("1.0.0", "2"),
            vr("1.0.0", "alpha"),
            vr("1.0.0", ""),
            vr("1.0.0", "10"),
            vr("1.0.0", "2.1"),
            vr("1.0.0-rc.1", "5"),
        ];
        all.sort();
        let shown: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "1.0.0-rc.1 release 5",
                "1.0.0",
                "1.0.0 release 2",
                "1.0.0 release 2.1",
                "1.0.0 release 10",
                "1.0.0 release alpha",
                "1.0.1",
            ]
        );
    }

    #[test]
    fn build_metadata_is_ignored_unless_the_legacy_rule_reads_it() {
        assert_eq!(
            compare_version_release(&vr("1.0.0+1", ""), &vr("1.0.0+2", "")),
            Ordering::Equal
        );
        let a = vr("1.0.0+1", "").legacy(true).unwrap();
        let b = vr("1.0.0+2", "").legacy(true).unwrap();
        assert_eq!(a.release_text(), "1");
        assert!(a.version.build.is_empty());
        assert_eq!(compare_version_release(&a, &b), Ordering::Less);
        // A release already there wins; without the annotation nothing moves.
        assert_eq!(vr("1.0.0", "3").legacy(true).unwrap().release_text(), "3");
        assert!(!vr("1.0.0+1", "").legacy(false).unwrap().has_release());
        let bad = vr("1.0.0+0001", "").legacy(true).unwrap_err();
        assert!(
            bad.to_string().starts_with(
                "unable to convert build metadata to release: invalid release \"0001\""
            ),
            "{bad}"
        );
    }
}
