//! Scalars for the quick reader: quoted ones (folded when they run on over lines), plain ones that
//! run on over lines, and literal block scalars.

use std::borrow::Cow;

use super::bytes::plain_end;
use super::{Decline, Extent, R, Scanner, is_indicator, make_str};
use crate::catalog::node::{Kind, Node, Pos, Style};
use crate::catalog::yaml::yaml11::{self, Plain};

impl Scanner<'_> {
    /// Where a quoted scalar opened with `q` closes on the current line, searching from byte `from`:
    /// just after its closing quote.
    pub(super) fn close_on_line(&self, q: u8, from: usize) -> Option<usize> {
        self.close_on_line_from(q, from, self.eol())
    }

    /// [`Scanner::close_on_line`] on the line that ends at byte `eol`.
    pub(super) fn close_on_line_from(&self, q: u8, from: usize, eol: usize) -> Option<usize> {
        let mut k = from;
        while k < eol {
            let p = k + memchr::memchr2(q, b'\\', &self.b[k..eol])?;
            if q == b'"' && self.b[p] == b'\\' {
                k = p + 2;
            } else if q == b'\'' && self.b[p] == b'\\' {
                k = p + 1;
            } else if q == b'\'' && self.at(p + 1) == b'\'' && p + 1 < eol {
                k = p + 2;
            } else {
                return Some(p + 1);
            }
        }
        None
    }

    /// The quoted scalar at the position; the position moves past its closing quote. Lines it
    /// runs on to are folded, whatever their indentation (go-yaml does not check it).
    pub(super) fn quoted(&mut self) -> R<Node> {
        let text = self.text;
        let start = self.i;
        let q = self.b[start];
        let mut pos = self.pos(start, start);
        let mut pieces: Vec<(usize, &str)> = Vec::new();
        let mut from = start + 1;
        let mut blanks = 0;
        let end = loop {
            if let Some(close) = self.close_on_line(q, from) {
                pieces.push((blanks, &text[from..close - 1]));
                break close;
            }
            let raw = &text[from..self.eol()];
            let piece = raw.trim_end_matches(' ');
            let slashes = piece.len() - piece.trim_end_matches('\\').len();
            let escaped_break = q == b'"' && slashes % 2 == 1;
            if escaped_break && piece.len() != raw.len() {
                // `\ ` before trailing spaces: an escaped space, not an escaped line break.
                return Err(Decline);
            }
            pieces.push((blanks, piece));
            // An escaped line break joins the lines with nothing between them.
            blanks = if escaped_break { usize::MAX } else { 0 };
            loop {
                self.next_line();
                let n = self.indentation();
                let spaces = (self.line_start + n < self.eol()).then_some(n);
                match spaces {
                    _ if self.i >= self.b.len() => return Err(Decline),
                    None if blanks == usize::MAX => return Err(Decline),
                    None => blanks += 1,
                    // A document marker at the start of a line ends a quoted scalar in error.
                    Some(0)
                        if self.b[self.i..].starts_with(b"...")
                            || self.b[self.i..].starts_with(b"---") =>
                    {
                        return Err(Decline);
                    }
                    Some(n) => {
                        from = self.i + n;
                        break;
                    }
                }
            }
        };
        // A dropped value is only checked: its escapes are read, nothing is kept.
        let keep = !self.dropped();
        let mut value = String::new();
        for (i, &(blanks, piece)) in pieces.iter().enumerate() {
            let piece = match pieces.get(i + 1) {
                Some(&(usize::MAX, _)) => &piece[..piece.len() - 1],
                _ => piece,
            };
            if !keep {
                if q == b'"' && piece.contains('\\') {
                    escapes(piece, |_| {})?;
                }
                continue;
            }
            if i > 0 && blanks != usize::MAX {
                if blanks == 0 {
                    value.push(' ');
                }
                value.extend(std::iter::repeat_n('\n', blanks));
            }
            if q == b'\'' {
                value.push_str(&piece.replace("''", "'"));
            } else {
                value.push_str(&unescape(piece)?);
            }
        }
        let style = if q == b'\'' {
            Style::SingleQuoted
        } else {
            Style::DoubleQuoted
        };
        self.i = end;
        // The full reader's range runs on over the spaces and comment that end the line.
        let mut span_end = end;
        while self.at(span_end) == b' ' && span_end < self.b.len() {
            span_end += 1;
        }
        if self.at(span_end) == b'#' && span_end > end {
            span_end = self.eol();
        }
        pos.end = self.base + span_end as u32;
        Ok(Node::with(self.string_kind(&value, pos), pos, style))
    }

    /// A plain scalar value at the position, in a collection at column `indent`: the lines it runs
    /// on to are folded. Ends with `next` set.
    pub(super) fn plain_value(&mut self, indent: usize) -> R<Node> {
        let start = self.i;
        let (end, colon) = self.plain_extent()?;
        if colon.is_some() {
            return Err(Decline);
        }
        let mut pos = self.pos(start, end);
        let commented =
            end != self.eol() && self.text[end..self.eol()].trim_start().starts_with('#');
        self.i = end;
        if commented {
            let node = self.plain_node_at(&self.text[start..end], pos)?;
            self.finish_line()?;
            return match self.next {
                Some(n) if n > indent => Err(Decline),
                _ => Ok(node),
            };
        }
        let mut value: Option<String> = None;
        let mut blanks = 0;
        loop {
            self.next_line();
            if self.i >= self.b.len() {
                break;
            }
            let eol = self.eol();
            let line = &self.b[self.i..eol];
            let n = self.indentation();
            if n == line.len() {
                blanks += 1;
                continue;
            }
            if n <= indent || line[n] == b'#' {
                break;
            }
            // A continuation line: no `: ` and no comment in it.
            let piece = &line[n..];
            if piece
                .windows(2)
                .any(|w| w[0] == b':' && w[1] == b' ' || w[0] == b' ' && w[1] == b'#')
                || piece.ends_with(b":")
            {
                return Err(Decline);
            }
            let piece_start = self.i + n;
            let trimmed = piece.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
            let v = value.get_or_insert_with(|| self.text[start..end].to_string());
            if blanks == 0 {
                v.push(' ');
            }
            v.extend(std::iter::repeat_n('\n', blanks));
            blanks = 0;
            v.push_str(&self.text[piece_start..piece_start + trimmed]);
            pos.end = self.base + (piece_start + trimmed) as u32;
        }
        // Back to the start of the line that ended the scalar, to find the next content.
        self.i = self.line_start;
        self.next = self.next_content_line()?;
        let node = match &value {
            None => self.plain_node_at(&self.text[start..end], pos)?,
            Some(v) => self.plain_node_at(v, pos)?,
        };
        match self.next {
            Some(n) if n > indent => Err(Decline),
            _ => Ok(node),
        }
    }

    /// A literal block scalar (`|`, `|-` or `|+`) at the position, in a collection at column `indent`.
    pub(super) fn literal(&mut self, indent: usize) -> R<Node> {
        let (keep, explicit) = self.block_header(indent)?;
        self.next_line();
        let first_line = self.line;
        let body_start = self.i;
        // A dropped value is only checked, its text not gathered.
        let gather = !self.dropped();
        let mut value = String::new();
        let mut block_indent = explicit;
        let mut seen_content = false;
        let mut blank_run = 0usize;
        let mut content_end = body_start;
        let mut trailing_blank = false;
        loop {
            if self.i >= self.b.len() {
                self.next = None;
                break;
            }
            let eol = self.eol();
            let line = &self.b[self.i..eol];
            let spaces = self.indentation();
            if spaces == line.len() {
                // An empty line: it must not be indented past the content.
                if !seen_content || block_indent.is_none_or(|bi| spaces > bi) {
                    return Err(Decline);
                }
                blank_run += 1;
                self.next_line();
                continue;
            }
            let bi = *block_indent.get_or_insert(spaces);
            if spaces < bi {
                if spaces > indent || line[spaces] == b'#' {
                    return Err(Decline);
                }
                self.i += spaces;
                self.next = Some(spaces);
                if self.at(self.i) == b'#' {
                    return Err(Decline);
                }
                break;
            }
            if bi <= indent {
                return Err(Decline);
            }
            seen_content = true;
            if gather {
                if !value.is_empty() {
                    value.push('\n');
                }
                for _ in 0..blank_run {
                    value.push('\n');
                }
                value.push_str(&self.text[self.i + bi..eol]);
            }
            blank_run = 0;
            content_end = eol;
            trailing_blank = matches!(line.last(), Some(b' ' | b'\t'));
            self.next_line();
        }
        if !seen_content || trailing_blank || blank_run > 0 {
            // No content at all (with or without an explicit indentation, as `|6` at the end), a
            // last line ending in blanks (the full reader's range stops before them), or blank
            // lines after the last one (which the full reader keeps at the end of a document):
            // rare shapes, left to the full reader.
            return Err(Decline);
        }
        if keep != Some(false) {
            value.push('\n');
        }
        let bi = block_indent.unwrap_or(0);
        let start = body_start + bi;
        let pos = Pos {
            start: self.base + start as u32,
            end: self.base + content_end as u32,
            line: first_line,
            col: bi as u32 + 1,
        };
        Ok(Node::with(
            self.string_kind(&value, pos),
            pos,
            Style::Literal,
        ))
    }

    /// The header of a block scalar after its `|`: the chomping (`Some(true)` keep, `Some(false)`
    /// strip) and the explicit indentation, if any; only a comment may follow.
    fn block_header(&mut self, indent: usize) -> R<(Option<bool>, Option<usize>)> {
        self.i += 1;
        let mut keep = None;
        let mut explicit = None;
        for _ in 0..2 {
            match self.at(self.i) {
                b'-' if keep.is_none() => keep = Some(false),
                b'+' if keep.is_none() => keep = Some(true),
                d @ b'1'..=b'9' if explicit.is_none() => {
                    explicit = Some(indent + (d - b'0') as usize)
                }
                _ => break,
            }
            self.i += 1;
        }
        if !self.blank_at(self.i) {
            return Err(Decline);
        }
        self.skip_spaces();
        if !matches!(self.at(self.i), b'\n' | b'#') {
            return Err(Decline);
        }
        Ok((keep, explicit))
    }

    /// The extent of the plain scalar at the position: its end (trailing spaces trimmed) and, when it
    /// is followed by `:` and a space or line end, that `:`. Declines on what a plain scalar cannot
    /// start with.
    pub(super) fn plain_extent(&self) -> R<Extent> {
        let start = self.i;
        if let Some((at, extent)) = self.extent.get()
            && at == start
        {
            return Ok(extent);
        }
        let extent = self.find_plain_extent()?;
        self.extent.set(Some((start, extent)));
        Ok(extent)
    }

    pub(super) fn find_plain_extent(&self) -> R<Extent> {
        let start = self.i;
        let c = self.at(start);
        let indicator = is_indicator(c);
        if c == b'\n'
            || (indicator && (!matches!(c, b'-' | b'?' | b':') || self.blank_at(start + 1)))
        {
            return Err(Decline);
        }
        let (end, key) = plain_end(&self.b[start..self.eol()]);
        Ok((start + end, key.then_some(start + end)))
    }

    /// The node of the plain scalar at bytes `start..end` of the current line.
    pub(super) fn plain_node(&mut self, start: usize, end: usize) -> R<Node> {
        self.plain_node_at(&self.text[start..end], self.pos(start, end))
    }

    /// The node of a plain scalar whose value is `value`, at `pos`.
    pub(super) fn plain_node_at(&mut self, value: &str, pos: Pos) -> R<Node> {
        if self.dropped() {
            // Of a scalar not kept, only whether the reader declines it matters: it declines
            // the non-finite numbers, all words starting so.
            if matches!(value.as_bytes().first(), Some(b'.' | b'+' | b'-'))
                && matches!(yaml11::resolve_plain(value), Plain::NonFinite)
            {
                return Err(Decline);
            }
            return Ok(Node::with(Kind::Null, pos, Style::Plain));
        }
        let kind = match yaml11::resolve_plain(value) {
            Plain::Null => Kind::Null,
            Plain::Bool(b) => Kind::Bool(b),
            Plain::Int(n) | Plain::Float(n) => Kind::Number(n.into()),
            Plain::NonFinite => return Err(Decline),
            Plain::Str => self.string_kind(value, pos),
        };
        Ok(Node::with(kind, pos, Style::Plain))
    }

    /// A string whose value is `value` and whose text is at `pos`: left on disk when long and
    /// written as is, else held (shared with equal strings of the file).
    pub(super) fn string_kind(&mut self, value: &str, pos: Pos) -> Kind {
        if self.dropped() {
            return Kind::Null;
        }
        Kind::String(make_str(
            value,
            self.text,
            self.base,
            pos,
            self.file,
            &mut self.sharing,
        ))
    }
}

/// The value of a double-quoted scalar that closes on its line, or a decline for escapes this reader
/// leaves to the full one.
fn unescape(body: &str) -> R<Cow<'_, str>> {
    if !body.contains('\\') {
        return Ok(Cow::Borrowed(body));
    }
    let mut out = String::with_capacity(body.len());
    escapes(body, |c| out.push(c))?;
    Ok(Cow::Owned(out))
}

/// Each character of the double-quoted `body` with its escapes read, to `push`; or a decline for
/// escapes this reader leaves to the full one.
pub(super) fn escapes(body: &str, mut push: impl FnMut(char)) -> R<()> {
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            push(c);
            continue;
        }
        let e = chars.next().ok_or(Decline)?;
        let hex = |chars: &mut std::str::Chars, n: usize| -> R<char> {
            let digits: String = chars.by_ref().take(n).collect();
            if digits.len() != n || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Decline);
            }
            let code = u32::from_str_radix(&digits, 16).map_err(|_| Decline)?;
            char::from_u32(code).ok_or(Decline)
        };
        push(match e {
            '\\' | '"' | '/' | ' ' => e,
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'e' => '\u{1b}',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(&mut chars, 2)?,
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            _ => return Err(Decline),
        });
    }
    Ok(())
}
