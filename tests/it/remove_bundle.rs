//! Removing a bundle: every channel entry, its olm.bundle and its deprecations go; what would strand
//! is refused in plain words; relinking hands the removed entry's replaces on; undo restores every
//! byte; and the command's exit codes.

use crate::common;
use common::copy_dir;

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;
use fbc_core::catalog::{Catalog, Severity, load};
use fbc_core::edit::{Edit, EditError};
use fbc_core::validate;

const CACHE: &str = "cache-operator";

fn demo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog"),
        tmp.path(),
    );
    tmp
}

fn remove(package: &str, bundle: &str, relink: bool) -> Edit {
    Edit::RemoveBundle {
        package: package.to_string(),
        bundle: bundle.to_string(),
        relink,
    }
}

/// Every file of a directory tree with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn errors(c: &Catalog) -> Vec<String> {
    validate::validate(c)
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

/// The entries of a channel as `name<replaces|skips>` strings.
fn entries(c: &Catalog, package: &str, channel: &str) -> Vec<String> {
    let id = c.index().channel(package, channel).unwrap();
    let ch = fbc_core::catalog::model::Channel::read(&c.blob(id).value).unwrap();
    ch.entries
        .iter()
        .map(|e| {
            format!(
                "{}<{}|{}>",
                e.name,
                e.replaces.unwrap_or(""),
                e.skips.join(",")
            )
        })
        .collect()
}

#[test]
fn a_bundle_others_replace_is_refused_naming_the_channel_and_entries() {
    let tmp = demo();
    let mut c = load(tmp.path()).unwrap();
    let err = remove(CACHE, "cache-operator.v1.0.0", false)
        .apply(&mut c)
        .unwrap_err();
    assert_eq!(
        err,
        EditError::WouldDangle {
            bundle: "cache-operator.v1.0.0".into(),
            channel: "stable".into(),
            entries: vec!["cache-operator.v1.1.0".into()],
        }
    );
    assert!(
        err.to_string()
            .contains("cache-operator.v1.1.0 in channel stable replaces cache-operator.v1.0.0"),
        "{err}"
    );
    assert!(c.dirty_files().is_empty(), "a refused edit changes nothing");
}

#[test]
fn relinking_removes_every_trace_and_the_catalog_stays_valid() {
    let tmp = demo();
    let mut c = load(tmp.path()).unwrap();
    assert!(errors(&c).is_empty());
    remove(CACHE, "cache-operator.v1.0.0", true)
        .apply(&mut c)
        .unwrap();
    c.save().unwrap();
    let c = load(tmp.path()).unwrap();
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
    assert!(c.index().bundle(CACHE, "cache-operator.v1.0.0").is_none());
    assert_eq!(
        entries(&c, CACHE, "stable")[0],
        "cache-operator.v1.1.0<|>",
        "its successor replaces what it replaced (nothing)"
    );
    assert_eq!(
        entries(&c, CACHE, "stable-1.0"),
        ["cache-operator.v1.1.0<|>"]
    );
    let deps =
        std::fs::read_to_string(tmp.path().join("cache-operator/deprecations.yaml")).unwrap();
    assert!(!deps.contains("cache-operator.v1.0.0"), "{deps}");
    assert!(
        deps.contains("name: stable-1.0"),
        "the other deprecation stays: {deps}"
    );
    let text = std::fs::read_to_string(tmp.path().join("cache-operator/catalog.yaml")).unwrap();
    assert!(!text.contains("cache-operator.v1.0.0"), "{text}");
}

#[test]
fn relinking_in_the_middle_hands_on_replaces_and_drops_skips() {
    let tmp = demo();
    let mut c = load(tmp.path()).unwrap();
    // 1.2.0 is replaced by 1.2.1 and 1.3.0 in stable, and is the tail of fast.
    assert!(matches!(
        remove(CACHE, "cache-operator.v1.2.0", false).apply(&mut c),
        Err(EditError::WouldDangle { .. })
    ));
    remove(CACHE, "cache-operator.v1.2.1", true)
        .apply(&mut c)
        .unwrap();
    remove(CACHE, "cache-operator.v1.2.0", true)
        .apply(&mut c)
        .unwrap();
    assert_eq!(
        entries(&c, CACHE, "stable"),
        [
            "cache-operator.v1.0.0<|>",
            "cache-operator.v1.1.0<cache-operator.v1.0.0|>",
            "cache-operator.v1.3.0<cache-operator.v1.1.0|>",
        ]
    );
    assert_eq!(
        entries(&c, CACHE, "fast"),
        [
            "cache-operator.v1.3.0<|>",
            "cache-operator.v1.4.0<cache-operator.v1.3.0|>",
        ]
    );
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
}

#[test]
fn without_relinking_skips_naming_the_bundle_stay() {
    let tmp = demo();
    let mut c = load(tmp.path()).unwrap();
    remove(CACHE, "cache-operator.v1.2.1", false)
        .apply(&mut c)
        .unwrap();
    assert_eq!(
        entries(&c, CACHE, "stable")[3],
        "cache-operator.v1.3.0<cache-operator.v1.2.0|cache-operator.v1.2.1>"
    );
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
}

#[test]
fn apply_undo_save_leaves_every_byte() {
    for (package, bundle) in [
        (CACHE, "cache-operator.v1.0.0"),
        (CACHE, "cache-operator.v1.2.0"),
        ("backup-operator", "backup-operator.v2.1.1"),
    ] {
        let tmp = demo();
        let before = files(tmp.path());
        let mut c = load(tmp.path()).unwrap();
        let undo = remove(package, bundle, true).apply(&mut c).unwrap();
        assert!(
            !c.dirty_files().is_empty(),
            "{bundle}: the edit changes files"
        );
        undo.apply(&mut c);
        c.save().unwrap();
        assert_eq!(
            files(tmp.path()),
            before,
            "{bundle}: undo restores every byte"
        );
    }
}

#[test]
fn a_bundle_kept_in_a_file_of_its_own_takes_its_file_along() {
    let tmp = demo();
    let mut c = load(tmp.path()).unwrap();
    remove("backup-operator", "backup-operator.v2.1.1", true)
        .apply(&mut c)
        .unwrap();
    c.save().unwrap();
    let c = load(tmp.path()).unwrap();
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
    assert!(
        c.index()
            .bundle("backup-operator", "backup-operator.v2.1.1")
            .is_none()
    );
    assert_eq!(
        entries(&c, "backup-operator", "stable")[2],
        "backup-operator.v2.2.0<backup-operator.v2.1.0|>",
        "the skip of the removed bundle is dropped"
    );
}

/// A catalog with a default channel `stable` holding only v1 and a channel `fast` with v1 and v2.
fn small() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("p")).unwrap();
    let bundle = |v: &str| {
        format!(
            "---\nschema: olm.bundle\nname: p.v{v}\npackage: p\nimage: example.com/p:v{v}\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: {v}\n"
        )
    };
    let text = format!(
        "---\nschema: olm.package\nname: p\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.v1.0.0\n---\nschema: olm.channel\npackage: p\nname: fast\nentries:\n- name: p.v1.0.0\n- name: p.v2.0.0\n  replaces: p.v1.0.0\n{}{}",
        bundle("1.0.0"),
        bundle("2.0.0")
    );
    std::fs::write(tmp.path().join("p/catalog.yaml"), text).unwrap();
    tmp
}

#[test]
fn emptying_a_channel_is_refused_and_the_default_channel_is_named() {
    let tmp = small();
    let mut c = load(tmp.path()).unwrap();
    let err = remove("p", "p.v1.0.0", true).apply(&mut c).unwrap_err();
    assert_eq!(
        err,
        EditError::WouldEmptyChannel {
            bundle: "p.v1.0.0".into(),
            channel: "stable".into(),
            default_of: Some("p".into()),
        }
    );
    let words = err.to_string();
    assert!(words.contains("the default channel of p"), "{words}");
    assert!(words.contains("leave the channel empty"), "{words}");
    assert!(c.dirty_files().is_empty());

    // Once stable is not the default and is gone, only fast lists it: relinked away.
    for e in [
        Edit::SetDefaultChannel {
            package: "p".into(),
            channel: "fast".into(),
        },
        Edit::DeleteChannel {
            package: "p".into(),
            channel: "stable".into(),
        },
        remove("p", "p.v1.0.0", true),
    ] {
        e.apply(&mut c).unwrap();
    }
    assert_eq!(entries(&c, "p", "fast"), ["p.v2.0.0<|>"]);
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
}

#[test]
fn a_bundle_in_no_channel_can_be_removed_and_unknown_names_are_lookups() {
    let tmp = small();
    let mut c = load(tmp.path()).unwrap();
    let err = remove("p", "p.v3.0.0", false).apply(&mut c).unwrap_err();
    assert!(err.is_lookup(), "{err}");
    let err = remove("q", "p.v1.0.0", false).apply(&mut c).unwrap_err();
    assert!(err.is_lookup(), "{err}");
    // v2 is the head of fast: nothing names it.
    remove("p", "p.v2.0.0", false).apply(&mut c).unwrap();
    assert!(c.index().bundle("p", "p.v2.0.0").is_none());
    assert_eq!(entries(&c, "p", "fast"), ["p.v1.0.0<|>"]);
}

fn fbc(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_remove_bundle_refuses_then_relinks() {
    let tmp = demo();
    let dir = tmp.path().to_str().unwrap();
    let before = files(tmp.path());
    let args = [
        "edit",
        dir,
        "remove-bundle",
        "-p",
        CACHE,
        "-b",
        "cache-operator.v1.4.0",
    ];
    let (code, _, err) = fbc(&args);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "cache-operator.v1.5.0-rc.1 in channel candidate replaces cache-operator.v1.4.0"
        ),
        "{err}"
    );
    assert_eq!(files(tmp.path()), before, "a refusal writes nothing");

    let (code, out, err) = fbc(&[&args[..], &["--relink"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("-  - name: cache-operator.v1.4.0"), "{out}");
    let c = load(tmp.path()).unwrap();
    assert!(c.index().bundle(CACHE, "cache-operator.v1.4.0").is_none());
    assert_eq!(
        entries(&c, CACHE, "candidate"),
        ["cache-operator.v1.5.0-rc.1<|>"]
    );
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
}

#[test]
fn cli_unknown_names_exit_2_for_every_catalog_edit() {
    let tmp = demo();
    let dir = tmp.path().to_str().unwrap();
    let before = files(tmp.path());
    let p = ["-p", CACHE];
    let cases: Vec<Vec<&str>> = vec![
        vec!["promote", "-p", "nope", "-b", "x", "-c", "stable"],
        vec!["promote", "-p", CACHE, "-b", "nope", "-c", "stable"],
        vec![
            "promote",
            "-p",
            CACHE,
            "-b",
            "cache-operator.v1.4.0",
            "-c",
            "nope",
        ],
        vec!["set-default-channel", "-p", CACHE, "-c", "nope"],
        vec!["create-channel", "-p", CACHE, "-c", "new", "-b", "nope"],
        vec!["create-channel", "-p", "nope", "-c", "new", "-b", "x"],
        vec!["delete-channel", "-p", CACHE, "-c", "nope"],
        vec![
            "add-skips",
            "-p",
            CACHE,
            "-c",
            "nope",
            "-e",
            "x",
            "--skips",
            "y",
        ],
        vec![
            "add-skips",
            "-p",
            CACHE,
            "-c",
            "stable",
            "-e",
            "nope",
            "--skips",
            "y",
        ],
        vec![
            "remove-skips",
            "-p",
            CACHE,
            "-c",
            "nope",
            "-e",
            "x",
            "--skips",
            "y",
        ],
        vec![
            "set-skip-range",
            "-p",
            CACHE,
            "-c",
            "nope",
            "-e",
            "x",
            "--clear",
        ],
        vec![
            "set-replaces",
            "-p",
            CACHE,
            "-c",
            "stable",
            "-e",
            "nope",
            "--replaces",
            "x",
        ],
        vec!["remove-entry", "-p", CACHE, "-c", "nope", "-e", "x"],
        vec!["remove-entry", "-p", CACHE, "-c", "stable", "-e", "nope"],
        vec!["deprecate", "-p", "nope", "-m", "why"],
        vec!["deprecate", "-p", CACHE, "-c", "nope", "-m", "why"],
        vec!["deprecate", "-p", CACHE, "-b", "nope", "-m", "why"],
        vec!["undeprecate", "-p", "nope"],
        vec!["remove-bundle", "-p", "nope", "-b", "x"],
        vec!["remove-bundle", "-p", CACHE, "-b", "nope"],
    ];
    for case in cases {
        let args = [&["edit", dir][..], &case].concat();
        let (code, _, err) = fbc(&args);
        assert_eq!(code, 2, "{case:?}: {err}");
        assert!(
            err.contains("nope"),
            "{case:?} names what is missing: {err}"
        );
    }
    // A name that exists but cannot be changed that way stays a refusal (exit 1).
    let (code, _, err) = fbc(&[
        &["edit", dir, "set-default-channel"][..],
        &p,
        &["-c", "stable"],
    ]
    .concat());
    assert_eq!(code, 1, "{err}");
    assert_eq!(files(tmp.path()), before);
}
