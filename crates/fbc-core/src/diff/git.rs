//! A catalog directory as it was at a git revision: its files written out with `git`, for `diff
//! --git REV` and review mode's `--compare git:REV`.
//!
//! The repository and the revision name are input. The revision is refused when `git` would read
//! it as an option; the tree is listed once with `git ls-tree -r -z -l` (names NUL-separated, as
//! stored, and sizes), and everything is checked before a byte of content is read: each name
//! against the path policy, each size against the largest catalog file the engine reads, their
//! count and total against the `extract-files` and `extract-bytes` budgets. Only regular files
//! are written out: a symbolic link or a submodule at the revision is left out (a catalog holds
//! neither). Contents come through one `git cat-file --batch`, each blob streamed to its file in
//! bounded reads, so no file is ever held whole in memory.

use std::fs::OpenOptions;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use crate::catalog::load::MAX_FILE;
use crate::guard::git::{self as g, Git};
use crate::guard::limits::{self, Limit};
use crate::guard::path::{self as gp, PathRefusal, RelPath, Root};

/// The most bytes of a tree listing read: a listing of a large repository is a few megabytes.
const MAX_LISTING: u64 = 256 << 20;

/// Why the files of a revision could not be written out.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error(transparent)]
    Git(#[from] g::GitError),
    #[error("{path:?} at {rev}: the name {why}; nothing written")]
    Name {
        rev: String,
        path: String,
        why: PathRefusal,
    },
    #[error("{path:?} at {rev}: the repository does not hold its content; nothing written")]
    Missing { rev: String, path: String },
    #[error("git ls-tree: cannot read the listing ({0}); nothing written")]
    Listing(String),
    #[error("{0}; nothing written")]
    Budget(String),
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("git cat-file: {0}")]
    Batch(String),
}

/// One regular file of the revision's tree.
#[derive(Debug, PartialEq, Eq)]
struct Blob {
    oid: String,
    size: u64,
    path: RelPath,
}

/// Writes the regular files of `dir` as they were at `rev` into `into` (an empty directory),
/// reading them with `git`.
pub fn checkout(dir: &Path, rev: &str, into: &Path) -> Result<(), GitError> {
    let rev = g::revision(rev)?;
    let git = Git::new(dir);
    let listing = git.output(
        &[
            "ls-tree",
            "-r",
            "-z",
            "-l",
            "--end-of-options",
            rev,
            "--",
            ".",
        ],
        MAX_LISTING,
    )?;
    let blobs = blobs(&listing, rev)?;
    within_budgets(&blobs, &limits::current())?;
    let root = Root::new(into).map_err(|source| GitError::Write {
        path: into.to_path_buf(),
        source,
    })?;
    write_out(&git, &blobs, &root)
}

/// The regular files of an `ls-tree -r -z -l` listing, each name checked; symbolic links
/// (`120000`) and submodules (`160000`) are left out.
fn blobs(listing: &[u8], rev: &str) -> Result<Vec<Blob>, GitError> {
    let mut out = Vec::new();
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let bad = |what: &str| GitError::Listing(what.to_string());
        let tab = record
            .iter()
            .position(|b| *b == b'\t')
            .ok_or_else(|| bad("a record without a name"))?;
        let (meta, name) = (&record[..tab], &record[tab + 1..]);
        let meta = std::str::from_utf8(meta).map_err(|_| bad("a record that is not text"))?;
        let fields: Vec<&str> = meta.split_ascii_whitespace().collect();
        let [mode, kind, oid, size] = fields.as_slice() else {
            return Err(bad("a record without mode, type, object and size"));
        };
        if !matches!((*mode, *kind), ("100644" | "100755", "blob")) {
            continue;
        }
        if !(oid.len() == 40 || oid.len() == 64) || !oid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad("an object name that is not hexadecimal"));
        }
        let name = String::from_utf8_lossy(name);
        // git gives no size (`BAD`) for a blob it does not have, a partial clone's.
        let size: u64 = size.parse().map_err(|_| GitError::Missing {
            rev: rev.to_string(),
            path: name.to_string(),
        })?;
        let path = gp::relative(&name).map_err(|why| GitError::Name {
            rev: rev.to_string(),
            path: name.to_string(),
            why,
        })?;
        out.push(Blob {
            oid: oid.to_string(),
            size,
            path,
        });
    }
    Ok(out)
}

/// Every file within the size of the largest catalog file, their count within `extract-files`
/// and their total within `extract-bytes`: checked before anything is read.
fn within_budgets(blobs: &[Blob], budgets: &limits::Limits) -> Result<(), GitError> {
    if let Some(big) = blobs.iter().find(|b| b.size > MAX_FILE) {
        return Err(GitError::Budget(format!(
            "{} holds {} bytes, more than the {MAX_FILE} a catalog file may have",
            big.path, big.size
        )));
    }
    if blobs.len() > budgets.count(Limit::ExtractFiles) {
        return Err(GitError::Budget(budgets.exceeded(
            Limit::ExtractFiles,
            &format!("the revision holds {} files", blobs.len()),
        )));
    }
    let total: u64 = blobs.iter().map(|b| b.size).fold(0, u64::saturating_add);
    if total > budgets.get(Limit::ExtractBytes) {
        return Err(GitError::Budget(budgets.exceeded(
            Limit::ExtractBytes,
            &format!("the revision's files hold {total} bytes"),
        )));
    }
    Ok(())
}

/// Streams each blob from one `git cat-file --batch` into its file below `root`.
fn write_out(git: &Git, blobs: &[Blob], root: &Root) -> Result<(), GitError> {
    if blobs.is_empty() {
        return Ok(());
    }
    let mut batch = git.start(&["cat-file", "--batch"])?;
    let (Some(mut input), Some(output)) = (batch.child.stdin.take(), batch.child.stdout.take())
    else {
        return Err(batch.failed("no pipe to git".into()).into());
    };
    let mut output = BufReader::new(output);
    for blob in blobs {
        let target = root.join(&blob.path);
        let asked = writeln!(input, "{}", blob.oid).and_then(|()| input.flush());
        let answer = asked
            .map_err(|e| e.to_string())
            .and_then(|()| header(&mut output, blob));
        if let Err(why) = answer {
            drop(input);
            return Err(batch.failed(why).into());
        }
        copy_blob(&mut output, blob, &target)?;
        let mut end = [0u8; 1];
        if output.read_exact(&mut end).is_err() || end != *b"\n" {
            drop(input);
            return Err(batch
                .failed("an answer without its closing newline".into())
                .into());
        }
    }
    drop(input);
    batch.finish()?;
    Ok(())
}

/// Reads `<oid> blob <size>` (at most a short line) and checks it answers for `blob`.
fn header(output: &mut impl BufRead, blob: &Blob) -> Result<(), String> {
    let mut line = Vec::new();
    output
        .take(256)
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    let line = String::from_utf8_lossy(&line);
    let Some(line) = line.strip_suffix('\n') else {
        return Err(format!("an answer without a header for {}", blob.path));
    };
    let expected = format!("{} blob {}", blob.oid, blob.size);
    if line != expected {
        return Err(format!(
            "{}: answered {line:?} where {expected:?} was listed",
            blob.path
        ));
    }
    Ok(())
}

/// Copies exactly `blob.size` bytes into a new file at `target` (never through a link: the file
/// must not exist yet).
fn copy_blob(output: &mut impl Read, blob: &Blob, target: &Path) -> Result<(), GitError> {
    let io = |source: io::Error| GitError::Write {
        path: target.to_path_buf(),
        source,
    };
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(target)
        .map_err(io)?;
    let copied = io::copy(&mut output.take(blob.size), &mut file).map_err(io)?;
    if copied != blob.size {
        return Err(GitError::Batch(format!(
            "{}: {copied} of {} bytes before the output ended",
            blob.path, blob.size
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(mode: &str, kind: &str, size: &str, name: &[u8]) -> Vec<u8> {
        let mut r = format!("{mode} {kind} {} {size:>7}\t", "ab".repeat(20)).into_bytes();
        r.extend_from_slice(name);
        r.push(0);
        r
    }

    #[test]
    fn only_regular_files_with_acceptable_names_are_listed() {
        let mut listing = Vec::new();
        listing.extend(record("100644", "blob", "12", b"pkg/catalog.yaml"));
        listing.extend(record("100755", "blob", "3", b"run.sh"));
        listing.extend(record("120000", "blob", "11", b"link.yaml"));
        listing.extend(record("160000", "commit", "-", b"sub"));
        listing.extend(record("100644", "blob", "5", b"a\nb/x.yaml"));
        let e = blobs(&listing, "HEAD").unwrap_err();
        assert!(
            matches!(
                &e,
                GitError::Name {
                    why: PathRefusal::Control,
                    ..
                }
            ),
            "{e}"
        );
        listing.truncate(listing.len() - record("100644", "blob", "5", b"a\nb/x.yaml").len());
        let got = blobs(&listing, "HEAD").unwrap();
        let names: Vec<String> = got.iter().map(|b| b.path.as_slash()).collect();
        assert_eq!(names, ["pkg/catalog.yaml", "run.sh"]);
        assert_eq!(got[0].size, 12);
        let e = blobs(&record("100644", "blob", "BAD", b"big.yaml"), "HEAD").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"big.yaml\" at HEAD: the repository does not hold its content; nothing written"
        );
        for bad in [&b"../../etc/cron.d/x"[..], b"/abs", b"a/../../b"] {
            let e = blobs(&record("100644", "blob", "1", bad), "HEAD").unwrap_err();
            assert!(matches!(e, GitError::Name { .. }), "{bad:?}");
        }
    }

    #[test]
    fn budgets_are_checked_on_the_listed_sizes() {
        let blob = |size| Blob {
            oid: "ab".repeat(20),
            size,
            path: gp::relative("a.yaml").unwrap(),
        };
        let budgets = limits::Limits::default()
            .with(Limit::ExtractFiles, 2)
            .with(Limit::ExtractBytes, 100);
        assert!(within_budgets(&[blob(50), blob(50)], &budgets).is_ok());
        let e = within_budgets(&[blob(1), blob(1), blob(1)], &budgets).unwrap_err();
        assert!(e.to_string().contains("extract-files budget"), "{e}");
        let e = within_budgets(&[blob(60), blob(60)], &budgets).unwrap_err();
        assert!(e.to_string().contains("extract-bytes budget"), "{e}");
        let e = within_budgets(&[blob(MAX_FILE + 1)], &budgets).unwrap_err();
        assert!(e.to_string().contains("a catalog file may have"), "{e}");
    }
}
