//! From a rendered catalog back to a template (what `opm alpha convert-template basic` and
//! `substitutes` do): a package's objects as they are, each bundle reduced to `{schema: olm.bundle,
//! image: REF}` in a basic template, or kept whole in a substitutes template (with no substitutions
//! yet), so a catalog kept by hand can move to a template that renders to it again.

use serde_json::{Map, Value};

use crate::catalog::{Catalog, schema};

/// Why a package cannot become a template.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("package {0:?} is not in the catalog")]
    NoPackage(String),
    #[error(
        "bundle {name:?} of package {package:?} has no image: a template lists bundles by image"
    )]
    NoImage { package: String, name: String },
    #[error("{0}")]
    Unreadable(String),
}

/// The basic template for `package`: its objects in opm's order (the package, channels, bundles,
/// other objects, deprecations), `schema` first in each, bundles by image only.
pub fn basic_template(catalog: &Catalog, package: &str) -> Result<Value, ConvertError> {
    let entries = entries(catalog, package, true)?;
    let mut template = Map::new();
    template.insert("schema".into(), Value::from(super::schemas::BASIC));
    template.insert("entries".into(), Value::Array(entries));
    Ok(Value::Object(template))
}

/// The substitutes template for `package`: its objects in opm's order, `schema` first in each,
/// bundles whole, and an empty list of substitutions.
pub fn substitutes_template(catalog: &Catalog, package: &str) -> Result<Value, ConvertError> {
    let entries = entries(catalog, package, false)?;
    let mut template = Map::new();
    template.insert("schema".into(), Value::from(super::schemas::SUBSTITUTES));
    template.insert("entries".into(), Value::Array(entries));
    template.insert("substitutions".into(), Value::Array(Vec::new()));
    Ok(Value::Object(template))
}

/// The package's objects as template entries; bundles by image only when `by_image`.
fn entries(catalog: &Catalog, package: &str, by_image: bool) -> Result<Vec<Value>, ConvertError> {
    let idx = catalog
        .index()
        .package(package)
        .ok_or_else(|| ConvertError::NoPackage(package.to_string()))?;
    let ids = idx
        .packages
        .iter()
        .chain(&idx.channels)
        .chain(&idx.bundles)
        .chain(&idx.others)
        .chain(&idx.deprecations);
    let mut blobs = Vec::new();
    for &id in ids {
        let value = catalog
            .to_json(&catalog.blob(id).value)
            .map_err(|e| ConvertError::Unreadable(e.to_string()))?;
        blobs.push(value);
    }
    let mut entries = Vec::new();
    for blob in crate::catalog::emit::ordered(&blobs) {
        entries.push(entry(package, blob, by_image)?);
    }
    Ok(entries)
}

/// One template entry: `schema` first, then `package`, `name` and `defaultChannel`, then the
/// object's other keys in their order; a bundle is only its schema and image when `by_image`.
fn entry(package: &str, blob: &Value, by_image: bool) -> Result<Value, ConvertError> {
    let schema = blob.get("schema").cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    out.insert("schema".into(), schema.clone());
    if schema == schema::BUNDLE && by_image {
        let image = blob
            .get("image")
            .and_then(Value::as_str)
            .filter(|i| !i.is_empty())
            .ok_or_else(|| ConvertError::NoImage {
                package: package.to_string(),
                name: blob
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })?;
        out.insert("image".into(), Value::from(image));
        return Ok(Value::Object(out));
    }
    if let Some(fields) = blob.as_object() {
        // What names the object first, as templates are written by hand; then the rest in order.
        for key in ["package", "name", "defaultChannel"] {
            if let Some(v) = fields.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
        for (k, v) in fields {
            if !out.contains_key(k) {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(Value::Object(out))
}
