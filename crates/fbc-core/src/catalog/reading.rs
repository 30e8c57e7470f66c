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

/// The read buffers of one load, handed from file to file: a load holds one of each kind per
/// thread reading rather than leaving the allocator a freed one per file, and frees them when it
/// ends.
#[derive(Default)]
pub(super) struct Buffers {
    /// For whole files, each emptied before it is filled.
    whole: Pool,
    /// For windows: every byte set once, when the buffer was made or grown.
    windows: Pool,
}

type Pool = std::sync::Mutex<Vec<Vec<u8>>>;

impl Buffers {
    /// The rest of an opened file of at most `size` bytes (checked against [`MAX_FILE`] when
    /// opened), after the `first` bytes of it already read.
    fn read_whole(
        &self,
        file: &fs::File,
        size: u64,
        first: &[u8],
    ) -> Result<ReadBuf<'_>, ReadError> {
        let mut buf = ReadBuf::take(&self.whole);
        buf.bytes.clear();
        let len = usize::try_from(size).unwrap_or(0);
        if buf.bytes.capacity() < len {
            // A fresh buffer, never grown (that would copy the old bytes over), and large enough
            // for the files read after this one: memory is taken from the system a page at a time
            // as it is first written, which costs more than the copy into it, so a thread's
            // buffer is made once and its pages written once, not once per larger file.
            buf.bytes = Vec::with_capacity(len.max(READ_BUFFER));
        }
        buf.bytes.extend_from_slice(first);
        guard::file::read_rest_limited(file, &mut buf.bytes, MAX_FILE)?;
        Ok(buf)
    }

    /// A buffer for a window of `len` bytes. One grown for a large document is cut back, so the
    /// next file is read a window at a time; the memory it grew into is kept for the next large
    /// document (taking it from the system again costs more than keeping it).
    fn window(&self, len: usize) -> ReadBuf<'_> {
        let mut buf = ReadBuf::take(&self.windows);
        buf.bytes.resize(len, 0);
        buf
    }
}

fn too_large(len: u64) -> ReadError {
    ReadError::TooLarge {
        len,
        limit: MAX_FILE,
    }
}

/// Opens a regular file of at most [`MAX_FILE`] bytes, without blocking, its size checked before
/// anything is read.
fn open(path: &Path) -> Result<(fs::File, fs::Metadata), ReadError> {
    let (file, metadata) = guard::file::open_regular(path)?;
    if metadata.len() > MAX_FILE {
        return Err(too_large(metadata.len()));
    }
    Ok((file, metadata))
}

/// The least a load's read buffer for whole files holds. Only what a file fills of it is ever
/// taken from the system.
const READ_BUFFER: usize = 16 << 20;

/// How much of a YAML file a load that keeps less than everything reads at a time: whole
/// documents, as many as fit (a larger one gets a larger window). Its memory for reading is then
/// a window per thread, not its largest files whole, and the bytes parsed were just read: still
/// in the processor's cache. A load that keeps everything (the one a save relies on) reads each
/// file whole.
const WINDOW: usize = 256 << 10;

/// The window size: [`WINDOW`], or a test's (`None`: files are read whole).
fn window() -> Option<usize> {
    #[cfg(test)]
    if let Some(w) = test_window::get() {
        return w;
    }
    Some(WINDOW)
}

/// A test's window size, for the files read on its thread (a load reading on one thread).
#[cfg(test)]
pub(super) mod test_window {
    use std::cell::Cell;

    thread_local! {
        static WINDOW: Cell<Option<Option<usize>>> = const { Cell::new(None) };
        static SPLIT: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn get() -> Option<Option<usize>> {
        WINDOW.with(Cell::get)
    }

    /// A file was read in more than one window.
    pub(super) fn split() {
        SPLIT.with(|s| s.set(s.get() + 1));
    }

    /// What `f` gives with windows of `len` bytes (`None`: whole files) for the files read on
    /// this thread, and how many of them were read in more than one window.
    pub(in super::super) fn with<T>(len: Option<usize>, f: impl FnOnce() -> T) -> (T, usize) {
        WINDOW.with(|w| w.set(Some(len)));
        SPLIT.with(|s| s.set(0));
        let out = f();
        WINDOW.with(|w| w.set(None));
        (out, SPLIT.with(Cell::get))
    }
}

/// A buffer that goes back to its pool when dropped.
struct ReadBuf<'p> {
    bytes: Vec<u8>,
    pool: &'p Pool,
}

impl<'p> ReadBuf<'p> {
    fn take(pool: &'p Pool) -> ReadBuf<'p> {
        let spare = pool.lock().ok().and_then(|mut spare| spare.pop());
        ReadBuf {
            bytes: spare.unwrap_or_default(),
            pool,
        }
    }
}

impl std::ops::Deref for ReadBuf<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for ReadBuf<'_> {
    fn drop(&mut self) {
        if let Ok(mut spare) = self.pool.lock() {
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
    let read = open(&f.abs).and_then(|(handle, metadata)| {
        file.modified = metadata.modified().ok();
        read_open(id, f, options, buffers, handle, metadata.len())
    });
    let (len, read) = match read {
        Ok(read) => read,
        Err(e) => {
            return FileResult {
                file,
                docs: Vec::new(),
                diagnostics: vec![not_read(&f.rel, e)],
            };
        }
    };
    file.len = len;
    file.hash = read.hash;
    file.format = read.format;
    file.clean = !read
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    file.checked = read.checked.map(Arc::new);
    FileResult {
        file,
        docs: read.docs,
        diagnostics: read.diagnostics,
    }
}

/// What reading a file's bytes gave.
#[derive(Default)]
struct Read {
    docs: Vec<(Document, Meta)>,
    diagnostics: Vec<Diagnostic>,
    format: Option<Format>,
    hash: u64,
    checked: Option<Checked>,
}

/// Reads and decodes an opened file of `size` bytes (by its metadata): how many bytes it had, and
/// what they gave. A load that keeps everything reads it whole; any other reads a YAML file larger
/// than a window a window at a time.
fn read_open(
    id: u32,
    f: &Found,
    options: &LoadOptions,
    buffers: &Buffers,
    mut handle: fs::File,
    size: u64,
) -> Result<(u64, Read), ReadError> {
    let whole = |first: &[u8], handle: &fs::File| {
        let bytes = buffers.read_whole(handle, size, first)?;
        Ok((bytes.len() as u64, decode_whole(id, f, options, &bytes)))
    };
    let Some(window) = window().filter(|_| options.keep != Keep::All) else {
        return whole(&[], &handle);
    };
    let mut buf = buffers.window(window);
    let mut filled = 0;
    if fill(&mut handle, &mut buf.bytes, &mut filled)? {
        return Ok((filled as u64, decode_whole(id, f, options, &buf[..filled])));
    }
    // Enough to tell JSON from YAML by, as `decode::decode_kept` does.
    let head = &buf[..filled.min(4096)];
    let head = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    if !decode::plain_yaml(head) {
        return whole(&buf[..filled], &handle);
    }
    match read_windows(id, f, options, &mut handle, size, buf, filled)? {
        Some(read) => Ok(read),
        None => {
            // Not UTF-8: read whole again, to say where as a whole read does.
            std::io::Seek::rewind(&mut handle)?;
            whole(&[], &handle)
        }
    }
}

/// Decodes a whole file's bytes.
fn decode_whole(id: u32, f: &Found, options: &LoadOptions, bytes: &[u8]) -> Read {
    let mut read = Read::default();
    if options.keep == Keep::All {
        read.hash = xxhash_rust::xxh3::xxh3_64(bytes);
    }
    let text = match utf8(bytes) {
        Ok(t) => t,
        Err(at) => {
            read.diagnostics.push(encoding_error(&f.rel, bytes, at));
            return read;
        }
    };
    let docs = decode::decode_kept(text, id, &f.rel, options.keep, &mut read.diagnostics);
    read.format = docs.first().map(|d| d.format).or_else(|| {
        let first = text.bytes().find(|b| !b.is_ascii_whitespace());
        Some(if first == Some(b'{') {
            Format::Json
        } else {
            Format::Yaml
        })
    });
    read.docs = with_meta(docs, &f.rel, &mut read.diagnostics);
    if options.check_payloads {
        let nodes = read.docs.iter().map(|(d, _)| &d.node);
        read.checked = Some(Checked::from_load(bytes, 0, nodes));
    }
    read
}

/// The bytes as text, or where they stop being UTF-8: the quick check first (files are almost
/// always UTF-8); the standard library's says where they are not.
fn utf8(bytes: &[u8]) -> Result<&str, usize> {
    simdutf8::basic::from_utf8(bytes)
        .or_else(|_| std::str::from_utf8(bytes))
        .map_err(|e| e.valid_up_to())
}

/// Each document with its meta; a document without one is left out and its problem pushed.
fn with_meta(
    docs: Vec<Document>,
    rel: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(Document, Meta)> {
    let mut with_meta = Vec::with_capacity(docs.len());
    for doc in docs {
        match decode::meta(&doc.node, rel) {
            Ok(meta) => with_meta.push((doc, meta)),
            Err(d) => diagnostics.push(*d),
        }
    }
    with_meta
}

/// Reads and decodes a YAML file a window at a time, its first `filled` bytes in `buf`: whole
/// documents, as many as the window holds, parsed as soon as they are read and then placed where
/// they are in the file. The documents, problems (once the load sorts them) and verdicts are
/// those of a whole read. `None` when the file is not UTF-8.
fn read_windows(
    id: u32,
    f: &Found,
    options: &LoadOptions,
    file: &mut fs::File,
    size: u64,
    mut buf: ReadBuf<'_>,
    mut filled: usize,
) -> Result<Option<(u64, Read)>, ReadError> {
    // `buf[..filled]` holds the file's bytes from `base`, which is on line `line`.
    let (mut base, mut line, mut eof) = (0usize, 1u32, false);
    let (mut docs, mut diagnostics) = (Vec::new(), Vec::new());
    let mut checked = options.check_payloads.then(Checked::default);
    loop {
        if (base + filled) as u64 > MAX_FILE {
            return Err(too_large((base + filled) as u64));
        }
        // Up to the last line starting with `---`, which ends a document however opm finds it
        // written, so what is before it reads as it does in the whole file.
        let cut = if eof {
            Some(filled)
        } else {
            // Searched from the end, a line at a time: the bytes `---` are no rare ones.
            memchr::memrchr_iter(b'\n', &buf[..filled])
                .find(|&p| buf[p + 1..filled].starts_with(b"---"))
                .map(|p| p + 1)
        };
        let Some(cut) = cut else {
            // A document larger than the window: a window twice as large, or one just larger
            // than the rest of the file (by its size when opened) when that is less.
            let rest = usize::try_from(size).unwrap_or(0).saturating_sub(base) + 1;
            let len = if rest > filled {
                rest.min(2 * filled)
            } else {
                2 * filled
            };
            // Never past one byte more than a file may have, which the next turn refuses.
            let most = usize::try_from(MAX_FILE + 1).unwrap_or(usize::MAX) - base;
            buf.bytes.resize(len.min(most), 0);
            eof = fill(file, &mut buf.bytes, &mut filled)?;
            continue;
        };
        let Ok(text) = utf8(&buf[..cut]) else {
            return Ok(None);
        };
        let start = decode::Start {
            from: 0,
            line,
            base,
        };
        let (part, end_line) =
            decode::decode_yaml_part(text, start, id, &f.rel, options.keep, &mut diagnostics);
        let part = with_meta(part, &f.rel, &mut diagnostics);
        if let Some(checked) = &mut checked {
            let nodes = part.iter().map(|(d, _)| &d.node);
            checked.append(Checked::from_load(text.as_bytes(), base as u32, nodes));
        }
        docs.extend(part);
        if eof {
            break;
        }
        #[cfg(test)]
        if base == 0 {
            test_window::split();
        }
        line = end_line;
        buf.bytes.copy_within(cut..filled, 0);
        base += cut;
        filled -= cut;
        eof = fill(file, &mut buf.bytes, &mut filled)?;
    }
    let read = Read {
        docs,
        diagnostics,
        format: Some(Format::Yaml),
        hash: 0,
        checked,
    };
    Ok(Some(((base + filled) as u64, read)))
}

/// Reads on into `buf[*filled..]` until it is full or the file ends: whether it ended.
fn fill(file: &mut fs::File, buf: &mut [u8], filled: &mut usize) -> std::io::Result<bool> {
    use std::io::Read as _;
    while *filled < buf.len() {
        match file.read(&mut buf[*filled..]) {
            Ok(0) => return Ok(true),
            Ok(n) => *filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(false)
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
