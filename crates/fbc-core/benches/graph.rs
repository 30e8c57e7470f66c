//! Graph speed: building every channel graph of a catalog (the generated one when
//! `FBC_BENCH_CATALOG` names its directory), and laying out a 500-entry channel.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use fbc_core::catalog::load;
use fbc_core::graph::channel::{ChannelGraph, PackageFacts, all_channel_graphs};
use fbc_core::graph::layout::layout;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One package whose channel has `n` entries: each replaces the previous, every tenth also skips the
/// two before it, and every fifth has a skipRange over the last ten versions.
fn long_channel(dir: &Path, n: usize) {
    let mut y = String::from(
        "schema: olm.package\nname: long\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: long\nname: stable\nentries:\n",
    );
    for i in 0..n {
        let _ = writeln!(y, "- name: long.v1.{i}.0");
        if i > 0 {
            let _ = writeln!(y, "  replaces: long.v1.{}.0", i - 1);
        }
        if i % 10 == 0 && i >= 3 {
            let _ = writeln!(y, "  skips: [long.v1.{}.0, long.v1.{}.0]", i - 2, i - 3);
        }
        if i % 5 == 0 && i >= 10 {
            let _ = writeln!(y, "  skipRange: '>=1.{}.0 <1.{i}.0'", i - 10);
        }
    }
    for i in 0..n {
        let _ = write!(
            y,
            "---\nschema: olm.bundle\npackage: long\nname: long.v1.{i}.0\nimage: quay.io/demo/long:v1.{i}.0\nproperties:\n- type: olm.package\n  value: {{packageName: long, version: 1.{i}.0}}\n"
        );
    }
    std::fs::write(dir.join("catalog.yaml"), y).unwrap();
}

fn bench_graph(c: &mut Criterion) {
    let mut targets: Vec<(String, PathBuf)> = vec![(
        "demo".into(),
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("assets/demo-catalog"),
    )];
    for dir in common::env_dirs("FBC_BENCH_CATALOG") {
        targets.push(("generated".into(), dir));
    }
    let mut group = c.benchmark_group("all-graphs");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    for (name, dir) in targets {
        let catalog = load(&dir).unwrap();
        group.bench_function(&name, |b| b.iter(|| all_channel_graphs(&catalog)));
    }
    group.finish();

    let tmp = tempfile::tempdir().unwrap();
    long_channel(tmp.path(), 500);
    let catalog = load(tmp.path()).unwrap();
    let idx = catalog.index().package("long").unwrap();
    let facts = PackageFacts::read(&catalog, idx);
    let g = ChannelGraph::build(&catalog, &facts, idx.channels[0]).unwrap();
    assert_eq!(g.graph.node_count(), 500);
    let mut group = c.benchmark_group("layout");
    group.bench_function("500-entry-channel", |b| b.iter(|| layout(&g)));
    group.finish();
}

criterion_group!(benches, bench_graph);
criterion_main!(benches);
