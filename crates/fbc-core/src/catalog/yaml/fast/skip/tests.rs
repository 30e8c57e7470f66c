//! Skips proved right and hand-backs of the skipper.

use super::stats::counts;
use crate::catalog::yaml::fast::tests::check_text;
use crate::catalog::yaml::{Keep, split_documents};

/// Whether an outline read of the one document `text` skips a dropped collection (each skip is
/// checked against the scanner's own reading by [`super::stats::check`]), and whether the
/// document is read at all; the read is also checked against the full reader's.
fn skips(text: &str) -> (bool, bool) {
    let before = counts().0.0;
    let read = outline_read(text);
    let skipped = counts().0.0 > before;
    check_text(text, "skip");
    (skipped, read.is_some())
}

const BUNDLE: &str = "\
schema: olm.bundle
name: foo.v1.0.0
properties:
- type: olm.gvk
  value:
    group: x.example.com
    kind: X
    version: v1
- type: olm.package
  value:
    packageName: foo
    version: 1.0.0
- type: olm.csv.metadata
  value:
    annotations:
      alm-examples: |-
        [
          {\"kind\": \"X\"}

        ]
      containerImage: quay.io/foo@sha256:abc
      description: '[{\"a\": 1}]'
      operators.openshift.io/valid-subscription: '[\"OpenShift Platform Plus\", \"Red
        Hat Advanced Cluster Management\"]'
    description: A long plain description that the writer folded over
      two lines.
    keywords: []
    links:
    - name: Docs
      url: https://example.com/docs # a comment
    maturity: stable   
    installModes:
      - supported: true
        type: OwnNamespace
    provider: {}
    notes: \"with \\\"escapes\\\" \\u00e9 and a line\\
      broken\"
    more: |2-
          indented
    empty:
relatedImages:
- image: quay.io/foo@sha256:abc
  name: ''
package: foo
";

#[test]
fn a_bundle_s_properties_and_related_images_are_skipped() {
    assert_eq!(skips(BUNDLE), (true, true));
    let before = counts().0;
    check_text(BUNDLE, "bundle");
    assert_eq!(
        counts().0.0,
        before.0 + 4,
        "both dropped collections skipped, and the olm.gvk and olm.csv.metadata values a checked read checks"
    );
    // At the end of the document, indented, with a key at the key's column after it.
    for text in [
        "properties:\n- type: a\n  value: 1",
        "properties:\n  - type: a\n  # c\n\n",
        "properties:\n  a:\n  - x\nname: n\n",
        "properties:\n- a:\n  b: c\n",
        "properties:\n- type: a\n  value:\n- type: b\n",
        "properties:\n- 'quoted item'   # c\n- plain item\n  runs on\n- x\n",
        "properties:\n  k: |\n    text\nnext: 1\n",
    ] {
        assert_eq!(skips(text), (true, true), "{text:?}");
    }
}

#[test]
fn what_the_skipper_cannot_prove_is_handed_back() {
    let long = format!("properties:\n- {}: 1\n", "k".repeat(1001));
    let cases: &[(&str, bool)] = &[
        // Declined by the scanner: non-finite numbers, indentation between levels, a deeper
        // line after a scalar, blank lines after a literal block, flow content, `- []`.
        ("properties:\n- type: a\n  value:\n    x: .inf\n", false),
        ("properties:\n- -.Inf\n", false),
        ("properties:\n- type: a\n value: b\n", false),
        ("properties:\n- type: a\n    value: b\n", false),
        (
            "properties:\n- type: a\n  value:\n      x: 1\n    y: 2\n",
            false,
        ),
        ("properties:\n  a: |\n    x\n\n  b: 1\n", false),
        ("properties:\n- type: a\n  value: {a: b}\n", false),
        ("properties:\n- []\n", false),
        ("properties:\n- type: a\n  value: 'x'#c\n", false),
        ("properties:\n- a\n...\n", false),
        ("properties:\n- 'a'\n...\n", false),
        ("properties:\n- a:\n%x\n", false),
        ("properties:\n- a\n  b\n%x\n", false),
        ("properties:\n- type : a\n", false),
        (&long, false),
        // Read by the scanner, in ways the skipper leaves to it: quoted keys, a scalar on the
        // line after its key, empty items, keys that start with other bytes, `.`.
        ("properties:\n- 'type': a\n", true),
        ("properties:\n- type:\n    olm.gvk\n", true),
        ("properties:\n-\n- x\n", true),
        ("properties:\n- _type: a\n", true),
        ("properties:\n- type: .x\n", true),
        ("properties:\n  a: |\n    x \n", false),
    ];
    for &(text, read) in cases {
        assert_eq!(skips(text), (false, read), "{text:?}");
    }
}

/// A bundle whose properties hold a literal block of `lines` (each written as it is, on its own
/// line) under a key at column 6, with `after` after it.
fn literal_in(lines: &[&str], after: &str) -> String {
    bundle_with(
        "- type: olm.csv.metadata\n  value:\n    annotations:\n      alm-examples: |-\n",
        lines,
        after,
    )
}

/// A bundle whose properties start with `head` and go on with `lines` (each on its own line),
/// with `after` after them.
fn bundle_with(head: &str, lines: &[&str], after: &str) -> String {
    let mut text = format!("schema: olm.bundle\nname: foo.v1.0.0\nproperties:\n{head}");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(after);
    text
}

/// More than 64 bytes after a literal block: most of its lines after the first are told at one
/// look at the 64 bytes they start with.
const AFTER: &str = "      containerImage: quay.io/foo@sha256:abc\n    description: a description that runs on well past the sixty-four bytes\npackage: foo\n";

fn with_literal(lines: &[&str]) -> String {
    literal_in(lines, AFTER)
}

/// The lines of a literal block are taken as the scanner takes them, whether they are shorter
/// than the 64 bytes looked at in one go or not (each skip is checked against the scanner's
/// reading), and what the skipper cannot prove is handed back: a last line ending in a space,
/// blank lines ending the block or indented past it, a line indented less than the block but
/// more than its key.
#[test]
fn literal_blocks_are_skipped_a_look_at_a_time_as_the_scanner_reads_them() {
    let long = format!("        {}", "a line that runs on ".repeat(5).trim_end());
    let deep = format!("{}deep", " ".repeat(80));
    let spaces = " ".repeat(80);
    // Lines of 63, 64 and 65 bytes: a line break at the last of the 64 bytes, just past them, and
    // one further.
    let [l63, l64, l65] = [63, 64, 65].map(|n| format!("        {}", "x".repeat(n - 8)));
    let blank_at_block = " ".repeat(8);
    let looked = super::stats::lines_looked();
    let cases: [(&[&str], bool); 12] = [
        (
            &["        [", "          {\"kind\": \"X\"}", "", "        ]"],
            true,
        ),
        (&["        first", &long, "        last"], true),
        (&["        first", &long], true),
        (&["        first", &deep, "        last"], true),
        (
            &["        first", "    ", "        after a blank line"],
            true,
        ),
        (
            &[
                "        first",
                &blank_at_block,
                "        after a blank line",
            ],
            true,
        ),
        (&["        first", &l63, &l64, &l65, "        last"], true),
        (&["        first", "        ends in a space "], false),
        (&["        first", "        last", ""], false),
        (
            &[
                "        first",
                "          ",
                "        after a deeper blank line",
            ],
            false,
        ),
        (
            &["        first", &spaces, "        after a long blank line"],
            false,
        ),
        (
            &["        first", "       between the key and the block"],
            false,
        ),
    ];
    for (lines, skipped) in cases {
        let text = with_literal(lines);
        assert_eq!(skips(&text).0, skipped, "{text}");
    }
    assert!(
        super::stats::lines_looked() > looked,
        "no line told at a look"
    );
}

/// A literal block ending the document, with its last line long or not, ended by a line break or
/// not, is read the same with its lines told at a look or one step at a time.
#[test]
fn a_literal_block_ending_the_document_reads_the_same_at_a_look() {
    let long = format!("        {}", "y".repeat(100));
    for last in ["        last", long.as_str()] {
        for end in ["", "\n"] {
            let mut text = literal_in(&["        first", "        second", last], "");
            text.pop();
            text.push_str(end);
            assert_eq!(
                outline(&text),
                super::stats::without_looks(|| outline(&text)),
                "{text:?}"
            );
            assert!(skips(&text).0, "{text:?}");
        }
    }
}

/// A bundle whose properties hold `lines` (each written as it is, on its own line): under
/// `properties:` itself, a mapping at column 2; or with `checked`, the annotations of an
/// `olm.csv.metadata` property, a mapping of strings at column 6, which a checked read checks.
/// `after` follows them.
fn keys_in(lines: &[&str], checked: bool, after: &str) -> String {
    let head = if checked {
        "- type: olm.csv.metadata\n  value:\n    annotations:\n"
    } else {
        ""
    };
    bundle_with(head, lines, after)
}

/// More than 64 bytes after the keys: each of their lines is followed by 64 bytes to look at.
const KEYS_AFTER: &str = "package: foo\nimage: quay.io/an-image-name-that-runs-on-past-the-64-bytes-looked-at@sha256:abc\n";

/// The `key: value` lines of a mapping are taken as the scanner takes them, whether they are
/// read whole at one look or left to the steps (each skip is checked against the scanner's
/// reading): lines of 63, 64 and 65 bytes, values with comments, `#` and `:` in them, values
/// going on or empty, and next lines blank, comments, deeper, markers or past the look. What the
/// skipper cannot prove is handed back.
#[test]
fn key_lines_are_skipped_a_look_at_a_time_as_the_scanner_reads_them() {
    // Lines of 63, 64 and 65 bytes: a line break at the last of the 64 bytes, just past them, and
    // one further.
    let [l63, l64, l65] = [63, 64, 65].map(|n| format!("  key: {}", "v".repeat(n - 7)));
    let long = format!("  key: {}", "a value that runs on ".repeat(5).trim_end());
    let deep = format!("{}c: d", " ".repeat(70));
    let looked = super::stats::keys_looked();
    let cases: &[(&[&str], bool)] = &[
        (&["  a: b", "  c: d"], true),
        (&["  a: b", &l63, &l64, &l65, "  c: d"], true),
        (&["  a: b", &long, "  c: d"], true),
        (&["  a: b # a comment", "  c: d"], true),
        (&["  a: b#c", "  c: d:e"], true),
        (&["  a: b   ", "  c: d"], true),
        (&["  a: b", "    going on", "  c: d"], true),
        (&["  a: b", "", "  c: d"], true),
        (&["  a: b", "  # a comment", "  c: d"], true),
        (&["  a:", "    b: c", "  d: e"], true),
        (
            &["  a: 'b'", "  c: \"d\"", "  e: |", "    f", "  g: []"],
            true,
        ),
        (&["  a: b", "  c: d: e"], false),
        (&["  a: b", "  c: d:"], false),
        (&["  a: b", "  c : d"], false),
        // A comment before the `:`: no key.
        (&["  a: b", "  c #d: e"], false),
        (&["  a: b", "    c: d"], false),
        // Less deep than the mapping: it ends there, as the scanner's does.
        (&["  a: b", " c: d"], true),
        // Indented past the look.
        (&["  a: b", &deep], false),
    ];
    for &(lines, skipped) in cases {
        let text = keys_in(lines, false, KEYS_AFTER);
        assert_eq!(skips(&text).0, skipped, "{text}");
        assert_eq!(
            outline_and_skips(&text),
            super::stats::without_looks(|| outline_and_skips(&text)),
            "{text}"
        );
    }
    // A document end marker or a directive after the keys: the scanner stops there, the skipper
    // hands back. More than 64 bytes follow it, so that the look reads the marker's line. (A
    // `---` ends the document's bytes before it.)
    for (marker, skipped) in [("...", false), ("%YAML 1.1", false), ("---", true)] {
        let after = format!(
            "{marker}\n# {}\n",
            "a comment past the sixty-four bytes ".repeat(3)
        );
        let text = keys_in(&["  a: b", "  c: d"], false, &after);
        assert_eq!(skips(&text).0, skipped, "{text}");
        assert_eq!(
            outline_and_skips(&text),
            super::stats::without_looks(|| outline_and_skips(&text)),
            "{text}"
        );
    }
    assert!(
        super::stats::keys_looked() > looked,
        "no key line read at a look"
    );
}

/// The outline read of the one document `text` by the quick reader (`None`: declined).
fn outline_read(text: &str) -> Option<crate::catalog::node::Node> {
    let chunk = split_documents(text, 0, 1).0[0];
    super::super::read(text, chunk, 0, 0, &mut Default::default(), Keep::Outline)
}

/// The checked read of the one document `text`: its tree as `Debug` writes it (`None`:
/// declined), and how many collections it skipped and handed back.
fn checked_read(text: &str) -> (String, usize, usize) {
    let chunk = split_documents(text, 0, 1).0[0];
    let (skipped, read) = counts();
    let tree = format!(
        "{:?}",
        super::super::read(text, chunk, 0, 0, &mut Default::default(), Keep::Checked)
    );
    let (now_skipped, now_read) = counts();
    (tree, now_skipped.0 - skipped.0, now_read.0 - read.0)
}

/// [`outline`], and how many collections the read skipped and handed back: a collection skipped
/// and one handed back look the same in an outline.
fn outline_and_skips(text: &str) -> (String, usize, usize) {
    let (skipped, read) = counts();
    let tree = outline(text);
    let (now_skipped, now_read) = counts();
    (tree, now_skipped.0 - skipped.0, now_read.0 - read.0)
}

/// The outline read of the one document `text`: its tree as `Debug` writes it (a skipped
/// collection is empty, one handed back is read).
fn outline(text: &str) -> String {
    format!("{:?}", outline_read(text))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Literal blocks of lines around every bound the look has (indented by the block or less or
    /// more, 63 to 65 bytes long, blank, in the document's last 64 bytes) read the same with their
    /// lines told at a look as one step at a time: the same skips and hand-backs, at the same
    /// places.
    #[test]
    fn literal_blocks_read_the_same_at_a_look_as_a_line_at_a_time(
        lines in proptest::collection::vec(
            (
                proptest::sample::select(vec![0usize, 6, 7, 8, 8, 8, 9, 10, 64, 70]),
                proptest::sample::select(vec![0usize, 1, 5, 54, 55, 56, 57, 63, 64, 100]),
                proptest::sample::select(vec!["x", "x", " ", ":", "#"]),
            ),
            1..10,
        ),
        after in proptest::sample::select(vec!["", "package: foo\n", AFTER]),
    ) {
        let lines: Vec<String> = lines
            .iter()
            .map(|&(indent, len, last)| {
                if len == 0 {
                    " ".repeat(indent)
                } else {
                    format!("{}{}{last}", " ".repeat(indent), "t".repeat(len - 1))
                }
            })
            .collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let text = literal_in(&lines, after);
        proptest::prop_assert_eq!(outline_and_skips(&text), super::stats::without_looks(|| outline_and_skips(&text)), "{}", text);
        check_text(&text, "literal at a look");
    }

    /// Mappings of `key: value` lines around every bound the look has (indented by the mapping or
    /// less or more, 63 to 65 bytes long, values with spaces, `:`, `#` and comments, values going
    /// on, blank and comment lines and markers between, the document's last 64 bytes), unchecked
    /// or checked, read the same with their lines read at a look as one step at a time.
    #[test]
    fn key_lines_read_the_same_at_a_look_as_a_line_at_a_time(
        lines in proptest::collection::vec(
            (
                proptest::sample::select(vec![-2isize, -1, 0, 0, 0, 0, 1, 2]),
                proptest::sample::select(vec!["a", "key", "k9", "y", "a-b.c/d"]),
                proptest::sample::select(vec![": ", ": ", ":", " : ", ":   ", "#", "~", "---", "..."]),
                proptest::sample::select(vec![0usize, 1, 2, 5, 48, 53, 54, 55, 56, 57, 100]),
                proptest::sample::select(vec!["x", "x", "x", " ", ":", "#", " #c", ": ", "1", "'"]),
            ),
            1..10,
        ),
        checked in proptest::bool::ANY,
        after in proptest::sample::select(vec!["", "package: foo\n", KEYS_AFTER]),
    ) {
        let base: usize = if checked { 6 } else { 2 };
        let lines: Vec<String> = lines
            .iter()
            .map(|&(indent, key, sep, len, last)| {
                let indent = " ".repeat(base.saturating_add_signed(indent));
                match (sep, len) {
                    ("#", _) => format!("{indent}# a comment"),
                    // No key: a plain scalar's next line when deeper than its key.
                    ("~", _) => format!("{indent}going on{last}"),
                    // A marker, at the start of its line.
                    ("---" | "...", _) => format!("{sep}{last}"),
                    (_, 0) => String::new(),
                    _ => format!("{indent}{key}{sep}{}{last}", "v".repeat(len - 1)),
                }
            })
            .collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let text = keys_in(&lines, checked, after);
        proptest::prop_assert_eq!(outline_and_skips(&text), super::stats::without_looks(|| outline_and_skips(&text)), "{}", text);
        proptest::prop_assert_eq!(checked_read(&text), super::stats::without_looks(|| checked_read(&text)), "{}", text);
        check_text(&text, "keys at a look");
    }
}
