//! Reading files that may not be what they claim: only regular files are read. A file is opened
//! without blocking (`O_NONBLOCK`, so a FIFO with no writer does not wait for one) and checked with
//! `fstat` on the opened handle (so the check and the read are about the same file), and its size
//! is known before any buffer is sized from it.
//!
//! A file found in a directory the command line names (a bundle's manifest, an operator's
//! `ci.yaml`, a template) is read through [`Within`]: only when it resolves, symbolic links
//! followed, to a file inside that directory. A link committed by someone else never makes a read
//! leave it (to a token in the home directory, say).

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("not a regular file ({0}); not read")]
    NotRegular(&'static str),
    #[error("{len} bytes, more than the {limit} a file of this kind may have; not read")]
    TooLarge { len: u64, limit: u64 },
    /// The path resolves (through a symbolic link) to `target`, outside the directory it may be
    /// read in (`root`, resolved).
    #[error("a symbolic link to {}, outside {}; not read", target.display(), root.display())]
    Outside { target: PathBuf, root: PathBuf },
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
    open_with(path, 0)
}

/// [`open_regular`] with more `open(2)` flags.
fn open_with(path: &Path, flags: libc::c_int) -> Result<(File, Metadata), ReadError> {
    super::reads::note(|| path.display().to_string());
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | flags)
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
    read_opened(open_regular(path)?, limit)
}

/// The whole of an opened regular file of at most `limit` bytes.
fn read_opened((file, meta): (File, Metadata), limit: u64) -> Result<Vec<u8>, ReadError> {
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            len: meta.len(),
            limit,
        });
    }
    let mut out = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    read_rest_limited(&file, &mut out, limit)?;
    Ok(out)
}

/// Reads the rest of `file` onto the end of `buf`, for a file of at most `limit` bytes in all
/// (what `buf` held counted): at most one byte past the limit is read however the file grows
/// meanwhile (its size was checked when it was opened), and then it is refused.
pub fn read_rest_limited(file: &File, buf: &mut Vec<u8>, limit: u64) -> Result<(), ReadError> {
    let room = limit.saturating_add(1).saturating_sub(buf.len() as u64);
    // Read in calls of 8 KiB, then doubling (a `take` gives no size to read at once): a few more
    // calls than one from the file's size, for a bound that holds.
    file.take(room).read_to_end(buf)?;
    if buf.len() as u64 > limit {
        // The size it has grown to, as far as it can be told.
        let len = file.metadata().map_or(0, |m| m.len()).max(buf.len() as u64);
        return Err(ReadError::TooLarge { len, limit });
    }
    Ok(())
}

/// [`read_limited`] as UTF-8 text.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, ReadError> {
    utf8(read_limited(path, limit)?)
}

fn utf8(bytes: Vec<u8>) -> Result<String, ReadError> {
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

/// A directory files are read inside of, fixed (symbolic links resolved) once: a path is read
/// only when it resolves, every link followed, to a regular file below it. Links that stay inside
/// are followed; one that leaves is [`ReadError::Outside`], and the file it leads to is not opened.
#[derive(Debug, Clone)]
pub struct Within {
    /// Absolute, every link resolved.
    resolved: PathBuf,
}

impl Within {
    /// The directory `root`; an error when it cannot be resolved (it does not exist, say).
    pub fn new(root: &Path) -> io::Result<Within> {
        Ok(Within {
            resolved: fs::canonicalize(root)?,
        })
    }

    /// The directory, absolute, every link resolved.
    pub fn root(&self) -> &Path {
        &self.resolved
    }

    /// [`open_regular`], for a path that resolves inside the directory only. The file opened is
    /// the one resolved, opened without following a link there (one put in its place meanwhile).
    pub fn open_regular(&self, path: &Path) -> Result<(File, Metadata), ReadError> {
        let target = fs::canonicalize(path)?;
        if !target.starts_with(&self.resolved) {
            return Err(ReadError::Outside {
                target,
                root: self.resolved.clone(),
            });
        }
        open_with(&target, libc::O_NOFOLLOW)
    }

    /// [`read_limited`], for a path that resolves inside the directory only.
    pub fn read_limited(&self, path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
        read_opened(self.open_regular(path)?, limit)
    }

    /// [`read_text_limited`], for a path that resolves inside the directory only.
    pub fn read_text_limited(&self, path: &Path, limit: u64) -> Result<String, ReadError> {
        utf8(self.read_limited(path, limit)?)
    }
}

/// [`Within::open_regular`] for one file: `path` only when it resolves inside `root`.
pub fn open_regular_within(root: &Path, path: &Path) -> Result<(File, Metadata), ReadError> {
    Within::new(root)?.open_regular(path)
}

/// [`Within::read_limited`] for one file: `path` only when it resolves inside `root`.
pub fn read_limited_within(root: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    Within::new(root)?.read_limited(path, limit)
}

/// [`Within::read_text_limited`] for one file: `path` only when it resolves inside `root`.
pub fn read_text_limited_within(root: &Path, path: &Path, limit: u64) -> Result<String, ReadError> {
    Within::new(root)?.read_text_limited(path, limit)
}

/// The directory a file named by `path` is in, as named (`.` for a bare file name): the root a
/// file named on its own is read within.
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Makes a FIFO at `p`.
    pub(crate) fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is NUL-terminated and outlives the call.
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

    #[test]
    fn a_file_grown_after_it_was_opened_is_read_one_byte_past_its_limit_and_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grows");
        std::fs::write(&path, "abc").unwrap();
        let (file, meta) = open_regular(&path).unwrap();
        assert_eq!(meta.len(), 3);
        // Grown (sparse, so at no cost) between the size check and the read.
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(8 << 30)
            .unwrap();
        let mut buf = b"ab".to_vec();
        let err = read_rest_limited(&file, &mut buf, 1000).unwrap_err();
        // Said with the size it has grown to.
        assert!(
            matches!(err, ReadError::TooLarge { len, limit: 1000 } if len == 8 << 30),
            "{err}"
        );
        assert_eq!(buf.len(), 1001);
        let (file, _) = open_regular(&dir.path().join("grows")).unwrap();
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(3)
            .unwrap();
        let mut buf = Vec::new();
        read_rest_limited(&file, &mut buf, 3).unwrap();
        assert_eq!(buf, b"abc");
    }

    #[test]
    fn a_link_leaving_the_root_is_refused_without_reading_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let secret = tmp.path().join("secret.txt");
        std::fs::write(&secret, "token").unwrap();
        std::os::unix::fs::symlink(&secret, root.join("abs.yaml")).unwrap();
        std::os::unix::fs::symlink("../../secret.txt", root.join("sub/rel.yaml")).unwrap();
        // A directory link leaving the root takes the file below it out too.
        std::os::unix::fs::symlink(tmp.path(), root.join("up")).unwrap();
        let within = Within::new(&root).unwrap();
        for path in [
            root.join("abs.yaml"),
            root.join("sub/rel.yaml"),
            root.join("up/secret.txt"),
        ] {
            let err = within.read_limited(&path, 1 << 20).unwrap_err();
            assert!(
                matches!(&err, ReadError::Outside { target, .. } if *target == secret.canonicalize().unwrap()),
                "{path:?}: {err:?}"
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "a symbolic link to {}, outside {}; not read",
                    secret.canonicalize().unwrap().display(),
                    root.canonicalize().unwrap().display()
                )
            );
            assert!(!err.is_not_found());
            assert!(read_text_limited_within(&root, &path, 10).is_err());
        }
    }

    #[test]
    fn links_inside_the_root_are_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir_all(real.join("store")).unwrap();
        std::fs::write(real.join("store/a.txt"), "abc").unwrap();
        std::os::unix::fs::symlink("store/a.txt", real.join("a.yaml")).unwrap();
        // The root itself through a link: resolved once, the files below it still inside.
        let alias = tmp.path().join("alias");
        std::os::unix::fs::symlink(&real, &alias).unwrap();
        for root in [&real, &alias] {
            let within = Within::new(root).unwrap();
            assert_eq!(
                within.read_limited(&root.join("a.yaml"), 3).unwrap(),
                b"abc"
            );
            assert_eq!(
                within
                    .read_text_limited(&root.join("store/a.txt"), 3)
                    .unwrap(),
                "abc"
            );
            assert!(matches!(
                within.read_limited(&root.join("a.yaml"), 2).unwrap_err(),
                ReadError::TooLarge { len: 3, limit: 2 }
            ));
        }
        // Relative to the working directory as well as absolute.
        let (_, meta) = Within::new(Path::new("src"))
            .unwrap()
            .open_regular(Path::new("src/lib.rs"))
            .unwrap();
        assert!(meta.is_file());
    }

    #[test]
    fn missing_files_fifos_and_directories_inside_the_root_read_as_before() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let within = Within::new(root).unwrap();
        assert!(
            within
                .read_limited(&root.join("none"), 10)
                .unwrap_err()
                .is_not_found()
        );
        // A broken link is a file that is not there.
        std::os::unix::fs::symlink("none", root.join("broken")).unwrap();
        assert!(
            within
                .read_limited(&root.join("broken"), 10)
                .unwrap_err()
                .is_not_found()
        );
        mkfifo(&root.join("f"));
        std::os::unix::fs::symlink("f", root.join("to-fifo")).unwrap();
        for p in ["f", "to-fifo"] {
            assert_eq!(
                within
                    .read_limited(&root.join(p), 10)
                    .unwrap_err()
                    .to_string(),
                "not a regular file (a FIFO); not read"
            );
        }
        assert!(matches!(
            within.read_limited(root, 10).unwrap_err(),
            ReadError::NotRegular("a directory")
        ));
        // A root that is not there: nothing below it is either.
        assert!(
            read_limited_within(&root.join("gone"), &root.join("gone/x"), 10)
                .unwrap_err()
                .is_not_found()
        );
        assert_eq!(dir_of(Path::new("t.yaml")), Path::new("."));
        assert_eq!(dir_of(Path::new("a/t.yaml")), Path::new("a"));
    }
}
