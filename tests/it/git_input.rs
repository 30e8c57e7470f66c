//! `diff --git REV` on a repository and a revision name that are input: the name is never read as
//! an option, names are read as stored, only regular files are written out, budgets are checked
//! before anything is read, and the repository's configuration runs no program.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common::{copy_dir, demo};

/// A repository holding the demo catalog in `catalog/`, committed.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), &tmp.path().join("catalog"));
    git(tmp.path(), &["init", "-q"]);
    commit(tmp.path());
    let dir = tmp.path().join("catalog");
    (tmp, dir)
}

fn git(repo: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn commit(repo: &Path) {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "catalog"]);
}

/// `fbc-edit diff DIR --git=REV`: exit code, standard output, standard error.
fn diff_git(dir: &Path, rev: &str, limits: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::cargo_bin("fbc-edit").unwrap();
    cmd.env_remove("FBC_EDIT_LIMITS");
    if let Some(l) = limits {
        cmd.env("FBC_EDIT_LIMITS", l);
    }
    let out = cmd
        .arg("diff")
        .arg(dir)
        .arg(format!("--git={rev}"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_revision_git_would_read_as_an_option_is_refused_with_a_plain_message() {
    let (_tmp, dir) = repo();
    for rev in ["--format=../../escaped", "-p", "--output=/tmp/x"] {
        let (code, _, err) = diff_git(&dir, rev, None);
        assert_eq!(code, 2, "{rev}: {err}");
        assert_eq!(
            err.trim(),
            format!(
                "fbc-edit: {rev:?} is not a revision name: it starts with '-', and would be read as an option"
            )
        );
    }
    assert_eq!(diff_git(&dir, "HEAD", None).0, 0);
}

#[test]
fn names_git_would_quote_are_read_as_stored() {
    let (tmp, dir) = repo();
    std::fs::rename(dir.join("cache-operator"), dir.join("cache-opérateur")).unwrap();
    std::fs::rename(
        dir.join("backup-operator/bundles/backup-operator.v2.0.0.yaml"),
        dir.join("backup-operator/bundles/backup operator \"v2.0.0\".yaml"),
    )
    .unwrap();
    commit(tmp.path());
    let (code, out, err) = diff_git(&dir, "HEAD", None);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    // A change after the revision is still seen.
    let removed = dir.join("cache-opérateur/deprecations.yaml");
    std::fs::remove_file(&removed).unwrap();
    let (code, out, err) = diff_git(&dir, "HEAD", None);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("cache-operator"), "{out}");
}

#[test]
fn a_submodule_or_a_link_at_the_revision_is_not_written_out() {
    let (tmp, dir) = repo();
    // A submodule whose commit the repository does not hold, and a link leading out.
    git(
        tmp.path(),
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{},catalog/sub", "1".repeat(40)),
        ],
    );
    std::os::unix::fs::symlink("/etc/passwd", dir.join("passwd.yaml")).unwrap();
    git(tmp.path(), &["add", "catalog/passwd.yaml"]);
    git(tmp.path(), &["commit", "-q", "-m", "odd entries"]);
    std::fs::remove_file(dir.join("passwd.yaml")).unwrap();
    let (code, out, err) = diff_git(&dir, "HEAD", None);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
}

#[test]
fn budgets_are_checked_on_the_listing_before_any_file_is_read() {
    let (_tmp, dir) = repo();
    let (code, _, err) = diff_git(&dir, "HEAD", Some("extract-files=3"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the revision holds 10 files (the extract-files budget, 3)")
            && err.contains("--limit extract-files=VALUE")
            && err.contains("nothing written"),
        "{err}"
    );
    let (code, _, err) = diff_git(&dir, "HEAD", Some("extract-bytes=1KiB"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("(the extract-bytes budget, 1 KiB)"), "{err}");
    assert_eq!(diff_git(&dir, "HEAD", Some("extract-files=10")).0, 0);
}

/// A partial clone missing a blob fetches it on demand, with whatever `core.sshCommand` the
/// repository names: reading the revision must start no transport and run no program.
#[test]
fn the_repository_configuration_runs_no_program() {
    let (tmp, dir) = repo();
    let root = tmp.path();
    let oid = git(
        root,
        &["rev-parse", "HEAD:catalog/cache-operator/catalog.yaml"],
    );
    std::fs::remove_file(root.join(format!(".git/objects/{}/{}", &oid[..2], &oid[2..]))).unwrap();
    let marker = root.join("ran");
    for (k, v) in [
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.promisor", "true"),
        ("remote.origin.url", "ssh://example.invalid/repo"),
        (
            "core.sshCommand",
            &format!("sh -c 'touch {}; exit 1'", marker.display()),
        ),
        (
            "core.fsmonitor",
            &format!("sh -c 'touch {}'", marker.display()),
        ),
        ("core.pager", &format!("sh -c 'touch {}'", marker.display())),
    ] {
        git(root, &["config", k, v]);
    }
    let (code, _, err) = diff_git(&dir, "HEAD", None);
    assert!(
        !marker.exists(),
        "a program the repository names ran: {err}"
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "\"cache-operator/catalog.yaml\" at HEAD: the repository does not hold its content"
        ),
        "{err}"
    );
}
