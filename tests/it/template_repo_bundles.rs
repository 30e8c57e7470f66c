//! A community repository's own bundle directories as the bundles of the images its pipeline builds
//! from them (`quay.io/community-operator-pipeline-prod/<op>:<version>` is `operators/<op>/<version>/`),
//! and the refusal to write a bundle in a form opm would not write it.
//!
//! The data (testdata/real/…community-operators-prod__repo-slice, see testdata/real/SOURCES.md) is
//! a slice of community-operators-prod: kairos-operator with its four bundle directories and its
//! v4.12 and v4.17 catalogs, kube-green's template (digest references) with its ten bundle
//! directories and its v4.15 and v4.17 catalogs, trident-operator (tags and digests) with its
//! bundle directories and four of its catalogs, and konflux's template with the head of its default channel (0.2.1) and its v4.20 catalog as it was
//! before 0.2.2-rc.10 was released.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common;

const SLICE: &str = "redhat-openshift-ecosystem__community-operators-prod__repo-slice";
const KONFLUX_RC10: &str = "quay.io/community-operator-pipeline-prod/konflux:0.2.2-rc.10";

fn fbc() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c
}

/// A copy of the slice: the repository's root.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(&common::real(SLICE), &root);
    (tmp, root)
}

fn slice_file(rel: &str) -> Vec<u8> {
    std::fs::read(common::real(SLICE).join(rel)).unwrap()
}

fn catalog(root: &Path, version: &str, op: &str) -> PathBuf {
    root.join("catalogs")
        .join(version)
        .join(op)
        .join("catalog.yaml")
}

fn render_all(root: &Path, op: &str, check: bool) -> std::process::Output {
    let mut c = fbc();
    c.args(["template", "render-all"]);
    if check {
        c.arg("--check");
    }
    c.arg(root.join("operators").join(op)).output().unwrap()
}

/// kairos-operator's catalogs before OCP 4.17, deleted, come back byte for byte from its bundle
/// directories (opm writes their manifests as olm.bundle.object there); the ones from 4.17 on too.
/// Before, they were filled with the olm.csv.metadata bundles of the v4.17 catalog.
#[test]
fn catalogs_before_4_17_come_back_from_the_bundle_directories() {
    let (_tmp, root) = repo();
    std::fs::remove_dir_all(root.join("catalogs/v4.12")).unwrap();
    let out = render_all(&root, "kairos-operator", false);
    assert!(out.status.success(), "{out:?}");
    let old = slice_file("catalogs/v4.12/kairos-operator/catalog.yaml");
    let new = slice_file("catalogs/v4.17/kairos-operator/catalog.yaml");
    for v in ["v4.12", "v4.13", "v4.14", "v4.15", "v4.16"] {
        assert!(
            std::fs::read(catalog(&root, v, "kairos-operator")).unwrap() == old,
            "{v} is not the committed v4.12 catalog"
        );
    }
    for v in ["v4.17", "v4.18", "v4.19", "v4.20", "v4.21", "v4.22"] {
        assert!(
            std::fs::read(catalog(&root, v, "kairos-operator")).unwrap() == new,
            "{v} is not the committed v4.17 catalog"
        );
    }
    // With every catalog gone, the bundle directories alone give them all.
    std::fs::remove_dir_all(root.join("catalogs")).unwrap();
    let out = render_all(&root, "kairos-operator", false);
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::read(catalog(&root, "v4.16", "kairos-operator")).unwrap() == old);
    assert!(std::fs::read(catalog(&root, "v4.22", "kairos-operator")).unwrap() == new);
    let out = render_all(&root, "kairos-operator", true);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("11 of 11 catalogs match"),
        "{out:?}"
    );
}

/// kube-green names its bundles by digest, of the pipeline's repository and of the earlier one
/// (quay.io/openshift-community-operators). With its catalogs before 4.17 gone, the v4.17 catalog
/// holds the bundles as olm.csv.metadata only: each digest is proven to be a bundle directory's
/// image (the directory, rendered and migrated, is that bundle), so the catalogs before 4.17 come
/// back from the directories byte for byte. Before, render-all refused them.
#[test]
fn digest_references_come_back_from_the_bundle_directories() {
    let (_tmp, root) = repo();
    std::fs::remove_dir_all(root.join("catalogs/v4.15")).unwrap();
    let v415 = slice_file("catalogs/v4.15/kube-green/catalog.yaml");
    let v417 = slice_file("catalogs/v4.17/kube-green/catalog.yaml");
    let out = render_all(&root, "kube-green", false);
    assert!(out.status.success(), "{out:?}");
    for v in ["v4.15", "v4.16"] {
        assert!(
            std::fs::read(catalog(&root, v, "kube-green")).unwrap() == v415,
            "{v} is not the committed v4.15 catalog"
        );
    }
    for v in ["v4.17", "v4.18", "v4.19", "v4.20", "v4.21"] {
        assert!(
            std::fs::read(catalog(&root, v, "kube-green")).unwrap() == v417,
            "{v} is not the committed v4.17 catalog"
        );
    }
    let out = render_all(&root, "kube-green", true);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("7 of 7 catalogs match"),
        "{out:?}"
    );
}

/// trident-operator's templates mix tags and digests, one template per catalog; its catalogs before
/// 4.17 (two different ones upstream) come back from the bundle directories byte for byte.
#[test]
fn tags_and_digests_together_come_back_from_the_bundle_directories() {
    let (_tmp, root) = repo();
    let v412 = slice_file("catalogs/v4.12/trident-operator/catalog.yaml");
    let v414 = slice_file("catalogs/v4.14/trident-operator/catalog.yaml");
    for v in ["v4.12", "v4.14"] {
        std::fs::remove_dir_all(root.join("catalogs").join(v).join("trident-operator")).unwrap();
    }
    let out = render_all(&root, "trident-operator", false);
    assert!(out.status.success(), "{out:?}");
    for (v, want) in [
        ("v4.12", &v412),
        ("v4.13", &v412),
        ("v4.14", &v414),
        ("v4.15", &v414),
        ("v4.16", &v414),
    ] {
        assert!(
            std::fs::read(catalog(&root, v, "trident-operator")).unwrap() == *want,
            "{v} is not the committed catalog"
        );
    }
    let out = render_all(&root, "trident-operator", true);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("11 of 11 catalogs match"),
        "{out:?}"
    );
}

const KUBE_GREEN_071: &str = "quay.io/community-operator-pipeline-prod/kube-green@sha256:6a3babd5a11f00ce3786a1a2c7f7543ee72b4fe41d10a4e184a566da36b75bd0";

/// A bundle directory that does not render as the committed bundle is not taken for the digest: the
/// catalogs before 4.17 are refused as before, the message saying where the two differ.
#[test]
fn a_directory_unlike_the_committed_bundle_is_not_taken_for_its_digest() {
    let (_tmp, root) = repo();
    std::fs::remove_dir_all(root.join("catalogs/v4.15")).unwrap();
    let csv =
        root.join("operators/kube-green/0.7.1/manifests/kube-green.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains("  maturity: alpha\n"));
    std::fs::write(
        &csv,
        text.replace("  maturity: alpha\n", "  maturity: beta\n"),
    )
    .unwrap();
    let out = render_all(&root, "kube-green", false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains(KUBE_GREEN_071))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        line.contains("rendering catalogs/v4.15, catalogs/v4.16 (rendered without migration): bundle kube-green.v0.7.1")
            && line.contains("its only source holds it as olm.csv.metadata")
            && line.contains("not taken from the repository's bundle directories: bundle directory")
            && line.contains("renders, migrated to olm.csv.metadata, unlike the bundle catalog")
            && line.contains("\"beta\" against \"alpha\""),
        "{line}"
    );
    // Only that bundle is refused, and nothing is written.
    assert_eq!(
        stderr.matches("its only source holds it as").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!root.join("catalogs/v4.16").exists());
}

/// A digest no committed catalog holds proves nothing: it is not found, as before.
#[test]
fn a_digest_no_catalog_holds_is_not_found() {
    let (_tmp, root) = repo();
    let template = root.join("operators/kube-green/catalog-templates/basic-template.yaml");
    let text = std::fs::read_to_string(&template).unwrap();
    let unknown = format!("{}{}", &KUBE_GREEN_071[..KUBE_GREEN_071.len() - 4], "0000");
    assert!(text.contains(KUBE_GREEN_071));
    std::fs::write(&template, text.replace(KUBE_GREEN_071, &unknown)).unwrap();
    let out = render_all(&root, "kube-green", false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot resolve bundle image {unknown:?}: not found in"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!root.join("catalogs/v4.18").exists());
}

/// The konflux 0.2.2-rc.10 release: the default channel's head (0.2.1) is in the v4.20 catalog as
/// olm.csv.metadata, which holds no icon, and that catalog's package has none either. Its bundle
/// directory gives the CSV, whose icon opm copies into the package: both catalogs the template maps
/// to come out as committed upstream, icon included.
#[test]
fn the_package_icon_comes_from_the_head_bundle_directory() {
    let (_tmp, root) = repo();
    common::copy_dir(
        &common::real(
            "redhat-openshift-ecosystem__community-operators-prod__bundle-konflux-0.2.2-rc.10",
        ),
        &root.join("operators/konflux/0.2.2-rc.10"),
    );
    let template = root.join("operators/konflux/catalog-templates/semver.yaml");
    let released = std::fs::read_to_string(&template).unwrap();
    let line = format!("  - Image: {KONFLUX_RC10}\n");
    assert!(released.contains(&line));
    std::fs::write(&template, released.replacen(&line, "", 1)).unwrap();
    assert!(
        !String::from_utf8(slice_file("catalogs/v4.20/konflux/catalog.yaml"))
            .unwrap()
            .contains("\nicon:")
    );
    let out = fbc()
        .current_dir(&root)
        .args([
            "edit",
            "operators/konflux",
            "release",
            "--from",
            "operators/konflux/0.2.2-rc.10",
            "--image",
            KONFLUX_RC10,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&template).unwrap(), released);
    let upstream = std::fs::read(
        common::real("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20")
            .join("konflux/catalog.yaml"),
    )
    .unwrap();
    for v in ["v4.20", "v4.21"] {
        let written = std::fs::read(catalog(&root, v, "konflux")).unwrap();
        assert!(
            String::from_utf8_lossy(&written).contains("\nicon:\n  base64data: iVBORw0KGgo"),
            "{v} has no icon"
        );
        assert!(written == upstream, "{v} is not the committed catalog");
    }
    let out = render_all(&root, "konflux", true);
    assert!(out.status.success(), "{out:?}");
}

/// A bundle directory that is not what its image's name says is refused, naming both.
#[test]
fn a_bundle_directory_unlike_its_image_is_refused() {
    let (_tmp, root) = repo();
    let csv = root.join(
        "operators/kairos-operator/2.2.0/manifests/kairos-operator.clusterserviceversion.yaml",
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains("  version: 2.2.0\n"));
    std::fs::write(
        &csv,
        text.replace("  version: 2.2.0\n", "  version: 2.2.1\n"),
    )
    .unwrap();
    let before = slice_file("catalogs/v4.17/kairos-operator/catalog.yaml");
    let out = render_all(&root, "kairos-operator", false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("image quay.io/community-operator-pipeline-prod/kairos-operator:2.2.0 names version 2.2.0, but bundle directory")
            && stderr.contains("holds version \"2.2.1\"")
            && stderr.contains("the committed catalogs hold the image as version \"2.2.0\""),
        "{stderr}"
    );
    assert!(std::fs::read(catalog(&root, "v4.17", "kairos-operator")).unwrap() == before);
    assert!(!root.join("catalogs/v4.13").exists());
}

/// A manifest that is a link leading out of the repository is refused with its name, not passed
/// over as opm passes over a file it cannot read.
#[cfg(unix)]
#[test]
fn a_linked_manifest_is_refused() {
    let (tmp, root) = repo();
    let outside = tmp.path().join("outside.yaml");
    std::fs::write(&outside, "kind: ConfigMap\napiVersion: v1\n").unwrap();
    std::os::unix::fs::symlink(
        &outside,
        root.join("operators/kairos-operator/2.2.0/manifests/zz-linked.yaml"),
    )
    .unwrap();
    let out = render_all(&root, "kairos-operator", false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot read manifests/zz-linked.yaml"),
        "{stderr}"
    );
    assert!(!root.join("catalogs/v4.13").exists());
}
