//! Adding a bundle directory to a catalog: rendered into the package's own files (a new package when
//! needed), promoted into a channel, validated, undoable, and written with the layout the package
//! already uses.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_edit::bundle::{self, RenderOptions};
use fbc_edit::catalog::{Catalog, Severity, load};
use fbc_edit::edit::Edit;
use fbc_edit::workspace::Workspace;

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn copy(rel: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&local(rel), tmp.path());
    tmp
}

fn errors(c: &Catalog) -> Vec<String> {
    fbc_edit::validate::validate(c)
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

fn foo_bundle() -> serde_json::Value {
    bundle::render_dir(
        &local("testdata/bundles/foo-v0.2.0"),
        &RenderOptions {
            image: Some("test.registry/foo-operator/foo-bundle:v0.2.0".into()),
            csv_metadata: false,
            ..Default::default()
        },
    )
    .unwrap()
}

fn add(bundle: serde_json::Value, channel: &str) -> Edit {
    Edit::AddBundle {
        bundle,
        channel: channel.into(),
        replaces: None,
        skips: vec![],
        skip_range: None,
    }
}

/// A package laid out one bundle per file gets a new file named like its newest bundle's, and the
/// bundle becomes the channel head replacing the old head.
#[test]
fn add_bundle_follows_one_file_per_bundle_layout_and_promotes() {
    let dir = copy("testdata/add-bundle");
    let mut ws = Workspace::open(load(dir.path()).unwrap());
    let outcome = ws.apply(add(foo_bundle(), "stable")).unwrap();
    assert!(outcome.introduced.is_empty(), "{:?}", outcome.introduced);
    assert_eq!(
        ws.dirty_files(),
        ["foo/package.yaml", "foo/bundles/foo-v0.2.0.yaml"]
    );
    let preview = ws.preview().unwrap();
    assert!(
        preview.contains("+  - name: foo.v0.2.0\n+    replaces: foo.v0.1.1\n"),
        "{preview}"
    );
    ws.save().unwrap();
    let text = std::fs::read_to_string(dir.path().join("foo/bundles/foo-v0.2.0.yaml")).unwrap();
    // YAML files get opm's sorted keys.
    assert!(text.starts_with("image: test.registry/foo-operator/foo-bundle:v0.2.0\nname: foo.v0.2.0\npackage: foo\nproperties:\n"), "{text}");
    let catalog = load(dir.path()).unwrap();
    assert_eq!(errors(&catalog), Vec::<String>::new());
    // Files the edit did not touch are byte-identical.
    for v in ["0.1.0", "0.1.1"] {
        let rel = format!("foo/bundles/foo-v{v}.yaml");
        assert_eq!(
            std::fs::read(dir.path().join(&rel)).unwrap(),
            std::fs::read(local("testdata/add-bundle").join(&rel)).unwrap()
        );
    }
}

/// A bundle of a package the catalog lacks creates the package (its channel the default) in a new
/// file, in the catalog's main format; undo leaves nothing to write.
#[test]
fn add_bundle_creates_a_new_package_and_undoes_cleanly() {
    let dir = copy("assets/demo-catalog");
    let mut ws = Workspace::open(load(dir.path()).unwrap());
    ws.apply(add(foo_bundle(), "beta")).unwrap();
    assert_eq!(ws.dirty_files(), ["foo/catalog.yaml"]);
    assert!(ws.undo().is_some());
    assert!(ws.dirty_files().is_empty());
    ws.redo().unwrap().unwrap();
    ws.save().unwrap();
    let catalog = load(dir.path()).unwrap();
    assert_eq!(errors(&catalog), Vec::<String>::new());
    let p = catalog.index().package("foo").unwrap();
    assert_eq!(p.channels.len(), 1);
    let pkg = fbc_edit::catalog::model::Package::read(&catalog.blob(p.packages[0]).value).unwrap();
    assert_eq!(pkg.default_channel, "beta");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("foo/catalog.yaml"))
            .unwrap()
            .permissions()
            .mode();
        assert_ne!(
            mode & 0o444,
            0o400,
            "a new catalog file is readable by others as usual, not 0600: {mode:o}"
        );
    }
}

/// Refusals leave the catalog exactly as it was: the bundle added before the promote failed is
/// taken out again.
#[test]
fn add_bundle_refusals_change_nothing() {
    let dir = copy("testdata/add-bundle");
    let mut ws = Workspace::open(load(dir.path()).unwrap());
    // Older than the head: the promote refuses, the rendered bundle is removed again.
    let mut old = foo_bundle();
    old["name"] = "foo.v0.0.9".into();
    old["properties"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .filter(|p| p["type"] == "olm.package")
        .for_each(|p| p["value"]["version"] = "0.0.9".into());
    let e = ws.apply(add(old, "stable")).unwrap_err();
    assert!(e.to_string().contains("is not newer than the head"), "{e}");
    assert!(ws.dirty_files().is_empty());
    assert!(ws.catalog().index().bundle("foo", "foo.v0.0.9").is_none());
    // Twice: the second is refused.
    ws.apply(add(foo_bundle(), "stable")).unwrap();
    let e = ws.apply(add(foo_bundle(), "stable")).unwrap_err();
    assert_eq!(e.to_string(), "foo.v0.2.0 is already a bundle of foo");
}

#[test]
fn add_bundle_cli() {
    let dir = copy("testdata/add-bundle");
    let bin = || Command::cargo_bin("fbc-edit").unwrap();
    let out = bin()
        .arg("edit")
        .arg(dir.path())
        .args(["add-bundle", "--from"])
        .arg(local("testdata/bundles/foo-v0.2.0"))
        .args([
            "--image",
            "test.registry/foo:v0.2.0",
            "--channel",
            "candidate",
            "--skip-range",
            "<0.2.0",
        ])
        .assert()
        .code(0);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("wrote foo/"), "{stderr}");
    let catalog = load(dir.path()).unwrap();
    assert_eq!(errors(&catalog), Vec::<String>::new());
    let ch = catalog.index().channel("foo", "candidate").unwrap();
    let ch = fbc_edit::catalog::model::Channel::read(&catalog.blob(ch).value).unwrap();
    assert_eq!(ch.entries.len(), 1);
    assert_eq!(ch.entries[0].skip_range, Some("<0.2.0"));

    // A bundle opm cannot render: exit 1 with the reason and where to look.
    let broken = tempfile::tempdir().unwrap();
    common::copy_dir(&local("testdata/bundles/foo-v0.2.0"), broken.path());
    std::fs::remove_file(broken.path().join("manifests/foos.test.foo.crd.yaml")).unwrap();
    let out = bin()
        .arg("edit")
        .arg(dir.path())
        .args(["add-bundle", "--channel", "stable", "--from"])
        .arg(broken.path())
        .assert()
        .code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("couldn't find test.foo/v1/Foo (foos)"),
        "{stderr}"
    );
    assert!(stderr.contains("check-bundle"), "{stderr}");
    // Not a bundle directory: usage error.
    bin()
        .arg("edit")
        .arg(dir.path())
        .args(["add-bundle", "--channel", "stable", "--from"])
        .arg(dir.path())
        .assert()
        .code(2);
}
