//! The problems pane, text that does not fit, the help, the palette and the small screen: each
//! drawn on `TestBackend` at 80×24 and 160×45 as a user meets it.
//!
//! - problems worst first, `e` for the severities shown, `f` for the selection's only, the tree's
//!   filter narrowing them;
//! - the message viewer (Enter on a problem, `m` for the status line), dialog instructions in the
//!   body rather than the title, entries cut from the left;
//! - the help and the palette's list sized to the terminal;
//! - the details beside the graph on an 80×24 screen.

use crate::common;
use common::{demo, press, screen, tui_model as model};

use fbc_core::catalog::Severity;
use fbc_edit::tui::app::{Model, Overlay, Pane, Shown};
use std::path::Path;

/// A bundle of `package` at `version`, named `name`, with or without CSV metadata.
fn bundle(package: &str, name: &str, version: &str, metadata: bool) -> String {
    let meta = if metadata {
        "\n- type: olm.csv.metadata\n  value: {displayName: Demo}"
    } else {
        ""
    };
    format!(
        "---\nschema: olm.bundle\npackage: {package}\nname: {name}\nimage: quay.io/example/{package}-bundle:v{version}\nproperties:\n- type: olm.package\n  value: {{packageName: {package}, version: '{version}'}}{meta}\n"
    )
}

/// A package with one channel `stable` whose entries replace each other in order.
fn package(dir: &Path, package: &str, names: &[(&str, &str)], head_metadata: bool) {
    let mut text = format!(
        "schema: olm.package\nname: {package}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: {package}\nname: stable\nentries:\n"
    );
    for (i, (name, _)) in names.iter().enumerate() {
        text.push_str(&format!("- name: {name}\n"));
        if i > 0 {
            text.push_str(&format!("  replaces: {}\n", names[i - 1].0));
        }
    }
    for (i, (name, version)) in names.iter().enumerate() {
        let last = i + 1 == names.len();
        text.push_str(&bundle(package, name, version, !last || head_metadata));
    }
    let d = dir.join(package);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("catalog.yaml"), text).unwrap();
}

/// As a certified catalog looks to a maintainer: many notes in the files sorted first (bundle
/// names unlike `<package>.v<version>`), and the warnings after them (channel heads without CSV
/// metadata).
fn notes_then_warnings() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let builds: Vec<(String, String)> = (0..12)
        .map(|i| (format!("aaa-build-{i:02}"), format!("1.0.{i}")))
        .collect();
    let builds: Vec<(&str, &str)> = builds
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    package(tmp.path(), "aaa-operator", &builds, true);
    package(
        tmp.path(),
        "mmm-operator",
        &[
            ("mmm-operator.v1.0.0", "1.0.0"),
            ("mmm-operator.v1.1.0", "1.1.0"),
        ],
        false,
    );
    package(
        tmp.path(),
        "zzz-operator",
        &[("zzz-operator.v2.0.0", "2.0.0")],
        false,
    );
    tmp
}

fn severities(m: &Model) -> Vec<Severity> {
    let l = m.loaded().unwrap();
    (0..l.problem_rows())
        .map(|r| l.problem_at(r).unwrap().severity)
        .collect()
}

/// The text inside the box drawn over the screen whose top row holds `title`: its rows between
/// the borders, trimmed and joined by spaces.
fn boxed_text(screen: &str, title: &str) -> String {
    let rows: Vec<Vec<char>> = screen.lines().map(|r| r.chars().collect()).collect();
    let (top, at) = screen
        .lines()
        .enumerate()
        .find_map(|(i, r)| r.find(title).map(|b| (i, r[..b].chars().count())))
        .unwrap_or_else(|| panic!("no box titled {title:?}:\n{screen}"));
    // The box's corner is the last one before its title.
    let left = rows[top][..at]
        .iter()
        .rposition(|c| *c == '┌')
        .unwrap_or_else(|| panic!("no corner before {title:?}:\n{screen}"));
    let mut out = Vec::new();
    for r in &rows[top + 1..] {
        if r.get(left) == Some(&'└') {
            break;
        }
        let inner: String = r.iter().skip(left + 1).take_while(|c| **c != '│').collect();
        out.push(inner.trim().to_string());
    }
    out.join(" ")
}

#[test]
fn warnings_come_before_the_notes_and_e_cycles_the_severities() {
    let tmp = notes_then_warnings();
    let mut m = model(tmp.path());
    let all = severities(&m);
    let infos = all.iter().filter(|s| **s == Severity::Info).count();
    assert!(infos >= 12, "{all:?}");
    let warnings = all.len() - infos;
    assert!(warnings >= 2, "{all:?}");
    // Worst first, though the notes' file sorts first.
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted);
    assert_eq!(all[0], Severity::Warning);
    press(&mut m, "tab tab tab");
    assert_eq!(m.focus, Pane::Problems);
    insta::assert_snapshot!("problems_worst_first_80x24", screen(&mut m, 80, 24));
    press(&mut m, "e");
    assert_eq!(m.loaded().unwrap().problems.shown, Shown::Warnings);
    assert_eq!(severities(&m), vec![Severity::Warning; warnings]);
    let s = screen(&mut m, 160, 45);
    assert!(
        s.contains(&format!("showing errors+warnings ({warnings} listed)")),
        "{s}"
    );
    insta::assert_snapshot!("problems_errors_and_warnings_160x45", s);
    press(&mut m, "e");
    assert_eq!(severities(&m), Vec::<Severity>::new());
    assert!(screen(&mut m, 80, 24).contains("None of the"));
    press(&mut m, "e");
    assert_eq!(severities(&m).len(), all.len());
}

#[test]
fn f_lists_only_the_selections_problems_and_the_filter_narrows_them() {
    let tmp = notes_then_warnings();
    let mut m = model(tmp.path());
    let everything = m.loaded().unwrap().problem_rows();
    // The tree's last package.
    press(&mut m, "G f");
    let l = m.loaded().unwrap();
    assert_eq!(l.problems.only, Some(vec!["zzz-operator".to_string()]));
    let rows = l.problem_rows();
    assert!(rows >= 1 && rows < everything, "{rows} of {everything}");
    for r in 0..rows {
        assert_eq!(
            l.problem_at(r).unwrap().object.package.as_deref(),
            Some("zzz-operator")
        );
    }
    insta::assert_snapshot!("problems_only_selection_80x24", screen(&mut m, 80, 24));
    press(&mut m, "f");
    assert_eq!(m.loaded().unwrap().problem_rows(), everything);
    // The tree's filter narrows the pane as well.
    press(&mut m, "/ mmm enter");
    let l = m.loaded().unwrap();
    let rows = l.problem_rows();
    assert!(rows >= 1 && rows < everything);
    for r in 0..rows {
        assert_eq!(
            l.problem_at(r).unwrap().object.package.as_deref(),
            Some("mmm-operator")
        );
    }
    assert!(screen(&mut m, 160, 45).contains("in the filter"));
    press(&mut m, "esc");
    assert_eq!(m.loaded().unwrap().problem_rows(), everything);
}

#[test]
fn enter_on_a_problem_shows_it_in_full_and_esc_closes() {
    let tmp = notes_then_warnings();
    let mut m = model(tmp.path());
    press(&mut m, "tab tab tab");
    let d = m.loaded().unwrap().selected_problem().unwrap().clone();
    press(&mut m, "enter");
    assert!(matches!(m.overlay, Some(Overlay::Message { .. })));
    for (w, h) in [(80, 24), (160, 45)] {
        let s = screen(&mut m, w, h);
        let text = boxed_text(&s, d.code);
        assert!(text.contains(&d.message), "{text}\n{s}");
        assert!(text.contains(&d.location.to_string()), "{text}");
        insta::assert_snapshot!(format!("problem_viewer_{w}x{h}"), s);
    }
    // The object is selected under it.
    assert_eq!(
        m.loaded().unwrap().selected().first().map(String::as_str),
        d.object.package.as_deref()
    );
    press(&mut m, "esc");
    assert_eq!(m.overlay, None);
    assert_eq!(m.focus, Pane::Problems);
}

#[test]
fn a_long_status_line_says_so_and_m_reads_it_whole() {
    let mut m = model(&demo());
    let name =
        "an-operator-whose-name-goes-on-and-on-well-past-the-edge-of-an-eighty-column-terminal";
    press(&mut m, &format!(": package space {name} enter"));
    let status = m.status.clone().unwrap();
    assert!(status.contains(name));
    let s = screen(&mut m, 80, 24);
    let footer = s.lines().nth(23).unwrap();
    assert!(footer.ends_with("m reads all"), "{footer}");
    insta::assert_snapshot!("status_cut_80x24", s);
    // Moving clears the line; `m` still has the last message.
    press(&mut m, "j m");
    for (w, h) in [(80, 24), (160, 45)] {
        let s = screen(&mut m, w, h);
        // Broken over rows where it is longer than one.
        let text: String = boxed_text(&s, "message").split_whitespace().collect();
        assert!(text.contains(name), "{s}");
        insta::assert_snapshot!(format!("status_viewer_{w}x{h}"), s);
    }
    press(&mut m, "esc");
    assert_eq!(m.overlay, None);
}

#[test]
fn a_dialogs_instructions_are_in_its_body_not_its_title() {
    let tmp = common::demo_copy();
    let mut m = model(tmp.path());
    // cache-operator / stable: promote, pick the first bundle offered, and the skipRange input asks.
    press(&mut m, "j l j p enter");
    let Some(fbc_edit::tui::app::Dialog::Input { title, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert!(title.contains("empty for none"), "{title}");
    for (w, h) in [(80, 24), (160, 45)] {
        let s = screen(&mut m, w, h);
        let top = s
            .lines()
            .find(|l| l.contains("skipRange for"))
            .unwrap_or_else(|| panic!("{s}"));
        assert!(!top.contains("empty for none"), "{top}");
        let body = boxed_text(&s, "skipRange for");
        assert!(
            body.contains("it replaces the current head; empty for none."),
            "{body}"
        );
        insta::assert_snapshot!(format!("dialog_instructions_{w}x{h}"), s);
    }
}

#[test]
fn entries_too_wide_for_the_tree_keep_their_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<(String, String)> = (0..4)
        .map(|i| {
            (
                format!("multi-nic-cni-operator.v1.2.{i}"),
                format!("1.2.{i}"),
            )
        })
        .collect();
    let names: Vec<(&str, &str)> = names
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    package(tmp.path(), "multi-nic-cni-operator", &names, true);
    let mut m = model(tmp.path());
    press(&mut m, "l j l");
    let s = screen(&mut m, 80, 24);
    let tree: Vec<&str> = s
        .lines()
        .map(|l| l.split('│').nth(1).unwrap_or(""))
        .collect();
    for i in 0..4 {
        let v = format!("operator.v1.2.{i}");
        assert!(
            tree.iter().any(|row| row.contains(&v)),
            "{v} is not in the tree:\n{s}"
        );
    }
    assert!(
        tree.iter()
            .any(|row| row.contains("…") && row.contains("v1.2.3  ◉ head"))
    );
    insta::assert_snapshot!("entries_cut_from_the_left_80x24", s);
}

#[test]
fn help_takes_the_terminals_width_and_wraps() {
    let mut m = model(&demo());
    press(&mut m, "?");
    let s = screen(&mut m, 160, 45);
    assert!(
        s.contains("templates: show the next template's rendering (edits go to every template)"),
        "{s}"
    );
    insta::assert_snapshot!("help_160x45", s);
    // At 80 columns nothing is cut either: every word is there once scrolled to.
    let desc = "templates: show the next template's rendering (edits go to every template)";
    let mut seen = String::new();
    for _ in 0..40 {
        seen.push_str(&boxed_text(&screen(&mut m, 80, 24), "help"));
        seen.push(' ');
        press(&mut m, "j");
    }
    let words: Vec<&str> = seen.split_whitespace().collect();
    let joined = words.join(" ");
    assert!(joined.contains(desc), "{joined}");
    insta::assert_snapshot!("help_scrolled_80x24", screen(&mut m, 80, 24));
}

#[test]
fn tab_in_the_palette_lists_what_it_can_become() {
    let mut m = model(&demo());
    press(&mut m, ":");
    // The hint wraps: its end is on screen.
    let s = screen(&mut m, 80, 24);
    assert!(s.contains("command by name"), "{s}");
    press(&mut m, "tab");
    let s = screen(&mut m, 160, 45);
    assert!(s.contains("package NAME"), "{s}");
    assert!(s.contains("select a package"), "{s}");
    insta::assert_snapshot!("palette_all_160x45", s);
    insta::assert_snapshot!("palette_all_80x24", screen(&mut m, 80, 24));
    press(&mut m, "r e tab");
    let s = screen(&mut m, 80, 24);
    for (name, desc) in [
        ("redo", "redo the last undone edit"),
        ("reload", "read the catalog (or the templates) again"),
        ("remove-bundle", "remove the selected bundle"),
        ("remove-entry", "remove the selected entry"),
    ] {
        let row = s
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} is not listed:\n{s}"));
        assert!(row.contains(desc), "{row}");
    }
    assert!(
        !s.contains("select a package"),
        "only what starts with re: {s}"
    );
    insta::assert_snapshot!("palette_re_80x24", s);
    // Typing narrows the list; one left, Tab completes it.
    press(&mut m, "d tab");
    assert_eq!(
        m.prompt,
        Some(fbc_edit::tui::app::Prompt::Palette("redo".into()))
    );
}

#[test]
fn at_80x24_the_details_stay_under_the_graph_whatever_is_focused() {
    let mut m = model(&demo());
    press(&mut m, "j l j l j");
    for focus in ["", "tab", "tab", "tab"] {
        press(&mut m, focus);
        screen(&mut m, 80, 24);
        let a = m.areas();
        let (g, d) = (a.graph.unwrap(), a.details.unwrap());
        assert_eq!(g.x, d.x, "{:?}", m.focus);
        assert!(g.bottom() <= d.y, "{:?}", m.focus);
        assert!(d.height >= 5 && g.height >= 5, "{g:?} {d:?}");
    }
    press(&mut m, "tab");
    assert_eq!(m.focus, Pane::Tree);
    let s = screen(&mut m, 80, 24);
    assert!(s.contains(" details "), "{s}");
    assert!(s.contains("version"), "the details show: {s}");
    insta::assert_snapshot!("layout_80x24", s);
    insta::assert_snapshot!("layout_160x45", screen(&mut m, 160, 45));
}

#[test]
fn every_name_the_palette_lists_says_what_it_does() {
    use fbc_edit::tui::keymap::{palette_desc, palette_names};
    let names: Vec<String> = palette_names().collect();
    assert!(names.iter().any(|n| n == "reload"), "{names:?}");
    for name in &names {
        assert!(
            !palette_desc(name).is_empty(),
            "{name:?} has no description"
        );
    }
}
