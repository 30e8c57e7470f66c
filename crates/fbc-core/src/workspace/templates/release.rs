//! The auto-release step planned: a bundle directory's `release-config.yaml` applied to its
//! operator's templates, as the community pipeline's `add-bundle-to-fbc` step applies it (the
//! template edits themselves are [`crate::template::edit::release`]'s), and the catalogs those
//! templates map to re-rendered with the bundle directory standing for the released image.
//!
//! Nothing here prints or writes: a face shows the plan's diffs, and writes it with
//! [`super::plan_files`] and [`super::write_and_reread`], the one save path of templates.
//!
//! In steps, so a face can say what it learns as it goes: [`ReleaseInput::read`] (the
//! configuration and the mapping), [`render_bundle`] (the released bundle), [`ReleaseInput::plan`]
//! (the templates changed and created), [`ReleasePlan::rerendered`] (the catalogs). [`plan`] runs
//! the first three.

use std::path::{Path, PathBuf};

use crate::bundle::{BundleError, RelatedOrder, RenderOptions, render_dir_noting};
use crate::catalog::node::{Node, Str};
use crate::catalog::schema;
use crate::catalog::yaml::{self, YamlStyle};
use crate::template::edit::release::{
    self as step, CatalogMapping, OperatorDir, Release, ReleaseConfig, ReleaseError,
};
use crate::template::edit::{DocError, TemplateDoc, entries_of, schema_of};
use crate::template::render_all::RenderAllError;
use crate::template::{BundleSource, OpmVersion, Sources, SourcesError, TemplateError, schemas};

use super::{RerenderError, Rerendered, rerendered_checked};

/// How a face makes the bundle sources of a template: from the template's path and the bundle
/// directories standing for images (the released bundle's), with whatever catalogs, directories
/// and image opener it was given.
pub type MakeSources<'a> =
    dyn Fn(&Path, Vec<(String, PathBuf)>) -> Result<Sources, SourcesError> + 'a;

/// Why a release cannot be planned or its catalogs re-rendered: the pipeline's reason where it
/// would stop, else what could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReleasePlanError {
    #[error(transparent)]
    Release(#[from] ReleaseError),
    /// Without a `ci.yaml`, the operator's templates cannot be told apart.
    #[error(transparent)]
    Mapping(#[from] RenderAllError),
    /// `ci.yaml` (the path) does not turn file-based catalogs on.
    #[error(
        "{}: fbc.enabled is not true: the operator does not deliver through file-based catalogs",
        .0.display()
    )]
    NotEnabled(PathBuf),
    #[error("cannot render {}: {why}", .from.display())]
    Bundle {
        from: PathBuf,
        #[source]
        why: BundleError,
    },
    #[error(transparent)]
    Sources(#[from] SourcesError),
    #[error(transparent)]
    Doc(#[from] DocError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error(transparent)]
    Rerender(#[from] RerenderError),
}

/// What a release reads before it renders anything: the operator's directories, the bundle's
/// `release-config.yaml` and the operator's template mapping.
#[derive(Debug, Clone)]
pub struct ReleaseInput {
    pub operator: OperatorDir,
    pub config: ReleaseConfig,
    pub mappings: Vec<CatalogMapping>,
}

/// The released bundle, rendered from its directory.
#[derive(Debug, Clone)]
pub struct ReleasedBundle {
    pub name: String,
    pub package: String,
    /// Files of the directory left out of the rendering, unread (relative to it).
    pub unread: Vec<String>,
}

/// The templates a release changes and creates.
#[derive(Debug)]
pub struct ReleasePlan {
    /// The existing templates, changed in memory (their diffs are their catalogs' `pending`).
    pub docs: Vec<TemplateDoc>,
    /// Templates the release creates: path and text.
    pub new_files: Vec<(PathBuf, String)>,
    /// The release in words: `release NAME (IMAGE)`.
    pub what: String,
    /// The bundle directory and the image it stands for.
    pub from: PathBuf,
    pub image: String,
    /// Files of the bundle directory left out of its rendering.
    pub unread: Vec<String>,
}

impl ReleaseInput {
    /// Reads the `release-config.yaml` of the bundle directory `from` and the mapping of the
    /// operator at `dir` (the operator directory or its `catalog-templates/`); refused when the
    /// operator does not deliver through file-based catalogs.
    pub fn read(dir: &Path, from: &Path) -> Result<ReleaseInput, ReleasePlanError> {
        let operator = OperatorDir::find(dir);
        let config = step::read_release_config(from)?;
        let (enabled, mappings) = mappings(&operator)?;
        if !enabled {
            return Err(ReleasePlanError::NotEnabled(operator.dir.join("ci.yaml")));
        }
        Ok(ReleaseInput {
            operator,
            config,
            mappings,
        })
    }

    /// Applies the configuration to the operator's templates: each existing one changed in
    /// memory, each missing one created in the style the pipeline writes.
    pub fn plan(
        &self,
        bundle: &ReleasedBundle,
        from: &Path,
        image: &str,
        sources: &MakeSources,
    ) -> Result<ReleasePlan, ReleasePlanError> {
        let standing = || vec![(image.to_string(), from.to_path_buf())];
        let mut docs = Vec::new();
        let mut new_files = Vec::new();
        for item in &self.config.catalog_templates {
            let kind = step::template_type(item, &self.mappings)?;
            // A plain file name: read_release_config refuses any other.
            let path = self.operator.templates.join(&item.template_name);
            let r = Release {
                bundle: &bundle.name,
                package: &bundle.package,
                image,
                item,
            };
            if !path.exists() {
                let node = if kind == schemas::SEMVER {
                    step::create_semver(&r)
                } else {
                    step::create_basic(&r)
                };
                new_files.push((path, new_template_text(&node)));
                continue;
            }
            let mut doc = TemplateDoc::open(&path)?;
            let node = if kind == schemas::SEMVER {
                step::amend_semver(doc.node(), &r)?
            } else {
                let images = bundle_names(&doc, &sources(&path, standing())?);
                step::amend_basic(doc.node(), &r, &images)?
            };
            doc.replace(node);
            docs.push(doc);
        }
        Ok(ReleasePlan {
            docs,
            new_files,
            what: format!("release {} ({image})", bundle.name),
            from: from.to_path_buf(),
            image: image.to_string(),
            unread: bundle.unread.clone(),
        })
    }
}

/// Renders the released bundle from its directory `from` as `image`.
pub fn render_bundle(from: &Path, image: &str) -> Result<ReleasedBundle, ReleasePlanError> {
    let options = RenderOptions {
        image: Some(image.to_string()),
        csv_metadata: false,
        related: RelatedOrder::default(),
    };
    let (bundle, unread) =
        render_dir_noting(from, &options).map_err(|why| ReleasePlanError::Bundle {
            from: from.to_path_buf(),
            why,
        })?;
    let text = |key: &str| bundle[key].as_str().unwrap_or_default().to_string();
    Ok(ReleasedBundle {
        name: text("name"),
        package: text("package"),
        unread,
    })
}

/// The release of the bundle directory `from` as `image` into the operator at `dir`, planned:
/// [`ReleaseInput::read`], [`render_bundle`] and [`ReleaseInput::plan`] in turn.
pub fn plan(
    dir: &Path,
    from: &Path,
    image: &str,
    sources: &MakeSources,
) -> Result<ReleasePlan, ReleasePlanError> {
    let input = ReleaseInput::read(dir, from)?;
    let bundle = render_bundle(from, image)?;
    input.plan(&bundle, from, image, sources)
}

impl ReleasePlan {
    /// The catalogs the changed and created templates map to, re-rendered with the bundle
    /// directory standing for the released image, as opm release `opm` (default: as each
    /// operator's Makefile pins); each checked with opm's rules when `check`.
    pub fn rerendered(
        &self,
        sources: &MakeSources,
        opm: Option<OpmVersion>,
        check: bool,
    ) -> Result<Vec<Rerendered>, ReleasePlanError> {
        let standing = || vec![(self.image.clone(), self.from.clone())];
        let mut out = Vec::new();
        for d in &self.docs {
            let srcs = sources(d.path(), standing())?;
            let template = d.template()?;
            out.extend(rerendered_checked(d.path(), &template, &srcs, opm, check)?);
        }
        for (path, text) in &self.new_files {
            let srcs = sources(path, standing())?;
            let template = crate::template::parse(&path.display().to_string(), text)?;
            out.extend(rerendered_checked(path, &template, &srcs, opm, check)?);
        }
        Ok(out)
    }
}

/// Whether FBC delivery is on, and which template renders into which catalogs: `ci.yaml`'s
/// `fbc` section, or, without a `ci.yaml`, the convention `template render-all` follows (each
/// `catalog-templates/vX.Y.yaml` renders into catalog `vX.Y`, its type read from its schema).
fn mappings(op: &OperatorDir) -> Result<(bool, Vec<CatalogMapping>), ReleasePlanError> {
    // Whatever is there is read: a ci.yaml that is not a regular file is refused, not passed over.
    if op.dir.join("ci.yaml").symlink_metadata().is_ok() {
        return Ok(step::read_ci_mapping(&op.dir)?);
    }
    let plan = crate::template::render_all::plan(&op.dir)?;
    let mappings = plan
        .jobs
        .into_iter()
        .map(|j| CatalogMapping {
            template_name: j.template_name,
            kind: j.kind,
            catalog_names: j.catalogs,
        })
        .collect();
    Ok((true, mappings))
}

/// The bundle name each `olm.bundle` image of a basic template renders to, where a source knows it.
fn bundle_names(doc: &TemplateDoc, sources: &Sources) -> Vec<(String, Option<String>)> {
    entries_of(doc.node())
        .iter()
        .filter(|e| schema_of(e) == schema::BUNDLE)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_template_is_written_as_the_pipeline_writes_one() {
        let node = Node::map(vec![
            ("schema", Node::string("olm.template.basic")),
            (
                "entries",
                Node::seq([Node::map(vec![("schema", Node::string("olm.package"))])]),
            ),
        ]);
        assert_eq!(
            new_template_text(&node),
            "---\nschema: olm.template.basic\nentries:\n- schema: olm.package\n"
        );
    }

    #[test]
    fn an_operator_without_fbc_is_refused_with_its_ci_yaml_named() {
        let tmp = tempfile::tempdir().unwrap();
        let op = tmp.path().join("op");
        let bundle = op.join("1.0.0");
        std::fs::create_dir_all(op.join("catalog-templates")).unwrap();
        std::fs::create_dir_all(&bundle).unwrap();
        std::fs::write(op.join("ci.yaml"), "fbc:\n  enabled: false\n").unwrap();
        std::fs::write(
            bundle.join("release-config.yaml"),
            "catalog_templates:\n- template_name: v4.20.yaml\n  channels: [stable]\n",
        )
        .unwrap();
        let e = ReleaseInput::read(&op, &bundle).unwrap_err();
        assert!(matches!(e, ReleasePlanError::NotEnabled(_)), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "{}: fbc.enabled is not true: the operator does not deliver through file-based catalogs",
                op.join("ci.yaml").display()
            )
        );
    }
}
