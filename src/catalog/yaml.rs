//! Everything YAML: splitting a file into documents the way opm does, reading a document into a
//! [`Node`] tree with positions (YAML 1.1 scalar rules, as opm applies them), and writing nodes back
//! in a document's own style.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use super::node::{DEFER_THRESHOLD, Entry, Kind, Node, Pos, Str, Style};
use super::yaml11::{self, Plain, QuoteStyle};

/// One document of a YAML stream: bytes `start..end` of the file, starting at `line`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub start: usize,
    pub end: usize,
    pub line: u32,
}

/// A line starting with `---` that has other text after it (opm rejects it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeparatorError {
    pub line: u32,
    pub rest: String,
}

/// Splits `text` (starting at byte `from`, which is on line `first_line`) into documents with opm's rule:
/// a line whose first three bytes are `---` ends a document; only spaces or a comment may follow on that
/// line. Chunks with no bytes at all are dropped; a chunk of blank lines is kept (opm rejects it).
pub fn split_documents(
    text: &str,
    from: usize,
    first_line: u32,
) -> (Vec<Chunk>, Vec<SeparatorError>) {
    let mut chunks = Vec::new();
    let mut errors = Vec::new();
    let bytes = text.as_bytes();
    let mut line = first_line;
    let mut chunk_start = from;
    let mut chunk_line = first_line;
    let mut i = from;
    while i < bytes.len() {
        let eol = memchr_newline(bytes, i);
        let next = if eol < bytes.len() { eol + 1 } else { eol };
        if bytes[i..eol].starts_with(b"---") {
            let rest = text[i + 3..eol].trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                errors.push(SeparatorError {
                    line,
                    rest: rest.to_string(),
                });
            }
            if i > chunk_start {
                chunks.push(Chunk {
                    start: chunk_start,
                    end: i,
                    line: chunk_line,
                });
            }
            chunk_start = next;
            chunk_line = line + 1;
        }
        i = next;
        line += 1;
    }
    if bytes.len() > chunk_start {
        chunks.push(Chunk {
            start: chunk_start,
            end: bytes.len(),
            line: chunk_line,
        });
    }
    (chunks, errors)
}

fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

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

/// Maps character indices of saphyr markers to byte offsets of the file.
struct Positions<'a> {
    chunk: &'a str,
    base: usize,
    first_line: u32,
    /// Byte offset of each character, when the chunk is not ASCII.
    char_bytes: Option<Vec<u32>>,
}

impl<'a> Positions<'a> {
    fn new(chunk: &'a str, base: usize, first_line: u32) -> Self {
        let char_bytes = if chunk.is_ascii() {
            None
        } else {
            let mut v: Vec<u32> = chunk.char_indices().map(|(b, _)| b as u32).collect();
            v.push(chunk.len() as u32);
            Some(v)
        };
        Positions {
            chunk,
            base,
            first_line,
            char_bytes,
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.char_bytes {
            None => char_index.min(self.chunk.len()),
            Some(v) => v
                .get(char_index)
                .copied()
                .unwrap_or(self.chunk.len() as u32) as usize,
        }
    }

    fn pos(&self, span: &Span) -> Pos {
        Pos {
            start: (self.base + self.byte(span.start.index())) as u32,
            end: (self.base + self.byte(span.end.index())) as u32,
            line: self.first_line + span.start.line() as u32 - 1,
            col: span.start.col() as u32 + 1,
        }
    }
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

/// go-yaml's guard against alias bombs ("billion laughs"), which opm's YAML reader inherits: every node
/// decoded counts once, every node decoded again through an alias counts as aliased too, and a document
/// whose aliased share is too large for its size is refused. Counting the way go-yaml does keeps the same
/// verdict; checking the anchored node's size before copying it keeps the work and memory bounded.
#[derive(Default)]
struct AliasBudget {
    decoded: u64,
    aliased: u64,
    /// Bytes of text the aliases copied, and how many they may copy.
    copied: u64,
    copy_limit: u64,
}

impl AliasBudget {
    const RANGE_LOW: u64 = 400_000;
    const RANGE_HIGH: u64 = 4_000_000;

    /// The share of decoded nodes that may come from aliases, for a document of `decoded` nodes.
    fn allowed_ratio(decoded: u64) -> f64 {
        if decoded <= Self::RANGE_LOW {
            0.99
        } else if decoded >= Self::RANGE_HIGH {
            0.10
        } else {
            0.99 - 0.89
                * ((decoded - Self::RANGE_LOW) as f64 / (Self::RANGE_HIGH - Self::RANGE_LOW) as f64)
        }
    }

    /// A budget for a document of `len` bytes: besides go-yaml's count of nodes, the text aliases
    /// copy is held to 16 MiB or four times the document, whichever is more. (go-yaml shares an
    /// aliased string; here each alias is a copy, so a huge string aliased a few hundred times would
    /// otherwise take hundreds of times the document's size in memory.)
    fn new(len: usize) -> AliasBudget {
        AliasBudget {
            copy_limit: (16u64 << 20).max(4 * len as u64),
            ..Default::default()
        }
    }

    fn node(&mut self) {
        self.decoded = self.decoded.saturating_add(1);
    }

    /// An alias to a node holding `bytes` bytes of text in memory: false when the aliases of the
    /// document now copy too much text.
    fn copy(&mut self, bytes: u64) -> bool {
        self.copied = self.copied.saturating_add(bytes);
        self.copied <= self.copy_limit
    }

    /// An alias to a node of `size` nodes: false when the document now aliases too much.
    fn alias(&mut self, size: u64) -> bool {
        self.decoded = self.decoded.saturating_add(1).saturating_add(size);
        self.aliased = self.aliased.saturating_add(size);
        !(self.aliased > 100
            && self.decoded > 1000
            && self.aliased as f64 / self.decoded as f64 > Self::allowed_ratio(self.decoded))
    }
}

const MAX_DEPTH: usize = 256;

/// The `-` of the block sequence item starting at `pos`: the last character before it that is not
/// blank and not part of a comment.
pub fn dash_before(text: &str, pos: usize) -> Option<usize> {
    let mut end = pos;
    loop {
        let line_start = text[..end].rfind('\n').map_or(0, |i| i + 1);
        let mut seg = &text[line_start..end];
        // A comment runs from a `#` at the start of the line or after a blank to the end of the line;
        // only the part of a line before `pos` is looked at on the item's own line.
        if end != pos
            && let Some(h) = seg
                .char_indices()
                .find(|&(i, c)| c == '#' && (i == 0 || seg[..i].ends_with([' ', '\t'])))
                .map(|(i, _)| i)
        {
            seg = &seg[..h];
        }
        let trimmed = seg.trim_end_matches([' ', '\t', '\r']);
        if !trimmed.is_empty() {
            return trimmed
                .ends_with('-')
                .then(|| line_start + trimmed.len() - 1);
        }
        if line_start == 0 {
            return None;
        }
        end = line_start - 1;
    }
}

/// Reads one document chunk (bytes `chunk.start..chunk.end` of `text`) into a node tree.
pub fn parse_chunk(text: &str, chunk: Chunk, file: u32) -> Result<ParsedDoc, YamlError> {
    let src = &text[chunk.start..chunk.end];
    let positions = Positions::new(src, chunk.start, chunk.line);
    let mut parser = Parser::new_from_str(src);
    let mut stack: Vec<Frame> = Vec::new();
    // Anchored nodes with their size in nodes (aliases inside counted as expanded).
    let mut anchors: HashMap<usize, (Node, u64, u64)> = HashMap::new();
    let mut budget = AliasBudget::new(src.len());
    budget.node(); // the document itself
    let mut root: Option<Node> = None;
    let mut docs = 0u32;
    let mut ignored_tail = None;

    let scan_error = |e: saphyr_parser::ScanError| {
        let m = e.marker();
        YamlError {
            line: chunk.line + m.line() as u32 - 1,
            col: m.col() as u32 + 1,
            message: e.info().to_string(),
        }
    };

    while let Some(ev) = parser.next_event() {
        let (event, span) = ev.map_err(scan_error)?;
        let pos = positions.pos(&span);
        let completed: Option<(Node, usize, u64)> = match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => None,
            Event::DocumentStart(_) => {
                docs += 1;
                if docs > 1 && ignored_tail.is_none() {
                    ignored_tail = Some(pos.line);
                }
                None
            }
            _ if docs > 1 => None,
            Event::Alias(id) => match anchors.get(&id) {
                Some((n, size, bytes)) => {
                    if !budget.alias(*size) {
                        return Err(YamlError {
                            line: pos.line,
                            col: pos.col,
                            message: "document contains excessive aliasing: its aliases would copy far more nodes than the document holds (opm refuses it too)"
                                .into(),
                        });
                    }
                    if !budget.copy(*bytes) {
                        return Err(YamlError {
                            line: pos.line,
                            col: pos.col,
                            message: format!(
                                "document contains excessive aliasing: its aliases would copy more than {} MiB of text, from a document of {} KiB",
                                budget.copy_limit >> 20,
                                src.len() >> 10
                            ),
                        });
                    }
                    let mut n = strip_positions(n.clone());
                    n.pos = pos;
                    n.style = Style::Plain;
                    Some((n, 0, 1 + size))
                }
                None => {
                    return Err(YamlError {
                        line: pos.line,
                        col: pos.col,
                        message: "unknown anchor".into(),
                    });
                }
            },
            Event::Scalar(value, style, anchor, tag) => {
                // go-yaml does not decode a merge key itself, only what it merges.
                let merge_key = style == ScalarStyle::Plain
                    && &*value == "<<"
                    && stack.last().is_some_and(Frame::expects_key);
                if !merge_key {
                    budget.node();
                }
                let mut node_pos = pos;
                let node_style = match style {
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted => Style::SingleQuoted,
                    ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                };
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
                        let rest = &text[content_end..chunk.end];
                        let blank =
                            rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
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
                let force_str = tag
                    .as_ref()
                    .is_some_and(|t| t.suffix == "str" || (t.handle == "!" && t.suffix.is_empty()));
                let kind = if style == ScalarStyle::Plain && !force_str {
                    match yaml11::resolve_plain(&value) {
                        Plain::Null => Kind::Null,
                        Plain::Bool(b) => Kind::Bool(b),
                        Plain::Int(n) | Plain::Float(n) => Kind::Number(n.into()),
                        Plain::NonFinite => {
                            return Err(YamlError {
                                line: pos.line,
                                col: pos.col,
                                message: format!(
                                    "{value:?} is an infinite or NaN number, which cannot be converted to JSON"
                                ),
                            });
                        }
                        Plain::Str => Kind::String(make_str(&value, text, node_pos, file)),
                    }
                } else {
                    Kind::String(make_str(&value, text, node_pos, file))
                };
                let node = Node {
                    kind,
                    pos: node_pos,
                    style: node_style,
                };
                Some((node, anchor, u64::from(!merge_key)))
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if stack.len() >= MAX_DEPTH => {
                return Err(YamlError {
                    line: pos.line,
                    col: pos.col,
                    message: format!("document nested deeper than {MAX_DEPTH} levels"),
                });
            }
            Event::SequenceStart(anchor, _) => {
                budget.node();
                let flow = span.len() == 1;
                stack.push(Frame::Seq {
                    items: Vec::new(),
                    pos,
                    flow,
                    anchor,
                    size: 1,
                });
                None
            }
            Event::MappingStart(anchor, _) => {
                budget.node();
                let flow = span.len() == 1;
                stack.push(Frame::Map {
                    entries: Vec::new(),
                    key: None,
                    pos,
                    flow,
                    anchor,
                    size: 1,
                });
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq {
                    items,
                    mut pos,
                    flow,
                    anchor,
                    size,
                }) => {
                    pos.end = if flow {
                        positions.pos(&span).end
                    } else {
                        items.last().map_or(pos.start, |n| n.pos.end)
                    };
                    if !flow {
                        // saphyr starts an indentless sequence at its first item: start it at the dash.
                        if let Some(first) = items.first().filter(|n| n.pos.is_real())
                            && let Some(dash) = dash_before(text, first.pos.start as usize)
                        {
                            let line_start = text[..dash].rfind('\n').map_or(0, |i| i + 1);
                            pos.start = dash as u32;
                            pos.line = 1 + first.pos.line
                                - text[dash..first.pos.start as usize]
                                    .bytes()
                                    .filter(|&b| b == b'\n')
                                    .count() as u32
                                - 1;
                            pos.col = (dash - line_start) as u32 + 1;
                        }
                    }
                    let style = if flow { Style::Flow } else { Style::Block };
                    Some((
                        Node {
                            kind: Kind::Seq(items),
                            pos,
                            style,
                        },
                        anchor,
                        size,
                    ))
                }
                _ => None,
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map {
                    entries,
                    mut pos,
                    flow,
                    anchor,
                    size,
                    ..
                }) => {
                    pos.end = if flow {
                        positions.pos(&span).end
                    } else {
                        entries
                            .last()
                            .map_or(pos.start, |e| e.value.pos.end.max(e.key.pos.end))
                    };
                    let style = if flow { Style::Flow } else { Style::Block };
                    let entries = apply_merge_keys(entries);
                    Some((
                        Node {
                            kind: Kind::Map(entries),
                            pos,
                            style,
                        },
                        anchor,
                        size,
                    ))
                }
                _ => None,
            },
        };
        let Some((node, anchor, size)) = completed else {
            continue;
        };
        if anchor != 0 {
            anchors.insert(anchor, (node.clone(), size, text_bytes(&node)));
        }
        if let Some(frame) = stack.last_mut() {
            let total = frame.size_mut();
            *total = total.saturating_add(size);
        }
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(key_node(node)?),
                Some(k) => entries.push(Entry {
                    key: k,
                    value: node,
                }),
            },
        }
    }
    let node = root.unwrap_or(Node {
        kind: Kind::Null,
        pos: Pos {
            start: chunk.start as u32,
            end: chunk.start as u32,
            line: chunk.line,
            col: 1,
        },
        style: Style::Plain,
    });
    Ok(ParsedDoc {
        node,
        ignored_tail,
        has_anchors: !anchors.is_empty(),
    })
}

/// Bytes of text a copy of `node` holds in memory (strings kept on disk cost nothing to copy).
fn text_bytes(node: &Node) -> u64 {
    match &node.kind {
        Kind::String(Str::Inline(s)) | Kind::Number(s) => s.len() as u64,
        Kind::Map(entries) => entries
            .iter()
            .map(|e| text_bytes(&e.key) + text_bytes(&e.value))
            .sum(),
        Kind::Seq(items) => items.iter().map(text_bytes).sum(),
        _ => 0,
    }
}

/// A string node's value: kept on disk when long and identical to its text there.
fn make_str(value: &str, text: &str, pos: Pos, file: u32) -> Str {
    if value.len() >= DEFER_THRESHOLD {
        let raw = &text[pos.start as usize..pos.end as usize];
        if raw == value {
            return Str::Deferred {
                file,
                start: pos.start,
                len: value.len() as u32,
            };
        }
    }
    Str::Inline(value.into())
}

/// Mapping keys become strings, as in opm's YAML-to-JSON conversion.
fn key_node(mut node: Node) -> Result<Node, YamlError> {
    let text: Box<str> = match &node.kind {
        Kind::String(_) => return Ok(node),
        Kind::Null => "null".into(),
        Kind::Bool(b) => if *b { "true" } else { "false" }.into(),
        Kind::Number(n) => n.clone(),
        Kind::Seq(_) | Kind::Map(_) => {
            return Err(YamlError {
                line: node.pos.line,
                col: node.pos.col,
                message: "a mapping key must be a scalar, not a collection".into(),
            });
        }
    };
    node.kind = Kind::String(Str::Inline(text));
    Ok(node)
}

/// `<<: *anchor` merges the keys of the referenced mapping(s) that the mapping does not define itself.
fn apply_merge_keys(entries: Vec<Entry>) -> Vec<Entry> {
    if !entries
        .iter()
        .any(|e| e.key.style == Style::Plain && e.key_str() == "<<")
    {
        return entries;
    }
    let (merges, mut own): (Vec<Entry>, Vec<Entry>) = entries
        .into_iter()
        .partition(|e| e.key.style == Style::Plain && e.key_str() == "<<");
    for m in merges {
        let sources: Vec<Node> = match m.value.kind {
            Kind::Map(_) => vec![m.value],
            Kind::Seq(items) => items,
            _ => Vec::new(),
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
    own
}

fn strip_positions(mut n: Node) -> Node {
    n.pos = Pos::NONE;
    match &mut n.kind {
        Kind::Seq(items) => {
            for i in items.iter_mut() {
                *i = strip_positions(std::mem::replace(i, Node::new(Kind::Null)));
            }
        }
        Kind::Map(entries) => {
            for e in entries.iter_mut() {
                e.key.pos = Pos::NONE;
                e.value = strip_positions(std::mem::replace(&mut e.value, Node::new(Kind::Null)));
            }
        }
        _ => {}
    }
    n
}

/// The layout of a YAML document, so text written into it looks like its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YamlStyle {
    /// Spaces per nesting level of a mapping.
    pub indent: usize,
    /// Whether `- ` items of a sequence sit deeper than their key (`key:\n  - a`) or level with it.
    pub indent_sequences: bool,
    /// The width past which a long plain value without spaces goes on the line after its key
    /// (`key: ⏎  value`, with the space after the colon kept), as ruamel.yaml writes it; `None` for a
    /// document that never does that.
    pub wrap_width: Option<usize>,
}

impl Default for YamlStyle {
    fn default() -> Self {
        YamlStyle {
            indent: 2,
            indent_sequences: false,
            wrap_width: None,
        }
    }
}

/// ruamel.yaml's default line width.
const RUAMEL_WIDTH: usize = 80;

impl YamlStyle {
    /// Detects the style of a document from its block collections.
    pub fn detect(root: &Node) -> YamlStyle {
        let mut style = YamlStyle::default();
        let mut found_indent = false;
        let mut seq_offset = None;
        detect_walk(root, &mut style, &mut found_indent, &mut seq_offset);
        if wraps_long_values(root) {
            style.wrap_width = Some(RUAMEL_WIDTH);
        }
        if let Some(offset) = seq_offset {
            style.indent_sequences = offset > 0;
            // With no nested mapping to learn from, indented sequences tell the indent width.
            if !found_indent && offset > 0 {
                style.indent = offset;
            }
        }
        style
    }
}

/// Whether some plain scalar of the document starts on the line after its key (`key: ⏎  value`).
fn wraps_long_values(node: &Node) -> bool {
    match &node.kind {
        Kind::Map(entries) => entries.iter().any(|e| {
            let wrapped = matches!(e.value.kind, Kind::String(_))
                && e.value.style == Style::Plain
                && e.value.pos.is_real()
                && e.key.pos.is_real()
                && e.value.pos.line > e.key.pos.line;
            wrapped || wraps_long_values(&e.value)
        }),
        Kind::Seq(items) => items.iter().any(wraps_long_values),
        _ => false,
    }
}

fn detect_walk(
    node: &Node,
    style: &mut YamlStyle,
    found_indent: &mut bool,
    seq_offset: &mut Option<usize>,
) {
    if *found_indent && seq_offset.is_some() {
        return;
    }
    match &node.kind {
        Kind::Map(entries) => {
            for e in entries {
                let nested = node.style == Style::Block
                    && e.value.style == Style::Block
                    && e.value.pos.is_real()
                    && e.key.pos.is_real()
                    && e.value.pos.line > e.key.pos.line;
                if nested {
                    match &e.value.kind {
                        Kind::Map(_) if !*found_indent && e.value.pos.col > e.key.pos.col => {
                            style.indent = (e.value.pos.col - e.key.pos.col) as usize;
                            *found_indent = true;
                        }
                        Kind::Seq(_) if seq_offset.is_none() => {
                            *seq_offset =
                                Some(e.value.pos.col.saturating_sub(e.key.pos.col) as usize);
                        }
                        _ => {}
                    }
                }
                detect_walk(&e.value, style, found_indent, seq_offset);
            }
        }
        Kind::Seq(items) => {
            for i in items {
                detect_walk(i, style, found_indent, seq_offset);
            }
        }
        _ => {}
    }
}

/// Writes a scalar (or an empty collection) inline. `like` is the original node whose quoting to keep.
pub fn write_inline(out: &mut String, node: &Node, like: Style, resolve: &dyn Fn(&Str) -> String) {
    match &node.kind {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Kind::Number(n) => out.push_str(n),
        Kind::String(s) => {
            let text;
            let s: &str = match s {
                Str::Inline(s) => s,
                d => {
                    text = resolve(d);
                    &text
                }
            };
            let q = match like {
                Style::SingleQuoted => QuoteStyle::Single,
                Style::DoubleQuoted => QuoteStyle::Double,
                _ => QuoteStyle::Plain,
            };
            yaml11::write_scalar_str(out, s, q);
        }
        Kind::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_inline(out, item, Style::Any, resolve);
            }
            out.push(']');
        }
        Kind::Map(entries) => {
            out.push('{');
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                yaml11::write_scalar_str(out, e.key_str(), QuoteStyle::Plain);
                out.push_str(": ");
                write_inline(out, &e.value, Style::Any, resolve);
            }
            out.push('}');
        }
    }
}

fn is_block(node: &Node) -> bool {
    match &node.kind {
        Kind::Seq(v) => !v.is_empty(),
        Kind::Map(v) => !v.is_empty(),
        _ => false,
    }
}

fn literal_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with([' ', '\t', '\n'])
        && !s.ends_with("\n\n")
        && s.chars().all(|c| c == '\n' || c == '\t' || !c.is_control())
        && s.lines().all(|l| !l.ends_with([' ', '\t']))
}

fn push_indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Writes the value part of a `key: value` pair at mapping indentation `indent`: either ` scalar` on the
/// same line, or a newline and a block below.
pub fn write_value_after_key(
    out: &mut String,
    value: &Node,
    indent: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    match &value.kind {
        Kind::Map(_) if is_block(value) => {
            out.push('\n');
            write_block(out, value, indent + style.indent, style, resolve);
        }
        Kind::Seq(_) if is_block(value) => {
            out.push('\n');
            let dash = if style.indent_sequences {
                indent + style.indent
            } else {
                indent
            };
            write_block(out, value, dash, style, resolve);
        }
        Kind::String(Str::Inline(s)) if literal_ok(s) => {
            out.push_str(if s.ends_with('\n') { " |\n" } else { " |-\n" });
            for line in s.trim_end_matches('\n').split('\n') {
                if !line.is_empty() {
                    push_indent(out, indent + style.indent);
                    out.push_str(line);
                }
                out.push('\n');
            }
            out.pop();
        }
        Kind::String(Str::Inline(s)) if wraps_here(out, s, style) => {
            out.push_str(" \n");
            push_indent(out, indent + style.indent);
            write_inline(out, value, Style::Any, resolve);
        }
        _ => {
            out.push(' ');
            write_inline(out, value, Style::Any, resolve);
        }
    }
}

/// Whether a value goes on the next line in a document that wraps long values: it is written plain,
/// has no spaces, and would pass the width after `key: ` on the current line of `out`.
fn wraps_here(out: &str, s: &str, style: YamlStyle) -> bool {
    let Some(width) = style.wrap_width else {
        return false;
    };
    let column = out.len() - out.rfind('\n').map_or(0, |i| i + 1);
    let mut plain = String::new();
    yaml11::write_scalar_str(&mut plain, s, QuoteStyle::Plain);
    plain == s && !s.contains(' ') && column + 1 + s.chars().count() > width
}

/// Writes a block collection whose first line starts at column `indent` (the first line is indented
/// too). No trailing newline.
pub fn write_block(
    out: &mut String,
    node: &Node,
    indent: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    match &node.kind {
        Kind::Map(entries) if !entries.is_empty() => {
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                push_indent(out, indent);
                write_map_entry(out, e, indent, style, resolve);
            }
        }
        Kind::Seq(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                push_indent(out, indent);
                write_seq_item(out, item, indent, style, resolve);
            }
        }
        _ => {
            push_indent(out, indent);
            write_inline(out, node, Style::Any, resolve);
        }
    }
}

/// Writes `key: value` (the cursor is already at the key's column).
pub fn write_map_entry(
    out: &mut String,
    e: &Entry,
    indent: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    yaml11::write_scalar_str(out, e.key_str(), QuoteStyle::Plain);
    out.push(':');
    write_value_after_key(out, &e.value, indent, style, resolve);
}

/// Writes `- item` (the cursor is already at the dash's column `dash`).
pub fn write_seq_item(
    out: &mut String,
    item: &Node,
    dash: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    out.push('-');
    match &item.kind {
        Kind::Map(entries) if !entries.is_empty() => {
            out.push(' ');
            let inner = dash + 2;
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                    push_indent(out, inner);
                }
                write_map_entry(out, e, inner, style, resolve);
            }
        }
        Kind::Seq(items) if !items.is_empty() => {
            out.push(' ');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                    push_indent(out, dash + 2);
                }
                write_seq_item(out, it, dash + 2, style, resolve);
            }
        }
        _ => {
            // A multi-line string after a dash reads as `- |` with the text indented below.
            write_value_after_key(out, item, dash, style, resolve);
        }
    }
}

/// Writes a whole document (a block mapping at column 0) followed by a newline.
pub fn write_document(
    out: &mut String,
    node: &Node,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    write_block(out, node, 0, style, resolve);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        let (chunks, errs) = split_documents(text, 0, 1);
        assert!(errs.is_empty());
        parse_chunk(text, chunks[0], 0).unwrap().node
    }

    /// `levels` anchors, each a sequence of `width` aliases to the one before ("billion laughs").
    fn alias_bomb(levels: usize, width: usize) -> String {
        let mut text = format!("a0: &a0 [{}]\n", vec!["lol"; width].join(","));
        for i in 1..levels {
            let prev = format!("*a{}", i - 1);
            text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; width].join(",")));
        }
        text
    }

    #[test]
    fn an_alias_bomb_is_refused_before_it_is_expanded() {
        let text = alias_bomb(10, 10);
        let (chunks, _) = split_documents(&text, 0, 1);
        let err = parse_chunk(&text, chunks[0], 0).err().expect("refused");
        assert!(
            err.message.contains("excessive aliasing"),
            "{}",
            err.message
        );
        // The alias that tips the balance, long before a billion nodes are made.
        assert_eq!(err.line, 4);
    }

    /// A long string aliased many times passes go-yaml's count of nodes (a few hundred nodes) but
    /// would copy hundreds of times the document's size: refused once the copies pass the limit.
    #[test]
    fn a_long_string_aliased_over_and_over_is_refused() {
        let long = "\\n".repeat(100_000); // 200 KiB of text, 100 KiB of value: kept in memory
        let aliases = |n: usize| vec!["*s"; n].join(", ");
        let text = format!("s: &s \"{long}\"\nx: [{}]\n", aliases(300));
        let (chunks, _) = split_documents(&text, 0, 1);
        let err = parse_chunk(&text, chunks[0], 0).err().expect("refused");
        assert!(
            err.message
                .contains("its aliases would copy more than 16 MiB of text, from a document of"),
            "{}",
            err.message
        );
        assert_eq!(err.line, 2);
        // Ten copies are fine.
        let text = format!("s: &s \"{long}\"\nx: [{}]\n", aliases(10));
        let (chunks, _) = split_documents(&text, 0, 1);
        assert!(parse_chunk(&text, chunks[0], 0).is_ok());
    }

    #[test]
    fn moderate_aliasing_is_read_as_go_yaml_reads_it() {
        // 100 aliased nodes are always allowed, however small the document.
        let small =
            "base: &b {a: 1, b: 2, c: 3, d: 4}\nx: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
        let n = parse(small);
        let Kind::Map(entries) = &n.kind else {
            panic!()
        };
        let Kind::Seq(items) = &entries[1].value.kind else {
            panic!()
        };
        assert_eq!(items.len(), 10);
        assert_eq!(
            items[9], entries[0].value,
            "an alias reads as its anchored value"
        );
        // Two levels of ten: 1,320 of 1,357 nodes decoded through aliases (97 %): allowed.
        let text = alias_bomb(3, 10);
        let (chunks, _) = split_documents(&text, 0, 1);
        assert!(parse_chunk(&text, chunks[0], 0).is_ok());
        // A third level passes 99 % at its third alias, as go-yaml counts.
        let text = alias_bomb(4, 10);
        let (chunks, _) = split_documents(&text, 0, 1);
        let err = parse_chunk(&text, chunks[0], 0).err().expect("refused");
        assert_eq!((err.line, err.col), (4, 18), "the third alias of `a3`");
    }

    #[test]
    fn merge_keys_count_what_they_merge() {
        let n = parse("base: &b {a: 1}\nm:\n  <<: *b\n  c: 2\n");
        let Kind::Map(entries) = &n.kind else {
            panic!()
        };
        assert_eq!(
            entries[1].value.get_field("a").map(|v| v.pos.is_real()),
            Some(false)
        );
    }

    #[test]
    fn splits_like_opm() {
        let text = "---\na: 1\n--- # c\nb: 2\n---\n---\nc: 3\n---\n";
        let (chunks, errs) = split_documents(text, 0, 1);
        assert!(errs.is_empty());
        let bodies: Vec<&str> = chunks.iter().map(|c| &text[c.start..c.end]).collect();
        assert_eq!(bodies, vec!["a: 1\n", "b: 2\n", "c: 3\n"]);
        assert_eq!(chunks[1].line, 4);
        let (_, errs) = split_documents("a: 1\n--- !tag\nb: 2\n", 0, 1);
        assert_eq!(
            errs,
            vec![SeparatorError {
                line: 2,
                rest: "!tag".into()
            }]
        );
        let (chunks, _) = split_documents("# header\n---\na: 1\n", 0, 1);
        assert_eq!(chunks.len(), 2, "a comment-only chunk is kept, as opm does");
    }

    #[test]
    fn applies_yaml11_scalars_and_positions() {
        let n = parse(
            "schema: olm.bundle\nv: 1.10\nq: \"1.10\"\nb: yes\nnone: ~\non: 1\nlist:\n- a\n- 'b'\n",
        );
        assert_eq!(n.get("schema").unwrap().as_str(), Some("olm.bundle"));
        assert!(matches!(&n.get("v").unwrap().kind, Kind::Number(x) if &**x == "1.1"));
        assert_eq!(n.get("q").unwrap().as_str(), Some("1.10"));
        assert!(matches!(n.get("b").unwrap().kind, Kind::Bool(true)));
        assert!(n.get("none").unwrap().is_null());
        // A key that YAML 1.1 reads as a boolean becomes "true", as in opm's YAML-to-JSON conversion.
        assert!(n.get("true").is_some() && n.get("on").is_none());
        let list = n.get("list").unwrap();
        assert_eq!(list.pos.line, 8);
        assert_eq!(list.pos.col, 1);
        let b = &list.as_seq().unwrap()[1];
        assert_eq!(b.style, Style::SingleQuoted);
        assert_eq!(b.pos.line, 9);
        assert_eq!((b.pos.start, b.pos.end), (70, 73));
    }

    #[test]
    fn positions_are_bytes_with_non_ascii_text() {
        let text = "d: \"héllo wörld\"\nk: x\n";
        let n = parse(text);
        let x = n.get("k").unwrap();
        assert_eq!(&text[x.pos.start as usize..x.pos.end as usize], "x");
    }

    #[test]
    fn detects_indent_and_sequence_style() {
        let a = parse("a:\n    b: 1\nl:\n    - x\n");
        assert_eq!(
            YamlStyle::detect(&a),
            YamlStyle {
                indent: 4,
                indent_sequences: true,
                wrap_width: None,
            }
        );
        let b = parse("a:\n  b: 1\nl:\n- x\n");
        assert_eq!(YamlStyle::detect(&b), YamlStyle::default());
    }

    #[test]
    fn a_document_that_wraps_long_values_gets_new_ones_wrapped_too() {
        let wrapped = parse(
            "- image: \n    quay.io/a/very/long/reference/that/passes/the/eighty/column/mark@sha256:0123\n  schema: olm.bundle\n",
        );
        let style = YamlStyle::detect(&wrapped);
        assert_eq!(style.wrap_width, Some(80));
        let entry = Node::map(vec![
            ("schema", Node::string("olm.bundle")),
            (
                "image",
                Node::string(
                    "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3",
                ),
            ),
        ]);
        let mut out = String::new();
        write_block(&mut out, &entry, 2, style, &|_| String::new());
        assert_eq!(
            out,
            "  schema: olm.bundle\n  image: \n    quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3"
        );
        // A value that fits stays on its line; without the style nothing wraps.
        let mut out = String::new();
        write_block(&mut out, &entry, 2, YamlStyle::default(), &|_| {
            String::new()
        });
        assert!(out.ends_with("  image: quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3"));
    }

    #[test]
    fn writes_blocks_that_read_back_equal() {
        let src = "schema: olm.channel\nname: \"yes\"\nentries:\n- name: a\n  skips:\n  - \"1.10\"\n  - on\ndesc: |\n  line one\n  line two\nempty: []\n";
        let n = parse(src);
        for style in [
            YamlStyle::default(),
            YamlStyle {
                indent: 4,
                indent_sequences: true,
                wrap_width: None,
            },
        ] {
            let mut out = String::new();
            write_document(&mut out, &n, style, &|_| String::new());
            let back = parse(&out);
            assert_eq!(back, n, "{out}");
        }
    }
}
