//! The server driven over an in-memory connection, as an editor drives it.

mod support;

use std::path::Path;

use fbc_core::edit::Edit;
use fbc_core::workspace::Workspace;
use serde_json::{Value, json};
use support::{Client, apply, at, demo, uri};

fn errors(diags: &[Value]) -> Vec<&Value> {
    diags.iter().filter(|d| d["severity"] == 1).collect()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// Problems follow the buffer, not the disk: a default channel typed wrong is an error at its
/// line with its code and hint, the file on disk untouched; typing it back clears it.
#[test]
fn diagnostics_follow_the_unsaved_buffer() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let disk = read(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &disk);
    let first = c.diagnostics(&uri(&file));
    assert!(errors(&first).is_empty(), "{first:?}");
    let mut text = disk.clone();
    c.type_over(
        &file,
        &mut text,
        2,
        "defaultChannel: stable",
        "defaultChannel: nowhere",
    );
    let diags = c.diagnostics(&uri(&file));
    let e = errors(&diags);
    assert_eq!(e.len(), 1, "{diags:?}");
    let line = disk[..disk.find("defaultChannel").unwrap()]
        .matches('\n')
        .count();
    assert_eq!(e[0]["range"]["start"]["line"], line);
    assert_eq!(e[0]["source"], "fbc-edit");
    assert!(
        e[0]["code"].as_str().unwrap().starts_with("FBC"),
        "{:?}",
        e[0]
    );
    assert!(
        e[0]["message"].as_str().unwrap().contains("hint: "),
        "{:?}",
        e[0]
    );
    assert_eq!(read(&file), disk, "the disk is not written");
    c.type_over(
        &file,
        &mut text,
        3,
        "defaultChannel: nowhere",
        "defaultChannel: stable",
    );
    assert!(errors(&c.diagnostics(&uri(&file))).is_empty());
    c.shutdown();
}

/// A problem with another place that explains it names that place.
#[test]
fn related_places_are_related_information() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let mut text = read(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    c.diagnostics(&uri(&file));
    c.type_over(&file, &mut text, 2, "name: stable-1.0", "name: fast");
    let diags = c.diagnostics(&uri(&file));
    let related: Vec<&Value> = diags
        .iter()
        .filter_map(|d| d["relatedInformation"].as_array())
        .flatten()
        .collect();
    assert!(!related.is_empty(), "{diags:?}");
    assert_eq!(related[0]["location"]["uri"], uri(&file).as_str());
    c.shutdown();
}

#[test]
fn definition_references_and_symbols() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let text = read(&file);
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    c.diagnostics(&doc);
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": doc.as_str()}, "position": at(&text, "replaces: cache-operator.v1.0.0", 12)}),
    );
    let bundle_line = text[..text.find("name: cache-operator.v1.0.0\npackage").unwrap()]
        .matches('\n')
        .count();
    assert_eq!(def["uri"], doc.as_str());
    assert_eq!(def["range"]["start"]["line"], bundle_line, "{def}");
    // defaultChannel leads to the channel.
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": doc.as_str()}, "position": at(&text, "defaultChannel: stable", 17)}),
    );
    let channel_line = text[..text.find("name: stable\n").unwrap()]
        .matches('\n')
        .count();
    assert_eq!(def["range"]["start"]["line"], channel_line, "{def}");
    // Every entry, replaces and deprecation naming the bundle, in this file and the other.
    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": doc.as_str()}, "position": at(&text, "replaces: cache-operator.v1.0.0", 12), "context": {"includeDeclaration": false}}),
    );
    let refs = refs.as_array().unwrap();
    let deprecations = uri(&root.join("cache-operator/deprecations.yaml"));
    assert_eq!(
        refs.iter().filter(|r| r["uri"] == doc.as_str()).count(),
        4,
        "{refs:?}"
    );
    assert_eq!(
        refs.iter()
            .filter(|r| r["uri"] == deprecations.as_str())
            .count(),
        1,
        "{refs:?}"
    );
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": doc.as_str()}}),
    );
    let package = &symbols[0];
    assert_eq!(package["name"], "cache-operator");
    let children: Vec<&str> = package["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        &children[..4],
        ["stable", "fast", "candidate", "stable-1.0"]
    );
    assert!(children.contains(&"cache-operator.v1.0.0"));
    let stable = &package["children"][0]["children"];
    assert_eq!(stable.as_array().unwrap().len(), 5);
    let found = c.request("workspace/symbol", json!({"query": "1.3.0"}));
    let names: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cache-operator.v1.3.0"]);
    c.shutdown();
}

#[test]
fn hover_tells_versions_heads_ranges_and_images() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let text = read(&file);
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    c.diagnostics(&doc);
    let hover = |c: &mut Client, what: &str, into: usize| -> String {
        let h = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": doc.as_str()}, "position": at(&text, what, into)}),
        );
        h["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let b = hover(&mut c, "  - name: cache-operator.v1.2.0\n    replaces", 12);
    assert!(b.contains("version: `1.2.0`"), "{b}");
    assert!(b.contains("`stable`") && b.contains("`fast`"), "{b}");
    assert!(b.contains("replaces `cache-operator.v1.1.0`"), "{b}");
    assert!(b.contains("upgrades from it in `stable`"), "{b}");
    let ch = hover(&mut c, "defaultChannel: stable", 17);
    assert!(ch.contains("head: `cache-operator.v1.3.0`"), "{ch}");
    assert!(ch.contains("entries: 5"), "{ch}");
    let r = hover(&mut c, ">=1.0.0 <1.3.0", 2);
    assert!(r.contains("matches 4 other entries"), "{r}");
    assert!(r.contains("OLM v0 prunes"), "{r}");
    let i = hover(&mut c, "image: quay.io", 9);
    assert!(i.contains("pinned by digest"), "{i}");
    assert!(i.contains("no allowed-registry list"), "{i}");
    // The Konflux profile set from the editor: quay.io is not an allowed registry.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"fbcEdit": {"profile": "konflux"}}}),
    );
    let i = hover(&mut c, "image: quay.io", 9);
    assert!(i.contains("**not allowed**"), "{i}");
    c.shutdown();
}

#[test]
fn completion_offers_names_from_the_package() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let mut text = read(&file);
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    c.diagnostics(&doc);
    let labels = |c: &mut Client, text: &str, what: &str, into: usize| -> Vec<String> {
        let r = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": doc.as_str()}, "position": at(text, what, into)}),
        );
        r.as_array()
            .map(|a| {
                a.iter()
                    .map(|i| i["label"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let l = labels(&mut c, &text, "replaces: cache-operator.v1.0.0", 10);
    assert!(
        l.contains(&"cache-operator.v1.5.0-rc.1".to_string()),
        "{l:?}"
    );
    let l = labels(&mut c, &text, "defaultChannel: stable", 16);
    assert_eq!(l, ["stable", "fast", "candidate", "stable-1.0"]);
    let l = labels(&mut c, &text, "schema: olm.package", 8);
    assert!(l.contains(&"olm.deprecations".to_string()), "{l:?}");
    let l = labels(&mut c, &text, "type: olm.gvk", 6);
    assert!(l.contains(&"olm.csv.metadata".to_string()), "{l:?}");
    c.type_over(
        &file,
        &mut text,
        2,
        "    skipRange: \">=1.1.0 <1.3.0\"",
        "    skipRange: ",
    );
    c.diagnostics(&doc);
    let l = labels(&mut c, &text, "    skipRange: \n", 15);
    assert_eq!(
        l,
        [">=1.2.0 <1.3.0"],
        "the lowest version fast lists, up to 1.3.0"
    );
    c.shutdown();
}

/// A guided edit from the editor is the edit `fbc-edit edit` makes: the same new text, to the
/// byte; one the engine refuses comes disabled, with its reason.
#[test]
fn code_actions_make_the_commands_edits() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let text = read(&file);
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    c.diagnostics(&doc);
    let p = at(&text, "name: fast", 7);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc.as_str()}, "range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
    );
    let actions = actions.as_array().unwrap();
    let make = actions
        .iter()
        .find(|a| a["title"] == "Make fast the default channel")
        .expect("make default");
    let got = apply(&text, &make["edit"], &doc);
    let mut ws = Workspace::open_for(fbc_core::catalog::load(&root).unwrap(), "cache-operator");
    ws.apply(Edit::SetDefaultChannel {
        package: "cache-operator".into(),
        channel: "fast".into(),
    })
    .unwrap();
    let want = ws.pending().unwrap().remove(0).new;
    assert_eq!(got, want);
    // 1.0.0 is older than fast's head: refused, as the command refuses it.
    let p = at(&text, "name: cache-operator.v1.0.0\npackage", 7);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc.as_str()}, "range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
    );
    let promote = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Promote cache-operator.v1.0.0 to the head of fast")
        .expect("promote offered");
    let reason = promote["disabled"]["reason"].as_str().unwrap();
    let refused = Workspace::open(fbc_core::catalog::load(&root).unwrap())
        .apply(Edit::Promote {
            package: "cache-operator".into(),
            bundle: "cache-operator.v1.0.0".into(),
            channel: "fast".into(),
            replaces: None,
            skips: Vec::new(),
            skip_range: None,
        })
        .unwrap_err();
    assert_eq!(reason, refused.to_string());
    c.shutdown();
}

/// The quick fix of a default channel that names no channel makes another channel the default,
/// on the buffer's text (not the disk's).
#[test]
fn quick_fixes_work_on_the_buffer() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let mut text = read(&file);
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    c.diagnostics(&doc);
    c.type_over(
        &file,
        &mut text,
        2,
        "defaultChannel: stable",
        "defaultChannel: nowhere",
    );
    let diags = c.diagnostics(&doc);
    let e = errors(&diags)[0].clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": doc.as_str()}, "range": e["range"], "context": {"diagnostics": [e]}}),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Make candidate the default channel" && a["kind"] == "quickfix")
        .expect("a quick fix");
    let fixed = apply(&text, &fix["edit"], &doc);
    assert_eq!(
        fixed,
        text.replace("defaultChannel: nowhere", "defaultChannel: candidate")
    );
    c.shutdown();
}

/// ci.yaml is checked against the pipeline's rules as typed, and a catalog name that is not
/// `vX.Y` gets the fix its hint names.
#[test]
fn ci_yaml_is_checked_and_fixed() {
    let tmp = tempfile::tempdir().unwrap();
    let op = tmp.path().join("operators/demo");
    std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
    std::fs::create_dir_all(tmp.path().join("catalogs/v4.18/demo")).unwrap();
    let ci = op.join("ci.yaml");
    let text = "fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: basic.yaml\n      type: olm.template.basic\n      catalog_names: [\"4.18\"]\n";
    std::fs::write(&ci, "fbc:\n  enabled: false\n").unwrap();
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&ci, text);
    let diags = c.diagnostics(&uri(&ci));
    let name = diags
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("is not an OpenShift version")
        })
        .unwrap_or_else(|| panic!("{diags:?}"))
        .clone();
    assert_eq!(name["range"]["start"]["line"], 5);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&ci).as_str()}, "range": name["range"], "context": {"diagnostics": [name]}}),
    );
    let fix = &actions[0];
    assert_eq!(fix["title"], "Change 4.18 to v4.18");
    assert_eq!(
        apply(text, &fix["edit"], &uri(&ci)),
        text.replace("\"4.18\"", "\"v4.18\"")
    );
    c.shutdown();
}

/// A template's rendering is checked as typed, its problems placed on the template's own lines.
#[test]
fn template_problems_sit_on_template_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("basic.yaml");
    let text = "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: demo\n    defaultChannel: nowhere\n  - schema: olm.channel\n    package: demo\n    name: stable\n    entries: []\n";
    std::fs::write(&t, "").unwrap();
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&t, text);
    let diags = c.diagnostics(&uri(&t));
    let lines: Vec<u64> = errors(&diags)
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert!(
        lines.contains(&2),
        "the package's problem at its entry: {diags:?}"
    );
    assert!(
        lines.contains(&5),
        "the channel's problem at its entry: {diags:?}"
    );
    c.shutdown();
}

#[test]
fn bad_settings_are_told_and_requests_without_a_catalog_answer_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = Client::start(tmp.path(), json!({"profile": "strict"}));
    let r = c.request("workspace/symbol", json!({"query": "x"}));
    assert_eq!(r, json!([]));
    let log = c
        .notes
        .iter()
        .find(|n| n.method == "window/logMessage")
        .expect("a log message");
    assert!(
        log.params["message"]
            .as_str()
            .unwrap()
            .contains("unknown profile"),
        "{log:?}"
    );
    let r = c.request("textDocument/hover", json!({"textDocument": {"uri": "file:///nowhere.yaml"}, "position": {"line": 0, "character": 0}}));
    assert!(r.is_null());
    let r = c.request("no/such", json!({}));
    assert!(r["error"].as_str().unwrap().contains("unknown request"));
    c.shutdown();
}

/// Settings given at start stay when the client then sends empty settings, as Neovim does.
#[test]
fn empty_settings_keep_the_initialization_options() {
    let (tmp, root) = demo();
    let file = root.join("cache-operator/catalog.yaml");
    let text = read(&file);
    let doc = uri(&file);
    let mut c = Client::start(tmp.path(), json!({"fbcEdit": {"profile": "konflux"}}));
    c.notify("workspace/didChangeConfiguration", json!({"settings": {}}));
    c.open(&file, &text);
    let diags = c.diagnostics(&doc);
    assert!(
        diags
            .iter()
            .any(|d| d["code"].as_str().is_some_and(|c| c.starts_with("FBC3"))),
        "the profile's rules ran: {diags:?}"
    );
    let h = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": doc.as_str()}, "position": at(&text, "image: quay.io", 9)}),
    );
    assert!(
        h["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("**not allowed**"),
        "{h}"
    );
    c.shutdown();
}
