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
    // Every word that reads as a boolean or null is at most five bytes long.
    if !(numeric || first == b'.' || s.len() <= 5 && b"yYnNtTfFoO~".contains(&first)) {
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
#[path = "yaml11_tests.rs"]
mod tests;
