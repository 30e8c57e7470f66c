use super::*;

#[test]
fn detects_the_template_type_from_the_first_document() {
    let t = parse(
        "t.yaml",
        "Schema: olm.semver\nStable:\n  Bundles:\n  - Image: a\n",
    )
    .unwrap();
    assert_eq!(t.schema(), schemas::SEMVER);
    let t = parse("t.yaml", "schema: olm.template.basic\nentries: []\n").unwrap();
    assert_eq!(t.schema(), schemas::BASIC);
}

#[test]
fn unknown_and_missing_schemas_use_opm_words() {
    let e = parse("t.yaml", "schema: olm.package\nname: x\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:1: unknown template schema: olm.package"
    );
    let e = parse("t.yaml", "entries: []\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:1: template input missing required 'schema' field"
    );
    let e = parse("t.yaml", "- a\n- b\n").unwrap_err();
    assert!(e.to_string().contains("found a list"), "{e}");
    let e = parse("t.yaml", "schema: olm.composite\ncomponents: []\n").unwrap_err();
    assert!(e.to_string().contains("removed from opm in v1.44.0"), "{e}");
    let e = parse("t.yaml", "").unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
}

#[test]
fn syntax_errors_name_the_line() {
    let e = parse("t.yaml", "schema: olm.semver\nstable: a: b\n").unwrap_err();
    assert_eq!(e.problems[0].line, 2, "{e}");
    assert!(e.to_string().starts_with("t.yaml:2: invalid YAML"), "{e}");
}

#[test]
fn only_the_first_document_counts() {
    let t = parse(
        "t.yaml",
        "schema: olm.template.basic\nentries: []\n---\nnot: [valid\n",
    )
    .unwrap();
    assert!(
        t.notes
            .iter()
            .any(|n| n.contains("only the first document")),
        "{:?}",
        t.notes
    );
}

#[test]
fn template_schema_tells_templates_from_catalog_files() {
    assert_eq!(
        template_schema("---\nSchema: olm.semver\n"),
        Some(schemas::SEMVER)
    );
    assert_eq!(template_schema("schema: olm.package\nname: a\n"), None);
    assert_eq!(
        template_schema("{\"schema\": \"olm.template.basic\"}"),
        Some(schemas::BASIC)
    );
    assert_eq!(template_schema("::: not yaml"), None);
}

#[test]
fn long_strings_are_read_into_memory() {
    let long = "A".repeat(5000);
    let text = format!("schema: olm.template.basic\nentries:\n- schema: x.other\n  data: {long}\n");
    let (node, _) = first_document("t.yaml", &text).unwrap();
    let v = to_value(&node);
    assert_eq!(v["entries"][0]["data"].as_str().map(str::len), Some(5000));
}

#[test]
fn base64_is_decoded_and_written_back_like_go() {
    assert_eq!(canonical::base64_bytes("aGVs\nbG8=").unwrap(), "aGVsbG8=");
    assert!(canonical::base64_bytes("aGVsbG8").is_err());
}
