//! Every string escaper in one place: each writes a string as a quoted literal that its reader turns
//! back into exactly that string.
//!
//! | dialect | function | used for |
//! | --- | --- | --- |
//! | Go `encoding/json` | [`write_json_string`] | catalog JSON, bundle objects, opm's output |
//! | Go `%q` | [`go_quote`] | names in messages, as opm prints them; Mermaid labels |
//! | YAML single-quoted | [`write_yaml_single_quoted`] | YAML scalars that need quotes but no escapes |
//! | YAML double-quoted | [`write_yaml_double_quoted`] | YAML scalars with line breaks or control characters |
//! | Graphviz DOT | [`dot_string`] | DOT identifiers and labels |

use std::fmt::Write as _;

/// Writes `s` as a JSON string the way Go's encoder does: `\b \f \n \r \t` short, other control
/// characters as `\u00xx`, U+2028 and U+2029 always escaped, `<>&` escaped when `escape_html`.
pub fn write_json_string(out: &mut String, s: &str, escape_html: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    // Runs of bytes that need no escape are copied whole; only the bytes that do are looked at
    // one by one (every one of them is ASCII, or the first byte of U+2028 / U+2029).
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none of them is one to look at.
        if let Some(word) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            if !needs_a_look(word, escape_html) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let plain = match b {
            b'"' | b'\\' => false,
            b'<' | b'>' | b'&' => !escape_html,
            0xE2 => {
                !(bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)))
            }
            _ => b >= 0x20,
        };
        if plain {
            i += 1;
            continue;
        }
        out.push_str(&s[start..i]);
        let c = s[i..].chars().next().unwrap_or_default();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
        i += c.len_utf8();
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Whether any of the eight bytes of `word` may need an escape: a control character, `"`, `\`,
/// the first byte of U+2028 / U+2029, or (when `escape_html`) `<`, `>`, `&`. Exact: a word it
/// passes holds only bytes [`write_json_string`] copies as they are.
fn needs_a_look(word: u64, escape_html: bool) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Whether some byte is zero, or below `n` (n ≤ 128): exact for the word as a whole.
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    let has_below = |n: u64| word.wrapping_sub(ONES * n) & !word & HIGHS != 0;
    let has = |b: u8| has_zero(word ^ (ONES * u64::from(b)));
    has_below(0x20)
        || has(b'"')
        || has(b'\\')
        || has(0xE2)
        || (escape_html && (has(b'<') || has(b'>') || has(b'&')))
}

/// Go's `%q`: a double-quoted string with Go escapes.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters that are line breaks or not printable for some YAML reader: they can only be written
/// escaped, inside double quotes. (Tab is among them: it is kept out of plain and single-quoted
/// scalars.)
pub fn yaml_needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
        )
}

/// Writes `s` single-quoted (`'` doubled). Only for strings without [`yaml_needs_escape`] characters.
pub fn write_yaml_single_quoted(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push('\'');
        }
        out.push(c);
    }
    out.push('\'');
}

/// Writes `s` double-quoted with YAML escapes: `\" \\ \n \t \r`, and `\uXXXX` for the other
/// characters that need escaping.
pub fn write_yaml_double_quoted(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if yaml_needs_escape(c) => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A DOT string literal (other control characters than newline are dropped).
pub fn dot_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's rules one character at a time, for comparison.
    fn json_by_chars(s: &str, escape_html: bool) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '<' | '>' | '&' if escape_html => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn json_strings_escape_what_go_escapes_wherever_it_falls() {
        let specials = [
            "\"", "\\", "\n", "\u{1}", "\u{1f}", "<", ">", "&", "\u{2028}", "\u{2029}", "\u{2027}",
            "\u{e200}", "é", "€", "\u{7f}", " ", "~",
        ];
        for special in specials {
            for before in 0..17 {
                for after in [0, 1, 7, 8, 9] {
                    let s = format!("{}{special}{}", "a".repeat(before), "b".repeat(after));
                    for html in [false, true] {
                        let mut out = String::new();
                        write_json_string(&mut out, &s, html);
                        assert_eq!(out, json_by_chars(&s, html), "{s:?} html={html}");
                    }
                }
            }
        }
    }

    #[test]
    fn go_strings() {
        let mut s = String::new();
        write_json_string(&mut s, "a<b>&\u{1}\u{8}\u{2028}é", true);
        assert_eq!(s, r#""a\u003cb\u003e\u0026\u0001\b\u2028é""#);
    }

    /// Go's rules applied one character at a time, as the writer did before it copied runs.
    fn one_by_one(s: &str, escape_html: bool) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '<' | '>' | '&' if escape_html => out.push_str(&format!("\\u{:04x}", c as u32)),
                c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    proptest::proptest! {
        #[test]
        fn runs_are_escaped_as_each_character_is(
            s in "([\\x00-\\x7f]|[\u{2020}-\u{2030}]|\u{e2}|é|\u{10348}){0,40}",
            html: bool,
        ) {
            let mut out = String::new();
            write_json_string(&mut out, &s, html);
            proptest::prop_assert_eq!(out, one_by_one(&s, html));
        }
    }

    #[test]
    fn go_quote_escapes_like_fmt_q() {
        assert_eq!(
            go_quote("a\"b\\\u{7}\u{1}\u{7f}\u{85}é"),
            r#""a\"b\\\a\x01\x7f\u0085é""#
        );
    }

    #[test]
    fn yaml_quotes_read_back() {
        let mut s = String::new();
        write_yaml_single_quoted(&mut s, "it's");
        assert_eq!(s, "'it''s'");
        let mut s = String::new();
        write_yaml_double_quoted(&mut s, "a\"\\\n\t\u{1}\u{2028}");
        assert_eq!(s, r#""a\"\\\n\t\u0001\u2028""#);
    }

    #[test]
    fn dot_drops_control_characters() {
        assert_eq!(dot_string("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd""#);
    }
}
