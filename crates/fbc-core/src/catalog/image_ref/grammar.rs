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

/// Whether `s` is `name[:tag][@digest]` in the reference grammar.
pub(super) fn is_reference(s: &str) -> bool {
    let b = s.as_bytes();
    let (before, digest) = match b.iter().position(|&c| c == b'@') {
        Some(i) => (&b[..i], Some(&b[i + 1..])),
        None => (b, None),
    };
    if digest.is_some_and(|d| !is_digest(d)) {
        return false;
    }
    let (name, tag) = split_tag(before);
    if tag.is_some_and(|t| !is_tag(t)) {
        return false;
    }
    is_name(name)
}

/// `name[:tag]` split at the tag's `:` (the last `:` after the last `/`).
pub(super) fn split_tag(b: &[u8]) -> (&[u8], Option<&[u8]>) {
    let last_slash = b.iter().rposition(|&c| c == b'/');
    match b.iter().rposition(|&c| c == b':') {
        Some(i) if last_slash.is_none_or(|s| i > s) => (&b[..i], Some(&b[i + 1..])),
        _ => (b, None),
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
    match name.iter().position(|&c| c == b'/') {
        None => is_component(name),
        Some(i) => {
            let (first, rest) = (&name[..i], &name[i + 1..]);
            is_path(rest) && (is_component(first) || is_domain(first))
        }
    }
}

/// `component ("/" component)*`.
fn is_path(p: &[u8]) -> bool {
    p.split(|&c| c == b'/').all(is_component)
}

/// `[a-z0-9]+ (separator [a-z0-9]+)*`.
fn is_component(c: &[u8]) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let (Some(&first), Some(&last)) = (c.first(), c.last()) else {
        return false;
    };
    if !alnum(first) || !alnum(last) {
        return false;
    }
    let mut i = 0;
    while i < c.len() {
        if alnum(c[i]) {
            i += 1;
            continue;
        }
        // A run of separator bytes between two alphanumerics.
        let start = i;
        while i < c.len() && matches!(c[i], b'.' | b'_' | b'-') {
            i += 1;
        }
        let run = &c[start..i];
        let ok = match run {
            [] => false,
            b"." | b"_" | b"__" => true,
            _ => run.iter().all(|&b| b == b'-'),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `host [":" [0-9]+]`.
fn is_domain(d: &[u8]) -> bool {
    let (host, port) = if d.first() == Some(&b'[') {
        let Some(close) = d.iter().position(|&c| c == b']') else {
            return false;
        };
        let inner = &d[1..close];
        if inner.is_empty()
            || !inner
                .iter()
                .all(|&c| c.is_ascii_hexdigit() || c == b':')
        {
            return false;
        }
        let after = &d[close + 1..];
        match after.split_first() {
            None => return true,
            Some((b':', port)) => (&d[..=close], Some(port)),
            Some(_) => return false,
        }
    } else {
        match d.iter().position(|&c| c == b':') {
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
            f.is_ascii_alphanumeric()
                && e.is_ascii_alphanumeric()
                && l.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
        }
        _ => false,
    }
}

/// `[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}`.
fn is_tag(t: &[u8]) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    match t.split_first() {
        Some((&f, rest)) => {
            t.len() <= 128 && word(f) && rest.iter().all(|&c| word(c) || c == b'.' || c == b'-')
        }
        None => false,
    }
}

/// `algorithm ":" [0-9a-fA-F]{32,}`.
fn is_digest(d: &[u8]) -> bool {
    let Some(colon) = d.iter().position(|&c| c == b':') else {
        return false;
    };
    let (alg, hex) = (&d[..colon], &d[colon + 1..]);
    hex.len() >= 32
        && hex.iter().all(u8::is_ascii_hexdigit)
        && alg
            .split(|&c| matches!(c, b'-' | b'_' | b'+' | b'.'))
            .all(|part| {
                part.split_first().is_some_and(|(&f, rest)| {
                    f.is_ascii_alphabetic() && rest.iter().all(u8::is_ascii_alphanumeric)
                })
            })
}
