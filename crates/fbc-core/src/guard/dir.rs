//! Directories listed within bounds. A directory from input may hold millions of entries, links
//! leading anywhere, FIFOs and devices; a listing reads at most a given number of entries (more is
//! an error, found before the rest is read), sorts them by name, and tells what each is: a
//! symbolic link counts as what it leads to only when that lies inside the root fixed by a
//! [`Within`], and as [`Kind::Outside`] otherwise.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::file::Within;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file, or a link to one inside the root.
    File,
    /// A directory, or a link to one inside the root.
    Dir,
    /// A link leading out of the root, or one that leads nowhere.
    Outside,
    /// A FIFO, socket or device (or a link to one).
    Other,
}

/// One entry of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: OsString,
    pub path: PathBuf,
    pub kind: Kind,
    /// Whether the entry is itself a symbolic link (`kind` tells what it leads to), for a reader
    /// that passes links over or refuses them.
    pub link: bool,
}

/// The most entries a repository's top-level directories are listed with: `operators/` (about
/// 900 operators in the largest repository), `catalogs/` (one per OpenShift version) and
/// `catalogs/<ocp>/` (one per operator).
pub const MAX_REPOSITORY_ENTRIES: usize = 50_000;

/// The most entries an operator's directory is listed with: its bundle version directories (a
/// few hundred in the largest operators) beside `ci.yaml` and `catalog-templates/`.
pub const MAX_OPERATOR_ENTRIES: usize = 10_000;

/// The most entries a bundle directory, its `manifests/` or `metadata/` (about a hundred files at
/// most), or a directory of package manifests is listed with.
pub const MAX_BUNDLE_ENTRIES: usize = 10_000;

/// Why a directory could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    #[error("{}: {source}", dir.display())]
    Io {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: more than {max} entries; not read further", dir.display())]
    TooMany { dir: PathBuf, max: usize },
}

/// The entries of `dir` (not `.` and `..`), sorted by name as bytes: at most `max`, else
/// [`DirError::TooMany`] once entry `max + 1` is read. Links are judged against `within`.
pub fn list(dir: &Path, within: &Within, max: usize) -> Result<Vec<Entry>, DirError> {
    super::reads::note(|| dir.display().to_string());
    let io = |source| DirError::Io {
        dir: dir.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    for e in fs::read_dir(dir).map_err(io)? {
        if out.len() == max {
            return Err(DirError::TooMany {
                dir: dir.to_path_buf(),
                max,
            });
        }
        let e = e.map_err(io)?;
        let Ok(ft) = e.file_type() else {
            // Gone since it was listed.
            continue;
        };
        let path = e.path();
        let kind = if ft.is_symlink() {
            linked(&path, within)
        } else {
            kind_of(ft)
        };
        out.push(Entry {
            name: e.file_name(),
            path,
            kind,
            link: ft.is_symlink(),
        });
    }
    out.sort_by(|a, b| a.name.as_encoded_bytes().cmp(b.name.as_encoded_bytes()));
    Ok(out)
}

/// [`list`] with links judged against `dir` itself: a directory read on its own, with no wider
/// root.
pub fn list_own(dir: &Path, max: usize) -> Result<Vec<Entry>, DirError> {
    let within = Within::new(dir).map_err(|source| DirError::Io {
        dir: dir.to_path_buf(),
        source,
    })?;
    list(dir, &within, max)
}

/// The names of `dir`'s entries of `kind` that are not links themselves (and are UTF-8), sorted:
/// [`list_own`] within `max` entries.
pub fn names_of(dir: &Path, max: usize, kind: Kind) -> Result<Vec<String>, DirError> {
    // Sorted by name as bytes, which for UTF-8 names is their order as strings.
    Ok(list_own(dir, max)?
        .into_iter()
        .filter(|e| !e.link && e.kind == kind)
        .filter_map(|e| e.name.into_string().ok())
        .collect())
}

fn kind_of(ft: fs::FileType) -> Kind {
    if ft.is_file() {
        Kind::File
    } else if ft.is_dir() {
        Kind::Dir
    } else {
        Kind::Other
    }
}

/// What a link leads to, when that is inside the root.
fn linked(path: &Path, within: &Within) -> Kind {
    match fs::canonicalize(path) {
        Ok(target) if target.starts_with(within.root()) => {
            fs::metadata(&target).map_or(Kind::Outside, |m| kind_of(m.file_type()))
        }
        _ => Kind::Outside,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_bounded_sorted_and_judged() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(tmp.path().join("secret.yaml"), "x").unwrap();
        std::fs::write(root.join("b.yaml"), "x").unwrap();
        std::os::unix::fs::symlink("b.yaml", root.join("a-in.yaml")).unwrap();
        std::os::unix::fs::symlink("../secret.yaml", root.join("c-out.yaml")).unwrap();
        std::os::unix::fs::symlink("none", root.join("d-broken.yaml")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("e-dir")).unwrap();
        super::super::file::tests::mkfifo(&root.join("f.yaml"));
        let within = Within::new(&root).unwrap();
        let got: Vec<(String, Kind, bool)> = list(&root, &within, 100)
            .unwrap()
            .into_iter()
            .map(|e| (e.name.to_string_lossy().into_owned(), e.kind, e.link))
            .collect();
        let want = [
            ("a-in.yaml", Kind::File, true),
            ("b.yaml", Kind::File, false),
            ("c-out.yaml", Kind::Outside, true),
            ("d-broken.yaml", Kind::Outside, true),
            ("e-dir", Kind::Dir, true),
            ("f.yaml", Kind::Other, false),
            ("sub", Kind::Dir, false),
        ];
        assert_eq!(
            got,
            want.map(|(n, k, l)| (n.to_string(), k, l)).to_vec(),
            "{got:?}"
        );
        assert_eq!(list(&root, &within, 7).unwrap().len(), 7);
        let e = list(&root, &within, 6).unwrap_err();
        assert!(matches!(e, DirError::TooMany { max: 6, .. }), "{e}");
        assert!(matches!(
            list(&root.join("none"), &within, 6).unwrap_err(),
            DirError::Io { .. }
        ));
    }
}
