//! Images on disk, read without a network: an OCI image layout directory (`oci:DIR[:TAG]`), a tar of
//! one (`oci-archive:FILE[:TAG]`), and `docker save` / `podman save` tarballs
//! (`docker-archive:FILE[:REF]`). Archives are indexed once (entry name → offset and size) and each
//! blob is then read in place, so nothing is unpacked besides the catalog. Every blob is checked
//! against its digest as it is read.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest as _, Sha256};
use thiserror::Error;

use super::error::ImageError;
use super::{Layer, Loaded, pick_platform};

/// Where blobs are read from.
enum Store {
    Dir(PathBuf),
    /// An uncompressed tar: entry name → (offset of its data, size).
    Tar {
        file: PathBuf,
        entries: HashMap<String, (u64, u64)>,
    },
}

impl Store {
    fn open(&self, name: &str) -> io::Result<Box<dyn Read>> {
        match self {
            Store::Dir(dir) => Ok(Box::new(File::open(dir.join(name))?)),
            Store::Tar { file, entries } => {
                let (offset, size) = entries.get(name).copied().ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("the archive has no entry {name}"),
                    )
                })?;
                let mut f = File::open(file)?;
                f.seek(SeekFrom::Start(offset))?;
                Ok(Box::new(f.take(size)))
            }
        }
    }

    /// A small file (a manifest, an index, a config), read whole. Capped: these are JSON
    /// documents, never layers.
    fn read_small(&self, name: &str) -> io::Result<Vec<u8>> {
        const LIMIT: u64 = 16 << 20;
        let mut out = Vec::new();
        self.open(name)?.take(LIMIT + 1).read_to_end(&mut out)?;
        if out.len() as u64 > LIMIT {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{name} is larger than 16 MiB; it is not an image manifest or config"),
            ));
        }
        Ok(out)
    }

    fn index_tar(file: &Path) -> io::Result<Store> {
        let mut head = [0u8; 4];
        let n = File::open(file)?.read(&mut head)?;
        if n >= 2 && head[..2] == [0x1f, 0x8b] {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the archive is gzip-compressed; decompress it first (gunzip)",
            ));
        }
        let mut archive = tar::Archive::new(File::open(file)?);
        let mut entries = HashMap::new();
        for e in archive.entries_with_seek()? {
            let e = e?;
            if !e.header().entry_type().is_file() {
                continue;
            }
            let name = e
                .path()?
                .to_string_lossy()
                .trim_start_matches("./")
                .to_string();
            entries.insert(name, (e.raw_file_position(), e.size()));
        }
        Ok(Store::Tar {
            file: file.to_path_buf(),
            entries,
        })
    }
}

/// A reader that hashes what passes through and, at the end, fails unless the digest matches.
pub(crate) struct Verified<R> {
    inner: R,
    hasher: Sha256,
    expected: Option<String>,
    what: String,
}

impl<R: Read> Verified<R> {
    pub fn new(inner: R, expected: Option<String>, what: String) -> Self {
        Verified {
            inner,
            hasher: Sha256::new(),
            expected,
            what,
        }
    }
}

impl<R: Read> Read for Verified<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 {
            if let Some(expected) = self.expected.take() {
                let got = format!("sha256:{:x}", self.hasher.clone().finalize());
                if got != expected {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{} does not match its digest {expected} (read {got})",
                            self.what
                        ),
                    ));
                }
            }
        } else {
            self.hasher.update(&buf[..n]);
        }
        Ok(n)
    }
}

fn blob_name(digest: &str) -> Option<String> {
    let (alg, hex) = digest.split_once(':')?;
    let ok = alg == "sha256" && hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| format!("blobs/{alg}/{hex}"))
}

/// An image read from disk.
pub(crate) struct LocalImage {
    store: Store,
    reference: String,
    /// Each layer's entry in the store, and the digest it must have.
    layer_files: LayerFiles,
}

impl LocalImage {
    pub fn open_layer(&self, index: usize) -> Result<Box<dyn Read>, ImageError> {
        let (name, digest) = &self.layer_files[index];
        let r = self.store.open(name).map_err(|e| {
            ImageError::invalid(&self.reference, format!("cannot read layer {name}: {e}"))
        })?;
        Ok(Box::new(Verified::new(
            r,
            digest.clone(),
            format!("layer {name}"),
        )))
    }
}

fn bad(reference: &str) -> impl Fn(String) -> ImageError + '_ {
    move |why| ImageError::invalid(reference, why)
}

/// Why a manifest, index or config of a local image cannot be read.
#[derive(Debug, Error)]
enum BlobError {
    #[error("{what} is not valid JSON: {why}")]
    NotJson {
        what: &'static str,
        why: serde_json::Error,
    },
    #[error("unusable digest {0:?}")]
    Digest(String),
    #[error("{name}: {why}")]
    Unreadable { name: String, why: io::Error },
    #[error("{0} does not match its digest")]
    Mismatch(String),
}

impl BlobError {
    /// The image's error for it.
    fn of(reference: &str) -> impl Fn(BlobError) -> ImageError + '_ {
        move |e| ImageError::invalid(reference, e.to_string())
    }
}

fn json(bytes: &[u8], what: &'static str) -> Result<Value, BlobError> {
    serde_json::from_slice(bytes).map_err(|why| BlobError::NotJson { what, why })
}

/// Reads a blob by digest from an OCI layout, checked.
fn blob(store: &Store, digest: &str) -> Result<Vec<u8>, BlobError> {
    let name = blob_name(digest).ok_or_else(|| BlobError::Digest(digest.to_string()))?;
    let data = store
        .read_small(&name)
        .map_err(|why| BlobError::Unreadable {
            name: name.clone(),
            why,
        })?;
    let got = format!("sha256:{:x}", Sha256::digest(&data));
    if got != digest {
        return Err(BlobError::Mismatch(name));
    }
    Ok(data)
}

/// Each layer's entry in a store, and the digest it must have.
type LayerFiles = Vec<(String, Option<String>)>;

/// Opens an OCI image layout (a directory or a tar of one) and picks the manifest tagged `tag`
/// (the only one when no tag is given).
pub(crate) fn open_oci(
    path: &Path,
    archive: bool,
    tag: Option<&str>,
    reference: &str,
) -> Result<(Loaded, LocalImage), ImageError> {
    let bad = bad(reference);
    let blob_bad = BlobError::of(reference);
    let store = oci_store(path, archive, reference)?;
    let index = store
        .read_small("index.json")
        .map_err(|e| bad(format!("not an OCI image layout (index.json: {e})")))?;
    let index = json(&index, "index.json").map_err(&blob_bad)?;
    let manifests = index["manifests"].as_array().cloned().unwrap_or_default();
    let chosen = pick_tagged(&manifests, tag, reference)?;
    let top = chosen["digest"].as_str().unwrap_or_default().to_string();
    let manifest = oci_manifest(&store, &top, reference)?;
    let config_digest = manifest["config"]["digest"].as_str().unwrap_or_default();
    let config = blob(&store, config_digest).map_err(&blob_bad)?;
    let (layers, layer_files) = oci_layers(&manifest, reference)?;
    Ok((
        Loaded {
            digest: top,
            config,
            layers,
        },
        LocalImage {
            store,
            reference: reference.to_string(),
            layer_files,
        },
    ))
}

/// The store of an OCI layout: the directory itself, or the index of the tar holding it.
fn oci_store(path: &Path, archive: bool, reference: &str) -> Result<Store, ImageError> {
    let bad = bad(reference);
    if archive {
        if !path.is_file() {
            return Err(bad(format!("{}: no such file", path.display())));
        }
        Store::index_tar(path).map_err(|e| bad(format!("cannot read the archive: {e}")))
    } else {
        if !path.is_dir() {
            return Err(bad(format!("{}: no such directory", path.display())));
        }
        Ok(Store::Dir(path.to_path_buf()))
    }
}

/// The entry of an OCI index tagged `tag`, or the only one when no tag is given.
fn pick_tagged<'m>(
    manifests: &'m [Value],
    tag: Option<&str>,
    reference: &str,
) -> Result<&'m Value, ImageError> {
    let name_of = |m: &Value| {
        m["annotations"]["org.opencontainers.image.ref.name"]
            .as_str()
            .map(str::to_string)
    };
    match tag {
        Some(t) => manifests
            .iter()
            .find(|m| name_of(m).as_deref() == Some(t))
            .ok_or_else(|| {
                let names: Vec<String> = manifests.iter().filter_map(name_of).collect();
                ImageError::ManifestUnknown {
                    reference: reference.to_string(),
                    wanted: format!(
                        "tagged {t:?} in the layout (tags: {})",
                        if names.is_empty() {
                            "none".into()
                        } else {
                            names.join(", ")
                        }
                    ),
                }
            }),
        None if manifests.len() == 1 => Ok(&manifests[0]),
        None => {
            let names: Vec<String> = manifests.iter().filter_map(name_of).collect();
            Err(bad(reference)(format!(
                "the layout holds {} images; name one with :TAG (tags: {})",
                manifests.len(),
                names.join(", ")
            )))
        }
    }
}

/// The image manifest with digest `top`, or, when `top` is an image index, the manifest it lists
/// for this platform.
fn oci_manifest(store: &Store, top: &str, reference: &str) -> Result<Value, ImageError> {
    let blob_bad = BlobError::of(reference);
    let manifest =
        json(&blob(store, top).map_err(&blob_bad)?, "the manifest").map_err(&blob_bad)?;
    if manifest.get("manifests").is_none() {
        return Ok(manifest);
    }
    let entries = manifest["manifests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let d = pick_platform(&entries)
        .ok_or_else(|| bad(reference)("the image index lists no manifests".into()))?;
    json(&blob(store, &d).map_err(&blob_bad)?, "the manifest").map_err(&blob_bad)
}

/// The layers of an OCI manifest, each a blob named after its digest.
fn oci_layers(manifest: &Value, reference: &str) -> Result<(Vec<Layer>, LayerFiles), ImageError> {
    let mut layers = Vec::new();
    let mut layer_files = Vec::new();
    for l in manifest["layers"].as_array().into_iter().flatten() {
        let digest = l["digest"].as_str().unwrap_or_default().to_string();
        let name = blob_name(&digest)
            .ok_or_else(|| bad(reference)(format!("unusable layer digest {digest:?}")))?;
        layers.push(Layer {
            digest: digest.clone(),
            size: l["size"].as_u64().unwrap_or(0),
        });
        layer_files.push((name, Some(digest)));
    }
    Ok((layers, layer_files))
}

/// Opens a `docker save` tarball and picks the image tagged `image` (the only one when none is
/// given). Its cache key is the digest of its config, which names every layer.
pub(crate) fn open_docker(
    file: &Path,
    image: Option<&str>,
    reference: &str,
) -> Result<(Loaded, LocalImage), ImageError> {
    let bad = bad(reference);
    let blob_bad = BlobError::of(reference);
    if !file.is_file() {
        return Err(bad(format!("{}: no such file", file.display())));
    }
    let store = Store::index_tar(file).map_err(|e| bad(format!("cannot read the archive: {e}")))?;
    let manifest = store
        .read_small("manifest.json")
        .map_err(|e| bad(format!("not a docker archive (manifest.json: {e})")))?;
    let manifest = json(&manifest, "manifest.json").map_err(&blob_bad)?;
    let images = manifest.as_array().cloned().unwrap_or_default();
    let chosen = pick_repo_tagged(&images, image, reference)?;
    let config_name = chosen["Config"].as_str().unwrap_or_default();
    let config = store
        .read_small(config_name)
        .map_err(|e| bad(format!("config {config_name}: {e}")))?;
    let digest = format!("sha256:{:x}", Sha256::digest(&config));
    let config_json = json(&config, "the config").map_err(&blob_bad)?;
    let diff_ids: Vec<String> = config_json["rootfs"]["diff_ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d.as_str().map(str::to_string))
        .collect();
    let (layers, layer_files) = docker_layers(chosen, &store, &diff_ids);
    Ok((
        Loaded {
            digest,
            config,
            layers,
        },
        LocalImage {
            store,
            reference: reference.to_string(),
            layer_files,
        },
    ))
}

/// The image of a docker archive whose `RepoTags` hold `image` (whole, or as the tail after a
/// `/`), or the only one when none is given.
fn pick_repo_tagged<'m>(
    images: &'m [Value],
    image: Option<&str>,
    reference: &str,
) -> Result<&'m Value, ImageError> {
    let tags = |m: &Value| -> Vec<String> {
        m["RepoTags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect()
    };
    match image {
        Some(want) => images
            .iter()
            .find(|m| {
                tags(m)
                    .iter()
                    .any(|t| t == want || t.ends_with(&format!("/{want}")))
            })
            .ok_or_else(|| ImageError::ManifestUnknown {
                reference: reference.to_string(),
                wanted: format!(
                    "tagged {want:?} in the archive (tags: {})",
                    images.iter().flat_map(tags).collect::<Vec<_>>().join(", ")
                ),
            }),
        None if images.len() == 1 => Ok(&images[0]),
        None => Err(bad(reference)(format!(
            "the archive holds {} images; name one with :REF (tags: {})",
            images.len(),
            images.iter().flat_map(tags).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The layers of a docker archive's image, in its manifest's order. Layers of a docker archive are
/// plain tars: their digest is the config's diff_id, unless the entry is named after its own digest.
fn docker_layers(chosen: &Value, store: &Store, diff_ids: &[String]) -> (Vec<Layer>, LayerFiles) {
    let mut layers = Vec::new();
    let mut layer_files = Vec::new();
    for (i, l) in chosen["Layers"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = l.as_str().unwrap_or_default().to_string();
        let size = match store {
            Store::Tar { entries, .. } => entries.get(&name).map_or(0, |e| e.1),
            Store::Dir(_) => 0,
        };
        let expected = name
            .strip_prefix("blobs/sha256/")
            .map(|h| format!("sha256:{h}"))
            .or_else(|| diff_ids.get(i).cloned());
        layers.push(Layer {
            digest: expected.clone().unwrap_or_else(|| name.clone()),
            size,
        });
        layer_files.push((name, expected));
    }
    (layers, layer_files)
}
