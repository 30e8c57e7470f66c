//! Property test of write-back: random edits of real blobs, saved as text and read again, give exactly
//! the edited values; blobs that were not edited keep their bytes.

use crate::common;
use common::real_root;

use std::path::Path;

use fbc_core::catalog::{Kind, Node, load};

use common::Rng;

fn random_scalar(rng: &mut Rng) -> Node {
    let words = [
        "plain",
        "yes",
        "1.10",
        "",
        "with: colon",
        "#hash",
        "- dash",
        "multi\nline\n",
        "tab\there",
        "quote'd",
        "\"dq\"",
        "ünïcode",
        "on",
        "null",
        "0x1F",
        "  lead",
        "trail ",
    ];
    match rng.below(6) {
        0 => Node::new(Kind::Number(format!("{}", rng.below(1000)).into())),
        1 => Node::new(Kind::Bool(rng.below(2) == 0)),
        2 => Node::new(Kind::Null),
        _ => Node::string(words[rng.below(words.len())]),
    }
}

fn random_value(rng: &mut Rng, depth: usize) -> Node {
    if depth == 0 {
        return random_scalar(rng);
    }
    match rng.below(4) {
        0 => Node::seq((0..rng.below(3)).map(|_| random_value(rng, depth - 1))),
        1 => {
            let n = rng.below(3);
            let keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            Node::map(
                keys.iter()
                    .map(|k| (k.as_str(), random_value(rng, depth - 1)))
                    .collect(),
            )
        }
        _ => random_scalar(rng),
    }
}

/// One random edit somewhere in `node`.
fn mutate(node: &mut Node, rng: &mut Rng, depth: usize) {
    let descend = depth < 6 && rng.below(3) != 0;
    match &mut node.kind {
        Kind::Map(entries) if !entries.is_empty() => {
            let i = rng.below(entries.len());
            if descend && !matches!(entries[i].key_str(), "schema" | "package" | "name") {
                return mutate(&mut entries[i].value, rng, depth + 1);
            }
            match rng.below(3) {
                0 if depth > 0 => {
                    entries.remove(i);
                }
                1 => {
                    let key = format!("added{}", rng.below(100));
                    if !entries.iter().any(|e| e.key_str() == key) {
                        let at = rng.below(entries.len() + 1);
                        entries.insert(
                            at,
                            fbc_core::catalog::Entry {
                                key: Node::string(key.as_str()),
                                value: random_value(rng, 2),
                            },
                        );
                    }
                }
                _ if depth > 0 => entries[i].value = random_value(rng, 2),
                _ => {}
            }
        }
        Kind::Seq(items) if !items.is_empty() => {
            let i = rng.below(items.len());
            if descend {
                return mutate(&mut items[i], rng, depth + 1);
            }
            match rng.below(3) {
                0 => {
                    items.remove(i);
                }
                1 => {
                    let v = random_value(rng, 2);
                    items.insert(rng.below(items.len() + 1), v);
                }
                _ => items[i] = random_value(rng, 2),
            }
        }
        _ => *node = random_value(rng, 2),
    }
}

fn check_dir(src: &Path, rounds: usize, seed: u64) {
    let mut rng = Rng(seed);
    let mut changed_files = 0;
    for round in 0..rounds {
        let mut catalog = load(src).unwrap();
        let edits = 1 + rng.below(3);
        let mut touched = Vec::new();
        for _ in 0..edits {
            let id = rng.below(catalog.blobs.len());
            let mut r = Rng(rng.next());
            catalog.edit(id, |n| mutate(n, &mut r, 0));
            touched.push(id);
        }
        let changes = catalog.pending_changes().unwrap();
        for (f, old, new) in changes {
            changed_files += 1;
            let tmp = tempfile::tempdir().unwrap();
            let name = Path::new(&catalog.files[f].path)
                .file_name()
                .unwrap()
                .to_owned();
            std::fs::write(tmp.path().join(&name), &new).unwrap();
            let back = load(tmp.path()).unwrap();
            let want: Vec<serde_json::Value> = catalog.files[f]
                .blobs
                .iter()
                .map(|&b| catalog.to_json(&catalog.blob(b).value).unwrap())
                .collect();
            let got: Vec<serde_json::Value> = back
                .blobs
                .iter()
                .map(|b| back.to_json(&b.value).unwrap())
                .collect();
            assert!(
                back.diagnostics.is_empty() && want == got,
                "round {round} in {}: {:?}\n--- old\n{}\n--- new\n{}",
                catalog.files[f].path,
                back.diagnostics,
                excerpt(&old, &new),
                ""
            );
            // Blobs that were not touched keep their exact text.
            for &b in &catalog.files[f].blobs {
                if !touched.contains(&b) {
                    let blob = catalog.blob(b);
                    let text = &old[blob.start..blob.end];
                    assert!(new.contains(text), "untouched blob text changed");
                }
            }
        }
    }
    assert!(
        changed_files * 2 > rounds,
        "only {changed_files} of {rounds} rounds changed anything"
    );
}

/// The changed region of two texts, for failure messages.
fn excerpt(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    diff.unified_diff().context_radius(2).to_string()
}

#[test]
fn random_edits_of_yaml_read_back_exactly() {
    let dir = real_root().join("operator-framework__operator-registry__index-declcfgs-latest");
    check_dir(&dir, 150, 1);
}

#[test]
fn random_edits_of_indented_yaml_read_back_exactly() {
    let dir = real_root().join("stolostron__submariner-operator-fbc__catalog-4-18/channels");
    check_dir(&dir, 150, 2);
}

#[test]
fn random_edits_of_json_read_back_exactly() {
    let dir = real_root().join("operator-framework__catalogd__testdata-test-catalog");
    check_dir(&dir, 150, 3);
    let dir = real_root().join("openshift__cluster-kube-descheduler-operator__fbc-v4.20-catalog");
    check_dir(&dir, 60, 4);
}
