//! Opening a new OCP catalog version in a repository laid out as `operators/<op>/` beside
//! `catalogs/`, as operator-pipelines' `scripts/promote-catalog.py` does it when a version opens,
//! planned first and written all or nothing.
//!
//! For every operator with a directory in the source catalog (`catalogs/<from>/<op>/`), its
//! `ci.yaml`'s `fbc.version_promotion_strategy` decides:
//!
//! - `never`: left alone (an unknown strategy is taken as `never`, as the script takes it);
//! - `always` and `review-needed` (the default): the same files change; the pipeline opens one pull
//!   request for all `always` operators and one per `review-needed` operator. Each file of
//!   `catalogs/<from>/<op>/` is copied byte for byte to `catalogs/<to>/<op>/` where that file does not
//!   exist yet, and `<to>` is appended to the `catalog_names` of the mapping that holds `<from>`
//!   (nothing when a mapping names `<to>` already; a note when none names `<from>`).
//!
//! Where the script's copy would give a catalog opm would not write, the mapped template is rendered
//! instead: a catalog before OCP 4.17 copied into 4.17 or later keeps its `olm.bundle.object`
//! properties, which the pipeline rejects there, so the template the new catalog maps to is rendered
//! with the migration (`--migrate-level bundle-object-to-csv-metadata`), as `make catalogs` would.
//!
//! `ci.yaml` is edited in place: the new name goes after the last one, in its style (a flow list
//! keeps its brackets and quotes, a block list gets one more line), and every other byte stays.
//! OCP versions are not a line (4.22, 4.23 and 5.0 coexist), so the source defaults to the highest
//! catalog version below the target that the repository holds.

use crate::catalog::commit::{self, CommitOptions, Expect, PlannedFile};
use crate::catalog::node::Node;
use crate::catalog::write::{Pending, unified_diff};
use crate::guard::file;
use crate::guard::path::{Root, plain_name};
use crate::template::Sources;
use crate::template::render_all::{self, MIGRATE_LEVEL};

mod ci;
mod listing;
use ci::{Mapping, append_catalog, read_ci};
use listing::{catalog_files, catalog_versions, subdirectories};
mod version;
pub use version::{OcpVersion, Strategy};

/// What happens to one file of the new catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogStep {
    /// Copied byte for byte from the source catalog.
    Copied { from: String, to: String },
    /// Rendered from the mapped template, with the migration when `migrate`.
    Rendered {
        template: String,
        to: String,
        migrate: bool,
    },
    /// Already there: left as it is.
    Present { to: String },
}

/// What happens to the operator's `ci.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MappingStep {
    /// The target is appended to the mapping of this template.
    Appended { template: String },
    /// A mapping names the target already.
    AlreadyMapped { template: String },
    /// No mapping names the source: nothing changes (the script warns and goes on).
    SourceNotMapped,
}

/// One operator of the source catalog and what the promotion does to it.
#[derive(Debug, Clone)]
pub struct OperatorPlan {
    pub name: String,
    /// `None` when its `ci.yaml` could not be read.
    pub strategy: Option<Strategy>,
    pub catalog: Vec<CatalogStep>,
    pub mapping: Option<MappingStep>,
    /// Why the operator is not promoted although its strategy says so; nothing is written for it.
    pub refused: Option<String>,
}

/// The promotion planned: nothing is written until [`write`].
#[derive(Debug, Clone)]
pub struct Plan {
    pub from: OcpVersion,
    /// Whether the source was chosen here (the highest catalog version below the target).
    pub from_chosen: bool,
    pub to: OcpVersion,
    pub operators: Vec<OperatorPlan>,
    /// Every file to write, relative to the root.
    pub files: Vec<PlannedFile>,
    /// The `ci.yaml` files changed, their text now and after, for the preview.
    pub edits: Vec<Pending>,
}

impl Plan {
    /// Whether nothing would be written.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The operators that could not be promoted, with why.
    pub fn refusals(&self) -> impl Iterator<Item = (&str, &str)> {
        self.operators
            .iter()
            .filter_map(|o| o.refused.as_deref().map(|r| (o.name.as_str(), r)))
    }
}

/// Why a promotion cannot be planned or written.
#[derive(Debug, thiserror::Error)]
pub enum AddOcpError {
    #[error("{0:?} is not an OCP catalog version (vX.Y)")]
    NotAVersion(String),
    #[error("{root}: no catalogs/ directory: not a catalog repository")]
    NoCatalogs { root: String },
    #[error("catalogs/{0} does not exist: there is nothing to promote from")]
    NoSource(String),
    #[error("the repository holds no catalog version below {0} to promote from (give --from)")]
    NothingBelow(OcpVersion),
    #[error("--from {0} is the target itself")]
    SameVersion(OcpVersion),
    #[error("{name}: has no catalog in catalogs/{from}")]
    UnknownOperator { name: String, from: OcpVersion },
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Commit(#[from] commit::CommitError),
    /// A directory holding more entries than it is listed with.
    #[error("{0}")]
    Listing(#[source] crate::guard::dir::DirError),
}

/// Plans opening catalog `to` in the repository at `root`, promoting from `from` (by default the
/// highest catalog version below `to`), for the operators named in `only` (all when empty).
pub fn plan(
    root: &Root,
    to: &str,
    from: Option<&str>,
    only: &[String],
) -> Result<Plan, AddOcpError> {
    let to_v = OcpVersion::parse(to).ok_or_else(|| AddOcpError::NotAVersion(to.to_string()))?;
    let versions = catalog_versions(root.path())?;
    let (from_v, from_chosen) = match from {
        Some(f) => {
            let v = OcpVersion::parse(f).ok_or_else(|| AddOcpError::NotAVersion(f.to_string()))?;
            if v == to_v {
                return Err(AddOcpError::SameVersion(v));
            }
            if !versions.contains(&v) {
                return Err(AddOcpError::NoSource(v.to_string()));
            }
            (v, false)
        }
        None => {
            let below = versions.iter().copied().filter(|v| *v < to_v).max();
            (below.ok_or(AddOcpError::NothingBelow(to_v))?, true)
        }
    };
    let source = root.path().join("catalogs").join(from_v.to_string());
    let mut names = subdirectories(&source)?;
    if !only.is_empty() {
        if let Some(missing) = only.iter().find(|o| !names.contains(o)) {
            return Err(AddOcpError::UnknownOperator {
                name: missing.clone(),
                from: from_v,
            });
        }
        names.retain(|n| only.contains(n));
    }
    let mut plan = Plan {
        from: from_v,
        from_chosen,
        to: to_v,
        operators: Vec::new(),
        files: Vec::new(),
        edits: Vec::new(),
    };
    for name in names {
        let mut op = OperatorPlan {
            name,
            strategy: None,
            catalog: Vec::new(),
            mapping: None,
            refused: None,
        };
        match plan_operator(root, &mut op, from_v, to_v) {
            Ok((files, edit)) => {
                plan.files.extend(files);
                plan.edits.extend(edit);
            }
            Err(why) => {
                op.catalog.clear();
                op.mapping = None;
                op.refused = Some(why.to_string());
            }
        }
        plan.operators.push(op);
    }
    Ok(plan)
}

type OperatorFiles = (Vec<PlannedFile>, Option<Pending>);

/// One operator: what it does (noted in `op`) and the files it writes, or why it cannot be
/// promoted (then it writes nothing).
fn plan_operator(
    root: &Root,
    op: &mut OperatorPlan,
    from: OcpVersion,
    to: OcpVersion,
) -> Result<OperatorFiles, Refusal> {
    let name = op.name.clone();
    let name = name.as_str();
    let op_dir = root.path().join("operators").join(name);
    let ci_rel = format!("operators/{name}/ci.yaml");
    let ci = read_ci(&op_dir, &ci_rel)?;
    let strategy = Strategy::of(
        ci.as_ref()
            .and_then(|c| c.value.fbc.as_ref())
            .and_then(|f| f.version_promotion_strategy.as_deref()),
    );
    op.strategy = Some(strategy.clone());
    if !strategy.promotes() {
        return Ok((Vec::new(), None));
    }
    let Some(ci) = ci else {
        return Err(Refusal::NoCiYaml { file: ci_rel });
    };
    let mappings = ci
        .value
        .fbc
        .as_ref()
        .map(|f| f.catalog_mapping.as_slice())
        .unwrap_or_default();
    let (from_s, to_s) = (from.to_string(), to.to_string());
    let holds = |m: &&Mapping, c: &str| m.catalog_names.iter().any(|n| n == c);
    let mapped_to = mappings.iter().position(|m| holds(&m, &to_s));
    let mapped_from = mappings.iter().position(|m| holds(&m, &from_s));
    let template_of = |i: usize| mappings[i].template_name.clone().unwrap_or_default();
    let mut files = Vec::new();
    let mut edit = None;
    op.mapping = Some(match (mapped_to, mapped_from) {
        (Some(i), _) => MappingStep::AlreadyMapped {
            template: template_of(i),
        },
        (None, Some(i)) => {
            let new = append_catalog(&ci, i, &to_s).map_err(|why| Refusal::Append {
                file: ci_rel.clone(),
                why,
            })?;
            files.push(PlannedFile {
                rel: ci_rel.clone(),
                bytes: new.clone().into_bytes(),
                expect: Expect::Unchanged {
                    len: ci.text.len() as u64,
                    hash: xxhash_rust::xxh3::xxh3_64(ci.text.as_bytes()),
                },
            });
            edit = Some(Pending {
                path: ci_rel.clone(),
                created: false,
                old: ci.text.clone(),
                new,
            });
            MappingStep::Appended {
                template: template_of(i),
            }
        }
        (None, None) => MappingStep::SourceNotMapped,
    });
    // The template the new catalog maps to once the mapping is extended.
    let template = mapped_to.or(mapped_from).map(|i| &mappings[i]);
    let source = format!("catalogs/{from}/{name}");
    let target = format!("catalogs/{to}/{name}");
    // The copies, read first: whether they can be copied depends on what they hold.
    let mut copies = Vec::new();
    for file_name in catalog_files(root, &source)? {
        let from_rel = format!("{source}/{file_name}");
        let to_rel = format!("{target}/{file_name}");
        if exists(root, &to_rel) {
            op.catalog.push(CatalogStep::Present { to: to_rel });
            continue;
        }
        let bytes = file::read_limited_within(
            root.path(),
            &root.path().join(&from_rel),
            crate::catalog::load::MAX_FILE,
        )
        .map_err(|why| Refusal::Unreadable {
            file: from_rel.clone(),
            why,
        })?;
        copies.push((from_rel, to_rel, bytes));
    }
    // A pre-4.17 catalog holds olm.bundle.object, and so does a 4.17+ one never re-rendered
    // since: opm would not write that from 4.17 on, and the pipeline rejects it.
    let copy_keeps_objects = to.migrates()
        && (!from.migrates()
            || copies
                .iter()
                .any(|(rel, _, bytes)| holds_bundle_objects(bytes, rel)));
    if !copy_keeps_objects {
        for (from_rel, to_rel, bytes) in copies {
            op.catalog.push(CatalogStep::Copied {
                from: from_rel,
                to: to_rel.clone(),
            });
            files.push(PlannedFile {
                rel: to_rel,
                bytes,
                expect: Expect::Absent,
            });
        }
        return Ok((files, edit));
    }
    let rel = format!("{target}/catalog.yaml");
    if exists(root, &rel) {
        if !op
            .catalog
            .iter()
            .any(|c| matches!(c, CatalogStep::Present { to } if *to == rel))
        {
            op.catalog.push(CatalogStep::Present { to: rel });
        }
        return Ok((files, edit));
    }
    let Some(m) = template else {
        return Err(Refusal::WouldKeepObjects {
            from: source,
            ci: ci_rel,
            target,
        });
    };
    let template = m.template_name.clone().unwrap_or_default();
    let text = render_template(root, name, m)?;
    op.catalog.push(CatalogStep::Rendered {
        template: format!("operators/{name}/catalog-templates/{template}"),
        to: rel.clone(),
        migrate: true,
    });
    files.push(PlannedFile {
        rel,
        bytes: text.into_bytes(),
        expect: Expect::Absent,
    });
    Ok((files, edit))
}

/// Whether a catalog file holds a bundle with an `olm.bundle.object` property.
fn holds_bundle_objects(bytes: &[u8], rel: &str) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    if !text.contains(crate::catalog::model::property_type::BUNDLE_OBJECT) {
        return false;
    }
    let mut problems = Vec::new();
    crate::catalog::decode::decode(text, 0, rel, &mut problems)
        .iter()
        .filter(|d| {
            d.node.get_field("schema").and_then(Node::as_str)
                == Some(crate::catalog::schema::BUNDLE)
        })
        .flat_map(|d| {
            d.node
                .get_field("properties")
                .and_then(Node::as_seq)
                .unwrap_or_default()
        })
        .any(|p| {
            p.get_field("type").and_then(Node::as_str)
                == Some(crate::catalog::model::property_type::BUNDLE_OBJECT)
        })
}

/// Whether anything (a link included) is at `rel` under the root.
fn exists(root: &Root, rel: &str) -> bool {
    root.path().join(rel).symlink_metadata().is_ok()
}

/// The catalog file of the new catalog, rendered from mapping `m`'s template with the migration,
/// bundles taken from the operator's committed catalogs.
fn render_template(root: &Root, operator: &str, m: &Mapping) -> Result<String, Refusal> {
    let template_name = m.template_name.as_deref().unwrap_or_default();
    plain_name(template_name).map_err(|why| Refusal::TemplateName {
        name: template_name.to_string(),
        why,
    })?;
    let path = root
        .path()
        .join("operators")
        .join(operator)
        .join("catalog-templates")
        .join(template_name);
    let shown = format!("operators/{operator}/catalog-templates/{template_name}");
    let text = file::read_text_limited_within(
        &root.path().join("operators").join(operator),
        &path,
        crate::catalog::load::MAX_FILE,
    )
    .map_err(|why| Refusal::Unreadable {
        file: shown.clone(),
        why,
    })?;
    let template = crate::template::parse(&shown, &text)?;
    if let Some(kind) = &m.kind
        && kind != template.schema()
    {
        return Err(Refusal::MappedAs {
            file: shown,
            kind: kind.clone(),
            schema: template.schema().to_string(),
        });
    }
    let (sources, _) =
        Sources::for_template(&path, &[], Vec::new(), None).map_err(|why| Refusal::Sources {
            file: shown.clone(),
            why,
        })?;
    // As `make catalogs` renders it: with the opm release the operator's Makefile pins.
    let opm = crate::template::OpmChoice::resolve(None, &path).map_err(|why| Refusal::Opm {
        file: shown.clone(),
        why,
    })?;
    let mut rendered = template
        .render(&sources, opm.version)
        .map_err(|why| Refusal::Render {
            file: shown.clone(),
            why,
        })?;
    render_all::catalog_text(&shown, &mut rendered, true)
        .map_err(|why| Refusal::Migrate { file: shown, why })
}

/// Why an operator cannot be promoted (it writes nothing then). `file` is the path from the
/// repository's root.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("{file}: {why}")]
    Unreadable {
        file: String,
        #[source]
        why: file::ReadError,
    },
    #[error("{file}: {why}")]
    Io {
        file: String,
        #[source]
        why: std::io::Error,
    },
    /// A file over its budget (`message`: the budget's wording).
    #[error("{file}: {message}")]
    OverBudget { file: String, message: String },
    /// `ci.yaml` does not hold what the pipeline reads from it.
    #[error(transparent)]
    CiYaml(#[from] crate::catalog::yaml::typed::TypedError),
    #[error("{file} does not exist: no mapping to extend (the pipeline's script stops here)")]
    NoCiYaml { file: String },
    #[error("{file}: {why}")]
    Append {
        file: String,
        #[source]
        why: ci::AppendError,
    },
    #[error("{file} is a symbolic link; not followed, so the catalog cannot be copied")]
    Link { file: String },
    #[error("{file}: more than {max} entries; not read further")]
    TooMany { file: String, max: usize },
    #[error(
        "a copy of {from} would keep its olm.bundle.object properties, which the pipeline rejects from OCP 4.17 on, and no mapping in {ci} names a template to render {target} from"
    )]
    WouldKeepObjects {
        from: String,
        ci: String,
        target: String,
    },
    #[error("template_name {name:?} {why}")]
    TemplateName {
        name: String,
        #[source]
        why: crate::guard::path::PathRefusal,
    },
    /// The template cannot be read as a template.
    #[error(transparent)]
    Template(#[from] crate::template::TemplateError),
    #[error("{file}: ci.yaml maps it as {kind}, but its schema is {schema}")]
    MappedAs {
        file: String,
        kind: String,
        schema: String,
    },
    #[error("{file}: {why}")]
    Sources {
        file: String,
        #[source]
        why: crate::template::SourcesError,
    },
    #[error("{file}: {why}")]
    Opm {
        file: String,
        #[source]
        why: crate::template::OpmVersionError,
    },
    #[error("{file}: cannot render it ({why})")]
    Render {
        file: String,
        #[source]
        why: crate::template::TemplateError,
    },
    #[error("{file}: cannot migrate its rendering to {MIGRATE_LEVEL} ({why})")]
    Migrate {
        file: String,
        #[source]
        why: crate::template::TemplateError,
    },
}

/// What the plan does, one line per step, for the user to read before anything is written.
pub fn describe(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    let chosen = if plan.from_chosen {
        " (the highest catalog version below it in catalogs/)"
    } else {
        ""
    };
    out.push(format!("opening {} from {}{chosen}", plan.to, plan.from));
    for op in &plan.operators {
        let Some(strategy) = &op.strategy else {
            out.push(format!("{}: ci.yaml not read", op.name));
            out.push(format!(
                "  not promoted: {}",
                op.refused.as_deref().unwrap_or("")
            ));
            continue;
        };
        let group = match strategy {
            Strategy::Always => " — with every `always` operator in one pull request",
            Strategy::ReviewNeeded => " — in a pull request of its own",
            _ => "",
        };
        out.push(format!("{}: {strategy}{group}", op.name));
        if let Some(why) = &op.refused {
            out.push(format!("  not promoted: {why}"));
            continue;
        }
        if !strategy.promotes() {
            out.push("  left alone".into());
            continue;
        }
        match &op.mapping {
            Some(MappingStep::Appended { template }) => out.push(format!(
                "  ci.yaml: {} appended to the mapping of {template} (which holds {})",
                plan.to, plan.from
            )),
            Some(MappingStep::AlreadyMapped { template }) => out.push(format!(
                "  ci.yaml: {} is mapped already (to {template}); unchanged",
                plan.to
            )),
            Some(MappingStep::SourceNotMapped) => out.push(format!(
                "  ci.yaml: no mapping names {}; unchanged (the catalog copied is then mapped by no template)",
                plan.from
            )),
            None => {}
        }
        for step in &op.catalog {
            out.push(match step {
                CatalogStep::Copied { from, to } => format!("  {to}: copied from {from}"),
                CatalogStep::Rendered { template, to, migrate } => format!(
                    "  {to}: rendered from {template}{} instead of copied: a copy of the {} catalog would keep olm.bundle.object, which opm does not write and the pipeline rejects from OCP 4.17 on",
                    if *migrate { format!(" with --migrate-level {MIGRATE_LEVEL}") } else { String::new() },
                    plan.from
                ),
                CatalogStep::Present { to } => format!("  {to}: already there; left as it is"),
            });
        }
    }
    out
}

/// The preview: a unified diff of every `ci.yaml` changed (the catalogs are listed by
/// [`describe`]; they are whole new files).
pub fn preview(plan: &Plan) -> String {
    unified_diff(&plan.edits)
}

/// Writes the plan under `root` in one commit, all or nothing; returns the files written.
pub fn write(root: &Root, plan: &Plan) -> Result<Vec<String>, AddOcpError> {
    if !plan.files.is_empty() {
        commit::commit(root.path(), &plan.files, &CommitOptions::default())?;
    }
    Ok(plan.files.iter().map(|f| f.rel.clone()).collect())
}

#[cfg(test)]
mod tests;
