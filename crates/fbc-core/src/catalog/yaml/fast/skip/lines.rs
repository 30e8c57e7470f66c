//! The lines the skipper reads, and what their content is, each as the scanner finds it.

use super::super::bytes::{line_end, plain_end, spaces_end};
use super::super::{MAX_KEY, is_indicator};
use super::Doubt;

/// What a line's content at a position is, as a key.
pub(super) enum Key {
    /// A plain key whose `:` is at this byte.
    At(usize),
    /// A plain scalar with no `:` ending a key: it ends (trailing spaces and comment left out) at
    /// this byte.
    Not(usize),
}

/// A line-by-line reader over the document's bytes `b`, on line `line` (bytes `start..end`).
pub(super) struct Lines<'b> {
    pub(super) b: &'b [u8],
    pub(super) line: u32,
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Lines<'_> {
    #[inline]
    pub(super) fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'\n')
    }

    /// As [`Scanner::is_dash`](super::super::Scanner::is_dash).
    #[inline]
    pub(super) fn is_dash(&self, i: usize) -> bool {
        self.at(i) == b'-' && matches!(self.at(i + 1), b' ' | b'\n')
    }

    /// As [`Scanner::next_line`](super::super::Scanner::next_line).
    #[inline]
    pub(super) fn next_line(&mut self) {
        let i = (self.end + 1).min(self.b.len());
        self.line += 1;
        self.start = i;
        self.end = line_end(self.b, i, self.b.len());
    }

    /// As [`Scanner::next_content_line`](super::super::Scanner::next_content_line) (whose declines are doubts): at the start of a line, skips
    /// blank and comment lines and gives the indentation of the next line with content.
    #[inline]
    pub(super) fn content(&mut self) -> Result<Option<usize>, Doubt> {
        loop {
            if self.start >= self.b.len() {
                return Ok(None);
            }
            let j = spaces_end(self.b, self.start, self.end);
            match self.at(j) {
                b'\n' | b'#' => self.next_line(),
                _ => {
                    let n = j - self.start;
                    if n == 0 && marker(&self.b[j..]) {
                        return Err(Doubt);
                    }
                    return Ok(Some(n));
                }
            }
        }
    }

    /// The plain scalar at `v` on the current line, as [`Scanner::find_plain_extent`](super::super::Scanner::find_plain_extent) reads it
    /// after its first byte: its `:` when one followed by a space or the line end makes it a key,
    /// else its end with trailing spaces and comment left out.
    #[inline(always)]
    pub(super) fn plain(&self, v: usize) -> Key {
        match plain_end(&self.b[v..self.end]) {
            (colon, true) => Key::At(v + colon),
            (end, false) => Key::Not(v + end),
        }
    }

    /// A key at `p` the scanner reads as one ([`Scanner::key`](super::super::Scanner::key)): plain, starting with a letter or
    /// digit (so neither an indicator, a merge key nor a non-finite number), no space before its
    /// `:`, not too long; or a plain scalar that is no key.
    #[inline(always)]
    pub(super) fn key(&self, p: usize) -> Result<Key, Doubt> {
        if !self.at(p).is_ascii_alphanumeric() {
            return Err(Doubt);
        }
        let key = self.plain(p);
        if let Key::At(colon) = key
            && (self.b[colon - 1] == b' ' || colon - p > MAX_KEY)
        {
            return Err(Doubt);
        }
        Ok(key)
    }
}

/// Whether a line starting at column 0 with `rest` is one the scanner stops at
/// ([`Scanner::next_content_line`](super::super::Scanner::next_content_line)): a document marker or a directive.
pub(super) fn marker(rest: &[u8]) -> bool {
    rest.starts_with(b"...") || rest.starts_with(b"---") || rest.first() == Some(&b'%')
}

/// Whether a plain scalar starting with `c` is one the scanner reads without doubt: not an
/// indicator ([`Scanner::find_plain_extent`](super::super::Scanner::find_plain_extent)), and not `.`, `+` or `-`, which start the non-finite
/// numbers the scanner declines.
pub(super) fn plain_start(c: u8) -> bool {
    !is_indicator(c) && !matches!(c, b'.' | b'+' | b' ' | b'\n')
}
