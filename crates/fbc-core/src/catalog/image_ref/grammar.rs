//! The distribution reference grammar, checked by hand byte by byte:
//!
//! ```text
//! reference  := name [ ":" tag ] [ "@" digest ]
//! name       := [ domain "/" ] component ( "/" component )*
//! domain     := host [ ":" [0-9]+ ]
//! host       := label ( "." label )* | "[" [a-fA-F0-9:]+ "]"
//! label      := [a-zA-Z0-9] | [a-zA-Z0-9] [a-zA-Z0-9-]* [a-zA-Z0-9]
//! component  := [a-z0-9]+ ( separator [a-z0-9]+ )*
//! separator  := "." | "_" | "__" | "-"+
//! tag        := [0-9A-Za-z_] [0-9A-Za-z_.-]{0,127}
//! digest     := algorithm ":" [0-9a-fA-F]{32,}
//! algorithm  := part ( [-_+.] part )*     part := [A-Za-z] [A-Za-z0-9]*
//! ```
//!
//! Where the parts of a reference begin is unambiguous: no part holds `@`, so the first `@` starts
//! the digest; a tag holds neither `/` nor `:`, and a name ends with a component, which holds no
//! `:`, so the last `:` after the last `/` starts the tag.

use memchr::{memchr, memrchr};

/// Byte classes, one bit each, looked up in [`CLASS`].
const LOWER_ALNUM: u8 = 1;
const ALNUM: u8 = 2;
const WORD: u8 = 4;
const TAG: u8 = 8;
const HEX: u8 = 16;
/// `[0-9a-f]`: a digest's encoding as the OCI digest library wants it.
pub(super) const LOWER_HEX: u8 = 32;
const UPPER: u8 = 64;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let (lower, upper, digit) = (
            c.is_ascii_lowercase(),
            c.is_ascii_uppercase(),
            c.is_ascii_digit(),
        );
        let mut k = 0;
        if lower || digit {
            k |= LOWER_ALNUM;
        }
        if lower || upper || digit {
            k |= ALNUM | WORD | TAG;
        }
        if c == b'_' {
            k |= WORD | TAG;
        }
        if c == b'.' || c == b'-' {
            k |= TAG;
        }
        if c.is_ascii_hexdigit() {
            k |= HEX;
        }
        if digit || (c >= b'a' && c <= b'f') {
            k |= LOWER_HEX;
        }
        if upper {
            k |= UPPER;
        }
        t[b] = k;
        b += 1;
    }
    t
};

fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}

/// Whether every byte of `bytes` is in `class`.
pub(super) fn all(bytes: &[u8], class: u8) -> bool {
    bytes.iter().fold(class, |acc, &b| acc & CLASS[b as usize]) == class
}

/// Whether some byte of `bytes` is an ASCII upper-case letter.
pub(super) fn any_upper(bytes: &[u8]) -> bool {
    bytes.iter().fold(0, |acc, &b| acc | CLASS[b as usize]) & UPPER != 0
}

/// `s` split into name, tag and digest when it is `name[:tag][@digest]` in the reference grammar.
pub(super) fn split(s: &str) -> Option<(&str, Option<&str>, Option<&str>)> {
    let (before, digest) = match memchr(b'@', s.as_bytes()) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    if digest.is_some_and(|d| !is_digest(d.as_bytes())) {
        return None;
    }
    let (name, tag) = split_tag(before);
    if tag.is_some_and(|t| !is_tag(t.as_bytes())) || !is_name(name.as_bytes()) {
        return None;
    }
    Some((name, tag, digest))
}

/// `name[:tag]` split at the tag's `:` (the last `:` after the last `/`).
fn split_tag(s: &str) -> (&str, Option<&str>) {
    let b = s.as_bytes();
    let last_slash = memrchr(b'/', b);
    match memrchr(b':', b) {
        Some(i) if last_slash.is_none_or(|l| i > l) => (&s[..i], Some(&s[i + 1..])),
        _ => (s, None),
    }
}

/// `name` split the way `^(?:(domain)/)?(path)$` captures it (the domain taken when it can be):
/// `None` when it is no name.
pub(super) fn split_name(name: &str) -> Option<(&str, &str)> {
    if let Some((first, rest)) = name.split_once('/')
        && is_domain(first.as_bytes())
        && is_path(rest.as_bytes())
    {
        return Some((first, rest));
    }
    is_path(name.as_bytes()).then_some(("", name))
}

fn is_name(name: &[u8]) -> bool {
    match memchr(b'/', name) {
        None => is_component(name),
        Some(i) => {
            let (first, rest) = (&name[..i], &name[i + 1..]);
            is_path(rest) && (is_component(first) || is_domain(first))
        }
    }
}

/// `component ("/" component)*`.
fn is_path(mut p: &[u8]) -> bool {
    loop {
        match memchr(b'/', p) {
            Some(i) => {
                if !is_component(&p[..i]) {
                    return false;
                }
                p = &p[i + 1..];
            }
            None => return is_component(p),
        }
    }
}

/// `[a-z0-9]+ (separator [a-z0-9]+)*`.
fn is_component(c: &[u8]) -> bool {
    let (Some(&first), Some(&last)) = (c.first(), c.last()) else {
        return false;
    };
    if !is(first, LOWER_ALNUM) || !is(last, LOWER_ALNUM) {
        return false;
    }
    // Every separator run lies between two alphanumerics (the last byte is one), so indexing past a
    // run stays inside `c`.
    let mut i = 1;
    while i < c.len() {
        if is(c[i], LOWER_ALNUM) {
            i += 1;
            continue;
        }
        match c[i] {
            b'.' => i += 1,
            b'_' => {
                i += 1;
                if c[i] == b'_' {
                    i += 1;
                }
            }
            b'-' => {
                while c[i] == b'-' {
                    i += 1;
                }
            }
            _ => return false,
        }
        if !is(c[i], LOWER_ALNUM) {
            return false;
        }
    }
    true
}

/// `host [":" [0-9]+]`.
fn is_domain(d: &[u8]) -> bool {
    let (host, port) = if d.first() == Some(&b'[') {
        let Some(close) = memchr(b']', d) else {
            return false;
        };
        let inner = &d[1..close];
        if inner.is_empty() || !inner.iter().all(|&c| is(c, HEX) || c == b':') {
            return false;
        }
        match d[close + 1..].split_first() {
            None => return true,
            Some((b':', port)) => (&d[..=close], Some(port)),
            Some(_) => return false,
        }
    } else {
        match memchr(b':', d) {
            Some(i) => (&d[..i], Some(&d[i + 1..])),
            None => (d, None),
        }
    };
    if port.is_some_and(|p| p.is_empty() || !p.iter().all(u8::is_ascii_digit)) {
        return false;
    }
    host.first() == Some(&b'[') || host.split(|&c| c == b'.').all(is_label)
}

/// A domain label: letters, digits and `-`, not starting or ending with `-`.
fn is_label(l: &[u8]) -> bool {
    match (l.first(), l.last()) {
        (Some(&f), Some(&e)) => {
            is(f, ALNUM) && is(e, ALNUM) && l.iter().all(|&c| is(c, ALNUM) || c == b'-')
        }
        _ => false,
    }
}

/// `[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}`.
fn is_tag(t: &[u8]) -> bool {
    match t.split_first() {
        Some((&f, rest)) => t.len() <= 128 && is(f, WORD) && all(rest, TAG),
        None => false,
    }
}

/// `algorithm ":" [0-9a-fA-F]{32,}`.
fn is_digest(d: &[u8]) -> bool {
    let Some(colon) = memchr(b':', d) else {
        return false;
    };
    let (alg, hex) = (&d[..colon], &d[colon + 1..]);
    hex.len() >= 32
        && all(hex, HEX)
        && alg
            .split(|&c| matches!(c, b'-' | b'_' | b'+' | b'.'))
            .all(|part| {
                part.split_first()
                    .is_some_and(|(&f, rest)| f.is_ascii_alphabetic() && all(rest, ALNUM))
            })
}
