//! A quick reader for the YAML catalogs are made of: block mappings and sequences, one-line plain and
//! quoted scalars, literal block scalars, empty flow collections and comments. It builds the same
//! [`Node`] tree as the full reader (values, styles, byte ranges, lines and columns) without an
//! event per token or a `String` per scalar, and skips long scalars with one `memchr` pass. Anything
//! else (anchors, tags, flow content, folded or multi-line scalars, tabs, odd indentation, anything
//! that would be an error) makes it decline, and the full reader reads the document instead.

mod bytes;
mod scalar;
mod skip;

use bytes::{line_end, spaces_end, unicode_line_break, unusual_and_ascii};

use super::read::{Keep, OUTLINE_DROPS, key_node, make_str};
use super::split::Chunk;
use super::yaml11;
use crate::catalog::gotypes::{PROP_CSV_METADATA, PROP_GVK, PROP_GVK_REQUIRED, Ty};
use crate::catalog::model::property_type;
use crate::catalog::node::{Entry, Kind, Node, Pos, Sharing, Style, ThinVec};

/// The document is not one this reader handles.
#[derive(Debug)]
pub(super) struct Decline;

type R<T> = Result<T, Decline>;

/// Where a plain scalar ends, and the `:` after it that makes it a key.
type Extent = (usize, Option<usize>);

/// Deeper documents go to the full reader, which reports its own limit.
const MAX_DEPTH: usize = 64;
/// Longer implicit keys go to the full reader (YAML limits them to 1024 characters).
const MAX_KEY: usize = 1000;

/// Reads the document `chunk` of `text` (bytes of file number `file` from byte `base` on),
/// keeping what `keep` asks for, or declines. Long strings equal to one `sharing` made before are
/// held once. Whether it declines does not depend on `keep`.
pub(super) fn read(
    text: &str,
    chunk: Chunk,
    base: u32,
    file: u32,
    sharing: &mut Sharing,
    keep: Keep,
) -> Option<Node> {
    read_or_line(text, chunk, base, file, sharing, keep).ok()
}

/// [`read`], or the line where the reader gave up.
fn read_or_line(
    text: &str,
    chunk: Chunk,
    base: u32,
    file: u32,
    sharing: &mut Sharing,
    keep: Keep,
) -> Result<Node, u32> {
    let src = &text.as_bytes()[chunk.start..chunk.end];
    let (unusual, ascii) = unusual_and_ascii(src);
    if unusual || !ascii && unicode_line_break(src) {
        return Err(0);
    }
    let mut s = Scanner {
        text,
        b: &text.as_bytes()[..chunk.end],
        base,
        file,
        i: chunk.start,
        line: chunk.line,
        line_start: chunk.start,
        line_end: line_end(text.as_bytes(), chunk.start, chunk.end),
        ascii,
        ascii_to: std::cell::Cell::new(chunk.start),
        next: None,
        extent: std::cell::Cell::new(None),
        depth: 0,
        outline: keep == Keep::Outline,
        dropping: false,
        checked: keep == Keep::Checked,
        in_properties: false,
        property_list: false,
        typed: None,
        entries: Vec::new(),
        items: Vec::new(),
        sharing: std::mem::take(sharing),
    };
    let read = s.document();
    *sharing = s.sharing;
    read
}

struct Scanner<'t> {
    text: &'t str,
    /// The file's bytes up to the end of the document (a read past them is a line end).
    b: &'t [u8],
    /// Where `text` starts in its file: a position is this plus the byte in `text`.
    base: u32,
    file: u32,
    /// The reading position, on line `line`, which starts at byte `line_start` and ends at byte
    /// `line_end` (its `\n`, or the end of the document): found once per line, as every step on the
    /// line needs it.
    i: usize,
    line: u32,
    line_start: usize,
    line_end: usize,
    /// The whole document is ASCII: a column is a count of bytes.
    ascii: bool,
    /// The current line's bytes from `line_start` up to here are ASCII, so a column there is a
    /// byte count: each byte of a line is looked at once however many nodes start on it.
    ascii_to: std::cell::Cell<usize>,
    /// After a value: the indentation of the next line with content (the position is at that
    /// content), or `None` at the end of the document.
    next: Option<usize>,
    /// The last plain extent found and where it starts: a key is looked for before it is read.
    extent: std::cell::Cell<Option<(usize, Extent)>>,
    depth: usize,
    /// An outline read ([`Keep::Outline`]): the collections under the top-level keys
    /// [`OUTLINE_DROPS`] are read but not kept.
    outline: bool,
    /// Reading the value of such a key: what lies below it is read but not kept.
    dropping: bool,
    /// A read that keeps what a validation reads ([`Keep::Checked`]): the value of an
    /// `olm.csv.metadata`, `olm.gvk` or `olm.gvk.required` property is checked against opm's
    /// struct and, when it passes, not kept.
    checked: bool,
    /// Reading the value of the document's `properties` key, and that value is a sequence (whose
    /// items are the properties).
    in_properties: bool,
    property_list: bool,
    /// The type the next value read after a key must have, to be checked rather than kept.
    typed: Option<&'static Ty>,
    /// The entries and items of the collections being read, innermost last: a collection takes
    /// its own off the top when it ends, in one allocation of exactly its size.
    entries: Vec<Entry>,
    items: Vec<Node>,
    sharing: Sharing,
}

impl Scanner<'_> {
    /// Whether what is being read is dropped: inside a collection under an outline's dropped key
    /// (the key's own scalar value, at the top level, is kept).
    fn dropped(&self) -> bool {
        self.dropping && self.depth >= 2
    }

    /// The whole document, or the line where the reader gave up.
    fn document(&mut self) -> Result<Node, u32> {
        let Ok(Some(indent)) = self.next_content_line() else {
            return Err(self.line);
        };
        let node = self.block_node(indent).map_err(|_| self.line)?;
        // Everything must have been read; a line left over is an error for the full reader to
        // report.
        if self.next.is_some() {
            return Err(self.line);
        }
        Ok(node)
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'\n')
    }

    /// Whether byte `i` ends a token: a space, a line end or the end of the document.
    fn blank_at(&self, i: usize) -> bool {
        matches!(self.at(i), b' ' | b'\n')
    }

    /// The position of bytes `start..end`, which start on the current line.
    fn pos(&self, start: usize, end: usize) -> Pos {
        let known = self.ascii_to.get();
        let col = if self.ascii || start <= known {
            start - self.line_start
        } else if self.b[known..start].is_ascii() {
            self.ascii_to.set(start);
            start - self.line_start
        } else {
            self.text[self.line_start..start].chars().count()
        };
        Pos {
            start: self.base + start as u32,
            end: self.base + end as u32,
            line: self.line,
            col: col as u32 + 1,
        }
    }

    /// The end of the current line (its `\n`, or the end of the document).
    fn eol(&self) -> usize {
        self.line_end
    }

    /// Moves to the start of the next line.
    fn next_line(&mut self) {
        self.i = (self.line_end + 1).min(self.b.len());
        self.line += 1;
        self.line_start = self.i;
        self.ascii_to.set(self.i);
        self.line_end = line_end(self.b, self.i, self.b.len());
    }

    /// At the start of a line: skips blank and comment lines and stops at the content of the next
    /// line, giving its indentation (`None` at the end of the document).
    fn next_content_line(&mut self) -> R<Option<usize>> {
        loop {
            if self.i >= self.b.len() {
                return Ok(None);
            }
            let j = spaces_end(self.b, self.i, self.b.len());
            match self.at(j) {
                b'\n' | b'#' => self.next_line(),
                _ => {
                    let indent = j - self.line_start;
                    let rest = &self.b[j..self.b.len()];
                    if indent == 0
                        && (rest.starts_with(b"...") || rest.starts_with(b"---") || rest[0] == b'%')
                    {
                        return Err(Decline);
                    }
                    self.i = j;
                    return Ok(Some(indent));
                }
            }
        }
    }

    /// After a value on the current line: only spaces and a comment may follow. Moves on to the next
    /// line with content and records its indentation in `next`.
    fn finish_line(&mut self) -> R<()> {
        let spaces = self.i;
        self.i = spaces_end(self.b, self.i, self.b.len());
        match self.at(self.i) {
            b'\n' => {}
            b'#' if self.i > spaces || self.b[self.i - 1] == b' ' => {}
            _ => return Err(Decline),
        }
        self.next_line();
        self.next = self.next_content_line()?;
        Ok(())
    }

    fn is_dash(&self) -> bool {
        self.at(self.i) == b'-' && self.blank_at(self.i + 1)
    }

    /// A block collection whose first line has content at `indent` (the position).
    fn block_node(&mut self, indent: usize) -> R<Node> {
        self.deeper(|s| {
            if s.is_dash() {
                s.sequence(indent)
            } else {
                s.mapping(indent)
            }
        })
    }

    /// Reads a collection one level deeper, or declines past [`MAX_DEPTH`]: every way into a
    /// collection goes through here, so no document nests the reader deeper than that.
    fn deeper(&mut self, read: impl FnOnce(&mut Self) -> R<Node>) -> R<Node> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Decline);
        }
        let node = read(self);
        self.depth -= 1;
        node
    }

    /// A block sequence whose dashes sit at column `indent`.
    fn sequence(&mut self, indent: usize) -> R<Node> {
        if self.in_properties && self.depth == 2 {
            self.property_list = true;
        }
        let first = self.pos(self.i, self.i);
        let mark = self.items.len();
        let mut end;
        loop {
            self.i += 1;
            let item = self.item(indent)?;
            end = item.pos().end;
            if !self.dropped() {
                self.items.push(item);
            }
            match self.next {
                Some(n) if n == indent && self.is_dash() => {}
                Some(n) if n <= indent => break,
                None => break,
                Some(_) => return Err(Decline),
            }
        }
        // Catalogs hold hundreds of thousands of small collections: no spare capacity.
        let items: ThinVec<Node> = self.items.drain(mark..).collect();
        Ok(Node::with(
            Kind::Seq(items),
            Pos { end, ..first },
            Style::Block,
        ))
    }

    /// The value of a sequence item whose dash is at byte `dash` (column `indent`).
    fn item(&mut self, indent: usize) -> R<Node> {
        self.skip_spaces();
        match self.at(self.i) {
            b'\n' | b'#' => {
                // An empty item sits at the end of its line, after any comment.
                let eol = self.eol();
                let empty = Node::with(Kind::Null, self.pos(eol, eol), Style::Plain);
                self.finish_line()?;
                match self.next {
                    Some(n) if n > indent => self.block_node(n),
                    _ => Ok(empty),
                }
            }
            _ if self.is_dash() => Err(Decline),
            _ if self.key_ahead()? => {
                let col = self.i - self.line_start;
                self.deeper(|s| s.mapping(col))
            }
            _ => self.inline_value(indent),
        }
    }

    fn skip_spaces(&mut self) {
        self.i = spaces_end(self.b, self.i, self.b.len());
    }

    /// The indentation of the current line: its spaces from its start, up to its end.
    fn indentation(&self) -> usize {
        spaces_end(self.b, self.line_start, self.line_end) - self.line_start
    }

    /// A block mapping whose keys sit at column `indent`; the position is at its first key.
    fn mapping(&mut self, indent: usize) -> R<Node> {
        let first = self.pos(self.i, self.i);
        let mark = self.entries.len();
        let mut end;
        loop {
            let (key, colon) = self.key()?;
            // Only the document's own mapping is at depth 1.
            let drop = self.outline
                && self.depth == 1
                && key.as_str().is_some_and(|k| OUTLINE_DROPS.contains(&k));
            if drop {
                self.dropping = true;
            }
            let properties = self.checked && self.depth == 1 && key.as_str() == Some("properties");
            if properties {
                self.in_properties = true;
            }
            if self.property_list && self.depth == 3 {
                self.typed = self.checked_type(mark, &key);
            }
            let value = self.value_after_key(indent, colon);
            if drop {
                self.dropping = false;
            }
            if properties {
                self.in_properties = false;
                self.property_list = false;
            }
            let value = value?;
            end = value.pos().end.max(key.pos().end);
            if !self.dropped() {
                self.entries.push(Entry { key, value });
            }
            match self.next {
                Some(n) if n == indent && !self.is_dash() => {}
                Some(n) if n < indent => break,
                None => break,
                Some(_) => return Err(Decline),
            }
        }
        let entries: ThinVec<Entry> = self.entries.drain(mark..).collect();
        Ok(Node::with(
            Kind::Map(entries),
            Pos { end, ..first },
            Style::Block,
        ))
    }

    /// The type the value of `key` is checked against rather than kept, in an item of the
    /// document's `properties` (a property) whose entries start at `mark`: that of the `value` of
    /// an `olm.csv.metadata`, `olm.gvk` or `olm.gvk.required` property, when only its `type` comes
    /// before it (and, as [`Scanner::dropped_block`] sees, nothing after it). Validation reads
    /// nothing else of these values: that they decode as opm decodes them, which the check proves.
    fn checked_type(&self, mark: usize, key: &Node) -> Option<&'static Ty> {
        static CSV_METADATA: Ty = Ty::Struct(&PROP_CSV_METADATA);
        static GVK: Ty = Ty::Struct(&PROP_GVK);
        static GVK_REQUIRED: Ty = Ty::Struct(&PROP_GVK_REQUIRED);
        let [first] = &self.entries[mark..] else {
            return None;
        };
        if key.as_str() != Some("value") || first.key_str() != "type" {
            return None;
        }
        match first.value.as_str()? {
            property_type::CSV_METADATA => Some(&CSV_METADATA),
            property_type::GVK => Some(&GVK),
            property_type::GVK_REQUIRED => Some(&GVK_REQUIRED),
            _ => None,
        }
    }

    /// Whether the current line, from the position, is `key:` followed by a space or the line end.
    fn key_ahead(&self) -> R<bool> {
        let c = self.at(self.i);
        if c == b'"' || c == b'\'' {
            // A key is on one line; a quoted scalar running on is a value.
            return Ok(self
                .close_on_line(c, self.i + 1)
                .is_some_and(|close| self.at(close) == b':' && self.blank_at(close + 1)));
        }
        Ok(matches!(self.plain_extent()?, (_, Some(_))))
    }

    /// The key at the position and the byte of its `:`; the position moves past the `:`.
    fn key(&mut self) -> R<(Node, usize)> {
        let start = self.i;
        let c = self.at(start);
        let node = if c == b'"' || c == b'\'' {
            if self.close_on_line(c, start + 1).is_none() {
                return Err(Decline);
            }
            let node = self.quoted()?;
            if self.at(self.i) != b':' {
                return Err(Decline);
            }
            node
        } else {
            let (end, colon) = self.plain_extent()?;
            let Some(colon) = colon else {
                return Err(Decline);
            };
            if self.b[colon - 1] == b' ' || &self.text[start..end] == "<<" {
                // `key :` or a merge key.
                return Err(Decline);
            }
            self.i = end;
            self.plain_node(start, end)?
        };
        if self.i - start > MAX_KEY {
            return Err(Decline);
        }
        let colon = self.i;
        if !self.blank_at(colon + 1) {
            return Err(Decline);
        }
        self.i += 1;
        if matches!(node.kind, Kind::String(_)) || self.dropped() {
            // Most keys are strings already; one not kept need not be made one.
            return Ok((node, colon));
        }
        key_node(node).map(|k| (k, colon)).map_err(|_| Decline)
    }

    /// The value after the `:` at byte `colon` of a key in a mapping at column `indent`.
    fn value_after_key(&mut self, indent: usize, colon: usize) -> R<Node> {
        let typed = self.typed.take();
        self.skip_spaces();
        if !matches!(self.at(self.i), b'\n' | b'#') {
            return self.inline_value(indent);
        }
        let at = self.pos(colon, colon);
        self.finish_line()?;
        if self.dropping && self.depth == 1 || typed.is_some() {
            return self.dropped_block(indent, at, typed);
        }
        self.value_below(indent, at)
    }

    /// The value of a key whose `:` is at `at`, in a mapping at column `indent`, with nothing after
    /// it on its line: what the next line with content (the position) starts, or empty.
    fn value_below(&mut self, indent: usize, at: Pos) -> R<Node> {
        match self.next {
            Some(n) if n > indent && (self.is_dash() || self.key_ahead()?) => self.block_node(n),
            Some(n) if n > indent => self.inline_value(indent),
            Some(n) if n == indent && self.is_dash() => self.deeper(|s| s.sequence(n)),
            _ => Ok(empty_after(at)),
        }
    }

    /// A scalar (or empty flow collection) that starts at the position, in a collection at column
    /// `indent`; ends with `next` set.
    fn inline_value(&mut self, indent: usize) -> R<Node> {
        let start = self.i;
        let node = match self.at(start) {
            b'|' => return self.literal(indent),
            b'"' | b'\'' => self.quoted()?,
            b'[' | b'{' => {
                let close = if self.at(start) == b'[' { b']' } else { b'}' };
                // The full reader's range of a flow collection runs on over what ends its line.
                if self.at(start + 1) != close || self.at(start + 2) != b'\n' {
                    return Err(Decline);
                }
                self.i = start + 2;
                let kind = if close == b']' {
                    Kind::Seq(ThinVec::new())
                } else {
                    Kind::Map(ThinVec::new())
                };
                Node::with(kind, self.pos(start, start + 2), Style::Flow)
            }
            _ => return self.plain_value(indent),
        };
        self.finish_line()?;
        match self.next {
            Some(n) if n > indent => Err(Decline),
            _ => Ok(node),
        }
    }
}

/// Whether a plain scalar cannot start with `c`, a YAML indicator (`-`, `?` and `:` can when a
/// blank does not follow).
fn is_indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// The value of an empty plain scalar after a key's `:` at `at`: just after it, on its column.
fn empty_after(at: Pos) -> Node {
    Node::with(
        Kind::Null,
        Pos {
            start: at.start + 1,
            end: at.start + 1,
            ..at
        },
        Style::Plain,
    )
}

#[cfg(test)]
mod tests;
