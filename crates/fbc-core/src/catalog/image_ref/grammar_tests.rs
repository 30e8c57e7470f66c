//! The hand-written grammar held equal to the reference grammar's regular expression (the oracle),
//! and [`ImageRef::parse`] to a parse that asks the regular expressions.

use std::sync::LazyLock;

use proptest::prelude::*;
use regex::Regex;

use super::{ImageRef, ImageRefError, MAX_NAME, check_digest, grammar, split_domain};

const ALPHANUMERIC: &str = r"[a-z0-9]+";
const SEPARATOR: &str = r"(?:[._]|__|[-]+)";
const DOMAIN_COMPONENT: &str = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const TAG: &str = r"[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}";
const DIGEST: &str = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}";

fn domain_and_port() -> String {
    let domain_name = format!(r"{DOMAIN_COMPONENT}(?:\.{DOMAIN_COMPONENT})*");
    let host = format!(r"(?:{domain_name}|\[(?:[a-fA-F0-9:]+)\])");
    format!(r"{host}(?::[0-9]+)?")
}

fn remote_name() -> String {
    let path_component = format!(r"{ALPHANUMERIC}(?:{SEPARATOR}{ALPHANUMERIC})*");
    format!(r"{path_component}(?:/{path_component})*")
}

/// `(name)(?::(tag))?(?:@(digest))?`, unanchored.
fn reference_pattern() -> String {
    let name = format!(r"(?:{}/)?{}", domain_and_port(), remote_name());
    format!(r"({name})(?::({TAG}))?(?:@({DIGEST}))?")
}

static REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{}$", reference_pattern())).unwrap());

static NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?:({})/)?({})$",
        domain_and_port(),
        remote_name()
    ))
    .unwrap()
});

/// The parse as it was written with the regular expressions.
fn oracle_parse(s: &str) -> Result<ImageRef, ImageRefError> {
    if s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(ImageRefError::HexName(s.to_string()));
    }
    let (domain, remainder) = split_domain(s);
    let remote = remainder.split(':').next().unwrap_or_default();
    if remote.to_lowercase() != remote {
        return Err(ImageRefError::UppercaseRepository);
    }
    let full = format!("{domain}/{remainder}");
    if !REFERENCE.is_match(&full) {
        let lower = full.to_lowercase();
        if lower != full && REFERENCE.is_match(&lower) {
            return Err(ImageRefError::Uppercase);
        }
        return Err(ImageRefError::Format);
    }
    let (before_digest, digest) = match full.split_once('@') {
        Some((b, d)) => (b, Some(d.to_string())),
        None => (full.as_str(), None),
    };
    let last_slash = before_digest.rfind('/').unwrap_or(0);
    let (name, tag) = match before_digest.rfind(':') {
        Some(i) if i > last_slash => (
            &before_digest[..i],
            Some(before_digest[i + 1..].to_string()),
        ),
        _ => (before_digest, None),
    };
    let (domain, path) = if name.len() <= MAX_NAME {
        name.split_once('/').unwrap_or(("", name))
    } else {
        match NAME.captures(name) {
            Some(n) => (
                n.get(1).map_or("", |g| g.as_str()),
                n.get(2).map_or("", |g| g.as_str()),
            ),
            None => ("", name),
        }
    };
    if path.len() > MAX_NAME {
        return Err(ImageRefError::NameTooLong);
    }
    if let Some(d) = &digest {
        check_digest(d)?;
    }
    Ok(ImageRef {
        domain: domain.to_string(),
        path: path.to_string(),
        tag,
        digest,
    })
}

/// Bytes a mutation puts in: every kind of byte the grammar treats apart, and some it refuses.
const BYTES: &[char] = &[
    'a', 'z', 'A', 'Z', '0', '9', 'f', 'F', 'g', '.', '_', '-', '+', '/', ':', '@', '[', ']', ' ',
    'é', 'K', '\n',
];

/// `s` with the edits applied: `(where, what)`: 0 deletes, 1 inserts, 2 replaces a byte.
fn mutate(s: &str, edits: &[(usize, u8, usize)]) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for &(at, op, c) in edits {
        let c = BYTES[c % BYTES.len()];
        let at = if chars.is_empty() {
            0
        } else {
            at % (chars.len() + 1)
        };
        match op % 3 {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            2 if at < chars.len() => chars[at] = c,
            _ => chars.insert(at, c),
        }
    }
    chars.into_iter().collect()
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, usize)>> {
    proptest::collection::vec((0usize..400, 0u8..3, 0usize..BYTES.len()), 0..4)
}

fn references() -> impl Strategy<Value = String> {
    proptest::string::string_regex(&reference_pattern()).unwrap()
}

fn agree(s: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        grammar::split(s).is_some(),
        REFERENCE.is_match(s),
        "is_reference {:?}",
        s
    );
    if let Some(c) = NAME.captures(s) {
        let want = (
            c.get(1).map_or("", |g| g.as_str()),
            c.get(2).map_or("", |g| g.as_str()),
        );
        prop_assert_eq!(grammar::split_name(s), Some(want), "split_name {:?}", s);
    } else {
        prop_assert_eq!(grammar::split_name(s), None, "split_name {:?}", s);
    }
    prop_assert_eq!(ImageRef::parse(s), oracle_parse(s), "parse {:?}", s);
    prop_assert_eq!(
        ImageRef::check(s),
        oracle_parse(s).map(drop),
        "check {:?}",
        s
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_references_agree_with_the_regex(s in references()) {
        agree(&s)?;
    }

    #[test]
    fn mutated_references_agree_with_the_regex(s in references(), e in edits()) {
        agree(&mutate(&s, &e))?;
    }

    #[test]
    fn references_from_pieces_agree_with_the_regex(
        pieces in proptest::collection::vec(proptest::sample::select(vec![
            "quay.io", "localhost", "localhost:5000", "[::1]", "[fe80::1]:443", "Registry.Example",
            "a", "b-c", "d--e", "f__g", "h.i", "j_k", "l___m", "n.-o", "-p", "q-", "0", "UP",
            "/", "/", "/", ":", ":", ":v1.2-rc_3", "@", "sha256", "sha256+b64u.x",
            "0123456789abcdef0123456789abcdef", "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
            "", " ", "é",
        ]), 1..10),
        e in edits(),
    ) {
        let s = pieces.concat();
        agree(&s)?;
        agree(&mutate(&s, &e))?;
    }
}

#[test]
fn long_names_and_edge_cases_agree_with_the_regex() {
    let long = "a".repeat(300);
    let cases = [
        String::new(),
        "/".to_string(),
        "a/".to_string(),
        "/a".to_string(),
        "a//b".to_string(),
        "[]/a".to_string(),
        "[:]/a".to_string(),
        "[::1]:/a".to_string(),
        "[::1]x/a".to_string(),
        "host:/a".to_string(),
        "host:12a/a".to_string(),
        "a:b:c".to_string(),
        "a/b:".to_string(),
        format!("a/b:{}", "t".repeat(128)),
        format!("a/b:{}", "t".repeat(129)),
        "a/b@sha256:0123456789abcdef0123456789abcde".to_string(),
        "a/b@:0123456789abcdef0123456789abcdef".to_string(),
        "a/b@a-:0123456789abcdef0123456789abcdef".to_string(),
        "a/b@a@b".to_string(),
        format!("quay.io/{long}"),
        format!("quay.io/{long}:v1"),
        format!("{long}.io/a/b"),
        format!("{long}/b"),
        format!("quay.io:80/{}/{}", "b".repeat(200), "c".repeat(60)),
        format!("Quay.io/{long}"),
    ];
    for s in &cases {
        agree(s).unwrap();
    }
}
