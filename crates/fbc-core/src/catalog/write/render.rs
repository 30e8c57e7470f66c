//! The text a file will have after saving: its original bytes with one splice per change. A
//! changed blob is patched by its format's patcher, a removed blob is cut with its separator, new
//! blobs are written after the blob before them, in that blob's format and the file's style.

use std::cell::RefCell;

use super::WriteError;
use crate::catalog::decode::Format;
use crate::catalog::json::patch::JsonPatch;
use crate::catalog::json::{JsonStyle, write_json};
use crate::catalog::yaml::patch::YamlPatch;
use crate::catalog::yaml::{self, YamlStyle};
use crate::catalog::{Blob, BlobId, BlobState, Catalog, FileId, Node, Str};
use crate::text::lines::line_start;
use crate::text::splice::{Splice, apply};

impl Catalog {
    /// The text of `file` after saving, from its `original` text (checked to be what was loaded).
    pub(super) fn render_text(&self, file: FileId, original: &str) -> Result<String, WriteError> {
        let f = &self.files[file];
        // A long value left on disk is read from this file's text when it is in it (the text was just
        // checked to be what was loaded), else from its own file. A value that cannot be read stops the
        // save: writing anything else in its place would lose it.
        let unreadable: RefCell<Option<std::io::Error>> = RefCell::new(None);
        let resolve = |s: &Str| -> String {
            let got = match *s {
                Str::Deferred {
                    file: of,
                    start,
                    len,
                } if of as usize == file => original
                    .get(start as usize..(start as usize + len as usize))
                    .map(str::to_string)
                    .ok_or_else(|| std::io::Error::other("its place in the file is gone")),
                _ => self.resolve(s),
            };
            got.unwrap_or_else(|e| {
                unreadable.borrow_mut().get_or_insert(e);
                String::new()
            })
        };
        let splices = self.splices(file, original, &resolve);
        if let Some(source) = unreadable.into_inner() {
            return Err(WriteError::Unreadable {
                path: f.path.clone(),
                source,
            });
        }
        apply(original, splices).map_err(|at| WriteError::Overlap {
            path: f.path.clone(),
            at,
        })
    }

    /// One splice per change of the file's blobs, in file order.
    fn splices(
        &self,
        file: FileId,
        original: &str,
        resolve: &dyn Fn(&Str) -> String,
    ) -> Vec<Splice> {
        let f = &self.files[file];
        let mut splices: Vec<Splice> = Vec::new();
        // Where the next added blob goes: after the previous blob of the file (for a removed blob, where
        // its text started), written in that blob's format.
        let mut cursor = 0usize;
        let mut cursor_format = f.format.unwrap_or(Format::Yaml);
        let mut seen_original = false;
        let mut pending: Vec<BlobId> = Vec::new();
        let flush =
            |pending: &mut Vec<BlobId>, at: usize, format: Format, splices: &mut Vec<Splice>| {
                if !pending.is_empty() {
                    splices.push(self.added(file, original, pending, at, format, resolve));
                    pending.clear();
                }
            };
        for &b in &f.blobs {
            let blob = &self.blobs[b];
            match blob.state {
                BlobState::Added => pending.push(b),
                BlobState::Removed if f.created => {}
                BlobState::Removed => {
                    flush(&mut pending, cursor, cursor_format, &mut splices);
                    let cut = removal(original, blob.format, blob.start, blob.end);
                    cursor = cut.start;
                    cursor_format = blob.format;
                    splices.push(cut);
                    seen_original = true;
                }
                BlobState::Loaded => {
                    flush(&mut pending, cursor, cursor_format, &mut splices);
                    if let Some(old) = blob.original.as_ref().filter(|o| **o != blob.value) {
                        patch_blob(blob, old, original, resolve, &mut splices);
                    }
                    cursor = blob.end;
                    cursor_format = blob.format;
                    seen_original = true;
                }
            }
        }
        let end = if seen_original {
            cursor
        } else {
            original.len()
        };
        flush(&mut pending, end, cursor_format, &mut splices);
        splices
    }

    /// The text of the added blobs `pending`, inserted at `at`, in `format`.
    fn added(
        &self,
        file: FileId,
        original: &str,
        pending: &[BlobId],
        at: usize,
        format: Format,
        resolve: &dyn Fn(&Str) -> String,
    ) -> Splice {
        let at = at.min(original.len());
        let at_line_start = at == 0 || original[..at].ends_with('\n');
        let mut text = String::new();
        // After the last blob of a file that does not end with a newline.
        if !at_line_start && at == original.len() {
            text.push('\n');
        }
        for &b in pending {
            let blob = &self.blobs[b];
            match format {
                Format::Yaml => {
                    if !(original.is_empty() && text.is_empty()) {
                        text.push_str("---\n");
                    }
                    yaml::write_document(
                        &mut text,
                        &blob.value,
                        self.doc_yaml_style(file),
                        resolve,
                    );
                }
                Format::Json => {
                    let style = self.file_json_style(file, original);
                    write_json(&mut text, &blob.value, style, 0, resolve);
                    text.push('\n');
                }
            }
        }
        // JSON right after the previous object's closing brace: keep its newline after ours.
        if format == Format::Json && !at_line_start && at < original.len() {
            text.insert(0, '\n');
            text.pop();
        }
        Splice::insert(at, text)
    }

    fn doc_yaml_style(&self, file: FileId) -> YamlStyle {
        self.files[file]
            .blobs
            .iter()
            .map(|&b| &self.blobs[b])
            .find(|b| b.state == BlobState::Loaded)
            .map(|b| YamlStyle::detect(b.original.as_ref().unwrap_or(&b.value)))
            .unwrap_or_default()
    }

    fn file_json_style(&self, file: FileId, original: &str) -> JsonStyle {
        self.files[file]
            .blobs
            .iter()
            .map(|&b| &self.blobs[b])
            .find(|b| b.state == BlobState::Loaded)
            .map(|b| JsonStyle::detect(original, b.original.as_ref().unwrap_or(&b.value)))
            .unwrap_or(JsonStyle::OPM)
    }
}

/// The splices that turn a loaded blob's text (value `old`) into its current value.
fn patch_blob(
    blob: &Blob,
    old: &Node,
    original: &str,
    resolve: &dyn Fn(&Str) -> String,
    out: &mut Vec<Splice>,
) {
    let json = JsonStyle::detect(original, old);
    let yaml = YamlPatch {
        text: original,
        resolve,
        style: YamlStyle::detect(old),
        json,
    };
    if blob.has_anchors {
        // Anchors and aliases cannot be patched safely: write the document anew, with aliases
        // expanded.
        return yaml.rewrite_document(old, &blob.value, out);
    }
    match blob.format {
        Format::Json => JsonPatch {
            text: original,
            resolve,
            style: json,
        }
        .patch(old, &blob.value, out),
        Format::Yaml => yaml.patch_document(old, &blob.value, out),
    }
}

/// The bytes to cut for a removed blob: its document and the separator or whitespace that goes with it.
fn removal(text: &str, format: Format, start: usize, end: usize) -> Splice {
    let b = text.as_bytes();
    match format {
        Format::Yaml => {
            // Take the `---` line in front of the chunk with it. A first chunk leaves the following
            // separator, so the file then starts with `---` (an empty first document, skipped).
            let mut s = start;
            if s > 0 {
                let prev_line = line_start(text, s - 1);
                if text[prev_line..s].starts_with("---") {
                    s = prev_line;
                }
            }
            Splice::cut(s, end)
        }
        Format::Json => {
            let mut e = end;
            while e < b.len() && matches!(b[e], b' ' | b'\t' | b'\r') {
                e += 1;
            }
            if e < b.len() && b[e] == b'\n' {
                e += 1;
            }
            Splice::cut(start, e)
        }
    }
}
