//! Writing an opened image's directory out as files a user owns and edits, within the extract
//! budgets; names of one file in the image stay one file.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use fbc_core::guard::limits::{Limit, Limits};

/// Why an image's directory could not be written out.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{} already exists and is not an empty directory", .0.display())]
    NotEmpty(PathBuf),
    #[error("cannot write {}: {why}", to.display())]
    Write { to: PathBuf, why: io::Error },
}

/// Copies an opened image's directory (`from`) to `to`, which must not exist or be empty, as files
/// the user owns and can edit, within the `extract-bytes` and `extract-files` budgets. Returns how
/// many files were written.
pub fn export(from: &Path, to: &Path, limits: &Limits) -> Result<usize, ExportError> {
    if to.exists() {
        let empty = std::fs::read_dir(to)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(ExportError::NotEmpty(to.to_path_buf()));
        }
    }
    let mut budget = ExportBudget {
        bytes: limits.get(Limit::ExtractBytes),
        files: limits.get(Limit::ExtractFiles),
        limits,
        linked: HashMap::new(),
    };
    copy_tree(from, to, &mut budget).map_err(|why| ExportError::Write {
        to: to.to_path_buf(),
        why,
    })
}

/// What an export may still write, and the files written so far that other names link to.
struct ExportBudget<'l> {
    bytes: u64,
    files: u64,
    limits: &'l Limits,
    /// (device, inode) of a file with several names → where it was written.
    linked: HashMap<(u64, u64), PathBuf>,
}

impl ExportBudget<'_> {
    fn take(&mut self, bytes: u64) -> io::Result<()> {
        if self.files == 0 {
            return Err(io::Error::other(self.limits.exceeded(
                Limit::ExtractFiles,
                "the image holds more files than allowed",
            )));
        }
        self.files -= 1;
        self.bytes = self.bytes.checked_sub(bytes).ok_or_else(|| {
            io::Error::other(self.limits.exceeded(
                Limit::ExtractBytes,
                "the image holds more bytes than allowed",
            ))
        })?;
        Ok(())
    }
}

fn copy_tree(from: &Path, to: &Path, budget: &mut ExportBudget) -> io::Result<usize> {
    budget.take(0)?;
    std::fs::create_dir_all(to)?;
    let mut count = 0;
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let target = to.join(e.file_name());
        let kind = e.file_type()?;
        if kind.is_dir() {
            count += copy_tree(&e.path(), &target, budget)?;
        } else if kind.is_file() {
            use std::os::unix::fs::MetadataExt as _;
            let meta = e.metadata()?;
            // Names of one file in the image stay one file: a link costs no bytes.
            let key = (meta.dev(), meta.ino());
            if let Some(first) = budget.linked.get(&key).cloned() {
                budget.take(0)?;
                std::fs::hard_link(first, &target)?;
            } else {
                budget.take(meta.len())?;
                std::fs::copy(e.path(), &target)?;
                if meta.nlink() > 1 {
                    budget.linked.insert(key, target);
                }
            }
            count += 1;
        }
    }
    Ok(count)
}
