//! One test per code with a quick fix: the problem typed into a catalog, the fix asked for with
//! the published diagnostic, its edit applied to the buffer, the buffer checked again: the
//! problem is gone. A fix made by an engine edit writes what that edit writes (`fbc-edit edit`).

#[path = "../support.rs"]
mod support;

mod links;
mod objects;

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
