//! The graph pane's cursor (moved over the entries, their edges highlighted, Enter and edit keys
//! acting on its entry, following the tree) and the filter that applies while it is typed.

use crate::common;
use common::{copy_dir, screen, selected};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::Progress;
use fbc_edit::tui::app::{Action, Dialog, Model, Pane, PickFor, build_tree};
use fbc_edit::tui::effects::settle;
use fbc_edit::tui::keymap::Keymap;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")
}

fn model() -> (tempfile::TempDir, Model) {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut m = Model::new(
        tmp.path().to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    settle(&mut m, fbc_edit::tui::effects::load(tmp.path(), None));
    screen(&mut m, 100, 30);
    (tmp, m)
}

/// Presses keys written like `j l / tab`: words are keys (`enter`, `esc`, `tab`, `backtab`,
/// `backspace`), anything else is typed character by character.
fn press(m: &mut Model, keys: &str) {
    for word in keys.split(' ').filter(|w| !w.is_empty()) {
        let code = match word {
            "enter" => Some(KeyCode::Enter),
            "esc" => Some(KeyCode::Esc),
            "tab" => Some(KeyCode::Tab),
            "backtab" => Some(KeyCode::BackTab),
            "backspace" => Some(KeyCode::Backspace),
            _ => None,
        };
        let events: Vec<KeyEvent> = match code {
            Some(c) => vec![KeyEvent::new(c, KeyModifiers::NONE)],
            None => word
                .chars()
                .map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
                .collect(),
        };
        for ev in events {
            fbc_edit::tui::effects::press(m, ev);
        }
    }
}

/// The entry under the graph cursor.
fn cursor(m: &Model) -> String {
    m.loaded()
        .unwrap()
        .graph_cursor
        .get(2)
        .cloned()
        .unwrap_or_default()
}

/// cache-operator's stable channel selected in the tree (entries newest first: v1.3.0, v1.2.1,
/// v1.2.0, v1.1.0, v1.0.0; v1.3.0 replaces v1.2.0, skips v1.2.1, and its skipRange covers 1.0–1.2).
const STABLE: &str = "j l j";

#[test]
fn the_cursor_moves_over_the_entries_and_shows_their_edges() {
    let (_tmp, mut m) = model();
    press(&mut m, &format!("{STABLE} tab"));
    assert_eq!(m.focus, Pane::Graph);
    // The channel, not an entry, is selected: the cursor starts on the graph's first entry.
    assert_eq!(cursor(&m), "cache-operator.v1.3.0");
    press(&mut m, "j");
    assert_eq!(cursor(&m), "cache-operator.v1.2.1");
    // The tree keeps its selection until Enter.
    assert_eq!(selected(&m), ["cache-operator", "stable"]);
    let text = screen(&mut m, 100, 30);
    insta::assert_snapshot!("graph_cursor_on_v1_2_1_100x30", text);
    assert!(
        text.contains("cache-operator.v1.2.1: replaces → cache-operator.v1.2.0"),
        "{text}"
    );
    assert!(
        text.contains("skipped by ← cache-operator.v1.3.0"),
        "{text}"
    );
    // What it replaces is marked →, what skips it ←.
    assert!(text.contains("→ cache-operator.v1.2.0"), "{text}");
    assert!(text.contains("← cache-operator.v1.3.0"), "{text}");
    // G to the last entry, g g back to the first; the cursor stays on entries.
    press(&mut m, "G");
    assert_eq!(cursor(&m), "cache-operator.v1.0.0");
    press(&mut m, "j");
    assert_eq!(cursor(&m), "cache-operator.v1.0.0");
    press(&mut m, "gg");
    assert_eq!(cursor(&m), "cache-operator.v1.3.0");
    // The wheel over the focused graph moves the cursor (three entries a notch).
    let wheel = crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::ScrollDown,
        column: 60,
        row: 5,
        modifiers: KeyModifiers::NONE,
    };
    fbc_edit::tui::app::update(&mut m, Action::Mouse(wheel));
    assert_eq!(cursor(&m), "cache-operator.v1.1.0");
}

#[test]
fn enter_and_l_select_the_cursors_entry_in_the_tree() {
    let (_tmp, mut m) = model();
    press(&mut m, &format!("{STABLE} tab j j enter"));
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.2.0"]
    );
    assert_eq!(m.focus, Pane::Graph);
    assert_eq!(
        m.status.as_deref(),
        Some("cache-operator.v1.2.0 selected in the tree")
    );
    // The details follow the tree.
    let details = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(details.contains("cache-operator.v1.2.0"), "{details}");
    press(&mut m, "k l");
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.2.1"]
    );
    // The graph pane's help lists both keys.
    press(&mut m, "?");
    let help = screen(&mut m, 100, 30);
    assert!(
        help.lines()
            .any(|l| l.contains("l/enter") && l.contains("select / jump to the problem or entry")),
        "{help}"
    );
    assert!(
        help.contains("select the cursor's entry in the tree"),
        "{help}"
    );
}

#[test]
fn an_edit_key_in_the_graph_pane_acts_on_the_cursors_entry() {
    let (_tmp, mut m) = model();
    // The tree is on v1.3.0; the cursor goes two entries down to v1.2.0.
    press(&mut m, &format!("{STABLE} l j tab j j R"));
    match &m.dialog {
        Some(Dialog::Pick {
            then: PickFor::SetReplaces { entry, .. },
            ..
        }) => assert_eq!(entry, "cache-operator.v1.2.0"),
        other => panic!("{other:?} {:?}", m.status),
    }
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.2.0"]
    );
}

#[test]
fn the_cursor_follows_the_tree_selection() {
    let (_tmp, mut m) = model();
    press(&mut m, &format!("{STABLE} l j j"));
    assert_eq!(cursor(&m), "cache-operator.v1.2.1");
    press(&mut m, "j j");
    assert_eq!(cursor(&m), "cache-operator.v1.1.0");
    // And into the pane: the cursor is where the tree left it.
    press(&mut m, "tab");
    let text = screen(&mut m, 100, 30);
    assert!(
        text.contains("cache-operator.v1.1.0: replaces → cache-operator.v1.0.0"),
        "{text}"
    );
    // Another channel: the cursor goes to its first entry.
    press(&mut m, "backtab h h j");
    assert_eq!(selected(&m), ["cache-operator", "candidate"]);
    let g = &m.loaded().unwrap().graph.as_ref().unwrap().0;
    assert_eq!(g.channel, "candidate");
    assert!(g.node(&cursor(&m)).is_some(), "{}", cursor(&m));
}

/// The tree's title line (the count of matches when filtering).
fn tree_title(m: &mut Model) -> String {
    screen(m, 100, 30)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_filter_narrows_the_tree_on_each_key() {
    let (_tmp, mut m) = model();
    press(&mut m, "/ v");
    let n_v = m.loaded().unwrap().matches.len();
    assert_eq!(m.loaded().unwrap().filter.as_deref(), Some("v"));
    assert!(tree_title(&mut m).contains(&format!("filter \"v\" ({n_v})")));
    press(&mut m, "1.2");
    let l = m.loaded().unwrap();
    assert_eq!(l.filter.as_deref(), Some("v1.2"));
    let n = l.matches.len();
    assert!(n > 0 && n < n_v, "{n} of {n_v}");
    // Narrowed from the previous matches, the same as filtering the whole catalog.
    let (items, whole) = build_tree(l.ws.catalog(), l.ws.report(), Some("v1.2"), &[]);
    assert_eq!(l.matches, whole);
    assert_eq!(l.items.len(), items.len());
    assert!(
        l.matches.iter().all(|p| p[2].contains("v1.2")),
        "{:?}",
        l.matches
    );
    assert!(tree_title(&mut m).contains(&format!("filter \"v1.2\" ({n})")));
    // Backspace widens again.
    press(&mut m, "backspace backspace");
    assert_eq!(m.loaded().unwrap().filter.as_deref(), Some("v1"));
    assert!(m.loaded().unwrap().matches.len() > n);
    // Enter keeps it.
    press(&mut m, "enter");
    assert!(m.prompt.is_none());
    assert_eq!(m.loaded().unwrap().filter.as_deref(), Some("v1"));
    // Backspace to nothing: the whole tree.
    press(&mut m, "/ x backspace");
    assert_eq!(m.loaded().unwrap().filter, None);
    assert!(m.loaded().unwrap().matches.is_empty());
}

#[test]
fn esc_restores_the_filter_and_selection_from_before() {
    let (_tmp, mut m) = model();
    // No filter before: Esc brings back the whole tree and the selection.
    press(&mut m, &format!("{STABLE} / backup"));
    assert!(selected(&m)[0].starts_with("backup-operator"));
    press(&mut m, "esc");
    assert_eq!(m.loaded().unwrap().filter, None);
    assert_eq!(selected(&m), ["cache-operator", "stable"]);
    // A filter before: it comes back, with its matches.
    press(&mut m, "/ cache enter");
    let before = m.loaded().unwrap().matches.clone();
    let sel = selected(&m);
    press(&mut m, "/ metrics");
    assert_eq!(m.loaded().unwrap().filter.as_deref(), Some("metrics"));
    assert!(selected(&m)[0].starts_with("metrics"));
    press(&mut m, "esc");
    let l = m.loaded().unwrap();
    assert_eq!(l.filter.as_deref(), Some("cache"));
    assert_eq!(l.matches, before);
    assert_eq!(selected(&m), sel);
    assert!(m.prompt.is_none());
}
