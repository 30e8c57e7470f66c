//! A repository's directories listed within bounds: `operators/`, `catalogs/` and
//! `catalogs/<ocp>/` within [`MAX_REPOSITORY_ENTRIES`] entries, an operator's directory within
//! [`MAX_OPERATOR_ENTRIES`], its `catalog-templates/` within [`files::MAX_ENTRIES`]. Links are
//! not followed: only directories and regular files themselves are named. A directory that cannot
//! be read lists nothing; one holding more entries than its bound is an error, found before the
//! rest is read, which the checks report (FBC419) instead of listing a part.

use std::path::Path;

use crate::catalog::codes::repo as c;
use crate::catalog::{Diagnostic, Location};
use crate::guard::dir::{self, DirError, Kind, MAX_OPERATOR_ENTRIES, MAX_REPOSITORY_ENTRIES};
use crate::template::files;

/// The names of the directories in the repository directory `dir` (`operators/`, `catalogs/`,
/// `catalogs/<ocp>/`; links not followed), sorted; none when it cannot be read, an error when it
/// holds more than [`MAX_REPOSITORY_ENTRIES`] entries.
pub fn subdirectories(dir: &Path) -> Result<Vec<String>, DirError> {
    names(dir, MAX_REPOSITORY_ENTRIES, Kind::Dir)
}

/// The version directories of an operator's directory `dir` (links not followed), sorted, within
/// [`MAX_OPERATOR_ENTRIES`] entries.
pub(super) fn operator_subdirectories(dir: &Path) -> Result<Vec<String>, DirError> {
    names(dir, MAX_OPERATOR_ENTRIES, Kind::Dir)
}

/// The names of the regular files in a `catalog-templates/` directory (links not followed),
/// sorted, within [`files::MAX_ENTRIES`] entries.
pub(super) fn template_files(dir: &Path) -> Result<Vec<String>, DirError> {
    names(dir, files::MAX_ENTRIES, Kind::File)
}

/// The names of `dir`'s entries of `kind` that are no links (and are UTF-8), sorted: at most
/// `max` entries listed; none when `dir` cannot be read.
fn names(dir: &Path, max: usize, kind: Kind) -> Result<Vec<String>, DirError> {
    match dir::names_of(dir, max, kind) {
        Err(DirError::Io { .. }) => Ok(Vec::new()),
        r => r,
    }
}

/// The problem of a directory that was not listed (`rel`: the directory, relative to the
/// repository's root).
pub(super) fn unlisted(rel: impl Into<String>, e: &DirError) -> Diagnostic {
    let why = match e {
        DirError::TooMany { max, .. } => {
            format!("the directory holds more than {max} entries; not read further")
        }
        DirError::Io { source, .. } => format!("cannot read the directory: {source}"),
    };
    Diagnostic::error(c::READ, Location::new(rel, 0, 0), why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_directories_and_files_themselves_are_named_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        for sub in ["b", "a", "B", "c/d"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        std::fs::write(d.join("v4.18.yaml"), "").unwrap();
        std::fs::write(d.join("A.yaml"), "").unwrap();
        std::os::unix::fs::symlink("a", d.join("link-dir")).unwrap();
        std::os::unix::fs::symlink("A.yaml", d.join("link-file.yaml")).unwrap();
        assert_eq!(subdirectories(d).unwrap(), ["B", "a", "b", "c"]);
        assert_eq!(names(d, 8, Kind::File).unwrap(), ["A.yaml", "v4.18.yaml"]);
        assert!(subdirectories(&d.join("none")).unwrap().is_empty());
    }

    #[test]
    fn a_directory_over_the_bound_is_an_error_not_a_part() {
        let tmp = tempfile::tempdir().unwrap();
        for sub in ["a", "b", "c"] {
            std::fs::create_dir(tmp.path().join(sub)).unwrap();
        }
        assert_eq!(names(tmp.path(), 3, Kind::Dir).unwrap(), ["a", "b", "c"]);
        let e = names(tmp.path(), 2, Kind::Dir).unwrap_err();
        assert!(matches!(e, DirError::TooMany { max: 2, .. }), "{e}");
        let d = unlisted("operators", &e);
        assert_eq!(d.code, c::READ);
        assert_eq!(d.location.file, "operators");
        assert_eq!(
            d.message,
            "the directory holds more than 2 entries; not read further"
        );
    }
}
