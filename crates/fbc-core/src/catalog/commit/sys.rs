//! The system calls a commit makes, each relative to an open directory handle and never following
//! a link (`openat` with `O_NOFOLLOW`, `renameat2`, `linkat`, …), and the permission rules it checks.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::TEMP_PREFIX;
use super::resolve::Old;

pub(super) fn cstr(name: &str) -> std::io::Result<CString> {
    CString::new(name).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
}

pub(super) fn check(ret: libc::c_int) -> std::io::Result<libc::c_int> {
    if ret < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// An open directory.
pub(super) struct Dir {
    fd: OwnedFd,
}

impl Dir {
    pub(super) fn open_root(path: &Path) -> std::io::Result<Dir> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        // The root itself is the user's choice and may be reached through a link.
        // SAFETY: `c` is a NUL-terminated string that outlives the call; open reads it and nothing else.
        let fd = check(unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        })?;
        Ok(Dir {
            // SAFETY: `check` passed, so `fd` is a descriptor the call just opened; nothing else
            // owns it.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    pub(super) fn raw(&self) -> libc::c_int {
        self.fd.as_raw_fd()
    }

    /// The directory's device and inode, as the open handle sees it.
    pub(super) fn id(&self) -> std::io::Result<(u64, u64)> {
        // SAFETY: `libc::stat` is plain integers, for which all zero bytes are a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `self.fd` is open for the life of `self`; `st` is a writable stat buffer.
        check(unsafe { libc::fstat(self.raw(), &mut st) })?;
        Ok((st.st_dev, st.st_ino))
    }

    pub(super) fn stat(&self, name: &str) -> std::io::Result<libc::stat> {
        let c = cstr(name)?;
        // SAFETY: `libc::stat` is plain integers, for which all zero bytes are a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the directory descriptor is open for the life of `self`, `c` is NUL-terminated and
        // outlives the call, and `st` is a writable stat buffer.
        check(unsafe {
            libc::fstatat(self.raw(), c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW)
        })?;
        Ok(st)
    }

    /// Opens a subdirectory; fails on a link.
    pub(super) fn open_dir(&self, name: &str) -> std::io::Result<Dir> {
        let c = cstr(name)?;
        // SAFETY: the directory descriptor is open for the life of `self` and `c` is NUL-terminated
        // and outlives the call.
        let fd = check(unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        })?;
        Ok(Dir {
            // SAFETY: `check` passed, so `fd` is a descriptor the call just opened; nothing else
            // owns it.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    pub(super) fn mkdir(&self, name: &str) -> std::io::Result<()> {
        let c = cstr(name)?;
        // SAFETY: the directory descriptor is open for the life of `self` and `c` is NUL-terminated
        // and outlives the call.
        check(unsafe { libc::mkdirat(self.raw(), c.as_ptr(), 0o777) }).map(|_| ())
    }

    /// Opens a file for reading without following a link and without blocking (a FIFO swapped in
    /// since it was looked at does not wait for a writer; the caller's fstat then refuses it).
    pub(super) fn open_file(&self, name: &str) -> std::io::Result<std::fs::File> {
        let c = cstr(name)?;
        // SAFETY: the directory descriptor is open for the life of `self` and `c` is NUL-terminated
        // and outlives the call.
        let fd = check(unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        })?;
        // SAFETY: `check` passed, so `fd` is a descriptor the call just opened; nothing else owns it.
        Ok(unsafe { std::fs::File::from_raw_fd(fd) })
    }

    /// Creates a new file that must not exist, with `mode` (less the umask).
    pub(super) fn create_new(&self, name: &str, mode: u32) -> std::io::Result<std::fs::File> {
        let c = cstr(name)?;
        // SAFETY: the directory descriptor is open for the life of `self` and `c` is NUL-terminated
        // and outlives the call; the mode argument is the one O_CREAT reads.
        let fd = check(unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                mode as libc::c_uint,
            )
        })?;
        // SAFETY: `check` passed, so `fd` is a descriptor the call just opened; nothing else owns it.
        Ok(unsafe { std::fs::File::from_raw_fd(fd) })
    }

    pub(super) fn read_link(&self, name: &str) -> std::io::Result<Vec<u8>> {
        let c = cstr(name)?;
        let mut buf = vec![0u8; libc::PATH_MAX as usize];
        // SAFETY: `c` is NUL-terminated and outlives the call, and readlinkat writes at most
        // `buf.len()` bytes into `buf`, which is that long.
        let n =
            unsafe { libc::readlinkat(self.raw(), c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        buf.truncate(n as usize);
        Ok(buf)
    }

    pub(super) fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
        let (f, t) = (cstr(from)?, cstr(to)?);
        // SAFETY: the directory descriptor is open for the life of `self`; `f` and `t` are
        // NUL-terminated and outlive the call.
        check(unsafe { libc::renameat(self.raw(), f.as_ptr(), self.raw(), t.as_ptr()) }).map(|_| ())
    }

    /// Renames `from` to `to` only when `to` does not exist.
    pub(super) fn rename_new(&self, from: &str, to: &str) -> std::io::Result<()> {
        let (f, t) = (cstr(from)?, cstr(to)?);
        // SAFETY: the directory descriptor is open for the life of `self`; `f` and `t` are
        // NUL-terminated and outlive the call.
        let r = unsafe {
            libc::renameat2(
                self.raw(),
                f.as_ptr(),
                self.raw(),
                t.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINVAL) && e.raw_os_error() != Some(libc::ENOSYS) {
            return Err(e);
        }
        // No RENAME_NOREPLACE on this file system: a hard link fails when the name is taken too.
        self.link(from, to)?;
        self.unlink(from)
    }

    pub(super) fn link(&self, from: &str, to: &str) -> std::io::Result<()> {
        let (f, t) = (cstr(from)?, cstr(to)?);
        // SAFETY: the directory descriptor is open for the life of `self`; `f` and `t` are
        // NUL-terminated and outlive the call.
        check(unsafe { libc::linkat(self.raw(), f.as_ptr(), self.raw(), t.as_ptr(), 0) })
            .map(|_| ())
    }

    pub(super) fn unlink(&self, name: &str) -> std::io::Result<()> {
        let c = cstr(name)?;
        // SAFETY: the directory descriptor is open for the life of `self` and `c` is NUL-terminated
        // and outlives the call.
        check(unsafe { libc::unlinkat(self.raw(), c.as_ptr(), 0) }).map(|_| ())
    }

    pub(super) fn rmdir(&self, name: &str) -> std::io::Result<()> {
        let c = cstr(name)?;
        // SAFETY: the directory descriptor is open for the life of `self` and `c` is NUL-terminated
        // and outlives the call.
        check(unsafe { libc::unlinkat(self.raw(), c.as_ptr(), libc::AT_REMOVEDIR) }).map(|_| ())
    }

    pub(super) fn writable(&self) -> bool {
        let dot = c".";
        // SAFETY: the directory descriptor is open for the life of `self` and `dot` is a static
        // NUL-terminated string.
        unsafe {
            libc::faccessat(
                self.raw(),
                dot.as_ptr(),
                libc::W_OK | libc::X_OK,
                libc::AT_EACCESS,
            ) == 0
        }
    }

    pub(super) fn sync(&self) {
        // A directory that cannot be flushed still holds the renamed files; nothing to undo.
        // SAFETY: the directory descriptor is open for the life of `self`.
        unsafe {
            libc::fsync(self.raw());
        }
    }
}

pub(super) fn is_kind(st: &libc::stat, kind: libc::mode_t) -> bool {
    st.st_mode & libc::S_IFMT == kind
}

/// Whether the permission bits deny us writing (the owner's, group's or others' bits, whichever apply;
/// for root, whether no one may write).
pub(super) fn read_only(st: &libc::stat) -> bool {
    // SAFETY: geteuid takes no arguments and cannot fail.
    let euid = unsafe { libc::geteuid() };
    let mode = st.st_mode;
    if euid == 0 {
        return mode & 0o222 == 0;
    }
    if st.st_uid == euid {
        return mode & 0o200 == 0;
    }
    // SAFETY: getegid takes no arguments and cannot fail.
    let egid = unsafe { libc::getegid() };
    let in_group = st.st_gid == egid || {
        // SAFETY: with a size of 0 getgroups only counts the groups and writes nothing.
        let n = unsafe { libc::getgroups(0, std::ptr::null_mut()) };
        let mut groups = vec![0 as libc::gid_t; n.max(0) as usize];
        // SAFETY: getgroups writes at most `n` ids, and `groups` holds `n.max(0)` of them (a
        // negative `n` is refused without a write; a list grown since is refused with EINVAL).
        let n = unsafe { libc::getgroups(n, groups.as_mut_ptr()) };
        groups.truncate(n.max(0) as usize);
        groups.contains(&st.st_gid)
    };
    if in_group {
        mode & 0o020 == 0
    } else {
        mode & 0o002 == 0
    }
}

/// A fresh name beside a target: `.fbc-edit-<what>-<target>-<unique>`.
pub(super) fn side_name(what: &str, target: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    // Keep the name short enough for any file system, whatever the target's name.
    let short: String = target.chars().take(100).collect();
    format!(
        "{TEMP_PREFIX}{what}-{short}-{:x}{n:x}{nanos:x}",
        std::process::id()
    )
}

/// Gives a new file the owner, group and mode of the one it replaces (the owner only where the
/// process may change it).
pub(super) fn keep_owner_and_mode(file: &std::fs::File, old: &Old) -> std::io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: `libc::stat` is plain integers, for which all zero bytes are a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` belongs to `file`, open while it is borrowed; `st` is a writable stat buffer.
    check(unsafe { libc::fstat(fd, &mut st) })?;
    if st.st_uid != old.uid || st.st_gid != old.gid {
        // SAFETY: `fd` belongs to `file`, open while it is borrowed; fchown takes plain integers.
        let r = unsafe { libc::fchown(fd, old.uid, old.gid) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EPERM) {
                return Err(e);
            }
            // Not permitted to give the file away: keep at least the group where we are a member.
            // SAFETY: as above; an owner of -1 (u32::MAX) leaves the owner unchanged.
            unsafe {
                libc::fchown(fd, u32::MAX, old.gid);
            }
        }
    }
    // SAFETY: `fd` belongs to `file`, open while it is borrowed; fchmod takes plain integers.
    check(unsafe { libc::fchmod(fd, old.mode as libc::mode_t) }).map(|_| ())
}
