//! Reading one YAML document into a [`Node`] tree with the byte range, line and column of every
//! node: YAML 1.1 scalar rules as opm applies them, keys made strings, merge keys applied, aliases
//! expanded within go-yaml's alias budget, long strings left on disk.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};

use super::alias::AliasBudget;
use super::lenient::{self, Repairs};
use super::positions::Positions;
use super::split::{Chunk, dash_before};
use super::yaml11::{self, Plain};
use crate::catalog::node::{
    DEFER_THRESHOLD, Entry, Kind, Node, Pos, Sharing, Str, Style, Text, ThinVec,
};

/// A YAML problem at a place in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Reading a document gives its value (`Null` for an empty or comment-only document) and notes about
/// constructs opm reads differently from what a reader might expect.
pub struct ParsedDoc {
    pub node: Node,
    /// Text after an explicit `...` end marker, which opm ignores.
    pub ignored_tail: Option<u32>,
    /// Whether the document uses anchors or aliases (edits then rewrite it whole).
    pub has_anchors: bool,
}

enum Frame {
    Seq {
        items: Vec<Node>,
        pos: Pos,
        flow: bool,
        anchor: usize,
        size: u64,
    },
    Map {
        entries: Vec<Entry>,
        key: Option<Node>,
        pos: Pos,
        flow: bool,
        anchor: usize,
        size: u64,
    },
}

impl Frame {
    fn size_mut(&mut self) -> &mut u64 {
        match self {
            Frame::Seq { size, .. } | Frame::Map { size, .. } => size,
        }
    }

    /// Whether the next node completed in this frame is a mapping key.
    fn expects_key(&self) -> bool {
        matches!(self, Frame::Map { key: None, .. })
    }
}

const MAX_DEPTH: usize = 256;

/// A node completed by an event: the node, its anchor id (0 for none) and its size in nodes.
type Completed = Option<(Node, usize, u64)>;

/// The state of reading one document.
struct Reader<'t> {
    text: &'t str,
    chunk: Chunk,
    file: u32,
    sharing: Sharing,
    positions: Positions<'t>,
    stack: Vec<Frame>,
    /// Anchored nodes with their size in nodes (aliases inside counted as expanded) and the bytes
    /// of text a copy of them holds.
    anchors: HashMap<usize, (Node, u64, u64)>,
    budget: AliasBudget,
    root: Option<Node>,
    /// Documents started in the chunk (a second one follows an explicit `...` end).
    docs: u32,
    ignored_tail: Option<u32>,
}

/// How much of a document a read keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// Every value.
    #[default]
    All,
    /// Everything but what the collections under the top-level keys [`OUTLINE_DROPS`] hold: they
    /// are read as closely as ever (a problem in them is found all the same) and kept empty, with
    /// their kind, position and style. What names and links catalog objects (schema, package,
    /// name, a channel's entries, a package's default channel) is all there. A document the quick
    /// reader leaves to the full one is kept whole.
    Outline,
    /// Everything a validation reads. The value of a property (an item of a document's top-level
    /// `properties`) of type `olm.csv.metadata`, `olm.gvk` or `olm.gvk.required`, whose content a
    /// validation only checks (in a bundle; elsewhere it reads none of it), is checked as it is
    /// read: that it is of the shape of opm's struct, holds no scalar YAML 1.1 reads otherwise
    /// than it is written (`yes`, `1.10`) and no `olm.substitutesFor` annotation. One that passes
    /// is kept empty, with its kind, position and style; one that does not, or does not stand as
    /// `type` then `value` alone in its property, is kept whole, and so is a document the quick
    /// reader leaves to the full one.
    Checked,
}

/// The top-level keys whose collections an [`Keep::Outline`] read leaves empty: a bundle's
/// properties and related images, most of a catalog's bytes.
pub const OUTLINE_DROPS: [&str; 2] = ["properties", "relatedImages"];

/// Reads one document chunk (bytes `chunk.start..chunk.end` of `text`) into a node tree.
pub fn parse_chunk(text: &str, chunk: Chunk, file: u32) -> Result<ParsedDoc, YamlError> {
    parse_chunk_shared(text, chunk, file, &mut Sharing::default())
}

/// [`parse_chunk`], holding each long string equal to one `sharing` made before only once.
pub fn parse_chunk_shared(
    text: &str,
    chunk: Chunk,
    file: u32,
    sharing: &mut Sharing,
) -> Result<ParsedDoc, YamlError> {
    parse_chunk_kept(text, chunk, 0, file, sharing, Keep::All)
}

/// [`parse_chunk_shared`] of `text` holding the file's bytes from byte `base` on, keeping what
/// `keep` asks for.
pub fn parse_chunk_kept(
    text: &str,
    chunk: Chunk,
    base: u32,
    file: u32,
    sharing: &mut Sharing,
    keep: Keep,
) -> Result<ParsedDoc, YamlError> {
    if let Some(node) = super::fast::read(text, chunk, base, file, sharing, keep) {
        return Ok(ParsedDoc {
            node,
            ignored_tail: None,
            has_anchors: false,
        });
    }
    let mut doc = parse_chunk_full(text, chunk, file)?;
    if base > 0 {
        doc.node.shift(base);
    }
    Ok(doc)
}

/// [`parse_chunk`] with the full reader only: every document, whatever its shape. Quoted scalars
/// whose continuation lines the parser finds under-indented are read as go-yaml reads them.
pub fn parse_chunk_full(text: &str, chunk: Chunk, file: u32) -> Result<ParsedDoc, YamlError> {
    let src = &text[chunk.start..chunk.end];
    let mut repairs = Repairs::default();
    let mut rereads = 0;
    loop {
        let repaired = (!repairs.is_empty()).then(|| repairs.apply(src));
        let (parsed, added) = match &repaired {
            Some(r) => (r.text.as_str(), r.added.as_slice()),
            None => (src, &[][..]),
        };
        let positions = Positions::new(parsed, src, added, chunk.start, chunk.line);
        let failed = match read_full(text, chunk, file, positions) {
            Ok(doc) => return Ok(doc),
            Err(Failed::Read(e)) => return Err(e),
            Err(Failed::Scan(e, scan)) => (e, scan),
        };
        let (error, scan) = failed;
        if rereads == lenient::MAX_REREADS {
            return Err(error);
        }
        let positions = Positions::new(parsed, src, added, chunk.start, chunk.line);
        let at = positions.byte(scan.marker().index());
        let more = match scan.info() {
            "invalid indentation in quoted scalar" => {
                repairs.quoted_scalar(src, at, scan.marker().col())
            }
            "tab cannot be used as indentation" => repairs.leading_tabs(src, at),
            _ => false,
        };
        if !more {
            return Err(error);
        }
        rereads += 1;
    }
}

/// Why the full reader stopped: a scan error (kept to be repaired) or any other problem.
enum Failed {
    Scan(YamlError, saphyr_parser::ScanError),
    Read(YamlError),
}

/// One pass of the full reader over the chunk `positions` maps.
fn read_full(
    text: &str,
    chunk: Chunk,
    file: u32,
    positions: Positions<'_>,
) -> Result<ParsedDoc, Failed> {
    let src = positions.chunk;
    let mut r = Reader {
        text,
        chunk,
        file,
        sharing: Sharing::default(),
        budget: AliasBudget::new(positions.source.len()),
        positions,
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        docs: 0,
        ignored_tail: None,
    };
    r.budget.node(); // the document itself
    let mut parser = Parser::new_from_str(src);
    while let Some(ev) = parser.next_event() {
        let (event, span) = match ev {
            Ok(ev) => ev,
            Err(e) => return Err(Failed::Scan(r.scan_error(&e), e)),
        };
        if let Some((node, anchor, size)) = r.event(event, span).map_err(Failed::Read)? {
            r.add(node, anchor, size).map_err(Failed::Read)?;
        }
    }
    let node = r.root.unwrap_or(Node::with(
        Kind::Null,
        Pos {
            start: chunk.start as u32,
            end: chunk.start as u32,
            line: chunk.line,
            col: 1,
        },
        Style::Plain,
    ));
    Ok(ParsedDoc {
        node,
        ignored_tail: r.ignored_tail,
        has_anchors: !r.anchors.is_empty(),
    })
}

fn error_at(pos: Pos, message: impl Into<String>) -> YamlError {
    YamlError {
        line: pos.line,
        col: pos.col,
        message: message.into(),
    }
}

impl Reader<'_> {
    fn scan_error(&self, e: &saphyr_parser::ScanError) -> YamlError {
        let m = e.marker();
        // The scanner counts flow levels in a byte: it stops before the reader's depth check.
        let message = match e.info() {
            "recursion limit exceeded" => {
                format!(
                    "document nested deeper than {} levels of `[` and `{{`",
                    u8::MAX
                )
            }
            info => info.to_string(),
        };
        YamlError {
            line: self.chunk.line + m.line() as u32 - 1,
            col: self.positions.col(m),
            message,
        }
    }

    /// Handles one parser event; returns the node it completes, if any.
    fn event(&mut self, event: Event, span: Span) -> Result<Completed, YamlError> {
        let pos = self.positions.pos(&span);
        Ok(match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => None,
            Event::DocumentStart(_) => {
                self.docs += 1;
                if self.docs > 1 && self.ignored_tail.is_none() {
                    self.ignored_tail = Some(pos.line);
                }
                None
            }
            _ if self.docs > 1 => None,
            Event::Alias(id) => Some(self.alias(id, pos)?),
            Event::Scalar(value, style, anchor, tag) => {
                Some(self.scalar(&value, style, anchor, tag.as_deref(), pos)?)
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if self.stack.len() >= MAX_DEPTH => {
                return Err(error_at(
                    pos,
                    format!("document nested deeper than {MAX_DEPTH} levels"),
                ));
            }
            Event::SequenceStart(anchor, _) => {
                self.budget.node();
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    pos,
                    flow: span.len() == 1,
                    anchor,
                    size: 1,
                });
                None
            }
            Event::MappingStart(anchor, _) => {
                self.budget.node();
                self.stack.push(Frame::Map {
                    entries: Vec::new(),
                    key: None,
                    pos,
                    flow: span.len() == 1,
                    anchor,
                    size: 1,
                });
                None
            }
            Event::SequenceEnd => self.end_sequence(pos),
            Event::MappingEnd => self.end_mapping(pos),
        })
    }

    /// `*id`: a copy of the anchored node (without positions: it is not where the text is), unless
    /// the document now aliases too much.
    fn alias(&mut self, id: usize, pos: Pos) -> Result<(Node, usize, u64), YamlError> {
        let Some((n, size, bytes)) = self.anchors.get(&id) else {
            return Err(error_at(pos, "unknown anchor"));
        };
        if !self.budget.alias(*size) {
            return Err(error_at(
                pos,
                "document contains excessive aliasing: its aliases would copy far more nodes than the document holds (opm refuses it too)",
            ));
        }
        if !self.budget.copy(*bytes) {
            let message = format!(
                "document contains excessive aliasing: its aliases would copy more than {} MiB of text, from a document of {} KiB",
                self.budget.copy_limit >> 20,
                (self.chunk.end - self.chunk.start) >> 10
            );
            return Err(error_at(pos, &message));
        }
        let mut n = strip_positions(n.clone());
        n.set_pos(pos);
        n.set_style(Style::Plain);
        Ok((n, 0, 1 + size))
    }

    fn scalar(
        &mut self,
        value: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        pos: Pos,
    ) -> Result<(Node, usize, u64), YamlError> {
        // go-yaml does not decode a merge key itself, only what it merges.
        let merge_key = style == ScalarStyle::Plain
            && value == "<<"
            && self.stack.last().is_some_and(Frame::expects_key);
        if !merge_key {
            self.budget.node();
        }
        let node_pos = self.scalar_pos(value, style, pos);
        let force_str =
            tag.is_some_and(|t| t.suffix == "str" || (t.handle == "!" && t.suffix.is_empty()));
        let kind = if style == ScalarStyle::Plain && !force_str {
            match yaml11::resolve_plain(value) {
                Plain::Null => Kind::Null,
                Plain::Bool(b) => Kind::Bool(b),
                Plain::Int(n) | Plain::Float(n) => Kind::Number(n.into()),
                Plain::NonFinite => {
                    return Err(error_at(
                        pos,
                        format!(
                            "{value:?} is an infinite or NaN number, which cannot be converted to JSON"
                        ),
                    ));
                }
                Plain::Str => Kind::String(make_str(
                    value,
                    self.text,
                    0,
                    node_pos,
                    self.file,
                    &mut self.sharing,
                )),
            }
        } else {
            Kind::String(make_str(
                value,
                self.text,
                0,
                node_pos,
                self.file,
                &mut self.sharing,
            ))
        };
        let style = match style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted => Style::SingleQuoted,
            ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
            ScalarStyle::Literal => Style::Literal,
            ScalarStyle::Folded => Style::Folded,
        };
        let node = Node::with(kind, node_pos, style);
        Ok((node, anchor, u64::from(!merge_key)))
    }

    /// Where a scalar's text is: a block scalar ends at its last character (or its last kept
    /// newline), an empty plain value sits just after its `:` or `-`.
    fn scalar_pos(&self, value: &str, style: ScalarStyle, pos: Pos) -> Pos {
        let text = self.text;
        let mut node_pos = pos;
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            // A block scalar's span runs up to the next token; end it at its last character,
            // or, when it keeps its trailing newlines (`|+`), just before the last of them.
            let raw = &text[node_pos.start as usize..node_pos.end as usize];
            // The header (`|+`, `>2+`) sits before the span, at the end of the previous line.
            let before = text[..node_pos.start as usize].trim_end();
            let header = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                .split_whitespace()
                .rfind(|t| t.starts_with(['|', '>']))
                .unwrap_or_default();
            let content_end = node_pos.start as usize + raw.trim_end().len();
            node_pos.end = content_end as u32;
            if header.contains('+') {
                // Kept trailing blank lines belong to the value: end at the last of them.
                let rest = &text[content_end..self.chunk.end];
                let blank = rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
                if let Some(nl) = rest[..blank].rfind('\n') {
                    node_pos.end = (content_end + nl) as u32;
                }
            }
        } else if value.is_empty()
            && style == ScalarStyle::Plain
            && matches!(
                text.as_bytes().get(node_pos.start as usize),
                Some(b':' | b'-')
            )
        {
            // An empty value sits at its `:` or `-`; place it just after the indicator.
            node_pos.start += 1;
            node_pos.end = node_pos.start;
        }
        node_pos
    }

    fn end_sequence(&mut self, end: Pos) -> Completed {
        let Some(Frame::Seq {
            items,
            mut pos,
            flow,
            anchor,
            size,
        }) = self.stack.pop()
        else {
            return None;
        };
        pos.end = if flow {
            end.end
        } else {
            items.last().map_or(pos.start, |n| n.pos().end)
        };
        if !flow {
            self.start_at_dash(&mut pos, &items);
        }
        let style = if flow { Style::Flow } else { Style::Block };
        Some((
            Node::with(Kind::Seq(items.into_iter().collect()), pos, style),
            anchor,
            size,
        ))
    }

    /// saphyr starts an indentless sequence at its first item: start it at the dash.
    fn start_at_dash(&self, pos: &mut Pos, items: &[Node]) {
        let text = self.text;
        if let Some(first) = items.first().filter(|n| n.pos().is_real())
            && let Some(dash) = dash_before(text, first.pos().start as usize)
        {
            let line_start = text[..dash].rfind('\n').map_or(0, |i| i + 1);
            pos.start = dash as u32;
            pos.line = 1 + first.pos().line
                - text[dash..first.pos().start as usize]
                    .bytes()
                    .filter(|&b| b == b'\n')
                    .count() as u32
                - 1;
            pos.col = (dash - line_start) as u32 + 1;
        }
    }

    fn end_mapping(&mut self, end: Pos) -> Completed {
        let Some(Frame::Map {
            entries,
            mut pos,
            flow,
            anchor,
            size,
            ..
        }) = self.stack.pop()
        else {
            return None;
        };
        pos.end = if flow {
            end.end
        } else {
            entries
                .last()
                .map_or(pos.start, |e| e.value.pos().end.max(e.key.pos().end))
        };
        let style = if flow { Style::Flow } else { Style::Block };
        let entries = apply_merge_keys(entries);
        Some((Node::with(Kind::Map(entries), pos, style), anchor, size))
    }

    /// Puts a completed node where it belongs: the anchors, its parent (item, key or value), or the
    /// root.
    fn add(&mut self, node: Node, anchor: usize, size: u64) -> Result<(), YamlError> {
        if anchor != 0 {
            self.anchors
                .insert(anchor, (node.clone(), size, text_bytes(&node)));
        }
        if let Some(frame) = self.stack.last_mut() {
            let total = frame.size_mut();
            *total = total.saturating_add(size);
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(key_node(node)?),
                Some(k) => entries.push(Entry {
                    key: k,
                    value: node,
                }),
            },
        }
        Ok(())
    }
}

/// Bytes of text a copy of `node` holds in memory (strings kept on disk cost nothing to copy).
fn text_bytes(node: &Node) -> u64 {
    match &node.kind {
        Kind::String(Str::Inline(s)) => s.len() as u64,
        Kind::Number(s) => s.len() as u64,
        Kind::Map(entries) => entries
            .iter()
            .map(|e| text_bytes(&e.key) + text_bytes(&e.value))
            .sum(),
        Kind::Seq(items) => items.iter().map(text_bytes).sum(),
        _ => 0,
    }
}

/// A string node's value: kept on disk when long and identical to its text there (`text` being
/// the file's from byte `base` on).
pub(super) fn make_str(
    value: &str,
    text: &str,
    base: u32,
    pos: Pos,
    file: u32,
    sharing: &mut Sharing,
) -> Str {
    if value.len() >= DEFER_THRESHOLD {
        let raw = &text[(pos.start - base) as usize..(pos.end - base) as usize];
        if raw == value {
            return Str::Deferred {
                file,
                start: pos.start,
                len: value.len() as u32,
            };
        }
    }
    Str::Inline(sharing.text(value))
}

/// Mapping keys become strings, as in opm's YAML-to-JSON conversion.
pub(super) fn key_node(mut node: Node) -> Result<Node, YamlError> {
    let text: Text = match &node.kind {
        Kind::String(_) => return Ok(node),
        Kind::Null => "null".into(),
        Kind::Bool(b) => if *b { "true" } else { "false" }.into(),
        Kind::Number(n) => Text::new(n),
        Kind::Seq(_) | Kind::Map(_) => {
            return Err(YamlError {
                line: node.pos().line,
                col: node.pos().col,
                message: "a mapping key must be a scalar, not a collection".into(),
            });
        }
    };
    node.kind = Kind::String(Str::Inline(text));
    Ok(node)
}

/// `<<: *anchor` merges the keys of the referenced mapping(s) that the mapping does not define itself.
fn apply_merge_keys(entries: Vec<Entry>) -> ThinVec<Entry> {
    if !entries
        .iter()
        .any(|e| e.key.style() == Style::Plain && e.key_str() == "<<")
    {
        return entries.into_iter().collect();
    }
    let (merges, mut own): (Vec<Entry>, Vec<Entry>) = entries
        .into_iter()
        .partition(|e| e.key.style() == Style::Plain && e.key_str() == "<<");
    for m in merges {
        let sources: ThinVec<Node> = match m.value.kind {
            Kind::Map(_) => thin_vec::thin_vec![m.value],
            Kind::Seq(items) => items,
            _ => ThinVec::new(),
        };
        for src in sources {
            if let Kind::Map(src_entries) = src.kind {
                for e in src_entries {
                    if !own.iter().any(|o| o.key_str() == e.key_str()) {
                        own.push(e);
                    }
                }
            }
        }
    }
    own.into_iter().collect()
}

fn strip_positions(mut n: Node) -> Node {
    n.set_pos(Pos::NONE);
    match &mut n.kind {
        Kind::Seq(items) => {
            for i in items.iter_mut() {
                *i = strip_positions(std::mem::replace(i, Node::new(Kind::Null)));
            }
        }
        Kind::Map(entries) => {
            for e in entries.iter_mut() {
                e.key.set_pos(Pos::NONE);
                e.value = strip_positions(std::mem::replace(&mut e.value, Node::new(Kind::Null)));
            }
        }
        _ => {}
    }
    n
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
