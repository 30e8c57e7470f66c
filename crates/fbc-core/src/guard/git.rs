//! `git`, run on a repository that is input. A repository's own configuration (`.git/config`) and
//! attributes can name programs that `git` runs on its own (a file-system monitor, hooks, a pager,
//! a `textconv` or external diff driver, a transport that fetches missing objects), and a revision
//! name from input can be read as an option. So every `git` fbc-edit runs:
//!
//! - gets the settings that run programs overridden on its command line ([`HARDENING`]) and an
//!   environment that asks for no prompt, no pager, no lock and no fetch ([`ENVIRONMENT`]);
//! - takes revision names only through [`revision`] (no leading `-`, no control characters),
//!   and after `--end-of-options`;
//! - has its output read within a budget, its error output read beside it (a full pipe never
//!   stalls it), and is killed when the budget is hit ([`Git::output`]).
//!
//! Contents are read with `git cat-file`, never `git show` (which applies `textconv` drivers).

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Settings given on every `git` command line (`-c NAME=VALUE`): each one overrides a setting a
/// repository may carry that runs a program or reaches the network while fbc-edit reads it.
pub const HARDENING: [&str; 9] = [
    // A file-system monitor is a program git runs to learn what changed.
    "core.fsmonitor=false",
    // Hooks are programs; none runs.
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    // No transport at all: a partial clone would otherwise fetch missing objects (running
    // `core.sshCommand` or a remote helper named by the repository).
    "protocol.allow=never",
    "core.sshCommand=false",
    "credential.helper=",
    "core.askPass=false",
    "gc.auto=0",
    "maintenance.auto=false",
];

/// The environment of every `git` fbc-edit runs.
pub const ENVIRONMENT: [(&str, &str); 6] = [
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_NO_LAZY_FETCH", "1"),
    ("GIT_ASKPASS", "false"),
];

/// The most bytes read of what `git` writes to its error output.
const MAX_STDERR: u64 = 64 << 10;

/// Why `git` could not answer.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git: {0}")]
    Run(#[source] io::Error),
    #[error("git {args}: {message}")]
    Failed { args: String, message: String },
    #[error("git {args}: more than {max} bytes of output; not read further")]
    TooMuch { args: String, max: u64 },
    #[error("{name:?} is not a revision name: {why}")]
    Revision { name: String, why: &'static str },
}

/// `name` when it may be given to `git` as a revision: not empty, not starting with `-` (which
/// `git` would read as an option), no control characters or spaces (a revision name has none, and
/// a name is printed in messages).
pub fn revision(name: &str) -> Result<&str, GitError> {
    let why = if name.is_empty() {
        "it is empty"
    } else if name.starts_with('-') {
        "it starts with '-', and would be read as an option"
    } else if name.chars().any(|c| c.is_control() || c == ' ') {
        "it holds a space or a control character"
    } else if name.len() > super::path::MAX_PATH {
        "it is too long"
    } else {
        return Ok(name);
    };
    Err(GitError::Revision {
        name: name.to_string(),
        why,
    })
}

/// `git` in one directory.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
}

impl Git {
    pub fn new(dir: &Path) -> Git {
        Git {
            dir: dir.to_path_buf(),
        }
    }

    /// A `git` command in the directory, hardened ([`HARDENING`], [`ENVIRONMENT`], no pager, no
    /// optional locks), with `args` after the hardening and its standard input closed.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("--no-pager")
            .arg("--no-optional-locks")
            .arg("-C")
            .arg(&self.dir);
        for setting in HARDENING {
            cmd.arg("-c").arg(setting);
        }
        for (k, v) in ENVIRONMENT {
            cmd.env(k, v);
        }
        cmd.args(args).stdin(Stdio::null());
        cmd
    }

    /// Runs `git ARGS` and returns what it wrote, at most `max` bytes (more is an error, and the
    /// process is killed).
    pub fn output(&self, args: &[&str], max: u64) -> Result<Vec<u8>, GitError> {
        let mut child = self
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::Run)?;
        let errors = drain_stderr(&mut child);
        let mut out = Vec::new();
        let read = match child.stdout.take() {
            Some(s) => s.take(max + 1).read_to_end(&mut out).map(|_| ()),
            None => Ok(()),
        };
        if out.len() as u64 > max {
            let _ = child.kill();
            let _ = child.wait();
            return Err(GitError::TooMuch {
                args: args.join(" "),
                max,
            });
        }
        finish(child, errors, args, read)?;
        Ok(out)
    }

    /// Starts `git ARGS` with its input and output piped, for a conversation such as `cat-file
    /// --batch`; its error output is read beside it. Ended by [`Running::finish`].
    pub fn start(&self, args: &[&str]) -> Result<Running, GitError> {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::Run)?;
        let errors = drain_stderr(&mut child);
        Ok(Running {
            child,
            errors: Some(errors),
            args: args.join(" "),
        })
    }
}

/// A `git` process fbc-edit talks to (its input and output are the child's).
pub struct Running {
    pub child: Child,
    errors: Option<std::thread::JoinHandle<Vec<u8>>>,
    args: String,
}

impl Running {
    /// Closes its input, waits for it and reports a failure with its error output.
    pub fn finish(mut self) -> Result<(), GitError> {
        drop(self.child.stdin.take());
        drop(self.child.stdout.take());
        let errors = self.errors.take().map(|h| h.join().unwrap_or_default());
        let status = self.child.wait().map_err(GitError::Run)?;
        if !status.success() {
            return Err(GitError::Failed {
                args: self.args.clone(),
                message: String::from_utf8_lossy(&errors.unwrap_or_default())
                    .trim()
                    .to_string(),
            });
        }
        Ok(())
    }

    /// The message for a failure while talking to it: what it wrote to its error output, when
    /// it has stopped, else `what`.
    pub fn failed(mut self, what: String) -> GitError {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        let errors = self.errors.take().map(|h| h.join().unwrap_or_default());
        let said = String::from_utf8_lossy(&errors.unwrap_or_default())
            .trim()
            .to_string();
        GitError::Failed {
            args: self.args.clone(),
            message: if said.is_empty() { what } else { said },
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.errors.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads the child's error output on a thread (at most [`MAX_STDERR`] bytes kept, the rest
/// discarded), so a chatty `git` never blocks on a full pipe.
fn drain_stderr(child: &mut Child) -> std::thread::JoinHandle<Vec<u8>> {
    let stderr = child.stderr.take();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut s) = stderr {
            let _ = (&mut s).take(MAX_STDERR).read_to_end(&mut kept);
            let _ = io::copy(&mut s, &mut io::sink());
        }
        kept
    })
}

fn finish(
    mut child: Child,
    errors: std::thread::JoinHandle<Vec<u8>>,
    args: &[&str],
    read: io::Result<()>,
) -> Result<(), GitError> {
    let status = child.wait().map_err(GitError::Run)?;
    let errors = errors.join().unwrap_or_default();
    let failed = |message: String| GitError::Failed {
        args: args.join(" "),
        message,
    };
    read.map_err(|e| failed(e.to_string()))?;
    if !status.success() {
        return Err(failed(String::from_utf8_lossy(&errors).trim().to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_that_git_would_read_as_an_option_is_refused() {
        for bad in [
            "-",
            "--output=/tmp/x",
            "-p",
            "",
            "a b",
            "a\nb",
            "a\u{1b}[31m",
        ] {
            let e = revision(bad).unwrap_err();
            assert!(matches!(e, GitError::Revision { .. }), "{bad:?}");
        }
        assert_eq!(
            revision("--output=x").unwrap_err().to_string(),
            "\"--output=x\" is not a revision name: it starts with '-', and would be read as an option"
        );
        for good in ["HEAD", "HEAD~2", "v1.0^{commit}", "origin/main", "a1b2c3"] {
            assert_eq!(revision(good).unwrap(), good);
        }
    }

    #[test]
    fn output_over_its_budget_is_cut_off_and_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let git = Git::new(tmp.path());
        let out = git.output(&["--version"], 1 << 10).unwrap();
        assert!(out.starts_with(b"git version"));
        let e = git.output(&["--version"], 4).unwrap_err();
        assert!(matches!(e, GitError::TooMuch { max: 4, .. }), "{e}");
        // Outside a repository: git's own message.
        let e = git
            .output(&["rev-parse", "--verify", "HEAD"], 1 << 10)
            .unwrap_err();
        assert!(matches!(e, GitError::Failed { .. }), "{e}");
    }
}
