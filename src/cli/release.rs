//! `fbc-edit release preview OPERATOR_DIR/VERSION`: what the release pipeline will do when a
//! bundle's pull request merges (`add-bundle-to-fbc`), shown and written nowhere.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::edit_template::{release_plan, release_rendered, root_of};
use super::exit;
use super::template::SourceArgs;
use super::template_out::{shown, template_pending};
use fbc_core::catalog::Severity;
use fbc_core::catalog::write::{Pending, unified_diff};

/// Where the community pipeline publishes the bundle it builds from `operators/<op>/<version>/`.
pub const COMMUNITY_REGISTRY: &str = "quay.io/community-operator-pipeline-prod";

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    #[command(subcommand)]
    pub command: ReleaseCommand,
}

#[derive(Debug, Subcommand)]
pub enum ReleaseCommand {
    /// Show what the release pipeline will do when this bundle's pull request merges: its
    /// release-config.yaml applied to the operator's templates, the catalogs they map to
    /// re-rendered, the diffs of both and the catalogs' validation. Writes nothing; exit 1 when a
    /// resulting catalog has errors or the pipeline would refuse the release.
    Preview(PreviewArgs),
}

#[derive(Debug, Args)]
pub struct PreviewArgs {
    /// The bundle directory, `operators/<op>/<version>` (holding release-config.yaml).
    pub bundle: PathBuf,
    /// The bundle image the pipeline publishes (default: the community pipeline's
    /// quay.io/community-operator-pipeline-prod/<op>:<version>; certified bundles are published by
    /// digest, so give it).
    #[arg(long, value_name = "REF", value_parser = super::edit_args::image_ref)]
    pub image: Option<String>,
    #[command(flatten)]
    pub sources: SourceArgs,
}

/// The opm release the community and certified release pipelines render with (their image's, since
/// July 2026).
const PIPELINE_OPM: fbc_core::template::OpmVersion = fbc_core::template::OpmVersion::V1_71_0;

pub fn run(args: &ReleaseArgs) -> i32 {
    match &args.command {
        ReleaseCommand::Preview(a) => preview(a),
    }
}

/// The operator directory and its name, and the bundle's version, for `operators/<op>/<version>`.
fn names(bundle: &Path) -> Option<(PathBuf, String, String)> {
    let abs = bundle.canonicalize().ok()?;
    let version = abs.file_name()?.to_str()?.to_string();
    let op_dir = abs.parent()?.to_path_buf();
    let op = op_dir.file_name()?.to_str()?.to_string();
    Some((op_dir, op, version))
}

fn preview(args: &PreviewArgs) -> i32 {
    if !args.bundle.join("release-config.yaml").is_file() {
        eprintln!(
            "fbc-edit: {}: no release-config.yaml: the pipeline releases nothing into the catalogs for this bundle",
            args.bundle.display()
        );
        return exit::USAGE;
    }
    let Some((op_dir, op, version)) = names(&args.bundle) else {
        eprintln!(
            "fbc-edit: {}: not a bundle directory of an operator (operators/<op>/<version>)",
            args.bundle.display()
        );
        return exit::USAGE;
    };
    // What a write would be confined to, fixed from the command line; nothing is written here.
    let root = match root_of(std::slice::from_ref(&op_dir)) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let image = args
        .image
        .clone()
        .unwrap_or_else(|| format!("{COMMUNITY_REGISTRY}/{op}:{version}"));
    println!("release of {op} {version} as {image}");
    // The pipeline's release step renders with its own opm, whatever the Makefile pins.
    let mut sources = args.sources.clone();
    match sources.opm_version {
        Some(v) => println!("rendered as opm {v} (--opm-version)"),
        None => {
            sources.opm_version = Some(PIPELINE_OPM);
            println!(
                "rendered as opm {PIPELINE_OPM}, the release pipeline's (--opm-version chooses another)"
            );
        }
    }
    let sources = &sources;
    let plan = match release_plan(sources, &op_dir, &args.bundle, &image) {
        Ok(p) => p,
        Err(e) => {
            println!("the pipeline would stop: {e}");
            return exit::INVALID;
        }
    };
    let shown = |p: &Path| shown(&root, p);
    let mut templates = Vec::new();
    for d in &plan.docs {
        match template_pending(&root, d) {
            Ok(p) => templates.extend(p),
            Err(e) => {
                eprintln!("fbc-edit: {e}");
                return exit::USAGE;
            }
        }
    }
    templates.extend(plan.new_files.iter().map(|(p, text)| Pending {
        path: shown(p),
        created: true,
        old: String::new(),
        new: text.clone(),
    }));
    if templates.is_empty() {
        println!("templates: unchanged (the release is in them already)");
    } else {
        print!("{}", unified_diff(&templates));
    }
    let rendered = match release_rendered(sources, &plan, true) {
        Ok(r) => r,
        Err(e) => {
            println!("the catalogs cannot be re-rendered: {e}");
            return exit::INVALID;
        }
    };
    let mut catalogs = Vec::new();
    for r in &rendered {
        let rel = shown(&r.file);
        match fbc_core::template::render_all::read_output(root.path(), &rel) {
            Ok(Some(old)) if old == r.text.as_bytes() => {}
            Ok(old) => catalogs.push(Pending {
                path: rel,
                created: old.is_none(),
                old: old
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default(),
                new: r.text.clone(),
            }),
            Err(e) => {
                println!("{rel}: cannot be read: {e}");
                return exit::INVALID;
            }
        }
    }
    // A new catalog is shown by its size: its every line would be an addition.
    let (created, changed): (Vec<Pending>, Vec<Pending>) =
        catalogs.into_iter().partition(|c| c.created);
    print!("{}", unified_diff(&changed));
    for c in &created {
        println!(
            "--- /dev/null\n+++ b/{}\n(a new file of {} lines; not shown)",
            c.path,
            c.new.lines().count()
        );
    }
    let mut errors = 0;
    for r in &rendered {
        let rel = shown(&r.file);
        let e = r
            .problems
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let w = r.problems.len() - e;
        errors += e;
        let change = if created.iter().any(|c| c.path == rel) {
            "new"
        } else if changed.iter().any(|c| c.path == rel) {
            "changes"
        } else {
            "unchanged"
        };
        let verdict = if e == 0 { "valid" } else { "invalid" };
        println!("{rel}: {change}, {verdict}: {e} error(s), {w} warning(s)");
        for d in &r.problems {
            println!("  [{}] {}", d.code, d.message);
        }
    }
    println!("{}: previewed, nothing written", plan.what);
    if errors > 0 { exit::INVALID } else { exit::OK }
}
