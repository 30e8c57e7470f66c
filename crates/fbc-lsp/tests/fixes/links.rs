//! Fixes of channels, their entries and links, and the profiles' upgrade rules.

use super::*;

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
