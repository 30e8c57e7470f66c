//! Which paths hold templates rather than a catalog, and the template files of a directory: how
//! every face tells a template edit from a catalog edit. The directory is input: it is listed
//! within [`MAX_ENTRIES`] entries, and only regular files count (a link only when it leads to one
//! inside the directory).

use std::path::{Path, PathBuf};

use super::edit::release::OperatorDir;
use crate::guard::dir::{self, Kind};
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
}
