//! Property tests: no input makes the loader (or validation and the graphs after it) panic, and every
//! problem names its file.

use std::path::Path;

use fbc_core::catalog::decode::{decode, meta};
use fbc_core::catalog::{Severity, load};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Small real files, JSON and YAML, to mutate.
fn seeds() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        "testdata/indexignore/etcd.yaml",
        "testdata/real/operator-framework__operator-registry__index-declcfgs-latest/index.yaml",
        "testdata/real/operator-framework__catalogd__testdata-test-catalog/expected_all.json",
        "testdata/real/stolostron__gatekeeper-operator-fbc__catalog-4-17/package.yaml",
    ]
    .iter()
    .map(|p| std::fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("seed {p}: {e}")))
    .collect()
}

fn check_text(text: &str) {
    let mut diags = Vec::new();
    let docs = decode(text, 0, "f.yaml", &mut diags);
    for d in &docs {
        assert!(d.start <= d.end && d.end <= text.len());
        assert!(d.node.pos().end as usize <= text.len());
        let _ = meta(&d.node, "f.yaml");
    }
    for d in &diags {
        assert_eq!(d.location.file, "f.yaml");
        if d.severity == Severity::Error {
            assert!(!d.message.is_empty());
        }
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let tokens = prop::sample::select(vec![
        b"---\n".to_vec(),
        b"{".to_vec(),
        b"}".to_vec(),
        b"[".to_vec(),
        b"\"".to_vec(),
        b"'".to_vec(),
        b": ".to_vec(),
        b"\n  - ".to_vec(),
        b"&a ".to_vec(),
        b"*a".to_vec(),
        b"<<: *a\n".to_vec(),
        b"\t".to_vec(),
        b"\\u12".to_vec(),
        b"...\n".to_vec(),
        b"|\n".to_vec(),
        b"#".to_vec(),
        vec![0xff],
        vec![0],
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), tokens).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        if bytes.is_empty() {
            break;
        }
        match m {
            Mutation::Flip(i, b) => {
                let i = i % bytes.len();
                bytes[i] = *b;
            }
            Mutation::Insert(i, t) => {
                let i = i % (bytes.len() + 1);
                bytes.splice(i..i, t.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let i = i % bytes.len();
                let e = (i + n).min(bytes.len());
                bytes.drain(i..e);
            }
            Mutation::Truncate(i) => {
                let i = i % bytes.len();
                bytes.truncate(i);
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,200}") {
        check_text(&s);
    }

    #[test]
    fn yamlish_text_never_panics(s in "([-:{}\\[\\]#&*!|>'\" \n\ta-z0-9.]|---\n){0,120}") {
        check_text(&s);
    }

    #[test]
    fn mutated_real_files_never_panic(seed in 0usize..4, muts in prop::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let base = seeds[seed % seeds.len()].clone().into_bytes();
        let bytes = apply(base, &muts);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            check_text(text);
        }
    }

    #[test]
    fn random_bytes_on_disk_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("blob.bin"), &bytes).unwrap();
        let c = load(tmp.path()).unwrap();
        for d in &c.diagnostics {
            prop_assert!(d.location.file == "blob.bin" || d.location.file == ".");
        }
    }
}

#[test]
fn mutated_files_on_disk_never_panic_and_keep_the_rest() {
    let seeds = seeds();
    assert!(seeds.len() >= 3, "seed files missing");
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prop::collection::vec(mutation(), 1..5);
    for round in 0..40 {
        let muts = strategy.new_tree(&mut runner).unwrap().current();
        let tmp = tempfile::tempdir().unwrap();
        let broken = apply(seeds[round % seeds.len()].clone().into_bytes(), &muts);
        std::fs::write(tmp.path().join("broken.yaml"), &broken).unwrap();
        std::fs::write(
            tmp.path().join("good.yaml"),
            "schema: olm.package\nname: survivor\ndefaultChannel: stable\n",
        )
        .unwrap();
        let c = load(tmp.path()).unwrap();
        assert!(c.index().package("survivor").is_some(), "round {round}");
        // Validation, the graphs and their exports take whatever loaded without panicking, and an
        // invalid catalog is never called valid when loading already failed.
        let report = fbc_core::validate::validate(&c);
        if c.diagnostics.iter().any(|d| d.severity == Severity::Error) {
            assert!(!report.is_valid(), "round {round}");
        }
        let _ = fbc_core::validate::opm::render(&c, &report.diagnostics);
        for g in fbc_core::graph::channel::all_channel_graphs(&c) {
            let _ = fbc_core::graph::layout::layout(&g);
        }
        let sel = fbc_core::graph::export::Selection::default();
        let _ = fbc_core::graph::export::mermaid(&c, &sel, &Default::default());
        let _ = fbc_core::graph::export::dot(&c, &sel);
    }
}
