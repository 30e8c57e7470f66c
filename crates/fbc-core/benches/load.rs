//! Loading speed on real catalogs (the slices in testdata/real; the full large ones when
//! `FBC_BENCH_REAL` names a directory holding them), and on a generated one when `FBC_BENCH_CATALOG`
//! names its directory (make one with `cargo run --release --example gen_catalog -- DIR`).

mod common;

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fbc_core::catalog::load;

// Same allocator as the binary, so the figures match what users see.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench_load(c: &mut Criterion) {
    let targets = common::load_targets();
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    for (name, dir) in targets {
        group.throughput(Throughput::Bytes(common::dir_size(&dir)));
        group.bench_function(&name, |b| b.iter(|| load(&dir).expect("load")));
    }
    group.finish();
}

criterion_group!(benches, bench_load);
criterion_main!(benches);
