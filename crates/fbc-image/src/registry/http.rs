//! The HTTP pieces of talking to a registry: challenges, error answers, origins and redirects,
//! and recognising what a transport error means.

use std::io;

use serde_json::Value;
use ureq::http::HeaderMap;

/// The scheme, host and port of a URL: where a request goes.
pub(super) fn origin(url: &str) -> Option<(String, String, u16)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let port = uri
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Some((scheme, uri.host()?.to_ascii_lowercase(), port))
}

/// Where a redirect's `Location` leads from `from`: an absolute URL, or a path on the same origin.
pub(super) fn redirected(from: &str, location: &str) -> Option<String> {
    if location.starts_with("https://") || location.starts_with("http://") {
        return Some(location.to_string());
    }
    let uri: ureq::http::Uri = from.parse().ok()?;
    let scheme = uri.scheme_str()?;
    if let Some(rest) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{rest}"));
    }
    let authority = uri.authority()?;
    if location.starts_with('/') {
        return Some(format!("{scheme}://{authority}{location}"));
    }
    let path = uri.path();
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    Some(format!("{scheme}://{authority}{dir}{location}"))
}

/// A WWW-Authenticate challenge.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Challenge {
    pub(super) scheme: String,
    pub(super) params: Vec<(String, String)>,
}

impl Challenge {
    pub(super) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `Scheme k="v", k2=v2` (the first challenge of the header).
pub(super) fn parse_challenge(header: &str) -> Challenge {
    let header = header.trim();
    let (scheme, mut rest) = header.split_once(' ').unwrap_or((header, ""));
    let mut params = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        let Some(eq) = rest.find('=') else { break };
        let key = rest[..eq].trim().to_string();
        rest = &rest[eq + 1..];
        let value;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut v = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            v.push(n);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => v.push(c),
                }
            }
            value = v;
            rest = &quoted[end.min(quoted.len())..];
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_string();
            rest = &rest[end..];
        }
        params.push((key, value));
    }
    Challenge {
        scheme: scheme.to_ascii_lowercase(),
        params,
    }
}

/// The errors of a registry's error answer (`{"errors": [{"code", "message"}]}`).
pub(super) fn error_codes(body: &[u8]) -> Vec<(String, String)> {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    v["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["code"].as_str().unwrap_or_default().to_string(),
                e["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// A header's value as text.
pub(super) fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Whether an I/O error is the system's name lookup failing (it has no kind of its own).
pub(super) fn is_lookup_failure(e: &io::Error) -> bool {
    let text = e.to_string().to_lowercase();
    [
        "failed to lookup address",
        "name or service not known",
        "no address associated",
        "name resolution",
        "nodename nor servname",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Whether an I/O error comes from the TLS handshake (a certificate that does not verify, a plain
/// HTTP server spoken to in TLS).
pub(super) fn is_tls(e: &io::Error) -> bool {
    let text = e.to_string().to_lowercase();
    text.contains("certificate")
        || text.contains("corrupt message")
        || text.contains("invalidcontenttype")
        || text.contains("handshake")
        || e.get_ref().is_some_and(|i| i.is::<rustls::Error>())
}

pub(super) fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

/// Percent-encodes a query value.
pub(super) fn encode(v: &str) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_with_quoted_and_bare_values() {
        let c = parse_challenge(
            r#"Bearer realm="https://auth.example/token",service="reg",scope="repository:a/b:pull,push""#,
        );
        assert_eq!(c.scheme, "bearer");
        assert_eq!(c.param("realm"), Some("https://auth.example/token"));
        assert_eq!(c.param("service"), Some("reg"));
        assert_eq!(c.param("scope"), Some("repository:a/b:pull,push"));
        let c = parse_challenge(r#"Basic realm=registry, charset="UTF-8""#);
        assert_eq!(c.scheme, "basic");
        assert_eq!(c.param("realm"), Some("registry"));
        assert_eq!(c.param("charset"), Some("UTF-8"));
        let c = parse_challenge(r#"Bearer realm="a\"b"#);
        assert_eq!(c.param("realm"), Some("a\"b"));
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode("repository:a/b:pull"), "repository%3Aa%2Fb%3Apull");
    }
}
