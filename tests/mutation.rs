//! Hostile and broken inputs, kept in the suite: catalogs (YAML and JSON), a bundle directory, a
//! package-manifest directory and templates from `testdata/`, each case mutated a few times (truncated,
//! bytes flipped, lines deleted or doubled, values of the wrong type, deep nesting, huge strings,
//! invalid UTF-8, NUL, anchors, aliases and alias bombs, `---` in odd places) and run through loading,
//! validation, the graphs and their exports, upgrade paths, diff, an edit and its preview, bundle
//! checking and rendering, migration and template rendering. No case may panic, run past its time
//! budget or allocate past its memory budget; every problem names a file, and the parts of a catalog
//! that were not touched still load.
//!
//! `FBC_EDIT_MUTATIONS=N` runs N cases instead of the default few hundred (cases are numbered and
//! deterministic: `FBC_EDIT_MUTATION_FIRST=K` starts at case K to replay one;
//! `FBC_EDIT_MUTATION_VERBOSE=1` says what each case did, its time and its memory).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use fbc_edit::catalog::{Catalog, Severity, load};

#[path = "support/mutation.rs"]
mod support;

use support::{CASE, LIVE, PEAK, Rng};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Catalog,
    Bundle,
    Manifests,
    Template,
}

/// A directory to copy and the file in it to mutate.
struct Seed {
    kind: Kind,
    dir: PathBuf,
    file: &'static str,
    /// Packages that must still load whatever happens to `file`.
    survivors: &'static [&'static str],
}

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn seeds() -> Vec<Seed> {
    let s = |kind, dir: PathBuf, file, survivors| Seed {
        kind,
        dir,
        file,
        survivors,
    };
    vec![
        s(
            Kind::Catalog,
            local("assets/demo-catalog"),
            "cache-operator/catalog.yaml",
            &["backup-operator", "metrics-gateway"],
        ),
        s(
            Kind::Catalog,
            local("assets/demo-catalog"),
            "cache-operator/deprecations.yaml",
            &["backup-operator", "metrics-gateway"],
        ),
        s(
            Kind::Catalog,
            local("assets/demo-catalog"),
            "backup-operator/channels/stable.yaml",
            &["cache-operator", "metrics-gateway"],
        ),
        s(
            Kind::Catalog,
            local("assets/demo-catalog"),
            "metrics-gateway/catalog.json",
            &["backup-operator", "cache-operator"],
        ),
        s(
            Kind::Catalog,
            local("testdata/save/split-package"),
            "foo/package.yaml",
            &[],
        ),
        s(
            Kind::Catalog,
            local("testdata/indexignore"),
            "etcd.yaml",
            &[],
        ),
        s(
            Kind::Catalog,
            local("testdata/graph/skiprange"),
            "catalog.yaml",
            &[],
        ),
        s(
            Kind::Bundle,
            local("testdata/bundles/foo-v0.2.0"),
            "manifests/foo.v0.2.0.clusterserviceversion.yaml",
            &[],
        ),
        s(
            Kind::Bundle,
            local("testdata/bundles/foo-v0.2.0"),
            "metadata/annotations.yaml",
            &[],
        ),
        s(
            Kind::Bundle,
            local("testdata/bundles/foo-v0.2.0"),
            "manifests/foo-config.configmap.json",
            &[],
        ),
        s(
            Kind::Manifests,
            local("testdata/migrate/etcd"),
            "etcd.package.yaml",
            &[],
        ),
        s(
            Kind::Manifests,
            local("testdata/migrate/etcd"),
            "0.9.2/etcdoperator.v0.9.2.clusterserviceversion.yaml",
            &[],
        ),
        s(
            Kind::Template,
            local("testdata/templates"),
            "basic.yaml",
            &[],
        ),
        s(
            Kind::Template,
            local("testdata/templates"),
            "semver.yaml",
            &[],
        ),
        // Real files written by others: a rendered package, a basic template with PascalCase-free
        // keys and wrapped lines, and a semver template with PascalCase keys.
        s(
            Kind::Catalog,
            local("testdata/release/catalogs/v4.20"),
            "rabbitmq-messaging-topology-operator/catalog.yaml",
            &[],
        ),
        s(
            Kind::Template,
            local(
                "testdata/release/operators/rabbitmq-messaging-topology-operator/catalog-templates",
            ),
            "v4.20.yaml",
            &[],
        ),
        s(
            Kind::Template,
            local("testdata/release/operators/konflux/catalog-templates"),
            "semver.yaml",
            &[],
        ),
    ]
}

fn line_starts(b: &[u8]) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(
        b.iter()
            .enumerate()
            .filter(|(_, c)| **c == b'\n')
            .map(|(i, _)| i + 1)
            .filter(|&i| i < b.len()),
    );
    v
}

/// One mutation of `bytes`; returns what it did.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>, huge: usize) -> &'static str {
    let lines = line_starts(bytes);
    let line = *rng.pick(&lines);
    let line_end = bytes[line..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(bytes.len(), |p| line + p + 1);
    let at = rng.below(bytes.len() + 1);
    // The value after the first `: ` of the line, if any.
    let value = bytes[line..line_end]
        .windows(2)
        .position(|w| w == b": ")
        .map(|p| {
            (
                line + p + 2,
                line_end - usize::from(line_end > line && bytes[line_end - 1] == b'\n'),
            )
        });
    match rng.below(13) {
        0 => {
            bytes.truncate(at);
            "truncated"
        }
        1 => {
            if !bytes.is_empty() {
                let i = rng.below(bytes.len());
                bytes[i] = rng.next() as u8;
            }
            "flipped a byte"
        }
        2 => {
            bytes.drain(line..line_end);
            "deleted a line"
        }
        3 => {
            let copy = bytes[line..line_end].to_vec();
            bytes.splice(line_end..line_end, copy);
            "doubled a line (duplicate key)"
        }
        4 => {
            let wrong: &[&[u8]] = &[
                b"[]",
                b"{}",
                b"1",
                b"-3.5e9",
                b"true",
                b"null",
                b"~",
                b"\"\"",
                b"[a, [b]]",
                b"{a: [}",
                b"!!binary AAAA",
                b"0x1F",
                b"1.10",
                b"yes",
            ];
            let w = rng.pick(wrong).to_vec();
            match value {
                Some((s, e)) => {
                    bytes.splice(s..e, w);
                }
                None => {
                    bytes.splice(at..at, w);
                }
            }
            "gave a value the wrong type"
        }
        5 => {
            let depth = 50 + rng.below(400);
            let mut deep = b"deep: ".to_vec();
            let (open, close) = if rng.below(2) == 0 {
                (b"[".as_slice(), b"]".as_slice())
            } else {
                (b"{a: ".as_slice(), b"}".as_slice())
            };
            for _ in 0..depth {
                deep.extend_from_slice(open);
            }
            for _ in 0..depth {
                deep.extend_from_slice(close);
            }
            deep.push(b'\n');
            bytes.splice(line..line, deep);
            "nested deeply"
        }
        6 => {
            let long = vec![b'A'; huge];
            match value {
                Some((s, e)) => {
                    bytes.splice(s..e, long);
                }
                None => {
                    bytes.splice(at..at, long);
                }
            }
            "put in a huge string"
        }
        7 => {
            bytes.splice(at..at, [0xffu8, 0xfe, 0xc3]);
            "added invalid UTF-8"
        }
        8 => {
            bytes.insert(at, 0);
            "added a NUL"
        }
        9 => {
            if let Some((s, _)) = value {
                bytes.splice(s..s, b"&x ".iter().copied());
            }
            let other = *rng.pick(&lines);
            bytes.splice(
                other..other,
                b"alias: *x\nmerged:\n  <<: *x\n".iter().copied(),
            );
            "added an anchor and aliases"
        }
        10 => {
            let mut bomb = b"---\nschema: olm.package\nname: lol\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n".to_vec();
            for i in 1..9 {
                let prev = format!("*a{}", i - 1);
                bomb.extend(format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")).bytes());
            }
            bytes.splice(line..line, bomb);
            "added an alias bomb"
        }
        11 => {
            let sep: &[&[u8]] = &[b"---\n", b"--- x\n", b"---", b"...\n", b"--- # c\n---\n"];
            let s = rng.pick(sep).to_vec();
            bytes.splice(at..at, s);
            "put a document separator in an odd place"
        }
        _ => {
            let tokens: &[&[u8]] = &[
                b"{",
                b"}",
                b"[",
                b"]",
                b",",
                b"\"",
                b"'",
                b": ",
                b"\n  - ",
                b"\t",
                b"|\n",
                b">-\n",
                b"#",
                b"? ",
                b"!tag ",
                b"%YAML 1.1\n",
                b"\\u12",
            ];
            let t = rng.pick(tokens).to_vec();
            bytes.splice(at..at, t);
            "added a stray token"
        }
    }
}

/// Runs everything a user could run on a catalog.
fn exercise_catalog(root: &Path, original: &Catalog, survivors: &[&str]) {
    let c = load(root).unwrap();
    for d in &c.diagnostics {
        assert!(!d.location.file.is_empty(), "a problem without a file: {d}");
    }
    for p in survivors {
        assert!(c.index().package(p).is_some(), "{p} no longer loads");
    }
    let report = fbc_edit::validate::validate(&c);
    if c.diagnostics.iter().any(|d| d.severity == Severity::Error) {
        assert!(
            !report.is_valid(),
            "a catalog that failed to load is called valid"
        );
    }
    let _ = fbc_edit::validate::opm::render(&c, &report.diagnostics);
    let graphs = fbc_edit::graph::channel::all_channel_graphs(&c);
    for g in &graphs {
        let _ = fbc_edit::graph::layout::layout(g);
        if let Some(first) = g.graph.node_indices().next()
            && let Some(from) = fbc_edit::graph::query::Installed::resolve(g, &g.graph[first].name)
        {
            let _ = fbc_edit::graph::query::path_to_head(g, &from);
            let _ = fbc_edit::graph::query::v0_offers(g, &from);
            let _ = fbc_edit::graph::query::v1_successors(&[g], &from);
        }
    }
    // The catalog written out anew, as render and migrate write whole catalogs.
    let values: Vec<serde_json::Value> = c
        .blobs
        .iter()
        .filter_map(|b| c.to_json(&b.value).ok())
        .collect();
    let _ = fbc_edit::catalog::emit::write_fbc(&values, fbc_edit::catalog::emit::OutFormat::Json);
    let _ = fbc_edit::catalog::emit::write_fbc(&values, fbc_edit::catalog::emit::OutFormat::Yaml);
    let sel = fbc_edit::graph::export::Selection::default();
    let _ = fbc_edit::graph::export::mermaid(&c, &sel, &Default::default());
    let _ = fbc_edit::graph::export::dot(&c, &sel);
    let d = fbc_edit::diff::diff(original, &c);
    let _ = fbc_edit::diff::text(&d);
    let _ = fbc_edit::diff::markdown(&d);
    // An edit on whatever loaded, and the diff a save would write (nothing is saved).
    let target = graphs.iter().find(|g| !g.default);
    let mut ws = fbc_edit::workspace::Workspace::open(c);
    if let Some(g) = target
        && ws
            .apply(fbc_edit::edit::Edit::SetDefaultChannel {
                package: g.package.clone(),
                channel: g.channel.clone(),
            })
            .is_ok()
    {
        let _ = ws.preview();
        ws.undo();
    }
}

fn exercise(seed: &Seed, root: &Path, original: &Catalog, templates_source: &Path) {
    match seed.kind {
        Kind::Catalog => exercise_catalog(root, original, seed.survivors),
        Kind::Bundle => {
            let check = fbc_edit::bundle::check_dir(root);
            for d in &check.diagnostics {
                assert!(!d.location.file.is_empty(), "a problem without a file: {d}");
            }
            let _ = fbc_edit::bundle::render_dir(
                root,
                &fbc_edit::bundle::RenderOptions {
                    image: Some("test.registry/foo-bundle:v0.2.0".into()),
                    csv_metadata: true,
                    ..Default::default()
                },
            );
        }
        Kind::Manifests => {
            let opts = fbc_edit::migrate::Options {
                image_template: Some("r/{package}:{version}".into()),
                ..Default::default()
            };
            if let Ok(m) = fbc_edit::migrate::migrate(root, &opts) {
                let out = root.parent().unwrap().join("migrated");
                let _ = m.write(&out);
            }
        }
        Kind::Template => {
            let file = root.join(seed.file);
            if let Ok(Ok(t)) = fbc_edit::template::read(&file) {
                let mut sources = fbc_edit::template::source::Sources::new();
                sources.push(
                    fbc_edit::template::source::CatalogSource::load(templates_source).unwrap(),
                );
                if let Ok(r) = t.render(&sources, fbc_edit::template::OpmVersion::DEFAULT) {
                    let _ = r.to_text(fbc_edit::catalog::emit::OutFormat::Yaml);
                }
            }
            // Opened for editing: a semver edit (refused by a basic template) and its preview.
            if let Ok(mut ws) = fbc_edit::workspace::template::TemplateWorkspace::open(
                &file,
                Box::new(fbc_edit::template::Sources::new()),
            ) {
                let edit = fbc_edit::template::edit::TemplateEdit::Semver(
                    fbc_edit::template::edit::SemverEdit::SetFlag {
                        flag: fbc_edit::template::edit::SemverFlag::GenerateMajorChannels,
                        value: true,
                    },
                );
                if ws.apply(edit).is_ok() {
                    let _ = ws.preview();
                    ws.undo();
                }
            }
        }
    }
}

#[test]
fn mutated_inputs_never_panic_hang_or_blow_up() {
    let cases: u64 = std::env::var("FBC_EDIT_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let first: u64 = std::env::var("FBC_EDIT_MUTATION_FIRST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let time_budget = Duration::from_secs(20);
    let memory_budget: usize = 512 << 20;
    let huge = 1 << 20;

    let seeds = std::sync::Arc::new(seeds());
    let originals: std::sync::Arc<Vec<Catalog>> =
        std::sync::Arc::new(seeds.iter().map(|s| load(&s.dir).unwrap()).collect());
    let templates_source = local("testdata/add-bundle");
    let verbose = std::env::var_os("FBC_EDIT_MUTATION_VERBOSE").is_some();
    let mut slowest = (Duration::ZERO, 0);
    let mut hungriest = (0usize, 0);
    let started = Instant::now();

    for case in first..first + cases {
        let mut rng = Rng(case);
        let which = rng.below(seeds.len());
        let seed = &seeds[which];
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("input");
        copy_dir(&seed.dir, &root);
        let file = root.join(seed.file);
        let mut bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut done = Vec::new();
        for _ in 0..1 + rng.below(4) {
            done.push(mutate(&mut rng, &mut bytes, huge));
        }
        std::fs::write(&file, &bytes).unwrap();
        let what = format!(
            "case {case}: {} of {} ({})",
            seed.file,
            seed.dir.display(),
            done.join(", ")
        );

        CASE.store(case, Ordering::Relaxed);
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let t0 = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let seeds = seeds.clone();
            let originals = originals.clone();
            let root = root.clone();
            let templates_source = templates_source.clone();
            std::thread::spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    exercise(&seeds[which], &root, &originals[which], &templates_source)
                }));
                let _ = tx.send(r.err().map(|e| {
                    e.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                }));
            });
        }
        match rx.recv_timeout(time_budget) {
            Ok(None) => {}
            Ok(Some(panic)) => panic!("{what}: panicked: {panic}"),
            Err(_) => panic!("{what}: still running after {time_budget:?}"),
        }
        let took = t0.elapsed();
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
        assert!(
            peak <= memory_budget,
            "{what}: used {} MB, over the {} MB budget",
            peak >> 20,
            memory_budget >> 20
        );
        if verbose {
            eprintln!(
                "{what}: {took:.1?}, {:.1} MB",
                peak as f64 / (1u64 << 20) as f64
            );
        }
        if took > slowest.0 {
            slowest = (took, case);
        }
        if peak > hungriest.0 {
            hungriest = (peak, case);
        }
    }
    eprintln!(
        "{cases} mutation cases in {:.1?} ({:.1?} per case); slowest: case {} ({:.1?}); most memory: case {} ({:.1} MB)",
        started.elapsed(),
        started.elapsed() / cases.max(1) as u32,
        slowest.1,
        slowest.0,
        hungriest.1,
        hungriest.0 as f64 / (1u64 << 20) as f64
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}
