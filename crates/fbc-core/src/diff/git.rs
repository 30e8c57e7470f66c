//! A catalog directory as it was at a git revision: its files written out with `git`, for `diff
//! --git REV` and review mode's `--compare git:REV`.

use std::path::Path;
use std::process::Command;

/// What went wrong running `git` or writing its files out.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct GitError(String);

/// Writes the files of `dir` as they were at `rev` into `into`, reading them with `git`.
pub fn checkout(dir: &Path, rev: &str, into: &Path) -> Result<(), GitError> {
    let git = |args: &[&str]| -> Result<Vec<u8>, GitError> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .map_err(|e| GitError(format!("cannot run git: {e}")))?;
        if !out.status.success() {
            return Err(GitError(format!(
                "git {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(out.stdout)
    };
    let list = git(&["ls-tree", "-r", "--name-only", rev, "--", "."])?;
    for rel in String::from_utf8_lossy(&list).lines() {
        let bytes = git(&["show", &format!("{rev}:./{rel}")])?;
        let target = into.join(rel);
        let io = |e: std::io::Error| GitError(format!("{}: {e}", target.display()));
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        std::fs::write(&target, bytes).map_err(io)?;
    }
    Ok(())
}
