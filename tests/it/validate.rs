//! `fbc-edit validate` on one small catalog per rule (testdata/validate/<case>), on the real catalogs in
//! testdata/real, and the incremental API against a full run.

use crate::common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::catalog::{Node, Severity, load, model::Channel};
use fbc_core::validate::{self, Validation, codes};

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/validate")
}

fn cases() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs the command from the cases directory so paths in the output are `case/file:line:col`.
fn run(case: &str, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .current_dir(cases_dir())
        .arg("validate")
        .arg(case)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// What each case is there to show: the codes it must report.
const EXPECTED: &[(&str, &[&str])] = &[
    ("build-metadata-with-release", &[codes::BUILD_WITH_RELEASE]),
    ("bundle-in-no-channel", &[codes::BUNDLE_NOT_IN_CHANNEL]),
    ("bundle-object-not-a-manifest", &[codes::BUNDLE_OBJECT]),
    (
        "bundle-of-unknown-package",
        &[codes::BUNDLE_UNKNOWN_PACKAGE],
    ),
    ("bundle-without-image", &[codes::NO_IMAGE]),
    ("bundle-without-package", &[codes::BUNDLE_NO_PACKAGE]),
    (
        "bundle-without-package-property",
        &[codes::PACKAGE_PROPERTY_COUNT],
    ),
    (
        "channel-of-unknown-package",
        &[codes::CHANNEL_UNKNOWN_PACKAGE],
    ),
    ("channel-without-entries", &[codes::CHANNEL_EMPTY]),
    ("channel-without-name", &[codes::CHANNEL_NO_NAME]),
    (
        "csv-metadata-wrong-types",
        &[codes::PROPERTY, codes::YAML_TRAP],
    ),
    ("default-channel-missing", &[codes::DEFAULT_CHANNEL_MISSING]),
    ("default-channel-unset", &[codes::DEFAULT_CHANNEL_UNSET]),
    (
        "deprecated-bundle-missing",
        &[codes::DEPRECATED_BUNDLE_MISSING],
    ),
    (
        "deprecated-channel-missing",
        &[codes::DEPRECATED_CHANNEL_MISSING],
    ),
    (
        "deprecation-of-unknown-schema",
        &[codes::DEPRECATION_SCHEMA],
    ),
    ("deprecation-without-message", &[codes::DEPRECATION_MESSAGE]),
    (
        "deprecation-without-schema",
        &[codes::DEPRECATION_NO_SCHEMA],
    ),
    (
        "deprecations-of-unknown-package",
        &[codes::DEPRECATION_UNKNOWN_PACKAGE],
    ),
    (
        "deprecations-without-package",
        &[codes::DEPRECATION_NO_PACKAGE],
    ),
    ("document-without-schema", &[codes::NOT_A_BLOB]),
    ("duplicate-bundle", &[codes::DUPLICATE_BUNDLE]),
    ("duplicate-channel", &[codes::DUPLICATE_CHANNEL]),
    (
        "duplicate-deprecation-entry",
        &[codes::DUPLICATE_DEPRECATION_ENTRY],
    ),
    ("duplicate-entry", &[codes::DUPLICATE_ENTRY]),
    ("duplicate-package", &[codes::DUPLICATE_PACKAGE]),
    ("duplicate-versions", &[codes::DUPLICATE_VERSION]),
    ("empty-file", &[codes::EMPTY]),
    ("empty-skip", &[codes::EMPTY_SKIP]),
    ("entry-without-bundle", &[codes::ENTRY_WITHOUT_BUNDLE]),
    ("entry-without-name", &[codes::ENTRY_NO_NAME]),
    ("head-without-metadata", &[codes::HEAD_WITHOUT_METADATA]),
    ("invalid-image", &[codes::IMAGE]),
    ("invalid-release", &[codes::RELEASE]),
    ("invalid-skiprange", &[codes::SKIP_RANGE]),
    ("invalid-utf8", &[codes::ENCODING]),
    ("json-multiple-heads", &[codes::MULTIPLE_HEADS]),
    ("json-trailing-comma", &[codes::LENIENT]),
    ("multiple-heads", &[codes::MULTIPLE_HEADS]),
    ("no-head", &[codes::NO_HEAD]),
    (
        "package-deprecation-with-name",
        &[codes::DEPRECATED_PACKAGE_NAMED],
    ),
    ("package-name-not-dns1123", &[codes::PACKAGE_NAME]),
    (
        "package-property-mismatch",
        &[codes::PACKAGE_PROPERTY_MISMATCH],
    ),
    ("package-without-channels", &[codes::PACKAGE_NO_CHANNELS]),
    ("package-without-name", &[codes::PACKAGE_NO_NAME]),
    ("plain-bundle", &[codes::PLAIN_BUNDLE]),
    (
        "property-value-wrong-type",
        &[codes::PROPERTY, codes::YAML_TRAP],
    ),
    ("release-name-not-normalized", &[codes::RELEASE_NAME]),
    ("replaces-cycle", &[codes::CYCLE]),
    ("replaces-unknown-bundle", &[codes::DANGLING_EDGE]),
    ("required-range-invalid", &[codes::REQUIRED_RANGE]),
    ("schema-keys-differ-in-case", &[codes::META]),
    (
        "skiprange-above-own-version",
        &[codes::SKIP_RANGE_ABOVE_VERSION],
    ),
    (
        "skiprange-matches-nothing",
        &[codes::SKIP_RANGE_MATCHES_NOTHING],
    ),
    (
        "skiprange-only-entry",
        &[codes::SKIP_RANGE_ONLY, codes::MULTIPLE_HEADS],
    ),
    ("skiprange-quirks", &[codes::SKIP_RANGE_QUIRK]),
    ("stranded-entries", &[codes::STRANDED]),
    ("two-deprecations-objects", &[codes::DUPLICATE_DEPRECATIONS]),
    ("unknown-property-type", &[codes::UNKNOWN_PROPERTY]),
    ("unknown-schema-typo", &[codes::UNKNOWN_SCHEMA]),
    ("unusual-bundle-name", &[codes::BUNDLE_NAME]),
    ("valid", &[]),
    ("version-not-semver", &[codes::VERSION]),
    ("wrong-field-type", &[codes::TYPE]),
    ("yaml-1.1-traps", &[codes::YAML_TRAP]),
    ("yaml-syntax-error", &[codes::SYNTAX]),
];

#[test]
fn each_case_reports_what_it_is_named_for() {
    assert_eq!(
        cases(),
        EXPECTED
            .iter()
            .map(|(c, _)| c.to_string())
            .collect::<Vec<_>>(),
        "every case directory has an entry in EXPECTED"
    );
    for (case, want) in EXPECTED {
        let catalog = load(&cases_dir().join(case)).unwrap();
        let report = validate::validate(&catalog);
        let found: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        if want.is_empty() {
            assert!(found.is_empty(), "{case}: {found:?}");
        }
        for code in *want {
            assert!(found.contains(code), "{case}: wants {code}, got {found:?}");
        }
        // The verdict follows the severities: errors make the catalog invalid, nothing else does.
        let wants_error = want.iter().any(|w| {
            codes::RULES
                .iter()
                .any(|(c, s, _)| c == w && *s == Severity::Error)
        });
        if wants_error {
            assert!(!report.is_valid(), "{case} must be invalid");
        }
    }
}

#[test]
fn every_rule_has_a_case() {
    // Read errors, links and unusable .indexignore files need a file system state git cannot hold;
    // tests/load.rs covers them.
    let untestable = [codes::READ, codes::SYMLINK, codes::IGNORE_FILE];
    for (code, _, summary) in codes::RULES {
        // Profile rules (FBC3xx) run only with --profile: tests/validate_ci.rs shows each.
        // Lifecycle rules (FBC12x) have their corpus, testdata/lifecycle: tests/lifecycle.rs.
        if untestable.contains(code) || code.starts_with("FBC3") || code.starts_with("FBC12") {
            continue;
        }
        assert!(
            EXPECTED.iter().any(|(_, want)| want.contains(code)),
            "no case shows {code} ({summary})"
        );
    }
}

#[test]
fn output_of_every_case_is_stable() {
    for case in cases() {
        let (code, text) = run(&case, &[]);
        let (opm_code, opm) = run(&case, &["--output", "opm"]);
        assert_eq!(
            code, opm_code,
            "{case}: the verdict does not depend on the format"
        );
        insta::assert_snapshot!(
            format!("case_{case}"),
            format!("exit {code}\n{text}--- opm ---\n{opm}")
        );
    }
}

#[test]
fn json_output_has_the_documented_fields() {
    let (code, text) = run("stranded-entries", &["--output", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let d = &v.as_array().unwrap()[0];
    assert_eq!(d["code"], "FBC047");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "stranded-entries/catalog.yaml");
    assert_eq!(d["line"], 5);
    assert_eq!(d["column"], 1);
    assert_eq!(d["package"], "demo");
    assert_eq!(d["channel"], "stable");
    assert_eq!(d["bundle"], "demo.v1.0.0");
    assert!(d["hint"].as_str().unwrap().contains("skips"));
    assert!(d["message"].as_str().unwrap().contains("demo.v1.0.0"));
}

#[test]
fn json_output_is_printed_in_the_documented_layout() {
    // Every field, in its order, pretty-printed: what scripts and diffs of reports rely on.
    let (code, text) = run("duplicate-bundle", &["--output", "json"]);
    assert_eq!(code, 1);
    assert_eq!(
        text,
        r#"[
  {
    "code": "FBC021",
    "severity": "error",
    "message": "bundle \"demo.v1.1.0\" is defined again",
    "file": "duplicate-bundle/catalog.yaml",
    "line": 35,
    "column": 7,
    "package": "demo",
    "channel": null,
    "bundle": "demo.v1.1.0",
    "hint": "remove one of the two olm.bundle objects",
    "related": [
      "duplicate-bundle/catalog.yaml:23:1"
    ],
    "opm": "package \"demo\" has duplicate bundle \"demo.v1.1.0\""
  }
]
"#
    );
    let (_, empty) = run("valid", &["--output", "json"]);
    assert_eq!(empty, "[]\n");
}

#[cfg(target_os = "linux")]
#[test]
fn a_report_that_cannot_be_written_fails_with_a_message() {
    // A full disk: the command says so and fails, rather than passing on half a report.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let formats = ["text", "json", "sarif", "github", "opm"].map(|f| vec!["--output", f]);
    for args in formats
        .iter()
        .map(Vec::as_slice)
        .chain([&["--list-rules"][..]])
    {
        let format = args.join(" ");
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("fbc-edit"))
            .current_dir(cases_dir())
            .arg("validate")
            .args(args)
            .arg("duplicate-bundle")
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{format}: {err}");
        assert!(err.contains("cannot write the report"), "{format}: {err}");
        assert!(!err.contains("panicked"), "{format}: {err}");
    }
}

#[test]
fn exit_codes_follow_the_verdict() {
    assert_eq!(run("valid", &[]).0, 0);
    assert_eq!(run("multiple-heads", &[]).0, 1);
    // Warnings pass, unless --strict.
    assert_eq!(run("skiprange-above-own-version", &[]).0, 0);
    assert_eq!(run("skiprange-above-own-version", &["--strict"]).0, 1);
    // Notes never fail, and --quiet hides them.
    let (code, text) = run("unusual-bundle-name", &["--strict", "--quiet"]);
    assert_eq!(code, 0);
    assert!(!text.contains("FBC109"), "{text}");
    assert_eq!(run("no-such-directory", &[]).0, 2);
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(["validate", "--output", "yaml", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The real catalogs in testdata/real (templates and bundle directories are not catalogs).
const REAL_CATALOGS: &[&str] = &[
    "grokspawn__deprecated-catalog-content__redhat-operator-index-4.15",
    "okd-project__okderators-catalog-index__catalog",
    "openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog",
    "openshift__cluster-kube-descheduler-operator__fbc-v4.20-catalog",
    "openshift__lightspeed-operator__lightspeed-catalog-4.20",
    "operator-framework__catalogd__testdata-test-catalog",
    "operator-framework__operator-registry__fbc-dir",
    "operator-framework__operator-registry__index-declcfgs-latest",
    "redhat-openshift-ecosystem__certified-operators__catalogs-v4.18",
    "redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20",
    "stolostron__gatekeeper-operator-fbc__catalog-4-17",
    "stolostron__submariner-operator-fbc__catalog-4-18",
    "stolostron__volsync-operator-product-fbc__catalog-4-17",
];

#[test]
fn real_catalogs_have_no_errors() {
    for name in REAL_CATALOGS {
        let catalog = load(&common::real(name)).unwrap();
        let report = validate::validate(&catalog);
        let errors: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
}

#[test]
fn revalidating_a_package_after_edits_equals_a_full_run() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog"),
        tmp.path(),
    );
    let mut catalog = load(tmp.path()).unwrap();
    let mut v = Validation::run(&catalog);
    assert!(v.report().is_valid());
    let package = "cache-operator";
    let channel = catalog.index().package(package).unwrap().channels[0];
    let entry_count = Channel::read(&catalog.blob(channel).value)
        .unwrap()
        .entries
        .len();
    let untouched = v.package("metrics-gateway").to_vec();

    // 1: an entry nobody replaces, for a bundle that does not exist: a second head and a missing bundle.
    catalog.edit(channel, |ch| {
        ch.get_field_mut("entries")
            .and_then(Node::as_seq_mut)
            .unwrap()
            .push(Node::map(vec![(
                "name",
                Node::string("cache-operator.v9.0.0"),
            )]));
    });
    v.revalidate(&catalog, &[package]);
    let incremental = v.report();
    let full = validate::validate(&catalog);
    assert_eq!(incremental.diagnostics, full.diagnostics);
    let found: Vec<&str> = incremental.diagnostics.iter().map(|d| d.code).collect();
    assert!(found.contains(&codes::MULTIPLE_HEADS), "{found:?}");
    assert!(found.contains(&codes::ENTRY_WITHOUT_BUNDLE), "{found:?}");
    assert_eq!(v.package("metrics-gateway"), untouched.as_slice());

    // 2: undo it: back to valid, still equal to a full run.
    catalog.edit(channel, |ch| {
        ch.get_field_mut("entries")
            .and_then(Node::as_seq_mut)
            .unwrap()
            .truncate(entry_count);
    });
    v.revalidate(&catalog, &[package]);
    assert_eq!(
        v.report().diagnostics,
        validate::validate(&catalog).diagnostics
    );
    assert!(v.report().is_valid());

    // 3: a wrong type in a bundle (the shape check of an edited blob is redone, not cached).
    let bundle = catalog.index().package(package).unwrap().bundles[0];
    catalog.edit(bundle, |b| {
        b.set_field("image", Node::new(fbc_core::catalog::Kind::Bool(true)))
    });
    v.revalidate(&catalog, &[package]);
    let report = v.report();
    assert_eq!(report.diagnostics, validate::validate(&catalog).diagnostics);
    assert!(report.diagnostics.iter().any(|d| d.code == codes::TYPE));
}

#[test]
fn docs_list_every_rule_with_its_severity() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/validate.md"))
            .unwrap();
    for (code, severity, _) in codes::RULES {
        let row = format!("| `{code}` | {} |", severity.as_str());
        assert!(
            doc.contains(&row),
            "docs/validate.md lacks the row for {code}"
        );
    }
}

#[test]
fn yaml_traps_are_found_the_same_whether_the_load_checked_payloads_or_not() {
    // A load that checks payloads notes each file's retyped scalars, and the trap lint walks only
    // the blobs of files that have some: the report must not change.
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_dir(&root.join("assets/demo-catalog"), tmp.path());
    copy_dir(
        &root.join("testdata/validate/yaml-1.1-traps"),
        &tmp.path().join("traps"),
    );
    let checked = fbc_core::catalog::LoadOptions {
        check_payloads: true,
        ..Default::default()
    };
    let with = validate::validate(&fbc_core::catalog::load_with(tmp.path(), &checked).unwrap());
    let without = validate::validate(&load(tmp.path()).unwrap());
    let traps: Vec<_> = with
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::YAML_TRAP)
        .collect();
    assert!(!traps.is_empty(), "{:#?}", with.diagnostics);
    assert!(
        traps
            .iter()
            .all(|d| d.location.file == "traps/catalog.yaml"),
        "{traps:#?}"
    );
    let show = |r: &validate::Report| format!("{:#?}", r.diagnostics);
    assert_eq!(show(&with), show(&without));
}

/// A pull spec named again (a bundle's own image among its related ones, an operator image in
/// every version) is checked once; an invalid one is reported wherever it is written.
#[test]
fn an_invalid_pull_spec_named_in_every_bundle_is_reported_in_each() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = |v: &str| {
        format!(
            "---\nschema: olm.bundle\npackage: demo\nname: demo.v{v}\nimage: quay.io/demo/demo-bundle:v{v}\nproperties:\n- type: olm.package\n  value: {{packageName: demo, version: '{v}'}}\nrelatedImages:\n- name: bundle\n  image: quay.io/demo/demo-bundle:v{v}\n- name: operator\n  image: quay.io/demo/operator@sha256:abc\n- name: shared\n  image: quay.io/demo/operator:v1\n"
        )
    };
    let text = format!(
        "schema: olm.package\nname: demo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: demo\nname: stable\nentries:\n- name: demo.v1.0.0\n- name: demo.v1.1.0\n  replaces: demo.v1.0.0\n{}{}",
        bundle("1.0.0"),
        bundle("1.1.0")
    );
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let catalog = load(tmp.path()).unwrap();
    let report = validate::validate(&catalog);
    let images: Vec<(u32, &str)> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::IMAGE)
        .map(|d| (d.location.line, d.message.as_str()))
        .collect();
    assert_eq!(images.len(), 2, "{images:?}");
    assert!(images.iter().all(|(_, m)| {
        m.starts_with("relatedImages[1].image \"quay.io/demo/operator@sha256:abc\"")
    }));
    assert_ne!(images[0].0, images[1].0);
}

/// Versions apart only in build metadata are listed in one order, run after run: the message
/// naming a package's lowest and highest versions does not change with the hash maps' seeds.
#[test]
fn versions_apart_only_in_build_metadata_are_named_in_one_order() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = |name: &str, v: &str| {
        format!(
            "---\nschema: olm.bundle\npackage: demo\nname: {name}\nimage: quay.io/demo/demo-bundle:{name}\nproperties:\n- type: olm.package\n  value: {{packageName: demo, version: '{v}'}}\n"
        )
    };
    let text = format!(
        "schema: olm.package\nname: demo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: demo\nname: stable\nentries:\n- name: demo.b\n- name: demo.a\n  replaces: demo.b\n  skipRange: '>=3.0.0 <4.0.0'\n{}{}",
        bundle("demo.b", "1.0.0+b"),
        bundle("demo.a", "1.0.0+a")
    );
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let catalog = load(tmp.path()).unwrap();
    let messages: std::collections::BTreeSet<String> = (0..24)
        .map(|_| {
            validate::validate(&catalog)
                .diagnostics
                .iter()
                .find(|d| d.code == codes::SKIP_RANGE_MATCHES_NOTHING)
                .map(|d| d.message.clone())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    let m = messages.first().unwrap();
    assert!(m.contains("its versions go from 1.0.0+a to 1.0.0+b"), "{m}");
}
