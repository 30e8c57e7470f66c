//! What CI reads from `fbc-edit validate`: the opt-in profiles of ecosystem CI (community,
//! konflux), SARIF 2.1.0 checked against its schema, GitHub workflow annotations, and `--each` for
//! a tree of catalogs.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn bundle(pkg: &str, name: &str, version: &str, image: &str, extra: &str) -> String {
    format!(
        "---\nschema: olm.bundle\npackage: {pkg}\nname: {name}\nimage: {image}\nproperties:\n- type: olm.package\n  value:\n    packageName: {pkg}\n    version: {version}\n{extra}"
    )
}

const PINNED: &str = "registry.redhat.io/p/b@sha256:0000000000000000000000000000000000000000000000000000000000000000";
const CSV_METADATA: &str = "- type: olm.csv.metadata\n  value:\n    displayName: P\n";

/// One package per profile rule, in a directory named for OCP 4.18. Returns the catalog's root.
fn profile_catalog(root: &Path) -> PathBuf {
    let dir = root.join("catalogs/v4.18");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    // An olm.bundle.object in a 4.17+ catalog, an image by tag from quay.io.
    write(
        "meta.yaml",
        format!(
            "---\nschema: olm.package\nname: meta\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: meta\nname: stable\nentries:\n- name: meta.v1.0.0\n{}",
            bundle(
                "meta",
                "meta.v1.0.0",
                "1.0.0",
                "quay.io/meta/b:v1.0.0",
                "- type: olm.bundle.object\n  value:\n    data: eyJraW5kIjoiQ29uZmlnTWFwIiwibWV0YWRhdGEiOnsibmFtZSI6ImMifX0=\n"
            )
        ),
    );
    // v2 skips v1, v3 replaces and skips v2: OLM v0 drops v2, so clusters on v1 get no upgrade
    // (opm accepts the channel: every entry is on the chain or skipped).
    let mut d = String::from(
        "---\nschema: olm.package\nname: dangle\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: dangle\nname: stable\nentries:\n- name: dangle.v1.0.0\n- name: dangle.v2.0.0\n  skips:\n  - dangle.v1.0.0\n- name: dangle.v3.0.0\n  replaces: dangle.v2.0.0\n  skips:\n  - dangle.v2.0.0\n",
    );
    for (n, v) in [
        ("dangle.v1.0.0", "1.0.0"),
        ("dangle.v2.0.0", "2.0.0"),
        ("dangle.v3.0.0", "3.0.0"),
    ] {
        d.push_str(&bundle("dangle", n, v, PINNED, CSV_METADATA));
    }
    write("dangle.yaml", d);
    // A skipRange and no replaces.
    let mut p = String::from(
        "---\nschema: olm.package\nname: pruned\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: pruned\nname: stable\nentries:\n- name: pruned.v1.0.0\n- name: pruned.v2.0.0\n  skips:\n  - pruned.v1.0.0\n  skipRange: '<2.0.0'\n",
    );
    for (n, v) in [("pruned.v1.0.0", "1.0.0"), ("pruned.v2.0.0", "2.0.0")] {
        p.push_str(&bundle("pruned", n, v, PINNED, CSV_METADATA));
    }
    write("pruned.yaml", p);
    // A loop through a skipRange reaching above its own version.
    let mut l = String::from(
        "---\nschema: olm.package\nname: loop\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: loop\nname: stable\nentries:\n- name: loop.v1.0.0\n  skipRange: '>=1.1.0 <1.2.0'\n- name: loop.v1.1.0\n  replaces: loop.v1.0.0\n",
    );
    for (n, v) in [("loop.v1.0.0", "1.0.0"), ("loop.v1.1.0", "1.1.0")] {
        l.push_str(&bundle("loop", n, v, PINNED, CSV_METADATA));
    }
    write("loop.yaml", l);
    // A skipped entry that replaces a bundle this catalog does not hold.
    let mut a = String::from(
        "---\nschema: olm.package\nname: avail\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: avail\nname: stable\nentries:\n- name: avail.v1.0.0\n- name: avail.v2.0.0\n  replaces: avail.v1.5.0\n- name: avail.v3.0.0\n  replaces: avail.v1.0.0\n  skips:\n  - avail.v2.0.0\n",
    );
    for (n, v) in [
        ("avail.v1.0.0", "1.0.0"),
        ("avail.v2.0.0", "2.0.0"),
        ("avail.v3.0.0", "3.0.0"),
    ] {
        a.push_str(&bundle("avail", n, v, PINNED, CSV_METADATA));
    }
    write("avail.yaml", a);
    dir
}

fn codes_at(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.contains("[FBC3"))
        .map(|l| {
            let at = l.split(": ").next().unwrap_or("");
            let file = at.split('/').next_back().unwrap_or("");
            let code = &l[l.find("[FBC").unwrap() + 1..][..6];
            let place: Vec<&str> = file.splitn(3, ':').collect();
            format!("{code} {}:{}", place[0], place[1])
        })
        .collect()
}

#[test]
fn without_a_profile_none_of_its_rules_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = profile_catalog(tmp.path());
    let (code, out, _) = run(&["validate", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(codes_at(&out).is_empty(), "{out}");
}

#[test]
fn the_community_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = profile_catalog(tmp.path());
    let (code, out, _) = run(&["validate", "--profile", "community", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        codes_at(&out),
        vec![
            "FBC306 avail.yaml:12",
            "FBC303 dangle.yaml:10",
            "FBC304 loop.yaml:10",
            "FBC305 loop.yaml:11",
            "FBC300 meta.yaml:21",
            "FBC305 pruned.yaml:14",
        ]
    );
    assert!(out.contains("error[FBC303]: channel stable has a dangling bundle dangle.v1.0.0: clusters running it get no upgrade, as the entries that link from it (dangle.v2.0.0) are all dropped by OLM v0 (skipped or stranded)\n  hint: link it from an entry OLM v0 keeps"), "{out}");
    assert!(out.contains("olm.bundle.object bundle properties are not permitted in a FBC fragment for OCP version 4.18"), "{out}");
    assert!(
        out.contains("warning[FBC305]: pruned.v2.0.0 has a skipRange but no replaces"),
        "{out}"
    );
    // The OCP version given overrides the directory's name: 4.16 allows bundle objects.
    let (_, out, _) = run(&[
        "validate",
        "--profile",
        "community",
        "--ocp",
        "4.16",
        dir.to_str().unwrap(),
    ]);
    assert!(!out.contains("FBC300"), "{out}");
    // An allow-list of registries.
    let (_, out, _) = run(&[
        "validate",
        "--profile",
        "community",
        "--allowed-registry",
        "registry.redhat.io",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("error[FBC302]: bundle meta.v1.0.0 has image quay.io/meta/b:v1.0.0, which is not from an allowed registry (registry.redhat.io)"), "{out}");
}

#[test]
fn the_konflux_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = profile_catalog(tmp.path());
    let (code, out, _) = run(&["validate", "--profile", "konflux", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        codes_at(&out),
        vec![
            "FBC301 meta.yaml:15",
            "FBC302 meta.yaml:15",
            "FBC300 meta.yaml:21"
        ]
    );
    assert!(out.contains("olm.bundle image references are not digest-pinned: bundle meta.v1.0.0 has image quay.io/meta/b:v1.0.0"), "{out}");
    assert!(
        out.contains("(registry.redhat.io, registry.stage.redhat.io)"),
        "{out}"
    );
    // Before 4.17 Konflux wants bundle objects and refuses csv metadata.
    let (_, out, _) = run(&[
        "validate",
        "--profile",
        "konflux",
        "--ocp",
        "v4.16",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("olm.csv.metadata bundle properties are not permitted in a FBC fragment for OCP version 4.16"), "{out}");
}

/// A SARIF log must satisfy the SARIF 2.1.0 schema (vendored in testdata).
fn check_sarif(text: &str) -> serde_json::Value {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sarif/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let log: serde_json::Value = serde_json::from_str(text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    log
}

#[test]
fn sarif_satisfies_its_schema_and_names_rules_and_places() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/validate/multiple-heads");
    let (code, out, _) = run(&["validate", "-o", "sarif", demo.to_str().unwrap()]);
    assert_eq!(code, 1);
    let log = check_sarif(&out);
    let run0 = &log["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "fbc-edit");
    let result = &run0["results"][0];
    assert_eq!(result["ruleId"], "FBC045");
    assert_eq!(result["level"], "error");
    let rule = &run0["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], "FBC045");
    assert!(
        rule["help"]["text"]
            .as_str()
            .unwrap()
            .contains("more than one head")
    );
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert!(region["startLine"].as_u64().unwrap() >= 1);
    assert!(region["startColumn"].as_u64().unwrap() >= 1);
    assert!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("catalog.yaml")
    );
    // And with the profiles' results, notes and related places.
    let tmp = tempfile::tempdir().unwrap();
    let dir = profile_catalog(tmp.path());
    let (_, out, _) = run(&[
        "validate",
        "-o",
        "sarif",
        "--profile",
        "community",
        "--profile",
        "konflux",
        dir.to_str().unwrap(),
    ]);
    let log = check_sarif(&out);
    assert!(log["runs"][0]["results"].as_array().unwrap().len() >= 8);
}

#[test]
fn github_annotations_parse_and_point_at_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = profile_catalog(tmp.path());
    let (code, out, _) = run(&[
        "validate",
        "-o",
        "github",
        "--profile",
        "community",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let re = regex::Regex::new(
        r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=(FBC\d{3})::(.+)$",
    )
    .unwrap();
    let mut seen = Vec::new();
    for line in out.lines() {
        let c = re.captures(line).unwrap_or_else(|| panic!("{line}"));
        assert!(Path::new(&c[2]).is_file(), "{}", &c[2]);
        assert!(!c[6].contains('\n'));
        seen.push(format!("{} {}", &c[1], &c[5]));
    }
    assert!(seen.contains(&"error FBC303".to_string()), "{out}");
    assert!(seen.contains(&"warning FBC305".to_string()), "{out}");
    assert!(out.contains("%0Ahint: "), "hints ride along: {out}");
}

#[test]
fn each_validates_every_subdirectory_as_its_own_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("catalogs");
    // The same package in two OCP versions: one catalog each, so no duplicates.
    for v in ["v4.17", "v4.18"] {
        let d = root.join(v);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("catalog.yaml"),
            format!(
                "---\nschema: olm.package\nname: p\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.v1.0.0\n{}",
                bundle("p", "p.v1.0.0", "1.0.0", PINNED, CSV_METADATA)
            ),
        )
        .unwrap();
    }
    let (code, out, _) = run(&["validate", root.to_str().unwrap()]);
    assert_eq!(
        code, 1,
        "as one catalog the package is defined twice: {out}"
    );
    assert!(out.contains("FBC013"), "{out}");
    let (code, out, _) = run(&["validate", "--each", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("/catalogs/v4.17:\nvalid: 0 errors"), "{out}");
    assert!(out.contains("/catalogs/v4.18:\nvalid: 0 errors"), "{out}");
    assert!(
        out.ends_with("2 catalogs: 0 errors, 0 warnings, 0 notes\n"),
        "{out}"
    );
    // Each is checked for its own OCP version.
    std::fs::write(
        root.join("v4.18/catalog.yaml"),
        std::fs::read_to_string(root.join("v4.18/catalog.yaml"))
            .unwrap()
            .replace(CSV_METADATA, "- type: olm.bundle.object\n  value:\n    data: eyJraW5kIjoiQ29uZmlnTWFwIiwibWV0YWRhdGEiOnsibmFtZSI6ImMifX0=\n"),
    )
    .unwrap();
    let (code, out, _) = run(&[
        "validate",
        "--each",
        "--profile",
        "community",
        "-o",
        "json",
        root.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap().to_string(),
            )
        })
        .filter(|(c, _)| c.starts_with("FBC3"))
        .collect();
    assert_eq!(codes.len(), 1, "{codes:?}");
    assert!(codes[0].1.ends_with("v4.18/catalog.yaml"), "{codes:?}");
}

#[test]
fn the_pre_commit_hooks_run_commands_that_exist() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    let hooks: Vec<serde_json::Value> = serde_yaml::from_str(&text).unwrap();
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["fbc-validate", "fbc-check-bundle"]);
    for h in &hooks {
        assert_eq!(h["language"], "rust");
        assert_eq!(h["pass_filenames"], false);
        let entry: Vec<&str> = h["entry"].as_str().unwrap().split(' ').collect();
        assert_eq!(entry[0], "fbc-edit");
        let (code, _, _) = run(&[entry[1], "--help"]);
        assert_eq!(code, 0, "{entry:?}");
        regex::Regex::new(h["files"].as_str().unwrap()).unwrap();
    }
}
