//! A JSON reader that keeps the position of every value (a stream of concatenated values, as
//! opm reads a JSON file) and leaves long strings on disk.

use crate::catalog::node::{DEFER_THRESHOLD, Entry, Kind, Node, Pos, Sharing, Str, Style, ThinVec};
use crate::text::json_scan::special_byte;

/// A JSON syntax error at a place in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub offset: usize,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Reads consecutive JSON values from one file, the way Go's `json.Decoder` reads a stream.
pub struct JsonReader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
    line: u32,
    line_start: usize,
    /// The last column worked out, `(offset, column)`: the next one on the same line counts on
    /// from there, so a file on one long line is not counted over and over.
    col_mark: std::cell::Cell<(usize, u32)>,
    file: u32,
    depth: u32,
    /// The entries and items of the collections being read, innermost last: a collection takes
    /// its own off the top when it ends, in one allocation of exactly its size.
    entries: Vec<Entry>,
    items: Vec<Node>,
    /// Equal long strings of the file are held once.
    sharing: Sharing,
}

const MAX_DEPTH: u32 = 256;

impl<'a> JsonReader<'a> {
    pub fn new(text: &'a str, file: u32) -> Self {
        JsonReader {
            text,
            bytes: text.as_bytes(),
            i: 0,
            line: 1,
            line_start: 0,
            col_mark: std::cell::Cell::new((0, 1)),
            file,
            depth: 0,
            entries: Vec::new(),
            items: Vec::new(),
            sharing: Sharing::default(),
        }
    }

    /// Byte offset of the reader.
    pub fn offset(&self) -> usize {
        self.i
    }

    pub fn line(&self) -> u32 {
        self.line
    }

    fn col_at(&self, offset: usize) -> u32 {
        // Columns count characters, as editors do.
        let start = self.line_start.min(offset);
        let (mark, col) = self.col_mark.get();
        let (from, base) = if (start..=offset).contains(&mark) {
            (mark, col)
        } else {
            (start, 1)
        };
        let col = base
            + self
                .text
                .get(from..offset)
                .map_or(offset - from, |s| s.chars().count()) as u32;
        self.col_mark.set((offset, col));
        col
    }

    fn err(&self, message: impl Into<String>) -> JsonError {
        JsonError {
            offset: self.i,
            line: self.line,
            col: self.col_at(self.i),
            message: message.into(),
        }
    }

    fn found(&self) -> String {
        match self.text[self.i..].chars().next() {
            None => "end of file".to_string(),
            Some(c) if c.is_control() => format!("{c:?}"),
            Some(c) => format!("'{c}'"),
        }
    }

    /// Skips whitespace; returns false at end of input.
    pub fn skip_ws(&mut self) -> bool {
        while let Some(&b) = self.bytes.get(self.i) {
            match b {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                _ => return true,
            }
        }
        false
    }

    fn pos_here(&self) -> Pos {
        Pos {
            start: self.i as u32,
            end: self.i as u32,
            line: self.line,
            col: self.col_at(self.i),
        }
    }

    /// Reads the next value of the stream, or `None` at the end.
    pub fn next_value(&mut self) -> Option<Result<Node, JsonError>> {
        if !self.skip_ws() {
            return None;
        }
        // What a value that failed left behind.
        self.entries.clear();
        self.items.clear();
        Some(self.value())
    }

    fn value(&mut self) -> Result<Node, JsonError> {
        self.skip_ws();
        let mut pos = self.pos_here();
        let kind = match self.bytes.get(self.i) {
            None => return Err(self.err("unexpected end of JSON input")),
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') => Kind::String(self.string()?),
            Some(b't') => self.literal("true", Kind::Bool(true))?,
            Some(b'f') => self.literal("false", Kind::Bool(false))?,
            Some(b'n') => self.literal("null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => {
                return Err(self.err(format!(
                    "invalid character {} looking for beginning of value",
                    self.found()
                )));
            }
        };
        pos.end = self.i as u32;
        Ok(Node::with(kind, pos, Style::Any))
    }

    fn literal(&mut self, word: &str, kind: Kind) -> Result<Kind, JsonError> {
        if self.bytes[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(kind)
        } else {
            Err(self.err(format!(
                "invalid literal: expected '{word}', found {}",
                self.found()
            )))
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn object(&mut self) -> Result<Kind, JsonError> {
        self.enter()?;
        self.i += 1;
        self.skip_ws();
        if self.bytes.get(self.i) == Some(&b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Kind::Map(ThinVec::new()));
        }
        let mark = self.entries.len();
        loop {
            self.skip_ws();
            if self.bytes.get(self.i) != Some(&b'"') {
                return Err(self.err(format!(
                    "invalid character {} looking for beginning of object key string",
                    self.found()
                )));
            }
            let mut kpos = self.pos_here();
            let key = self.string()?;
            kpos.end = self.i as u32;
            let key = Node::with(Kind::String(key), kpos, Style::Any);
            self.skip_ws();
            if self.bytes.get(self.i) != Some(&b':') {
                return Err(self.err(format!(
                    "invalid character {} after object key",
                    self.found()
                )));
            }
            self.i += 1;
            let value = self.value()?;
            self.entries.push(Entry { key, value });
            self.skip_ws();
            match self.bytes.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    break;
                }
                _ => {
                    return Err(self.err(format!(
                        "invalid character {} after object key:value pair",
                        self.found()
                    )));
                }
            }
        }
        self.depth -= 1;
        Ok(Kind::Map(self.entries.drain(mark..).collect()))
    }

    fn array(&mut self) -> Result<Kind, JsonError> {
        self.enter()?;
        self.i += 1;
        self.skip_ws();
        if self.bytes.get(self.i) == Some(&b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Kind::Seq(ThinVec::new()));
        }
        let mark = self.items.len();
        loop {
            let item = self.value()?;
            self.items.push(item);
            self.skip_ws();
            match self.bytes.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                _ => {
                    return Err(self.err(format!(
                        "invalid character {} after array element",
                        self.found()
                    )));
                }
            }
        }
        self.depth -= 1;
        Ok(Kind::Seq(self.items.drain(mark..).collect()))
    }

    fn string(&mut self) -> Result<Str, JsonError> {
        let start = self.i + 1;
        // Fast path: the closing quote of a string without escapes.
        let j = special_byte(self.bytes, start);
        match self.bytes.get(j) {
            None => {
                self.i = j;
                Err(self.err("unexpected end of JSON input in string literal"))
            }
            Some(b'"') => {
                let s = &self.text[start..j];
                self.i = j + 1;
                if s.len() >= DEFER_THRESHOLD {
                    return Ok(Str::Deferred {
                        file: self.file,
                        start: start as u32,
                        len: s.len() as u32,
                    });
                }
                Ok(Str::Inline(self.sharing.text(s)))
            }
            Some(b'\\') => self.escaped_string(start, j),
            Some(_) => {
                self.i = j;
                Err(self.err(format!(
                    "invalid character {} in string literal",
                    self.found()
                )))
            }
        }
    }

    /// The rest of a string literal that starts at `start` and has its first escape at `j`.
    fn escaped_string(&mut self, start: usize, mut j: usize) -> Result<Str, JsonError> {
        let mut out = String::with_capacity(j - start + 16);
        out.push_str(&self.text[start..j]);
        loop {
            match self.bytes.get(j) {
                None => {
                    self.i = j;
                    return Err(self.err("unexpected end of JSON input in string literal"));
                }
                Some(b'"') => {
                    self.i = j + 1;
                    return Ok(Str::Inline(self.sharing.text(&out)));
                }
                Some(b'\\') => j = self.escape(j, &mut out)?,
                Some(&b) if b < 0x20 => {
                    self.i = j;
                    return Err(self.err(format!(
                        "invalid character {} in string literal",
                        self.found()
                    )));
                }
                Some(_) => {
                    let next = special_byte(self.bytes, j);
                    out.push_str(&self.text[j..next]);
                    j = next;
                }
            }
        }
    }

    /// Decodes the escape sequence at `j` (a backslash) into `out`; returns where the text goes on.
    fn escape(&mut self, mut j: usize, out: &mut String) -> Result<usize, JsonError> {
        let esc = self.bytes.get(j + 1).copied();
        j += 2;
        match esc {
            Some(b'"') => out.push('"'),
            Some(b'\\') => out.push('\\'),
            Some(b'/') => out.push('/'),
            Some(b'b') => out.push('\u{8}'),
            Some(b'f') => out.push('\u{c}'),
            Some(b'n') => out.push('\n'),
            Some(b'r') => out.push('\r'),
            Some(b't') => out.push('\t'),
            Some(b'u') => {
                let hi = self.hex4(j)?;
                j += 4;
                if (0xD800..0xDC00).contains(&hi)
                    && self.bytes.get(j) == Some(&b'\\')
                    && self.bytes.get(j + 1) == Some(&b'u')
                {
                    let lo = self.hex4(j + 2)?;
                    if (0xDC00..0xE000).contains(&lo) {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        return Ok(j + 6);
                    }
                }
                out.push(char::from_u32(hi).unwrap_or('\u{FFFD}'));
            }
            _ => {
                self.i = j - 1;
                return Err(self.err(format!(
                    "invalid character {} in string escape code",
                    self.found()
                )));
            }
        }
        Ok(j)
    }

    fn hex4(&mut self, at: usize) -> Result<u32, JsonError> {
        let digits = self.text.get(at..at + 4);
        match digits.and_then(|d| u32::from_str_radix(d, 16).ok()) {
            Some(v) if digits.is_some_and(|d| d.bytes().all(|b| b.is_ascii_hexdigit())) => Ok(v),
            _ => {
                self.i = at;
                Err(self.err("invalid character in \\u hexadecimal character escape"))
            }
        }
    }

    fn number(&mut self) -> Result<Kind, JsonError> {
        let start = self.i;
        let b = self.bytes;
        let mut j = self.i;
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        match b.get(j) {
            Some(b'0') => j += 1,
            Some(b'1'..=b'9') => {
                while b.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
            }
            _ => {
                self.i = j;
                return Err(self.err(format!(
                    "invalid character {} in numeric literal",
                    self.found()
                )));
            }
        }
        if b.get(j) == Some(&b'.') {
            j += 1;
            if !b.get(j).is_some_and(u8::is_ascii_digit) {
                self.i = j;
                return Err(self.err(format!(
                    "invalid character {} after decimal point in numeric literal",
                    self.found()
                )));
            }
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            j += 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if !b.get(j).is_some_and(u8::is_ascii_digit) {
                self.i = j;
                return Err(self.err(format!(
                    "invalid character {} in exponent of numeric literal",
                    self.found()
                )));
            }
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
        }
        self.i = j;
        Ok(Kind::Number(self.text[start..j].into()))
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn parse_all(text: &str) -> Result<Vec<Node>, JsonError> {
        let mut r = JsonReader::new(text, 0);
        let mut out = Vec::new();
        while let Some(v) = r.next_value() {
            out.push(v?);
        }
        Ok(out)
    }

    #[test]
    fn reads_concatenated_objects_with_positions() {
        let text =
            "{\"schema\":\"a\"}{\"schema\":\"b\"}\n\n  {\n    \"x\": [1, -2.5e3, true, null]\n  }";
        let v = parse_all(text).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[1].pos().start, 14);
        assert_eq!(v[2].pos().line, 3);
        assert_eq!(v[2].pos().col, 3);
        let x = v[2].get("x").unwrap();
        assert_eq!(x.pos().line, 4);
        assert_eq!(x.as_seq().unwrap().len(), 4);
        assert!(matches!(&x.as_seq().unwrap()[1].kind, Kind::Number(n) if &**n == "-2.5e3"));
    }

    #[test]
    fn decodes_escapes_and_surrogates() {
        let v = parse_all(r#"{"k":"a\"b\\c\n\u00e9\ud83d\ude00/\/"}"#).unwrap();
        assert_eq!(v[0].get("k").unwrap().as_str(), Some("a\"b\\c\né😀//"));
    }

    #[test]
    fn reports_syntax_errors_with_line_and_column() {
        let e = parse_all("{\n  \"a\": 1,\n  }\n").unwrap_err();
        assert_eq!((e.line, e.col), (3, 3));
        assert!(
            e.message
                .contains("looking for beginning of object key string")
        );
        let e = parse_all("{\"a\": tru}").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_all("{\"a\": \"x").unwrap_err();
        assert!(e.message.contains("end of JSON input"));
        assert!(parse_all("{\"a\": 01}").is_err());
        assert!(parse_all("{\"a\": \"\t\"}").is_err());
    }

    #[test]
    fn long_strings_stay_on_disk() {
        let big = "A".repeat(DEFER_THRESHOLD + 10);
        let text = format!("{{\"data\":\"{big}\"}}");
        let v = parse_all(&text).unwrap();
        match v[0].get("data").unwrap().as_string().unwrap() {
            Str::Deferred { start, len, .. } => {
                assert_eq!(*start, 9);
                assert_eq!(*len as usize, big.len());
            }
            other => panic!("expected deferred, got {other:?}"),
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(20_000);
        assert!(parse_all(&text).is_err());
    }
}
