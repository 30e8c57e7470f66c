//! `fbc-edit diff`: changes by meaning on real catalog pairs and on copies with one known edit each.

mod common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_edit::catalog::{Node, load};
use fbc_edit::diff;
use fbc_edit::edit::{Edit, Target};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")
}

fn fbc(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// A copy of the demo catalog with one edit applied and saved.
fn edited(edit: impl FnOnce(&mut fbc_edit::catalog::Catalog)) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut c = load(tmp.path()).unwrap();
    edit(&mut c);
    c.save().unwrap();
    tmp
}

fn s(v: &str) -> String {
    v.to_string()
}

#[test]
fn identical_catalogs_give_no_output_and_exit_0() {
    let d = demo();
    let d = d.to_str().unwrap();
    for format in ["text", "json", "markdown"] {
        let (code, out) = fbc(&["diff", d, d, "-o", format]);
        assert_eq!(code, 0);
        if format == "json" {
            assert_eq!(out.trim(), "{\n  \"packages\": []\n}");
        } else {
            assert_eq!(out, "", "{format}");
        }
    }
}

#[test]
fn one_known_edit_each() {
    let cases: Vec<(&str, tempfile::TempDir)> = vec![
        (
            "moved_head",
            edited(|c| {
                Edit::Promote {
                    package: s("cache-operator"),
                    bundle: s("cache-operator.v1.4.0"),
                    channel: s("stable"),
                    replaces: None,
                    skips: vec![],
                    skip_range: None,
                }
                .apply(c)
                .map(|_| ())
                .unwrap()
            }),
        ),
        (
            "added_skip",
            edited(|c| {
                Edit::AddSkips {
                    package: s("metrics-gateway"),
                    channel: s("alpha"),
                    entry: s("metrics-gateway.v1.1.0"),
                    skips: vec![s("metrics-gateway.v0.9.0")],
                }
                .apply(c)
                .map(|_| ())
                .unwrap()
            }),
        ),
        (
            "new_skip_range",
            edited(|c| {
                Edit::SetSkipRange {
                    package: s("metrics-gateway"),
                    channel: s("alpha"),
                    entry: s("metrics-gateway.v1.1.0"),
                    range: Some(s(">=0.9.0 <1.1.0")),
                }
                .apply(c)
                .map(|_| ())
                .unwrap()
            }),
        ),
        (
            "new_deprecation",
            edited(|c| {
                Edit::Deprecate {
                    package: s("metrics-gateway"),
                    target: Target::Channel(s("alpha")),
                    message: s("alpha is frozen; use stable"),
                }
                .apply(c)
                .map(|_| ())
                .unwrap()
            }),
        ),
        (
            "changed_image",
            edited(|c| {
                let id = c
                    .index()
                    .bundle("backup-operator", "backup-operator.v2.0.0")
                    .unwrap();
                c.edit(id, |b| {
                    b.set_field(
                        "image",
                        Node::string("quay.io/demo/backup-operator-bundle:v2.0.0-rebuilt"),
                    )
                });
            }),
        ),
    ];
    let old = load(&demo()).unwrap();
    for (name, dir) in cases {
        let new = load(dir.path()).unwrap();
        let d = diff::diff(&old, &new);
        assert_eq!(d.packages.len(), 1, "{name}: one package changed");
        insta::assert_snapshot!(format!("{name}_text"), diff::text(&d));
        insta::assert_snapshot!(format!("{name}_markdown"), diff::markdown(&d));
        insta::assert_snapshot!(
            format!("{name}_json"),
            serde_json::to_string_pretty(&d).unwrap()
        );
    }
}

#[test]
fn descheduler_4_12_to_4_20() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata");
    let (a, b) = (
        shared.join("openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog"),
        shared.join("openshift__cluster-kube-descheduler-operator__fbc-v4.20-catalog"),
    );
    if !a.is_dir() || !b.is_dir() {
        eprintln!("skipped: shared test data absent");
        return;
    }
    let (code, text) = fbc(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(text.contains(
        "head: clusterkubedescheduleroperator.v4.12.1 → clusterkubedescheduleroperator.v5.3.2"
    ));
    insta::assert_snapshot!("descheduler_text", text);
    let (_, md) = fbc(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        "markdown",
    ]);
    insta::assert_snapshot!("descheduler_markdown", md);
    let (_, json) = fbc(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["packages"][0]["name"],
        "cluster-kube-descheduler-operator"
    );
}

#[test]
fn compares_with_a_git_revision() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let dir = repo.join("catalog");
    copy_dir(&demo(), &dir);
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(repo)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "catalog"]);
    let dir_s = dir.to_str().unwrap();
    assert_eq!(
        fbc(&["diff", dir_s, "--git", "HEAD"]).0,
        0,
        "unchanged since HEAD"
    );
    let mut c = load(&dir).unwrap();
    Edit::SetDefaultChannel {
        package: s("cache-operator"),
        channel: s("fast"),
    }
    .apply(&mut c)
    .unwrap();
    c.save().unwrap();
    let (code, text) = fbc(&["diff", dir_s, "--git", "HEAD"]);
    assert_eq!(code, 1);
    assert_eq!(
        text,
        "package cache-operator (changed)\n  default channel: stable → fast\n"
    );
    assert_eq!(fbc(&["diff", dir_s, "--git", "no-such-rev"]).0, 2);
}

#[cfg(unix)]
#[test]
fn output_cut_short_by_a_closed_pipe_does_not_panic() {
    use std::io::{BufRead, BufReader};
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata");
    let (a, b) = (
        shared.join("openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog"),
        shared.join("openshift__cluster-kube-descheduler-operator__fbc-v4.20-catalog"),
    );
    if !a.is_dir() {
        return;
    }
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fbc-edit"))
        .args(["diff", a.to_str().unwrap(), b.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // The reader is gone: the rest of the output goes to a closed pipe.
    let out = child.wait_with_output().unwrap();
    assert!(line.starts_with("package "));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}
