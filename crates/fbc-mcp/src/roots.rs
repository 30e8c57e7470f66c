//! The directories the server was started on: every path a client names must lie inside one of
//! them once symbolic links are resolved, and is refused, saying so, when it does not.

use std::path::{Path, PathBuf};

use fbc_core::guard::path::{self as guard_path, PathRefusal};

/// Why the server cannot start on the directories it was given.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error("{0}: {1}")]
    Unreadable(PathBuf, std::io::Error),
    #[error("{0}: not a directory")]
    NotADirectory(PathBuf),
}

/// A path a client named that the server will not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("{value:?}: {why}")]
    Refused { value: String, why: PathRefusal },
    #[error(
        "{path} is outside the directories this server reads ({roots}); start it as `fbc-edit mcp DIR…` to serve others"
    )]
    Outside { path: String, roots: String },
}

/// The directories fixed when the server starts, absolute with symbolic links resolved, in the
/// order given (duplicates dropped).
#[derive(Debug, Clone)]
pub struct Roots {
    dirs: Vec<PathBuf>,
}

impl Roots {
    /// The roots at `dirs` (the current directory when none is given); each must be a directory.
    pub fn new(dirs: &[PathBuf]) -> Result<Roots, RootError> {
        let given: Vec<PathBuf> = if dirs.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            dirs.to_vec()
        };
        let mut out: Vec<PathBuf> = Vec::new();
        for d in given {
            let abs = d
                .canonicalize()
                .map_err(|e| RootError::Unreadable(d.clone(), e))?;
            if !abs.is_dir() {
                return Err(RootError::NotADirectory(d));
            }
            if !out.contains(&abs) {
                out.push(abs);
            }
        }
        Ok(Roots { dirs: out })
    }

    /// The roots, in the order given.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Refuses the first of `files` (paths about to be written) that lies outside the served
    /// directories.
    pub fn hold(&self, files: impl IntoIterator<Item = PathBuf>) -> Result<(), PathError> {
        match files
            .into_iter()
            .find(|f| !self.dirs.iter().any(|r| f.starts_with(r)))
        {
            Some(file) => Err(PathError::Outside {
                path: file.display().to_string(),
                roots: self.describe(),
            }),
            None => Ok(()),
        }
    }

    /// The roots as a client reads them in a message.
    pub fn describe(&self) -> String {
        self.dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn inside(&self, path: &Path) -> bool {
        self.dirs.iter().any(|r| path.starts_with(r))
    }

    /// The path a client named, absolute and inside a root. A relative path is taken from the
    /// first root that holds it (the first root when none does); `""` and `.` name the first root.
    /// Its characters and elements pass the engine's path policy (no `..`, no control characters);
    /// symbolic links are followed and must stay inside a root.
    pub fn resolve(&self, value: &str) -> Result<PathBuf, PathError> {
        let refused = |why| PathError::Refused {
            value: value.to_string(),
            why,
        };
        let absolute = value.starts_with('/');
        let rest = value.trim_start_matches('/');
        let elements = if rest.is_empty() || rest == "." {
            Vec::new()
        } else {
            guard_path::relative(rest)
                .map_err(refused)?
                .parts()
                .to_vec()
        };
        let under = |base: &Path| {
            let mut p = base.to_path_buf();
            p.extend(&elements);
            guard_path::absolute(&p)
        };
        let path = if absolute {
            under(Path::new("/"))
        } else {
            let candidates: Vec<PathBuf> = self.dirs.iter().map(|r| under(r)).collect();
            candidates
                .iter()
                .find(|p| p.exists() && self.inside(p))
                .unwrap_or(&candidates[0])
                .clone()
        };
        if !self.inside(&path) {
            return Err(PathError::Outside {
                path: path.display().to_string(),
                roots: self.describe(),
            });
        }
        Ok(path)
    }

    /// A template in a repository layout (`REPO/operators/OP/catalog-templates/T`, or
    /// `REPO/operators/OP/T`) is rendered from its repository's catalogs and bundle directories, and
    /// saved with the catalogs it maps to: the repository must be served too.
    pub fn check_repository_of(&self, template: &Path) -> Result<(), PathError> {
        let Some(dir) = template.parent() else {
            return Ok(());
        };
        let op = if dir.file_name().is_some_and(|n| n == "catalog-templates") {
            dir.parent()
        } else {
            Some(dir)
        };
        let operators = op.and_then(Path::parent);
        let Some(repo) = operators
            .filter(|o| o.file_name().is_some_and(|n| n == "operators"))
            .and_then(Path::parent)
        else {
            return Ok(());
        };
        if self.inside(repo) {
            return Ok(());
        }
        Err(PathError::Outside {
            path: format!(
                "{} (the repository of {})",
                repo.display(),
                template.display()
            ),
            roots: self.describe(),
        })
    }

    /// `path` as shown to a client: relative to the root holding it (`.` for the root itself).
    pub fn show(&self, path: &Path) -> String {
        for r in &self.dirs {
            if let Ok(rest) = path.strip_prefix(r) {
                let s = rest.display().to_string();
                return if s.is_empty() { ".".into() } else { s };
            }
        }
        path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> (tempfile::TempDir, Roots) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("a/cat")).unwrap();
        std::fs::create_dir_all(tmp.path().join("b/other")).unwrap();
        let r = Roots::new(&[tmp.path().join("a"), tmp.path().join("b")]).unwrap();
        (tmp, r)
    }

    #[test]
    fn relative_paths_are_found_in_the_root_that_holds_them() {
        let (tmp, r) = roots();
        let base = tmp.path().canonicalize().unwrap();
        assert_eq!(r.resolve("cat").unwrap(), base.join("a/cat"));
        assert_eq!(r.resolve("./other").unwrap(), base.join("b/other"));
        assert_eq!(r.resolve("").unwrap(), base.join("a"));
        assert_eq!(
            r.resolve("new/file.yaml").unwrap(),
            base.join("a/new/file.yaml")
        );
        let abs = base.join("b/other").display().to_string();
        assert_eq!(r.resolve(&abs).unwrap(), base.join("b/other"));
    }

    #[test]
    fn anything_outside_the_roots_is_refused_and_said() {
        let (tmp, r) = roots();
        let e = r.resolve("/etc/passwd").unwrap_err();
        assert!(
            e.to_string()
                .contains("outside the directories this server reads"),
            "{e}"
        );
        assert!(matches!(r.resolve("../b"), Err(PathError::Refused { .. })));
        assert!(matches!(
            r.resolve("cat/\u{1b}x"),
            Err(PathError::Refused { .. })
        ));
        // A link inside a root that leads out of every root.
        std::os::unix::fs::symlink("/etc", tmp.path().join("a/etc")).unwrap();
        assert!(matches!(
            r.resolve("etc/hostname"),
            Err(PathError::Outside { .. })
        ));
        let parent = tmp.path().display().to_string();
        assert!(matches!(r.resolve(&parent), Err(PathError::Outside { .. })));
    }

    #[test]
    fn a_template_in_a_repository_needs_the_repository_served() {
        let tmp = tempfile::tempdir().unwrap();
        let op = tmp.path().join("repo/operators/op");
        std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
        let t = op.join("catalog-templates/v4.18.yaml");
        let narrow = Roots::new(std::slice::from_ref(&op)).unwrap();
        let t = t.canonicalize().unwrap_or(guard_path::absolute(&t));
        let e = narrow.check_repository_of(&t).unwrap_err();
        assert!(e.to_string().contains("(the repository of"), "{e}");
        let whole = Roots::new(&[tmp.path().join("repo")]).unwrap();
        assert_eq!(whole.check_repository_of(&t), Ok(()));
        // Outside a repository layout nothing more is needed.
        let plain = tmp.path().join("repo/templates/basic.yaml");
        assert_eq!(narrow.check_repository_of(&plain), Ok(()));
    }

    #[test]
    fn a_root_must_be_a_directory() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f"), "x").unwrap();
        assert!(matches!(
            Roots::new(&[tmp.path().join("f")]),
            Err(RootError::NotADirectory(_))
        ));
        assert!(Roots::new(&[tmp.path().join("missing")]).is_err());
    }
}
