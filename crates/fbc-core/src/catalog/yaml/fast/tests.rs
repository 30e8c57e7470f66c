//! The quick reader against the full one: whatever document the quick reader accepts, the full
//! reader reads into exactly the same tree (values, styles, byte ranges, lines and columns). An
//! outline read declines the same documents and gives the same tree with the dropped collections
//! empty; a checked read declines the same documents too, and gives the same tree but for the
//! `olm.csv.metadata` values it checked, which are empty.

use proptest::prelude::*;

use super::bytes::{
    breaks_and_spaces, colon_or_hash, line_end, plain_end, unusual_and_ascii_in, words,
};
use super::{read as fast_read, read_or_line, spaces_end, unusual_and_ascii};
use crate::catalog::gotypes::{PROP_CSV_METADATA, PROP_GVK, PROP_GVK_REQUIRED};
use crate::catalog::node::{Entry, Kind, Node, Style, ThinVec};
use crate::catalog::yaml::{Keep, OUTLINE_DROPS, parse_chunk_full, split_documents};
use trees::{edit, skipper_doc, skipper_tree};

pub(super) mod trees;

/// What an outline read of a document read whole gives: the collections under the top-level keys
/// it drops left empty, everything else as it is.
fn outlined(whole: &Node) -> Node {
    let Kind::Map(entries) = &whole.kind else {
        return whole.clone();
    };
    let entries: ThinVec<Entry> = entries
        .iter()
        .map(|e| {
            let value = match &e.value.kind {
                _ if !OUTLINE_DROPS.contains(&e.key_str()) => e.value.clone(),
                Kind::Seq(_) => {
                    Node::with(Kind::Seq(ThinVec::new()), e.value.pos(), e.value.style())
                }
                Kind::Map(_) => {
                    Node::with(Kind::Map(ThinVec::new()), e.value.pos(), e.value.style())
                }
                _ => e.value.clone(),
            };
            Entry {
                key: e.key.clone(),
                value,
            }
        })
        .collect();
    Node::with(Kind::Map(entries), whole.pos(), whole.style())
}

/// Whether a checked read's tree `checked` is the whole read's `whole`, but for property values
/// left empty that validation finds nothing in: the value of an `olm.csv.metadata`, `olm.gvk` or
/// `olm.gvk.required` property written `type` then `value` alone, a block collection, of the
/// right shape, with no retyped scalar and no `olm.substitutesFor` key.
fn checked_matches(checked: &Node, whole: &Node) -> Result<(), TestCaseError> {
    let (Kind::Map(c), Kind::Map(w)) = (&checked.kind, &whole.kind) else {
        return exact(checked, whole, "");
    };
    let props = |e: &Entry| e.key_str() == "properties" && matches!(e.value.kind, Kind::Seq(_));
    if c.len() != w.len() || !c.iter().zip(w).any(|(a, _)| props(a)) {
        return exact(checked, whole, "");
    }
    exact(
        &Node::with(Kind::Null, checked.pos(), checked.style()),
        &Node::with(Kind::Null, whole.pos(), whole.style()),
        "",
    )?;
    for (a, b) in c.iter().zip(w) {
        exact(&a.key, &b.key, a.key_str())?;
        let (Kind::Seq(ps), Kind::Seq(qs)) = (&a.value.kind, &b.value.kind) else {
            exact(&a.value, &b.value, a.key_str())?;
            continue;
        };
        if !props(a) || ps.len() != qs.len() {
            exact(&a.value, &b.value, a.key_str())?;
            continue;
        }
        exact(
            &Node::with(Kind::Null, a.value.pos(), a.value.style()),
            &Node::with(Kind::Null, b.value.pos(), b.value.style()),
            "properties",
        )?;
        for (i, (p, q)) in ps.iter().zip(qs).enumerate() {
            let path = format!("properties[{i}]");
            let emptied = match (&p.kind, &q.kind) {
                (Kind::Map(pe), Kind::Map(qe)) if pe.len() == 2 && qe.len() == 2 => {
                    let (pv, qv) = (&pe[1].value, &qe[1].value);
                    let empty = match &pv.kind {
                        Kind::Map(m) => m.is_empty(),
                        Kind::Seq(s) => s.is_empty(),
                        _ => false,
                    };
                    let full = match &qv.kind {
                        Kind::Map(m) => !m.is_empty(),
                        Kind::Seq(s) => !s.is_empty(),
                        _ => false,
                    };
                    empty && full
                }
                _ => false,
            };
            if !emptied {
                exact(p, q, &path)?;
                continue;
            }
            let (Kind::Map(pe), Kind::Map(qe)) = (&p.kind, &q.kind) else {
                unreachable!()
            };
            exact(&pe[0].key, &qe[0].key, &path)?;
            exact(&pe[0].value, &qe[0].value, &path)?;
            exact(&pe[1].key, &qe[1].key, &path)?;
            let (pv, qv) = (&pe[1].value, &qe[1].value);
            let why = |m: &str| Err(TestCaseError::fail(format!("{path}: emptied {m}")));
            let st = match qe[0].value.as_str() {
                Some("olm.csv.metadata") => &PROP_CSV_METADATA,
                Some("olm.gvk") => &PROP_GVK,
                Some("olm.gvk.required") => &PROP_GVK_REQUIRED,
                _ => return why("a value that is no olm.csv.metadata or olm.gvk property's"),
            };
            if pe[0].key_str() != "type" || pe[1].key_str() != "value" {
                return why("a value that is no property's");
            }
            if pv.pos() != qv.pos() || pv.style() != qv.style() || qv.style() != Style::Block {
                return why(&format!("at another place {pv:?} {qv:?}"));
            }
            if std::mem::discriminant(&pv.kind) != std::mem::discriminant(&qv.kind) {
                return why("as another kind");
            }
            let found = super::skip::stats::validation_finds(qv, st);
            if !found.is_empty() {
                return why(&format!("a value validation finds something in: {found:?}"));
            }
        }
    }
    Ok(())
}

/// Where two trees differ, as a path and both sides.
fn exact(a: &Node, b: &Node, path: &str) -> Result<(), TestCaseError> {
    if a.pos() != b.pos() || a.style() != b.style() {
        return Err(TestCaseError::fail(format!(
            "{path}: {:?} {:?} vs {:?} {:?}",
            a.pos(),
            a.style(),
            b.pos(),
            b.style()
        )));
    }
    match (&a.kind, &b.kind) {
        (Kind::Seq(x), Kind::Seq(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                exact(p, q, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Kind::Map(x), Kind::Map(y)) if x.len() == y.len() => {
            for (p, q) in x.iter().zip(y) {
                let here = format!("{path}.{}", p.key_str());
                exact(&p.key, &q.key, &format!("{here}(key)"))?;
                exact(&p.value, &q.value, &here)?;
            }
            Ok(())
        }
        (Kind::Seq(_), _) | (Kind::Map(_), _) => {
            Err(TestCaseError::fail(format!("{path}: {a:?} vs {b:?}")))
        }
        (x, y) => {
            let same = match (x, y) {
                (Kind::Null, Kind::Null) => true,
                (Kind::Bool(p), Kind::Bool(q)) => p == q,
                (Kind::Number(p), Kind::Number(q)) => p == q,
                (Kind::String(p), Kind::String(q)) => p == q,
                _ => false,
            };
            if same {
                Ok(())
            } else {
                Err(TestCaseError::fail(format!("{path}: {x:?} vs {y:?}")))
            }
        }
    }
}

/// Checks every document of `text`; gives how many the quick reader took and how many there were.
pub(super) fn check_text(text: &str, name: &str) -> (usize, usize) {
    let (chunks, _) = split_documents(text, 0, 1);
    let mut taken = 0;
    for c in &chunks {
        let outline = read_or_line(text, *c, 0, 7, &mut Default::default(), Keep::Outline);
        let quick = read_or_line(text, *c, 0, 7, &mut Default::default(), Keep::All);
        let checked = read_or_line(text, *c, 0, 7, &mut Default::default(), Keep::Checked);
        assert_eq!(
            (outline.is_ok(), checked.is_ok()),
            (quick.is_ok(), quick.is_ok()),
            "{name}:{}: an outline or checked read declines what a whole read does not, or takes what it declines\n--- text ---\n{}",
            c.line,
            &text[c.start..c.end]
        );
        let quick = match quick {
            Ok(n) => n,
            Err(line) => {
                if std::env::var_os("FBC_YAML_DIFF_WHY").is_some() {
                    let l = text.lines().nth(line.max(1) as usize - 1).unwrap_or("");
                    eprintln!(
                        "declined {name}:{line}: {}",
                        &l[..l.floor_char_boundary(80)]
                    );
                }
                continue;
            }
        };
        taken += 1;
        let full = match parse_chunk_full(text, *c, 7) {
            Ok(d) => d.node,
            Err(e) => panic!(
                "{name}:{}: quick reader accepted, full reader: {e:?}",
                c.line
            ),
        };
        if let Err(e) = exact(&quick, &full, "") {
            panic!(
                "{name}:{}: {e}\n--- text ---\n{}",
                c.line,
                &text[c.start..c.end]
            );
        }
        let outline = outline.unwrap_or_else(|_| unreachable!("taken as the whole read was"));
        if let Err(e) = exact(&outline, &outlined(&full), "") {
            panic!(
                "{name}:{}: outline: {e}\n--- text ---\n{}",
                c.line,
                &text[c.start..c.end]
            );
        }
        let checked = checked.unwrap_or_else(|_| unreachable!("taken as the whole read was"));
        if let Err(e) = checked_matches(&checked, &full) {
            panic!(
                "{name}:{}: checked: {e}\n--- text ---\n{}",
                c.line,
                &text[c.start..c.end]
            );
        }
    }
    (taken, chunks.len())
}

fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        {
            out.push(p);
        }
    }
}

#[test]
fn every_yaml_file_of_the_test_data_reads_the_same() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("testdata");
    let mut files = Vec::new();
    yaml_files(&root, &mut files);
    // Real catalogs, when the variable names where they are.
    if let Some(extra) = std::env::var_os("FBC_YAML_DIFF_DIR") {
        yaml_files(std::path::Path::new(&extra), &mut files);
    }
    assert!(files.len() > 50, "test data found: {}", files.len());
    let (mut taken, mut total) = (0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if text.trim_start().starts_with('{') {
            continue;
        }
        let (t, n) = check_text(&text, &f.display().to_string());
        taken += t;
        total += n;
    }
    eprintln!(
        "quick reader against full reader: {taken} of {total} documents taken, {} files",
        files.len()
    );
    let ((skipped, skipped_bytes), (read, read_bytes)) = super::skip::stats::counts();
    eprintln!(
        "dropped collections skipped: {skipped} ({skipped_bytes} bytes), handed back and read: {read} ({read_bytes} bytes)"
    );
    let ((checked, checked_bytes), (checked_read, checked_read_bytes)) =
        super::skip::stats::checked_counts();
    eprintln!(
        "of which olm.csv.metadata and olm.gvk values checked and skipped: {checked} ({checked_bytes} bytes), handed back and read: {checked_read} ({checked_read_bytes} bytes)"
    );
    // The skipper is there to be used: it skips nearly all the bytes of the collections an outline
    // drops (in the test data, all but a few shapes written to be handed back).
    assert!(
        skipped > 0 && skipped_bytes >= (skipped_bytes + read_bytes) / 10 * 9,
        "skipped {skipped} collections ({skipped_bytes} bytes), read {read} ({read_bytes} bytes)"
    );
    // The quick reader is there to be used: most documents take it (the hand-written catalogs of
    // `testdata/` use flow mappings, which it leaves to the full reader; real catalogs do not).
    assert!(
        taken * 10 >= total * 6,
        "quick reader took {taken} of {total} documents"
    );
}

#[test]
fn catalog_shapes_read_the_same() {
    let text = "\
schema: olm.bundle
name: foo.v1.0.0 # a comment
package: foo
image: 'quay.io/foo:v1'
empty:
nested:
  a: 1
  b: [ ] # flow: left to the full reader
  c: []
  d: {}
  on: yes
  'q': \"x\\ty\\u00e9\"
  ~: 1.10
props:
- type: olm.package
  value:
    packageName: foo
    version: 1.0.0
-
  type: x
- - decline
";
    // The last item and the flow sequence decline; without them every part is taken.
    assert!(
        fast_read(
            text,
            split_documents(text, 0, 1).0[0],
            0,
            0,
            &mut Default::default(),
            Keep::All
        )
        .is_none()
    );
    let ok = text.replace("  b: [ ] # flow: left to the full reader\n", "").replace("- - decline\n", "- plain\n-\n- 'it''s'\nlast: |\n  line one\n\n    two\n  three\nkept: |+\n  x\ntail: |-\n  y\n");
    assert_eq!(check_text(&ok, "shapes"), (1, 1));
    let indentless = "a:\n- 1\n- b: 2\n  c:\n  - x\nd: é: no\n";
    assert_eq!(check_text(indentless, "indentless"), (0, 1));
    let indentless = "a:\n- 1\n- b: 2\n  c:\n  - x\nd: héllo\ne: x\n";
    assert_eq!(check_text(indentless, "indentless"), (1, 1));
}

/// A literal block whose last line holds a line break of Unicode's (NEL, LS, PS) ends, for the full
/// reader, before it: such a document is left to the full reader. Other non-ASCII text is not.
#[test]
fn a_document_with_a_unicode_line_break_is_left_to_the_full_reader() {
    for brk in ["\u{85}", "\u{2028}", "\u{2029}"] {
        for text in [
            format!("a: |\n  {brk}\nb: c\n"),
            format!("a: |\n  x\n  {brk}\n"),
        ] {
            assert_eq!(check_text(&text, "break"), (0, 1), "{text:?}");
        }
    }
    assert_eq!(
        check_text("a: |\n  \u{2027}\u{a0}é\nb: c\n", "other"),
        (1, 1)
    );
}

/// An empty literal block with an explicit indentation (`|6`), and one whose last line ends in a
/// blank, both found by the mutation test, are left to the full reader, whose ranges differ there.
#[test]
fn an_empty_literal_block_with_an_explicit_indentation_is_declined() {
    for text in [
        "k: |6\n",
        "k: |2-\n",
        "k: |6\nl: x\n",
        "'k k': |\n  a\n  b- \n",
        "k: |\n  a\n  \n",
    ] {
        assert_eq!(check_text(text, "empty literal"), (0, 1), "{text:?}");
    }
}

#[test]
fn long_plain_scalars_are_left_on_disk() {
    let blob = "QUJD".repeat(2000);
    let text =
        format!("schema: olm.package\nicon:\n  base64data: {blob}\n  mediatype: image/png\n");
    let (chunks, _) = split_documents(&text, 0, 1);
    let node =
        fast_read(&text, chunks[0], 0, 3, &mut Default::default(), Keep::All).expect("taken");
    let data = node
        .get("icon")
        .and_then(|i| i.get("base64data"))
        .expect("data");
    assert!(matches!(
        &data.kind,
        Kind::String(crate::catalog::node::Str::Deferred {
            file: 3,
            len: 8000,
            ..
        })
    ));
    assert_eq!(check_text(&text, "long"), (1, 1));
}

/// Pieces of catalog-shaped YAML, valid and not.
fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9.-]{0,12}",
        "[0-9]{1,4}(\\.[0-9]{1,3})?",
        Just("yes".to_string()),
        Just("~".to_string()),
        Just("null".to_string()),
        Just("0x1F".to_string()),
        Just(".inf".to_string()),
        Just("-1".to_string()),
        Just("a #c".to_string()),
        Just("a:b".to_string()),
        "'[a-z' ]{0,8}'",
        "\"[a-z\\\\\"nt ]{0,8}\"",
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("&a x".to_string()),
        Just("*a".to_string()),
        Just("é".to_string()),
        Just("QUJD".repeat(1100)),
    ]
}

fn doc(depth: u32) -> BoxedStrategy<String> {
    let leaf = scalar();
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        2 => leaf,
        1 => prop::collection::vec(("[a-z]{1,6}|'k k'|on|1|properties|relatedImages", doc(depth - 1)), 1..4).prop_map(|es| {
            es.into_iter().map(|(k, v)| format!("{k}:{}", nest(&v))).collect::<String>()
        }),
        1 => prop::collection::vec(doc(depth - 1), 1..4)
            .prop_map(|items| items.into_iter().map(|v| format!("-{}", nest(&v))).collect::<String>()),
        1 => "[a-z ]{0,10}".prop_map(|t| format!("|\n  {t}\n  more\n")),
    ]
    .boxed()
}

/// A value after `key:` or `-`: inline when one line, else indented below.
fn nest(v: &str) -> String {
    if v.starts_with('|') {
        format!(" {v}")
    } else if v.contains('\n') {
        let body: String = v.lines().map(|l| format!("  {l}\n")).collect();
        format!("\n{body}")
    } else {
        format!(" {v}\n")
    }
}

/// The generated bundles exercise both sides of the skipper: many of their collections are
/// skipped (and checked), many handed back.
#[test]
fn generated_bundles_are_skipped_and_handed_back() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (skipper_tree(), skipper_tree());
    let (skipped, read) = super::skip::stats::counts();
    for _ in 0..512 {
        let (props, images) = strategy.new_tree(&mut runner).expect("a tree").current();
        check_text(&skipper_doc(&props, &images), "bundle");
    }
    let (skipped_after, read_after) = super::skip::stats::counts();
    let (skipped, read) = (skipped_after.0 - skipped.0, read_after.0 - read.0);
    eprintln!("generated bundles: {skipped} collections skipped, {read} handed back and read");
    assert!(
        skipped >= 100 && read >= 100,
        "skipped {skipped}, read {read}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_documents_read_the_same(d in doc(3)) {
        let text = if d.contains('\n') { d } else { format!("k: {d}\n") };
        check_text(&text, "generated");
    }

    #[test]
    fn mutated_documents_read_the_same(
        d in doc(3),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec![
            " ", "\n", ":", "- ", "#", "'", "\"", "|", ">", "&", "*", "[", "{", "\t", "é", "  ", "---", "\r", "\\", "? ",
        ]), any::<bool>()), 1..4),
    ) {
        let mut text = if d.contains('\n') { d } else { format!("k: {d}\n") };
        edit(&mut text, 0, &edits);
        check_text(&text, "mutated");
    }

    /// Bundles whose dropped collections hold what the skipper must tell apart; every collection
    /// it skips is read again by the scanner and must come out the same
    /// ([`super::skip::stats::check`]).
    #[test]
    fn generated_bundles_read_the_same(props in skipper_tree(), images in skipper_tree()) {
        check_text(&skipper_doc(&props, &images), "bundle");
    }

    /// The same, with indentation, line breaks, comments and indicators put in or taken out.
    #[test]
    fn mutated_bundles_read_the_same(
        props in skipper_tree(),
        images in skipper_tree(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec![
            " ", "  ", "\n", "\n  ", ":", ": ", "- ", "#", " #", "'", "\"", "|", "[]", ".inf", "\\", "---", "\n...", "\n%", "x",
        ]), any::<bool>()), 1..4),
    ) {
        let mut text = skipper_doc(&props, &images);
        // Edits fall in the collections, after the first two lines.
        edit(&mut text, "schema: olm.bundle\nname: a.v1\n".len(), &edits);
        check_text(&text, "mutated bundle");
    }

    #[test]
    fn word_and_vector_searches_find_what_a_byte_at_a_time_finds(
        bytes in prop::collection::vec(prop::sample::select(vec![b' ', b' ', b' ', b'a', b':', b'#', b'\n', 0xc3, 0xa9]), 0..200),
        from in 0usize..200,
        cut in 0usize..200,
        sparse in any::<bool>(),
    ) {
        // Sparse bytes leave long runs with nothing to find, past the vector search's first bytes.
        let bytes: Vec<u8> = if sparse {
            bytes.iter().enumerate().map(|(i, &b)| if i % 23 == 0 { b } else { b'a' }).collect()
        } else {
            bytes
        };
        let from = from.min(bytes.len());
        let naive = bytes[from..].iter().position(|&b| b != b' ').map_or(bytes.len(), |p| from + p);
        prop_assert_eq!(spaces_end(&bytes, from, bytes.len()), naive);
        let naive: Vec<usize> = (from..bytes.len()).filter(|&p| matches!(bytes[p], b':' | b'#')).collect();
        prop_assert_eq!(every_colon_or_hash(&bytes, from, bytes.len()), naive);
        let naive = bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| from + p);
        prop_assert_eq!(line_end(&bytes, from, bytes.len()), naive);
        // Searches stopping before the text's end: at a line's end, and anywhere.
        let eol = line_end(&bytes, from, bytes.len());
        prop_assert_eq!(plain_end(&bytes[from..eol]), naive_plain_end(&bytes[from..eol]));
        let end = cut.clamp(from, bytes.len());
        prop_assert_eq!(plain_end(&bytes[from..end]), naive_plain_end(&bytes[from..end]));
        let naive: Vec<usize> = (from..end).filter(|&p| matches!(bytes[p], b':' | b'#')).collect();
        prop_assert_eq!(every_colon_or_hash(&bytes, from, end), naive);
        let naive = bytes[from..end].iter().position(|&b| b == b'\n').map_or(end, |p| from + p);
        prop_assert_eq!(line_end(&bytes, from, end), naive);
        prop_assert_eq!(unusual_and_ascii(&bytes).1, bytes.is_ascii());
        let naive = bytes.get(from..from + 64).map(|w| {
            let bits = |c: u8| (0..64).filter(|&k| w[k] == c).fold(0u64, |m, k| m | 1 << k);
            (bits(b'\n'), bits(b' '))
        });
        prop_assert_eq!(breaks_and_spaces(&bytes, from), naive);
    }

    /// A document's bytes are told unusual (control characters but the line break, DEL, a byte
    /// order mark's first byte) and ASCII the same way with the wide vectors and without them.
    #[test]
    fn unusual_bytes_are_found_with_vectors_or_without(
        bytes in prop::collection::vec(prop::sample::select(vec![b'a', b'a', b'a', b' ', b'\n', b'\t', b'\r', 0, 0x1f, 0x7f, 0xef, 0xc3, 0xa9]), 0..300),
        plain in 0usize..300,
    ) {
        // Most of it plain, so that the one unusual byte falls anywhere in a long document.
        let bytes: Vec<u8> = bytes.iter().enumerate().map(|(i, &b)| if i < plain { b'a' } else { b }).collect();
        let unusual = bytes.iter().any(|&b| (b < 0x20 && b != b'\n') || b == 0x7f || b == 0xef);
        let naive = (unusual, !unusual && bytes.is_ascii());
        let (found, ascii) = unusual_and_ascii(&bytes);
        prop_assert_eq!(found, naive.0);
        if !found {
            prop_assert_eq!(ascii, naive.1);
        }
        prop_assert_eq!(unusual_and_ascii_in(&bytes), unusual_and_ascii(&bytes));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The word-at-a-time test of sixteen bytes, used where there are no vector instructions, marks
    /// exactly the bytes searched for.
    #[test]
    fn sixteen_bytes_are_tested_a_word_at_a_time_exactly(
        chunk in prop::array::uniform16(prop::sample::select(vec![0u8, 1, b':', b'#', b'\n', b' ', 0x7f, 0x80, 0xba, 0xff, 0xa3])),
        a in prop::sample::select(vec![b':', b'\n', 0x80, 0xff]),
        b in prop::sample::select(vec![b'#', b'\n', 0x7f, 0u8]),
    ) {
        let naive = chunk.iter().enumerate().fold(0, |m, (k, &c)| m | (u32::from(c == a || c == b) << k));
        prop_assert_eq!(words(&chunk, a, b), naive);
    }
}

/// Each `:` and `#` of bytes `from..end`, one search after another.
fn every_colon_or_hash(b: &[u8], from: usize, end: usize) -> Vec<usize> {
    let search = |at: usize| colon_or_hash(&b[at..end]).map(|p| at + p);
    std::iter::successors(search(from), |&p| search(p + 1)).collect()
}

/// [`plain_end`] a byte at a time.
fn naive_plain_end(line: &[u8]) -> (usize, bool) {
    let mut stop = line.len();
    for p in 1..line.len() {
        if line[p] == b':' && (p + 1 == line.len() || line[p + 1] == b' ') {
            return (p, true);
        }
        if line[p] == b'#' && line[p - 1] == b' ' {
            stop = p;
            break;
        }
    }
    (
        line[..stop]
            .iter()
            .rposition(|&b| b != b' ')
            .map_or(0, |p| p + 1),
        false,
    )
}
