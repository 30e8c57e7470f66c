//! `fbc-edit repo check`: a whole repository of operators checked as its CI and `make catalogs`
//! see it.
//!
//! The data (testdata/real/…community-operators-prod__repo-check-slice, see testdata/real/SOURCES.md) is a
//! slice of community-operators-prod with six operators: trident-operator is clean; the others
//! each show one kind of drift found upstream.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use serde_json::Value;

const SLICE: &str = "redhat-openshift-ecosystem__community-operators-prod__repo-check-slice";

fn fbc() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c.env_remove("FBC_EDIT_LIMITS");
    c
}

/// The slice copied into a temporary directory, to change.
fn slice_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    crate::common::copy_dir(&crate::common::real(SLICE), &root);
    (tmp, root)
}

/// `repo check ROOT -o json`: the exit code and the report.
fn check_json(root: &Path, extra: &[&str]) -> (i32, Value) {
    let out = fbc()
        .args(["repo", "check", "-o", "json"])
        .arg(root)
        .args(extra)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// `(code, file, line)` of each problem of `operator`.
fn problems(report: &Value, operator: &str) -> Vec<(String, String, u64)> {
    let op = report["operators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == operator)
        .unwrap_or_else(|| panic!("{operator} is not in the report: {report:#}"));
    op["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_string(),
                p["file"].as_str().unwrap().to_string(),
                p["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn messages(report: &Value, operator: &str) -> String {
    report["operators"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["name"] == operator)
        .flat_map(|o| o["problems"].as_array().unwrap().clone())
        .map(|p| p["message"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn owned(list: &[(&str, &str, u64)]) -> Vec<(String, String, u64)> {
    list.iter()
        .map(|(c, f, l)| (c.to_string(), f.to_string(), *l))
        .collect()
}

/// Each kind of drift of the slice is found where it is, and nothing on the clean operator.
#[test]
fn the_slice_shows_each_kind_of_drift_and_nothing_on_clean_operators() {
    let (code, r) = check_json(&crate::common::real(SLICE), &[]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(problems(&r, "trident-operator"), [], "{r:#}");
    // Templates changed (bundles 0.5.1 and 0.6.0 added), catalogs not re-rendered.
    assert_eq!(
        problems(&r, "ecr-secret-operator"),
        owned(&[
            (
                "FBC411",
                "catalogs/v4.16/ecr-secret-operator/catalog.yaml",
                10
            ),
            (
                "FBC411",
                "catalogs/v4.17/ecr-secret-operator/catalog.yaml",
                10
            ),
        ])
    );
    assert!(
        messages(&r, "ecr-secret-operator").contains("ecr-secret-operator.v0.6.0"),
        "{r:#}"
    );
    // The mapping names "4.22", without v.
    assert_eq!(
        problems(&r, "rsct-operator"),
        owned(&[("FBC408", "operators/rsct-operator/ci.yaml", 6)])
    );
    // A catalog edited by hand (`properties: []`).
    assert_eq!(
        problems(&r, "kubebrowser"),
        owned(&[("FBC411", "catalogs/v4.19/kubebrowser/catalog.yaml", 5)])
    );
    // Mapped catalogs never generated.
    assert_eq!(
        problems(&r, "streamshub-console-operator"),
        owned(&[
            ("FBC409", "operators/streamshub-console-operator/ci.yaml", 8),
            ("FBC409", "operators/streamshub-console-operator/ci.yaml", 9),
        ])
    );
    // 1.18.3's release-config names `4.17.yaml`…`4.21.yaml`; the mapping has `v4.21.yaml`.
    let rabbit = problems(&r, "rabbitmq-messaging-topology-operator");
    let rc = "operators/rabbitmq-messaging-topology-operator/1.18.3/release-config.yaml";
    assert_eq!(
        rabbit,
        owned(&[
            ("FBC415", rc, 2),
            ("FBC415", rc, 6),
            ("FBC415", rc, 10),
            ("FBC415", rc, 14),
            ("FBC415", rc, 18),
        ])
    );
    assert!(messages(&r, "rabbitmq-messaging-topology-operator").contains("'4.17.yaml'"));
    assert_eq!(r["repository"], serde_json::json!([]));
    // Each problem holds exactly these keys.
    let first = &r["operators"][0]["problems"][0];
    let mut keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(keys, ["code", "file", "line", "message", "severity"]);
    assert_eq!(r["summary"]["fbc_operators"], 6);
    assert_eq!(r["summary"]["errors"], 11);
    assert_eq!(r["summary"]["by_code"]["FBC411"], 3);
}

/// The text output groups problems by operator, each as `file:line: severity[CODE]: message`.
#[test]
fn text_output_is_grouped_by_operator() {
    let root = crate::common::real(SLICE);
    let out = fbc()
        .current_dir(&root)
        .args(["repo", "check", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rsct-operator:\n  operators/rsct-operator/ci.yaml:6: error[FBC408]: catalog name '4.22' is not an OpenShift version"),
        "{text}"
    );
    assert!(text.contains("    hint: did you mean v4.22?"), "{text}");
    assert!(!text.contains("trident-operator"), "{text}");
    assert!(
        text.ends_with("6 operators (6 with fbc.enabled), 6 catalogs validated: 5 operators with problems; 11 errors, 0 warnings\n"),
        "{text}"
    );
}

/// SARIF and GitHub annotations carry the same problems, as `validate` writes them.
#[test]
fn sarif_and_github_outputs() {
    let root = crate::common::real(SLICE);
    let out = fbc()
        .current_dir(&root)
        .args(["repo", "check", ".", "-o", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 11, "{text}");
    assert!(
        text.contains("::error file=operators/rsct-operator/ci.yaml,line=6,col=1,title=FBC408::"),
        "{text}"
    );
    let out = fbc()
        .current_dir(&root)
        .args(["repo", "check", ".", "-o", "sarif"])
        .output()
        .unwrap();
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 11);
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let i = results[0]["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules[i]["id"], results[0]["ruleId"]);
}

#[test]
fn a_directory_without_operators_is_not_a_repository() {
    let tmp = tempfile::tempdir().unwrap();
    fbc()
        .args(["repo", "check"])
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a repository of operators"));
}

/// A clean operator alone: exit 0.
#[test]
fn a_clean_repository_exits_0() {
    let (_tmp, root) = slice_copy();
    for op in [
        "ecr-secret-operator",
        "rsct-operator",
        "kubebrowser",
        "streamshub-console-operator",
        "rabbitmq-messaging-topology-operator",
    ] {
        std::fs::remove_dir_all(root.join("operators").join(op)).unwrap();
        for c in ["v4.15", "v4.16", "v4.17", "v4.19", "v4.21", "v4.22"] {
            let _ = std::fs::remove_dir_all(root.join("catalogs").join(c).join(op));
        }
    }
    let (code, r) = check_json(&root, &[]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["summary"]["errors"], 0);
    assert_eq!(r["operators"][0]["name"], "trident-operator");
}

/// ci.yaml against the pipeline's schema and catalog rules, each problem at its line.
#[test]
fn ci_yaml_schema_and_mapping_rules() {
    let (_tmp, root) = slice_copy();
    let op = root.join("operators/trident-operator");
    std::fs::write(
        op.join("ci.yaml"),
        "---\nfbc:\n  enabled: true\n  promote: always\n  catalog_mapping:\n  - catalog_names:\n    - v4.21\n    template_name: v4.21.yaml\n    type: olm.semver\n  - catalog_names:\n    - v4.22\n    - v4.21\n    template_name: v4.22.yaml\n    type: olm.template.basic\n  - template_name: v4.23.yaml\n    type: olm.template.basic\n    catalog_names: [v4.23]\nreviewers: []\nreviewers: [a]\n",
    )
    .unwrap();
    std::fs::write(
        op.join("catalog-templates/unused.yaml"),
        "schema: olm.template.basic\nentries: []\n",
    )
    .unwrap();
    let (code, r) = check_json(&root, &[]);
    assert_eq!(code, 1);
    let ci = "operators/trident-operator/ci.yaml";
    assert_eq!(
        problems(&r, "trident-operator"),
        owned(&[
            (
                "FBC406",
                "operators/trident-operator/catalog-templates/unused.yaml",
                0
            ),
            ("FBC401", ci, 4),
            ("FBC407", ci, 9),
            ("FBC403", ci, 12),
            ("FBC405", ci, 15),
            ("FBC409", ci, 17),
            // The second `reviewers` is the one read: no complaint about the empty first one.
            ("FBC402", ci, 19),
        ]),
        "{r:#}"
    );
    let m = messages(&r, "trident-operator");
    assert!(
        m.contains("additional property 'promote' is not allowed"),
        "{m}"
    );
    assert!(
        m.contains("maps 'v4.21.yaml' as olm.semver, but its schema is olm.template.basic"),
        "{m}"
    );
}

/// Catalogs no mapping produces, problems opm finds in a catalog (given to the operator whose file
/// it is) and in a catalog as a whole (given to the repository).
#[test]
fn validation_problems_go_to_the_operator_whose_file_they_are_in() {
    let (_tmp, root) = slice_copy();
    let v21 = root.join("catalogs/v4.21/trident-operator/catalog.yaml");
    let text = std::fs::read_to_string(&v21).unwrap();
    let broken = text.replacen("defaultChannel: stable", "defaultChannel: nowhere", 1);
    assert_ne!(text, broken);
    std::fs::write(&v21, broken).unwrap();
    std::fs::create_dir_all(root.join("catalogs/v4.20/trident-operator")).unwrap();
    std::fs::write(
        root.join("catalogs/v4.20/trident-operator/catalog.yaml"),
        &text,
    )
    .unwrap();
    std::fs::write(root.join("catalogs/v4.22/stray.yaml"), "a: [\n").unwrap();
    let (code, r) = check_json(&root, &[]);
    assert_eq!(code, 1);
    let got = problems(&r, "trident-operator");
    let codes: Vec<(&str, &str)> = got
        .iter()
        .map(|(c, f, _)| (c.as_str(), f.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            ("FBC410", "catalogs/v4.20/trident-operator"),
            ("FBC031", "catalogs/v4.21/trident-operator/catalog.yaml"),
            ("FBC411", "catalogs/v4.21/trident-operator/catalog.yaml"),
        ],
        "{r:#}"
    );
    let repo = r["repository"].as_array().unwrap();
    assert_eq!(repo.len(), 1, "{r:#}");
    assert_eq!(repo[0]["code"], "FBC003");
    assert_eq!(repo[0]["file"], "catalogs/v4.22/stray.yaml");
}

/// release-config.yaml against the pipeline's schema and the release step's rules.
#[test]
fn release_config_rules() {
    let (_tmp, root) = slice_copy();
    // A version no template names: a directory holding only a release config is no bundle the
    // templates could be rendered from.
    let b = root.join("operators/trident-operator/99.0.0");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(
        b.join("release-config.yaml"),
        "catalog_templates:\n- template_name: v4.21.yaml\n  channels: [stable]\n  defaultChannel: fast\n- template_name: ../v4.22.yaml\n  channels: [stable]\nauto: true\n",
    )
    .unwrap();
    let ci = root.join("operators/trident-operator/ci.yaml");
    let text = std::fs::read_to_string(&ci).unwrap();
    let (code, r) = check_json(&root, &[]);
    assert_eq!(code, 1);
    let rc = "operators/trident-operator/99.0.0/release-config.yaml";
    assert_eq!(
        problems(&r, "trident-operator"),
        owned(&[("FBC416", rc, 4), ("FBC404", rc, 5), ("FBC414", rc, 7)]),
        "{r:#}"
    );
    // In an operator without fbc.enabled.
    std::fs::write(&ci, text.replace("enabled: true", "enabled: false")).unwrap();
    let (_, r) = check_json(&root, &[]);
    let codes: Vec<String> = problems(&r, "trident-operator")
        .into_iter()
        .map(|p| p.0)
        .collect();
    assert!(codes.contains(&"FBC418".to_string()), "{r:#}");
}

#[test]
fn semver_templates_take_only_archetype_channels() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let op = root.join("operators/op");
    std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
    std::fs::create_dir_all(op.join("1.0.0")).unwrap();
    std::fs::write(
        op.join("ci.yaml"),
        "fbc:\n  enabled: true\n  catalog_mapping:\n  - template_name: semver.yaml\n    type: olm.semver\n    catalog_names: [v4.18]\n",
    )
    .unwrap();
    std::fs::write(
        op.join("catalog-templates/semver.yaml"),
        "Schema: olm.semver\nStable:\n  Bundles: []\n",
    )
    .unwrap();
    std::fs::write(
        op.join("1.0.0/release-config.yaml"),
        "catalog_templates:\n- template_name: semver.yaml\n  channels: [Stable, stable]\n",
    )
    .unwrap();
    let (_, r) = check_json(root, &[]);
    let got = problems(&r, "op");
    assert!(
        got.contains(&(
            "FBC417".to_string(),
            "operators/op/1.0.0/release-config.yaml".to_string(),
            3
        )),
        "{r:#}"
    );
}

fn git(root: &Path, args: &[&str]) {
    let out = Process::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn bundle(root: &Path, version: &str) {
    write(
        root,
        &format!("operators/op/{version}/manifests/op.clusterserviceversion.yaml"),
        &format!("kind: ClusterServiceVersion\nmetadata:\n  name: op.v{version}\n"),
    );
    write(
        root,
        &format!("operators/op/{version}/metadata/annotations.yaml"),
        "annotations: {}\n",
    );
}

/// The codes of the pull-request rules (FBC42x) in a report, sorted.
fn pr_codes(r: &Value) -> Vec<String> {
    let mut out: Vec<String> = r["operators"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|o| o["problems"].as_array().unwrap().clone())
        .chain(r["repository"].as_array().unwrap().clone())
        .filter_map(|p| p["code"].as_str().map(str::to_string))
        .filter(|c| c.starts_with("FBC42"))
        .collect();
    out.sort();
    out
}

/// `--git BASE`: the pull-request rules for the changes from BASE to HEAD, in a repository built
/// here.
#[test]
fn pull_request_rules_for_the_changes_since_base() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "operators/op/ci.yaml", "fbc:\n  enabled: true\n");
    bundle(root, "1.0.0");
    write(
        root,
        "catalogs/v4.18/op/catalog.yaml",
        "---\nschema: olm.package\nname: op\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: op\nname: stable\nentries:\n- name: op.v1.0.0\n---\nschema: olm.bundle\nname: op.v1.0.0\npackage: op\nimage: quay.io/x/op:1.0.0\nproperties:\n- type: olm.package\n  value:\n    packageName: op\n    version: 1.0.0\n",
    );
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    git(root, &["tag", "base"]);

    // A clean change: one bundle added, nothing else.
    bundle(root, "2.0.0");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "add 2.0.0"]);
    let (_, r) = check_json(root, &["--git", "base"]);
    assert_eq!(pr_codes(&r), Vec::<String>::new(), "{r:#}");

    // Two bundles, a modified one, a catalog and a file outside operators/ and catalogs/.
    bundle(root, "3.0.0");
    write(
        root,
        "operators/op/1.0.0/manifests/op.clusterserviceversion.yaml",
        "kind: ClusterServiceVersion\nmetadata:\n  name: op.v1.0.0\n  labels: {}\n",
    );
    write(
        root,
        "catalogs/v4.18/op/catalog.yaml",
        "schema: olm.package\nname: op\n",
    );
    write(root, "README.md", "hello\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "everything at once"]);
    let (code, r) = check_json(root, &["--git", "base"]);
    assert_eq!(code, 1);
    assert_eq!(
        pr_codes(&r),
        ["FBC420", "FBC421", "FBC422", "FBC424"],
        "{r:#}"
    );
    let extra = r["repository"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "FBC424")
        .unwrap();
    assert!(extra["message"].as_str().unwrap().contains("README.md"));

    // Deleting a bundle a catalog still names, in an operator without fbc.enabled at BASE.
    git(root, &["reset", "-q", "--hard", "base"]);
    write(root, "operators/op/ci.yaml", "fbc:\n  enabled: false\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "no fbc"]);
    git(root, &["tag", "nofbc"]);
    git(root, &["rm", "-rq", "operators/op/1.0.0"]);
    git(root, &["commit", "-qm", "delete 1.0.0"]);
    let (_, r) = check_json(root, &["--git", "nofbc"]);
    assert_eq!(pr_codes(&r), ["FBC423", "FBC425"], "{r:#}");

    // An unknown revision is a usage error.
    fbc()
        .args(["repo", "check"])
        .arg(root)
        .args(["--git", "no-such-rev"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not a revision"));
}

/// The rules of src/repo/schema.rs accept and refuse the same files as the pipeline's JSON Schemas
/// (vendored in testdata/repo-schemas) do.
#[test]
fn the_schema_rules_agree_with_the_pipelines_json_schemas() {
    use fbc_core::repo::schema;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/repo-schemas");
    let load = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let cases: [(&str, &schema::Shape, &[&str]); 2] = [
        (
            "ci-schema.json",
            &schema::CI,
            &[
                "reviewers: [a]\n",
                "reviewers: []\n",
                "reviewers: [1]\n",
                "updateGraph: replaces-mode\n",
                "updateGraph: skips-mode\n",
                "merge: false\ncert_project_id: x\n",
                "merge: 'no'\n",
                "cert_project_id: 12\n",
                "anything: else\n",
                "fbc: {}\n",
                "fbc: []\n",
                "fbc: {enabled: true, extra: 1}\n",
                "fbc: {enabled: 'true'}\n",
                "fbc: {version_promotion_strategy: always}\n",
                "fbc: {version_promotion_strategy: sometimes}\n",
                "fbc: {catalog_mapping: []}\n",
                "fbc: {catalog_mapping: {}}\n",
                "fbc: {catalog_mapping: [x]}\n",
                "fbc: {catalog_mapping: [{template_name: a, type: olm.semver, catalog_names: [v4.1]}]}\n",
                "fbc: {catalog_mapping: [{template_name: a, type: olm.semver, catalog_names: [v4.1], extra: 1}]}\n",
                "fbc: {catalog_mapping: [{template_name: a, type: olm.semver}]}\n",
                "fbc: {catalog_mapping: [{template_name: a, catalog_names: [v4.1]}]}\n",
                "fbc: {catalog_mapping: [{type: olm.semver, catalog_names: [v4.1]}]}\n",
                "fbc: {catalog_mapping: [{template_name: a, type: olm.basic, catalog_names: [v4.1]}]}\n",
                "fbc: {catalog_mapping: [{template_name: a, type: olm.semver, catalog_names: []}]}\n",
                "fbc: {catalog_mapping: [{template_name: a, type: olm.semver, catalog_names: [v4.1, v4.1]}]}\n",
                "fbc: {catalog_mapping: [{template_name: a, type: olm.semver, catalog_names: [4.1]}]}\n",
                "fbc: {catalog_mapping: [{template_name: 3, type: olm.semver, catalog_names: [v4.1]}]}\n",
            ],
        ),
        (
            "release-config-schema.json",
            &schema::RELEASE_CONFIG,
            &[
                "catalog_templates: [{template_name: a, channels: [stable]}]\n",
                "catalog_templates: []\n",
                "merge: true\n",
                "catalog_templates: [{template_name: a, channels: [stable]}]\nmerge: 1\n",
                "catalog_templates: [{template_name: a, channels: [stable]}]\nother: 1\n",
                "catalog_templates: [{template_name: a, channels: [stable], other: 1}]\n",
                "catalog_templates: [{template_name: a, channels: []}]\n",
                "catalog_templates: [{template_name: a, channels: [s, s]}]\n",
                "catalog_templates: [{template_name: a}]\n",
                "catalog_templates: [{channels: [s]}]\n",
                "catalog_templates: [{template_name: a, channels: [s]}, {template_name: a, channels: [s]}]\n",
                "catalog_templates: [{template_name: a, channels: [s], defaultChannel: s, replaces: r, skipRange: '<1.0.0'}]\n",
                "catalog_templates: [{template_name: a, channels: [s], defaultChannel: [s]}]\n",
                "catalog_templates: [{template_name: a, channels: [s], skips: []}]\n",
                "catalog_templates: [{template_name: a, channels: [s], skips: [x, x]}]\n",
                "catalog_templates: [{template_name: a, channels: [s], skips: [x]}]\n",
                "catalog_templates: [{template_name: a, channels: [s], replaces: 1}]\n",
            ],
        ),
    ];
    for (file, shape, docs) in cases {
        let validator = jsonschema::validator_for(&load(file)).unwrap();
        for doc in docs {
            let value: Value = serde_yaml::from_str(doc).unwrap();
            let expected = validator.is_valid(&value);
            let tree =
                fbc_core::catalog::yaml::typed::parse::<serde::de::IgnoredAny>(doc, "f.yaml")
                    .unwrap()
                    .tree;
            let found = schema::check(&tree, shape);
            assert_eq!(
                found.is_empty(),
                expected,
                "{file}: {doc:?}: our rules say {found:?}"
            );
        }
    }
}

/// `--git BASE`: bundles added and deleted at once, and bundles of two operators.
#[test]
fn pull_request_rules_for_adding_and_deleting_and_several_operators() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "operators/op/ci.yaml", "fbc:\n  enabled: true\n");
    bundle(root, "1.0.0");
    write(root, "operators/other/ci.yaml", "fbc:\n  enabled: true\n");
    write(
        root,
        "operators/other/0.1.0/manifests/a.yaml",
        "kind: ConfigMap\n",
    );
    write(
        root,
        "operators/other/0.1.0/metadata/annotations.yaml",
        "annotations: {}\n",
    );
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    git(root, &["tag", "base"]);
    bundle(root, "2.0.0");
    git(root, &["rm", "-rq", "operators/op/1.0.0"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "replace 1.0.0 with 2.0.0"]);
    let (code, r) = check_json(root, &["--git", "base"]);
    assert_eq!(code, 1);
    assert_eq!(pr_codes(&r), ["FBC427"], "{r:#}");
    write(
        root,
        "operators/other/0.1.0/metadata/annotations.yaml",
        "annotations: {a: b}\n",
    );
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "and touch other"]);
    let (_, r) = check_json(root, &["--git", "base"]);
    assert_eq!(pr_codes(&r), ["FBC422", "FBC426", "FBC427"], "{r:#}");
}

/// Files that cannot be read: a ci.yaml, a release-config.yaml, a template whose bundle no catalog
/// holds.
#[test]
fn unreadable_files_and_templates_that_cannot_be_rendered() {
    let (_tmp, root) = slice_copy();
    std::fs::write(root.join("operators/trident-operator/ci.yaml"), "fbc: [\n").unwrap();
    let rc = root.join("operators/kubebrowser/0.0.2");
    std::fs::create_dir_all(&rc).unwrap();
    std::fs::write(rc.join("release-config.yaml"), "catalog_templates: {\n").unwrap();
    let t = root.join("operators/ecr-secret-operator/catalog-templates/deprecated.yaml");
    let text = std::fs::read_to_string(&t).unwrap();
    let changed = text.replacen("@sha256:90342c48", "@sha256:00342c48", 1);
    assert_ne!(text, changed);
    std::fs::write(&t, changed).unwrap();
    let (code, r) = check_json(&root, &[]);
    assert_eq!(code, 1);
    let codes = |op: &str| -> Vec<(String, String)> {
        problems(&r, op)
            .into_iter()
            .map(|(c, f, _)| (c, f))
            .collect()
    };
    assert_eq!(
        codes("trident-operator"),
        [(
            "FBC400".to_string(),
            "operators/trident-operator/ci.yaml".to_string()
        )],
        "{r:#}"
    );
    assert!(
        codes("kubebrowser").contains(&(
            "FBC413".to_string(),
            "operators/kubebrowser/0.0.2/release-config.yaml".to_string()
        )),
        "{r:#}"
    );
    assert!(
        codes("ecr-secret-operator").contains(&(
            "FBC412".to_string(),
            "operators/ecr-secret-operator/catalog-templates/deprecated.yaml".to_string()
        )),
        "{r:#}"
    );
    assert!(
        messages(&r, "ecr-secret-operator").contains("00342c48"),
        "{r:#}"
    );
}

/// A template whose catalogs are none of them on disk is still rendered: what stops it is
/// reported beside the missing catalogs.
#[test]
fn a_template_none_of_whose_catalogs_is_there_is_still_rendered() {
    let (_tmp, root) = slice_copy();
    let t = root.join("operators/ecr-secret-operator/catalog-templates/deprecated.yaml");
    let text = std::fs::read_to_string(&t).unwrap();
    let changed = text.replacen("@sha256:90342c48", "@sha256:00342c48", 1);
    assert_ne!(text, changed);
    std::fs::write(&t, changed).unwrap();
    std::fs::remove_file(root.join("catalogs/v4.15/ecr-secret-operator/catalog.yaml")).unwrap();
    let (code, r) = check_json(&root, &[]);
    assert_eq!(code, 1);
    let found = problems(&r, "ecr-secret-operator");
    for (code, file) in [
        ("FBC409", "operators/ecr-secret-operator/ci.yaml"),
        (
            "FBC412",
            "operators/ecr-secret-operator/catalog-templates/deprecated.yaml",
        ),
    ] {
        assert!(
            found.iter().any(|(c, f, _)| c == code && f == file),
            "{code} {file}: {r:#}"
        );
    }
    assert!(
        messages(&r, "ecr-secret-operator").contains("00342c48"),
        "{r:#}"
    );
}

/// A catalog the release pipeline wrote with its opm v1.71.0, in an operator whose Makefile pins
/// v1.46.0, is no drift of the templates: a warning that `make catalogs` would rewrite it.
#[test]
fn catalogs_the_pipelines_opm_wrote_under_an_older_pin_are_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    crate::common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/opm-versions/community-operators-prod"),
        &root,
    );
    let (code, r) = check_json(&root, &[]);
    assert_eq!(code, 1, "{r:#}");
    // Its catalogs are what the pinned v1.46.0 renders (it has validation errors of its own).
    let rendering = |r: &Value| -> Vec<String> {
        problems(r, "clusterpulse")
            .into_iter()
            .map(|(c, ..)| c)
            .filter(|c| c == "FBC411" || c == "FBC428")
            .collect()
    };
    assert_eq!(rendering(&r), Vec::<String>::new(), "{r:#}");
    // The catalogs as the pipeline's release step renders them.
    let out = fbc()
        .args(["template", "render-all", "--opm-version", "v1.71.0"])
        .arg(root.join("operators/clusterpulse"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, r) = check_json(&root, &[]);
    assert_eq!(rendering(&r), vec!["FBC428".to_string(); 6], "{r:#}");
    let op = r["operators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "clusterpulse")
        .unwrap();
    assert!(
        op["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["severity"] == "warning"
                && p["message"]
                    .as_str()
                    .unwrap()
                    .contains("the Makefile pins opm v1.46.0")),
        "{r:#}"
    );
    // Without a Makefile the pipeline's release is the one followed: a difference stays drift.
    assert!(
        problems(&r, "kubevirt-wol")
            .iter()
            .all(|(c, ..)| c == "FBC411"),
        "{r:#}"
    );
}
