//! YAML against JSON: loading (what `list` costs) and `validate` on the same catalog written both
//! ways, the two real YAML catalogs, and the quick YAML reader against the full one. `read-floor`
//! reads every file of each catalog and does nothing else, on one thread and on every core: the
//! least any command that reads the catalog can cost.
//!
//! Environment variables (each, when set, must name an existing directory, or the bench panics):
//! - `FBC_BENCH_JSON`, `FBC_BENCH_YAML`: one generated catalog in JSON and in YAML, made with the same
//!   seed: `cargo build --release --examples && target/release/examples/gen_catalog DIR_J` and
//!   `target/release/examples/gen_catalog DIR_Y --format yaml`;
//! - `FBC_BENCH_CERTIFIED`, `FBC_BENCH_COMMUNITY`: the certified-operators v4.18 and
//!   community-operators-prod v4.20 catalogs.
//!
//! Unset, each uses a small catalog of the repository's `testdata/`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fbc_core::catalog::yaml::{parse_chunk, parse_chunk_full, split_documents};
use fbc_core::validate::validate;

// Same allocator as the binary, so the figures match what users see.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The directory a variable names (it must exist), or the in-repository fallback.
fn catalog_dir(var: &str, fallback: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.is_dir(),
                "{var}={} is not a directory: make it (see the header of benches/yaml_json.rs) or unset {var}",
                dir.display()
            );
            dir
        }
        None => Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("testdata")
            .join(fallback),
    }
}

fn files(p: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(p) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            files(&e, out);
        } else {
            out.push(e);
        }
    }
}

fn dir_size(p: &Path) -> u64 {
    let mut all = Vec::new();
    files(p, &mut all);
    all.iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum()
}

fn catalogs() -> Vec<(&'static str, PathBuf)> {
    vec![
        (
            "generated-json",
            catalog_dir("FBC_BENCH_JSON", "graph/skiprange"),
        ),
        (
            "generated-yaml",
            catalog_dir("FBC_BENCH_YAML", "graph/skiprange"),
        ),
        (
            "certified-v4.18",
            catalog_dir("FBC_BENCH_CERTIFIED", "graph/deprecated-and-skipped"),
        ),
        (
            "community-v4.20",
            catalog_dir("FBC_BENCH_COMMUNITY", "graph/two-packages-red-links"),
        ),
    ]
}

fn bench_commands(c: &mut Criterion) {
    for (command, with_validate) in [("list", false), ("validate", true)] {
        let mut group = c.benchmark_group(command);
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(10));
        for (name, dir) in catalogs() {
            group.throughput(Throughput::Bytes(dir_size(&dir)));
            group.bench_function(name, |b| {
                b.iter(|| {
                    // As the commands load: `validate` decodes the payloads as it reads.
                    let options = fbc_core::catalog::LoadOptions {
                        check_payloads: with_validate,
                        ..Default::default()
                    };
                    let cat = fbc_core::catalog::load_with(&dir, &options).expect("load");
                    if with_validate {
                        validate(&cat).diagnostics.len()
                    } else {
                        cat.index().packages().count()
                    }
                })
            });
        }
        group.finish();
    }
}

/// Reading every file of each catalog from the page cache, and nothing else.
fn bench_read_floor(c: &mut Criterion) {
    use rayon::prelude::*;
    let mut group = c.benchmark_group("read-floor");
    group.sample_size(10);
    for (name, dir) in catalogs() {
        let mut all = Vec::new();
        files(&dir, &mut all);
        group.throughput(Throughput::Bytes(dir_size(&dir)));
        group.bench_function(format!("{name}/one-thread"), |b| {
            b.iter(|| {
                all.iter()
                    .map(|f| std::fs::read(f).map_or(0, |b| b.len()))
                    .sum::<usize>()
            })
        });
        group.bench_function(format!("{name}/every-core"), |b| {
            b.iter(|| {
                all.par_iter()
                    .map(|f| std::fs::read(f).map_or(0, |b| b.len()))
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

/// The YAML readers alone on every document of a catalog's YAML files, on one thread.
fn bench_readers(c: &mut Criterion) {
    let dir = catalog_dir("FBC_BENCH_CERTIFIED", "graph/deprecated-and-skipped");
    let mut all = Vec::new();
    files(&dir, &mut all);
    let texts: Vec<String> = all
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .filter(|t| !t.trim_start().starts_with('{'))
        .collect();
    let mut group = c.benchmark_group("yaml-reader");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(
        texts.iter().map(|t| t.len() as u64).sum(),
    ));
    group.bench_function("quick-with-fallback", |b| {
        b.iter(|| read_all(&texts, |t, c| parse_chunk(t, c, 0).is_ok()))
    });
    group.bench_function("full", |b| {
        b.iter(|| read_all(&texts, |t, c| parse_chunk_full(t, c, 0).is_ok()))
    });
    group.finish();
}

fn read_all(
    texts: &[String],
    read: impl Fn(&str, fbc_core::catalog::yaml::Chunk) -> bool,
) -> usize {
    texts
        .iter()
        .map(|t| {
            let (chunks, _) = split_documents(t, 0, 1);
            chunks.into_iter().filter(|&c| read(t, c)).count()
        })
        .sum()
}

criterion_group!(benches, bench_commands, bench_read_floor, bench_readers);
criterion_main!(benches);
