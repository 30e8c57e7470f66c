//! `fbc-edit template render-all`: every catalog an operator's templates map to, rendered byte for
//! byte as the community repository's CI renders and compares them.
//!
//! The data (testdata/render-all, see its SOURCES.md) is a community-operators-prod layout holding,
//! for each of 32 operators, the v4.20 catalog committed upstream and the template it was rendered
//! from; every bundle of a template is found in that catalog, so rendering is offline.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn fbc() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c
}

/// The repository of testdata/render-all unpacked into a temporary directory.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = crate::common::render_all_repo();
    let root = tmp.path().to_path_buf();
    (tmp, root)
}

fn operators(root: &Path) -> Vec<String> {
    let mut ops: Vec<String> = std::fs::read_dir(root.join("operators"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ops.sort();
    ops
}

fn catalog(root: &Path, op: &str) -> PathBuf {
    root.join("catalogs/v4.20").join(op).join("catalog.yaml")
}

/// Every committed catalog is what its template renders to, byte for byte: `--check` passes for
/// all of them, and a catalog rendered afresh (its file deleted) comes back with the same bytes.
#[test]
fn every_committed_catalog_is_rendered_byte_for_byte() {
    let (_tmp, root) = repo();
    let ops = operators(&root);
    assert_eq!(ops.len(), 32);
    let mut failed = Vec::new();
    for op in &ops {
        let out = fbc()
            .args(["template", "render-all", "--check"])
            .arg(root.join("operators").join(op))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !stdout.contains("1 of 1 catalogs match") {
            failed.push(format!(
                "{op}: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    for op in &ops {
        let committed = std::fs::read(catalog(&root, op)).unwrap();
        std::fs::remove_file(catalog(&root, op)).unwrap();
        // Bundles come from the committed catalog, kept aside.
        let aside = root.join("aside").join(op);
        std::fs::create_dir_all(&aside).unwrap();
        std::fs::write(aside.join("catalog.yaml"), &committed).unwrap();
        let out = fbc()
            .args(["template", "render-all"])
            .arg(root.join("operators").join(op))
            .arg("--catalog")
            .arg(&aside)
            .output()
            .unwrap();
        assert!(out.status.success(), "{op}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains(&format!("catalogs/v4.20/{op}/catalog.yaml: written")),
            "{op}: {out:?}"
        );
        let rendered = std::fs::read(catalog(&root, op)).unwrap();
        assert!(rendered == committed, "{op}: the rendering differs");
    }
}

/// A bundle no source holds is an error naming the template line and the image; nothing is
/// written, not even the catalogs of the templates that did render.
#[test]
fn an_unresolvable_bundle_writes_nothing() {
    let (_tmp, root) = repo();
    let op = "layer7-operator";
    let ci = std::fs::read_to_string(root.join("operators").join(op).join("ci.yaml")).unwrap();
    let template_name = ci
        .lines()
        .find_map(|l| l.trim().strip_prefix("- template_name: "))
        .unwrap()
        .to_string();
    // A second template, mapped to a second catalog, renders fine on its own.
    let templates = root.join("operators").join(op).join("catalog-templates");
    let good = std::fs::read_to_string(templates.join(&template_name)).unwrap();
    std::fs::write(templates.join("copy.yaml"), &good).unwrap();
    std::fs::write(
        root.join("operators").join(op).join("ci.yaml"),
        format!(
            "{ci}    - template_name: copy.yaml\n      type: olm.template.basic\n      catalog_names:\n        - v4.21\n"
        ),
    )
    .unwrap();
    let broken = good.replacen(
        "- schema: olm.bundle\n",
        "- schema: olm.bundle\n  image: quay.io/example/missing:9.9.9\n- schema: olm.bundle\n",
        1,
    );
    assert_ne!(
        broken, good,
        "the template lists bundles as `- schema: olm.bundle`"
    );
    std::fs::write(templates.join(&template_name), &broken).unwrap();
    // The error names the entry's first line, the one before its image (`position` counts from 0).
    let line = broken
        .lines()
        .position(|l| l.contains("missing:9.9.9"))
        .unwrap();
    let before = std::fs::read(catalog(&root, op)).unwrap();
    std::fs::remove_file(catalog(&root, op)).unwrap();
    std::fs::create_dir_all(root.join("aside")).unwrap();
    std::fs::write(root.join("aside/catalog.yaml"), &before).unwrap();
    let out = fbc()
        .args(["template", "render-all"])
        .arg(root.join("operators").join(op))
        .arg("--catalog")
        .arg(root.join("aside"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{template_name}:{line}: cannot resolve bundle image \"quay.io/example/missing:9.9.9\""
        )),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!catalog(&root, op).exists());
    assert!(!root.join("catalogs/v4.21").join(op).exists());
}

/// `--check` is what the repository's CI does: a committed catalog that differs from the rendering
/// (here edited by hand) or is missing fails with a summary naming the file and the first line.
#[test]
fn check_reports_a_catalog_that_differs_and_writes_nothing() {
    let (_tmp, root) = repo();
    let op = "rabbitmq-messaging-topology-operator";
    let path = catalog(&root, op);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen("defaultChannel: stable", "defaultChannel: fast", 1);
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    let out = fbc()
        .args(["template", "render-all", "--check"])
        .arg(root.join("operators").join(op))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = edited
        .lines()
        .position(|l| l == "defaultChannel: fast")
        .unwrap()
        + 1;
    assert!(
        stdout.contains(&format!(
            "catalogs/v4.20/{op}/catalog.yaml: differs: 1 line(s) removed, 1 added; first at line {line}: -defaultChannel: fast +defaultChannel: stable"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("0 of 1 catalogs match"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    // Without --check the catalog is written back as rendered.
    fbc()
        .args(["template", "render-all"])
        .arg(root.join("operators").join(op))
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // A catalog that is not there is missing.
    std::fs::create_dir_all(root.join("aside")).unwrap();
    std::fs::write(root.join("aside/catalog.yaml"), &text).unwrap();
    std::fs::remove_file(&path).unwrap();
    let out = fbc()
        .args(["template", "render-all", "--check"])
        .arg(root.join("operators").join(op))
        .arg("--catalog")
        .arg(root.join("aside"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(&format!("catalogs/v4.20/{op}/catalog.yaml: missing")),
        "{out:?}"
    );
    assert!(!path.exists());
}
