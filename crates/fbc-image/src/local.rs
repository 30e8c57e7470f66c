//! Images on disk, read without a network: an OCI image layout directory (`oci:DIR[:TAG]`), a tar of
//! one (`oci-archive:FILE[:TAG]`), and `docker save` / `podman save` tarballs
//! (`docker-archive:FILE[:REF]`). Archives are indexed once (entry name → offset and size, within
//! the `archive-entries` budget) and each blob is then read in place, so nothing is unpacked besides
//! the catalog.
//!
//! Everything read is untrusted: a layout's files are read only when they are regular files inside
//! the layout (a FIFO, a device or a link out of it is refused), manifests, indexes and configs are
//! bounded by their budgets and checked against their digests, and every layer has a digest it is
//! checked against as it is read: its descriptor's in a layout, and in a docker archive the
//! config's `diff_id` or its file name's, or else the digest of its bytes, taken before it is used.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;
use thiserror::Error;

use super::digest::Digest;
use super::error::ImageError;
use super::tarball::{EntryKind, Seekable, TarReader};
use super::{Layer, Loaded, pick_platform};
use fbc_core::guard::file as guarded;
use fbc_core::guard::limits::{Limit, Limits};
use fbc_core::guard::path;

/// Where blobs are read from.
enum Store {
    /// A layout directory (canonical).
    Dir(PathBuf),
    /// An uncompressed tar: entry name → (offset of its data, size).
    Tar {
        file: PathBuf,
        entries: HashMap<String, (u64, u64)>,
    },
}

fn not_found(name: &str, in_what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("the {in_what} has no entry {name}"),
    )
}

impl Store {
    /// The regular file `name` of a layout directory, refused when it leads out of the layout or
    /// is not a regular file.
    fn dir_file(root: &Path, name: &str) -> io::Result<(File, u64)> {
        let path = root.join(name);
        let real = path.canonicalize()?;
        if !real.starts_with(root) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{name} is a link to {}, outside the layout; not read",
                    real.display()
                ),
            ));
        }
        let (file, meta) = guarded::open_regular(&real).map_err(io::Error::from)?;
        Ok((file, meta.len()))
    }

    /// A reader over `name`, and its size.
    fn open(&self, name: &str) -> io::Result<(Box<dyn Read>, u64)> {
        match self {
            Store::Dir(root) => {
                let (file, len) = Store::dir_file(root, name)?;
                Ok((Box::new(file), len))
            }
            Store::Tar { file, entries } => {
                let (offset, size) = entries
                    .get(name)
                    .copied()
                    .ok_or_else(|| not_found(name, "archive"))?;
                let (mut f, _) = guarded::open_regular(file).map_err(io::Error::from)?;
                f.seek(SeekFrom::Start(offset))?;
                Ok((Box::new(f.take(size)), size))
            }
        }
    }

    /// A small file (a manifest, an index, a config), read whole within `limit` bytes.
    fn read_small(&self, name: &str, limit: Limit, limits: &Limits) -> io::Result<Vec<u8>> {
        let (reader, size) = self.open(name)?;
        let max = limits.get(limit);
        let too_large = |len: u64| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                limits.exceeded(limit, &format!("{name} is {len} bytes")),
            )
        };
        if size > max {
            return Err(too_large(size));
        }
        let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        reader.take(max + 1).read_to_end(&mut out)?;
        if out.len() as u64 > max {
            return Err(too_large(out.len() as u64));
        }
        Ok(out)
    }

    /// The size of entry `name`, when it is there.
    fn size(&self, name: &str) -> Option<u64> {
        match self {
            Store::Dir(root) => Store::dir_file(root, name).ok().map(|(_, len)| len),
            Store::Tar { entries, .. } => entries.get(name).map(|e| e.1),
        }
    }

    /// Indexes the regular files of an uncompressed tar, within the `archive-entries` budget.
    fn index_tar(file: &Path, limits: &Limits) -> io::Result<Store> {
        let (mut f, meta) = guarded::open_regular(file).map_err(io::Error::from)?;
        let mut head = [0u8; 4];
        let n = f.read(&mut head)?;
        if n >= 2 && head[..2] == [0x1f, 0x8b] {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the archive is gzip-compressed; decompress it first (gunzip)",
            ));
        }
        f.seek(SeekFrom::Start(0))?;
        let limits = *limits;
        let mut archive = TarReader::new(
            Seekable {
                file: f,
                len: meta.len(),
                pos: 0,
            },
            limits.get(Limit::TarHeader),
            Box::new(move |what, size| {
                limits.exceeded(
                    Limit::TarHeader,
                    &format!("the archive holds {what} of {size} bytes"),
                )
            }),
        );
        let most = limits.get(Limit::ArchiveEntries);
        let mut entries = HashMap::new();
        let mut count: u64 = 0;
        while let Some(e) = archive.next_entry()? {
            count += 1;
            if count > most {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    limits.exceeded(
                        Limit::ArchiveEntries,
                        "the archive holds more entries than allowed",
                    ),
                ));
            }
            if e.kind != EntryKind::File {
                continue;
            }
            let Some(name) = std::str::from_utf8(&e.path)
                .ok()
                .and_then(|p| path::relative(p).ok())
            else {
                continue;
            };
            let offset = archive.source().pos;
            if offset
                .checked_add(e.size)
                .is_none_or(|end| end > meta.len())
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the archive ends inside {name}"),
                ));
            }
            entries.insert(name.as_slash(), (offset, e.size));
        }
        Ok(Store::Tar {
            file: file.to_path_buf(),
            entries,
        })
    }
}

/// An image read from disk.
pub(crate) struct LocalImage {
    store: Store,
    reference: String,
    /// Each layer's entry in the store.
    layer_files: Vec<String>,
}

impl LocalImage {
    /// The raw bytes of layer `index` (checked against its digest and size by the caller).
    pub fn open_layer(&self, index: usize) -> Result<Box<dyn Read>, ImageError> {
        let name = &self.layer_files[index];
        let (r, _) = self.store.open(name).map_err(|e| {
            ImageError::invalid(&self.reference, format!("cannot read layer {name}: {e}"))
        })?;
        Ok(r)
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

/// The entry name of the blob with `digest` in a layout.
fn blob_name(digest: &Digest) -> String {
    let (alg, hex) = digest.as_str().split_once(':').unwrap_or_default();
    format!("blobs/{alg}/{hex}")
}

/// Reads a blob by digest from an OCI layout, within `limit`, checked.
fn blob(store: &Store, digest: &str, limit: Limit, limits: &Limits) -> Result<Vec<u8>, BlobError> {
    let d = Digest::parse(digest).ok_or_else(|| BlobError::Digest(digest.to_string()))?;
    let name = blob_name(&d);
    let data = store
        .read_small(&name, limit, limits)
        .map_err(|why| BlobError::Unreadable {
            name: name.clone(),
            why,
        })?;
    if !d.matches(&data) {
        return Err(BlobError::Mismatch(name));
    }
    Ok(data)
}

/// Opens an OCI image layout (a directory or a tar of one) and picks the manifest tagged `tag`
/// (the only one when no tag is given). Its key is the manifest's digest, which names every blob.
pub(crate) fn open_oci(
    path: &Path,
    archive: bool,
    tag: Option<&str>,
    reference: &str,
    limits: &Limits,
) -> Result<(Loaded, LocalImage), ImageError> {
    let bad = bad(reference);
    let blob_bad = BlobError::of(reference);
    let store = oci_store(path, archive, reference, limits)?;
    let index = store
        .read_small("index.json", Limit::ManifestSize, limits)
        .map_err(|e| bad(format!("not an OCI image layout (index.json: {e})")))?;
    let index = json(&index, "index.json").map_err(&blob_bad)?;
    let manifests = index["manifests"].as_array().cloned().unwrap_or_default();
    let chosen = pick_tagged(&manifests, tag, reference)?;
    let top = chosen["digest"].as_str().unwrap_or_default().to_string();
    let manifest = oci_manifest(&store, &top, reference, limits)?;
    let config_desc = super::descriptor(&manifest["config"])
        .map_err(|why| bad(format!("the manifest's config: {why}")))?;
    let config = blob(&store, &config_desc.digest, Limit::ConfigSize, limits).map_err(&blob_bad)?;
    let layers = super::layers_of(&manifest).map_err(|why| bad(why.to_string()))?;
    let layer_files = layers
        .iter()
        .map(|l| Digest::parse(&l.digest).map(|d| blob_name(&d)))
        .collect::<Option<Vec<String>>>()
        .ok_or_else(|| bad("a layer has an unusable digest".into()))?;
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
fn oci_store(
    path: &Path,
    archive: bool,
    reference: &str,
    limits: &Limits,
) -> Result<Store, ImageError> {
    let bad = bad(reference);
    if archive {
        if !path.is_file() {
            return Err(bad(format!("{}: no such file", path.display())));
        }
        Store::index_tar(path, limits).map_err(|e| bad(format!("cannot read the archive: {e}")))
    } else {
        if !path.is_dir() {
            return Err(bad(format!("{}: no such directory", path.display())));
        }
        let root = path
            .canonicalize()
            .map_err(|e| bad(format!("{}: {e}", path.display())))?;
        Ok(Store::Dir(root))
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
    let listed = |names: Vec<String>| {
        if names.is_empty() {
            return "none".to_string();
        }
        let shown: Vec<String> = names.iter().take(20).cloned().collect();
        let more = names.len().saturating_sub(20);
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    match tag {
        Some(t) => manifests
            .iter()
            .find(|m| name_of(m).as_deref() == Some(t))
            .ok_or_else(|| {
                let names: Vec<String> = manifests.iter().filter_map(name_of).collect();
                ImageError::ManifestUnknown {
                    reference: reference.to_string(),
                    wanted: format!("tagged {t:?} in the layout (tags: {})", listed(names)),
                }
            }),
        None if manifests.len() == 1 => Ok(&manifests[0]),
        None => {
            let names: Vec<String> = manifests.iter().filter_map(name_of).collect();
            Err(bad(reference)(format!(
                "the layout holds {} images; name one with :TAG (tags: {})",
                manifests.len(),
                listed(names)
            )))
        }
    }
}

/// The image manifest with digest `top`, or, when `top` is an image index, the manifest it lists
/// for this platform.
fn oci_manifest(
    store: &Store,
    top: &str,
    reference: &str,
    limits: &Limits,
) -> Result<Value, ImageError> {
    let blob_bad = BlobError::of(reference);
    let manifest = json(
        &blob(store, top, Limit::ManifestSize, limits).map_err(&blob_bad)?,
        "the manifest",
    )
    .map_err(&blob_bad)?;
    if manifest.get("manifests").is_none() {
        return Ok(manifest);
    }
    let entries = manifest["manifests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let d = pick_platform(&entries)
        .ok_or_else(|| bad(reference)("the image index lists no manifests".into()))?;
    json(
        &blob(store, &d, Limit::ManifestSize, limits).map_err(&blob_bad)?,
        "the manifest",
    )
    .map_err(&blob_bad)
}

/// Opens a `docker save` tarball and picks the image tagged `image` (the only one when none is
/// given). Its key is a digest over its config's digest and every layer's, each layer's digest
/// being one it is checked against when read.
pub(crate) fn open_docker(
    file: &Path,
    image: Option<&str>,
    reference: &str,
    limits: &Limits,
) -> Result<(Loaded, LocalImage), ImageError> {
    let bad = bad(reference);
    let blob_bad = BlobError::of(reference);
    if !file.is_file() {
        return Err(bad(format!("{}: no such file", file.display())));
    }
    let store =
        Store::index_tar(file, limits).map_err(|e| bad(format!("cannot read the archive: {e}")))?;
    let manifest = store
        .read_small("manifest.json", Limit::ManifestSize, limits)
        .map_err(|e| bad(format!("not a docker archive (manifest.json: {e})")))?;
    let manifest = json(&manifest, "manifest.json").map_err(&blob_bad)?;
    let images = manifest.as_array().cloned().unwrap_or_default();
    let chosen = pick_repo_tagged(&images, image, reference)?;
    let config_name = entry_name(chosen["Config"].as_str().unwrap_or_default())
        .ok_or_else(|| bad("manifest.json names no usable config".into()))?;
    let config = store
        .read_small(&config_name, Limit::ConfigSize, limits)
        .map_err(|e| bad(format!("config {config_name}: {e}")))?;
    let config_json = json(&config, "the config").map_err(&blob_bad)?;
    let diff_ids: Vec<String> = config_json["rootfs"]["diff_ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d.as_str().map(str::to_string))
        .collect();
    let (layers, layer_files) = docker_layers(chosen, &store, &diff_ids, reference, limits)?;
    let mut key = format!("docker-archive\n{}\n", Digest::sha256_of(&config));
    for l in &layers {
        key.push_str(&l.digest);
        key.push('\n');
    }
    Ok((
        Loaded {
            digest: Digest::sha256_of(key.as_bytes()),
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

/// An archive entry name from input, as the index keys it.
fn entry_name(name: &str) -> Option<String> {
    path::relative(name).ok().map(|p| p.as_slash())
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
    let all_tags = || {
        let all: Vec<String> = images.iter().flat_map(tags).collect();
        let more = all.len().saturating_sub(20);
        let shown = all.into_iter().take(20).collect::<Vec<_>>().join(", ");
        if more > 0 {
            format!("{shown} and {more} more")
        } else {
            shown
        }
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
                wanted: format!("tagged {want:?} in the archive (tags: {})", all_tags()),
            }),
        None if images.len() == 1 => Ok(&images[0]),
        None => Err(bad(reference)(format!(
            "the archive holds {} images; name one with :REF (tags: {})",
            images.len(),
            all_tags()
        ))),
    }
}

/// The layers of a docker archive's image, in its manifest's order. Layers of a docker archive are
/// plain tars: each is checked against the digest its entry is named after (`blobs/sha256/…`),
/// else against the config's diff_id when the config lists one for every layer, else against the
/// digest of its bytes, read once here.
fn docker_layers(
    chosen: &Value,
    store: &Store,
    diff_ids: &[String],
    reference: &str,
    limits: &Limits,
) -> Result<(Vec<Layer>, Vec<String>), ImageError> {
    let bad = bad(reference);
    let listed: Vec<&Value> = chosen["Layers"].as_array().into_iter().flatten().collect();
    if listed.len() as u64 > limits.get(Limit::Layers) {
        return Err(bad(limits.exceeded(
            Limit::Layers,
            &format!("the image has {} layers", listed.len()),
        )));
    }
    let by_diff_id = diff_ids.len() == listed.len();
    let mut entries = Vec::new();
    for (i, l) in listed.into_iter().enumerate() {
        let name = entry_name(l.as_str().unwrap_or_default())
            .ok_or_else(|| bad(format!("layer {} has no usable entry name", i + 1)))?;
        let size = store
            .size(&name)
            .ok_or_else(|| bad(format!("the archive has no layer {name}")))?;
        entries.push((name, size));
    }
    // Before any layer is hashed: the archive's layers within the image-size budget.
    let total = super::layers::distinct_total(entries.iter().map(|(n, size)| (n.as_str(), *size)));
    if total > limits.get(Limit::ImageSize) {
        return Err(bad(limits.exceeded(
            Limit::ImageSize,
            &format!("the image's layers are {total} bytes"),
        )));
    }
    let mut layers = Vec::new();
    let mut layer_files = Vec::new();
    for (i, (name, size)) in entries.into_iter().enumerate() {
        let named = name
            .strip_prefix("blobs/sha256/")
            .map(|h| format!("sha256:{h}"))
            .filter(|d| Digest::parse(d).is_some());
        let by_config = if by_diff_id {
            Some(diff_ids[i].clone()).filter(|d| Digest::parse(d).is_some())
        } else {
            None
        };
        let expected = named.or(by_config);
        let digest = match expected {
            Some(d) => d,
            None => hash_entry(store, &name).map_err(|e| bad(format!("layer {name}: {e}")))?,
        };
        layers.push(Layer { digest, size });
        layer_files.push(name);
    }
    Ok((layers, layer_files))
}

/// The SHA-256 digest of an entry's bytes.
fn hash_entry(store: &Store, name: &str) -> io::Result<String> {
    let (mut r, _) = store.open(name)?;
    let mut h = super::digest::Hasher::sha256();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            return Ok(h.finish());
        }
        h.update(&buf[..n]);
    }
}
