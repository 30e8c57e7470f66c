//! The write preview as a diff viewer (files, hunks, cut lines, the whole line, search) and
//! dialogs that fit their text: drawn on `TestBackend` at 80×24 and 200×50.

use crate::common;
use common::screen;
use common::{demo, press, tui_model as model};

use std::path::Path;
use std::sync::Arc;

use fbc_core::catalog::Progress;
use fbc_core::edit::Edit;
use fbc_edit::tui::app::{Dialog, Model};
use fbc_edit::tui::diffview::DiffView;
use fbc_edit::tui::effects::settle;
use fbc_edit::tui::keymap::Keymap;
use fbc_edit::tui::view::Theme;
use ratatui::style::Modifier;

/// A package `big` whose icon is one line of `icon` base64 characters beside its defaultChannel (as
/// in real catalogs, where it reaches 198 KB), with `bundles` bundles in channel stable, all but one
/// of them left out of channel fast (written last, so an edit there is a hunk of its own); and a
/// package `small` in a second file.
fn catalog(dir: &Path, icon: usize, bundles: usize) {
    use std::fmt::Write as _;
    let mut y = format!(
        "---\ndefaultChannel: stable\nicon:\n  base64data: {}\n  mediatype: image/svg+xml\nname: big\nschema: olm.package\n---\nentries:\n",
        "PD94bWwg".repeat(icon / 8)
    );
    for i in 0..bundles {
        let _ = writeln!(y, "- name: big.v1.{i}.0");
        if i > 0 {
            let _ = writeln!(y, "  replaces: big.v1.{}.0", i - 1);
        }
    }
    y.push_str("name: stable\npackage: big\nschema: olm.channel\n");
    for i in 0..bundles {
        let _ = write!(
            y,
            "---\nimage: quay.io/demo/big:v1.{i}.0\nname: big.v1.{i}.0\npackage: big\nproperties:\n- type: olm.package\n  value:\n    packageName: big\n    version: 1.{i}.0\nschema: olm.bundle\n"
        );
    }
    let last = bundles - 1;
    let _ = write!(
        y,
        "---\nentries:\n- name: big.v1.{last}.0\nname: fast\npackage: big\nschema: olm.channel\n"
    );
    std::fs::create_dir_all(dir.join("big")).unwrap();
    std::fs::write(dir.join("big/catalog.yaml"), y).unwrap();
    std::fs::create_dir_all(dir.join("small")).unwrap();
    std::fs::write(
        dir.join("small/catalog.yaml"),
        "---\ndefaultChannel: stable\nname: small\nschema: olm.package\n---\nentries:\n- name: small.v1.0.0\nname: stable\npackage: small\nschema: olm.channel\n---\nentries:\n- name: small.v1.0.0\nname: fast\npackage: small\nschema: olm.channel\n---\nimage: quay.io/demo/small:v1.0.0\nname: small.v1.0.0\npackage: small\nproperties:\n- type: olm.package\n  value:\n    packageName: small\n    version: 1.0.0\nschema: olm.bundle\n",
    )
    .unwrap();
}

/// The catalog with three edits (big's default channel, a skipRange at the end of big's file,
/// small's default channel) and the write preview open: two files, three hunks.
fn previewing(dir: &Path, keymap: Keymap) -> Model {
    catalog(dir, 20_000, 12);
    let mut m = Model::new(dir.to_path_buf(), keymap, Arc::new(Progress::default()));
    settle(&mut m, fbc_edit::tui::effects::load(dir, None));
    for edit in [
        Edit::SetDefaultChannel {
            package: "big".into(),
            channel: "fast".into(),
        },
        Edit::SetSkipRange {
            package: "big".into(),
            channel: "fast".into(),
            entry: "big.v1.11.0".into(),
            range: Some("<1.11.0".into()),
        },
        Edit::SetDefaultChannel {
            package: "small".into(),
            channel: "fast".into(),
        },
    ] {
        m.apply_edit(edit).unwrap();
    }
    press(&mut m, "w");
    assert!(matches!(m.dialog, Some(Dialog::Write { .. })));
    m
}

fn view(m: &Model) -> &DiffView {
    match &m.dialog {
        Some(Dialog::Write { view }) => view,
        _ => panic!("the diff viewer is not open"),
    }
}

#[test]
fn the_diff_viewer_shows_files_hunks_and_cuts_long_lines_at_80x24_and_200x50() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = previewing(tmp.path(), Keymap::default());
    let v = view(&m);
    assert_eq!(v.files().len(), 2);
    assert_eq!(v.hunks().len(), 3);
    for (w, h) in [(80, 24), (200, 50)] {
        let text = screen(&mut m, w, h);
        assert!(text.contains("big/catalog.yaml +2 −1 ───"), "{text}");
        assert!(text.contains("small/catalog.yaml +1 −1 ───"), "{text}");
        assert!(text.contains("@@ -156,6 +156,7 @@"), "{text}");
        let icon = text
            .lines()
            .find(|l| l.contains("base64data: PD94"))
            .unwrap();
        // Cut at the width with `…`, never wrapped onto the next row.
        assert!(icon.ends_with("…│"), "{icon}");
        assert_eq!(icon.chars().count(), w as usize);
        insta::assert_snapshot!(format!("diff_{w}x{h}"), text);
    }
}

#[test]
fn hunk_and_file_keys_move_the_cursor_and_the_view() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = previewing(tmp.path(), Keymap::default());
    // Ten rows: seven of diff, so the view can move to each hunk and file (24 rows in all).
    let first_row = |m: &mut Model| screen(m, 80, 10).lines().nth(1).unwrap().to_string();
    first_row(&mut m);
    press(&mut m, "]");
    assert_eq!(view(&m).cursor, view(&m).hunks()[0]);
    press(&mut m, "]");
    let v = view(&m);
    assert_eq!((v.cursor, v.top), (v.hunks()[1], v.hunks()[1]));
    assert!(first_row(&mut m).contains("▶@@ -"), "{}", first_row(&mut m));
    press(&mut m, "J");
    let v = view(&m);
    assert_eq!((v.cursor, v.top), (v.files()[1].row, v.files()[1].row));
    assert!(first_row(&mut m).contains("small/catalog.yaml"));
    assert!(screen(&mut m, 80, 10).contains("hunk 2/3 · file 2/2"));
    press(&mut m, "J");
    assert!(screen(&mut m, 80, 10).contains("no next file"));
    press(&mut m, "K");
    assert_eq!((view(&m).cursor, view(&m).top), (0, 0));
    press(&mut m, "] [");
    assert_eq!(view(&m).cursor, view(&m).hunks()[0]);
    assert!(screen(&mut m, 80, 10).contains("no previous hunk"));
    // Near the end the view stops at the last line: the hunk is the cursor, lower down.
    screen(&mut m, 80, 24);
    press(&mut m, "]");
    let v = view(&m);
    assert_eq!((v.cursor, v.top), (v.hunks()[1], v.rows().len() - 21));
}

#[test]
fn keys_that_used_to_cancel_do_nothing_and_esc_or_q_closes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = previewing(tmp.path(), Keymap::default());
    press(&mut m, "j j");
    let before = view(&m).clone();
    press(&mut m, "x a h l tab o d r p w u 1 ! backspace");
    assert_eq!(view(&m), &before, "other keys leave the viewer as it was");
    assert_eq!(m.status, None);
    press(&mut m, "esc");
    assert!(m.dialog.is_none());
    assert_eq!(m.status.as_deref(), Some("nothing written"));
    press(&mut m, "w q");
    assert!(m.dialog.is_none());
    assert!(!m.quit, "q closes the viewer, not the program");
    assert!(!m.loaded().unwrap().dirty.is_empty());
}

#[test]
fn scrolling_stops_at_the_last_line_and_keeps_the_cursor_on_screen() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = previewing(tmp.path(), Keymap::default());
    let rows = view(&m).rows().len();
    let page = 24 - 3;
    screen(&mut m, 80, 24);
    press(
        &mut m,
        "pagedown pagedown pagedown pagedown ctrl-d ctrl-d j j j j",
    );
    let v = view(&m);
    assert_eq!((v.cursor, v.top), (rows - 1, rows - page));
    let text = screen(&mut m, 80, 24);
    let body: Vec<&str> = text.lines().skip(1).take(page).collect();
    assert!(body[page - 1].starts_with("│▶"), "{text}");
    assert!(body[page - 1].contains("    5     5  ---"), "{text}");
    assert!(text.contains("row 24/24"), "{text}");
    press(&mut m, "G end");
    assert_eq!(view(&m).top, rows - page);
    press(&mut m, "pageup pageup pageup pageup pageup");
    assert_eq!((view(&m).cursor, view(&m).top), (0, 0));
    press(&mut m, "end k");
    assert_eq!(view(&m).cursor, rows - 2);
    press(&mut m, "g");
    assert_eq!((view(&m).cursor, view(&m).top), (0, 0));
}

/// The screen at `w`×`h` as a buffer, to look at the style of a cell.
fn buffer(m: &mut Model, w: u16, h: u16) -> ratatui::buffer::Buffer {
    screen(m, w, h);
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| fbc_edit::tui::view::view(&*m, f, &Theme::plain()))
        .unwrap();
    t.backend().buffer().clone()
}

#[test]
fn search_marks_its_matches_and_n_goes_round_them() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = previewing(tmp.path(), Keymap::default());
    press(&mut m, "/ defaultchan");
    assert!(screen(&mut m, 80, 24).contains("/defaultchan▏"));
    press(&mut m, "enter");
    assert_eq!(view(&m).matches.len(), 4);
    let text = screen(&mut m, 80, 24);
    assert!(text.contains("\"defaultchan\": 4 lines"), "{text}");
    // The cursor is on the first match; its text is marked in the buffer.
    let buf = buffer(&mut m, 80, 24);
    let y = (0..24u16).find(|&y| buf[(1, y)].symbol() == "▶").unwrap();
    let row: String = (0..80u16)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect();
    assert!(row.contains("-defaultChannel: stable"), "{row}");
    let x = row.chars().position(|c| c == 'd').unwrap() as u16;
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
    assert!(!buf[(x - 1, y)].modifier.contains(Modifier::REVERSED));
    press(&mut m, "n n n");
    assert!(screen(&mut m, 80, 24).contains("match 4 of 4"));
    press(&mut m, "n");
    assert!(screen(&mut m, 80, 24).contains("match 1 of 4"));
    press(&mut m, "N");
    assert!(screen(&mut m, 80, 24).contains("match 4 of 4"));
    press(&mut m, "/ nowhere enter");
    assert!(screen(&mut m, 80, 24).contains("\"nowhere\" is not in the diff"));
    press(&mut m, "/ abc esc");
    assert!(view(&m).typing.is_none());
    assert!(m.dialog.is_some(), "Esc ends the search, not the viewer");
}

#[test]
fn the_whole_line_under_the_cursor_shows_wrapped_and_scrolls() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = previewing(tmp.path(), Keymap::default());
    press(&mut m, "/ base64data enter enter");
    let text = screen(&mut m, 80, 24);
    assert!(
        text.contains("big/catalog.yaml line 4 · 20014 bytes"),
        "{text}"
    );
    assert!(text.contains("base64data: PD94bWwgPD94"), "{text}");
    insta::assert_snapshot!("whole_line_80x24", text);
    let rows = view(&m).whole.as_ref().unwrap().starts.len();
    // 20,014 characters at 70 columns.
    assert_eq!(rows, 20_014usize.div_ceil(70));
    press(&mut m, "G j j");
    let w = view(&m).whole.as_ref().unwrap();
    let page = 24 - 1 - 4 - 2;
    assert_eq!(w.scroll, rows - page);
    assert!(screen(&mut m, 80, 24).contains(&format!("rows {}–{rows} of {rows}", rows - page + 1)));
    // A wider terminal wraps it anew.
    screen(&mut m, 200, 50);
    assert_eq!(view(&m).whole.as_ref().unwrap().width, 190);
    press(&mut m, "esc");
    assert!(view(&m).whole.is_none());
    assert!(m.dialog.is_some());
    press(&mut m, "v");
    assert!(view(&m).whole.is_some());
    press(&mut m, "v");
    assert!(view(&m).whole.is_none());
}

#[test]
fn y_writes_from_the_viewer() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = previewing(tmp.path(), Keymap::default());
    press(&mut m, "] j y");
    assert!(m.dialog.is_none());
    assert!(m.loaded().unwrap().dirty.is_empty());
    let text = std::fs::read_to_string(tmp.path().join("small/catalog.yaml")).unwrap();
    assert!(text.starts_with("---\ndefaultChannel: fast\n"), "{text}");
}

#[test]
fn the_viewer_keys_are_rebindable_and_shown_in_the_footer_and_help() {
    let tmp = tempfile::tempdir().unwrap();
    let (keymap, warning) = fbc_edit::tui::keymap::with_overrides(
        "keys:\n  next-hunk: [x]\nkeymap:\n  diff:\n    prepend:\n      - {on: z, run: bottom}\n",
        "c.yaml",
    );
    assert_eq!(warning, None);
    let mut m = previewing(tmp.path(), keymap);
    press(&mut m, "x x");
    assert_eq!(view(&m).cursor, view(&m).hunks()[1]);
    press(&mut m, "]");
    assert_eq!(view(&m).cursor, view(&m).hunks()[1], "] is no longer bound");
    press(&mut m, "z");
    assert_eq!(view(&m).cursor, view(&m).rows().len() - 1);
    let text = screen(&mut m, 120, 30);
    let footer = text.lines().nth(29).unwrap();
    assert!(
        footer.contains("y write") && footer.contains("x hunk"),
        "{footer}"
    );
    press(&mut m, "?");
    let text = screen(&mut m, 120, 40);
    assert!(
        text.contains("write preview: the diff of every file saving writes"),
        "{text}"
    );
    assert!(
        text.contains("x/] / [: hunks") || text.contains("x / [: hunks"),
        "{text}"
    );
    assert!(
        text.contains("show the whole line under the cursor, wrapped"),
        "{text}"
    );
    press(&mut m, "esc");
    assert!(m.overlay.is_none());
    assert!(m.dialog.is_some(), "Esc closes the help, then the viewer");
}

/// A skipRange matching 69 entries makes a confirmation taller than a 80×24 terminal: the answer
/// line stays at the bottom and the rest scrolls.
#[test]
fn a_confirmation_taller_than_the_terminal_keeps_its_answer_line_and_scrolls() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path(), 8, 70);
    let mut m = model(tmp.path());
    // big / stable / its head.
    press(&mut m, "l j l j r");
    for _ in 0..30 {
        press(&mut m, "backspace");
    }
    press(&mut m, "<1.69.0 enter");
    let text = screen(&mut m, 80, 24);
    assert!(text.contains("y apply · n cancel"), "{text}");
    assert!(text.contains("more · j/k scroll"), "{text}");
    insta::assert_snapshot!("tall_confirm_80x24", text);
    // On a 80×12 terminal it scrolls to its end, and no further.
    let text = screen(&mut m, 80, 12);
    assert!(text.contains("y apply · n cancel"), "{text}");
    assert!(!text.contains("The catalog stays valid."), "{text}");
    for _ in 0..60 {
        press(&mut m, "j");
    }
    let end = m.dialog_scroll;
    let text = screen(&mut m, 80, 12);
    assert!(text.contains("The catalog stays valid."), "{text}");
    assert!(text.contains("↑") && !text.contains("↓"), "{text}");
    assert!(text.contains("y apply · n cancel"), "{text}");
    insta::assert_snapshot!("tall_confirm_80x12_scrolled", text);
    press(&mut m, "k");
    assert_eq!(m.dialog_scroll, end - 1, "k scrolls back at once");
    press(&mut m, "n");
    assert!(m.dialog.is_none());
    assert_eq!(m.dialog_scroll, 0);
}

/// A picker with more options than rows keeps its choice in view and its keys line shown.
#[test]
fn a_long_picker_keeps_its_choice_and_its_keys_in_view() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path(), 8, 40);
    let mut m = model(tmp.path());
    // The head of big / stable: what it replaces is picked from the other 39 entries.
    press(&mut m, "l j l j R");
    let keys = "↑/↓ choose · type to filter · Enter continues · Esc cancels";
    let text = screen(&mut m, 80, 24);
    assert!(text.contains(keys), "{text}");
    for _ in 0..30 {
        press(&mut m, "down");
    }
    let text = screen(&mut m, 80, 24);
    assert!(text.contains(keys), "{text}");
    let Some(Dialog::Pick { picker, .. }) = &m.dialog else {
        panic!("no picker")
    };
    let chosen = picker.shown()[picker.selected].clone();
    assert!(text.contains(&chosen), "{chosen} is in view: {text}");
    assert!(text.contains("↑"), "{text}");
}

/// The demo's skipRange question and its confirmation at 80×24 show their last line.
#[test]
fn skip_range_popups_show_their_last_line_at_80x24() {
    let mut m = model(&demo());
    press(&mut m, "j l j l j r");
    assert!(screen(&mut m, 80, 24).contains("Enter continues · Esc cancels"));
    for _ in 0..20 {
        press(&mut m, "backspace");
    }
    press(&mut m, ">=1.1.0 space <1.3.0 enter");
    assert!(screen(&mut m, 80, 24).contains("y apply · n cancel"));
    // And on a terminal too short for it, the answer line still shows.
    assert!(screen(&mut m, 80, 12).contains("y apply · n cancel"));
}
