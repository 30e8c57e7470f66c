//! Bundle and template speed: rendering and checking bundle directories (the local foo bundle, and
//! the large real bundles in testdata/real), and rendering a semver template from a loaded catalog.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use fbc_edit::bundle::{self, RenderOptions};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn bundles() -> Vec<(&'static str, PathBuf)> {
    let mut out = vec![("foo", root().join("testdata/bundles/foo-v0.2.0"))];
    for (name, dir) in [
        (
            "argocd-1.3MB",
            "operator-framework__operator-controller__bundle-argocd-operator.v0.6.0",
        ),
        (
            "konflux-66-manifests",
            "redhat-openshift-ecosystem__community-operators-prod__bundle-konflux-0.2.2-rc.10",
        ),
    ] {
        out.push((name, common::real(dir)));
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("bundle");
    g.measurement_time(Duration::from_secs(5)).sample_size(20);
    for (name, dir) in bundles() {
        let opts = RenderOptions {
            image: Some("example.com/bundle:1".into()),
            csv_metadata: false,
            ..Default::default()
        };
        g.bench_function(format!("render {name}"), |b| {
            b.iter(|| bundle::render_dir(&dir, &opts).unwrap())
        });
        g.bench_function(format!("check {name}"), |b| {
            b.iter(|| bundle::check_dir(&dir))
        });
    }
    g.finish();

    let catalog =
        common::real("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20");
    let template = common::real(
        "redhat-openshift-ecosystem__community-operators-prod__catalog-templates/konflux/catalog-templates",
    )
    .join("semver.yaml");
    let source = fbc_edit::template::CatalogSource::load(&catalog).unwrap();
    let t = fbc_edit::template::read(&template).unwrap().unwrap();
    c.bench_function("template render konflux semver (49 bundles)", |b| {
        b.iter(|| {
            t.render(&source, fbc_edit::template::OpmVersion::DEFAULT)
                .unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
