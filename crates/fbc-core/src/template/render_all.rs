//! Re-rendering every catalog an operator's templates map to, as the community repositories' tooling
//! does it (`make catalogs` in `operators/<op>/`, and the release pipeline): in a repository laid out
//! as `operators/<op>/ci.yaml`, `operators/<op>/catalog-templates/<template>` and
//! `catalogs/<catalog>/<op>/catalog.yaml`.
//!
//! Which template renders into which catalogs comes from `ci.yaml`'s `fbc.catalog_mapping`, in its
//! order. Each mapping's catalogs form two groups, rendered once each: catalogs before OCP 4.17 as
//! the template renders, catalogs `vX.Y` from 4.17 on with `--migrate-level
//! bundle-object-to-csv-metadata`. The bytes written are opm's `-o yaml` output with its trailing
//! newlines cut to one, as the tooling's `echo "$output"` writes it.
//!
//! Without a `ci.yaml` (or one with no mappings), the convention of the repositories' older
//! Makefile targets is followed: every `catalog-templates/vX.Y.yaml` renders into catalog `vX.Y`, its
//! type taken from the template's schema; templates with other names are left alone, with a note.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use super::source::SourcesError;
use super::{OpmChoice, OpmVersion, OpmVersionError, Sources, TemplateError, schemas};
use crate::bundle::MigrationMemo;
use crate::catalog::commit::{self, CommitOptions, Expect, PlannedFile};
use crate::catalog::emit::OutFormat;
use crate::guard::dir::{self, DirError};
use crate::guard::file::Within;
use crate::template::edit::release::{CatalogMapping, OperatorDir, ReleaseError, read_ci_mapping};

/// The migration catalogs from OCP 4.17 on are rendered with.
pub const MIGRATE_LEVEL: &str = "bundle-object-to-csv-metadata";

/// One run of the renderer: a template rendered once for a group of catalogs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The template's file name under `catalog-templates/`.
    pub template_name: String,
    pub template: PathBuf,
    /// `olm.template.basic` or `olm.semver`.
    pub kind: String,
    /// Whether the bundles are migrated to `olm.csv.metadata`.
    pub migrate: bool,
    pub catalogs: Vec<String>,
}

/// What re-rendering an operator's catalogs does.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The repository's root (the directory holding `operators/` and `catalogs/`).
    pub root: PathBuf,
    /// The operator's directory name, also its directory under each catalog.
    pub operator: String,
    pub jobs: Vec<Job>,
    /// Whether the jobs come from `ci.yaml` (else from the templates' file names).
    pub from_ci: bool,
    /// The opm release the templates render as, and why (the flag, the operator's Makefile or the
    /// default).
    pub opm: OpmChoice,
    pub notes: Vec<String>,
}

/// A rendered catalog file: its path under the root and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub rel: String,
    pub text: String,
    pub template_name: String,
}

/// How a committed catalog differs from its rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    Missing {
        rel: String,
    },
    Differs {
        rel: String,
        summary: String,
    },
    /// Something is there that cannot be read (not a regular file, say).
    Unreadable {
        rel: String,
        why: String,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum RenderAllError {
    #[error("{0}")]
    Layout(String),
    #[error(transparent)]
    Ci(#[from] ReleaseError),
    #[error("{file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    /// Every template that could not be rendered, each with its problems.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Templates(Vec<TemplateError>),
    #[error(transparent)]
    Commit(#[from] commit::CommitError),
    #[error(transparent)]
    Opm(#[from] OpmVersionError),
    /// A directory holding more entries than it is listed with.
    #[error("{0}")]
    Listing(#[source] crate::guard::dir::DirError),
}

/// Whether catalog `name` is rendered with the migration: `vX.Y` with X > 4, or X = 4 and Y ≥ 17.
pub fn migrates(name: &str) -> bool {
    let Some((major, minor)) = name.strip_prefix('v').and_then(|v| v.split_once('.')) else {
        return false;
    };
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    match (number(major), number(minor)) {
        (Some(x), Some(y)) => x > 4 || (x == 4 && y >= 17),
        _ => false,
    }
}

/// Plans the rendering for the operator directory `dir` (or its `catalog-templates/`), as the opm
/// release its Makefile pins (else the default).
pub fn plan(dir: &Path) -> Result<Plan, RenderAllError> {
    plan_as(dir, None)
}

/// [`plan`], rendering as opm release `opm` when given (it wins over the Makefile).
pub fn plan_as(dir: &Path, opm: Option<OpmVersion>) -> Result<Plan, RenderAllError> {
    let mut plan = mapping(dir)?;
    plan.opm = OpmChoice::resolve(opm, &OperatorDir::find(dir).dir)?;
    plan.notes.insert(0, plan.opm.note());
    Ok(plan)
}

/// Which templates render into which catalogs, without reading the Makefile: the plan's `opm` is
/// the default, whatever the operator pins. For telling where renderings go; [`plan_as`] renders.
pub fn mapping(dir: &Path) -> Result<Plan, RenderAllError> {
    let op = super::edit::release::OperatorDir::find(dir);
    let layout = |why: &str| RenderAllError::Layout(format!("{}: {why}", op.dir.display()));
    let operator = op
        .dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .ok_or_else(|| layout("not an operator directory"))?;
    if !op.templates.is_dir() {
        return Err(layout("has no catalog-templates/ directory"));
    }
    let root = op
        .repository()
        .ok_or_else(|| layout("is not inside a repository's operators/ directory"))?;
    let ci = op.dir.join("ci.yaml");
    // Whatever is there is read: a ci.yaml that is not a regular file is refused, not passed over.
    let present = ci.symlink_metadata().is_ok();
    let mappings = if present {
        read_ci_mapping(&op.dir)?.1
    } else {
        Vec::new()
    };
    let mut notes = Vec::new();
    let from_ci = !mappings.is_empty();
    let jobs = if from_ci {
        jobs_from_ci(&ci, &op.templates, &mappings)?
    } else {
        let why = if present {
            "has no fbc.catalog_mapping"
        } else {
            "does not exist"
        };
        notes.push(format!(
            "{} {why}: each catalog-templates/vX.Y.yaml renders into catalogs/vX.Y/{operator}/catalog.yaml",
            ci.display()
        ));
        jobs_by_name(&op.templates, &mut notes)?
    };
    if let Some(j) = jobs.iter().find(|j| j.kind == schemas::SUBSTITUTES) {
        notes.push(format!(
            "{} maps {} as olm.template.substitutes: rendered as opm renders it, though the community pipeline's ci.yaml schema and render_catalogs.sh take only olm.template.basic and olm.semver",
            ci.display(),
            j.template_name
        ));
    }
    let mapped: HashSet<&String> = jobs.iter().flat_map(|j| &j.catalogs).collect();
    for name in existing_catalogs(&root, &operator)? {
        if !mapped.contains(&name) {
            notes.push(format!(
                "catalogs/{name}/{operator} is mapped by no template; it is left as it is (make catalogs would delete it)"
            ));
        }
    }
    Ok(Plan {
        root,
        operator,
        jobs,
        from_ci,
        opm: OpmChoice::default(),
        notes,
    })
}

/// The catalogs under `root/catalogs/` holding a directory for `operator`, sorted
/// ([`files::catalogs_holding`](super::files)).
fn existing_catalogs(root: &Path, operator: &str) -> Result<Vec<String>, RenderAllError> {
    super::files::catalogs_holding(root, operator.as_ref()).map_err(RenderAllError::Listing)
}

fn jobs_from_ci(
    ci: &Path,
    templates: &Path,
    mappings: &[CatalogMapping],
) -> Result<Vec<Job>, RenderAllError> {
    let bad = |why: String| RenderAllError::Layout(format!("{}: {why}", ci.display()));
    let mut seen: HashSet<&str> = HashSet::new();
    let mut jobs = Vec::new();
    for m in mappings {
        if m.kind != schemas::BASIC && m.kind != schemas::SEMVER && m.kind != schemas::SUBSTITUTES {
            return Err(bad(format!(
                "unknown template type '{}' for {} (olm.template.basic, olm.semver or olm.template.substitutes)",
                m.kind, m.template_name
            )));
        }
        if m.catalog_names.is_empty() {
            return Err(bad(format!(
                "{}: catalog_names lists no catalog",
                m.template_name
            )));
        }
        // The names are plain file names: read_ci_mapping refuses any other.
        for c in &m.catalog_names {
            if !seen.insert(c) {
                return Err(bad(format!("catalog {c} is mapped twice")));
            }
        }
        let template = templates.join(&m.template_name);
        let (old, new): (Vec<String>, Vec<String>) =
            m.catalog_names.iter().cloned().partition(|c| !migrates(c));
        for (migrate, catalogs) in [(false, old), (true, new)] {
            if !catalogs.is_empty() {
                jobs.push(Job {
                    template_name: m.template_name.clone(),
                    template: template.clone(),
                    kind: m.kind.clone(),
                    migrate,
                    catalogs,
                });
            }
        }
    }
    Ok(jobs)
}

fn jobs_by_name(templates: &Path, notes: &mut Vec<String>) -> Result<Vec<Job>, RenderAllError> {
    jobs_by_name_within(templates, notes, super::files::MAX_ENTRIES)
}

/// [`jobs_by_name`], `catalog-templates/` listed within `max` entries. A link counts as before,
/// as what it leads to; reading one that leads out of the directory is refused.
fn jobs_by_name_within(
    templates: &Path,
    notes: &mut Vec<String>,
    max: usize,
) -> Result<Vec<Job>, RenderAllError> {
    let read_err = |source| RenderAllError::Read {
        file: templates.display().to_string(),
        source,
    };
    let within = Within::new(templates).map_err(read_err)?;
    let entries = dir::list(templates, &within, max).map_err(|e| match e {
        DirError::Io { source, .. } => read_err(source),
        e => RenderAllError::Listing(e),
    })?;
    let mut names: Vec<String> = entries
        .into_iter()
        .filter(|e| e.path.is_file())
        .map(|e| e.name.to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut jobs = Vec::new();
    for name in names {
        let catalog = name.strip_suffix(".yaml").unwrap_or("");
        let versioned = catalog
            .strip_prefix('v')
            .and_then(|v| v.split_once('.'))
            .is_some_and(|(x, y)| {
                [x, y]
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            });
        let template = templates.join(&name);
        if !versioned {
            notes.push(format!(
                "{}: not named for a catalog (vX.Y.yaml) and no ci.yaml mapping names it; not rendered",
                template.display()
            ));
            continue;
        }
        let text = super::read_text(&template).map_err(|source| RenderAllError::Read {
            file: template.display().to_string(),
            source,
        })?;
        let Some(kind) = super::template_schema(&text) else {
            notes.push(format!(
                "{}: not a basic or semver template; not rendered",
                template.display()
            ));
            continue;
        };
        jobs.push(Job {
            template_name: name.clone(),
            template,
            kind: kind.to_string(),
            migrate: migrates(catalog),
            catalogs: vec![catalog.to_string()],
        });
    }
    Ok(jobs)
}

/// Renders every job, taking bundles from the sources `sources_for` opens for each template.
/// Every template that fails is reported; on any failure nothing is returned.
pub fn render(
    plan: &Plan,
    sources_for: &dyn Fn(&Path) -> Result<Sources, SourcesError>,
) -> Result<(Vec<Output>, Vec<String>), RenderAllError> {
    render_where(plan, sources_for, &|_| true, None)
}

/// A template's rendering kept for the next job that renders the same template as the same opm
/// release (the template's other group of catalogs), which would render it again the same.
#[derive(Debug, Default)]
pub struct Kept {
    rendering: Mutex<Option<(PathBuf, OpmVersion, super::Rendered)>>,
    keep: AtomicBool,
}

impl Kept {
    /// Whether the rendering of the next job is to be kept (the job after it renders the same
    /// template).
    pub fn keep_next(&self, keep: bool) {
        self.keep.store(keep, Ordering::Relaxed);
    }

    fn take(&self, template: &Path, opm: OpmVersion) -> Option<super::Rendered> {
        let mut held = self
            .rendering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match held.take() {
            Some((t, v, r)) if t == template && v == opm => Some(r),
            _ => None,
        }
    }

    fn put(&self, template: &Path, opm: OpmVersion, rendered: &super::Rendered) {
        if self.keep.load(Ordering::Relaxed) {
            *self
                .rendering
                .lock()
                .unwrap_or_else(PoisonError::into_inner) =
                Some((template.to_path_buf(), opm, rendered.clone()));
        }
    }
}

/// [`render`], writing out only the catalogs of the jobs `wanted` picks: the others are rendered and
/// checked as they would be written (so a template that cannot be rendered fails as in [`render`]),
/// but give no output.
///
/// With `kept`, a job takes the rendering the job before it kept of the same template, and keeps
/// its own when told to ([`Kept::keep_next`]).
pub fn render_where(
    plan: &Plan,
    sources_for: &dyn Fn(&Path) -> Result<Sources, SourcesError>,
    wanted: &dyn Fn(&Job) -> bool,
    kept: Option<&Kept>,
) -> Result<(Vec<Output>, Vec<String>), RenderAllError> {
    let mut outputs = Vec::new();
    let mut notes = Vec::new();
    let mut failures = Vec::new();
    for job in &plan.jobs {
        let write = wanted(job);
        match render_job(job, sources_for, plan.opm.version, write, kept) {
            Ok((text, mut n)) => {
                notes.append(&mut n);
                if !write {
                    continue;
                }
                for c in &job.catalogs {
                    outputs.push(Output {
                        rel: format!("catalogs/{c}/{}/catalog.yaml", plan.operator),
                        text: text.clone(),
                        template_name: job.template_name.clone(),
                    });
                }
            }
            Err(e) => failures.push(e),
        }
    }
    if failures.is_empty() {
        notes.dedup();
        Ok((outputs, notes))
    } else {
        failures.dedup();
        Err(RenderAllError::Templates(failures))
    }
}

fn render_job(
    job: &Job,
    sources_for: &dyn Fn(&Path) -> Result<Sources, SourcesError>,
    opm: OpmVersion,
    write: bool,
    kept: Option<&Kept>,
) -> Result<(String, Vec<String>), TemplateError> {
    let file = job.template.display().to_string();
    let template =
        super::read(&job.template).map_err(|e| TemplateError::new(&file, 0, e.to_string()))??;
    if template.schema() != job.kind {
        return Err(TemplateError::new(
            &file,
            1,
            format!(
                "ci.yaml maps this template as {}, but its schema is {}",
                job.kind,
                template.schema()
            ),
        ));
    }
    let sources =
        sources_for(&job.template).map_err(|e| TemplateError::new(&file, 0, e.to_string()))?;
    let mut rendered = match kept.and_then(|k| k.take(&job.template, opm)) {
        Some(r) => r,
        None => template.render(&sources, opm)?,
    };
    if let Some(k) = kept {
        k.put(&job.template, opm, &rendered);
    }
    let images = rendered.images.clone();
    let memo = sources.migrations();
    let made = if write {
        catalog_text_with(&file, &mut rendered, job.migrate, memo)
    } else {
        prepare(&file, &mut rendered, job.migrate, memo).map(|()| String::new())
    };
    let text = made.map_err(|mut e| {
        let group = if job.migrate {
            "rendered with the migration"
        } else {
            "rendered without migration"
        };
        let into = job
            .catalogs
            .iter()
            .map(|c| format!("catalogs/{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        for p in &mut e.problems {
            p.message = format!("rendering {into} ({group}): {}", p.message);
            // Why a source that might have given the bundle in the right form did not.
            let why = images
                .iter()
                .filter(|(_, line)| *line == p.line)
                .find_map(|(image, _)| super::BundleSource::unresolved(&sources, image));
            if let Some(why) = why {
                p.message = format!("{}; {why}", p.message);
            }
        }
        e
    })?;
    Ok((text, rendered.notes))
}

/// The catalog file's bytes for a rendering, migrated first when `migrate`, as the tooling writes
/// them. Refused when a bundle rendered from an image is not in the form opm writes it for such a
/// catalog (see [`check_forms`]).
pub fn catalog_text(
    file: &str,
    rendered: &mut super::Rendered,
    migrate: bool,
) -> Result<String, TemplateError> {
    catalog_text_with(file, rendered, migrate, None)
}

/// [`catalog_text`], the bundles' manifests decoded for the migration once for all the renderings
/// sharing `memo`.
pub fn catalog_text_with(
    file: &str,
    rendered: &mut super::Rendered,
    migrate: bool,
    memo: Option<&MigrationMemo>,
) -> Result<String, TemplateError> {
    prepare(file, rendered, migrate, memo)?;
    let text = rendered.to_text(OutFormat::Yaml);
    Ok(format!("{}\n", text.trim_end_matches('\n')))
}

/// The rendering migrated when `migrate`, and checked to be in the form opm writes.
fn prepare(
    file: &str,
    rendered: &mut super::Rendered,
    migrate: bool,
    memo: Option<&MigrationMemo>,
) -> Result<(), TemplateError> {
    if migrate {
        let as_written = rendered.as_written.clone();
        for (_, blob) in rendered.blobs.iter_mut().enumerate().filter(|(i, b)| {
            b["schema"] == crate::catalog::schema::BUNDLE && !as_written.contains(i)
        }) {
            let name = blob["name"].as_str().unwrap_or_default().to_string();
            crate::bundle::migrate_bundle_objects_with(blob, memo)
                .map_err(|e| TemplateError::new(file, 0, format!("bundle {name}: {e}")))?;
        }
    }
    check_forms(file, rendered, migrate)
}

#[path = "render_all_output.rs"]
mod output;
pub use output::{check_forms, compare, diff_summary, planned_output, read_output, write};

#[cfg(test)]
#[path = "render_all_tests.rs"]
mod tests;
