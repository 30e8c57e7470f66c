//! The image cache: one directory per manifest digest under the user's cache directory
//! (`$FBC_EDIT_CACHE_DIR`, else the platform's cache directory for fbc-edit, e.g.
//! `~/.cache/fbc-edit`), holding what was extracted (`content/`) and what the image is
//! (`image.json`); and, per registry reference, the digest it last resolved to, so that a tag opens
//! offline. An entry is built in a temporary directory beside the entries and renamed into place, so a
//! failed or interrupted pull leaves nothing half-written behind.

use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::error::ImageError;

/// What an image holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Kind {
    /// A catalog image: `content/` is its catalog directory (`configs` says where it was).
    Catalog { configs: String },
    /// A bundle image: `content/` holds its `manifests/` and `metadata/`.
    Bundle { package: String },
}

/// What `image.json` records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    pub digest: String,
    /// The reference it was first pulled or read as.
    pub reference: String,
    #[serde(flatten)]
    pub kind: Kind,
    /// Entries of the image that were not extracted, and why.
    #[serde(default)]
    pub skipped: Vec<String>,
}

/// A complete cache entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub meta: Meta,
    /// The extracted directory.
    pub dir: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
struct RefRecord {
    reference: String,
    digest: String,
}

pub(crate) struct Cache {
    pub root: PathBuf,
}

impl Cache {
    /// The cache under `$FBC_EDIT_CACHE_DIR` or the platform's cache directory.
    pub fn open(reference: &str) -> Result<Cache, ImageError> {
        let root = match std::env::var_os("FBC_EDIT_CACHE_DIR") {
            Some(d) => PathBuf::from(d),
            None => directories::ProjectDirs::from("", "", "fbc-edit")
                .map(|d| d.cache_dir().to_path_buf())
                .ok_or_else(|| {
                    ImageError::invalid(
                        reference,
                        "this system has no cache directory for fbc-edit; set FBC_EDIT_CACHE_DIR",
                    )
                })?,
        };
        Ok(Cache { root })
    }

    fn entry_dir(&self, digest: &str) -> Option<PathBuf> {
        let (alg, hex) = digest.split_once(':')?;
        let ok = !alg.is_empty()
            && alg.bytes().all(|b| b.is_ascii_alphanumeric())
            && hex.len() >= 32
            && hex.bytes().all(|b| b.is_ascii_hexdigit());
        ok.then(|| self.root.join("images").join(format!("{alg}-{hex}")))
    }

    /// The entry for `digest`, when it is complete.
    pub fn lookup(&self, digest: &str) -> Option<Entry> {
        let dir = self.entry_dir(digest)?;
        let text = fs::read_to_string(dir.join("image.json")).ok()?;
        let meta: Meta = serde_json::from_str(&text).ok()?;
        let content = dir.join("content");
        content.is_dir().then_some(Entry { meta, dir: content })
    }

    fn ref_file(&self, reference: &str) -> PathBuf {
        let key = format!("{:x}", Sha256::digest(reference.as_bytes()));
        self.root.join("refs").join(format!("{key}.json"))
    }

    /// The digest `reference` resolved to when it was last pulled.
    pub fn remembered(&self, reference: &str) -> Option<String> {
        let text = fs::read_to_string(self.ref_file(reference)).ok()?;
        let r: RefRecord = serde_json::from_str(&text).ok()?;
        (r.reference == reference).then_some(r.digest)
    }

    /// Records what `reference` resolves to. Best effort: a failure only costs an offline open.
    pub fn remember(&self, reference: &str, digest: &str) {
        let file = self.ref_file(reference);
        let record = RefRecord {
            reference: reference.to_string(),
            digest: digest.to_string(),
        };
        let Ok(text) = serde_json::to_string(&record) else {
            return;
        };
        if let Some(parent) = file.parent()
            && fs::create_dir_all(parent).is_ok()
            && let Ok(mut tmp) = tempfile::NamedTempFile::new_in(parent)
        {
            use std::io::Write;
            if tmp.write_all(text.as_bytes()).is_ok() {
                let _ = tmp.persist(&file);
            }
        }
    }

    /// A fresh directory to build an entry in (removed when dropped unless installed).
    pub fn staging(&self, reference: &str) -> Result<tempfile::TempDir, ImageError> {
        let tmp = self.root.join("tmp");
        let io = |e| {
            ImageError::io(
                reference,
                format!("cannot create {}", tmp.display()),
                &self.root,
            )(e)
        };
        fs::create_dir_all(&tmp).map_err(io)?;
        tempfile::Builder::new()
            .prefix("pull-")
            .tempdir_in(&tmp)
            .map_err(|e| {
                ImageError::io(
                    reference,
                    format!("cannot create a directory in {}", tmp.display()),
                    &self.root,
                )(e)
            })
    }

    /// Moves a staged entry into place (replacing an older one for the same digest).
    pub fn install(&self, staged: tempfile::TempDir, meta: Meta) -> Result<Entry, ImageError> {
        let reference = meta.reference.clone();
        let io = |what: String| ImageError::io(&reference, what, &self.root);
        let text = serde_json::to_string_pretty(&meta)
            .map_err(|e| ImageError::invalid(&reference, e.to_string()))?;
        fs::write(staged.path().join("image.json"), text)
            .map_err(|e| io(format!("cannot write into {}", staged.path().display()))(e))?;
        let Some(dir) = self.entry_dir(&meta.digest) else {
            return Err(ImageError::invalid(
                &reference,
                format!("unusable digest {:?}", meta.digest),
            ));
        };
        let images = self.root.join("images");
        fs::create_dir_all(&images)
            .map_err(|e| io(format!("cannot create {}", images.display()))(e))?;
        let staged = staged.keep();
        if dir.exists() {
            // A refresh: move the old entry aside first, then drop it.
            let old = self.root.join("tmp").join(format!(
                "old-{}",
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ));
            let _ = fs::remove_dir_all(&old);
            if fs::rename(&dir, &old).is_ok() {
                let _ = fs::remove_dir_all(&old);
            }
        }
        if let Err(e) = fs::rename(&staged, &dir) {
            let _ = fs::remove_dir_all(&staged);
            // Another process may have installed the same digest meanwhile.
            if let Some(entry) = self.lookup(&meta.digest) {
                return Ok(entry);
            }
            return Err(io(format!(
                "cannot move the pulled image into {}",
                dir.display()
            ))(e));
        }
        Ok(Entry {
            meta,
            dir: dir.join("content"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_keyed_by_well_formed_digests_only() {
        let c = Cache {
            root: PathBuf::from("/c"),
        };
        assert_eq!(
            c.entry_dir("sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
            Some(PathBuf::from(
                "/c/images/sha256-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            ))
        );
        assert_eq!(c.entry_dir("sha256:../../etc"), None);
        assert_eq!(c.entry_dir("nocolon"), None);
        assert_eq!(c.entry_dir("sha256:abc"), None);
    }

    #[test]
    fn an_installed_entry_is_found_again_and_a_reference_remembers_its_digest() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache {
            root: dir.path().to_path_buf(),
        };
        let digest = format!("sha256:{}", "ab".repeat(32));
        assert!(c.lookup(&digest).is_none());
        let staged = c.staging("r").unwrap();
        fs::create_dir(staged.path().join("content")).unwrap();
        fs::write(staged.path().join("content/x.yaml"), "x").unwrap();
        let meta = Meta {
            digest: digest.clone(),
            reference: "r".into(),
            kind: Kind::Catalog {
                configs: "/configs".into(),
            },
            skipped: Vec::new(),
        };
        let e = c.install(staged, meta).unwrap();
        assert!(e.dir.join("x.yaml").is_file());
        let again = c.lookup(&digest).unwrap();
        assert_eq!(again.dir, e.dir);
        assert_eq!(
            again.meta.kind,
            Kind::Catalog {
                configs: "/configs".into()
            }
        );
        assert!(c.remembered("host/r:v1").is_none());
        c.remember("host/r:v1", &digest);
        assert_eq!(c.remembered("host/r:v1"), Some(digest));
        // Nothing is left in the staging area.
        assert_eq!(fs::read_dir(dir.path().join("tmp")).unwrap().count(), 0);
    }
}
