//! The tools that read and change nothing: `list`, `upgrade_path`, `validate`, `diff`, `render`
//! and `repo_check`. Each takes its arguments, resolves every path inside the served directories,
//! calls the engine as the command of the same name does, and returns a JSON object.

use std::path::{Path, PathBuf};

use crate::output::{
    self, DiffResult, ListResult, OperatorProblems, RenderResult, RepoCheckResult, RepoSummary,
    UpgradePathResult, ValidateResult,
};
use fbc_core::catalog::{Catalog, Keep, LoadOptions, Severity, load_with};
use fbc_core::graph::listing;
use fbc_core::graph::query::UpgradeQuery;
use fbc_core::template::{OpmChoice, OpmVersion, Sources};
use fbc_core::validate::{self, profile};

use crate::args::{
    DiffArgs, ListArgs, Olm, Profile, RenderArgs, RenderOutput, RepoCheckArgs, UpgradePathArgs,
    ValidateArgs,
};
use crate::error::ToolError;
use crate::problem;
use crate::roots::Roots;

/// Reads the catalog at `dir`; for a validation (`for_validation`), its payloads checked as they
/// are read and what validation only checks left out once checked (`Keep::Checked`).
pub fn load(dir: &Path, for_validation: bool) -> Result<Catalog, ToolError> {
    let options = LoadOptions {
        check_payloads: for_validation,
        keep: if for_validation {
            Keep::Checked
        } else {
            Keep::All
        },
        ..Default::default()
    };
    load_with(dir, &options).map_err(|e| ToolError::refused(format!("cannot open catalog {e}")))
}

/// `list`.
pub fn list(roots: &Roots, args: ListArgs) -> Result<ListResult, ToolError> {
    let dir = roots.resolve(&args.path)?;
    let options = listing::load_options(args.channel.is_some());
    let catalog = load_with(&dir, &options)
        .map_err(|e| ToolError::refused(format!("cannot open catalog {e}")))?;
    let listed = match (&args.package, &args.channel) {
        (None, None) => Ok(listing::packages(&catalog)),
        (None, Some(_)) => return Err(ToolError::refused("give the channel's package too")),
        (Some(p), None) => listing::channels(&catalog, p),
        (Some(p), Some(c)) => listing::entries(&catalog, p, c),
    };
    let mut result: ListResult =
        output::typed(listed.map_err(|e| ToolError::refused(e.to_string()))?)?;
    let problems = catalog
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .map(|d| problem::value(roots, &dir, d))
        .collect();
    result.set_load_problems(problems);
    Ok(result)
}

/// `upgrade_path`.
pub fn upgrade_path(roots: &Roots, args: UpgradePathArgs) -> Result<UpgradePathResult, ToolError> {
    let dir = roots.resolve(&args.path)?;
    if args.olm == Olm::V0 && args.channel.is_none() {
        return Err(ToolError::refused(
            "OLM v0 follows one channel: give channel (or olm v1 for every channel of the package)",
        ));
    }
    let catalog = load(&dir, false)?;
    let idx = catalog.index().package(&args.package).ok_or_else(|| {
        ToolError::refused(format!("no package {:?} in the catalog", args.package))
    })?;
    if let Some(c) = &args.channel
        && idx.channel(c).is_none()
    {
        let names: Vec<&str> = idx
            .channels
            .iter()
            .map(|&id| catalog.blob(id).name())
            .collect();
        return Err(ToolError::refused(format!(
            "package {:?} has no channel {c:?} (its channels: {})",
            args.package,
            names.join(", ")
        )));
    }
    let query = UpgradeQuery::new(&catalog, &args.package, args.channel.as_deref(), &args.from)
        .map_err(|e| ToolError::refused(e.to_string()))?;
    let (value, reached) = match args.olm {
        Olm::V0 => query.v0_json(),
        Olm::V1 => query.v1_json(&args.package, args.channel.as_deref()),
    };
    let mut result: UpgradePathResult = output::typed(value)?;
    result.set_reached(reached);
    Ok(result)
}

/// `validate`.
pub fn validate(roots: &Roots, args: ValidateArgs) -> Result<ValidateResult, ToolError> {
    let dir = roots.resolve(&args.path)?;
    let ocp = match args.ocp.as_deref() {
        Some(v) => Some(profile::parse_ocp(v).ok_or_else(|| {
            ToolError::refused(format!("ocp {v:?} is not a version such as 4.18"))
        })?),
        None => None,
    };
    let catalog = load(&dir, true)?;
    let mut report = validate::validate(&catalog);
    let mut notes = Vec::new();
    if let Some(p) = args.profile {
        let opts = profile::Options {
            profiles: vec![match p {
                Profile::Community => profile::Profile::Community,
                Profile::Konflux => profile::Profile::Konflux,
            }],
            ocp: ocp.or_else(|| profile::ocp_from_path(&dir)),
            allowed_registries: Vec::new(),
        };
        if opts.ocp.is_none() {
            notes.push(
                "OpenShift version unknown (give ocp): the bundle metadata format is not checked"
                    .to_string(),
            );
        }
        report.diagnostics.extend(profile::check(&catalog, &opts));
        report
            .diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    Ok(ValidateResult {
        path: roots.show(&dir),
        valid: report.is_valid(),
        errors: report.count(Severity::Error),
        warnings: report.count(Severity::Warning),
        notes: report.count(Severity::Info),
        problems: problem::values(roots, &dir, &report.diagnostics),
        messages: notes,
    })
}

/// `diff`.
pub fn diff(roots: &Roots, args: DiffArgs) -> Result<DiffResult, ToolError> {
    use fbc_core::diff;
    let old_dir = roots.resolve(&args.old)?;
    let d = match (&args.new, &args.git) {
        (Some(_), Some(_)) => return Err(ToolError::refused("give new or git, not both")),
        (Some(new), None) => {
            let new_dir = roots.resolve(new)?;
            let (old, new) = (load(&old_dir, false)?, load(&new_dir, false)?);
            diff::diff(&old, &new)
        }
        (None, Some(rev)) => {
            let tmp = tempfile::tempdir().map_err(|e| {
                ToolError::refused(format!("cannot make a temporary directory: {e}"))
            })?;
            diff::git::checkout(&old_dir, rev, tmp.path())
                .map_err(|e| ToolError::refused(e.to_string()))?;
            let (old, new) = (load(tmp.path(), false)?, load(&old_dir, false)?);
            diff::diff(&old, &new)
        }
        (None, None) => return Err(ToolError::refused("give new or git")),
    };
    Ok(DiffResult {
        changed: !d.is_empty(),
        text: diff::text(&d),
        changes: d,
    })
}

/// `render`.
pub fn render(roots: &Roots, args: RenderArgs) -> Result<RenderResult, ToolError> {
    let file = roots.resolve(&args.path)?;
    roots.check_repository_of(&file)?;
    let catalogs = args
        .catalog
        .iter()
        .map(|c| roots.resolve(c))
        .collect::<Result<Vec<PathBuf>, _>>()?;
    let explicit = match &args.opm_version {
        Some(v) => Some(OpmVersion::parse(v).map_err(|e| ToolError::refused(e.to_string()))?),
        None => None,
    };
    let template = fbc_core::template::read(&file)
        .map_err(|e| ToolError::refused(format!("{}: {e}", roots.show(&file))))?
        .map_err(|e| ToolError::refused(e.to_string()))?;
    // No image source: the server reads nothing from registries, only the catalogs and bundle
    // directories under the directories it serves.
    let (sources, note) = Sources::for_template(&file, &catalogs, Vec::new(), None)
        .map_err(|e| ToolError::refused(e.to_string()))?;
    let opm = OpmChoice::resolve(explicit, &file).map_err(|e| ToolError::refused(e.to_string()))?;
    let rendered = template
        .render(&sources, opm.version)
        .map_err(|e| ToolError::refused(e.to_string()))?;
    let format = match args.output {
        RenderOutput::Yaml => fbc_core::catalog::emit::OutFormat::Yaml,
        RenderOutput::Json => fbc_core::catalog::emit::OutFormat::Json,
    };
    let mut notes: Vec<String> = note.into_iter().chain(rendered.notes.clone()).collect();
    if opm.is_chosen() {
        notes.insert(0, opm.note());
    }
    Ok(RenderResult {
        template: roots.show(&file),
        opm_version: opm.version.to_string(),
        catalog: rendered.to_text(format),
        notes,
    })
}

/// `repo_check`.
pub fn repo_check(roots: &Roots, args: RepoCheckArgs) -> Result<RepoCheckResult, ToolError> {
    use fbc_core::repo;
    let root = roots.resolve(&args.path)?;
    let options = repo::Options {
        // The engine refuses a revision git could take for an option (`guard::git::revision`).
        git_base: args.git.clone(),
    };
    let report = repo::check(&root, &options).map_err(|e| ToolError::refused(e.to_string()))?;
    let summary: RepoSummary = output::typed(report.summary_json())?;
    Ok(RepoCheckResult {
        operators: report
            .operators
            .iter()
            .map(|o| OperatorProblems {
                name: o.name.clone(),
                problems: problem::values(roots, &root, &o.problems),
            })
            .collect(),
        repository: problem::values(roots, &root, &report.repository),
        summary,
    })
}
