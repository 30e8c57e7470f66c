//! Saving never leaves the catalog, never half-saves, never loses a value, and keeps what it does not
//! own (links, owners, modes, line endings); hostile YAML costs milliseconds, not the machine.

use crate::common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::bundle::{self, RenderOptions};
use fbc_core::catalog::commit::{CommitError, CommitOptions, Fault, FileState, Refusal, Step};
use fbc_core::catalog::write::WriteError;
use fbc_core::catalog::{Kind, Node, Severity, load};
use fbc_core::edit::Edit;
use fbc_core::workspace::Workspace;

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A temporary directory holding a copy of `rel` as `catalog/`, with room beside it.
fn copy(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("catalog");
    common::copy_dir(&local(rel), &root);
    (tmp, root)
}

/// Every file under `dir` with its bytes, sorted (links read as links).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                out.push((
                    rel,
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                ));
            } else if ft.is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                walk(root, &p, out);
            } else {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out
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

fn add_foo(channel: &str) -> Edit {
    Edit::AddBundle {
        bundle: foo_bundle(),
        channel: channel.into(),
        replaces: None,
        skips: vec![],
        skip_range: None,
    }
}

fn fbc_edit() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c
}

// ------------------------------------------------------------------------------ never outside the root

/// A package directory that is a link out of the catalog is not written through by add-bundle.
#[test]
fn add_bundle_does_not_write_through_a_linked_package_directory() {
    let (tmp, root) = copy("assets/demo-catalog");
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink("../outside", root.join("foo")).unwrap();
    let out = fbc_edit()
        .arg("edit")
        .arg(&root)
        .args(["add-bundle", "--from"])
        .arg(local("testdata/bundles/foo-v0.2.0"))
        .args([
            "--image",
            "test.registry/foo-bundle:v0.2.0",
            "--channel",
            "alpha",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("foo/catalog.yaml: foo is a symbolic link to a directory"),
        "{stderr}"
    );
    assert!(snapshot(&outside).is_empty(), "nothing written outside");
    assert!(
        !snapshot(&root)
            .iter()
            .any(|(p, _)| p.contains(".fbc-edit-")),
        "no leftovers"
    );
}

/// A package directory swapped for a link to an identical copy outside, between load and save, is
/// refused: the path is resolved when it is written, not compared by content.
#[test]
fn a_directory_swapped_for_a_link_after_loading_stops_the_save() {
    let (tmp, root) = copy("assets/demo-catalog");
    let mut ws = Workspace::open(load(&root).unwrap());
    ws.apply(Edit::SetDefaultChannel {
        package: "cache-operator".into(),
        channel: "fast".into(),
    })
    .unwrap();
    let outside = tmp.path().join("outside");
    std::fs::rename(root.join("cache-operator"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("cache-operator")).unwrap();
    let before = snapshot(&outside);
    let err = ws.save().unwrap_err();
    assert_eq!(
        err.to_string(),
        "cache-operator/catalog.yaml: cache-operator is a symbolic link to a directory; fbc-edit does not write through it, as it could lead outside the catalog"
    );
    assert_eq!(snapshot(&outside), before);
}

/// A file swapped for a link to an identical file outside is refused; a link to a file inside the
/// catalog is written at its target and stays a link.
#[test]
fn file_links_are_followed_only_inside_the_catalog() {
    let (tmp, root) = copy("assets/demo-catalog");
    let file = root.join("cache-operator/catalog.yaml");
    let text = std::fs::read(&file).unwrap();

    // Inside: the catalog's file is a link to a file kept elsewhere in the tree (ignored by opm).
    std::fs::create_dir(root.join("store")).unwrap();
    std::fs::write(root.join("store/cache.yaml.txt"), &text).unwrap();
    std::fs::write(root.join(".indexignore"), "store/\n").unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("../store/cache.yaml.txt", &file).unwrap();
    let mut ws = Workspace::open(load(&root).unwrap());
    ws.apply(Edit::SetDefaultChannel {
        package: "cache-operator".into(),
        channel: "fast".into(),
    })
    .unwrap();
    ws.save().unwrap();
    assert!(
        std::fs::symlink_metadata(&file)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = std::fs::read_to_string(root.join("store/cache.yaml.txt")).unwrap();
    assert!(written.contains("defaultChannel: fast"), "{written}");

    // Outside: the same file, but the link now leaves the catalog.
    let outside = tmp.path().join("cache.yaml");
    std::fs::write(&outside, written.as_bytes()).unwrap();
    ws.apply(Edit::SetDefaultChannel {
        package: "cache-operator".into(),
        channel: "stable".into(),
    })
    .unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    let err = ws.save().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cache-operator/catalog.yaml: is a symbolic link to {}, outside the catalog; fbc-edit writes only inside the catalog",
            outside.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), written);
}

// ------------------------------------------------------------------------------ all or nothing

/// An edit writing two files (the bundle into package.yaml, the entry into channels/stable.yaml) fails
/// at every step of the save in turn: each time both files keep every byte, nothing is left behind,
/// and the message names both files and what became of them.
#[test]
fn a_two_file_save_that_fails_at_any_step_changes_nothing() {
    let steps = [
        Step::Check,
        Step::WriteTemp,
        Step::Sync,
        Step::Backup,
        Step::Verify,
        Step::Rename,
    ];
    for step in steps {
        for file in 0..2 {
            let (_tmp, root) = copy("testdata/save/split-package");
            let before = snapshot(&root);
            let mut ws = Workspace::open(load(&root).unwrap());
            ws.apply(add_foo("stable")).unwrap();
            assert_eq!(
                ws.dirty_files(),
                ["foo/channels/stable.yaml", "foo/package.yaml"]
            );
            let options = CommitOptions {
                fault: Some(Fault { step, file }),
                ..CommitOptions::default()
            };
            let err = ws.save_with(&options).unwrap_err();
            assert_eq!(snapshot(&root), before, "{step:?} of file {file}: {err}");
            let WriteError::Commit(CommitError::Failed { files, .. }) = err.write_error() else {
                panic!("{step:?} of file {file}: {err}");
            };
            let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
            assert_eq!(names, ["foo/channels/stable.yaml", "foo/package.yaml"]);
            let text = err.to_string();
            assert!(text.contains("nothing was changed:"), "{text}");
            // A failed rename of the second file puts the first back.
            if step == Step::Rename && file == 1 {
                assert_eq!(files[0].1, FileState::Restored, "{text}");
                assert!(
                    text.contains("foo/channels/stable.yaml: restored as it was"),
                    "{text}"
                );
                assert!(text.contains("foo/package.yaml: not written"), "{text}");
            }
            // The edit is still there: a save without the fault writes it.
            ws.save().unwrap();
            assert!(
                std::fs::read_to_string(root.join("foo/channels/stable.yaml"))
                    .unwrap()
                    .contains("foo.v0.2.0")
            );
        }
    }
}

/// A save creating a new directory and file (a new package) and changing another fails at the rename:
/// the new file and directory are removed again.
#[test]
fn new_directories_are_removed_when_the_save_fails() {
    let (_tmp, root) = copy("assets/demo-catalog");
    let before = snapshot(&root);
    let mut ws = Workspace::open(load(&root).unwrap());
    ws.apply(add_foo("alpha")).unwrap();
    ws.apply(Edit::SetDefaultChannel {
        package: "cache-operator".into(),
        channel: "fast".into(),
    })
    .unwrap();
    assert_eq!(
        ws.dirty_files(),
        ["cache-operator/catalog.yaml", "foo/catalog.yaml"]
    );
    for step in [Step::CreateDir, Step::Rename] {
        let err = ws
            .save_with(&CommitOptions {
                fault: Some(Fault { step, file: 1 }),
                ..CommitOptions::default()
            })
            .unwrap_err();
        assert_eq!(snapshot(&root), before, "{step:?}: {err}");
    }
    ws.save().unwrap();
    assert!(root.join("foo/catalog.yaml").is_file());
}

/// The command line names every file and its state too, and exits 2.
#[test]
fn the_cli_lists_every_file_of_a_failed_save() {
    let (_tmp, root) = copy("testdata/save/split-package");
    let before = snapshot(&root);
    let out = fbc_edit()
        .env("FBC_EDIT_FAULT", "rename:1")
        .arg("edit")
        .arg(&root)
        .args(["add-bundle", "--from"])
        .arg(local("testdata/bundles/foo-v0.2.0"))
        .args([
            "--image",
            "test.registry/foo-bundle:v0.2.0",
            "--channel",
            "stable",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "putting in place foo/package.yaml: failure injected at step rename (FBC_EDIT_FAULT); nothing was changed:\n  foo/channels/stable.yaml: restored as it was\n  foo/package.yaml: not written"
        ),
        "{stderr}"
    );
    assert_eq!(snapshot(&root), before);
}

// ------------------------------------------------------------------------------ no silent loss

fn long_description() -> String {
    "A long description. ".repeat(400)
}

/// A long value is left on disk when loading; when it cannot be read back at save time (its file
/// changed), the save stops instead of writing an empty string in its place.
#[test]
fn a_value_left_on_disk_that_cannot_be_read_back_stops_the_save() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir(root.join("a")).unwrap();
    std::fs::create_dir(root.join("b")).unwrap();
    let long = long_description();
    std::fs::write(
        root.join("a/catalog.yaml"),
        format!("schema: olm.package\nname: a\ndescription: {long}\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("b/catalog.yaml"),
        "schema: olm.package\nname: b\n",
    )
    .unwrap();
    let mut catalog = load(root).unwrap();
    let a = catalog.index().package("a").unwrap().packages[0];
    let b = catalog.index().package("b").unwrap().packages[0];
    let description = catalog
        .blob(a)
        .value
        .get_field("description")
        .unwrap()
        .clone();
    assert!(matches!(
        description.kind,
        Kind::String(fbc_core::catalog::Str::Deferred { .. })
    ));
    // b takes a's description (a value read from a's file), then a changes on disk.
    catalog.edit(b, |n| {
        if let Kind::Map(entries) = &mut n.kind {
            entries.push(fbc_core::catalog::Entry {
                key: Node::string("description"),
                value: description.clone(),
            });
        }
    });
    std::fs::write(
        root.join("a/catalog.yaml"),
        "schema: olm.package\nname: a\n",
    )
    .unwrap();
    let b_before = std::fs::read(root.join("b/catalog.yaml")).unwrap();
    let err = catalog.save().unwrap_err();
    assert!(matches!(err, WriteError::Unreadable { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("b/catalog.yaml: a value kept on disk cannot be read back")
    );
    assert_eq!(
        std::fs::read(root.join("b/catalog.yaml")).unwrap(),
        b_before
    );
    // Reading the value as JSON fails the same way, instead of giving an empty string.
    let e = catalog.to_json(&catalog.blob(a).value).unwrap_err();
    assert!(e.to_string().contains("changed on disk"), "{e}");
}

/// A bundle object whose manifest holds a long string (a CSV description over 4 KiB) decodes with
/// that string, not an empty one.
#[test]
fn long_strings_inside_bundle_objects_are_decoded() {
    use base64::Engine as _;
    let description = "Runs the operator. ".repeat(300);
    let manifest = format!(
        "{{\"apiVersion\":\"operators.coreos.com/v1alpha1\",\"kind\":\"ClusterServiceVersion\",\"metadata\":{{\"name\":\"foo.v1.0.0\"}},\"spec\":{{\"description\":\"{description}\"}}}}"
    );
    let data = base64::engine::general_purpose::STANDARD.encode(manifest);
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("catalog.yaml"),
        format!(
            "schema: olm.bundle\nname: foo.v1.0.0\npackage: foo\nimage: r/foo:1\nproperties:\n  - type: olm.bundle.object\n    value:\n      data: {data}\n"
        ),
    )
    .unwrap();
    let c = load(tmp.path()).unwrap();
    let id = c.index().bundle("foo", "foo.v1.0.0").unwrap();
    let b = fbc_core::catalog::model::Bundle::read(&c.blob(id).value).unwrap();
    let data = b
        .properties
        .iter()
        .find_map(|p| match p.parse().unwrap() {
            fbc_core::catalog::model::PropertyValue::BundleObject(Some(d)) => Some(d),
            _ => None,
        })
        .unwrap();
    let csv = c.bundle_object(data).unwrap();
    assert_eq!(
        csv["spec"]["description"].as_str(),
        Some(description.as_str())
    );
}

// ------------------------------------------------------------------------------ what a save keeps

/// A read-only file is not replaced unless forced; forced, it stays read-only.
#[test]
fn read_only_files_are_written_only_when_forced() {
    let (_tmp, root) = copy("assets/demo-catalog");
    let file = root.join("cache-operator/catalog.yaml");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&file).unwrap();
    let edit = |c: &mut Command| {
        c.arg("edit").arg(&root).args([
            "set-default-channel",
            "-p",
            "cache-operator",
            "-c",
            "fast",
        ]);
    };
    let mut c = fbc_edit();
    edit(&mut c);
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("nothing written: cache-operator/catalog.yaml: is read-only"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--force writes read-only files too"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);

    let mut c = fbc_edit();
    edit(&mut c);
    let out = c.arg("--force").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("defaultChannel: fast")
    );
    assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o7777, 0o444);
}

/// The owner, group and mode of a replaced file are kept (the owner where the process may set it).
#[test]
fn owner_group_and_mode_are_kept() {
    let (_tmp, root) = copy("assets/demo-catalog");
    let file = root.join("cache-operator/catalog.yaml");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let me = std::fs::metadata(&file).unwrap();
    // SAFETY: geteuid takes no arguments and cannot fail.
    let is_root = unsafe { libc::geteuid() } == 0;
    let (uid, gid) = if is_root {
        std::os::unix::fs::chown(&file, Some(4321), Some(4322)).unwrap();
        (4321, 4322)
    } else {
        (me.uid(), me.gid())
    };
    let mut ws = Workspace::open(load(&root).unwrap());
    ws.apply(Edit::SetDefaultChannel {
        package: "cache-operator".into(),
        channel: "fast".into(),
    })
    .unwrap();
    ws.save().unwrap();
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!((after.uid(), after.gid()), (uid, gid));
    assert_eq!(after.mode() & 0o7777, 0o640);
}

/// Lines added to a file take the ending most of its lines have, not that of one stray line.
#[test]
fn added_lines_take_the_majority_line_ending() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "schema: olm.package\r\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\nname: foo.v1.0.0\npackage: foo\nimage: r/foo:1\nproperties:\n  - type: olm.package\n    value:\n      packageName: foo\n      version: 1.0.0\n";
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let mut ws = Workspace::open(load(tmp.path()).unwrap());
    ws.apply(Edit::SetSkipRange {
        package: "foo".into(),
        channel: "stable".into(),
        entry: "foo.v1.0.0".into(),
        range: Some("<1.0.0".into()),
    })
    .unwrap();
    ws.save().unwrap();
    let written = std::fs::read_to_string(tmp.path().join("catalog.yaml")).unwrap();
    assert!(written.contains("    skipRange: <1.0.0\n"), "{written:?}");
    assert!(
        written.starts_with("schema: olm.package\r\n"),
        "the stray line is kept"
    );
    assert_eq!(written.matches("\r\n").count(), 1, "{written:?}");
}

// ------------------------------------------------------------------------------ hostile YAML

/// A "billion laughs" document is one error on its own line; the rest of the catalog loads.
#[test]
fn an_alias_bomb_is_one_error_and_the_catalog_still_loads() {
    let (_tmp, root) = copy("assets/demo-catalog");
    let mut bomb = String::from(
        "schema: olm.package\nname: lol\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let prev = vec![format!("*a{}", i - 1); 10].join(", ");
        bomb.push_str(&format!("a{i}: &a{i} [{prev}]\n"));
    }
    std::fs::write(root.join("bomb.yaml"), bomb).unwrap();
    let catalog = load(&root).unwrap();
    let errors: Vec<String> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(common::code_at)
        .collect();
    assert_eq!(errors, ["FBC003 bomb.yaml:6"]);
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| d.message.contains("excessive aliasing"))
    );
    for p in ["backup-operator", "cache-operator", "metrics-gateway"] {
        assert!(catalog.index().package(p).is_some(), "{p} loads");
    }
}

#[test]
fn refusals_read_plainly() {
    // The refusals a user meets, spelled out once.
    let e = WriteError::Commit(CommitError::Refused {
        path: "p/catalog.yaml".into(),
        why: Refusal::DirectoryNotWritable("p".into()),
    });
    assert_eq!(
        e.to_string(),
        "p/catalog.yaml: cannot be written: the directory p does not allow it"
    );
}
