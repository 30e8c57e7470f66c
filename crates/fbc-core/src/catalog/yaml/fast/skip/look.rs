//! The commonest line of a skipped mapping, `key: plain value` followed by a line no deeper than
//! the key, read at one look at the 64 bytes it starts with: the steps of [`Skip::run`],
//! [`Lines::key`](super::lines::Lines::key), [`Skip::after_key`] and [`Skip::plain_end`] for it,
//! told by bit masks instead of searches. Whatever the look cannot tell as they would, it leaves
//! to them, from the key or from the line's start.

use super::super::bytes::{Look, line_end, look};
use super::lines::{marker, plain_start};
use super::{After, Doubt, Skip};

/// What [`Skip::key_line`] read of the line.
pub(super) enum Looked {
    /// The whole line: what its value leaves, the reader at the next line.
    Line(After),
    /// Its key, whose `:` is at this byte; the value is left to [`Skip::after_key`].
    Key(usize),
    /// Nothing: the line is left to the steps.
    No,
}

impl Skip<'_, '_> {
    /// The look at the 64 bytes from `at` on, kept for the next line when it starts there.
    #[inline(always)]
    fn look_at(&mut self, at: usize) -> Option<Look> {
        if self.looked.0 == at {
            return Some(self.looked.1);
        }
        let k = look(self.l.b, at)?;
        self.looked = (at, k);
        Some(k)
    }

    /// The key with content at `p`, on the reader's line, in a mapping at column `m`, when the line
    /// ends within the 64 bytes it starts with; and its value when it is a plain scalar on this
    /// line (no `: `, no `:` ending the line, no comment) and the next line has content no deeper
    /// than `m` within the 64 bytes it starts with (a second look, kept for that line).
    #[inline]
    pub(super) fn key_line(&mut self, p: usize, m: usize) -> Result<Looked, Doubt> {
        let s = self.l.start;
        let Some(k) = self.look_at(s) else {
            return Ok(Looked::No);
        };
        // The line's end and the key's first byte, as [`Lines::key`] wants it.
        let e = k.breaks.trailing_zeros() as usize;
        let pk = p - s;
        if e == 64 || pk >= e || !self.l.b[p].is_ascii_alphanumeric() {
            return Ok(Looked::No);
        }
        let line = (1u64 << e) - 1;
        // Where a plain scalar stops, as [`plain_end`](super::super::bytes::plain_end) finds it: a
        // `:` followed by a space or the line's end (a key's), or a `#` after a space (a
        // comment's).
        let colons = k.colons & ((k.spaces | k.breaks) >> 1);
        let stops = (colons | (k.hashes & (k.spaces << 1))) & line;
        let from_key = stops & (!0u64 << (pk + 1));
        let c = from_key.trailing_zeros() as usize;
        // No key (a comment first, or neither), or a space before its `:`: the steps decline
        // them. A key within the look is never too long.
        if from_key == 0 || colons & (1 << c) == 0 || self.l.b[s + c - 1] == b' ' {
            return Ok(Looked::No);
        }
        let colon = s + c;
        self.key_type(p, colon)?;
        // The value's first byte: a plain scalar's, else the steps read it.
        let v = (!k.spaces & (!0u64 << (c + 1))).trailing_zeros() as usize;
        if v >= e || !plain_start(self.l.b[s + v]) || stops & (!0u64 << (v + 1)) != 0 {
            return Ok(Looked::Key(colon));
        }
        // Its end, trailing spaces left out: after its last byte other than a space.
        let end = 64 - (!k.spaces & line).leading_zeros() as usize;
        // The next line, which must have content no deeper than the mapping (not a blank line,
        // a comment, a line going on with the scalar, nor a marker).
        let next = s + e + 1;
        let Some(n) = self.look_at(next) else {
            return Ok(Looked::Key(colon));
        };
        let indent = (!n.spaces).trailing_zeros() as usize;
        let next_end = n.breaks.trailing_zeros() as usize;
        if indent == 64
            || indent == next_end
            || indent > m
            || self.l.b[next + indent] == b'#'
            || indent == 0 && marker(&self.l.b[next..])
        {
            return Ok(Looked::Key(colon));
        }
        self.end = s + end;
        self.found_plain(&self.s.text[s + v..s + end])?;
        let l = &mut self.l;
        l.line += 1;
        l.start = next;
        l.end = if next_end < 64 {
            next + next_end
        } else {
            line_end(l.b, next + 64, l.b.len())
        };
        #[cfg(test)]
        super::stats::key_looked();
        Ok(Looked::Line(After::Next(Some(indent))))
    }
}
