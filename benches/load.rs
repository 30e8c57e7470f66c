//! Loading speed on real catalogs (the slices in testdata/real; the full large ones when
//! `FBC_BENCH_REAL` names a directory holding them), and on a generated one when `FBC_BENCH_CATALOG`
//! names its directory (make one with `cargo run --release --example gen_catalog -- DIR`).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fbc_edit::catalog::load;

// Same allocator as the binary, so the figures match what users see.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn dir_size(p: &Path) -> u64 {
    std::fs::read_dir(p)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| {
                    let m = e.metadata().ok();
                    match m {
                        Some(m) if m.is_dir() => dir_size(&e.path()),
                        Some(m) => m.len(),
                        None => 0,
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

fn bench_load(c: &mut Criterion) {
    let mut targets: Vec<(String, PathBuf)> = vec![
        (
            "certified-v4.18-slice-yaml".into(),
            common::real("redhat-openshift-ecosystem__certified-operators__catalogs-v4.18"),
        ),
        (
            "community-v4.20-slice-yaml".into(),
            common::real("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20"),
        ),
        (
            "descheduler-v4.12-json".into(),
            common::real("openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog"),
        ),
    ];
    targets.extend(common::full_real_catalogs());
    for dir in common::env_dirs("FBC_BENCH_CATALOG") {
        targets.push(("generated".into(), dir));
    }
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    for (name, dir) in targets {
        group.throughput(Throughput::Bytes(dir_size(&dir)));
        group.bench_function(&name, |b| b.iter(|| load(&dir).expect("load")));
    }
    group.finish();
}

criterion_group!(benches, bench_load);
criterion_main!(benches);
