//! `fbc-edit repo add-ocp`: opening an OCP catalog version in a slice of certified-operators, one
//! operator per promotion strategy, as the pipeline's promote-catalog.py does it, with what it gets
//! wrong put right, previewed first and written all or nothing.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common;

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A copy of testdata/repo-promote.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(&local("testdata/repo-promote"), &root);
    (tmp, root)
}

fn add_ocp(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .env_remove("FBC_EDIT_FAULT")
        .arg("repo")
        .arg("add-ocp")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

const OCO_FLOW: &str = "\"v4.19\", \"v4.20\", \"v4.21\", \"v4.22\", \"v5.0\"]";

#[test]
fn a_dry_run_previews_each_strategy_and_writes_nothing() {
    let (_tmp, root) = repo();
    let before = common::tree(&root);
    let (code, out, err) = add_ocp(&root, &["v4.23", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    // 5.0 is not below 4.23: the source is v4.22, and the output says it was chosen.
    assert!(
        out.starts_with(
            "opening v4.23 from v4.22 (the highest catalog version below it in catalogs/)\n"
        ),
        "{out}"
    );
    assert!(out.contains("dxoperator: always — with every `always` operator in one pull request\n  ci.yaml: v4.23 appended to the mapping of v4.22.yaml"), "{out}");
    assert!(
        out.contains("edb-hcp-operator: never\n  left alone\n"),
        "{out}"
    );
    assert!(out.contains("operator-certification-operator: review-needed — in a pull request of its own\n  ci.yaml: v4.23 appended to the mapping of basic.yaml"), "{out}");
    assert!(out.contains("catalogs/v4.23/dxoperator/catalog.yaml: copied from catalogs/v4.22/dxoperator/catalog.yaml"), "{out}");
    // The diff of each ci.yaml: one line in the block list, the flow list grows in place.
    assert!(
        out.contains("     - v4.22\n+    - v4.23\n     template_name: v4.22.yaml\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "-        {OCO_FLOW}\n+        {}",
            OCO_FLOW.replace("]", ", \"v4.23\"]")
        )),
        "{out}"
    );
    assert!(
        err.contains("4 file(s) would be written (dry run: nothing written)"),
        "{err}"
    );
    assert_eq!(common::tree(&root), before);
}

#[test]
fn opening_a_version_copies_catalogs_and_extends_mappings_and_nothing_else() {
    let (_tmp, root) = repo();
    let before = common::tree(&root);
    let (code, _, err) = add_ocp(&root, &["v4.23", "--yes"]);
    assert_eq!(code, 0, "{err}");
    let after = common::tree(&root);
    let changed: Vec<&String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        changed,
        [
            "catalogs/v4.23/dxoperator/catalog.yaml",
            "catalogs/v4.23/operator-certification-operator/catalog.yaml",
            "operators/dxoperator/ci.yaml",
            "operators/operator-certification-operator/ci.yaml",
        ]
    );
    // The copies are byte for byte (both sources are migrated catalogs already).
    for op in ["dxoperator", "operator-certification-operator"] {
        assert_eq!(
            after[&format!("catalogs/v4.23/{op}/catalog.yaml")],
            before[&format!("catalogs/v4.22/{op}/catalog.yaml")]
        );
    }
    // ci.yaml: every other byte kept (the pipeline's ruamel dump would re-indent them).
    let dx = "operators/dxoperator/ci.yaml";
    assert_eq!(
        read(&root, dx),
        String::from_utf8_lossy(&before[dx]).replace("    - v4.22\n", "    - v4.22\n    - v4.23\n")
    );
    let oco = "operators/operator-certification-operator/ci.yaml";
    assert_eq!(
        read(&root, oco),
        String::from_utf8_lossy(&before[oco])
            .replace(OCO_FLOW, &OCO_FLOW.replace("]", ", \"v4.23\"]"))
    );
    // The result is what `template render-all` reads: v4.23 maps to the template that held v4.22.
    let plan = fbc_core::template::render_all::plan(&root.join("operators/dxoperator")).unwrap();
    assert!(
        plan.jobs
            .iter()
            .any(|j| j.template_name == "v4.22.yaml" && j.catalogs.contains(&"v4.23".to_string()))
    );

    // Again: open already, nothing written.
    let (code, out, err) = add_ocp(&root, &["v4.23", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("nothing to write: v4.23 is open already"),
        "{err}"
    );
    assert!(
        out.contains("v4.23 is mapped already (to basic.yaml); unchanged"),
        "{out}"
    );
    assert_eq!(common::tree(&root), after);
}

#[test]
fn a_version_after_5_0_is_opened_from_5_0() {
    let (_tmp, root) = repo();
    let (code, out, err) = add_ocp(&root, &["v5.1", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("opening v5.1 from v5.0 "), "{out}");
    assert_eq!(
        std::fs::read(root.join("catalogs/v5.1/operator-certification-operator/catalog.yaml"))
            .unwrap(),
        std::fs::read(root.join("catalogs/v5.0/operator-certification-operator/catalog.yaml"))
            .unwrap()
    );
    assert!(
        read(&root, "operators/operator-certification-operator/ci.yaml")
            .contains("\"v5.0\", \"v5.1\"]")
    );
    // Only operators in catalogs/v5.0 are promoted.
    assert!(!root.join("catalogs/v5.1/dxoperator").exists());
    // An explicit --from is taken as given.
    let (code, out, err) = add_ocp(&root, &["v4.24", "--from", "v4.22", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("opening v4.24 from v4.22\n"), "{out}");
}

#[test]
fn a_pre_4_17_catalog_is_rendered_migrated_instead_of_copied() {
    let (_tmp, root) = repo();
    let (code, out, err) = add_ocp(&root, &["v4.17", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("opening v4.17 from v4.15 "), "{out}");
    assert!(
        out.contains("catalogs/v4.17/ako-operator/catalog.yaml: rendered from operators/ako-operator/catalog-templates/v4.15.yaml with --migrate-level bundle-object-to-csv-metadata instead of copied"),
        "{out}"
    );
    // The pipeline's own v4.17 rendering of operator-certification-operator, byte for byte.
    assert_eq!(
        std::fs::read(root.join("catalogs/v4.17/operator-certification-operator/catalog.yaml"))
            .unwrap(),
        std::fs::read(local(
            "testdata/repo-promote-expected/v4.17-operator-certification-operator.yaml"
        ))
        .unwrap()
    );
    assert!(
        out.contains("v4.17 is mapped already (to basic.yaml); unchanged"),
        "{out}"
    );
    // ako-operator: a v4.17 catalog with no olm.bundle.object, valid, mapped to its v4.15 template.
    let ako = read(&root, "catalogs/v4.17/ako-operator/catalog.yaml");
    assert!(!ako.contains("olm.bundle.object") && ako.contains("olm.csv.metadata"));
    assert!(
        read(&root, "operators/ako-operator/ci.yaml").contains(
            "  - catalog_names:\n    - v4.15\n    - v4.17\n    template_name: v4.15.yaml\n"
        )
    );
    let v = Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("validate")
        .arg(root.join("catalogs/v4.17"))
        .output()
        .unwrap();
    assert_eq!(
        v.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&v.stdout)
    );
    // The byte copy the pipeline's script would make keeps olm.bundle.object.
    assert!(read(&root, "catalogs/v4.15/ako-operator/catalog.yaml").contains("olm.bundle.object"));
}

#[test]
fn operators_can_be_chosen_and_bad_requests_write_nothing() {
    let (_tmp, root) = repo();
    let before = common::tree(&root);
    let (code, out, err) = add_ocp(&root, &["v4.23", "--operator", "dxoperator", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("dxoperator: always") && !out.contains("operator-certification-operator"),
        "{out}"
    );
    for (args, why) in [
        (
            &["4.23", "--yes"][..],
            "\"4.23\" is not an OCP catalog version",
        ),
        (
            &["v4.23", "--from", "v4.16", "--yes"][..],
            "catalogs/v4.16 does not exist",
        ),
        (&["v4.12", "--yes"][..], "no catalog version below v4.12"),
        (
            &["v4.23", "--operator", "ako-operator", "--yes"][..],
            "ako-operator: has no catalog in catalogs/v4.22",
        ),
        // Neither --yes nor --dry-run, and no terminal to ask on.
        (
            &["v4.23"][..],
            "give --yes to write the 4 file(s), or --dry-run",
        ),
    ] {
        let (code, _, err) = add_ocp(&root, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    assert_eq!(common::tree(&root), before);
}

#[test]
fn a_failed_write_leaves_the_repository_as_it_was() {
    let (_tmp, root) = repo();
    let before = common::tree(&root);
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .env("FBC_EDIT_FAULT", "rename:3")
        .args(["repo", "add-ocp"])
        .arg(&root)
        .args(["v4.23", "--yes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(common::tree(&root), before);
    assert!(!root.join("catalogs/v4.23").exists());
}

#[test]
fn an_operator_that_cannot_be_promoted_is_named_and_the_others_go_on() {
    let (tmp, root) = repo();
    // A catalog that is a link out of the repository is not read, and not copied.
    let outside = tmp.path().join("secret.yaml");
    std::fs::write(&outside, "secret\n").unwrap();
    let dx = root.join("catalogs/v4.22/dxoperator/catalog.yaml");
    std::fs::remove_file(&dx).unwrap();
    std::os::unix::fs::symlink(&outside, &dx).unwrap();
    // A ci.yaml the pipeline could not read either.
    std::fs::write(
        root.join("operators/edb-hcp-operator/ci.yaml"),
        "fbc: [unclosed\n",
    )
    .unwrap();
    let (code, out, err) = add_ocp(&root, &["v4.23", "--yes"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("dxoperator: always — with every `always` operator in one pull request\n  not promoted: catalogs/v4.22/dxoperator/catalog.yaml is a symbolic link"), "{out}");
    assert!(out.contains("edb-hcp-operator: ci.yaml not read\n  not promoted: operators/edb-hcp-operator/ci.yaml:2:1: "), "{out}");
    assert!(err.contains("2 operator(s) cannot be promoted"), "{err}");
    // The one left is opened; the refused ones write nothing.
    assert!(
        root.join("catalogs/v4.23/operator-certification-operator/catalog.yaml")
            .is_file()
    );
    assert!(!root.join("catalogs/v4.23/dxoperator").exists());
    assert!(!read(&root, "operators/dxoperator/ci.yaml").contains("v4.23"));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret\n");
}

#[test]
fn a_catalog_never_migrated_is_rendered_too() {
    // A v4.22 catalog that still holds olm.bundle.object (committed before its operator was
    // re-rendered, as eda-openshift-operator's v4.17 upstream): copying it into v4.23 would carry
    // the properties the pipeline rejects there, so the mapped template is rendered instead.
    let (_tmp, root) = repo();
    let old = root.join("catalogs/v4.15/ako-operator/catalog.yaml");
    let stale = root.join("catalogs/v4.22/ako-operator/catalog.yaml");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::copy(&old, &stale).unwrap();
    let ci = root.join("operators/ako-operator/ci.yaml");
    let text = std::fs::read_to_string(&ci).unwrap();
    std::fs::write(
        &ci,
        text.replace("    - v4.15\n", "    - v4.15\n    - v4.22\n"),
    )
    .unwrap();
    let (code, out, err) = add_ocp(&root, &["v4.23", "--operator", "ako-operator", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("catalogs/v4.23/ako-operator/catalog.yaml: rendered from operators/ako-operator/catalog-templates/v4.15.yaml with --migrate-level"),
        "{out}"
    );
    let new = read(&root, "catalogs/v4.23/ako-operator/catalog.yaml");
    assert!(!new.contains("olm.bundle.object") && new.contains("olm.csv.metadata"));
    assert!(read(&root, "operators/ako-operator/ci.yaml").contains("    - v4.22\n    - v4.23\n"));
}
