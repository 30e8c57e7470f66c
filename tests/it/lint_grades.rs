//! Lints graded so that people keep them switched on: what OLM tolerates in healthy catalogs is a
//! note (many of one kind grouped on one line), what is worth acting on stays a warning.

use fbc_core::catalog::{Severity, load};
use fbc_core::validate::{codes, validate};

/// A package `p` with one channel; each entry `(name, version, extra lines)`.
fn catalog(entries: &[(&str, &str, &str)]) -> tempfile::TempDir {
    let mut y = String::from(
        "---\nschema: olm.package\nname: p\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: p\nname: stable\nentries:\n",
    );
    for (name, _, extra) in entries {
        y.push_str(&format!("- name: {name}\n{extra}"));
    }
    for (name, version, _) in entries {
        y.push_str(&format!(
            "---\nschema: olm.bundle\npackage: p\nname: {name}\nimage: quay.io/p/b:{version}\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: {version}\n"
        ));
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("catalog.yaml"), y).unwrap();
    tmp
}

fn graded(dir: &tempfile::TempDir, code: &str) -> Vec<(Severity, String, usize)> {
    validate(&load(dir.path()).unwrap())
        .diagnostics
        .into_iter()
        .filter(|d| d.code == code)
        .map(|d| (d.severity, d.message, d.related.len()))
        .collect()
}

#[test]
fn skips_of_pruned_releases_are_one_note_per_channel() {
    let dir = catalog(&[
        ("p.v1.0.0", "1.0.0", ""),
        (
            "p.v2.0.0",
            "2.0.0",
            "  replaces: p.v1.0.0\n  skips:\n  - p.v0.7.0\n  - p.v0.8.0\n  - p.v0.9.0\n",
        ),
    ]);
    assert_eq!(
        graded(&dir, codes::DANGLING_EDGE),
        vec![(
            Severity::Info,
            "3 skips in channel \"stable\" name bundles in no channel of package \"p\" (releases pruned from the catalog, which OLM tolerates): p.v0.7.0 … p.v0.9.0".to_string(),
            2
        )]
    );
}

#[test]
fn a_skip_that_looks_like_a_typo_stays_a_warning() {
    let dir = catalog(&[
        ("p.v1.0.0", "1.0.0", ""),
        (
            "p.v1.1.0",
            "1.1.0",
            "  replaces: p.v1.0.0\n  skips:\n  - p.1.0.0\n",
        ),
    ]);
    let got = graded(&dir, codes::DANGLING_EDGE);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, Severity::Warning);
    assert!(got[0].1.contains("the package has \"p.v1.0.0\""), "{got:?}");
}

#[test]
fn a_range_bounded_by_its_own_release_is_a_note() {
    // ART's convention: every 4.17.0 build skips up to <4.17.0, which prerelease ordering puts above
    // the build's own version.
    let dir = catalog(&[
        (
            "p.v4.17.0-1",
            "4.17.0-1",
            "  skipRange: '>=4.16.0 <4.17.0'\n",
        ),
        (
            "p.v4.17.0-2",
            "4.17.0-2",
            "  replaces: p.v4.17.0-1\n  skipRange: '>=4.16.0 <4.17.0'\n",
        ),
    ]);
    let got = graded(&dir, codes::SKIP_RANGE_ABOVE_VERSION);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(|g| g.0 == Severity::Info), "{got:?}");
    assert!(
        got[0].1.contains("ends at its own release 4.17.0, above its prerelease version 4.17.0-1: it also matches 1 newer build"),
        "{got:?}"
    );
    // A bound above the entry's own release stays a warning.
    let dir = catalog(&[
        ("p.v1.0.0", "1.0.0", ""),
        (
            "p.v1.2.0",
            "1.2.0",
            "  replaces: p.v1.0.0\n  skipRange: '>=1.0.0 <1.3.0'\n",
        ),
    ]);
    assert_eq!(
        graded(&dir, codes::SKIP_RANGE_ABOVE_VERSION)[0].0,
        Severity::Warning
    );
}

#[test]
fn a_range_below_every_version_is_a_note_and_an_empty_one_a_warning() {
    let dir = catalog(&[
        ("p.v1.0.0", "1.0.0", "  skipRange: '>=0.1.0 <1.0.0'\n"),
        (
            "p.v1.1.0",
            "1.1.0",
            "  replaces: p.v1.0.0\n  skipRange: '>=1.1.0 <1.1.0'\n",
        ),
    ]);
    let got = graded(&dir, codes::SKIP_RANGE_MATCHES_NOTHING);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, Severity::Info, "{got:?}");
    assert_eq!(got[1].0, Severity::Warning, "{got:?}");
    assert!(got[1].1.ends_with("so it can never match"), "{got:?}");
}
