//! Finding where a planned file goes: one component at a time from the root, never through a
//! directory link, following file links only while they stay inside the root, and reading what the
//! file holds now.

use std::ffi::OsStr;
use std::fmt;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::sys::{Dir, check, is_kind, read_only};
use super::tx::Tx;
use super::{Expect, Refusal};
use crate::guard::file::ReadError;

/// Where a planned file goes, once resolved.
pub(super) struct Target {
    /// The directory components from the root to the file's directory (after following file links).
    pub dirs: Vec<String>,
    /// How many of the last `dirs` do not exist yet.
    pub missing: usize,
    pub name: String,
    /// The path written, relative to the root (differs from the planned path behind a link).
    pub rel: String,
    /// The file as it is now, when it exists.
    pub old: Option<Old>,
}

/// A file about to be replaced, as it is now.
pub(super) struct Old {
    pub bytes: Vec<u8>,
    pub read_only: bool,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub dev: u64,
    pub ino: u64,
}

/// Why a path cannot be resolved.
pub(super) enum Resolve {
    Refused(Refusal),
    Io(std::io::Error),
}

impl fmt::Debug for Resolve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resolve::Refused(r) => write!(f, "{r:?}"),
            Resolve::Io(e) => write!(f, "{e}"),
        }
    }
}

impl Tx<'_> {
    /// Resolves `rel` from the root without following directory links; follows file links that stay
    /// inside the root.
    /// What is there is read only as far as `expect` allows: a file that should not be there, or is
    /// of another length than was read, is refused unread.
    pub(super) fn resolve(
        &mut self,
        rel: &str,
        depth: usize,
        expect: Expect,
    ) -> Result<Target, Resolve> {
        if depth > 8 {
            return Err(Resolve::Refused(Refusal::TooManyLinks));
        }
        let parts: Vec<&str> = rel.split('/').collect();
        if parts
            .iter()
            .any(|c| c.is_empty() || *c == "." || *c == "..")
        {
            return Err(Resolve::Refused(Refusal::BadPath));
        }
        let (name, dir_parts) = parts
            .split_last()
            .ok_or(Resolve::Refused(Refusal::BadPath))?;
        let (path, missing) = self.open_dirs(dir_parts)?;
        let target = |old| Target {
            dirs: dir_parts.iter().map(|s| s.to_string()).collect(),
            missing,
            name: name.to_string(),
            rel: rel.to_string(),
            old,
        };
        if missing > 0 {
            return Ok(target(None));
        }
        let dir = &self.dirs[&path];
        let st = match dir.stat(name) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(target(None)),
            Err(e) => return Err(Resolve::Io(e)),
            Ok(st) => st,
        };
        if is_kind(&st, libc::S_IFLNK) {
            let link = dir.read_link(name).map_err(Resolve::Io)?;
            let dirs: Vec<String> = dir_parts.iter().map(|s| s.to_string()).collect();
            let linked = self.link_target(&dirs, &link)?;
            return self.resolve(&linked, depth + 1, expect);
        }
        if !is_kind(&st, libc::S_IFREG) {
            return Err(Resolve::Refused(Refusal::NotARegularFile));
        }
        Ok(target(Some(read_old(dir, name, expect)?)))
    }

    /// Opens (and keeps open) the directories `dir_parts` from the root, refusing links and
    /// non-directories. Returns the path of the deepest one opened and how many do not exist yet.
    fn open_dirs(&mut self, dir_parts: &[&str]) -> Result<(String, usize), Resolve> {
        let mut path = String::new();
        for (k, comp) in dir_parts.iter().enumerate() {
            let child = if path.is_empty() {
                comp.to_string()
            } else {
                format!("{path}/{comp}")
            };
            if !self.dirs.contains_key(&child) {
                let parent = &self.dirs[&path];
                match parent.stat(comp) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Ok((path, dir_parts.len() - k));
                    }
                    Err(e) => return Err(Resolve::Io(e)),
                    Ok(st) if is_kind(&st, libc::S_IFLNK) => {
                        return Err(Resolve::Refused(Refusal::LinkedDirectory(child)));
                    }
                    Ok(st) if !is_kind(&st, libc::S_IFDIR) => {
                        return Err(Resolve::Refused(Refusal::NotADirectory(child)));
                    }
                    Ok(_) => {}
                }
                // Opened without following links: a directory swapped for a link since the stat fails.
                let dir = parent.open_dir(comp).map_err(|e| {
                    if e.raw_os_error() == Some(libc::ELOOP) {
                        Resolve::Refused(Refusal::LinkedDirectory(child.clone()))
                    } else {
                        Resolve::Io(e)
                    }
                })?;
                self.dirs.insert(child.clone(), dir);
            }
            path = child;
        }
        Ok((path, 0))
    }

    /// The root-relative path a link in directory `dirs` points to, or a refusal when it leaves the root.
    fn link_target(&self, dirs: &[String], link: &[u8]) -> Result<String, Resolve> {
        let link_path = Path::new(OsStr::from_bytes(link));
        let outside = || Resolve::Refused(Refusal::LinkOutside(link_path.display().to_string()));
        let (base, rest) = if link_path.is_absolute() {
            let rest = link_path
                .strip_prefix(&self.canonical_root)
                .or_else(|_| link_path.strip_prefix(&self.root))
                .map_err(|_| outside())?;
            (&[][..], rest)
        } else {
            (dirs, link_path)
        };
        normalize(base, rest.to_str().ok_or_else(outside)?).ok_or_else(outside)
    }
}

/// Reads the regular file `name` of `dir` as it is now (what was opened, not what was looked at),
/// when it is what `expect` says it was: one that should not be there, or is not of the length
/// read, is refused without reading it (it may be of any size: a sparse file costs nothing to
/// make), and no more than one byte past that length is read of one that grows meanwhile.
fn read_old(dir: &Dir, name: &str, expect: Expect) -> Result<Old, Resolve> {
    let file = dir.open_file(name).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            Resolve::Refused(Refusal::ChangedOnDisk)
        } else {
            Resolve::Io(e)
        }
    })?;
    // What was opened, not what was looked at before: it may have been swapped in between.
    // SAFETY: `libc::stat` is plain integers, for which all zero bytes are a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: the descriptor belongs to `file`, open for this whole function; `st` is a writable
    // stat buffer.
    check(unsafe { libc::fstat(file.as_raw_fd(), &mut st) }).map_err(Resolve::Io)?;
    if !is_kind(&st, libc::S_IFREG) {
        return Err(Resolve::Refused(Refusal::NotARegularFile));
    }
    let len = match expect {
        Expect::Absent => return Err(Resolve::Refused(Refusal::Exists)),
        Expect::Unchanged { len, .. } if st.st_size.max(0) as u64 != len => {
            return Err(Resolve::Refused(Refusal::ChangedOnDisk));
        }
        Expect::Unchanged { len, .. } => len,
    };
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    match crate::guard::file::read_rest_limited(&file, &mut bytes, len) {
        Ok(()) => {}
        Err(ReadError::TooLarge { .. }) => return Err(Resolve::Refused(Refusal::ChangedOnDisk)),
        Err(e) => return Err(Resolve::Io(e.into())),
    }
    Ok(Old {
        bytes,
        read_only: read_only(&st),
        mode: st.st_mode & 0o7777,
        uid: st.st_uid,
        gid: st.st_gid,
        dev: st.st_dev,
        ino: st.st_ino,
    })
}

/// Joins `base` directory components with a relative link text, resolving `.` and `..` lexically (every
/// directory on the way is checked not to be a link when the result is resolved); `None` above the root.
fn normalize(base: &[String], link: &str) -> Option<String> {
    let mut parts: Vec<String> = base.to_vec();
    for c in link.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c.to_string()),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}
