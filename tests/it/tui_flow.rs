//! A day's work in the TUI without friction: the edit keys in every mode's footer (templates
//! included), line editing in every text input, values offered rather than pre-filled, `:reload`
//! after a conflict with the unsaved edits applied again, the filter kept across reloads and
//! `$EDITOR`, a quit question with keys of its own, and review mode opening on the first change
//! with a changed skipRange said in one line.

use crate::common;
use common::{copy_dir, demo, screen, tui_model as model};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::Progress;
use fbc_core::edit::Edit;
use fbc_edit::tui::app::{Action, Dialog, Effect, Model, Prompt, TemplateView};
use fbc_edit::tui::effects::settle;
use fbc_edit::tui::keymap::Keymap;

/// Presses keys written like `j l ctrl-u >=1.0 alt-b enter`: `ctrl-X` and `alt-X` with their
/// modifier, `left`, `right` and `delete` as those keys, other words as [`common::press`] reads them.
fn keys(m: &mut Model, words: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for word in words.split(' ').filter(|w| !w.is_empty()) {
        let with = |mods, rest: &str| {
            let c = rest.chars().next().unwrap();
            KeyEvent::new(KeyCode::Char(c), mods)
        };
        let ev = match word {
            w if w.len() == 6 && w.starts_with("ctrl-") => with(KeyModifiers::CONTROL, &w[5..]),
            w if w.len() == 5 && w.starts_with("alt-") => with(KeyModifiers::ALT, &w[4..]),
            "left" => KeyEvent::new(KeyCode::Left, KeyModifiers::NONE),
            "right" => KeyEvent::new(KeyCode::Right, KeyModifiers::NONE),
            "delete" => KeyEvent::new(KeyCode::Delete, KeyModifiers::NONE),
            w => {
                effects.extend(common::press(m, w));
                continue;
            }
        };
        effects.extend(fbc_edit::tui::effects::press(m, ev));
    }
    effects
}

fn demo_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    tmp
}

/// The text of the open input dialog.
fn input_text(m: &Model) -> String {
    match &m.dialog {
        Some(Dialog::Input { text, .. }) => text.text().to_string(),
        other => panic!("no input open: {other:?} ({:?})", m.status),
    }
}

/// Snapshots the screen at 80×24 and 160×45, each showing `shows`.
fn both_sizes(m: &mut Model, name: &str, shows: &str) {
    both_sizes_within(m, name, shows, None);
}

/// [`both_sizes`], rows naming files under the temporary directory `tmp` cut where its path starts
/// (it differs from run to run).
fn both_sizes_within(m: &mut Model, name: &str, shows: &str, tmp: Option<&Path>) {
    for (w, h) in [(80, 24), (160, 45)] {
        let mut text = screen(m, w, h);
        if let Some(tmp) = tmp {
            let tmp = tmp.display().to_string();
            text = text
                .lines()
                .map(|l| match l.find(&tmp) {
                    Some(i) => format!("{}<tmp>…\n", &l[..i]),
                    None => format!("{l}\n"),
                })
                .collect();
        }
        assert!(
            text.contains(shows),
            "{name} at {w}×{h} lacks {shows:?}:\n{text}"
        );
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
    }
}

// Text inputs.

/// Ctrl-U used to do nothing in an input, so typing a new range after it appended to the old one
/// (`>=1.0.0 <1.3.0>=1.2.0 <1.3.0`).
#[test]
fn ctrl_u_clears_a_skip_range_to_the_start_of_the_line() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    // cache-operator ▸ stable ▸ cache-operator.v1.3.0, whose skipRange is >=1.0.0 <1.3.0.
    keys(&mut m, "j l j l j r");
    assert_eq!(input_text(&m), ">=1.0.0 <1.3.0");
    keys(&mut m, "ctrl-u");
    assert_eq!(input_text(&m), "");
    keys(&mut m, ">=1.2.0 space <1.3.0");
    assert_eq!(input_text(&m), ">=1.2.0 <1.3.0");
}

#[test]
fn readline_keys_move_the_cursor_and_edit_where_it_is() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    keys(&mut m, "j l j l j r");
    // Ctrl-W takes the word before the cursor, up to a space.
    keys(&mut m, "ctrl-w");
    assert_eq!(input_text(&m), ">=1.0.0 ");
    keys(&mut m, "<1.3.0 ctrl-a delete delete >");
    assert_eq!(input_text(&m), ">1.0.0 <1.3.0");
    // Alt-F, Alt-B go by words; Ctrl-K deletes to the end; Ctrl-E goes there.
    keys(&mut m, "alt-f alt-f alt-f ctrl-k");
    assert_eq!(input_text(&m), ">1.0.0");
    keys(
        &mut m,
        "ctrl-a right = alt-f right delete 1 ctrl-e space <1.3.0",
    );
    assert_eq!(input_text(&m), ">=1.1.0 <1.3.0");
    // The cursor is drawn where it is; the preview follows the text.
    keys(&mut m, "left left");
    both_sizes(&mut m, "readline_cursor", ">=1.1.0 <1.3▏.0");
}

/// Every text input takes the same keys: the filter, the palette, a picker's filter and the diff
/// viewer's search.
#[test]
fn every_text_input_takes_the_line_editing_keys() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    keys(&mut m, "/ cache-op ctrl-w metrics");
    assert_eq!(m.prompt, Some(Prompt::Filter("metrics".into())));
    keys(&mut m, "esc : package space x ctrl-u undo");
    match &m.prompt {
        Some(Prompt::Palette(t)) => assert_eq!(t.text(), "undo"),
        other => panic!("{other:?}"),
    }
    keys(&mut m, "esc j l j j j p 1.5 alt-b ctrl-k");
    match &m.dialog {
        Some(Dialog::PickBundle { picker, .. }) => assert_eq!(picker.filter.text(), "1."),
        other => panic!("{other:?}"),
    }
    keys(&mut m, "esc k d y w / fast ctrl-a x");
    match &m.dialog {
        Some(Dialog::Write { view }) => {
            assert_eq!(view.typing.as_ref().map(|t| t.text()), Some("xfast"))
        }
        other => panic!("{other:?} ({:?})", m.status),
    }
}

// Values offered, not pre-filled.

/// Promoting into stable used to pre-fill a skipRange, so Enter through the steps added one.
#[test]
fn enter_through_a_promotion_adds_no_skip_range() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    // cache-operator ▸ stable: promote cache-operator.v1.5.0-rc.1 (the newest) into it.
    keys(&mut m, "j l j p enter");
    assert_eq!(input_text(&m), "");
    both_sizes(
        &mut m,
        "promote_range_offered",
        "offered: >=1.0.0 <1.5.0-rc.1",
    );
    assert!(screen(&mut m, 160, 45).contains("Tab takes the one offered"));
    keys(&mut m, "enter enter enter");
    match &m.dialog {
        Some(Dialog::Confirm {
            edit: Edit::Promote { skip_range, .. },
            ..
        }) => assert_eq!(*skip_range, None),
        other => panic!("{other:?} ({:?})", m.status),
    }
}

#[test]
fn tab_takes_the_offered_skip_range() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    keys(&mut m, "j l j p enter tab");
    assert_eq!(input_text(&m), ">=1.0.0 <1.5.0-rc.1");
    keys(&mut m, "enter enter enter");
    match &m.dialog {
        Some(Dialog::Confirm {
            edit: Edit::Promote { skip_range, .. },
            ..
        }) => assert_eq!(skip_range.as_deref(), Some(">=1.0.0 <1.5.0-rc.1")),
        other => panic!("{other:?} ({:?})", m.status),
    }
}

// The edit keys in template mode.

fn render_all_template(tmp: &Path) -> (PathBuf, PathBuf) {
    let op = tmp.join("operators/hive-operator");
    (op.clone(), op.join("catalog-templates/basic.yaml"))
}

fn opened(shown: &Path, files: &[PathBuf], catalogs: &[PathBuf]) -> Model {
    let (sources, note) =
        fbc_core::template::Sources::for_template(&files[0], catalogs, Vec::new(), None).unwrap();
    let mut m = Model::new(
        shown.to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    m.template = Some(TemplateView {
        file: shown.to_path_buf(),
        source_note: note,
        notes: Vec::new(),
    });
    let set = fbc_core::workspace::templates::TemplateSet::open(
        files,
        fbc_core::template::memo::Memo::new(sources),
    )
    .unwrap();
    settle(&mut m, Action::TemplatesOpened(Ok(Box::new(set))));
    m
}

/// On a template's channel the footer used to show only moving about; it shows the edit keys that
/// apply, as on a catalog.
#[test]
fn a_basic_templates_footer_shows_the_edit_keys() {
    let tmp = common::render_all_repo();
    let (op, template) = render_all_template(tmp.path());
    let mut m = opened(&op, std::slice::from_ref(&template), &[]);
    keys(&mut m, "l j j");
    assert_eq!(m.loaded().unwrap().selected(), ["hive-operator", "mce-2.0"]);
    m.status = None;
    let text = screen(&mut m, 160, 45);
    let footer = text.lines().last().unwrap();
    for k in ["p promote", "d default", "x deprecate", "c new channel"] {
        assert!(footer.contains(k), "{k:?} missing: {footer}");
    }
    both_sizes_within(&mut m, "template_footer", "p promote", Some(tmp.path()));
    // After an edit: undo and write too.
    keys(&mut m, "d y");
    m.status = None;
    let footer = screen(&mut m, 160, 45).lines().last().unwrap().to_string();
    assert!(
        footer.contains("u undo") && footer.contains("w write"),
        "{footer}"
    );
}

/// A semver template lists bundles by image: only the edits it can write are offered.
#[test]
fn a_semver_templates_footer_offers_only_what_it_can_write() {
    let trino = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "testdata/real/zncdatadev__kubedoop-catalog__composite-semver-templates/trino-operator",
    );
    let file = trino.join("semver.yaml");
    let mut m = opened(&file, std::slice::from_ref(&file), &[trino]);
    keys(&mut m, "l j");
    assert_eq!(m.loaded().unwrap().selected().len(), 2);
    m.status = None;
    let footer = screen(&mut m, 160, 45).lines().last().unwrap().to_string();
    assert!(footer.contains("p promote"), "{footer}");
    for k in ["d default", "x deprecate", "c new channel", "C delete"] {
        assert!(!footer.contains(k), "{k:?} offered: {footer}");
    }
}

// :reload and the conflict it resolves.

/// `d y` on cache-operator's fast channel (its channels are stable, the default, then candidate,
/// fast and stable-1.0): make it the default (an unsaved edit).
fn default_fast(m: &mut Model) {
    keys(m, "j l j j j d y");
    assert!(m.loaded().unwrap().ws.is_dirty(), "{:?}", m.status);
}

/// Writes; the save is refused when a file changed on disk.
fn write(m: &mut Model) {
    keys(m, "w");
    if matches!(m.dialog, Some(Dialog::Write { .. })) {
        keys(m, "y");
    }
}

/// The runtime's part of `:reload`: the load worker reads the catalog.
fn load_worker(m: &mut Model, effects: Vec<Effect>, dir: &Path) {
    assert_eq!(effects, [Effect::Load], "{:?}", m.status);
    assert!(m.busy.is_some(), "keys wait while the catalog is read");
    settle(m, fbc_edit::tui::effects::load(dir, None));
    assert!(m.busy.is_none());
}

#[test]
fn reload_after_a_conflict_applies_the_edits_again_and_the_save_goes_through() {
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let mut m = model(tmp.path());
    default_fast(&mut m);
    // Someone else changes the file meanwhile.
    let theirs = std::fs::read_to_string(&file).unwrap().replace(
        "# Newest features first.",
        "# Newest features first, weekly.",
    );
    std::fs::write(&file, &theirs).unwrap();
    write(&mut m);
    assert!(
        matches!(m.dialog, Some(Dialog::Reload { .. })),
        "{:?}",
        m.status
    );
    both_sizes(&mut m, "reload_question", "y reads it again");
    keys(&mut m, "esc");
    assert!(m.dialog.is_none());
    let effects = keys(&mut m, ": reload enter");
    load_worker(&mut m, effects, tmp.path());
    assert_eq!(
        m.status.as_deref(),
        Some("read again; 1 of 1 unsaved edit applied again")
    );
    // The edit is still one undo away.
    keys(&mut m, "u");
    assert_eq!(
        m.status.as_deref(),
        Some("undone: make fast the default channel of cache-operator")
    );
    keys(&mut m, "ctrl-r");
    write(&mut m);
    assert!(
        m.status.as_deref().unwrap_or("").starts_with("wrote "),
        "{:?} {:?}",
        m.status,
        m.dialog
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("defaultChannel: fast"), "{text}");
    assert!(text.contains("# Newest features first, weekly."), "{text}");
}

#[test]
fn reload_says_which_edits_no_longer_apply() {
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let mut m = model(tmp.path());
    default_fast(&mut m);
    let theirs = std::fs::read_to_string(&file)
        .unwrap()
        .replace("name: fast\n", "name: quick\n");
    std::fs::write(&file, theirs).unwrap();
    // The conflict's own question reads again with the edits, as `:reload` does.
    write(&mut m);
    let effects = keys(&mut m, "y");
    load_worker(&mut m, effects, tmp.path());
    let status = m.status.clone().unwrap();
    assert!(
        status.starts_with(
            "read again; 0 of 1 unsaved edit applied again; no longer applies: make fast the default channel of cache-operator:"
        ),
        "{status}"
    );
    assert!(!m.loaded().unwrap().ws.is_dirty());
}

/// A catalog that can no longer be read does not take the unsaved edits with it.
#[test]
fn a_reload_that_cannot_read_the_catalog_keeps_the_edits() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    default_fast(&mut m);
    let effects = keys(&mut m, ": reload enter");
    assert_eq!(effects, [Effect::Load]);
    settle(
        &mut m,
        Action::Loaded(Err("catalog.yaml:3: not YAML".into())),
    );
    assert!(m.busy.is_none());
    assert!(m.loaded().unwrap().ws.is_dirty(), "the edits are gone");
    assert_eq!(
        m.status.as_deref(),
        Some(
            "cannot read it again, so the unsaved edits are kept as they were: catalog.yaml:3: not YAML"
        )
    );
}

#[test]
fn reload_without_edits_reads_the_catalog_again() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("name: fast\n", "name: quick\n")).unwrap();
    let effects = keys(&mut m, ": reload enter");
    load_worker(&mut m, effects, tmp.path());
    keys(&mut m, "j l j j j");
    assert_eq!(
        m.loaded().unwrap().selected(),
        ["cache-operator", "quick"],
        "the catalog as it is on disk now"
    );
}

// The filter across reloads and $EDITOR.

#[test]
fn the_filter_survives_the_editor_and_a_reload() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    keys(&mut m, "/ metrics enter");
    let selected = m.loaded().unwrap().selected().to_vec();
    let effects = keys(&mut m, "o");
    assert!(
        matches!(effects.as_slice(), [Effect::OpenEditor { .. }]),
        "{effects:?}"
    );
    // Back from the editor, the runtime reads the catalog again.
    settle(&mut m, fbc_edit::tui::effects::load(tmp.path(), None));
    let l = m.loaded().unwrap();
    assert_eq!(l.filter.as_deref(), Some("metrics"));
    assert_eq!(l.selected(), selected.as_slice());
    m.status = None;
    let after = screen(&mut m, 120, 30);
    assert!(after.contains("filter \"metrics\""), "{after}");
    let effects = keys(&mut m, ": reload enter");
    load_worker(&mut m, effects, tmp.path());
    assert_eq!(m.loaded().unwrap().filter.as_deref(), Some("metrics"));
}

// The quit question.

#[test]
fn y_in_the_quit_question_no_longer_drops_the_edits() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    default_fast(&mut m);
    keys(&mut m, "q");
    assert!(matches!(m.dialog, Some(Dialog::QuitUnsaved)));
    both_sizes(&mut m, "quit_question", "w write and quit");
    keys(&mut m, "y");
    assert!(!m.quit && m.dialog.is_none());
    assert_eq!(
        m.status.as_deref(),
        Some("not quitting; the unsaved edits are kept")
    );
    assert!(m.loaded().unwrap().ws.is_dirty());
}

#[test]
fn w_in_the_quit_question_writes_and_quits() {
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let mut m = model(tmp.path());
    default_fast(&mut m);
    keys(&mut m, "q w");
    assert!(m.quit, "{:?}", m.status);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("defaultChannel: fast"), "{text}");
}

#[test]
fn d_in_the_quit_question_quits_without_writing() {
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    let mut m = model(tmp.path());
    default_fast(&mut m);
    keys(&mut m, "q d");
    assert!(m.quit);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}

/// A save that is refused (a file changed meanwhile) does not quit: the conflict is asked about.
#[test]
fn a_refused_save_in_the_quit_question_stays() {
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let mut m = model(tmp.path());
    default_fast(&mut m);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n")).unwrap();
    keys(&mut m, "q w");
    assert!(!m.quit);
    assert!(matches!(m.dialog, Some(Dialog::Reload { .. })));
}

#[test]
fn quit_from_the_palette_asks_about_unsaved_edits() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    default_fast(&mut m);
    keys(&mut m, ": quit enter");
    assert!(!m.quit);
    assert!(matches!(m.dialog, Some(Dialog::QuitUnsaved)));
}

// Review mode.

/// A copy of the demo where metrics-gateway's alpha entry v1.1.0 gains a skipRange covering the
/// two entries before it.
fn skip_range_change() -> tempfile::TempDir {
    let tmp = demo_copy();
    let file = tmp.path().join("metrics-gateway/catalog.json");
    let text = std::fs::read_to_string(&file).unwrap();
    let from = "\"name\": \"metrics-gateway.v1.1.0\",\n            \"replaces\": \"metrics-gateway.v1.0.0\"\n";
    assert_eq!(text.matches(from).count(), 1);
    let to = "\"name\": \"metrics-gateway.v1.1.0\",\n            \"replaces\": \"metrics-gateway.v1.0.0\",\n            \"skipRange\": \">=0.9.0 <1.1.0\"\n";
    std::fs::write(&file, text.replace(from, to)).unwrap();
    tmp
}

fn review(new: &Path) -> Model {
    let mut m = Model::new(
        new.to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    settle(&mut m, fbc_edit::tui::effects::load(new, None));
    let old = fbc_core::catalog::load(&demo()).unwrap();
    settle(&mut m, Action::CompareLoaded(Ok(Box::new(old))));
    m
}

#[test]
fn review_opens_on_the_first_change_and_says_what_a_skip_range_now_covers() {
    let new = skip_range_change();
    let mut m = review(new.path());
    let l = m.loaded().unwrap();
    let texts: Vec<&str> = l.changes.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "package metrics-gateway changed",
            "  alpha: ~ metrics-gateway.v1.1.0 skipRange (none) → \">=0.9.0 <1.1.0\": now covers 0.9.0–1.0.0 (2 entries)",
        ]
    );
    // The first change, not the first package of the catalog (backup-operator).
    assert_eq!(
        l.selected(),
        ["metrics-gateway", "alpha", "metrics-gateway.v1.1.0"]
    );
    assert_eq!(l.problem, 1);
    m.status = None;
    insta::assert_snapshot!("review_first_change_160x45", screen(&mut m, 160, 45));
    // A reload (or a save) does not move the selection back to the first change.
    keys(&mut m, "k k");
    let moved = m.loaded().unwrap().selected().to_vec();
    settle(&mut m, fbc_edit::tui::effects::load(new.path(), None));
    assert_eq!(m.loaded().unwrap().selected(), moved.as_slice());
}

/// A skipRange cleared says what it no longer covers.
#[test]
fn a_cleared_skip_range_says_what_it_covered() {
    let tmp = demo_copy();
    let file = tmp.path().join("metrics-gateway/catalog.json");
    let text = std::fs::read_to_string(&file).unwrap();
    let from = ",\n            \"skipRange\": \">=0.9.0 <1.1.0\"";
    assert_eq!(text.matches(from).count(), 1);
    std::fs::write(&file, text.replace(from, "")).unwrap();
    let m = review(tmp.path());
    let texts: Vec<String> = m
        .loaded()
        .unwrap()
        .changes
        .iter()
        .map(|c| c.text.clone())
        .collect();
    assert!(
        texts.contains(
            &"  stable: ~ metrics-gateway.v1.1.0 skipRange \">=0.9.0 <1.1.0\" → (none): no longer covers 1.0.0–1.0.1 (2 entries)"
                .to_string()
        ),
        "{texts:#?}"
    );
    assert!(
        !texts.iter().any(|t| t.contains("(skipRange)")),
        "{texts:#?}"
    );
}
