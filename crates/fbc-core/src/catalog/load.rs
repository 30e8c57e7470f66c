//! Loading a catalog directory the way opm does: every file of the tree (hidden ones too, whatever
//! their extension) except those an `.indexignore` excludes, decoded in parallel, gathered in a
//! deterministic order. Unlike opm, a broken file does not stop the load: its problem is recorded with
//! file, line and column, and everything else still loads.

use std::fs;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rayon::prelude::*;

use super::codes::catalog as codes;
use super::diagnostic::{Diagnostic, Location, Severity};
use super::reading::{Buffers, FileResult, read_file};
use super::yaml::Keep;
use super::{Blob, BlobState, Catalog, Index, SourceFile};
use crate::guard;
use crate::guard::file::{ReadError, kind_name};

/// The largest catalog file read: positions are 32-bit byte offsets. A larger file is reported
/// and passed over, its size known from its metadata before any buffer is sized.
pub const MAX_FILE: u64 = u32::MAX as u64;

/// Why a catalog could not be opened at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {source}")]
    Root {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: not a directory")]
    NotADirectory(PathBuf),
}

/// Options for [`load`].
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// 1 reads the files one after another on the calling thread; any other value reads them on every
    /// core. (Large YAML files still parse their documents in parallel.)
    pub threads: usize,
    /// Counters another thread can watch (files and bytes found and read so far).
    pub progress: Option<std::sync::Arc<Progress>>,
    /// Decode the strings left on disk (bundle-object payloads, icons) while their file is read,
    /// keeping only what they decode to ([`Checked`]), so a whole-catalog validation reads no file
    /// twice. It costs the time of those checks, so only a command that makes them all asks for
    /// it; without it the checks read the few strings they need from disk.
    pub check_payloads: bool,
    /// How much of each document to keep. [`Keep::Outline`] is for a command that only lists the
    /// catalog's objects (`list`): it leaves out bundles' properties and related images, most of
    /// a catalog's bytes, and finds the same problems. [`Keep::Checked`] is for a command that only
    /// validates (`validate`): it leaves out what a validation only checks, once checked. A catalog
    /// loaded either way is never written ([`Catalog::is_outline`]).
    pub keep: Keep,
}

/// How far a load has come. The totals are known once the directory walk is done.
#[derive(Debug, Default)]
pub struct Progress {
    pub files_total: std::sync::atomic::AtomicU64,
    pub files_done: std::sync::atomic::AtomicU64,
    pub bytes_total: std::sync::atomic::AtomicU64,
    pub bytes_done: std::sync::atomic::AtomicU64,
}

impl Progress {
    /// (files done, files total, bytes done, bytes total).
    pub fn snapshot(&self) -> (u64, u64, u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.files_done.load(Relaxed),
            self.files_total.load(Relaxed),
            self.bytes_done.load(Relaxed),
            self.bytes_total.load(Relaxed),
        )
    }
}

/// A file the walk found to read.
pub(super) struct Found {
    /// Its path below the root, with `/` between names.
    pub(super) rel: String,
    pub(super) abs: PathBuf,
}

struct IgnoreFile {
    /// Directory of the `.indexignore`, relative to the root (`""` for the root itself).
    dir: String,
    matcher: Gitignore,
}

/// Loads the catalog under `root`.
pub fn load(root: &Path) -> Result<Catalog, LoadError> {
    load_with(root, &LoadOptions::default())
}

pub fn load_with(root: &Path, options: &LoadOptions) -> Result<Catalog, LoadError> {
    guard::reads::note(|| root.display().to_string());
    let meta = fs::metadata(root).map_err(|source| LoadError::Root {
        path: root.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(LoadError::NotADirectory(root.to_path_buf()));
    }
    let canonical_root = fs::canonicalize(root).map_err(|source| LoadError::Root {
        path: root.to_path_buf(),
        source,
    })?;
    let mut diagnostics = Vec::new();
    let mut seen = Vec::new();
    let files = catalog_files(root, &canonical_root, &mut seen, &mut diagnostics);
    if let Some(p) = &options.progress {
        count_totals(p, &files);
    }
    let buffers = Buffers::default();
    let parse = |(i, f): (usize, &Found)| {
        let r = read_file(i as u32, f, options, &buffers);
        if let Some(p) = &options.progress {
            use std::sync::atomic::Ordering::Relaxed;
            p.files_done.fetch_add(1, Relaxed);
            p.bytes_done.fetch_add(r.file.len, Relaxed);
        }
        r
    };
    let results: Vec<FileResult> = if options.threads == 1 {
        files.iter().enumerate().map(parse).collect()
    } else {
        files.par_iter().enumerate().map(parse).collect()
    };

    let mut catalog = assemble(root, results, diagnostics);
    catalog.outline = options.keep != Keep::All;
    seen.sort_unstable();
    catalog.walked = Some(seen);
    Ok(catalog)
}

/// The files of the catalog under `root`, in walk order: not ignored by an `.indexignore`, not a
/// temporary file left by an interrupted save (each reported).
fn catalog_files(
    root: &Path,
    canonical_root: &Path,
    seen: &mut Vec<Box<str>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Found> {
    let mut files = Vec::new();
    let mut ignore_paths = Vec::new();
    let mut w = Walk {
        canonical_root,
        files: &mut files,
        ignores: &mut ignore_paths,
        seen,
        diags: diagnostics,
        max_entries: MAX_ENTRIES,
        listed: 0,
        full: false,
    };
    w.walk(root, "", 0);
    let ignores: Vec<IgnoreFile> = ignore_paths
        .iter()
        .filter_map(|f| build_ignore(root, f, diagnostics))
        .collect();
    let (leftovers, files): (Vec<Found>, Vec<Found>) = files
        .into_iter()
        .filter(|f| !is_ignored(f, &ignores))
        .partition(|f| {
            f.rel
                .rsplit('/')
                .next()
                .is_some_and(|n| n.starts_with(super::commit::TEMP_PREFIX))
        });
    for f in leftovers {
        diagnostics.push(Diagnostic::new(
            codes::READ,
            Severity::Error,
            Location::new(&f.rel, 0, 0),
            "leftover temporary file of an interrupted save: opm would read it as catalog content; delete it (not read)",
        ));
    }
    if files.is_empty() {
        diagnostics.push(Diagnostic::new(
            codes::EMPTY,
            Severity::Warning,
            Location::new(".", 0, 0),
            format!(
                "no catalog files found under {} (after .indexignore rules)",
                root.display()
            ),
        ));
    }
    files
}

/// Tells `progress` how many files and bytes there are to read.
fn count_totals(progress: &Progress, files: &[Found]) {
    use std::sync::atomic::Ordering::Relaxed;
    progress.files_total.store(files.len() as u64, Relaxed);
    let bytes: u64 = files
        .iter()
        .filter_map(|f| fs::metadata(&f.abs).ok())
        .map(|m| m.len())
        .sum();
    progress.bytes_total.store(bytes, Relaxed);
}

/// Loads one file of a directory as a catalog of its own (a template file, say), with the same
/// reading rules and positions as a whole catalog; `rel` is its path below `root`.
pub fn load_file(root: &Path, rel: &str) -> Result<Catalog, LoadError> {
    let meta = fs::metadata(root).map_err(|source| LoadError::Root {
        path: root.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(LoadError::NotADirectory(root.to_path_buf()));
    }
    let found = Found {
        rel: rel.to_string(),
        abs: root.join(rel),
    };
    Ok(assemble(
        root,
        vec![read_file(
            0,
            &found,
            &LoadOptions::default(),
            &Buffers::default(),
        )],
        Vec::new(),
    ))
}

/// A catalog from the files read, in walk order.
fn assemble(root: &Path, results: Vec<FileResult>, mut diagnostics: Vec<Diagnostic>) -> Catalog {
    let mut catalog = Catalog {
        root: root.to_path_buf(),
        files: Vec::with_capacity(results.len()),
        blobs: Vec::new(),
        diagnostics: Vec::new(),
        index: Index::default(),
        touched: Default::default(),
        in_memory: false,
        outline: false,
        walked: None,
    };
    for r in results {
        diagnostics.extend(r.diagnostics);
        let file_id = catalog.files.len();
        let mut blob_ids = Vec::with_capacity(r.docs.len());
        for (doc, meta) in r.docs {
            blob_ids.push(catalog.blobs.len());
            catalog.blobs.push(Blob {
                file: file_id,
                format: doc.format,
                start: doc.start,
                end: doc.end,
                meta,
                value: doc.node,
                original: None,
                state: BlobState::Loaded,
                has_anchors: doc.has_anchors,
            });
        }
        catalog.files.push(SourceFile {
            blobs: blob_ids,
            ..r.file
        });
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    catalog.diagnostics = diagnostics;
    catalog.reindex();
    catalog
}

/// How deep a catalog's directories are read: a tree from input may nest without end.
pub const MAX_DEPTH: usize = 64;
/// How many files and directories a catalog's walk lists in all: a directory from input may hold
/// millions of entries.
pub const MAX_ENTRIES: usize = 1 << 20;

/// A walk of a catalog's directories, within [`MAX_DEPTH`] and `max_entries`.
struct Walk<'a> {
    canonical_root: &'a Path,
    files: &'a mut Vec<Found>,
    ignores: &'a mut Vec<Found>,
    seen: &'a mut Vec<Box<str>>,
    diags: &'a mut Vec<Diagnostic>,
    max_entries: usize,
    /// Entries listed so far, in every directory.
    listed: usize,
    /// `max_entries` was reached (and said once): nothing more is listed.
    full: bool,
}

impl Walk<'_> {
    /// Go's `fs.WalkDir` order: entries of a directory sorted by name (bytes), depth first.
    fn walk(&mut self, dir: &Path, rel: &str, depth: usize) {
        let shown = if rel.is_empty() { "." } else { rel };
        if self.full {
            return;
        }
        if depth > MAX_DEPTH {
            self.diags.push(Diagnostic::new(
                codes::READ,
                Severity::Error,
                Location::new(shown, 0, 0),
                format!("cannot read directory: nested more than {MAX_DEPTH} levels deep"),
            ));
            return;
        }
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                self.diags.push(Diagnostic::new(
                    codes::READ,
                    Severity::Error,
                    Location::new(shown, 0, 0),
                    format!("cannot read directory: {e}"),
                ));
                return;
            }
        };
        let mut listed = Vec::new();
        for e in entries.filter_map(Result::ok) {
            if self.listed >= self.max_entries {
                self.full = true;
                self.diags.push(Diagnostic::new(
                    codes::READ,
                    Severity::Error,
                    Location::new(shown, 0, 0),
                    format!(
                        "cannot read directory: the catalog holds more than {} files and \
                         directories; the rest is not read",
                        self.max_entries
                    ),
                ));
                // None of this directory is read, so what is read does not hang on the order
                // the file system lists entries in.
                return;
            }
            self.listed += 1;
            listed.push(e);
        }
        listed.sort_by_key(|e| e.file_name());
        for entry in listed {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let child_rel = if rel.is_empty() {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            };
            self.seen.push(child_rel.as_str().into());
            let abs = entry.path();
            let Ok(ft) = entry.file_type() else {
                self.diags.push(Diagnostic::new(
                    codes::READ,
                    Severity::Error,
                    Location::new(&child_rel, 0, 0),
                    "cannot read file: it disappeared while the catalog was being read",
                ));
                continue;
            };
            if ft.is_dir() {
                self.walk(&abs, &child_rel, depth + 1);
                continue;
            }
            if ft.is_symlink()
                && let Some(d) = symlink_problem(&abs, self.canonical_root, &child_rel)
            {
                self.diags.push(d);
                continue;
            }
            // A FIFO would block the read until someone writes to it; a device may never end. (A
            // link to one is caught when the file is opened.)
            if !ft.is_file() && !ft.is_symlink() {
                self.diags
                    .push(not_read(&child_rel, ReadError::NotRegular(kind_name(ft))));
                continue;
            }
            let found = Found {
                rel: child_rel,
                abs,
            };
            if name == ".indexignore" {
                self.ignores.push(found);
            } else {
                self.files.push(found);
            }
        }
    }
}

/// Why a symbolic link is not followed: broken, pointing outside the catalog, or to a directory.
fn symlink_problem(abs: &Path, canonical_root: &Path, rel: &str) -> Option<Diagnostic> {
    match fs::canonicalize(abs) {
        Err(e) => Some(Diagnostic::new(
            codes::SYMLINK,
            Severity::Error,
            Location::new(rel, 0, 0),
            format!("broken symbolic link: {e}"),
        )),
        Ok(target) if !target.starts_with(canonical_root) => Some(Diagnostic::new(
            codes::SYMLINK,
            Severity::Warning,
            Location::new(rel, 0, 0),
            format!(
                "symbolic link to {} points outside the catalog; not followed",
                target.display()
            ),
        )),
        Ok(target) if target.is_dir() => Some(Diagnostic::new(
            codes::SYMLINK,
            Severity::Error,
            Location::new(rel, 0, 0),
            "symbolic link to a directory: opm fails to read it as a file (not followed)",
        )),
        Ok(_) => None,
    }
}

/// A file the load passes over, and why.
pub(super) fn not_read(rel: &str, why: ReadError) -> Diagnostic {
    let why = match why {
        ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
            "it disappeared while the catalog was being read".to_string()
        }
        ReadError::TooLarge { len, .. } => {
            format!("file is larger than 4 GiB ({len} bytes); not read")
        }
        other => other.to_string(),
    };
    Diagnostic::new(
        codes::READ,
        Severity::Error,
        Location::new(rel, 0, 0),
        format!("cannot read file: {why}"),
    )
}

fn build_ignore(root: &Path, f: &Found, diags: &mut Vec<Diagnostic>) -> Option<IgnoreFile> {
    let text = match guard::file::read_limited(&f.abs, MAX_FILE) {
        Ok(t) => String::from_utf8_lossy(&t).into_owned(),
        Err(e) => {
            diags.push(Diagnostic::new(
                codes::IGNORE_FILE,
                Severity::Error,
                Location::new(&f.rel, 0, 0),
                format!("cannot read .indexignore: {e}"),
            ));
            return None;
        }
    };
    let dir = f.rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let mut builder = GitignoreBuilder::new(if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(&dir)
    });
    for (i, line) in text.lines().enumerate() {
        // opm trims both ends of every line before reading it as a pattern.
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Err(e) = builder.add_line(None, line) {
            diags.push(Diagnostic::new(
                codes::IGNORE_FILE,
                Severity::Warning,
                Location::new(&f.rel, i as u32 + 1, 1),
                format!("pattern is not valid and matches nothing: {e}"),
            ));
        }
    }
    match builder.build() {
        Ok(matcher) => Some(IgnoreFile { dir, matcher }),
        Err(e) => {
            diags.push(Diagnostic::new(
                codes::IGNORE_FILE,
                Severity::Error,
                Location::new(&f.rel, 0, 0),
                format!("cannot use .indexignore: {e}"),
            ));
            None
        }
    }
}

/// A file is ignored when the nearest-in-priority `.indexignore` that has an opinion says so. Patterns of
/// `.indexignore` files later in walk order win, as in opm; each applies only below its own directory.
fn is_ignored(f: &Found, ignores: &[IgnoreFile]) -> bool {
    for ig in ignores.iter().rev() {
        let inside = ig.dir.is_empty()
            || f.rel
                .strip_prefix(&ig.dir)
                .is_some_and(|r| r.starts_with('/'));
        if !inside {
            continue;
        }
        match ig.matcher.matched_path_or_any_parents(&f.abs, false) {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => return false,
            Match::None => {}
        }
    }
    false
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
