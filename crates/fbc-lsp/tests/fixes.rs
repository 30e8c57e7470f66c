//! One test per code with a quick fix: the problem typed into a catalog, the fix asked for with
//! the published diagnostic, its edit applied to the buffer, the buffer checked again: the
//! problem is gone. A fix made by an engine edit writes what that edit writes (`fbc-edit edit`).

mod support;

use fbc_core::edit::{Edit, Target};
use fbc_core::workspace::Workspace;
use serde_json::{Value, json};
use support::{Client, apply, uri};

const PACKAGE: &str = "---\nschema: olm.package\nname: demo\ndefaultChannel: stable\n";

fn bundle(v: &str) -> String {
    let digest = format!("{:0>64}", v.replace('.', ""));
    format!(
        "---\nschema: olm.bundle\npackage: demo\nname: demo.v{v}\nimage: quay.io/demo/demo@sha256:{digest}\nproperties:\n  - type: olm.package\n    value:\n      packageName: demo\n      version: {v}\n"
    )
}

fn channel(name: &str, entries: &str) -> String {
    format!("---\nschema: olm.channel\npackage: demo\nname: {name}\nentries:\n{entries}")
}

/// The package with bundles 1.0.0, 1.1.0 and 1.2.0 and a channel `stable` with `entries`.
fn demo(entries: &str) -> String {
    format!(
        "{PACKAGE}{}{}{}{}",
        channel("stable", entries),
        bundle("1.0.0"),
        bundle("1.1.0"),
        bundle("1.2.0")
    )
}

const CHAIN: &str = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n  - name: demo.v1.2.0\n    replaces: demo.v1.1.0\n";

struct Fixed {
    text: String,
    after: Vec<Value>,
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| format!("{} {}", d["code"], d["message"]))
        .collect()
}

/// `text` as the catalog file of a repository's v4.18 catalog; the fix titled `title` of the
/// first problem with `code` applied, and the problems of the buffer after it.
fn fix(text: &str, code: &str, title: &str, options: Value) -> Fixed {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("catalogs/v4.18/demo");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("catalog.yaml");
    std::fs::write(&file, text).unwrap();
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), options);
    c.open(&file, text);
    let diags = c.diagnostics(&doc);
    let d = diags
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {:#?}", codes(&diags)))
        .clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc.as_str()}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let titles: Vec<&Value> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["title"])
        .collect();
    let a = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| panic!("no {title:?} among {titles:?} for {d}"));
    assert_eq!(a["kind"], "quickfix", "{a}");
    assert!(a["disabled"].is_null(), "{a}");
    assert_eq!(a["diagnostics"][0]["code"], code);
    let fixed = apply(text, &a["edit"], &doc);
    assert_ne!(fixed, text);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": doc.as_str(), "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let after = c.diagnostics(&doc);
    assert!(
        after.iter().all(|d| d["code"] != code),
        "{code} still there after {title:?}:\n{fixed}\n{:#?}",
        codes(&after)
    );
    c.shutdown();
    Fixed { text: fixed, after }
}

/// What the engine's edit (the one `fbc-edit edit` makes) writes into `text`.
fn engine(text: &str, edit: Edit) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("catalog.yaml"), text).unwrap();
    let mut ws = Workspace::open(fbc_core::catalog::load(tmp.path()).unwrap());
    ws.apply(edit).unwrap();
    ws.pending().unwrap().remove(0).new
}

fn community() -> Value {
    json!({"profile": "community"})
}

#[test]
fn fbc030_a_channel_is_made_the_default() {
    let text = demo(CHAIN).replace("defaultChannel: stable\n", "");
    let f = fix(
        &text,
        "FBC030",
        "Make stable the default channel",
        Value::Null,
    );
    let want = engine(
        &text,
        Edit::SetDefaultChannel {
            package: "demo".into(),
            channel: "stable".into(),
        },
    );
    assert_eq!(f.text, want);
}

#[test]
fn fbc031_another_channel_is_made_the_default() {
    let text = demo(CHAIN).replace("defaultChannel: stable", "defaultChannel: nowhere");
    let f = fix(
        &text,
        "FBC031",
        "Make stable the default channel",
        Value::Null,
    );
    assert_eq!(f.text, demo(CHAIN));
}

#[test]
fn fbc043_an_empty_channel_is_deleted() {
    let text = format!("{}{}", demo(CHAIN), channel("empty", "  []\n"))
        .replace("entries:\n  []", "entries: []");
    let f = fix(&text, "FBC043", "Delete channel empty", Value::Null);
    assert_eq!(f.text, demo(CHAIN));
}

#[test]
fn fbc028_a_bundle_in_no_channel_is_promoted_or_removed() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n";
    let text = demo(entries);
    let f = fix(
        &text,
        "FBC028",
        "Promote demo.v1.2.0 to the head of stable",
        Value::Null,
    );
    let want = engine(
        &text,
        Edit::Promote {
            package: "demo".into(),
            bundle: "demo.v1.2.0".into(),
            channel: "stable".into(),
            replaces: None,
            skips: Vec::new(),
            skip_range: None,
        },
    );
    assert_eq!(f.text, want);
    let f = fix(&text, "FBC028", "Remove bundle demo.v1.2.0", Value::Null);
    assert_eq!(f.text, text.replace(&bundle("1.2.0"), ""));
}

#[test]
fn fbc029_an_entry_without_its_bundle_is_removed() {
    let entries = format!("{CHAIN}  - name: demo.v1.3.0\n    replaces: demo.v1.2.0\n");
    let text = demo(&entries);
    let f = fix(
        &text,
        "FBC029",
        "Remove demo.v1.3.0 from stable",
        Value::Null,
    );
    assert_eq!(f.text, demo(CHAIN));
}

#[test]
fn fbc103_a_link_to_no_bundle_is_corrected_or_dropped() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n  - name: demo.v1.2.0\n    replaces: demo.v1.1.0\n    skips:\n      - demo-operator.v1.0.0\n";
    let text = demo(entries);
    let f = fix(
        &text,
        "FBC103",
        "Change demo-operator.v1.0.0 to demo.v1.0.0",
        Value::Null,
    );
    assert_eq!(
        f.text,
        text.replace("- demo-operator.v1.0.0", "- demo.v1.0.0")
    );
    let f = fix(
        &text,
        "FBC103",
        "Drop demo-operator.v1.0.0 from demo.v1.2.0's skips",
        Value::Null,
    );
    let want = engine(
        &text,
        Edit::RemoveSkips {
            package: "demo".into(),
            channel: "stable".into(),
            entry: "demo.v1.2.0".into(),
            skips: vec!["demo-operator.v1.0.0".into()],
        },
    );
    assert_eq!(f.text, want);
}

#[test]
fn fbc045_the_newest_head_skips_the_others() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n  - name: demo.v1.2.0\n    replaces: demo.v1.1.0\n";
    let text = demo(entries);
    let f = fix(
        &text,
        "FBC045",
        "Make demo.v1.2.0 skip demo.v1.0.0",
        Value::Null,
    );
    let want = engine(
        &text,
        Edit::AddSkips {
            package: "demo".into(),
            channel: "stable".into(),
            entry: "demo.v1.2.0".into(),
            skips: vec!["demo.v1.0.0".into()],
        },
    );
    assert_eq!(f.text, want);
}

#[test]
fn fbc047_the_head_skips_the_stranded_entry() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n  - name: demo.v1.2.0\n    skips:\n      - demo.v1.1.0\n";
    let text = demo(entries);
    fix(
        &text,
        "FBC047",
        "Make demo.v1.2.0 skip demo.v1.0.0",
        Value::Null,
    );
}

#[test]
fn fbc102_the_covering_entry_skips_or_replaces() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n  - name: demo.v1.2.0\n    replaces: demo.v1.0.0\n    skipRange: '>=1.1.0 <1.2.0'\n";
    let text = demo(entries);
    fix(
        &text,
        "FBC102",
        "Make demo.v1.2.0 skip demo.v1.1.0",
        Value::Null,
    );
    let f = fix(
        &text,
        "FBC102",
        "Make demo.v1.2.0 replace demo.v1.1.0",
        Value::Null,
    );
    let want = engine(
        &text,
        Edit::SetReplaces {
            package: "demo".into(),
            channel: "stable".into(),
            entry: "demo.v1.2.0".into(),
            replaces: Some("demo.v1.1.0".into()),
        },
    );
    assert_eq!(f.text, want);
}

#[test]
fn fbc051_a_skip_range_that_does_not_parse_is_mended() {
    let entries = format!("{CHAIN}    skipRange: '>=v1.0.0 <v1.2.0'\n");
    let text = demo(&entries);
    let f = fix(
        &text,
        "FBC051",
        "Set the skipRange of demo.v1.2.0 to >=1.0.0 <1.2.0",
        Value::Null,
    );
    assert_eq!(f.text, text.replace(">=v1.0.0 <v1.2.0", ">=1.0.0 <1.2.0"));
}

#[test]
fn fbc101_a_skip_range_above_its_entry_ends_below_it() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n    skipRange: '>=1.0.0 <2.0.0'\n  - name: demo.v1.2.0\n    replaces: demo.v1.1.0\n";
    let text = demo(entries);
    let f = fix(
        &text,
        "FBC101",
        "Set the skipRange of demo.v1.1.0 to >=1.0.0 <1.1.0",
        Value::Null,
    );
    assert_eq!(f.text, text.replace("<2.0.0", "<1.1.0"));
}

#[test]
fn fbc018_a_repeated_entry_is_removed() {
    let entries = format!("{CHAIN}  - name: demo.v1.0.0\n");
    let f = fix(
        &demo(&entries),
        "FBC018",
        "Remove the repeated entry demo.v1.0.0",
        Value::Null,
    );
    assert_eq!(f.text, demo(CHAIN));
}

#[test]
fn fbc018_in_json_the_repeat_and_its_comma_go() {
    let text = "{\"schema\": \"olm.package\", \"name\": \"demo\", \"defaultChannel\": \"stable\"}\n{\"schema\": \"olm.channel\", \"package\": \"demo\", \"name\": \"stable\", \"entries\": [{\"name\": \"demo.v1.0.0\"}, {\"name\": \"demo.v1.0.0\"}]}\n";
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("catalogs/v4.18/demo");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("catalog.json");
    std::fs::write(&file, text).unwrap();
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, text);
    let diags = c.diagnostics(&doc);
    let d = diags
        .iter()
        .find(|d| d["code"] == "FBC018")
        .unwrap()
        .clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc.as_str()}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let a = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Remove the repeated entry demo.v1.0.0")
        .expect("offered");
    assert_eq!(
        apply(text, &a["edit"], &doc),
        text.replace(", {\"name\": \"demo.v1.0.0\"}]", "]")
    );
    c.shutdown();
}

#[test]
fn fbc018_a_repeat_that_says_more_is_left_to_merge() {
    let entries = format!("{CHAIN}  - name: demo.v1.0.0\n    skipRange: '<1.0.0'\n");
    let text = demo(&entries);
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
        .find(|d| d["code"] == "FBC018")
        .unwrap()
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

#[test]
fn fbc050_an_empty_skip_is_removed() {
    let entries = format!("{CHAIN}    skips:\n      - demo.v1.0.0\n      - \"\"\n");
    let text = demo(&entries);
    let f = fix(
        &text,
        "FBC050",
        "Remove the empty skip of demo.v1.2.0",
        Value::Null,
    );
    assert_eq!(f.text, text.replace("      - \"\"\n", ""));
}

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

#[test]
fn fbc303_the_head_skips_a_dangling_bundle() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n  - name: demo.v1.2.0\n    replaces: demo.v1.1.0\n    skips:\n      - demo.v1.1.0\n";
    let text = demo(entries);
    fix(
        &text,
        "FBC303",
        "Make demo.v1.2.0 skip demo.v1.0.0",
        community(),
    );
}

#[test]
fn fbc305_fbc306_replaces_names_the_previous_entry() {
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n  - name: demo.v1.2.0\n    skipRange: '>=1.1.0 <1.2.0'\n    skips:\n      - demo.v1.1.0\n";
    let text = demo(entries);
    let f = fix(
        &text,
        "FBC305",
        "Make demo.v1.2.0 replace demo.v1.1.0",
        community(),
    );
    let want = engine(
        &text,
        Edit::SetReplaces {
            package: "demo".into(),
            channel: "stable".into(),
            entry: "demo.v1.2.0".into(),
            replaces: Some("demo.v1.1.0".into()),
        },
    );
    assert_eq!(f.text, want);
    let entries = "  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n  - name: demo.v1.1.5\n    replaces: demo.v1.1.0\n  - name: demo.v1.2.0\n    replaces: demo.v1.1.5\n";
    fix(
        &demo(entries),
        "FBC306",
        "Make demo.v1.2.0 replace demo.v1.1.0",
        community(),
    );
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
