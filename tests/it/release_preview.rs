//! `fbc-edit release preview`: what the release pipeline will do when a bundle's pull request
//! merges, on rabbitmq-messaging-topology-operator 1.19.3 and its release-config.yaml, shown and
//! written nowhere.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common;

const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator";

/// A copy of testdata/release with 1.19.3 taken out of the templates again, as they were before
/// the pipeline released it.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/release"),
        &root,
    );
    let image =
        "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3";
    for v in ["v4.17", "v4.18", "v4.19", "v4.20", "v4.21"] {
        let file = root
            .join(RABBIT)
            .join(format!("catalog-templates/{v}.yaml"));
        let mut text = std::fs::read_to_string(&file).unwrap();
        for lines in [
            "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n".to_string(),
            format!("- schema: olm.bundle\n  image: \n    {image}\n"),
        ] {
            assert!(text.contains(&lines), "{v} lacks {lines:?}");
            text = text.replacen(&lines, "", 1);
        }
        std::fs::write(&file, text).unwrap();
    }
    (tmp, root)
}

fn preview(root: &Path, bundle: &str) -> (i32, String, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .current_dir(root)
        .args(["release", "preview", bundle])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_preview_shows_template_and_catalog_changes_and_writes_nothing() {
    let (_tmp, root) = repo();
    let before = common::tree(&root);
    let (code, out, err) = preview(&root, &format!("{RABBIT}/1.19.3"));
    assert_eq!(code, 0, "{err}\n{out}");
    assert_eq!(common::tree(&root), before, "written nowhere");
    assert!(out.starts_with("release of rabbitmq-messaging-topology-operator 1.19.3 as quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3\n"), "{out}");
    // Rendered as the release pipeline's opm renders, not the Makefile's pin.
    assert!(
        out.contains(
            "rendered as opm v1.71.0, the release pipeline's (--opm-version chooses another)\n"
        ),
        "{out}"
    );
    // Each template gains the entry and the bundle, nothing else.
    for v in ["v4.17", "v4.18", "v4.19", "v4.20", "v4.21"] {
        assert!(
            out.contains(&format!("+++ b/{RABBIT}/catalog-templates/{v}.yaml\n")),
            "{v}: {out}"
        );
    }
    let added: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    assert_eq!(added.len(), 5 * 5, "{out}");
    // The committed v4.20 catalog is what the release renders; the others would be new.
    let catalog =
        |v: &str| format!("catalogs/{v}/rabbitmq-messaging-topology-operator/catalog.yaml");
    assert!(
        out.contains(&format!(
            "{}: unchanged, valid: 0 error(s), 1 warning(s)\n",
            catalog("v4.20")
        )),
        "{out}"
    );
    for v in ["v4.17", "v4.18", "v4.19", "v4.21", "v4.22"] {
        assert!(
            out.contains(&format!("{}: new, valid: 0 error(s)", catalog(v))),
            "{v}: {out}"
        );
        assert!(
            out.contains(&format!("+++ b/{}\n(a new file of ", catalog(v))),
            "{out}"
        );
    }
    assert!(out.ends_with("previewed, nothing written\n"), "{out}");
}

#[test]
fn a_catalog_left_invalid_shows_its_problems_and_fails() {
    let (_tmp, root) = repo();
    // Without `replaces`, 1.19.3 is a second head of stable.
    std::fs::write(
        root.join(RABBIT).join("1.19.3/release-config.yaml"),
        "catalog_templates:\n- template_name: v4.20.yaml\n  channels:\n  - stable\n",
    )
    .unwrap();
    let before = common::tree(&root);
    let (code, out, err) = preview(&root, &format!("{RABBIT}/1.19.3"));
    assert_eq!(code, 1, "{err}\n{out}");
    assert_eq!(common::tree(&root), before);
    assert!(
        out.contains("catalogs/v4.20/rabbitmq-messaging-topology-operator/catalog.yaml: changes, invalid: 1 error(s)"),
        "{out}"
    );
    assert!(
        out.contains("[FBC045] channel \"stable\" has 2 heads"),
        "{out}"
    );
    // The committed catalog's diff is shown: the entry without replaces.
    assert!(
        out.contains("+  - name: rabbitmq-messaging-topology-operator.v1.19.3\n"),
        "{out}"
    );
}

#[test]
fn what_the_pipeline_refuses_is_said_and_nothing_else_happens() {
    let (_tmp, root) = repo();
    std::fs::write(
        root.join(RABBIT).join("1.19.3/release-config.yaml"),
        "catalog_templates:\n- template_name: 4.17.yaml\n  channels:\n  - stable\n",
    )
    .unwrap();
    let before = common::tree(&root);
    let (code, out, _) = preview(&root, &format!("{RABBIT}/1.19.3"));
    assert_eq!(code, 1);
    assert!(
        out.contains(
            "the pipeline would stop: Template mapping not found for '4.17.yaml' in ci.yaml."
        ),
        "{out}"
    );
    assert_eq!(common::tree(&root), before);
    // A bundle without release-config.yaml is not released into the catalogs at all.
    std::fs::remove_file(root.join(RABBIT).join("1.19.3/release-config.yaml")).unwrap();
    let (code, _, err) = preview(&root, &format!("{RABBIT}/1.19.3"));
    assert_eq!(code, 2);
    assert!(err.contains("no release-config.yaml"), "{err}");
}
