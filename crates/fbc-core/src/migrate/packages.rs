//! Finding the packages of a package-manifest directory: which directories hold a package manifest,
//! their version directories, and what belongs to no package.

use std::path::Path;

use crate::bundle::{self};
use crate::catalog::{Diagnostic, Location};
use crate::guard::file::Within;

use super::{MigrateError, codes};

use super::read::{Csv, Dir, Manifest, What, read_dir_files};

/// A package directory as read.
pub(super) struct PackageDir {
    /// Directory prefix relative to the input (empty for the input itself).
    pub(super) rel: String,
    /// `dirs[0]` is the package directory itself, then its version directories.
    pub(super) dirs: Vec<Dir>,
    pub(super) manifest: Manifest,
}

pub(super) fn not_catalog(rel: &str, what: &str) -> Diagnostic {
    Diagnostic::info(
        codes::NOT_CATALOG_DATA,
        Location::new(rel, 0, 0),
        format!("{what} is no part of the package-manifest format: it is not migrated"),
    )
}

/// Whether a directory or one of its subdirectories holds a CSV.
pub(super) fn holds_csv(d: &Dir) -> bool {
    d.csvs().next().is_some()
        || d.subdirs.iter().any(|s| {
            let path = d.path.join(Path::new(s).file_name().unwrap_or_default());
            read_dir_files(&d.within, &path, s, &mut Vec::new())
                .csvs()
                .next()
                .is_some()
        })
}

/// The package manifests of a directory, in file order.
pub(super) fn manifests(d: &Dir) -> impl Iterator<Item = &Manifest> {
    d.files.iter().filter_map(|f| match &f.what {
        What::Manifest(m) => Some(m.as_ref()),
        _ => None,
    })
}

/// The manifest a package directory is read from: its first (a directory without one is no package).
pub(super) fn first_manifest(d: &Dir) -> Option<Manifest> {
    manifests(d).next().cloned()
}

/// Reads a package directory whose package manifest is `manifest`.
pub(super) fn read_package(
    root: Dir,
    manifest: Manifest,
    diags: &mut Vec<Diagnostic>,
) -> PackageDir {
    let rel = root.rel.clone();
    for other in manifests(&root).skip(1) {
        diags.push(
            Diagnostic::error(
                codes::PACKAGE_MANIFEST,
                other.name_loc.clone(),
                format!(
                    "a second package manifest in one directory; the package is read from {}",
                    manifest.file
                ),
            )
            .with_related([manifest.name_loc.clone()])
            .with_hint("keep one *.package.yaml per package directory"),
        );
    }
    // The package directory's own files: the manifest, flat-layout manifests, and other files.
    for f in &root.files {
        match &f.what {
            What::Other { empty: false, .. } | What::Unread => {
                diags.push(not_catalog(&f.rel, "file"))
            }
            _ => {}
        }
    }
    let subdirs = root.subdirs.clone();
    let mut dirs = vec![root];
    for sub in subdirs {
        let path = dirs[0].path.join(
            Path::new(sub.trim_end_matches('/'))
                .file_name()
                .unwrap_or_default(),
        );
        let d = read_dir_files(&dirs[0].within, &path, &sub, diags);
        check_version_dir(&d, &sub, diags);
        dirs.push(d);
    }
    PackageDir {
        rel,
        dirs,
        manifest,
    }
}

/// What a version directory must hold: one CSV and its objects, no deeper directories, no package
/// manifest.
fn check_version_dir(d: &Dir, sub: &str, diags: &mut Vec<Diagnostic>) {
    for s in &d.subdirs {
        diags.push(Diagnostic::info(
            codes::NOT_CATALOG_DATA,
            Location::new(s.as_str(), 0, 0),
            "a directory inside a version directory is not read: it is not migrated",
        ));
    }
    let mut has_manifests = false;
    for f in &d.files {
        match &f.what {
            What::Unread => diags.push(not_catalog(&f.rel, "file")),
            What::Other { empty: false, loc } => {
                has_manifests = true;
                diags.push(Diagnostic::error(
                    bundle::codes::MANIFEST,
                    loc.clone(),
                    "not a Kubernetes object (no `kind`) and not a package manifest",
                ));
            }
            What::Manifest(m) => {
                has_manifests = true;
                diags.push(Diagnostic::error(
                    codes::PACKAGE_MANIFEST,
                    m.name_loc.clone(),
                    "a package manifest inside a version directory: it belongs beside the version directories",
                ));
            }
            What::Csv(_) | What::Crd(_) | What::Object | What::Broken => has_manifests = true,
            What::Other { empty: true, .. } => {}
        }
    }
    let csvs: Vec<&Csv> = d.csvs().collect();
    if csvs.is_empty() {
        if has_manifests {
            diags.push(
                Diagnostic::error(
                    codes::NO_CSV,
                    Location::new(sub, 0, 0),
                    "a version directory with manifests but no ClusterServiceVersion: its manifests belong to no bundle",
                )
                .with_hint("a version directory holds one CSV and the CRDs and objects of that version"),
            );
        } else {
            diags.push(not_catalog(sub, "directory"));
        }
    } else if csvs.len() > 1 {
        let names: Vec<String> = csvs
            .iter()
            .map(|c| format!("{} ({})", c.name, c.file_name))
            .collect();
        diags.push(
            Diagnostic::warning(
                codes::SEVERAL_CSVS,
                Location::new(sub, 0, 0),
                format!(
                    "{} ClusterServiceVersions in one version directory: {}; each becomes its own bundle, with the CRDs it owns and the directory's other objects",
                    csvs.len(),
                    names.join(", ")
                ),
            )
            .with_related(csvs.iter().map(|c| c.loc.clone()))
            .with_hint("give each version its own directory"),
        );
    }
}

/// The packages of `dir`: the directory itself when it holds a package manifest, else each of its
/// subdirectories that does. Files and directories that belong to no package are reported.
pub(super) fn read_packages(
    dir: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Result<Vec<PackageDir>, MigrateError> {
    let within = Within::new(dir).map_err(|e| MigrateError::Read(dir.to_path_buf(), e))?;
    let root = read_dir_files(&within, dir, "", diags);
    if let Some(manifest) = first_manifest(&root) {
        return Ok(vec![read_package(root, manifest, diags)]);
    }
    // A directory of package directories: only the subdirectories are read.
    let root_diags = std::mem::take(diags);
    for f in &root.files {
        match &f.what {
            What::Csv(_) | What::Crd(_) | What::Object => diags.push(
                Diagnostic::error(
                    codes::NO_PACKAGE_MANIFEST,
                    Location::new(&f.rel, 0, 0),
                    "a manifest beside package directories, with no package manifest of its own: it belongs to no package",
                )
                .with_hint("move it into its package's directory"),
            ),
            What::Broken => diags.extend(
                root_diags
                    .iter()
                    .filter(|d| d.location.file == f.rel)
                    .cloned(),
            ),
            _ => diags.push(not_catalog(&f.rel, "file")),
        }
    }
    // Subdirectories without a package manifest, and whether they hold CSVs themselves (then they
    // look like version directories of a package whose manifest is missing).
    let mut packages = Vec::new();
    let mut orphans: Vec<(String, bool)> = Vec::new();
    for sub in &root.subdirs {
        let path = dir.join(sub.trim_end_matches('/'));
        let mut sub_diags = Vec::new();
        let d = read_dir_files(&within, &path, sub, &mut sub_diags);
        if let Some(manifest) = first_manifest(&d) {
            diags.extend(sub_diags);
            packages.push(read_package(d, manifest, diags));
        } else if d.csvs().next().is_some() {
            orphans.push((sub.clone(), true));
        } else if holds_csv(&d) {
            orphans.push((sub.clone(), false));
        } else {
            diags.push(not_catalog(sub, "directory"));
        }
    }
    report_orphans(&packages, orphans, diags);
    if packages.is_empty() && !diags.iter().any(|d| d.code == codes::NO_PACKAGE_MANIFEST) {
        return Err(MigrateError::NoPackage(dir.to_path_buf()));
    }
    Ok(packages)
}

/// Directories with CSVs but no package manifest (`true`: CSVs directly in them).
fn report_orphans(
    packages: &[PackageDir],
    orphans: Vec<(String, bool)>,
    diags: &mut Vec<Diagnostic>,
) {
    let hint = "add <package>.package.yaml with packageName, channels (name, currentCSV) and defaultChannel";
    if packages.is_empty() && orphans.iter().any(|(_, direct)| *direct) {
        diags.push(
            Diagnostic::error(
                codes::NO_PACKAGE_MANIFEST,
                Location::new("", 0, 0),
                "version directories with ClusterServiceVersions but no package manifest (*.package.yaml): the package's name and channels are unknown",
            )
            .with_hint(hint),
        );
        return;
    }
    for (sub, _) in orphans {
        diags.push(
            Diagnostic::error(
                codes::NO_PACKAGE_MANIFEST,
                Location::new(sub.as_str(), 0, 0),
                "holds ClusterServiceVersions but no package manifest (*.package.yaml): its package's name and channels are unknown",
            )
            .with_hint(hint),
        );
    }
}
