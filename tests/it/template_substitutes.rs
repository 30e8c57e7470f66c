//! Substitutes templates (`olm.template.substitutes`) as a user meets them: `template render`
//! (opm's own test cases, testdata/substitutes, see its SOURCES.md), `template from-catalog --type
//! substitutes`, `edit TEMPLATE substitute|unsubstitute`, and `template render-all` for a
//! `ci.yaml` mapping naming one. Every substitute's image stands for a bundle directory there.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub(crate) fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/substitutes")
}

fn fbc() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c
}

pub(crate) const IMAGES: [(&str, &str); 4] = [
    (
        "quay.io/test/testoperator-bundle:v1.1.0-alpha",
        "testoperator-v1.1.0-alpha",
    ),
    (
        "quay.io/test/testoperator-bundle:v1.2.0-alpha",
        "testoperator-v1.2.0-alpha",
    ),
    (
        "quay.io/test/testoperator-bundle:v1.3.0-alpha",
        "testoperator-v1.3.0-alpha",
    ),
    ("quay.io/test/test-bundle:v1.0.0-alpha", "test-v1.0.0-alpha"),
];

/// `--bundle-dir IMAGE=DIR` for every image the cases substitute.
fn bundle_dirs(c: &mut Command) -> &mut Command {
    for (image, dir) in IMAGES {
        c.arg("--bundle-dir").arg(format!(
            "{image}={}",
            data().join("bundles").join(dir).display()
        ));
    }
    c
}

/// `template render FILE` with the bundle directories, `-o yaml` unless `extra` says otherwise.
fn render(file: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = fbc();
    c.args(["template", "render"]).arg(file);
    if !extra.contains(&"-o") {
        c.args(["-o", "yaml"]);
    }
    bundle_dirs(&mut c).args(extra).output().unwrap()
}

/// Each of opm's cases renders to the catalog opm's test expects (written out in full beside it)
/// or fails with opm's message, placed at the template's line and column with a hint.
#[test]
fn opm_cases_render_as_opm_does() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "yaml")
                && !p.to_string_lossy().ends_with(".out.yaml")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 31, "{files:?}");
    let mut failed = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let expect = text
            .lines()
            .nth(1)
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{}: no expectation", f.display()));
        let out = render(f, &[]);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if let Some(name) = expect.strip_prefix("output ") {
            let want = std::fs::read_to_string(data().join("cases").join(name)).unwrap();
            if !out.status.success() || stdout != want {
                failed.push(format!("{}: {stderr}\n{stdout}", f.display()));
            }
        } else {
            let message = expect.strip_prefix("error: ").unwrap();
            let place = format!("fbc-edit: {}:", f.display());
            if out.status.code() != Some(1)
                || !stderr.contains(message)
                || !stderr.contains(&place)
                || !stdout.is_empty()
            {
                failed.push(format!("{}: {stderr}", f.display()));
            }
            // opm's own messages (not the reading of the file, which opm words differently)
            // come with their column and a hint.
            if stderr.contains("render: ") && !stderr.contains("\n  hint: ") {
                failed.push(format!("{}: no hint: {stderr}", f.display()));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n---\n"));
}

fn bundle<'v>(catalog: &'v [serde_json::Value], name: &str) -> &'v serde_json::Value {
    catalog.iter().find(|b| b["name"] == name).unwrap()
}

fn types(b: &serde_json::Value) -> Vec<&str> {
    b["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect()
}

fn json_docs(text: &str) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

/// opm migrates only what it renders from images: the substitute. The entries' bundles are
/// written as the template holds them.
#[test]
fn the_migration_touches_only_the_substitutes() {
    let out = render(
        &data().join("cases/render-single.yaml"),
        &[
            "--migrate-level",
            "bundle-object-to-csv-metadata",
            "-o",
            "json",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let docs = json_docs(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        types(bundle(&docs, "testoperator-v1.1.0-alpha")),
        ["olm.package", "olm.csv.metadata"]
    );
    assert_eq!(
        types(bundle(&docs, "testoperator.v1.1.0")),
        ["olm.package", "olm.bundle.object", "olm.bundle.object"]
    );
}

/// A catalog written as a substitutes template holds its bundles whole and no substitution; it
/// renders back to the catalog, and a substitution added to it renders as opm would.
#[test]
fn from_catalog_writes_a_template_that_renders_back() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    std::fs::create_dir(&catalog).unwrap();
    let rendered = std::fs::read_to_string(data().join("cases/render-single.out.yaml")).unwrap();
    std::fs::write(catalog.join("catalog.yaml"), &rendered).unwrap();
    let out = fbc()
        .args(["template", "from-catalog"])
        .arg(&catalog)
        .args(["-p", "testoperator", "--type", "substitutes", "-o", "yaml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let template = String::from_utf8(out.stdout).unwrap();
    assert!(
        template.starts_with("schema: olm.template.substitutes\nentries:\n"),
        "{template}"
    );
    assert!(template.ends_with("substitutions: []\n"), "{template}");
    let file = tmp.path().join("t.yaml");
    std::fs::write(&file, &template).unwrap();
    let back = render(&file, &[]);
    assert!(back.status.success(), "{back:?}");
    assert_eq!(String::from_utf8_lossy(&back.stdout), rendered);

    let refused = fbc()
        .args(["template", "from-catalog"])
        .arg(&catalog)
        .args(["-p", "testoperator", "--type", "semver"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
}

/// `edit TEMPLATE substitute` appends the substitution, shows what it does to the channels, and
/// `unsubstitute` takes it out again, leaving the file as it was; a base used twice is refused.
#[test]
fn substitute_and_unsubstitute_edit_the_template() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("t.yaml");
    let original = std::fs::read_to_string(data().join("cases/render-none.yaml")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let (image, dir) = IMAGES[0];
    let out = fbc()
        .arg("edit")
        .arg(&file)
        .args([
            "substitute",
            "--base",
            "testoperator.v1.0.0",
            "--image",
            image,
        ])
        .arg("--from")
        .arg(data().join("bundles").join(dir))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout.contains(&format!("+- name: {image}\n+  base: testoperator.v1.0.0")),
        "{stdout}"
    );
    assert!(stdout.contains("the rendering changes:"), "{stdout}");
    assert!(stdout.contains("testoperator-v1.1.0-alpha"), "{stdout}");
    let edited = std::fs::read_to_string(&file).unwrap();
    assert!(
        edited.ends_with(&format!(
            "substitutions:\n- name: {image}\n  base: testoperator.v1.0.0\n"
        )),
        "{edited}"
    );

    let again = fbc()
        .arg("edit")
        .arg(&file)
        .args([
            "substitute",
            "--base",
            "testoperator.v1.0.0",
            "--image",
            IMAGES[1].0,
        ])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("already has a substitute"),
        "{again:?}"
    );

    let out = fbc()
        .arg("edit")
        .arg(&file)
        .arg("--bundle-dir")
        .arg(format!(
            "{image}={}",
            data().join("bundles").join(dir).display()
        ))
        .args(["unsubstitute", "--base", "testoperator.v1.0.0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let back = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        back.replace("substitutions:\n", "substitutions: []\n"),
        original
    );
}

/// `template render-all` renders a catalog `ci.yaml` maps to a substitutes template, the catalogs
/// from OCP 4.17 on with the substitutes migrated, and says that the community pipeline would not.
#[test]
fn render_all_renders_a_mapping_naming_a_substitutes_template() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let op = root.join("operators/testoperator");
    std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
    std::fs::create_dir_all(root.join("catalogs")).unwrap();
    std::fs::copy(
        data().join("cases/render-single.yaml"),
        op.join("catalog-templates/subs.yaml"),
    )
    .unwrap();
    std::fs::write(
        op.join("ci.yaml"),
        "fbc:\n  enabled: true\n  catalog_mapping:\n  - template_name: subs.yaml\n    catalog_names: [v4.16, v4.18]\n    type: olm.template.substitutes\n",
    )
    .unwrap();
    let mut c = fbc();
    c.args(["template", "render-all"]).arg(&op);
    let out = bundle_dirs(&mut c).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("take only olm.template.basic and olm.semver"),
        "{out:?}"
    );
    let old =
        std::fs::read_to_string(root.join("catalogs/v4.16/testoperator/catalog.yaml")).unwrap();
    assert_eq!(
        old,
        std::fs::read_to_string(data().join("cases/render-single.out.yaml")).unwrap()
    );
    let new =
        std::fs::read_to_string(root.join("catalogs/v4.18/testoperator/catalog.yaml")).unwrap();
    let metadata = new.matches("type: olm.csv.metadata").count();
    let objects = new.matches("type: olm.bundle.object").count();
    assert_eq!((metadata, objects), (1, 4), "{new}");
}

mod tui {
    use super::{IMAGES, data};
    use crate::common::screen;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use fbc_core::catalog::Progress;
    use fbc_core::template::memo::Memo;
    use fbc_core::template::{BundleDirSource, Sources};
    use fbc_core::workspace::templates::TemplateSet;
    use fbc_edit::tui::app::{Action, Model, TemplateView};
    use fbc_edit::tui::effects::settle as update;
    use fbc_edit::tui::keymap::Keymap;
    use std::path::Path;
    use std::sync::Arc;

    fn sources() -> Sources {
        let mut sources = Sources::new();
        sources.push(BundleDirSource::new(
            IMAGES
                .iter()
                .map(|(i, d)| (i.to_string(), data().join("bundles").join(d)))
                .collect(),
        ));
        sources
    }

    /// A template that does not render says so at the substitution's line and column, its hint
    /// where the problems pane shows hints.
    #[test]
    fn a_template_that_does_not_render_says_where_with_a_hint() {
        let file = data().join("cases/render-duplicate-base.yaml");
        let ws = fbc_core::workspace::template::TemplateWorkspace::open(&file, Box::new(sources()))
            .unwrap();
        let d = &ws.report().diagnostics[0];
        assert_eq!((d.location.line, d.location.column), (52, 9), "{d:?}");
        assert!(
            d.hint
                .as_deref()
                .is_some_and(|h| h.starts_with("each bundle is substituted once")),
            "{d:?}"
        );
        assert!(
            d.message
                .contains("render: cannot reuse the same substitution base")
                && !d.message.contains("hint"),
            "{d:?}"
        );
    }

    fn opened(file: &Path) -> Model {
        let sources = sources();
        let mut m = Model::new(
            file.to_path_buf(),
            Keymap::default(),
            Arc::new(Progress::default()),
        );
        m.template = Some(TemplateView {
            file: file.to_path_buf(),
            source_note: None,
            notes: Vec::new(),
        });
        let set = TemplateSet::open(&[file.to_path_buf()], Memo::new(sources)).unwrap();
        update(&mut m, Action::TemplatesOpened(Ok(Box::new(set))));
        m
    }

    fn keys(m: &mut Model, text: &str) {
        for c in text.chars() {
            let code = if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            };
            fbc_edit::tui::effects::press(m, KeyEvent::new(code, KeyModifiers::NONE));
        }
    }

    /// The graph of a substitutes template's rendering shows the base and its substitute, the
    /// base's edges on the substitute; `:unsubstitute` and `:substitute` edit the substitutions
    /// with the rendering and its problems following, and undo takes an edit back.
    #[test]
    fn the_graph_shows_the_substitution_and_the_palette_edits_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("subs.yaml");
        let original = std::fs::read_to_string(data().join("cases/render-single.yaml")).unwrap();
        std::fs::write(&file, &original).unwrap();
        let mut m = opened(&file);
        // Open the package and its channel, and focus the graph.
        keys(&mut m, "lj");
        let text = screen(&mut m, 160, 22);
        assert!(
            text.contains("testoperator-v1.1.0-alpha")
                && text.contains("⇐ substitutes testoperator.v1.1.0"),
            "{text}"
        );
        assert!(
            text.contains("⇒ substituted by testoperator-v1.1.0-alpha"),
            "{text}"
        );
        insta::assert_snapshot!("substitutes_template_graph", text);

        keys(&mut m, ":unsubstitute testoperator.v1.1.0\n");
        let status = m.status.clone().unwrap();
        assert!(
            status.starts_with("drop the substitution of testoperator.v1.1.0"),
            "{status}"
        );
        // The status line says how the edges move; the graph has no substitution left.
        assert!(
            status
                .contains("~ stable: testoperator.v1.1.0 (no edges → replaces testoperator.v1.0.0"),
            "{status}"
        );
        let text = screen(&mut m, 160, 22);
        assert!(!text.contains('⇐') && !text.contains('⇒'), "{text}");
        keys(
            &mut m,
            &format!(":substitute {} testoperator.v1.1.0\n", IMAGES[1].0),
        );
        let status = m.status.clone().unwrap();
        assert!(
            status.starts_with(&format!(
                "substitute {} for testoperator.v1.1.0",
                IMAGES[1].0
            )),
            "{status}"
        );
        let text = screen(&mut m, 160, 22);
        assert!(
            text.contains("⇐ substitutes testoperator.v1.1.0")
                && text.contains("testoperator-v1.2.0-alpha"),
            "{text}"
        );
        // A second substitute for the same base is refused before anything changes.
        keys(
            &mut m,
            &format!(":substitute {} testoperator.v1.1.0\n", IMAGES[2].0),
        );
        assert!(
            m.status
                .clone()
                .unwrap()
                .contains("already has a substitute"),
            "{:?}",
            m.status
        );
        keys(&mut m, "uu");
        let l = m.loaded().unwrap();
        assert!(!l.ws.is_dirty());
    }
}
