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
pub(crate) mod tests {
    use super::*;

    /// A raw header block: name, type flag, size, link; checksum set.
    pub(crate) fn header(name: &[u8], flag: u8, size: u64, link: &[u8]) -> [u8; BLOCK] {
        let mut h = [0u8; BLOCK];
        h[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[156] = flag;
        h[157..157 + link.len().min(100)].copy_from_slice(&link[..link.len().min(100)]);
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        set_checksum(&mut h);
        h
    }

    pub(crate) fn set_checksum(h: &mut [u8; BLOCK]) {
        h[148..156].copy_from_slice(b"        ");
        let sum: u64 = h.iter().map(|b| u64::from(*b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    }

    /// An entry: its header, then its data padded to a block.
    pub(crate) fn entry(name: &[u8], flag: u8, data: &[u8], link: &[u8]) -> Vec<u8> {
        let mut out = header(name, flag, data.len() as u64, link).to_vec();
        out.extend_from_slice(data);
        out.resize(out.len() + padding(data.len() as u64) as usize, 0);
        out
    }

    fn reader(bytes: &[u8], limit: u64) -> TarReader<Stream<&[u8]>> {
        TarReader::new(
            Stream(bytes),
            limit,
            Box::new(|what, size| format!("{what} of {size} bytes")),
        )
    }

    fn all(bytes: &[u8], limit: u64) -> io::Result<Vec<(String, EntryKind, String)>> {
        let mut r = reader(bytes, limit);
        let mut out = Vec::new();
        while let Some(e) = r.next_entry()? {
            let mut data = String::new();
            if e.kind == EntryKind::File {
                r.data().read_to_string(&mut data)?;
            }
            out.push((e.shown(), e.kind, data));
        }
        Ok(out)
    }

    #[test]
    fn entries_of_a_tar_written_by_the_tar_crate_read_back() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_size(0);
        b.append_data(&mut h, "configs/", &b""[..]).unwrap();
        let long = format!("configs/{}/catalog.yaml", "p".repeat(150));
        let mut h = tar::Header::new_gnu();
        h.set_size(5);
        b.append_data(&mut h, &long, &b"hello"[..]).unwrap();
        let mut h = tar::Header::new_ustar();
        h.set_size(2);
        b.append_data(&mut h, "a/b", &b"ok"[..]).unwrap();
        let bytes = b.into_inner().unwrap();
        let got = all(&bytes, 1 << 20).unwrap();
        assert_eq!(
            got,
            [
                ("configs/".into(), EntryKind::Dir, String::new()),
                (long, EntryKind::File, "hello".into()),
                ("a/b".into(), EntryKind::File, "ok".into()),
            ]
        );
    }

    #[test]
    fn pax_records_set_path_and_size() {
        let records = b"19 path=pax/name.y\n";
        let mut bytes = entry(b"PaxHeader", b'x', records, b"");
        bytes.extend(entry(b"short", b'0', b"data", b""));
        let got = all(&bytes, 1 << 20).unwrap();
        assert_eq!(got, [("pax/name.y".into(), EntryKind::File, "data".into())]);
    }

    #[test]
    fn a_long_name_over_the_budget_is_refused_without_being_read() {
        let mut bytes = header(b"././@LongLink", b'L', 1 << 30, b"").to_vec();
        bytes.extend(vec![b'a'; 4096]);
        let err = all(&bytes, 1 << 20).unwrap_err();
        assert_eq!(err.to_string(), "a GNU long name of 1073741824 bytes");
        let mut pax = header(b"PaxHeader", b'x', 2 << 20, b"").to_vec();
        pax.extend(vec![b'1'; 4096]);
        assert!(
            all(&pax, 1 << 20)
                .unwrap_err()
                .to_string()
                .contains("a PAX header")
        );
    }

    #[test]
    fn a_stream_that_is_not_a_tar_fails_at_its_first_header() {
        let err = all(&[b'x'; 1024], 1 << 20).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        let mut cut = entry(b"f", b'0', &[b'1'; 600], b"");
        cut.truncate(700);
        assert!(all(&cut, 1 << 20).is_err());
    }

    #[test]
    fn sparse_entries_and_devices_are_reported_not_expanded() {
        let mut sparse = header(b"big", b'S', 0, b"");
        // realsize: an exabyte, with one extension block following.
        sparse[483..495].copy_from_slice(b"77777777777\0");
        sparse[482] = 1;
        set_checksum(&mut sparse);
        let mut bytes = sparse.to_vec();
        bytes.extend([0u8; BLOCK]);
        bytes.extend(entry(b"fifo", b'6', b"", b""));
        bytes.extend(entry(b"after", b'0', b"x", b""));
        let got = all(&bytes, 1 << 20).unwrap();
        assert_eq!(
            got,
            [
                ("big".into(), EntryKind::Sparse, String::new()),
                ("fifo".into(), EntryKind::Other(b'6'), String::new()),
                ("after".into(), EntryKind::File, "x".into()),
            ]
        );
    }

    #[test]
    fn numbers_in_octal_and_base_256() {
        assert_eq!(number(b"00000000012\0"), Some(10));
        assert_eq!(number(b"   12 \0"), Some(10));
        assert_eq!(
            number(&[0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]),
            Some(1 << 32)
        );
        assert_eq!(number(b"9"), None);
        assert_eq!(number(&[0xff; 12]), None);
        // Leading NULs are trimmed, as Go trims them: this is 1024, not 0.
        assert_eq!(number(b"\0\0\0\0\0\0\x002000\0"), Some(1024));
        assert_eq!(number(&[0u8; 12]), Some(0));
        assert_eq!(
            number(&[
                0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0
            ]),
            None
        );
    }

    /// A header whose data hides another entry: Go's reader and this one must see the same
    /// entries.
    fn hiding(flag: u8, name: &[u8]) -> Vec<u8> {
        let hidden = entry(b"configs/hidden/catalog.yaml", b'0', b"x", b"");
        let mut out = header(name, flag, hidden.len() as u64, b"").to_vec();
        out.extend(&hidden);
        out.extend(entry(b"configs/after", b'0', b"y", b""));
        out
    }

    fn names(bytes: &[u8]) -> Vec<String> {
        all(bytes, 1 << 20)
            .unwrap()
            .into_iter()
            .map(|e| e.0)
            .collect()
    }

    #[test]
    fn entries_read_as_go_reads_them() {
        // A FIFO, a device or a link carries no data: what follows its header is the next entry.
        for flag in [b'3', b'4', b'6', b'1', b'2', b'5'] {
            assert_eq!(
                names(&hiding(flag, b"configs/x")),
                ["configs/x", "configs/hidden/catalog.yaml", "configs/after"],
                "type {}",
                flag as char
            );
        }
        // An entry whose name ends in `/` keeps its data (Go skips it by its size); only one of
        // type NUL is a directory then, the others are files.
        let kinds = |bytes: &[u8]| -> Vec<(String, EntryKind)> {
            all(bytes, 1 << 20)
                .unwrap()
                .into_iter()
                .map(|e| (e.0, e.1))
                .collect()
        };
        assert_eq!(
            kinds(&hiding(b'0', b"configs/dir/")),
            [
                ("configs/dir/".into(), EntryKind::File),
                ("configs/after".into(), EntryKind::File)
            ]
        );
        assert_eq!(
            kinds(&hiding(0, b"configs/dir/")),
            [
                ("configs/dir/".into(), EntryKind::Dir),
                ("configs/after".into(), EntryKind::File)
            ]
        );
    }

    #[test]
    fn a_size_that_cannot_be_a_size_is_refused() {
        let mut h = header(b"f", b'0', 0, b"");
        h[124..136].copy_from_slice(&[
            0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ]);
        set_checksum(&mut h);
        assert!(all(&h, 1 << 20).is_err());
        let mut h = header(b"f", b'0', 0, b"");
        h[124..136].copy_from_slice(b"\0\0\0\0\0\0\x002000\0");
        set_checksum(&mut h);
        let mut bytes = h.to_vec();
        bytes.extend(entry(b"hidden", b'0', b"x", b""));
        bytes.resize(512 + 1024, 0);
        bytes.extend(entry(b"after", b'0', b"y", b""));
        assert_eq!(names(&bytes), ["f", "after"]);
    }

    #[test]
    fn a_header_after_a_block_of_zeros_is_an_error() {
        let mut bytes = entry(b"a", b'0', b"1", b"");
        bytes.extend([0u8; 512]);
        bytes.extend(entry(b"b", b'0', b"2", b""));
        assert!(all(&bytes, 1 << 20).is_err());
        let mut end = entry(b"a", b'0', b"1", b"");
        end.extend([0u8; 512]);
        assert_eq!(names(&end), ["a"]);
    }

    #[test]
    fn a_gnu_sparse_name_stands_for_the_entry() {
        let records = b"29 GNU.sparse.name=real.yaml\n";
        let mut bytes = entry(b"PaxHeader", b'x', records, b"");
        bytes.extend(entry(b"GNUSparseFile.0/real.yaml", b'0', b"", b""));
        let got = all(&bytes, 1 << 20).unwrap();
        assert_eq!(
            got,
            [("real.yaml".into(), EntryKind::Sparse, String::new())]
        );
    }
}
