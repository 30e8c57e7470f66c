//! YAML 1.1 scalar rules as opm applies them (go-yaml v2 resolution, then conversion to JSON through
//! sigs.k8s.io/yaml), and a scalar writer whose output reads back as the same string under those
//! rules and under YAML 1.2.
//!
//! Resolution of a plain (unquoted) scalar, by its first byte:
//! 1. a fixed table, tried for every scalar whose first byte is one of `yYnNtTfFoO~.+-` or a digit
//!    (and for the empty scalar): `y Y yes Yes YES on On ON true True TRUE` → `true`;
//!    `n N no No NO off Off OFF false False FALSE` → `false`; `""`, `~`, `null`, `Null`, `NULL` →
//!    null; `.nan`, `.inf`, `+.inf`, `-.inf` in lower, capitalised and upper case → not a finite
//!    number (opm fails on them: JSON has no such numbers). Other spellings (`yEs`, `NaN`, `inf`,
//!    `+.nan`) are strings.
//! 2. first byte a digit, `+` or `-`: with every `_` removed, an integer in Go's base-prefix syntax
//!    (optional sign, then `0x`/`0X`, `0o`/`0O`, `0b`/`0B`, or a leading `0` for octal: `010` is 8),
//!    signed 64-bit, or unsigned 64-bit when written without a sign; else a float matching
//!    `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` that does not overflow (`08` is the
//!    float 8, `1e400` stays a string); else, for a scalar starting with `0b`, the rest read as a
//!    signed base-2 integer, so `0b-101` is -5.
//! 3. first byte `.`: a float when Go's `ParseFloat` accepts the scalar as written (`.5`, `.5e3`,
//!    `.5_5` with underscores between digits).
//! 4. anything else is a string. That includes dates and times (`2001-12-14`): go-yaml v2 resolves
//!    them as timestamps but hands untyped values back as the original text; sexagesimal numbers
//!    (`190:20:30`), which go-yaml v2 leaves unsupported on purpose; `=`; and `<<`, which is only
//!    special as a plain mapping key, where it merges another mapping in.
//!
//! Numbers become JSON numbers written the way Go's JSON encoder writes them: integers in decimal,
//! floats in their shortest round-trip form, with an exponent below 1e-6 or from 1e21 up (`1.10` →
//! `1.1`, `1e3` → `1000`, `1e21` → `1e+21`, `1e-7` → `1e-7`).
//!
//! Keys are converted further by opm's YAML-to-JSON step (booleans to `true`/`false`, integers to
//! decimal, floats through 32-bit `%g` formatting, null and unsigned keys rejected); that is left to
//! the reader of mappings.

use crate::text::escape::{write_yaml_double_quoted, write_yaml_single_quoted, yaml_needs_escape};

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

/// Resolves a plain scalar the way opm reads it.
pub fn resolve_plain(s: &str) -> Plain {
    let Some(&first) = s.as_bytes().first() else {
        return Plain::Null;
    };
    let numeric = first.is_ascii_digit() || first == b'+' || first == b'-';
    if !(numeric || first == b'.' || b"yYnNtTfFoO~".contains(&first)) {
        return Plain::Str;
    }
    if let Some(p) = lookup_word(s) {
        return p;
    }
    if numeric {
        resolve_number(s)
    } else if first == b'.' {
        match parse_dot_float(s) {
            Some(f) => Plain::Float(go_json_float(f)),
            None => Plain::Str,
        }
    } else {
        Plain::Str
    }
}

fn lookup_word(s: &str) -> Option<Plain> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            Plain::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            Plain::Bool(false)
        }
        "~" | "null" | "Null" | "NULL" => Plain::Null,
        ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF"
        | "-.inf" | "-.Inf" | "-.INF" => Plain::NonFinite,
        _ => return None,
    })
}

/// Step 2 of the resolution, for scalars starting with a digit or a sign. (Timestamps are tried
/// first by go-yaml v2, but a scalar with a `-` after four digits can never be a number, so they
/// end up as strings either way.)
fn resolve_number(s: &str) -> Plain {
    if surely_not_number(s) {
        return Plain::Str;
    }
    read_number(s)
}

/// [`resolve_number`] without its quick refusal.
fn read_number(s: &str) -> Plain {
    let plain: String = s.chars().filter(|&c| c != '_').collect();
    if let Some(v) = parse_int_base0(&plain) {
        return Plain::Int(v.to_string());
    }
    if let Some(v) = parse_uint_base0(&plain) {
        return Plain::Int(v.to_string());
    }
    if is_yaml_float(&plain) {
        return match plain.parse::<f64>() {
            Ok(f) if f.is_finite() => Plain::Float(go_json_float(f)),
            _ => Plain::Str,
        };
    }
    // A last chance for `0b`: the rest is read as a signed base-2 number, sign included.
    if let Some(rest) = plain.strip_prefix("0b") {
        let (neg, digits) = split_sign(rest);
        if let Some(v) = parse_digits(digits, 2) {
            if let Some(v) = signed(neg, v) {
                return Plain::Int(v.to_string());
            }
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                return Plain::Int(v.to_string());
            }
        }
    }
    Plain::Str
}

/// Whether `s` cannot be a number of any base or form [`resolve_number`] reads, seen in one pass
/// without allocating: it holds a byte no number has (so `1.0.0-rc1`'s `r`), or two dots (versions
/// such as `1.2.3`; a float has one, an integer none).
fn surely_not_number(s: &str) -> bool {
    let mut dots = 0;
    for &b in s.as_bytes() {
        match b {
            b'.' => dots += 1,
            b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' | b'_' | b'+' | b'-' => {}
            b'x' | b'X' | b'o' | b'O' => {}
            _ => return true,
        }
    }
    dots > 1
}

fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

/// An unsigned magnitude with a sign, when it fits a signed 64-bit integer.
fn signed(neg: bool, v: u64) -> Option<i64> {
    if neg {
        if v <= 1 << 63 {
            Some(0i64.wrapping_sub_unsigned(v))
        } else {
            None
        }
    } else {
        i64::try_from(v).ok()
    }
}

/// Digits of `radix` only (no sign, no separator), at least one, fitting 64 bits.
fn parse_digits(digits: &str, radix: u32) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        v = v.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// Go's `strconv.ParseUint(s, 0, 64)` on text without underscores: no sign; `0b`, `0o`, `0x`
/// (either case) with at least one digit after them, or a leading `0` for octal.
fn parse_uint_base0(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.first() != Some(&b'0') {
        return parse_digits(s, 10);
    }
    if b.len() >= 3 {
        match b[1].to_ascii_lowercase() {
            b'b' => return parse_digits(&s[2..], 2),
            b'o' => return parse_digits(&s[2..], 8),
            b'x' => return parse_digits(&s[2..], 16),
            _ => {}
        }
    }
    if b.len() == 1 {
        return Some(0);
    }
    parse_digits(&s[1..], 8)
}

/// Go's `strconv.ParseInt(s, 0, 64)` on text without underscores.
fn parse_int_base0(s: &str) -> Option<i64> {
    let (neg, body) = split_sign(s);
    signed(neg, parse_uint_base0(body)?)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
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

/// Go's `strconv.ParseFloat(s, 64)` for a scalar starting with `.`: `.` then digits (at least one)
/// with an optional exponent; `_` is allowed between two digits. Overflow is a failure.
fn parse_dot_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 1;
    let run = |i: &mut usize| {
        let mut n = 0;
        while *i < b.len() && (b[*i].is_ascii_digit() || b[*i] == b'_') {
            n += usize::from(b[*i] != b'_');
            *i += 1;
        }
        n
    };
    if b.first() != Some(&b'.') || run(&mut i) == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        run(&mut i);
    }
    if i != b.len() {
        return None;
    }
    let separators_ok = b.iter().enumerate().all(|(k, &c)| {
        c != b'_'
            || (k > 0 && b[k - 1].is_ascii_digit() && b.get(k + 1).is_some_and(u8::is_ascii_digit))
    });
    if !separators_ok {
        return None;
    }
    let f: f64 = s.replace('_', "").parse().ok()?;
    f.is_finite().then_some(f)
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

/// Whether `s`, written plain, would be read by opm as something other than this string: a null, a
/// boolean or a number, or `<<`, which as a mapping key merges another mapping in.
pub fn is_yaml11_trap(s: &str) -> bool {
    s == "<<" || resolve_plain(s) != Plain::Str
}

/// Scalars go-yaml v2 resolves as timestamps (read back as strings, but quoted by opm's writer and
/// read as dates by other YAML 1.1 readers): four digits, `-`, a digit, at least eight characters.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 8 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5].is_ascii_digit()
}

/// YAML 1.1 sexagesimal numbers, `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?`. go-yaml v2 reads
/// them as strings, other YAML 1.1 readers as numbers; opm's writer quotes them.
pub(crate) fn is_base60(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 2 {
            i += 1;
        }
        match &b[start..i] {
            [_] => {}
            [tens, _] if *tens <= b'5' => {}
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// Whether `s` can be written without quotes and read back as the same string by opm and by YAML 1.2
/// readers, as a mapping key or value, a sequence item or a whole document, in block style or inside
/// a flow collection.
pub fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if is_yaml11_trap(s) || looks_like_timestamp(s) || is_base60(s) || s == "=" {
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
    // Inside a flow collection go-yaml v2 ends a plain scalar at any of `,?[]{}`.
    if s.contains(": ") || s.contains(" #") || s.contains([',', '?', '[', ']', '{', '}']) {
        return false;
    }
    // A `-` after a blank, last in the scalar, is followed by `,` or `]` in a flow collection, which
    // this crate's own reader takes for the start of a new, invalid scalar (go-yaml does not).
    if let Some(rest) = s.strip_suffix('-')
        && rest.ends_with(char::is_whitespace)
    {
        return false;
    }
    !s.chars().any(yaml_needs_escape)
}

/// Writes a string scalar so that it reads back as exactly `s`: plain when asked for and safe,
/// otherwise single-quoted when asked for (or plain was) and possible, otherwise double-quoted with
/// escapes. Like opm's writer, a string that would read as another value when plain (`"yes"`,
/// `"1.10"`, `"2001-12-14"`) gets double quotes when plain was asked for.
pub fn write_scalar_str(out: &mut String, s: &str, preferred: QuoteStyle) {
    if preferred == QuoteStyle::Plain && plain_is_safe(s) {
        out.push_str(s);
        return;
    }
    let reads_as_other = is_yaml11_trap(s) || looks_like_timestamp(s) || is_base60(s);
    let single_ok = !s.chars().any(yaml_needs_escape);
    let single = match preferred {
        QuoteStyle::Single => single_ok,
        QuoteStyle::Plain => single_ok && !reads_as_other,
        QuoteStyle::Double => false,
    };
    if single {
        write_yaml_single_quoted(out, s);
    } else {
        write_yaml_double_quoted(out, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use saphyr_parser::{Event, Parser, ScalarStyle};

    #[test]
    fn versions_and_words_are_refused_at_once_and_numbers_are_not() {
        for s in [
            "1.2.3",
            "0.0.1-rc.1",
            "4.18.0+build",
            "1.0.0-beta",
            "1.2.x",
            "3.1-ga",
        ] {
            assert!(surely_not_number(s), "{s}");
            assert_eq!(resolve_plain(s), Plain::Str, "{s}");
        }
        for s in [
            "1.10", "010", "0x1F", "0o17", "0b101", "-1_000", "+.5", "1e3", "1.", "12",
        ] {
            assert!(!surely_not_number(s), "{s}");
            assert_ne!(resolve_plain(s), Plain::Str, "{s}");
        }
    }

    fn int(s: &str) -> Plain {
        Plain::Int(s.into())
    }
    fn float(s: &str) -> Plain {
        Plain::Float(s.into())
    }

    #[test]
    fn resolves_like_opm() {
        let t = Plain::Bool(true);
        let f = Plain::Bool(false);
        let cases: Vec<(&str, Plain)> = vec![
            // Booleans: exactly these spellings.
            ("y", t.clone()),
            ("Y", t.clone()),
            ("yes", t.clone()),
            ("Yes", t.clone()),
            ("YES", t.clone()),
            ("on", t.clone()),
            ("On", t.clone()),
            ("ON", t.clone()),
            ("true", t.clone()),
            ("True", t.clone()),
            ("TRUE", t.clone()),
            ("n", f.clone()),
            ("N", f.clone()),
            ("no", f.clone()),
            ("No", f.clone()),
            ("NO", f.clone()),
            ("off", f.clone()),
            ("Off", f.clone()),
            ("OFF", f.clone()),
            ("false", f.clone()),
            ("False", f.clone()),
            ("FALSE", f.clone()),
            ("yEs", Plain::Str),
            ("oN", Plain::Str),
            ("tRUE", Plain::Str),
            ("t", Plain::Str),
            ("f", Plain::Str),
            // Nulls.
            ("", Plain::Null),
            ("~", Plain::Null),
            ("null", Plain::Null),
            ("Null", Plain::Null),
            ("NULL", Plain::Null),
            ("nULL", Plain::Str),
            ("~~", Plain::Str),
            // Integers.
            ("0", int("0")),
            ("00", int("0")),
            ("010", int("8")),
            ("-010", int("-8")),
            ("0x1F", int("31")),
            ("0X1f", int("31")),
            ("-0x1F", int("-31")),
            ("+0x1F", int("31")),
            ("0o17", int("15")),
            ("0O17", int("15")),
            ("0b101", int("5")),
            ("0B101", int("5")),
            ("-0b101", int("-5")),
            ("0b-101", int("-5")),
            ("0b+101", int("5")),
            ("0B-101", Plain::Str),
            ("1_000", int("1000")),
            ("1__0", int("10")),
            ("1_", int("1")),
            ("0x_1F", int("31")),
            ("_1", Plain::Str),
            ("+1", int("1")),
            ("-0", int("0")),
            ("-9223372036854775808", int("-9223372036854775808")),
            ("9223372036854775807", int("9223372036854775807")),
            ("18446744073709551615", int("18446744073709551615")),
            ("0xFFFFFFFFFFFFFFFF", int("18446744073709551615")),
            // Integers out of range fall back to floats when they look like one.
            ("18446744073709551616", float("18446744073709552000")),
            ("+18446744073709551615", float("18446744073709552000")),
            ("-9223372036854775809", float("-9223372036854776000")),
            ("0x10000000000000000", Plain::Str),
            ("0x", Plain::Str),
            ("0b", Plain::Str),
            ("0b2", Plain::Str),
            ("08", float("8")),
            ("09.5", float("9.5")),
            ("0o8", Plain::Str),
            // Floats.
            ("1.10", float("1.1")),
            ("1.0", float("1")),
            ("1.", float("1")),
            ("-0.0", float("-0")),
            ("+1.5", float("1.5")),
            ("1e3", float("1000")),
            ("1E3", float("1000")),
            ("1e+3", float("1000")),
            ("1_e3", float("1000")),
            ("1_000.5", float("1000.5")),
            ("1e21", float("1e+21")),
            ("1e20", float("100000000000000000000")),
            ("1e-6", float("0.000001")),
            ("1e-7", float("1e-7")),
            ("1.5e-10", float("1.5e-10")),
            ("-1.5e300", float("-1.5e+300")),
            ("123456789012345678901234", float("1.2345678901234569e+23")),
            ("1e400", Plain::Str),
            ("1e-400", float("0")),
            (".5", float("0.5")),
            ("+.5", float("0.5")),
            ("-.5", float("-0.5")),
            (".5e3", float("500")),
            (".5E-1", float("0.05")),
            (".5_5", float("0.55")),
            (".5e1_0", float("5000000000")),
            ("._5", Plain::Str),
            (".5_", Plain::Str),
            (".5__5", Plain::Str),
            (".e3", Plain::Str),
            ("..5", Plain::Str),
            (".5.5", Plain::Str),
            (".1e400", Plain::Str),
            ("1e", Plain::Str),
            ("1e+", Plain::Str),
            ("0x1p3", Plain::Str),
            // Not finite.
            (".inf", Plain::NonFinite),
            (".Inf", Plain::NonFinite),
            ("+.INF", Plain::NonFinite),
            ("-.Inf", Plain::NonFinite),
            (".nan", Plain::NonFinite),
            (".NaN", Plain::NonFinite),
            (".NAN", Plain::NonFinite),
            (".iNf", Plain::Str),
            ("+.nan", Plain::Str),
            ("inf", Plain::Str),
            ("-inf", Plain::Str),
            ("NaN", Plain::Str),
            // Strings.
            ("1.2.3", Plain::Str),
            ("v1", Plain::Str),
            ("v1.0.0", Plain::Str),
            ("2001-12-14", Plain::Str),
            ("2001-12-14T21:59:43.10Z", Plain::Str),
            ("190:20:30", Plain::Str),
            ("-", Plain::Str),
            ("+", Plain::Str),
            ("=", Plain::Str),
            ("<<", Plain::Str),
            ("1,000", Plain::Str),
            ("1 000", Plain::Str),
            (">=1.0.0 <2.0.0", Plain::Str),
            ("olm.channel", Plain::Str),
            ("yes please", Plain::Str),
        ];
        assert!(cases.len() >= 40);
        for (input, want) in cases {
            assert_eq!(resolve_plain(input), want, "{input:?}");
        }
    }

    #[test]
    fn traps() {
        for s in ["yes", "Off", "~", "", "1.10", "0x1F", ".inf", "<<", "0b-1"] {
            assert!(is_yaml11_trap(s), "{s:?}");
        }
        for s in ["2001-12-14", "190:20:30", "=", "v1", "1.2.3", "NaN", "yEs"] {
            assert!(!is_yaml11_trap(s), "{s:?}");
        }
    }

    #[test]
    fn sexagesimal() {
        for s in ["190:20:30", "-1:20", "+1_0:5:59.5_", "1:2", "1:59."] {
            assert!(is_base60(s), "{s:?}");
        }
        for s in [
            "1:60", "1:", ":1", "1:2:", "a1:2", "1:2:3a", "1:123", "1:2.3.4",
        ] {
            assert!(!is_base60(s), "{s:?}");
        }
    }

    fn written(s: &str, q: QuoteStyle) -> String {
        let mut out = String::new();
        write_scalar_str(&mut out, s, q);
        out
    }

    #[test]
    fn writes_like_opm() {
        use QuoteStyle::{Double, Plain as P, Single};
        let cases = [
            ("olm.channel", P, "olm.channel"),
            ("quay.io/x/y@sha256:0abc", P, "quay.io/x/y@sha256:0abc"),
            (">=1.0.0 <2.0.0", P, "'>=1.0.0 <2.0.0'"),
            ("it's", P, "it's"),
            ("a#b", P, "a#b"),
            ("1.2.3", P, "1.2.3"),
            ("yes", P, "\"yes\""),
            ("1.10", P, "\"1.10\""),
            ("", P, "\"\""),
            ("", Single, "''"),
            ("2001-12-14", P, "\"2001-12-14\""),
            ("190:20:30", P, "\"190:20:30\""),
            ("<<", P, "\"<<\""),
            ("=", P, "'='"),
            ("a: b", P, "'a: b'"),
            ("a, b", P, "'a, b'"),
            ("x?y", P, "'x?y'"),
            ("- x", P, "'- x'"),
            (" lead", P, "' lead'"),
            ("it's", Single, "'it''s'"),
            ("yes", Single, "'yes'"),
            ("a\nb", Single, "\"a\\nb\""),
            ("tab\there", P, "\"tab\\there\""),
            ("q\"b\\", Double, "\"q\\\"b\\\\\""),
            (
                "\u{7}\u{85}\u{2028}\u{FEFF}",
                Double,
                "\"\\u0007\\u0085\\u2028\\uFEFF\"",
            ),
            ("é ü ✓", P, "é ü ✓"),
        ];
        for (s, q, want) in cases {
            assert_eq!(written(s, q), want, "{s:?} {q:?}");
        }
    }

    /// The scalars of a YAML text, with their styles, as a YAML 1.2 reader sees them.
    fn scalars(text: &str) -> Result<Vec<(String, ScalarStyle)>, TestCaseError> {
        let mut parser = Parser::new_from_str(text);
        let mut out = Vec::new();
        while let Some(ev) = parser.next_event() {
            let (ev, _) = ev.map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
            if let Event::Scalar(v, style, _, tag) = ev {
                if tag.is_some() {
                    return Err(TestCaseError::fail(format!(
                        "{text:?}: unexpected tag on {v:?}"
                    )));
                }
                out.push((v.into_owned(), style));
            }
        }
        Ok(out)
    }

    /// The string a scalar stands for under opm's rules (`None` when it is not a string).
    fn as_string((v, style): &(String, ScalarStyle)) -> Option<String> {
        match style {
            ScalarStyle::Plain => (resolve_plain(v) == Plain::Str && v != "<<").then(|| v.clone()),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => Some(v.clone()),
            _ => None,
        }
    }

    /// Reads `written` back from every place a writer puts a scalar; `Err` names the first failure.
    fn check_read_back(s: &str, written: &str) -> Result<(), TestCaseError> {
        if written.contains(['\n', '\r']) {
            return Err(TestCaseError::fail("scalar spans lines"));
        }
        // (document, positions of the written scalar, scalars in all)
        let places: [(String, &[usize], usize); 8] = [
            (format!("k: {written}\n"), &[1], 2),
            (format!("{written}: v\n"), &[0], 2),
            (format!("- {written}\n"), &[0], 1),
            (format!("{written}\n"), &[0], 1),
            (format!("a:\n  b: {written}\n  c: d\n"), &[2], 5),
            (format!("k: [{written}, x]\n"), &[1], 3),
            (format!("k: {{{written}: v, x: {written}}}\n"), &[1, 4], 5),
            (format!("[{written}]\n"), &[0], 1),
        ];
        for (doc, at, count) in places {
            let got = scalars(&doc)?;
            if got.len() != count {
                return Err(TestCaseError::fail(format!("{doc:?}: read {got:?}")));
            }
            for &i in at {
                if as_string(&got[i]).as_deref() != Some(s) {
                    return Err(TestCaseError::fail(format!("{doc:?}: read {:?}", got[i])));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn fixed_strings_read_back() {
        for s in [
            "yes",
            "no",
            "y",
            "n",
            "~",
            "",
            "1.10",
            "010",
            "<<",
            "=",
            "- x",
            "yes -",
            "a -",
            "a - b",
            "a -b",
            "a-",
            "a: b",
            "#x",
            "a #b",
            " lead",
            "trail ",
            "'",
            "\"",
            "\n",
            "\t",
            "\r\n",
            "\\",
            "---",
            "...",
            "--- x",
            "?",
            ":",
            "a:",
            "x?y",
            "a,b",
            "[x]",
            "{y}",
            "*a",
            "&a",
            "!t",
            "%p",
            "@a",
            "`b",
            "|",
            ">",
            "\u{85}",
            "\u{2028}",
            "\u{FEFF}x",
            "\u{FFFE}",
            "\u{0}",
            "é",
            "\u{A0}lead",
        ] {
            for q in [QuoteStyle::Plain, QuoteStyle::Single, QuoteStyle::Double] {
                let w = written(s, q);
                if let Err(e) = check_read_back(s, &w) {
                    panic!("{s:?} written as {w}: {e}");
                }
            }
        }
    }

    /// go-yaml v2 refuses input characters outside YAML 1.1's printable set, and folds its line
    /// breaks (which include U+0085, U+2028 and U+2029) in plain and single-quoted scalars; YAML 1.2
    /// readers do not, so the read-back tests above cannot see these.
    #[test]
    fn output_is_printable_and_single_line_for_yaml11() {
        let printable = |c: char| matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..);
        let is_break = |c: char| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let s = format!("a{c}b");
            for q in [QuoteStyle::Plain, QuoteStyle::Single, QuoteStyle::Double] {
                let w = written(&s, q);
                assert!(w.chars().all(printable), "{s:?} written as {w:?}");
                assert!(!w.contains(is_break), "{s:?} written as {w:?}");
                if !w.starts_with('"') {
                    assert!(!w.contains('\t'), "{s:?} written as {w:?}");
                }
            }
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
                "N",
                "NO",
                "Off",
                "true",
                "False",
                "null",
                "Null",
                "~",
                "1.10",
                "1.0",
                "010",
                "08",
                "0x1F",
                "0o17",
                "0b101",
                "1_000",
                "1e3",
                ".5",
                "-.5",
                "+1",
                "-0",
                ".inf",
                "-.Inf",
                ".nan",
                "<<",
                "=",
                "2001-12-14",
                "190:20:30",
                "1.2.3",
                "v1",
                "- x",
                "-x",
                "a: b",
                "a:b",
                "a:",
                ":",
                "?",
                "? x",
                "#x",
                "a #b",
                "a#b",
                " lead",
                "trail ",
                " ",
                "",
                "'",
                "''",
                "\"",
                "\\",
                "\n",
                "\n\n",
                "\t",
                "\r",
                "\r\n",
                "é ü",
                "✓",
                "😀",
                "\u{A0}",
                "\u{85}",
                "\u{2028}",
                "\u{2029}",
                "\u{FEFF}",
                "\u{FFFE}",
                "\u{FFFF}",
                "\u{0}",
                "\u{7F}",
                "\u{9F}",
                "[x]",
                "{y}",
                "x,y",
                ",",
                "*a",
                "&a",
                "!t",
                "!!str",
                "%p",
                "@a",
                "`b",
                "|",
                ">",
                "---",
                "...",
                "--- x",
                "... x",
                "%YAML 1.1",
            ])
            .prop_map(String::from),
            "\\PC{0,12}",
            "[ -~\n\t]{0,12}",
            prop::collection::vec(any::<char>(), 0..6).prop_map(|v| v.into_iter().collect()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, .. ProptestConfig::default() })]

        #[test]
        fn every_written_string_reads_back_the_same(
            a in tricky(),
            b in tricky(),
            c in tricky(),
            style in prop::sample::select(vec![QuoteStyle::Plain, QuoteStyle::Single, QuoteStyle::Double]),
        ) {
            let s = format!("{a}{b}{c}");
            let w = written(&s, style);
            if let Err(e) = check_read_back(&s, &w) {
                return Err(TestCaseError::fail(format!("{s:?} written as {w}: {e}")));
            }
            if style == QuoteStyle::Plain && !w.starts_with(['\'', '"']) {
                prop_assert!(plain_is_safe(&s));
            }
        }

        #[test]
        fn resolution_is_total_and_numbers_are_json(s in tricky()) {
            match resolve_plain(&s) {
                Plain::Int(n) | Plain::Float(n) => {
                    let v: serde_json::Value = serde_json::from_str(&n).unwrap();
                    prop_assert!(v.is_number(), "{:?} gave {}", s, n);
                }
                _ => {}
            }
            prop_assert!(!(is_yaml11_trap(&s) && plain_is_safe(&s)));
        }

        #[test]
        fn the_quick_refusal_refuses_only_what_is_no_number(
            s in prop_oneof![
                "[-+]?[0-9_.]{1,10}",
                "[-+]?0[bBoOxX][0-9a-fA-F_.]{0,8}",
                "[-+]?[0-9.]{1,6}[eE][-+]?[0-9]{1,3}",
                "[0-9a-fA-FxXoO_+.eE -]{1,12}",
                "[0-9][ -~]{0,10}",
            ],
        ) {
            if surely_not_number(&s) {
                prop_assert_eq!(read_number(&s), Plain::Str, "{:?}", s);
            }
        }

        #[test]
        fn numbers_match_rust_parsing(n in any::<i64>(), f in any::<f64>()) {
            prop_assert_eq!(resolve_plain(&n.to_string()), Plain::Int(n.to_string()));
            if f.is_finite() {
                let text = format!("{f:e}");
                let Plain::Float(got) = resolve_plain(&text) else {
                    return Err(TestCaseError::fail(format!("{text} is not a float")));
                };
                prop_assert_eq!(got.parse::<f64>().unwrap(), f);
            }
        }
    }
}
