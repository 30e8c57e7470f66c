use super::*;

fn bundle(dir: &Path, manifests: usize, metadata: usize) {
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::create_dir_all(dir.join("metadata")).unwrap();
    for i in 0..manifests {
        std::fs::write(
            dir.join("manifests").join(format!("m{i}.yaml")),
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{i}\n"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("metadata/annotations.yaml"),
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: p\n  operators.operatorframework.io.bundle.channels.v1: a\n",
    )
    .unwrap();
    for i in 1..metadata {
        std::fs::write(dir.join("metadata").join(format!("x{i}.yaml")), "a: 1\n").unwrap();
    }
}

fn messages(b: &RegistryBundle) -> Vec<String> {
    b.diagnostics
        .iter()
        .filter(|d| d.code == codes::NOT_A_BUNDLE)
        .map(|d| format!("{}: {}", d.location.file, d.message))
        .collect()
}

#[test]
fn a_manifests_directory_over_the_bound_is_reported_and_none_of_it_read() {
    let tmp = tempfile::tempdir().unwrap();
    bundle(tmp.path(), 4, 1);
    let within = RegistryBundle::read_within(tmp.path(), false, 4);
    assert_eq!(within.objects.len(), 4);
    assert!(messages(&within).is_empty(), "{:?}", within.diagnostics);
    let over = RegistryBundle::read_within(tmp.path(), false, 3);
    assert!(over.objects.is_empty(), "{:?}", over.objects);
    assert_eq!(
        messages(&over),
        ["manifests: cannot read the manifests directory: more than 3 entries; not read further"]
    );
    // metadata/ (one file) is still read.
    assert_eq!(
        over.annotations_file.as_deref(),
        Some("metadata/annotations.yaml")
    );
}

#[test]
fn a_metadata_directory_over_the_bound_is_reported_and_none_of_it_read() {
    let tmp = tempfile::tempdir().unwrap();
    bundle(tmp.path(), 1, 5);
    let over = RegistryBundle::read_within(tmp.path(), false, 4);
    assert_eq!(over.objects.len(), 1);
    assert_eq!(over.annotations_file, None);
    assert_eq!(
        messages(&over),
        ["metadata: cannot read the metadata directory: more than 4 entries; not read further"]
    );
}

#[test]
fn a_link_to_a_directory_outside_the_bundle_is_refused_not_looked_into() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("b");
    bundle(&dir, 1, 1);
    std::fs::create_dir_all(tmp.path().join("elsewhere")).unwrap();
    std::fs::create_dir_all(dir.join("manifests/inside")).unwrap();
    std::os::unix::fs::symlink("inside", dir.join("manifests/in-link")).unwrap();
    std::os::unix::fs::symlink("../../elsewhere", dir.join("manifests/out-link")).unwrap();
    let b = RegistryBundle::read(&dir);
    let about = |name: &str| {
        b.diagnostics
            .iter()
            .filter(|d| d.location.file == format!("manifests/{name}"))
            .map(|d| (d.code, d.severity))
            .collect::<Vec<_>>()
    };
    // A directory inside (or a link to one) is passed over as before.
    assert_eq!(about("inside"), [(codes::STRAY_FILE, Severity::Info)]);
    assert_eq!(about("in-link"), [(codes::STRAY_FILE, Severity::Info)]);
    // A link leading out is not taken for a directory: reading it is refused.
    assert_eq!(about("out-link"), [(codes::UNREADABLE, Severity::Error)]);
    assert_eq!(b.objects.len(), 1);
}

#[test]
fn entries_come_in_name_order_with_directories_told() {
    let tmp = tempfile::tempdir().unwrap();
    for f in ["b.yaml", "a.yaml", "B.yaml", "_x"] {
        std::fs::write(tmp.path().join(f), "").unwrap();
    }
    std::fs::create_dir(tmp.path().join("c")).unwrap();
    let within = Within::new(tmp.path()).unwrap();
    let got = read_dir_sorted(tmp.path(), &within, 5).unwrap();
    let want = [
        ("B.yaml", false),
        ("_x", false),
        ("a.yaml", false),
        ("b.yaml", false),
        ("c", true),
    ];
    assert_eq!(got, want.map(|(n, d)| (n.to_string(), d)));
    let e = read_dir_sorted(tmp.path(), &within, 4).unwrap_err();
    assert_eq!(e.to_string(), "more than 4 entries; not read further");
}
