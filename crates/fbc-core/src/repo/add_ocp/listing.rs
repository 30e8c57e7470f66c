//! The directories opening an OCP version lists: `catalogs/` and `catalogs/<from>/` within
//! [`MAX_REPOSITORY_ENTRIES`] entries, an operator's catalog directory within
//! [`MAX_CATALOG_ENTRIES`]. Links are not followed; one holding more entries than its bound is an
//! error, found before the rest is read.

use std::path::Path;

use super::{AddOcpError, OcpVersion, Refusal};
use crate::guard::dir::{self, DirError, Kind, MAX_REPOSITORY_ENTRIES};
use crate::guard::path::{Root, plain_name};

/// The most entries an operator's catalog directory (`catalogs/<ocp>/<op>/`, one `catalog.yaml`
/// or a few files) is listed with.
pub(super) const MAX_CATALOG_ENTRIES: usize = 10_000;

/// The catalog versions under `root/catalogs/` (directories named `vX.Y`, links passed over),
/// sorted.
pub(super) fn catalog_versions(root: &Path) -> Result<Vec<OcpVersion>, AddOcpError> {
    catalog_versions_within(root, MAX_REPOSITORY_ENTRIES)
}

fn catalog_versions_within(root: &Path, max: usize) -> Result<Vec<OcpVersion>, AddOcpError> {
    let names = dir::names_of(&root.join("catalogs"), max, Kind::Dir).map_err(|e| match e {
        DirError::Io { .. } => AddOcpError::NoCatalogs {
            root: root.display().to_string(),
        },
        e => AddOcpError::Listing(e),
    })?;
    let mut out: Vec<OcpVersion> = names.iter().filter_map(|n| OcpVersion::parse(n)).collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// The names of the directories in `dir` that are plain names (links and files passed over),
/// sorted.
pub(super) fn subdirectories(dir: &Path) -> Result<Vec<String>, AddOcpError> {
    subdirectories_within(dir, MAX_REPOSITORY_ENTRIES)
}

fn subdirectories_within(dir: &Path, max: usize) -> Result<Vec<String>, AddOcpError> {
    let names = dir::names_of(dir, max, Kind::Dir).map_err(|e| match e {
        DirError::Io { source, .. } => AddOcpError::Read {
            path: dir.display().to_string(),
            source,
        },
        e => AddOcpError::Listing(e),
    })?;
    Ok(names
        .into_iter()
        .filter(|n| plain_name(n).is_ok())
        .collect())
}

/// The regular files of the catalog directory `rel`, sorted (directories passed over); a link
/// there is refused, as nothing is read through one (the first by name is named).
pub(super) fn catalog_files(root: &Root, rel: &str) -> Result<Vec<String>, Refusal> {
    catalog_files_within(root, rel, MAX_CATALOG_ENTRIES)
}

fn catalog_files_within(root: &Root, rel: &str, max: usize) -> Result<Vec<String>, Refusal> {
    let listed = dir::list_own(&root.path().join(rel), max).map_err(|e| match e {
        DirError::Io { source, .. } => Refusal::Io {
            file: rel.to_string(),
            why: source,
        },
        DirError::TooMany { max, .. } => Refusal::TooMany {
            file: rel.to_string(),
            max,
        },
    })?;
    let mut out = Vec::new();
    for e in listed {
        let name = e.name.to_string_lossy().into_owned();
        if e.link {
            return Err(Refusal::Link {
                file: format!("{rel}/{name}"),
            });
        }
        if e.kind == Kind::File && plain_name(&name).is_ok() {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        for d in [
            "catalogs/v4.18/a",
            "catalogs/v4.18/b",
            "catalogs/v4.19",
            "catalogs/x",
        ] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        std::fs::write(tmp.path().join("catalogs/v4.18/a/catalog.yaml"), "").unwrap();
        std::fs::write(tmp.path().join("catalogs/v4.18/a/extra.json"), "").unwrap();
        std::os::unix::fs::symlink("v4.18", tmp.path().join("catalogs/v4.20")).unwrap();
        tmp
    }

    #[test]
    fn listings_are_as_before_within_the_bound() {
        let tmp = repo();
        let versions: Vec<String> = catalog_versions(tmp.path())
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        // The link v4.20 is passed over, as is x (no version).
        assert_eq!(versions, ["v4.18", "v4.19"]);
        assert_eq!(
            subdirectories(&tmp.path().join("catalogs/v4.18")).unwrap(),
            ["a", "b"]
        );
        let root = Root::new(tmp.path()).unwrap();
        assert_eq!(
            catalog_files(&root, "catalogs/v4.18/a").unwrap(),
            ["catalog.yaml", "extra.json"]
        );
        std::os::unix::fs::symlink("catalog.yaml", tmp.path().join("catalogs/v4.18/a/z.yaml"))
            .unwrap();
        assert!(matches!(
            catalog_files(&root, "catalogs/v4.18/a"),
            Err(Refusal::Link { file }) if file == "catalogs/v4.18/a/z.yaml"
        ));
        assert!(matches!(
            catalog_versions(&tmp.path().join("none")),
            Err(AddOcpError::NoCatalogs { .. })
        ));
    }

    #[test]
    fn directories_over_the_bound_are_refused_not_read_further() {
        let tmp = repo();
        assert_eq!(catalog_versions_within(tmp.path(), 4).unwrap().len(), 2);
        let e = catalog_versions_within(tmp.path(), 3).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("catalogs: more than 3 entries; not read further"),
            "{e}"
        );
        let e = subdirectories_within(&tmp.path().join("catalogs/v4.18"), 1).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("catalogs/v4.18: more than 1 entries; not read further"),
            "{e}"
        );
        let root = Root::new(tmp.path()).unwrap();
        let e = catalog_files_within(&root, "catalogs/v4.18/a", 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "catalogs/v4.18/a: more than 1 entries; not read further"
        );
    }
}
