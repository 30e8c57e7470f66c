//! Whole repositories laid out as community-operators-prod, certified-operators or marketplace
//! (`operators/<op>/ci.yaml`, `operators/<op>/catalog-templates/`, `catalogs/<ocp>/<op>/`), checked
//! the way their CI and `make catalogs` see them: every operator with `fbc.enabled: true`
//! ([`check::operator`]), every `catalogs/<ocp>` validated as opm does with the community profile
//! for its OpenShift version, and with a git base, the pull-request rules for the changes since
//! ([`pr`]). `add_ocp` opens a new OCP catalog version as the pipeline's promotion script does.
//!
//! Operators are checked, and catalogs validated, in parallel; the report is sorted (operators by
//! name, problems by file and line), so it does not depend on thread timing.

pub mod add_ocp;
pub mod check;
mod committed;
mod listing;
pub mod pr;
mod rendering;
pub mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Deserialize;

use crate::catalog::codes::repo as c;
use crate::catalog::yaml::typed;
use crate::catalog::{Catalog, Diagnostic, LoadError, Location, Severity};
use crate::validate::{self, profile};

/// What to check besides the repository as it is.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Check the pull-request rules for the changes from this git revision to `HEAD`.
    pub git_base: Option<String>,
}

/// One operator's problems (files relative to the repository's root).
#[derive(Debug, Clone)]
pub struct OperatorReport {
    pub name: String,
    pub problems: Vec<Diagnostic>,
}

/// What checking a repository found.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every operator with `fbc.enabled`, and every other one something was found in, by name.
    pub operators: Vec<OperatorReport>,
    /// Problems of no one operator (a catalog as a whole, files outside operators, config.yaml).
    pub repository: Vec<Diagnostic>,
    /// How many operators have `fbc.enabled: true`.
    pub fbc_operators: usize,
    /// How many `catalogs/*` directories were validated.
    pub catalogs: usize,
}

impl Report {
    /// Every problem, the repository's first.
    pub fn problems(&self) -> impl Iterator<Item = &Diagnostic> {
        self.repository
            .iter()
            .chain(self.operators.iter().flat_map(|o| &o.problems))
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.problems().filter(|d| d.severity == severity).count()
    }

    /// Whether nothing was found.
    pub fn is_clean(&self) -> bool {
        self.problems().next().is_none()
    }

    /// How many problems of each code.
    pub fn by_code(&self) -> BTreeMap<&'static str, usize> {
        let mut out = BTreeMap::new();
        for d in self.problems() {
            *out.entry(d.code).or_insert(0) += 1;
        }
        out
    }

    /// The counts the JSON report ends in: operators, catalogs, problems by severity and by code.
    pub fn summary_json(&self) -> serde_json::Value {
        serde_json::json!({
            "operators": self.operators.len(),
            "fbc_operators": self.fbc_operators,
            "catalogs": self.catalogs,
            "operators_with_problems": self.operators.iter().filter(|o| !o.problems.is_empty()).count(),
            "errors": self.count(Severity::Error),
            "warnings": self.count(Severity::Warning),
            "notes": self.count(Severity::Info),
            "by_code": self.by_code(),
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("{0}: not a repository of operators (no operators/ directory)")]
    NotARepository(PathBuf),
    #[error("git: {0}")]
    Git(String),
}

/// Whether `dir` is laid out as a repository of operators: an `operators/` directory beside
/// `catalogs/`, both directories themselves (not links).
pub fn is_repository(dir: &Path) -> bool {
    let is_dir = |p: &Path| p.symlink_metadata().is_ok_and(|m| m.is_dir());
    is_dir(&dir.join("operators")) && is_dir(&dir.join("catalogs"))
}

/// Checks the repository at `root`.
pub fn check(root: &Path, options: &Options) -> Result<Report, RepoError> {
    let is_dir = |p: &Path| p.symlink_metadata().is_ok_and(|m| m.is_dir());
    if !is_dir(&root.join("operators")) {
        return Err(RepoError::NotARepository(root.to_path_buf()));
    }
    let mut repository = Vec::new();
    let mut listed = |rel: &str| {
        check::subdirectories(&root.join(rel)).unwrap_or_else(|e| {
            repository.push(listing::unlisted(rel, &e));
            Vec::new()
        })
    };
    let operators = listed("operators");
    let catalogs = listed("catalogs");
    let registries = allowed_registries(root, &mut repository);
    // Each catalog is loaded once, for its validation and for the re-rendering of the operators
    // whose directories it holds.
    let loaded: Vec<_> = catalogs
        .par_iter()
        .map(|name| load_catalog(root, name))
        .collect();
    let mut committed = committed::Committed::default();
    for (name, catalog) in catalogs.iter().zip(&loaded) {
        if let Ok(catalog) = catalog {
            committed.insert(root.join("catalogs").join(name), Arc::clone(catalog));
        }
    }
    let (checked, validated) = rayon::join(
        || {
            operators
                .par_iter()
                .map(|name| {
                    let found = check::operator_sharing(root, name, &catalogs, &committed);
                    (name.clone(), found)
                })
                .collect::<Vec<_>>()
        },
        || {
            catalogs
                .par_iter()
                .zip(loaded)
                .map(|(name, catalog)| validate_catalog(name, catalog, &registries))
                .collect::<Vec<_>>()
        },
    );
    let mut by_name: BTreeMap<String, (bool, Vec<Diagnostic>)> = BTreeMap::new();
    for (name, found) in checked {
        if found.fbc || !found.problems.is_empty() {
            by_name.insert(name, (found.fbc, found.problems));
        }
    }
    for (operator, d) in validated.into_iter().flatten() {
        match operator {
            Some(op) => by_name.entry(op).or_default().1.push(d),
            None => repository.push(d),
        }
    }
    if let Some(base) = &options.git_base {
        for (operator, d) in pr::check(root, base)? {
            match operator {
                Some(op) => by_name.entry(op).or_default().1.push(d),
                None => repository.push(d),
            }
        }
    }
    let fbc_operators = by_name.values().filter(|(fbc, _)| *fbc).count();
    let operators = by_name
        .into_iter()
        .map(|(name, (_, mut problems))| {
            problems.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            problems.dedup_by(|a, b| a.sort_key() == b.sort_key());
            OperatorReport { name, problems }
        })
        .collect();
    repository.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(Report {
        operators,
        repository,
        fbc_operators,
        catalogs: catalogs.len(),
    })
}

#[derive(Debug, Default, Deserialize)]
struct RepoConfig {
    #[serde(default)]
    allowed_bundle_registries: Vec<String>,
}

/// The registries `config.yaml` allows bundle images from (none: every registry).
fn allowed_registries(root: &Path, out: &mut Vec<Diagnostic>) -> Vec<String> {
    let path = root.join("config.yaml");
    if path.symlink_metadata().is_err() {
        return Vec::new();
    }
    match typed::read::<Option<RepoConfig>>(root, &path) {
        Ok(t) => t.value.unwrap_or_default().allowed_bundle_registries,
        Err(e) => {
            out.push(Diagnostic::error(
                c::READ,
                Location::new("config.yaml", e.line, e.col),
                e.message,
            ));
            Vec::new()
        }
    }
}

/// Loads `catalogs/<name>` for [`validate_catalog`] (and the operators' re-rendering).
fn load_catalog(root: &Path, name: &str) -> Result<Arc<Catalog>, LoadError> {
    let options = crate::catalog::LoadOptions {
        check_payloads: true,
        ..Default::default()
    };
    crate::catalog::load_with(&root.join("catalogs").join(name), &options).map(Arc::new)
}

/// Validates `catalogs/<name>` as opm does, with the community profile for its OpenShift version;
/// each problem with the operator whose directory its file is in (`None`: the catalog as a whole).
/// Only what the pipeline enforces is kept: errors and the profile's rules, not the lints.
fn validate_catalog(
    name: &str,
    loaded: Result<Arc<Catalog>, LoadError>,
    registries: &[String],
) -> Vec<(Option<String>, Diagnostic)> {
    let prefix = format!("catalogs/{name}");
    let catalog = match loaded {
        Ok(c) => c,
        Err(e) => {
            return vec![(
                None,
                Diagnostic::error(c::READ, Location::new(&prefix, 0, 0), e.to_string()),
            )];
        }
    };
    let mut diagnostics = validate::validate(&catalog).diagnostics;
    let opts = profile::Options {
        profiles: vec![profile::Profile::Community],
        ocp: check::is_ocp_catalog(name)
            .then(|| profile::parse_ocp(name))
            .flatten(),
        allowed_registries: registries.to_vec(),
    };
    diagnostics.extend(profile::check(&catalog, &opts));
    profile::escalate(&mut diagnostics, &opts);
    diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error || d.code.starts_with("FBC3"))
        .map(|mut d| {
            let operator = operator_of(&d.location.file);
            d.location.file = joined(&prefix, &d.location.file);
            for r in &mut d.related {
                r.file = joined(&prefix, &r.file);
            }
            (operator, d)
        })
        .collect()
}

/// The operator a file of a catalog belongs to: the directory it is in (`<op>/catalog.yaml`).
fn operator_of(file: &str) -> Option<String> {
    let (dir, _) = file.split_once('/')?;
    (!dir.is_empty() && dir != "." && dir != "..").then(|| dir.to_string())
}

fn joined(prefix: &str, file: &str) -> String {
    if file.is_empty() || file == "." {
        prefix.to_string()
    } else {
        format!("{prefix}/{file}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_files_belong_to_their_directory() {
        assert_eq!(
            operator_of("trident-operator/catalog.yaml").as_deref(),
            Some("trident-operator")
        );
        assert_eq!(operator_of("a/b/c.json").as_deref(), Some("a"));
        assert_eq!(operator_of("catalog.yaml"), None);
        assert_eq!(operator_of("."), None);
        assert_eq!(joined("catalogs/v4.18", "."), "catalogs/v4.18");
    }

    #[test]
    fn a_directory_without_operators_is_no_repository() {
        let d = tempfile::tempdir().unwrap();
        let e = check(d.path(), &Options::default()).unwrap_err();
        assert!(matches!(e, RepoError::NotARepository(_)), "{e}");
    }
}
