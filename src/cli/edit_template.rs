//! `fbc-edit edit TEMPLATE... <edit>` and `fbc-edit edit OPERATOR_DIR release`: guided edits written
//! into catalog templates (one edit, many templates), and the auto-release step.

use std::path::{Path, PathBuf};

use super::edit::{EditArgs, EditCommand};
use super::exit;
use super::template::SourceArgs;
use super::template_out::{said_written, shown, template_pending};
use fbc_core::catalog::commit::CommitOptions;
use fbc_core::catalog::write::{Pending, unified_diff};
use fbc_core::guard::path::Root;
use fbc_core::template::edit::{
    SemverEdit, SemverFlag, SubstitutesEdit, TemplateDoc, TemplateEdit,
};
use fbc_core::template::{ImageSource, Sources, SourcesError};
use fbc_core::workspace::SaveError;
use fbc_core::workspace::template::TemplateWorkspace;
use fbc_core::workspace::templates::release::{self, ReleaseInput, ReleasePlan, ReleasePlanError};
use fbc_core::workspace::templates::{self, Rerendered, save_root_of};

pub use fbc_core::template::files::{holds_templates, template_files};

/// The directory a save writes in, fixed from the paths given before anything is read.
pub(crate) fn root_of(paths: &[PathBuf]) -> Result<Root, i32> {
    save_root_of(paths).map_err(|e| {
        eprintln!("fbc-edit: cannot tell where to write: {e}");
        exit::USAGE
    })
}

pub fn run(args: &EditArgs) -> i32 {
    if let EditCommand::Release { from, image } = &args.edit {
        return match args.paths.as_slice() {
            [dir] if dir.is_dir() => match root_of(std::slice::from_ref(dir)) {
                Ok(root) => run_release(args, &root, dir, from, image),
                Err(code) => code,
            },
            _ => {
                eprintln!(
                    "fbc-edit: release takes one operator directory (with ci.yaml and catalog-templates/)"
                );
                exit::USAGE
            }
        };
    }
    let mut templates = Vec::new();
    for p in &args.paths {
        if p.is_file() {
            templates.push(p.clone());
        } else if p.is_dir() {
            let found = template_files(p);
            if found.is_empty() {
                eprintln!("fbc-edit: {}: no templates in it", p.display());
                return exit::USAGE;
            }
            templates.extend(found);
        } else {
            eprintln!("fbc-edit: {}: no such file or directory", p.display());
            return exit::USAGE;
        }
    }
    let root = match root_of(&args.paths) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (edit, extra) = match template_edit(&args.edit) {
        Ok(e) => e,
        Err((code, message)) => {
            eprintln!("fbc-edit: {message}");
            return code;
        }
    };
    run_edit(args, &root, &templates, &edit, extra)
}

/// An image and the bundle directory that stands for it.
type ImageDir = (String, PathBuf);

/// The template edit of a verb, and a bundle directory standing for an image it adds.
fn template_edit(cmd: &EditCommand) -> Result<(TemplateEdit, Option<ImageDir>), (i32, String)> {
    let maturity = |c: &str| {
        fbc_core::template::edit::maturity_of(c).ok_or((
            exit::USAGE,
            format!("{c:?} is none of Candidate, Fast and Stable"),
        ))
    };
    Ok(match cmd {
        EditCommand::AddImage { image, channel } => (
            TemplateEdit::Semver(SemverEdit::AddBundle {
                image: image.clone(),
                maturity: maturity(channel)?,
            }),
            None,
        ),
        EditCommand::MoveImage { image, channel } => (
            TemplateEdit::Semver(SemverEdit::MoveBundle {
                image: image.clone(),
                to: maturity(channel)?,
            }),
            None,
        ),
        EditCommand::RemoveImage { image } => (
            TemplateEdit::Semver(SemverEdit::RemoveBundle {
                image: image.clone(),
            }),
            None,
        ),
        EditCommand::SetGenerate { major, minor } => {
            let (flag, value) = match (major, minor) {
                (Some(v), None) => (SemverFlag::GenerateMajorChannels, *v),
                (None, Some(v)) => (SemverFlag::GenerateMinorChannels, *v),
                _ => return Err((exit::USAGE, "give one of --major and --minor".into())),
            };
            (
                TemplateEdit::Semver(SemverEdit::SetFlag { flag, value }),
                None,
            )
        }
        EditCommand::SetChannelPreference { preference } => (
            TemplateEdit::Semver(SemverEdit::SetPreference {
                preference: (preference != "none").then(|| preference.clone()),
            }),
            None,
        ),
        EditCommand::Substitute { base, image, from } => (
            TemplateEdit::Substitutes(SubstitutesEdit::Add {
                image: image.clone(),
                base: base.clone(),
            }),
            from.as_ref().map(|d| (image.clone(), d.clone())),
        ),
        EditCommand::Unsubstitute { base } => (
            TemplateEdit::Substitutes(SubstitutesEdit::Remove { base: base.clone() }),
            None,
        ),
        EditCommand::AddBundle(add) => {
            let (from, image) = (&add.from, &add.image);
            let Some(image) = image else {
                return Err((
                    exit::USAGE,
                    "a template lists a bundle by its image: give --image REF".into(),
                ));
            };
            (
                TemplateEdit::Catalog(cmd.edit()?),
                Some((image.clone(), from.clone())),
            )
        }
        other => (TemplateEdit::Catalog(other.edit()?), None),
    })
}

/// The sources a template's images are resolved from: the given ones, else the catalogs rendered
/// from the operator's templates in a repository layout, else the template's directory; plus a
/// bundle directory standing for an image the edit adds.
fn sources(
    given: &SourceArgs,
    template: &Path,
    extra: &Option<ImageDir>,
) -> Result<Sources, String> {
    let mut dirs = given.bundle_dirs.clone();
    dirs.extend(extra.clone());
    let images = ImageSource {
        pull: given.pull,
        ..ImageSource::new(std::sync::Arc::new(fbc_image::Opener::default()))
    };
    let (sources, _) = Sources::for_template(template, &given.catalog, dirs, Some(images))
        .map_err(|e| e.to_string())?;
    Ok(sources)
}

fn run_edit(
    args: &EditArgs,
    root: &Root,
    templates: &[PathBuf],
    edit: &TemplateEdit,
    extra: Option<ImageDir>,
) -> i32 {
    let mut changed: Vec<TemplateWorkspace> = Vec::new();
    let mut refused = 0;
    let mut invalid = false;
    for t in templates {
        println!("== {}", t.display());
        match apply_one(args, root, t, edit, &extra) {
            Ok((ws, leaves_invalid)) => {
                invalid |= leaves_invalid;
                changed.push(ws);
            }
            Err(why) => {
                println!("not applied: {why}");
                refused += 1;
            }
        }
    }
    if changed.is_empty() {
        eprintln!(
            "fbc-edit: {} applies to none of the templates",
            edit.describe()
        );
        return exit::INVALID;
    }
    if invalid && !args.force {
        eprintln!(
            "fbc-edit: {} would leave a rendering invalid; nothing was written (--force writes anyway)",
            edit.describe()
        );
        return exit::INVALID;
    }
    let Some(rendered) = rerender_changed(args, root, &changed) else {
        return exit::INVALID;
    };
    if args.dry_run {
        eprintln!("{} (dry run: nothing written)", edit.describe());
        return exit::OK;
    }
    let docs: Vec<&TemplateDoc> = changed.iter().map(|w| w.doc()).collect();
    match write_docs(root, &docs, &[], &rendered, args.force) {
        Ok(written) => {
            eprintln!("{}", said_written(&edit.describe(), &written));
            if refused > 0 {
                eprintln!("({refused} template(s) not changed: see above)");
            }
            exit::OK
        }
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            exit::USAGE
        }
    }
}

/// For a semver or substitutes template, whose text does not show the edges: the channels and edges
/// the edit changes in the rendering.
fn print_generated_changes(ws: &TemplateWorkspace, before: Option<&[serde_json::Value]>) {
    let semver = ws.doc().template().is_ok_and(|t| {
        t.schema() == fbc_core::template::schemas::SEMVER
            || t.schema() == fbc_core::template::schemas::SUBSTITUTES
    });
    if let (true, Some(before), Ok(after)) = (semver, before, ws.rendering()) {
        let lines = fbc_core::template::preview::rendering_changes(before, &after.blobs);
        if !lines.is_empty() {
            println!("the rendering changes:");
            for l in lines {
                println!("  {l}");
            }
        }
    }
}

/// Opens one template and applies the edit, printing its diff and the problems it brings; the
/// workspace and whether its rendering is left invalid, or why the edit does not apply.
fn apply_one(
    args: &EditArgs,
    root: &Root,
    t: &Path,
    edit: &TemplateEdit,
    extra: &Option<ImageDir>,
) -> Result<(TemplateWorkspace, bool), String> {
    let srcs = sources(&args.sources, t, extra)?;
    let mut ws = TemplateWorkspace::open_as(t, Box::new(srcs), args.sources.opm_version)
        .map_err(|e| e.to_string())?;
    if let Some(c) = ws.opm().filter(|c| c.is_chosen()) {
        eprintln!("note: {}", c.note());
    }
    let before = ws.rendering().ok().map(|r| r.blobs.clone());
    let outcome = ws.apply(edit.clone()).map_err(|e| e.to_string())?;
    match template_pending(root, ws.doc()) {
        Ok(p) => print!("{}", unified_diff(&p)),
        Err(e) => println!("cannot show the change: {e}"),
    }
    print_generated_changes(&ws, before.as_deref());
    if !outcome.introduced.is_empty() {
        println!("leaves the rendering invalid:");
        for d in &outcome.introduced {
            println!("  {}[{}]: {}", d.location, d.code, d.message);
        }
    }
    Ok((ws, !outcome.introduced.is_empty()))
}

/// The catalogs the changed templates map to, re-rendered and listed with how each changes (none
/// with `--no-render`); `None`, said why, when one cannot be.
fn rerender_changed(
    args: &EditArgs,
    root: &Root,
    changed: &[TemplateWorkspace],
) -> Option<Vec<(PathBuf, String)>> {
    if args.no_render {
        return Some(Vec::new());
    }
    let rendered = changed
        .iter()
        .map(fbc_core::workspace::templates::rerendered)
        .collect::<Result<Vec<_>, _>>();
    match rendered {
        Ok(r) => {
            let r = r.concat();
            print_rendered(root, &r);
            Some(r)
        }
        Err(e) => {
            eprintln!("fbc-edit: nothing written: {e} (--no-render writes the templates alone)");
            None
        }
    }
}

/// The catalogs a save re-renders, each with how it changes. A catalog is read only when it
/// resolves inside `root`, the directory the save writes in.
pub(crate) fn print_rendered(root: &Root, rendered: &[(PathBuf, String)]) {
    let limit = fbc_core::catalog::load::MAX_FILE;
    for (file, text) in rendered {
        let change = match fbc_core::guard::file::read_limited_within(root.path(), file, limit) {
            Ok(bytes) if bytes == text.as_bytes() => "unchanged".to_string(),
            Ok(bytes) => {
                fbc_core::template::render_all::diff_summary(&String::from_utf8_lossy(&bytes), text)
            }
            Err(e) if e.is_not_found() => "new file".to_string(),
            Err(e) => e.to_string(),
        };
        println!("re-rendered {}: {change}", shown(root, file));
    }
}

/// Writes the changed templates, new files and re-rendered catalogs in one commit under `root`;
/// returns the paths written. A file outside the root is refused, and then nothing is written.
fn write_docs(
    root: &Root,
    docs: &[&TemplateDoc],
    new_files: &[(PathBuf, String)],
    rendered: &[(PathBuf, String)],
    force: bool,
) -> Result<Vec<String>, SaveError> {
    let planned = templates::plan_files(root, docs, new_files, rendered)?;
    let options = CommitOptions {
        force_read_only: force,
        ..CommitOptions::default()
    };
    let (report, _) = templates::write_and_reread(root.path(), planned, &options, Vec::new())?;
    Ok(report.written)
}

fn run_release(args: &EditArgs, root: &Root, dir: &Path, from: &Path, image: &str) -> i32 {
    match release_plan(&args.sources, dir, from, image) {
        Err(e) => {
            eprintln!("fbc-edit: nothing written: {e}");
            exit::INVALID
        }
        Ok(plan) => {
            for d in &plan.docs {
                match template_pending(root, d) {
                    Ok(p) => print!("{}", unified_diff(&p)),
                    Err(e) => eprintln!("fbc-edit: {e}"),
                }
            }
            let created: Vec<Pending> = plan
                .new_files
                .iter()
                .map(|(p, text)| Pending {
                    path: shown(root, p),
                    created: true,
                    old: String::new(),
                    new: text.clone(),
                })
                .collect();
            print!("{}", unified_diff(&created));
            let rendered = if args.no_render {
                Ok(Vec::new())
            } else {
                release_rendered(&args.sources, &plan, false)
                    .map(|r| r.into_iter().map(|c| (c.file, c.text)).collect())
            };
            let rendered = match rendered {
                Ok(r) => r,
                Err(e) => {
                    eprintln!(
                        "fbc-edit: nothing written: {e} (--no-render writes the templates alone)"
                    );
                    return exit::INVALID;
                }
            };
            print_rendered(root, &rendered);
            let what = &plan.what;
            if args.dry_run {
                eprintln!("{what} (dry run: nothing written)");
                return exit::OK;
            }
            let refs: Vec<&TemplateDoc> = plan.docs.iter().collect();
            match write_docs(root, &refs, &plan.new_files, &rendered, args.force) {
                Ok(written) => {
                    eprintln!("{}", said_written(what, &written));
                    exit::OK
                }
                Err(e) => {
                    eprintln!("fbc-edit: {e}");
                    exit::USAGE
                }
            }
        }
    }
}

/// The bundle sources of a template a release changes: the given ones, the released bundle's
/// directory standing for its image.
fn release_sources(
    given: &SourceArgs,
) -> impl Fn(&Path, Vec<ImageDir>) -> Result<Sources, SourcesError> + '_ {
    move |template, standing| {
        let mut dirs = given.bundle_dirs.clone();
        dirs.extend(standing);
        let images = ImageSource {
            pull: given.pull,
            ..ImageSource::new(std::sync::Arc::new(fbc_image::Opener::default()))
        };
        Sources::for_template(template, &given.catalog, dirs, Some(images)).map(|(s, _)| s)
    }
}

/// The catalogs the released templates map to, re-rendered with the bundle directory standing for
/// the released image; each checked when `check`.
pub(crate) fn release_rendered(
    given: &SourceArgs,
    plan: &ReleasePlan,
    check: bool,
) -> Result<Vec<Rerendered>, ReleasePlanError> {
    plan.rerendered(&release_sources(given), given.opm_version, check)
}

/// The templates the release changes and the ones it creates; the files of the bundle directory
/// left unread are noted on stderr as soon as it is rendered.
pub(crate) fn release_plan(
    given: &SourceArgs,
    dir: &Path,
    from: &Path,
    image: &str,
) -> Result<ReleasePlan, ReleasePlanError> {
    let input = ReleaseInput::read(dir, from)?;
    let bundle = release::render_bundle(from, image)?;
    super::bundle::note_unread(from, &bundle.unread);
    input.plan(&bundle, from, image, &release_sources(given))
}
