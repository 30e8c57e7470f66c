//! What the long strings a load left on disk decode to, found while their file's bytes were in
//! memory (asked for with [`super::LoadOptions::check_payloads`]). A whole-catalog validation then
//! neither reads a file twice nor holds its bytes: a few bytes of verdict per string stand in for
//! the string.

use std::cell::Cell;
use std::thread::LocalKey;

use super::codes::catalog as codes;
use super::diagnostic::Severity;
use super::gotypes::fills_field;
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
        match decoded(text, manifest) {
            Err(at) => Payload::NotBase64(at),
            Ok(Ok(())) => Payload::Manifest,
            Ok(Err(why)) => Payload::NotManifest(why.to_string().into()),
        }
    }

    /// The base64 verdict alone: `Err(at)` when `at` is the first bad byte.
    pub fn base64(&self) -> Result<(), usize> {
        match self {
            Payload::NotBase64(at) => Err(*at),
            Payload::Manifest | Payload::NotManifest(_) => Ok(()),
        }
    }
}

/// `f` of what `text` decodes to as base64 (in a buffer reused per thread), or the first bad byte.
fn decoded<R>(text: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<R, usize> {
    thread_local! {
        static DECODED: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    }
    with_spare(&DECODED, |buf| {
        crate::text::go_base64::decode_into(text, buf).map(|()| f(buf))
    })
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
    found: Vec<(u32, u32, Verdict)>,
    /// `(start, len, text)`, by start.
    texts: Vec<(u32, u32, Box<str>)>,
}

/// What the load found a string left on disk to be.
#[derive(Debug)]
enum Verdict {
    /// Decoded as far as opm's loading of a bundle object decodes it.
    Decoded(Payload),
    /// Base64, not read further: the value of no key a bundle object's `data` could be.
    Base64,
}

impl Verdict {
    /// The verdict on `text`: read as a manifest once decoded only when it may be a bundle
    /// object's `data`.
    fn of(text: &[u8], data: bool) -> Verdict {
        if data {
            return Verdict::Decoded(Payload::of(text));
        }
        match decoded(text, |_| ()) {
            Err(at) => Verdict::Decoded(Payload::NotBase64(at)),
            Ok(()) => Verdict::Base64,
        }
    }
}

impl Checked {
    /// Checks the strings of `nodes` left on disk in `bytes` (the file they were read from) and
    /// keeps the text of their retyped scalars. An empty verdict still says the file's nodes have
    /// neither (see [`Checked::has_retyped`]). Only the value of a `data` key (in any case, as Go
    /// matches a field) may be a bundle object's, so only such a string is read as a manifest once
    /// decoded; any other is decoded as base64 only (an icon's SVG is no manifest to look for).
    /// `bytes` are those of the file from byte `base` on.
    pub(super) fn from_load<'n>(
        bytes: &[u8],
        base: u32,
        nodes: impl Iterator<Item = &'n Node>,
    ) -> Checked {
        let (mut ranges, mut retyped) = (Vec::new(), Vec::new());
        for n in nodes {
            deferred_ranges(n, &mut ranges, &mut retyped);
        }
        if ranges.is_empty() && retyped.is_empty() {
            return Checked::default();
        }
        let text = |start: u32, len: u32| {
            let start = start.checked_sub(base)? as usize;
            bytes.get(start..start + len as usize)
        };
        // A range under two keys (an alias repeats its anchor's strings) is read as a manifest
        // when either is `data`.
        ranges.sort_unstable_by_key(|&(start, len, data)| (start, len, !data));
        ranges.dedup_by_key(|&mut (start, len, _)| (start, len));
        let found = ranges
            .into_iter()
            .filter_map(|(start, len, data)| {
                Some((start, len, Verdict::of(text(start, len)?, data)))
            })
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

    /// Adds the verdicts on a later part of the same file.
    pub(super) fn append(&mut self, later: Checked) {
        debug_assert!(
            self.found
                .last()
                .zip(later.found.first())
                .is_none_or(|(a, b)| a.0 < b.0)
                && self
                    .texts
                    .last()
                    .zip(later.texts.first())
                    .is_none_or(|(a, b)| a.0 < b.0),
            "a later part's strings start later"
        );
        self.found.extend(later.found);
        self.texts.extend(later.texts);
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

    /// The verdict on bytes `start..start+len` of the file, when the load checked them whole.
    pub fn get(&self, start: u32, len: u32) -> Option<&Payload> {
        match self.verdict(start, len)? {
            Verdict::Decoded(p) => Some(p),
            Verdict::Base64 => None,
        }
    }

    /// Whether bytes `start..start+len` of the file decode as base64 (`Err(at)` at the first bad
    /// byte), when the load checked them.
    pub fn base64(&self, start: u32, len: u32) -> Option<Result<(), usize>> {
        match self.verdict(start, len)? {
            Verdict::Decoded(p) => Some(p.base64()),
            Verdict::Base64 => Some(Ok(())),
        }
    }

    fn verdict(&self, start: u32, len: u32) -> Option<&Verdict> {
        let i = self
            .found
            .binary_search_by(|&(s, l, _)| (s, l).cmp(&(start, len)))
            .ok()?;
        Some(&self.found[i].2)
    }
}

/// `(start, len)` of every string of `node` left on disk, and of every retyped scalar.
fn deferred_ranges(node: &Node, out: &mut Vec<Range>, retyped: &mut Vec<(u32, u32)>) {
    match &node.kind {
        Kind::Seq(items) => items.iter().for_each(|n| visit(n, false, out, retyped)),
        Kind::Map(entries) => entries.iter().for_each(|e| {
            // A key is a string: only a long one is left on disk.
            leaf(&e.key, false, out, retyped);
            let data = e.key.as_str().is_some_and(|k| fills_field(k, "data"));
            visit(&e.value, data, out, retyped);
        }),
        _ => leaf(node, false, out, retyped),
    }
}

/// `(start, len)` of a string left on disk, and whether it is the value of a `data` key.
type Range = (u32, u32, bool);

/// [`deferred_ranges`] of a child (the value of a `data` key or not), without a call for a
/// scalar (most nodes are).
#[inline]
fn visit(node: &Node, data: bool, out: &mut Vec<Range>, retyped: &mut Vec<(u32, u32)>) {
    match &node.kind {
        Kind::Seq(_) | Kind::Map(_) => deferred_ranges(node, out, retyped),
        _ => leaf(node, data, out, retyped),
    }
}

#[inline]
fn leaf(node: &Node, data: bool, out: &mut Vec<Range>, retyped: &mut Vec<(u32, u32)>) {
    match &node.kind {
        Kind::String(Str::Deferred { start, len, .. }) => out.push((*start, *len, data)),
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

    /// The load reads a long string as a manifest only where a bundle object's data can be: an
    /// icon is decoded as base64 alone (its SVG is no manifest to look for), bad base64 is found
    /// wherever it is, and a `data` value in any case is read as a manifest.
    #[test]
    fn a_load_reads_as_a_manifest_only_what_can_be_a_bundle_object() {
        use base64::Engine as _;
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let svg = b64(&format!("<svg>{}</svg>", "<path d='M0 0'/>".repeat(400)));
        let manifest = b64(&format!(
            "kind: ConfigMap\ndata:\n{}",
            "  k: v\n".repeat(800)
        ));
        let broken = format!("{}*{}", &svg[..5000], &svg[5001..]);
        let text = format!(
            "schema: olm.package\nname: a\nicon:\n  base64data: {svg}\n  mediatype: image/svg+xml\n---\n\
             schema: olm.package\nname: b\nicon:\n  base64data: {broken}\n---\n\
             schema: olm.bundle\nname: a.v1\npackage: a\nproperties:\n\
             - type: olm.bundle.object\n  value:\n    data: {manifest}\n\
             - type: olm.bundle.object\n  value:\n    Data: {svg}\n"
        );
        let mut diags = Vec::new();
        let docs = super::super::decode::decode(&text, 0, "c.yaml", &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        let checked = Checked::from_load(text.as_bytes(), 0, docs.iter().map(|d| &d.node));
        let at = |needle: &str| {
            let start = text.find(needle).unwrap();
            (start as u32, needle.len() as u32)
        };
        let deferred = |n: &Node| matches!(n.kind, Kind::String(Str::Deferred { .. }));
        let first_icon = docs[0].node.get("icon").and_then(|i| i.get("base64data"));
        assert!(
            first_icon.is_some_and(deferred),
            "the test's strings are left on disk"
        );

        let (s, l) = at(&svg);
        assert_eq!(
            checked.get(s, l),
            None,
            "the icon is not read as a manifest"
        );
        assert_eq!(checked.base64(s, l), Some(Ok(())));
        let (s, l) = at(&broken);
        assert_eq!(checked.get(s, l), Some(&Payload::NotBase64(5000)));
        assert_eq!(checked.base64(s, l), Some(Err(5000)));
        let (s, l) = at(&manifest);
        assert_eq!(checked.get(s, l), Some(&Payload::Manifest));
        // The same text as a bundle object's data is read whole, as validation asks for it.
        let svg_as_data = text.rfind(&svg).unwrap() as u32;
        assert_eq!(
            checked.get(svg_as_data, svg.len() as u32),
            Some(&Payload::of(svg.as_bytes()))
        );
    }
}
