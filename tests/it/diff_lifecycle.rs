//! `diff` of OpenShift lifecycles (testdata/diff/lifecycle, see the README beside it): a version
//! added or removed is said with its phases, dates and platforms, a changed platform compatibility
//! in words, a moved phase as the field it is; the same in text, Markdown and JSON, and in review
//! mode's changes.

use std::path::PathBuf;

use assert_cmd::Command;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/diff/lifecycle")
}

/// `fbc-edit diff old new -o OUTPUT`: exit code and stdout.
fn diff(output: &str) -> (Option<i32>, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("diff")
        .arg(data().join("old"))
        .arg(data().join("new"))
        .args(["-o", output])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn text_says_versions_added_removed_and_platforms_in_words() {
    let (code, text) = diff("text");
    assert_eq!(code, Some(1));
    for line in [
        "    + version 4.18 (phases: Full support 2025-02-25 – 2025-09-25, Maintenance support 2025-09-26 – 2026-08-25; runs on openshift 4.18)",
        "    - version 4.12 (phases: Full support 2023-01-17 – 2023-08-17, ",
        "    ~ version 4.17 runs on: openshift 4.17 → openshift 4.17, 4.18 (gains openshift 4.18)",
        "    ~ versions[4.17].phases[Maintenance support].endDate: 2026-04-01 → 2026-06-01",
        "  + lifecycle (io.openshift.operators.lifecycles.v1alpha1)\n    + version 1.0 (phases: Full support 2026-01-05 – 2026-12-31; runs on openshift 4.19, 4.20)",
    ] {
        assert!(text.contains(line), "{line:?} not in:\n{text}");
    }
    // No version is left as a raw JSON field.
    assert!(
        !text.contains("versions[4.18]") && !text.contains('{'),
        "{text}"
    );
    insta::assert_snapshot!("diff_lifecycle_text", text);
}

#[test]
fn markdown_says_the_same() {
    let (code, md) = diff("markdown");
    assert_eq!(code, Some(1));
    assert!(
        md.contains("  - version `4.18` added (phases: Full support 2025-02-25 – 2025-09-25"),
        "{md}"
    );
    assert!(
        md.contains("  - version `4.17` runs on: openshift 4.17 → openshift 4.17, 4.18"),
        "{md}"
    );
    insta::assert_snapshot!("diff_lifecycle_markdown", md);
}

/// JSON keeps each version as the blob writes it, and the platforms before and after.
#[test]
fn json_keeps_the_versions_structured() {
    let (code, json) = diff("json");
    assert_eq!(code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let aws = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "aws-efs-csi-driver-operator")
        .unwrap();
    let lc = &aws["others"][0];
    assert_eq!(lc["change"], "changed");
    let added = &lc["lifecycle"]["versions_added"][0];
    assert_eq!(added["name"], "4.18");
    assert_eq!(added["phases"][1]["startDate"], "2025-09-26");
    assert_eq!(added["platformCompatibility"][0]["versions"][0], "4.18");
    assert_eq!(lc["lifecycle"]["versions_removed"][0]["name"], "4.12");
    let p = &lc["lifecycle"]["platforms_changed"][0];
    assert_eq!(p["version"], "4.17");
    assert_eq!(p["new"][0]["versions"][1], "4.18");
    assert_eq!(
        lc["fields"][0]["path"],
        "versions[4.17].phases[Maintenance support].endDate"
    );
    assert_eq!(lc["fields"].as_array().unwrap().len(), 1);
    insta::assert_snapshot!("diff_lifecycle_json", json);
}

/// Review mode lists the lifecycle's changes under its package, in the same words.
#[test]
fn review_mode_lists_them() {
    use fbc_edit::tui::app::{Action, Model};
    let new = data().join("new");
    let mut m = Model::new(
        new.clone(),
        fbc_edit::tui::keymap::Keymap::default(),
        std::sync::Arc::new(fbc_core::catalog::Progress::default()),
    );
    fbc_edit::tui::effects::settle(&mut m, fbc_edit::tui::effects::load(&new, None));
    let old = fbc_core::catalog::load(&data().join("old")).unwrap();
    fbc_edit::tui::effects::settle(&mut m, Action::CompareLoaded(Ok(Box::new(old))));
    // The details pane marks the phase in effect on a fixed day.
    if let fbc_edit::tui::app::State::Ready(l) = &mut m.state {
        l.today = fbc_core::catalog::lifecycle::Date::parse("2025-06-01").unwrap();
    }
    let texts: Vec<String> = m
        .loaded()
        .unwrap()
        .changes
        .iter()
        .map(|c| c.text.clone())
        .collect();
    for want in [
        "  ~ lifecycle (io.openshift.operators.lifecycles.v1alpha1)",
        "    + version 4.18 (phases: Full support 2025-02-25 – 2025-09-25, Maintenance support 2025-09-26 – 2026-08-25; runs on openshift 4.18)",
        "    ~ version 4.17 runs on: openshift 4.17 → openshift 4.17, 4.18 (gains openshift 4.18)",
        "    ~ versions[4.17].phases[Maintenance support].endDate: 2026-04-01 → 2026-06-01",
        "  + lifecycle (io.openshift.operators.lifecycles.v1alpha1)",
    ] {
        assert!(
            texts.iter().any(|t| t == want),
            "{want:?} not in {texts:#?}"
        );
    }
    insta::assert_snapshot!(
        "diff_lifecycle_review_160x45",
        crate::common::screen(&mut m, 160, 45)
    );
}
