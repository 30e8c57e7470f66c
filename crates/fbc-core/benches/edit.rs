//! A one-shot edit as `fbc-edit edit DIR set-skip-range …` makes it, loading and writing excluded:
//! opening the workspace for the edited package, applying the edit and rendering the diff and the
//! files to write. Beside it, the same with a workspace that checks every package (as the TUI opens
//! one), which the command does not pay for. On the certified-operators slice in testdata/real, the
//! full real catalogs when `FBC_BENCH_REAL` names them, and the generated catalog when
//! `FBC_BENCH_CATALOG` names its directory.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use fbc_core::catalog::model::Channel;
use fbc_core::catalog::{Catalog, load};
use fbc_core::edit::Edit;
use fbc_core::workspace::Workspace;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A new skipRange for the head of the middle package's first channel.
fn skip_range_edit(catalog: &Catalog) -> Edit {
    let names = catalog.index().package_names();
    let package = &names[names.len() / 2];
    let idx = catalog.index().package(package).expect("package");
    let channel = Channel::read(&catalog.blob(idx.channels[0]).value).expect("channel");
    let head = channel.entries.last().expect("an entry");
    Edit::SetSkipRange {
        package: package.clone(),
        channel: channel.name.to_string(),
        entry: head.name.to_string(),
        range: Some("<0.0.1".into()),
    }
}

fn one_edit(catalog: Catalog, edit: &Edit, whole: bool) {
    let mut ws = if whole {
        Workspace::open(catalog)
    } else {
        Workspace::open_for(catalog, edit.package())
    };
    ws.apply(edit.clone()).expect("edit");
    ws.preview().expect("preview");
    ws.plan_save().expect("plan");
}

fn bench_edit(c: &mut Criterion) {
    let mut targets: Vec<(String, PathBuf)> = vec![(
        "certified-v4.18-slice-yaml".into(),
        common::real("redhat-openshift-ecosystem__certified-operators__catalogs-v4.18"),
    )];
    targets.extend(common::full_real_catalogs());
    for dir in common::env_dirs("FBC_BENCH_CATALOG") {
        targets.push(("generated".into(), dir));
    }
    let mut group = c.benchmark_group("edit");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, dir) in &targets {
        let edit = skip_range_edit(&load(dir).expect("load"));
        let fresh = |d: &Path| load(d).expect("load");
        for (label, whole) in [("one package", false), ("every package", true)] {
            group.bench_function(format!("{name} ({label} checked)"), |b| {
                b.iter_batched(
                    || fresh(dir),
                    |catalog| one_edit(catalog, &edit, whole),
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_edit);
criterion_main!(benches);
