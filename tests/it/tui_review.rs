//! Review mode's extras: the enlarged changes pane, `--compare git:REV`, and the changes written as
//! Markdown from the palette.

use crate::common::{copy_dir, screen};

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::{Progress, load};
use fbc_edit::tui::Compare;
use fbc_edit::tui::app::{Action, Model, Pane};
use fbc_edit::tui::effects::settle as update;
use fbc_edit::tui::keymap::Keymap;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")
}

/// Takes cache-operator.v1.1.0 out of stable in the catalog in `dir`, and saves it.
fn remove_v110(dir: &std::path::Path) {
    let mut c = load(dir).unwrap();
    fbc_core::edit::Edit::RemoveEntry {
        package: "cache-operator".into(),
        channel: "stable".into(),
        entry: "cache-operator.v1.1.0".into(),
    }
    .apply(&mut c)
    .unwrap();
    c.save().unwrap();
}

/// A copy of the demo catalog with cache-operator.v1.1.0 taken out of stable.
fn edited_demo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    remove_v110(tmp.path());
    tmp
}

fn review(new: &Path, old: fbc_core::catalog::Catalog) -> Model {
    let mut m = Model::new(
        new.to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    update(&mut m, fbc_edit::tui::effects::load(new, None));
    update(&mut m, Action::CompareLoaded(Ok(Box::new(old))));
    m
}

/// Types `text` key by key (spaces included, `\t` as Tab).
fn typed(m: &mut Model, text: &str) {
    for c in text.chars() {
        let code = if c == '\t' {
            KeyCode::Tab
        } else {
            KeyCode::Char(c)
        };
        fbc_edit::tui::effects::press(m, KeyEvent::new(code, KeyModifiers::NONE));
    }
}

fn enter(m: &mut Model) {
    fbc_edit::tui::effects::press(m, KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
}

fn change_texts(m: &Model) -> Vec<String> {
    let l = m.loaded().unwrap();
    l.changes.iter().map(|c| c.text.clone()).collect()
}

#[test]
fn z_enlarges_the_changes_pane_and_gives_the_height_back() {
    let new = edited_demo();
    let mut m = review(new.path(), load(&demo()).unwrap());
    let before = m.areas().problems.height;
    typed(&mut m, "\t\t\t");
    assert_eq!(m.focus, Pane::Problems);
    typed(&mut m, "z");
    assert!(m.enlarged);
    insta::assert_snapshot!("review_enlarged_100x30", screen(&mut m, 100, 30));
    let enlarged = m.areas().problems.height;
    assert!(enlarged > 20 && before < 10, "{before} → {enlarged}");
    typed(&mut m, "z");
    assert_eq!(m.areas().problems.height, before);
}

#[test]
fn z_is_in_the_problems_panes_help() {
    let new = edited_demo();
    let mut m = review(new.path(), load(&demo()).unwrap());
    typed(&mut m, "\t\t\t?");
    let s = screen(&mut m, 100, 40);
    assert!(s.contains("z: enlarge the pane"), "{s}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Process::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn compare_with_a_git_revision_loads_the_older_commit() {
    let repo = tempfile::tempdir().unwrap();
    copy_dir(&demo(), repo.path());
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-qm", "first"]);
    remove_v110(repo.path());
    git(repo.path(), &["commit", "-qam", "second"]);

    let scratch = tempfile::tempdir().unwrap();
    let older = Compare::Git {
        dir: repo.path().to_path_buf(),
        rev: "HEAD~1".into(),
    };
    let old = older.load(scratch.path()).unwrap();
    let m = review(repo.path(), old);
    assert_eq!(
        change_texts(&m)[..2],
        [
            "package cache-operator changed",
            "  stable: - cache-operator.v1.1.0"
        ]
    );
    // The revision's files, not the working tree's: at HEAD there is nothing to show.
    let head = Compare::Git {
        dir: repo.path().to_path_buf(),
        rev: "HEAD".into(),
    };
    let scratch = tempfile::tempdir().unwrap();
    let m = review(repo.path(), head.load(scratch.path()).unwrap());
    assert!(change_texts(&m).is_empty());
    // A revision git does not know is an error naming it.
    let bad = Compare::Git {
        dir: repo.path().to_path_buf(),
        rev: "no-such-rev".into(),
    };
    let e = bad.load(tempfile::tempdir().unwrap().path()).unwrap_err();
    assert!(
        e.starts_with("--compare git:no-such-rev: git ls-tree"),
        "{e}"
    );
}

#[test]
fn export_changes_writes_the_markdown_diff_renders() {
    let new = edited_demo();
    let old = load(&demo()).unwrap();
    let expected =
        fbc_core::diff::markdown(&fbc_core::diff::diff(&old, &load(new.path()).unwrap()));
    let mut m = review(new.path(), old);
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("changes.md");
    typed(&mut m, &format!(":export-changes {}", file.display()));
    enter(&mut m);
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written, expected);
    assert!(written.starts_with("## Catalog changes\n"), "{written}");
    assert!(written.contains("cache-operator.v1.1.0"), "{written}");
    assert_eq!(
        m.status.as_deref(),
        Some(format!("wrote {} (Markdown)", file.display()).as_str())
    );
}

#[test]
fn export_changes_outside_review_mode_says_why() {
    let mut m = Model::new(demo(), Keymap::default(), Arc::new(Progress::default()));
    update(&mut m, fbc_edit::tui::effects::load(&demo(), None));
    typed(&mut m, ":export-changes x.md");
    enter(&mut m);
    assert!(
        m.status
            .as_deref()
            .unwrap_or("")
            .contains("outside review mode"),
        "{:?}",
        m.status
    );
    assert!(!Path::new("x.md").exists());
}
