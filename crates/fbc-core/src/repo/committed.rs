//! The repository's committed catalogs (`catalogs/<ocp>/`), each loaded once for its two uses:
//! validated as a whole, and asked for bundles by every operator's re-rendering, which reads
//! `catalogs/<ocp>/<op>/` as a [`CatalogSource`] made within the loaded catalog.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::template::CatalogSource;

/// How deep below an operator's catalog directory links are looked for; a deeper tree is read on
/// its own instead.
const MAX_DEPTH: usize = 16;

/// The catalogs loaded, by directory (`<root>/catalogs/<ocp>`).
#[derive(Default)]
pub(crate) struct Committed {
    loaded: HashMap<PathBuf, Arc<Catalog>>,
}

impl Committed {
    pub(crate) fn insert(&mut self, dir: PathBuf, catalog: Arc<Catalog>) {
        self.loaded.insert(dir, catalog);
    }

    /// The source `CatalogSource::load(dir)` would give, from the loaded catalog of `dir`'s parent;
    /// `None` when that catalog is not loaded or might read `dir`'s files otherwise than loading
    /// `dir` alone: an `.indexignore` in the parent (its rules reach into `dir`), `dir` a link, or
    /// a link anywhere under `dir` (followed or refused against another root).
    pub(crate) fn source(&self, dir: &Path) -> Option<CatalogSource> {
        let catalog = self.loaded.get(dir.parent()?)?;
        let name = dir.file_name()?.to_str()?;
        let parent = dir.parent()?;
        if parent.join(".indexignore").symlink_metadata().is_ok() {
            return None;
        }
        if !dir.symlink_metadata().ok()?.is_dir() || !free_of_links(dir, 0) {
            return None;
        }
        Some(CatalogSource::within(dir, Arc::clone(catalog), name))
    }
}

/// Whether the tree under `dir` holds no symbolic link (and could be listed whole).
fn free_of_links(dir: &Path, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for entry in entries {
        let Ok(entry) = entry else {
            return false;
        };
        let Ok(kind) = entry.file_type() else {
            return false;
        };
        if kind.is_symlink() || (kind.is_dir() && !free_of_links(&entry.path(), depth + 1)) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::BundleSource;

    fn catalogs() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for op in ["a", "b"] {
            let dir = d.path().join("v4.18").join(op);
            std::fs::create_dir_all(&dir).unwrap();
            let text = format!(
                r#"{{"schema":"olm.package","name":"{op}","icon":{{"base64data":"PHN2Zz4=","mediatype":"image/svg+xml"}}}}
{{"schema":"olm.bundle","name":"{op}.v1","package":"{op}","image":"example.com/{op}:1","properties":[{{"type":"olm.package","value":{{"packageName":"{op}","version":"1.0.0"}}}}]}}
"#
            );
            std::fs::write(dir.join("catalog.json"), text).unwrap();
        }
        d
    }

    fn committed(root: &Path) -> Committed {
        let mut c = Committed::default();
        let dir = root.join("v4.18");
        c.insert(dir.clone(), Arc::new(crate::catalog::load(&dir).unwrap()));
        c
    }

    #[test]
    fn an_operator_directory_answers_as_when_loaded_alone() {
        let d = catalogs();
        let c = committed(d.path());
        let dir = d.path().join("v4.18/a");
        let shared = c.source(&dir).expect("shared");
        let alone = CatalogSource::load(&dir).unwrap();
        for image in ["example.com/a:1", "example.com/b:1"] {
            assert_eq!(
                shared.bundle_for_image(image).map(|r| r.unwrap()),
                alone.bundle_for_image(image).map(|r| r.unwrap()),
                "{image}"
            );
        }
        assert!(shared.bundle_for_image("example.com/b:1").is_none());
        assert_eq!(shared.package_icon("a"), alone.package_icon("a"));
        assert!(
            shared
                .package_icon("a")
                .unwrap()
                .1
                .ends_with("v4.18/a/catalog.json:1")
        );
        assert!(shared.package_icon("b").is_none());
        let mut versions: Vec<_> = shared.versions().collect();
        versions.sort();
        assert_eq!(versions, [("example.com/a:1", "1.0.0")]);
    }

    #[test]
    fn an_ignore_file_or_a_link_makes_the_directory_load_alone() {
        let d = catalogs();
        let c = committed(d.path());
        std::fs::write(d.path().join("v4.18/.indexignore"), "a/*\n").unwrap();
        assert!(c.source(&d.path().join("v4.18/a")).is_none());
        std::fs::remove_file(d.path().join("v4.18/.indexignore")).unwrap();
        std::os::unix::fs::symlink("../b/catalog.json", d.path().join("v4.18/a/other.json"))
            .unwrap();
        assert!(c.source(&d.path().join("v4.18/a")).is_none());
        assert!(c.source(&d.path().join("v4.18/b")).is_some());
        assert!(c.source(&d.path().join("v4.19/b")).is_none());
    }
}
