//! `fbc-edit migrate`: the package-manifest directories in testdata/real report what SOURCES.md
//! says is wrong with them and migrate to catalogs that validate; broken packages are reported at
//! the file and line of each problem and never written.

use crate::common;
use common::real;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::catalog::emit::OutFormat;
use fbc_core::catalog::{Severity, load};
use fbc_core::migrate::{self, MigratedPackage, Migration, Options};
use serde_json::Value;

fn local_etcd() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/migrate/etcd")
}

const MULTICLUSTER: &str = "operator-framework__community-operators__community-operators-multicluster-operators-subscription";
const COMMUNITY_ETCD: &str =
    "operator-framework__community-operators__upstream-community-operators-etcd";
const REGISTRY_MANIFESTS: &str = "operator-framework__operator-registry__manifests";

fn run(dir: &Path) -> Migration {
    migrate::migrate(dir, &Options::default()).unwrap()
}

/// `CODE file:line` for every diagnostic.
fn found(m: &Migration) -> Vec<String> {
    m.diagnostics.iter().map(common::code_at).collect()
}

fn package<'m>(m: &'m Migration, name: &str) -> &'m MigratedPackage {
    m.packages
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no package {name}"))
}

fn blob<'p>(p: &'p MigratedPackage, schema: &str, name: &str) -> &'p Value {
    p.blobs
        .iter()
        .find(|b| b["schema"] == schema && b["name"] == name)
        .unwrap_or_else(|| panic!("no {schema} {name}"))
}

fn entry<'p>(p: &'p MigratedPackage, channel: &str, name: &str) -> &'p Value {
    blob(p, "olm.channel", channel)["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name} in {channel}"))
}

fn entry_names(p: &MigratedPackage, channel: &str) -> Vec<String> {
    p.channels
        .iter()
        .find(|c| c.name == channel)
        .unwrap_or_else(|| panic!("no channel {channel}"))
        .entries
        .clone()
}

/// Writes the migration into `<tmp>/catalog` and validates what was written with our loader and
/// validator. The directory lives as long as the returned guard.
fn assert_written_catalog_validates(m: &Migration) -> tempfile::TempDir {
    assert_eq!(m.errors(), 0, "{:#?}", m.diagnostics);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path();
    let files = m.write(&out.join("catalog")).unwrap();
    assert_eq!(files.len(), m.packages.len());
    let catalog = load(&out.join("catalog")).unwrap();
    let report = fbc_core::validate::validate(&catalog);
    let errors: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(report.count(Severity::Warning), m.output_warnings);
    for p in &m.packages {
        assert!(
            catalog.index().package(&p.name).is_some(),
            "package {} written",
            p.name
        );
    }
    tmp
}

/// Every package-manifest directory in testdata/real reports what SOURCES.md says about it.
#[test]
fn real_package_manifests_report_exactly_their_known_problems() {
    let cases: &[(&str, &[&str])] = &[
        (
            MULTICLUSTER,
            &[
                // SOURCES.md names nothing wrong with this package, and it passes every rule of
                // the format. One conversion warning remains: v0.1.1 is skipped by v0.1.3 and
                // v0.1.4, so OLM ignores its `replaces: v0.1.0`, and v0.1.0 cannot stay in a
                // channel (opm validate would call it stranded).
                "FBC241 0.1.0/multicluster-operators-subscription.v0.1.0.clusterserviceversion.yaml:71",
                "FBC242 ci.yaml",
            ],
        ),
        (COMMUNITY_ETCD, &["FBC242 ci.yaml"]),
        // "etcd 0.9.2 dir holds two CSV files".
        (REGISTRY_MANIFESTS, &["FBC238 etcd/0.9.2/"]),
    ];
    let mut checked = 0;
    for (name, want) in cases {
        let dir = real(name);
        let m = run(&dir);
        let mut got = found(&m);
        got.sort();
        assert_eq!(got, *want, "{name}");
        assert_eq!(m.errors(), 0, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn real_package_manifests_migrate_to_catalogs_that_validate() {
    for name in [MULTICLUSTER, COMMUNITY_ETCD, REGISTRY_MANIFESTS] {
        let dir = real(name);
        for format in [OutFormat::Json, OutFormat::Yaml] {
            let opts = Options {
                format,
                ..Options::default()
            };
            let m = migrate::migrate(&dir, &opts).unwrap();
            assert_written_catalog_validates(&m);
            // Deterministic: a second run gives the same bytes.
            let again = migrate::migrate(&dir, &opts).unwrap();
            for (a, b) in m.packages.iter().zip(&again.packages) {
                assert_eq!(a.text, b.text, "{name}");
            }
        }
    }
}

#[test]
fn community_etcd_channels_follow_current_csv_and_replaces() {
    let dir = real(COMMUNITY_ETCD);
    let m = run(&dir);
    let p = package(&m, "etcd");
    assert_eq!(p.default_channel, "singlenamespace-alpha");
    let heads: Vec<(&str, &str)> = p
        .channels
        .iter()
        .map(|c| (c.name.as_str(), c.head.as_str()))
        .collect();
    assert_eq!(
        heads,
        [
            ("alpha", "etcdoperator-community.v0.6.1"),
            ("singlenamespace-alpha", "etcdoperator.v0.9.4"),
            ("clusterwide-alpha", "etcdoperator.v0.9.4-clusterwide"),
        ]
    );
    // Oldest first, head last.
    assert_eq!(
        entry_names(p, "clusterwide-alpha"),
        [
            "etcdoperator.v0.9.0",
            "etcdoperator.v0.9.2-clusterwide",
            "etcdoperator.v0.9.4-clusterwide"
        ]
    );
    assert_eq!(
        entry(p, "singlenamespace-alpha", "etcdoperator.v0.9.4")["replaces"],
        "etcdoperator.v0.9.2"
    );
    assert_eq!(
        entry(p, "clusterwide-alpha", "etcdoperator.v0.9.2-clusterwide")["replaces"],
        "etcdoperator.v0.9.0"
    );
    assert!(
        entry(p, "singlenamespace-alpha", "etcdoperator.v0.9.0")
            .get("replaces")
            .is_none()
    );
    assert_eq!(p.bundles.len(), 6);
    // The package takes its icon and description from the default channel's head.
    let pkg = blob(p, "olm.package", "etcd");
    assert_eq!(pkg["icon"]["mediatype"], "image/png");
    assert!(
        pkg["icon"]["base64data"]
            .as_str()
            .unwrap()
            .starts_with("iVBORw0KGgo")
    );
    assert!(
        pkg["description"]
            .as_str()
            .unwrap()
            .starts_with("The etcd Operater creates and maintains highly-available etcd clusters")
    );
    // Each bundle carries its version directory's manifests.
    let b = blob(p, "olm.bundle", "etcdoperator.v0.9.2-clusterwide");
    assert_eq!(b["package"], "etcd");
    assert_eq!(b["image"], "");
    let objects = b["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "olm.bundle.object")
        .count();
    assert_eq!(objects, 4, "the CSV and three CRDs");
}

#[test]
fn multicluster_skips_and_skip_range_are_carried_over() {
    let dir = real(MULTICLUSTER);
    let m = run(&dir);
    let p = package(&m, "multicluster-operators-subscription");
    let name = |v: &str| format!("multicluster-operators-subscription.v{v}");
    assert_eq!(p.default_channel, "release-2.3");
    assert_eq!(p.channels.len(), 5);
    let e = entry(p, "alpha", &name("0.1.4"));
    assert_eq!(e["replaces"], name("0.1.3").as_str());
    assert_eq!(e["skips"], serde_json::json!([name("0.1.1")]));
    assert_eq!(entry(p, "alpha", &name("0.1.5"))["skipRange"], "<0.1.4");
    assert_eq!(
        entry(p, "release-2.3", &name("0.2.9"))["skipRange"],
        "<0.1.4"
    );
    assert_eq!(
        entry(p, "release-2.3", &name("0.2.3"))["replaces"],
        name("0.2.1").as_str()
    );
    // v0.1.0 sits below the skipped v0.1.1 in every channel: it is left out (FBC241), everything
    // else of the 18 versions is kept.
    assert_eq!(p.bundles.len(), 17);
    assert!(!p.bundles.contains(&name("0.1.0")));
    assert_eq!(entry_names(p, "alpha").first(), Some(&name("0.1.1")));
    assert_eq!(entry_names(p, "release-2.3").len(), 16);
    assert_eq!(
        entry_names(p, "release-2.0").last(),
        Some(&name("0.2.2")),
        "head last"
    );
}

#[test]
fn registry_manifests_two_csvs_in_one_directory_and_the_flat_layout() {
    let dir = real(REGISTRY_MANIFESTS);
    let m = run(&dir);
    let names: Vec<&str> = m.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["etcd", "prometheus", "strimzi-kafka-operator"]);

    // etcd/0.9.2 holds v0.9.0 and v0.9.2; both become bundles, so beta's head exists.
    let etcd = package(&m, "etcd");
    assert_eq!(
        etcd.bundles,
        [
            "etcdoperator.v0.6.1",
            "etcdoperator.v0.9.0",
            "etcdoperator.v0.9.2"
        ]
    );
    assert_eq!(
        entry_names(etcd, "beta"),
        ["etcdoperator.v0.6.1", "etcdoperator.v0.9.0"]
    );
    let head = entry(etcd, "alpha", "etcdoperator.v0.9.2");
    assert_eq!(head["skips"], serde_json::json!(["etcdoperator.v0.9.1"]));
    assert_eq!(head["skipRange"], "< 0.6.0");

    // No defaultChannel and one channel: that channel.
    assert_eq!(package(&m, "prometheus").default_channel, "preview");

    // Flat layout: each CSV gets the CRDs it owns; only v0.12.x own KafkaBridge.
    let strimzi = package(&m, "strimzi-kafka-operator");
    assert_eq!(strimzi.default_channel, "stable");
    let provides_bridge = |bundle: &str| {
        blob(strimzi, "olm.bundle", bundle)["properties"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["type"] == "olm.gvk" && p["value"]["kind"] == "KafkaBridge")
    };
    assert!(!provides_bridge("strimzi-cluster-operator.v0.11.1"));
    assert!(provides_bridge("strimzi-cluster-operator.v0.12.2"));
    assert_eq!(
        entry_names(strimzi, "alpha"),
        [
            "strimzi-cluster-operator.v0.11.0",
            "strimzi-cluster-operator.v0.11.1",
            "strimzi-cluster-operator.v0.12.1",
            "strimzi-cluster-operator.v0.12.2"
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// The local copy of the community etcd package, broken on purpose.

fn etcd_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&local_etcd(), tmp.path());
    tmp
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// The 1-based line of the first line containing `needle`.
fn line_of(path: &Path, needle: &str) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in {}", path.display()))
        + 1
}

const CSV_094: &str = "0.9.4/etcdoperator.v0.9.4.clusterserviceversion.yaml";
const CSV_090: &str = "0.9.0/etcdoperator.v0.9.0.clusterserviceversion.yaml";
const CSV_061: &str = "0.6.1/etcdoperator-community.v0.6.1.clusterserviceversion.yaml";

#[test]
fn local_etcd_migrates_without_anything_outside_the_repository() {
    let m = run(&local_etcd());
    assert_eq!(found(&m), ["FBC242 ci.yaml"]);
    let out = assert_written_catalog_validates(&m);
    assert!(out.path().join("catalog/etcd/catalog.json").is_file());
    let p = package(&m, "etcd");
    assert_eq!(p.bundles.len(), 6);
    assert_eq!(
        entry_names(p, "singlenamespace-alpha"),
        [
            "etcdoperator.v0.9.0",
            "etcdoperator.v0.9.2",
            "etcdoperator.v0.9.4"
        ]
    );
}

#[test]
fn each_broken_rule_is_reported_at_its_file_and_line() {
    type Break = fn(&Path) -> Vec<String>;
    let cases: &[(&str, Break)] = &[
        ("current CSV missing", |d| {
            let f = d.join("etcd.package.yaml");
            edit(
                &f,
                "currentCSV: etcdoperator.v0.9.4-clusterwide",
                "currentCSV: etcdoperator.v0.9.5-clusterwide",
            );
            let line = line_of(&f, "v0.9.5-clusterwide");
            vec![
                format!(
                    "FBC240 0.9.2-clusterwide/etcdoperator.v0.9.2-clusterwide.clusterserviceversion.yaml:{}",
                    line_of(
                        &d.join("0.9.2-clusterwide/etcdoperator.v0.9.2-clusterwide.clusterserviceversion.yaml"),
                        "name: etcdoperator.v0.9.2-clusterwide"
                    )
                ),
                format!(
                    "FBC240 0.9.4-clusterwide/etcdoperator.v0.9.4-clusterwide.clusterserviceversion.yaml:{}",
                    line_of(
                        &d.join("0.9.4-clusterwide/etcdoperator.v0.9.4-clusterwide.clusterserviceversion.yaml"),
                        "name: etcdoperator.v0.9.4-clusterwide"
                    )
                ),
                format!("FBC234 etcd.package.yaml:{line}"),
            ]
        }),
        ("replaced CSV missing", |d| {
            let f = d.join(CSV_094);
            edit(
                &f,
                "replaces: etcdoperator.v0.9.2",
                "replaces: etcdoperator.v0.9.3",
            );
            vec![
                format!(
                    "FBC235 {CSV_094}:{}",
                    line_of(&f, "replaces: etcdoperator.v0.9.3")
                ),
                // Only v0.9.4 led to v0.9.2.
                format!(
                    "FBC240 0.9.2/etcdoperator.v0.9.2.clusterserviceversion.yaml:{}",
                    line_of(
                        &d.join("0.9.2/etcdoperator.v0.9.2.clusterserviceversion.yaml"),
                        "name: etcdoperator.v0.9.2"
                    )
                ),
            ]
        }),
        ("owned CRD missing", |d| {
            std::fs::remove_file(d.join("0.9.0/etcdbackups.etcd.database.coreos.com.crd.yaml"))
                .unwrap();
            vec![format!(
                "FBC206 {CSV_090}:{}",
                line_of(
                    &d.join(CSV_090),
                    "name: etcdbackups.etcd.database.coreos.com"
                )
            )]
        }),
        ("two CSVs in one version directory, one left without", |d| {
            std::fs::rename(
                d.join(CSV_061),
                d.join("0.9.0/etcdoperator-community.v0.6.1.yaml"),
            )
            .unwrap();
            vec!["FBC237 0.6.1/".into(), "FBC238 0.9.0/".into()]
        }),
        ("default channel among no channels", |d| {
            let f = d.join("etcd.package.yaml");
            edit(
                &f,
                "defaultChannel: singlenamespace-alpha",
                "defaultChannel: stable",
            );
            vec![format!(
                "FBC233 etcd.package.yaml:{}",
                line_of(&f, "defaultChannel")
            )]
        }),
        ("replaces cycle", |d| {
            let f = d.join(CSV_090);
            edit(
                &f,
                "\nspec:\n",
                "\nspec:\n  replaces: etcdoperator.v0.9.4\n",
            );
            vec![format!(
                "FBC236 {CSV_090}:{}",
                line_of(&f, "replaces: etcdoperator.v0.9.4")
            )]
        }),
        ("malformed skipRange and skips", |d| {
            let f = d.join(CSV_094);
            edit(
                &f,
                "  annotations:\n",
                "  annotations:\n    olm.skipRange: '>=1.0 <'\n",
            );
            edit(&f, "\nspec:\n", "\nspec:\n  skips: ['']\n");
            vec![
                format!("FBC247 {CSV_094}:{}", line_of(&f, "olm.skipRange")),
                format!("FBC247 {CSV_094}:{}", line_of(&f, "skips: ['']")),
            ]
        }),
        ("unparseable manifest", |d| {
            let f = d.join("0.9.4/etcdrestores.etcd.database.coreos.com.crd.yaml");
            edit(&f, "kind: CustomResourceDefinition", "kind: a: b");
            let line = line_of(&f, "kind: a: b");
            // The CRD is gone from the bundle, so v0.9.4 misses an owned CRD as well.
            vec![
                format!(
                    "FBC206 {CSV_094}:{}",
                    line_of(
                        &d.join(CSV_094),
                        "name: etcdrestores.etcd.database.coreos.com"
                    )
                ),
                format!("FBC246 0.9.4/etcdrestores.etcd.database.coreos.com.crd.yaml:{line}"),
            ]
        }),
        ("package manifest missing", |d| {
            std::fs::remove_file(d.join("etcd.package.yaml")).unwrap();
            vec!["FBC230 ".into(), "FBC242 ci.yaml".into()]
        }),
        ("package manifest malformed", |d| {
            std::fs::write(
                d.join("etcd.package.yaml"),
                "packageName: Etcd\nchannels:\n- name: alpha\n  currentCSV: etcdoperator-community.v0.6.1\n- name: alpha\n  currentCSV: etcdoperator.v0.9.4\n- currentCSV: etcdoperator.v0.9.0\n- name: singlenamespace-alpha\n  currentCSV: etcdoperator.v0.9.4\n- name: clusterwide-alpha\n  currentCSV: etcdoperator.v0.9.4-clusterwide\ndefaultChannel: alpha\n",
            )
            .unwrap();
            vec![
                "FBC231 etcd.package.yaml:1".into(),
                "FBC231 etcd.package.yaml:5".into(),
                "FBC231 etcd.package.yaml:7".into(),
            ]
        }),
    ];
    for (what, break_it) in cases {
        let tmp = etcd_copy();
        let mut want = break_it(tmp.path());
        let m = run(tmp.path());
        let mut got: Vec<String> = found(&m)
            .into_iter()
            .filter(|d| d != "FBC242 ci.yaml" || want.iter().any(|w| w == d))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{what}: {:#?}", m.diagnostics);
        if m.errors() > 0 {
            let out = tmp.path().join("out");
            assert!(m.write(&out).is_err(), "{what}: never written");
            assert!(!out.exists(), "{what}");
        }
    }
}

#[test]
fn two_csvs_in_one_directory_become_two_bundles() {
    let tmp = etcd_copy();
    let d = tmp.path();
    std::fs::rename(
        d.join(CSV_061),
        d.join("0.9.0/etcdoperator-community.v0.6.1.yaml"),
    )
    .unwrap();
    std::fs::remove_dir_all(d.join("0.6.1")).unwrap();
    let m = run(d);
    assert_eq!(found(&m), ["FBC238 0.9.0/", "FBC242 ci.yaml"]);
    let p = package(&m, "etcd");
    assert_eq!(p.bundles.len(), 6);
    // v0.6.1 owns only the cluster CRD; v0.9.0 owns all three.
    let objects = |name: &str| {
        blob(p, "olm.bundle", name)["properties"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["type"] == "olm.bundle.object")
            .count()
    };
    assert_eq!(objects("etcdoperator-community.v0.6.1"), 2);
    assert_eq!(objects("etcdoperator.v0.9.0"), 4);
    assert_written_catalog_validates(&m);
}

#[test]
fn a_csv_below_a_skipped_one_leaves_that_channel_only() {
    let tmp = etcd_copy();
    let f = tmp.path().join(CSV_094);
    edit(
        &f,
        "replaces: etcdoperator.v0.9.2",
        "replaces: etcdoperator.v0.9.2\n  skips:\n  - etcdoperator.v0.9.2",
    );
    let m = run(tmp.path());
    let d = m
        .diagnostics
        .iter()
        .find(|d| d.code == "FBC241")
        .expect("stranded v0.9.0 reported");
    assert_eq!(
        d.location.file,
        "0.9.0/etcdoperator.v0.9.0.clusterserviceversion.yaml"
    );
    assert!(
        d.message.contains("channel singlenamespace-alpha")
            && d.message.contains("stays in clusterwide-alpha"),
        "{}",
        d.message
    );
    assert_eq!(d.related[0].file, CSV_094);
    let p = package(&m, "etcd");
    assert_eq!(
        entry_names(p, "singlenamespace-alpha"),
        ["etcdoperator.v0.9.2", "etcdoperator.v0.9.4"]
    );
    assert!(p.bundles.contains(&"etcdoperator.v0.9.0".to_string()));
    assert_written_catalog_validates(&m);
}

#[test]
fn a_csv_reached_only_through_skips_is_an_entry_without_edges() {
    let tmp = etcd_copy();
    edit(
        &tmp.path().join(CSV_090),
        "\nspec:\n",
        "\nspec:\n  skips:\n  - etcdoperator-community.v0.6.1\n",
    );
    let m = run(tmp.path());
    assert_eq!(found(&m), ["FBC242 ci.yaml"]);
    let p = package(&m, "etcd");
    assert_eq!(
        entry_names(p, "singlenamespace-alpha"),
        [
            "etcdoperator-community.v0.6.1",
            "etcdoperator.v0.9.0",
            "etcdoperator.v0.9.2",
            "etcdoperator.v0.9.4"
        ]
    );
    assert_eq!(
        *entry(p, "singlenamespace-alpha", "etcdoperator-community.v0.6.1"),
        serde_json::json!({"name": "etcdoperator-community.v0.6.1"})
    );
    assert_written_catalog_validates(&m);
}

#[test]
fn flat_layout_shares_crd_files_and_reports_unowned_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for f in std::fs::read_dir(local_etcd().join("0.9.2")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), d.join(f.file_name())).unwrap();
    }
    std::fs::copy(
        local_etcd().join(CSV_090),
        d.join("etcdoperator.v0.9.0.clusterserviceversion.yaml"),
    )
    .unwrap();
    std::fs::write(
        d.join("etcd.package.yaml"),
        "packageName: etcd\nchannels:\n- name: stable\n  currentCSV: etcdoperator.v0.9.2\n",
    )
    .unwrap();
    std::fs::write(
        d.join("widgets.crd.yaml"),
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n",
    )
    .unwrap();
    let m = run(d);
    assert_eq!(found(&m), ["FBC243 widgets.crd.yaml"]);
    let p = package(&m, "etcd");
    assert_eq!(p.default_channel, "stable");
    assert_eq!(
        entry_names(p, "stable"),
        ["etcdoperator.v0.9.0", "etcdoperator.v0.9.2"]
    );
    for b in &p.bundles {
        let props = blob(p, "olm.bundle", b)["properties"].as_array().unwrap();
        let objects = props
            .iter()
            .filter(|p| p["type"] == "olm.bundle.object")
            .count();
        assert_eq!(objects, 4, "{b}: the CSV and the three CRDs it owns");
        assert!(!props.iter().any(|p| p["value"]["kind"] == "Widget"), "{b}");
    }
    assert_written_catalog_validates(&m);
}

#[test]
fn a_directory_of_packages_with_the_same_name_twice() {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&local_etcd(), &tmp.path().join("a"));
    common::copy_dir(&local_etcd(), &tmp.path().join("b"));
    std::fs::write(tmp.path().join("README.md"), "notes\n").unwrap();
    let m = run(tmp.path());
    let line = line_of(&tmp.path().join("b/etcd.package.yaml"), "packageName");
    assert_eq!(
        found(&m),
        [
            "FBC242 README.md".to_string(),
            "FBC242 a/ci.yaml".into(),
            "FBC242 b/ci.yaml".into(),
            format!("FBC232 b/etcd.package.yaml:{line}"),
        ]
    );
    assert_eq!(m.diagnostics[3].related[0].file, "a/etcd.package.yaml");
    assert!(m.packages.iter().all(|p| p.name == "etcd"));
}

#[test]
fn image_template_and_csv_metadata() {
    let opts = Options {
        image_template: Some("quay.io/example/{package}-bundle:v{version}".into()),
        csv_metadata: true,
        format: OutFormat::Yaml,
    };
    let m = migrate::migrate(&local_etcd(), &opts).unwrap();
    let p = package(&m, "etcd");
    let b = blob(p, "olm.bundle", "etcdoperator.v0.9.4-clusterwide");
    assert_eq!(b["image"], "quay.io/example/etcd-bundle:v0.9.4-clusterwide");
    let types: Vec<&str> = b["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.last(), Some(&"olm.csv.metadata"));
    assert!(!types.contains(&"olm.bundle.object"));
    let out = assert_written_catalog_validates(&m);
    assert!(out.path().join("catalog/etcd/catalog.yaml").is_file());

    // Without an image a bundle needs its objects, so --csv-metadata alone is refused.
    let alone = Options {
        csv_metadata: true,
        ..Options::default()
    };
    assert!(matches!(
        migrate::migrate(&local_etcd(), &alone),
        Err(migrate::MigrateError::Usage(_))
    ));
    let unknown = Options {
        image_template: Some("quay.io/{org}/{package}".into()),
        ..Options::default()
    };
    assert!(matches!(
        migrate::migrate(&local_etcd(), &unknown),
        Err(migrate::MigrateError::Usage(_))
    ));
    // A template that gives an invalid reference for the data is a problem of each bundle.
    let upper = Options {
        image_template: Some("quay.io/Example/{name}".into()),
        ..Options::default()
    };
    let m = migrate::migrate(&local_etcd(), &upper).unwrap();
    assert_eq!(
        m.diagnostics.iter().filter(|d| d.code == "FBC248").count(),
        6
    );
}

#[test]
fn bad_input_is_reported_never_panics() {
    let files: &[(&str, &[u8])] = &[
        ("p.package.yaml", b"packageName: [a]\nchannels: 5\n"),
        ("q.package.yaml", b"packageName: q\nchannels:\n- 3\n- name: a\n"),
        ("1/csv.yaml", b"kind: ClusterServiceVersion\nmetadata: []\nspec: 3\n"),
        ("2/csv.yaml", b"kind: ClusterServiceVersion\nmetadata:\n  name: x\nspec:\n  replaces: {a: 1}\n  skips: 7\n"),
        ("2/binary.yaml", &[0xff, 0xfe, 0x00, 0x01]),
        ("3/empty.yaml", b""),
        ("4/list.json", b"[1, 2"),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        let p = tmp.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let m = run(tmp.path());
    assert!(m.errors() >= 6, "{:#?}", m.diagnostics);
    for code in ["FBC231", "FBC247", "FBC246", "FBC234"] {
        assert!(
            m.diagnostics.iter().any(|d| d.code == code),
            "{code}: {:#?}",
            m.diagnostics
        );
    }
    assert!(
        m.diagnostics
            .iter()
            .all(|d| !d.location.file.is_empty() || d.code == "FBC230")
    );
}

// ---------------------------------------------------------------------------------------------
// The command line.

fn bin() -> Command {
    Command::cargo_bin("fbc-edit").unwrap()
}

#[test]
fn cli_writes_each_package_and_refuses_a_non_empty_output() {
    let tmp = etcd_copy();
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("catalog");
    let assert = bin()
        .arg("migrate")
        .arg(tmp.path())
        .arg(&target)
        .assert()
        .code(0);
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("etcd: default channel singlenamespace-alpha"),
        "{stdout}"
    );
    assert!(target.join("etcd/catalog.json").is_file());
    let written = std::fs::read_to_string(target.join("etcd/catalog.json")).unwrap();
    assert_eq!(written, run(tmp.path()).packages[0].text);

    // Again into the same, now non-empty, directory.
    let assert = bin()
        .arg("migrate")
        .arg(tmp.path())
        .arg(&target)
        .assert()
        .code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains(&format!(
            "output dir \"{}\" must be empty",
            target.display()
        )),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(target.join("etcd/catalog.json")).unwrap(),
        written
    );

    // YAML, into an existing empty directory.
    let empty = out.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    bin()
        .args(["migrate", "-o", "yaml"])
        .arg(tmp.path())
        .arg(&empty)
        .assert()
        .code(0);
    let entries: Vec<_> = std::fs::read_dir(&empty).unwrap().collect();
    assert_eq!(entries.len(), 1, "no staging directory left behind");
    assert!(
        std::fs::read_to_string(empty.join("etcd/catalog.yaml"))
            .unwrap()
            .starts_with("---\ndefaultChannel: singlenamespace-alpha\n")
    );
}

#[test]
fn cli_exit_codes_and_report() {
    let tmp = etcd_copy();
    edit(
        &tmp.path().join("etcd.package.yaml"),
        "currentCSV: etcdoperator.v0.9.4\n",
        "currentCSV: etcdoperator.v9\n",
    );
    edit(
        &tmp.path()
            .join("0.9.4-clusterwide/etcdoperator.v0.9.4-clusterwide.clusterserviceversion.yaml"),
        "replaces: etcdoperator.v0.9.2-clusterwide",
        "replaces: etcdoperator.v0.9.3-clusterwide",
    );
    let out = tmp.path().join("out");
    let assert = bin()
        .current_dir(tmp.path())
        .args(["migrate", ".", "out", "--quiet"])
        .assert()
        .code(1);
    assert!(!out.exists(), "nothing written");
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    insta::assert_snapshot!("broken_etcd_report", stdout);

    // --check reports and writes nothing.
    bin()
        .current_dir(tmp.path())
        .args(["migrate", "--check", "."])
        .assert()
        .code(1);
    let good = etcd_copy();
    let assert = bin()
        .arg("migrate")
        .arg("--check")
        .arg(good.path())
        .arg(good.path().join("out"))
        .assert()
        .code(0);
    assert!(!good.path().join("out").exists());
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("nothing written (--check)"), "{stdout}");

    // JSON report.
    let assert = bin()
        .args(["migrate", "--check", "--report", "json"])
        .arg(good.path())
        .assert()
        .code(0);
    let v: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(
        v["packages"][0]["channels"][0]["head"],
        "etcdoperator-community.v0.6.1"
    );
    assert_eq!(v["diagnostics"][0]["code"], "FBC242");

    // Not a directory, not a package-manifest directory, missing OUT_DIR, bad template.
    bin()
        .args(["migrate", "/nonexistent/fbc-edit", "out"])
        .assert()
        .code(2);
    let plain = tempfile::tempdir().unwrap();
    std::fs::write(plain.path().join("notes.txt"), "x").unwrap();
    bin()
        .arg("migrate")
        .arg(plain.path())
        .arg(plain.path().join("out"))
        .assert()
        .code(2);
    bin().arg("migrate").arg(good.path()).assert().code(2);
    bin()
        .args(["migrate", "--check", "--image-template", "{nope}"])
        .arg(good.path())
        .assert()
        .code(2);
}

/// What opm's package-manifest loader let through is let through here too: the `replaces` of a CSV
/// no channel follows is never read, a single channel is the default whatever `defaultChannel`
/// says, and icon data with unused trailing bits decodes (Go's base64 is not strict about them).
#[test]
fn what_opm_loaded_still_migrates() {
    // A CSV in no channel that replaces a CSV that does not exist.
    let tmp = etcd_copy();
    edit(
        &tmp.path().join("etcd.package.yaml"),
        "- currentCSV: etcdoperator-community.v0.6.1\n  name: alpha\n",
        "",
    );
    edit(
        &tmp.path().join(CSV_061),
        "\nspec:\n",
        "\nspec:\n  replaces: etcdoperator.v0.5.0\n",
    );
    let m = run(tmp.path());
    let codes = found(&m);
    assert!(codes.iter().all(|c| !c.starts_with("FBC235")), "{codes:?}");
    assert!(
        codes.iter().any(|c| c.starts_with("FBC240 0.6.1/")),
        "the CSV is reported as in no channel: {codes:?}"
    );
    assert_written_catalog_validates(&m);

    // One channel, and a defaultChannel naming another.
    let tmp = etcd_copy();
    std::fs::write(
        tmp.path().join("etcd.package.yaml"),
        "channels:\n- currentCSV: etcdoperator.v0.9.4\n  name: singlenamespace-alpha\ndefaultChannel: stabel\npackageName: etcd\n",
    )
    .unwrap();
    let m = run(tmp.path());
    assert!(
        found(&m).contains(&"FBC249 etcd.package.yaml:4".to_string()),
        "{:?}",
        found(&m)
    );
    let p = package(&m, "etcd");
    assert_eq!(
        blob(p, "olm.package", "etcd")["defaultChannel"],
        "singlenamespace-alpha"
    );
    assert_written_catalog_validates(&m);

    // Icon data whose last character carries unused bits.
    let tmp = etcd_copy();
    let csv = tmp
        .path()
        .join("0.9.4/etcdoperator.v0.9.4.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&csv).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("- base64data:") {
                "  - base64data: aGVsbG9=".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&csv, text + "\n").unwrap();
    let m = run(tmp.path());
    assert!(
        found(&m).iter().all(|c| !c.starts_with("FBC245")),
        "{:?}",
        found(&m)
    );
    let p = package(&m, "etcd");
    assert_eq!(
        blob(p, "olm.package", "etcd")["icon"]["base64data"],
        "aGVsbG8="
    );
}
