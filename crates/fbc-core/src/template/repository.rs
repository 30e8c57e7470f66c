//! The repository's own bundle directories as a bundle source. In community-operators-prod
//! (`config.yaml`: `organization: community-operators`) the pipeline builds the bundle directory
//! `operators/<op>/<version>/` (its `manifests/` and `metadata/`) into the image
//! `quay.io/community-operator-pipeline-prod/<op>:<version>` and releases that pull spec as it is,
//! so a template naming that image names the directory. Such an image is rendered from its
//! directory the way `opm render` renders the image, before any committed catalog is asked.
//!
//! A reference by digest (`quay.io/community-operator-pipeline-prod/<op>@sha256:…`, or the earlier
//! pipeline's `quay.io/openshift-community-operators/<op>@sha256:…`) does not tell its content by
//! its name. It stands for a directory only when that is proven without the network: a committed
//! catalog holds a bundle with exactly that `image`, its version picks the directory
//! (`operators/<op>/<version>/`, else the one directory whose CSV holds that version), and the
//! directory's render agrees with every committed form of the bundle — equal as a whole to an
//! `olm.bundle.object` bundle, equal once migrated to an `olm.csv.metadata` one. Otherwise the
//! reference is not answered here, and why is kept ([`RepositoryBundles::unproven`]).
//!
//! Not mapped at all: every image of certified-operators and redhat-marketplace, which the pipeline
//! copies to `registry.connect.redhat.com/<namespace>/<repository>` and releases by digest.
//!
//! The directory is someone else's: it is read only inside the repository, and a file that cannot
//! be read as opm would read it from the image (a link leading out of the bundle directory, a FIFO,
//! a file over the budget) stops the rendering instead of being passed over.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::Value;

use super::source::{BundleSource, ResolveError, has_property};
use crate::bundle::{
    BundleError, ListError, MANIFESTS_KEY, METADATA_KEY, MigrationMemo, PACKAGE_KEY, RegistryBundle,
};
use crate::catalog::model::property_type::CSV_METADATA;
use crate::catalog::yaml::typed::{self, TypedError};
use crate::guard::file::Within;
use crate::guard::path::plain_name;
use crate::text::gosort::GoRelease;

/// Where the community pipeline releases the bundle image built from `operators/<op>/<version>/`.
pub const COMMUNITY_IMAGES: &str = "quay.io/community-operator-pipeline-prod/";

/// The repositories the community pipelines have released bundle images to, by digest in
/// templates: its `allowed_bundle_registries`.
pub const COMMUNITY_DIGEST_IMAGES: [&str; 2] =
    [COMMUNITY_IMAGES, "quay.io/openshift-community-operators/"];

/// The `organization` of the repositories whose bundle images are named after their directories.
pub const COMMUNITY_ORGANIZATION: &str = "community-operators";

/// The most entries an operator's directory is listed with, to find the version directory holding
/// a version or learn the package its bundles declare (an operator has a few hundred versions at
/// most); a directory holding more is reported, not read further.
const MAX_SIBLINGS: usize = 4096;

/// Why a repository bundle directory cannot stand for its image.
#[derive(Debug, thiserror::Error)]
pub enum RepositoryError {
    #[error("{}", .0)]
    Config(TypedError),
    #[error("bundle directory {} leads out of the repository {} ({})", dir.display(), root.display(), why)]
    Outside {
        dir: PathBuf,
        root: PathBuf,
        why: String,
    },
    #[error("bundle directory {}: {why}", dir.display())]
    Render { dir: PathBuf, why: BundleError },
    #[error("operator directory {}: more than {max} entries; not read further", dir.display())]
    TooMany { dir: PathBuf, max: usize },
    #[error(
        "bundle directory {}: cannot read {}; the image built from it would hold what opm reads, so nothing is rendered from it",
        dir.display(),
        files.join("; ")
    )]
    Unreadable { dir: PathBuf, files: Vec<String> },
    #[error(
        "bundle directory {}: its annotation {key} is {value:?}; the pipeline builds the image's /{what}/ from that path, not from {what}/",
        dir.display()
    )]
    BuildPath {
        dir: PathBuf,
        key: &'static str,
        value: String,
        what: &'static str,
    },
    #[error(
        "image {image} names version {tag}, but bundle directory {} holds version {version:?} (its CSV's spec.version){}",
        dir.display(),
        match released { Some(r) => format!(", and the committed catalogs hold the image as version {r:?}"), None => ", and no committed catalog holds the image to tell which the image is".to_string() }
    )]
    Version {
        image: String,
        tag: String,
        dir: PathBuf,
        version: String,
        /// The version the committed catalogs hold the image as.
        released: Option<String>,
    },
    #[error(
        "image {image} names operator {operator}, but bundle directory {} declares package {package:?}{}",
        dir.display(),
        if others.is_empty() { String::new() } else { format!(" where the operator's other bundles declare {}", others.join(", ")) }
    )]
    Package {
        image: String,
        operator: String,
        dir: PathBuf,
        package: String,
        others: Vec<String>,
    },
}

#[derive(Debug, Deserialize)]
struct RepoConfig {
    #[serde(default)]
    organization: Option<String>,
}

#[derive(Debug, Deserialize)]
struct AnnotationsFile {
    #[serde(default)]
    annotations: HashMap<String, serde_yaml::Value>,
}

/// A bundle directory rendered for an image, with what its CSV and annotations declare.
#[derive(Debug, Clone)]
struct DirRender {
    value: Value,
    version: String,
    package: String,
}

/// The bundle directories rendered, by image: shared by the sources opened for one repository
/// (every template and catalog group of a `render-all`), so that each directory is rendered once
/// per image. Clones share the renders.
#[derive(Debug, Clone, Default)]
pub struct RenderCache {
    renders: Arc<Mutex<HashMap<String, Arc<DirRender>>>>,
    /// The manifests decoded for the migration, for the renderings these renders go into.
    migrations: MigrationMemo,
}

impl RenderCache {
    /// The manifests the renderings sharing this cache have decoded for the migration.
    pub fn migrations(&self) -> &MigrationMemo {
        &self.migrations
    }
}

/// A committed bundle held for a digest reference: the catalog holding it and the bundle.
#[derive(Debug, Clone)]
struct Committed {
    catalog: String,
    bundle: Value,
}

/// The bundle directories of a community repository, by the image the pipeline builds from each.
pub struct RepositoryBundles {
    /// The repository's root, every link resolved.
    root: PathBuf,
    /// Per operator, each bundle directory with the package it declares (read when first needed).
    packages: Mutex<HashMap<String, Vec<(PathBuf, String)>>>,
    /// The version the committed catalogs hold each image as, for the images named
    /// `<op>:<version>` ([`RepositoryBundles::released`]).
    released: HashMap<String, String>,
    /// The bundles committed catalogs hold for the digest references of the pipelines'
    /// repositories ([`RepositoryBundles::committed`]).
    committed: HashMap<String, Vec<Committed>>,
    /// The committed catalogs, asked for a digest reference when it is first asked for.
    catalogs: Vec<Arc<super::source::CatalogSource>>,
    /// Why a digest reference held by a committed catalog is not answered from a directory.
    unproven: Mutex<HashMap<String, String>>,
    /// The digest references asked for, each with its answer (`None`: not proven), so that a
    /// reference is proven once however many renderings ask for it.
    proofs: Mutex<HashMap<String, Option<Arc<Value>>>>,
    cache: RenderCache,
    /// The most entries an operator's directory is listed with ([`MAX_SIBLINGS`]).
    max_siblings: usize,
}

impl RepositoryBundles {
    /// The source for the repository at `root` (the directory holding `operators/` and
    /// `config.yaml`): `None` when its `config.yaml` is absent or names an organization whose images
    /// are not named after their directories. A `config.yaml` that cannot be read is an error.
    pub fn open(root: &Path) -> Result<Option<RepositoryBundles>, RepositoryError> {
        let Ok(root) = root.canonicalize() else {
            return Ok(None);
        };
        let config = root.join("config.yaml");
        if config.symlink_metadata().is_err() {
            return Ok(None);
        }
        let cfg = typed::read::<RepoConfig>(&root, &config).map_err(RepositoryError::Config)?;
        if cfg.value.organization.as_deref() != Some(COMMUNITY_ORGANIZATION) {
            return Ok(None);
        }
        Ok(Some(RepositoryBundles {
            root,
            packages: Mutex::default(),
            released: HashMap::new(),
            committed: HashMap::new(),
            catalogs: Vec::new(),
            unproven: Mutex::default(),
            proofs: Mutex::default(),
            cache: RenderCache::default(),
            max_siblings: MAX_SIBLINGS,
        }))
    }

    /// Shares `cache` with the other sources of the repository: directories another has rendered
    /// are not rendered again.
    pub fn with_cache(mut self, cache: RenderCache) -> RepositoryBundles {
        self.cache = cache;
        self
    }

    /// Records the bundle the committed catalog `catalog` holds `image` as, for a digest
    /// reference of the pipelines' repositories (any other image is passed over): what a directory
    /// must render as to stand for the image.
    pub fn committed(&mut self, image: &str, catalog: &str, bundle: Value) {
        if RepositoryBundles::digest_names(image).is_none() {
            return;
        }
        self.proofs
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        let held = self.committed.entry(image.to_string()).or_default();
        if !held.iter().any(|c| c.bundle == bundle) {
            held.push(Committed {
                catalog: catalog.to_string(),
                bundle,
            });
        }
    }

    /// The committed catalogs whose bundles the digest references are proven against (as
    /// [`RepositoryBundles::committed`] records one, but read only for the images asked for).
    pub fn committed_catalogs(&mut self, catalogs: Vec<Arc<super::source::CatalogSource>>) {
        self.proofs
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.catalogs = catalogs;
    }

    /// Renders the directories standing for `images` (and proves the digest references among
    /// them) in parallel, as [`RepositoryBundles::render`] would one by one: the renders it is
    /// asked for afterwards are found done.
    pub fn warm(&self, images: &[&str]) {
        use rayon::prelude::*;
        let mut images = images.to_vec();
        images.sort_unstable();
        images.dedup();
        images.par_iter().for_each(|image| {
            if RepositoryBundles::names(image).is_some() {
                if let Ok(Some(dir)) = self.dir_for_image(image) {
                    let _ = self.render_cached(image, &dir);
                }
            } else if let Some(op) = RepositoryBundles::digest_names(image) {
                let _ = self.proof(image, op);
            }
        });
    }

    /// Why the digest reference `image`, held by a committed catalog, was not answered from a
    /// bundle directory (once it has been asked for).
    pub fn unproven(&self, image: &str) -> Option<String> {
        self.unproven
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(image)
            .cloned()
    }

    /// Records the version committed catalogs hold `image` as. The pipeline tags the image with
    /// its directory's name whatever the CSV says (aws-neuron-operator's `0.0.4` holds version
    /// 0.1.2, and so does the released image): a directory whose version differs from its tag
    /// stands for the image only when the released image is known to hold that version.
    pub fn released(&mut self, image: &str, version: &str) {
        if RepositoryBundles::names(image).is_some() {
            self.released
                .entry(image.to_string())
                .or_insert_with(|| version.to_string());
        }
    }

    /// The repository a template at `operators/<op>/catalog-templates/<file>` belongs to, as
    /// [`RepositoryBundles::open`] opens it; `None` in any other layout.
    pub fn for_template(template: &Path) -> Result<Option<RepositoryBundles>, RepositoryError> {
        let Some(templates) = template.parent() else {
            return Ok(None);
        };
        if templates
            .file_name()
            .is_none_or(|n| n != "catalog-templates")
        {
            return Ok(None);
        }
        match templates.parent().and_then(Path::parent) {
            Some(operators) if operators.file_name().is_some_and(|n| n == "operators") => {
                match operators.parent() {
                    Some(root) if !root.as_os_str().is_empty() => RepositoryBundles::open(root),
                    _ => RepositoryBundles::open(Path::new(".")),
                }
            }
            _ => Ok(None),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The operator and version an image reference names, when the pipeline builds it from
    /// `operators/<op>/<version>/`: `quay.io/community-operator-pipeline-prod/<op>:<version>`.
    pub fn names(image: &str) -> Option<(&str, &str)> {
        let rest = image.strip_prefix(COMMUNITY_IMAGES)?;
        let (op, version) = rest.split_once(':')?;
        if op.contains('@') || version.contains('@') {
            return None;
        }
        Some((plain_name(op).ok()?, plain_name(version).ok()?))
    }

    /// The operator a digest reference of the pipelines' repositories names:
    /// `<repository><op>@sha256:<64 hex digits>`.
    pub fn digest_names(image: &str) -> Option<&str> {
        let rest = COMMUNITY_DIGEST_IMAGES
            .iter()
            .find_map(|r| image.strip_prefix(r))?;
        let (op, digest) = rest.split_once("@sha256:")?;
        if digest.len() != 64
            || !digest
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            return None;
        }
        plain_name(op).ok()
    }

    /// The directory standing for `image`: `Ok(None)` when the image is not one the repository
    /// builds, or its directory is not there (a bundle removed since).
    pub fn dir_for_image(&self, image: &str) -> Result<Option<PathBuf>, RepositoryError> {
        let Some((op, version)) = RepositoryBundles::names(image) else {
            return Ok(None);
        };
        self.version_dir(op, version)
    }

    /// `operators/<op>/<version>/` when it is there, checked to be a directory inside the
    /// repository.
    fn version_dir(&self, op: &str, version: &str) -> Result<Option<PathBuf>, RepositoryError> {
        let dir = self.root.join("operators").join(op).join(version);
        if dir.symlink_metadata().is_err() {
            return Ok(None);
        }
        let outside = |why: String| RepositoryError::Outside {
            dir: dir.clone(),
            root: self.root.clone(),
            why,
        };
        let resolved = dir.canonicalize().map_err(|e| outside(e.to_string()))?;
        if !resolved.starts_with(&self.root) {
            return Err(outside(format!("it resolves to {}", resolved.display())));
        }
        if !resolved.is_dir() {
            return Err(RepositoryError::Render {
                dir,
                why: BundleError::Unreadable("not a directory".into()),
            });
        }
        Ok(Some(dir))
    }

    /// Renders the directory standing for `image` as `opm render IMAGE` renders the image.
    pub fn render(&self, image: &str) -> Option<Result<Value, RepositoryError>> {
        if RepositoryBundles::names(image).is_none() {
            return self.render_digest(image);
        }
        let dir = match self.dir_for_image(image) {
            Ok(Some(d)) => d,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        Some(self.render_dir(image, &dir))
    }

    fn render_dir(&self, image: &str, dir: &Path) -> Result<Value, RepositoryError> {
        let r = self.render_cached(image, dir)?;
        let (op, tag) = RepositoryBundles::names(image).unwrap_or_default();
        let released = self.released.get(image);
        if r.version != tag && released != Some(&r.version) {
            return Err(RepositoryError::Version {
                image: image.to_string(),
                tag: tag.to_string(),
                dir: dir.to_path_buf(),
                version: r.version.clone(),
                released: released.cloned(),
            });
        }
        if r.package != op {
            // An operator may be packaged under another name (konflux: konflux-operator); then
            // none of its bundles declares another.
            let others = self.packages_of(op, dir)?;
            if r.package.is_empty() || others.iter().any(|p| *p != r.package) {
                return Err(RepositoryError::Package {
                    image: image.to_string(),
                    operator: op.to_string(),
                    dir: dir.to_path_buf(),
                    others: others.into_iter().filter(|p| *p != r.package).collect(),
                    package: r.package.clone(),
                });
            }
        }
        Ok(r.value.clone())
    }

    /// The directory rendered for `image`, from the cache when it has been rendered for it.
    fn render_cached(&self, image: &str, dir: &Path) -> Result<Arc<DirRender>, RepositoryError> {
        let known = self
            .cache
            .renders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(image)
            .cloned();
        if let Some(r) = known {
            return Ok(r);
        }
        let r = Arc::new(render_plain(image, dir)?);
        self.cache
            .renders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(image.to_string(), Arc::clone(&r));
        Ok(r)
    }
}

/// Why a digest reference is not answered from a directory: it is not shown to be the
/// directory's image.
enum Unproven {
    Because(String),
}

/// The `olm.package` version of a bundle blob.
fn package_version(bundle: &Value) -> Option<&str> {
    bundle
        .get("properties")?
        .as_array()?
        .iter()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("olm.package"))?
        .pointer("/value/version")?
        .as_str()
}

/// Where two values first differ (a JSON pointer-like path with what each holds), `None` when they
/// are equal. Objects compare by their fields whatever their order, arrays in order.
fn first_difference(ours: &Value, theirs: &Value, at: String) -> Option<String> {
    let here = || {
        if at.is_empty() {
            "/".to_string()
        } else {
            at.clone()
        }
    };
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => first_difference(x, y, format!("{at}/{k}")),
                (Some(_), None) => Some(format!("{at}/{k} (only the directory's render has it)")),
                (None, _) => Some(format!("{at}/{k} (only the committed bundle has it)")),
            })
        }
        (Value::Array(a), Value::Array(b)) => {
            let diff = a
                .iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(x, y, format!("{at}/{i}")));
            diff.or_else(|| {
                (a.len() != b.len()).then(|| {
                    format!(
                        "{} ({} entries in the directory's render, {} in the committed bundle)",
                        here(),
                        a.len(),
                        b.len()
                    )
                })
            })
        }
        (a, b) if a == b => None,
        (a, b) => {
            let clip = |v: &Value| {
                let s = v.to_string();
                if s.chars().count() > 80 {
                    format!("{}…", s.chars().take(80).collect::<String>())
                } else {
                    s
                }
            };
            Some(format!("{} ({} against {})", here(), clip(a), clip(b)))
        }
    }
}

/// The directory rendered as `opm render` renders the image `image` built from it.
fn render_plain(image: &str, dir: &Path) -> Result<DirRender, RepositoryError> {
    let b = RegistryBundle::read_for_render(dir);
    let files: Vec<String> = b
        .unread()
        .map(|d| {
            let why = d
                .message
                .strip_prefix("cannot read: ")
                .unwrap_or(&d.message);
            format!("{}: {why}", d.location.file)
        })
        .collect();
    if !files.is_empty() {
        return Err(RepositoryError::Unreadable {
            dir: dir.to_path_buf(),
            files,
        });
    }
    for (key, what) in [(MANIFESTS_KEY, "manifests"), (METADATA_KEY, "metadata")] {
        if let Some(a) = b.annotation(key)
            && a.value.trim_end_matches('/') != what
        {
            return Err(RepositoryError::BuildPath {
                dir: dir.to_path_buf(),
                key,
                value: a.value.clone(),
                what,
            });
        }
    }
    let options = crate::bundle::RenderOptions {
        image: Some(image.to_string()),
        csv_metadata: false,
        related: crate::bundle::RelatedOrder::AsBuilt,
    };
    let value = crate::bundle::render(&b, &options).map_err(|why| RepositoryError::Render {
        dir: dir.to_path_buf(),
        why,
    })?;
    Ok(DirRender {
        value,
        version: b.version().unwrap_or_default(),
        package: b.package().to_string(),
    })
}

impl BundleSource for RepositoryBundles {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        self.render(image).map(|r| r.map_err(ResolveError::from))
    }

    fn unresolved(&self, image: &str) -> Option<String> {
        self.unproven(image)
            .map(|why| format!("not taken from the repository's bundle directories: {why}"))
    }

    fn describe(&self) -> String {
        format!(
            "the bundle directories of repository {} (images {COMMUNITY_IMAGES}<operator>:<version>, and digest references committed catalogs prove to be built from them)",
            self.root.display()
        )
    }
}

#[path = "repository_digest.rs"]
mod digest;

#[cfg(test)]
#[path = "repository_tests.rs"]
mod tests;
