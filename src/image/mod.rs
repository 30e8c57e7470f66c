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
//! of [`crate::guard::limits`] (`Options::limits`). The network client stays in [`registry`].

pub mod auth;
mod cache;
mod digest;
mod error;
mod extract;
mod local;
mod reference;
mod registry;
mod tarball;

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use cache::Kind;
pub use error::ImageError;
pub use reference::{Source, parse as parse_source};

use crate::guard::limits::{Limit, Limits};
use cache::{Cache, Entry, Meta, Namespace};
use digest::Digest;
use extract::{Extractor, Wanted};

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
pub(crate) fn descriptor(v: &Value) -> Result<Layer, String> {
    let digest = v["digest"]
        .as_str()
        .filter(|d| Digest::parse(d).is_some())
        .ok_or_else(|| format!("no usable digest ({})", short_json(&v["digest"])))?;
    let size = v["size"]
        .as_u64()
        .ok_or_else(|| format!("no usable size ({})", short_json(&v["size"])))?;
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
pub(crate) fn layers_of(manifest: &Value) -> Result<Vec<Layer>, String> {
    let Some(list) = manifest["layers"].as_array() else {
        return Err("the manifest lists no layers".into());
    };
    list.iter()
        .enumerate()
        .map(|(i, l)| descriptor(l).map_err(|why| format!("layer {}: {why}", i + 1)))
        .collect()
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

/// Applies the layers in order. Each is read up to its declared size and checked against its
/// digest; a layer listed more than once is fetched once, kept beside the entry being built (in
/// `staging`) and applied again from there. A layer that cannot be applied is named by number and
/// digest.
fn apply_layers<'r>(
    extractor: &mut Extractor,
    cache: &Cache,
    staging: &Path,
    options: &Options,
    reference: &str,
    loaded: &Loaded,
    open_layer: &mut dyn FnMut(usize) -> Result<Box<dyn Read + 'r>, ImageError>,
) -> Result<(), ImageError> {
    let limits = &options.limits;
    if loaded.layers.len() as u64 > limits.get(Limit::Layers) {
        return Err(ImageError::invalid(
            reference,
            limits.exceeded(
                Limit::Layers,
                &format!("the image has {} layers", loaded.layers.len()),
            ),
        ));
    }
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for l in &loaded.layers {
        *uses.entry(l.digest.as_str()).or_default() += 1;
    }
    let declared = unique_size(&loaded.layers);
    if declared > limits.get(Limit::ImageSize) {
        return Err(ImageError::invalid(
            reference,
            limits.exceeded(
                Limit::ImageSize,
                &format!("the image's layers are {declared} bytes"),
            ),
        ));
    }
    // Local images have no request deadlines: the read of every layer is bounded here.
    let deadline = std::time::Instant::now() + limits.time(Limit::PullTime);
    let mut kept: HashMap<&str, PathBuf> = HashMap::new();
    let progress = Progress::new(reference, loaded, options.progress);
    for (i, layer) in loaded.layers.iter().enumerate() {
        progress.layer(i);
        let fail = |e: io::Error| match ImageError::io(reference, "", &cache.root)(e) {
            full @ ImageError::DiskFull { .. } => full,
            ImageError::Io { why, .. } => ImageError::invalid(
                reference,
                format!("layer {} ({}): {why}", i + 1, layer.digest),
            ),
            other => other,
        };
        let result = if let Some(copy) = kept.get(layer.digest.as_str()) {
            std::fs::File::open(copy).and_then(|mut f| extractor.apply_layer(&mut f))
        } else {
            let raw = open_layer(i)?;
            let digest = Digest::parse(&layer.digest).ok_or_else(|| {
                ImageError::invalid(
                    reference,
                    format!("layer {}: unusable digest {:?}", i + 1, layer.digest),
                )
            })?;
            let mut checked = Checked::new(raw, &digest, layer.size, &progress.bar);
            checked.deadline = Some((deadline, *limits));
            let copy = (uses[layer.digest.as_str()] > 1).then(|| {
                staging
                    .join(REPEATED)
                    .join(digest.as_str().replace(':', "-"))
            });
            let applied = match &copy {
                Some(path) => keep_copy(&mut checked, path, extractor).and_then(|()| {
                    std::fs::File::open(path).and_then(|mut f| extractor.apply_layer(&mut f))
                }),
                None => extractor
                    .apply_layer(&mut checked)
                    .and_then(|()| io::copy(&mut checked, &mut io::sink()).map(|_| ())),
            };
            if let (Ok(()), Some(path)) = (&applied, copy) {
                kept.insert(layer.digest.as_str(), path);
            }
            applied
        };
        if let Err(e) = result {
            progress.bar.abandon();
            return Err(fail(e));
        }
    }
    progress.bar.finish_and_clear();
    Ok(())
}

/// Where layers listed more than once are kept while an entry is built (removed before it is
/// installed).
pub(crate) const REPEATED: &str = "repeated-layers";

/// Writes a layer listed more than once to `path` whole (checked as it is read), its bytes
/// counted with what the extraction writes, within the `extract-bytes` budget.
fn keep_copy(layer: &mut dyn Read, path: &Path, extractor: &mut Extractor) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = std::fs::File::create(path)?;
    extractor.copy_counted(layer, &mut out)
}

/// The declared size of the distinct layers (saturating).
fn unique_size(layers: &[Layer]) -> u64 {
    let mut seen = std::collections::HashSet::new();
    layers
        .iter()
        .filter(|l| seen.insert(l.digest.as_str()))
        .fold(0u64, |sum, l| sum.saturating_add(l.size))
}

/// A layer's bytes: read up to its declared size and no further, counted into the progress bar,
/// and checked against its digest once that size is reached. Shorter than declared, or a digest
/// that does not match, is an error.
struct Checked<'b, R> {
    inner: R,
    hasher: Option<digest::Hasher>,
    digest: String,
    left: u64,
    declared: u64,
    bar: &'b indicatif::ProgressBar,
    /// When reading must be over (the `pull-time` budget), with the budgets for the message.
    deadline: Option<(std::time::Instant, Limits)>,
}

impl<'b, R: Read> Checked<'b, R> {
    fn new(inner: R, digest: &Digest, size: u64, bar: &'b indicatif::ProgressBar) -> Self {
        Checked {
            inner,
            hasher: Some(digest.hasher()),
            digest: digest.as_str().to_string(),
            left: size,
            declared: size,
            bar,
            deadline: None,
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(h) = self.hasher.take() {
            let got = h.finish();
            if got != self.digest {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the layer does not match its digest {} (read {got})",
                        self.digest
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Checked<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            self.finish()?;
            return Ok(0);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some((deadline, limits)) = &self.deadline
            && std::time::Instant::now() > *deadline
        {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                limits.exceeded(
                    Limit::PullTime,
                    "reading the image took longer than allowed",
                ),
            ));
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the layer ends after {} of its declared {} bytes",
                    self.declared - self.left,
                    self.declared
                ),
            ));
        }
        self.left -= n as u64;
        if let Some(h) = &mut self.hasher {
            h.update(&buf[..n]);
        }
        self.bar.inc(n as u64);
        if self.left == 0 {
            self.finish()?;
        }
        Ok(n)
    }
}

/// The progress bar: bytes of all layers, and which layer is being read. Hidden unless asked for
/// and standard error is a terminal.
struct Progress {
    bar: indicatif::ProgressBar,
    layers: usize,
    reference: String,
}

impl Progress {
    fn new(reference: &str, loaded: &Loaded, shown: bool) -> Progress {
        let total = unique_size(&loaded.layers);
        let target = if shown {
            indicatif::ProgressDrawTarget::stderr()
        } else {
            indicatif::ProgressDrawTarget::hidden()
        };
        let bar = indicatif::ProgressBar::with_draw_target(Some(total), target);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress {
            bar,
            layers: loaded.layers.len(),
            reference: reference.to_string(),
        }
    }

    fn layer(&self, i: usize) {
        self.bar.set_message(format!(
            "{} layer {}/{}",
            self.reference,
            i + 1,
            self.layers
        ));
    }
}

/// Why an image's directory could not be written out.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{} already exists and is not an empty directory", .0.display())]
    NotEmpty(PathBuf),
    #[error("cannot write {}: {why}", to.display())]
    Write { to: PathBuf, why: io::Error },
}

/// Copies an opened image's directory (`from`) to `to`, which must not exist or be empty, as files
/// the user owns and can edit, within the `extract-bytes` and `extract-files` budgets. Returns how
/// many files were written.
pub fn export(from: &Path, to: &Path, limits: &Limits) -> Result<usize, ExportError> {
    if to.exists() {
        let empty = std::fs::read_dir(to)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(ExportError::NotEmpty(to.to_path_buf()));
        }
    }
    let mut budget = ExportBudget {
        bytes: limits.get(Limit::ExtractBytes),
        files: limits.get(Limit::ExtractFiles),
        limits,
        linked: HashMap::new(),
    };
    copy_tree(from, to, &mut budget).map_err(|why| ExportError::Write {
        to: to.to_path_buf(),
        why,
    })
}

/// What an export may still write, and the files written so far that other names link to.
struct ExportBudget<'l> {
    bytes: u64,
    files: u64,
    limits: &'l Limits,
    /// (device, inode) of a file with several names → where it was written.
    linked: HashMap<(u64, u64), PathBuf>,
}

impl ExportBudget<'_> {
    fn take(&mut self, bytes: u64) -> io::Result<()> {
        if self.files == 0 {
            return Err(io::Error::other(self.limits.exceeded(
                Limit::ExtractFiles,
                "the image holds more files than allowed",
            )));
        }
        self.files -= 1;
        self.bytes = self.bytes.checked_sub(bytes).ok_or_else(|| {
            io::Error::other(self.limits.exceeded(
                Limit::ExtractBytes,
                "the image holds more bytes than allowed",
            ))
        })?;
        Ok(())
    }
}

fn copy_tree(from: &Path, to: &Path, budget: &mut ExportBudget) -> io::Result<usize> {
    budget.take(0)?;
    std::fs::create_dir_all(to)?;
    let mut count = 0;
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let target = to.join(e.file_name());
        let kind = e.file_type()?;
        if kind.is_dir() {
            count += copy_tree(&e.path(), &target, budget)?;
        } else if kind.is_file() {
            use std::os::unix::fs::MetadataExt as _;
            let meta = e.metadata()?;
            // Names of one file in the image stay one file: a link costs no bytes.
            let key = (meta.dev(), meta.ino());
            if let Some(first) = budget.linked.get(&key).cloned() {
                budget.take(0)?;
                std::fs::hard_link(first, &target)?;
            } else {
                budget.take(meta.len())?;
                std::fs::copy(e.path(), &target)?;
                if meta.nlink() > 1 {
                    budget.linked.insert(key, target);
                }
            }
            count += 1;
        }
    }
    Ok(count)
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
