//! Where the benchmarks find their catalogs: the real data in testdata/real (slices of the large
//! catalogs, see its SOURCES.md), and larger catalogs named by environment variables. A variable set
//! to a directory that does not exist stops the run, so a typo never turns into a missing figure.

use std::path::{Path, PathBuf};

/// The repository's root: the benchmarks of crates/fbc-core and of the program share this file.
#[allow(dead_code)]
pub fn repository() -> &'static Path {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|p| p.join("testdata").is_dir())
        .unwrap_or(manifest)
}

/// A directory of testdata/real; panics when it is missing.
#[allow(dead_code)]
pub fn real(name: &str) -> PathBuf {
    let p = repository().join("testdata/real").join(name);
    assert!(
        p.is_dir(),
        "{} is missing (see testdata/real/SOURCES.md)",
        p.display()
    );
    p
}

/// The directories listed in the variable `var` (comma-separated); none when it is unset. Panics
/// when one of them does not exist.
#[allow(dead_code)]
pub fn env_dirs(var: &str) -> Vec<PathBuf> {
    let Ok(value) = std::env::var(var) else {
        return Vec::new();
    };
    value
        .split(',')
        .filter(|d| !d.is_empty())
        .map(|d| {
            let p = PathBuf::from(d);
            assert!(p.is_dir(), "{var}: {} is not a directory", p.display());
            p
        })
        .collect()
}

/// The full copies of the two large real catalogs (certified-operators v4.18, community-operators
/// v4.20), from the directory `FBC_BENCH_REAL` names (laid out as testdata/real, with the
/// catalogs whole); none when it is unset.
#[allow(dead_code)]
pub fn full_real_catalogs() -> Vec<(String, PathBuf)> {
    let Some(root) = env_dirs("FBC_BENCH_REAL").into_iter().next() else {
        return Vec::new();
    };
    [
        (
            "certified-v4.18-yaml",
            "redhat-openshift-ecosystem__certified-operators__catalogs-v4.18",
        ),
        (
            "community-v4.20-yaml",
            "redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20",
        ),
    ]
    .into_iter()
    .map(|(name, dir)| {
        let p = root.join(dir);
        assert!(p.is_dir(), "FBC_BENCH_REAL: {} is missing", p.display());
        (name.to_string(), p)
    })
    .collect()
}

/// The catalogs the load and memory benchmarks measure: slices of the two large real catalogs and
/// a JSON one from testdata/real, the full large catalogs (`FBC_BENCH_REAL`), and generated ones
/// (`FBC_BENCH_CATALOG`).
#[allow(dead_code)]
pub fn load_targets() -> Vec<(String, PathBuf)> {
    let mut targets: Vec<(String, PathBuf)> = [
        (
            "certified-v4.18-slice-yaml",
            "redhat-openshift-ecosystem__certified-operators__catalogs-v4.18",
        ),
        (
            "community-v4.20-slice-yaml",
            "redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20",
        ),
        (
            "descheduler-v4.12-json",
            "openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog",
        ),
    ]
    .into_iter()
    .map(|(name, dir)| (name.to_string(), real(dir)))
    .collect();
    targets.extend(full_real_catalogs());
    for dir in env_dirs("FBC_BENCH_CATALOG") {
        targets.push(("generated".into(), dir));
    }
    targets
}

/// Bytes of every file under `p`.
#[allow(dead_code)]
pub fn dir_size(p: &Path) -> u64 {
    std::fs::read_dir(p)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_size(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}
