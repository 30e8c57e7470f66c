//! Every dialog of the TUI as it is drawn on a small terminal (80×24) and a large one (200×50), each
//! reached on the demo catalog by the keys a user presses: the pickers, the text inputs (with the
//! skipRange preview), confirmations, the questions about unsaved edits, the write preview, and the
//! messages a save can end in.

use crate::common;
use common::{copy_dir, screen};
use common::{demo, press, tui_model as model};

use fbc_edit::tui::app::{Dialog, Model};

/// Opens the demo, presses `keys`, checks the dialog that opened and snapshots it at both sizes.
fn dialog_after(keys: &str, name: &str, is: fn(&Dialog) -> bool, shows: &str) {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut m = model(tmp.path());
    press(&mut m, keys);
    let d = m
        .dialog
        .as_ref()
        .unwrap_or_else(|| panic!("{name}: no dialog after {keys:?}: {:?}", m.status));
    assert!(is(d), "{name}: {d:?}");
    snapshot_both(&mut m, name, shows);
}

fn snapshot_both(m: &mut Model, name: &str, shows: &str) {
    for (w, h) in [(80, 24), (200, 50)] {
        let text = screen(m, w, h);
        // The dialog's answer line is on screen whatever the size.
        assert!(
            text.contains(shows),
            "{name} at {w}×{h} lacks {shows:?}:\n{text}"
        );
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
    }
}

#[test]
fn the_promote_picker() {
    dialog_after(
        "j l j p",
        "promote_picker",
        |d| matches!(d, Dialog::PickBundle { .. }),
        "Esc cancels",
    );
}

#[test]
fn the_skips_picker_marks_several() {
    dialog_after(
        "j l j l j s space",
        "skips_picker",
        |d| matches!(d, Dialog::Pick { picker, .. } if picker.multi),
        "Esc cancels",
    );
}

#[test]
fn the_replaces_picker() {
    dialog_after(
        "j l j l j R",
        "replaces_picker",
        |d| matches!(d, Dialog::Pick { picker, .. } if !picker.multi),
        "Esc cancels",
    );
}

#[test]
fn the_skip_range_input_with_its_preview() {
    dialog_after(
        "j l j l j r",
        "skip_range_input",
        |d| matches!(d, Dialog::Input { .. }),
        "Enter continues",
    );
}

#[test]
fn the_add_bundle_input() {
    dialog_after(
        "a",
        "add_bundle_input",
        |d| matches!(d, Dialog::Input { .. }),
        "Tab completes",
    );
}

#[test]
fn a_confirmation() {
    dialog_after(
        "j l j j d",
        "confirm",
        |d| matches!(d, Dialog::Confirm { .. }),
        "n cancel",
    );
}

#[test]
fn the_deprecation_message_input() {
    dialog_after(
        "j l j j x",
        "deprecate_input",
        |d| matches!(d, Dialog::Input { .. }),
        "Enter continues",
    );
}

#[test]
fn quitting_with_unsaved_edits() {
    dialog_after(
        "j l j j d y q",
        "quit_unsaved",
        |d| matches!(d, Dialog::QuitUnsaved),
        "w write and quit",
    );
}

#[test]
fn opening_the_editor_with_unsaved_edits() {
    dialog_after(
        "j l j j d y o",
        "open_unsaved",
        |d| matches!(d, Dialog::OpenUnsaved { .. }),
        "drop them",
    );
}

#[test]
fn the_write_preview() {
    dialog_after(
        "j l j j d y w",
        "write_preview",
        |d| matches!(d, Dialog::Write { .. }),
        "cache-operator",
    );
}

/// The messages a save ends in come from the disk (a file changed, read-only, a failure part way);
/// their flows are tested with the save. Here: how they are drawn.
#[test]
fn the_messages_a_save_ends_in() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut m = model(tmp.path());
    for (name, dialog, shows) in [
        (
            "reload",
            Dialog::Reload {
                why: "cache-operator/catalog.yaml: changed on disk since it was loaded; reload before saving".into(),
            },
            "y reads it again",
        ),
        (
            "force_write",
            Dialog::ForceWrite {
                why: "cache-operator/catalog.yaml: read-only; nothing was written".into(),
            },
            "writes it anyway",
        ),
        (
            "save_failed",
            Dialog::SaveFailed {
                title: "the save failed".into(),
                lines: vec![
                    "cache-operator/catalog.yaml: written".into(),
                    "backup-operator/catalog.yaml: not written: No space left on device".into(),
                    "the written file was put back as it was".into(),
                ],
            },
            "any key closes",
        ),
    ] {
        m.dialog = Some(dialog);
        snapshot_both(&mut m, name, shows);
    }
}

/// An edit applied anyway says how many problems it brought, in words that agree with the number.
#[test]
fn an_edit_applied_anyway_counts_its_new_problems() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut m = model(tmp.path());
    press(&mut m, "j l j j C");
    assert!(matches!(
        m.dialog,
        Some(Dialog::Confirm { invalid: true, .. })
    ));
    press(&mut m, "y");
    let status = m.status.clone().unwrap_or_default();
    assert!(
        status.starts_with("delete channel candidate of cache-operator: 1 new problem (u undoes)"),
        "{status}"
    );
}
