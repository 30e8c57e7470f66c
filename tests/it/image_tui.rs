//! An image's catalog in the TUI: marked read-only, edits and the editor refused, `:export DIR`
//! asks the runtime to copy the catalog out (and the runtime's copy is checked too).

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::{Progress, load};
use fbc_edit::tui::app::{Action, Effect, ImageView, Model};
// Keys and results go through `update`, and the effects it asks for are carried out, as the runtime
// would, until only work for the terminal is left.
use fbc_edit::tui::effects::settle as update;
use fbc_edit::tui::keymap::Keymap;

use common::screen;

fn catalog() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/images/catalog")
}

/// The model as the runtime builds it for `fbc-edit quay.io/example/catalog:v1` once the image is
/// in the cache (here the directory it would hold).
fn opened() -> Model {
    let mut m = Model::new(catalog(), Keymap::default(), Arc::new(Progress::default()));
    m.image = Some(ImageView {
        reference: "quay.io/example/catalog:v1".into(),
        digest: format!("sha256:{}", "0123456789abcdef".repeat(4)),
    });
    let catalog = load(&catalog()).unwrap();
    update(
        &mut m,
        Action::Loaded(Ok(Box::new(fbc_core::workspace::Workspace::open(catalog)))),
    );
    m
}

fn key(m: &mut Model, code: KeyCode) -> Vec<Effect> {
    fbc_edit::tui::effects::press(m, KeyEvent::new(code, KeyModifiers::NONE))
}

fn palette(m: &mut Model, text: &str) -> Vec<Effect> {
    key(m, KeyCode::Char(':'));
    for c in text.chars() {
        key(m, KeyCode::Char(c));
    }
    key(m, KeyCode::Enter)
}

#[test]
fn an_image_is_marked_read_only() {
    let mut m = opened();
    assert_eq!(
        m.status.as_deref(),
        Some(
            "read-only: image quay.io/example/catalog:v1 (sha256:0123456789ab); :export DIR writes it out as a catalog directory to edit"
        )
    );
    insta::assert_snapshot!("image_read_only", screen(&mut m, 120, 16));
}

#[test]
fn edits_writes_and_the_editor_are_refused() {
    let mut m = opened();
    key(&mut m, KeyCode::Char('j'));
    key(&mut m, KeyCode::Char('l'));
    key(&mut m, KeyCode::Char('j'));
    for c in ['w', 'p', 'd', 'x', 'D', 'c', 'a', 'u', 'o'] {
        m.status = None;
        assert!(key(&mut m, KeyCode::Char(c)).is_empty(), "{c}");
        assert!(m.dialog.is_none(), "{c}");
        let status = m.status.clone().unwrap_or_default();
        assert!(status.starts_with("read-only: image"), "{c}: {status}");
    }
    m.status = None;
    let text = screen(&mut m, 120, 16);
    assert!(
        !text.contains("w write") && !text.contains("o editor"),
        "{text}"
    );
}

#[test]
fn export_dir_copies_the_catalog_out_and_graph_exports_still_work() {
    let mut m = opened();
    assert_eq!(
        palette(&mut m, "export /tmp/out"),
        vec![Effect::ExportCatalog {
            dir: PathBuf::from("/tmp/out")
        }]
    );
    // A graph export is written by a worker: the file appears and the screen says so.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.mmd");
    assert!(palette(&mut m, &format!("export mermaid {}", file.display())).is_empty());
    assert!(
        std::fs::read_to_string(&file).unwrap().starts_with("graph")
            || std::fs::read_to_string(&file)
                .unwrap()
                .contains("flowchart"),
        "{:?}",
        std::fs::read_to_string(&file)
    );
    assert_eq!(
        m.status.as_deref(),
        Some(format!("wrote {} (mermaid)", file.display()).as_str())
    );
    assert!(palette(&mut m, "export mermaid").is_empty());
    assert!(
        m.status
            .as_deref()
            .unwrap()
            .starts_with("usage: export DIR")
    );
    // The worker's answer is what the user reads.
    update(&mut m, Action::Exported("wrote /tmp/out (4 files)".into()));
    assert_eq!(m.status.as_deref(), Some("wrote /tmp/out (4 files)"));
    // What the runtime does for the effect: an editable copy, refused over a non-empty directory.
    let out = tempfile::tempdir().unwrap();
    let to = out.path().join("catalog");
    let n = fbc_image::export(&catalog(), &to, &Default::default()).unwrap();
    assert_eq!(n, 4);
    assert_eq!(
        std::fs::read(to.join("declcfgs/index.yaml")).unwrap(),
        std::fs::read(catalog().join("declcfgs/index.yaml")).unwrap()
    );
    let e = fbc_image::export(&catalog(), &to, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("already exists"), "{e}");
}
