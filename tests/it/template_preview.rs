//! A semver template's text names bundle images only, so an edit's preview also says what the edit
//! generates: the channels and upgrade edges it adds, removes or changes in the rendering.

use std::path::Path;

use assert_cmd::Command;

#[test]
fn a_semver_edit_shows_the_channels_and_edges_it_generates() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/render-all/community-operators-prod.tar.gz");
    tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(archive).unwrap(),
    ))
    .unpack(tmp.path())
    .unwrap();
    let template = tmp
        .path()
        .join("operators/konflux/catalog-templates/semver.yaml");
    let before = std::fs::read(&template).unwrap();
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .env_remove("FBC_EDIT_FAULT")
        .arg("edit")
        .arg(&template)
        .args([
            "remove-image",
            "--image",
            "quay.io/community-operator-pipeline-prod/konflux:0.2.1",
            "--dry-run",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The template diff: one image line goes.
    assert!(
        stdout.contains("-  - Image: quay.io/community-operator-pipeline-prod/konflux:0.2.1\n"),
        "{stdout}"
    );
    // The rendering: the bundle leaves its channel and the one below it takes over its edges.
    let changes = stdout
        .split_once("the rendering changes:\n")
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        changes.contains("    - stable-v0.2: konflux-operator.v0.2.1\n"),
        "{changes}"
    );
    assert!(
        changes.contains("    ~ stable-v0.2: konflux-operator.v0.2.0 (no edges → replaces "),
        "{changes}"
    );
    assert_eq!(
        std::fs::read(&template).unwrap(),
        before,
        "a dry run writes nothing"
    );
}
