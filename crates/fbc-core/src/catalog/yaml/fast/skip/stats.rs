//! What the skipper did on the current thread, and a check of each collection it skips against
//! the scanner's own reading.

use super::super::Decline;
use super::{Landing, Scanner};
use crate::catalog::node::{Kind, Node, Pos};
use std::cell::Cell;

thread_local! {
    static SKIPPED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    static READ: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The collections (and their bytes) skipped, and those handed back and read, so far on this
/// thread.
pub(in super::super) fn counts() -> ((usize, usize), (usize, usize)) {
    (SKIPPED.get(), READ.get())
}

fn add(cell: &'static std::thread::LocalKey<Cell<(usize, usize)>>, node: &Node) {
    let bytes = (node.pos().end - node.pos().start) as usize;
    cell.with(|c| c.set((c.get().0 + 1, c.get().1 + bytes)));
}

pub(super) fn handed_back(node: &Result<Node, Decline>) {
    if let Ok(n) = node
        && matches!(n.kind, Kind::Seq(_) | Kind::Map(_))
    {
        add(&READ, n);
    }
}

/// Reads the collection the skipper skipped as the scanner does, from the same place, and
/// fails unless the scanner gives the same node and lands at the same place.
pub(super) fn check(s: &mut Scanner, indent: usize, at: Pos, node: &Node, landing: Landing) {
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
    add(&SKIPPED, node);
}
