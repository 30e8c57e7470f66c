//! Which catalogs a template renders into, in a repository laid out as `operators/<op>/` beside
//! `catalogs/` (`ci.yaml`'s `fbc.catalog_mapping`, or `vX.Y.yaml` → `vX.Y`), and those catalogs
//! re-rendered from the template as it now stands; plus the directory a save of templates writes
//! in, fixed from the paths the command line names before anything is read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::guard::path::{Root, absolute};
use crate::template::edit::release::OperatorDir;
use crate::template::render_all::{self, RenderAllError};
use crate::template::source::BundleSource;
use crate::template::{OpmChoice, OpmVersion, OpmVersionError, Template, TemplateError};
use crate::workspace::template::TemplateWorkspace;

/// The catalog files a template maps to in a repository layout (none elsewhere), re-rendered from
/// it as it now stands: each file's absolute path and bytes. Refuses when the mapping cannot be
/// read or the template does not render.
pub fn rerendered(ws: &TemplateWorkspace) -> Result<Vec<(PathBuf, String)>, RerenderError> {
    let name = ws.doc().name();
    mapped_files(ws.doc().path())?
        .into_iter()
        .map(|(file, migrate)| match ws.catalog_text(migrate) {
            Ok(text) => Ok((file, text)),
            Err(why) => Err(RerenderError::Catalog {
                template: name.clone(),
                catalog: file,
                why,
            }),
        })
        .collect()
}

/// Why the catalogs a template maps to cannot be re-rendered from it.
#[derive(Debug, thiserror::Error)]
pub enum RerenderError {
    /// The repository's mapping (`ci.yaml`) cannot be read.
    #[error("{}: cannot tell which catalogs it renders into: {why}", .template.display())]
    Mapping {
        template: PathBuf,
        #[source]
        why: RenderAllError,
    },
    #[error(transparent)]
    Opm(#[from] OpmVersionError),
    #[error("{template}: cannot re-render the catalogs it maps to: {why}")]
    Render {
        template: String,
        #[source]
        why: TemplateError,
    },
    /// One catalog's text cannot be made from the rendering (its migration, say).
    #[error("{template}: cannot re-render {} from it: {why}", .catalog.display())]
    Catalog {
        template: String,
        catalog: PathBuf,
        #[source]
        why: TemplateError,
    },
}

/// A catalog file re-rendered from a template: its absolute path, its bytes, and the problems
/// opm's rules find in it (when asked for).
#[derive(Debug, Clone)]
pub struct Rerendered {
    pub file: PathBuf,
    pub text: String,
    pub problems: Vec<crate::catalog::Diagnostic>,
}

/// [`rerendered`] for a template that is not open for editing (one about to be written at
/// `path`, which may not exist yet), rendered with bundles from `source` as opm release `opm` when
/// given, else as its operator's Makefile pins; each catalog also checked with opm's rules when
/// `check` (the catalog of this one operator, as the rendering holds it).
pub fn rerendered_checked(
    path: &Path,
    template: &Template,
    source: &dyn BundleSource,
    opm: Option<OpmVersion>,
    check: bool,
) -> Result<Vec<Rerendered>, RerenderError> {
    let name = path.display().to_string();
    let files = mapped_files(path)?;
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let opm = OpmChoice::resolve(opm, path)?;
    let rendered = template
        .render(source, opm.version)
        .map_err(|why| RerenderError::Render {
            template: name.clone(),
            why,
        })?;
    files
        .into_iter()
        .map(|(file, migrate)| {
            let mut r = rendered.clone();
            let text = match render_all::catalog_text(&name, &mut r, migrate) {
                Ok(text) => text,
                Err(why) => {
                    return Err(RerenderError::Catalog {
                        template: name.clone(),
                        catalog: file,
                        why,
                    });
                }
            };
            let problems = if check {
                let catalog = crate::workspace::template::catalog_of(&r);
                crate::validate::validate(&catalog).diagnostics
            } else {
                Vec::new()
            };
            Ok(Rerendered {
                file,
                text,
                problems,
            })
        })
        .collect()
}

/// The catalog files the template at `path` maps to, absolute, each with whether it is migrated.
fn mapped_files(path: &Path) -> Result<Vec<(PathBuf, bool)>, RerenderError> {
    let abs = absolute(path);
    let (mut outputs, error) = mapped_outputs(std::iter::once(abs.as_path()));
    match error {
        Some(why) => Err(RerenderError::Mapping {
            template: path.to_path_buf(),
            why,
        }),
        None => Ok(outputs.pop().unwrap_or_default()),
    }
}

/// The catalog files each template maps to (absolute, with whether it is migrated), and why the
/// mapping of a repository cannot be read. A template outside a repository layout maps to none.
pub(super) fn mapped_outputs<'a>(
    templates: impl Iterator<Item = &'a Path>,
) -> (Vec<Vec<(PathBuf, bool)>>, Option<RenderAllError>) {
    let mut error = None;
    // Templates of one directory share its plan (one read of its ci.yaml).
    let mut plans: HashMap<PathBuf, Option<render_all::Plan>> = HashMap::new();
    let out = templates
        .map(|t| {
            let Some(dir) = t.parent() else {
                return Vec::new();
            };
            let plan = plans
                .entry(dir.to_path_buf())
                .or_insert_with(|| match render_all::mapping(dir) {
                    Ok(plan) => Some(plan),
                    Err(RenderAllError::Layout(_)) => None,
                    Err(e) => {
                        error.get_or_insert(e);
                        None
                    }
                });
            let Some(plan) = plan else {
                return Vec::new();
            };
            plan.jobs
                .iter()
                .filter(|j| absolute(&j.template) == t)
                .flat_map(|j| {
                    j.catalogs.iter().map(|c| {
                        let rel = format!("catalogs/{c}/{}/catalog.yaml", plan.operator);
                        (plan.root.join(rel), j.migrate)
                    })
                })
                .collect()
        })
        .collect();
    (out, error)
}

/// The directory a save of templates writes in, for a path the command line names (a template
/// file, a directory of templates, an operator directory or its `catalog-templates/`): the
/// repository's root for an operator's templates (they render into its `catalogs/`), else the
/// templates' directory. Fixed before anything is read: no name read from a file widens it, and
/// whatever a save would write outside it is refused.
pub fn save_root(given: &Path) -> std::io::Result<PathBuf> {
    let dir = if given.is_dir() {
        given
    } else {
        given
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    };
    let op = OperatorDir::find(dir);
    if op.templates.is_dir()
        && let Some(repository) = op.repository()
    {
        return Ok(repository);
    }
    dir.canonicalize()
}

/// [`save_root`] for every path given: the deepest directory holding each one's.
pub fn save_root_of(given: &[PathBuf]) -> std::io::Result<Root> {
    let roots = given
        .iter()
        .map(|p| save_root(p))
        .collect::<std::io::Result<Vec<_>>>()?;
    Root::holding(&roots)
}

/// `path` below `root`, with forward slashes; a path outside is refused.
pub fn place(root: &Root, path: &Path) -> Result<String, crate::guard::path::OutsideRoot> {
    root.relative_of(path).map(|r| r.as_slash())
}
