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

use super::bytes::{colon_or_hash, line_end, spaces_end};
use super::scalar::escapes;
use super::{MAX_DEPTH, MAX_KEY, R, Scanner};
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

/// What a line's content at a position is, as a key.
enum Key {
    /// A plain key whose `:` is at this byte.
    At(usize),
    /// A plain scalar with no `:` ending a key: it ends (trailing spaces and comment left out) at
    /// this byte.
    Not(usize),
}

/// A hand-back: the skipper cannot prove the scanner reads the rest as it does.
struct Doubt;

/// A line-by-line reader over the document's bytes `b`, on line `line` (bytes `start..end`).
struct Lines<'b> {
    b: &'b [u8],
    line: u32,
    start: usize,
    end: usize,
}

impl Lines<'_> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'\n')
    }

    /// As [`Scanner::is_dash`].
    fn is_dash(&self, i: usize) -> bool {
        self.at(i) == b'-' && matches!(self.at(i + 1), b' ' | b'\n')
    }

    /// As [`Scanner::next_line`].
    fn next_line(&mut self) {
        let i = (self.end + 1).min(self.b.len());
        self.line += 1;
        self.start = i;
        self.end = line_end(self.b, i, self.b.len());
    }

    /// As [`Scanner::next_content_line`] (whose declines are doubts): at the start of a line, skips
    /// blank and comment lines and gives the indentation of the next line with content.
    fn content(&mut self) -> Result<Option<usize>, Doubt> {
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

    /// The plain scalar at `v` on the current line, as [`Scanner::find_plain_extent`] reads it
    /// after its first byte: its `:` when one followed by a space or the line end makes it a key,
    /// else its end with trailing spaces and comment left out.
    fn plain(&self, v: usize) -> Key {
        let line = &self.b[v..self.end];
        let mut from = 1;
        let stop = loop {
            let Some(p) = line.get(from..).and_then(colon_or_hash) else {
                break line.len();
            };
            let p = from + p;
            if line[p] == b':' && line.get(p + 1).is_none_or(|&b| b == b' ') {
                return Key::At(v + p);
            }
            if line[p] == b'#' && line[p - 1] == b' ' {
                break p;
            }
            from = p + 1;
        };
        let trimmed = line[..stop]
            .iter()
            .rposition(|&b| b != b' ')
            .map_or(0, |p| p + 1);
        Key::Not(v + trimmed)
    }

    /// A key at `p` the scanner reads as one ([`Scanner::key`]): plain, starting with a letter or
    /// digit (so neither an indicator, a merge key nor a non-finite number), no space before its
    /// `:`, not too long; or a plain scalar that is no key.
    fn key(&self, p: usize) -> Result<Key, Doubt> {
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
/// ([`Scanner::next_content_line`]): a document marker or a directive.
fn marker(rest: &[u8]) -> bool {
    rest.starts_with(b"...") || rest.starts_with(b"---") || rest.first() == Some(&b'%')
}

/// Whether a plain scalar starting with `c` is one the scanner reads without doubt: not an
/// indicator ([`Scanner::find_plain_extent`]), and not `.`, `+` or `-`, which start the non-finite
/// numbers the scanner declines.
fn plain_start(c: u8) -> bool {
    !matches!(
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
            | b'.'
            | b'+'
            | b' '
            | b'\n'
    )
}

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
        self.frames[self.open] = f;
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
                    let Key::At(colon) = self.l.key(p)? else {
                        return Err(Doubt);
                    };
                    self.after_key(colon, m)?
                }
                Frame::Seq(s) => self.item(p, s)?,
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
                self.after_key(colon, col)
            }
            Key::At(_) => Err(Doubt),
            Key::Not(end) => self.plain_end(end, s),
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
            b'|' => self.literal(v, m),
            b'\'' | b'"' => self.quoted(v, m),
            c @ (b'[' | b'{') => {
                // As [`Scanner::inline_value`]: only an empty one ending its line.
                let close = if c == b'[' { b']' } else { b'}' };
                if self.l.at(v + 1) != close || self.l.at(v + 2) != b'\n' {
                    return Err(Doubt);
                }
                self.end = v + 2;
                self.scalar_done(m)
            }
            c if plain_start(c) => match self.l.plain(v) {
                Key::Not(end) => self.plain_end(end, m),
                // `a: b: c`, which the scanner declines.
                Key::At(_) => Err(Doubt),
            },
            _ => Err(Doubt),
        }
    }

    /// A plain scalar whose first line ends at `end`, in a collection at column `indent`, as
    /// [`Scanner::plain_value`]: deeper lines after it continue it, unless a comment ends it.
    fn plain_end(&mut self, end: usize, indent: usize) -> Result<After, Doubt> {
        self.end = end;
        let l = &mut self.l;
        if l.at(spaces_end(l.b, end, l.end)) == b'#' {
            return self.scalar_done(indent);
        }
        loop {
            l.next_line();
            if l.start >= l.b.len() {
                break;
            }
            let n = spaces_end(l.b, l.start, l.end) - l.start;
            if l.start + n == l.end {
                continue;
            }
            let piece = &l.b[l.start + n..l.end];
            if n <= indent || piece[0] == b'#' {
                break;
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
        }
        let next = l.content()?;
        if next.is_some_and(|n| n > indent) {
            return Err(Doubt);
        }
        Ok(After::Next(next))
    }

    /// After a scalar ending its line: the next line with content, which must not be deeper than
    /// the collection at column `indent` ([`Scanner::inline_value`]).
    fn scalar_done(&mut self, indent: usize) -> Result<After, Doubt> {
        self.l.next_line();
        let next = self.l.content()?;
        if next.is_some_and(|n| n > indent) {
            return Err(Doubt);
        }
        Ok(After::Next(next))
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
        self.scalar_done(indent)
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

impl Scanner<'_> {
    /// The block collection that is the value of a dropped key whose `:` is at `at`, in the
    /// document's mapping at column `indent`, with the position at the next line with content:
    /// skipped when the skipper proves the scanner reads it, else read.
    pub(super) fn dropped_block(&mut self, indent: usize, at: Pos) -> R<Node> {
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
        };
        let skipped = match self.next {
            Some(_) => skip.run(indent).ok(),
            None => None,
        };
        let Some((end, landing)) = skipped else {
            let node = self.value_below(indent, at);
            #[cfg(test)]
            stats::handed_back(&node);
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
                end: end as u32,
                ..first
            },
            Style::Block,
        );
        #[cfg(test)]
        stats::check(self, indent, at, &node, landing);
        self.i = landing.i;
        self.line = landing.line;
        self.line_start = landing.line_start;
        self.line_end = landing.line_end;
        self.ascii_to.set(landing.line_start);
        self.next = landing.next;
        Ok(node)
    }
}

/// What the skipper did on the current thread, and a check of each collection it skips against
/// the scanner's own reading.
#[cfg(test)]
pub(super) mod stats {
    use super::{Landing, Scanner};
    use crate::catalog::node::{Kind, Node, Pos};
    use std::cell::Cell;

    thread_local! {
        static SKIPPED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
        static READ: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    }

    /// The collections (and their bytes) skipped, and those handed back and read, so far on this
    /// thread.
    pub(in super::super) fn counts() -> ((usize, usize), (usize, usize)) {
        (SKIPPED.get(), READ.get())
    }

    fn add(cell: &'static std::thread::LocalKey<Cell<(usize, usize)>>, node: &Node) {
        let bytes = (node.pos().end - node.pos().start) as usize;
        cell.with(|c| c.set((c.get().0 + 1, c.get().1 + bytes)));
    }

    pub(super) fn handed_back(node: &Result<Node, super::super::Decline>) {
        if let Ok(n) = node
            && matches!(n.kind, Kind::Seq(_) | Kind::Map(_))
        {
            add(&READ, n);
        }
    }

    /// Reads the collection the skipper skipped as the scanner does, from the same place, and
    /// fails unless the scanner gives the same node and lands at the same place.
    pub(super) fn check(s: &mut Scanner, indent: usize, at: Pos, node: &Node, landing: Landing) {
        let text = &s.text[s.i..s.b.len()];
        let theirs = s
            .value_below(indent, at)
            .unwrap_or_else(|_| panic!("skipped what the scanner declines:\n{text}"));
        let same_kind = matches!(
            (&theirs.kind, &node.kind),
            (Kind::Seq(_), Kind::Seq(_)) | (Kind::Map(_), Kind::Map(_))
        );
        assert!(
            same_kind && theirs.pos() == node.pos() && theirs.style() == node.style(),
            "skipped {node:?}, the scanner read {theirs:?}:\n{text}"
        );
        let stands = Landing {
            i: s.i,
            line: s.line,
            line_start: s.line_start,
            line_end: s.line_end,
            next: s.next,
        };
        assert_eq!(stands, landing, "skipped to another place:\n{text}");
        assert_eq!(s.ascii_to.get(), s.line_start, "{text}");
        add(&SKIPPED, node);
    }
}

#[cfg(test)]
mod tests {
    use super::stats::counts;
    use crate::catalog::yaml::fast::tests::check_text;
    use crate::catalog::yaml::{Keep, split_documents};

    /// Whether an outline read of the one document `text` skips a dropped collection (each skip is
    /// checked against the scanner's own reading by [`super::stats::check`]), and whether the
    /// document is read at all; the read is also checked against the full reader's.
    fn skips(text: &str) -> (bool, bool) {
        let chunk = split_documents(text, 0, 1).0[0];
        let before = counts().0.0;
        let read = super::super::read(text, chunk, 0, &mut Default::default(), Keep::Outline);
        let skipped = counts().0.0 > before;
        check_text(text, "skip");
        (skipped, read.is_some())
    }

    const BUNDLE: &str = "\
schema: olm.bundle
name: foo.v1.0.0
properties:
- type: olm.gvk
  value:
    group: x.example.com
    kind: X
    version: v1
- type: olm.package
  value:
    packageName: foo
    version: 1.0.0
- type: olm.csv.metadata
  value:
    annotations:
      alm-examples: |-
        [
          {\"kind\": \"X\"}

        ]
      containerImage: quay.io/foo@sha256:abc
      description: '[{\"a\": 1}]'
      operators.openshift.io/valid-subscription: '[\"OpenShift Platform Plus\", \"Red
        Hat Advanced Cluster Management\"]'
    description: A long plain description that the writer folded over
      two lines.
    keywords: []
    links:
    - name: Docs
      url: https://example.com/docs # a comment
    maturity: stable   
    installModes:
      - supported: true
        type: OwnNamespace
    provider: {}
    notes: \"with \\\"escapes\\\" \\u00e9 and a line\\
      broken\"
    more: |2-
          indented
    empty:
relatedImages:
- image: quay.io/foo@sha256:abc
  name: ''
package: foo
";

    #[test]
    fn a_bundle_s_properties_and_related_images_are_skipped() {
        assert_eq!(skips(BUNDLE), (true, true));
        let before = counts().0;
        check_text(BUNDLE, "bundle");
        assert_eq!(
            counts().0.0,
            before.0 + 2,
            "both dropped collections skipped"
        );
        // At the end of the document, indented, with a key at the key's column after it.
        for text in [
            "properties:\n- type: a\n  value: 1",
            "properties:\n  - type: a\n  # c\n\n",
            "properties:\n  a:\n  - x\nname: n\n",
            "properties:\n- a:\n  b: c\n",
            "properties:\n- type: a\n  value:\n- type: b\n",
            "properties:\n- 'quoted item'   # c\n- plain item\n  runs on\n- x\n",
            "properties:\n  k: |\n    text\nnext: 1\n",
        ] {
            assert_eq!(skips(text), (true, true), "{text:?}");
        }
    }

    #[test]
    fn what_the_skipper_cannot_prove_is_handed_back() {
        let long = format!("properties:\n- {}: 1\n", "k".repeat(1001));
        let cases: &[(&str, bool)] = &[
            // Declined by the scanner: non-finite numbers, indentation between levels, a deeper
            // line after a scalar, blank lines after a literal block, flow content, `- []`.
            ("properties:\n- type: a\n  value:\n    x: .inf\n", false),
            ("properties:\n- -.Inf\n", false),
            ("properties:\n- type: a\n value: b\n", false),
            ("properties:\n- type: a\n    value: b\n", false),
            (
                "properties:\n- type: a\n  value:\n      x: 1\n    y: 2\n",
                false,
            ),
            ("properties:\n  a: |\n    x\n\n  b: 1\n", false),
            ("properties:\n- type: a\n  value: {a: b}\n", false),
            ("properties:\n- []\n", false),
            ("properties:\n- type: a\n  value: 'x'#c\n", false),
            ("properties:\n- type : a\n", false),
            (&long, false),
            // Read by the scanner, in ways the skipper leaves to it: quoted keys, a scalar on the
            // line after its key, empty items, keys that start with other bytes, `.`.
            ("properties:\n- 'type': a\n", true),
            ("properties:\n- type:\n    olm.gvk\n", true),
            ("properties:\n-\n- x\n", true),
            ("properties:\n- _type: a\n", true),
            ("properties:\n- type: .x\n", true),
            ("properties:\n  a: |\n    x \n", false),
        ];
        for &(text, read) in cases {
            assert_eq!(skips(text), (false, read), "{text:?}");
        }
    }
}
