//! Where the bundles a template names come from. opm pulls each image and renders it. Here an image
//! is resolved from a catalog that already holds a bundle with that `image`, from a registry+v1
//! bundle directory given for it, from an image (registry, OCI layout, archive) given for it, or —
//! when asked to pull — from the image itself, pulled like opm does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use thiserror::Error;

use crate::bundle::{BundleError, MigrationMemo};
use crate::catalog::model::Package;
use crate::catalog::{BlobId, Catalog, LoadError, Location, schema};
use crate::guard::dir::DirError;

/// Why a source that knows an image cannot give its bundle.
#[derive(Debug, Error)]
pub enum ResolveError {
    /// The catalog holds the bundle, but a value of it kept on disk cannot be read back.
    #[error("cannot read the bundle at {at}: {why}")]
    Unreadable { at: Location, why: std::io::Error },
    /// The catalog holds different bundles with the image.
    #[error(
        "catalog {} holds {} different bundles with this image ({}); cannot tell which one the image is",
        dir.display(),
        at.len(),
        at.join(", ")
    )]
    Ambiguous {
        dir: PathBuf,
        /// Where each of the bundles is.
        at: Vec<String>,
    },
    #[error("bundle directory {}: {why}", dir.display())]
    BundleDir { dir: PathBuf, why: BundleError },
    /// The image standing for the bundle cannot be opened.
    #[error(transparent)]
    Image(ImageOpenError),
    #[error("bundle image {from}: {why}")]
    BundleImage { from: String, why: BundleError },
    /// The repository's bundle directory for the image cannot stand for it.
    #[error(transparent)]
    Repository(Box<super::repository::RepositoryError>),
    /// An earlier answer, kept by [`super::memo::Memo`].
    #[error("{0}")]
    Remembered(#[source] std::sync::Arc<ResolveError>),
}

/// Why the sources asked for cannot be used.
#[derive(Debug, Error)]
pub enum SourcesError {
    /// A `--bundle-dir` value that is not `IMAGE=DIR`.
    #[error(
        "expected IMAGE=DIR (a bundle image reference and the bundle directory standing for it), got {0:?}"
    )]
    Mapping(String),
    #[error("--bundle-dir {image}={}: not a directory", dir.display())]
    NotADirectory { image: String, dir: PathBuf },
    #[error("cannot open catalog {0}")]
    Catalog(LoadError),
    #[error("cannot open the repository's bundle directories: {0}")]
    Repository(Box<super::repository::RepositoryError>),
    /// A catalog of the repository's `catalogs/` cannot be loaded (said as the load says it).
    #[error("{why}")]
    CommittedCatalog {
        dir: PathBuf,
        #[source]
        why: LoadError,
    },
    /// The repository's bundle directories cannot be opened (said as the repository says it).
    #[error("{0}")]
    RepositoryBundles(#[source] Box<super::repository::RepositoryError>),
    /// A thread that was opening the sources panicked.
    #[error("poisoned lock: another task failed inside")]
    Poisoned,
    /// The repository's `catalogs/` holds more entries than it is listed with.
    #[error("{0}")]
    Listing(#[source] DirError),
}

impl From<super::repository::RepositoryError> for ResolveError {
    fn from(e: super::repository::RepositoryError) -> ResolveError {
        ResolveError::Repository(Box::new(e))
    }
}

/// Resolves bundle image references to `olm.bundle` blobs.
pub trait BundleSource {
    /// The `olm.bundle` blob for `image`: `None` when this source does not know the image,
    /// `Some(Err(why))` when it does but cannot produce the bundle.
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>>;

    /// The icon (`{base64data, mediatype}`) this source records for a package, if any. Used only when
    /// a bundle carries no CSV to take the icon from.
    fn package_icon(&self, _package: &str) -> Option<(Value, String)> {
        None
    }

    /// What the source is, for messages ("catalog catalogs/v4.20").
    fn describe(&self) -> String;

    /// Why this source, asked for `image`, did not answer for it although it might have (a digest
    /// reference not proven to be a bundle directory's image), for the messages of whatever
    /// refuses the answer another source gave.
    fn unresolved(&self, _image: &str) -> Option<String> {
        None
    }
}

/// A shared source answers as the source it shares.
impl<T: BundleSource + ?Sized> BundleSource for std::sync::Arc<T> {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        (**self).bundle_for_image(image)
    }

    fn package_icon(&self, package: &str) -> Option<(Value, String)> {
        (**self).package_icon(package)
    }

    fn describe(&self) -> String {
        (**self).describe()
    }

    fn unresolved(&self, image: &str) -> Option<String> {
        (**self).unresolved(image)
    }
}

/// Bundles found in a loaded catalog, by their `image`.
pub struct CatalogSource {
    dir: PathBuf,
    catalog: Arc<Catalog>,
    /// When the catalog was loaded from a directory above `dir`: `dir`'s path below the loaded
    /// root, ending in `/`; only the blobs of files under it belong to this source.
    within: Option<String>,
    by_image: HashMap<String, Vec<BlobId>>,
}

impl CatalogSource {
    /// Loads the catalog under `dir`. Problems in its files do not stop it from being used: every
    /// bundle that could be read is available.
    pub fn load(dir: &Path) -> Result<CatalogSource, LoadError> {
        Ok(CatalogSource::new(dir, crate::catalog::load(dir)?))
    }

    pub fn new(dir: &Path, catalog: Catalog) -> CatalogSource {
        CatalogSource::of(dir, Arc::new(catalog), None)
    }

    /// The catalog under `dir` read from `catalog`, loaded from `dir`'s parent: the blobs of the
    /// files under its subdirectory `name`, named as loading `dir` itself would name them. The
    /// caller makes sure the load reads those files as loading `dir` would (no `.indexignore` in
    /// the parent, no link under `dir`).
    pub fn within(dir: &Path, catalog: Arc<Catalog>, name: &str) -> CatalogSource {
        CatalogSource::of(dir, catalog, Some(format!("{name}/")))
    }

    fn of(dir: &Path, catalog: Arc<Catalog>, within: Option<String>) -> CatalogSource {
        let holds = |id: BlobId| {
            within
                .as_ref()
                .is_none_or(|w| catalog.file_of(id).path.starts_with(w.as_str()))
        };
        let mut by_image: HashMap<String, Vec<BlobId>> = HashMap::new();
        for (id, b) in catalog.live_blobs() {
            if b.schema() != schema::BUNDLE || !holds(id) {
                continue;
            }
            if let Some(image) = b.value.get_field("image").and_then(|i| i.as_str())
                && !image.is_empty()
            {
                by_image.entry(image.to_string()).or_default().push(id);
            }
        }
        CatalogSource {
            dir: dir.to_path_buf(),
            catalog,
            within,
            by_image,
        }
    }

    /// The catalog loaded (for a source made [`CatalogSource::within`] a larger one, all of it).
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Whether the blob `id` belongs to this source.
    fn holds(&self, id: BlobId) -> bool {
        self.within
            .as_ref()
            .is_none_or(|w| self.catalog.file_of(id).path.starts_with(w.as_str()))
    }

    /// Where the blob `id` starts, its file named below `dir`.
    fn location(&self, id: BlobId) -> Location {
        let mut at = self.catalog.location(id);
        if let Some(rest) = self.within.as_deref().and_then(|w| at.file.strip_prefix(w)) {
            at.file = rest.to_string();
        }
        at
    }

    /// The images of the bundles the catalog holds, in no particular order.
    pub fn images(&self) -> impl Iterator<Item = &str> {
        self.by_image.keys().map(String::as_str)
    }

    /// Where the catalog is, as messages name it.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Each image with the version (`olm.package`) of the bundle the catalog holds it as.
    pub fn versions(&self) -> impl Iterator<Item = (&str, &str)> {
        self.by_image.iter().flat_map(|(image, ids)| {
            ids.iter().filter_map(|&id| {
                let b = crate::catalog::model::Bundle::read(&self.catalog.blob(id).value).ok()?;
                Some((image.as_str(), b.version()?))
            })
        })
    }
}

impl BundleSource for CatalogSource {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        let ids = self.by_image.get(image)?;
        let mut found: Vec<(BlobId, Value)> = Vec::new();
        for &id in ids {
            let v = match self.catalog.to_json(&self.catalog.blob(id).value) {
                Ok(v) => v,
                Err(why) => {
                    let at = self.location(id);
                    return Some(Err(ResolveError::Unreadable { at, why }));
                }
            };
            if !found.iter().any(|(_, f)| *f == v) {
                found.push((id, v));
            }
        }
        if found.len() > 1 {
            let at: Vec<String> = found
                .iter()
                .map(|(id, _)| self.location(*id).to_string())
                .collect();
            return Some(Err(ResolveError::Ambiguous {
                dir: self.dir.clone(),
                at,
            }));
        }
        found.pop().map(|(_, v)| Ok(v))
    }

    fn package_icon(&self, package: &str) -> Option<(Value, String)> {
        let p = self.catalog.index().package(package)?;
        let &id = p.packages.iter().find(|&&id| self.holds(id))?;
        let blob = self.catalog.blob(id);
        let view = Package::read(&blob.value).ok()?;
        view.icon.as_ref()?;
        // An icon that cannot be read back is left out; the rendering's notes say the package has none.
        let icon = self.catalog.to_json(blob.value.get_field("icon")?).ok()?;
        let at = self.location(id);
        Some((
            icon,
            format!("{}:{}", self.dir.join(&at.file).display(), at.line),
        ))
    }

    fn describe(&self) -> String {
        format!("catalog {}", self.dir.display())
    }
}

/// Registry+v1 bundle directories given for images (`--bundle-dir IMAGE=DIR`), rendered the way
/// `opm render` renders the bundle image (the bundle's `image` is the reference).
#[derive(Debug, Clone, Default)]
pub struct BundleDirSource {
    dirs: Vec<(String, PathBuf)>,
}

impl BundleDirSource {
    pub fn new(dirs: Vec<(String, PathBuf)>) -> BundleDirSource {
        BundleDirSource { dirs }
    }

    /// Reads `IMAGE=DIR`, split at the first `=` (image references hold none; a path may).
    pub fn parse_mapping(s: &str) -> Result<(String, PathBuf), SourcesError> {
        match s.split_once('=') {
            Some((image, dir)) if !image.is_empty() && !dir.is_empty() => {
                Ok((image.to_string(), PathBuf::from(dir)))
            }
            _ => Err(SourcesError::Mapping(s.to_string())),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }
}

impl BundleSource for BundleDirSource {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        let (_, dir) = self.dirs.iter().find(|(i, _)| i == image)?;
        let options = crate::bundle::RenderOptions {
            image: Some(image.to_string()),
            csv_metadata: false,
            related: crate::bundle::RelatedOrder::AsBuilt,
        };
        Some(
            crate::bundle::render_dir(dir, &options).map_err(|why| ResolveError::BundleDir {
                dir: dir.clone(),
                why,
            }),
        )
    }

    fn describe(&self) -> String {
        match self.dirs.len() {
            1 => "the bundle directory given for 1 image".to_string(),
            n => format!("the bundle directories given for {n} images"),
        }
    }
}

/// Why an [`ImageOpener`] could not open an image: its own error, whose message names the image.
pub type ImageOpenError = Box<dyn std::error::Error + Send + Sync>;

/// Opens the images templates name (registries, OCI layouts, archives). The library reads no
/// image itself: the application hands an opener in with an [`ImageSource`].
pub trait ImageOpener: std::fmt::Debug + Send + Sync {
    /// Whether a `--bundle-dir` value names an image (a reference the opener reads: a layout, an
    /// archive) rather than a bundle directory.
    fn is_image(&self, arg: &Path) -> bool;
    /// Whether `reference` names an image in a registry, which pulling fetches.
    fn is_registry(&self, reference: &str) -> bool;
    /// Opens the bundle image `reference` and gives the directory holding its content (read-only;
    /// it stays while the program runs).
    fn open_bundle(&self, reference: &str) -> Result<PathBuf, ImageOpenError>;
}

/// Bundle images opened where they are published, rendered as `opm render IMAGE` renders them (the
/// bundle's `image` is the template's reference): images given as standing for others
/// (`--bundle-dir IMAGE=oci:DIR`), and, when pulling, every registry reference.
#[derive(Debug, Clone)]
pub struct ImageSource {
    /// What opens the images.
    pub opener: Arc<dyn ImageOpener>,
    /// `(template image, reference to open instead)`.
    pub mapped: Vec<(String, String)>,
    /// Pull every registry reference not otherwise known.
    pub pull: bool,
}

impl ImageSource {
    /// Images opened by `opener`: none mapped, none pulled.
    pub fn new(opener: Arc<dyn ImageOpener>) -> ImageSource {
        ImageSource {
            opener,
            mapped: Vec::new(),
            pull: false,
        }
    }
}

impl BundleSource for ImageSource {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        let from = match self.mapped.iter().find(|(i, _)| i == image) {
            Some((_, from)) => from.clone(),
            None if self.pull && self.opener.is_registry(image) => image.to_string(),
            None => return None,
        };
        let dir = match self.opener.open_bundle(&from) {
            Ok(dir) => dir,
            Err(e) => return Some(Err(ResolveError::Image(e))),
        };
        let options = crate::bundle::RenderOptions {
            image: Some(image.to_string()),
            csv_metadata: false,
            related: crate::bundle::RelatedOrder::AsBuilt,
        };
        Some(
            crate::bundle::render_dir(&dir, &options)
                .map_err(|why| ResolveError::BundleImage { from, why }),
        )
    }

    fn describe(&self) -> String {
        match (self.mapped.len(), self.pull) {
            (0, _) => "their registries".to_string(),
            (1, false) => "the image given for 1 image".to_string(),
            (n, false) => format!("the images given for {n} images"),
            (n, true) => format!("the images given for {n} images or their registries"),
        }
    }
}

/// Several sources, asked in order; the first that knows an image resolves it.
#[derive(Default)]
pub struct Sources {
    pub list: Vec<Box<dyn BundleSource + Send + Sync>>,
    /// The bundles' manifests decoded for the migration, shared with the other renderings of the
    /// same templates.
    migrations: Option<MigrationMemo>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Shares `memo`'s decoded manifests with whatever migrates the bundles these sources give.
    pub fn with_migrations(mut self, memo: MigrationMemo) -> Sources {
        self.migrations = Some(memo);
        self
    }

    /// The manifests decoded for the migration, when shared.
    pub fn migrations(&self) -> Option<&MigrationMemo> {
        self.migrations.as_ref()
    }

    pub fn push(&mut self, s: impl BundleSource + Send + Sync + 'static) {
        self.list.push(Box::new(s));
    }
}

impl BundleSource for Sources {
    /// The first source's answer, except that a bundle held only as `olm.csv.metadata` gives way to
    /// one a later source holds with its manifests (`olm.bundle.object`): opm renders the image with
    /// its manifests, and only from them can a catalog rendered without migration be written, or the
    /// package icon be taken from the CSV.
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        let mut sources = self.list.iter();
        let first = sources.find_map(|s| s.bundle_for_image(image))?;
        match first {
            Ok(v) if !has_property(&v, crate::catalog::model::property_type::BUNDLE_OBJECT) => {
                let full = sources
                    .filter_map(|s| s.bundle_for_image(image))
                    .find_map(|r| {
                        r.ok().filter(|b| {
                            has_property(b, crate::catalog::model::property_type::BUNDLE_OBJECT)
                        })
                    });
                Some(Ok(full.unwrap_or(v)))
            }
            other => Some(other),
        }
    }

    fn package_icon(&self, package: &str) -> Option<(Value, String)> {
        self.list.iter().find_map(|s| s.package_icon(package))
    }

    fn unresolved(&self, image: &str) -> Option<String> {
        self.list.iter().find_map(|s| s.unresolved(image))
    }

    fn describe(&self) -> String {
        match self.list.len() {
            0 => "no catalog or bundle directory (none was given)".to_string(),
            _ => self
                .list
                .iter()
                .map(|s| s.describe())
                .collect::<Vec<_>>()
                .join(" or "),
        }
    }
}

/// Whether a bundle blob carries a property of type `kind`.
pub(crate) fn has_property(bundle: &Value, kind: &str) -> bool {
    bundle
        .get("properties")
        .and_then(Value::as_array)
        .is_some_and(|ps| {
            ps.iter()
                .any(|p| p.get("type").and_then(Value::as_str) == Some(kind))
        })
}

/// In a repository laid out as `operators/<op>/catalog-templates/<template>` beside
/// `catalogs/<name>/<op>/`, the operator's rendered catalogs: the ones `ci.yaml` maps the template to
/// first, then the others by name. Empty in any other layout; an error when `catalogs/` holds more
/// entries than it is listed with ([`files::catalogs_holding`](super::files)).
pub fn repository_catalogs(template: &Path) -> Result<Vec<PathBuf>, DirError> {
    let Some(templates) = template.parent() else {
        return Ok(Vec::new());
    };
    if templates
        .file_name()
        .is_none_or(|n| n != "catalog-templates")
    {
        return Ok(Vec::new());
    }
    let Some(op_dir) = templates.parent() else {
        return Ok(Vec::new());
    };
    let (Some(op), Some(repo)) = (op_dir.file_name(), op_dir.parent().and_then(Path::parent))
    else {
        return Ok(Vec::new());
    };
    let catalogs = repo.join("catalogs");
    let mut names = super::files::catalogs_holding(repo, op)?;
    let file = template
        .file_name()
        .map(|f| f.to_string_lossy().into_owned());
    let mapped: Vec<String> = crate::template::edit::release::read_ci_mapping(op_dir)
        .map(|(_, m)| m)
        .unwrap_or_default()
        .into_iter()
        .filter(|m| Some(&m.template_name) == file.as_ref())
        .flat_map(|m| m.catalog_names)
        .collect();
    names.sort_by_key(|n| !mapped.contains(n));
    Ok(names
        .into_iter()
        .map(|n| catalogs.join(n).join(op))
        .collect())
}

/// Resolves every image, in order; all images no source knows are reported together.
pub(crate) fn resolve_all(
    file: &str,
    images: &[(String, u32)],
    source: &dyn BundleSource,
) -> Result<Vec<Value>, super::TemplateError> {
    let mut out = Vec::with_capacity(images.len());
    let mut problems = Vec::new();
    for (image, line) in images {
        match source.bundle_for_image(image) {
            Some(Ok(v)) => out.push(v),
            Some(Err(why)) => problems.push(super::Problem::new(
                *line,
                format!("cannot render bundle image {image:?}: {why}"),
            )),
            None => problems.push(super::Problem::new(
                *line,
                format!(
                    "cannot resolve bundle image {image:?}: not found in {}",
                    source.describe()
                ),
            )),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(super::TemplateError::many(file, problems))
    }
}

#[path = "source_open.rs"]
mod open;

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
