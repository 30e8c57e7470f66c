//! Which paths hold templates rather than a catalog, and the template files of a directory: how
//! every face tells a template edit from a catalog edit. The directory is input: it is listed
//! within [`MAX_ENTRIES`] entries, and only regular files count (a link only when it leads to one
//! inside the directory).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::edit::release::OperatorDir;
use crate::guard::dir::{self, DirError, Kind, MAX_REPOSITORY_ENTRIES};
use crate::guard::file::Within;

/// The most entries a directory of templates is listed with: an operator's templates are one per
/// OpenShift version or so. A directory holding more is not a directory of templates.
pub const MAX_ENTRIES: usize = 10_000;

/// Whether `path` is (or holds) templates rather than a catalog: a template file, an operator
/// directory with `catalog-templates/`, `catalog-templates/` itself, or a directory whose files are
/// all templates.
pub fn holds_templates(path: &Path) -> bool {
    if path.is_file() {
        return true;
    }
    if path.join("catalog-templates").is_dir()
        || path.file_name().is_some_and(|n| n == "catalog-templates")
    {
        return true;
    }
    let files = template_files(path);
    !files.is_empty() && files.len() == files_in(path).len()
}

/// The YAML and JSON files of `dir`, in name order: regular files, or links to regular files
/// inside `dir`; none when the directory holds more than [`MAX_ENTRIES`] entries.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(within) = Within::new(dir) else {
        return Vec::new();
    };
    let Ok(entries) = dir::list(dir, &within, MAX_ENTRIES) else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter(|e| e.kind == Kind::File)
        .map(|e| e.path)
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        })
        .collect()
}

/// The template files of a directory (its `catalog-templates/` for an operator directory), in name
/// order.
pub fn template_files(dir: &Path) -> Vec<PathBuf> {
    let dir = OperatorDir::find(dir);
    let dir = if dir.templates.is_dir() {
        dir.templates
    } else {
        dir.dir
    };
    files_in(&dir)
        .into_iter()
        .filter(|p| {
            super::read_text(p)
                .ok()
                .and_then(|t| super::template_schema(&t))
                .is_some()
        })
        .collect()
}

/// In the repository `repo`, the catalogs holding a directory for `operator`
/// (`catalogs/<name>/<operator>/`), sorted by name: `catalogs/` is listed within
/// [`MAX_REPOSITORY_ENTRIES`] entries (more is an error, found before the rest is read), and a
/// catalog counts only when its directory resolves inside the repository (a link leading out of
/// it is passed over, as is one leading nowhere). None when `catalogs/` cannot be read.
pub(crate) fn catalogs_holding(repo: &Path, operator: &OsStr) -> Result<Vec<String>, DirError> {
    catalogs_holding_within(repo, operator, MAX_REPOSITORY_ENTRIES)
}

/// [`catalogs_holding`], `catalogs/` listed within `max` entries.
fn catalogs_holding_within(
    repo: &Path,
    operator: &OsStr,
    max: usize,
) -> Result<Vec<String>, DirError> {
    // A repository named by a relative path may be the current directory, named by no path.
    let root = if repo.as_os_str().is_empty() {
        Path::new(".")
    } else {
        repo
    };
    let Ok(within) = Within::new(root) else {
        return Ok(Vec::new());
    };
    let entries = match dir::list(&repo.join("catalogs"), &within, max) {
        Ok(e) => e,
        Err(DirError::Io { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut names: Vec<String> = entries
        .into_iter()
        .filter(|e| e.kind == Kind::Dir)
        .filter(|e| {
            std::fs::canonicalize(e.path.join(operator))
                .is_ok_and(|p| p.starts_with(within.root()) && p.is_dir())
        })
        .map(|e| e.name.to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "schema: olm.template.basic\nentries: []\n";

    #[test]
    fn a_directory_over_the_entry_bound_holds_no_templates_and_none_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..=MAX_ENTRIES {
            std::fs::write(tmp.path().join(format!("v{i}.yaml")), TEMPLATE).unwrap();
        }
        let watch = crate::guard::reads::watch();
        assert!(!holds_templates(tmp.path()));
        assert!(template_files(tmp.path()).is_empty());
        let read = watch.take();
        assert!(
            read.iter().all(|r| !r.ends_with(".yaml")),
            "{:?}",
            &read[..3]
        );
        // At the bound, every file is read and found a template.
        std::fs::remove_file(tmp.path().join("v0.yaml")).unwrap();
        assert!(holds_templates(tmp.path()));
    }

    #[test]
    fn only_regular_files_inside_the_directory_count() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("templates");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(tmp.path().join("outside.yaml"), TEMPLATE).unwrap();
        std::fs::write(dir.join("v4.18.yaml"), TEMPLATE).unwrap();
        std::os::unix::fs::symlink("v4.18.yaml", dir.join("v4.19.yaml")).unwrap();
        std::os::unix::fs::symlink("../outside.yaml", dir.join("v4.20.yaml")).unwrap();
        crate::guard::file::tests::mkfifo(&dir.join("v4.21.yaml"));
        let names: Vec<String> = template_files(&dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["v4.18.yaml", "v4.19.yaml"]);
        assert!(holds_templates(&dir));
    }

    #[test]
    fn catalogs_holding_an_operator_are_listed_within_the_bound_and_the_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        for d in [
            "catalogs/v4.18/op",
            "catalogs/v4.17/op",
            "catalogs/v4.19/other",
        ] {
            std::fs::create_dir_all(repo.join(d)).unwrap();
        }
        std::fs::create_dir_all(tmp.path().join("elsewhere/op")).unwrap();
        std::fs::create_dir_all(repo.join("catalogs/v4.20")).unwrap();
        std::os::unix::fs::symlink("../v4.18/op", repo.join("catalogs/v4.20/op")).unwrap();
        std::os::unix::fs::symlink("v4.17", repo.join("catalogs/v4.16")).unwrap();
        std::os::unix::fs::symlink("../../elsewhere", repo.join("catalogs/v4.21")).unwrap();
        std::fs::create_dir_all(repo.join("catalogs/v4.22")).unwrap();
        std::os::unix::fs::symlink("../../../elsewhere/op", repo.join("catalogs/v4.22/op"))
            .unwrap();
        // Links inside the repository count as before; those leading out of it do not.
        assert_eq!(
            catalogs_holding(&repo, "op".as_ref()).unwrap(),
            ["v4.16", "v4.17", "v4.18", "v4.20"]
        );
        assert_eq!(
            catalogs_holding_within(&repo, "op".as_ref(), 7)
                .unwrap()
                .len(),
            4
        );
        let e = catalogs_holding_within(&repo, "op".as_ref(), 6).unwrap_err();
        assert!(matches!(e, DirError::TooMany { max: 6, .. }), "{e}");
        assert!(
            catalogs_holding(&tmp.path().join("none"), "op".as_ref())
                .unwrap()
                .is_empty()
        );
    }
}
