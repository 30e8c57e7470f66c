//! opm's bundle content checks (`pkg/lib/bundle` `ValidateBundleContent`, which runs
//! operator-framework/api's CSV, CRD and object validators) that reading a bundle does not make:
//! a CSV without install modes, a CRD listing a version name twice, an object whose
//! `metadata.namespace` is not a string, and annotations OLM reads in one case only written in
//! another. Each carries opm's wording.

use serde_json::Value;

use super::{Object, RegistryBundle, codes};
use crate::catalog::{Diagnostic, Location, OpmStage};

/// Annotation keys OLM matches exactly, by their lowercase form.
const CASE_SENSITIVE: [&str; 5] = [
    "olm.operatorGroup",
    "olm.operatorNamespace",
    "olm.targetNamespaces",
    "olm.providedAPIs",
    "olm.skipRange",
];

fn at(o: &Object) -> Location {
    Location::new(&o.file, o.line, 1)
}

/// Go's name for a JSON value's type in an unmarshalling error.
fn go_json_type(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

/// The four checks, for every object of the bundle.
pub fn check(b: &RegistryBundle, out: &mut Vec<Diagnostic>) {
    for o in &b.objects {
        if let Some(ns) = o.value.pointer("/metadata/namespace")
            && !ns.is_string()
            && !ns.is_null()
        {
            let go = format!(
                "json: cannot unmarshal {} into Go struct field ObjectMeta.metadata.namespace of type string",
                go_json_type(ns)
            );
            out.push(
                Diagnostic::error(
                    codes::NAMESPACE_TYPE,
                    at(o),
                    format!("{} {}: metadata.namespace is {ns}, not a string: {go}", o.kind(), o.name()),
                )
                .with_opm(OpmStage::Load, go)
                .with_hint("quote the namespace (YAML reads an unquoted number or `yes` as something else), or leave it out"),
            );
        }
        match o.kind() {
            "ClusterServiceVersion" => csv(o, out),
            "CustomResourceDefinition" => crd(o, out),
            _ => {}
        }
    }
}

fn csv(o: &Object, out: &mut Vec<Diagnostic>) {
    let name = o.name();
    let modes = o.value.pointer("/spec/installModes");
    if modes.is_none_or(|m| m.as_array().is_none_or(Vec::is_empty)) {
        out.push(
            Diagnostic::error(
                codes::INSTALL_MODES,
                at(o),
                format!("ClusterServiceVersion {name}: install modes not found (spec.installModes is missing or empty)"),
            )
            .with_opm(
                OpmStage::Load,
                format!("Error: Value : ({name}) install modes not found"),
            )
            .with_hint("list the install modes the operator supports: OwnNamespace, SingleNamespace, MultiNamespace, AllNamespaces, each with `supported: true|false`"),
        );
    }
    let Some(annotations) = o
        .value
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
    else {
        return;
    };
    let mut keys: Vec<&String> = annotations.keys().collect();
    keys.sort();
    for key in keys {
        let Some(right) = CASE_SENSITIVE
            .iter()
            .find(|k| k.eq_ignore_ascii_case(key) && *k != key)
        else {
            continue;
        };
        let words =
            format!("provided annotation {key} uses wrong case and should be {right} instead");
        out.push(
            Diagnostic::error(
                codes::ANNOTATION_CASE,
                at(o),
                format!("ClusterServiceVersion {name}: {words}: OLM reads the annotation only as {right}"),
            )
            .with_opm(OpmStage::Load, format!("Error: Value {name}: {words}"))
            .with_hint(format!("rename the annotation to {right}")),
        );
    }
}

fn crd(o: &Object, out: &mut Vec<Diagnostic>) {
    let Some(versions) = o.value.pointer("/spec/versions").and_then(Value::as_array) else {
        return;
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut repeated: Vec<&str> = Vec::new();
    for v in versions {
        let Some(n) = v.get("name").and_then(Value::as_str) else {
            continue;
        };
        if seen.contains(&n) {
            if !repeated.contains(&n) {
                repeated.push(n);
            }
        } else {
            seen.push(n);
        }
    }
    if repeated.is_empty() {
        return;
    }
    out.push(
        Diagnostic::error(
            codes::CRD_VERSIONS,
            at(o),
            format!(
                "CustomResourceDefinition {}: spec.versions must contain unique version names ({} listed more than once)",
                o.name(),
                repeated.join(", ")
            ),
        )
        // opm prints the field and Go's dump of the versions around these words.
        .with_opm(OpmStage::Load, "spec.versions: Invalid value: …: must contain unique version names")
        .with_hint("list each version once; merge the duplicates' schemas and flags"),
    );
}
