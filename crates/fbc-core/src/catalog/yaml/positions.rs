//! Where the full reader's markers are in the file: saphyr counts characters of the text it
//! parses, which may be a repaired copy of the document; positions are bytes of the file.

use saphyr_parser::{Marker, Span};

use super::lenient;

use crate::catalog::node::Pos;

/// Maps character indices of saphyr markers to byte offsets of the file.
pub(super) struct Positions<'a> {
    /// The text parsed: the document's own, or a copy with continuation lines of quoted scalars
    /// indented (see [`super::lenient`]).
    pub(super) chunk: &'a str,
    /// The document's own text.
    pub(super) source: &'a str,
    /// Where the copy has spaces the document lacks (empty when the chunk is the document's text).
    added: &'a [(usize, usize)],
    base: usize,
    first_line: u32,
    /// Byte offset of each character, when the chunk is not ASCII.
    char_bytes: Option<Vec<u32>>,
}

impl<'a> Positions<'a> {
    pub(super) fn new(
        chunk: &'a str,
        source: &'a str,
        added: &'a [(usize, usize)],
        base: usize,
        first_line: u32,
    ) -> Self {
        let char_bytes = if chunk.is_ascii() {
            None
        } else {
            let mut v: Vec<u32> = chunk.char_indices().map(|(b, _)| b as u32).collect();
            v.push(chunk.len() as u32);
            Some(v)
        };
        Positions {
            chunk,
            source,
            added,
            base,
            first_line,
            char_bytes,
        }
    }

    /// The byte offset in the document's own text of a character of the chunk parsed.
    pub(super) fn byte(&self, char_index: usize) -> usize {
        let b = match &self.char_bytes {
            None => char_index.min(self.chunk.len()),
            Some(v) => v
                .get(char_index)
                .copied()
                .unwrap_or(self.chunk.len() as u32) as usize,
        };
        lenient::original(self.added, b)
    }

    /// The 1-based column of a marker, in the document's own text.
    pub(super) fn col(&self, m: &Marker) -> u32 {
        if self.added.is_empty() {
            return m.col() as u32 + 1;
        }
        let at = self.byte(m.index());
        let line = self.source[..at].rfind('\n').map_or(0, |p| p + 1);
        self.source[line..at].chars().count() as u32 + 1
    }

    pub(super) fn pos(&self, span: &Span) -> Pos {
        Pos {
            start: (self.base + self.byte(span.start.index())) as u32,
            end: (self.base + self.byte(span.end.index())) as u32,
            line: self.first_line + span.start.line() as u32 - 1,
            col: self.col(&span.start),
        }
    }
}
