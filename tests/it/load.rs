//! Loading: opm's walk and decoding rules, locations on every problem, and bad input that never panics.

use std::path::Path;

use fbc_core::catalog::model::{Bundle, Channel, Deprecations, Package, PropertyValue};
use fbc_core::catalog::{Catalog, Kind, Severity, load};

fn write(dir: &Path, rel: &str, content: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

fn load_files(files: &[(&str, &str)]) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        write(tmp.path(), rel, content.as_bytes());
    }
    let c = load(tmp.path()).unwrap();
    (tmp, c)
}

fn problems(c: &Catalog) -> Vec<String> {
    c.diagnostics.iter().map(|d| d.to_string()).collect()
}

const PKG: &str = "---\nschema: olm.package\nname: demo\ndefaultChannel: stable\n";

#[test]
fn indexignore_follows_opm_semantics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/indexignore");
    let c = load(&dir).unwrap();
    let files: Vec<&str> = c.files.iter().map(|f| f.path.as_str()).collect();
    // `*` then `!*.json` / `!*.yaml`, then `*.clusterserviceversion.yaml`: README.md and the CSV are
    // ignored; sub/.indexignore's `objects/` ignores the broken file below it.
    assert_eq!(files, vec!["etcd.yaml", "sub/note.json"]);
    assert!(c.diagnostics.is_empty(), "{:?}", problems(&c));
    let etcd = c.index().package("etcd").unwrap();
    assert_eq!(etcd.packages.len(), 1);
    assert_eq!(etcd.channels.len(), 1);
    assert_eq!(etcd.bundles.len(), 1);
    assert_eq!(etcd.others.len(), 1, "unknown schemas are kept");
}

#[test]
fn hidden_files_and_any_extension_are_read() {
    let (_t, c) = load_files(&[
        ("demo/.hidden", PKG),
        ("README.md", "# Title\n\nSome text.\n"),
    ]);
    assert!(c.index().package("demo").is_some());
    let p = problems(&c);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("README.md:3:1: error[FBC004]: expected an object, found string"),
        "{p:?}"
    );
}

#[test]
fn json_streams_and_yaml_documents_get_positions() {
    let (_t, c) = load_files(&[
        (
            "a/catalog.json",
            "{\"schema\":\"olm.package\",\"name\":\"a\"}{\"schema\":\"olm.channel\",\"package\":\"a\",\"name\":\"s\"}\n\n{\n  \"schema\": \"olm.bundle\",\n  \"package\": \"a\",\n  \"name\": \"a.v1\"\n}\n",
        ),
        (
            "b/catalog.yaml",
            "# comment inside the first document\nschema: olm.package\nname: b\n---\nschema: olm.channel\npackage: b\nname: s\n--- # trailing comment\n\nschema: olm.bundle\npackage: b\nname: b.v1\n",
        ),
    ]);
    assert!(c.diagnostics.is_empty(), "{:?}", problems(&c));
    let lines: Vec<(String, u32)> = c
        .blobs
        .iter()
        .enumerate()
        .map(|(i, b)| (c.file_of(i).path.clone(), b.line()))
        .collect();
    assert_eq!(
        lines,
        vec![
            ("a/catalog.json".into(), 1),
            ("a/catalog.json".into(), 1),
            ("a/catalog.json".into(), 3),
            ("b/catalog.yaml".into(), 2),
            ("b/catalog.yaml".into(), 5),
            ("b/catalog.yaml".into(), 10),
        ]
    );
    assert_eq!(c.location(5).to_string(), "b/catalog.yaml:10:1");
}

#[test]
fn meta_keys_are_case_insensitive_and_duplicates_rejected() {
    let (_t, c) = load_files(&[
        ("a.yaml", "Schema: olm.package\nNAME: demo\n"),
        (
            "b.yaml",
            "schema: olm.channel\nSchema: olm.channel\npackage: demo\nname: x\n",
        ),
        ("c.yaml", "schema: olm.bundle\nname: true\n"),
        ("d.json", "{\"package\":\"demo\"}"),
    ]);
    assert_eq!(c.blobs.len(), 1);
    assert_eq!(c.blobs[0].name(), "demo");
    assert_eq!(c.blobs[0].schema(), "olm.package");
    let p = problems(&c);
    assert_eq!(
        p,
        vec![
            "b.yaml:2:1: error[FBC005]: duplicate keys for key \"schema\": [Schema schema]",
            "c.yaml:2:7: error[FBC005]: expected value for key \"name\" to be a string, got bool",
            "d.json:1:1: error[FBC004]: object is missing root schema field",
        ]
    );
}

#[test]
fn opm_document_rules_are_kept() {
    let (_t, c) = load_files(&[
        // A comment-only chunk before the first separator: opm fails on it.
        ("a.yaml", "# header\n---\nschema: olm.package\nname: a\n"),
        // `--- !tag` is not a separator opm accepts.
        (
            "b.yaml",
            "schema: olm.package\nname: b\n--- !tag\nschema: x\n",
        ),
        // JSON with a trailing comma is read as YAML, like opm does.
        ("c.json", "{\"schema\":\"olm.package\",\"name\":\"c\",}\n"),
        // Empty file: no blobs, fine.
        ("d.yaml", ""),
        // Text after `...` is dropped.
        (
            "e.yaml",
            "schema: olm.package\nname: e\n...\nschema: olm.package\nname: e2\n",
        ),
    ]);
    let names: Vec<&str> = c.blobs.iter().map(|b| b.name()).collect();
    // The document after the rejected separator still loads (its schema is `x`, it has no name).
    assert_eq!(names, vec!["a", "b", "", "c", "e"]);
    let p = problems(&c);
    assert!(
        p.iter()
            .any(|d| d.starts_with("a.yaml:1:1: error[FBC004]: document holds only comments")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|d| d
                .starts_with("b.yaml:3:1: error[FBC003]: invalid Yaml document separator: !tag")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|d| d.starts_with("c.json:1:36: warning[FBC007]")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|d| d.starts_with("d.yaml: info[FBC006]: empty file")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|d| d.starts_with("e.yaml:4:1: warning[FBC007]")),
        "{p:?}"
    );
}

#[test]
fn broken_files_name_file_line_and_column_and_the_rest_loads() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "good/catalog.yaml", PKG.as_bytes());
    write(
        tmp.path(),
        "bad-json.json",
        b"{\n  \"schema\": \"olm.package\",\n  \"name\": \"x\"\n  \"defaultChannel\": \"y\"\n}\n",
    );
    write(
        tmp.path(),
        "bad-yaml.yaml",
        b"schema: olm.package\nname: [unclosed\n---\nschema: olm.package\nname: after-the-error\n",
    );
    write(
        tmp.path(),
        "binary.bin",
        &[0x7f, b'E', b'L', b'F', 0, 0xff, 0xfe, 1, 2],
    );
    write(
        tmp.path(),
        "latin1.yaml",
        b"schema: olm.package\nname: caf\xe9\n",
    );
    write(tmp.path(), "array.json", b"[1, 2]\n");
    write(tmp.path(), "blank.yaml", b" \n");
    let c = load(tmp.path()).unwrap();
    let p = problems(&c);
    let expect = [
        "array.json:1:1: error[FBC004]: expected an object, found array",
        "bad-json.json:4:3: error[FBC003]: invalid JSON: invalid character '\"' after object key:value pair",
        "bad-yaml.yaml:3:1: error[FBC003]: invalid YAML:",
        "binary.bin:1:6: error[FBC002]: a binary file",
        "blank.yaml:1:1: error[FBC004]: document holds blank lines",
        "latin1.yaml:2:10: error[FBC002]: not UTF-8 text",
    ];
    for e in expect {
        assert!(
            p.iter().any(|d| d.starts_with(e)),
            "missing {e:?} in {p:#?}"
        );
    }
    // The rest still loads, including the document after the YAML error.
    assert!(c.index().package("demo").is_some());
    assert!(c.index().package("after-the-error").is_some());
    // Files with errors are never rewritten.
    assert!(
        !c.files
            .iter()
            .find(|f| f.path == "bad-json.json")
            .unwrap()
            .clean
    );
    // Diagnostics are sorted by file then line.
    let keys: Vec<_> = c.diagnostics.iter().map(|d| d.sort_key()).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn yaml_error_lines_count_from_the_start_of_the_file() {
    let (_t, c) = load_files(&[(
        "x.yaml",
        "schema: olm.package\nname: a\n---\nschema: olm.package\nname: b\n  bad: indent\n",
    )]);
    let d = &c.diagnostics[0];
    assert_eq!(d.location.file, "x.yaml");
    assert_eq!(d.location.line, 6, "{d}");
}

#[test]
fn empty_directory_and_missing_root() {
    let tmp = tempfile::tempdir().unwrap();
    let c = load(tmp.path()).unwrap();
    assert!(c.blobs.is_empty());
    assert_eq!(c.diagnostics.len(), 1);
    assert_eq!(c.diagnostics[0].severity, Severity::Warning);
    assert!(c.diagnostics[0].message.contains("no catalog files"));
    assert!(load(&tmp.path().join("nope")).is_err());
    let file = tmp.path().join("f");
    std::fs::write(&file, "x").unwrap();
    assert!(
        load(&file)
            .unwrap_err()
            .to_string()
            .contains("not a directory")
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed_out_of_the_root() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.yaml", PKG.as_bytes());
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "real/catalog.yaml", PKG.as_bytes());
    std::os::unix::fs::symlink(
        outside.path().join("secret.yaml"),
        tmp.path().join("out.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(tmp.path().join("real"), tmp.path().join("dirlink")).unwrap();
    std::os::unix::fs::symlink(
        tmp.path().join("real/catalog.yaml"),
        tmp.path().join("inlink.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(tmp.path().join("gone"), tmp.path().join("broken.yaml")).unwrap();
    let c = load(tmp.path()).unwrap();
    let files: Vec<&str> = c.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, vec!["inlink.yaml", "real/catalog.yaml"]);
    let p = problems(&c);
    assert!(
        p.iter().any(|d| d.starts_with("out.yaml: warning[FBC008]")),
        "{p:?}"
    );
    assert!(
        p.iter().any(|d| d.starts_with("dirlink: error[FBC008]")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|d| d.starts_with("broken.yaml: error[FBC008]")),
        "{p:?}"
    );
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "locked.yaml", PKG.as_bytes());
    let path = tmp.path().join("locked.yaml");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&path).is_ok() {
        return; // running as root: permissions do not stop reads
    }
    let c = load(tmp.path()).unwrap();
    assert!(problems(&c)[0].starts_with("locked.yaml: error[FBC001]: cannot read file"));
}

#[test]
fn typed_views_read_real_catalog_objects() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/real/operator-framework__operator-registry__index-declcfgs-latest");
    let c = load(&dir).unwrap();
    assert!(c.diagnostics.is_empty(), "{:?}", problems(&c));
    let names: Vec<&str> = c
        .index()
        .package_names()
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(names, vec!["bar", "baz", "foo"]);
    let foo = c.index().package("foo").unwrap();
    let pkg = Package::read(&c.blob(foo.packages[0]).value).unwrap();
    assert_eq!(pkg.default_channel, "beta");
    let beta = Channel::read(&c.blob(foo.channel("beta").unwrap()).value).unwrap();
    assert_eq!(fbc_core::graph::heads(&beta.entries), vec!["foo.v0.3.1"]);
    let e = beta.entry("foo.v0.2.0").unwrap();
    assert_eq!(e.replaces, Some("foo.v0.1.0"));
    assert_eq!(e.skips, vec!["foo.v0.1.1", "foo.v0.1.2"]);
    assert_eq!(e.skip_range, Some("<0.2.0"));
    let b = Bundle::read(&c.blob(foo.bundle("foo.v0.2.0").unwrap()).value).unwrap();
    assert_eq!(b.version(), Some("0.2.0"));
    assert!(b.image.starts_with("test.registry/foo-operator/foo-bundle"));
    assert!(!b.related_images.is_empty());
    let kinds: Vec<&str> = b
        .properties
        .iter()
        .map(|p| match p.parse().unwrap() {
            PropertyValue::Package(_) => "package",
            PropertyValue::PackageRequired(_) => "package.required",
            PropertyValue::Gvk(_) => "gvk",
            PropertyValue::GvkRequired(_) => "gvk.required",
            PropertyValue::BundleObject(_) => "bundle.object",
            PropertyValue::CsvMetadata(_) => "csv.metadata",
            _ => "other",
        })
        .collect();
    assert!(
        kinds.contains(&"gvk.required") && kinds.contains(&"package.required"),
        "{kinds:?}"
    );
    // Which channels list a bundle.
    let bar = c.index().package("bar").unwrap();
    let listing: Vec<&str> = bar
        .channels_listing("bar.v1.0.0")
        .iter()
        .map(|&b| c.blob(b).name())
        .collect();
    assert_eq!(listing, vec!["alpha", "stable"]);
    assert!(bar.channels_listing("bar.v9").is_empty());
}

#[test]
fn deprecations_view() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "testdata/real/grokspawn__deprecated-catalog-content__redhat-operator-index-4.15/example-mypackage",
    );
    // Its own .indexignore hides the file, so a loaded copy of that folder has no deprecations.
    assert!(load(&src).unwrap().blobs.is_empty());
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        src.join("deprecations.yaml"),
        tmp.path().join("deprecations.yaml"),
    )
    .unwrap();
    let c = load(tmp.path()).unwrap();
    let d = &c.index().package("mypackage").unwrap().deprecations;
    assert_eq!(d.len(), 1);
    let view = Deprecations::read(&c.blob(d[0]).value).unwrap();
    let schemas: Vec<&str> = view.entries.iter().map(|e| e.schema).collect();
    assert_eq!(schemas, vec!["olm.bundle", "olm.package", "olm.channel"]);
    assert!(view.entries.iter().all(|e| !e.message.is_empty()));
}

#[test]
fn wrong_field_types_point_at_the_value() {
    let (_t, c) = load_files(&[(
        "c.yaml",
        "schema: olm.channel\npackage: p\nname: s\nentries:\n- name: a\n  skips: b\n",
    )]);
    let err = Channel::read(&c.blobs[0].value).unwrap_err();
    assert_eq!(err.field, "entries[0].skips");
    assert_eq!((err.line, err.col), (6, 10));
    assert!(matches!(
        c.blobs[0].value.get("entries").unwrap().kind,
        Kind::Seq(_)
    ));
}

#[test]
fn loading_is_deterministic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/real/stolostron__gatekeeper-operator-fbc__catalog-4-17");
    let a = load(&dir).unwrap();
    for _ in 0..3 {
        let b = load(&dir).unwrap();
        let names = |c: &Catalog| -> Vec<(String, String)> {
            c.blobs
                .iter()
                .map(|b| (b.schema().to_string(), b.name().to_string()))
                .collect()
        };
        assert_eq!(names(&a), names(&b));
        assert_eq!(problems(&a), problems(&b));
    }
}

#[test]
fn bundle_objects_are_decoded_on_demand() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/real/openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog");
    let c = load(&dir).unwrap();
    let pkg = c
        .index()
        .package("cluster-kube-descheduler-operator")
        .unwrap();
    let b = Bundle::read(&c.blob(pkg.bundles[0]).value).unwrap();
    let kinds: Vec<String> = b
        .properties
        .iter()
        .filter_map(|p| match p.parse().unwrap() {
            PropertyValue::BundleObject(Some(data)) => Some(
                c.bundle_object(data).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            ),
            _ => None,
        })
        .collect();
    assert!(
        kinds.contains(&"ClusterServiceVersion".to_string()),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&"CustomResourceDefinition".to_string()),
        "{kinds:?}"
    );
}

#[test]
fn kubernetes_manifests_get_a_hint() {
    let (_t, c) = load_files(&[(
        "csv.yaml",
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: x\n",
    )]);
    assert_eq!(
        problems(&c),
        vec![
            "csv.yaml:1:1: error[FBC004]: object is missing root schema field (this is a Kubernetes ClusterServiceVersion manifest, not a catalog object; list it in an .indexignore to skip it)"
        ]
    );
}

#[test]
fn a_temporary_file_left_by_an_interrupted_save_is_reported_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "catalog.yaml", PKG.as_bytes());
    // What a save killed between writing and renaming leaves beside the file.
    write(tmp.path(), ".fbc-edit-Ab12Cd", PKG.as_bytes());
    let c = load(tmp.path()).unwrap();
    assert_eq!(
        c.files.len(),
        1,
        "the leftover is not read as catalog content"
    );
    let p = problems(&c);
    assert!(
        p.iter()
            .any(|d| d.starts_with(".fbc-edit-Ab12Cd: error[FBC001]: leftover temporary file")),
        "{p:?}"
    );
}

/// A JSON catalog written one object per line (a 10 MB channel on one line) loads at once, with the
/// column of every value counted from its line's start. Counting each column from the line's start
/// anew took minutes on such a line.
#[test]
fn a_catalog_on_one_long_line_loads_with_exact_columns() {
    let entries: Vec<String> = (0..200_000)
        .map(|i| match i {
            0 => "{\"name\":\"p.v0.0.0\"}".to_string(),
            _ => format!(
                "{{\"name\":\"p.v0.0.{i}\",\"replaces\":\"p.v0.0.{}\"}}",
                i - 1
            ),
        })
        .collect();
    // "é" before the entries: columns count characters, not bytes.
    let channel = format!(
        "{{\"schema\":\"olm.channel\",\"package\":\"p\",\"name\":\"é\",\"entries\":[{}]}}",
        entries.join(",")
    );
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "p/catalog.json", channel.as_bytes());
    let root = tmp.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(load(&root).unwrap());
    });
    let c = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the load finished");
    let (id, blob) = c.live_blobs().next().unwrap();
    let list = blob.value.get("entries").unwrap().as_seq().unwrap();
    let third = list[2].get("name").unwrap();
    let prefix = "{\"schema\":\"olm.channel\",\"package\":\"p\",\"name\":\"é\",\"entries\":[";
    let col = prefix.chars().count()
        + entries[0].len()
        + 1
        + entries[1].len()
        + 1
        + "{\"name\":".len()
        + 1;
    assert_eq!(c.node_location(id, third).line, 1);
    assert_eq!(c.node_location(id, third).column as usize, col);
    let last = list[199_999].get("replaces").unwrap();
    let before_last = channel.rfind("\"p.v0.0.199998\"").unwrap();
    assert_eq!(
        c.node_location(id, last).column as usize,
        channel[..before_last].chars().count() + 1
    );
}
