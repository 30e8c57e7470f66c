//! `fbc-edit diff`: changes by meaning on real catalog pairs and on copies with one known edit each.

use crate::common;
use common::copy_dir;
use common::real;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::catalog::{Node, load};
use fbc_core::diff;
use fbc_core::edit::{Edit, Target};

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
fn edited(edit: impl FnOnce(&mut fbc_core::catalog::Catalog)) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut c = load(tmp.path()).unwrap();
    edit(&mut c);
    c.save().unwrap();
    tmp
}

/// A copy of the demo catalog with one piece of text of one file rewritten (it occurs once).
fn rewritten(file: &str, from: &str, to: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let path = tmp.path().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches(from).count(), 1, "{from:?} in {file}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    tmp
}

/// A directory holding one `catalog.yaml` with this text.
fn catalog_dir(yaml: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("catalog.yaml"), yaml).unwrap();
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
    let (a, b) = (
        real("openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog"),
        real("openshift__cluster-kube-descheduler-operator__fbc-v4.20-catalog"),
    );
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
    let (a, b) = (
        real("openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog"),
        real("openshift__cluster-kube-descheduler-operator__fbc-v4.20-catalog"),
    );
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

#[test]
fn a_skip_range_rewritten_to_match_the_same_entries_is_reported() {
    // 1.3.0's range still matches 1.0.0 to 1.2.1, so no edge moves; the text does, and with it the
    // versions outside the channel (a 1.2.5 hotfix, say) that OLM would upgrade from.
    let new = rewritten(
        "cache-operator/catalog.yaml",
        r#"skipRange: ">=1.0.0 <1.3.0""#,
        r#"skipRange: ">=1.0.0 <1.2.2""#,
    );
    let d = diff::diff(&load(&demo()).unwrap(), &load(new.path()).unwrap());
    let [p] = d.packages.as_slice() else {
        panic!("{d:?}")
    };
    let [c] = p.channels.as_slice() else {
        panic!("{p:?}")
    };
    assert_eq!(c.name, "stable");
    assert!(
        c.edges_added.is_empty() && c.edges_removed.is_empty(),
        "{c:?}"
    );

    let (demo, new) = (demo(), new.path().to_path_buf());
    let (demo, new) = (demo.to_str().unwrap(), new.to_str().unwrap());
    let (code, text) = fbc(&["diff", demo, new]);
    assert_eq!(code, 1, "a change is a change");
    assert_eq!(
        text,
        "package cache-operator (changed)\n  channel stable:\n    ~ skipRange of cache-operator.v1.3.0: \">=1.0.0 <1.3.0\" → \">=1.0.0 <1.2.2\": now covers 1.0.0–1.2.1 (4 entries)\n"
    );
    let (code, md) = fbc(&["diff", demo, new, "-o", "markdown"]);
    assert_eq!(code, 1);
    assert!(
        md.contains(
            "  - skipRange of `cache-operator.v1.3.0`: `>=1.0.0 <1.3.0` → `>=1.0.0 <1.2.2`: now covers 1.0.0–1.2.1 (4 entries)\n"
        ),
        "{md}"
    );
    let (code, json) = fbc(&["diff", demo, new, "-o", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["packages"][0]["channels"][0]["skip_ranges_changed"],
        serde_json::json!([{
            "entry": "cache-operator.v1.3.0",
            "old": ">=1.0.0 <1.3.0",
            "new": ">=1.0.0 <1.2.2"
        }])
    );
}

#[test]
fn a_skip_range_added_or_dropped_is_reported_with_none_on_the_missing_side() {
    let dropped = rewritten(
        "cache-operator/catalog.yaml",
        "    skipRange: \">=1.1.0 <1.3.0\"\n",
        "",
    );
    let d = diff::diff(&load(&demo()).unwrap(), &load(dropped.path()).unwrap());
    assert!(
        diff::text(&d)
            .contains("    ~ skipRange of cache-operator.v1.3.0: \">=1.1.0 <1.3.0\" → (none): no longer covers 1.2.0 (1 entry)\n"),
        "{}",
        diff::text(&d)
    );
    // The link the range made is said by its line, not as an edge of its own.
    assert!(
        !diff::text(&d).contains("(skipRange)"),
        "{}",
        diff::text(&d)
    );
    // And back: the same change the other way.
    let d = diff::diff(&load(dropped.path()).unwrap(), &load(&demo()).unwrap());
    let r = &d.packages[0].channels[0].skip_ranges_changed;
    assert_eq!(
        (r[0].old.as_deref(), r[0].new.as_deref()),
        (None, Some(">=1.1.0 <1.3.0"))
    );
}

#[test]
fn replaces_and_skips_naming_bundles_outside_the_channel_are_compared() {
    let channel = |replaces: &str, skips: &str| {
        format!(
            "---\nschema: olm.package\nname: demo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: demo\nname: stable\nentries:\n- name: demo.v1.1.0\n  replaces: {replaces}\n  skips:\n  - {skips}\n- name: demo.v1.2.0\n  replaces: demo.v1.1.0\n"
        )
    };
    let old = catalog_dir(&channel("demo.v1.0.0", "demo.v0.9.0"));
    let new = catalog_dir(&channel("demo.v1.0.1", "demo.v0.9.0"));
    let d = diff::diff(&load(old.path()).unwrap(), &load(new.path()).unwrap());
    assert_eq!(
        diff::text(&d),
        "package demo (changed)\n  channel stable:\n    + edge demo.v1.0.1 → demo.v1.1.0 (replaces)\n    - edge demo.v1.0.0 → demo.v1.1.0 (replaces)\n"
    );
    let new = catalog_dir(&channel("demo.v1.0.0", "demo.v0.9.1"));
    let d = diff::diff(&load(old.path()).unwrap(), &load(new.path()).unwrap());
    assert_eq!(
        diff::text(&d),
        "package demo (changed)\n  channel stable:\n    + edge demo.v0.9.1 → demo.v1.1.0 (skips)\n    - edge demo.v0.9.0 → demo.v1.1.0 (skips)\n"
    );
}

/// Files the other side lacks or holds under another name: a package whose remaining files are
/// byte for byte the same still shows the bundle that went, and a renamed file changes nothing.
#[test]
fn a_removed_or_renamed_file_of_an_unchanged_package() {
    let (old, new) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    copy_dir(&demo(), old.path());
    copy_dir(&demo(), new.path());
    let bundles = new.path().join("backup-operator/bundles");
    std::fs::remove_file(bundles.join("backup-operator.v2.1.1.yaml")).unwrap();
    let d = diff::diff(&load(old.path()).unwrap(), &load(new.path()).unwrap());
    let [p] = d.packages.as_slice() else {
        panic!("{:#?}", d.packages)
    };
    assert_eq!(p.name, "backup-operator");
    assert_eq!(p.bundles_removed, ["backup-operator.v2.1.1"]);

    let before = load(new.path()).unwrap();
    std::fs::rename(
        bundles.join("backup-operator.v2.0.0.yaml"),
        bundles.join("zz-backup-operator.v2.0.0.yaml"),
    )
    .unwrap();
    let d = diff::diff(&before, &load(new.path()).unwrap());
    assert!(d.is_empty(), "{:#?}", d.packages);
}
