//! What rendering reads from the bundles: each bundle's package and version, versions that cannot
//! be ordered, and the package's description and icon from the default channel's head.

use serde_json::{Map, Value};

use crate::catalog::emit::to_node;
use crate::catalog::model::{Bundle, PropertyValue, ViewError, property_type};
use crate::catalog::semver_range::{Version, VersionError};
use crate::template::canonical;
use crate::template::source::BundleSource;

/// A bundle's name, package and version from its single `olm.package` property, with opm's messages.
pub(super) fn package_of(bundle: &Value) -> Result<(String, String, Version), PackageOfError> {
    let node = to_node(bundle, false);
    let b = Bundle::read(&node).map_err(PackageOfError::Bundle)?;
    let mut packages = Vec::new();
    for p in &b.properties {
        match p.parse() {
            Ok(PropertyValue::Package(v)) => packages.push(v),
            Ok(_) => {}
            Err(why) => {
                return Err(PackageOfError::Properties {
                    bundle: b.name.to_string(),
                    why,
                });
            }
        }
    }
    if packages.len() != 1 {
        return Err(PackageOfError::PackageCount {
            bundle: b.name.to_string(),
            count: packages.len(),
        });
    }
    let p = &packages[0];
    let version = Version::parse(p.version).map_err(|why| PackageOfError::Version {
        bundle: b.name.to_string(),
        version: p.version.to_string(),
        why,
    })?;
    Ok((b.name.to_string(), p.package_name.to_string(), version))
}

/// Why a rendered bundle gives no package and version, in opm's words.
#[derive(Debug, thiserror::Error)]
pub(super) enum PackageOfError {
    #[error("parse bundle: {0}")]
    Bundle(#[source] ViewError),
    #[error("parse properties for bundle {bundle:?}: {why}")]
    Properties {
        bundle: String,
        #[source]
        why: ViewError,
    },
    /// Not exactly one `olm.package` property (opm says "multiple" for none as well).
    #[error(
        "bundle {bundle:?} has multiple {:?} properties, expected exactly 1 (it has {count})",
        property_type::PACKAGE
    )]
    PackageCount { bundle: String, count: usize },
    #[error("bundle {bundle:?} has invalid version {version:?}: {why}")]
    Version {
        bundle: String,
        version: String,
        #[source]
        why: VersionError,
    },
}

/// Versions of one list that only differ in build metadata cannot be ordered. Later ones are named;
/// the error is at the line of the first of them.
pub(super) fn build_metadata_conflicts(
    versions: &[(String, Version)],
    lines: &[u32],
) -> Result<(), (u32, String)> {
    let mut seen: Vec<String> = Vec::new();
    let mut errors = Vec::new();
    let mut at = 0;
    for ((_, v), line) in versions.iter().zip(lines) {
        let mut stripped = v.clone();
        stripped.build.clear();
        let stripped = stripped.to_string();
        if seen.contains(&stripped) {
            if errors.is_empty() {
                at = *line;
            }
            errors.push(format!(
                "bundle version {:?} cannot be compared to {stripped:?}",
                v.to_string()
            ));
        } else {
            seen.push(stripped);
        }
    }
    let what =
        "encountered bundle versions which differ only by build metadata, which cannot be ordered";
    match errors.len() {
        0 => Ok(()),
        1 => Err((at, format!("{what}: {}", errors[0]))),
        _ => Err((at, format!("{what}: [{}]", errors.join(", ")))),
    }
}

/// The package's description and icon from the head bundle's CSV (opm v1.65.0+). A bundle that
/// carries only `olm.csv.metadata` has the description but no icon; the icon then comes from the
/// package as the source records it, when it does.
pub(super) fn package_metadata(
    bundle: &Value,
    package: &str,
    source: &dyn BundleSource,
    pkg: &mut Map<String, Value>,
    notes: &mut Vec<String>,
) {
    let name = bundle.get("name").and_then(Value::as_str).unwrap_or("");
    let props = bundle
        .get("properties")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let csv = props
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(property_type::BUNDLE_OBJECT))
        .filter_map(|p| p.get("value")?.get("data")?.as_str())
        .filter_map(decode_object)
        .find(|o| o.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion"));
    if let Some(csv) = csv {
        let Some(spec) = csv.get("spec").filter(|s| s.is_object()) else {
            return;
        };
        if let Some(Value::String(d)) = spec.get("description")
            && !d.is_empty()
        {
            pkg.insert("description".into(), Value::String(d.clone()));
        }
        if let Some(icon) = csv_icon(spec) {
            pkg.insert("icon".into(), icon);
        }
        return;
    }
    let metadata = props
        .iter()
        .find(|p| p.get("type").and_then(Value::as_str) == Some(property_type::CSV_METADATA))
        .and_then(|p| p.get("value"));
    let Some(metadata) = metadata else {
        return;
    };
    if let Some(Value::String(d)) = metadata.get("description")
        && !d.is_empty()
    {
        pkg.insert("description".into(), Value::String(d.clone()));
    }
    match source.package_icon(package) {
        Some((icon, at)) => {
            pkg.insert("icon".into(), icon);
            notes.push(format!(
                "the head bundle {name:?} of the default channel carries olm.csv.metadata, which holds no icon; the package icon is the one recorded at {at}"
            ));
        }
        None => notes.push(format!(
            "the head bundle {name:?} of the default channel carries olm.csv.metadata, which holds no icon; the package gets none (opm, reading the bundle image, would copy the CSV's icon if it has one)"
        )),
    }
}

/// The first icon of a CSV spec as opm copies it: `{base64data, mediatype}`, the data re-encoded.
/// A malformed icon list gives no icon, as in opm.
fn csv_icon(spec: &Value) -> Option<Value> {
    let icons = spec.get("icon")?;
    if icons.is_null() {
        return None;
    }
    let list = icons.as_array()?;
    let mut parsed = Vec::with_capacity(list.len());
    for i in list {
        if i.is_null() {
            parsed.push((Value::Null, String::new()));
            continue;
        }
        let obj = i.as_object()?;
        let field = |k: &str| {
            obj.iter()
                .rev()
                .find(|(key, _)| key.eq_ignore_ascii_case(k))
                .map(|(_, v)| v)
        };
        let data = match field("base64data") {
            None | Some(Value::Null) => Value::Null,
            Some(Value::String(s)) => Value::String(canonical::base64_bytes(s).ok()?),
            Some(_) => return None,
        };
        let media = match field("mediatype") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return None,
        };
        parsed.push((data, media));
    }
    let (data, media) = parsed.into_iter().next()?;
    let mut icon = Map::new();
    icon.insert("base64data".into(), data);
    icon.insert("mediatype".into(), Value::String(media));
    Some(Value::Object(icon))
}

/// An `olm.bundle.object` payload (base64 of a JSON or YAML manifest) as JSON.
fn decode_object(data: &str) -> Option<Value> {
    use base64::Engine as _;
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut diags = Vec::new();
    let docs = crate::catalog::decode::decode(&text, 0, "manifest", &mut diags);
    let mut node = docs.into_iter().next()?.node;
    crate::template::inline_strings(&mut node, &text);
    Some(crate::template::to_value(&node))
}
