use super::*;

#[test]
fn migration_starts_at_ocp_4_17() {
    for (name, m) in [
        ("v4.16", false),
        ("v4.17", true),
        ("v4.22", true),
        ("v5.0", true),
        ("v3.99", false),
        ("4.17", false),
        ("v4.x", false),
        ("v4.", false),
        ("latest", false),
    ] {
        assert_eq!(migrates(name), m, "{name}");
    }
}

fn repo(ci: Option<&str>, templates: &[&str]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let op = root.path().join("operators/op");
    std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
    if let Some(ci) = ci {
        std::fs::write(op.join("ci.yaml"), ci).unwrap();
    }
    for t in templates {
        std::fs::write(
            op.join("catalog-templates").join(t),
            "schema: olm.template.basic\nentries: []\n",
        )
        .unwrap();
    }
    std::fs::create_dir_all(root.path().join("catalogs/v4.10/op")).unwrap();
    root
}

#[test]
fn ci_yaml_mappings_split_at_the_migration() {
    let root = repo(
        Some(
            "fbc:\n  enabled: true\n  catalog_mapping:\n  - template_name: a.yaml\n    type: olm.template.basic\n    catalog_names: [v4.18, v4.16, v4.17]\n",
        ),
        &["a.yaml"],
    );
    let p = plan(&root.path().join("operators/op")).unwrap();
    assert!(p.from_ci);
    let groups: Vec<(bool, Vec<String>)> = p
        .jobs
        .iter()
        .map(|j| (j.migrate, j.catalogs.clone()))
        .collect();
    assert_eq!(
        groups,
        [
            (false, vec!["v4.16".to_string()]),
            (true, vec!["v4.18".to_string(), "v4.17".to_string()])
        ]
    );
    // The committed v4.10 catalog is mapped by nothing: said, and left alone.
    assert!(
        p.notes.iter().any(|n| n.contains("catalogs/v4.10/op")),
        "{:?}",
        p.notes
    );
}

#[test]
fn without_ci_yaml_templates_named_for_catalogs_render_into_them() {
    let root = repo(None, &["v4.16.yaml", "v4.20.yaml", "basic.yaml"]);
    let p = plan(&root.path().join("operators/op/catalog-templates")).unwrap();
    assert!(!p.from_ci);
    let jobs: Vec<(String, bool, Vec<String>)> = p
        .jobs
        .iter()
        .map(|j| (j.template_name.clone(), j.migrate, j.catalogs.clone()))
        .collect();
    assert_eq!(
        jobs,
        [
            ("v4.16.yaml".into(), false, vec!["v4.16".into()]),
            ("v4.20.yaml".into(), true, vec!["v4.20".into()])
        ]
    );
    assert!(
        p.notes.iter().any(|n| n.contains("basic.yaml")),
        "{:?}",
        p.notes
    );
}

#[test]
fn bad_mappings_are_refused() {
    for (ci, why) in [
        (
            "fbc:\n  catalog_mapping:\n  - template_name: a.yaml\n    type: olm.template.composite\n    catalog_names: [v4.18]\n",
            "unknown template type",
        ),
        (
            "fbc:\n  catalog_mapping:\n  - template_name: a.yaml\n    type: olm.semver\n    catalog_names: [v4.18]\n  - template_name: b.yaml\n    type: olm.semver\n    catalog_names: [v4.18]\n",
            "mapped twice",
        ),
        (
            "fbc:\n  catalog_mapping:\n  - template_name: a.yaml\n    type: olm.semver\n    catalog_names: [../x]\n",
            "ci.yaml:5: catalog name \"../x\" climbs out of its directory with `..`",
        ),
        (
            "fbc:\n  catalog_mapping:\n  - template_name: /a.yaml\n    type: olm.semver\n    catalog_names: [v4.18]\n",
            "ci.yaml:3: template_name \"/a.yaml\" is an absolute path",
        ),
    ] {
        let root = repo(Some(ci), &["a.yaml"]);
        let e = plan(&root.path().join("operators/op"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn bundles_from_images_must_be_in_the_form_opm_writes() {
    use serde_json::json;
    let bundle = |image: &str, props: &[&str]| {
        json!({"schema": "olm.bundle", "name": format!("b-{image}"), "image": image,
                "properties": props.iter().map(|t| json!({"type": t, "value": {}})).collect::<Vec<_>>()})
    };
    let rendered = super::super::Rendered {
        blobs: vec![
            bundle("objects", &["olm.bundle.object"]),
            bundle("metadata", &["olm.csv.metadata"]),
            bundle("neither", &["olm.package"]),
            bundle("both", &["olm.bundle.object", "olm.csv.metadata"]),
            // Written in the template itself: passed through as it is.
            bundle("inline", &["olm.csv.metadata"]),
        ],
        notes: Vec::new(),
        images: ["objects", "metadata", "neither", "both"]
            .iter()
            .zip(1..)
            .map(|(i, l)| (i.to_string(), l))
            .collect(),
        as_written: Vec::new(),
    };
    let refused = |migrate: bool| -> Vec<u32> {
        check_forms("t.yaml", &rendered, migrate)
            .err()
            .map(|e| e.problems.iter().map(|p| p.line).collect())
            .unwrap_or_default()
    };
    // Without migration only the manifests are what opm writes; with it, only the metadata
    // (the migration has already run when the check is made).
    assert_eq!(refused(false), [2, 3, 4]);
    assert_eq!(refused(true), [1, 3, 4]);
    let e = check_forms("t.yaml", &rendered, false)
        .unwrap_err()
        .to_string();
    assert!(
            e.contains("t.yaml:2: bundle b-metadata (image metadata): its only source holds it as olm.csv.metadata"),
            "{e}"
        );
}

#[test]
fn the_summary_names_the_first_changed_line() {
    let s = diff_summary("a\nb\nc\n", "a\nB\nc\n");
    assert_eq!(s, "1 line(s) removed, 1 added; first at line 2: -b +B");
}

#[test]
fn a_templates_directory_over_the_bound_is_refused_not_read_further() {
    let root = repo(None, &["v4.16.yaml", "v4.20.yaml", "basic.yaml"]);
    let templates = root.path().join("operators/op/catalog-templates");
    let jobs = jobs_by_name_within(&templates, &mut Vec::new(), 3).unwrap();
    assert_eq!(jobs.len(), 2);
    let e = jobs_by_name_within(&templates, &mut Vec::new(), 2).unwrap_err();
    assert!(matches!(e, RenderAllError::Listing(_)), "{e}");
    assert!(
        e.to_string()
            .ends_with("catalog-templates: more than 2 entries; not read further"),
        "{e}"
    );
}

#[cfg(unix)]
#[test]
fn a_template_linked_from_outside_is_refused_as_before() {
    let root = repo(None, &["v4.16.yaml"]);
    std::fs::write(
        root.path().join("v4.17.yaml"),
        "schema: olm.template.basic\nentries: []\n",
    )
    .unwrap();
    let templates = root.path().join("operators/op/catalog-templates");
    std::os::unix::fs::symlink("../../../v4.17.yaml", templates.join("v4.17.yaml")).unwrap();
    let e = jobs_by_name_within(&templates, &mut Vec::new(), 10).unwrap_err();
    assert!(matches!(e, RenderAllError::Read { .. }), "{e}");
    assert!(e.to_string().contains("v4.17.yaml"), "{e}");
}
