//! Rendering as the opm release a repository pins: an operator's `Makefile` (`OPM_VERSION ?=
//! v1.46.0`) decides how its templates render, `--opm-version` overrides it, and the output says
//! which was followed.
//!
//! The data (testdata/opm-versions, see its SOURCES.md) is a community-operators-prod slice:
//! clusterpulse, whose Makefile pins v1.46.0 and whose committed catalogs that release rendered,
//! and kubevirt-wol, which has no Makefile and whose catalogs an opm before v1.65 rendered.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::template::memo::Memo;
use fbc_core::template::{OpmVersion, Sources};
use fbc_core::workspace::template::TemplateWorkspace;

fn fbc() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c
}

fn slice() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/opm-versions/community-operators-prod")
}

/// The slice copied into a temporary directory, to write in.
fn copy() -> tempfile::TempDir {
    fn walk(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    walk(&slice(), tmp.path());
    tmp
}

fn committed(root: &Path, catalog: &str, op: &str) -> String {
    std::fs::read_to_string(
        root.join("catalogs")
            .join(catalog)
            .join(op)
            .join("catalog.yaml"),
    )
    .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// clusterpulse's six catalogs are what opm v1.46.0, which its Makefile pins, renders: `--check`
/// passes and says which release it followed and why.
#[test]
fn the_makefile_s_release_renders_the_committed_catalogs_byte_for_byte() {
    let out = fbc()
        .args(["template", "render-all", "--check"])
        .arg(slice().join("operators/clusterpulse"))
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(stdout, "6 of 6 catalogs match their templates' rendering\n");
    assert!(
        stderr.contains("note: rendered as opm v1.46.0 (OPM_VERSION in ")
            && stderr.contains("clusterpulse/Makefile:87)"),
        "{stderr}"
    );
}

/// A template named relative to its own directory finds its operator's Makefile too.
#[test]
fn a_template_named_from_its_directory_follows_the_makefile() {
    let out = fbc()
        .current_dir(slice().join("operators/clusterpulse/catalog-templates"))
        .args(["template", "render", "-o", "yaml"])
        .args([
            "--migrate-level",
            "bundle-object-to-csv-metadata",
            "semver.yaml",
        ])
        .args(["--catalog", "../../../catalogs/v4.22/clusterpulse"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("note: rendered as opm v1.46.0 (OPM_VERSION in ")
            && stderr.contains("clusterpulse/Makefile:87)"),
        "{stderr}"
    );
    assert_eq!(
        text(&out.stdout).trim_end(),
        committed(&slice(), "v4.22", "clusterpulse").trim_end()
    );
}

/// The same slice rendered as v1.71.0 (the flag wins over the Makefile) shows the two known
/// differences: the package gains the head bundle's description, and the semver edges are linked
/// across the whole major version without skipping the replaced entry.
#[test]
fn the_flag_wins_and_v1_71_shows_the_known_differences() {
    let out = fbc()
        .args([
            "template",
            "render-all",
            "--check",
            "--opm-version",
            "v1.71.0",
        ])
        .arg(slice().join("operators/clusterpulse"))
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.ends_with("0 of 6 catalogs match their templates' rendering\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("note: rendered as opm v1.71.0 (--opm-version)"),
        "{stderr}"
    );
    let template = slice().join("operators/clusterpulse/catalog-templates/semver.yaml");
    let render = |version: &str| {
        let out = fbc()
            .args(["template", "render", "-o", "yaml", "--opm-version", version])
            .args(["--migrate-level", "bundle-object-to-csv-metadata"])
            .arg(&template)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let (old, new) = (render("v1.46.0"), render("v1.71.0"));
    let theirs = committed(&slice(), "v4.17", "clusterpulse");
    assert_eq!(old.trim_end(), theirs.trim_end());
    let head = |s: &str| s.split("\n---\n").next().unwrap().to_string();
    assert!(!head(&old).contains("description:"), "{}", head(&old));
    assert!(
        head(&new).starts_with("---\ndefaultChannel: fast-v1\ndescription: |\n"),
        "{}",
        head(&new)
    );
    // fast-v0: 0.1.1 | 0.2.0 … 0.2.3 | 0.3.0.
    let v023_old = "- name: clusterpulse.v0.2.3\n  replaces: clusterpulse.v0.1.1\n  skips:\n  - clusterpulse.v0.1.1\n  - clusterpulse.v0.2.0\n";
    let v030_old = "- name: clusterpulse.v0.3.0\n  replaces: clusterpulse.v0.2.3\n  skips:\n  - clusterpulse.v0.2.3\nname: fast-v0\n";
    let v023_new = "- name: clusterpulse.v0.2.3\n  replaces: clusterpulse.v0.1.1\n  skips:\n  - clusterpulse.v0.2.0\n";
    let v030_new = "- name: clusterpulse.v0.3.0\n  replaces: clusterpulse.v0.2.3\n  skips:\n  - clusterpulse.v0.1.1\n  - clusterpulse.v0.2.0\n  - clusterpulse.v0.2.1\n  - clusterpulse.v0.2.2\nname: fast-v0\n";
    assert!(old.contains(v023_old) && old.contains(v030_old), "{old}");
    assert!(new.contains(v023_new) && new.contains(v030_new), "{new}");
}

/// Without a Makefile the default, v1.71.0, is followed: kubevirt-wol's catalogs (no package
/// description) then differ; as v1.61.0 they match.
#[test]
fn without_a_makefile_the_default_is_followed() {
    let dir = slice().join("operators/kubevirt-wol");
    let out = fbc()
        .args(["template", "render-all", "--check"])
        .arg(&dir)
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("+description: "), "{stdout}");
    assert!(
        stderr.contains(
            "note: rendered as opm v1.71.0 (the default: no --opm-version and no Makefile pinning one)"
        ),
        "{stderr}"
    );
    let out = fbc()
        .args([
            "template",
            "render-all",
            "--check",
            "--opm-version",
            "v1.61.0",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout),
        "4 of 4 catalogs match their templates' rendering\n"
    );
}

/// A release the flag names that is not supported is refused before anything is read, with the
/// supported ones.
#[test]
fn an_unsupported_release_is_refused_with_the_supported_ones() {
    for (version, why) in [
        ("v1.64.0", "opm v1.64.0 is not supported: v1.62 to v1.66"),
        (
            "v1.20.0",
            "opm v1.20.0 is not supported: older than v1.46.0",
        ),
        ("latest", "\"latest\" is not an opm version"),
    ] {
        let out = fbc()
            .args([
                "template",
                "render-all",
                "--check",
                "--opm-version",
                version,
            ])
            .arg(slice().join("operators/clusterpulse"))
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
        if version != "latest" {
            assert!(
                stderr.contains("supported: v1.46.0 to v1.61.x and v1.67.0 to v1.73.x"),
                "{stderr}"
            );
        }
    }
}

/// A Makefile that pins something else is named with its line, and one that is not a regular file
/// (a FIFO would never end the read) is not read; either way nothing is rendered.
#[test]
fn a_hostile_makefile_is_refused_by_name() {
    let tmp = copy();
    let makefile = tmp.path().join("operators/clusterpulse/Makefile");
    std::fs::write(&makefile, "# pinned\nOPM_VERSION ?= $(shell curl x)\n").unwrap();
    let out = fbc()
        .args(["template", "render-all", "--check"])
        .arg(tmp.path().join("operators/clusterpulse"))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "clusterpulse/Makefile:2: OPM_VERSION: \"$(shell curl x)\" is not an opm version"
        ),
        "{stderr}"
    );
    // The flag needs no Makefile.
    let out = fbc()
        .args([
            "template",
            "render-all",
            "--check",
            "--opm-version",
            "v1.46.0",
        ])
        .arg(tmp.path().join("operators/clusterpulse"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::remove_file(&makefile).unwrap();
    let fifo = std::ffi::CString::new(makefile.to_str().unwrap()).unwrap();
    // SAFETY: `fifo` is NUL-terminated and outlives the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let out = fbc()
        .args([
            "template",
            "render",
            "--migrate-level",
            "bundle-object-to-csv-metadata",
        ])
        .arg(
            tmp.path()
                .join("operators/clusterpulse/catalog-templates/semver.yaml"),
        )
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("clusterpulse/Makefile: not a regular file (a FIFO); not read"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// An edit of the template re-renders the catalogs it maps to as the Makefile's release: a change
/// that renders the same leaves them unchanged; as v1.71.0 they would change.
#[test]
fn an_edit_rerenders_as_the_makefile_s_release() {
    let tmp = copy();
    let edit = |extra: &[&str]| {
        let out = fbc()
            .current_dir(tmp.path())
            .args(["edit", "--dry-run", "operators/clusterpulse"])
            .args(extra)
            .args(["set-channel-preference", "major"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let (stdout, stderr) = edit(&[]);
    assert!(stderr.contains("note: rendered as opm v1.46.0"), "{stderr}");
    assert_eq!(
        stdout
            .matches("clusterpulse/catalog.yaml: unchanged")
            .count(),
        6,
        "{stdout}"
    );
    let (stdout, stderr) = edit(&["--opm-version", "v1.71.0"]);
    assert!(
        stderr.contains("note: rendered as opm v1.71.0 (--opm-version)"),
        "{stderr}"
    );
    assert_eq!(
        stdout
            .matches("added; first at line 3: - +description: |")
            .count(),
        6,
        "{stdout}"
    );
}

/// The terminal UI's template mode and its save path render as the Makefile's release too.
#[test]
fn an_opened_template_and_its_save_follow_the_makefile() {
    let root = slice();
    let template = root.join("operators/clusterpulse/catalog-templates/semver.yaml");
    let (sources, _) = Sources::for_template(&template, &[], Vec::new(), None).unwrap();
    let memo = Memo::new(sources);
    let ws = TemplateWorkspace::open(&template, Box::new(memo.clone())).unwrap();
    assert_eq!(ws.opm().unwrap().version, OpmVersion::V1_46_0);
    let files = fbc_core::workspace::templates::rerendered(&ws).unwrap();
    assert_eq!(files.len(), 6);
    for (file, text) in &files {
        assert_eq!(*text, std::fs::read_to_string(file).unwrap(), "{file:?}");
    }
    let ws =
        TemplateWorkspace::open_as(&template, Box::new(memo.clone()), Some(OpmVersion::V1_71_0))
            .unwrap();
    let files = fbc_core::workspace::templates::rerendered(&ws).unwrap();
    assert!(files.iter().all(|(_, t)| t.contains("\ndescription: |\n")));
    let set =
        fbc_core::workspace::templates::TemplateSet::open(std::slice::from_ref(&template), memo)
            .unwrap();
    assert!(
        set.notes()
            .iter()
            .any(|n| n.contains("rendered as opm v1.46.0 (OPM_VERSION in ")),
        "{:?}",
        set.notes()
    );
}

/// `edit … release` re-renders the catalogs as the Makefile's release too: a Makefile pinning an
/// unsupported release stops it before anything is written; `--opm-version` overrides the pin.
#[test]
fn the_release_step_follows_the_makefile() {
    const OP: &str = "operators/rabbitmq-messaging-topology-operator";
    const IMAGE: &str =
        "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3";
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    crate::common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/release"),
        &root,
    );
    // The templates as they were before 1.19.3 was released.
    for e in std::fs::read_dir(root.join(OP).join("catalog-templates")).unwrap() {
        let file = e.unwrap().path();
        let text = std::fs::read_to_string(&file).unwrap();
        let text = text
            .replacen(
                "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n",
                "",
                1,
            )
            .replacen(&format!("- schema: olm.bundle\n  image: \n    {IMAGE}\n"), "", 1);
        std::fs::write(&file, text).unwrap();
    }
    std::fs::write(root.join(OP).join("Makefile"), "OPM_VERSION ?= v1.64.0\n").unwrap();
    let before = std::fs::read(root.join(OP).join("catalog-templates/v4.20.yaml")).ok();
    let release = |extra: &[&str]| {
        fbc()
            .current_dir(&root)
            .args(["edit", OP])
            .args(extra)
            .args(["release", "--from"])
            .arg(format!("{OP}/1.19.3"))
            .args(["--image", IMAGE])
            .output()
            .unwrap()
    };
    let out = release(&[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("nothing written: ")
            && stderr.contains("Makefile:1: OPM_VERSION: opm v1.64.0 is not supported"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(root.join(OP).join("catalog-templates/v4.20.yaml")).ok(),
        before
    );
    let out = release(&["--opm-version", "v1.71.0"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "catalogs/v4.20/rabbitmq-messaging-topology-operator/catalog.yaml: unchanged"
        ),
        "{stdout}"
    );
}

/// A bundle whose related images name one image several times: opm orders them with Go's unstable
/// sort, whose order changed in Go 1.24. Rendered as v1.46.0 (built with Go 1.22) and as v1.71.0
/// (Go 1.26), the bundle's related images come out in the orders Go 1.19.8 and Go 1.24.4 gave for
/// the same list (testdata/gosort/related-images, recorded with its `recorder/`).
#[test]
fn related_images_are_ordered_as_the_pinned_releases_go_sorts_them() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/gosort/related-images");
    let orders: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("orders.json")).unwrap()).unwrap();
    let image = orders["image"].as_str().unwrap();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    let (go119, go124) = (names(&orders["go1.19.8"]), names(&orders["go1.24.4"]));
    assert_ne!(
        go119, go124,
        "the recording must tell the two releases apart"
    );
    for (opm, want) in [
        ("v1.46.0", &go119),
        ("v1.61.0", &go124),
        ("v1.71.0", &go124),
    ] {
        let out = fbc()
            .args(["template", "render", "-o", "json", "--opm-version", opm])
            .arg("--bundle-dir")
            .arg(format!("{image}={}", dir.join("bundle").display()))
            .arg(dir.join("basic.yaml"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let bundle = serde_json::Deserializer::from_slice(&out.stdout)
            .into_iter::<serde_json::Value>()
            .map(Result::unwrap)
            .find(|b| b["schema"] == "olm.bundle")
            .unwrap();
        let got: Vec<String> = bundle["relatedImages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(&got, want, "opm {opm}");
    }
}
