//! What the confirmations say: a bundle added to templates from a directory is checked with the
//! bundle known (no false "does not render"), and its entry is written in its neighbours' key
//! order; "The catalog stays valid" only when it is; a problem the edit brings to several templates
//! listed once, naming them; and the skipRange lines without a dangling colon. Each dialog at 80x24
//! and 160x45.

use crate::common;
use common::{demo, demo_copy, press, screen, tui_model as model};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fbc_core::catalog::{Progress, Severity};
use fbc_core::template::Sources;
use fbc_core::template::memo::Memo;
use fbc_core::workspace::templates::TemplateSet;
use fbc_edit::tui::app::{Action, Dialog, Model, TemplateView};
use fbc_edit::tui::effects::settle;
use fbc_edit::tui::keymap::Keymap;

const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator";
const PKG: &str = "rabbitmq-messaging-topology-operator";
const VERSIONS: [&str; 5] = ["v4.17", "v4.18", "v4.19", "v4.20", "v4.21"];
/// An image no source knows: only the bundle directory given for it does.
const IMAGE: &str = "quay.io/example/rabbitmq-messaging-topology-operator-bundle:v1.19.3";

/// A copy of testdata/release with bundle 1.19.3 taken out of the five rabbitmq templates again, as
/// they were before its release; the root and the templates.
fn rabbit_before_1_19_3() -> (tempfile::TempDir, PathBuf, Vec<PathBuf>) {
    // Problems name the templates by their full path: under /tmp the path has the same length on
    // every machine (`/tmp/.tmpXXXXXX/repo`), so the screens cut it at the same place.
    let tmp = tempfile::tempdir_in("/tmp").unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/release"),
        &root,
    );
    let entry = format!("  - name: {PKG}.v1.19.3\n    replaces: {PKG}.v1.19.2\n");
    let bundle = format!(
        "- schema: olm.bundle\n  image: \n    quay.io/community-operator-pipeline-prod/{PKG}:1.19.3\n"
    );
    let files: Vec<PathBuf> = VERSIONS
        .iter()
        .map(|v| {
            root.join(RABBIT)
                .join(format!("catalog-templates/{v}.yaml"))
        })
        .collect();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.contains(&entry) && text.contains(&bundle));
        std::fs::write(f, text.replacen(&entry, "", 1).replacen(&bundle, "", 1)).unwrap();
    }
    (tmp, root, files)
}

/// The model as the runtime builds it for `fbc-edit OPERATOR_DIR`, images resolved from the
/// committed v4.20 catalog.
fn opened(root: &Path, files: &[PathBuf]) -> Model {
    let catalogs = [root.join(format!("catalogs/v4.20/{PKG}"))];
    let (sources, note) = Sources::for_template(&files[0], &catalogs, Vec::new(), None).unwrap();
    let dir = root.join(RABBIT);
    let mut m = Model::new(
        dir.clone(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    m.template = Some(TemplateView {
        file: dir,
        source_note: note,
        notes: Vec::new(),
    });
    let set = TemplateSet::open(files, Memo::new(sources)).unwrap();
    settle(&mut m, Action::TemplatesOpened(Ok(Box::new(set))));
    m.status = None;
    m
}

/// The screen with the temporary directory's path replaced by a placeholder of the same length.
fn shown(m: &mut Model, root: &Path, w: u16, h: u16) -> String {
    let root = root.to_str().unwrap();
    let placeholder = format!("{:-<1$}", "/tmp/<temporary>", root.len());
    let text = screen(m, w, h);
    // Where the pane cuts the path, its start is left.
    (6..=root.len())
        .rev()
        .fold(text, |t, n| t.replace(&root[..n], &placeholder[..n]))
}

fn dialog_text(m: &Model) -> String {
    match &m.dialog {
        Some(Dialog::Confirm { lines, .. }) => lines.join("\n"),
        other => panic!("no confirmation: {other:?} (status {:?})", m.status),
    }
}

#[test]
fn a_bundle_added_to_templates_from_a_directory_is_checked_with_it_and_written_schema_first() {
    let (_tmp, root, files) = rabbit_before_1_19_3();
    let mut m = opened(&root, &files);
    let dir = root.join(RABBIT).join("1.19.3");
    press(&mut m, &format!("a {} enter {IMAGE} enter", dir.display()));
    // The channel, then the skipRange, skips and replaces as offered.
    press(&mut m, "enter enter enter enter");
    let text = dialog_text(&m);
    assert!(
        text.starts_with(&format!(
            "Add bundle {PKG}.v1.19.3 to {PKG} and promote it into stable?"
        )),
        "{text}"
    );
    assert!(
        text.ends_with("The catalog stays valid.") && !text.contains("FBC003"),
        "the check renders the templates with the new bundle known: {text}"
    );
    insta::assert_snapshot!(
        "confirm_add_bundle_templates_80x24",
        shown(&mut m, &root, 80, 24)
    );
    insta::assert_snapshot!(
        "confirm_add_bundle_templates_160x45",
        shown(&mut m, &root, 160, 45)
    );
    press(&mut m, "y");
    let l = m.loaded().unwrap();
    assert_eq!(l.ws.report().count(Severity::Error), 0);
    let pending = l.ws.pending().unwrap();
    let templates: Vec<_> = pending
        .iter()
        .filter(|p| p.path.contains("catalog-templates/"))
        .collect();
    assert_eq!(templates.len(), 5, "every template changes");
    for p in templates {
        // The new entry follows 1.19.2's, which (unlike the older ones) writes schema first, as the
        // release step does.
        assert!(
            p.new.ends_with(&format!(
                "    quay.io/community-operator-pipeline-prod/{PKG}:1.19.2\n- schema: olm.bundle\n  image: {IMAGE}\nschema: olm.template.basic\n"
            )),
            "{}:\n{}",
            p.path,
            p.new
        );
    }
}

#[test]
fn a_problem_brought_to_several_templates_is_listed_once_naming_them() {
    let (_tmp, root, files) = rabbit_before_1_19_3();
    let mut m = opened(&root, &files);
    // The package, its channel stable, and its head.
    press(&mut m, "l j l j");
    assert_eq!(
        m.loaded().unwrap().selected(),
        [PKG.to_string(), "stable".into(), format!("{PKG}.v1.19.2")]
    );
    // The head skips what it replaces: the chain stops there and the older entries strand, in
    // every template.
    press(&mut m, "s");
    let Some(Dialog::Pick { picker, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert_eq!(picker.options[0], format!("{PKG}.v1.18.2"));
    press(&mut m, "space enter");
    let text = dialog_text(&m);
    let lines: Vec<&str> = text.lines().collect();
    let problems: Vec<&&str> = lines.iter().filter(|l| l.starts_with("  [")).collect();
    assert_eq!(problems.len(), 1, "{text}");
    assert!(
        problems[0].starts_with("  [FBC047] ")
            && problems[0].ends_with(
                " (in 5 templates: v4.17.yaml, v4.18.yaml, v4.19.yaml, v4.20.yaml, v4.21.yaml)"
            ),
        "{text}"
    );
    assert!(
        text.contains("This leaves the catalog invalid (1 new problem):"),
        "{text}"
    );
    insta::assert_snapshot!("confirm_shared_problem_80x24", shown(&mut m, &root, 80, 24));
    insta::assert_snapshot!(
        "confirm_shared_problem_160x45",
        shown(&mut m, &root, 160, 45)
    );
}

/// Tree paths in the demo: cache-operator / stable / v1.3.0 (the head, whose skipRange is
/// ">=1.0.0 <1.3.0"; it skips v1.2.1).
const STABLE_HEAD: &str = "j l j l j";

/// Clears the prefilled skipRange input and types `range`.
fn retype_range(m: &mut Model, range: &str) {
    for _ in 0..">=1.0.0 <1.3.0".len() {
        press(m, "backspace");
    }
    press(m, &range.replace(' ', " space "));
}

#[test]
fn an_edit_that_adds_no_problem_to_an_invalid_catalog_says_how_many_are_there() {
    let tmp = demo_copy();
    let mut m = model(tmp.path());
    // v1.3.0 no longer skips v1.2.1, which becomes a second head: applied anyway.
    press(&mut m, &format!("{STABLE_HEAD} S enter"));
    assert!(dialog_text(&m).contains("This leaves the catalog invalid"));
    press(&mut m, "y");
    let errors = m.loaded().unwrap().ws.report().count(Severity::Error);
    assert!(errors > 0);
    press(&mut m, "r");
    retype_range(&mut m, ">=1.1.0 <1.3.0");
    press(&mut m, "enter");
    let text = dialog_text(&m);
    assert!(
        text.ends_with(&format!("No new problems ({errors} already there).")),
        "{text}"
    );
    assert!(!text.contains("stays valid"), "{text}");
    insta::assert_snapshot!("confirm_no_new_problems_80x24", screen(&mut m, 80, 24));
    insta::assert_snapshot!("confirm_no_new_problems_160x45", screen(&mut m, 160, 45));
}

#[test]
fn a_skip_range_that_prunes_nothing_or_matches_nothing_says_so_plainly() {
    let mut m = model(&demo());
    press(&mut m, &format!("{STABLE_HEAD} r"));
    retype_range(&mut m, "<1.2.0");
    press(&mut m, "enter");
    let text = dialog_text(&m);
    assert!(
        text.contains(
            "matches 2: cache-operator.v1.1.0, cache-operator.v1.0.0\nof those, OLM v0 prunes none\n"
        ),
        "{text}"
    );
    assert!(!text.contains("prunes 0"), "{text}");
    insta::assert_snapshot!("confirm_range_prunes_none_80x24", screen(&mut m, 80, 24));
    insta::assert_snapshot!("confirm_range_prunes_none_160x45", screen(&mut m, 160, 45));
    press(&mut m, "n");

    press(&mut m, "r");
    retype_range(&mut m, ">=5.0.0");
    press(&mut m, "enter");
    let text = dialog_text(&m);
    assert!(text.contains("\nmatches no entry\n"), "{text}");
    assert!(!text.contains("prunes"), "{text}");
}

/// Removing a bundle others replace asks to relink, and says what relinking hands over.
#[test]
fn the_relink_question_says_skips_are_handed_over_too() {
    let mut m = model(&demo());
    // cache-operator / stable / v1.2.0, which v1.2.1 and v1.3.0 replace.
    press(&mut m, "j l j l");
    while m.loaded().unwrap().selected().last().map(String::as_str) != Some("cache-operator.v1.2.0")
    {
        press(&mut m, "j");
    }
    press(&mut m, "B");
    let text = dialog_text(&m);
    assert!(
        text.contains("Relinking hands its replaces to the entries that replaced it, its skips (and its skipRange where they have none) to those that replaced or skipped it"),
        "{text}"
    );
    insta::assert_snapshot!("confirm_relink_80x24", screen(&mut m, 80, 24));
    insta::assert_snapshot!("confirm_relink_160x45", screen(&mut m, 160, 45));
}
