//! The image cache under the user's cache directory (`$FBC_EDIT_CACHE_DIR`, else the platform's
//! cache directory for fbc-edit, e.g. `~/.cache/fbc-edit`). It holds only what was verified, in
//! two namespaces that never serve each other:
//!
//! - `registry/`: images pulled from a registry, one directory per manifest digest, each built only
//!   from a pull checked against that digest (manifest, config and every layer);
//! - `local/`: images read from OCI layouts and archives, keyed by a digest that covers every
//!   byte read from them (an OCI manifest's digest, or for a docker archive the digests of its
//!   config and of each layer, every one checked as it is read);
//!
//! and, per registry reference, the digest it last resolved to, so a tag opens offline. An entry
//! is built in a staging directory beside the entries, locked while its pull runs, and renamed into
//! place; staging directories whose pull was interrupted (their lock is free) are removed when the
//! cache is next opened, so an interrupted pull leaves nothing behind.

use std::fs;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

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

/// Where an entry came from; each has its own directory of entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Namespace {
    Registry,
    Local,
}

impl Namespace {
    fn dir(self) -> &'static str {
        match self {
            Namespace::Registry => "registry",
            Namespace::Local => "local",
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct RefRecord {
    reference: String,
    digest: String,
}

/// The name of the lock file in a staging directory.
const LOCK: &str = ".pull.lock";
/// How old a staging directory without a lock file must be before it is taken for abandoned.
const UNLOCKED_GRACE: Duration = Duration::from_secs(120);

pub(crate) struct Cache {
    pub root: PathBuf,
}

/// A directory an entry is built in, locked for as long as it exists under its `pull-` name
/// (removed when dropped unless installed).
pub(crate) struct Staging {
    dir: PathBuf,
    _lock: fs::File,
    installed: bool,
}

impl Staging {
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.installed {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// Takes an exclusive lock on `file` without waiting; false when another process holds it.
fn try_lock(file: &fs::File) -> bool {
    // SAFETY: the descriptor belongs to `file`, open while it is borrowed; flock takes no pointers.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// What a staging directory may hold; a directory holding anything else is not fbc-edit's, and a
/// sweep leaves it alone.
const STAGED: &[&str] = &[LOCK, "content", "image.json", super::layers::REPEATED];

/// Whether `dir` holds only what fbc-edit puts in a staging directory or a cache entry.
fn ours(dir: &Path) -> bool {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {}
        _ => return false,
    }
    fs::read_dir(dir).is_ok_and(|read| {
        read.flatten()
            .all(|e| STAGED.contains(&e.file_name().to_string_lossy().as_ref()))
    })
}

/// Whether `name` is an entry's directory name (`sha256-<hex>`).
fn entry_name(name: &str) -> bool {
    name.split_once('-')
        .is_some_and(|(alg, hex)| digest_parts(alg, hex))
}

/// Whether `alg` and `hex` make a digest an entry may be keyed by.
fn digest_parts(alg: &str, hex: &str) -> bool {
    !alg.is_empty()
        && alg.bytes().all(|b| b.is_ascii_alphanumeric())
        && hex.len() >= 32
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// How old a directory is.
fn age(path: &Path) -> Option<Duration> {
    let m = fs::symlink_metadata(path).ok()?.modified().ok()?;
    SystemTime::now().duration_since(m).ok()
}

impl Cache {
    /// The cache under `$FBC_EDIT_CACHE_DIR` or the platform's cache directory. What interrupted
    /// pulls left behind is removed.
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
        let cache = Cache { root };
        cache.sweep();
        Ok(cache)
    }

    /// Removes what pulls that no longer run left behind, and the single namespace of older
    /// versions of fbc-edit (whose entries from archives could stand for registry images). Only
    /// directories shaped as fbc-edit makes them go (a cache directory shared with other files
    /// keeps those); a link is removed as a link, never followed.
    fn sweep(&self) {
        let images = self.root.join("images");
        if let Ok(read) = fs::read_dir(&images) {
            for e in read.flatten() {
                let name = e.file_name();
                if entry_name(&name.to_string_lossy()) && ours(&e.path()) {
                    let _ = fs::remove_dir_all(e.path());
                }
            }
            let _ = fs::remove_dir(&images);
        }
        let Ok(read) = fs::read_dir(self.root.join("tmp")) else {
            return;
        };
        for e in read.flatten() {
            let path = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            let gone = if let Some(rest) = name.strip_prefix("old-") {
                let rest = rest
                    .strip_prefix("registry-")
                    .or_else(|| rest.strip_prefix("local-"))
                    .unwrap_or(rest);
                entry_name(rest) && ours(&path)
            } else if name.starts_with("pull-") {
                ours(&path) && abandoned(&path)
            } else if name.starts_with(".creating-") {
                // A pull that stopped before its directory was locked and named.
                ours(&path) && age(&path).is_some_and(|a| a > UNLOCKED_GRACE)
            } else {
                false
            };
            if gone {
                let _ = fs::remove_dir_all(&path);
            }
        }
    }

    fn entry_dir(&self, ns: Namespace, digest: &str) -> Option<PathBuf> {
        let (alg, hex) = digest.split_once(':')?;
        digest_parts(alg, hex).then(|| self.root.join(ns.dir()).join(format!("{alg}-{hex}")))
    }

    /// The entry for `digest` in namespace `ns`, when it is complete.
    pub fn lookup(&self, ns: Namespace, digest: &str) -> Option<Entry> {
        let dir = self.entry_dir(ns, digest)?;
        let text =
            fbc_core::guard::file::read_text_limited(&dir.join("image.json"), 64 << 20).ok()?;
        let meta: Meta = serde_json::from_str(&text).ok()?;
        if meta.digest != digest {
            return None;
        }
        let content = dir.join("content");
        content.is_dir().then_some(Entry { meta, dir: content })
    }

    fn ref_file(&self, reference: &str) -> PathBuf {
        let key = format!("{:x}", Sha256::digest(reference.as_bytes()));
        self.root.join("refs").join(format!("{key}.json"))
    }

    /// The digest `reference` resolved to when it was last pulled.
    pub fn remembered(&self, reference: &str) -> Option<String> {
        let text =
            fbc_core::guard::file::read_text_limited(&self.ref_file(reference), 1 << 20).ok()?;
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

    /// A fresh, locked directory to build an entry in. It is made under a name sweeps leave
    /// alone, locked, and only then given its `pull-` name, so no sweep ever sees it unlocked.
    pub fn staging(&self, reference: &str) -> Result<Staging, ImageError> {
        let tmp = self.root.join("tmp");
        let io = |e| {
            ImageError::io(
                reference,
                format!("cannot create a directory in {}", tmp.display()),
                &self.root,
            )(e)
        };
        fs::create_dir_all(&tmp).map_err(io)?;
        let made = tempfile::Builder::new()
            .prefix(".creating-")
            .tempdir_in(&tmp)
            .map_err(io)?;
        let lock = fs::File::create(made.path().join(LOCK)).map_err(io)?;
        if !try_lock(&lock) {
            return Err(ImageError::invalid(
                reference,
                format!("cannot lock {}", made.path().display()),
            ));
        }
        let suffix = made
            .path()
            .file_name()
            .map(|n| {
                n.to_string_lossy()
                    .trim_start_matches(".creating-")
                    .to_string()
            })
            .unwrap_or_default();
        let dir = tmp.join(format!("pull-{suffix}"));
        fs::rename(made.path(), &dir).map_err(io)?;
        let _ = made.keep();
        Ok(Staging {
            dir,
            _lock: lock,
            installed: false,
        })
    }

    /// Moves a staged entry into namespace `ns` (replacing an older one for the same digest).
    pub fn install(&self, ns: Namespace, staged: Staging, meta: Meta) -> Result<Entry, ImageError> {
        let reference = meta.reference.clone();
        let io = |what: String| ImageError::io(&reference, what, &self.root);
        let text = serde_json::to_string_pretty(&meta)
            .map_err(|e| ImageError::invalid(&reference, e.to_string()))?;
        fs::write(staged.path().join("image.json"), text)
            .map_err(|e| io(format!("cannot write into {}", staged.path().display()))(e))?;
        let Some(dir) = self.entry_dir(ns, &meta.digest) else {
            return Err(ImageError::invalid(
                &reference,
                format!("unusable digest {:?}", meta.digest),
            ));
        };
        let entries = self.root.join(ns.dir());
        fs::create_dir_all(&entries)
            .map_err(|e| io(format!("cannot create {}", entries.display()))(e))?;
        // The lock file goes; the directory's fresh change time keeps a sweep off it until the
        // rename below.
        let _ = fs::remove_file(staged.path().join(LOCK));
        let mut staged = staged;
        staged.installed = true;
        let staged = staged.dir.clone();
        if dir.exists() {
            // A refresh: move the old entry aside first, then drop it.
            let old = self.root.join("tmp").join(format!(
                "old-{}-{}",
                ns.dir(),
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
            if let Some(entry) = self.lookup(ns, &meta.digest) {
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

/// Whether a staging directory's pull has ended without installing it: its lock is free, or it
/// has no lock file and has not changed for a while. The lock file is opened without blocking or
/// following a link, and only a regular file counts as one.
fn abandoned(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt as _;
    let lock = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(dir.join(LOCK));
    match lock {
        Ok(f) => f.metadata().is_ok_and(|m| m.is_file()) && try_lock(&f),
        Err(_) => age(dir).is_some_and(|a| a > UNLOCKED_GRACE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Makes a FIFO at `p`.
    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn entries_are_keyed_by_well_formed_digests_only() {
        let c = Cache {
            root: PathBuf::from("/c"),
        };
        assert_eq!(
            c.entry_dir(
                Namespace::Registry,
                "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            ),
            Some(PathBuf::from(
                "/c/registry/sha256-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            ))
        );
        assert_eq!(c.entry_dir(Namespace::Local, "sha256:../../etc"), None);
        assert_eq!(c.entry_dir(Namespace::Local, "nocolon"), None);
        assert_eq!(c.entry_dir(Namespace::Local, "sha256:abc"), None);
    }

    #[test]
    fn an_installed_entry_is_found_again_and_a_reference_remembers_its_digest() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache {
            root: dir.path().to_path_buf(),
        };
        let digest = format!("sha256:{}", "ab".repeat(32));
        assert!(c.lookup(Namespace::Registry, &digest).is_none());
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
        let e = c.install(Namespace::Registry, staged, meta).unwrap();
        assert!(e.dir.join("x.yaml").is_file());
        assert!(c.lookup(Namespace::Local, &digest).is_none());
        let again = c.lookup(Namespace::Registry, &digest).unwrap();
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

    #[test]
    fn staging_left_by_an_interrupted_pull_is_removed_on_the_next_open() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache {
            root: dir.path().to_path_buf(),
        };
        let live = c.staging("r").unwrap();
        // A pull killed mid-way: its directory stays, its lock is released with the process.
        let dead = dir.path().join("tmp/pull-dead");
        fs::create_dir_all(dead.join("content")).unwrap();
        fs::write(dead.join(LOCK), "").unwrap();
        fs::create_dir_all(
            dir.path()
                .join(format!("images/sha256-{}/content", "cd".repeat(32))),
        )
        .unwrap();
        c.sweep();
        assert!(!dead.exists());
        assert!(live.path().is_dir(), "a running pull keeps its directory");
        assert!(!dir.path().join("images").exists());
        drop(live);
        assert_eq!(fs::read_dir(dir.path().join("tmp")).unwrap().count(), 0);
    }

    #[test]
    fn a_sweep_removes_only_what_fbc_edit_made() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache {
            root: dir.path().to_path_buf(),
        };
        // Someone else's files in a shared cache directory stay.
        fs::create_dir_all(dir.path().join("images/mine")).unwrap();
        fs::write(dir.path().join("images/mine/photo.jpg"), "x").unwrap();
        fs::create_dir_all(dir.path().join("tmp/pull-important")).unwrap();
        fs::write(dir.path().join("tmp/pull-important/notes.txt"), "x").unwrap();
        // An old entry of fbc-edit's goes.
        let old = dir
            .path()
            .join(format!("images/sha256-{}", "ab".repeat(32)));
        fs::create_dir_all(old.join("content")).unwrap();
        fs::write(old.join("image.json"), "{}").unwrap();
        // A FIFO where a lock file belongs neither hangs the sweep nor counts as a free lock.
        let fifo_dir = dir.path().join("tmp/pull-fifo");
        fs::create_dir_all(&fifo_dir).unwrap();
        mkfifo(&fifo_dir.join(LOCK));
        c.sweep();
        assert!(dir.path().join("images/mine/photo.jpg").is_file());
        assert!(dir.path().join("tmp/pull-important/notes.txt").is_file());
        assert!(!old.exists());
        assert!(fifo_dir.exists());
    }
}
