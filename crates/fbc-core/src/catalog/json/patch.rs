//! Patching an edited JSON value into the text it was read from: kept elements are patched in
//! place, new ones are inserted after their neighbour with the separator the container already
//! uses, removed ones are cut with their comma. A container whose elements cannot be placed that
//! way (all removed, removals mixed with insertions, reordered keys) is written anew in the file's
//! layout.

use super::write::{JsonStyle, write_json};
use crate::catalog::align::{Op, align_map, align_seq};
use crate::catalog::node::{Kind, Node, Str};
use crate::text::escape::write_json_string;
use crate::text::lines::{line_indent, owns_line};
use crate::text::splice::Splice;

/// What patching needs to know about the text being patched.
pub struct JsonPatch<'a> {
    /// The whole file as loaded.
    pub text: &'a str,
    /// Reads strings left on disk.
    pub resolve: &'a dyn Fn(&Str) -> String,
    /// The blob's layout.
    pub style: JsonStyle,
}

impl JsonPatch<'_> {
    /// Spaces (or tabs) per level, never 0.
    fn unit(&self) -> usize {
        self.style.indent.len().max(1)
    }

    fn level_of(&self, node: &Node) -> usize {
        if self.style.indent.is_empty() {
            return 0;
        }
        line_indent(self.text, node.pos().start as usize).len() / self.unit()
    }

    fn emit(&self, node: &Node, level: usize) -> String {
        let mut s = String::new();
        write_json(&mut s, node, self.style, level, self.resolve);
        s
    }

    /// The splices that turn `old` (as it stands in the text) into `new`.
    pub fn patch(&self, old: &Node, new: &Node, out: &mut Vec<Splice>) {
        if old == new {
            return;
        }
        let replace_whole = |out: &mut Vec<Splice>| {
            out.push(Splice {
                start: old.pos().start as usize,
                end: old.pos().end as usize,
                text: self.emit(new, self.level_of(old)),
            })
        };
        if !old.pos().is_real() {
            return replace_whole(out);
        }
        let ops = match (&old.kind, &new.kind) {
            (Kind::Map(o), Kind::Map(n)) if !o.is_empty() => match align_map(o, n) {
                Some(ops) => ops,
                None => return replace_whole(out),
            },
            (Kind::Seq(o), Kind::Seq(n)) if !o.is_empty() => align_seq(o, n),
            _ => return replace_whole(out),
        };
        let deletes: Vec<usize> = ops
            .iter()
            .filter_map(|o| match o {
                Op::Delete(i) => Some(*i),
                _ => None,
            })
            .collect();
        let has_insert = ops.iter().any(|o| matches!(o, Op::Insert(_)));
        if deletes.len() == len(old) || (!deletes.is_empty() && has_insert) {
            return replace_whole(out);
        }
        let inserts = self.patch_elements(old, new, &ops, out);
        cut_runs(old, deletes, out);
        out.extend(inserts);
    }

    /// Patches kept elements into `out`; returns the insertions of new ones, in the layout of the
    /// container's first element.
    fn patch_elements(
        &self,
        old: &Node,
        new: &Node,
        ops: &[Op],
        out: &mut Vec<Splice>,
    ) -> Vec<Splice> {
        // Separator between elements as written (newline + indentation, or nothing on one line).
        let (s0, _) = elem_range(old, 0);
        let (sep, level) = if owns_line(self.text, s0) {
            let indent = line_indent(self.text, s0);
            (format!("\n{indent}"), indent.len() / self.unit())
        } else if self.text[..s0].ends_with(' ') {
            (" ".to_string(), 0)
        } else {
            (String::new(), 0)
        };
        let emit_elem = |j: usize| self.emit_elem(new, j, &sep, level);
        let mut anchor: Option<usize> = None; // last old element placed before the cursor
        let mut leading = String::new(); // inserts before the first old element
        let mut after: Vec<(usize, String)> = Vec::new();
        for op in ops {
            match *op {
                Op::Keep(i, j) => {
                    match (&old.kind, &new.kind) {
                        (Kind::Map(o), Kind::Map(n)) => self.patch(&o[i].value, &n[j].value, out),
                        (Kind::Seq(o), Kind::Seq(n)) => self.patch(&o[i], &n[j], out),
                        _ => {}
                    }
                    anchor = Some(i);
                }
                Op::Insert(j) => match anchor {
                    None => {
                        leading.push_str(&emit_elem(j));
                        leading.push(',');
                        leading.push_str(&sep);
                    }
                    Some(i) => after.push((i, format!(",{sep}{}", emit_elem(j)))),
                },
                Op::Delete(_) => {}
            }
        }
        let mut inserts = Vec::new();
        if !leading.is_empty() {
            inserts.push(Splice::insert(s0, leading));
        }
        // Several inserts after the same element go out as one splice, in order.
        let mut k = 0;
        while k < after.len() {
            let i = after[k].0;
            let mut text = String::new();
            while k < after.len() && after[k].0 == i {
                text.push_str(&after[k].1);
                k += 1;
            }
            inserts.push(Splice::insert(elem_range(old, i).1, text));
        }
        inserts
    }

    /// New element `j` of `new`: `"key": value` of a map, or an item.
    fn emit_elem(&self, new: &Node, j: usize, sep: &str, level: usize) -> String {
        let mut s = String::new();
        match &new.kind {
            Kind::Map(n) => {
                write_json_string(&mut s, n[j].key_str(), false);
                s.push(':');
                if !self.style.indent.is_empty() || !sep.is_empty() {
                    s.push(' ');
                }
                s.push_str(&self.emit(&n[j].value, level));
            }
            Kind::Seq(n) => s.push_str(&self.emit(&n[j], level)),
            _ => {}
        }
        s
    }
}

/// How many elements a container has.
fn len(node: &Node) -> usize {
    match &node.kind {
        Kind::Map(o) => o.len(),
        Kind::Seq(o) => o.len(),
        _ => 0,
    }
}

/// Element `k` of a JSON container: its byte range.
fn elem_range(old: &Node, k: usize) -> (usize, usize) {
    match &old.kind {
        Kind::Map(entries) => (
            entries[k].key.pos().start as usize,
            entries[k].value.pos().end as usize,
        ),
        Kind::Seq(items) => (items[k].pos().start as usize, items[k].pos().end as usize),
        _ => (0, 0),
    }
}

/// Runs of neighbouring deletions go out as one cut each: up to the next kept element, or, for a
/// run that ends the container, from the end of the element before it (taking its comma).
fn cut_runs(old: &Node, mut deletes: Vec<usize>, out: &mut Vec<Splice>) {
    let count = len(old);
    deletes.sort_unstable();
    let mut k = 0;
    while k < deletes.len() {
        let a = deletes[k];
        let mut b = a;
        while k + 1 < deletes.len() && deletes[k + 1] == b + 1 {
            k += 1;
            b += 1;
        }
        k += 1;
        let (start, end) = if b + 1 < count {
            (elem_range(old, a).0, elem_range(old, b + 1).0)
        } else {
            (elem_range(old, a - 1).1, elem_range(old, b).1)
        };
        out.push(Splice::cut(start, end));
    }
}
