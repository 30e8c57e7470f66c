//! The tools that read and change nothing: `list`, `upgrade_path`, `validate`, `diff`, `render`
//! and `repo_check`. Each takes its arguments, resolves every path inside the served directories,
//! calls the engine as the command of the same name does, and returns a JSON object.

use std::path::{Path, PathBuf};

use fbc_core::catalog::{Catalog, LoadOptions, Severity, load_with};
use fbc_core::graph::listing;
use fbc_core::graph::query::UpgradeQuery;
use fbc_core::template::{OpmChoice, OpmVersion, Sources};
use fbc_core::validate::{self, profile};
use serde_json::{Value, json};

use crate::args::{
    DiffArgs, ListArgs, Olm, Profile, RenderArgs, RenderOutput, RepoCheckArgs, UpgradePathArgs,
    ValidateArgs,
};
use crate::error::ToolError;
use crate::problem;
use crate::roots::Roots;

/// Reads the catalog at `dir`, its payloads checked when `check_payloads` (for a validation).
pub fn load(dir: &Path, check_payloads: bool) -> Result<Catalog, ToolError> {
    let options = LoadOptions {
        check_payloads,
        ..Default::default()
    };
    load_with(dir, &options).map_err(|e| ToolError::refused(format!("cannot open catalog {e}")))
}

/// `list`.
pub fn list(roots: &Roots, args: ListArgs) -> Result<Value, ToolError> {
    let dir = roots.resolve(&args.path)?;
    let catalog = load(&dir, false)?;
    let listed = match (&args.package, &args.channel) {
        (None, None) => Ok(listing::packages(&catalog)),
        (None, Some(_)) => return Err(ToolError::refused("give the channel's package too")),
        (Some(p), None) => listing::channels(&catalog, p),
        (Some(p), Some(c)) => listing::entries(&catalog, p, c),
    };
    let mut value = listed.map_err(|e| ToolError::refused(e.to_string()))?;
    let problems: Vec<Value> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .map(|d| problem::value(roots, &dir, d))
        .collect();
    value["load_problems"] = problems.into();
    Ok(value)
}

/// `upgrade_path`.
pub fn upgrade_path(roots: &Roots, args: UpgradePathArgs) -> Result<Value, ToolError> {
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
    let (mut value, reached) = match args.olm {
        Olm::V0 => query.v0_json(),
        Olm::V1 => query.v1_json(&args.package, args.channel.as_deref()),
    };
    value["reached"] = reached.into();
    Ok(value)
}

/// `validate`.
pub fn validate(roots: &Roots, args: ValidateArgs) -> Result<Value, ToolError> {
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
    Ok(json!({
        "path": roots.show(&dir),
        "valid": report.is_valid(),
        "errors": report.count(Severity::Error),
        "warnings": report.count(Severity::Warning),
        "notes": report.count(Severity::Info),
        "problems": problem::values(roots, &dir, &report.diagnostics),
        "messages": notes,
    }))
}

/// A git revision as given, refused when git could take it for an option.
fn revision(rev: &str) -> Result<&str, ToolError> {
    if rev.is_empty() || rev.starts_with('-') || rev.chars().any(char::is_control) {
        return Err(ToolError::refused(format!("{rev:?} is not a git revision")));
    }
    Ok(rev)
}

/// `diff`.
pub fn diff(roots: &Roots, args: DiffArgs) -> Result<Value, ToolError> {
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
            let rev = revision(rev)?;
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
    let changes = serde_json::to_value(&d)
        .map_err(|e| ToolError::refused(format!("cannot describe the changes: {e}")))?;
    Ok(json!({
        "changed": !d.is_empty(),
        "changes": changes,
        "text": diff::text(&d),
    }))
}

/// `render`.
pub fn render(roots: &Roots, args: RenderArgs) -> Result<Value, ToolError> {
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
    Ok(json!({
        "template": roots.show(&file),
        "opm_version": opm.version.to_string(),
        "catalog": rendered.to_text(format),
        "notes": notes,
    }))
}

/// `repo_check`.
pub fn repo_check(roots: &Roots, args: RepoCheckArgs) -> Result<Value, ToolError> {
    use fbc_core::repo;
    let root = roots.resolve(&args.path)?;
    let options = repo::Options {
        git_base: args
            .git
            .as_deref()
            .map(revision)
            .transpose()?
            .map(str::to_string),
    };
    let report = repo::check(&root, &options).map_err(|e| ToolError::refused(e.to_string()))?;
    Ok(json!({
        "operators": report.operators.iter().map(|o| json!({
            "name": o.name,
            "problems": problem::values(roots, &root, &o.problems),
        })).collect::<Vec<_>>(),
        "repository": problem::values(roots, &root, &report.repository),
        "summary": report.summary_json(),
    }))
}
