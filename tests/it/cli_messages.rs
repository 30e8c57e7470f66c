//! What the command line says about template edits: diffs name each template by its path under the
//! root the command was given (an operator's templates share their names with the other operators'),
//! a release that is in already says there is nothing to write, and an empty `--image` is refused
//! while the arguments are read, before anything is.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator";
const RABBIT_IMAGE: &str =
    "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3";

/// A copy of testdata/release (a repository layout: operators/ and catalogs/).
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/release"),
        &root,
    );
    (tmp, root)
}

fn fbc_edit(root: &Path) -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT").current_dir(root);
    c
}

/// The lines of the unified diffs' headers.
fn headers(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("--- ") || l.starts_with("+++ "))
        .collect()
}

#[test]
fn template_diffs_name_each_template_by_its_path_under_the_root() {
    let (_tmp, root) = repo();
    let out = fbc_edit(&root)
        .args(["edit", RABBIT, "--dry-run", "deprecate"])
        .args(["-p", "rabbitmq-messaging-topology-operator", "-c", "stable"])
        .args(["-m", "use stable-2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: Vec<String> = ["v4.17", "v4.18", "v4.19", "v4.20", "v4.21"]
        .iter()
        .flat_map(|v| {
            [
                format!("--- a/{RABBIT}/catalog-templates/{v}.yaml"),
                format!("+++ b/{RABBIT}/catalog-templates/{v}.yaml"),
            ]
        })
        .collect();
    assert_eq!(headers(&stdout), expected, "{stdout}");
    // The catalogs re-rendered are named the same way.
    assert!(
        stdout.contains(
            "re-rendered catalogs/v4.20/rabbitmq-messaging-topology-operator/catalog.yaml: "
        ),
        "{stdout}"
    );
}

#[test]
fn a_release_names_templates_by_path_and_a_second_one_has_nothing_to_write() {
    let (_tmp, root) = repo();
    // Take 1.19.3 out of v4.17.yaml, so that the release has it to add there.
    let file = root.join(RABBIT).join("catalog-templates/v4.17.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let entry = "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n";
    let bundle = format!("- schema: olm.bundle\n  image: \n    {RABBIT_IMAGE}\n");
    assert!(text.contains(entry) && text.contains(&bundle));
    std::fs::write(&file, text.replacen(entry, "", 1).replacen(&bundle, "", 1)).unwrap();
    let release = || {
        fbc_edit(&root)
            .args(["edit", RABBIT, "release", "--from"])
            .arg(format!("{RABBIT}/1.19.3"))
            .args(["--image", RABBIT_IMAGE])
            .output()
            .unwrap()
    };
    let out = release();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        headers(&stdout),
        [
            format!("--- a/{RABBIT}/catalog-templates/v4.17.yaml"),
            format!("+++ b/{RABBIT}/catalog-templates/v4.17.yaml"),
        ],
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            ": wrote {RABBIT}/catalog-templates/v4.17.yaml, catalogs/v4.17/"
        )),
        "{stderr}"
    );
    let written = std::fs::read(&file).unwrap();

    let again = release();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("): nothing to write: the templates hold it already and the catalogs they map to are up to date"),
        "{stderr}"
    );
    assert!(!stderr.contains("wrote"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), written);
}

#[test]
fn an_empty_image_is_refused_when_the_arguments_are_read() {
    let (_tmp, root) = repo();
    let before = common::tree(&root);
    let bundle = format!("{RABBIT}/1.19.3");
    let runs: [Vec<&str>; 5] = [
        vec!["edit", RABBIT, "release", "--from", &bundle, "--image", ""],
        vec![
            "edit",
            RABBIT,
            "add-bundle",
            "--from",
            &bundle,
            "--image",
            " ",
            "-c",
            "stable",
        ],
        vec!["edit", RABBIT, "add-image", "--image", "", "-c", "Stable"],
        vec!["release", "preview", &bundle, "--image", ""],
        vec!["render", &bundle, "--image", ""],
    ];
    for args in runs {
        let out = fbc_edit(&root).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("for '--image <REF>': an image reference cannot be empty"),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing is read or shown");
    }
    assert_eq!(common::tree(&root), before);
}
