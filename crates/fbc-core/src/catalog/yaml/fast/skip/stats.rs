//! What the skipper did on the current thread, and a check of each collection it skips against
//! the scanner's own reading.

use super::super::Decline;
use super::{Landing, Scanner};
use crate::catalog::gotypes::{StructTy, Ty};
use crate::catalog::node::{Kind, Node, Pos};
use crate::catalog::version_release::SUBSTITUTES_FOR;
use std::cell::Cell;

thread_local! {
    /// The lines of literal blocks told at a look, the key lines read whole at a look, and
    /// whether looks are left out.
    static LOOKED: Cell<usize> = const { Cell::new(0) };
    static KEYS_LOOKED: Cell<usize> = const { Cell::new(0) };
    static LINE_BY_LINE: Cell<bool> = const { Cell::new(false) };
    static SKIPPED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    static READ: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    static CHECKED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    static CHECKED_READ: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

pub(super) fn looked(lines: usize) {
    LOOKED.with(|c| c.set(c.get() + lines));
}

/// The lines of literal blocks told at one look at the bytes they start with, so far on this
/// thread.
pub(in super::super) fn lines_looked() -> usize {
    LOOKED.get()
}

pub(super) fn key_looked() {
    KEYS_LOOKED.with(|c| c.set(c.get() + 1));
}

/// The `key: value` lines read whole at one look at the bytes they start with, so far on this
/// thread.
pub(in super::super) fn keys_looked() -> usize {
    KEYS_LOOKED.get()
}

pub(super) fn line_by_line() -> bool {
    LINE_BY_LINE.get()
}

/// What `f` gives with the lines of literal blocks and the `key: value` lines read one step at a
/// time, as before they were told at a look, on this thread.
pub(in super::super) fn without_looks<T>(f: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            LINE_BY_LINE.set(false);
        }
    }
    LINE_BY_LINE.set(true);
    let _reset = Reset;
    f()
}

/// The collections (and their bytes) skipped, and those handed back and read, so far on this
/// thread (checked ones too).
pub(in super::super) fn counts() -> ((usize, usize), (usize, usize)) {
    (SKIPPED.get(), READ.get())
}

/// Of those, the ones checked against a type: skipped, and handed back and read.
pub(in super::super) fn checked_counts() -> ((usize, usize), (usize, usize)) {
    (CHECKED.get(), CHECKED_READ.get())
}

fn add(cell: &'static std::thread::LocalKey<Cell<(usize, usize)>>, node: &Node) {
    let bytes = (node.pos().end - node.pos().start) as usize;
    cell.with(|c| c.set((c.get().0 + 1, c.get().1 + bytes)));
}

pub(super) fn handed_back(node: &Result<Node, Decline>, typed: bool) {
    if let Ok(n) = node
        && matches!(n.kind, Kind::Seq(_) | Kind::Map(_))
    {
        add(&READ, n);
        if typed {
            add(&CHECKED_READ, n);
        }
    }
}

/// Reads the collection the skipper skipped as the scanner does, from the same place, and
/// fails unless the scanner gives the same node and lands at the same place; and, when it was
/// checked against a type, unless validation finds nothing in what the scanner read.
pub(super) fn check(
    s: &mut Scanner,
    indent: usize,
    at: Pos,
    node: &Node,
    landing: Landing,
    typed: Option<&'static Ty>,
) {
    let text = &s.text[s.i..s.b.len()];
    let theirs = s
        .value_below(indent, at)
        .unwrap_or_else(|_| panic!("skipped what the scanner declines:\n{text}"));
    let same_kind = matches!(
        (&theirs.kind, &node.kind),
        (Kind::Seq(_), Kind::Seq(_)) | (Kind::Map(_), Kind::Map(_))
    );
    assert!(
        same_kind && theirs.pos() == node.pos() && theirs.style() == node.style(),
        "skipped {node:?}, the scanner read {theirs:?}:\n{text}"
    );
    let stands = Landing {
        i: s.i,
        line: s.line,
        line_start: s.line_start,
        line_end: s.line_end,
        next: s.next,
    };
    assert_eq!(stands, landing, "skipped to another place:\n{text}");
    assert_eq!(s.ascii_to.get(), s.line_start, "{text}");
    if let Some(Ty::Struct(st)) = typed {
        let found = validation_finds(&theirs, st);
        assert!(found.is_empty(), "skipped {found:?}:\n{text}");
        add(&CHECKED, node);
    }
    add(&SKIPPED, node);
}

/// What a validation finds in `node`, a value checked against `st`, each described: its shape
/// mismatches, and what it reads beyond the shape, its retyped scalars (a lint quotes them) and
/// `olm.substitutesFor` keys (the release rules read them). A checked skip may take a value only
/// when there is none.
pub(in super::super) fn validation_finds(node: &Node, st: &'static StructTy) -> Vec<String> {
    let mut mismatches = Vec::new();
    crate::validate::shape::check(node, st, &|_| None, &mut mismatches);
    let mut found: Vec<String> = mismatches.into_iter().map(|m| m.message).collect();
    retyped_or_substitutes(node, &mut found);
    found
}

fn retyped_or_substitutes(node: &Node, out: &mut Vec<String>) {
    if node.is_retyped_scalar() {
        out.push(format!("a retyped scalar {node:?}"));
    }
    match &node.kind {
        Kind::Seq(items) => items.iter().for_each(|n| retyped_or_substitutes(n, out)),
        Kind::Map(entries) => entries.iter().for_each(|e| {
            if e.key_str().eq_ignore_ascii_case(SUBSTITUTES_FOR) {
                out.push(format!("a key {:?}", e.key_str()));
            }
            retyped_or_substitutes(&e.key, out);
            retyped_or_substitutes(&e.value, out);
        }),
        _ => {}
    }
}
