//! Validation speed: every rule over real catalogs (loading excluded), the generated catalog when
//! `FBC_BENCH_CATALOG` names its directory, and re-validating one 300-bundle package after an edit.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use criterion::{Criterion, criterion_group, criterion_main};
use fbc_core::catalog::{Node, load};
use fbc_core::validate::{self, Validation};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A package of `bundles` bundles in three channels, each bundle carrying a 6 KiB manifest (left on
/// disk by the loader, like real `olm.bundle.object` payloads), plus a small second package.
fn big_package(dir: &Path, bundles: usize) {
    let manifest = format!(
        "{{\"apiVersion\":\"operators.coreos.com/v1alpha1\",\"kind\":\"ClusterServiceVersion\",\"spec\":{{\"description\":\"{}\"}}}}",
        "x".repeat(6000)
    );
    let data = base64::engine::general_purpose::STANDARD.encode(manifest);
    let mut y = String::from("schema: olm.package\nname: big\ndefaultChannel: stable\n");
    for ch in ["stable", "fast", "candidate"] {
        let _ = write!(
            y,
            "---\nschema: olm.channel\npackage: big\nname: {ch}\nentries:\n"
        );
        for i in 0..bundles {
            let _ = writeln!(y, "- name: big.v1.{i}.0");
            if i > 0 {
                let _ = writeln!(
                    y,
                    "  replaces: big.v1.{}.0\n  skipRange: '>=1.0.0 <1.{i}.0'",
                    i - 1
                );
            }
        }
    }
    for i in 0..bundles {
        let _ = write!(
            y,
            "---\nschema: olm.bundle\npackage: big\nname: big.v1.{i}.0\nimage: quay.io/demo/big-bundle:v1.{i}.0\nproperties:\n- type: olm.package\n  value: {{packageName: big, version: 1.{i}.0}}\n- type: olm.gvk\n  value: {{group: demo.io, kind: Big, version: v1}}\n- type: olm.bundle.object\n  value:\n    data: {data}\nrelatedImages:\n- name: operator\n  image: quay.io/demo/big:v1.{i}.0\n"
        );
    }
    std::fs::create_dir_all(dir.join("big")).unwrap();
    std::fs::write(dir.join("big/catalog.yaml"), y).unwrap();
    let demo = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("assets/demo-catalog/metrics-gateway");
    std::fs::create_dir_all(dir.join("metrics-gateway")).unwrap();
    for f in std::fs::read_dir(demo).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), dir.join("metrics-gateway").join(f.file_name())).unwrap();
    }
}

fn bench_validate(c: &mut Criterion) {
    let mut targets: Vec<(String, PathBuf)> = vec![(
        "certified-v4.18-slice-yaml".into(),
        common::real("redhat-openshift-ecosystem__certified-operators__catalogs-v4.18"),
    )];
    targets.extend(common::full_real_catalogs());
    for dir in common::env_dirs("FBC_BENCH_CATALOG") {
        targets.push(("generated".into(), dir));
    }
    let mut group = c.benchmark_group("validate");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, dir) in targets {
        let catalog = load(&dir).unwrap();
        group.bench_function(&name, |b| b.iter(|| validate::validate(&catalog)));
    }
    group.finish();

    let tmp = tempfile::tempdir().unwrap();
    big_package(tmp.path(), 300);
    let mut catalog = load(tmp.path()).unwrap();
    let mut v = Validation::run(&catalog);
    assert!(v.report().is_valid(), "{:#?}", v.report().diagnostics);
    // An edit to one channel: a new head replacing the old one.
    let channel = catalog.index().channel("big", "stable").unwrap();
    catalog.edit(channel, |ch| {
        ch.get_field_mut("entries")
            .and_then(Node::as_seq_mut)
            .unwrap()
            .push(Node::map(vec![
                ("name", Node::string("big.v1.299.0-hotfix")),
                ("replaces", Node::string("big.v1.299.0")),
            ]));
    });
    let mut group = c.benchmark_group("revalidate");
    group.bench_function("300-bundle-package", |b| {
        b.iter(|| v.revalidate(&catalog, &["big"]))
    });
    group.finish();
}

criterion_group!(benches, bench_validate);
criterion_main!(benches);
