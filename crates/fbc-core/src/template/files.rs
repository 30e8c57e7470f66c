//! Which paths hold templates rather than a catalog, and the template files of a directory: how
//! every face tells a template edit from a catalog edit.

use std::path::{Path, PathBuf};

use super::edit::release::OperatorDir;

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

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        })
        .collect();
    out.sort();
    out
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
