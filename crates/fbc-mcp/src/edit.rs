//! The `edit` tool: one guided edit of a catalog or of templates, checked, previewed as a diff and
//! written through the engine's one save path (the workspace's plan and commit, as `fbc-edit edit`
//! writes), only when it is not a dry run and the result validates (or `force`).

use std::path::{Path, PathBuf};

use crate::args::{EditArgs, Verb};
use crate::error::ToolError;
use crate::output::{EditResult, NotApplied, Problem, TemplateChange};
use crate::roots::Roots;
use crate::{problem, read, release, verbs};
use fbc_core::catalog::commit::CommitOptions;
use fbc_core::template::Sources;
use fbc_core::template::edit::TemplateDoc;
use fbc_core::template::files::{holds_templates, template_files};
use fbc_core::workspace::SaveError;
use fbc_core::workspace::Workspace;
use fbc_core::workspace::template::TemplateWorkspace;
use fbc_core::workspace::templates::{self, save_root_of};

/// `edit`.
pub fn edit(roots: &Roots, args: EditArgs) -> Result<EditResult, ToolError> {
    let path = roots.resolve(&args.path)?;
    let from = args.from.as_deref().map(|f| roots.resolve(f)).transpose()?;
    if !path.exists() {
        return Err(ToolError::refused(format!(
            "{}: no such file or directory",
            args.path
        )));
    }
    if args.edit == Verb::Release {
        return release::release(roots, &path, &args, from);
    }
    let rendered = match (&args.edit, &from) {
        (Verb::AddBundle, Some(dir)) => Some(verbs::render_bundle(dir, &args)?),
        _ => None,
    };
    let unread: Vec<String> = rendered
        .as_ref()
        .map(|(_, u)| u.clone())
        .unwrap_or_default();
    let mut result = if holds_templates(&path) {
        in_templates(roots, &path, &args, rendered, from)?
    } else {
        in_catalog(roots, &path, &args, rendered)?
    };
    result
        .notes
        .extend(unread.iter().map(|u| format!("not read: {u}")));
    Ok(result)
}

pub(crate) fn options(force: bool) -> CommitOptions {
    CommitOptions {
        force_read_only: force,
        ..CommitOptions::default()
    }
}

/// A failed write, worded as the command line words it.
pub(crate) fn write_failed(e: &SaveError) -> ToolError {
    let mut message = if e.wrote_nothing() {
        format!("nothing written: {e}")
    } else {
        e.to_string()
    };
    if e.is_read_only() {
        message.push_str(" (force writes read-only files too)");
    }
    ToolError::Refused(message)
}

fn in_catalog(
    roots: &Roots,
    dir: &Path,
    args: &EditArgs,
    rendered: Option<verbs::Rendered>,
) -> Result<EditResult, ToolError> {
    if args.edit.template_only() {
        return Err(ToolError::refused(format!(
            "{} is a catalog directory, and this edit is for templates (give a template file or a directory of templates)",
            args.path
        )));
    }
    let catalog = read::load(dir, false)?;
    let edit = verbs::catalog_edit(args, rendered)?;
    // One edit on a fresh read: only the edited package can gain or lose errors.
    let mut ws = Workspace::open_for(catalog, edit.package());
    let outcome = ws
        .apply(edit.clone())
        .map_err(|e| ToolError::refused(format!("cannot {}: {e}", edit.describe())))?;
    let diff = ws
        .preview()
        .map_err(|e| ToolError::refused(e.to_string()))?;
    let introduced = problem::values(roots, dir, &outcome.introduced);
    let fixed = problem::values(roots, dir, &outcome.fixed);
    if !introduced.is_empty() && !args.force && !args.dry_run {
        return Err(ToolError::Invalid {
            message: format!(
                "{} would leave the catalog invalid; nothing was written (force writes anyway)",
                edit.describe()
            ),
            problems: introduced,
        });
    }
    let written = if args.dry_run {
        Vec::new()
    } else {
        let report = ws
            .write_and_finish(&options(args.force))
            .map_err(|e| write_failed(&e))?;
        report
            .written
            .iter()
            .map(|rel| roots.show(&dir.join(rel)))
            .collect()
    };
    Ok(EditResult {
        edit: edit.describe(),
        path: roots.show(dir),
        dry_run: args.dry_run,
        written,
        diff,
        introduced,
        fixed,
        notes: outcome.notes,
        ..EditResult::default()
    })
}

/// One template the edit was tried on.
struct Tried {
    ws: TemplateWorkspace,
    diff: String,
    introduced: Vec<Problem>,
}

fn in_templates(
    roots: &Roots,
    path: &Path,
    args: &EditArgs,
    rendered: Option<verbs::Rendered>,
    from: Option<PathBuf>,
) -> Result<EditResult, ToolError> {
    let files = if path.is_file() {
        vec![path.to_path_buf()]
    } else {
        template_files(path)
    };
    if files.is_empty() {
        return Err(ToolError::refused(format!(
            "{}: no templates in it",
            args.path
        )));
    }
    // The directory a save writes in, fixed before anything is read; every file planned is
    // checked again to lie inside the served directories.
    let root = save_root_of(&[path.to_path_buf()])
        .map_err(|e| ToolError::refused(format!("cannot tell where to write: {e}")))?;
    let edit = verbs::template_edit(args, rendered)?;
    // A bundle directory stands for the image an add-bundle lists.
    let extra: Vec<(String, PathBuf)> = match (&args.image, from) {
        (Some(image), Some(dir)) if matches!(args.edit, Verb::AddBundle | Verb::Substitute) => {
            vec![(image.clone(), dir)]
        }
        _ => Vec::new(),
    };
    let mut tried = Vec::new();
    let mut not_applied = Vec::new();
    for t in &files {
        roots.check_repository_of(t)?;
        let (sources, _) = Sources::for_template(t, &[], extra.clone(), None)
            .map_err(|e| ToolError::refused(e.to_string()))?;
        let mut ws = TemplateWorkspace::open_as(t, Box::new(sources), None)
            .map_err(|e| ToolError::refused(e.to_string()))?;
        match ws.apply(edit.clone()) {
            Ok(outcome) => {
                let diff = ws
                    .preview()
                    .map_err(|e| ToolError::refused(e.to_string()))?;
                let dir = t.parent().unwrap_or(Path::new("/"));
                tried.push(Tried {
                    introduced: problem::values(roots, dir, &outcome.introduced),
                    ws,
                    diff,
                });
            }
            Err(e) => not_applied.push(NotApplied {
                template: roots.show(t),
                reason: e.to_string(),
            }),
        }
    }
    if tried.is_empty() {
        let reasons: Vec<String> = not_applied
            .iter()
            .map(|n| format!("{}: {}", n.template, n.reason))
            .collect();
        return Err(ToolError::refused(format!(
            "{} applies to none of the templates ({})",
            edit.describe(),
            reasons.join("; ")
        )));
    }
    let introduced: Vec<Problem> = tried.iter().flat_map(|t| t.introduced.clone()).collect();
    if !introduced.is_empty() && !args.force && !args.dry_run {
        return Err(ToolError::Invalid {
            message: format!(
                "{} would leave a rendering invalid; nothing was written (force writes anyway)",
                edit.describe()
            ),
            problems: introduced,
        });
    }
    let rerendered = if args.no_render {
        Vec::new()
    } else {
        let r = tried
            .iter()
            .map(|t| templates::rerendered(&t.ws))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                ToolError::refused(format!(
                    "nothing written: {e} (no_render writes the templates alone)"
                ))
            })?;
        r.concat()
    };
    let docs: Vec<&TemplateDoc> = tried.iter().map(|t| t.ws.doc()).collect();
    let planned =
        templates::plan_files(&root, &docs, &[], &rerendered).map_err(|e| write_failed(&e))?;
    roots.hold(planned.iter().map(|p| root.path().join(&p.rel)))?;
    let planned_files: Vec<String> = planned
        .iter()
        .map(|p| roots.show(&root.path().join(&p.rel)))
        .collect();
    let written = if args.dry_run {
        Vec::new()
    } else {
        templates::write_and_reread(root.path(), planned, &options(args.force), Vec::new())
            .map_err(|e| write_failed(&e))?;
        planned_files.clone()
    };
    Ok(EditResult {
        edit: edit.describe(),
        path: roots.show(path),
        dry_run: args.dry_run,
        written,
        files: Some(planned_files),
        diff: tried.iter().map(|t| t.diff.as_str()).collect::<String>(),
        templates: Some(
            tried
                .iter()
                .map(|t| TemplateChange {
                    template: roots.show(t.ws.doc().path()),
                    diff: t.diff.clone(),
                    introduced: t.introduced.clone(),
                })
                .collect(),
        ),
        not_applied: Some(not_applied),
        introduced,
        rerendered: Some(rerendered.iter().map(|(p, _)| roots.show(p)).collect()),
        ..EditResult::default()
    })
}
