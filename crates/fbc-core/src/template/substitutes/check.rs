//! Whether a substitutes template's catalog converts into opm's model (opm's `ConvertToModel`,
//! which a substitutes template runs on its entries and again after each substitution; the
//! upgrade graph itself is not validated). opm stops at its first error, checking the packages,
//! then the channels, then the bundles (each through its checks in order), then entries without a
//! bundle, then deprecations: the first such problem of the engine's validation is that error.

use std::path::Path;

use serde_json::Value;

use crate::catalog::codes::catalog as c;
use crate::catalog::{Catalog, Diagnostic, Format, Object, OpmStage, Severity, decode, emit};

/// opm's first conversion error for `cfg` (the catalog's objects in the order opm holds them),
/// with the object it is about; `None` when the catalog converts.
pub fn first_error(cfg: &[Value]) -> Option<(String, Object)> {
    let mut catalog = Catalog::in_memory(Path::new("."));
    let file = catalog.create_file("rendered.yaml", Format::Yaml).ok()?;
    for v in cfg {
        let node = emit::to_node(v, false);
        if let Ok(meta) = decode::meta(&node, "rendered.yaml") {
            catalog.add_blob_to(file, node, meta);
        }
    }
    let report = crate::validate::validate(&catalog);
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter_map(|d| {
            let opm = d.opm.as_ref()?;
            matches!(opm.stage, OpmStage::Load | OpmStage::Convert).then(|| (rank(d, cfg), d))
        })
        .min_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, d)| {
            (
                d.opm.as_ref().map(|o| o.text.clone()).unwrap_or_default(),
                d.object.clone(),
            )
        })
}

/// Where opm meets a problem: its phase, the position of the object in that phase's list, and the
/// order of the check.
fn rank(d: &Diagnostic, cfg: &[Value]) -> (u8, usize, &'static str) {
    let phase = match d.code {
        _ if d.opm.as_ref().is_some_and(|o| o.stage == OpmStage::Load) => 0,
        c::PACKAGE_NO_NAME | c::DUPLICATE_PACKAGE | c::PACKAGE_NAME => 1,
        c::CHANNEL_UNKNOWN_PACKAGE
        | c::CHANNEL_NO_NAME
        | c::DUPLICATE_CHANNEL
        | c::DUPLICATE_ENTRY
        | c::ENTRY_NO_NAME => 2,
        c::BUNDLE_NO_PACKAGE
        | c::BUNDLE_UNKNOWN_PACKAGE
        | c::DUPLICATE_BUNDLE
        | c::PROPERTY
        | c::BUNDLE_OBJECT
        | c::PACKAGE_PROPERTY_COUNT
        | c::PACKAGE_PROPERTY_MISMATCH
        | c::IMAGE
        | c::VERSION
        | c::RELEASE
        | c::BUILD_WITH_RELEASE
        | c::BUNDLE_NOT_IN_CHANNEL => 3,
        c::ENTRY_WITHOUT_BUNDLE => 4,
        _ => 5,
    };
    let schema = match phase {
        1 => crate::catalog::schema::PACKAGE,
        2 => crate::catalog::schema::CHANNEL,
        3 => crate::catalog::schema::BUNDLE,
        _ => "",
    };
    let duplicate = matches!(
        d.code,
        c::DUPLICATE_PACKAGE | c::DUPLICATE_CHANNEL | c::DUPLICATE_BUNDLE
    );
    let position = position(cfg, schema, &d.object, duplicate).unwrap_or(usize::MAX);
    (phase, position, d.code)
}

/// The position among the objects of `schema` of the one a problem is about (the second of two
/// when it is about a duplicate, which is where opm stops).
fn position(cfg: &[Value], schema: &str, o: &Object, duplicate: bool) -> Option<usize> {
    if schema.is_empty() {
        return None;
    }
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let package = o.package.clone().unwrap_or_default();
    let name = match schema {
        crate::catalog::schema::PACKAGE => package.clone(),
        crate::catalog::schema::CHANNEL => o.channel.clone().unwrap_or_default(),
        _ => o.bundle.clone().unwrap_or_default(),
    };
    let mut found = cfg
        .iter()
        .filter(|v| text(v, "schema") == schema)
        .enumerate()
        .filter(|(_, v)| {
            text(v, "name") == name
                && (schema == crate::catalog::schema::PACKAGE || text(v, "package") == package)
        })
        .map(|(i, _)| i);
    let first = found.next();
    if duplicate {
        found.next().or(first)
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bundle(name: &str, version: &str) -> Value {
        json!({"schema": "olm.bundle", "name": name, "package": "testoperator", "image": format!("quay.io/t/b:{version}"),
            "properties": [{"type": "olm.package", "value": {"packageName": "testoperator", "version": version}}]})
    }

    #[test]
    fn a_catalog_that_converts_has_no_error() {
        let cfg = vec![
            json!({"schema": "olm.package", "name": "testoperator", "defaultChannel": "stable"}),
            json!({"schema": "olm.channel", "name": "stable", "package": "testoperator", "entries": [{"name": "testoperator.v1.0.0"}]}),
            bundle("testoperator.v1.0.0", "1.0.0"),
        ];
        assert_eq!(first_error(&cfg), None);
    }

    #[test]
    fn opm_first_error_comes_first() {
        // No package: the channel is met before the bundle.
        let cfg = vec![
            json!({"schema": "olm.channel", "name": "stable", "package": "testoperator", "entries": []}),
            bundle("test.v0.9.0", "0.9.0"),
        ];
        let (text, _) = first_error(&cfg).unwrap();
        assert_eq!(
            text,
            "unknown package \"testoperator\" for channel \"stable\""
        );
        // A bundle in no channel.
        let cfg = vec![
            json!({"schema": "olm.package", "name": "testoperator", "defaultChannel": "stable"}),
            json!({"schema": "olm.channel", "name": "stable", "package": "testoperator", "entries": [{"name": "testoperator.v1.0.0"}]}),
            bundle("testoperator.v1.0.0", "1.0.0"),
            bundle("testoperator.v1.1.0", "1.1.0"),
        ];
        let (text, o) = first_error(&cfg).unwrap();
        assert_eq!(
            text,
            "package \"testoperator\", bundle \"testoperator.v1.1.0\" not found in any channel entries"
        );
        assert_eq!(o.bundle.as_deref(), Some("testoperator.v1.1.0"));
    }
}
