//! Which of a substitution's two bundles is newer: the version of each bundle's `olm.package`
//! property, then its release, as opm orders them for a substitutes template (a bundle with a
//! release is newer than the same version without one; releases compare as semver pre-releases).
//!
//! The ordering is the catalog's own ([`crate::catalog::version_release`]); this module reads a
//! rendered bundle's version and release in the words each opm release uses.

use std::cmp::Ordering;

use serde_json::Value;

use crate::catalog::model::property_type;
use crate::catalog::semver_range::{Version, parse_release};

/// How the opm release words and reads the two versions it compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rules {
    /// opm v1.67–v1.68: a "composite version"; the release read as the pre-release of `0.0.0-`,
    /// build metadata never taken as a release.
    Composite,
    /// opm v1.69 and later: a "VersionRelease"; build metadata is the release of a bundle whose CSV
    /// carries `olm.substitutesFor` and whose `olm.package` has no `release`.
    VersionRelease,
}

impl Rules {
    /// The words for the version of a bundle in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Rules::Composite => "composite version",
            Rules::VersionRelease => "VersionRelease",
        }
    }
}

pub use crate::catalog::version_release::VersionRelease;

/// The order of two bundles' versions and releases: the versions first (build metadata ignored),
/// then the releases, a release being newer than none; the order every face of the catalog uses.
pub fn compare(a: &VersionRelease, b: &VersionRelease) -> Ordering {
    crate::catalog::version_release::compare_version_release(a, b)
}

/// The version and release of a bundle (as opm renders or reads it), or why there is none, in the
/// words of the opm release `rules` stand for.
pub fn version_release(bundle: &Value, rules: Rules) -> Result<VersionRelease, String> {
    let name = bundle.get("name").and_then(Value::as_str).unwrap_or("");
    let packages: Vec<&Value> = properties(bundle)
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(property_type::PACKAGE))
        .map(|p| p.get("value").unwrap_or(&Value::Null))
        .collect();
    match rules {
        Rules::Composite => composite(name, &packages),
        Rules::VersionRelease => with_release(bundle, name, &packages),
    }
}

fn properties(bundle: &Value) -> impl Iterator<Item = &Value> {
    bundle
        .get("properties")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The fields of an `olm.package` value as Go decodes it into strings.
fn package_fields(value: &Value) -> Result<(String, String), String> {
    let Value::Object(m) = value else {
        return Err(format!(
            "json: cannot unmarshal {} into Go value of type property.Package",
            go_type(value)
        ));
    };
    let mut version = String::new();
    let mut release = String::new();
    // Go matches field names in any letter case; the last spelling wins.
    for (k, v) in m {
        let field = ["packageName", "version", "release"]
            .into_iter()
            .find(|f| k.eq_ignore_ascii_case(f));
        let Some(field) = field else {
            continue;
        };
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Null => continue,
            other => {
                return Err(format!(
                    "json: cannot unmarshal {} into Go struct field Package.{field} of type string",
                    go_type(other)
                ));
            }
        };
        match field {
            "version" => version = text,
            "release" => release = text,
            _ => {}
        }
    }
    Ok((version, release))
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// opm v1.69 on: one `olm.package` property, its version and release; build metadata becomes the
/// release of a bundle that follows the `olm.substitutesFor` convention.
fn with_release(bundle: &Value, name: &str, packages: &[&Value]) -> Result<VersionRelease, String> {
    let mut found: Option<VersionRelease> = None;
    for value in packages {
        if found.is_some() {
            return Err("must be exactly one property of type \"olm.package\"".into());
        }
        let (version, release) = package_fields(value).map_err(|e| {
            format!("unable to unmarshal \"olm.package\" property for bundle {name:?}: {e}")
        })?;
        let v = Version::parse(&version).map_err(|e| {
            format!(
                "invalid semver version {version:?} in \"olm.package\" property for bundle {name:?}: {e}"
            )
        })?;
        let r = parse_release(&release).map_err(|e| {
            format!(
                "invalid release {release:?} in \"olm.package\" property for bundle {name:?}: {e}"
            )
        })?;
        found = Some(VersionRelease {
            version: v,
            release: r,
        });
    }
    let Some(mut vr) = found else {
        return Err(format!(
            "no \"olm.package\" property found for bundle {name:?}"
        ));
    };
    if vr.release.is_empty() && !vr.version.build.is_empty() && substitutes_for(bundle) {
        let release = parse_release(&vr.version.build.join(".")).map_err(|e| {
            format!("unable to convert build metadata to release for bundle {name:?}: {e}")
        })?;
        vr.release = release;
        vr.version.build.clear();
    }
    Ok(vr)
}

/// opm v1.67–v1.68: exactly one `olm.package` property; the release read as `0.0.0-<release>`.
fn composite(name: &str, packages: &[&Value]) -> Result<VersionRelease, String> {
    if packages.len() != 1 {
        return Err(format!(
            "bundle {name:?} must have exactly 1 \"olm.package\" property, found {}",
            packages.len()
        ));
    }
    let (version, release) = package_fields(packages[0])
        .map_err(|e| format!("parse properties for bundle {name:?}: {e}"))?;
    let v = Version::parse(&version)
        .map_err(|e| format!("bundle {name:?} has invalid version {version:?}: {e}"))?;
    let mut rel = Vec::new();
    if !release.is_empty() {
        let r = Version::parse(&format!("0.0.0-{release}")).map_err(|e| {
            format!("error parsing bundle {name:?} release version {release:?}: {e}")
        })?;
        if !r.build.is_empty() {
            return Err(format!(
                "bundle {name:?} release version {release:?} cannot contain build metadata"
            ));
        }
        rel = r.pre;
    }
    Ok(VersionRelease {
        version: v,
        release: rel,
    })
}

/// Whether the bundle's CSV carries a non-empty `olm.substitutesFor` annotation: the CSV among its
/// `olm.bundle.object`s first, then its `olm.csv.metadata`.
pub fn substitutes_for(bundle: &Value) -> bool {
    const KEY: &str = "olm.substitutesFor";
    let annotated = |annotations: Option<&Value>| {
        annotations
            .and_then(|a| a.get(KEY))
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    let csv = properties(bundle)
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(property_type::BUNDLE_OBJECT))
        .filter_map(|p| p.pointer("/value/data").and_then(Value::as_str))
        .filter_map(|data| crate::text::go_base64::decode(data).ok())
        .filter_map(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .find(|o| o.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion"));
    if let Some(csv) = csv {
        return annotated(csv.pointer("/metadata/annotations"));
    }
    properties(bundle)
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(property_type::CSV_METADATA))
        .any(|p| annotated(p.pointer("/value/annotations")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bundle(name: &str, version: &str, release: Option<&str>) -> Value {
        let mut value = json!({"packageName": "p", "version": version});
        if let Some(r) = release {
            value["release"] = json!(r);
        }
        json!({"schema": "olm.bundle", "name": name, "properties": [{"type": "olm.package", "value": value}]})
    }

    fn vr(b: &Value) -> VersionRelease {
        version_release(b, Rules::VersionRelease).unwrap()
    }

    #[test]
    fn a_release_is_newer_than_none_and_releases_compare_as_prereleases() {
        let plain = vr(&bundle("p.v1.1.0", "1.1.0", None));
        let alpha = vr(&bundle("p-v1.1.0-alpha", "1.1.0", Some("alpha")));
        let beta = vr(&bundle("p-v1.1.0-beta", "1.1.0", Some("beta")));
        let two = vr(&bundle("p-v1.1.0-2", "1.1.0", Some("2")));
        let newer = vr(&bundle("p.v1.2.0", "1.2.0", None));
        assert_eq!(compare(&plain, &alpha), Ordering::Less);
        assert_eq!(compare(&alpha, &beta), Ordering::Less);
        assert_eq!(compare(&two, &alpha), Ordering::Less);
        assert_eq!(compare(&beta, &newer), Ordering::Less);
        assert_eq!(compare(&alpha, &alpha.clone()), Ordering::Equal);
    }

    #[test]
    fn missing_and_repeated_package_properties_use_opm_words() {
        let none = json!({"schema": "olm.bundle", "name": "b", "properties": []});
        assert_eq!(
            version_release(&none, Rules::VersionRelease).unwrap_err(),
            "no \"olm.package\" property found for bundle \"b\""
        );
        let mut two = bundle("b", "1.0.0", None);
        let p = two["properties"][0].clone();
        two["properties"].as_array_mut().unwrap().push(p);
        assert_eq!(
            version_release(&two, Rules::VersionRelease).unwrap_err(),
            "must be exactly one property of type \"olm.package\""
        );
        assert_eq!(
            version_release(&two, Rules::Composite).unwrap_err(),
            "bundle \"b\" must have exactly 1 \"olm.package\" property, found 2"
        );
        let bad = bundle("b", "v1.0.0", None);
        assert!(
            version_release(&bad, Rules::VersionRelease)
                .unwrap_err()
                .starts_with("invalid semver version \"v1.0.0\" in \"olm.package\" property for bundle \"b\": ")
        );
        let bad = bundle("b", "1.0.0", Some("a..b"));
        assert!(
            version_release(&bad, Rules::VersionRelease)
                .unwrap_err()
                .starts_with("invalid release \"a..b\" in \"olm.package\" property for bundle \"b\": invalid release \"a..b\": segment 1: ")
        );
    }

    #[test]
    fn build_metadata_is_the_release_only_under_substitutes_for() {
        let csv = json!({"kind": "ClusterServiceVersion", "metadata": {"name": "b",
            "annotations": {"olm.substitutesFor": "b-old"}}});
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(csv.to_string());
        let mut b = bundle("b", "1.0.0+2", None);
        let plain = vr(&b);
        assert_eq!((plain.release.len(), plain.version.build.len()), (0, 1));
        b["properties"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "olm.bundle.object", "value": {"data": data}}));
        let legacy = vr(&b);
        assert_eq!(
            legacy.release,
            vec![crate::catalog::semver_range::Pre::Num(2)]
        );
        assert!(legacy.version.build.is_empty());
        // The composite version of v1.67–v1.68 never reads build metadata as a release.
        let old = version_release(&b, Rules::Composite).unwrap();
        assert!(old.release.is_empty());
    }
}
