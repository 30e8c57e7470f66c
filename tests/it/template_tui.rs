//! Templates opened in the TUI: the rendering is on screen, guided edits go into the templates
//! (every template they apply to), problems sit on the templates' lines, and a save writes the
//! templates with the catalogs they map to re-rendered, in one commit.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::Progress;
use fbc_core::template::Sources;
use fbc_core::template::memo::Memo;
use fbc_edit::tui::app::{Action, Effect, Model, Pane, TemplateView};
// Keys and results go through `update`, and the effects it asks for are carried out, as the runtime
// would, until only work for the terminal is left.
use fbc_core::workspace::templates::TemplateSet;
use fbc_edit::tui::effects::settle as update;
use fbc_edit::tui::keymap::Keymap;

use common::screen;

fn trino() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "testdata/real/zncdatadev__kubedoop-catalog__composite-semver-templates/trino-operator",
    )
}

/// The model as the runtime builds it for `fbc-edit PATH`: the templates opened on a worker.
fn opened(shown: &Path, files: &[PathBuf], catalogs: &[PathBuf]) -> Model {
    let (sources, note) = Sources::for_template(&files[0], catalogs, Vec::new(), None).unwrap();
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
    let set = TemplateSet::open(files, Memo::new(sources)).unwrap();
    update(&mut m, Action::TemplatesOpened(Ok(Box::new(set))));
    m
}

fn key(m: &mut Model, c: char) -> Vec<Effect> {
    press(m, KeyCode::Char(c))
}

fn press(m: &mut Model, code: KeyCode) -> Vec<Effect> {
    let modifiers = if matches!(code, KeyCode::Char(c) if c.is_ascii_uppercase()) {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    fbc_edit::tui::effects::press(m, KeyEvent::new(code, modifiers))
}

/// Lines that differ between two texts, as (old, new) pairs of the changed lines.
fn changed_lines(old: &str, new: &str) -> Vec<(String, String)> {
    let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    assert_eq!(o.len(), n.len(), "the line count changed");
    o.iter()
        .zip(&n)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn a_template_opens_for_editing_with_its_rendering_on_screen() {
    let file = trino().join("semver.yaml");
    let mut m = opened(&file, std::slice::from_ref(&file), &[trino()]);
    let status = m.status.clone().unwrap();
    assert!(
        status.starts_with(
            "template semver.yaml: edits go into the template, the screens show its rendering"
        ),
        "{status}"
    );
    // Open the package and its channel.
    key(&mut m, 'l');
    key(&mut m, 'j');
    let text = screen(&mut m, 100, 20);
    assert!(text.contains("o editor"), "{text}");
    insta::assert_snapshot!("template_rendering", text);
}

/// The hive-operator of the community repository: one basic template mapped by ci.yaml to catalog
/// v4.20. Making another channel the default changes one line of the template, and the save
/// writes that and the catalog re-rendered, which differs from the committed one in that line.
#[test]
fn an_edit_goes_into_the_template_and_the_save_rerenders_its_catalog() {
    let tmp = common::render_all_repo();
    let root = tmp.path();
    let op = root.join("operators/hive-operator");
    let template = op.join("catalog-templates/basic.yaml");
    let catalog = root.join("catalogs/v4.20/hive-operator/catalog.yaml");
    let (template_before, catalog_before) = (
        std::fs::read_to_string(&template).unwrap(),
        std::fs::read_to_string(&catalog).unwrap(),
    );
    let mut m = opened(&op, std::slice::from_ref(&template), &[]);
    assert!(
        m.status
            .as_deref()
            .unwrap_or_default()
            .contains("a save also re-renders the 1 catalog file the templates map to"),
        "{:?}",
        m.template
    );
    // hive-operator ▸ alpha ★, mce-2.0, …: make mce-2.0 the default.
    key(&mut m, 'l');
    key(&mut m, 'j');
    key(&mut m, 'j');
    assert_eq!(m.loaded().unwrap().selected(), ["hive-operator", "mce-2.0"]);
    key(&mut m, 'd');
    key(&mut m, 'y');
    let status = m.status.clone().unwrap();
    assert!(
        status.starts_with("make mce-2.0 the default channel of hive-operator"),
        "{status}"
    );
    let l = m.loaded().unwrap();
    assert_eq!(
        l.dirty,
        ["operators/hive-operator/catalog-templates/basic.yaml"]
    );
    // What `w` shows: the template's change and the catalog's.
    let pending = l.ws.pending().unwrap();
    let paths: Vec<&str> = pending.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "operators/hive-operator/catalog-templates/basic.yaml",
            "catalogs/v4.20/hive-operator/catalog.yaml"
        ]
    );
    assert!(
        std::fs::read_to_string(&template).unwrap() == template_before,
        "nothing is written before y"
    );
    key(&mut m, 'w');
    key(&mut m, 'y');
    assert_eq!(
        m.status.as_deref(),
        Some(
            "wrote operators/hive-operator/catalog-templates/basic.yaml, catalogs/v4.20/hive-operator/catalog.yaml"
        )
    );
    let template_after = std::fs::read_to_string(&template).unwrap();
    assert_eq!(
        changed_lines(&template_before, &template_after),
        [(
            "- defaultChannel: alpha".to_string(),
            "- defaultChannel: mce-2.0".to_string()
        )]
    );
    let catalog_after = std::fs::read_to_string(&catalog).unwrap();
    assert_eq!(
        changed_lines(&catalog_before, &catalog_after),
        [(
            "defaultChannel: alpha".to_string(),
            "defaultChannel: mce-2.0".to_string()
        )]
    );
    // The templates are read back: nothing is unsaved, and the history starts afresh.
    let l = m.loaded().unwrap();
    assert!(l.dirty.is_empty() && !l.ws.is_dirty() && !l.ws.can_undo());
}

/// A save that cannot re-render a catalog the template maps to writes nothing at all.
#[test]
fn a_save_that_cannot_rerender_a_mapped_catalog_writes_nothing() {
    let tmp = common::render_all_repo();
    let op = tmp.path().join("operators/hive-operator");
    let template = op.join("catalog-templates/basic.yaml");
    let before = std::fs::read_to_string(&template).unwrap();
    // A ci.yaml that cannot be read: which catalogs the template renders into cannot be told.
    std::fs::write(op.join("ci.yaml"), "fbc: [not, a, map]\n").unwrap();
    let mut m = opened(&op, std::slice::from_ref(&template), &[]);
    key(&mut m, 'l');
    key(&mut m, 'j');
    key(&mut m, 'j');
    key(&mut m, 'd');
    key(&mut m, 'y');
    assert!(m.loaded().unwrap().ws.is_dirty());
    key(&mut m, 'w');
    let status = m.status.clone().unwrap_or_default();
    assert!(
        status.contains("cannot tell which catalogs it renders into"),
        "{status}"
    );
    assert_eq!(std::fs::read_to_string(&template).unwrap(), before);
}

/// Two templates of one operator, the older without channel ocm-2.3: making ocm-2.3 the default
/// goes into the newer one only, and says so; undo takes it back; `T` shows the other template.
#[test]
fn one_edit_goes_to_every_template_it_applies_to() {
    let tmp = common::render_all_repo();
    let root = tmp.path();
    let text =
        std::fs::read_to_string(root.join("operators/hive-operator/catalog-templates/basic.yaml"))
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The older template without channel ocm-2.3.
    let ocm = text
        .find("  name: ocm-2.3\n")
        .expect("hive-operator has channel ocm-2.3");
    let begin = text[..ocm].rfind("\n- ").unwrap() + 1;
    let end = begin + 2 + text[begin + 2..].find("\n- ").unwrap() + 1;
    let older = format!("{}{}", &text[..begin], &text[end..]);
    assert!(!older.contains("name: ocm-2.3\n"));
    std::fs::write(dir.path().join("v4.9.yaml"), &older).unwrap();
    std::fs::write(dir.path().join("v4.20.yaml"), &text).unwrap();
    let files = [dir.path().join("v4.9.yaml"), dir.path().join("v4.20.yaml")];
    let catalogs = [root.join("catalogs/v4.20/hive-operator")];
    let mut m = opened(dir.path(), &files, &catalogs);
    let status = m.status.take().unwrap();
    assert!(status.starts_with("2 templates in "), "{status}");
    let shown = screen(&mut m, 120, 12);
    assert!(
        shown.contains("v4.20.yaml rendered (2 of 2)") && shown.contains("T next template"),
        "{shown}"
    );
    key(&mut m, 'l');
    while m.loaded().unwrap().selected() != ["hive-operator", "ocm-2.3"] {
        key(&mut m, 'j');
    }
    key(&mut m, 'd');
    key(&mut m, 'y');
    let status = m.status.clone().unwrap();
    assert!(
        status.contains("applied to 1 of 2 templates")
            && status.contains("v4.9.yaml: not applied:")
            && status.contains("ocm-2.3"),
        "{status}"
    );
    assert_eq!(m.loaded().unwrap().dirty, ["v4.20.yaml"]);
    key(&mut m, 'T');
    let shown = screen(&mut m, 120, 12);
    assert!(shown.contains("v4.9.yaml rendered (1 of 2)"), "{shown}");
    key(&mut m, 'u');
    let l = m.loaded().unwrap();
    assert!(l.dirty.is_empty() && !l.ws.is_dirty(), "{:?}", l.dirty);
}

/// A template whose image cannot be resolved renders to nothing: the problem names the template's
/// line, and the editor key opens the template there.
#[test]
fn a_template_that_does_not_render_shows_why_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.yaml");
    std::fs::write(
        &file,
        "schema: olm.semver\nstable:\n  bundles:\n  - image: quay.io/nowhere/b:1\n",
    )
    .unwrap();
    let catalog = dir.path().join("c");
    std::fs::create_dir(&catalog).unwrap();
    let mut m = opened(&file, std::slice::from_ref(&file), &[catalog]);
    let text = screen(&mut m, 110, 16);
    assert!(text.contains("renders to nothing"), "{text}");
    assert!(text.contains("t.yaml:4"), "{text}");
    m.focus = Pane::Problems;
    assert_eq!(
        key(&mut m, 'o'),
        vec![Effect::OpenEditor {
            file: file.clone(),
            line: 4
        }]
    );
}

#[test]
fn templates_that_cannot_be_opened_say_why_and_the_editor_still_opens() {
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
        Action::TemplatesOpened(Err("t.yaml:2: did not find expected key".into())),
    );
    let text = screen(&mut m, 100, 12);
    assert!(text.contains("cannot open t.yaml:"), "{text}");
    assert!(
        text.contains("t.yaml:2: did not find expected key"),
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

/// The palette's semver edits: `:generate major on` goes into the template with its key's case,
/// says which channels the rendering gains, and is undone like any edit.
#[test]
fn a_semver_setting_is_edited_from_the_palette() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&trino(), dir.path());
    let file = dir.path().join("semver.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    let mut m = opened(
        &file,
        std::slice::from_ref(&file),
        &[dir.path().to_path_buf()],
    );
    key(&mut m, ':');
    for c in "generate major on".chars() {
        key(&mut m, c);
    }
    press(&mut m, KeyCode::Enter);
    let status = m.status.clone().unwrap();
    assert!(
        status.starts_with("set GenerateMajorChannels to true") && status.contains("fast-v0"),
        "{status}"
    );
    let l = m.loaded().unwrap();
    let pending = l.ws.pending().unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(
        changed_lines(&pending[0].old, &pending[0].new),
        [(
            "GenerateMajorChannels: false".to_string(),
            "GenerateMajorChannels: true".to_string()
        )]
    );
    // The rendering on screen follows: a major channel now.
    assert!(
        l.ws.catalog()
            .index()
            .channel("trino-operator", "fast-v0")
            .is_some(),
        "{:?}",
        l.items
    );
    key(&mut m, ':');
    for c in "generate both".chars() {
        key(&mut m, c);
    }
    press(&mut m, KeyCode::Enter);
    assert_eq!(
        m.status.as_deref(),
        Some("usage: generate major|minor on|off")
    );
    key(&mut m, 'u');
    assert!(!m.loaded().unwrap().ws.is_dirty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}

/// A template changed on disk since it was opened, or read-only, is not written, and neither is
/// the catalog it maps to: the save asks to reload, or whether to write anyway.
#[test]
fn a_template_changed_on_disk_or_read_only_writes_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = common::render_all_repo();
    let root = tmp.path();
    let op = root.join("operators/hive-operator");
    let template = op.join("catalog-templates/basic.yaml");
    let catalog = root.join("catalogs/v4.20/hive-operator/catalog.yaml");
    let catalog_before = std::fs::read(&catalog).unwrap();
    let edited = |m: &mut Model| {
        key(m, 'l');
        key(m, 'j');
        key(m, 'j');
        key(m, 'd');
        key(m, 'y');
        assert!(m.loaded().unwrap().ws.is_dirty());
    };

    let mut m = opened(&op, std::slice::from_ref(&template), &[]);
    edited(&mut m);
    let outside = format!(
        "{}# changed outside\n",
        std::fs::read_to_string(&template).unwrap()
    );
    std::fs::write(&template, &outside).unwrap();
    key(&mut m, 'w');
    assert!(
        matches!(m.dialog, Some(fbc_edit::tui::app::Dialog::Reload { .. })),
        "{:?} {:?}",
        m.dialog,
        m.status
    );
    assert_eq!(std::fs::read_to_string(&template).unwrap(), outside);
    assert_eq!(std::fs::read(&catalog).unwrap(), catalog_before);

    let mut m = opened(&op, std::slice::from_ref(&template), &[]);
    edited(&mut m);
    std::fs::set_permissions(&template, std::fs::Permissions::from_mode(0o444)).unwrap();
    key(&mut m, 'w');
    key(&mut m, 'y');
    assert!(
        matches!(
            m.dialog,
            Some(fbc_edit::tui::app::Dialog::ForceWrite { .. })
        ),
        "{:?} {:?}",
        m.dialog,
        m.status
    );
    assert_eq!(std::fs::read_to_string(&template).unwrap(), outside);
    assert_eq!(std::fs::read(&catalog).unwrap(), catalog_before);
}
