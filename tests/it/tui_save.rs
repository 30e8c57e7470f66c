//! Saving from the TUI: a file changed on disk or read-only, a save that fails part way, and the
//! writing done as effects whose results come back as actions.

use crate::common::{demo_copy, press, screen, tui_model as model};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_edit::tui::app::{Action, Effect, Model};

#[test]
fn a_file_changed_on_disk_offers_to_reload() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, "j l j d");
    // d on stable: it is the default already, so pick fast.
    press(&mut m, "j d y");
    assert_eq!(m.loaded().unwrap().dirty.len(), 1);
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("# changed by someone else\n");
    std::fs::write(&file, &text).unwrap();
    // Whether found when showing the diff or when writing, nothing is written and a reload is offered.
    press(&mut m, "w");
    assert!(
        matches!(&m.dialog, Some(fbc_edit::tui::app::Dialog::Reload { why }) if why.contains("changed on disk")),
        "{:?}",
        m.dialog
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        text,
        "nothing written"
    );
    assert_eq!(press(&mut m, "y"), vec![Effect::Load]);
}

#[test]
fn a_read_only_file_asks_before_it_is_written() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    let mut m = model(tmp.path());
    press(&mut m, "j l j d j d y w y");
    assert!(
        matches!(
            &m.dialog,
            Some(fbc_edit::tui::app::Dialog::ForceWrite { .. })
        ),
        "{:?}",
        m.dialog
    );
    insta::assert_snapshot!(screen(&mut m, 80, 24));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "nothing written"
    );
    press(&mut m, "y");
    assert_eq!(
        m.status.as_deref(),
        Some("wrote cache-operator/catalog.yaml")
    );
    assert_ne!(std::fs::read_to_string(&file).unwrap(), before);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o444
    );
}

/// A save that fails part way lists every file and what became of it, in a dialog rather than a
/// one-line footer that would cut the list; the edits stay unsaved and the next save writes them.
#[test]
fn a_failed_save_shows_every_file_and_keeps_the_edits() {
    use fbc_core::catalog::commit::{Fault, Step};
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    let mut m = model(tmp.path());
    m.save_options.fault = Some(Fault {
        step: Step::Rename,
        file: 0,
    });
    press(&mut m, "j l j d j d y w y");
    let Some(fbc_edit::tui::app::Dialog::SaveFailed { lines, .. }) = &m.dialog else {
        panic!("{:?}", m.dialog);
    };
    assert_eq!(
        lines[1..],
        ["  cache-operator/catalog.yaml: not written".to_string()],
        "{lines:?}"
    );
    insta::assert_snapshot!(screen(&mut m, 80, 24));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    press(&mut m, "esc");
    assert!(m.dialog.is_none());
    m.save_options.fault = None;
    press(&mut m, "w y");
    assert_eq!(
        m.status.as_deref(),
        Some("wrote cache-operator/catalog.yaml")
    );
    assert_ne!(std::fs::read_to_string(&file).unwrap(), before);
}

/// `update` itself touches no file: `w` asks for the diff and `y` for the save as effects, and the
/// screen follows the results when they come back.
#[test]
fn writing_goes_out_as_effects_and_comes_back_as_actions() {
    use fbc_edit::tui::app::update as pure;
    let tmp = demo_copy();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    let mut m = model(tmp.path());
    press(&mut m, "j l j d j d y");
    // Keys are resolved in the keymap before `update` sees them, as the runtime does.
    let key = |m: &Model, c| {
        fbc_edit::tui::input::action(m, &KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    };
    let a = key(&m, 'w');
    assert_eq!(pure(&mut m, a), vec![Effect::Preview]);
    assert!(m.dialog.is_none(), "nothing to show before the diff is in");
    pure(
        &mut m,
        Action::Previewed(Ok(
            "--- a/x.yaml\n+++ b/x.yaml\n@@ -1 +1 @@\n-a\n+b\n".into()
        )),
    );
    assert!(screen(&mut m, 80, 24).contains("+b"));
    let a = key(&m, 'y');
    assert_eq!(pure(&mut m, a), vec![Effect::Save(Default::default())]);
    // While the save runs, keys wait and say why.
    let a = key(&m, 'j');
    assert!(pure(&mut m, a).is_empty());
    assert_eq!(
        m.status.as_deref(),
        Some("saving… (keys wait until it is done)")
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "nothing written"
    );
    // The worker's answer: the file changed on disk meanwhile.
    pure(
        &mut m,
        Action::Saved(Err(fbc_core::workspace::SaveError::from(
            fbc_core::catalog::write::WriteError::ChangedOnDisk {
                path: "cache-operator/catalog.yaml".into(),
            },
        ))),
    );
    assert!(
        matches!(m.dialog, Some(fbc_edit::tui::app::Dialog::Reload { .. })),
        "{:?}",
        m.dialog
    );
    assert!(screen(&mut m, 80, 24).contains("changed on disk since it was loaded"));
    assert!(m.loaded().unwrap().ws.is_dirty(), "the edit is still there");
}
