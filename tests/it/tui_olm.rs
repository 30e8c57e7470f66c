//! The graph pane's switch between OLM v0 and OLM v1 upgrade rules.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::Progress;
use fbc_edit::tui::app::Model;
// Keys and results go through `update`, and the effects it asks for are carried out, as the runtime
// would, until only work for the terminal is left.
use fbc_edit::tui::effects::settle as update;
use fbc_edit::tui::keymap::Keymap;

fn press(m: &mut Model, keys: &str) {
    for c in keys.chars().filter(|c| *c != ' ') {
        fbc_edit::tui::effects::press(m, KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
}

#[test]
fn v_switches_the_graph_to_olm_v1_rules_and_back() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog");
    let mut m = Model::new(
        dir.clone(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    update(&mut m, fbc_edit::tui::effects::load(&dir, None));
    // cache-operator / stable, its second entry (1.2.1, skipped by the head).
    press(&mut m, "jljljj");
    let before = common::screen(&mut m, 160, 48);
    assert!(!before.contains("OLM v1"), "{before}");
    press(&mut m, "v");
    let v1 = common::screen(&mut m, 160, 48);
    assert!(v1.contains(" · OLM v1 rules"), "{v1}");
    assert!(v1.contains("○ dropped by OLM v0, kept by OLM v1"), "{v1}");
    assert!(v1.contains("OLM v1 from here takes "), "{v1}");
    assert!(v1.contains("; OLM v0 offers "), "{v1}");
    insta::assert_snapshot!("olm_v1_160x48", v1);
    press(&mut m, "v");
    // Back to OLM v0: the same screen, with the switch said in the status line.
    let after = common::screen(&mut m, 160, 48);
    let body = |s: &str| s.lines().take(47).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&after), body(&before));
    assert!(
        after.ends_with("graph: OLM v0 rules (skipped and stranded entries dropped)\n"),
        "{after}"
    );
}
