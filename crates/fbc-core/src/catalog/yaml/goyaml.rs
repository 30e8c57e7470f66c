//! YAML exactly as opm writes it: opm encodes each blob as JSON and turns that into YAML with
//! sigs.k8s.io/yaml, which reads the JSON back with go-yaml v2 and marshals it again. This module
//! reproduces that marshaller byte for byte for JSON values:
//!
//! * mapping keys in go-yaml v2's natural order (digit runs compared as numbers, a non-letter before
//!   a letter), block mappings indented by 2, sequences under a key level with it (`key:` then
//!   `- item`), empty collections as `{}` and `[]`;
//! * a string is plain unless it would read back as something else (`yes`, `1.10`, `~`, `""`, a
//!   timestamp such as `2001-12-14` or `2001-12-14T21:59:43Z`, a sexagesimal number): then it is
//!   double-quoted; a string with a newline is a literal block (`|`, `|-`, `|+`); then the emitter's
//!   own analysis downgrades what its syntax cannot carry (plain → single quotes → double quotes,
//!   literal → double quotes);
//! * long plain, single- and double-quoted scalars are folded at the first space past column 80,
//!   continuing 2 columns deeper than their key; strings without spaces are never folded;
//! * numbers as Go writes them: integers in decimal, other numbers through `%g` (`1e+06`, `0.5`).
//!
//! The scalar facts it rests on (key order, timestamps, `%g`) are in [`super::goscalar`].

use serde_json::Value;

use super::goscalar::{go_number, is_timestamp, natural_cmp};
use super::yaml11::{Plain, is_base60, resolve_plain};

/// go-yaml v2's preferred line width and indentation.
const BEST_WIDTH: usize = 80;
const BEST_INDENT: isize = 2;
/// Keys longer than this (in bytes) are written as `? key` / `: value`.
const MAX_SIMPLE_KEY: usize = 128;

/// `v` as go-yaml v2's `Marshal` writes it (a mapping, sequence or scalar document), ending with a
/// newline.
pub fn marshal(v: &Value) -> String {
    let mut e = Emitter {
        out: String::new(),
        column: 0,
        indent: -1,
        whitespace: true,
        indention: true,
        open_ended: false,
    };
    e.node(v, Context::ROOT);
    // Document end: a line break unless at the start of a line; `...` after an open-ended scalar.
    e.write_indent();
    if e.open_ended {
        e.indicator("...", true, false, false);
        e.write_indent();
    }
    e.out
}

/// Where a node sits, as the emitter's flags say.
#[derive(Clone, Copy)]
struct Context {
    root: bool,
    mapping: bool,
    simple_key: bool,
}

impl Context {
    const ROOT: Context = Context {
        root: true,
        mapping: false,
        simple_key: false,
    };
    const ITEM: Context = Context {
        root: false,
        mapping: false,
        simple_key: false,
    };
    const VALUE: Context = Context {
        root: false,
        mapping: true,
        simple_key: false,
    };
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ScalarStyle {
    Plain,
    Single,
    Double,
    Literal,
}

struct Emitter {
    out: String,
    /// Characters written on the current line.
    column: usize,
    indent: isize,
    /// The last character written was whitespace (or nothing was written on the line).
    whitespace: bool,
    /// Only indentation has been written on the current line.
    indention: bool,
    /// The document ended in a way that needs `...` to close it.
    open_ended: bool,
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn indicator(
        &mut self,
        text: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(text);
        self.column += text.chars().count();
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    /// Runs `f` one indentation step deeper (none for a sequence `indentless` under a key), then
    /// restores the indentation.
    fn indented(&mut self, flow: bool, indentless: bool, f: impl FnOnce(&mut Self)) {
        let saved = self.indent;
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
        f(self);
        self.indent = saved;
    }

    fn node(&mut self, v: &Value, ctx: Context) {
        match v {
            Value::Object(m) if !m.is_empty() => self.mapping(m),
            Value::Array(a) if !a.is_empty() => {
                let indentless = ctx.mapping && !self.indention;
                self.indented(false, indentless, |e| {
                    for item in a {
                        e.write_indent();
                        e.indicator("-", true, false, true);
                        e.node(item, Context::ITEM);
                    }
                });
            }
            Value::Object(_) => self.empty_flow("{", "}"),
            Value::Array(_) => self.empty_flow("[", "]"),
            Value::Null => self.scalar("null", ScalarStyle::Plain, ctx),
            Value::Bool(b) => {
                self.scalar(if *b { "true" } else { "false" }, ScalarStyle::Plain, ctx)
            }
            Value::Number(n) => self.scalar(&go_number(n), ScalarStyle::Plain, ctx),
            Value::String(s) => self.scalar(s, string_style(s), ctx),
        }
    }

    fn empty_flow(&mut self, open: &str, close: &str) {
        self.indented(true, false, |e| {
            e.indicator(open, true, true, false);
            e.indicator(close, false, false, false);
        });
    }

    fn mapping(&mut self, m: &serde_json::Map<String, Value>) {
        let mut keys: Vec<&String> = m.keys().collect();
        keys.sort_by(|a, b| natural_cmp(a, b));
        self.indented(false, false, |e| {
            for k in keys {
                e.write_indent();
                let simple = k.len() <= MAX_SIMPLE_KEY && !k.chars().any(is_break);
                if simple {
                    let ctx = Context {
                        root: false,
                        mapping: true,
                        simple_key: true,
                    };
                    e.scalar(k, string_style(k), ctx);
                    e.indicator(":", false, false, false);
                } else {
                    e.indicator("?", true, false, true);
                    e.scalar(k, string_style(k), Context::VALUE);
                    e.write_indent();
                    e.indicator(":", true, false, true);
                }
                e.node(&m[k], Context::VALUE);
            }
        });
    }

    fn scalar(&mut self, s: &str, style: ScalarStyle, ctx: Context) {
        let style = select_style(s, style, ctx.simple_key);
        let allow_breaks = !ctx.simple_key;
        self.indented(true, false, |e| match style {
            ScalarStyle::Plain => e.write_plain(s, allow_breaks, ctx.root),
            ScalarStyle::Single => e.write_single(s, allow_breaks),
            ScalarStyle::Double => e.write_double(s, allow_breaks),
            ScalarStyle::Literal => e.write_literal(s),
        });
    }

    fn write_plain(&mut self, s: &str, allow_breaks: bool, root: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        if !s.contains(' ') {
            // Nothing to fold: every character is written as it is (long base64 data, image
            // references), so the text goes out whole.
            self.out.push_str(s);
            self.column += s.chars().count();
        } else {
            self.write_plain_folded(s, allow_breaks);
        }
        self.whitespace = false;
        self.indention = false;
        if root {
            self.open_ended = true;
        }
    }

    fn write_plain_folded(&mut self, s: &str, allow_breaks: bool) {
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                self.indention = false;
                spaces = false;
            }
        }
    }

    fn write_single(&mut self, s: &str, allow_breaks: bool) {
        self.indicator("'", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                let fold = allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i + 1 < chars.len()
                    && !next_space;
                if fold {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double(&mut self, s: &str, allow_breaks: bool) {
        self.indicator("\"", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                for e in escape(c).chars() {
                    self.put(e);
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i + 1 < chars.len()
                {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, s: &str) {
        self.indicator("|", true, false, false);
        let first = s.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        self.open_ended = false;
        let mut rev = s.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(before)) if is_break(before) => Some("+"),
            _ => None,
        };
        // go-yaml v2 marks a `+` block as open-ended, but writing the hint clears the mark again,
        // so no `...` ever follows it.
        if let Some(hint) = chomp {
            self.indicator(hint, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in s.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }
}

/// The style go-yaml v2's encoder asks for: a literal block for text with a newline, plain when
/// the text would read back as this string, double quotes otherwise.
fn string_style(s: &str) -> ScalarStyle {
    if s.contains('\n') {
        ScalarStyle::Literal
    } else if reads_back_as_string(s) {
        ScalarStyle::Plain
    } else {
        ScalarStyle::Double
    }
}

/// Whether go-yaml v2 resolves `s`, written plain, as the string `s` (and it is not a sexagesimal
/// number, which the encoder quotes for other readers' sake).
pub fn reads_back_as_string(s: &str) -> bool {
    resolve_plain(s) == Plain::Str && s != "<<" && !is_timestamp(s) && !is_base60(s)
}

/// What the emitter's analysis of a scalar allows (block context only: flow collections are never
/// written with content).
#[derive(Debug, PartialEq, Eq)]
struct Analysis {
    plain: bool,
    single: bool,
    literal: bool,
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            plain: true,
            single: true,
            literal: false,
        };
    }
    // Letters, digits and base64's `+/=` anywhere allow every style: no indicator, space, break or
    // special character can be among them (long base64 data is all of this kind).
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    {
        return Analysis {
            plain: true,
            single: true,
            literal: true,
        };
    }
    analyze_chars(s)
}

/// [`analyze`] character by character, as libyaml does.
fn analyze_chars(s: &str) -> Analysis {
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut leading, mut trailing, mut break_space, mut space_break) =
        (false, false, false, false);
    let (mut special, mut line_breaks) = (false, false);
    let (mut prev_space, mut prev_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let n = chars.len();
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = chars.get(i + 1).is_none_or(|&n| n == ' ' || n == '\t');
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else if (c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace) {
            block_indicators = true;
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            leading |= i == 0;
            trailing |= i + 1 == n;
            break_space |= prev_break;
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading |= i == 0;
            trailing |= i + 1 == n;
            space_break |= prev_space;
            prev_space = false;
            prev_break = true;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break(c);
    }
    let trailing_space = chars.last() == Some(&' ');
    let mut a = Analysis {
        plain: !(leading || trailing || line_breaks || block_indicators),
        single: true,
        literal: !trailing_space,
    };
    if break_space {
        a.plain = false;
        a.single = false;
    }
    if space_break || special {
        a.plain = false;
        a.single = false;
        a.literal = false;
    }
    a
}

/// The style the emitter settles on for a scalar asked to be written in `style`.
fn select_style(s: &str, style: ScalarStyle, simple_key: bool) -> ScalarStyle {
    let a = analyze(s);
    let mut style = style;
    if style == ScalarStyle::Plain && (!a.plain || (s.is_empty() && simple_key)) {
        style = ScalarStyle::Single;
    }
    if style == ScalarStyle::Single && !a.single {
        style = ScalarStyle::Double;
    }
    if style == ScalarStyle::Literal && (!a.literal || simple_key) {
        style = ScalarStyle::Double;
    }
    style
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's printable set (as go-yaml v2 tests it on UTF-8 bytes): no control characters but the
/// newline, no surrogates, no byte-order mark, nothing past U+FFFD.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// The escape after `\` in a double-quoted scalar.
fn escape(c: char) -> String {
    let short = match c {
        '\0' => "0",
        '\u{7}' => "a",
        '\u{8}' => "b",
        '\t' => "t",
        '\n' => "n",
        '\u{B}' => "v",
        '\u{C}' => "f",
        '\r' => "r",
        '\u{1B}' => "e",
        '"' => "\"",
        '\\' => "\\",
        '\u{85}' => "N",
        '\u{A0}' => "_",
        '\u{2028}' => "L",
        '\u{2029}' => "P",
        _ => "",
    };
    if !short.is_empty() {
        return short.to_string();
    }
    let v = c as u32;
    if v <= 0xFF {
        format!("x{v:02X}")
    } else if v <= 0xFFFF {
        format!("u{v:04X}")
    } else {
        format!("U{v:08X}")
    }
}

#[cfg(test)]
#[path = "goyaml_tests.rs"]
mod tests;
