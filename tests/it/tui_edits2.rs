//! Guided edits in the TUI that check their rules before they ask: greyed-out options with the
//! reason, pickers of a channel's entries for skips and replaces, the skipRange preview, and every
//! edit the command line has (undeprecate, remove skips, set replaces, delete channel, remove
//! bundle) confirmed, applied and undone.

use crate::common;
use common::screen;
use common::{demo, demo_copy, press, selected, tui_model as model};

use fbc_core::edit::Edit;
use fbc_edit::tui::app::{Dialog, Model};

fn status(m: &Model) -> String {
    m.status.clone().unwrap_or_default()
}

/// The last line of the screen: the footer.
fn footer(m: &mut Model) -> String {
    screen(m, 160, 40)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// Tree paths in the demo: cache-operator's channels are stable (default), candidate, fast and
/// stable-1.0; stable's entries newest first are v1.3.0, v1.2.1, v1.2.0, v1.1.0, v1.0.0.
const STABLE: &str = "j l j";
const CANDIDATE: &str = "j l j j";
const FAST: &str = "j l j j j";
const STABLE_1_0: &str = "j l j j j j";

#[test]
fn promote_greys_out_bundles_not_newer_than_the_head_and_will_not_take_them() {
    let mut m = model(&demo());
    press(&mut m, &format!("{FAST} p"));
    assert_eq!(selected(&m), ["cache-operator", "fast"]);
    let text = screen(&mut m, 80, 24);
    insta::assert_snapshot!("edits2_promote_greyed_80x24", text);
    assert!(
        text.contains("1.2.1 is not newer than the head (1.4.0)"),
        "{text}"
    );
    // The newest, the only one fast can take, is highlighted; the next is greyed out.
    press(&mut m, "down enter");
    assert!(
        matches!(&m.dialog, Some(Dialog::PickBundle { .. })),
        "a greyed-out bundle went on to the next question: {:?}",
        m.dialog
    );
    assert!(
        screen(&mut m, 100, 30).contains("cannot choose cache-operator.v1.2.1: 1.2.1 is not newer")
    );
    press(&mut m, "up enter");
    assert!(
        matches!(&m.dialog, Some(Dialog::Input { text, .. }) if text.hint() == Some(">=1.2.0 <1.5.0-rc.1")),
        "{:?}",
        m.dialog
    );
    // A range the edit refuses is refused there, before the skips are asked; the text stays.
    press(&mut m, "tab ! enter");
    assert!(
        matches!(&m.dialog, Some(Dialog::Input { text, .. }) if text == ">=1.2.0 <1.5.0-rc.1!"),
        "{:?}",
        m.dialog
    );
    assert!(
        status(&m).contains("is not a valid range"),
        "{}",
        status(&m)
    );
}

#[test]
fn promote_is_refused_before_any_question_when_no_bundle_fits() {
    // stable-2.1 of backup-operator: its head is 2.1.1; 2.0.0 is not newer, 2.2.0 is.
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    let edit = Edit::Promote {
        package: "backup-operator".into(),
        bundle: "backup-operator.v2.2.0".into(),
        channel: "stable-2.1".into(),
        replaces: None,
        skips: Vec::new(),
        skip_range: None,
    };
    m.apply_edit(edit).unwrap();
    press(&mut m, "l j j p");
    assert_eq!(selected(&m), ["backup-operator", "stable-2.1"]);
    assert!(m.dialog.is_none(), "{:?}", m.dialog);
    assert!(
        status(&m).starts_with("no bundle of backup-operator can be promoted into stable-2.1"),
        "{}",
        status(&m)
    );
}

#[test]
fn promoting_an_entry_greys_out_the_channels_it_is_too_old_for() {
    let mut m = model(&demo());
    // stable / v1.2.1: candidate (head 1.5.0-rc.1) and fast (head 1.4.0) cannot take it.
    press(&mut m, &format!("{STABLE} l j j p"));
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.2.1"]
    );
    let Some(Dialog::PickChannel { picker, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert_eq!(picker.options, ["candidate", "fast", "stable-1.0"]);
    assert!(picker.why_greyed("candidate").is_some());
    assert!(picker.why_greyed("fast").is_some());
    assert_eq!(picker.shown()[picker.selected], "stable-1.0");
}

#[test]
fn deprecating_what_is_deprecated_is_refused_before_the_message_is_asked() {
    let mut m = model(&demo());
    press(&mut m, &format!("{STABLE_1_0} x"));
    assert_eq!(selected(&m), ["cache-operator", "stable-1.0"]);
    assert!(
        m.dialog.is_none(),
        "a message was asked for: {:?}",
        m.dialog
    );
    assert!(
        status(&m).contains("is already deprecated"),
        "{}",
        status(&m)
    );
}

#[test]
fn skips_are_picked_from_the_channel_with_space_and_undone() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, &format!("{STABLE} l j s"));
    let Some(Dialog::Pick { picker, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    // v1.3.0 skips v1.2.1 already: greyed out; the first it can take is highlighted.
    assert_eq!(
        picker.why_greyed("cache-operator.v1.2.1"),
        Some("skipped already")
    );
    press(
        &mut m,
        "space v1.0 space backspace backspace backspace backspace",
    );
    insta::assert_snapshot!("edits2_skips_picker_80x24", screen(&mut m, 80, 24));
    press(&mut m, "enter");
    let text = screen(&mut m, 100, 30);
    assert!(
        text.contains(
            "cache-operator.v1.3.0 in stable also skips cache-operator.v1.2.0, cache-operator.v1.0.0?"
        ),
        "{text}"
    );
    press(&mut m, "y");
    let file = tmp.path().join("cache-operator/catalog.yaml");
    assert_eq!(m.loaded().unwrap().dirty, ["cache-operator/catalog.yaml"]);
    press(&mut m, "u");
    assert!(status(&m).starts_with("undone: cache-operator.v1.3.0 in stable also skips"));
    assert!(m.loaded().unwrap().dirty.is_empty());
    press(&mut m, ":redo enter w y");
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.contains(
            "    skips:\n      - cache-operator.v1.2.1\n      - cache-operator.v1.2.0\n      - cache-operator.v1.0.0\n"
        ),
        "{written}"
    );
}

#[test]
fn remove_skips_confirms_that_it_leaves_the_catalog_invalid_and_is_undone() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, &format!("{STABLE} l j S"));
    let Some(Dialog::Pick { picker, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert_eq!(picker.options, ["cache-operator.v1.2.1"]);
    press(&mut m, "enter");
    let text = screen(&mut m, 120, 30);
    assert!(
        text.contains("cache-operator.v1.3.0 in stable no longer skips cache-operator.v1.2.1?"),
        "{text}"
    );
    // v1.2.1 becomes a second head.
    assert!(text.contains("This leaves the catalog invalid"), "{text}");
    assert!(text.contains("y apply anyway"), "{text}");
    press(&mut m, "y");
    assert!(m.loaded().unwrap().ws.is_dirty());
    press(&mut m, "u");
    assert!(!m.loaded().unwrap().ws.is_dirty());
    // An entry that skips nothing has nothing to pick: refused at once.
    press(&mut m, "j S");
    assert!(m.dialog.is_none());
    assert_eq!(status(&m), "cache-operator.v1.2.1 skips nothing");
}

#[test]
fn replaces_is_picked_from_the_channel_and_undone() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, &format!("{STABLE} l j j R"));
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.2.1"]
    );
    insta::assert_snapshot!("edits2_replaces_picker_80x24", screen(&mut m, 80, 24));
    let Some(Dialog::Pick { picker, .. }) = &m.dialog else {
        panic!("{:?}", m.dialog);
    };
    assert_eq!(
        picker.why_greyed("cache-operator.v1.2.0"),
        Some("what it replaces now")
    );
    press(&mut m, "v1.1 enter");
    let text = screen(&mut m, 100, 30);
    assert!(
        text.contains("cache-operator.v1.2.1 in stable replaces cache-operator.v1.1.0?"),
        "{text}"
    );
    press(&mut m, "y");
    let details = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(
        details.contains("replaces: cache-operator.v1.1.0"),
        "{details}"
    );
    press(&mut m, "u");
    let details = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(
        details.contains("replaces: cache-operator.v1.2.0"),
        "{details}"
    );
}

#[test]
fn the_skip_range_input_previews_what_it_matches_as_it_is_typed() {
    let mut m = model(&demo());
    press(&mut m, &format!("{STABLE} l j r"));
    // Prefilled with the entry's own range.
    insta::assert_snapshot!("edits2_skip_range_preview_80x24", screen(&mut m, 80, 24));
    for _ in 0..">=1.0.0 <1.3.0".len() {
        press(&mut m, "backspace");
    }
    assert!(screen(&mut m, 100, 30).contains("no skipRange"));
    press(&mut m, ">=1.0.");
    let text = screen(&mut m, 100, 30);
    assert!(text.contains("not a valid range"), "{text}");
    for _ in 0..">=1.0.".len() {
        press(&mut m, "backspace");
    }
    press(&mut m, "<1.2.0");
    let text = screen(&mut m, 100, 30);
    assert!(
        text.contains("matches 2 of 4 other entries of stable; OLM v0 prunes 0 of them"),
        "{text}"
    );
}

#[test]
fn undeprecate_is_confirmed_applied_and_undone() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, STABLE_1_0);
    assert!(footer(&mut m).contains("X undeprecate"));
    press(&mut m, "X");
    let text = screen(&mut m, 100, 30);
    assert!(
        text.contains("Undeprecate channel stable-1.0 of cache-operator?"),
        "{text}"
    );
    assert!(text.contains("The catalog stays valid."), "{text}");
    press(&mut m, "y");
    let details = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(!details.contains("deprecated (channel)"), "{details}");
    // Once the message about the edit gives way to the keys.
    press(&mut m, "k j");
    assert!(footer(&mut m).contains("x deprecate"));
    press(&mut m, "u");
    let details = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(details.contains("deprecated (channel)"), "{details}");
    // A channel that is not deprecated: refused without a dialog.
    press(&mut m, "k X");
    assert!(m.dialog.is_none());
    assert!(status(&m).contains("is not deprecated"), "{}", status(&m));
}

#[test]
fn delete_channel_is_confirmed_applied_undone_and_refused_for_the_default() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, &format!("{CANDIDATE} C"));
    let text = screen(&mut m, 100, 30);
    assert!(
        text.contains("Delete channel candidate of cache-operator?"),
        "{text}"
    );
    press(&mut m, "y");
    let channels = |m: &Model| {
        let l = m.loaded().unwrap();
        let idx = l.ws.catalog().index().package("cache-operator").unwrap();
        idx.channels.len()
    };
    assert_eq!(channels(&m), 3);
    press(&mut m, "u");
    assert_eq!(channels(&m), 4);
    let mut m = model(tmp.path());
    press(&mut m, STABLE);
    assert!(!footer(&mut m).contains("C delete"));
    press(&mut m, "C");
    assert!(m.dialog.is_none());
    assert!(
        status(&m).contains("stable is the default channel of cache-operator"),
        "{}",
        status(&m)
    );
}

#[test]
fn remove_bundle_asks_to_relink_when_entries_replace_it() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    // stable / v1.1.0: v1.2.0 replaces it.
    press(&mut m, &format!("{STABLE} l j j j j B"));
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.1.0"]
    );
    let text = screen(&mut m, 120, 30);
    assert!(
        text.contains(
            "Remove bundle cache-operator.v1.1.0 from cache-operator, re-linking its neighbours?"
        ),
        "{text}"
    );
    assert!(text.contains("It cannot simply go:"), "{text}");
    press(&mut m, "y");
    let bundles = |m: &Model| {
        let l = m.loaded().unwrap();
        let idx = l.ws.catalog().index().package("cache-operator").unwrap();
        idx.bundle("cache-operator.v1.1.0").is_some()
    };
    assert!(!bundles(&m));
    press(&mut m, "u");
    assert!(bundles(&m));
}

#[test]
fn remove_bundle_without_successors_is_confirmed_as_it_is() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, &format!("{CANDIDATE} l j B"));
    assert_eq!(
        selected(&m),
        ["cache-operator", "candidate", "cache-operator.v1.5.0-rc.1"]
    );
    let text = screen(&mut m, 120, 30);
    assert!(
        text.contains("Remove bundle cache-operator.v1.5.0-rc.1 from cache-operator?"),
        "{text}"
    );
    assert!(!text.contains("It cannot simply go"), "{text}");
    press(&mut m, "y");
    assert!(m.loaded().unwrap().ws.is_dirty());
    press(&mut m, "u");
    assert!(!m.loaded().unwrap().ws.is_dirty());
}

#[test]
fn remove_bundle_is_refused_plainly_when_nothing_can_relink() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("catalog.yaml"),
        "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/foo/bundle:v1.0.0\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n",
    )
    .unwrap();
    let mut m = model(tmp.path());
    press(&mut m, "l j l j B");
    assert_eq!(selected(&m), ["foo", "stable", "foo.v1.0.0"]);
    assert!(m.dialog.is_none(), "{:?}", m.dialog);
    assert!(
        status(&m).contains("is the only entry of channel stable"),
        "{}",
        status(&m)
    );
}

#[test]
fn the_footer_shows_the_edit_keys_of_the_selection() {
    let mut m = model(&demo());
    press(&mut m, &format!("{STABLE} l j"));
    let f = footer(&mut m);
    for hint in [
        "p promote",
        "s skips",
        "S unskip",
        "r skipRange",
        "R replaces",
        "D remove",
        "B remove bundle",
    ] {
        assert!(f.contains(hint), "{hint:?} missing: {f}");
    }
    press(&mut m, "h h j");
    assert_eq!(selected(&m), ["cache-operator", "candidate"]);
    let f = footer(&mut m);
    for hint in [
        "p promote",
        "d default",
        "x deprecate",
        "c new channel",
        "C delete",
    ] {
        assert!(f.contains(hint), "{hint:?} missing: {f}");
    }
    assert!(!f.contains("s skips"), "{f}");
}

#[test]
fn every_new_edit_is_in_the_help_and_the_palette() {
    let mut m = model(&demo());
    press(&mut m, "?");
    let text = screen(&mut m, 100, 100);
    for line in [
        "S                 remove skips from the selected entry",
        "R                 set or clear what the selected entry replaces",
        "X                 undeprecate the selected package, channel or bundle",
        "B                 remove the selected bundle from its package",
        "C                 delete the selected channel",
    ] {
        assert!(text.contains(line), "{line:?} missing:\n{text}");
    }
    let names = fbc_edit::tui::app::complete(None, "remove-");
    assert_eq!(
        names,
        [
            "remove-bundle",
            "remove-entry",
            "remove-image ",
            "remove-skips"
        ]
    );
    for name in ["undeprecate", "set-replaces", "delete-channel"] {
        assert!(
            fbc_edit::tui::app::complete(None, &name[..4]).contains(&name.to_string()),
            "{name}"
        );
    }
    // Run from the palette on the selection, as their keys are.
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    press(&mut m, &format!("{STABLE_1_0} :undeprecate enter"));
    assert!(
        matches!(
            &m.dialog,
            Some(Dialog::Confirm {
                edit: Edit::Undeprecate { .. },
                ..
            })
        ),
        "{:?} {:?}",
        m.dialog,
        m.status
    );
}

#[test]
fn entry_details_show_its_links_and_what_reaches_it() {
    let mut m = model(&demo());
    press(&mut m, &format!("{STABLE} l j j j"));
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.2.0"]
    );
    let text = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(
        text.contains(
            "replaces: cache-operator.v1.1.0\nskips: (none)\nskipRange: (none)\nreached by (their links lead here):\n  cache-operator.v1.2.1 (replaces)\n  cache-operator.v1.3.0 (replaces, skipRange)"
        ),
        "{text}"
    );
}
