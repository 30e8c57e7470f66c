//! Keys and the mouse in the TUI: keys are resolved in the keymap layer on top before `update`
//! sees them, the user's config adds bindings per layer, and the mouse acts on the pane under it.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{screen, selected};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use fbc_core::catalog::Progress;
use fbc_edit::tui::app::{Action, Dialog, Model, Pane};
use fbc_edit::tui::effects::{press as press_key, settle as update};
use fbc_edit::tui::input::{Input, resolve};
use fbc_edit::tui::keymap::{Command, Keymap, with_overrides};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")
}

fn model_with(keymap: Keymap, width: u16, height: u16) -> Model {
    let dir = demo();
    let mut m = Model::new(dir.clone(), keymap, Arc::new(Progress::default()));
    update(&mut m, Action::Resize { width, height });
    update(&mut m, fbc_edit::tui::effects::load(&dir, None));
    m
}

fn model() -> Model {
    model_with(Keymap::default(), 120, 40)
}

/// Thirty packages, each with a channel whose entry has no bundle: a long tree and a problem each.
fn many_problems() -> (tempfile::TempDir, Model) {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..30 {
        text.push_str(&format!(
            "---\nschema: olm.package\nname: p{i:02}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: p{i:02}\nname: stable\nentries:\n  - name: p{i:02}.v1.0.0\n"
        ));
    }
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let mut m = Model::new(
        tmp.path().to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    update(
        &mut m,
        Action::Resize {
            width: 120,
            height: 24,
        },
    );
    update(&mut m, fbc_edit::tui::effects::load(tmp.path(), None));
    (tmp, m)
}

fn ev(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn chars(m: &mut Model, keys: &str) {
    for c in keys.chars().filter(|c| *c != ' ') {
        press_key(m, ev(KeyCode::Char(c)));
    }
}

fn mouse(m: &mut Model, kind: MouseEventKind, column: u16, row: u16) {
    update(
        m,
        Action::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        }),
    );
}

#[test]
fn the_same_key_means_what_the_layer_on_top_says() {
    let mut m = model();
    let n = ev(KeyCode::Char('n'));
    assert_eq!(resolve(&m, &n), Input::Command(Command::NextMatch));
    // A confirmation is open: `n` answers it.
    chars(&mut m, "j l j j d");
    assert!(matches!(m.dialog, Some(Dialog::Confirm { .. })));
    assert_eq!(resolve(&m, &n), Input::Command(Command::Cancel));
    chars(&mut m, "n");
    assert!(m.dialog.is_none());
    // In the filter prompt it is typed.
    chars(&mut m, "/");
    assert_eq!(resolve(&m, &n), Input::Text('n'));
    // The first key of a sequence waits for the next.
    press_key(&mut m, ev(KeyCode::Esc));
    assert_eq!(
        resolve(&m, &ev(KeyCode::Char('g'))),
        Input::Pending(fbc_edit::tui::keymap::Key::parse("g").unwrap())
    );
}

#[test]
fn shift_tab_goes_to_the_previous_pane() {
    let mut m = model();
    // Terminals send BackTab with the Shift modifier.
    press_key(&mut m, KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    assert_eq!(m.focus, Pane::Problems);
    press_key(&mut m, KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    assert_eq!(m.focus, Pane::Details);
}

#[test]
fn ctrl_c_leaves_a_prompt_and_a_picker_without_quitting() {
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let mut m = model();
    chars(&mut m, "/cache");
    press_key(&mut m, ctrl_c);
    assert!(m.prompt.is_none());
    assert!(!m.quit);
    // cache-operator / stable: promote asks which bundle.
    chars(&mut m, "j l j p");
    assert!(matches!(m.dialog, Some(Dialog::PickBundle { .. })));
    press_key(&mut m, ctrl_c);
    assert!(m.dialog.is_none());
    assert!(!m.quit);
    press_key(&mut m, ctrl_c);
    assert!(m.quit, "in a pane ctrl-c quits");
}

#[test]
fn help_scrolls_when_the_terminal_is_short() {
    let mut m = model_with(Keymap::default(), 80, 16);
    chars(&mut m, "?");
    let top = screen(&mut m, 80, 16);
    assert!(top.contains("move down"), "{top}");
    for _ in 0..30 {
        chars(&mut m, "j");
    }
    let bottom = screen(&mut m, 80, 16);
    assert!(!bottom.contains("move down"), "{bottom}");
    assert!(
        bottom.contains("graph: switch between OLM v0 and OLM v1"),
        "the last binding is reachable: {bottom}"
    );
    press_key(&mut m, ev(KeyCode::Esc));
    assert!(!screen(&mut m, 80, 16).contains("help ·"));
}

#[test]
fn bindings_prepended_in_the_config_come_first_and_show_in_help() {
    let cfg =
        "keymap:\n  tree:\n    prepend:\n      - {on: J, run: bottom, desc: to the last package}\n";
    let (keymap, warning) = with_overrides(cfg, "config.yaml");
    assert_eq!(warning, None);
    let mut m = model_with(keymap, 120, 40);
    chars(&mut m, "J");
    assert_eq!(selected(&m), ["metrics-gateway"]);
    chars(&mut m, "?");
    assert!(screen(&mut m, 120, 40).contains("to the last package"));
    // The graph pane has its own layer: J is nothing there.
    chars(&mut m, "? gg");
    press_key(&mut m, ev(KeyCode::Tab));
    assert_eq!(
        resolve(&m, &ev(KeyCode::Char('J'))),
        Input::Other,
        "tree bindings stay in the tree"
    );
}

#[test]
fn the_palette_runs_a_keys_command_by_name() {
    let mut m = model();
    chars(&mut m, "j l j j d y");
    assert!(m.loaded().unwrap().ws.is_dirty());
    chars(&mut m, ":undo");
    press_key(&mut m, ev(KeyCode::Enter));
    assert!(!m.loaded().unwrap().ws.is_dirty(), "{:?}", m.status);
    chars(&mut m, ":red");
    press_key(&mut m, ev(KeyCode::Tab));
    assert_eq!(
        m.prompt,
        Some(fbc_edit::tui::app::Prompt::Palette("redo".into()))
    );
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer_and_a_click_focuses_it() {
    let (_tmp, mut m) = many_problems();
    let areas = m.areas();
    let problems = areas.problems;
    let rows = m.loaded().unwrap().problem_rows();
    assert!(rows > 3, "the demo has problems to scroll: {rows}");
    // The wheel over the problems pane moves the problems, not the tree.
    mouse(
        &mut m,
        MouseEventKind::ScrollDown,
        problems.x + 5,
        problems.y + 2,
    );
    assert_eq!(m.loaded().unwrap().problem, 3);
    assert_eq!(m.loaded().unwrap().tree_offset, 0);
    assert_eq!(m.focus, Pane::Tree, "the wheel does not move the focus");
    // The pane shows three problems, the selected one last (1, 2, 3): a click on the second row
    // selects problem 2 and focuses the pane.
    mouse(
        &mut m,
        MouseEventKind::Down(MouseButton::Left),
        problems.x + 5,
        problems.y + 2,
    );
    assert_eq!(m.focus, Pane::Problems);
    assert_eq!(m.loaded().unwrap().problem, 2);
    // The wheel over the tree never scrolls past its last row.
    let tree = areas.tree;
    for _ in 0..50 {
        mouse(&mut m, MouseEventKind::ScrollDown, tree.x + 3, tree.y + 3);
    }
    let l = m.loaded().unwrap();
    let visible = l.tree.flatten(&l.items).len();
    let page = (tree.height - 2) as usize;
    assert!(visible > page, "{visible} rows in a pane of {page}");
    assert_eq!(l.tree_offset, visible.saturating_sub(page));
    // A click in the tree selects the row under it.
    mouse(
        &mut m,
        MouseEventKind::Down(MouseButton::Left),
        tree.x + 4,
        tree.y + 1,
    );
    assert_eq!(m.focus, Pane::Tree);
    let l = m.loaded().unwrap();
    let first_on_screen = l.tree.flatten(&l.items)[l.tree_offset].identifier.clone();
    assert_eq!(selected(&m), first_on_screen);
}

fn demo_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&demo(), tmp.path());
    tmp
}

fn model_of(dir: &Path) -> Model {
    let mut m = Model::new(
        dir.to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    update(
        &mut m,
        Action::Resize {
            width: 80,
            height: 24,
        },
    );
    update(&mut m, fbc_edit::tui::effects::load(dir, None));
    m
}

/// The editor has been and gone: the runtime reads the catalog again.
fn back_from_the_editor(m: &mut Model, dir: &Path) {
    update(m, fbc_edit::tui::effects::load(dir, None));
}

fn open_with_an_unsaved_edit() -> (tempfile::TempDir, Model) {
    let tmp = demo_copy();
    let mut m = model_of(tmp.path());
    // cache-operator's default channel becomes its second channel; then `o` on backup-operator.
    chars(&mut m, "j l j j d y");
    assert!(m.loaded().unwrap().ws.is_dirty());
    chars(&mut m, "gg o");
    assert!(
        matches!(m.dialog, Some(Dialog::OpenUnsaved { .. })),
        "{:?}",
        m.dialog
    );
    (tmp, m)
}

#[test]
fn open_with_unsaved_edits_asks_and_keeps_them_through_the_editor() {
    let (tmp, mut m) = open_with_an_unsaved_edit();
    insta::assert_snapshot!("open_unsaved_80x24", screen(&mut m, 80, 24));
    let effects = fbc_edit::tui::effects::press(&mut m, ev(KeyCode::Char('o')));
    assert!(
        matches!(
            effects.as_slice(),
            [fbc_edit::tui::app::Effect::OpenEditor { .. }]
        ),
        "{effects:?}"
    );
    // In the editor the user changes another package's file.
    let other = tmp.path().join("backup-operator/package.yaml");
    let text = std::fs::read_to_string(&other).unwrap();
    std::fs::write(
        &other,
        text.replace("defaultChannel: stable", "defaultChannel: stable-2.1"),
    )
    .unwrap();
    back_from_the_editor(&mut m, tmp.path());
    let l = m.loaded().unwrap();
    assert!(
        l.ws.is_dirty(),
        "the unsaved edit is applied again: {:?}",
        m.status
    );
    assert_eq!(l.dirty, ["cache-operator/catalog.yaml"]);
    assert!(
        m.status
            .as_deref()
            .unwrap()
            .contains("1 of 1 unsaved edit applied again"),
        "{:?}",
        m.status
    );
    // And the editor's change is there too.
    let catalog = l.ws.catalog();
    let idx = catalog.index().package("backup-operator").unwrap();
    let pkg =
        fbc_core::catalog::model::Package::read(&catalog.blob(idx.packages[0]).value).unwrap();
    assert_eq!(pkg.default_channel, "stable-2.1");
}

#[test]
fn open_with_unsaved_edits_can_drop_them_or_write_them_first() {
    let (tmp, mut m) = open_with_an_unsaved_edit();
    let effects = fbc_edit::tui::effects::press(&mut m, ev(KeyCode::Char('d')));
    assert!(matches!(
        effects.as_slice(),
        [fbc_edit::tui::app::Effect::OpenEditor { .. }]
    ));
    back_from_the_editor(&mut m, tmp.path());
    assert!(!m.loaded().unwrap().ws.is_dirty(), "dropped");

    let (tmp, mut m) = open_with_an_unsaved_edit();
    let before = std::fs::read_to_string(tmp.path().join("cache-operator/catalog.yaml")).unwrap();
    // `y` writes first; once the save is through, the editor opens.
    let effects = fbc_edit::tui::effects::press(&mut m, ev(KeyCode::Char('y')));
    assert!(
        matches!(
            effects.as_slice(),
            [fbc_edit::tui::app::Effect::OpenEditor { .. }]
        ),
        "{effects:?} {:?}",
        m.status
    );
    let after = std::fs::read_to_string(tmp.path().join("cache-operator/catalog.yaml")).unwrap();
    assert_ne!(before, after, "written before the editor opens");
    assert!(!m.loaded().unwrap().ws.is_dirty());

    // Any other key stays, edits kept, nothing opened.
    let (_tmp, mut m) = open_with_an_unsaved_edit();
    let effects = fbc_edit::tui::effects::press(&mut m, ev(KeyCode::Esc));
    assert!(effects.is_empty());
    assert!(m.dialog.is_none());
    assert!(m.loaded().unwrap().ws.is_dirty());
}

#[test]
fn a_confirmation_keeps_a_names_case_and_counts_read_right() {
    let mut m = model();
    // cache-operator / stable / its head: add a skip.
    chars(&mut m, "j l j l j s cache-operator.v1.0.0");
    press_key(&mut m, ev(KeyCode::Enter));
    let Some(Dialog::Confirm { lines, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert!(
        lines[0].starts_with("cache-operator.v1.3.0 in stable also skips"),
        "{}",
        lines[0]
    );
    press_key(&mut m, ev(KeyCode::Esc));
    let text = screen(&mut m, 120, 40);
    assert!(text.contains("problems · 0 errors, 0 warnings"), "{text}");
    assert!(!text.contains(" 1 bundles)"), "{text}");
}
