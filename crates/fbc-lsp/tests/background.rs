//! The server's background work, driven over an in-memory connection: an operator's catalogs
//! compared with their rendering when its `ci.yaml` is opened and when a file is saved, and
//! workspace symbols from every catalog and template under the workspace folder.

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Client, copy, demo, uri};

const SLICE: &str = "redhat-openshift-ecosystem__community-operators-prod__repo-check-slice";

/// The repository slice of testdata/real copied to change: (temp dir, repository root).
fn slice() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/real")
        .join(SLICE);
    assert!(src.is_dir(), "{} is missing", src.display());
    copy(&src, &root);
    (tmp, root)
}

fn codes_at(diags: &[Value], code: &str) -> Vec<u64> {
    diags
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect()
}

fn save(c: &Client, path: &Path) {
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(path).as_str()}}),
    );
}

/// Opening an operator's `ci.yaml` compares its committed catalogs with their templates rendered
/// again, on the worker, and puts what `repo check` reports on the catalogs' lines.
#[test]
fn opening_ci_yaml_reports_catalogs_that_differ_from_their_rendering() {
    let (_tmp, repo) = slice();
    let ci = repo.join("operators/ecr-secret-operator/ci.yaml");
    let catalog = repo.join("catalogs/v4.16/ecr-secret-operator/catalog.yaml");
    let mut c = Client::start(&repo, Value::Null);
    c.open(&ci, &std::fs::read_to_string(&ci).unwrap());
    let own = c.diagnostics(&uri(&ci));
    assert!(codes_at(&own, "FBC411").is_empty(), "{own:?}");
    let diags = c.diagnostics(&uri(&catalog));
    assert_eq!(codes_at(&diags, "FBC411"), [9], "{diags:?}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("differs from the rendering"),
        "{diags:?}"
    );
    // Closing ci.yaml takes the comparison's problems back.
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&ci).as_str()}}),
    );
    let cleared = c.diagnostics(&uri(&catalog));
    assert!(codes_at(&cleared, "FBC411").is_empty(), "{cleared:?}");
    c.shutdown();
}

/// A catalog changed by hand is reported at the line changed; saving it back as rendered
/// re-renders its operator and clears the problem.
#[test]
fn saving_a_file_of_the_operator_compares_again() {
    let (_tmp, repo) = slice();
    let ci = repo.join("operators/trident-operator/ci.yaml");
    let catalog = repo.join("catalogs/v4.21/trident-operator/catalog.yaml");
    let rendered = std::fs::read_to_string(&catalog).unwrap();
    let edited = rendered.replacen(
        "defaultChannel: stable\n",
        "defaultChannel: stable\n# edited by hand\n",
        1,
    );
    assert_ne!(edited, rendered);
    std::fs::write(&catalog, &edited).unwrap();
    let mut c = Client::start(&repo, Value::Null);
    c.open(&ci, &std::fs::read_to_string(&ci).unwrap());
    c.diagnostics(&uri(&ci));
    let diags = c.diagnostics(&uri(&catalog));
    assert_eq!(codes_at(&diags, "FBC411"), [2], "{diags:?}");
    std::fs::write(&catalog, &rendered).unwrap();
    save(&c, &catalog);
    let diags = c.diagnostics(&uri(&catalog));
    assert!(codes_at(&diags, "FBC411").is_empty(), "{diags:?}");
    c.shutdown();
}

/// Asks `workspace/symbol` until the answer satisfies `ok` (the index is read on the worker).
fn symbols_until(c: &mut Client, query: &str, ok: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let started = Instant::now();
    loop {
        let found = c.request("workspace/symbol", json!({"query": query}));
        let list = found.as_array().cloned().unwrap_or_default();
        if ok(&list) {
            return list;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{query}: {found}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn named<'v>(list: &'v [Value], name: &str) -> Option<&'v Value> {
    list.iter().find(|s| s["name"] == name)
}

/// With no document open, workspace symbols find bundles by name or version in every catalog
/// under the folder and the images of its templates; a file changed on disk is read again.
#[test]
fn workspace_symbols_cover_files_that_are_not_open() {
    let (tmp, root) = demo();
    let templates = tmp.path().join("operators/demo/catalog-templates");
    std::fs::create_dir_all(&templates).unwrap();
    let template = templates.join("v4.18.yaml");
    std::fs::write(
        &template,
        "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: demo\n  - schema: olm.channel\n    package: demo\n    name: stable\n    entries:\n      - name: demo.v9.9.9\n  - schema: olm.bundle\n    image: quay.io/example/demo-bundle:v9.9.9\n",
    )
    .unwrap();
    let mut c = Client::start(tmp.path(), Value::Null);
    let first = c.request("workspace/symbol", json!({"query": "cache-operator.v1.3"}));
    let list = first.as_array().cloned().unwrap_or_default();
    let b = named(&list, "cache-operator.v1.3.0").unwrap_or_else(|| panic!("{first}"));
    assert_eq!(b["containerName"], "cache-operator");
    assert_eq!(
        b["location"]["uri"],
        uri(&root.join("cache-operator/catalog.yaml")).as_str()
    );
    let line = b["location"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(root.join("cache-operator/catalog.yaml")).unwrap();
    assert!(
        text.lines()
            .nth(line)
            .unwrap()
            .contains("cache-operator.v1.3.0"),
        "{b}"
    );
    // A template's bundle image and channel entry.
    let by_version = c.request("workspace/symbol", json!({"query": "9.9.9"}));
    let list = by_version.as_array().cloned().unwrap_or_default();
    let image = named(&list, "quay.io/example/demo-bundle:v9.9.9")
        .unwrap_or_else(|| panic!("{by_version}"));
    assert_eq!(image["location"]["uri"], uri(&template).as_str());
    assert_eq!(image["location"]["range"]["start"]["line"], 10);
    assert!(named(&list, "demo.v9.9.9").is_some(), "{by_version}");
    // A catalog written later is found once the client says it changed; one removed is gone.
    let new = root.join("new-operator/catalog.yaml");
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    std::fs::write(
        &new,
        "---\nschema: olm.package\nname: new-operator\n---\nschema: olm.bundle\nname: new-operator.v0.0.1\npackage: new-operator\nimage: quay.io/example/new:v0.0.1\nproperties:\n  - type: olm.package\n    value:\n      packageName: new-operator\n      version: 0.0.1\n",
    )
    .unwrap();
    let changed =
        |path: &Path, kind: u32| json!({"changes": [{"uri": uri(path).as_str(), "type": kind}]});
    c.notify("workspace/didChangeWatchedFiles", changed(&new, 1));
    let found = symbols_until(&mut c, "new-operator.v0", |l| {
        named(l, "new-operator.v0.0.1").is_some()
    });
    assert_eq!(
        named(&found, "new-operator.v0.0.1").unwrap()["containerName"],
        "new-operator"
    );
    std::fs::remove_file(&template).unwrap();
    c.notify("workspace/didChangeWatchedFiles", changed(&template, 3));
    symbols_until(&mut c, "demo-bundle", |l| l.is_empty());
    c.shutdown();
}
