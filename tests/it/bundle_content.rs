//! The bundle content checks opm runs (operator-registry `pkg/lib/bundle` validator test cases):
//! a CSV without installModes, a CRD with a version name twice, a `metadata.namespace` that is not a
//! string, CSV annotations in the wrong case. Each fires on the foo bundle broken in that one way,
//! at the object's file and line, with opm's wording in the JSON output.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn foo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/bundles/foo-v0.2.0")
}

fn broken(file: &str, from: &str, to: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&foo(), tmp.path());
    let path = tmp.path().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches(from).count(), 1, "{from:?}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    tmp
}

/// `(code, file:line, message, opm)` of each error.
fn errors(dir: &Path) -> Vec<(String, String, String, String)> {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(["check-bundle", "-o", "json"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            let rel = file.rsplit_once("manifests/").map_or(file, |(_, r)| r);
            (
                d["code"].as_str().unwrap().to_string(),
                format!("{rel}:{}", d["line"]),
                d["message"].as_str().unwrap().to_string(),
                d["opm"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

const CSV: &str = "manifests/foo.v0.2.0.clusterserviceversion.yaml";

#[test]
fn the_intact_bundle_passes() {
    Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("check-bundle")
        .arg(foo())
        .assert()
        .code(0);
}

#[test]
fn a_csv_without_install_modes() {
    let dir = broken(
        CSV,
        "  installModes:\n  - type: AllNamespaces\n    supported: true\n",
        "",
    );
    assert_eq!(
        errors(dir.path()),
        vec![(
            "FBC223".into(),
            "foo.v0.2.0.clusterserviceversion.yaml:1".into(),
            "ClusterServiceVersion foo.v0.2.0: install modes not found (spec.installModes is missing or empty)".into(),
            "Error: Value : (foo.v0.2.0) install modes not found".into(),
        )]
    );
}

#[test]
fn a_crd_with_a_version_name_twice() {
    let dir = broken(
        "manifests/foos.test.foo.crd.yaml",
        "  - name: v1alpha1\n",
        "  - name: v1\n",
    );
    let e = errors(dir.path());
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "FBC224");
    assert_eq!(e[0].1, "foos.test.foo.crd.yaml:1");
    assert!(
        e[0].2
            .contains("spec.versions must contain unique version names (v1 listed more than once)"),
        "{e:?}"
    );
    assert!(
        e[0].3.ends_with("must contain unique version names"),
        "{e:?}"
    );
}

#[test]
fn a_namespace_that_is_not_a_string() {
    let dir = broken(
        "manifests/foo-config.configmap.json",
        "\"metadata\": {\"name\": \"foo-config\"}",
        "\"metadata\": {\"name\": \"foo-config\", \"namespace\": 42}",
    );
    assert_eq!(
        errors(dir.path()),
        vec![(
            "FBC225".into(),
            "foo-config.configmap.json:1".into(),
            "ConfigMap foo-config: metadata.namespace is 42, not a string: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.namespace of type string".into(),
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.namespace of type string".into(),
        )]
    );
}

#[test]
fn annotations_in_the_wrong_case() {
    let dir = broken(
        CSV,
        "    olm.skipRange: '<0.2.0'\n",
        "    olm.skiprange: '<0.2.0'\n    olm.operatorgroup: og\n    olm.operatornamespace: ns\n",
    );
    let e = errors(dir.path());
    let opm: Vec<&str> = e.iter().map(|x| x.3.as_str()).collect();
    assert_eq!(
        opm,
        vec![
            "Error: Value foo.v0.2.0: provided annotation olm.operatorgroup uses wrong case and should be olm.operatorGroup instead",
            "Error: Value foo.v0.2.0: provided annotation olm.operatornamespace uses wrong case and should be olm.operatorNamespace instead",
            "Error: Value foo.v0.2.0: provided annotation olm.skiprange uses wrong case and should be olm.skipRange instead",
        ]
    );
    assert!(e.iter().all(|x| x.0 == "FBC226"), "{e:?}");
}
