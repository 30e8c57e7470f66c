use super::super::parse;
use super::*;
use crate::template::OpmVersion;
use serde_json::json;

/// Bundles `<pkg>.v<version>` with image `img:<version>`.
struct Versions {
    package: &'static str,
    csv: Option<Value>,
    icon: Option<Value>,
}

impl BundleSource for Versions {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, super::super::ResolveError>> {
        let v = image.strip_prefix("img:")?;
        let (pkg, v) = match v.split_once('/') {
            Some((p, v)) => (p, v),
            None => (self.package, v),
        };
        let mut props =
            vec![json!({"type": "olm.package", "value": {"packageName": pkg, "version": v}})];
        if let Some(csv) = &self.csv {
            use base64::Engine as _;
            let data = base64::engine::general_purpose::STANDARD.encode(csv.to_string());
            props.push(json!({"type": "olm.bundle.object", "value": {"data": data}}));
        } else {
            props.push(
                json!({"type": "olm.csv.metadata", "value": {"description": format!("about {v}")}}),
            );
        }
        Some(Ok(
            json!({"schema": "olm.bundle", "name": format!("{pkg}.v{v}"),
            "package": pkg, "image": image, "properties": props}),
        ))
    }
    fn package_icon(&self, _package: &str) -> Option<(Value, String)> {
        self.icon.clone().map(|i| (i, "catalog.yaml:1:1".into()))
    }
    fn describe(&self) -> String {
        "the test's bundles".into()
    }
}

fn source() -> Versions {
    Versions {
        package: "p",
        csv: None,
        icon: None,
    }
}

fn template(head: &str, lists: &[(&str, &[&str])]) -> String {
    let mut t = format!("schema: olm.semver\n{head}");
    for (m, versions) in lists {
        t.push_str(&format!("{m}:\n  bundles:\n"));
        for v in *versions {
            t.push_str(&format!("  - image: img:{v}\n"));
        }
    }
    t
}

fn render(text: &str) -> Result<Rendered, TemplateError> {
    parse("t.yaml", text)?.render(&source(), crate::template::OpmVersion::DEFAULT)
}

/// Channels as `name: entry[>replaces][~skip,skip] ...` and the default channel.
fn summary(r: &Rendered) -> (Vec<String>, String) {
    let mut out = Vec::new();
    for b in &r.blobs {
        if b["schema"] != "olm.channel" {
            continue;
        }
        let entries: Vec<String> = b["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let mut s = e["name"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("p.v")
                    .to_string();
                if let Some(r) = e["replaces"].as_str() {
                    s.push_str(&format!(">{}", r.trim_start_matches("p.v")));
                }
                if let Some(sk) = e["skips"].as_array() {
                    let sk: Vec<&str> = sk
                        .iter()
                        .map(|x| x.as_str().unwrap().trim_start_matches("p.v"))
                        .collect();
                    s.push_str(&format!("~{}", sk.join(",")));
                }
                s
            })
            .collect();
        out.push(format!(
            "{}: {}",
            b["name"].as_str().unwrap(),
            entries.join(" ")
        ));
    }
    (
        out,
        r.blobs[0]["defaultChannel"].as_str().unwrap().to_string(),
    )
}

#[test]
fn major_mode_worked_example() {
    // semver_test.go TestLinkChannels: stable, major channels, 1.1.0 1.2.1 1.3.1 2.1.0.
    let r = render(&template(
        "generateMajorChannels: true\ngenerateMinorChannels: false\n",
        &[("stable", &["1.1.0", "1.2.1", "1.3.1", "2.1.0"])],
    ))
    .unwrap();
    assert_eq!(
        summary(&r),
        (
            vec![
                "stable-v1: 1.1.0 1.2.1>1.1.0 1.3.1>1.2.1~1.1.0".to_string(),
                "stable-v2: 2.1.0".to_string()
            ],
            "stable-v2".to_string()
        )
    );
}

#[test]
fn minor_mode_readme_example() {
    let r = render(&template(
        "",
        &[(
            "candidate",
            &[
                "0.1.0", "0.1.1", "0.1.2", "0.1.3", "0.2.0", "0.2.1", "0.2.2", "0.3.0",
            ],
        )],
    ))
    .unwrap();
    assert_eq!(
        summary(&r).0,
        vec![
            "candidate-v0.1: 0.1.0 0.1.1 0.1.2 0.1.3~0.1.0,0.1.1,0.1.2",
            "candidate-v0.2: 0.2.0 0.2.1 0.2.2>0.1.3~0.1.0,0.1.1,0.1.2,0.2.0,0.2.1",
            "candidate-v0.3: 0.3.0>0.2.2~0.1.0,0.1.1,0.1.2,0.1.3,0.2.0,0.2.1",
        ]
    );
    assert_eq!(summary(&r).1, "candidate-v0.3");
}

#[test]
fn entries_are_sorted_by_version_and_lists_link_separately() {
    let r = render(&template(
        "generateMajorChannels: true\ngenerateMinorChannels: true\n",
        &[
            ("stable", &["1.0.1", "1.0.0", "1.1.0"]),
            ("candidate", &["1.1.0-rc.1", "1.0.0", "1.1.0-rc.0"]),
        ],
    ))
    .unwrap();
    assert_eq!(
        summary(&r).0,
        vec![
            "candidate-v1: 1.0.0 1.1.0-rc.0 1.1.0-rc.1>1.0.0~1.1.0-rc.0",
            "candidate-v1.0: 1.0.0",
            "candidate-v1.1: 1.1.0-rc.0 1.1.0-rc.1>1.0.0~1.1.0-rc.0",
            "stable-v1: 1.0.0 1.0.1~1.0.0 1.1.0>1.0.1~1.0.0",
            "stable-v1.0: 1.0.0 1.0.1~1.0.0",
            "stable-v1.1: 1.1.0>1.0.1~1.0.0",
        ]
    );
    // Stable beats candidate; same version (1.1.0) so the preferred kind (minor) wins.
    assert_eq!(summary(&r).1, "stable-v1.1");
}

#[test]
fn default_channel_preference() {
    let both = "generateMajorChannels: true\ngenerateMinorChannels: true\n";
    let lists: &[(&str, &[&str])] = &[("fast", &["1.0.0", "2.0.0", "2.3.0"])];
    let pick =
        |extra: &str| summary(&render(&template(&format!("{both}{extra}"), lists)).unwrap()).1;
    assert_eq!(pick(""), "fast-v2.3");
    assert_eq!(pick("defaultChannelTypePreference: minor\n"), "fast-v2.3");
    // fast-v2 was created by 2.0.0, fast-v2.3 by 2.3.0: the higher version wins over the kind.
    assert_eq!(pick("defaultChannelTypePreference: major\n"), "fast-v2.3");
    let lists: &[(&str, &[&str])] = &[("fast", &["2.0.0"])];
    let pick =
        |extra: &str| summary(&render(&template(&format!("{both}{extra}"), lists)).unwrap()).1;
    assert_eq!(pick("defaultChannelTypePreference: major\n"), "fast-v2");
    assert_eq!(pick("defaultChannelTypePreference: minor\n"), "fast-v2.0");
    // Only major channels: the preference defaults to major.
    let r = render(&template(
        "GenerateMajorChannels: true\n",
        &[("stable", &["1.0.0"]), ("candidate", &["3.0.0"])],
    ))
    .unwrap();
    assert_eq!(summary(&r).1, "stable-v1");
}

#[test]
fn a_prerelease_of_zero_creates_no_default_channel() {
    // The high-water mark starts at candidate 0.0.0; 0.0.0-alpha is lower, so opm leaves the
    // default channel empty.
    let r = render(&template("", &[("candidate", &["0.0.0-alpha"])])).unwrap();
    assert_eq!(summary(&r).1, "");
}

#[test]
fn preference_errors_use_opm_words() {
    let e = render(&template(
        "generateMajorChannels: true\ndefaultChannelTypePreference: minor\n",
        &[("stable", &["1.0.0"])],
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:1: schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels"
    );
    let e = render(&template(
        "defaultChannelTypePreference: major\n",
        &[("stable", &["1.0.0"])],
    ))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("set to 'major' doesn't make sense if not generating major-version channels"),
        "{e}"
    );
    let e = render(&template(
        "defaultChannelTypePreference: Minor\n",
        &[("stable", &["1.0.0"])],
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:1: unknown DefaultChannelTypePreference: \"Minor\"\nValid values are 'major' or 'minor'"
    );
}

#[test]
fn strict_reading() {
    let e = render("Schema: olm.semver\nAvoidSkipPatch: true\nstable:\n  bundles:\n  - image: img:1.0.0\n    foo: 1\n").unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("t.yaml:2: unknown field \"AvoidSkipPatch\""),
        "{text}"
    );
    assert!(
        text.contains("t.yaml:6: unknown field \"foo\" in stable.bundles[0]"),
        "{text}"
    );
    let e = render("schema: olm.semver\nstable: {}\nstable: {}\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("t.yaml:3: key \"stable\" already set in map (first on line 2)"),
        "{e}"
    );
    let e = render("schema: olm.semver\nStable: {}\nstable: {}\n").unwrap_err();
    assert!(e.to_string().contains("are the same field"), "{e}");
    let e = render("schema: olm.semver\ngenerateMinorChannels: \"yes\"\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("t.yaml:2: generateMinorChannels must be true or false, found a string"),
        "{e}"
    );
    let e = render("schema: olm.semver\nstable:\n  bundles:\n  - {}\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("t.yaml:4: stable.bundles[0] has no image"),
        "{e}"
    );
    let e = render("schema: olm.semver\nstable:\n  bundles: 3\n").unwrap_err();
    assert!(
        e.to_string().contains("stable.bundles must be a list"),
        "{e}"
    );
}

#[test]
fn yaml_11_booleans_and_pascal_case_work() {
    let r = render("Schema: olm.semver\nGenerateMajorChannels: yes\nGenerateMinorChannels: no\nStable:\n  Bundles:\n  - Image: img:1.2.3\n").unwrap();
    assert_eq!(summary(&r).0, vec!["stable-v1: 1.2.3"]);
}

#[test]
fn no_bundles() {
    let e = render("schema: olm.semver\nstable:\n  bundles: []\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:1: render: no bundles specified or no bundles could be rendered"
    );
}

#[test]
fn wrong_schema() {
    let t = parse("t.yaml", "schema: olm.semver\n").unwrap();
    let Body::Semver(_) = t.body else { panic!() };
    let node = to_node(&json!({"schema": "olm.semverx"}), false);
    let e = Semver::parse("t.yaml", &node).unwrap_err();
    assert!(
        e.to_string()
            .contains("input file has unknown schema, should be \"olm.semver\""),
        "{e}"
    );
}

use super::super::Body;

#[test]
fn build_metadata_only_differences_are_refused() {
    let e = render(&template(
        "",
        &[("stable", &["1.0.0+a", "1.0.0+b", "1.1.0"])],
    ))
    .unwrap_err();
    assert!(
        e.to_string().ends_with("encountered bundle versions which differ only by build metadata, which cannot be ordered: bundle version \"1.0.0+b\" cannot be compared to \"1.0.0\""),
        "{e}"
    );
    let e = render(&template(
        "",
        &[("stable", &["1.0.0+a", "1.0.0+b", "1.0.0+c"])],
    ))
    .unwrap_err();
    assert!(e.to_string().contains(": [bundle version \"1.0.0+b\" cannot be compared to \"1.0.0\", bundle version \"1.0.0+c\" cannot be compared to \"1.0.0\"]"), "{e}");
    // The same version in two lists is fine.
    assert!(
        render(&template(
            "",
            &[("stable", &["1.0.0+a"]), ("fast", &["1.0.0+b"])]
        ))
        .is_ok()
    );
}

#[test]
fn wrong_package_duplicate_name_and_bad_version() {
    let e = render(&template("", &[("stable", &["1.0.0", "q/1.1.0"])])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:5: bundle \"q\" does not belong to this package: \"p\" (image \"img:q/1.1.0\" is bundle \"q.v1.1.0\" of package \"q\")"
    );
    let e = render(
        "schema: olm.semver\nstable:\n  bundles:\n  - image: img:1.0.0\n  - image: img:1.0.0\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:5: duplicate bundle name \"p.v1.0.0\""
    );
    let e = render(&template("", &[("stable", &["v1.0.0"])])).unwrap_err();
    assert!(e.to_string().contains("bundle \"p.vv1.0.0\" has invalid version \"v1.0.0\": Invalid character(s) found in major number \"v1\""), "{e}");
}

#[test]
fn unresolvable_images_are_named() {
    let e = render(
        "schema: olm.semver\nstable:\n  bundles:\n  - image: quay.io/x/y:1\n  - image: img:1.0.0\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.yaml:4: cannot resolve bundle image \"quay.io/x/y:1\": not found in the test's bundles"
    );
}

#[test]
fn description_and_icon_come_from_the_default_channel_head() {
    let t = parse(
        "t.yaml",
        &template(
            "",
            &[("stable", &["1.0.0", "1.1.0"]), ("candidate", &["2.0.0"])],
        ),
    )
    .unwrap();
    // From the CSV: description and first icon (re-encoded without line breaks).
    let csv = json!({"kind": "ClusterServiceVersion", "spec": {"description": "hello",
        "icon": [{"base64data": "aGVs\nbG8=", "mediatype": "image/png"}, {"base64data": "", "mediatype": "x"}]}});
    let src = Versions {
        package: "p",
        csv: Some(csv.clone()),
        icon: None,
    };
    let r = t
        .render(&src, crate::template::OpmVersion::DEFAULT)
        .unwrap();
    assert_eq!(
        r.blobs[0],
        json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable-v1.1",
            "icon": {"base64data": "aGVsbG8=", "mediatype": "image/png"}, "description": "hello"})
    );
    assert!(r.notes.is_empty());
    // From olm.csv.metadata: the description of the head (1.1.0), the icon recorded by the source.
    let src = Versions {
        package: "p",
        csv: None,
        icon: Some(json!({"base64data": "eA==", "mediatype": "image/svg+xml"})),
    };
    let r = t
        .render(&src, crate::template::OpmVersion::DEFAULT)
        .unwrap();
    assert_eq!(r.blobs[0]["description"], "about 1.1.0");
    assert_eq!(r.blobs[0]["icon"]["base64data"], "eA==");
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    let r = t
        .render(&source(), crate::template::OpmVersion::DEFAULT)
        .unwrap();
    assert!(r.blobs[0].get("icon").is_none());
    assert!(
        r.notes[0].contains("the package gets none"),
        "{:?}",
        r.notes
    );
    // Before v1.65 the package is left as it is, and nothing is said about it.
    for opm in [OpmVersion::V1_46_0, OpmVersion::V1_61_0] {
        let src = Versions {
            package: "p",
            csv: Some(csv.clone()),
            icon: None,
        };
        let r = t.render(&src, opm).unwrap();
        assert_eq!(
            r.blobs[0],
            json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable-v1.1"})
        );
        assert!(r.notes.is_empty(), "{:?}", r.notes);
    }
}

fn render_as(text: &str, opm: &str) -> (Vec<String>, String) {
    let t = parse("t.yaml", text).unwrap();
    summary(
        &t.render(&source(), OpmVersion::parse(opm).unwrap())
            .unwrap(),
    )
}

/// opm v1.37–v1.60 link each channel on its own: a minor version's head replaces the previous
/// minor version's head (v1.46 also skips it) and skips its own lower entries; minor channels
/// are never linked to each other.
#[test]
fn older_releases_link_within_each_channel() {
    let major = template(
        "generateMajorChannels: true\ngenerateMinorChannels: false\n",
        &[(
            "fast",
            &[
                "0.1.1", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.3.0", "1.0.0", "1.0.1",
            ],
        )],
    );
    assert_eq!(
        render_as(&major, "v1.46.0").0,
        [
            "fast-v0: 0.1.1 0.2.0 0.2.1 0.2.2 0.2.3>0.1.1~0.1.1,0.2.0,0.2.1,0.2.2 0.3.0>0.2.3~0.2.3",
            "fast-v1: 1.0.0 1.0.1~1.0.0"
        ]
    );
    assert_eq!(
        render_as(&major, "v1.58.0").0,
        [
            "fast-v0: 0.1.1 0.2.0 0.2.1 0.2.2 0.2.3>0.1.1~0.2.0,0.2.1,0.2.2 0.3.0>0.2.3",
            "fast-v1: 1.0.0 1.0.1~1.0.0"
        ]
    );
    assert_eq!(
        render_as(&major, "v1.61.0").0,
        [
            "fast-v0: 0.1.1 0.2.0 0.2.1 0.2.2 0.2.3>0.1.1~0.2.0,0.2.1,0.2.2 0.3.0>0.2.3~0.1.1,0.2.0,0.2.1,0.2.2",
            "fast-v1: 1.0.0 1.0.1~1.0.0"
        ]
    );
    let minor = template(
        "",
        &[(
            "candidate",
            &[
                "0.1.0", "0.1.1", "0.1.2", "0.1.3", "0.2.0", "0.2.1", "0.2.2", "0.3.0",
            ],
        )],
    );
    let (channels, default) = render_as(&minor, "v1.46.0");
    assert_eq!(
        channels,
        [
            "candidate-v0.1: 0.1.0 0.1.1 0.1.2 0.1.3~0.1.0,0.1.1,0.1.2",
            "candidate-v0.2: 0.2.0 0.2.1 0.2.2~0.2.0,0.2.1",
            "candidate-v0.3: 0.3.0",
        ]
    );
    assert_eq!(default, "candidate-v0.3");
}

#[test]
fn output_is_the_package_then_channels_then_bundles() {
    let r = render(&template("", &[("stable", &["1.0.0"])])).unwrap();
    let text = r.to_text(crate::catalog::emit::OutFormat::Yaml);
    assert_eq!(
        text,
        "---\ndefaultChannel: stable-v1.0\ndescription: about 1.0.0\nname: p\nschema: olm.package\n---\nentries:\n- name: p.v1.0.0\nname: stable-v1.0\npackage: p\nschema: olm.channel\n---\nimage: img:1.0.0\nname: p.v1.0.0\npackage: p\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n- type: olm.csv.metadata\n  value:\n    description: about 1.0.0\nschema: olm.bundle\n"
    );
}
