//! The colour theme on screen: the light theme's colours in the cells drawn, and `NO_COLOR`.

use std::path::Path;
use std::sync::Arc;

use fbc_core::catalog::Progress;
use fbc_edit::theme;
use fbc_edit::tui::app::{Action, Model};
use fbc_edit::tui::effects::settle as update;
use fbc_edit::tui::keymap::Keymap;
use fbc_edit::tui::view::{Role, Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

fn model(dir: &Path) -> Model {
    let mut m = Model::new(
        dir.to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    update(&mut m, fbc_edit::tui::effects::load(dir, None));
    update(
        &mut m,
        Action::Resize {
            width: 100,
            height: 30,
        },
    );
    m
}

/// The foreground of the first cell of the first screen row holding `text`.
fn fg_of(m: &Model, theme: &Theme, text: &str) -> Color {
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| view(m, f, theme)).unwrap();
    let buf = t.backend().buffer();
    for y in 0..30 {
        let cells: Vec<String> = (0..100).map(|x| buf[(x, y)].symbol().to_string()).collect();
        let line = cells.concat();
        if let Some(at) = line.find(text) {
            let x = line[..at].chars().count() as u16;
            return buf[(x, y)].fg;
        }
    }
    panic!("no row with {text}");
}

fn catalog_with_an_error() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/validate/duplicate-entry")
}

#[test]
fn an_error_row_takes_the_themes_error_colour() {
    let m = model(&catalog_with_an_error());
    let light = Theme::light();
    assert_eq!(fg_of(&m, &light, "error   "), light.color(Role::Error));
    assert_eq!(fg_of(&m, &Theme::dark(), "error   "), Color::Red);
    // An override from the config file reaches the screen.
    let (custom, warning) = theme::from_config(
        "theme:\n  base: light\n  colors:\n    error: \"#123456\"\n",
        "config.yaml",
    );
    assert_eq!(warning, None);
    assert_eq!(fg_of(&m, &custom, "error   "), Color::Rgb(0x12, 0x34, 0x56));
}

#[test]
fn no_color_turns_a_configured_theme_off() {
    let m = model(&catalog_with_an_error());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.yaml"), "theme: light\n").unwrap();
    let out = assert_cmd::Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("info")
        .env("FBC_EDIT_CONFIG_DIR", dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("theme: light (NO_COLOR is set: no colours)"),
        "{text}"
    );
    // Without colour the error row is drawn in the terminal's own colour.
    assert_eq!(fg_of(&m, &Theme::plain(), "error   "), Color::Reset);
}

#[test]
fn info_reports_a_bad_colour_with_its_line_and_uses_the_default() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.yaml"),
        "keys: {}\ntheme:\n  colors:\n    warning: yelow\n",
    )
    .unwrap();
    let out = assert_cmd::Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("info")
        .env("FBC_EDIT_CONFIG_DIR", dir.path())
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let config = dir.path().join("config.yaml");
    assert!(
        text.contains(&format!("warning: {}:4:", config.display())),
        "{text}"
    );
    assert!(text.contains("\"yelow\" is not a colour"), "{text}");
    assert!(text.contains("theme: dark\n"), "{text}");
    assert!(text.contains("  warning     yellow\n"), "{text}");
}
