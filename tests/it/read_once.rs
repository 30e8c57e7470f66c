//! `validate` reads each catalog file once: loaded with `check_payloads`, long strings (bundle
//! objects) are decoded while their file is read, so the checks give the same verdict even when the
//! file changes or goes away afterwards, and no bytes are held. Without it the checks read from disk.

use fbc_core::catalog::{LoadOptions, load, load_with};
use fbc_core::validate::validate;

/// A package with one bundle whose `olm.bundle.object` is long and not base64 (a `*` inside).
fn catalog(format_yaml: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let bad = format!("{}*{}", "QUJD".repeat(1500), "QUJD".repeat(10));
    let text = if format_yaml {
        format!(
            "schema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n- name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/foo/bundle:v1.0.0\nproperties:\n- type: olm.package\n  value:\n    packageName: foo\n    version: 1.0.0\n- type: olm.bundle.object\n  value:\n    data: {bad}\n"
        )
    } else {
        format!(
            "{{\"schema\":\"olm.package\",\"name\":\"foo\",\"defaultChannel\":\"stable\"}}\n{{\"schema\":\"olm.channel\",\"package\":\"foo\",\"name\":\"stable\",\"entries\":[{{\"name\":\"foo.v1.0.0\"}}]}}\n{{\"schema\":\"olm.bundle\",\"package\":\"foo\",\"name\":\"foo.v1.0.0\",\"image\":\"quay.io/foo/bundle:v1.0.0\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"foo\",\"version\":\"1.0.0\"}}}},{{\"type\":\"olm.bundle.object\",\"value\":{{\"data\":\"{bad}\"}}}}]}}\n"
        )
    };
    let file = dir.path().join("foo").join("catalog.yaml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

#[test]
fn bundle_objects_are_checked_from_the_bytes_loaded() {
    for yaml in [true, false] {
        let (dir, file) = catalog(yaml);
        let keep = LoadOptions {
            check_payloads: true,
            ..Default::default()
        };
        let cat = load_with(dir.path(), &keep).unwrap();
        // The file goes away after loading: nothing needs to read it again.
        std::fs::remove_file(&file).unwrap();
        let report = validate(&cat);
        let bad: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.code == "FBC011")
            .collect();
        assert_eq!(bad.len(), 1, "yaml {yaml}: {:#?}", report.diagnostics);
        assert!(
            bad[0].message.contains("not valid base64") && bad[0].message.contains("byte 6000"),
            "{}",
            bad[0].message
        );
    }
}

#[test]
fn without_check_payloads_nothing_is_checked_at_load_and_the_check_reads_the_file() {
    let (dir, _file) = catalog(true);
    let cat = load(dir.path()).unwrap();
    assert!(cat.files.iter().all(|f| f.checked.is_none()));
    let report = validate(&cat);
    assert!(report.diagnostics.iter().any(|d| d.code == "FBC011"));
}

/// A long icon that is not base64 and a long bundle object that is base64 of no manifest are
/// reported from what the load found, with the file gone.
#[test]
fn icons_and_manifests_are_judged_from_the_load() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let icon = format!("{}!", "QUJD".repeat(1200));
    let object = base64::engine::general_purpose::STANDARD
        .encode(format!("kind: [unclosed {}\n", "x".repeat(4000)));
    let text = format!(
        "schema: olm.package\nname: foo\ndefaultChannel: stable\nicon:\n  base64data: {icon}\n  mediatype: image/png\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n- name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/foo/bundle:v1.0.0\nproperties:\n- type: olm.package\n  value:\n    packageName: foo\n    version: 1.0.0\n- type: olm.bundle.object\n  value:\n    data: {object}\n"
    );
    let file = dir.path().join("catalog.yaml");
    std::fs::write(&file, text).unwrap();
    let check = LoadOptions {
        check_payloads: true,
        ..Default::default()
    };
    let cat = load_with(dir.path(), &check).unwrap();
    std::fs::remove_file(&file).unwrap();
    let report = validate(&cat);
    let messages: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {}", d.location.line, d.code, d.message))
        .collect();
    assert!(
        messages.iter().any(|m| m.starts_with("5:")
            && m.contains("not valid base64")
            && m.contains("byte 4800")),
        "{messages:#?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("FBC011") && m.contains("not a JSON or YAML manifest")),
        "{messages:#?}"
    );
}

/// Loading and validating with many threads, where each payload's manifest is long multi-document
/// YAML (read in parallel, so a thread waiting on it takes up another file meanwhile): no decoding
/// buffer is asked for twice at once on one thread.
#[test]
fn payloads_decoded_while_other_payloads_decode_on_the_same_thread() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let manifest: String = (0..400)
        .map(|i| {
            format!(
                "kind: ConfigMap\nmetadata:\n  name: m{i}\ndata:\n  x: \"{}\"\n---\n",
                "y".repeat(300)
            )
        })
        .collect();
    let data = base64::engine::general_purpose::STANDARD.encode(&manifest);
    for f in 0..64 {
        let text = format!(
            "{{\"schema\":\"olm.package\",\"name\":\"p{f}\",\"defaultChannel\":\"stable\"}}\n{{\"schema\":\"olm.bundle\",\"package\":\"p{f}\",\"name\":\"p{f}.v1.0.0\",\"image\":\"quay.io/foo/bundle:v1.0.0\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"p{f}\",\"version\":\"1.0.0\"}}}},{{\"type\":\"olm.bundle.object\",\"value\":{{\"data\":\"{data}\"}}}},{{\"type\":\"olm.bundle.object\",\"value\":{{\"data\":\"{data}\"}}}}]}}\n"
        );
        let file = dir.path().join(format!("p{f}")).join("catalog.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    pool.install(|| {
        for checked in [true, false, true, false] {
            let options = LoadOptions {
                check_payloads: checked,
                ..Default::default()
            };
            let cat = load_with(dir.path(), &options).unwrap();
            let report = validate(&cat);
            assert!(
                !report.diagnostics.iter().any(|d| d.code == "FBC011"),
                "every manifest reads: {:#?}",
                report.diagnostics
            );
        }
    });
}
