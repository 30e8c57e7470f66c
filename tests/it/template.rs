//! Templates over real data: every template in the real test data is read; those whose bundle
//! images a rendered catalog holds are rendered and compared with that catalog, which opm rendered
//! from them.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fbc_core::catalog::emit::{OutFormat, write_fbc};
use fbc_core::template::{self, BundleDirSource, BundleSource, CatalogSource, Sources, schemas};
use serde_json::Value;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/real")
}

fn community_templates() -> PathBuf {
    testdata().join("redhat-openshift-ecosystem__community-operators-prod__catalog-templates")
}

/// The community catalog for OpenShift 4.20, loaded once.
fn v4_20() -> &'static CatalogSource {
    static C: OnceLock<CatalogSource> = OnceLock::new();
    C.get_or_init(|| {
        CatalogSource::load(
            &testdata()
                .join("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20"),
        )
        .unwrap()
    })
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn read(path: &Path) -> template::Template {
    template::read(path)
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The blobs of `packages` in a catalog, as JSON.
fn catalog_blobs(source: &CatalogSource, packages: &[String]) -> Vec<Value> {
    let c = source.catalog();
    let mut out = Vec::new();
    for p in packages {
        let Some(pi) = c.index().package(p) else {
            continue;
        };
        for &id in pi
            .packages
            .iter()
            .chain(&pi.channels)
            .chain(&pi.bundles)
            .chain(&pi.others)
            .chain(&pi.deprecations)
        {
            out.push(c.to_json(&c.blob(id).value).unwrap());
        }
    }
    out
}

fn packages_of(blobs: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = blobs
        .iter()
        .filter_map(|b| {
            let key = if b["schema"] == "olm.package" {
                "name"
            } else {
                "package"
            };
            b[key].as_str().map(String::from)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Ours and theirs as opm writes them (the writer orders blobs, so order does not matter).
fn as_written(blobs: &[Value]) -> String {
    write_fbc(blobs, OutFormat::Json)
}

fn by_schema_and_name(blobs: &[Value]) -> BTreeMap<(String, String), Value> {
    blobs
        .iter()
        .map(|b| {
            (
                (
                    b["schema"].as_str().unwrap_or("").to_string(),
                    b["name"].as_str().unwrap_or("").to_string(),
                ),
                b.clone(),
            )
        })
        .collect()
}

#[test]
fn every_template_in_the_real_test_data_is_read() {
    let mut files = Vec::new();
    files_under(&testdata(), &mut files);
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Some(schema) = template::template_schema(&text) else {
            continue;
        };
        *count.entry(schema).or_default() += 1;
        let result = template::parse(&f.display().to_string(), &text);
        match schema {
            schemas::BASIC | schemas::SEMVER => {
                let t = result.unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(t.schema(), schema);
            }
            // Composite templates were removed from opm; they are refused with that reason.
            _ => {
                let e = result.unwrap_err().to_string();
                assert!(e.contains("removed from opm in v1.44.0"), "{e}");
            }
        }
    }
    assert_eq!(
        count,
        // 151 basic templates: 8 of them in the repository slice `repo check` is tested on.
        BTreeMap::from([
            (schemas::BASIC, 151),
            (schemas::SEMVER, 12),
            (schemas::COMPOSITE, 1),
            (schemas::COMPOSITE_CATALOGS, 1),
        ])
    );
}

/// Templates whose rendering equals, blob for blob, the package in the 4.20 catalog (some
/// packages' templates for other OpenShift versions list the same bundles, so they match too), of
/// the packages in the slice of that catalog in testdata/real.
const SAME_AS_V4_20: &[&str] = &[
    "alloydb-omni-operator/basic.yaml",
    "apicurio-registry-3/v4.12.yaml",
    "apicurio-registry-3/v4.13.yaml",
    "apicurio-registry-3/v4.14.yaml",
    "apicurio-registry-3/v4.15.yaml",
    "apicurio-registry-3/v4.16.yaml",
    "apicurio-registry-3/v4.17.yaml",
    "apicurio-registry-3/v4.18.yaml",
    "apicurio-registry-3/v4.19.yaml",
    "apicurio-registry-3/v4.20.yaml",
    "apicurio-registry-3/v4.21.yaml",
    "aws-neuron-operator/v4.19.yaml",
    "aws-neuron-operator/v4.20.yaml",
    "aws-neuron-operator/v4.21.yaml",
    "aws-neuron-operator/v4.22.yaml",
    "cat-facts-operator/basic.yaml",
    "coherence-operator/basic.yaml",
    "dotvirt-operator/semver.yaml",
    "jumpstarter-operator/basic.yaml",
    "kairos-operator/semver.yaml",
    "kepler-operator/basic-template.yaml",
    "konflux/semver.yaml",
    "kube-green/basic-template.yaml",
    "layer7-operator/v4.16.yaml",
    "layer7-operator/v4.17.yaml",
    "layer7-operator/v4.18.yaml",
    "layer7-operator/v4.19.yaml",
    "libredb-studio-operator/basic.yaml",
    "multi-nic-cni-operator/v4.12.yaml",
    "multi-nic-cni-operator/v4.13.yaml",
    "multi-nic-cni-operator/v4.14.yaml",
    "multi-nic-cni-operator/v4.15.yaml",
    "multi-nic-cni-operator/v4.16.yaml",
    "multi-nic-cni-operator/v4.17.yaml",
    "multi-nic-cni-operator/v4.18.yaml",
    "multi-nic-cni-operator/v4.19.yaml",
    "multi-nic-cni-operator/v4.20.yaml",
    "multicluster-global-hub-operator/v4.20.yaml",
    "nfs-provisioner-operator/basic-template.yaml",
    "project-onboarding-operator/basic.yaml",
    "rabbitmq-cluster-operator/v4.19.yaml",
    "rabbitmq-cluster-operator/v4.20.yaml",
    "rabbitmq-messaging-topology-operator/v4.17.yaml",
    "rabbitmq-messaging-topology-operator/v4.18.yaml",
    "rabbitmq-messaging-topology-operator/v4.19.yaml",
    "rabbitmq-messaging-topology-operator/v4.20.yaml",
    "rabbitmq-messaging-topology-operator/v4.21.yaml",
    "rsct-operator/rsct-fbc-template.yaml",
    "slurm-operator/basic.yaml",
    "trident-operator/v4.14.yaml",
    "trident-operator/v4.15.yaml",
    "trident-operator/v4.16.yaml",
    "trident-operator/v4.17.yaml",
    "trident-operator/v4.18.yaml",
    "trident-operator/v4.19.yaml",
    "trident-operator/v4.20.yaml",
    "visionone-containersecurity/basic.yaml",
];

fn community(rel: &str) -> PathBuf {
    let (pkg, file) = rel.split_once('/').unwrap();
    community_templates()
        .join(pkg)
        .join("catalog-templates")
        .join(file)
}

#[test]
fn community_templates_render_as_the_v4_20_catalog_holds_them() {
    let source = v4_20();
    for rel in SAME_AS_V4_20 {
        let t = read(&community(rel));
        let r = t
            .render(source, fbc_core::template::OpmVersion::DEFAULT)
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let theirs = catalog_blobs(source, &packages_of(&r.blobs));
        assert!(!theirs.is_empty(), "{rel}");
        let (ours, theirs) = (as_written(&r.blobs), as_written(&theirs));
        assert!(
            ours == theirs,
            "{rel} differs from the catalog:\n{}",
            first_difference(&ours, &theirs)
        );
        if t.schema() == schemas::SEMVER {
            // The catalog's bundles carry olm.csv.metadata, which has no icon: the icon comes from
            // the catalog's own package, and a note says so.
            assert_eq!(r.notes.len(), 1, "{rel}: {:?}", r.notes);
            assert!(r.notes[0].contains("the package icon is the one recorded at"));
        } else {
            assert!(r.notes.is_empty(), "{rel}: {:?}", r.notes);
        }
    }
}

fn first_difference(a: &str, b: &str) -> String {
    a.lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| format!("line {}:\n  ours:   {x}\n  theirs: {y}", i + 1))
        .unwrap_or_else(|| "one is a prefix of the other".into())
}

#[test]
fn other_community_templates_render_or_name_each_missing_image() {
    let source = v4_20();
    let mut rendered = 0;
    let mut unresolved = 0;
    let mut files = Vec::new();
    files_under(&community_templates(), &mut files);
    for f in files {
        let t = read(&f);
        match t.render(source, fbc_core::template::OpmVersion::DEFAULT) {
            Ok(_) => rendered += 1,
            Err(e) => {
                unresolved += 1;
                for p in &e.problems {
                    let image = p
                        .message
                        .strip_prefix("cannot resolve bundle image \"")
                        .and_then(|m| m.split('"').next())
                        .unwrap_or_else(|| panic!("{}: {e}", f.display()));
                    assert!(source.bundle_for_image(image).is_none(), "{image}");
                    assert!(p.line > 0, "{e}");
                }
            }
        }
    }
    // testdata/real holds a slice of the 4.20 catalog without the nine largest packages (see its
    // SOURCES.md): their 29 templates name images the slice lacks (24 of them render from the
    // whole catalog, giving 99 and 28).
    assert_eq!((rendered, unresolved), (75, 52));
}

/// Channels as `name: entry>replaces~skip,skip ...`, bundle names shortened to their version.
fn channel_summary(blobs: &[Value]) -> String {
    let short = |s: &str| s.rsplit_once(".v").map_or(s, |x| x.1).to_string();
    let mut out = String::new();
    for b in blobs.iter().filter(|b| b["schema"] == "olm.channel") {
        out.push_str(b["name"].as_str().unwrap());
        out.push(':');
        for e in b["entries"].as_array().unwrap() {
            out.push(' ');
            out.push_str(&short(e["name"].as_str().unwrap()));
            if let Some(r) = e["replaces"].as_str() {
                out.push('>');
                out.push_str(&short(r));
            }
            if let Some(s) = e["skips"].as_array() {
                let s: Vec<String> = s.iter().map(|x| short(x.as_str().unwrap())).collect();
                out.push('~');
                out.push_str(&s.join(","));
            }
        }
        out.push('\n');
    }
    out
}

/// The generated channels and default channel of every semver template that renders, for review.
#[test]
fn semver_channels_snapshot() {
    let mut out = String::new();
    let mut render = |name: &str, t: template::Template, source: &dyn BundleSource| {
        let r = t
            .render(source, fbc_core::template::OpmVersion::DEFAULT)
            .unwrap();
        let pkg = r
            .blobs
            .iter()
            .find(|b| b["schema"] == "olm.package")
            .unwrap();
        out.push_str(&format!(
            "## {name}\ndefault channel: {}\n{}\n",
            pkg["defaultChannel"].as_str().unwrap(),
            channel_summary(&r.blobs)
        ));
    };
    for pkg in [
        "clusterpulse",
        "dotvirt-operator",
        "kairos-operator",
        "konflux",
        "kubevirt-wol",
        "openshift-integration-operator",
    ] {
        render(
            pkg,
            read(&community(&format!("{pkg}/semver.yaml"))),
            v4_20(),
        );
    }
    for op in [
        "hive-metastore-operator",
        "spark-k8s-operator",
        "trino-operator",
    ] {
        let dir = testdata()
            .join("zncdatadev__kubedoop-catalog__composite-semver-templates")
            .join(op);
        render(
            op,
            read(&dir.join("semver.yaml")),
            &CatalogSource::load(&dir).unwrap(),
        );
    }
    insta::assert_snapshot!("semver_channels", out);
}

/// The catalog was rendered by an opm between v1.37 and v1.56, whose channel-scoped linker also
/// made each minor version's head skip the entry it replaces, and before v1.65, which added the
/// package description. The rendering follows the current linker (v1.61+) and adds the description.
#[test]
fn clusterpulse_catalog_comes_from_an_older_linker() {
    let source = v4_20();
    let r = read(&community("clusterpulse/semver.yaml"))
        .render(source, fbc_core::template::OpmVersion::DEFAULT)
        .unwrap();
    let ours = by_schema_and_name(&r.blobs);
    let theirs = by_schema_and_name(&catalog_blobs(source, &["clusterpulse".into()]));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>()
    );
    for (key, b) in &ours {
        if key.0 == "olm.bundle" {
            assert_eq!(
                as_written(std::slice::from_ref(b)),
                as_written(std::slice::from_ref(&theirs[key]))
            );
        }
    }
    assert_eq!(
        channel_summary(&r.blobs),
        "fast-v0: 0.1.1 0.2.0 0.2.1 0.2.2 0.2.3>0.1.1~0.2.0,0.2.1,0.2.2 0.3.0>0.2.3~0.1.1,0.2.0,0.2.1,0.2.2\nfast-v1: 1.0.0 1.0.1 1.0.2~1.0.0,1.0.1\n"
    );
    let theirs_channels: Vec<Value> = theirs.values().cloned().collect();
    assert_eq!(
        channel_summary(&theirs_channels),
        "fast-v0: 0.1.1 0.2.0 0.2.1 0.2.2 0.2.3>0.1.1~0.1.1,0.2.0,0.2.1,0.2.2 0.3.0>0.2.3~0.2.3\nfast-v1: 1.0.0 1.0.1 1.0.2~1.0.0,1.0.1\n"
    );
    // Rendered as v1.46.0, the release its Makefile pins, it is the committed catalog.
    let old = read(&community("clusterpulse/semver.yaml"))
        .render(source, fbc_core::template::OpmVersion::V1_46_0)
        .unwrap();
    assert_eq!(
        as_written(
            &by_schema_and_name(&old.blobs)
                .into_values()
                .collect::<Vec<_>>()
        ),
        as_written(&theirs.values().cloned().collect::<Vec<_>>())
    );
    let pkg = &ours[&("olm.package".to_string(), "clusterpulse".to_string())];
    assert!(pkg.get("description").is_some());
    assert!(
        theirs[&("olm.package".to_string(), "clusterpulse".to_string())]
            .get("description")
            .is_none()
    );
}

/// Removes the package description (absent from catalogs rendered by opm before v1.65).
fn without_description(mut blobs: Vec<Value>) -> Vec<Value> {
    for b in &mut blobs {
        if b["schema"] == "olm.package"
            && let Some(m) = b.as_object_mut()
        {
            m.remove("description");
        }
    }
    blobs
}

/// kubevirt-wol's catalog was rendered before opm v1.65: no package description; the rest is equal.
#[test]
fn kubevirt_wol_differs_only_by_the_description() {
    let source = v4_20();
    let r = read(&community("kubevirt-wol/semver.yaml"))
        .render(source, fbc_core::template::OpmVersion::DEFAULT)
        .unwrap();
    let theirs = catalog_blobs(source, &["kubevirt-wol".into()]);
    let desc = r.blobs[0]["description"].as_str().unwrap();
    assert!(desc.starts_with("A Kubernetes Operator that enables Wake-on-LAN"));
    assert_eq!(
        as_written(&without_description(r.blobs.clone())),
        as_written(&theirs)
    );
    // Rendered as v1.61.0 (edge-scoped linking, no description yet), it is the committed catalog.
    let old = read(&community("kubevirt-wol/semver.yaml"))
        .render(source, fbc_core::template::OpmVersion::V1_61_0)
        .unwrap();
    assert_eq!(as_written(&old.blobs), as_written(&theirs));
}

/// openshift-integration-operator's catalog has the old linker's extra skip of the replaced entry
/// and no description; everything else is equal.
#[test]
fn openshift_integration_differs_by_the_old_linker_and_the_description() {
    let source = v4_20();
    let r = read(&community("openshift-integration-operator/semver.yaml"))
        .render(source, fbc_core::template::OpmVersion::DEFAULT)
        .unwrap();
    assert_eq!(
        channel_summary(&r.blobs),
        "candidate-v0: 0.7.0 0.8.2>0.7.0\n"
    );
    let mut theirs = catalog_blobs(source, &["openshift-integration-operator".into()]);
    for b in &mut theirs {
        if b["schema"] == "olm.channel" {
            assert_eq!(
                b["entries"][1]["skips"],
                serde_json::json!(["openshift-integration-operator.v0.7.0"])
            );
            b["entries"][1].as_object_mut().unwrap().remove("skips");
        }
    }
    assert_eq!(
        as_written(&without_description(r.blobs.clone())),
        as_written(&theirs)
    );
}

/// The kubedoop catalogs were rendered by opm v1.24 (2023): equal but for the description.
#[test]
fn kubedoop_semver_templates_render_as_their_catalogs_but_for_the_description() {
    for op in [
        "hive-metastore-operator",
        "spark-k8s-operator",
        "trino-operator",
    ] {
        let dir = testdata()
            .join("zncdatadev__kubedoop-catalog__composite-semver-templates")
            .join(op);
        let source = CatalogSource::load(&dir).unwrap();
        let r = read(&dir.join("semver.yaml"))
            .render(&source, fbc_core::template::OpmVersion::DEFAULT)
            .unwrap();
        assert!(r.blobs[0]["description"].is_string(), "{op}");
        let theirs = catalog_blobs(&source, &packages_of(&r.blobs));
        assert_eq!(
            as_written(&without_description(r.blobs.clone())),
            as_written(&theirs),
            "{op}"
        );
    }
}

fn descheduler(version: &str) -> (template::Template, CatalogSource) {
    let t = read(
        &testdata()
            .join("openshift__cluster-kube-descheduler-operator__fbc-catalog-templates")
            .join(format!("v{version}"))
            .join("catalog-template.yaml"),
    );
    let source = CatalogSource::load(&testdata().join(format!(
        "openshift__cluster-kube-descheduler-operator__fbc-v{version}-catalog"
    )))
    .unwrap();
    (t, source)
}

#[test]
fn descheduler_4_20_renders_as_its_catalog() {
    let (t, source) = descheduler("4.20");
    let r = t
        .render(&source, fbc_core::template::OpmVersion::DEFAULT)
        .unwrap();
    let theirs = catalog_blobs(&source, &packages_of(&r.blobs));
    assert_eq!(as_written(&r.blobs), as_written(&theirs));
}

/// One bundle of the 4.12 catalog lists its related images unsorted; opm's render sorts them by
/// image, so that catalog was not written by the render this follows. Sorted, it is equal.
#[test]
fn descheduler_4_12_renders_as_its_catalog_with_related_images_sorted() {
    let (t, source) = descheduler("4.12");
    let r = t
        .render(&source, fbc_core::template::OpmVersion::DEFAULT)
        .unwrap();
    let mut theirs = catalog_blobs(&source, &packages_of(&r.blobs));
    let mut unsorted = 0;
    for b in &mut theirs {
        if let Some(list) = b.get_mut("relatedImages").and_then(Value::as_array_mut) {
            let before = list.clone();
            list.sort_by(|x, y| x["image"].as_str().cmp(&y["image"].as_str()));
            if *list != before {
                unsorted += 1;
            }
        }
    }
    assert_eq!(unsorted, 1);
    assert_eq!(as_written(&r.blobs), as_written(&theirs));
}

/// A bundle directory stands for an image, before any catalog: its CSV gives the package's
/// description and icon when it heads the default channel.
#[test]
fn bundle_directories_stand_for_images() {
    let konflux_dir = testdata()
        .join("redhat-openshift-ecosystem__community-operators-prod__bundle-konflux-0.2.2-rc.10");
    let image = "quay.io/community-operator-pipeline-prod/konflux:0.2.2-rc.10";
    let text = format!(
        "Schema: olm.semver\nStable:\n  Bundles:\n  - Image: quay.io/community-operator-pipeline-prod/konflux:0.2.1\n  - Image: {image}\n"
    );
    let t = template::parse("t.yaml", &text).unwrap();
    let mut sources = Sources::new();
    sources.push(BundleDirSource::new(vec![(image.to_string(), konflux_dir)]));
    sources.push(
        CatalogSource::load(
            &testdata()
                .join("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20"),
        )
        .unwrap(),
    );
    let r = t
        .render(&sources, fbc_core::template::OpmVersion::DEFAULT)
        .unwrap();
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(
        channel_summary(&r.blobs),
        "stable-v0.2: 0.2.1 0.2.2-rc.10~0.2.1\n"
    );
    let bundle = r.blobs.iter().find(|b| b["image"] == image).unwrap();
    assert_eq!(bundle["name"], "konflux-operator.v0.2.2-rc.10");
    let types: Vec<&str> = bundle["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert!(types.contains(&"olm.bundle.object") && !types.contains(&"olm.csv.metadata"));
    // The package icon opm wrote into the 4.20 catalog came from a konflux CSV too.
    let pkg = &r.blobs[0];
    let catalog_pkg = &catalog_blobs(v4_20(), &["konflux-operator".into()])[0];
    assert_eq!(pkg["icon"], catalog_pkg["icon"]);
    assert!(
        pkg["description"]
            .as_str()
            .unwrap()
            .starts_with("## Welcome to Konflux")
    );
}

#[test]
fn bundle_directory_errors_name_the_image_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    let t = template::parse(
        "t.yaml",
        "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: img:1\n",
    )
    .unwrap();
    let source = BundleDirSource::new(vec![("img:1".into(), dir.path().to_path_buf())]);
    let e = t
        .render(&source, fbc_core::template::OpmVersion::DEFAULT)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.yaml:3: cannot render bundle image \"img:1\": bundle directory "),
        "{e}"
    );
}

/// Mangled templates (bytes cut, lines swapped, characters replaced) never make reading or rendering
/// panic, and every error names the file.
#[test]
fn mangled_templates_do_not_panic() {
    let seeds: Vec<String> = [
        community("konflux/semver.yaml"),
        community("rabbitmq-messaging-topology-operator/v4.20.yaml"),
        testdata().join(
            "zncdatadev__kubedoop-catalog__composite-semver-templates/trino-operator/semver.yaml",
        ),
    ]
    .iter()
    .map(|p| std::fs::read_to_string(p).unwrap())
    .collect();
    let source = v4_20();
    let mut rng = common::Rng(7);
    for round in 0..600 {
        let seed = &seeds[round % seeds.len()];
        let mut lines: Vec<String> = seed.lines().take(60).map(String::from).collect();
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(lines.len());
            match rng.below(4) {
                0 => {
                    lines.remove(i);
                }
                1 => {
                    let j = rng.below(lines.len());
                    lines.swap(i, j);
                }
                2 => {
                    let chars: Vec<char> = lines[i].chars().collect();
                    let cut = rng.below(chars.len() + 1);
                    lines[i] = chars[..cut].iter().collect();
                }
                _ => {
                    let junk = [
                        ":", "- ", "{", "~", "  ", "\t", "&a", "*a", "'", "1.10", "yes",
                    ];
                    lines[i].insert_str(0, junk[rng.below(junk.len())]);
                }
            }
            if lines.is_empty() {
                break;
            }
        }
        let text = lines.join("\n");
        match template::parse("m.yaml", &text) {
            Ok(t) => {
                if let Err(e) = t.render(source, fbc_core::template::OpmVersion::DEFAULT) {
                    assert!(e.to_string().starts_with("m.yaml"), "{e}");
                }
            }
            Err(e) => assert!(e.to_string().starts_with("m.yaml"), "{e}"),
        }
    }
}
