//! The TUI without a terminal: `update` driven by key sequences, screens drawn on ratatui's
//! `TestBackend` and compared with snapshots at 80×24 and 160×48.

use crate::common;
use common::copy_dir;
use common::{demo, demo_copy, press, selected, tui_model as model};

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::Progress;
use fbc_edit::tui::app::{Action, Effect, Model, Pane, Prompt};
use fbc_edit::tui::keymap::Keymap;

use common::screen;

#[test]
fn browsing_with_vim_keys_and_arrows() {
    let mut m = model(&demo());
    assert_eq!(selected(&m), ["backup-operator"]);
    press(&mut m, "j");
    assert_eq!(selected(&m), ["cache-operator"]);
    press(&mut m, "l j");
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable"],
        "the default channel comes first"
    );
    press(&mut m, "l j");
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.3.0"]
    );
    // The graph pane follows the selection.
    let (g, _) = m.loaded().unwrap().graph.as_ref().unwrap();
    assert_eq!(
        (g.package.as_str(), g.channel.as_str()),
        ("cache-operator", "stable")
    );
    // h goes to the parent, then closes it, then goes up again.
    press(&mut m, "h");
    assert_eq!(selected(&m), ["cache-operator", "stable"]);
    press(&mut m, "h h");
    assert_eq!(selected(&m), ["cache-operator"]);
    press(&mut m, "G");
    assert_eq!(selected(&m), ["metrics-gateway"]);
    press(&mut m, "gg");
    assert_eq!(selected(&m), ["backup-operator"]);
    press(&mut m, "tab");
    assert_eq!(m.focus, Pane::Graph);
    press(&mut m, "q");
    assert!(m.quit);
}

#[test]
fn filter_finds_versions_and_images_and_n_moves() {
    let mut m = model(&demo());
    press(&mut m, "/");
    assert_eq!(m.prompt, Some(Prompt::Filter("".into())));
    press(&mut m, "1.2. enter");
    let l = m.loaded().unwrap();
    assert!(l.matches.len() >= 3, "{:?}", l.matches);
    assert!(l.matches.iter().all(|p| p.len() == 3));
    let first = selected(&m);
    press(&mut m, "n");
    assert_ne!(selected(&m), first);
    press(&mut m, "N");
    assert_eq!(selected(&m), first);
    insta::assert_snapshot!("filter_80x24", screen(&mut m, 80, 24));
    press(&mut m, "esc");
    assert_eq!(m.loaded().unwrap().filter, None);
    // Images match too.
    press(&mut m, "/ metrics-gateway-bundle enter");
    assert!(
        m.loaded()
            .unwrap()
            .matches
            .iter()
            .all(|p| p[0] == "metrics-gateway")
    );
}

#[test]
fn palette_completes_and_jumps() {
    let mut m = model(&demo());
    press(&mut m, ": pack tab");
    assert_eq!(m.prompt, Some(Prompt::Palette("package ".into())));
    press(&mut m, "me tab enter");
    assert_eq!(selected(&m), ["metrics-gateway"]);
    press(&mut m, ": channel space alpha enter");
    assert_eq!(selected(&m), ["metrics-gateway", "alpha"]);
    press(&mut m, ": nonsense enter");
    assert!(m.status.as_deref().unwrap().contains("unknown command"));
    // `update` asks for the export; a worker writes it and the screen says so.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.dot");
    press(
        &mut m,
        &format!(": export space dot space {}", file.display()),
    );
    let enter =
        fbc_edit::tui::input::action(&m, &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let effects = fbc_edit::tui::app::update(&mut m, enter);
    assert_eq!(
        effects,
        vec![Effect::Export {
            format: "dot".into(),
            file: file.clone()
        }]
    );
    for e in effects {
        let done = fbc_edit::tui::effects::perform(&m, e).unwrap();
        fbc_edit::tui::app::update(&mut m, done);
    }
    assert!(std::fs::read_to_string(&file).unwrap().contains("digraph"));
    assert_eq!(
        m.status.as_deref(),
        Some(format!("wrote {} (dot)", file.display()).as_str())
    );
    press(&mut m, ": quit enter");
    assert!(m.quit);
}

#[test]
fn open_asks_for_the_editor_at_the_objects_line() {
    let mut m = model(&demo());
    let effects = press(&mut m, "j l j o");
    let [Effect::OpenEditor { file, line }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(file.ends_with("cache-operator/catalog.yaml"), "{file:?}");
    assert!(*line > 1);
}

fn invalid_catalog() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/validate/stranded-entries/catalog.yaml");
    std::fs::copy(case, tmp.path().join("catalog.yaml")).unwrap();
    tmp
}

#[test]
fn problems_pane_jumps_to_the_object() {
    let tmp = invalid_catalog();
    let mut m = model(tmp.path());
    press(&mut m, "tab tab tab");
    assert_eq!(m.focus, Pane::Problems);
    press(&mut m, "enter");
    assert_eq!(selected(&m), ["demo", "stable", "demo.v1.0.0"]);
    assert!(m.status.as_deref().unwrap().contains("catalog.yaml:5:1"));
    insta::assert_snapshot!("problems_160x48", screen(&mut m, 160, 48));
    // Enter showed the problem in full; Esc closes it. Help speaks of the focused pane.
    press(&mut m, "esc ?");
    assert!(screen(&mut m, 160, 48).contains("select the object the problem is about"));
}

#[test]
fn main_screens() {
    let mut m = model(&demo());
    press(&mut m, "j l j l j");
    insta::assert_snapshot!("browse_160x48", screen(&mut m, 160, 48));
    insta::assert_snapshot!("browse_80x24", screen(&mut m, 80, 24));
    press(&mut m, "?");
    insta::assert_snapshot!("help_80x24", screen(&mut m, 80, 24));
    press(&mut m, "esc");
    assert_eq!(m.overlay, None);
}

#[test]
fn loading_shows_progress_and_an_empty_directory_says_so() {
    let progress = Arc::new(Progress::default());
    progress
        .files_total
        .store(10, std::sync::atomic::Ordering::Relaxed);
    progress
        .files_done
        .store(4, std::sync::atomic::Ordering::Relaxed);
    progress
        .bytes_total
        .store(20_000_000, std::sync::atomic::Ordering::Relaxed);
    progress
        .bytes_done
        .store(5_000_000, std::sync::atomic::Ordering::Relaxed);
    let mut m = Model::new("some/dir".into(), Keymap::default(), progress);
    let s = screen(&mut m, 80, 24);
    assert!(s.contains("4/10 files, 5 of 20 MB"), "{s}");
    // Keys work while loading (quitting, here).
    press(&mut m, "q");
    assert!(m.quit);

    let empty = tempfile::tempdir().unwrap();
    let mut m = model(empty.path());
    assert!(m.status.as_deref().unwrap().contains("no catalog objects"));
    assert!(screen(&mut m, 80, 24).contains("No catalog objects here."));
}

#[test]
fn first_frame_of_a_big_catalog_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let mut y = String::new();
    for p in 0..2000 {
        let _ = write!(
            y,
            "---\nschema: olm.package\nname: pkg-{p:04}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: pkg-{p:04}\nname: stable\nentries:\n- name: pkg-{p:04}.v1.0.0\n- name: pkg-{p:04}.v1.1.0\n  replaces: pkg-{p:04}.v1.0.0\n"
        );
        for v in ["1.0.0", "1.1.0"] {
            let _ = write!(
                y,
                "---\nschema: olm.bundle\npackage: pkg-{p:04}\nname: pkg-{p:04}.v{v}\nimage: quay.io/demo/pkg-{p:04}:v{v}\nproperties:\n- type: olm.package\n  value: {{packageName: pkg-{p:04}, version: {v}}}\n"
            );
        }
    }
    std::fs::write(tmp.path().join("catalog.yaml"), y).unwrap();
    let mut m = model(tmp.path());
    let s = screen(&mut m, 160, 48);
    assert!(s.contains("catalog · 2000 packages"), "{s}");
    assert!(s.contains("pkg-0000"));
    press(&mut m, "G");
    assert!(screen(&mut m, 160, 48).contains("pkg-1999"));
}

#[test]
fn details_show_the_bundle_and_its_deprecation() {
    let mut m = model(&demo());
    // cache-operator / stable / the oldest entry, which is deprecated.
    press(&mut m, "j l j l j j j j j");
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.0.0"]
    );
    let text = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(text.contains("version: 1.0.0"), "{text}");
    assert!(
        text.contains("image: quay.io/demo/cache-operator-bundle"),
        "{text}"
    );
    assert!(text.contains("in channels: stable, stable-1.0"), "{text}");
    assert!(text.contains("deprecated (bundle): "), "{text}");
}

#[test]
fn promote_from_the_tree_then_undo_redo_and_write() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, "j l j p");
    assert!(
        matches!(&m.dialog, Some(fbc_edit::tui::app::Dialog::PickBundle { picker, .. }) if picker.options[0] == "cache-operator.v1.5.0-rc.1"),
        "{:?} {:?}",
        m.dialog,
        m.status
    );
    insta::assert_snapshot!("promote_pick_80x24", screen(&mut m, 80, 24));
    press(&mut m, "1.4 enter");
    // The skipRange is offered (not typed: Tab takes it) from the channel's oldest version to the
    // bundle's.
    assert!(
        matches!(&m.dialog, Some(fbc_edit::tui::app::Dialog::Input { text, .. }) if text.is_empty() && text.hint() == Some(">=1.0.0 <1.4.0")),
        "{:?}",
        m.dialog
    );
    // Then the skips (none marked: none) and what it replaces (the current head, highlighted),
    // both picked from the channel's entries.
    press(&mut m, "enter");
    assert!(
        matches!(&m.dialog, Some(fbc_edit::tui::app::Dialog::Pick { picker, .. }) if picker.multi && picker.options.len() == 5),
        "{:?}",
        m.dialog
    );
    press(&mut m, "enter");
    assert!(
        matches!(&m.dialog, Some(fbc_edit::tui::app::Dialog::Pick { picker, .. }) if picker.shown()[picker.selected] == "cache-operator.v1.3.0"),
        "{:?}",
        m.dialog
    );
    press(&mut m, "enter");
    let text = screen(&mut m, 80, 24);
    assert!(
        text.contains("Promote cache-operator.v1.4.0 into cache-operator/stable?"),
        "{text}"
    );
    assert!(text.contains("The catalog stays valid."), "{text}");
    press(&mut m, "y");
    assert_eq!(m.loaded().unwrap().dirty, ["cache-operator/catalog.yaml"]);
    let text = screen(&mut m, 160, 48);
    assert!(text.contains("● 1 unsaved file"), "{text}");
    // Quitting now asks first.
    press(&mut m, "q");
    assert!(!m.quit);
    press(&mut m, "n");
    press(&mut m, "u");
    assert!(m.loaded().unwrap().dirty.is_empty());
    press(&mut m, "ctrl-r");
    assert_eq!(m.loaded().unwrap().dirty.len(), 1);
    press(&mut m, "w");
    assert!(screen(&mut m, 120, 40).contains("+  - name: cache-operator.v1.4.0"));
    press(&mut m, "y");
    assert!(
        m.status
            .as_deref()
            .unwrap()
            .starts_with("wrote cache-operator/catalog.yaml")
    );
    let text = std::fs::read_to_string(tmp.path().join("cache-operator/catalog.yaml")).unwrap();
    assert!(
        text.contains("  - name: cache-operator.v1.4.0\n    replaces: cache-operator.v1.3.0\n")
    );
    press(&mut m, "q");
    assert!(m.quit);
}

#[test]
fn skip_range_dialog_previews_matches_and_prunes() {
    let mut m = model(&demo());
    // cache-operator / stable / v1.3.0 (the head), whose skipRange is ">=1.0.0 <1.3.0".
    press(&mut m, "j l j l j r");
    for _ in 0..">=1.0.0 <1.3.0".len() {
        fbc_edit::tui::effects::press(
            &mut m,
            KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
        );
    }
    press(&mut m, ">=1.1.0 space <1.3.0 enter");
    let text = screen(&mut m, 120, 40);
    assert!(
        text.contains(
            "matches 3: cache-operator.v1.2.1, cache-operator.v1.2.0, cache-operator.v1.1.0"
        ),
        "{text}"
    );
    assert!(
        text.contains("of those, OLM v0 prunes 1: cache-operator.v1.2.1"),
        "{text}"
    );
    press(&mut m, "n");
    assert!(m.dialog.is_none());
    assert!(
        m.loaded().unwrap().dirty.is_empty(),
        "cancelling changes nothing"
    );
}

#[test]
fn promote_the_selected_bundle_into_a_picked_channel() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    // cache-operator / fast / v1.4.0 (the head of fast) into candidate? It is there; stable is not.
    press(&mut m, "j l j j j l j p");
    assert_eq!(
        selected(&m),
        ["cache-operator", "fast", "cache-operator.v1.4.0"]
    );
    let Some(fbc_edit::tui::app::Dialog::PickChannel { picker, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert_eq!(picker.options, ["stable", "stable-1.0"]);
    // Typing filters the channels.
    press(&mut m, "1.0");
    assert!(screen(&mut m, 100, 30).contains("stable-1.0"));
    fbc_edit::tui::effects::press(
        &mut m,
        KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
    );
    fbc_edit::tui::effects::press(
        &mut m,
        KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
    );
    fbc_edit::tui::effects::press(
        &mut m,
        KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
    );
    press(&mut m, "enter enter enter enter y");
    assert_eq!(m.loaded().unwrap().dirty, ["cache-operator/catalog.yaml"]);
    assert!(
        m.status
            .as_deref()
            .unwrap()
            .starts_with("promote cache-operator.v1.4.0 into cache-operator/stable")
    );
}

#[test]
fn add_a_bundle_directory_from_the_tui() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/add-bundle"),
        tmp.path(),
    );
    let mut m = model(tmp.path());
    let bundles = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/bundles");
    // Tab completes the directory name.
    press(&mut m, &format!("a {}/foo-v0 tab", bundles.display()));
    let Some(fbc_edit::tui::app::Dialog::Input { text, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert_eq!(*text, format!("{}/foo-v0.2.0/", bundles.display()));
    press(&mut m, "enter test.registry/foo:v0.2.0 enter");
    let Some(fbc_edit::tui::app::Dialog::PickChannelForNew { picker, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    // The package's channels, then the ones the bundle's annotations name that do not exist yet.
    assert_eq!(picker.options, ["stable", "beta (new)"]);
    press(&mut m, "enter");
    let Some(fbc_edit::tui::app::Dialog::Input { text, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert_eq!(
        (text.text(), text.hint()),
        ("", Some(">=0.1.0 <0.2.0")),
        "the skipRange offered spans the channel"
    );
    press(&mut m, "enter enter enter");
    assert!(
        screen(&mut m, 100, 30)
            .contains("Add bundle foo.v0.2.0 to foo and promote it into stable?")
    );
    press(&mut m, "y");
    assert_eq!(
        m.loaded().unwrap().dirty,
        ["foo/package.yaml", "foo/bundles/foo-v0.2.0.yaml"]
    );
    // A directory that is not a bundle is refused with the reason.
    press(&mut m, &format!("a {} enter", tmp.path().display()));
    assert!(m.dialog.is_none());
    assert!(
        m.status
            .as_deref()
            .unwrap()
            .contains("is not a registry+v1 bundle directory"),
        "{:?}",
        m.status
    );
}

/// Tab completion and reading a bundle directory are effects too.
#[test]
fn reading_directories_goes_out_as_effects() {
    use fbc_edit::tui::app::update as pure;
    let mut m = model(&demo());
    press(&mut m, "a /tmp/x");
    let tab = fbc_edit::tui::input::action(&m, &KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(
        pure(&mut m, tab),
        vec![Effect::CompletePath {
            text: "/tmp/x".into()
        }]
    );
    // A completion for text that was typed over meanwhile is dropped.
    press(&mut m, "y");
    pure(
        &mut m,
        Action::PathCompleted {
            from: "/tmp/x".into(),
            to: "/tmp/xyz/".into(),
            note: None,
        },
    );
    let Some(fbc_edit::tui::app::Dialog::Input { text, .. }) = &m.dialog else {
        panic!("{:?}", m.dialog);
    };
    assert_eq!(text, "/tmp/xy");
    // A directory too large to complete in says so, and the text stays as typed.
    pure(
        &mut m,
        Action::PathCompleted {
            from: "/tmp/xy".into(),
            to: "/tmp/xy".into(),
            note: Some(
                "/tmp/: more than 50000 entries; not read further, nothing completed".into(),
            ),
        },
    );
    assert_eq!(
        m.status.as_deref(),
        Some("/tmp/: more than 50000 entries; not read further, nothing completed")
    );
    let enter =
        fbc_edit::tui::input::action(&m, &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(
        pure(&mut m, enter),
        vec![Effect::CheckBundleDir {
            dir: "/tmp/xy".into()
        }]
    );
}

/// After an edit only the edited package's part of the tree is built again: it reads the same as
/// the whole tree built afresh (`:validate` rebuilds it all).
#[test]
fn the_tree_after_an_edit_is_the_tree_built_afresh() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    // Open two packages, make cache-operator's default channel another one, and delete a channel
    // of it so that its problems change.
    press(&mut m, "j l k l j d j d y");
    let without_status = |text: String| -> String {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.pop();
        lines.join("\n")
    };
    let incremental = without_status(screen(&mut m, 120, 40));
    press(&mut m, ": validate enter");
    let afresh = without_status(screen(&mut m, 120, 40));
    assert_eq!(incremental, afresh);
    press(&mut m, "u");
    let undone = without_status(screen(&mut m, 120, 40));
    press(&mut m, ": validate enter");
    assert_eq!(undone, without_status(screen(&mut m, 120, 40)));
    assert_ne!(undone, incremental);
}
