//! Catalogs and bundles where they are published: container images in a registry
//! (`quay.io/org/catalog:v1`, `…@sha256:…`), OCI image layouts (`oci:DIR[:TAG]`, `oci-archive:FILE`)
//! and image tarballs (`docker-archive:FILE`).
//!
//! Opening an image reads its config's labels: `operators.operatorframework.io.index.configs.v1`
//! makes a catalog image (its catalog directory is that label's value, `/configs` when absent), and
//! `operators.operatorframework.io.bundle.package.v1` a bundle image. The layers are applied in
//! order, whiteouts included, and only the catalog directory (or a bundle's `manifests/` and
//! `metadata/`) is written out, streamed. The result lands in the user's cache keyed by a verified
//! digest and is reused from there, offline too; the rest of fbc-edit reads it as a directory.
//!
//! Every image is untrusted input: each layer is read up to its declared size and checked against
//! its digest, a layer listed more than once is fetched once, and reading stays within the budgets
//! of [`fbc_core::guard::limits`] (`Options::limits`). The network client stays in [`registry`].

pub mod auth;
mod cache;
mod cached;
mod digest;
mod error;
mod export;
mod extract;
mod layers;
mod local;
mod opener;
mod reference;
mod registry;
mod tarball;

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use cache::Kind;
pub use cached::cached;
pub use error::ImageError;
pub use export::{ExportError, export};
pub use opener::Opener;
pub use reference::{Source, parse as parse_source};

use cache::{Cache, Entry, Meta, Namespace};
use digest::Digest;
use extract::{Extractor, Wanted};
use fbc_core::guard::limits::Limits;
use layers::{REPEATED, apply_layers};

/// The label naming a catalog image's catalog directory.
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";
/// The label every bundle image carries (its package).
pub const BUNDLE_PACKAGE_LABEL: &str = "operators.operatorframework.io.bundle.package.v1";
/// Where a catalog image keeps its catalog when the label does not say.
pub const DEFAULT_CONFIGS: &str = "/configs";

/// How to reach registries, and whether to use the cache.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Accept TLS certificates that do not verify (self-signed ones).
    pub insecure: bool,
    /// Speak plain HTTP to the registry (local test registries).
    pub plain_http: bool,
    /// Ask the registry again and pull again even when the cache has the image.
    pub refresh: bool,
    /// Draw a progress bar on standard error while pulling (only when it is a terminal).
    pub progress: bool,
    /// The budgets reading the image stays within.
    pub limits: Limits,
}

/// What a caller expects the image to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Catalog,
    Bundle,
    Any,
}

/// An image opened: where its catalog (or bundle) directory is, and what it is.
#[derive(Debug, Clone)]
pub struct Opened {
    /// As the user wrote it.
    pub reference: String,
    /// The manifest digest it is cached under.
    pub digest: String,
    pub kind: Kind,
    /// The extracted directory (read-only: it belongs to the cache).
    pub dir: PathBuf,
    /// Things worth saying (served from the cache while the registry was unreachable, entries left
    /// out).
    pub notes: Vec<String>,
}

/// One layer of a manifest: the digest it is checked against and the size it is read up to.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    pub digest: String,
    pub size: u64,
}

/// A descriptor's digest and size, both required and well-formed.
pub(crate) fn descriptor(v: &Value) -> Result<Layer, DescriptorError> {
    let digest = v["digest"]
        .as_str()
        .filter(|d| Digest::parse(d).is_some())
        .ok_or_else(|| DescriptorError::Digest(short_json(&v["digest"])))?;
    let size = v["size"]
        .as_u64()
        .ok_or_else(|| DescriptorError::Size(short_json(&v["size"])))?;
    Ok(Layer {
        digest: digest.to_string(),
        size,
    })
}

/// A JSON value in at most 80 characters, for messages.
fn short_json(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text
    }
}

/// The layers an image manifest lists.
pub(crate) fn layers_of(manifest: &Value) -> Result<Vec<Layer>, DescriptorError> {
    let Some(list) = manifest["layers"].as_array() else {
        return Err(DescriptorError::NoLayers);
    };
    list.iter()
        .enumerate()
        .map(|(i, l)| {
            descriptor(l).map_err(|why| DescriptorError::Layer {
                n: i + 1,
                why: Box::new(why),
            })
        })
        .collect()
}

/// Why a manifest's descriptors cannot be used (the values shown in at most 80 characters).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DescriptorError {
    #[error("no usable digest ({0})")]
    Digest(String),
    #[error("no usable size ({0})")]
    Size(String),
    #[error("the manifest lists no layers")]
    NoLayers,
    /// The `n`th layer (from 1).
    #[error("layer {n}: {why}")]
    Layer {
        n: usize,
        #[source]
        why: Box<DescriptorError>,
    },
}

/// A manifest resolved to one platform: its digest (the cache key), config and layers.
pub(crate) struct Loaded {
    pub digest: String,
    pub config: Vec<u8>,
    pub layers: Vec<Layer>,
}

/// Whether `arg` names an image rather than a path (see [`parse_source`]).
pub fn is_image(arg: &Path) -> bool {
    arg.to_str().and_then(parse_source).is_some()
}

/// The digest of the index entry to use: this machine's platform when listed, else the first real
/// platform (catalogs are the same on every architecture), else the first entry.
pub(crate) fn pick_platform(entries: &[Value]) -> Option<String> {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        other => other,
    };
    let platform = |e: &Value, os: &str, a: Option<&str>| {
        e["platform"]["os"].as_str() == Some(os)
            && a.is_none_or(|a| e["platform"]["architecture"].as_str() == Some(a))
    };
    entries
        .iter()
        .find(|e| platform(e, "linux", Some(arch)))
        .or_else(|| {
            entries.iter().find(|e| {
                e["platform"]["os"]
                    .as_str()
                    .is_some_and(|os| os != "unknown")
            })
        })
        .or_else(|| entries.first())
        .and_then(|e| e["digest"].as_str().map(str::to_string))
}

/// Opens the image `reference` names: from the cache when it holds it, else pulled (or read) and
/// extracted into the cache.
pub fn open(reference: &str, options: &Options, want: Want) -> Result<Opened, ImageError> {
    let source = parse_source(reference).ok_or_else(|| ImageError::BadReference {
        reference: reference.to_string(),
        why: "expected REGISTRY/REPOSITORY[:TAG][@DIGEST], oci:DIR[:TAG], oci-archive:FILE[:TAG] or docker-archive:FILE[:REF]".into(),
    })?;
    let cache = Cache::open(reference)?;
    let mut notes = Vec::new();
    let limits = &options.limits;
    let entry = match &source {
        Source::Registry(name) => open_remote(reference, name, options, &cache, &mut notes)?,
        Source::OciDir { dir, tag } => {
            let (loaded, image) = local::open_oci(dir, false, tag.as_deref(), reference, limits)?;
            cached_or(&cache, options, reference, loaded, |l| image.open_layer(l))?
        }
        Source::OciArchive { file, tag } => {
            let (loaded, image) = local::open_oci(file, true, tag.as_deref(), reference, limits)?;
            cached_or(&cache, options, reference, loaded, |l| image.open_layer(l))?
        }
        Source::DockerArchive { file, image } => {
            let (loaded, img) = local::open_docker(file, image.as_deref(), reference, limits)?;
            cached_or(&cache, options, reference, loaded, |l| img.open_layer(l))?
        }
    };
    for s in &entry.meta.skipped {
        notes.push(format!("not extracted: {s}"));
    }
    check_kind(reference, &entry.meta.kind, want)?;
    Ok(Opened {
        reference: reference.to_string(),
        digest: entry.meta.digest.clone(),
        kind: entry.meta.kind.clone(),
        dir: entry.dir,
        notes,
    })
}

fn check_kind(reference: &str, kind: &Kind, want: Want) -> Result<(), ImageError> {
    match (kind, want) {
        (Kind::Bundle { package }, Want::Catalog) => Err(ImageError::BundleNotCatalog {
            reference: reference.to_string(),
            package: package.clone(),
        }),
        (Kind::Catalog { configs }, Want::Bundle) => Err(ImageError::NotABundle {
            reference: reference.to_string(),
            labels: format!("{CONFIGS_LABEL}={configs}"),
        }),
        _ => Ok(()),
    }
}

/// An image read from disk: from the cache's local namespace when it holds it, else extracted
/// into it.
fn cached_or(
    cache: &Cache,
    options: &Options,
    reference: &str,
    loaded: Loaded,
    open_layer: impl FnMut(usize) -> Result<Box<dyn Read>, ImageError>,
) -> Result<Entry, ImageError> {
    if !options.refresh
        && let Some(e) = cache.lookup(Namespace::Local, &loaded.digest)
    {
        return Ok(e);
    }
    let mut open_layer = open_layer;
    extract_into(
        cache,
        Namespace::Local,
        options,
        reference,
        &loaded,
        &mut |i| open_layer(i).map(|r| r as Box<dyn Read + '_>),
    )
}

fn open_remote(
    reference: &str,
    name: &str,
    options: &Options,
    cache: &Cache,
    notes: &mut Vec<String>,
) -> Result<Entry, ImageError> {
    let remote = registry::Remote::new(reference, name, options)?;
    let key = remote.key();
    // A digest names one image for good: a cached copy needs no network.
    if !options.refresh
        && let Some(d) = remote.digest()
        && let Some(e) = cache.lookup(Namespace::Registry, d)
    {
        return Ok(e);
    }
    let digest = match remote.resolve() {
        Ok(d) => d,
        Err(e) if registry::Remote::is_offline(&e) && !options.refresh => {
            match cache
                .remembered(&key)
                .and_then(|d| cache.lookup(Namespace::Registry, &d))
            {
                Some(entry) => {
                    notes.push(format!(
                        "the registry cannot be reached ({e}); opened the copy of {reference} cached as {}",
                        entry.meta.digest
                    ));
                    return Ok(entry);
                }
                None => return Err(e),
            }
        }
        Err(e) => return Err(e),
    };
    if !options.refresh
        && let Some(e) = cache.lookup(Namespace::Registry, &digest)
    {
        cache.remember(&key, &digest);
        return Ok(e);
    }
    let loaded = remote.load(&digest)?;
    let entry = extract_into(
        cache,
        Namespace::Registry,
        options,
        reference,
        &loaded,
        &mut |i| remote.open_layer(&loaded.layers[i]),
    )?;
    cache.remember(&key, &digest);
    Ok(entry)
}

/// The image's labels, from its config.
fn labels(config: &Value) -> serde_json::Map<String, Value> {
    config["config"]["Labels"]
        .as_object()
        .or_else(|| config["config"]["labels"].as_object())
        .cloned()
        .unwrap_or_default()
}

fn label_list(labels: &serde_json::Map<String, Value>) -> String {
    if labels.is_empty() {
        return "none".into();
    }
    let mut keys: Vec<&String> = labels.keys().collect();
    keys.sort();
    keys.iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Image path components of an absolute or relative directory (`/configs/` → `["configs"]`).
fn image_components(dir: &str) -> Vec<String> {
    dir.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_string)
        .collect()
}

/// Applies every layer of `loaded` into a staged cache entry and installs it in namespace `ns`.
fn extract_into<'r>(
    cache: &Cache,
    ns: Namespace,
    options: &Options,
    reference: &str,
    loaded: &Loaded,
    open_layer: &mut dyn FnMut(usize) -> Result<Box<dyn Read + 'r>, ImageError>,
) -> Result<Entry, ImageError> {
    let config: Value = serde_json::from_slice(&loaded.config).map_err(|e| {
        ImageError::invalid(reference, format!("the image config is not JSON: {e}"))
    })?;
    let labels = labels(&config);
    let (kind, labelled) = kind_of(&labels);
    let staged = cache.staging(reference)?;
    let content = staged.path().join("content");
    let io_err = |what: String| ImageError::io(reference, what, &cache.root);
    std::fs::create_dir(&content)
        .map_err(|e| io_err(format!("cannot create {}", content.display()))(e))?;
    let mut extractor = Extractor::new(&content, wanted(&kind), options.limits);
    apply_layers(
        &mut extractor,
        cache,
        staged.path(),
        options,
        reference,
        loaded,
        open_layer,
    )?;
    let _ = std::fs::remove_dir_all(staged.path().join(REPEATED));
    if let Kind::Catalog { configs } = &kind
        && !extractor.found
    {
        return Err(if labelled {
            ImageError::NoConfigsDir {
                reference: reference.to_string(),
                dir: configs.clone(),
            }
        } else {
            ImageError::NotACatalog {
                reference: reference.to_string(),
                labels: label_list(&labels),
            }
        });
    }
    let meta = Meta {
        digest: loaded.digest.clone(),
        reference: reference.to_string(),
        kind,
        skipped: extractor.skipped.lines(),
    };
    cache.install(ns, staged, meta)
}

/// What the image's labels say it is: a catalog (with its configs directory) or a bundle, and
/// whether a label said so; an image without either label is taken for a catalog in `/configs`.
fn kind_of(labels: &serde_json::Map<String, Value>) -> (Kind, bool) {
    let label = |k: &str| labels.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(dir) = label(CONFIGS_LABEL) {
        let dir = if image_components(&dir).is_empty() {
            DEFAULT_CONFIGS.to_string()
        } else {
            dir
        };
        (Kind::Catalog { configs: dir }, true)
    } else if let Some(package) = label(BUNDLE_PACKAGE_LABEL) {
        (Kind::Bundle { package }, true)
    } else {
        (
            Kind::Catalog {
                configs: DEFAULT_CONFIGS.to_string(),
            },
            false,
        )
    }
}

/// The directories of the image to keep: a catalog's configs directory as the root, or a
/// bundle's `manifests/` and `metadata/` under their own names.
fn wanted(kind: &Kind) -> Vec<Wanted> {
    match kind {
        Kind::Catalog { configs } => vec![Wanted {
            image: image_components(configs),
            local: PathBuf::new(),
        }],
        Kind::Bundle { .. } => ["manifests", "metadata"]
            .iter()
            .map(|d| Wanted {
                image: vec![d.to_string()],
                local: PathBuf::from(d),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_index_resolves_to_this_platform_or_else_any_real_one() {
        let entries = [
            json!({"digest": "sha256:att", "platform": {"os": "unknown", "architecture": "unknown"}}),
            json!({"digest": "sha256:s390x", "platform": {"os": "linux", "architecture": "s390x"}}),
        ];
        assert_eq!(pick_platform(&entries).as_deref(), Some("sha256:s390x"));
        let mut with_ours = entries.to_vec();
        with_ours.push(json!({"digest": "sha256:ours", "platform": {"os": "linux", "architecture": match std::env::consts::ARCH { "x86_64" => "amd64", "aarch64" => "arm64", a => a }}}));
        assert_eq!(pick_platform(&with_ours).as_deref(), Some("sha256:ours"));
        assert_eq!(pick_platform(&[]), None);
    }

    #[test]
    fn label_directories_are_read_as_image_paths() {
        assert_eq!(image_components("/configs/"), ["configs"]);
        assert_eq!(image_components("./a/b"), ["a", "b"]);
        assert!(image_components("/").is_empty());
    }
}
