//! Bundle directories: checks over every bundle in testdata/real, rendering equal to opm's, and the
//! Go JSON encoding that `olm.bundle.object` payloads depend on.

use crate::common;
use common::real;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use base64::Engine as _;
use fbc_edit::bundle::{self, RenderOptions, codes};
use fbc_edit::catalog::emit::{sort_keys, write_go_json};
use fbc_edit::catalog::{Catalog, load};
use serde_json::Value;

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn codes_of(dir: &Path) -> Vec<String> {
    bundle::check_dir(dir)
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code, d.location.file))
        .collect()
}

/// Every bundle in testdata/real reports what SOURCES.md says is wrong with it, and nothing else.
#[test]
fn real_bundles_report_exactly_their_known_problems() {
    let cases: &[(&str, &[&str])] = &[
        (
            "operator-framework__operator-controller__bundle-argocd-operator.v0.6.0",
            &[],
        ),
        (
            "redhat-openshift-ecosystem__community-operators-prod__bundle-konflux-0.2.2-rc.10",
            &["FBC215 release-config.yaml", "FBC215 tests/"],
        ),
        (
            "redhat-openshift-ecosystem__community-operators-prod__bundle-pelorus-operator-0.0.9",
            &["FBC214 metadata/properties.yaml", "FBC215 tests/"],
        ),
        (
            "redhat-openshift-ecosystem__community-operators-prod__bundle-rabbitmq-messaging-topology-operator-1.19.3",
            &["FBC215 release-config.yaml"],
        ),
        ("operator-framework__rukpak__plain-v0-valid", &[]),
        (
            "operator-framework__rukpak__plain-v0-subdir",
            &["FBC221 manifests/subdir/"],
        ),
    ];
    for (name, want) in cases {
        let dir = real(name);
        assert_eq!(codes_of(&dir), *want, "{name}");
    }
    let check = bundle::check_dir(&real(
        "redhat-openshift-ecosystem__community-operators-prod__bundle-pelorus-operator-0.0.9",
    ));
    let d = &check.diagnostics[0];
    assert_eq!(d.severity, fbc_edit::catalog::Severity::Warning);
    assert_eq!(d.location.line, 2, "points at the dependencies: key");
}

#[test]
fn check_bundle_exit_codes_and_formats() {
    let bin = || Command::cargo_bin("fbc-edit").unwrap();
    let out = bin()
        .args(["check-bundle"])
        .arg(local("testdata/bundles/foo-v0.2.0"))
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("registry+v1 bundle"), "{text}");
    assert!(text.contains("valid: 0 errors"), "{text}");

    // plain+v0 with a subdirectory: invalid.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("manifests/sub")).unwrap();
    std::fs::write(
        tmp.path().join("manifests/ns.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n",
    )
    .unwrap();
    let out = bin()
        .args(["check-bundle", "-o", "json"])
        .arg(tmp.path())
        .assert()
        .code(1);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["format"], "plain+v0");
    assert_eq!(v["valid"], false);
    assert_eq!(v["diagnostics"][0]["code"], codes::PLAIN_SUBDIR);

    // Not a bundle at all, or no such directory: 2.
    let empty = tempfile::tempdir().unwrap();
    bin()
        .args(["check-bundle"])
        .arg(empty.path())
        .assert()
        .code(2);
    bin()
        .args(["check-bundle", "/nonexistent/bundle"])
        .assert()
        .code(2);
}

/// Writes a copy of the foo bundle with `change` applied to it.
fn foo_with(change: impl FnOnce(&Path)) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&local("testdata/bundles/foo-v0.2.0"), tmp.path());
    change(tmp.path());
    tmp
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Each registry+v1 rule fires on a bundle broken in exactly that way, at the right line.
#[test]
fn each_registry_rule_fires_where_the_problem_is() {
    let csv = "manifests/foo.v0.2.0.clusterserviceversion.yaml";
    let ann = "metadata/annotations.yaml";
    type Change = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Change, &str)> = vec![
        (
            "default channel not among channels",
            Box::new(move |d: &Path| edit(&d.join(ann), "default.v1: stable", "default.v1: fast")),
            "FBC211 metadata/annotations.yaml:7",
        ),
        (
            "no channels",
            Box::new(move |d: &Path| {
                edit(
                    &d.join(ann),
                    "channels.v1: beta,stable",
                    "channels.v1: \"\"",
                )
            }),
            "FBC210 metadata/annotations.yaml:6",
        ),
        (
            "wrong mediatype",
            Box::new(move |d: &Path| edit(&d.join(ann), "registry+v1", "helm+v1")),
            "FBC208 metadata/annotations.yaml:2",
        ),
        (
            "misspelt annotation",
            Box::new(move |d: &Path| {
                edit(
                    &d.join(ann),
                    "metadata.v1: metadata/",
                    "metadata.v1: metadata/\n  example.com.bundle.tier: x",
                )
            }),
            "FBC212 metadata/annotations.yaml:5",
        ),
        (
            "owned CRD missing",
            Box::new(|d: &Path| {
                std::fs::remove_file(d.join("manifests/foos.test.foo.crd.yaml")).unwrap()
            }),
            "FBC206 manifests/foo.v0.2.0.clusterserviceversion.yaml:1",
        ),
        (
            "unsupported kind",
            Box::new(|d: &Path| {
                std::fs::write(
                    d.join("manifests/ns.yaml"),
                    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo\n",
                )
                .unwrap()
            }),
            "FBC207 manifests/ns.yaml:1",
        ),
        (
            "second CSV",
            Box::new(move |d: &Path| {
                std::fs::copy(d.join(csv), d.join("manifests/zz.csv.yaml")).unwrap();
            }),
            "FBC205 manifests",
        ),
        (
            "version not semver",
            Box::new(move |d: &Path| edit(&d.join(csv), "version: 0.2.0", "version: 0.2")),
            "FBC216 manifests/foo.v0.2.0.clusterserviceversion.yaml:1",
        ),
        (
            "bad dependency range",
            Box::new(|d: &Path| edit(&d.join("metadata/dependencies.yaml"), "<0.1.0", "<0.1.x.y")),
            "FBC213 metadata/dependencies.yaml:2",
        ),
        (
            "unknown dependency type",
            Box::new(|d: &Path| {
                edit(
                    &d.join("metadata/dependencies.yaml"),
                    "type: olm.gvk",
                    "type: olm.gvkk",
                )
            }),
            "FBC213 metadata/dependencies.yaml:6",
        ),
        (
            "manifest without kind",
            Box::new(|d: &Path| {
                std::fs::write(
                    d.join("manifests/x.yaml"),
                    "apiVersion: v1\nmetadata: {name: x}\n",
                )
                .unwrap()
            }),
            "FBC203 manifests/x.yaml:1",
        ),
        (
            "two objects in one manifest",
            Box::new(|d: &Path| {
                std::fs::write(
                    d.join("manifests/sa.yaml"),
                    "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: b}\n",
                )
                .unwrap()
            }),
            "FBC204 manifests/sa.yaml:5",
        ),
        (
            "no annotations file",
            Box::new(move |d: &Path| std::fs::remove_file(d.join(ann)).unwrap()),
            "FBC202 metadata",
        ),
        (
            "stray file",
            Box::new(|d: &Path| std::fs::write(d.join("Dockerfile"), "FROM scratch\n").unwrap()),
            "FBC215 Dockerfile",
        ),
    ];
    for (what, change, want) in cases {
        let dir = foo_with(change);
        let found: Vec<String> = bundle::check_dir(dir.path())
            .diagnostics
            .iter()
            .map(common::code_at)
            .collect();
        assert_eq!(found, [want], "{what}");
    }
}

fn render(dir: &Path, image: &str, csv_metadata: bool) -> Value {
    bundle::render_dir(
        dir,
        &RenderOptions {
            image: Some(image.to_string()),
            csv_metadata,
            ..Default::default()
        },
    )
    .unwrap()
}

fn catalog_bundle(catalog: &Catalog, name: &str) -> Value {
    let (_, blob) = catalog
        .live_blobs()
        .find(|(_, b)| b.schema() == "olm.bundle" && b.name() == name)
        .unwrap_or_else(|| panic!("{name} not in catalog"));
    catalog.to_json(&blob.value).unwrap()
}

/// The community catalog for OCP 4.20 was rendered by opm from these very bundle images (with
/// `--migrate-level bundle-object-to-csv-metadata`): rendering the bundle directories gives the same
/// blobs, property for property and in the same order.
#[test]
fn render_with_csv_metadata_equals_opm_output_in_the_community_catalog() {
    let catalog_dir = real("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20");
    let catalog = load(&catalog_dir).unwrap();
    for (dir, image, name) in [
        (
            "redhat-openshift-ecosystem__community-operators-prod__bundle-rabbitmq-messaging-topology-operator-1.19.3",
            "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3",
            "rabbitmq-messaging-topology-operator.v1.19.3",
        ),
        (
            "redhat-openshift-ecosystem__community-operators-prod__bundle-konflux-0.2.2-rc.10",
            "quay.io/community-operator-pipeline-prod/konflux:0.2.2-rc.10",
            "konflux-operator.v0.2.2-rc.10",
        ),
    ] {
        let dir = real(dir);
        let got = render(&dir, image, true);
        let want = catalog_bundle(&catalog, name);
        assert_eq!(got, want, "{name}");
        // Same property order too (serde_json maps keep insertion order, so compare lists of types).
        let types = |v: &Value| -> Vec<String> {
            v["properties"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["type"].to_string())
                .collect()
        };
        assert_eq!(types(&got), types(&want));
    }
}

/// opm sorts related images by image alone with Go's unstable sort: this CSV lists each image twice
/// (`lcore_image_url_default` and `lcore-image-url-default`, ...) and the community catalog for OCP
/// 4.16, rendered by opm from the bundle image, keeps the pairs in the order Go's algorithm leaves
/// them, not in the CSV's order. Rendering the bundle directory gives the catalog's blob.
#[test]
fn related_images_of_one_image_keep_the_order_opm_sorts_them_in() {
    let catalog = load(&real(
        "redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.16-openstack-lightspeed-operator",
    ))
    .unwrap();
    let got = render(
        &real(
            "redhat-openshift-ecosystem__community-operators-prod__bundle-openstack-lightspeed-operator-0.0.2",
        ),
        "quay.io/community-operator-pipeline-prod/openstack-lightspeed-operator:0.0.2",
        false,
    );
    let want = catalog_bundle(&catalog, "openstack-lightspeed-operator.v0.0.2");
    let names = |v: &Value| -> Vec<String> {
        v["relatedImages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&got), names(&want));
    let lcore: Vec<String> = names(&got)
        .into_iter()
        .filter(|n| n.starts_with("lcore"))
        .collect();
    assert_eq!(
        lcore,
        ["lcore-image-url-default", "lcore_image_url_default"]
    );
    assert_eq!(got, want);
}

/// opendatahub-operator 1.4.1 ships CRDs whose quoted descriptions run on to lines at the column of
/// their key, which the YAML specification refuses and go-yaml, opm's reader, accepts. Each CRD
/// must read as go-yaml reads it: testdata/goyaml holds go-yaml's reading of the two CRDs as JSON.
#[test]
fn manifests_with_quoted_lines_left_of_their_key_read_as_go_yaml_reads_them() {
    let dir = real(
        "redhat-openshift-ecosystem__community-operators-prod__bundle-opendatahub-operator-1.4.1",
    );
    let blob = render(&dir, "quay.io/example/opendatahub-operator:1.4.1", false);
    let objects: Vec<Value> = blob["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "olm.bundle.object")
        .map(|p| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(p["value"]["data"].as_str().unwrap())
                .unwrap();
            serde_json::from_slice(&bytes).unwrap()
        })
        .collect();
    // The CSV and all five CRDs, none skipped.
    assert_eq!(objects.len(), 6);
    for name in [
        "odhapplications.dashboard.opendatahub.io",
        "odhdocuments.dashboard.opendatahub.io",
    ] {
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join(format!("testdata/goyaml/{name}.crd.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let got = objects
            .iter()
            .find(|o| o["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("{name} not rendered"));
        assert_eq!(got, &want, "{name}");
    }
    // And the command line finds nothing wrong with how they are written.
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(["check-bundle", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("FBC203"), "{text}");
    assert!(!text.contains("quoted scalar"), "{text}");
}

/// Go's encoder and ours agree byte for byte: every `olm.bundle.object` opm wrote into the catalogs
/// in testdata/real re-encodes (keys sorted, HTML escaped, Go number forms) to the same bytes.
#[test]
fn bundle_object_payloads_reencode_byte_for_byte() {
    let mut checked = 0;
    for name in [
        "operator-framework__operator-registry__fbc-dir",
        "openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog",
        "okd-project__okderators-catalog-index__catalog",
    ] {
        let dir = real(name);
        let catalog = load(&dir).unwrap();
        for (_, blob) in catalog.live_blobs() {
            let v = catalog.to_json(&blob.value).unwrap();
            for p in v["properties"].as_array().into_iter().flatten() {
                if p["type"] != "olm.bundle.object" {
                    continue;
                }
                let data = p["value"]["data"].as_str().unwrap();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .unwrap();
                let text = String::from_utf8(bytes).unwrap();
                let mut parsed: Value = serde_json::from_str(&text).unwrap();
                sort_keys(&mut parsed);
                let mut again = String::new();
                write_go_json(&mut again, &parsed, None, true, 0);
                assert_eq!(again, text, "{name}: {}", blob.name());
                checked += 1;
            }
        }
    }
    assert!(checked > 250, "only {checked} payloads checked");
}

/// A bundle with dependencies, provided and required APIs, API services, a CSV olm.properties
/// annotation, a properties file and related images renders like opm: properties sorted by type then
/// value text, bundle objects last, related images sorted by image with the bundle image added.
#[test]
fn render_foo_bundle_like_opm() {
    let dir = local("testdata/bundles/foo-v0.2.0");
    let b = render(&dir, "test.registry/foo-operator/foo-bundle:v0.2.0", false);
    let props: Vec<String> = b["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            if p["type"] == "olm.bundle.object" {
                let data = p["value"]["data"].as_str().unwrap();
                let obj: Value = serde_json::from_slice(
                    &base64::engine::general_purpose::STANDARD
                        .decode(data)
                        .unwrap(),
                )
                .unwrap();
                format!("olm.bundle.object {}", obj["kind"].as_str().unwrap())
            } else {
                format!("{} {}", p["type"].as_str().unwrap(), p["value"])
            }
        })
        .collect();
    assert_eq!(
        props,
        [
            r#"example.com/tier {"level":"gold","weight":3}"#,
            r#"olm.gvk {"group":"apis.foo.test","kind":"Widget","version":"v1"}"#,
            r#"olm.gvk {"group":"test.foo","kind":"Foo","version":"v1"}"#,
            r#"olm.gvk {"group":"test.foo","kind":"Foo","version":"v1alpha1"}"#,
            r#"olm.gvk.required {"group":"test.bar","kind":"Bar","version":"v1alpha1"}"#,
            r#"olm.maxOpenShiftVersion "4.18""#,
            r#"olm.package {"packageName":"foo","version":"0.2.0"}"#,
            r#"olm.package.required {"packageName":"bar","versionRange":"<0.1.0"}"#,
            "olm.bundle.object CustomResourceDefinition",
            "olm.bundle.object ClusterServiceVersion",
            "olm.bundle.object ConfigMap",
        ]
    );
    let images: Vec<(&str, &str)> = b["relatedImages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["image"].as_str().unwrap()))
        .collect();
    assert_eq!(
        images,
        [
            ("", "test.registry/foo-operator/foo-bundle:v0.2.0"),
            ("operator", "test.registry/foo-operator/foo:v0.2.0"),
            ("helper", "test.registry/foo-operator/helper:v0.2.0"),
            ("", "test.registry/foo-operator/init:v0.2.0"),
            ("", "test.registry/proxy:v1"),
        ]
    );
    assert_eq!(b["name"], "foo.v0.2.0");
    assert_eq!(b["package"], "foo");
    // Manifest payloads: Go's encoding of the object (sorted keys, HTML escaped, YAML 1.1 numbers).
    let csv_data = b["properties"][9]["value"]["data"].as_str().unwrap();
    let csv = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(csv_data)
            .unwrap(),
    )
    .unwrap();
    assert!(csv.starts_with(r#"{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"annotations":{"description":"Foo \u003coperator\u003e \u0026 friends""#), "{csv}");
    let crd_data = b["properties"][8]["value"]["data"].as_str().unwrap();
    let crd = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(crd_data)
            .unwrap(),
    )
    .unwrap();
    assert!(crd.contains(r#""maximum":1500,"minimum":1"#), "{crd}");
}

#[test]
fn render_cli_prints_json_and_yaml_and_refuses_broken_bundles() {
    let bin = || Command::cargo_bin("fbc-edit").unwrap();
    let dir = local("testdata/bundles/foo-v0.2.0");
    let out = bin()
        .arg("render")
        .arg(&dir)
        .args(["--image", "r/foo:1"])
        .assert()
        .code(0);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["image"], "r/foo:1");
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("{\n    \"schema\": \"olm.bundle\",\n    \"name\": \"foo.v0.2.0\",\n"),
        "{text}"
    );

    let out = bin()
        .arg("render")
        .arg(&dir)
        .args(["-o", "yaml", "--csv-metadata"])
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("---\nimage: \"\"\nname: foo.v0.2.0\npackage: foo\n"),
        "{text}"
    );
    assert!(text.contains("- type: olm.csv.metadata\n"), "{text}");
    assert!(!text.contains("olm.bundle.object"));

    let broken =
        foo_with(|d| std::fs::remove_file(d.join("manifests/foos.test.foo.crd.yaml")).unwrap());
    let out = bin().arg("render").arg(broken.path()).assert().code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("error checking provided apis in bundle foo.v0.2.0: couldn't find test.foo/v1/Foo (foos) in bundle"),
        "{err}"
    );
    bin()
        .arg("render")
        .arg(local("testdata/validate"))
        .assert()
        .code(2);
}

/// A rendered bundle placed in a catalog with a package and channel validates.
#[test]
fn rendered_bundles_validate_in_a_catalog() {
    for dir in [
        real("operator-framework__operator-controller__bundle-argocd-operator.v0.6.0"),
        local("testdata/bundles/foo-v0.2.0"),
    ] {
        let b = render(&dir, "example.com/bundle:1", false);
        let pkg = b["package"].as_str().unwrap().to_string();
        let name = b["name"].as_str().unwrap().to_string();
        let tmp = tempfile::tempdir().unwrap();
        let blobs = vec![
            serde_json::json!({"schema": "olm.package", "name": pkg, "defaultChannel": "stable"}),
            serde_json::json!({"schema": "olm.channel", "name": "stable", "package": pkg, "entries": [{"name": name}]}),
            b,
        ];
        std::fs::write(
            tmp.path().join("catalog.json"),
            fbc_edit::catalog::emit::write_fbc(&blobs, Default::default()),
        )
        .unwrap();
        let catalog = load(tmp.path()).unwrap();
        let report = fbc_edit::validate::validate(&catalog);
        assert!(
            report.is_valid(),
            "{}: {:?}",
            dir.display(),
            report.diagnostics
        );
    }
}

/// Cases where opm reads a bundle more leniently, or differently, than a plain reading suggests;
/// each was reported wrongly before.
#[test]
fn bundles_are_read_the_way_opm_reads_them() {
    let csv = "manifests/foo.v0.2.0.clusterserviceversion.yaml";
    let ann = "metadata/annotations.yaml";
    let check = |d: &Path| -> Vec<String> {
        bundle::check_dir(d)
            .diagnostics
            .iter()
            .map(common::code_at)
            .collect()
    };
    // Kinds opm added to the bundle format; kinds are compared exactly.
    let dir = foo_with(|d| {
        for (file, kind) in [
            ("cp.yaml", "ConsolePlugin"),
            ("np.yaml", "NetworkPolicy"),
            ("pm.yaml", "PodMonitor"),
        ] {
            std::fs::write(
                d.join("manifests").join(file),
                format!("apiVersion: x/v1\nkind: {kind}\nmetadata:\n  name: a\n"),
            )
            .unwrap();
        }
        std::fs::write(
            d.join("manifests/cm.yaml"),
            "apiVersion: v1\nkind: configmap\nmetadata:\n  name: a\n",
        )
        .unwrap();
    });
    assert_eq!(check(dir.path()), ["FBC207 manifests/cm.yaml:1"]);

    // A licence comment before `---` makes an empty first document: opm skips the file. A
    // trailing `---` and blank line is only an extra document.
    let dir = foo_with(|d| {
        std::fs::write(
            d.join("manifests/svc.yaml"),
            "# Licensed under Apache-2.0\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n",
        )
        .unwrap();
        std::fs::write(
            d.join("manifests/sa.yaml"),
            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n---\n\n",
        )
        .unwrap();
    });
    assert_eq!(
        check(dir.path()),
        ["FBC204 manifests/sa.yaml", "FBC218 manifests/svc.yaml"]
    );
    let b = render(dir.path(), "r/x:1", false);
    let kinds: Vec<String> = b["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "olm.bundle.object")
        .map(|p| {
            let data = p["value"]["data"].as_str().unwrap();
            let obj: Value = serde_json::from_slice(
                &base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .unwrap(),
            )
            .unwrap();
            obj["kind"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(kinds.contains(&"ServiceAccount".to_string()));
    assert!(!kinds.contains(&"Service".to_string()), "{kinds:?}");

    // Annotation names match in any case; values are read as YAML 1.1 (channel 1.10 is "1.1").
    let dir = foo_with(|d| {
        edit(
            &d.join(ann),
            "  operators.operatorframework.io.bundle.package.v1",
            "  Operators.operatorframework.io.bundle.package.v1",
        );
        edit(
            &d.join(ann),
            "channels.v1: beta,stable",
            "channels.v1: 1.10",
        );
        edit(&d.join(ann), "default.v1: stable", "default.v1: \"1.10\"");
    });
    assert_eq!(
        check(dir.path()),
        [
            "FBC212 metadata/annotations.yaml:5",
            "FBC211 metadata/annotations.yaml:7"
        ]
    );
    let b = bundle::RegistryBundle::read(dir.path());
    assert_eq!(b.package(), "foo");
    assert_eq!(b.channels(), ["1.1"]);

    // A CSV annotation opm's typed CSV cannot hold stops opm; check-bundle says so.
    let dir = foo_with(|d| {
        edit(
            &d.join(csv),
            "  annotations:\n",
            "  annotations:\n    features.operators.openshift.io/disconnected: false\n",
        )
    });
    assert_eq!(check(dir.path()), [format!("FBC216 {csv}:1")]);
    let err = bundle::render_dir(dir.path(), &RenderOptions::default()).unwrap_err();
    assert!(err.to_string().contains("disconnected"), "{err}");

    // Passed-through property values keep opm's key order (sorted); built ones sort by their
    // unescaped text (`<` before `=`).
    let dir = foo_with(|d| {
        std::fs::write(
            d.join("metadata/properties.yaml"),
            "properties:\n- type: example.com/tier\n  value: {weight: 3, level: gold}\n",
        )
        .unwrap();
        std::fs::write(
            d.join("metadata/dependencies.yaml"),
            "dependencies:\n- type: olm.package\n  value: {packageName: bar, version: \"=2.0.0\"}\n- type: olm.package\n  value: {packageName: bar, version: \"<1.0.0\"}\n",
        )
        .unwrap();
    });
    let b = render(dir.path(), "r/x:1", false);
    let mut json = String::new();
    fbc_edit::catalog::emit::write_go_json(&mut json, &b["properties"], None, false, 0);
    assert!(
        json.contains(r#"{"type":"example.com/tier","value":{"level":"gold","weight":3}}"#),
        "{json}"
    );
    let ranges: Vec<&str> = b["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "olm.package.required")
        .map(|p| p["value"]["versionRange"].as_str().unwrap())
        .collect();
    assert_eq!(ranges, ["<1.0.0", "=2.0.0"]);
}
