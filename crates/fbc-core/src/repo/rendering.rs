//! An operator's mapped catalogs re-rendered with the code `template render-all --check` runs
//! ([`render_all`]) and compared byte for byte with the committed files; its bundle sources (the
//! repository's bundle directories, its committed catalogs) loaded once for all its templates, and
//! a catalog that differs under the Makefile's pinned opm told apart when it is the release
//! pipeline's own rendering.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::check::{Mapping, is_ocp_catalog};
use super::committed::Committed;
use crate::catalog::codes::repo as c;
use crate::catalog::{Diagnostic, Location};
use crate::template::render_all::{self, Job, Mismatch, Plan};
use crate::template::repository::{RenderCache, RepositoryBundles};
use crate::template::source::SourcesError;
use crate::template::{CatalogSource, Sources};

/// Renders every mapped catalog with the code `template render-all --check` runs and compares it
/// with the committed file. Templates and catalogs already reported (missing, misnamed, of the
/// wrong type) are left out.
pub(super) fn render_and_compare(
    dir: &Path,
    name: &str,
    mappings: &[Mapping],
    committed: &Committed,
    out: &mut Vec<Diagnostic>,
) {
    let ci = format!("operators/{name}/ci.yaml");
    let plan = match render_all::plan(dir) {
        Ok(p) => p,
        Err(e) => {
            out.push(Diagnostic::error(
                c::RENDER,
                Location::new(&ci, 0, 0),
                format!("the catalogs cannot be rendered: {e}"),
            ));
            return;
        }
    };
    // A template already reported (missing, misnamed, of the wrong type, unreadable) is not
    // rendered.
    let reported: BTreeSet<(String, u32)> = out
        .iter()
        .filter(|d| {
            [
                c::TEMPLATE_MISSING,
                c::TEMPLATE_TYPE,
                c::NAME,
                c::RENDER,
                c::READ,
            ]
            .contains(&d.code)
        })
        .map(|d| (d.location.file.clone(), d.location.line))
        .collect();
    let templates_dir = format!("operators/{name}/catalog-templates/");
    let skip_template = |t: &str| {
        let file = format!("{templates_dir}{t}");
        reported.iter().any(|(f, _)| *f == file)
            || mappings.iter().any(|m| {
                m.template.as_ref().is_some_and(|(n, line)| {
                    n == t
                        && (reported.contains(&(ci.clone(), *line))
                            || m.kind
                                .as_ref()
                                .is_some_and(|(_, l)| reported.contains(&(ci.clone(), *l))))
                })
            })
    };
    let good_catalog = |c: &str| is_ocp_catalog(c);
    let memo = CatalogMemo {
        committed,
        loaded: Mutex::default(),
        repository: Mutex::default(),
        cache: RenderCache::default(),
    };
    let sources_for = |template: &Path| memo.sources_for(template);
    // Messages name files under the repository from its root, as the report does.
    let root_prefix = format!("{}/", plan.root.display());
    let local = |m: &str| m.replace(&root_prefix, "");
    let jobs: Vec<Job> = plan
        .jobs
        .iter()
        .filter(|job| !skip_template(&job.template_name))
        .map(|job| {
            let mut job = job.clone();
            job.catalogs.retain(|c| good_catalog(c));
            job
        })
        .filter(|job| !job.catalogs.is_empty())
        .collect();
    memo.warm(&jobs);
    // A catalog that is not there is reported from the mapping: its text is not needed, only
    // whether its template renders.
    let on_disk = |c: &str| {
        let file = plan
            .root
            .join(format!("catalogs/{c}/{}/catalog.yaml", plan.operator));
        !matches!(
            crate::guard::file::open_regular_within(&plan.root, &file),
            Err(e) if e.is_not_found()
        )
    };
    let wanted = |job: &Job| job.catalogs.iter().any(|c| on_disk(c));
    // A template's two groups of catalogs are two jobs, one after the other: the second takes the
    // first's rendering.
    let kept = render_all::Kept::default();
    let next_templates: Vec<Option<PathBuf>> = jobs
        .iter()
        .skip(1)
        .map(|j| Some(j.template.clone()))
        .chain([None])
        .collect();
    for (job, next) in jobs.into_iter().zip(next_templates) {
        kept.keep_next(next.as_ref() == Some(&job.template));
        let template_rel = format!("operators/{name}/catalog-templates/{}", job.template_name);
        let one = Plan {
            jobs: vec![job],
            notes: Vec::new(),
            ..plan.clone()
        };
        let outputs = match render_all::render_where(&one, &sources_for, &wanted, Some(&kept)) {
            Ok((outputs, _)) => outputs,
            // One problem per template: its first, with how many more there are.
            Err(render_all::RenderAllError::Templates(failures)) => {
                let problems: Vec<_> = failures.iter().flat_map(|f| &f.problems).collect();
                if let Some(first) = problems.first() {
                    let more = match problems.len() - 1 {
                        0 => String::new(),
                        n => format!(" (and {n} more problems)"),
                    };
                    out.push(Diagnostic::error(
                        c::RENDER,
                        Location::new(&template_rel, first.line, 0),
                        format!(
                            "the template cannot be rendered: {}{more}",
                            local(&first.message)
                        ),
                    ));
                }
                continue;
            }
            Err(e) => {
                out.push(Diagnostic::error(
                    c::RENDER,
                    Location::new(&template_rel, 0, 0),
                    format!("the template cannot be rendered: {}", local(&e.to_string())),
                ));
                continue;
            }
        };
        // Catalogs that differ under the Makefile's pin may be what the release pipeline's opm
        // wrote: rendered once more as that release, only when something differs.
        let mut as_pipeline: Option<Vec<render_all::Output>> = None;
        for m in render_all::compare(&plan.root, &outputs) {
            match m {
                // Reported from the mapping, at its line in ci.yaml.
                Mismatch::Missing { .. } => {}
                Mismatch::Differs { rel, summary }
                    if plan.opm.version != PIPELINE_OPM
                        && pipeline_wrote(
                            &plan.root,
                            &one,
                            &sources_for,
                            &mut as_pipeline,
                            &rel,
                        ) =>
                {
                    out.push(
                        Diagnostic::warning(
                            c::OPM_PIN_DRIFT,
                            Location::new(&rel, first_line(&summary), 0),
                            format!(
                                "is opm {PIPELINE_OPM}'s rendering (the release pipeline's), but the Makefile pins opm {}: `make catalogs` would rewrite it ({summary})",
                                plan.opm.version
                            ),
                        )
                        .with_hint(format!(
                            "set OPM_VERSION ?= {PIPELINE_OPM} in operators/{name}/Makefile, or re-render with the pinned release"
                        )),
                    );
                }
                Mismatch::Differs { rel, summary } => {
                    let line = first_line(&summary);
                    out.push(
                        Diagnostic::error(
                            c::CATALOG_DRIFT,
                            Location::new(&rel, line, 0),
                            format!(
                                "differs from the rendering of catalog-templates/{}: {summary}",
                                outputs
                                    .iter()
                                    .find(|o| o.rel == rel)
                                    .map_or("", |o| o.template_name.as_str())
                            ),
                        )
                        .with_hint(format!(
                            "re-render with `make catalogs` in operators/{name} (or `fbc-edit template render-all operators/{name}`)"
                        )),
                    );
                }
                Mismatch::Unreadable { rel, why } => {
                    out.push(Diagnostic::error(
                        c::READ,
                        Location::new(&rel, 0, 0),
                        local(&why),
                    ));
                }
            }
        }
    }
}

/// The sources `template render-all` takes bundles from (`Sources::for_template_sharing` with no
/// source given: in a community repository its own bundle directories first, each rendered once
/// per image, then the catalogs `repository_catalogs` lists, in its order), each loaded once for
/// all the operator's templates instead of once per template, the directories' renders and the
/// migration's decoded manifests shared through one `RenderCache`.
struct CatalogMemo<'a> {
    /// The repository's catalogs already loaded, read instead of loading an operator's directory.
    committed: &'a Committed,
    loaded: Mutex<HashMap<PathBuf, Arc<CatalogSource>>>,
    /// The repository's bundle directories, told every image the operator's catalogs release.
    repository: Mutex<Option<Option<Arc<RepositoryBundles>>>>,
    cache: RenderCache,
}

impl CatalogMemo<'_> {
    fn sources_for(&self, template: &Path) -> Result<Sources, SourcesError> {
        let dirs = crate::template::source::repository_catalogs(template)
            .map_err(SourcesError::Listing)?;
        if dirs.is_empty() {
            return Sources::for_template_sharing(
                template,
                &[],
                Vec::new(),
                None,
                Some(&self.cache),
            )
            .map(|(s, _)| s);
        }
        let mut catalogs = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let known = self.loaded.lock().ok().and_then(|m| m.get(&dir).cloned());
            let source = match known {
                Some(s) => s,
                None => {
                    let s = match self.committed.source(&dir) {
                        Some(shared) => Arc::new(shared),
                        None => Arc::new(CatalogSource::load(&dir).map_err(|why| {
                            SourcesError::CommittedCatalog {
                                dir: dir.clone(),
                                why,
                            }
                        })?),
                    };
                    if let Ok(mut m) = self.loaded.lock() {
                        m.insert(dir, Arc::clone(&s));
                    }
                    s
                }
            };
            catalogs.push(source);
        }
        let mut sources = Sources::new().with_migrations(self.cache.migrations().clone());
        if let Some(repo) = self.repository(template, &catalogs)? {
            sources.push(repo);
        }
        for c in catalogs {
            sources.push(c);
        }
        Ok(sources)
    }

    /// Renders, in parallel, the repository's bundle directories standing for the images the
    /// templates of `jobs` name (and proves their digest references), so that rendering the jobs
    /// one by one finds them done. The sources are opened for the first template as its job would
    /// open them; a template that cannot be read, or whose sources cannot be opened, is left to
    /// its job to report.
    fn warm(&self, jobs: &[Job]) {
        let mut first = None;
        let mut images = Vec::new();
        for job in jobs {
            let Ok(Ok(template)) = crate::template::read(&job.template) else {
                continue;
            };
            if template.schema() != job.kind {
                continue;
            }
            first.get_or_insert(job.template.as_path());
            images.extend(template.images().into_iter().map(|(image, _)| image));
        }
        let Some(first) = first else {
            return;
        };
        if self.sources_for(first).is_err() {
            return;
        }
        let images: Vec<&str> = images.iter().map(String::as_str).collect();
        let shared = self
            .repository
            .lock()
            .ok()
            .and_then(|held| held.clone())
            .flatten();
        match shared {
            Some(repo) => repo.warm(&images),
            // Sources opened per template: their directories' renders are shared in the cache.
            None => {
                if let Ok(Some(repo)) = RepositoryBundles::for_template(first) {
                    repo.with_cache(self.cache.clone()).warm(&images);
                }
            }
        }
    }

    /// The repository's bundle directories, opened for the first template asked about (every
    /// template of one operator shares them, and the renders of their directories).
    fn repository(
        &self,
        template: &Path,
        catalogs: &[Arc<CatalogSource>],
    ) -> Result<Option<Arc<RepositoryBundles>>, SourcesError> {
        let mut held = self.repository.lock().map_err(|_| SourcesError::Poisoned)?;
        if let Some(known) = held.as_ref() {
            return Ok(known.clone());
        }
        let opened = RepositoryBundles::for_template(template)
            .map_err(|e| SourcesError::RepositoryBundles(Box::new(e)))?
            .map(|repo| {
                let mut repo = repo.with_cache(self.cache.clone());
                for (image, version) in catalogs.iter().flat_map(|c| c.versions()) {
                    repo.released(image, version);
                }
                repo.committed_catalogs(catalogs.to_vec());
                Arc::new(repo)
            });
        *held = Some(opened.clone());
        Ok(opened)
    }
}

/// The opm release the repositories' release pipeline renders with.
const PIPELINE_OPM: crate::template::OpmVersion = crate::template::OpmVersion::V1_71_0;

/// Whether the committed catalog `rel` is exactly what the plan's job renders as the pipeline's
/// opm; the rendering is made once, on the first catalog asked about.
fn pipeline_wrote(
    root: &Path,
    one: &Plan,
    sources_for: &dyn Fn(&Path) -> Result<Sources, SourcesError>,
    rendered: &mut Option<Vec<render_all::Output>>,
    rel: &str,
) -> bool {
    if rendered.is_none() {
        let mut plan = one.clone();
        plan.opm = crate::template::OpmChoice {
            version: PIPELINE_OPM,
            reason: crate::template::opm::Reason::Flag,
        };
        *rendered = Some(
            render_all::render(&plan, sources_for)
                .map(|(outputs, _)| outputs)
                .unwrap_or_default(),
        );
    }
    let Some(output) = rendered.iter().flatten().find(|o| o.rel == rel) else {
        return false;
    };
    render_all::compare(root, std::slice::from_ref(output)).is_empty()
}

/// The line `render_all::diff_summary` names (`… first at line N: …`), 0 when none.
pub(super) fn first_line(summary: &str) -> u32 {
    summary
        .split_once("first at line ")
        .and_then(|(_, rest)| rest.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}
