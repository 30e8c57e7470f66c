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
//!
//! Here: what a commit is asked to do and how it fails. `resolve` finds each target, `tx` runs the
//! steps and undoes them, `sys` holds the system calls.

// Every system call here is an `unsafe` block: each says what it relies on.
#![deny(clippy::undocumented_unsafe_blocks)]

mod resolve;
mod sys;
mod tx;

use std::path::Path;

use tx::Tx;

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
    /// The steps by the names `FBC_EDIT_FAULT` gives them.
    #[cfg(feature = "fault-injection")]
    const ALL: [Step; 7] = [
        Step::Check,
        Step::CreateDir,
        Step::WriteTemp,
        Step::Sync,
        Step::Backup,
        Step::Verify,
        Step::Rename,
    ];

    #[cfg(feature = "fault-injection")]
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

/// A failure injected on purpose, for tests: at `step`, for the planned file number `file`. Only
/// with the `fault-injection` feature, so a release build neither has the hook nor reads its
/// variable.
#[cfg(feature = "fault-injection")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub step: Step,
    pub file: usize,
}

#[cfg(feature = "fault-injection")]
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
    #[cfg(feature = "fault-injection")]
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
    let mut tx = Tx::new(root, files)?;
    #[cfg(feature = "fault-injection")]
    {
        tx.fault = options.fault.or_else(Fault::from_env);
    }
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
