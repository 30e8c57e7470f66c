//! YAML 1.1 scalar rules as opm applies them (go-yaml v2 resolution, then conversion to JSON), and a
//! scalar writer whose output reads back as the same string under those rules.
//!
//! Resolution of a plain (unquoted) scalar, in order:
//! 1. exact words: `y Y yes Yes YES on On ON true True TRUE` → `true`; the same with
//!    `n N no No NO off Off OFF false False FALSE` → `false`; `""`, `~`, `null`, `Null`, `NULL` → null;
//!    `.nan`, `.inf`, `-.inf` and their capitalised forms → not a finite number (opm fails on them);
//! 2. a scalar starting with a digit, `+` or `-`: with `_` removed, an integer in Go's base-prefix
//!    syntax (`010` octal, `0x1F`, `0o17`, `0b101`, optional sign), else a float matching
//!    `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`;
//! 3. a scalar starting with `.`: a float if Go's `ParseFloat` accepts it (`.5`, `.5e3`);
//! 4. anything else, including dates such as `2001-12-14` (kept as strings when read into untyped
//!    values), is a string.
//!
//! Numbers become JSON numbers written the way Go's JSON encoder writes them (`1.10` → `1.1`,
//! `1e3` → `1000`, `1e21` → `1e+21`).

/// What a plain scalar resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plain {
    Null,
    Bool(bool),
    /// An integer, as JSON number text.
    Int(String),
    /// A float, as JSON number text.
    Float(String),
    /// `.nan` / `.inf`: opm cannot convert these to JSON.
    NonFinite,
    /// The scalar stays the string it is.
    Str,
}

/// Quoting a writer should prefer for a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteStyle {
    Plain,
    Single,
    Double,
}

const TRUE_WORDS: [&str; 11] = [
    "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE",
];
const FALSE_WORDS: [&str; 11] = [
    "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
];

/// Resolves a plain scalar the way opm reads it.
pub fn resolve_plain(s: &str) -> Plain {
    if TRUE_WORDS.contains(&s) {
        return Plain::Bool(true);
    }
    if FALSE_WORDS.contains(&s) {
        return Plain::Bool(false);
    }
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Plain::Null,
        ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF"
        | "-.inf" | "-.Inf" | "-.INF" => return Plain::NonFinite,
        _ => {}
    }
    match s.as_bytes()[0] {
        b'0'..=b'9' | b'+' | b'-' => {
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Some(v) = parse_go_int(&plain) {
                return Plain::Int(v.to_string());
            }
            if is_yaml_float(&plain)
                && let Ok(f) = plain.parse::<f64>()
                && f.is_finite()
            {
                return Plain::Float(go_json_float(f));
            }
            Plain::Str
        }
        b'.' => match parse_go_float(s) {
            Some(f) if f.is_finite() => Plain::Float(go_json_float(f)),
            _ => Plain::Str,
        },
        _ => Plain::Str,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`, falling back to `ParseUint`: optional sign, then `0x`, `0o`, `0b`
/// or a leading `0` (octal) prefix.
fn parse_go_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = u128::from_str_radix(digits, radix).ok()?;
    if neg {
        (v <= 1u128 << 63).then(|| -(v as i128))
    } else {
        (v <= u64::MAX as u128).then_some(v as i128)
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat` for the decimal forms a scalar starting with `.` can take.
fn parse_go_float(s: &str) -> Option<f64> {
    let ok = s
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok {
        return None;
    }
    s.parse::<f64>().ok()
}

/// A float written as Go's JSON encoder writes it.
pub fn go_json_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let e = format!("{f:e}");
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        if exp < 0 {
            format!("{mantissa}e-{}", -exp)
        } else {
            format!("{mantissa}e+{exp:02}")
        }
    } else {
        format!("{f}")
    }
}

/// Whether `s`, written plain, would be read by opm as something other than this string.
pub fn is_yaml11_trap(s: &str) -> bool {
    resolve_plain(s) != Plain::Str
}

fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 8 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5].is_ascii_digit()
}

/// Whether `s` can be written without quotes and read back as the same string, in a block or a flow
/// collection, by opm and by YAML 1.2 readers.
pub fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if is_yaml11_trap(s) || looks_like_date(s) || s == "<<" || s == "=" {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) || first.is_whitespace() {
        return false;
    }
    if s.ends_with(char::is_whitespace) || s.ends_with(':') {
        return false;
    }
    if s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.contains([',', '[', ']', '{', '}']) {
        return false;
    }
    s.chars().all(|c| !needs_escape(c) && c != '\t')
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// Writes a string scalar so that it reads back as exactly `s`: plain when asked for and safe,
/// otherwise single-quoted when possible, otherwise double-quoted with escapes.
pub fn write_scalar_str(out: &mut String, s: &str, preferred: QuoteStyle) {
    if preferred == QuoteStyle::Plain && plain_is_safe(s) {
        out.push_str(s);
        return;
    }
    // Like opm's writer: strings that would read as another type get double quotes, strings that
    // need quotes for syntax get single quotes.
    let reads_as_other = is_yaml11_trap(s) || looks_like_date(s);
    let single_ok = !s.chars().any(needs_escape);
    let single = match preferred {
        QuoteStyle::Single => single_ok,
        QuoteStyle::Plain => single_ok && !reads_as_other,
        QuoteStyle::Double => false,
    };
    if single {
        out.push('\'');
        for c in s.chars() {
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
        }
        out.push('\'');
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let v = c as u32;
                if v <= 0xFF {
                    out.push_str(&format!("\\x{v:02X}"));
                } else {
                    out.push_str(&format!("\\u{v:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::node::Kind;
    use crate::catalog::yaml::{parse_chunk, split_documents};
    use proptest::prelude::*;

    fn int(s: &str) -> Plain {
        Plain::Int(s.into())
    }
    fn float(s: &str) -> Plain {
        Plain::Float(s.into())
    }

    #[test]
    fn resolves_like_opm() {
        let cases: Vec<(&str, Plain)> = vec![
            ("yes", Plain::Bool(true)),
            ("Yes", Plain::Bool(true)),
            ("YES", Plain::Bool(true)),
            ("y", Plain::Bool(true)),
            ("Y", Plain::Bool(true)),
            ("on", Plain::Bool(true)),
            ("On", Plain::Bool(true)),
            ("ON", Plain::Bool(true)),
            ("true", Plain::Bool(true)),
            ("True", Plain::Bool(true)),
            ("TRUE", Plain::Bool(true)),
            ("no", Plain::Bool(false)),
            ("n", Plain::Bool(false)),
            ("N", Plain::Bool(false)),
            ("off", Plain::Bool(false)),
            ("OFF", Plain::Bool(false)),
            ("false", Plain::Bool(false)),
            ("FALSE", Plain::Bool(false)),
            ("yEs", Plain::Str),
            ("tRUE", Plain::Str),
            ("", Plain::Null),
            ("~", Plain::Null),
            ("null", Plain::Null),
            ("Null", Plain::Null),
            ("NULL", Plain::Null),
            ("nULL", Plain::Str),
            ("1.10", float("1.1")),
            ("1.0", float("1")),
            ("010", int("8")),
            ("08", float("8")),
            ("0x1F", int("31")),
            ("0o17", int("15")),
            ("0b101", int("5")),
            ("-0b101", int("-5")),
            ("1_000", int("1000")),
            ("+1", int("1")),
            ("-0", int("0")),
            ("1e3", float("1000")),
            ("1E3", float("1000")),
            ("1e21", float("1e+21")),
            ("1e-7", float("1e-7")),
            ("1e400", Plain::Str),
            (".5", float("0.5")),
            ("1.", float("1")),
            ("18446744073709551615", int("18446744073709551615")),
            ("18446744073709551616", float("18446744073709552000")),
            (".inf", Plain::NonFinite),
            ("-.Inf", Plain::NonFinite),
            (".NaN", Plain::NonFinite),
            ("1.2.3", Plain::Str),
            ("v1", Plain::Str),
            ("2001-12-14", Plain::Str),
            ("<<", Plain::Str),
            ("=", Plain::Str),
            ("0x", Plain::Str),
            ("-", Plain::Str),
            (">=1.0.0 <2.0.0", Plain::Str),
        ];
        for (input, want) in cases {
            assert_eq!(resolve_plain(input), want, "{input:?}");
        }
    }

    #[test]
    fn traps_are_quoted() {
        for s in [
            "yes",
            "on",
            "NO",
            "off",
            "y",
            "n",
            "1.10",
            "010",
            "",
            "null",
            "2001-12-14",
            "<<",
        ] {
            let mut out = String::new();
            write_scalar_str(&mut out, s, QuoteStyle::Plain);
            assert!(out.starts_with(['\'', '"']), "{s:?} written as {out}");
        }
        let mut out = String::new();
        write_scalar_str(&mut out, "olm.channel", QuoteStyle::Plain);
        assert_eq!(out, "olm.channel");
    }

    fn read_back(scalar: &str) -> Option<String> {
        let text = format!("k: {scalar}\n");
        let (chunks, errs) = split_documents(&text, 0, 1);
        if !errs.is_empty() || chunks.len() != 1 {
            return None;
        }
        let node = parse_chunk(&text, chunks[0], 0).ok()?.node;
        match &node.get("k")?.kind {
            Kind::String(s) => s.as_inline().map(str::to_string),
            _ => None,
        }
    }

    fn tricky() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "yes",
                "no",
                "on",
                "off",
                "y",
                "n",
                "Y",
                "NO",
                "true",
                "null",
                "~",
                "1.10",
                "010",
                "0x1F",
                "1e3",
                ".inf",
                "<<",
                "2001-12-14",
                "- x",
                "a: b",
                "#x",
                " lead",
                "trail ",
                "",
                "'",
                "\"",
                "\n",
                "\t",
                "é ü",
                "a #b",
                "[x]",
                "{y}",
                "x,y",
                "*a",
                "&a",
                "!t",
                "%p",
                "@a",
                "`b",
                "|",
                ">",
                "---",
                "...",
                "?",
                ":",
                "a:",
                "\u{2028}",
                "\r\n",
                "\\",
                "=",
            ])
            .prop_map(String::from),
            "\\PC{0,20}",
            "[ -~\n\t]{0,20}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

        #[test]
        fn every_written_string_reads_back_the_same(
            a in tricky(),
            b in tricky(),
            style in prop::sample::select(vec![QuoteStyle::Plain, QuoteStyle::Single, QuoteStyle::Double]),
        ) {
            let s = format!("{a}{b}");
            let mut out = String::new();
            write_scalar_str(&mut out, &s, style);
            prop_assert_eq!(read_back(&out), Some(s.clone()), "written as {}", out);
        }
    }
}
