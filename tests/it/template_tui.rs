//! A template opened in the TUI: its rendering is shown read-only, edits are refused, and the
//! editor key opens the template itself.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_edit::catalog::emit::OutFormat;
use fbc_edit::catalog::{Progress, load};
use fbc_edit::template::{self, CatalogSource};
use fbc_edit::tui::app::{Action, Effect, Model, TemplateView};
// Keys and results go through `update`, and the effects it asks for are carried out, as the runtime
// would, until only work for the terminal is left.
use fbc_edit::tui::effects::settle as update;
use fbc_edit::tui::keymap::Keymap;

fn trino() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "testdata/real/zncdatadev__kubedoop-catalog__composite-semver-templates/trino-operator",
    )
}

/// The model as the runtime builds it for `fbc-edit semver.yaml`: the template rendered into a
/// directory, then loaded.
fn opened(dir: &tempfile::TempDir) -> Model {
    let file = trino().join("semver.yaml");
    let t = template::read(&file).unwrap().unwrap();
    let rendered = t.render(&CatalogSource::load(&trino()).unwrap()).unwrap();
    std::fs::write(
        dir.path().join("semver.rendered.yaml"),
        rendered.to_text(OutFormat::Yaml),
    )
    .unwrap();
    let mut m = Model::new(
        dir.path().to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    m.template = Some(TemplateView {
        file,
        source_note: None,
        notes: Vec::new(),
    });
    update(&mut m, Action::Rendered(rendered.notes));
    let catalog = load(dir.path()).unwrap();
    update(&mut m, Action::Loaded(Ok(Box::new(catalog))));
    m
}

fn key(m: &mut Model, c: char) -> Vec<Effect> {
    fbc_edit::tui::effects::press(m, KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

use common::screen;

#[test]
fn the_rendering_is_shown_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = opened(&dir);
    let status = m.status.clone().unwrap();
    assert!(
        status.starts_with("read-only: the rendering of template semver.yaml")
            && status.contains("holds no icon"),
        "{status}"
    );
    // Open the package and its channel.
    key(&mut m, 'l');
    key(&mut m, 'j');
    insta::assert_snapshot!("template_rendering", screen(&mut m, 100, 20));
}

#[test]
fn edits_and_writes_are_refused_and_the_editor_opens_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = opened(&dir);
    key(&mut m, 'l');
    key(&mut m, 'j');
    for c in ['w', 'p', 'd', 'x', 'D', 'c', 'a', 'u'] {
        m.status = None;
        assert!(key(&mut m, c).is_empty(), "{c}");
        assert!(m.dialog.is_none(), "{c}");
        let status = m.status.clone().unwrap_or_default();
        assert!(
            status.starts_with(
                "read-only: this is the rendering of template semver.yaml; o opens the template"
            ),
            "{c}: {status}"
        );
    }
    assert_eq!(
        key(&mut m, 'o'),
        vec![Effect::OpenEditor {
            file: trino().join("semver.yaml"),
            line: 1
        }]
    );
    // The footer offers no write.
    let text = screen(&mut m, 120, 20);
    assert!(!text.contains("w write"), "{text}");
}

#[test]
fn a_template_that_does_not_render_says_why_and_can_still_be_edited() {
    let mut m = Model::new(
        PathBuf::from("/tmp/unused"),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    m.template = Some(TemplateView {
        file: PathBuf::from("t.yaml"),
        source_note: Some("bundle images are looked up in the catalog files under c".into()),
        notes: Vec::new(),
    });
    update(
        &mut m,
        Action::Loaded(Err(
            "t.yaml:4: cannot resolve bundle image \"img:1\": not found in catalog c".into(),
        )),
    );
    let text = screen(&mut m, 100, 12);
    assert!(text.contains("cannot render template t.yaml:"), "{text}");
    assert!(
        text.contains("t.yaml:4: cannot resolve bundle image \"img:1\""),
        "{text}"
    );
    assert_eq!(
        key(&mut m, 'o'),
        vec![Effect::OpenEditor {
            file: PathBuf::from("t.yaml"),
            line: 1
        }]
    );
}
