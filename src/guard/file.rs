//! Reading files that may not be what they claim: only regular files are read. A file is opened
//! without blocking (`O_NONBLOCK`, so a FIFO with no writer does not wait for one) and checked with
//! `fstat` on the opened handle (so the check and the read are about the same file), and its size
//! is known before any buffer is sized from it.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("not a regular file ({0}); not read")]
    NotRegular(&'static str),
    #[error("{len} bytes, more than the {limit} a file of this kind may have; not read")]
    TooLarge { len: u64, limit: u64 },
}

impl ReadError {
    /// Whether the file was not there.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

impl From<ReadError> for io::Error {
    fn from(e: ReadError) -> io::Error {
        match e {
            ReadError::Io(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
        }
    }
}

/// What a file type is, in words (`a FIFO`, `a directory`).
pub fn kind_name(ft: fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "an unknown kind of file"
    }
}

/// Opens `path` (following symbolic links) when it is a regular file, without ever blocking on
/// it; returns the handle and its metadata.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), ReadError> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular(kind_name(meta.file_type())));
    }
    Ok((file, meta))
}

/// The whole of a regular file of at most `limit` bytes. The size is checked before the buffer is
/// made, and the read stops at `limit` even when the file grows meanwhile.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            len: meta.len(),
            limit,
        });
    }
    let mut out = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            len: out.len() as u64,
            limit,
        });
    }
    Ok(out)
}

/// [`read_limited`] as UTF-8 text.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = read_limited(path, limit)?;
    String::from_utf8(bytes).map_err(|e| {
        ReadError::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (from byte {})",
                e.utf8_error().valid_up_to()
            ),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        mkfifo(&fifo);
        let err = read_limited(&fifo, 1 << 20).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file (a FIFO); not read");
        let err = read_limited(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a regular file (a character device); not read"
        );
        assert!(matches!(
            read_limited(dir.path(), 10).unwrap_err(),
            ReadError::NotRegular("a directory") | ReadError::Io(_)
        ));
    }

    #[test]
    fn a_file_over_its_limit_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let sparse = dir.path().join("s");
        let f = File::create(&sparse).unwrap();
        f.set_len(4 << 30).unwrap();
        let err = read_limited(&sparse, 1 << 20).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge { len, .. } if len == 4 << 30));
        std::fs::write(dir.path().join("ok"), "abc").unwrap();
        assert_eq!(read_limited(&dir.path().join("ok"), 3).unwrap(), b"abc");
        assert!(read_limited(&dir.path().join("ok"), 2).is_err());
        assert!(
            read_limited(&dir.path().join("none"), 2)
                .unwrap_err()
                .is_not_found()
        );
    }
}
