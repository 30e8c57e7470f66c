//! `file:` URIs to paths and back (RFC 8089 as editors write them: `file:///abs/path`, with
//! percent-encoded bytes).

use std::path::{Path, PathBuf};

use lsp_types::Uri;

/// The absolute path a `file:` URI names; `None` for any other scheme, a remote host, a relative
/// path or bytes that are not UTF-8 once decoded.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///p` (empty authority) or `file://localhost/p`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode(rest)?;
    let path = PathBuf::from(decoded);
    path.is_absolute().then_some(path)
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Uri {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    match s.parse() {
        Ok(u) => u,
        // Every byte above is unreserved or percent-encoded, so this cannot fail; the root
        // stands in should it ever.
        Err(_) => "file:///".parse().expect("a constant URI"),
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let s = String::from_utf8(out).ok()?;
    (!s.contains('\0')).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_through_uris() {
        for p in ["/tmp/a b/catalog.yaml", "/x/é/ü%.json", "/plain/v4.18/op"] {
            let uri = from_path(Path::new(p));
            assert!(uri.as_str().starts_with("file:///"), "{}", uri.as_str());
            assert_eq!(to_path(&uri).as_deref(), Some(Path::new(p)));
        }
        let u: Uri = "file:///a%20b/c".parse().unwrap();
        assert_eq!(to_path(&u).unwrap(), Path::new("/a b/c"));
        let remote: Uri = "file://host/c".parse().unwrap();
        assert_eq!(to_path(&remote), None);
        let http: Uri = "https://example.com/c".parse().unwrap();
        assert_eq!(to_path(&http), None);
        let nul: Uri = "file:///a%00b".parse().unwrap();
        assert_eq!(to_path(&nul), None);
    }
}
