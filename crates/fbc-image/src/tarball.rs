//! Reading tar streams (image layers, `oci-archive` and `docker-archive` files) entry by entry,
//! within budgets. A tar is untrusted input, so everything a header makes the reader hold is
//! bounded: a GNU long name or link and a PAX header are read only up to the `tar-header` budget,
//! GNU sparse maps are skipped (a sparse entry is reported, never expanded), sizes come from the
//! header alone and no buffer grows with them. Checksums are checked, so a stream that is not a tar
//! fails at its first header instead of being read as one.
//!
//! The `tar` crate reads long names and PAX headers whole with no limit and no way to set one; this
//! reader takes the few entry kinds images use and reports the rest.

use std::io::{self, Read, Seek, SeekFrom};

const BLOCK: usize = 512;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    File,
    Dir,
    HardLink,
    Symlink,
    /// A GNU or PAX sparse file: not expanded.
    Sparse,
    /// A device, a FIFO or a kind this reader does not know (its type flag).
    Other(u8),
}

/// An entry's header, long names and PAX records applied.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The path as written (bytes; not always UTF-8).
    pub path: Vec<u8>,
    pub kind: EntryKind,
    /// Bytes of data that follow the header in the stream.
    pub size: u64,
    /// A link's target.
    pub link: Option<Vec<u8>>,
}

impl Entry {
    /// The path as text, with anything that is not UTF-8 replaced (for messages).
    pub fn shown(&self) -> String {
        String::from_utf8_lossy(&self.path).into_owned()
    }
}

/// Where the tar comes from: a stream, or a file that can skip data without reading it.
pub(crate) trait Source: Read {
    /// Passes over `n` bytes; fails when the stream ends first.
    fn skip(&mut self, n: u64) -> io::Result<()>;
}

/// A stream read once (a layer): skipping reads and drops.
pub(crate) struct Stream<R>(pub R);

impl<R: Read> Read for Stream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read> Source for Stream<R> {
    fn skip(&mut self, n: u64) -> io::Result<()> {
        let copied = io::copy(&mut (&mut self.0).take(n), &mut io::sink())?;
        if copied < n {
            return Err(truncated("the data of an entry"));
        }
        Ok(())
    }
}

/// A file (an archive): skipping seeks.
pub(crate) struct Seekable<F> {
    pub file: F,
    pub len: u64,
    pub pos: u64,
}

impl<F: Read> Read for Seekable<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<F: Read + Seek> Source for Seekable<F> {
    fn skip(&mut self, n: u64) -> io::Result<()> {
        let to = self
            .pos
            .checked_add(n)
            .filter(|&to| to <= self.len)
            .ok_or_else(|| truncated("the data of an entry"))?;
        self.file.seek(SeekFrom::Start(to))?;
        self.pos = to;
        Ok(())
    }
}

fn truncated(inside: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("the tar stream ends inside {inside}"),
    )
}

fn invalid(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

/// Says that header data (`what`, of `size` bytes) is over the `tar-header` budget.
pub(crate) type OverLimit = Box<dyn Fn(&str, u64) -> String>;

/// A tar stream read entry by entry.
pub(crate) struct TarReader<S> {
    source: S,
    /// The largest long name, long link or PAX header accepted, in bytes.
    header_limit: u64,
    /// The message when a header goes over `header_limit`.
    over_limit: OverLimit,
    /// Data of the current entry not read yet, and the padding after it.
    left: u64,
    padding: u64,
    ended: bool,
}

/// A header number as Go's `archive/tar` reads it (which opm and the container tools use):
/// base-256 when the first byte's high bit is set (a negative one is refused), else octal with
/// leading and trailing spaces and NULs trimmed and the rest cut at a NUL. `None` when it is not a
/// number, or does not fit a signed 64-bit size.
fn number(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        if field[0] & 0x40 != 0 {
            return None;
        }
        let mut n: u64 = u64::from(field[0] & 0x3f);
        for &b in &field[1..] {
            n = n.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return (n <= i64::MAX as u64).then_some(n);
    }
    let trim = |b: &u8| *b == b' ' || *b == 0;
    let start = field.iter().position(|b| !trim(b)).unwrap_or(field.len());
    let end = field
        .iter()
        .rposition(|b| !trim(b))
        .map_or(start, |e| e + 1);
    if start == end {
        return Some(0);
    }
    let text = c_string(&field[start..end]);
    let mut n: u64 = 0;
    for &b in text {
        if !(b'0'..=b'7').contains(&b) {
            return None;
        }
        n = n.checked_mul(8)?.checked_add(u64::from(b - b'0'))?;
    }
    (n <= i64::MAX as u64).then_some(n)
}

fn c_string(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|b| *b == 0).unwrap_or(field.len());
    &field[..end]
}

fn checksum_ok(block: &[u8; BLOCK]) -> bool {
    let Some(stored) = number(&block[148..156]) else {
        return false;
    };
    let mut unsigned: u64 = 0;
    let mut signed: i64 = 0;
    for (i, &b) in block.iter().enumerate() {
        let b = if (148..156).contains(&i) { b' ' } else { b };
        unsigned += u64::from(b);
        signed += i64::from(b as i8);
    }
    stored == unsigned || i64::try_from(stored).is_ok_and(|s| s == signed)
}

fn padding(size: u64) -> u64 {
    (BLOCK as u64 - size % BLOCK as u64) % BLOCK as u64
}

/// What PAX records set for the next entry.
#[derive(Default)]
struct Pax {
    path: Option<Vec<u8>>,
    link: Option<Vec<u8>>,
    size: Option<u64>,
    sparse: bool,
    /// A GNU sparse file's own name (`GNU.sparse.name`), which stands for the entry's.
    sparse_name: Option<Vec<u8>>,
}

/// Parses PAX records (`LEN KEY=VALUE\n`).
fn pax_records(mut data: &[u8], pax: &mut Pax) -> io::Result<()> {
    let bad = || invalid("a PAX header record is malformed".into());
    while !data.is_empty() {
        if data.iter().all(|b| *b == 0) {
            break;
        }
        let space = data.iter().position(|b| *b == b' ').ok_or_else(bad)?;
        let len: usize = std::str::from_utf8(&data[..space])
            .ok()
            .and_then(|s| s.parse().ok())
            .filter(|&l| l > space + 1 && l <= data.len())
            .ok_or_else(bad)?;
        let record = &data[space + 1..len];
        let record = record.strip_suffix(b"\n").ok_or_else(bad)?;
        let eq = record.iter().position(|b| *b == b'=').ok_or_else(bad)?;
        let (key, value) = (&record[..eq], &record[eq + 1..]);
        match key {
            b"path" => pax.path = Some(value.to_vec()),
            b"linkpath" => pax.link = Some(value.to_vec()),
            b"size" => {
                pax.size = Some(
                    std::str::from_utf8(value)
                        .ok()
                        .and_then(|s| s.parse::<i64>().ok())
                        .and_then(|n| u64::try_from(n).ok())
                        .ok_or_else(bad)?,
                );
            }
            b"GNU.sparse.name" => {
                pax.sparse = true;
                pax.sparse_name = Some(value.to_vec());
            }
            k if k.starts_with(b"GNU.sparse.") => pax.sparse = true,
            _ => {}
        }
        data = &data[len..];
    }
    Ok(())
}

impl<S: Source> TarReader<S> {
    /// A reader of `source` that refuses header data over `header_limit` bytes, saying so with
    /// `over_limit(what, size)`.
    pub fn new(source: S, header_limit: u64, over_limit: OverLimit) -> TarReader<S> {
        TarReader {
            source,
            header_limit,
            over_limit,
            left: 0,
            padding: 0,
            ended: false,
        }
    }

    /// The source, positioned after what was read.
    pub fn source(&mut self) -> &mut S {
        &mut self.source
    }

    fn read_block(&mut self, inside: &str) -> io::Result<Option<[u8; BLOCK]>> {
        let mut block = [0u8; BLOCK];
        let mut filled = 0;
        while filled < BLOCK {
            match self.source.read(&mut block[filled..]) {
                Ok(0) if filled == 0 => return Ok(None),
                Ok(0) => return Err(truncated(inside)),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Some(block))
    }

    /// Reads a header's data (a long name, a PAX header) of `size` bytes, within the budget.
    fn header_data(&mut self, what: &str, size: u64) -> io::Result<Vec<u8>> {
        if size > self.header_limit {
            return Err(invalid((self.over_limit)(what, size)));
        }
        let mut data = Vec::with_capacity(size as usize);
        (&mut self.source).take(size).read_to_end(&mut data)?;
        if (data.len() as u64) < size {
            return Err(truncated(what));
        }
        self.source.skip(padding(size))?;
        Ok(data)
    }

    /// The next entry, after passing over what is left of the current one; `None` at the end of
    /// the archive (a block of zeros, or the end of the stream between entries).
    pub fn next_entry(&mut self) -> io::Result<Option<Entry>> {
        if self.ended {
            return Ok(None);
        }
        let rest = self
            .left
            .checked_add(self.padding)
            .ok_or_else(|| truncated("the data of an entry"))?;
        self.source.skip(rest)?;
        self.left = 0;
        self.padding = 0;
        let mut long_name: Option<Vec<u8>> = None;
        let mut long_link: Option<Vec<u8>> = None;
        let mut pax = Pax::default();
        loop {
            let Some(block) = self.read_block("a header")? else {
                self.ended = true;
                return Ok(None);
            };
            if block.iter().all(|b| *b == 0) {
                // The end: a second block of zeros, or the end of the stream. Anything else after a
                // block of zeros is not a tar (Go's reader says the same).
                self.ended = true;
                return match self.read_block("the end of the archive")? {
                    Some(next) if next.iter().any(|b| *b != 0) => Err(invalid(
                        "not a tar archive (a header follows a block of zeros)".into(),
                    )),
                    _ => Ok(None),
                };
            }
            if !checksum_ok(&block) {
                return Err(invalid(
                    "not a tar archive (a header's checksum does not match)".into(),
                ));
            }
            let size = number(&block[124..136])
                .ok_or_else(|| invalid("a tar header has an unreadable size".into()))?;
            let flag = block[156];
            match flag {
                b'L' => {
                    let mut data = self.header_data("a GNU long name", size)?;
                    data.truncate(c_string(&data).len());
                    long_name = Some(data);
                    continue;
                }
                b'K' => {
                    let mut data = self.header_data("a GNU long link", size)?;
                    data.truncate(c_string(&data).len());
                    long_link = Some(data);
                    continue;
                }
                b'x' | b'X' => {
                    let data = self.header_data("a PAX header", size)?;
                    pax_records(&data, &mut pax)?;
                    continue;
                }
                b'g' => {
                    self.header_data("a PAX global header", size)?;
                    continue;
                }
                _ => {}
            }
            let ustar = &block[257..263] == b"ustar\0";
            let path = match (pax.sparse_name.take().or(pax.path.take()), long_name.take()) {
                (Some(p), _) | (None, Some(p)) => p,
                (None, None) => {
                    let name = c_string(&block[0..100]);
                    let prefix = if ustar {
                        c_string(&block[345..500])
                    } else {
                        &[]
                    };
                    if prefix.is_empty() {
                        name.to_vec()
                    } else {
                        [prefix, b"/", name].concat()
                    }
                }
            };
            let link =
                pax.link.take().or(long_link.take()).or_else(|| {
                    Some(c_string(&block[157..257]).to_vec()).filter(|l| !l.is_empty())
                });
            let mut kind = match flag {
                b'0' | 0 | b'7' => EntryKind::File,
                b'1' => EntryKind::HardLink,
                b'2' => EntryKind::Symlink,
                b'5' => EntryKind::Dir,
                b'S' => EntryKind::Sparse,
                other => EntryKind::Other(other),
            };
            if pax.sparse {
                kind = EntryKind::Sparse;
            }
            // Old tars mark directories with a trailing slash on an entry of type NUL (only that
            // type, as Go's reader does).
            if flag == 0 && path.ends_with(b"/") {
                kind = EntryKind::Dir;
            }
            let size = pax.size.unwrap_or(size);
            if flag == b'S' && block[482] != 0 {
                self.skip_sparse_extensions()?;
            }
            // Links, devices, FIFOs and directories carry no data, whatever their size says (Go's
            // header-only types: a reader that skipped their size would see other entries).
            let size = match flag {
                b'1'..=b'6' => 0,
                _ => size,
            };
            self.left = size;
            self.padding = padding(size);
            return Ok(Some(Entry {
                path,
                kind,
                size,
                link,
            }));
        }
    }

    /// The extension blocks of an old GNU sparse entry, each flagging whether another follows.
    fn skip_sparse_extensions(&mut self) -> io::Result<()> {
        let most = (self.header_limit / BLOCK as u64).max(1);
        for _ in 0..most {
            let Some(ext) = self.read_block("a sparse map")? else {
                return Err(truncated("a sparse map"));
            };
            if ext[504] == 0 {
                return Ok(());
            }
        }
        Err(invalid((self.over_limit)(
            "a GNU sparse map",
            most * BLOCK as u64,
        )))
    }

    /// Reads the current entry's data.
    pub fn data(&mut self) -> Data<'_, S> {
        Data { tar: self }
    }
}

/// The data of the current entry.
pub(crate) struct Data<'t, S> {
    tar: &'t mut TarReader<S>,
}

impl<S: Source> Read for Data<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.tar.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf
            .len()
            .min(usize::try_from(self.tar.left).unwrap_or(usize::MAX));
        let n = self.tar.source.read(&mut buf[..want])?;
        if n == 0 {
            return Err(truncated("the data of an entry"));
        }
        self.tar.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
#[path = "tarball_tests.rs"]
pub(crate) mod tests;
