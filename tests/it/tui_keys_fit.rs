//! Every key a question takes is in its footer; bundle names fit the graph pane at 80 columns with
//! their versions in sight; a substitutes template's footer offers only the keys that work there.

use crate::common::{copy_dir, demo, press, real, screen, tui_model as model};

use fbc_edit::tui::app::Dialog;

/// The footer: the last line of a screen.
fn footer(text: &str) -> &str {
    text.lines().last().unwrap_or("")
}

/// The question a refused save asks shows `d` beside `y` and `n`, and `d` does what it says.
#[test]
fn the_reload_question_shows_every_key_it_takes() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut m = model(tmp.path());
    m.dialog = Some(Dialog::Reload {
        why:
            "cache-operator/catalog.yaml: changed on disk since it was loaded; reload before saving"
                .into(),
    });
    for (w, h) in [(80, 24), (160, 45)] {
        let text = screen(&mut m, w, h);
        assert_eq!(
            footer(&text),
            "y reload with the edits  d reload without them  n not now",
            "{w}×{h}:\n{text}"
        );
    }
    let effects = press(&mut m, "d");
    assert!(m.dialog.is_none());
    assert_eq!(
        m.status.as_deref(),
        Some("reading the catalog again; the unsaved edits are dropped")
    );
    assert!(!effects.is_empty(), "d reads the catalog again");
}

/// The question before `$EDITOR` with unsaved edits names its four answers.
#[test]
fn the_open_question_shows_every_key_it_takes() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    let mut m = model(tmp.path());
    press(&mut m, "j l j j d y o");
    assert!(matches!(m.dialog, Some(Dialog::OpenUnsaved { .. })));
    let text = screen(&mut m, 80, 24);
    assert_eq!(
        footer(&text),
        "y write first  o keep the edits  d drop them  n stay",
        "{text}"
    );
}

/// At 80×24 the graph pane's labels keep the end of each name (its version) and the marks after
/// it: the name gives way from the left, as in the tree.
#[test]
fn graph_labels_keep_their_versions_at_80_columns() {
    let dir = real(
        "redhat-openshift-ecosystem__certified-operators__catalogs-v4.18-cloud-native-postgresql",
    );
    let mut m = model(&dir);
    // Open the package and select its default channel: the graph pane shows it.
    press(&mut m, "l j");
    let text = screen(&mut m, 80, 24);
    for v in [
        "1.30.0", "1.29.2", "1.29.1", "1.29.0", "1.28.2", "1.28.1", "1.28.0",
    ] {
        assert!(
            text.contains(&format!("…-postgresql.v{v}  {v}"))
                || text.contains(&format!("….v{v}  {v}"))
                || text.contains(&format!("…sql.v{v}  {v}"))
                || text.contains(&format!("…v{v}  {v}")),
            "{v} not in sight:\n{text}"
        );
    }
    assert!(text.contains("1.30.0  [head]"), "{text}");
    insta::assert_snapshot!("graph_labels_80x24", text);
}

/// A substitutes template opened in the TUI, its bundles from the test's bundle directories.
fn substitutes_template(file: &std::path::Path) -> fbc_edit::tui::app::Model {
    use crate::template_substitutes::{IMAGES, data};
    use fbc_core::template::memo::Memo;
    use fbc_core::template::{BundleDirSource, Sources};
    use fbc_core::workspace::templates::TemplateSet;
    use fbc_edit::tui::app::{Action, Model, TemplateView};
    let mut sources = Sources::new();
    sources.push(BundleDirSource::new(
        IMAGES
            .iter()
            .map(|(i, d)| (i.to_string(), data().join("bundles").join(d)))
            .collect(),
    ));
    let mut m = Model::new(
        file.to_path_buf(),
        fbc_edit::tui::keymap::Keymap::default(),
        std::sync::Arc::new(fbc_core::catalog::Progress::default()),
    );
    m.template = Some(TemplateView {
        file: file.to_path_buf(),
        source_note: None,
        notes: Vec::new(),
    });
    let set = TemplateSet::open(&[file.to_path_buf()], Memo::new(sources)).unwrap();
    fbc_edit::tui::effects::settle(&mut m, Action::TemplatesOpened(Ok(Box::new(set))));
    m
}

/// A substitutes template refuses the catalog's guided edits (its substitutions are edited from
/// the palette): its footer offers none of them on a package, a channel or an entry, while undo
/// and write come once there is an edit.
#[test]
fn a_substitutes_templates_footer_offers_only_what_works() {
    use crate::template_substitutes::data;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("subs.yaml");
    std::fs::copy(data().join("cases/render-single.yaml"), &file).unwrap();
    let mut m = substitutes_template(&file);
    for keys in ["", "l j", "l j"] {
        press(&mut m, keys);
        // The footer shows the keys once no message is on it.
        m.status = None;
        let text = screen(&mut m, 160, 24);
        let f = footer(&text);
        for refused in [
            "promote",
            "deprecate",
            "default",
            "skips",
            "skipRange",
            "replaces",
            "remove",
            "new channel",
            "add bundle",
        ] {
            assert!(
                !f.contains(refused),
                "{refused:?} offered at {:?}: {f}",
                m.loaded().unwrap().selected()
            );
        }
        assert!(f.starts_with("? help"), "{f}");
    }
    // An edit that works there: then undo and write are offered.
    press(&mut m, ": unsubstitute space testoperator.v1.1.0 enter");
    m.status = None;
    let f = footer(&screen(&mut m, 160, 24)).to_string();
    assert!(f.contains("u undo") && f.contains("w write"), "{f}");
}
