//! The legacy package-manifest format turned into file-based catalogs (`fbc-edit migrate`).
//!
//! A package-manifest directory holds a `*.package.yaml` (package name, channels with their
//! `currentCSV`, default channel) and the manifests of every version: either one subdirectory per
//! version (a ClusterServiceVersion, its CRDs and other objects), or, in the flat layout, the CSVs and
//! CRDs directly beside the package manifest. Channels are not listed anywhere: they are the chains
//! of `spec.replaces` from each `currentCSV`, with `spec.skips` and the `olm.skipRange` annotation.
//!
//! [`migrate`] first checks the rules the format requires, reporting every problem with its file and
//! line, then builds one `olm.package`, the `olm.channel`s and one `olm.bundle` per version in a
//! channel, and finally validates what it would write. Nothing is written when an error was found.

mod bundles;
mod channels;
/// The codes of package-manifest directory checks (`FBC23x`–`FBC24x`), defined in the registry
/// [`crate::catalog::codes`]; problems inside a version's manifests keep their bundle codes.
pub use crate::catalog::codes::migrate as codes;
mod package;
mod packages;
mod read;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::catalog::commit::{CommitOptions, Expect, PlannedFile, commit};
use crate::catalog::emit::OutFormat;
use crate::catalog::{Diagnostic, Location, Severity};

use package::build_package;
use packages::{PackageDir, read_packages};

/// How to migrate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Image reference of each bundle, with `{package}`, `{name}` (the CSV name) and `{version}`
    /// replaced; bundles get an empty image without it, as opm leaves it for a directory.
    pub image_template: Option<String>,
    /// One `olm.csv.metadata` property per bundle instead of an `olm.bundle.object` per manifest.
    pub csv_metadata: bool,
    /// The format of the written catalogs.
    pub format: OutFormat,
}

/// Why nothing could be migrated at all (as opposed to problems in the input, which are diagnostics).
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("{0}: not a directory")]
    NotADirectory(PathBuf),
    #[error(
        "{0}: not a package-manifest directory: no package manifest (*.package.yaml) in it or in its subdirectories"
    )]
    NoPackage(PathBuf),
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("output dir \"{0}\" must be empty")]
    OutputNotEmpty(PathBuf),
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    #[error("cannot write the catalog: {0}")]
    Commit(crate::catalog::commit::CommitError),
    #[error("{0}")]
    Usage(String),
}

/// A channel as migrated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSummary {
    pub name: String,
    pub head: String,
    pub entries: Vec<String>,
}

/// One package as migrated.
#[derive(Debug, Clone)]
pub struct MigratedPackage {
    pub name: String,
    /// The package's directory relative to the input directory (empty for the input itself).
    pub dir: String,
    pub default_channel: String,
    pub channels: Vec<ChannelSummary>,
    /// Bundle names, sorted.
    pub bundles: Vec<String>,
    /// The package, channel and bundle blobs.
    pub blobs: Vec<Value>,
    /// The catalog file's text, in the chosen format.
    pub text: String,
}

/// What [`migrate`] found and built.
#[derive(Debug, Clone, Default)]
pub struct Migration {
    /// Packages built, by name. Complete only when there is no error.
    pub packages: Vec<MigratedPackage>,
    /// Every problem found, sorted by file and line; files are relative to the input directory.
    pub diagnostics: Vec<Diagnostic>,
    /// Warnings our validator gives the migrated catalogs (`fbc-edit validate` shows them).
    pub output_warnings: usize,
    pub format: OutFormat,
}

impl Migration {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// The catalog file written in each package directory.
    pub fn file_name(&self) -> &'static str {
        match self.format {
            OutFormat::Json => "catalog.json",
            OutFormat::Yaml => "catalog.yaml",
        }
    }

    /// Writes `<out>/<package>/catalog.json|yaml` for every package. `out` must be empty or absent;
    /// nothing is written when an error was found. Returns the files written.
    pub fn write(&self, out: &Path) -> Result<Vec<PathBuf>, MigrateError> {
        if self.errors() > 0 {
            return Err(MigrateError::Usage(format!(
                "not written: {} error(s) found",
                self.errors()
            )));
        }
        check_output_dir(out)?;
        std::fs::create_dir_all(out).map_err(|e| MigrateError::Write(out.to_path_buf(), e))?;
        // One commit for every package: all files or none, nothing through a link.
        let planned: Vec<PlannedFile> = self
            .packages
            .iter()
            .map(|p| PlannedFile {
                rel: format!("{}/{}", p.name, self.file_name()),
                bytes: p.text.clone().into_bytes(),
                expect: Expect::Absent,
            })
            .collect();
        commit(out, &planned, &CommitOptions::default()).map_err(MigrateError::Commit)?;
        Ok(planned.iter().map(|p| out.join(&p.rel)).collect())
    }
}

/// `out` must be absent or an empty directory (opm's rule for `opm migrate`).
pub fn check_output_dir(out: &Path) -> Result<(), MigrateError> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(MigrateError::OutputNotEmpty(out.to_path_buf()))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if out.exists() => Err(MigrateError::OutputNotEmpty(out.to_path_buf())),
        Err(e) => Err(MigrateError::Read(out.to_path_buf(), e)),
    }
}

/// Checks an image template: only `{package}`, `{name}` and `{version}` may appear in braces.
pub fn check_image_template(template: &str) -> Result<(), MigrateError> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(MigrateError::Usage(format!(
                "image template {template:?}: an unclosed '{{'"
            )));
        };
        let key = &after[..close];
        if !["package", "name", "version"].contains(&key) {
            return Err(MigrateError::Usage(format!(
                "image template {template:?}: unknown placeholder {{{key}}} (use {{package}}, {{name}} or {{version}})"
            )));
        }
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(MigrateError::Usage(format!(
            "image template {template:?}: a '}}' without '{{'"
        )));
    }
    Ok(())
}

fn fill_template(template: &str, package: &str, name: &str, version: &str) -> String {
    template
        .replace("{package}", package)
        .replace("{name}", name)
        .replace("{version}", version)
}

// ---------------------------------------------------------------------------------------------
// Reading the directory.

/// Migrates the package-manifest directory `dir`: a package directory, or a directory of them.
pub fn migrate(dir: &Path, opts: &Options) -> Result<Migration, MigrateError> {
    if !dir.is_dir() {
        return Err(MigrateError::NotADirectory(dir.to_path_buf()));
    }
    if let Some(t) = &opts.image_template {
        check_image_template(t)?;
    }
    if opts.csv_metadata && opts.image_template.is_none() {
        return Err(MigrateError::Usage(
            "--csv-metadata needs --image-template: a bundle without olm.bundle.object properties must have an image (opm validate: bundle image must be set)".into(),
        ));
    }
    let mut diags = Vec::new();
    let packages = read_packages(dir, &mut diags)?;
    report_duplicate_packages(&packages, &mut diags);
    let mut migrated = Vec::new();
    for p in &packages {
        if let Some(m) = build_package(p, opts, &mut diags) {
            migrated.push(m);
        }
    }
    migrated.sort_by(|a, b| a.name.cmp(&b.name));

    let mut m = Migration {
        packages: migrated,
        diagnostics: Vec::new(),
        output_warnings: 0,
        format: opts.format,
    };
    if !diags.iter().any(|d| d.severity == Severity::Error) {
        m.output_warnings = verify(&m, &packages, &mut diags);
    }
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diags.dedup_by(|a, b| a.code == b.code && a.location == b.location && a.message == b.message);
    m.diagnostics = diags;
    Ok(m)
}

/// Two packages of the same name.
fn report_duplicate_packages(packages: &[PackageDir], diags: &mut Vec<Diagnostic>) {
    let mut names: BTreeMap<String, Location> = BTreeMap::new();
    for p in packages {
        if p.manifest.name.is_empty() {
            continue;
        }
        if let Some(first) = names.get(&p.manifest.name) {
            diags.push(
                Diagnostic::error(
                    codes::DUPLICATE_PACKAGE,
                    p.manifest.name_loc.clone(),
                    format!("package {:?} is declared twice", p.manifest.name),
                )
                .with_related([first.clone()])
                .in_package(&p.manifest.name),
            );
        } else {
            names.insert(p.manifest.name.clone(), p.manifest.name_loc.clone());
        }
    }
}

/// Loads the catalogs about to be written with our loader and validates them; every error becomes
/// an `OUTPUT_INVALID` diagnostic at the package's manifest. Returns the number of warnings.
fn verify(m: &Migration, packages: &[PackageDir], diags: &mut Vec<Diagnostic>) -> usize {
    let manifest_of = |name: &str| {
        packages
            .iter()
            .find(|p| p.manifest.name == name)
            .map(|p| p.manifest.name_loc.clone())
            .unwrap_or_default()
    };
    let fail = |loc: Location, msg: String| {
        Diagnostic::error(codes::OUTPUT_INVALID, loc, msg).with_hint(
            "this is a fault in fbc-edit's migration; please report it with the input directory",
        )
    };
    let tmp = match tempfile::tempdir() {
        Ok(t) => t,
        Err(e) => {
            diags.push(fail(
                Location::default(),
                format!("cannot create a temporary directory to validate the output: {e}"),
            ));
            return 0;
        }
    };
    for p in &m.packages {
        let dir = tmp.path().join(&p.name);
        let written = std::fs::create_dir(&dir)
            .and_then(|()| std::fs::write(dir.join(m.file_name()), &p.text));
        if let Err(e) = written {
            diags.push(fail(
                manifest_of(&p.name),
                format!("cannot write the catalog to validate it: {e}"),
            ));
            return 0;
        }
    }
    let catalog = match crate::catalog::load(tmp.path()) {
        Ok(c) => c,
        Err(e) => {
            diags.push(fail(
                Location::default(),
                format!("the migrated catalog cannot be loaded: {e}"),
            ));
            return 0;
        }
    };
    let report = crate::validate::validate(&catalog);
    let mut warnings = 0;
    for d in &report.diagnostics {
        match d.severity {
            Severity::Error => {
                let package = d
                    .object
                    .package
                    .clone()
                    .or_else(|| d.location.file.split('/').next().map(str::to_string))
                    .unwrap_or_default();
                diags.push(
                    fail(
                        manifest_of(&package),
                        format!(
                            "the migrated catalog fails validation: {}:{}: [{}] {}",
                            d.location.file, d.location.line, d.code, d.message
                        ),
                    )
                    .in_package(&package),
                );
            }
            Severity::Warning => warnings += 1,
            Severity::Info => {}
        }
    }
    warnings
}
