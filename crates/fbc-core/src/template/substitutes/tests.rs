//! opm's own cases for substitutes templates (operator-registry v1.73.0,
//! alpha/template/substitutes/substitutes_test.go), its bundle renderer stood in for by a source
//! that makes a bundle from the image reference the same way: `…:v1.2.0-alpha` is bundle
//! `testoperator-v1.2.0-alpha`, version 1.2.0, release alpha; `…:v1.2.0` is `testoperator.v1.2.0`.

use serde_json::{Value, json};

use super::super::{Body, OpmVersion, ResolveError, parse};
use super::*;

struct Mock;

impl BundleSource for Mock {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        let package = if image.contains("test-bundle") {
            "test"
        } else {
            "testoperator"
        };
        let tag = image.split_once(":v").map_or("1.0.0", |(_, t)| t);
        let (version, release) = tag.split_once('-').unwrap_or((tag, ""));
        let (name, value) = if release.is_empty() {
            (
                format!("{package}.v{version}"),
                json!({"packageName": package, "version": version}),
            )
        } else {
            (
                format!("{package}-v{version}-{release}"),
                json!({"packageName": package, "version": version, "release": release}),
            )
        };
        Some(Ok(
            json!({"schema": "olm.bundle", "name": name, "package": package, "image": image,
            "properties": [{"type": "olm.package", "value": value}],
            "relatedImages": [{"name": "bundle", "image": image}]}),
        ))
    }
    fn describe(&self) -> String {
        "the test's images".into()
    }
}

fn bundle_entry(name: &str, version: &str, release: &str) -> String {
    let release = if release.is_empty() {
        String::new()
    } else {
        format!(", release: {release}")
    };
    format!(
        "- schema: olm.bundle\n  name: {name}\n  package: testoperator\n  image: quay.io/test/testoperator-bundle:v{version}\n  properties:\n  - type: olm.package\n    value: {{packageName: testoperator, version: {version}{release}}}\n"
    )
}

/// A template of package testoperator, channel stable with `entries` (YAML flow), bundles
/// `bundles` (name, version, release), and `substitutions` (image, base).
fn template(entries: &str, bundles: &[(&str, &str, &str)], subs: &[(&str, &str)]) -> String {
    let mut t = format!(
        "schema: olm.template.substitutes\nentries:\n- schema: olm.package\n  name: testoperator\n  defaultChannel: stable\n- schema: olm.channel\n  name: stable\n  package: testoperator\n  entries: {entries}\n"
    );
    for (n, v, r) in bundles {
        t.push_str(&bundle_entry(n, v, r));
    }
    t.push_str("substitutions:\n");
    for (name, base) in subs {
        t.push_str(&format!("- name: {name:?}\n  base: {base:?}\n"));
    }
    t
}

fn render(text: &str) -> Result<Rendered, TemplateError> {
    parse("t.yaml", text)?.render(&Mock, OpmVersion::DEFAULT)
}

fn channel(r: &Rendered) -> Value {
    r.blobs
        .iter()
        .find(|b| b["schema"] == "olm.channel")
        .map(|c| c["entries"].clone())
        .unwrap()
}

const TWO: &str =
    "[{name: testoperator.v1.0.0}, {name: testoperator.v1.1.0, replaces: testoperator.v1.0.0}]";

#[test]
fn single_substitution() {
    let r = render(&template(
        TWO,
        &[
            ("testoperator.v1.0.0", "1.0.0", ""),
            ("testoperator.v1.1.0", "1.1.0", ""),
        ],
        &[(
            "quay.io/test/testoperator-bundle:v1.1.0-alpha",
            "testoperator.v1.1.0",
        )],
    ))
    .unwrap();
    assert_eq!(
        channel(&r),
        json!([{"name": "testoperator.v1.0.0"}, {"name": "testoperator.v1.1.0"},
            {"name": "testoperator-v1.1.0-alpha", "replaces": "testoperator.v1.0.0", "skips": ["testoperator.v1.1.0"]}])
    );
    assert_eq!(r.blobs.len(), 5);
    assert_eq!(r.as_written, [2, 3]);
}

#[test]
fn chained_substitutions_clear_the_first_substitute() {
    let r = render(&template(
        TWO,
        &[
            ("testoperator.v1.0.0", "1.0.0", ""),
            ("testoperator.v1.1.0", "1.1.0", ""),
        ],
        &[
            (
                "quay.io/test/testoperator-bundle:v1.2.0-alpha",
                "testoperator.v1.1.0",
            ),
            (
                "quay.io/test/testoperator-bundle:v1.3.0-alpha",
                "testoperator-v1.2.0-alpha",
            ),
        ],
    ))
    .unwrap();
    assert_eq!(
        channel(&r),
        json!([{"name": "testoperator.v1.0.0"}, {"name": "testoperator.v1.1.0"},
            {"name": "testoperator-v1.2.0-alpha"},
            {"name": "testoperator-v1.3.0-alpha", "replaces": "testoperator.v1.0.0",
             "skips": ["testoperator.v1.1.0", "testoperator-v1.2.0-alpha"]}])
    );
}

#[test]
fn no_substitutions_render_the_entries() {
    let r = render(&template(
        "[{name: testoperator.v1.0.0}]",
        &[("testoperator.v1.0.0", "1.0.0", "")],
        &[],
    ))
    .unwrap();
    assert_eq!(channel(&r), json!([{"name": "testoperator.v1.0.0"}]));
}

fn error(text: &str) -> String {
    render(text).unwrap_err().to_string()
}

#[test]
fn refusals_use_opm_words_at_their_place() {
    let bundles = [
        ("testoperator.v1.0.0", "1.0.0", ""),
        ("testoperator.v1.1.0", "1.1.0", ""),
    ];
    let img = "quay.io/test/testoperator-bundle:v1.2.0-alpha";
    let e = error(&template(TWO, &bundles, &[(img, "nonexistent.v1.0.0")]));
    assert!(
        e.starts_with("t.yaml:26:9: render: error processing substitution \"nonexistent.v1.0.0\" -> \"quay.io/test/testoperator-bundle:v1.2.0-alpha\": base bundle \"nonexistent.v1.0.0\" does not exist in catalog\n  hint: "),
        "{e}"
    );
    let e = error(&template(TWO, &bundles, &[("", "testoperator.v1.1.0")]));
    assert!(e.contains("substitution name cannot be empty"), "{e}");
    let e = error(&template(TWO, &bundles, &[(img, "")]));
    assert!(e.contains("substitution base cannot be empty"), "{e}");
    let e = error(&template(
        TWO,
        &bundles,
        &[("testoperator.v1.1.0", "testoperator.v1.1.0")],
    ));
    assert!(
        e.contains("substitution name and base cannot be the same"),
        "{e}"
    );
    let e = error(&template(
        TWO,
        &bundles,
        &[
            (img, "testoperator.v1.1.0"),
            (
                "quay.io/test/testoperator-bundle:v1.3.0-alpha",
                "testoperator.v1.1.0",
            ),
        ],
    ));
    assert!(
        e.starts_with(
            "t.yaml:28:9: render: cannot reuse the same substitution base \"testoperator.v1.1.0\""
        ),
        "{e}"
    );
    let three = "[{name: testoperator.v1.0.0}, {name: testoperator.v1.1.0, replaces: testoperator.v1.0.0}, {name: testoperator.v1.2.0, replaces: testoperator.v1.1.0}]";
    let img3 = "quay.io/test/testoperator-bundle:v1.3.0-alpha";
    let e = error(&template(
        three,
        &[
            ("testoperator.v1.0.0", "1.0.0", ""),
            ("testoperator.v1.1.0", "1.1.0", ""),
            ("testoperator.v1.2.0", "1.2.0", ""),
        ],
        &[(img3, "testoperator.v1.1.0"), (img3, "testoperator.v1.2.0")],
    ));
    assert!(
        e.contains("render: cannot reuse the same substitution \"quay.io/test/testoperator-bundle:v1.3.0-alpha\" for different bases (\"testoperator.v1.1.0\" and \"testoperator.v1.2.0\")"),
        "{e}"
    );
}

#[test]
fn the_substitute_must_compare_higher() {
    let e = error(&template(
        "[{name: testoperator-v1.2.0-beta}]",
        &[("testoperator-v1.2.0-beta", "1.2.0", "beta")],
        &[(
            "quay.io/test/testoperator-bundle:v1.2.0-alpha",
            "testoperator-v1.2.0-beta",
        )],
    ));
    assert!(
        e.contains(": base bundle \"testoperator-v1.2.0-beta\" is not less than substitute bundle \"quay.io/test/testoperator-bundle:v1.2.0-alpha\""),
        "{e}"
    );
}

#[test]
fn entries_must_convert_first_and_after() {
    // A bundle in no channel: the entries are refused before any substitution.
    let e = error(&template(
        "[{name: testoperator.v1.0.0}]",
        &[
            ("testoperator.v1.0.0", "1.0.0", ""),
            ("testoperator.v1.1.0", "1.1.0", ""),
        ],
        &[],
    ));
    assert!(
        e.starts_with("t.yaml:17:1: render: entries are not valid FBC: package \"testoperator\", bundle \"testoperator.v1.1.0\" not found in any channel entries"),
        "{e}"
    );
    // A substitute of another package: the result does not convert.
    let e = error(&template(
        "[{name: testoperator.v1.0.0}]",
        &[("testoperator.v1.0.0", "1.0.0", "")],
        &[(
            "quay.io/test/test-bundle:v1.0.0-alpha",
            "testoperator.v1.0.0",
        )],
    ));
    assert!(
        e.contains("resulting config is not valid FBC: unknown package \"test\" for bundle \"test-v1.0.0-alpha\""),
        "{e}"
    );
}

#[test]
fn parse_spec_cases() {
    let t = parse(
        "t.yaml",
        "schema: olm.template.substitutes\nentries: []\nsubstitutions: []\n",
    )
    .unwrap();
    let Body::Substitutes(s) = &t.body else {
        panic!()
    };
    assert!(s.entries.is_empty() && s.substitutions.is_empty());
    let t = parse(
        "t.yaml",
        "schema: olm.template.substitutes\nsubstitutions:\n- name: testoperator.v1.1.0\n  base: testoperator.v1.0.0\n- Name: testoperator.v1.2.0\n  base: testoperator.v1.1.0\n",
    )
    .unwrap();
    let Body::Substitutes(s) = &t.body else {
        panic!()
    };
    assert_eq!(
        s.substitutions
            .iter()
            .map(|s| (s.name.as_str(), s.base.as_str(), s.name_at))
            .collect::<Vec<_>>(),
        [
            ("testoperator.v1.1.0", "testoperator.v1.0.0", (3, 9)),
            ("testoperator.v1.2.0", "testoperator.v1.1.0", (5, 9))
        ]
    );
    let mut notes = Vec::new();
    let node = crate::catalog::emit::to_node(
        &json!({"schema": "olm.template.invalid", "entries": []}),
        false,
    );
    let e = Substitutes::parse("t.yaml", &node, &mut notes).unwrap_err();
    assert!(
        e.to_string().contains("render: unable to parse template: template has unknown schema (\"olm.template.invalid\"), should be \"olm.template.substitutes\""),
        "{e}"
    );
    let e = parse(
        "t.yaml",
        "schema: olm.template.substitutes\nsubstitutions:\n- name: [a]\n- 3\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("t.yaml:3:9: render: unable to parse template: unmarshalling template: substitutions[0]: json: cannot unmarshal a list into Go struct field Substitute.substitutions.name of type string"),
        "{e}"
    );
}

#[test]
fn opm_before_v1_67_has_no_substitutes_template() {
    let t = parse("t.yaml", "schema: olm.template.substitutes\nentries: []\n").unwrap();
    let e = t
        .render(&Mock, OpmVersion::parse("v1.61.0").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("opm v1.61.0 has no substitutes template"), "{e}");
    let old = t
        .render(&Mock, OpmVersion::parse("v1.67.0").unwrap())
        .unwrap();
    assert!(old.blobs.is_empty());
}
