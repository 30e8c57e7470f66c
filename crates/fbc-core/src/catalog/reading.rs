//! Reading one catalog file: its bytes, within bounds, into a buffer a load reuses from file to
//! file; then its documents, each with its schema, package and name, and the file's problems.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::SourceFile;
use super::codes::catalog as codes;
use super::decode::{self, Document, Format, Meta};
use super::diagnostic::{Diagnostic, Location, Severity};
use super::load::{Found, LoadOptions, MAX_FILE, not_read};
use super::payload::Checked;
use super::yaml::Keep;
use crate::guard;
use crate::guard::file::ReadError;

/// What reading one file gave: the file, its objects and its problems.
pub(super) struct FileResult {
    pub(super) file: SourceFile,
    pub(super) docs: Vec<(Document, Meta)>,
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// The read buffers of one load, handed from file to file: a load holds one per thread reading
/// rather than leaving the allocator a freed one per file, and frees them when it ends.
#[derive(Default)]
pub(super) struct Buffers(std::sync::Mutex<Vec<Vec<u8>>>);

impl Buffers {
    /// Reads a regular file of at most [`MAX_FILE`] bytes (opened without blocking, its size
    /// checked before the buffer is sized).
    fn read(&self, path: &Path) -> Result<(ReadBuf<'_>, fs::Metadata), ReadError> {
        use std::io::Read as _;
        let (file, metadata) = guard::file::open_regular(path)?;
        let too_large = |len| ReadError::TooLarge {
            len,
            limit: MAX_FILE,
        };
        if metadata.len() > MAX_FILE {
            return Err(too_large(metadata.len()));
        }
        let spare = self.0.lock().ok().and_then(|mut spare| spare.pop());
        let mut buf = ReadBuf {
            bytes: spare.unwrap_or_default(),
            pool: self,
        };
        buf.bytes.clear();
        let len = usize::try_from(metadata.len()).unwrap_or(0);
        if buf.bytes.capacity() < len {
            // A fresh buffer, never grown (that would copy the old bytes over), and large enough
            // for the files read after this one: memory is taken from the system a page at a time
            // as it is first written, which costs more than the copy into it, so a thread's
            // buffer is made once and its pages written once, not once per larger file.
            buf.bytes = Vec::with_capacity(len.max(READ_BUFFER));
        }
        // The file's own read_to_end reads it in one call from its size (a `take` would read it in
        // 8 KiB, then doubling, calls); a file that grew past the limit meanwhile is refused after.
        let mut file = file;
        file.read_to_end(&mut buf.bytes)?;
        if buf.bytes.len() as u64 > MAX_FILE {
            return Err(too_large(buf.bytes.len() as u64));
        }
        Ok((buf, metadata))
    }
}

/// The least a load's read buffer holds. Only what a file fills of it is ever taken from the
/// system.
const READ_BUFFER: usize = 16 << 20;

/// A file's bytes, in a buffer that goes back to its load's [`Buffers`] when dropped.
struct ReadBuf<'p> {
    bytes: Vec<u8>,
    pool: &'p Buffers,
}

impl std::ops::Deref for ReadBuf<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for ReadBuf<'_> {
    fn drop(&mut self) {
        if let Ok(mut spare) = self.pool.0.lock() {
            spare.push(std::mem::take(&mut self.bytes));
        }
    }
}

/// Reads catalog file number `id` and decodes it: the file's record, its objects with their meta,
/// and its problems.
pub(super) fn read_file(
    id: u32,
    f: &Found,
    options: &LoadOptions,
    buffers: &Buffers,
) -> FileResult {
    let mut diagnostics = Vec::new();
    let mut file = SourceFile {
        path: f.rel.clone(),
        abs: f.abs.clone(),
        len: 0,
        modified: None,
        hash: 0,
        format: None,
        clean: false,
        blobs: Vec::new(),
        created: false,
        checked: None,
        overlay: None,
    };
    let fail = |diagnostics: Vec<Diagnostic>, file| FileResult {
        file,
        docs: Vec::new(),
        diagnostics,
    };
    let (bytes, metadata) = match buffers.read(&f.abs) {
        Ok(v) => v,
        Err(e) => {
            diagnostics.push(not_read(&f.rel, e));
            return fail(diagnostics, file);
        }
    };
    file.len = bytes.len() as u64;
    file.modified = metadata.modified().ok();
    if options.keep == Keep::All {
        file.hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    }
    // The quick check first (files are almost always UTF-8); the standard library's says where a
    // file is not.
    let text = match simdutf8::basic::from_utf8(&bytes).or_else(|_| std::str::from_utf8(&bytes)) {
        Ok(t) => t,
        Err(e) => {
            diagnostics.push(encoding_error(&f.rel, &bytes, e.valid_up_to()));
            return fail(diagnostics, file);
        }
    };
    let docs = decode::decode_kept(text, id, &f.rel, options.keep, &mut diagnostics);
    file.format = docs.first().map(|d| d.format).or_else(|| {
        let first = text.bytes().find(|b| !b.is_ascii_whitespace());
        Some(if first == Some(b'{') {
            Format::Json
        } else {
            Format::Yaml
        })
    });
    let mut with_meta = Vec::with_capacity(docs.len());
    for doc in docs {
        match decode::meta(&doc.node, &f.rel) {
            Ok(meta) => with_meta.push((doc, meta)),
            Err(d) => diagnostics.push(*d),
        }
    }
    file.clean = !diagnostics.iter().any(|d| d.severity == Severity::Error);
    if options.check_payloads {
        file.checked = Some(Arc::new(Checked::from_load(
            &bytes,
            with_meta.iter().map(|(d, _)| &d.node),
        )));
    }
    FileResult {
        file,
        docs: with_meta,
        diagnostics,
    }
}

/// A file that is not UTF-8 (invalid from byte `at`): where, and what it looks like.
fn encoding_error(rel: &str, bytes: &[u8], at: usize) -> Diagnostic {
    let before = &bytes[..at];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count() as u32;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count() as u32
        + 1;
    let what = if bytes.contains(&0) {
        "a binary file"
    } else {
        "not UTF-8 text"
    };
    Diagnostic::new(
        codes::ENCODING,
        Severity::Error,
        Location::new(rel, line, col),
        format!(
            "{what}: invalid UTF-8 byte 0x{:02x} at offset {at} (catalog files must be UTF-8 JSON or YAML)",
            bytes[at]
        ),
    )
}
