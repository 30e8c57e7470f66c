//! `fbc-edit edit TEMPLATE... <edit>` and `fbc-edit edit OPERATOR_DIR release`: guided edits written
//! into catalog templates (one edit, many templates), and the auto-release step.

use std::path::{Path, PathBuf};

use super::edit::{EditArgs, EditCommand};
use super::exit;
use super::template::SourceArgs;
use super::template_out::{said_written, shown, template_pending};
use fbc_core::catalog::commit::CommitOptions;
use fbc_core::catalog::node::{Node, Str};
use fbc_core::catalog::write::{Pending, unified_diff};
use fbc_core::catalog::yaml::{self, YamlStyle};
use fbc_core::guard::path::Root;
use fbc_core::template::edit::release::{self, OperatorDir, Release};
use fbc_core::template::edit::{
    SemverEdit, SemverFlag, SubstitutesEdit, TemplateDoc, TemplateEdit,
};
use fbc_core::template::{ImageSource, Sources, schemas};
use fbc_core::workspace::SaveError;
use fbc_core::workspace::template::TemplateWorkspace;
use fbc_core::workspace::templates::{self, Rerendered, rerendered_checked, save_root_of};

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

/// A new template file in the style the pipeline writes: `---`, then the document with unindented
/// sequences, long values wrapped at 80 columns.
fn new_template_text(node: &Node) -> String {
    let style = YamlStyle {
        indent: 2,
        indent_sequences: false,
        wrap_width: Some(80),
    };
    let mut out = String::from("---\n");
    yaml::write_document(&mut out, node, style, &|s: &Str| {
        s.as_inline().unwrap_or_default().to_string()
    });
    out
}

fn run_release(args: &EditArgs, root: &Root, dir: &Path, from: &Path, image: &str) -> i32 {
    match release_plan(&args.sources, dir, from, image) {
        Err(e) => {
            eprintln!("fbc-edit: nothing written: {e}");
            exit::INVALID
        }
        Ok((docs, new_files, what)) => {
            for d in &docs {
                match template_pending(root, d) {
                    Ok(p) => print!("{}", unified_diff(&p)),
                    Err(e) => eprintln!("fbc-edit: {e}"),
                }
            }
            let created: Vec<Pending> = new_files
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
                release_rendered(&args.sources, &docs, &new_files, from, image, false)
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
            if args.dry_run {
                eprintln!("{what} (dry run: nothing written)");
                return exit::OK;
            }
            let refs: Vec<&TemplateDoc> = docs.iter().collect();
            match write_docs(root, &refs, &new_files, &rendered, args.force) {
                Ok(written) => {
                    eprintln!("{}", said_written(&what, &written));
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

/// The catalogs the released templates map to, re-rendered with the bundle directory standing for
/// the released image; each checked when `check`.
pub(crate) fn release_rendered(
    given: &SourceArgs,
    docs: &[TemplateDoc],
    new_files: &[(PathBuf, String)],
    from: &Path,
    image: &str,
    check: bool,
) -> Result<Vec<Rerendered>, String> {
    let extra = Some((image.to_string(), from.to_path_buf()));
    let mut out = Vec::new();
    for d in docs {
        let srcs = sources(given, d.path(), &extra)?;
        let template = d.template().map_err(|e| e.to_string())?;
        out.extend(
            rerendered_checked(d.path(), &template, &srcs, given.opm_version, check)
                .map_err(|e| e.to_string())?,
        );
    }
    for (path, text) in new_files {
        let srcs = sources(given, path, &extra)?;
        let template = fbc_core::template::parse(&path.display().to_string(), text)
            .map_err(|e| e.to_string())?;
        out.extend(
            rerendered_checked(path, &template, &srcs, given.opm_version, check)
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(out)
}

pub(crate) type ReleasePlan = (Vec<TemplateDoc>, Vec<(PathBuf, String)>, String);

/// The templates the release changes and the ones it creates.
pub(crate) fn release_plan(
    given: &SourceArgs,
    dir: &Path,
    from: &Path,
    image: &str,
) -> Result<ReleasePlan, String> {
    let op = OperatorDir::find(dir);
    let config = release::read_release_config(from).map_err(|e| e.to_string())?;
    let ci = op.dir.join("ci.yaml");
    let (enabled, mappings) = release_mappings(&op)?;
    if !enabled {
        return Err(format!(
            "{}: fbc.enabled is not true: the operator does not deliver through file-based catalogs",
            ci.display()
        ));
    }
    let (bundle, unread) = fbc_core::bundle::render_dir_noting(
        from,
        &fbc_core::bundle::RenderOptions {
            image: Some(image.to_string()),
            csv_metadata: false,
            related: fbc_core::bundle::RelatedOrder::default(),
        },
    )
    .map_err(|e| format!("cannot render {}: {e}", from.display()))?;
    super::bundle::note_unread(from, &unread);
    let name = bundle["name"].as_str().unwrap_or_default().to_string();
    let package = bundle["package"].as_str().unwrap_or_default().to_string();
    let mut docs = Vec::new();
    let mut new_files = Vec::new();
    for item in &config.catalog_templates {
        let kind = release::template_type(item, &mappings).map_err(|e| e.to_string())?;
        // A plain file name: read_release_config refuses any other.
        let path = op.templates.join(&item.template_name);
        let r = Release {
            bundle: &name,
            package: &package,
            image,
            item,
        };
        if !path.exists() {
            let node = if kind == schemas::SEMVER {
                release::create_semver(&r)
            } else {
                release::create_basic(&r)
            };
            new_files.push((path, new_template_text(&node)));
            continue;
        }
        let mut doc = TemplateDoc::open(&path).map_err(|e| e.to_string())?;
        let node = if kind == schemas::SEMVER {
            release::amend_semver(doc.node(), &r)
        } else {
            let srcs = sources(given, &path, &Some((image.to_string(), from.to_path_buf())))?;
            let images = bundle_names(&doc, &srcs);
            release::amend_basic(doc.node(), &r, &images)
        }
        .map_err(|e| e.to_string())?;
        doc.replace(node);
        docs.push(doc);
    }
    let what = format!("release {name} ({image})");
    Ok((docs, new_files, what))
}

/// Whether FBC delivery is on, and which template renders into which catalogs: `ci.yaml`'s
/// `fbc` section, or, without a `ci.yaml`, the convention `template render-all` follows (each
/// `catalog-templates/vX.Y.yaml` renders into catalog `vX.Y`, its type read from its schema).
fn release_mappings(op: &OperatorDir) -> Result<(bool, Vec<release::CatalogMapping>), String> {
    // Whatever is there is read: a ci.yaml that is not a regular file is refused, not passed over.
    if op.dir.join("ci.yaml").symlink_metadata().is_ok() {
        return release::read_ci_mapping(&op.dir).map_err(|e| e.to_string());
    }
    let plan = fbc_core::template::render_all::plan(&op.dir).map_err(|e| e.to_string())?;
    let mappings = plan
        .jobs
        .into_iter()
        .map(|j| release::CatalogMapping {
            template_name: j.template_name,
            kind: j.kind,
            catalog_names: j.catalogs,
        })
        .collect();
    Ok((true, mappings))
}

/// The bundle name each `olm.bundle` image of a basic template renders to, where a source knows it.
fn bundle_names(doc: &TemplateDoc, sources: &Sources) -> Vec<(String, Option<String>)> {
    use fbc_core::template::BundleSource as _;
    fbc_core::template::edit::entries_of(doc.node())
        .iter()
        .filter(|e| fbc_core::template::edit::schema_of(e) == fbc_core::catalog::schema::BUNDLE)
        .filter_map(|e| {
            e.get_field("image")
                .and_then(Node::as_str)
                .map(str::to_string)
        })
        .map(|image| {
            let name = sources
                .bundle_for_image(&image)
                .and_then(Result::ok)
                .and_then(|b| b.get("name").and_then(|n| n.as_str()).map(str::to_string));
            (image, name)
        })
        .collect()
}
