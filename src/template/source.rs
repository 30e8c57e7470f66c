//! Where the bundles a template names come from. opm pulls each image and renders it; offline, an
//! image is resolved from a catalog that already holds a bundle with that `image`, or from a
//! registry+v1 bundle directory given for it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::catalog::model::Package;
use crate::catalog::{BlobId, Catalog, LoadError, schema};

/// Resolves bundle image references to `olm.bundle` blobs.
pub trait BundleSource {
    /// The `olm.bundle` blob for `image`: `None` when this source does not know the image,
    /// `Some(Err(why))` when it does but cannot produce the bundle.
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, String>>;

    /// The icon (`{base64data, mediatype}`) this source records for a package, if any. Used only when
    /// a bundle carries no CSV to take the icon from.
    fn package_icon(&self, _package: &str) -> Option<(Value, String)> {
        None
    }

    /// What the source is, for messages ("catalog catalogs/v4.20").
    fn describe(&self) -> String;
}

/// Bundles found in a loaded catalog, by their `image`.
pub struct CatalogSource {
    dir: PathBuf,
    catalog: Catalog,
    by_image: HashMap<String, Vec<BlobId>>,
}

impl CatalogSource {
    /// Loads the catalog under `dir`. Problems in its files do not stop it from being used: every
    /// bundle that could be read is available.
    pub fn load(dir: &Path) -> Result<CatalogSource, LoadError> {
        Ok(CatalogSource::new(dir, crate::catalog::load(dir)?))
    }

    pub fn new(dir: &Path, catalog: Catalog) -> CatalogSource {
        let mut by_image: HashMap<String, Vec<BlobId>> = HashMap::new();
        for (id, b) in catalog.live_blobs() {
            if b.schema() != schema::BUNDLE {
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
            by_image,
        }
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }
}

impl BundleSource for CatalogSource {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, String>> {
        let ids = self.by_image.get(image)?;
        let mut found: Vec<(BlobId, Value)> = Vec::new();
        for &id in ids {
            let v = self.catalog.to_json(&self.catalog.blob(id).value);
            if !found.iter().any(|(_, f)| *f == v) {
                found.push((id, v));
            }
        }
        if found.len() > 1 {
            let at: Vec<String> = found
                .iter()
                .map(|(id, _)| self.catalog.location(*id).to_string())
                .collect();
            return Some(Err(format!(
                "catalog {} holds {} different bundles with this image ({}); cannot tell which one the image is",
                self.dir.display(),
                found.len(),
                at.join(", ")
            )));
        }
        found.pop().map(|(_, v)| Ok(v))
    }

    fn package_icon(&self, package: &str) -> Option<(Value, String)> {
        let p = self.catalog.index().package(package)?;
        let &id = p.packages.first()?;
        let blob = self.catalog.blob(id);
        let view = Package::read(&blob.value).ok()?;
        view.icon.as_ref()?;
        let icon = self.catalog.to_json(blob.value.get_field("icon")?);
        Some((icon, self.catalog.location(id).to_string()))
    }

    fn describe(&self) -> String {
        format!("catalog {}", self.dir.display())
    }
}

/// Several sources, asked in order; the first that knows an image resolves it.
#[derive(Default)]
pub struct Sources {
    pub list: Vec<Box<dyn BundleSource + Send + Sync>>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    pub fn push(&mut self, s: impl BundleSource + Send + Sync + 'static) {
        self.list.push(Box::new(s));
    }
}

impl BundleSource for Sources {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, String>> {
        self.list.iter().find_map(|s| s.bundle_for_image(image))
    }

    fn package_icon(&self, package: &str) -> Option<(Value, String)> {
        self.list.iter().find_map(|s| s.package_icon(package))
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
