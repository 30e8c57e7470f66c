//! Image pull specs checked the way opm checks bundle `image` and `relatedImages[].image` (since
//! v1.64): the distribution reference grammar `[domain[:port]/]path[:tag][@digest]`, normalised like
//! Docker does (`busybox` means `docker.io/library/busybox`), with the error texts opm prints.

use std::borrow::Cow;

use thiserror::Error;

mod grammar;
#[cfg(test)]
mod grammar_tests;

const MAX_NAME: usize = 255;

/// Why a pull spec is not one: the text opm puts after `invalid image pull spec "<spec>": `.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImageRefError {
    #[error("invalid repository name ({0}), cannot specify 64-byte hexadecimal strings")]
    HexName(String),
    /// Upper case in the repository name, found before the grammar is checked.
    #[error("invalid reference format: repository name must be lowercase")]
    UppercaseRepository,
    /// Upper case anywhere else that makes the reference fail the grammar.
    #[error("repository name must be lowercase")]
    Uppercase,
    #[error("invalid reference format")]
    Format,
    #[error("repository name must not be more than {MAX_NAME} characters")]
    NameTooLong,
    #[error(transparent)]
    Digest(#[from] DigestError),
}

/// Why a digest is not one, in the OCI digest library's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DigestError {
    #[error("invalid checksum digest format")]
    Format,
    #[error("unsupported digest algorithm")]
    Algorithm,
    #[error("invalid checksum digest length")]
    Length,
}

/// A parsed, normalised image reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    pub domain: String,
    pub path: String,
    pub tag: Option<String>,
    pub digest: Option<String>,
}

/// Splits a Docker-style domain off `name` the way `docker pull` reads it.
fn split_domain(name: &str) -> (&str, Cow<'_, str>) {
    let (domain, remote) = match memchr::memchr(b'/', name.as_bytes()) {
        None => ("docker.io", Cow::Owned(format!("library/{name}"))),
        Some(i) => {
            let (d, r) = (&name[..i], &name[i + 1..]);
            if d == "localhost" || d.bytes().any(|b| b == b'.' || b == b':') || lowercase_differs(d)
            {
                (d, Cow::Borrowed(r))
            } else if d == "index.docker.io" {
                ("docker.io", Cow::Borrowed(r))
            } else {
                ("docker.io", Cow::Borrowed(name))
            }
        }
    };
    if domain == "docker.io" && memchr::memchr(b'/', remote.as_bytes()).is_none() {
        return (domain, Cow::Owned(format!("library/{remote}")));
    }
    (domain, remote)
}

/// `domain/remainder`: `name` itself when that is what it was split into.
fn joined<'a>(name: &'a str, domain: &str, remainder: &str) -> Cow<'a, str> {
    if name.len() == domain.len() + 1 + remainder.len()
        && name.as_bytes().get(domain.len()) == Some(&b'/')
        && name.starts_with(domain)
        && name.ends_with(remainder)
    {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(format!("{domain}/{remainder}"))
    }
}

/// Whether `s.to_lowercase() != s`, without building the lowercase text for ASCII.
fn lowercase_differs(s: &str) -> bool {
    if s.is_ascii() {
        grammar::any_upper(s.as_bytes())
    } else {
        s.to_lowercase() != s
    }
}

/// Checks a digest the way the OCI digest library does: a known algorithm (sha256, sha384, sha512)
/// with a hex encoding of the right length.
fn check_digest(d: &str) -> Result<(), DigestError> {
    let Some((alg, enc)) = d
        .split_once(':')
        .filter(|(a, e)| !a.is_empty() && !e.is_empty())
    else {
        return Err(DigestError::Format);
    };
    let size = match alg {
        "sha256" => 32,
        "sha384" => 48,
        "sha512" => 64,
        _ => return Err(DigestError::Algorithm),
    };
    if enc.len() != size * 2 {
        return Err(DigestError::Length);
    }
    if !grammar::all(enc.as_bytes(), grammar::LOWER_HEX) {
        return Err(DigestError::Format);
    }
    Ok(())
}

/// The parts of a pull spec, borrowed from its normalised text.
struct Parts<'a> {
    domain: &'a str,
    path: &'a str,
    tag: Option<&'a str>,
    digest: Option<&'a str>,
}

impl ImageRef {
    /// Parses a pull spec; the error is the text opm puts after `invalid image pull spec "<spec>": `.
    pub fn parse(s: &str) -> Result<ImageRef, ImageRefError> {
        with_parts(s, |p| ImageRef {
            domain: p.domain.to_string(),
            path: p.path.to_string(),
            tag: p.tag.map(str::to_string),
            digest: p.digest.map(str::to_string),
        })
    }

    /// Checks a pull spec as [`ImageRef::parse`] does, without keeping its parts.
    pub fn check(s: &str) -> Result<(), ImageRefError> {
        with_parts(s, |_| ())
    }
}

/// Checks `s` and hands its parts to `f`.
fn with_parts<R>(s: &str, f: impl FnOnce(Parts<'_>) -> R) -> Result<R, ImageRefError> {
    if s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(ImageRefError::HexName(s.to_string()));
    }
    let (domain, remainder) = split_domain(s);
    let remote = match memchr::memchr(b':', remainder.as_bytes()) {
        Some(i) => &remainder[..i],
        None => &remainder,
    };
    if lowercase_differs(remote) {
        return Err(ImageRefError::UppercaseRepository);
    }
    let full = joined(s, domain, &remainder);
    let Some((name, tag, digest)) = grammar::split(&full) else {
        if lowercase_differs(&full) && grammar::split(&full.to_lowercase()).is_some() {
            return Err(ImageRefError::Uppercase);
        }
        return Err(ImageRefError::Format);
    };
    let (domain, path) = if name.len() <= MAX_NAME {
        match memchr::memchr(b'/', name.as_bytes()) {
            Some(i) => (&name[..i], &name[i + 1..]),
            None => ("", name),
        }
    } else {
        // Only a long name needs the exact split (it decides the length limit).
        grammar::split_name(name).unwrap_or(("", name))
    };
    if path.len() > MAX_NAME {
        return Err(ImageRefError::NameTooLong);
    }
    if let Some(d) = digest {
        check_digest(d)?;
    }
    Ok(f(Parts {
        domain,
        path,
        tag,
        digest,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945";

    #[test]
    fn accepts_real_pull_specs() {
        let ok = [
            format!("quay.io/demo/cache-operator-bundle@sha256:{SHA}"),
            format!("registry.redhat.io/openshift4/ose-descheduler:v4.12@sha256:{SHA}"),
            "busybox".to_string(),
            "Quay.io/demo/app:v1".to_string(),
            "library/busybox:1.36".to_string(),
            "localhost:5000/my/image:latest".to_string(),
            "[::1]:5000/img".to_string(),
            "test.registry/foo-operator/foo-bundle:v0.1.0".to_string(),
            "a/b__c/d-e--f/g.h:tag_1.2-3".to_string(),
            format!("quay.io/x/y@sha512:{SHA}{SHA}"),
        ];
        for s in &ok {
            assert!(ImageRef::parse(s).is_ok(), "{s}: {:?}", ImageRef::parse(s));
        }
        let r = ImageRef::parse("busybox:1.36").unwrap();
        assert_eq!(
            (r.domain.as_str(), r.path.as_str()),
            ("docker.io", "library/busybox")
        );
        assert_eq!(r.tag.as_deref(), Some("1.36"));
    }

    #[test]
    fn rejects_like_opm() {
        let cases = [
            (
                SHA.to_string(),
                format!(
                    "invalid repository name ({SHA}), cannot specify 64-byte hexadecimal strings"
                ),
            ),
            (
                "quay.io/demo/app:-v1".to_string(),
                "invalid reference format".to_string(),
            ),
            (
                "Quay.io/demo/App:v1".to_string(),
                "invalid reference format: repository name must be lowercase".to_string(),
            ),
            (
                "quay.io/Demo/app".to_string(),
                "invalid reference format: repository name must be lowercase".to_string(),
            ),
            (
                "quay.io/demo/app:".to_string(),
                "invalid reference format".to_string(),
            ),
            (
                // Tags are ASCII word characters (Go's `\w`), so a non-ASCII letter is refused.
                "quay.io/demo/app:vé1".to_string(),
                "invalid reference format".to_string(),
            ),
            (
                "quay.io/demo/app:v1 ".to_string(),
                "invalid reference format".to_string(),
            ),
            (
                "quay.io/demo//app".to_string(),
                "invalid reference format".to_string(),
            ),
            (
                "quay.io/demo/-app".to_string(),
                "invalid reference format".to_string(),
            ),
            (
                format!("quay.io/demo/app@ssha256:{SHA}"),
                "unsupported digest algorithm".to_string(),
            ),
            (
                "quay.io/demo/app@md5:d41d8cd98f00b204e9800998ecf8427e".to_string(),
                "unsupported digest algorithm".to_string(),
            ),
            (
                "quay.io/demo/app@sha256:abcd0123abcd0123abcd0123abcd0123".to_string(),
                "invalid checksum digest length".to_string(),
            ),
            (
                format!("quay.io/demo/app@sha256:{}", SHA.to_uppercase()),
                "invalid checksum digest format".to_string(),
            ),
            (
                format!("quay.io/demo/{}", "a".repeat(260)),
                "repository name must not be more than 255 characters".to_string(),
            ),
        ];
        for (s, want) in cases {
            assert_eq!(
                ImageRef::parse(&s).err().map(|e| e.to_string()),
                Some(want),
                "{s}"
            );
        }
    }
}
