//! A proving skipper for the collections an outline read drops: a line-by-line pass over the block
//! collection that is the value of a dropped key (`properties:`, `relatedImages:`), which accepts
//! only input the scanner is known to accept, and then gives what the scanner would have given (an
//! empty collection of the same kind, position and style) and where it would have stopped. On any
//! doubt it hands back and the scanner reads the collection as ever: it moves nothing until it
//! accepts, and never declines on its own.
//!
//! What it accepts is the shape of catalogs: block mappings and sequences (a sequence's dashes at
//! its key's column or deeper), keys that start with a letter or digit, one-line plain and quoted
//! scalars with any spaces and comment after them, `[]` and `{}` ending a line after a key, and
//! literal block scalars (`|`, `|-`, `|+`) after a key. Each check mirrors the one of the scanner
//! it stands for (named beside it); what a line could be read another way is handed back.
//!
//! A checked read ([`Keep::Checked`](super::super::read::Keep::Checked)) has it pass over the
//! value of an `olm.csv.metadata`, `olm.gvk` or `olm.gvk.required` property the same way, and also
//! prove what a validation would find in it: that each value is of the type opm's struct gives its
//! key (Go's `encoding/json`: a field by name, else by name in any case), that no plain scalar is
//! one YAML 1.1 reads as a number or as a boolean written otherwise than `true`/`false`, and that
//! no key is `olm.substitutesFor`. Each of these is a doubt, as a number where a string belongs:
//! the scanner then reads the value and validation reports it.

mod checked;
mod lines;
mod look;

use checked::Found;
use lines::{Key, Lines, marker, plain_start};
use look::Looked;

use super::bytes::{Look, breaks_and_spaces, colon_or_hash, line_end, spaces_end};
use super::scalar::escapes;
use super::{MAX_DEPTH, R, Scanner};
use crate::catalog::gotypes::Ty;
use crate::catalog::node::{Kind, Node, Pos, Style, ThinVec};

/// Where the scanner stands after a collection, as it would after reading it: at the content of the
/// line with content after it (at indentation `next`), or at the end of the document (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Landing {
    i: usize,
    line: u32,
    line_start: usize,
    line_end: usize,
    next: Option<usize>,
}

/// A collection being read: a mapping whose keys, or a sequence whose dashes, sit at a column.
#[derive(Clone, Copy)]
enum Frame {
    Map(usize),
    Seq(usize),
}

/// A hand-back: the skipper cannot prove the scanner reads the rest as it does.
struct Doubt;

/// Any value at all: what an unchecked skip, and a key of no field, take.
static ANY: Ty = Ty::Raw;

/// The most collections the skipper holds open: the scanner's depth stays below its limit.
const FRAMES: usize = 48;

/// The skipper over one collection.
struct Skip<'s, 't> {
    s: &'s Scanner<'t>,
    l: Lines<'t>,
    frames: [Frame; FRAMES],
    open: usize,
    /// Where the last value read ends: where each collection holding it ends.
    end: usize,
    /// Whether values are checked against types; then `want` is the type of the value read next,
    /// and `types` that of each open collection.
    checked: bool,
    want: &'static Ty,
    types: [&'static Ty; FRAMES],
    /// The last look at 64 bytes ([`Skip::key_line`]), and where they start.
    looked: (usize, Look),
}

/// What a value leaves: the indentation of the next line with content (the reader at it), or the
/// start of a collection below at this byte of the reader's line, which the loop then reads.
enum After {
    Next(Option<usize>),
    Opened(usize),
}

impl Skip<'_, '_> {
    fn push(&mut self, f: Frame) -> Result<(), Doubt> {
        // The scanner's depth of the collection: one below the dropped key's mapping, one more
        // for each collection inside.
        if self.open == FRAMES || self.s.depth + 1 + self.open >= MAX_DEPTH {
            return Err(Doubt);
        }
        self.found(match f {
            Frame::Map(_) => Found::Map,
            Frame::Seq(_) => Found::Seq,
        })?;
        self.frames[self.open] = f;
        self.types[self.open] = self.want;
        self.open += 1;
        Ok(())
    }

    /// Reads the collection whose first line has content at the reader's position: the
    /// collection's end and where the scanner lands after it.
    fn run(&mut self, indent: usize) -> Result<(usize, Landing), Doubt> {
        let mut p = self.s.i;
        match self.opens(p, indent)? {
            After::Opened(_) => {}
            After::Next(_) => return Err(Doubt),
        }
        loop {
            let after = match self.frames[self.open - 1] {
                Frame::Map(m) => {
                    let looked = if at_a_look() {
                        self.key_line(p, m)?
                    } else {
                        Looked::No
                    };
                    match looked {
                        Looked::Line(after) => after,
                        Looked::Key(colon) => self.after_key(colon, m)?,
                        Looked::No => {
                            let Key::At(colon) = self.l.key(p)? else {
                                return Err(Doubt);
                            };
                            self.key_type(p, colon)?;
                            self.after_key(colon, m)?
                        }
                    }
                }
                Frame::Seq(s) => {
                    self.item_type();
                    self.item(p, s)?
                }
            };
            let next = match after {
                After::Opened(at) => {
                    p = at;
                    continue;
                }
                After::Next(next) => next,
            };
            let Some(n) = next else {
                // As every collection does at the end of the document.
                return Ok((self.end, self.landing(None)));
            };
            p = self.l.start + n;
            let dash = self.l.is_dash(p);
            // As the loops of [`Scanner::mapping`] and [`Scanner::sequence`]: go on, end or decline.
            loop {
                match self.frames[self.open - 1] {
                    Frame::Map(m) if n == m && !dash => break,
                    Frame::Seq(s) if n == s && dash => break,
                    Frame::Map(m) if n < m => {}
                    Frame::Seq(s) if n <= s => {}
                    _ => return Err(Doubt),
                }
                self.open -= 1;
                if self.open == 0 {
                    return Ok((self.end, self.landing(Some(n))));
                }
            }
        }
    }

    fn landing(&self, next: Option<usize>) -> Landing {
        Landing {
            i: self.l.start + next.unwrap_or(0),
            line: self.l.line,
            line_start: self.l.start,
            line_end: self.l.end,
            next,
        }
    }

    /// After a key with nothing after it in a mapping at column `m`, the line with content at `p`,
    /// as [`Scanner::value_after_key`]: the start of a sequence at the key's column or deeper, or of
    /// a mapping deeper; or, at the key's column or before, not (the value is empty). A scalar on
    /// its own line is a doubt.
    fn opens(&mut self, p: usize, m: usize) -> Result<After, Doubt> {
        let n = p - self.l.start;
        if self.l.is_dash(p) && n >= m {
            self.push(Frame::Seq(n))?;
        } else if n > m {
            let Key::At(_) = self.l.key(p)? else {
                return Err(Doubt);
            };
            self.push(Frame::Map(n))?;
        } else {
            return Ok(After::Next(Some(n)));
        }
        Ok(After::Opened(p))
    }

    /// A sequence item whose dash is at `p` (column `s`), as [`Scanner::item`].
    fn item(&mut self, p: usize, s: usize) -> Result<After, Doubt> {
        let q = spaces_end(self.l.b, p + 1, self.l.end);
        let c = self.l.at(q);
        if c == b'\'' || c == b'"' {
            self.found(Found::Str)?;
            return self.quoted(q, s);
        }
        // An empty item, a `- -` item, flow and literal items (which the scanner declines as keys)
        // are doubts.
        if !plain_start(c) {
            return Err(Doubt);
        }
        let key = if c.is_ascii_alphanumeric() {
            self.l.key(q)?
        } else {
            self.l.plain(q)
        };
        match key {
            Key::At(colon) if c.is_ascii_alphanumeric() => {
                let col = q - self.l.start;
                self.push(Frame::Map(col))?;
                self.key_type(q, colon)?;
                self.after_key(colon, col)
            }
            Key::At(_) => Err(Doubt),
            Key::Not(end) => self.plain_end(q, end, s),
        }
    }

    /// The value after a key's `:` at byte `colon`, in a mapping at column `m`, as
    /// [`Scanner::value_after_key`].
    fn after_key(&mut self, colon: usize, m: usize) -> Result<After, Doubt> {
        let v = spaces_end(self.l.b, colon + 1, self.l.end);
        match self.l.at(v) {
            b'\n' | b'#' => {
                self.l.next_line();
                let next = self.l.content()?;
                let Some(n) = next else {
                    self.end = colon + 1;
                    return Ok(After::Next(None));
                };
                let opened = self.opens(self.l.start + n, m)?;
                if let After::Next(_) = opened {
                    // An empty value, just after the `:`.
                    self.end = colon + 1;
                    return Ok(After::Next(next));
                }
                Ok(opened)
            }
            b'|' => {
                self.found(Found::Str)?;
                self.literal(v, m)
            }
            b'\'' | b'"' => {
                self.found(Found::Str)?;
                self.quoted(v, m)
            }
            c @ (b'[' | b'{') => {
                // As [`Scanner::inline_value`]: only an empty one ending its line.
                let close = if c == b'[' { b']' } else { b'}' };
                if self.l.at(v + 1) != close || self.l.at(v + 2) != b'\n' {
                    return Err(Doubt);
                }
                self.found(if c == b'[' { Found::Seq } else { Found::Map })?;
                self.end = v + 2;
                self.scalar_done()
            }
            c if plain_start(c) => match self.l.plain(v) {
                Key::Not(end) => self.plain_end(v, end, m),
                // `a: b: c`, which the scanner declines.
                Key::At(_) => Err(Doubt),
            },
            _ => Err(Doubt),
        }
    }

    /// A plain scalar starting at `start` whose first line ends at `end`, in a collection at
    /// column `indent`, as [`Scanner::plain_value`]: deeper lines after it continue it, unless a
    /// comment ends it.
    fn plain_end(&mut self, start: usize, end: usize, indent: usize) -> Result<After, Doubt> {
        self.end = end;
        let l = &mut self.l;
        if l.at(spaces_end(l.b, end, l.end)) == b'#' {
            self.found_plain(&self.s.text[start..end])?;
            return self.scalar_done();
        }
        let next = loop {
            l.next_line();
            if l.start >= l.b.len() {
                break None;
            }
            let n = spaces_end(l.b, l.start, l.end) - l.start;
            if l.start + n == l.end {
                continue;
            }
            let piece = &l.b[l.start + n..l.end];
            if piece[0] == b'#' {
                break l.content()?;
            }
            if n <= indent {
                // The line with content after the scalar, as [`Lines::content`] finds it.
                if n == 0 && marker(piece) {
                    return Err(Doubt);
                }
                break Some(n);
            }
            // A line going on: no `: `, ` #` nor `:` at its end, which the scanner declines.
            let mut from = 0;
            while let Some(p) = colon_or_hash(&piece[from..]).map(|p| from + p) {
                if piece[p] == b':' && piece.get(p + 1).is_none_or(|&b| b == b' ')
                    || piece[p] == b'#' && piece[p - 1] == b' '
                {
                    return Err(Doubt);
                }
                from = p + 1;
            }
            let trimmed = piece.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
            self.end = l.start + n + trimmed;
        };
        if self.end == end {
            self.found_plain(&self.s.text[start..end])?;
        } else {
            // Folded over lines, it holds a space or a line break: a string.
            self.found(Found::Str)?;
        }
        Ok(After::Next(next))
    }

    /// After a scalar ending its line: the next line with content. One deeper than the collection
    /// holding the scalar, which the scanner declines, is a doubt for the loop of [`Skip::run`].
    fn scalar_done(&mut self) -> Result<After, Doubt> {
        self.l.next_line();
        Ok(After::Next(self.l.content()?))
    }

    /// A quoted scalar opening at `v`, in a collection at column `indent`, as [`Scanner::quoted`]
    /// and [`Scanner::finish_line`]. The lines it runs on to must be deeper than the collection
    /// (the scanner takes any).
    fn quoted(&mut self, v: usize, indent: usize) -> Result<After, Doubt> {
        let q = self.l.b[v];
        let mut from = v + 1;
        let close = loop {
            if let Some(close) = self.close(q, from)? {
                break close;
            }
            // A line the scalar runs on from: its escapes are checked as the scanner checks
            // them, an escaped line break (an odd number of backslashes ending it) left out.
            let l = &self.l;
            let raw = &l.b[from..l.end];
            let piece = raw.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
            let slashes = raw[..piece]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            let escaped_break = q == b'"' && slashes % 2 == 1;
            if escaped_break && piece != raw.len() {
                return Err(Doubt);
            }
            let body = &raw[..piece - usize::from(escaped_break)];
            if q == b'"' && body.contains(&b'\\') {
                escapes(&self.s.text[from..from + body.len()], |_| {}).map_err(|_| Doubt)?;
            }
            let l = &mut self.l;
            from = loop {
                l.next_line();
                if l.start >= l.b.len() {
                    return Err(Doubt);
                }
                let n = spaces_end(l.b, l.start, l.end) - l.start;
                if l.start + n == l.end {
                    if escaped_break {
                        return Err(Doubt);
                    }
                    continue;
                }
                if n <= indent {
                    return Err(Doubt);
                }
                break l.start + n;
            };
        };
        // The scanner's range runs on over the spaces and comment ending the line; only they may
        // follow.
        let l = &self.l;
        let e = spaces_end(l.b, close, l.end);
        self.end = match l.at(e) {
            b'\n' => e,
            b'#' if e > close => l.end,
            _ => return Err(Doubt),
        };
        self.scalar_done()
    }

    /// Where a scalar quoted with `q` closes on the reader's line, searching from byte `from`
    /// (just after its closing quote), as [`Scanner::close_on_line`]; a double-quoted one's
    /// escapes are checked as the scanner checks them.
    fn close(&self, q: u8, from: usize) -> Result<Option<usize>, Doubt> {
        let l = &self.l;
        let mut k = from;
        loop {
            let Some(p) = memchr::memchr(q, &l.b[k..l.end]).map(|p| k + p) else {
                return Ok(None);
            };
            if q == b'\'' && l.at(p + 1) == b'\'' && p + 1 < l.end {
                k = p + 2;
            } else if q == b'"' && l.b[from..p].contains(&b'\\') {
                let close = self.s.close_on_line_from(q, from, l.end);
                if let Some(close) = close {
                    escapes(&self.s.text[from..close - 1], |_| {}).map_err(|_| Doubt)?;
                }
                return Ok(close);
            } else {
                return Ok(Some(p + 1));
            }
        }
    }

    /// A literal block scalar whose `|` is at `v`, in a mapping at column `m`, as
    /// [`Scanner::literal`]: its header (`|`, a chomping indicator and an indentation, as
    /// [`Scanner::block_header`]) must end its line.
    fn literal(&mut self, v: usize, m: usize) -> Result<After, Doubt> {
        let mut h = v + 1;
        let (mut chomp, mut block) = (false, None);
        for _ in 0..2 {
            match self.l.at(h) {
                b'-' | b'+' if !chomp => chomp = true,
                d @ b'1'..=b'9' if block.is_none() => block = Some(m + usize::from(d - b'0')),
                _ => break,
            }
            h += 1;
        }
        if h != self.l.end {
            return Err(Doubt);
        }
        self.l.next_line();
        let l = &mut self.l;
        let mut blank_run = 0;
        let mut content_end = None;
        let mut trailing_blank = false;
        let next = loop {
            if let Some(bi) = block
                && content_end.is_some()
                && at_a_look()
            {
                // The lines the steps below go past, at a look each; the steps read the line this
                // stops at.
                literal_lines(l, bi, &mut content_end, &mut trailing_blank, &mut blank_run);
            }
            if l.start >= l.b.len() {
                break None;
            }
            let spaces = spaces_end(l.b, l.start, l.end) - l.start;
            if l.start + spaces == l.end {
                // A blank line: after content, and not indented past it.
                if content_end.is_none() || block.is_none_or(|bi| spaces > bi) {
                    return Err(Doubt);
                }
                blank_run += 1;
                l.next_line();
                continue;
            }
            let bi = *block.get_or_insert(spaces);
            if spaces < bi {
                let at = l.start + spaces;
                if spaces > m || l.b[at] == b'#' || (spaces == 0 && marker(&l.b[at..])) {
                    return Err(Doubt);
                }
                break Some(spaces);
            }
            if bi <= m {
                return Err(Doubt);
            }
            content_end = Some(l.end);
            trailing_blank = l.b[l.end - 1] == b' ';
            blank_run = 0;
            l.next_line();
        };
        match content_end {
            Some(end) if !trailing_blank && blank_run == 0 => {
                self.end = end;
                Ok(After::Next(next))
            }
            _ => Err(Doubt),
        }
    }
}

/// From the reader's line on, the lines of a literal block indented by `bi` (after its first
/// content line) that [`Skip::literal`] goes past, each told at one look at the 64 bytes it starts
/// with (and a search on past them for a longer line's end): content lines indented `bi` or more,
/// and blank lines indented no more than `bi`. It stops, the reader at the line, at any other
/// line, at one indented 64 or more, and at one starting in the document's last 63 bytes; those
/// steps read it. What it went past it leaves as they would have: where the last content ends,
/// whether it ends in a space, how many blank lines follow it.
#[inline]
fn literal_lines(
    l: &mut Lines<'_>,
    bi: usize,
    content_end: &mut Option<usize>,
    trailing_blank: &mut bool,
    blank_run: &mut u32,
) {
    let (b, mut start, mut line) = (l.b, l.start, l.line);
    while let Some((breaks, spaces)) = breaks_and_spaces(b, start) {
        // Where the line ends and its first byte other than a space, among the 64 (64 for none):
        // a line break is no space, so the first is at the end at the latest, there on a blank
        // line.
        let end = breaks.trailing_zeros() as usize;
        let first = (!spaces).trailing_zeros() as usize;
        let end = if first == end {
            if end == 64 || end > bi {
                break;
            }
            *blank_run += 1;
            start + end
        } else {
            if first < bi {
                break;
            }
            let end = if end < 64 {
                start + end
            } else {
                line_end(b, start + 64, b.len())
            };
            *content_end = Some(end);
            *trailing_blank = b[end - 1] == b' ';
            *blank_run = 0;
            end
        };
        start = (end + 1).min(b.len());
        line += 1;
    }
    #[cfg(test)]
    stats::looked((line - l.line) as usize);
    if start != l.start {
        l.line = line;
        l.start = start;
        l.end = line_end(b, start, b.len());
    }
}

/// Whether [`literal_lines`] and [`Skip::key_line`] are used: always, but in the tests that read a
/// collection both with them and without them.
#[inline(always)]
fn at_a_look() -> bool {
    #[cfg(test)]
    return !stats::line_by_line();
    #[cfg(not(test))]
    true
}

impl Scanner<'_> {
    /// The block collection that is the value of a dropped key whose `:` is at `at`, in the
    /// document's mapping at column `indent`, with the position at the next line with content:
    /// skipped when the skipper proves the scanner reads it, else read.
    /// With `typed`, the collection is checked against that type too.
    pub(super) fn dropped_block(
        &mut self,
        indent: usize,
        at: Pos,
        typed: Option<&'static Ty>,
    ) -> R<Node> {
        let first = self.pos(self.i, self.i);
        let seq = self.is_dash();
        let mut skip = Skip {
            s: self,
            l: Lines {
                b: self.b,
                line: self.line,
                start: self.line_start,
                end: self.line_end,
            },
            frames: [Frame::Map(0); FRAMES],
            open: 0,
            end: 0,
            checked: typed.is_some(),
            want: typed.unwrap_or(&ANY),
            types: [&ANY; FRAMES],
            looked: (usize::MAX, Look::default()),
        };
        let skipped = match self.next {
            Some(_) => skip.run(indent).ok(),
            None => None,
        };
        // A checked value must end its property: a key after it is read with it.
        let skipped = skipped.filter(|(_, l)| typed.is_none() || l.next != Some(indent));
        let Some((end, landing)) = skipped else {
            let node = self.value_below(indent, at);
            #[cfg(test)]
            stats::handed_back(&node, typed.is_some());
            return node;
        };
        let kind = if seq {
            Kind::Seq(ThinVec::new())
        } else {
            Kind::Map(ThinVec::new())
        };
        let node = Node::with(
            kind,
            Pos {
                end: self.base + end as u32,
                ..first
            },
            Style::Block,
        );
        #[cfg(test)]
        stats::check(self, indent, at, &node, landing, typed);
        self.i = landing.i;
        self.line = landing.line;
        self.line_start = landing.line_start;
        self.line_end = landing.line_end;
        self.ascii_to.set(landing.line_start);
        self.next = landing.next;
        Ok(node)
    }
}

#[cfg(test)]
pub(super) mod stats;

#[cfg(test)]
mod checked_tests;
#[cfg(test)]
mod tests;
