//! What the long strings a load left on disk decode to, found while their file's bytes were in
//! memory (asked for with [`super::LoadOptions::check_payloads`]). A whole-catalog validation then
//! neither reads a file twice nor holds its bytes: a few bytes of verdict per string stand in for
//! the string.

use std::cell::Cell;
use std::thread::LocalKey;

use super::codes::catalog as codes;
use super::diagnostic::Severity;
use super::node::{Kind, Node, Str};

/// What a string decodes to, as opm's loading of an `olm.bundle.object` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// Base64 of a JSON or YAML manifest.
    Manifest,
    /// Base64 of something that is not a manifest: why not.
    NotManifest(Box<str>),
    /// Not base64 (standard alphabet, padded): the byte Go's decoder stops at.
    NotBase64(usize),
}

impl Payload {
    /// Decodes `text` as base64 and, when that works, reads the result as a manifest. The decoded
    /// bytes go into a buffer reused per thread.
    pub fn of(text: &[u8]) -> Payload {
        thread_local! {
            static DECODED: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
        }
        with_spare(
            &DECODED,
            |decoded| match crate::text::go_base64::decode_into(text, decoded) {
                Err(at) => Payload::NotBase64(at),
                Ok(()) => match manifest(decoded) {
                    Ok(()) => Payload::Manifest,
                    Err(why) => Payload::NotManifest(why.to_string().into()),
                },
            },
        )
    }

    /// The base64 verdict alone: `Err(at)` when `at` is the first bad byte.
    pub fn base64(&self) -> Result<(), usize> {
        match self {
            Payload::NotBase64(at) => Err(*at),
            Payload::Manifest | Payload::NotManifest(_) => Ok(()),
        }
    }
}

/// Runs `f` with the thread's buffer kept in `slot`, kept for the next call unless it grew past
/// 8 MiB. The buffer is taken out while in use: reading a manifest may run other work on this
/// thread (rayon), which may want a buffer of its own.
pub fn with_spare<R>(
    slot: &'static LocalKey<Cell<Vec<u8>>>,
    f: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    const KEEP: usize = 8 << 20;
    let mut buf = slot.take();
    let r = f(&mut buf);
    if buf.capacity() <= KEEP {
        slot.set(buf);
    }
    r
}

/// Whether `bytes` read as a JSON or YAML manifest the way opm converts a bundle object.
fn manifest(bytes: &[u8]) -> Result<(), NotManifest> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{')
        && (crate::text::json_scan::is_plain_json(bytes)
            || serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok())
    {
        return Ok(());
    }
    let text = std::str::from_utf8(bytes).map_err(NotManifest::Utf8)?;
    let mut diags = Vec::new();
    super::decode::decode(text, u32::MAX, "manifest", &mut diags);
    match diags
        .into_iter()
        .find(|d| d.severity == Severity::Error && d.code == codes::SYNTAX)
    {
        Some(d) => Err(NotManifest::Syntax(d.message)),
        None => Ok(()),
    }
}

/// Why decoded bytes are not a manifest.
#[derive(Debug, thiserror::Error)]
enum NotManifest {
    #[error("invalid UTF-8: {0}")]
    Utf8(#[source] std::str::Utf8Error),
    /// The YAML reader's message.
    #[error("{0}")]
    Syntax(String),
}

/// The verdicts on a file's strings left on disk ([`Str::Deferred`]), by their place in the file,
/// and the text of its retyped scalars ([`Node::is_retyped_scalar`]), which a lint quotes: all a
/// validation would otherwise read the file again for.
#[derive(Debug, Default)]
pub struct Checked {
    /// `(start, len, verdict)`, by start.
    found: Vec<(u32, u32, Payload)>,
    /// `(start, len, text)`, by start.
    texts: Vec<(u32, u32, Box<str>)>,
}

impl Checked {
    /// Checks the strings of `nodes` left on disk in `bytes` (the file they were read from) and
    /// keeps the text of their retyped scalars. An empty verdict still says the file's nodes have
    /// neither (see [`Checked::has_retyped`]).
    pub(super) fn from_load<'n>(bytes: &[u8], nodes: impl Iterator<Item = &'n Node>) -> Checked {
        let (mut ranges, mut retyped) = (Vec::new(), Vec::new());
        for n in nodes {
            deferred_ranges(n, &mut ranges, &mut retyped);
        }
        if ranges.is_empty() && retyped.is_empty() {
            return Checked::default();
        }
        let text = |start: u32, len: u32| bytes.get(start as usize..start as usize + len as usize);
        ranges.sort_unstable();
        ranges.dedup();
        let found = ranges
            .into_iter()
            .filter_map(|(start, len)| Some((start, len, Payload::of(text(start, len)?))))
            .collect();
        retyped.sort_unstable();
        retyped.dedup();
        let texts = retyped
            .into_iter()
            .filter_map(|(start, len)| {
                let t = std::str::from_utf8(text(start, len)?).ok()?;
                Some((start, len, t.into()))
            })
            .collect();
        Checked { found, texts }
    }

    /// Whether any node the load read from the file is a retyped scalar ([`Node::is_retyped_scalar`]):
    /// when not, none of its blobs as loaded holds a YAML 1.1 trap.
    pub fn has_retyped(&self) -> bool {
        !self.texts.is_empty()
    }

    /// The text of bytes `start..start+len` of the file, when the load kept it (a retyped scalar).
    pub fn text(&self, start: u32, len: u32) -> Option<&str> {
        let i = self
            .texts
            .binary_search_by(|(s, l, _)| (*s, *l).cmp(&(start, len)))
            .ok()?;
        Some(&self.texts[i].2)
    }

    /// The verdict on bytes `start..start+len` of the file, when the load checked them.
    pub fn get(&self, start: u32, len: u32) -> Option<&Payload> {
        let i = self
            .found
            .binary_search_by(|&(s, l, _)| (s, l).cmp(&(start, len)))
            .ok()?;
        Some(&self.found[i].2)
    }
}

/// `(start, len)` of every string of `node` left on disk, and of every retyped scalar.
fn deferred_ranges(node: &Node, out: &mut Vec<(u32, u32)>, retyped: &mut Vec<(u32, u32)>) {
    match &node.kind {
        Kind::Seq(items) => items.iter().for_each(|n| visit(n, out, retyped)),
        Kind::Map(entries) => entries.iter().for_each(|e| {
            // A key is a string: only a long one is left on disk.
            leaf(&e.key, out, retyped);
            visit(&e.value, out, retyped);
        }),
        _ => leaf(node, out, retyped),
    }
}

/// [`deferred_ranges`] of a child, without a call for a scalar (most nodes are).
#[inline]
fn visit(node: &Node, out: &mut Vec<(u32, u32)>, retyped: &mut Vec<(u32, u32)>) {
    match &node.kind {
        Kind::Seq(_) | Kind::Map(_) => deferred_ranges(node, out, retyped),
        _ => leaf(node, out, retyped),
    }
}

#[inline]
fn leaf(node: &Node, out: &mut Vec<(u32, u32)>, retyped: &mut Vec<(u32, u32)>) {
    match &node.kind {
        Kind::String(Str::Deferred { start, len, .. }) => out.push((*start, *len)),
        // Only booleans and numbers are retyped; most nodes are strings held in memory.
        Kind::Bool(_) | Kind::Number(_) if node.is_retyped_scalar() => {
            let pos = node.pos();
            retyped.push((pos.start, pos.end - pos.start));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_a_manifest_not_a_manifest_or_not_base64() {
        use base64::Engine as _;
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        assert_eq!(
            Payload::of(b64("{\"kind\": \"Service\"}").as_bytes()),
            Payload::Manifest
        );
        assert_eq!(
            Payload::of(b64("kind: Service\n").as_bytes()),
            Payload::Manifest
        );
        let not = Payload::of(b64("kind: [unclosed\n").as_bytes());
        assert!(matches!(&not, Payload::NotManifest(_)), "{not:?}");
        assert_eq!(not.base64(), Ok(()));
        assert_eq!(Payload::of(b"QUJD*QUJD"), Payload::NotBase64(4));
        assert_eq!(Payload::of(b"QUJD*QUJD").base64(), Err(4));
    }
}
