//! The `edit` tool's `release` verb: a bundle directory's `release-config.yaml` applied to its
//! operator's templates and the catalogs they map to re-rendered, planned by the engine
//! ([`fbc_core::workspace::templates::release`]) as `fbc-edit edit OPERATOR_DIR release` plans it,
//! and written through the templates' one save path.

use std::path::{Path, PathBuf};

use fbc_core::catalog::Severity;
use fbc_core::catalog::write::{Pending, unified_diff};
use fbc_core::template::edit::TemplateDoc;
use fbc_core::template::edit::release::OperatorDir;
use fbc_core::template::{Sources, SourcesError};
use fbc_core::workspace::templates::{self, release, save_root_of};

use crate::args::EditArgs;
use crate::edit::{options, write_failed};
use crate::error::ToolError;
use crate::output::EditResult;
use crate::roots::Roots;
use crate::{problem, verbs};

/// The sources of a template the release changes: the served repository's catalogs and bundle
/// directories, the released bundle's directory standing for its image; no registry.
fn sources(template: &Path, standing: Vec<(String, PathBuf)>) -> Result<Sources, SourcesError> {
    Sources::for_template(template, &[], standing, None).map(|(s, _)| s)
}

/// An image reference as the command line takes one: not empty, no white space.
fn image_ref(image: &str) -> Result<&str, ToolError> {
    if image.trim().is_empty() {
        return Err(ToolError::refused("image is empty"));
    }
    if image.chars().any(char::is_whitespace) {
        return Err(ToolError::refused(format!(
            "image {image:?} holds white space"
        )));
    }
    Ok(image)
}

/// `edit` with `release`: `dir` is the operator directory (or its `catalog-templates/`), `from`
/// the bundle directory, both resolved inside the served directories.
pub fn release(
    roots: &Roots,
    dir: &Path,
    args: &EditArgs,
    from: Option<PathBuf>,
) -> Result<EditResult, ToolError> {
    verbs::only_its_own(args)?;
    let image = image_ref(verbs::required(args, "image", &args.image)?)?;
    verbs::required(args, "from", &args.from)?;
    let from = from.ok_or_else(|| ToolError::refused("release needs from"))?;
    if !dir.is_dir() {
        return Err(ToolError::refused(
            "release takes one operator directory (with ci.yaml and catalog-templates/)",
        ));
    }
    // The templates are rendered from and saved with their repository: it must be served too.
    let operator = OperatorDir::find(dir);
    roots.check_repository_of(&operator.templates.join("template.yaml"))?;
    // The directory a save writes in, fixed before anything is read.
    let root = save_root_of(&[dir.to_path_buf()])
        .map_err(|e| ToolError::refused(format!("cannot tell where to write: {e}")))?;
    let plan = release::plan(dir, &from, image, &sources)
        .map_err(|e| ToolError::refused(format!("nothing written: {e}")))?;
    let shown = |p: &Path| roots.show(p);
    let mut pending: Vec<Pending> = Vec::new();
    for d in &plan.docs {
        let base = d.path().parent().unwrap_or(Path::new(""));
        let changed = d
            .catalog
            .pending()
            .map_err(|e| ToolError::refused(e.to_string()))?;
        pending.extend(changed.into_iter().map(|mut p| {
            p.path = shown(&base.join(&p.path));
            p
        }));
    }
    pending.extend(plan.new_files.iter().map(|(p, text)| Pending {
        path: shown(p),
        created: true,
        old: String::new(),
        new: text.clone(),
    }));
    let rendered = if args.no_render {
        Vec::new()
    } else {
        plan.rerendered(&sources, None, true).map_err(|e| {
            ToolError::refused(format!(
                "nothing written: {e} (no_render writes the templates alone)"
            ))
        })?
    };
    let problems: Vec<_> = rendered
        .iter()
        .flat_map(|r| {
            // Found in the rendering, which stands for the catalog file it is written to.
            let catalog = shown(&r.file);
            problem::values(roots, &r.file, &r.problems)
                .into_iter()
                .map(move |mut p| {
                    p.file = catalog.clone();
                    p
                })
        })
        .collect();
    let errors = rendered
        .iter()
        .flat_map(|r| &r.problems)
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 && !args.force && !args.dry_run {
        return Err(ToolError::Invalid {
            message: format!(
                "{} would leave a rendering invalid; nothing was written (force writes anyway)",
                plan.what
            ),
            problems: problems
                .into_iter()
                .filter(|p| p.severity == Severity::Error.as_str())
                .collect(),
        });
    }
    let rendered: Vec<(PathBuf, String)> = rendered.into_iter().map(|r| (r.file, r.text)).collect();
    let docs: Vec<&TemplateDoc> = plan.docs.iter().collect();
    let planned = templates::plan_files(&root, &docs, &plan.new_files, &rendered)
        .map_err(|e| write_failed(&e))?;
    roots.hold(planned.iter().map(|p| root.path().join(&p.rel)))?;
    let files: Vec<String> = planned
        .iter()
        .map(|p| shown(&root.path().join(&p.rel)))
        .collect();
    let written = if args.dry_run {
        Vec::new()
    } else {
        let (report, _) =
            templates::write_and_reread(root.path(), planned, &options(args.force), Vec::new())
                .map_err(|e| write_failed(&e))?;
        report
            .written
            .iter()
            .map(|rel| shown(&root.path().join(rel)))
            .collect()
    };
    Ok(EditResult {
        edit: plan.what.clone(),
        path: shown(dir),
        dry_run: args.dry_run,
        written,
        diff: unified_diff(&pending),
        notes: plan
            .unread
            .iter()
            .map(|u| format!("not read: {u}"))
            .collect(),
        files: Some(files),
        rerendered: Some(rendered.iter().map(|(p, _)| shown(p)).collect()),
        created: Some(plan.new_files.iter().map(|(p, _)| shown(p)).collect()),
        problems: Some(problems),
        ..EditResult::default()
    })
}
