//! Review mode (`--compare`): the changes pane, the tree's ghost and new rows, and the edges a change
//! added and removed.

use crate::common::{demo, demo_copy, press, screen, selected, tui_model as model};

use std::path::Path;

use fbc_core::catalog::load;
use fbc_edit::tui::app::{Action, Model};
// Keys and results go through `update`, and the effects it asks for are carried out, as the runtime
// would, until only work for the terminal is left.
use fbc_edit::tui::effects::settle as update;
use fbc_edit::tui::view::{Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[test]
fn review_mode_lists_the_changes_and_enter_jumps_to_them() {
    let (_new, mut m) = review_of_a_promotion();
    let changes = change_texts(&m);
    assert_eq!(
        changes,
        [
            "package cache-operator changed",
            "  stable: head cache-operator.v1.3.0 → cache-operator.v1.4.0",
            "  stable: + cache-operator.v1.4.0",
            "  stable: + cache-operator.v1.3.0 → cache-operator.v1.4.0 (replaces)",
        ]
    );
    // The changes pane opens on the first change (the head's); from its top, the third.
    press(&mut m, "tab tab tab g g j j enter");
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.4.0"]
    );
    insta::assert_snapshot!("review_100x30", screen(&mut m, 100, 30));
}

/// Loads `new` and compares it with the demo catalog, as `fbc-edit --compare DEMO NEW` does.
fn review(new: &Path) -> Model {
    let mut m = model(new);
    update(
        &mut m,
        Action::CompareLoaded(Ok(Box::new(load(&demo()).unwrap()))),
    );
    m
}

fn change_texts(m: &Model) -> Vec<String> {
    m.loaded()
        .unwrap()
        .changes
        .iter()
        .map(|c| c.text.clone())
        .collect()
}

#[test]
fn review_mode_lists_a_rewritten_skip_range_and_enter_selects_its_entry() {
    let new = demo_copy();
    let file = new.path().join("cache-operator/catalog.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(r#"">=1.0.0 <1.3.0""#, r#"">=1.0.0 <1.2.2""#),
    )
    .unwrap();
    let mut m = review(new.path());
    assert_eq!(
        change_texts(&m),
        [
            "package cache-operator changed",
            r#"  stable: ~ cache-operator.v1.3.0 skipRange ">=1.0.0 <1.3.0" → ">=1.0.0 <1.2.2": now covers 1.0.0–1.2.1 (4 entries)"#,
        ]
    );
    press(&mut m, "tab tab tab j enter");
    assert_eq!(
        selected(&m),
        ["cache-operator", "stable", "cache-operator.v1.3.0"]
    );
}

/// A copy of the demo catalog with one edit applied and saved.
fn demo_edited(edit: fbc_core::edit::Edit) -> tempfile::TempDir {
    let tmp = demo_copy();
    let mut c = load(tmp.path()).unwrap();
    edit.apply(&mut c).unwrap();
    c.save().unwrap();
    tmp
}

/// The tree pane's part of each line of a 160-column screen.
fn tree_column(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.chars().take(56).collect())
        .collect()
}

#[test]
fn review_mode_marks_as_new_only_the_entries_the_change_added() {
    // A new skips link into an old entry: the entry is not new.
    let new = demo_edited(fbc_core::edit::Edit::AddSkips {
        package: "metrics-gateway".into(),
        channel: "alpha".into(),
        entry: "metrics-gateway.v1.1.0".into(),
        skips: vec!["metrics-gateway.v0.9.0".into()],
    });
    let mut m = review(new.path());
    assert_eq!(
        change_texts(&m),
        [
            "package metrics-gateway changed",
            "  alpha: + metrics-gateway.v0.9.0 → metrics-gateway.v1.1.0 (skips)",
        ]
    );
    press(&mut m, "tab tab tab j enter");
    assert_eq!(
        selected(&m),
        ["metrics-gateway", "alpha", "metrics-gateway.v1.1.0"]
    );
    let s = screen(&mut m, 160, 48);
    let tree = tree_column(&s);
    let row = tree
        .iter()
        .find(|l| l.contains("metrics-gateway.v1.1.0"))
        .unwrap();
    assert!(!row.contains("new"), "{s}");
    assert!(
        tree.iter().any(|l| l.contains("alpha  (3)  ~ changed")),
        "{s}"
    );
}

#[test]
fn review_mode_enter_on_a_removed_channel_selects_its_package() {
    let new = demo_edited(fbc_core::edit::Edit::DeleteChannel {
        package: "cache-operator".into(),
        channel: "candidate".into(),
    });
    let mut m = review(new.path());
    assert_eq!(
        change_texts(&m),
        ["package cache-operator changed", "  - channel candidate"]
    );
    press(&mut m, "tab tab tab j enter");
    assert_eq!(selected(&m), ["cache-operator"]);
    // The selection is a real row: moving down goes to the package's first channel.
    press(&mut m, "tab l j");
    assert_eq!(selected(&m), ["cache-operator", "stable"]);
}

/// cache-operator 1.4.0 promoted into stable, replacing its head.
fn review_of_a_promotion() -> (tempfile::TempDir, Model) {
    let new = demo_edited(fbc_core::edit::Edit::Promote {
        package: "cache-operator".into(),
        bundle: "cache-operator.v1.4.0".into(),
        channel: "stable".into(),
        replaces: None,
        skips: vec![],
        skip_range: None,
    });
    let m = review(new.path());
    (new, m)
}

/// cache-operator 1.1.0 taken out of stable: 1.2.0 now replaces 1.0.0 directly.
fn review_of_a_removed_entry() -> (tempfile::TempDir, Model) {
    let new = demo_edited(fbc_core::edit::Edit::RemoveEntry {
        package: "cache-operator".into(),
        channel: "stable".into(),
        entry: "cache-operator.v1.1.0".into(),
    });
    let m = review(new.path());
    (new, m)
}

#[test]
fn review_mode_shows_a_removed_entry_as_a_ghost_row_that_refuses_edits() {
    let (_new, mut m) = review_of_a_removed_entry();
    assert_eq!(
        change_texts(&m)[..2],
        [
            "package cache-operator changed",
            "  stable: - cache-operator.v1.1.0"
        ]
    );
    press(&mut m, "tab tab tab g g j enter");
    let ghost = ["cache-operator", "stable", "cache-operator.v1.1.0"];
    assert_eq!(selected(&m), ghost, "Enter lands on the ghost row");
    assert!(m.loaded().unwrap().is_ghost(&selected(&m)));
    insta::assert_snapshot!("review_ghost_100x30", screen(&mut m, 100, 30));
    // Between 1.2.0 and 1.0.0, where its version puts it.
    let tree = tree_column(&screen(&mut m, 160, 48));
    let rows: Vec<&str> = tree
        .iter()
        .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
        .skip_while(|l| !l.starts_with("▼ stable"))
        .take(7)
        .collect();
    assert_eq!(
        rows,
        [
            "▼ stable  (4)  ★ default  ~ changed",
            "cache-operator.v1.3.0  ◉ head",
            "cache-operator.v1.2.1",
            "cache-operator.v1.2.0",
            "- cache-operator.v1.1.0  removed",
            "cache-operator.v1.0.0  deprecated",
            "▶ candidate  (2)",
        ]
    );
    let details = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(
        details.contains("removed from channel stable by the change under review"),
        "{details}"
    );
    // Edits refuse a ghost, and say why.
    press(&mut m, "tab x");
    assert!(m.dialog.is_none(), "{:?}", m.dialog);
    assert_eq!(
        m.status.as_deref(),
        Some(
            "cache-operator.v1.1.0 was removed from stable by the change under review: there is nothing to edit"
        )
    );
    press(&mut m, "r");
    assert!(m.dialog.is_none());
    // A live entry next to it still edits.
    press(&mut m, "k r");
    assert!(m.dialog.is_some());
}

#[test]
fn review_mode_colours_ghost_rows_red_and_new_entries_green() {
    use ratatui::style::Color;
    // The colour of the first letter of `text` in the tree pane.
    let colour_of = |m: &mut Model, text: &str| {
        let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
        fbc_edit::tui::app::update(
            m,
            Action::Resize {
                width: 160,
                height: 48,
            },
        );
        t.draw(|f| view(m, f, &Theme::dark())).unwrap();
        let buf = t.backend().buffer();
        for y in 0..48 {
            let line: Vec<String> = (0..56).map(|x| buf[(x, y)].symbol().to_string()).collect();
            if let Some(x) = line.concat().find(text) {
                let x = line.concat()[..x].chars().count() as u16;
                return buf[(x, y)].fg;
            }
        }
        panic!("no tree row with {text}");
    };
    let (_new, mut m) = review_of_a_removed_entry();
    press(&mut m, "j l j l");
    assert_eq!(colour_of(&mut m, "- cache-operator.v1.1.0"), Color::Red);
    assert_eq!(colour_of(&mut m, "  cache-operator.v1.2.0"), Color::Reset);

    let (_new, mut m) = review_of_a_promotion();
    press(&mut m, "j l j l");
    assert_eq!(colour_of(&mut m, "+ cache-operator.v1.4.0"), Color::Green);
}

#[test]
fn review_mode_lists_removed_and_added_edges_under_the_lanes() {
    let (_new, mut m) = review_of_a_removed_entry();
    // Review mode opens on the first change, in cache-operator / stable: the channel, closed.
    press(&mut m, ": channel space stable enter h");
    assert_eq!(selected(&m), ["cache-operator", "stable"]);
    let s = screen(&mut m, 160, 48);
    // The graph pane's inside, right of the 56-column tree pane.
    let graph: Vec<String> = s
        .lines()
        .map(|l| {
            let inside: String = l.chars().skip(57).collect();
            inside
                .trim_end()
                .trim_end_matches('│')
                .trim_end()
                .to_string()
        })
        .skip_while(|l| l != "changes in this channel:")
        .take(6)
        .collect();
    assert_eq!(
        graph,
        [
            "changes in this channel:",
            "- cache-operator.v1.1.0  removed",
            "- cache-operator.v1.1.0 replaces cache-operator.v1.0.0",
            "- cache-operator.v1.2.0 replaces cache-operator.v1.1.0",
            "- skipRange of cache-operator.v1.3.0 matches cache-operator.v1.1.0",
            "+ cache-operator.v1.2.0 replaces cache-operator.v1.0.0",
        ],
        "{s}"
    );
    // Another channel of the package has nothing to list.
    press(&mut m, "j");
    assert!(!screen(&mut m, 160, 48).contains("changes in this channel"));
}
