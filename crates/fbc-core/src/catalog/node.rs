//! The order-preserving value every blob is read into.
//!
//! A [`Node`] remembers where it came from (byte range, line and column in its file) and how it was
//! written (quoting, block or flow), so an edit can be written back touching only what changed.
//! Very long strings (for example `olm.bundle.object` payloads) are not copied: they stay on disk as
//! a [`Str::Deferred`] reference and are read only when asked for.

pub use thin_vec::{ThinVec, thin_vec};

pub use super::node_text::{Sharing, Text};

/// Strings at least this long whose text on disk is exactly their value are kept on disk.
pub const DEFER_THRESHOLD: usize = 4096;

/// Where a node sits in its file. Offsets are bytes from the start of the file; `line` and `col` are
/// 1-based. A node built by an edit has `line == 0`. A node holds columns up to [`MAX_COL`]; one
/// further right (only on a line over 512 MiB long) reads as `MAX_COL`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pos {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

impl Pos {
    pub const NONE: Pos = Pos {
        start: 0,
        end: 0,
        line: 0,
        col: 0,
    };

    pub fn is_real(&self) -> bool {
        self.line != 0
    }
}

/// The furthest column a node records.
pub const MAX_COL: u32 = (1 << COL_BITS) - 1;

/// Bits of a node's packed word that hold its column; the rest hold its [`Style`].
const COL_BITS: u32 = 29;

/// How a node was written, so a rewrite can keep the file's style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Style {
    /// JSON text, or a node created by an edit.
    #[default]
    Any,
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    /// YAML block collection (indentation based).
    Block,
    /// YAML flow collection (`{}` / `[]`).
    Flow,
}

impl Style {
    const ALL: [Style; 8] = [
        Style::Any,
        Style::Plain,
        Style::SingleQuoted,
        Style::DoubleQuoted,
        Style::Literal,
        Style::Folded,
        Style::Block,
        Style::Flow,
    ];
}

/// A string value: held in memory, or left on disk when long.
#[derive(Clone, Debug)]
pub enum Str {
    Inline(Text),
    /// Bytes `start..start+len` of catalog file number `file` (an index into the catalog's files).
    Deferred {
        file: u32,
        start: u32,
        len: u32,
    },
}

impl Str {
    pub fn new(s: impl Into<Text>) -> Self {
        Str::Inline(s.into())
    }

    /// The text, when it is held in memory.
    pub fn as_inline(&self) -> Option<&str> {
        match self {
            Str::Inline(s) => Some(s),
            Str::Deferred { .. } => None,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Str::Inline(s) => s.len(),
            Str::Deferred { len, .. } => *len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Str::Inline(a), Str::Inline(b)) => a == b,
            (
                Str::Deferred {
                    file: f1,
                    start: s1,
                    len: l1,
                },
                Str::Deferred {
                    file: f2,
                    start: s2,
                    len: l2,
                },
            ) => f1 == f2 && s1 == s2 && l1 == l2,
            _ => false,
        }
    }
}

/// A key and its value in a mapping. The key is always a string node.
#[derive(Clone, Debug)]
pub struct Entry {
    pub key: Node,
    pub value: Node,
}

impl Entry {
    pub fn key_str(&self) -> &str {
        self.key.as_str().unwrap_or("")
    }
}

#[derive(Clone, Debug)]
pub enum Kind {
    Null,
    Bool(bool),
    /// A number as JSON text (YAML numbers are converted the way opm converts them). Numbers are
    /// rare in catalogs; a box keeps the kind as small as a string.
    Number(Box<str>),
    String(Str),
    Seq(ThinVec<Node>),
    Map(ThinVec<Entry>),
}

/// Whether a plain scalar `len` bytes long that YAML 1.1 read as the boolean `value` was written
/// otherwise than that value prints: `true`/`false` in any case are meant; `yes`, `on`, `y`… are
/// not what they read as.
pub fn bool_written_otherwise(value: bool, len: usize) -> bool {
    len != if value { 4 } else { 5 }
}

/// A value with where it sits in its file ([`Node::pos`]) and how it was written ([`Node::style`]).
///
/// A catalog is mostly nodes (half a million in a 20 MB catalog), so a node is kept to 40 bytes: the
/// kind, the position's offsets and line, and one word holding the column and the style.
#[derive(Clone)]
pub struct Node {
    pub kind: Kind,
    start: u32,
    end: u32,
    line: u32,
    /// The column in the low [`COL_BITS`] bits, the style above them.
    col_style: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 40);
const _: () = assert!(Style::ALL.len() == 1 << (32 - COL_BITS));

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("kind", &self.kind)
            .field("pos", &self.pos())
            .field("style", &self.style())
            .finish()
    }
}

impl PartialEq for Node {
    /// Nodes are equal when their values are; position and style are ignored.
    fn eq(&self, other: &Self) -> bool {
        match (&self.kind, &other.kind) {
            (Kind::Null, Kind::Null) => true,
            (Kind::Bool(a), Kind::Bool(b)) => a == b,
            (Kind::Number(a), Kind::Number(b)) => a == b,
            (Kind::String(a), Kind::String(b)) => a == b,
            (Kind::Seq(a), Kind::Seq(b)) => a == b,
            (Kind::Map(a), Kind::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x.key_str() == y.key_str() && x.value == y.value)
            }
            _ => false,
        }
    }
}

impl Node {
    /// A null with no position, as a constant.
    pub const NULL: Node = Node::with(Kind::Null, Pos::NONE, Style::Any);

    pub fn new(kind: Kind) -> Self {
        Node::with(kind, Pos::NONE, Style::Any)
    }

    /// A node read from a file: its kind, where it is, and how it was written.
    pub const fn with(kind: Kind, pos: Pos, style: Style) -> Self {
        Node {
            kind,
            start: pos.start,
            end: pos.end,
            line: pos.line,
            col_style: pack(pos.col, style),
        }
    }

    /// Where the node sits in its file ([`Pos::NONE`] when an edit built it).
    pub fn pos(&self) -> Pos {
        Pos {
            start: self.start,
            end: self.end,
            line: self.line,
            col: self.col_style & MAX_COL,
        }
    }

    /// Moves the node to `pos`, keeping its style.
    pub fn set_pos(&mut self, pos: Pos) {
        self.start = pos.start;
        self.end = pos.end;
        self.line = pos.line;
        self.col_style = pack(pos.col, self.style());
    }

    /// Moves the node, and every node and string left on disk in it, `by` bytes further into its
    /// file: it was read from a part of the file starting there. A node with no position (built
    /// by an edit, or an alias's copy of its anchor's value) keeps none; its strings left on
    /// disk still move.
    pub fn shift(&mut self, by: u32) {
        if self.line != 0 {
            self.start += by;
            self.end += by;
        }
        match &mut self.kind {
            Kind::String(Str::Deferred { start, .. }) => *start += by,
            Kind::Seq(items) => items.iter_mut().for_each(|n| n.shift(by)),
            Kind::Map(entries) => entries.iter_mut().for_each(|e| {
                e.key.shift(by);
                e.value.shift(by);
            }),
            _ => {}
        }
    }

    /// How the node was written.
    pub fn style(&self) -> Style {
        Style::ALL[(self.col_style >> COL_BITS) as usize]
    }

    /// A plain scalar read as a boolean or a number but written otherwise than that value prints
    /// (`yes`, `on`, `1.10`, `010`): only its text in the file says what was meant.
    pub fn is_retyped_scalar(&self) -> bool {
        if self.style() != Style::Plain || !self.pos().is_real() {
            return false;
        }
        let len = self.pos().end.saturating_sub(self.pos().start) as usize;
        match &self.kind {
            Kind::Bool(b) => bool_written_otherwise(*b, len),
            // The number as opm writes it differs from the text: `1.10`, `010`, `0x1F`, `1_000`.
            Kind::Number(v) => len != v.len(),
            _ => false,
        }
    }

    pub fn set_style(&mut self, style: Style) {
        self.col_style = pack(self.col_style & MAX_COL, style);
    }

    pub fn string(s: impl Into<Text>) -> Self {
        Node::new(Kind::String(Str::new(s)))
    }

    pub fn map(entries: Vec<(&str, Node)>) -> Self {
        Node::new(Kind::Map(
            entries
                .into_iter()
                .map(|(k, v)| Entry {
                    key: Node::string(k),
                    value: v,
                })
                .collect(),
        ))
    }

    pub fn seq(items: impl IntoIterator<Item = Node>) -> Self {
        Node::new(Kind::Seq(items.into_iter().collect()))
    }

    /// The type name opm's JSON decoder would use in an error message.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "bool",
            Kind::Number(_) => "number",
            Kind::String(_) => "string",
            Kind::Seq(_) => "array",
            Kind::Map(_) => "object",
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null)
    }

    /// The string held in memory, if this is an in-memory string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => s.as_inline(),
            _ => None,
        }
    }

    pub fn as_string(&self) -> Option<&Str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Seq(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_seq_mut(&mut self) -> Option<&mut ThinVec<Node>> {
        match &mut self.kind {
            Kind::Seq(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.kind {
            Kind::Map(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_map_mut(&mut self) -> Option<&mut ThinVec<Entry>> {
        match &mut self.kind {
            Kind::Map(v) => Some(v),
            _ => None,
        }
    }

    /// The value of `key` (exact spelling; the last one wins, as in opm's JSON decoding).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .rev()
            .find(|e| e.key_str() == key)
            .map(|e| &e.value)
    }

    /// The value of `key` matched the way Go's `encoding/json` fills a struct field: case-insensitively
    /// ([`fills_field`](super::gotypes::fills_field)), the last matching key winning.
    pub fn get_field(&self, key: &str) -> Option<&Node> {
        self.get_field_entry(key).map(|e| &e.value)
    }

    pub fn get_field_entry(&self, key: &str) -> Option<&Entry> {
        self.as_map()?
            .iter()
            .rev()
            .find(|e| super::gotypes::fills_field(e.key_str(), key))
    }

    /// Mutable access to the value of `key` (case-insensitive, last wins).
    pub fn get_field_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.as_map_mut()?
            .iter_mut()
            .rev()
            .find(|e| super::gotypes::fills_field(e.key_str(), key))
            .map(|e| &mut e.value)
    }

    /// Sets `key` to `value`, replacing an existing field (case-insensitive) or appending a new one.
    pub fn set_field(&mut self, key: &str, value: Node) {
        if let Some(slot) = self.get_field_mut(key) {
            *slot = value;
        } else if let Some(map) = self.as_map_mut() {
            map.push(Entry {
                key: Node::string(key),
                value,
            });
        }
    }

    /// Removes every field matching `key` (case-insensitive). Returns whether anything was removed.
    pub fn remove_field(&mut self, key: &str) -> bool {
        match self.as_map_mut() {
            Some(map) => {
                let before = map.len();
                map.retain(|e| !super::gotypes::fills_field(e.key_str(), key));
                before != map.len()
            }
            None => false,
        }
    }
}

/// A column and a style in one word; a column past [`MAX_COL`] is recorded as `MAX_COL`.
const fn pack(col: u32, style: Style) -> u32 {
    let col = if col > MAX_COL { MAX_COL } else { col };
    col | (style as u32) << COL_BITS
}

/// A node read from `text` (a document held in memory, not a catalog file) as JSON, the way opm's
/// YAML-or-JSON decoder gives it: long strings the reader left in place are taken from `text`.
pub fn json_in_text(node: &Node, text: &str) -> serde_json::Value {
    use serde_json::Value;
    match &node.kind {
        Kind::Null => Value::Null,
        Kind::Bool(b) => Value::Bool(*b),
        Kind::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        Kind::String(Str::Inline(s)) => Value::String(s.to_string()),
        // Offsets into the text the node was read from always fall on character boundaries.
        Kind::String(Str::Deferred { start, len, .. }) => Value::String(
            text.get(*start as usize..(*start as usize + *len as usize))
                .unwrap_or_default()
                .to_string(),
        ),
        Kind::Seq(items) => Value::Array(items.iter().map(|i| json_in_text(i, text)).collect()),
        Kind::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|e| (e.key_str().to_string(), json_in_text(&e.value, text)))
                .collect(),
        ),
    }
}

/// A copy of `node` whose long strings left in `text` (the file it was read from) are held in memory.
pub fn inlined(node: &Node, text: &str) -> Node {
    let kind = match &node.kind {
        Kind::String(Str::Deferred { start, len, .. }) => Kind::String(Str::new(
            text.get(*start as usize..(*start as usize + *len as usize))
                .unwrap_or_default(),
        )),
        Kind::Seq(items) => Kind::Seq(items.iter().map(|i| inlined(i, text)).collect()),
        Kind::Map(entries) => Kind::Map(
            entries
                .iter()
                .map(|e| Entry {
                    key: e.key.clone(),
                    value: inlined(&e.value, text),
                })
                .collect(),
        ),
        k => k.clone(),
    };
    Node::with(kind, node.pos(), node.style())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_gives_back_its_position_and_style() {
        for (i, style) in Style::ALL.into_iter().enumerate() {
            let pos = Pos {
                start: 7 + i as u32,
                end: u32::MAX,
                line: u32::MAX - 1,
                col: MAX_COL - i as u32,
            };
            let mut n = Node::with(Kind::Null, pos, style);
            assert_eq!((n.pos(), n.style()), (pos, style));
            n.set_style(Style::Flow);
            assert_eq!((n.pos(), n.style()), (pos, Style::Flow));
            n.set_pos(Pos::NONE);
            assert_eq!((n.pos(), n.style()), (Pos::NONE, Style::Flow));
        }
    }

    #[test]
    fn a_column_past_the_limit_is_recorded_as_the_limit() {
        let pos = Pos {
            start: 0,
            end: 1,
            line: 1,
            col: u32::MAX,
        };
        let n = Node::with(Kind::Null, pos, Style::Literal);
        assert_eq!(n.pos().col, MAX_COL);
        assert_eq!(
            n.style(),
            Style::Literal,
            "the column does not spill into the style"
        );
    }
}
