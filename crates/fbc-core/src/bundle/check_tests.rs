use super::*;
use crate::bundle::plain::check_plain_within;

fn plain(dir: &Path, files: usize) {
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    for i in 0..files {
        std::fs::write(
            dir.join("manifests").join(format!("m{i}.yaml")),
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{i}\n"),
        )
        .unwrap();
    }
}

fn shown(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .map(|d| format!("{} {}: {}", d.code, d.location.file, d.message))
        .collect()
}

#[test]
fn a_plain_manifests_directory_over_the_bound_is_reported_and_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    plain(tmp.path(), 3);
    assert!(check_plain_within(tmp.path(), 3).is_empty());
    assert_eq!(
        shown(&check_plain_within(tmp.path(), 2)),
        [format!(
            "{} manifests: cannot read: more than 2 entries; not read further",
            codes::UNREADABLE
        )]
    );
}

#[test]
fn a_bundle_directory_over_the_bound_is_reported_and_its_stray_files_not_listed() {
    let tmp = tempfile::tempdir().unwrap();
    plain(tmp.path(), 1);
    std::fs::write(tmp.path().join("README.md"), "").unwrap();
    std::fs::create_dir(tmp.path().join("tests")).unwrap();
    let mut out = Vec::new();
    stray_files(tmp.path(), &mut out, 3);
    assert_eq!(
        shown(&out),
        [
            format!(
                "{} README.md: file is no part of the bundle format: it is not rendered into the catalog",
                codes::STRAY_FILE
            ),
            format!(
                "{} tests/: directory is no part of the bundle format: it is not rendered into the catalog",
                codes::STRAY_FILE
            ),
        ]
    );
    let mut out = Vec::new();
    stray_files(tmp.path(), &mut out, 2);
    assert_eq!(
        shown(&out),
        [format!(
            "{} .: cannot list the bundle directory: more than 2 entries; not read further",
            codes::UNREADABLE
        )]
    );
}
