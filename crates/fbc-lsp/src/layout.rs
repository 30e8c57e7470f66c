//! What a file is to the server, from where it lies and what it starts with: a file of a catalog
//! (and which directory is that catalog's root), a template, or one of the pipeline's files.
//!
//! A catalog's root is, in this order: the longest configured root holding the file
//! (`catalogRoots`); `catalogs/<ocp>/` when the file lies under such a directory (the layout of
//! community-operators-prod and certified-operators); the nearest enclosing directory named
//! `catalog` (the layout of an operator's own repository); the workspace folder holding the file;
//! else the file's own directory. The last two apply only to a file that names a catalog schema:
//! other YAML and JSON files are left alone.

use std::path::{Path, PathBuf};

/// What a file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind {
    /// A file of the catalog at `root`, at `rel` below it (`/`-separated).
    Catalog { root: PathBuf, rel: String },
    /// An opm template (`olm.template.basic`, `olm.semver` or `olm.template.substitutes`).
    Template,
    /// An operator's `ci.yaml` in a repository at `repo`.
    Ci { repo: PathBuf, operator: String },
    /// A bundle's `release-config.yaml` in a repository at `repo`.
    ReleaseConfig { repo: PathBuf, operator: String },
    /// Any other file (a YAML or JSON file outside a catalog layout that names no catalog
    /// schema): left alone, so opening one does not read its directory as a catalog.
    Other,
}

/// What `path` (absolute) holding `text` is.
pub fn classify(path: &Path, text: &str, roots: &[PathBuf], folders: &[PathBuf]) -> FileKind {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent = path.parent().unwrap_or(Path::new("/"));
    if let Some((repo, operator)) = operator_of(parent, 0)
        && name == "ci.yaml"
    {
        return FileKind::Ci { repo, operator };
    }
    if let Some((repo, operator)) = operator_of(parent, 1)
        && name == "release-config.yaml"
    {
        return FileKind::ReleaseConfig { repo, operator };
    }
    if dir_name(parent) == Some("catalog-templates") || is_template_text(text) {
        return FileKind::Template;
    }
    let root = match layout_root(path, roots, folders) {
        Some(r) => r,
        None if is_catalog_text(text) => fallback_root(path, folders),
        None => return FileKind::Other,
    };
    let rel = path
        .strip_prefix(&root)
        .map(|r| {
            r.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_else(|_| name.to_string());
    FileKind::Catalog { root, rel }
}

fn dir_name(p: &Path) -> Option<&str> {
    p.file_name().and_then(|n| n.to_str())
}

/// `(repository, operator)` when `dir`, `up` levels below `operators/<op>/`, is in a repository.
fn operator_of(dir: &Path, up: usize) -> Option<(PathBuf, String)> {
    let mut op_dir = dir;
    for _ in 0..up {
        op_dir = op_dir.parent()?;
    }
    let operators = op_dir.parent()?;
    (dir_name(operators)? == "operators")
        .then(|| (operators.parent().map(Path::to_path_buf), dir_name(op_dir)))
        .and_then(|(repo, op)| Some((repo?, op?.to_string())))
}

/// Whether a document of `text` names a template schema (its `schema` key, YAML or JSON).
pub fn is_template_text(text: &str) -> bool {
    text.lines().take(200).any(|l| {
        let l = l.trim().trim_start_matches(['{', ' ']);
        let Some(rest) = l
            .strip_prefix("schema:")
            .or_else(|| l.strip_prefix("\"schema\":"))
        else {
            return false;
        };
        let v = rest.trim().trim_end_matches([',', '}']).trim();
        let v = v.trim_matches(['"', '\'']);
        v == "olm.template.basic" || v == "olm.semver" || v == "olm.template.substitutes"
    })
}

/// Whether `text` names one of the catalog schemas.
fn is_catalog_text(text: &str) -> bool {
    [
        "olm.package",
        "olm.channel",
        "olm.bundle",
        "olm.deprecations",
    ]
    .iter()
    .any(|s| text.contains(s))
}

/// The catalog root `path` belongs to (see the module's notes).
pub fn catalog_root(path: &Path, roots: &[PathBuf], folders: &[PathBuf]) -> PathBuf {
    layout_root(path, roots, folders).unwrap_or_else(|| fallback_root(path, folders))
}

/// The root the settings or the repository layouts give (the first three rules).
fn layout_root(path: &Path, roots: &[PathBuf], folders: &[PathBuf]) -> Option<PathBuf> {
    let base = folders.first().map(PathBuf::as_path);
    let configured = roots
        .iter()
        .map(|r| match base {
            Some(b) if r.is_relative() => b.join(r),
            _ => r.clone(),
        })
        .filter(|r| path.starts_with(r) && path != r)
        .max_by_key(|r| r.components().count());
    if configured.is_some() {
        return configured;
    }
    let parent = path.parent().unwrap_or(Path::new("/"));
    parent
        .ancestors()
        .find(|dir| {
            dir.parent().and_then(dir_name) == Some("catalogs") || dir_name(dir) == Some("catalog")
        })
        .map(Path::to_path_buf)
}

/// The workspace folder holding `path`, else its directory (the last two rules).
fn fallback_root(path: &Path, folders: &[PathBuf]) -> PathBuf {
    let parent = path.parent().unwrap_or(Path::new("/"));
    folders
        .iter()
        .filter(|f| path.starts_with(f))
        .max_by_key(|f| f.components().count())
        .cloned()
        .unwrap_or_else(|| parent.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat(root: &str, rel: &str) -> FileKind {
        FileKind::Catalog {
            root: root.into(),
            rel: rel.into(),
        }
    }

    #[test]
    fn files_are_told_apart_by_layout() {
        let none: [PathBuf; 0] = [];
        let c = |p: &str, t: &str| classify(Path::new(p), t, &none, &[PathBuf::from("/ws")]);
        assert_eq!(
            c("/r/catalogs/v4.18/op/catalog.yaml", ""),
            cat("/r/catalogs/v4.18", "op/catalog.yaml")
        );
        assert_eq!(
            c("/ws/catalog/op/index.json", ""),
            cat("/ws/catalog", "op/index.json")
        );
        let pkg = "schema: olm.package\nname: op\n";
        assert_eq!(c("/ws/x/op/c.yaml", pkg), cat("/ws", "x/op/c.yaml"));
        assert_eq!(c("/elsewhere/c.yaml", pkg), cat("/elsewhere", "c.yaml"));
        // Outside the layouts, a file naming no catalog schema is not a catalog's.
        assert_eq!(c("/ws/x/op/c.yaml", "kind: Deployment\n"), FileKind::Other);
        assert_eq!(
            c("/ws/catalog/new.yaml", ""),
            cat("/ws/catalog", "new.yaml")
        );
        assert_eq!(
            c("/r/operators/op/ci.yaml", ""),
            FileKind::Ci {
                repo: "/r".into(),
                operator: "op".into()
            }
        );
        assert_eq!(
            c("/r/operators/op/1.0.0/release-config.yaml", ""),
            FileKind::ReleaseConfig {
                repo: "/r".into(),
                operator: "op".into()
            }
        );
        assert_eq!(
            c("/r/operators/op/catalog-templates/v4.18.yaml", ""),
            FileKind::Template
        );
        assert_eq!(
            c("/ws/t.yaml", "---\nschema: olm.semver\n"),
            FileKind::Template
        );
        assert_eq!(
            c("/ws/t.json", "{\"schema\": \"olm.template.basic\","),
            FileKind::Template
        );
        assert_eq!(
            c("/ws/t.yaml", "schema: olm.template.substitutes\n"),
            FileKind::Template
        );
        let roots = [PathBuf::from("mine")];
        assert_eq!(
            classify(
                Path::new("/ws/mine/catalogs/v4.18/a.yaml"),
                "",
                &roots,
                &[PathBuf::from("/ws")]
            ),
            cat("/ws/mine", "catalogs/v4.18/a.yaml")
        );
    }
}
