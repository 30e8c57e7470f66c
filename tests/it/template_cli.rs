//! `fbc-edit template render` and opening a template file, as a user runs them.

use std::path::PathBuf;

use assert_cmd::Command;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/real")
}

fn fbc() -> Command {
    Command::cargo_bin("fbc-edit").unwrap()
}

fn descheduler(version: &str) -> (PathBuf, PathBuf) {
    (
        testdata()
            .join("openshift__cluster-kube-descheduler-operator__fbc-catalog-templates")
            .join(format!("v{version}/catalog-template.yaml")),
        testdata().join(format!(
            "openshift__cluster-kube-descheduler-operator__fbc-v{version}-catalog"
        )),
    )
}

fn trino() -> PathBuf {
    testdata().join("zncdatadev__kubedoop-catalog__composite-semver-templates/trino-operator")
}

/// The descheduler's 4.20 catalog is what `opm alpha render-template` printed for its template
/// with `--migrate-level bundle-object-to-csv-metadata` (as its generate-fbc.sh renders 4.17 and
/// later): the rendering is byte for byte the same.
#[test]
fn renders_byte_for_byte_what_opm_wrote() {
    let (template, catalog) = descheduler("4.20");
    // Without the migration opm writes the manifests, which this catalog no longer holds: the
    // preview says so.
    let plain = fbc()
        .args(["template", "render"])
        .arg(&template)
        .arg("--catalog")
        .arg(&catalog)
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0));
    let warned = String::from_utf8_lossy(&plain.stderr);
    assert!(
        warned.starts_with("warning: ")
            && warned.contains("not in the form opm writes without --migrate-level"),
        "{warned}"
    );
    let out = fbc()
        .args(["template", "render"])
        .arg(&template)
        .arg("--catalog")
        .arg(&catalog)
        .args(["--migrate-level", "bundle-object-to-csv-metadata"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    let expected =
        std::fs::read(catalog.join("cluster-kube-descheduler-operator/catalog.json")).unwrap();
    assert!(
        out.stdout == expected,
        "the rendering differs from catalog.json"
    );
}

#[test]
fn without_a_source_the_template_directory_is_searched_and_said() {
    let out = fbc()
        .args(["template", "render", "-o", "yaml"])
        .arg(trino().join("semver.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("---\ndefaultChannel: fast-v0.0\ndescription: trino for k8s operator\nname: trino-operator\nschema: olm.package\n---\nentries:\n- name: trino-operator.v0.0.1-alpha\nname: fast-v0.0\n"),
        "{stdout}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("note: bundle images are looked up in the catalog files under")
            && stderr.contains("(the template's directory)"),
        "{stderr}"
    );
}

#[test]
fn an_unresolvable_image_is_exit_1_naming_it() {
    // The 4.13 template lists bundles the 4.20 catalog does not hold.
    let (template, _) = descheduler("4.13");
    let (_, other) = descheduler("4.20");
    let out = fbc()
        .args(["template", "render"])
        .arg(&template)
        .arg("--catalog")
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "fbc-edit: {}:246: cannot resolve bundle image \"registry.redhat.io/openshift4/ose-cluster-kube-descheduler-operator-bundle@sha256:3926dba07403d5de39868d1c58f046369822dee5a33c36bc36b432e48aa194d8\": not found in catalog",
            template.display()
        )),
        "{stderr}"
    );
}

#[test]
fn template_errors_are_exit_1_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "schema: olm.semver\nstable:\n  bundles:\n  - imag: x\n",
    )
    .unwrap();
    let out = fbc()
        .args(["template", "render"])
        .arg(&bad)
        .arg("--catalog")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("bad.yaml:4: unknown field \"imag\" in stable.bundles[0]"),
        "{stderr}"
    );

    let out = fbc()
        .args(["template", "render", "no/such/template.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let out = fbc()
        .args(["template", "render"])
        .arg(&bad)
        .args(["--bundle-dir", "no-equals-sign"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected IMAGE=DIR"));

    let good = trino().join("semver.yaml");
    let out = fbc()
        .args(["template", "render"])
        .arg(&good)
        .args(["--bundle-dir", "img=no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));

    let out = fbc()
        .args(["template", "render"])
        .arg(&good)
        .args(["--catalog", "no/such/catalog"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open catalog"));
}

#[test]
fn opening_a_file_that_is_no_template_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("catalog.yaml");
    std::fs::write(&f, "schema: olm.package\nname: a\n").unwrap();
    let out = fbc().arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nor a catalog template"));

    // Template sources make no sense for a catalog directory.
    let out = fbc()
        .arg(dir.path())
        .arg("--catalog")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("are for opening a template file"));
}
