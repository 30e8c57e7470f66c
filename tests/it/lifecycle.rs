//! OpenShift lifecycle blobs (`io.openshift.operators.lifecycles.v1alpha1`): the enhancement's
//! example passes; each file of the corpus (testdata/lifecycle/broken, one rule broken in each) gives
//! its one problem at its place with a hint, a warning that leaves opm's verdict alone, an error
//! under `--profile konflux` and for OpenShift 5.0.

use std::path::PathBuf;

use assert_cmd::Command;
use fbc_core::catalog::{Severity, load};
use fbc_core::validate::{self, codes};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/lifecycle")
}

/// Case, code, file (under the package directory), line, column.
const BROKEN: &[(&str, &str, &str, u32, u32)] = &[
    (
        "unknown-field",
        codes::LIFECYCLE_SHAPE,
        "lifecycle.json",
        50,
        11,
    ),
    (
        "missing-versions",
        codes::LIFECYCLE_SHAPE,
        "lifecycle.json",
        1,
        1,
    ),
    (
        "empty-phases",
        codes::LIFECYCLE_SHAPE,
        "lifecycle.json",
        45,
        17,
    ),
    (
        "wrong-type",
        codes::LIFECYCLE_SHAPE,
        "lifecycle.json",
        34,
        32,
    ),
    (
        "version-name",
        codes::LIFECYCLE_VERSION_NAME,
        "lifecycle.json",
        44,
        15,
    ),
    (
        "date-not-real",
        codes::LIFECYCLE_DATE,
        "lifecycle.json",
        54,
        22,
    ),
    (
        "end-not-after-start",
        codes::LIFECYCLE_PHASE_ORDER,
        "lifecycle.json",
        49,
        22,
    ),
    ("gap", codes::LIFECYCLE_PHASE_GAP, "lifecycle.json", 53, 24),
    (
        "overlap",
        codes::LIFECYCLE_PHASE_GAP,
        "lifecycle.json",
        20,
        24,
    ),
    (
        "platform-name",
        codes::LIFECYCLE_PLATFORM,
        "lifecycle.json",
        36,
        19,
    ),
    (
        "platform-version",
        codes::LIFECYCLE_PLATFORM,
        "lifecycle.json",
        62,
        13,
    ),
    (
        "duplicate",
        codes::LIFECYCLE_DUPLICATE,
        "lifecycle.json",
        1,
        1,
    ),
    (
        "unknown-package",
        codes::LIFECYCLE_UNKNOWN_PACKAGE,
        "lifecycle.json",
        3,
        14,
    ),
];

fn lifecycle_problems(dir: &std::path::Path) -> Vec<fbc_core::catalog::Diagnostic> {
    let cat = load(dir).unwrap();
    validate::validate(&cat)
        .diagnostics
        .into_iter()
        .filter(|d| d.code.starts_with("FBC12"))
        .collect()
}

#[test]
fn the_enhancement_s_example_passes() {
    assert!(lifecycle_problems(&corpus().join("example")).is_empty());
}

#[test]
fn every_broken_rule_is_one_warning_at_its_place_with_a_hint() {
    let listed: Vec<String> = std::fs::read_dir(corpus().join("broken"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(listed.len(), BROKEN.len(), "a case without an expectation");
    for (code, _, summary) in codes::RULES {
        if code.starts_with("FBC12") {
            assert!(
                BROKEN.iter().any(|b| b.1 == *code),
                "no broken file shows {code} ({summary})"
            );
        }
    }
    for (case, code, file, line, col) in BROKEN {
        let dir = corpus().join("broken").join(case);
        let got = lifecycle_problems(&dir);
        assert_eq!(got.len(), 1, "{case}: {got:#?}");
        let d = &got[0];
        assert_eq!(d.code, *code, "{case}: {}", d.message);
        assert_eq!(d.severity, Severity::Warning, "{case}");
        assert_eq!(
            (d.location.file.as_str(), d.location.line, d.location.column),
            (
                format!("aws-efs-csi-driver-operator/{file}").as_str(),
                *line,
                *col
            ),
            "{case}: {}",
            d.message
        );
        assert!(d.hint.as_ref().is_some_and(|h| !h.is_empty()), "{case}");
        // opm does not look inside: its verdict stands.
        assert!(
            validate::validate(&load(&dir).unwrap()).is_valid(),
            "{case}"
        );
    }
}

fn validate_cli(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .current_dir(dir)
        .arg("validate")
        .arg(".")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn konflux_and_openshift_5_make_them_errors() {
    let dir = corpus().join("broken/gap");
    let (code, out) = validate_cli(&dir, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning[FBC124]"), "{out}");
    for args in [
        &["--profile", "konflux", "--ocp", "4.18"][..],
        &["--ocp", "5.0"][..],
        &["--profile", "community", "--ocp", "5.0"][..],
    ] {
        let (code, out) = validate_cli(&dir, args);
        assert_ne!(code, 0, "{args:?}: {out}");
        assert!(
            out.contains("./aws-efs-csi-driver-operator/lifecycle.json:53:24: error[FBC124]")
                || out.contains("aws-efs-csi-driver-operator/lifecycle.json:53:24: error[FBC124]"),
            "{args:?}: {out}"
        );
    }
    // The community profile for OpenShift 4 leaves them warnings.
    let (code, out) = validate_cli(&dir, &["--profile", "community", "--ocp", "4.18"]);
    assert!(out.contains("warning[FBC124]"), "{out}");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_lifecycle_without_a_package_field_is_checked_too() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("lifecycle.json"),
        r#"{"schema": "io.openshift.operators.lifecycles.v1alpha1", "versions": [{"name": "1.5", "phases": [{"name": "Full support", "startDate": "2025-01-01", "endDate": "2025-12-31"}]}]}"#,
    )
    .unwrap();
    let got = lifecycle_problems(tmp.path());
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].code, codes::LIFECYCLE_SHAPE);
    assert!(
        got[0].message.contains("package is required"),
        "{}",
        got[0].message
    );
}

fn tui_at(dir: &std::path::Path, today: &str) -> fbc_edit::tui::app::Model {
    let mut m = crate::common::tui_model(dir);
    let fbc_edit::tui::app::State::Ready(l) = &mut m.state else {
        panic!("not loaded");
    };
    l.today = fbc_core::catalog::lifecycle::Date::parse(today).unwrap();
    m
}

/// The package's details: every version's phases with dates, the one in effect today (the date
/// fixed here, as the runtime passes it in) and the OpenShift versions it runs on.
#[test]
fn the_tui_shows_a_package_s_lifecycle_and_today_s_phase() {
    let dir = corpus().join("example");
    let mut m = tui_at(&dir, "2025-06-01");
    let text = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(text.contains("lifecycle (today 2025-06-01):"), "{text}");
    assert!(
        text.contains("4.12  now: Extended update support Term 2"),
        "{text}"
    );
    assert!(text.contains("4.17  now: Maintenance support"), "{text}");
    assert!(
        text.contains("   ▶ Maintenance support  2025-05-26 – 2026-04-01"),
        "{text}"
    );
    assert!(text.contains("    runs on: openshift 4.17"), "{text}");
    insta::assert_snapshot!("lifecycle_160x60", crate::common::screen(&mut m, 160, 60));
    // Another day, another phase; after the last one, ended.
    let m = tui_at(&dir, "2027-02-01");
    let text = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(
        text.contains("4.12  ended") && text.contains("4.17  ended"),
        "{text}"
    );
    let m = tui_at(&dir, "2023-01-01");
    let text = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(text.contains("4.12  not started yet"), "{text}");
}

#[test]
fn list_shows_the_lifecycle_of_a_package() {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .current_dir(corpus())
        .args(["list", "example", "aws-efs-csi-driver-operator"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with(
            "\nLIFECYCLE  PHASE                           START       END         RUNS ON\n\
             4.12       Full support                    2023-01-17  2023-08-17  openshift 4.12\n\
             \x20          Maintenance support             2023-08-18  2024-07-17\n\
             \x20          Extended update support         2024-07-18  2025-01-17\n\
             \x20          Extended update support Term 2  2025-01-18  2026-01-17\n\
             \x20          Extended update support Term 3  2026-01-18  2027-01-17\n\
             4.17       Full support                    2024-10-01  2025-05-25  openshift 4.17\n\
             \x20          Maintenance support             2025-05-26  2026-04-01\n"
        ),
        "{text}"
    );
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .current_dir(corpus())
        .args([
            "list",
            "example",
            "aws-efs-csi-driver-operator",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["lifecycle"][1]["phases"][1]["endDate"], "2026-04-01");
    assert_eq!(
        v["lifecycle"][0]["platformCompatibility"][0]["versions"][0],
        "4.12"
    );
}

/// A phase moved and a version added show in `diff`, under the package.
#[test]
fn diff_shows_a_moved_phase_and_an_added_version() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    crate::common::copy_dir(&corpus().join("example"), &old);
    crate::common::copy_dir(&corpus().join("example"), &new);
    let file = new.join("aws-efs-csi-driver-operator/lifecycle.yaml");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("endDate: \"2026-04-01\"", "endDate: \"2026-06-01\"")
        + "  - name: \"4.18\"\n    phases:\n      - name: Full support\n        startDate: \"2025-02-25\"\n        endDate: \"2025-09-25\"\n";
    std::fs::write(&file, text).unwrap();
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "package aws-efs-csi-driver-operator (changed)\n\
        \x20 ~ lifecycle (io.openshift.operators.lifecycles.v1alpha1)\n\
        \x20   + version 4.18 (phases: Full support 2025-02-25 – 2025-09-25)\n\
        \x20   ~ versions[4.17].phases[Maintenance support].endDate: 2026-04-01 → 2026-06-01\n"
    );
}
