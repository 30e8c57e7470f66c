//! Fixes of packages, bundles and deprecations, and a code without a fix.

use super::*;

fn deprecations(entries: &str) -> String {
    format!("---\nschema: olm.deprecations\npackage: demo\nentries:\n{entries}")
}

const DEPRECATE_1_0: &str =
    "  - reference:\n      schema: olm.bundle\n      name: demo.v1.0.0\n    message: use 1.2.0\n";

#[test]
fn fbc037_a_deprecation_of_a_missing_bundle_is_removed() {
    let more =
        "  - reference:\n      schema: olm.bundle\n      name: demo.v9.0.0\n    message: gone\n";
    let text = format!(
        "{}{}",
        demo(CHAIN),
        deprecations(&format!("{DEPRECATE_1_0}{more}"))
    );
    let f = fix(
        &text,
        "FBC037",
        "Remove the deprecation of bundle demo.v9.0.0",
        Value::Null,
    );
    let want = engine(
        &text,
        Edit::Undeprecate {
            package: "demo".into(),
            target: Target::Bundle("demo.v9.0.0".into()),
        },
    );
    assert_eq!(f.text, want);
    assert_eq!(f.text, text.replace(more, ""));
}

#[test]
fn fbc038_a_deprecation_of_a_missing_channel_is_removed() {
    let more = "  - reference:\n      schema: olm.channel\n      name: beta\n    message: gone\n";
    let text = format!(
        "{}{}",
        demo(CHAIN),
        deprecations(&format!("{DEPRECATE_1_0}{more}"))
    );
    let f = fix(
        &text,
        "FBC038",
        "Remove the deprecation of channel beta",
        Value::Null,
    );
    assert_eq!(f.text, text.replace(more, ""));
}

#[test]
fn fbc036_a_repeated_deprecation_is_listed_once() {
    let text = format!(
        "{}{}",
        demo(CHAIN),
        deprecations(&format!("{DEPRECATE_1_0}{DEPRECATE_1_0}"))
    );
    fix(
        &text,
        "FBC036",
        "Keep one deprecation of bundle demo.v1.0.0",
        Value::Null,
    );
}

#[test]
fn fbc039_a_package_deprecation_names_nothing() {
    let named = "  - reference:\n      schema: olm.package\n      name: demo\n    message: use another operator\n";
    let text = format!(
        "{}{}",
        demo(CHAIN),
        deprecations(&format!("{DEPRECATE_1_0}{named}"))
    );
    let f = fix(
        &text,
        "FBC039",
        "Remove reference.name from the package deprecation",
        Value::Null,
    );
    assert_eq!(
        f.text,
        text.replace(
            "      schema: olm.package\n      name: demo\n",
            "      schema: olm.package\n"
        )
    );
}

#[test]
fn fbc026_a_leading_v_is_dropped_from_a_version() {
    let text = demo(CHAIN).replace("      version: 1.1.0\n", "      version: v1.1.0\n");
    let f = fix(&text, "FBC026", "Change the version to 1.1.0", Value::Null);
    assert_eq!(f.text, demo(CHAIN));
}

#[test]
fn fbc024_the_olm_package_property_names_the_bundles_package() {
    let text = demo(CHAIN).replacen("      packageName: demo\n", "      packageName: other\n", 1);
    let f = fix(
        &text,
        "FBC024",
        "Change the olm.package property to demo",
        Value::Null,
    );
    assert_eq!(f.text, demo(CHAIN));
}

#[test]
fn fbc015_fbc020_fbc033_a_missing_package_is_added() {
    let text = demo(CHAIN).replace(PACKAGE, "");
    let f = fix(
        &text,
        "FBC015",
        "Add package demo with default channel stable",
        Value::Null,
    );
    assert!(
        f.after
            .iter()
            .all(|d| d["code"] != "FBC020" && d["severity"] != 1),
        "{:#?}",
        codes(&f.after)
    );
    assert!(
        f.text
            .ends_with("---\ndefaultChannel: stable\nname: demo\nschema: olm.package\n"),
        "{}",
        f.text
    );
    fix(
        &text,
        "FBC020",
        "Add package demo with default channel stable",
        Value::Null,
    );
    let text = format!("{}{}", demo(CHAIN), deprecations(DEPRECATE_1_0)).replace(
        "package: demo\nentries:\n  - reference",
        "package: other\nentries:\n  - reference",
    );
    fix(&text, "FBC033", "Add package other", Value::Null);
}

#[test]
fn fbc106_an_unknown_property_type_is_corrected() {
    let text = demo(CHAIN).replacen(
        "  - type: olm.package\n    value:\n      packageName: demo\n      version: 1.2.0\n",
        "  - type: olm.package\n    value:\n      packageName: demo\n      version: 1.2.0\n  - type: olm.maxOpenShiftVersions\n    value: 4.18\n",
        1,
    );
    let f = fix(
        &text,
        "FBC106",
        "Change olm.maxOpenShiftVersions to olm.maxOpenShiftVersion",
        Value::Null,
    );
    assert!(f.text.contains("type: olm.maxOpenShiftVersion\n"));
}

/// A code with no fix (a message to write) offers no quick fix.
#[test]
fn fbc041_a_missing_message_has_no_fix() {
    let text = format!(
        "{}{}",
        demo(CHAIN),
        deprecations(
            "  - reference:\n      schema: olm.bundle\n      name: demo.v1.0.0\n    message: \"\"\n"
        )
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("catalogs/v4.18/demo");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("catalog.yaml");
    std::fs::write(&file, &text).unwrap();
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    let diags = c.diagnostics(&doc);
    let d = diags
        .iter()
        .find(|d| d["code"] == "FBC041")
        .unwrap_or_else(|| panic!("{:#?}", codes(&diags)))
        .clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc.as_str()}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    assert!(
        actions
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["kind"] != "quickfix"),
        "{actions}"
    );
    c.shutdown();
}
