//! Writing a set of files under a root directory, all or nothing, never outside the root.
//!
//! Every path is resolved when it is written, one component at a time from a handle on the root
//! directory, without following symbolic links (`openat` with `O_NOFOLLOW`): a directory on the way that
//! is a link, or was swapped for one since the catalog was read, stops the save. A file that is a link
//! to another file inside the root is written at its target and the link is kept; a link that leaves the
//! root is refused. New directories and files are created relative to their parent's handle, new files
//! with `O_EXCL`, so nothing is created through a link either.
//!
//! A commit goes in steps: resolve and check every target (unchanged since it was read, or still absent;
//! not read-only unless forced), create missing directories, write and fsync every temporary file, keep
//! a second name (a hard link, or a copy when the file system has none) of every file about to be
//! replaced, check every target once more, then rename each temporary file over its target. A failure at
//! any step undoes what was done (replaced files get their second name back, new files and directories
//! are removed), and the error lists every file and what became of it.

use std::ffi::{CString, OsStr};
use std::fmt;
use std::io::{Read as _, Write as _};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Name prefix of the temporary files and the second names a commit makes beside the files it writes.
pub const TEMP_PREFIX: &str = ".fbc-edit-";

/// What a planned file expects to find on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Nothing: the file is new.
    Absent,
    /// The bytes that were read (their length and xxh3 hash).
    Unchanged { len: u64, hash: u64 },
}

/// One file to write: its path relative to the root (`/`-separated) and its new bytes.
#[derive(Debug, Clone)]
pub struct PlannedFile {
    pub rel: String,
    pub bytes: Vec<u8>,
    pub expect: Expect,
}

/// The steps of a commit, in order; a [`Fault`] names one to fail at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Check,
    CreateDir,
    WriteTemp,
    Sync,
    Backup,
    Verify,
    Rename,
}

impl Step {
    const ALL: [Step; 7] = [
        Step::Check,
        Step::CreateDir,
        Step::WriteTemp,
        Step::Sync,
        Step::Backup,
        Step::Verify,
        Step::Rename,
    ];

    fn name(self) -> &'static str {
        match self {
            Step::Check => "check",
            Step::CreateDir => "mkdir",
            Step::WriteTemp => "write",
            Step::Sync => "sync",
            Step::Backup => "backup",
            Step::Verify => "verify",
            Step::Rename => "rename",
        }
    }

    fn doing(self) -> &'static str {
        match self {
            Step::Check => "checking",
            Step::CreateDir => "creating the directory of",
            Step::WriteTemp => "writing the new content of",
            Step::Sync => "flushing the new content of",
            Step::Backup => "keeping the old content of",
            Step::Verify => "checking again",
            Step::Rename => "putting in place",
        }
    }
}

/// A failure injected on purpose, for tests: at `step`, for the planned file number `file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub step: Step,
    pub file: usize,
}

impl Fault {
    /// `FBC_EDIT_FAULT=STEP:N` (steps: check, mkdir, write, sync, backup, verify, rename).
    pub fn from_env() -> Option<Fault> {
        let v = std::env::var("FBC_EDIT_FAULT").ok()?;
        let (step, file) = v.split_once(':').unwrap_or((&v, "0"));
        Some(Fault {
            step: Step::ALL.into_iter().find(|s| s.name() == step)?,
            file: file.parse().ok()?,
        })
    }
}

/// How a commit may proceed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitOptions {
    /// Replace files that are read-only.
    pub force_read_only: bool,
    /// Fail on purpose at one step (tests); `FBC_EDIT_FAULT` is read when this is `None`.
    pub fault: Option<Fault>,
}

/// Why nothing was written, found before anything was touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    ChangedOnDisk,
    Exists,
    ReadOnly,
    /// A directory on the way (named) is a symbolic link.
    LinkedDirectory(String),
    /// A link whose target leaves the root.
    LinkOutside(String),
    NotARegularFile,
    NotADirectory(String),
    /// The path is not a plain relative path.
    BadPath,
    /// Two planned files are the same file on disk (named).
    SameFile(String),
    TooManyLinks,
    /// The directory (named) does not let us create or rename files in it.
    DirectoryNotWritable(String),
}

/// What became of one planned file when a commit failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// Nothing was written to it.
    Untouched,
    /// It had been replaced and was put back as it was.
    Restored,
    /// It was new and was removed again.
    Removed,
    /// Undoing failed: what it holds now, and where its old content is.
    NotRestored {
        why: String,
        old_content: Option<String>,
    },
}

/// A commit that did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// Refused before anything was written.
    #[error("{path}: {}", refusal_text(.why))]
    Refused { path: String, why: Refusal },
    /// A step failed; everything done before it was undone (see `files`).
    #[error("{}", failed_text(.step, .path, .source, .files))]
    Failed {
        step: Step,
        path: String,
        #[source]
        source: std::io::Error,
        /// Every planned file, in plan order, with what became of it.
        files: Vec<(String, FileState)>,
    },
}

fn refusal_text(why: &Refusal) -> String {
    match why {
        Refusal::ChangedOnDisk => {
            "changed on disk since it was loaded; reload before saving".into()
        }
        Refusal::Exists => {
            "already exists on disk; it was not there when the catalog was loaded".into()
        }
        Refusal::ReadOnly => "is read-only (make it writable, or force the write)".into(),
        Refusal::LinkedDirectory(dir) => format!(
            "{dir} is a symbolic link to a directory; fbc-edit does not write through it, as it could lead outside the catalog"
        ),
        Refusal::LinkOutside(target) => format!(
            "is a symbolic link to {target}, outside the catalog; fbc-edit writes only inside the catalog"
        ),
        Refusal::NotARegularFile => "is not a regular file".into(),
        Refusal::NotADirectory(dir) => format!("{dir} is not a directory"),
        Refusal::BadPath => "is not a plain path inside the catalog".into(),
        Refusal::SameFile(other) => {
            format!("is the same file as {other} (a link); change one of them at a time")
        }
        Refusal::TooManyLinks => "goes through too many symbolic links".into(),
        Refusal::DirectoryNotWritable(dir) => {
            format!("cannot be written: the directory {dir} does not allow it")
        }
    }
}

fn failed_text(
    step: &Step,
    path: &str,
    source: &std::io::Error,
    files: &[(String, FileState)],
) -> String {
    let undone = files.iter().all(|(_, s)| {
        matches!(
            s,
            FileState::Untouched | FileState::Restored | FileState::Removed
        )
    });
    let mut out = format!(
        "{} {path}: {source}; {}",
        step.doing(),
        if undone {
            "nothing was changed:"
        } else {
            "NOT EVERYTHING COULD BE UNDONE:"
        }
    );
    for (p, s) in files {
        let what = match s {
            FileState::Untouched => "not written".to_string(),
            FileState::Restored => "restored as it was".to_string(),
            FileState::Removed => "new, removed again".to_string(),
            FileState::NotRestored { why, old_content } => match old_content {
                Some(at) => format!("holds the new content ({why}); its old content is in {at}"),
                None => format!("holds the new content ({why})"),
            },
        };
        out.push_str(&format!("\n  {p}: {what}"));
    }
    out
}

/// Writes every file of `files` under `root`, all or nothing.
pub fn commit(
    root: &Path,
    files: &[PlannedFile],
    options: &CommitOptions,
) -> Result<(), CommitError> {
    let fault = options.fault.or_else(Fault::from_env);
    let mut tx = Tx::new(root, files, fault)?;
    tx.check(options.force_read_only)?;
    match tx.run() {
        Ok(()) => {
            tx.finish();
            Ok(())
        }
        Err((step, index, source)) => {
            let files = tx.undo();
            Err(CommitError::Failed {
                step,
                path: files[index].0.clone(),
                source,
                files,
            })
        }
    }
}

// ------------------------------------------------------------------------------------ system calls

fn cstr(name: &str) -> std::io::Result<CString> {
    CString::new(name).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
}

fn check(ret: libc::c_int) -> std::io::Result<libc::c_int> {
    if ret < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// An open directory.
struct Dir {
    fd: OwnedFd,
}

impl Dir {
    fn open_root(path: &Path) -> std::io::Result<Dir> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        // The root itself is the user's choice and may be reached through a link.
        let fd = check(unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        })?;
        Ok(Dir {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    fn raw(&self) -> libc::c_int {
        self.fd.as_raw_fd()
    }

    /// The directory's device and inode, as the open handle sees it.
    fn id(&self) -> std::io::Result<(u64, u64)> {
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        check(unsafe { libc::fstat(self.raw(), &mut st) })?;
        Ok((st.st_dev, st.st_ino))
    }

    fn stat(&self, name: &str) -> std::io::Result<libc::stat> {
        let c = cstr(name)?;
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        check(unsafe {
            libc::fstatat(self.raw(), c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW)
        })?;
        Ok(st)
    }

    /// Opens a subdirectory; fails on a link.
    fn open_dir(&self, name: &str) -> std::io::Result<Dir> {
        let c = cstr(name)?;
        let fd = check(unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        })?;
        Ok(Dir {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    fn mkdir(&self, name: &str) -> std::io::Result<()> {
        let c = cstr(name)?;
        check(unsafe { libc::mkdirat(self.raw(), c.as_ptr(), 0o777) }).map(|_| ())
    }

    fn open_file(&self, name: &str) -> std::io::Result<std::fs::File> {
        let c = cstr(name)?;
        let fd = check(unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        })?;
        Ok(unsafe { std::fs::File::from_raw_fd(fd) })
    }

    /// Creates a new file that must not exist, with `mode` (less the umask).
    fn create_new(&self, name: &str, mode: u32) -> std::io::Result<std::fs::File> {
        let c = cstr(name)?;
        let fd = check(unsafe {
            libc::openat(
                self.raw(),
                c.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                mode as libc::c_uint,
            )
        })?;
        Ok(unsafe { std::fs::File::from_raw_fd(fd) })
    }

    fn read_link(&self, name: &str) -> std::io::Result<Vec<u8>> {
        let c = cstr(name)?;
        let mut buf = vec![0u8; libc::PATH_MAX as usize];
        let n =
            unsafe { libc::readlinkat(self.raw(), c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        buf.truncate(n as usize);
        Ok(buf)
    }

    fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
        let (f, t) = (cstr(from)?, cstr(to)?);
        check(unsafe { libc::renameat(self.raw(), f.as_ptr(), self.raw(), t.as_ptr()) }).map(|_| ())
    }

    /// Renames `from` to `to` only when `to` does not exist.
    fn rename_new(&self, from: &str, to: &str) -> std::io::Result<()> {
        let (f, t) = (cstr(from)?, cstr(to)?);
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

    fn link(&self, from: &str, to: &str) -> std::io::Result<()> {
        let (f, t) = (cstr(from)?, cstr(to)?);
        check(unsafe { libc::linkat(self.raw(), f.as_ptr(), self.raw(), t.as_ptr(), 0) })
            .map(|_| ())
    }

    fn unlink(&self, name: &str) -> std::io::Result<()> {
        let c = cstr(name)?;
        check(unsafe { libc::unlinkat(self.raw(), c.as_ptr(), 0) }).map(|_| ())
    }

    fn rmdir(&self, name: &str) -> std::io::Result<()> {
        let c = cstr(name)?;
        check(unsafe { libc::unlinkat(self.raw(), c.as_ptr(), libc::AT_REMOVEDIR) }).map(|_| ())
    }

    fn writable(&self) -> bool {
        let dot = c".";
        unsafe {
            libc::faccessat(
                self.raw(),
                dot.as_ptr(),
                libc::W_OK | libc::X_OK,
                libc::AT_EACCESS,
            ) == 0
        }
    }

    fn sync(&self) {
        // A directory that cannot be flushed still holds the renamed files; nothing to undo.
        unsafe {
            libc::fsync(self.raw());
        }
    }
}

fn is_kind(st: &libc::stat, kind: libc::mode_t) -> bool {
    st.st_mode & libc::S_IFMT == kind
}

/// Whether the permission bits deny us writing (the owner's, group's or others' bits, whichever apply;
/// for root, whether no one may write).
fn read_only(st: &libc::stat) -> bool {
    let euid = unsafe { libc::geteuid() };
    let mode = st.st_mode;
    if euid == 0 {
        return mode & 0o222 == 0;
    }
    if st.st_uid == euid {
        return mode & 0o200 == 0;
    }
    let egid = unsafe { libc::getegid() };
    let in_group = st.st_gid == egid || {
        let n = unsafe { libc::getgroups(0, std::ptr::null_mut()) };
        let mut groups = vec![0 as libc::gid_t; n.max(0) as usize];
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
fn side_name(what: &str, target: &str) -> String {
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

// ------------------------------------------------------------------------------------ the commit

/// Where a planned file goes, once resolved.
struct Target {
    /// The directory components from the root to the file's directory (after following file links).
    dirs: Vec<String>,
    /// How many of the last `dirs` do not exist yet.
    missing: usize,
    name: String,
    /// The path written, relative to the root (differs from the planned path behind a link).
    rel: String,
    /// The file as it is now, when it exists.
    old: Option<Old>,
}

struct Old {
    bytes: Vec<u8>,
    read_only: bool,
    mode: u32,
    uid: u32,
    gid: u32,
    dev: u64,
    ino: u64,
}

/// Progress of one file through the steps.
#[derive(Default)]
struct Done {
    temp: Option<String>,
    /// A second name of the old file (or a copy of it).
    backup: Option<String>,
    renamed: bool,
}

struct Tx<'a> {
    /// The root as given, and as the file system names it.
    root: PathBuf,
    canonical_root: PathBuf,
    files: &'a [PlannedFile],
    targets: Vec<Target>,
    /// Open directories by path relative to the root (`""` is the root).
    dirs: std::collections::HashMap<String, Dir>,
    /// Directories this commit created, in creation order.
    created_dirs: Vec<String>,
    done: Vec<Done>,
    fault: Option<Fault>,
}

type StepError = (Step, usize, std::io::Error);

impl<'a> Tx<'a> {
    fn new(
        root: &Path,
        files: &'a [PlannedFile],
        fault: Option<Fault>,
    ) -> Result<Self, CommitError> {
        let io = |source| CommitError::Failed {
            step: Step::Check,
            path: ".".into(),
            source,
            files: untouched(files),
        };
        let dir = Dir::open_root(root).map_err(io)?;
        let canonical_root = std::fs::canonicalize(root).map_err(io)?;
        let mut dirs = std::collections::HashMap::new();
        dirs.insert(String::new(), dir);
        Ok(Tx {
            root: root.to_path_buf(),
            canonical_root,
            files,
            targets: Vec::new(),
            dirs,
            created_dirs: Vec::new(),
            done: files.iter().map(|_| Done::default()).collect(),
            fault,
        })
    }

    fn inject(&self, step: Step, file: usize) -> std::io::Result<()> {
        if self.fault == Some(Fault { step, file }) {
            return Err(std::io::Error::other(format!(
                "failure injected at step {} (FBC_EDIT_FAULT)",
                step.name()
            )));
        }
        Ok(())
    }

    /// Resolves and checks every planned file; nothing is written.
    fn check(&mut self, force_read_only: bool) -> Result<(), CommitError> {
        for (i, f) in self.files.iter().enumerate() {
            let refused = |why| CommitError::Refused {
                path: f.rel.clone(),
                why,
            };
            let failed = |source| CommitError::Failed {
                step: Step::Check,
                path: f.rel.clone(),
                source,
                files: untouched(self.files),
            };
            let target = match self.resolve(&f.rel, 0) {
                Ok(t) => t,
                Err(Resolve::Refused(why)) => return Err(refused(why)),
                Err(Resolve::Io(e)) => return Err(failed(e)),
            };
            match (&target.old, f.expect) {
                (Some(_), Expect::Absent) => return Err(refused(Refusal::Exists)),
                (None, Expect::Unchanged { .. }) => return Err(refused(Refusal::ChangedOnDisk)),
                (Some(old), Expect::Unchanged { len, hash }) => {
                    if old.bytes.len() as u64 != len
                        || xxhash_rust::xxh3::xxh3_64(&old.bytes) != hash
                    {
                        return Err(refused(Refusal::ChangedOnDisk));
                    }
                    if old.read_only && !force_read_only {
                        return Err(refused(Refusal::ReadOnly));
                    }
                }
                (None, Expect::Absent) => {}
            }
            let same = |t: &Target| {
                t.rel == target.rel
                    || matches!((&t.old, &target.old),
                        (Some(a), Some(b)) if a.dev == b.dev && a.ino == b.ino)
            };
            if let Some(j) = self.targets.iter().position(same) {
                return Err(refused(Refusal::SameFile(self.files[j].rel.clone())));
            }
            // A directory we cannot write into fails every rename: say so before writing anything.
            if target.missing == 0 {
                let dir = target.dirs.join("/");
                if !self.dirs[&dir].writable() {
                    let shown = if dir.is_empty() { ".".into() } else { dir };
                    return Err(refused(Refusal::DirectoryNotWritable(shown)));
                }
            }
            self.inject(Step::Check, i).map_err(failed)?;
            self.targets.push(target);
        }
        Ok(())
    }

    /// Resolves `rel` from the root without following directory links; follows file links that stay
    /// inside the root.
    fn resolve(&mut self, rel: &str, depth: usize) -> Result<Target, Resolve> {
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
        let mut path = String::new();
        let mut missing = 0;
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
                        missing = dir_parts.len() - k;
                        break;
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
        let dirs: Vec<String> = dir_parts.iter().map(|s| s.to_string()).collect();
        if missing > 0 {
            return Ok(Target {
                dirs,
                missing,
                name: name.to_string(),
                rel: rel.to_string(),
                old: None,
            });
        }
        let dir = &self.dirs[&path];
        let st = match dir.stat(name) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Target {
                    dirs,
                    missing: 0,
                    name: name.to_string(),
                    rel: rel.to_string(),
                    old: None,
                });
            }
            Err(e) => return Err(Resolve::Io(e)),
            Ok(st) => st,
        };
        if is_kind(&st, libc::S_IFLNK) {
            let link = dir.read_link(name).map_err(Resolve::Io)?;
            let target = self.link_target(&dirs, &link)?;
            return self.resolve(&target, depth + 1);
        }
        if !is_kind(&st, libc::S_IFREG) {
            return Err(Resolve::Refused(Refusal::NotARegularFile));
        }
        let mut file = dir.open_file(name).map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                Resolve::Refused(Refusal::ChangedOnDisk)
            } else {
                Resolve::Io(e)
            }
        })?;
        // What was opened, not what was looked at before: it may have been swapped in between.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        check(unsafe { libc::fstat(file.as_raw_fd(), &mut st) }).map_err(Resolve::Io)?;
        if !is_kind(&st, libc::S_IFREG) {
            return Err(Resolve::Refused(Refusal::NotARegularFile));
        }
        let mut bytes = Vec::with_capacity(st.st_size.max(0) as usize);
        file.read_to_end(&mut bytes).map_err(Resolve::Io)?;
        Ok(Target {
            dirs,
            missing: 0,
            name: name.to_string(),
            rel: rel.to_string(),
            old: Some(Old {
                bytes,
                read_only: read_only(&st),
                mode: st.st_mode & 0o7777,
                uid: st.st_uid,
                gid: st.st_gid,
                dev: st.st_dev,
                ino: st.st_ino,
            }),
        })
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

    /// Runs the writing steps; the error names the step and the file.
    fn run(&mut self) -> Result<(), StepError> {
        // Directories.
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            if t.missing == 0 {
                continue;
            }
            self.inject(Step::CreateDir, i)
                .map_err(|e| (Step::CreateDir, i, e))?;
            let existing = t.dirs.len() - t.missing;
            let mut path = t.dirs[..existing].join("/");
            for comp in &t.dirs[existing..] {
                let child = if path.is_empty() {
                    comp.clone()
                } else {
                    format!("{path}/{comp}")
                };
                if !self.dirs.contains_key(&child) {
                    let parent = &self.dirs[&path];
                    parent.mkdir(comp).map_err(|e| (Step::CreateDir, i, e))?;
                    self.created_dirs.push(child.clone());
                    let dir = parent.open_dir(comp).map_err(|e| (Step::CreateDir, i, e))?;
                    self.dirs.insert(child.clone(), dir);
                }
                path = child;
            }
        }
        // Temporary files.
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let dir = &self.dirs[&t.dirs.join("/")];
            let temp = side_name("new", &t.name);
            let mode = t.old.as_ref().map_or(0o666, |o| o.mode);
            let mut file = dir
                .create_new(&temp, mode)
                .map_err(|e| (Step::WriteTemp, i, e))?;
            self.done[i].temp = Some(temp);
            self.inject(Step::WriteTemp, i)
                .and_then(|()| file.write_all(&self.files[i].bytes))
                .and_then(|()| match &t.old {
                    Some(o) => keep_owner_and_mode(&file, o),
                    None => Ok(()),
                })
                .map_err(|e| (Step::WriteTemp, i, e))?;
            self.inject(Step::Sync, i)
                .and_then(|()| file.sync_all())
                .map_err(|e| (Step::Sync, i, e))?;
        }
        // Second names of the files about to be replaced.
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let Some(old) = &t.old else { continue };
            self.inject(Step::Backup, i)
                .map_err(|e| (Step::Backup, i, e))?;
            let dir = &self.dirs[&t.dirs.join("/")];
            let backup = side_name("old", &t.name);
            match dir.link(&t.name, &backup) {
                Ok(()) => self.done[i].backup = Some(backup),
                Err(_) => {
                    // No hard links here: keep a copy of the old content instead.
                    let mut file = dir
                        .create_new(&backup, old.mode)
                        .map_err(|e| (Step::Backup, i, e))?;
                    self.done[i].backup = Some(backup);
                    file.write_all(&old.bytes)
                        .and_then(|()| keep_owner_and_mode(&file, old))
                        .and_then(|()| file.sync_all())
                        .map_err(|e| (Step::Backup, i, e))?;
                }
            }
        }
        // Every target once more, right before anything is replaced.
        for i in 0..self.targets.len() {
            self.inject(Step::Verify, i)
                .map_err(|e| (Step::Verify, i, e))?;
            let t = &self.targets[i];
            self.dirs_in_place(&t.dirs)
                .map_err(|e| (Step::Verify, i, e))?;
            let dir = &self.dirs[&t.dirs.join("/")];
            let changed = || std::io::Error::other("changed on disk during the save");
            match (&t.old, dir.stat(&t.name)) {
                (None, Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
                (None, Ok(_)) => {
                    return Err((
                        Step::Verify,
                        i,
                        std::io::Error::other("created by someone else during the save"),
                    ));
                }
                (Some(old), Ok(st))
                    if is_kind(&st, libc::S_IFREG)
                        && st.st_dev == old.dev
                        && st.st_ino == old.ino =>
                {
                    let mut now = Vec::with_capacity(old.bytes.len());
                    dir.open_file(&t.name)
                        .and_then(|mut f| f.read_to_end(&mut now))
                        .map_err(|e| (Step::Verify, i, e))?;
                    if now != old.bytes {
                        return Err((Step::Verify, i, changed()));
                    }
                }
                (_, Err(e)) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err((Step::Verify, i, e));
                }
                _ => return Err((Step::Verify, i, changed())),
            }
        }
        // Into place.
        for i in 0..self.targets.len() {
            self.inject(Step::Rename, i)
                .map_err(|e| (Step::Rename, i, e))?;
            let t = &self.targets[i];
            let dir = &self.dirs[&t.dirs.join("/")];
            let temp = self.done[i].temp.clone().unwrap_or_default();
            let r = if t.old.is_some() {
                dir.rename(&temp, &t.name)
            } else {
                dir.rename_new(&temp, &t.name)
            };
            r.map_err(|e| (Step::Rename, i, e))?;
            self.done[i].temp = None;
            self.done[i].renamed = true;
        }
        Ok(())
    }

    /// Checks that the directories held open for `dirs` are still the ones found walking from the
    /// root, none of them a link: a directory moved out of the root (or swapped) since the check would
    /// otherwise take the write with it.
    fn dirs_in_place(&self, dirs: &[String]) -> std::io::Result<()> {
        let mut path = String::new();
        for comp in dirs {
            let child = if path.is_empty() {
                comp.clone()
            } else {
                format!("{path}/{comp}")
            };
            let moved = || std::io::Error::other(format!("{child} was moved during the save"));
            let st = self.dirs[&path].stat(comp).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    moved()
                } else {
                    e
                }
            })?;
            let held = self.dirs.get(&child).ok_or_else(moved)?.id()?;
            if !is_kind(&st, libc::S_IFDIR) || (st.st_dev, st.st_ino) != held {
                return Err(moved());
            }
            path = child;
        }
        Ok(())
    }

    /// After a complete commit: flush the directories and drop the second names.
    fn finish(&mut self) {
        for (i, t) in self.targets.iter().enumerate() {
            let dir = &self.dirs[&t.dirs.join("/")];
            dir.sync();
            if let Some(b) = self.done[i].backup.take() {
                let _ = dir.unlink(&b);
            }
        }
        for d in &self.created_dirs {
            let parent = d.rsplit_once('/').map_or("", |(p, _)| p);
            self.dirs[parent].sync();
        }
        self.dirs[""].sync();
    }

    /// Undoes what was done; returns what became of each planned file.
    fn undo(&mut self) -> Vec<(String, FileState)> {
        let mut states = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            // A file not reached (or whose directory was never made) was not touched.
            let Some((t, dir)) = self
                .targets
                .get(i)
                .and_then(|t| Some((t, self.dirs.get(&t.dirs.join("/"))?)))
            else {
                states.push((f.rel.clone(), FileState::Untouched));
                continue;
            };
            let done = &mut self.done[i];
            if let Some(temp) = done.temp.take() {
                let _ = dir.unlink(&temp);
            }
            let state = if !done.renamed {
                if let Some(b) = done.backup.take() {
                    let _ = dir.unlink(&b);
                }
                FileState::Untouched
            } else if t.old.is_none() {
                match dir.unlink(&t.name) {
                    Ok(()) => FileState::Removed,
                    Err(e) => FileState::NotRestored {
                        why: format!("cannot remove it again: {e}"),
                        old_content: None,
                    },
                }
            } else {
                let backup = done.backup.take();
                match backup.as_deref().map(|b| dir.rename(b, &t.name)) {
                    Some(Ok(())) => FileState::Restored,
                    Some(Err(e)) => FileState::NotRestored {
                        why: format!("cannot put it back: {e}"),
                        old_content: backup.map(|b| {
                            let mut p = t.dirs.clone();
                            p.push(b);
                            p.join("/")
                        }),
                    },
                    None => FileState::NotRestored {
                        why: "its old content was not kept".into(),
                        old_content: None,
                    },
                }
            };
            dir.sync();
            states.push((f.rel.clone(), state));
        }
        for d in self.created_dirs.iter().rev() {
            let (parent, name) = d.rsplit_once('/').unwrap_or(("", d));
            self.dirs.remove(d);
            if let Some(p) = self.dirs.get(parent) {
                let _ = p.rmdir(name);
            }
        }
        states
    }
}

enum Resolve {
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

fn untouched(files: &[PlannedFile]) -> Vec<(String, FileState)> {
    files
        .iter()
        .map(|f| (f.rel.clone(), FileState::Untouched))
        .collect()
}

/// Gives a new file the owner, group and mode of the one it replaces (the owner only where the
/// process may change it).
fn keep_owner_and_mode(file: &std::fs::File, old: &Old) -> std::io::Result<()> {
    let fd = file.as_raw_fd();
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    check(unsafe { libc::fstat(fd, &mut st) })?;
    if st.st_uid != old.uid || st.st_gid != old.gid {
        let r = unsafe { libc::fchown(fd, old.uid, old.gid) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EPERM) {
                return Err(e);
            }
            // Not permitted to give the file away: keep at least the group where we are a member.
            unsafe {
                libc::fchown(fd, u32::MAX, old.gid);
            }
        }
    }
    check(unsafe { libc::fchmod(fd, old.mode as libc::mode_t) }).map(|_| ())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(rel: &str, old: &[u8], new: &[u8]) -> PlannedFile {
        PlannedFile {
            rel: rel.into(),
            bytes: new.to_vec(),
            expect: Expect::Unchanged {
                len: old.len() as u64,
                hash: xxhash_rust::xxh3::xxh3_64(old),
            },
        }
    }

    #[test]
    fn a_directory_moved_out_of_the_root_after_the_check_takes_no_write_with_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("catalog");
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/catalog.yaml"), "old\n").unwrap();
        let files = [planned("pkg/catalog.yaml", b"old\n", b"new\n")];
        let mut tx = Tx::new(&root, &files, None).unwrap();
        tx.check(false).unwrap();
        // Between the check and the rename the package directory leaves the root, and a look-alike
        // takes its place.
        let outside = tmp.path().join("outside");
        std::fs::rename(root.join("pkg"), &outside).unwrap();
        std::fs::create_dir(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/catalog.yaml"), "old\n").unwrap();
        let (step, index, e) = tx.run().unwrap_err();
        assert_eq!((step, index), (Step::Verify, 0));
        assert!(
            e.to_string().contains("pkg was moved during the save"),
            "{e}"
        );
        let states = tx.undo();
        assert_eq!(
            states,
            vec![("pkg/catalog.yaml".into(), FileState::Untouched)]
        );
        assert_eq!(
            std::fs::read(outside.join("catalog.yaml")).unwrap(),
            b"old\n"
        );
        assert_eq!(
            std::fs::read(root.join("pkg/catalog.yaml")).unwrap(),
            b"old\n"
        );
        let left: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary or second name left outside");
    }

    #[test]
    fn a_directory_swapped_for_a_link_after_the_check_takes_no_write_with_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("catalog");
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/catalog.yaml"), "old\n").unwrap();
        let files = [planned("pkg/catalog.yaml", b"old\n", b"new\n")];
        let mut tx = Tx::new(&root, &files, None).unwrap();
        tx.check(false).unwrap();
        let outside = tmp.path().join("outside");
        std::fs::rename(root.join("pkg"), &outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("pkg")).unwrap();
        let (step, _, _) = tx.run().unwrap_err();
        assert_eq!(step, Step::Verify);
        tx.undo();
        assert_eq!(
            std::fs::read(outside.join("catalog.yaml")).unwrap(),
            b"old\n"
        );
    }
}
