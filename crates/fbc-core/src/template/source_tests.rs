use super::*;

#[test]
fn bundle_dir_mappings() {
    assert_eq!(
        BundleDirSource::parse_mapping("quay.io/a/b@sha256:00=dir/x=y").unwrap(),
        (
            "quay.io/a/b@sha256:00".to_string(),
            PathBuf::from("dir/x=y")
        )
    );
    assert!(BundleDirSource::parse_mapping("no-dir").is_err());
    assert!(BundleDirSource::parse_mapping("=dir").is_err());
    assert!(BundleDirSource::parse_mapping("img=").is_err());
}

#[test]
fn a_catalog_with_two_different_bundles_for_one_image_is_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
            dir.path().join("c.yaml"),
            "schema: olm.bundle\nname: a.v1\npackage: a\nimage: img:1\n---\nschema: olm.bundle\nname: a.v1-again\npackage: a\nimage: img:1\n---\nschema: olm.bundle\nname: b.v1\npackage: b\nimage: img:2\n---\nschema: olm.bundle\nname: b.v1\npackage: b\nimage: img:2\n",
        )
        .unwrap();
    let s = CatalogSource::load(dir.path()).unwrap();
    let e = s
        .bundle_for_image("img:1")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("holds 2 different bundles")
            && e.contains("c.yaml:1:1")
            && e.contains("c.yaml:6:1"),
        "{e}"
    );
    // The same bundle twice is not ambiguous.
    assert_eq!(
        s.bundle_for_image("img:2").unwrap().unwrap()["name"],
        "b.v1"
    );
    assert!(s.bundle_for_image("img:3").is_none());
}

#[test]
fn a_bundle_with_its_manifests_is_preferred_to_its_csv_metadata() {
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let bundle = |prop: &str| {
        format!(
            "schema: olm.bundle\nname: a.v1\npackage: a\nimage: img:1\nproperties:\n- type: {prop}\n  value: {{}}\n"
        )
    };
    std::fs::write(dirs[0].path().join("c.yaml"), bundle("olm.csv.metadata")).unwrap();
    std::fs::write(dirs[1].path().join("c.yaml"), bundle("olm.bundle.object")).unwrap();
    let mut sources = Sources::new();
    sources.push(CatalogSource::load(dirs[0].path()).unwrap());
    assert_eq!(
        sources.bundle_for_image("img:1").unwrap().unwrap()["properties"][0]["type"],
        "olm.csv.metadata"
    );
    sources.push(CatalogSource::load(dirs[1].path()).unwrap());
    assert_eq!(
        sources.bundle_for_image("img:1").unwrap().unwrap()["properties"][0]["type"],
        "olm.bundle.object"
    );
}

#[test]
fn the_default_source_is_the_template_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.yaml"), "schema: olm.semver\n").unwrap();
    let (sources, note) =
        Sources::for_template(&dir.path().join("t.yaml"), &[], Vec::new(), None).unwrap();
    assert_eq!(sources.list.len(), 1);
    assert!(note.unwrap().contains("the template's directory"));
    let (sources, note) = Sources::for_template(
        &dir.path().join("t.yaml"),
        &[dir.path().to_path_buf()],
        Vec::new(),
        None,
    )
    .unwrap();
    assert_eq!(sources.list.len(), 1);
    assert!(note.is_none());
    let e = Sources::for_template(
        &dir.path().join("t.yaml"),
        &[dir.path().join("nope")],
        Vec::new(),
        None,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.starts_with("cannot open catalog"), "{e}");
    let e = Sources::for_template(
        &dir.path().join("t.yaml"),
        &[],
        vec![("img".into(), dir.path().join("nope"))],
        None,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("not a directory"), "{e}");
}
