//! Trees of the YAML the skipper reads, their writers, and edits to what they write: shared by
//! the quick reader's tests and the skipper's.

use proptest::prelude::*;

/// A tree of the YAML the skipper reads: a value after `key:` or `- `.
#[derive(Debug, Clone)]
pub(in super::super) enum Tree {
    /// A scalar on the line (empty: nothing after the key or dash); its lines after the first are
    /// indented from the collection's column.
    Leaf(String),
    /// A literal block scalar: its header and lines, indented two from the collection's column.
    Literal(String, Vec<String>),
    /// A mapping indented this much from its key.
    Map(usize, Vec<(String, Tree)>),
    /// A sequence, at its key's column (or two deeper).
    Seq(bool, Vec<Tree>),
}

/// Scalars the skipper must read or hand back right: comments, trailing spaces, non-finite and
/// other words a plain scalar cannot start with, quotes closing on the line or not, escapes.
pub(in super::super) fn skipper_leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        16 => "[a-z][a-z0-9./:-]{0,12}",
        1 => prop::sample::select(vec![
            ".inf", "-.Inf", "+.inf", ".NaN", "-x", ".x", "+1", "a #c", "a   ", "a b  # c", "a#b",
            "'q'", "'q''s' # c", "'q'x", "'q'#c", "'q'  ", "\"a\\\"b\"", "\"bad\\q\"", "\"x\"  ",
            "\"\\u00e9\"", "[]", "{}", "[] ", "[ ]", "[a]", "a: b", "a:", "~", "é", "", "&a x", "*a",
            "! x", "|x", ">", "@x", "`x", "%x", "?x", "? x", ":x", "'runs\n  on'", "'runs\n\n  on'",
            "'runs\non'", "\"runs \\\n  on\"", "\"runs \\\n\n  on\"", "\"runs \\  \n  on\"",
            "\"a\\qb\n  c\"", "\"esc\n  \\x4\"", "plain\n  runs on", "plain\n  runs: on",
            "plain\n  runs #on", "plain\n  runs:", "plain\n\n  after blank", "plain\n  # c\n  x",
            "plain\n  -x", "plain\n---", "plain\n...", "'a'\n  b",
        ])
        .prop_map(str::to_string),
    ]
}

pub(in super::super) fn skipper_key() -> impl Strategy<Value = String> {
    prop_oneof![
        40 => "[a-z][a-z0-9./-]{0,8}",
        2 => prop::sample::select(vec![
            "'k k'", "\"k\"", "k ", "<<", ".inf", "-k", "_k", "k#x", "k #x", "k:x", "é", "1",
            "~", "?k", "- k",
        ])
        .prop_map(str::to_string),
        1 => Just("k".repeat(1000)),
        1 => Just("k".repeat(1001)),
    ]
}

pub(in super::super) fn skipper_tree() -> impl Strategy<Value = Tree> {
    let header = prop::sample::select(vec![
        "|", "|-", "|+", "|2-", "|-1", "|9", "| # c", "|  ", "|-+", "|0",
    ]);
    let line = prop::sample::select(vec![
        "text",
        "text",
        "text",
        "  deeper",
        "",
        "  ",
        "      ",
        "# not a comment",
        "trail ",
        "a: b",
        // Lines longer than the 64 bytes the skipper looks at in one go: text, text after deep
        // indentation, and spaces alone.
        "a line of a description that runs on well past sixty-four bytes, as they do",
        "                                                                      deep",
        "                                                                      ",
    ]);
    let leaf = prop_oneof![
        8 => skipper_leaf().prop_map(Tree::Leaf),
        1 => (header, prop::collection::vec(line, 0..6)).prop_map(|(h, b)| {
            Tree::Literal(h.to_string(), b.into_iter().map(str::to_string).collect())
        }),
    ];
    leaf.prop_recursive(5, 64, 4, |inner| {
        prop_oneof![
            (
                1usize..=4,
                prop::collection::vec((skipper_key(), inner.clone()), 1..4)
            )
                .prop_map(|(step, es)| Tree::Map(step, es)),
            (any::<bool>(), prop::collection::vec(inner, 1..4))
                .prop_map(|(indentless, items)| Tree::Seq(indentless, items)),
        ]
    })
}

/// Writes `tree` after a `key:` or `-` at column `col`.
pub(in super::super) fn write_after(tree: &Tree, col: usize, out: &mut String) {
    let pad = |n: usize| " ".repeat(n);
    match tree {
        Tree::Leaf(s) if s.is_empty() => out.push('\n'),
        Tree::Leaf(s) => {
            out.push(' ');
            out.push_str(&s.replace('\n', &format!("\n{}", pad(col))));
            out.push('\n');
        }
        Tree::Literal(header, lines) => {
            out.push_str(&format!(" {header}\n"));
            for l in lines {
                if !l.is_empty() {
                    out.push_str(&pad(col + 2));
                }
                out.push_str(l);
                out.push('\n');
            }
        }
        Tree::Map(step, entries) => {
            out.push('\n');
            write_map(entries, col + step, out);
        }
        Tree::Seq(indentless, items) => {
            out.push('\n');
            write_seq(items, if *indentless { col } else { col + 2 }, out);
        }
    }
}

pub(in super::super) fn write_map(entries: &[(String, Tree)], col: usize, out: &mut String) {
    for (k, v) in entries {
        out.push_str(&format!("{}{k}:", " ".repeat(col)));
        write_after(v, col, out);
    }
}

pub(in super::super) fn write_seq(items: &[Tree], col: usize, out: &mut String) {
    for item in items {
        out.push_str(&format!("{}-", " ".repeat(col)));
        match item {
            // A mapping item starts on the dash's line.
            Tree::Map(_, entries) => {
                let (k, v) = &entries[0];
                out.push_str(&format!(" {k}:"));
                write_after(v, col + 2, out);
                write_map(&entries[1..], col + 2, out);
            }
            other => write_after(other, col, out),
        }
    }
}

/// A bundle whose properties and related images are `props` and `images`.
pub(in super::super) fn skipper_doc(props: &Tree, images: &Tree) -> String {
    let mut out = String::from("schema: olm.bundle\nname: a.v1\nproperties:");
    write_after(props, 0, &mut out);
    out.push_str("relatedImages:");
    write_after(images, 0, &mut out);
    out.push_str("package: a\n");
    out
}

/// Puts each piece in at, or takes the character there out of, `text` after byte `head`.
pub(in super::super) fn edit(
    text: &mut String,
    head: usize,
    edits: &[(prop::sample::Index, &str, bool)],
) {
    for (at, piece, delete) in edits {
        let mut i = head + at.index(text.len() - head + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        if *delete && i < text.len() {
            let mut j = i + 1;
            while !text.is_char_boundary(j) {
                j += 1;
            }
            text.replace_range(i..j, "");
        } else {
            text.insert_str(i, piece);
        }
    }
}
