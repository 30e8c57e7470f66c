//! Patching an edited YAML document into the text it was read from, so only the changed lines
//! move: a changed scalar is replaced where it stands (keeping its quoting), a new mapping key or
//! sequence item becomes new lines in the indentation of its neighbours, a removed one takes its
//! lines with it. Where a piece cannot be placed safely (a reordered mapping, a flow collection, a
//! multi-line value), the smallest enclosing node is written anew in the document's style; when
//! even that fails, the whole document.

use super::emit::{YamlStyle, write_block, write_inline, write_map_entry, write_seq_item};
use super::split::dash_before;
use crate::catalog::align::{Op, align_map, align_seq};
use crate::catalog::json::{JsonStyle, write_json};
use crate::catalog::node::{Entry, Kind, Node, Str, Style};
use crate::text::lines::{line_end, line_start, owns_line};
use crate::text::splice::Splice;

/// What patching needs to know about the text being patched.
pub struct YamlPatch<'a> {
    /// The whole file as loaded.
    pub text: &'a str,
    /// Reads strings left on disk.
    pub resolve: &'a dyn Fn(&Str) -> String,
    /// The document's style.
    pub style: YamlStyle,
    /// The layout of a document written as JSON (a JSON file read as YAML).
    pub json: JsonStyle,
}

impl YamlPatch<'_> {
    /// The splices that turn document `old` into `new`: patched in place where that is safe,
    /// otherwise the document written anew.
    pub fn patch_document(&self, old: &Node, new: &Node, out: &mut Vec<Splice>) {
        let mut local = Vec::new();
        if self.patch(old, new, &mut local) {
            out.append(&mut local);
        } else {
            self.rewrite_document(old, new, out);
        }
    }

    /// Rewrites a whole YAML document in its own style. A document written as JSON (a JSON file read as
    /// YAML, as behind a byte order mark) is written as JSON again, in place, keeping what precedes it.
    pub fn rewrite_document(&self, old: &Node, new: &Node, out: &mut Vec<Splice>) {
        let start = old.pos().start as usize;
        if self.text.get(start..).is_some_and(|t| t.starts_with('{')) {
            let mut text = String::new();
            write_json(&mut text, new, self.json, 0, self.resolve);
            out.push(Splice {
                start,
                end: old.pos().end as usize,
                text,
            });
            return;
        }
        let col = old.pos().col.saturating_sub(1) as usize;
        let mut text = String::new();
        write_block(&mut text, new, col, self.style, self.resolve);
        out.push(Splice {
            start: line_start(self.text, old.pos().start as usize),
            end: end_with_comment(self.text, old.pos().end as usize),
            text,
        });
    }

    /// Patches `old` into `new` in place. Returns false when the caller must rewrite the node itself.
    fn patch(&self, old: &Node, new: &Node, out: &mut Vec<Splice>) -> bool {
        if old == new {
            return true;
        }
        if !old.pos().is_real() {
            return false;
        }
        // Scalars (and flow collections) are replaced where they stand, keeping their quoting.
        let inline_ok = |n: &Node| is_scalar(n) || is_empty_collection(n);
        if (is_scalar(old)
            && !matches!(old.style(), Style::Literal | Style::Folded)
            && inline_ok(new))
            || old.style() == Style::Flow && inline_ok(new)
        {
            if let Kind::String(Str::Inline(s)) = &new.kind
                && s.contains('\n')
            {
                return false;
            }
            let mut text = String::new();
            if old.pos().start == old.pos().end {
                // An empty value (`key:` or `-`) sits right after its indicator.
                text.push(' ');
            }
            write_inline(&mut text, new, old.style(), self.resolve);
            out.push(Splice {
                start: old.pos().start as usize,
                end: old.pos().end as usize,
                text,
            });
            return true;
        }
        if old.style() != Style::Block {
            return false;
        }
        match (&old.kind, &new.kind) {
            (Kind::Map(o), Kind::Map(n)) if !o.is_empty() && !n.is_empty() => {
                self.patch_map(o, n, out)
            }
            (Kind::Seq(o), Kind::Seq(n)) if !o.is_empty() && !n.is_empty() => {
                self.patch_seq(o, n, out)
            }
            _ => false,
        }
    }

    fn patch_map(&self, o: &[Entry], n: &[Entry], out: &mut Vec<Splice>) -> bool {
        let Some(ops) = align_map(o, n) else {
            return false;
        };
        if o.iter().any(|e| !e.key.pos().is_real()) {
            return false;
        }
        let col = o[0].key.pos().col.saturating_sub(1) as usize;
        let elems = BlockElems {
            starts: o.iter().map(|e| e.key.pos().start as usize).collect(),
            ends: o.iter().map(entry_end).collect(),
            col,
            patch: &|i, j, out| self.patch(&o[i].value, &n[j].value, out),
            emit: &|j, text| write_map_entry(text, &n[j], col, self.style, self.resolve),
        };
        self.patch_block(&ops, &elems, out)
    }

    fn patch_seq(&self, o: &[Node], n: &[Node], out: &mut Vec<Splice>) -> bool {
        let mut dashes = Vec::with_capacity(o.len());
        for item in o {
            match dash_of(self.text, item) {
                Some(d) if item.pos().is_real() => dashes.push(d),
                _ => return false,
            }
        }
        let col = dashes[0] - line_start(self.text, dashes[0]);
        let elems = BlockElems {
            starts: dashes,
            ends: o.iter().map(|i| i.pos().end as usize).collect(),
            col,
            patch: &|i, j, out| self.patch(&o[i], &n[j], out),
            emit: &|j, text| write_seq_item(text, &n[j], col, self.style, self.resolve),
        };
        self.patch_block(&align_seq(o, n), &elems, out)
    }

    fn patch_block(&self, ops: &[Op], b: &BlockElems, out: &mut Vec<Splice>) -> bool {
        let mut local = Vec::new();
        let mut anchor: Option<usize> = None;
        let mut leading = String::new();
        let mut after: Vec<(usize, String)> = Vec::new();
        for op in ops {
            match *op {
                Op::Keep(i, j) => {
                    if !(b.patch)(i, j, &mut local) {
                        let mut text = String::new();
                        (b.emit)(j, &mut text);
                        let end = if text.contains('\n') {
                            end_with_comment(self.text, b.ends[i])
                        } else {
                            b.ends[i]
                        };
                        local.push(Splice {
                            start: b.starts[i],
                            end,
                            text,
                        });
                    }
                    anchor = Some(i);
                }
                Op::Insert(j) => {
                    let mut text = " ".repeat(b.col);
                    (b.emit)(j, &mut text);
                    text.push('\n');
                    match anchor {
                        None => leading.push_str(&text),
                        Some(i) => after.push((i, text)),
                    }
                }
                Op::Delete(i) => {
                    if !owns_line(self.text, b.starts[i]) {
                        return false;
                    }
                    local.push(Splice {
                        start: line_start(self.text, b.starts[i]),
                        end: line_end(self.text, b.ends[i]),
                        text: String::new(),
                    });
                }
            }
        }
        if !leading.is_empty() {
            if !owns_line(self.text, b.starts[0]) {
                return false;
            }
            let at = line_start(self.text, b.starts[0]);
            local.push(Splice {
                start: at,
                end: at,
                text: leading,
            });
        }
        self.push_after(&mut local, after, |i| b.ends[i]);
        out.append(&mut local);
        true
    }

    /// New lines go after the line that ends element `i`.
    fn push_after(
        &self,
        out: &mut Vec<Splice>,
        after: Vec<(usize, String)>,
        end_of: impl Fn(usize) -> usize,
    ) {
        let mut k = 0;
        while k < after.len() {
            let i = after[k].0;
            let mut text = String::new();
            while k < after.len() && after[k].0 == i {
                text.push_str(&after[k].1);
                k += 1;
            }
            let at = line_end(self.text, end_of(i));
            if at == self.text.len() && !self.text.ends_with('\n') {
                text.insert(0, '\n');
                text.pop();
            }
            out.push(Splice {
                start: at,
                end: at,
                text,
            });
        }
    }
}

/// Extends `end` over a trailing `# comment` on the same line, so a rewrite that spans several lines
/// does not pull the comment into its last value.
fn end_with_comment(text: &str, end: usize) -> usize {
    let eol = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let rest = text[end..eol].trim_end_matches('\r');
    if rest.trim_start().starts_with('#') {
        end + rest.len()
    } else {
        end
    }
}

fn is_scalar(n: &Node) -> bool {
    !matches!(n.kind, Kind::Seq(_) | Kind::Map(_))
}

fn is_empty_collection(n: &Node) -> bool {
    match &n.kind {
        Kind::Seq(v) => v.is_empty(),
        Kind::Map(v) => v.is_empty(),
        _ => false,
    }
}

fn entry_end(e: &Entry) -> usize {
    e.value.pos().end.max(e.key.pos().end) as usize
}

fn dash_of(text: &str, item: &Node) -> Option<usize> {
    dash_before(text, item.pos().start as usize)
}

/// The elements of a block mapping or sequence, as the shared patching code sees them.
struct BlockElems<'a> {
    /// Where each old element starts (its key, or its dash) and ends.
    starts: Vec<usize>,
    ends: Vec<usize>,
    /// Column of the elements' first character.
    col: usize,
    /// Patches old element `i` into new element `j` in place; false when it must be rewritten.
    patch: &'a dyn Fn(usize, usize, &mut Vec<Splice>) -> bool,
    /// Writes new element `j` with the cursor at `col`.
    emit: &'a dyn Fn(usize, &mut String),
}
