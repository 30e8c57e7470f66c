//! The JSON Schemas of templates, `ci.yaml` and `release-config.yaml` against the engine, both
//! ways (the catalog's are in `schemas.rs`).

use std::path::Path;

use fbc_core::catalog::node::json_in_text;

use super::schemas::{documents_of, faults, files, testdata, validator};

/// The engine's verdict on a template file: `Some(true)` accepted, `Some(false)` rejected, `None`
/// not a basic or semver template.
fn template_verdict(path: &Path, text: &str) -> Option<bool> {
    match fbc_core::template::template_schema(text)? {
        "olm.template.basic" | "olm.semver" => {
            Some(fbc_core::template::parse(&path.display().to_string(), text).is_ok())
        }
        // opm renders these; the engine does not, and the schema does not look into them.
        "olm.template.substitutes" => None,
        _ => Some(false),
    }
}

#[test]
fn templates_validate_exactly_when_the_engine_reads_them() {
    let any = validator("template");
    let basic = validator("olm.template.basic");
    let semver = validator("olm.semver");
    let (mut accepted, mut rejected) = (0, 0);
    for path in files(&testdata("")) {
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(ok) = template_verdict(&path, &text) else {
            continue;
        };
        let Some(doc) = documents_of(&text).into_iter().next() else {
            continue;
        };
        let found = faults(&any, &doc);
        if ok {
            accepted += 1;
            assert!(found.is_empty(), "{}: {found:#?}", path.display());
            let own = match fbc_core::template::template_schema(&text) {
                Some("olm.semver") => &semver,
                _ => &basic,
            };
            assert!(own.is_valid(&doc), "{}", path.display());
        } else {
            rejected += 1;
            assert!(!found.is_empty(), "{}: rejected, yet valid", path.display());
        }
    }
    assert!(
        accepted >= 130 && rejected >= 2,
        "{accepted} accepted, {rejected} rejected"
    );
}

/// Templates the engine refuses, one per rule, and where the template schema finds the fault.
#[test]
fn rejected_templates_fail_the_schema() {
    let v = validator("template");
    let b = "schema: olm.template.basic\nentries:\n";
    let s = "schema: olm.semver\n";
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{b}- {{schema: olm.bundle, image: 'quay.io/a/b:1', package: p}}\n"),
            "/entries/0/package",
        ),
        (
            format!(
                "{b}- schema: olm.bundle\n  image: quay.io/a/b:1\n  properties: [{{type: olm.package, value: {{}}}}]\n"
            ),
            "/entries/0/properties",
        ),
        (
            format!(
                "{b}- schema: olm.bundle\n  relatedImages: [{{name: a, image: quay.io/a/a:1}}]\n  image: quay.io/a/b:1\n"
            ),
            "/entries/0/relatedImages",
        ),
        (
            format!("{b}- {{schema: olm.bundle, name: b.v1}}\n"),
            "/entries/0",
        ),
        (
            "schema: olm.template.basic\nentries: {}\n".to_string(),
            "/entries",
        ),
        (format!("{b}- {{name: x}}\n"), "/entries/0"),
        (format!("{b}- null\n"), "/entries/0"),
        (
            format!("{b}- {{schema: olm.package, name: 5}}\n"),
            "/entries/0/name",
        ),
        (
            format!("{b}- {{schema: olm.channel, name: a, package: p, entries: x}}\n"),
            "/entries/0/entries",
        ),
        ("schema: olm.composite\ncomponents: []\n".to_string(), ""),
        (format!("{s}Stabel: {{Bundles: []}}\n"), ""),
        (
            format!("{s}GenerateMajorChannels: 'yes'\n"),
            "/GenerateMajorChannels",
        ),
        (format!("{s}defaultChannelTypePreference: major\n"), ""),
        (
            format!("{s}GenerateMajorChannels: true\ndefaultChannelTypePreference: minor\n"),
            "",
        ),
        (
            format!("{s}defaultChannelTypePreference: patch\n"),
            "/defaultChannelTypePreference",
        ),
        (
            format!("{s}Stable: {{Bundles: [{{Image: ''}}]}}\n"),
            "/Stable/Bundles/0/Image",
        ),
        (
            format!("{s}Stable: {{Bundles: [{{image: 'quay.io/a/b:1', tag: x}}]}}\n"),
            "/Stable/Bundles/0",
        ),
        (
            format!("{s}stable: {{bundles: [quay.io/a/b:1]}}\n"),
            "/stable/bundles/0",
        ),
        (format!("{s}stable: []\n"), "/stable"),
    ];
    for (text, at) in &cases {
        assert_eq!(
            template_verdict(Path::new("t.yaml"), text),
            Some(false),
            "the engine accepts {text}"
        );
        let doc = documents_of(text).remove(0);
        let found = faults(&v, &doc);
        assert!(
            found.iter().any(|(p, _)| p == at),
            "{text}: expected a fault at {at:?}, found {found:#?}"
        );
    }
    // Beyond a schema: the same field twice in two letter cases (the engine refuses it; a schema
    // cannot compare key spellings).
    let twice = format!("{s}Schema: olm.semver\n");
    assert_eq!(template_verdict(Path::new("t.yaml"), &twice), Some(false));
    assert!(faults(&v, &documents_of(&twice).remove(0)).is_empty());
}

/// `ci.yaml` and `release-config.yaml`: the schema's verdict is the engine's (which carries the
/// pipeline's own schema rules), for every such file in testdata and for rule cases.
#[test]
fn ci_and_release_config_get_the_engines_verdict() {
    use fbc_core::repo::schema::{CI, RELEASE_CONFIG, Shape, check};
    let ci = validator("ci");
    let rc = validator("release-config");
    let verdicts = |text: &str, shape: &Shape, v: &jsonschema::Validator| {
        let tree = fbc_core::catalog::yaml::typed::parse::<serde::de::IgnoredAny>(text, "f.yaml")
            .unwrap()
            .tree;
        let engine = check(&tree, shape).iter().all(|v| v.duplicate_key);
        (engine, v.is_valid(&json_in_text(&tree, text)))
    };
    let (mut files_seen, mut refused) = (0, 0);
    for path in files(&testdata("")) {
        let name = path.file_name().unwrap().to_string_lossy();
        let (shape, v) = match name.as_ref() {
            "ci.yaml" => (&CI, &ci),
            "release-config.yaml" => (&RELEASE_CONFIG, &rc),
            _ => continue,
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let (engine, schema) = verdicts(&text, shape, v);
        assert_eq!(engine, schema, "{}", path.display());
        files_seen += 1;
        refused += usize::from(!engine);
    }
    assert!(
        files_seen >= 30 && refused >= 1,
        "{files_seen} files, {refused} refused"
    );
    let ci_cases = [
        "fbc: {enabled: 'true'}\n",
        "fbc: {enabled: true, extra: 1}\n",
        "fbc: {version_promotion_strategy: sometimes}\n",
        "fbc: {catalog_mapping: [{template_name: a.yaml, type: olm.semver}]}\n",
        "fbc: {catalog_mapping: [{template_name: a.yaml, type: olm.template.composite, catalog_names: [v4.18]}]}\n",
        "fbc: {catalog_mapping: [{template_name: a.yaml, type: olm.semver, catalog_names: [v4.18, v4.18]}]}\n",
        "fbc: {catalog_mapping: [{template_name: a.yaml, type: olm.semver, catalog_names: []}]}\n",
        "fbc: {catalog_mapping: [{template_name: a.yaml, type: olm.semver, catalog_names: [4.18]}]}\n",
        "reviewers: []\n",
        "updateGraph: semver\n",
        "merge: 'no'\n",
        "cert_project_id: 12\n",
        "fbc: []\n",
    ];
    for text in ci_cases {
        assert_eq!(verdicts(text, &CI, &ci), (false, false), "{text}");
    }
    for text in [
        "fbc: {enabled: true, catalog_mapping: [{template_name: a.yaml, type: olm.semver, catalog_names: [v4.18], note: x}]}\nanything: else\n",
        "updateGraph: replaces-mode\nreviewers: [someone]\n",
    ] {
        assert_eq!(verdicts(text, &CI, &ci), (true, true), "{text}");
    }
    let rc_cases = [
        "merge: true\n",
        "catalog_templates: []\n",
        "catalog_templates: [{template_name: a, channels: [s]}]\nother: 1\n",
        "catalog_templates: [{template_name: a}]\n",
        "catalog_templates: [{channels: [s]}]\n",
        "catalog_templates: [{template_name: a, channels: stable}]\n",
        "catalog_templates: [{template_name: a, channels: [s, s]}]\n",
        "catalog_templates: [{template_name: a, channels: [s], skips: []}]\n",
        "catalog_templates: [{template_name: a, channels: [s], replaces: 1}]\n",
        "catalog_templates: [{template_name: a, channels: [s]}, {template_name: a, channels: [s]}]\n",
    ];
    for text in rc_cases {
        assert_eq!(
            verdicts(text, &RELEASE_CONFIG, &rc),
            (false, false),
            "{text}"
        );
    }
    assert_eq!(
        verdicts(
            "catalog_templates: [{template_name: a, channels: [s], defaultChannel: s, skips: [x], skipRange: '<1.0.0', note: 1}]\nmerge: false\n",
            &RELEASE_CONFIG,
            &rc
        ),
        (true, true)
    );
}
