//! Applying an image's layers to a directory, in order, keeping only what lies under the wanted
//! directories of the image (the catalog's `/configs`, or a bundle's `manifests/` and `metadata/`).
//! Each layer is a tar stream (gzip-compressed or not, found by its first bytes) read once, entry by
//! entry, so an image is never held in memory. Whiteouts follow the OCI layer rules: `.wh.NAME`
//! removes NAME from the layers below, `.wh..wh..opq` empties its directory of what the layers below
//! put there.
//!
//! A layer is untrusted input: every entry's path and every whiteout's name goes through the path
//! policy ([`fbc_core::guard::path`]) and is left out (with a note) when it climbs out or is too long;
//! symbolic links are neither followed nor created, hard links only between files extracted; and
//! what is written stays within the `extract-bytes` and `extract-files` budgets, with at most
//! `notes` notes kept.

use std::collections::HashSet;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use super::tarball::{EntryKind, Stream, TarReader};
use fbc_core::guard::limits::{Limit, Limits};
use fbc_core::guard::path;

const WHITEOUT: &str = ".wh.";
const OPAQUE: &str = ".wh..wh..opq";
/// The longest entry name a note shows (longer ones are cut in the middle).
const NOTE_NAME: usize = 160;

/// A directory of the image to keep, and where it goes below the extraction root.
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    /// Path components in the image (`["configs"]`).
    pub image: Vec<String>,
    /// Where it lands below the root (`""` for the root itself).
    pub local: PathBuf,
}

/// The notes of entries left out: the first few, and how many more there were.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    pub kept: Vec<String>,
    pub more: u64,
    cap: usize,
}

impl Notes {
    fn push(&mut self, name: &str, why: &str) {
        if self.kept.len() < self.cap {
            self.kept.push(format!("{}: {why}", shorten(name)));
        } else {
            self.more += 1;
        }
    }

    /// Every note kept, and a last one counting the rest.
    pub fn lines(&self) -> Vec<String> {
        let mut out = self.kept.clone();
        if self.more > 0 {
            out.push(format!(
                "… and {} more entries (only the first {} are listed)",
                self.more,
                self.kept.len()
            ));
        }
        out
    }
}

/// `name` cut to at most [`NOTE_NAME`] characters, its middle replaced by `…`.
fn shorten(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= NOTE_NAME {
        return name.to_string();
    }
    let half = NOTE_NAME / 2;
    let head: String = chars[..half].iter().collect();
    let tail: String = chars[chars.len() - half..].iter().collect();
    format!("{head}…{tail} ({} bytes)", name.len())
}

pub(crate) struct Extractor {
    root: PathBuf,
    wanted: Vec<Wanted>,
    limits: Limits,
    /// Entries under a wanted directory that were left out (links, devices, unsafe paths).
    pub skipped: Notes,
    /// Whether anything under a wanted directory (or the directory itself) was seen.
    pub found: bool,
    /// Local paths written by the layer being applied (an opaque whiteout keeps them), by hash:
    /// a layer of many long paths costs eight bytes a path.
    this_layer: HashSet<u64>,
    /// Bytes and files written so far.
    bytes: u64,
    files: u64,
    /// The seed of the path hashes, different in every extraction, so no layer can be made to
    /// collide with another path's hash.
    seed: u64,
}

/// Where an image path falls relative to the wanted directories.
enum Place {
    /// Below (or at) a wanted directory: the local path.
    Inside(PathBuf),
    /// An ancestor of wanted directories: their local roots.
    Above(Vec<PathBuf>),
    Outside,
}

fn over_budget(why: String) -> io::Error {
    io::Error::other(why)
}

impl Extractor {
    pub fn new(root: &Path, wanted: Vec<Wanted>, limits: Limits) -> Extractor {
        Extractor {
            root: root.to_path_buf(),
            wanted,
            limits,
            skipped: Notes {
                cap: limits.count(Limit::Notes),
                ..Notes::default()
            },
            found: false,
            this_layer: HashSet::new(),
            bytes: 0,
            files: 0,
            seed: {
                use std::hash::{BuildHasher as _, Hasher as _};
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write(root.as_os_str().as_encoded_bytes());
                h.finish()
            },
        }
    }

    /// Applies one layer read from `raw` (compressed or not). Reads only as far as the tar stream
    /// goes: the caller drains the rest (so that a digest over all bytes can be checked).
    pub fn apply_layer(&mut self, raw: &mut dyn Read) -> io::Result<()> {
        self.this_layer.clear();
        let mut buffered = BufReader::with_capacity(64 * 1024, raw);
        let head = buffered.fill_buf()?;
        if head.starts_with(&[0x1f, 0x8b]) {
            self.apply_tar(flate2::read::MultiGzDecoder::new(buffered))
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the layer is zstd-compressed, which fbc-edit does not read; use an image with gzip or uncompressed layers",
            ))
        } else {
            self.apply_tar(buffered)
        }
    }

    fn apply_tar(&mut self, reader: impl Read) -> io::Result<()> {
        let limits = self.limits;
        let mut archive = TarReader::new(
            Stream(reader),
            limits.get(Limit::TarHeader),
            Box::new(move |what, size| {
                limits.exceeded(
                    Limit::TarHeader,
                    &format!("the layer holds {what} of {size} bytes"),
                )
            }),
        );
        while let Some(entry) = archive.next_entry()? {
            let shown = entry.shown();
            let Ok(text) = std::str::from_utf8(&entry.path) else {
                self.note_if_wanted(&shown, "a name that is not UTF-8");
                continue;
            };
            let parts = match path::image_path(text) {
                Ok(p) => p.parts().to_vec(),
                Err(why) => {
                    self.note_if_wanted(&shown, &format!("not extracted: its path {why}"));
                    continue;
                }
            };
            let Some((name, dir)) = parts.split_last() else {
                continue;
            };
            if name == OPAQUE {
                self.opaque_whiteout(dir)?;
            } else if let Some(hidden) = name.strip_prefix(WHITEOUT) {
                match path::plain_name(hidden) {
                    Ok(hidden) => self.whiteout(dir, hidden)?,
                    Err(why) => self.note_if_wanted(
                        &shown,
                        &format!("a whiteout whose name {why}; not applied"),
                    ),
                }
            } else if let Place::Inside(local) = self.place(&parts) {
                self.found = true;
                self.write_entry(&mut archive, &entry, &shown, &local)?;
            }
        }
        Ok(())
    }

    /// Counts one more file or directory written, within the budget.
    fn count_file(&mut self) -> io::Result<()> {
        self.files += 1;
        if self.files > self.limits.get(Limit::ExtractFiles) {
            return Err(over_budget(self.limits.exceeded(
                Limit::ExtractFiles,
                "the image writes more files and directories than allowed",
            )));
        }
        Ok(())
    }

    /// Copies `from` into `out` within the bytes budget (what the image writes, or a copy kept
    /// of one of its layers).
    pub fn copy_counted(&mut self, from: &mut dyn Read, out: &mut fs::File) -> io::Result<()> {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.bytes += n as u64;
            if self.bytes > self.limits.get(Limit::ExtractBytes) {
                return Err(over_budget(self.limits.exceeded(
                    Limit::ExtractBytes,
                    "the image writes more bytes than allowed",
                )));
            }
            out.write_all(&buf[..n])?;
        }
    }

    /// `.wh..wh..opq` in `dir`: empties it (or the wanted directories below it) of what the
    /// layers below put there.
    fn opaque_whiteout(&mut self, dir: &[String]) -> io::Result<()> {
        match self.place(dir) {
            Place::Inside(local) => self.clear(&local)?,
            Place::Above(roots) => {
                for r in roots {
                    self.clear(&r)?;
                }
            }
            Place::Outside => {}
        }
        Ok(())
    }

    /// `.wh.NAME` in `dir`: removes NAME (or, when NAME holds wanted directories, their contents).
    fn whiteout(&mut self, dir: &[String], hidden: &str) -> io::Result<()> {
        let mut target = dir.to_vec();
        target.push(hidden.to_string());
        match self.place(&target) {
            Place::Inside(local) => remove(&local)?,
            Place::Above(roots) => {
                for r in roots {
                    remove_contents(&r)?;
                }
            }
            Place::Outside => {}
        }
        Ok(())
    }

    /// Writes one entry under a wanted directory at `local`: a directory or a file replaces
    /// whatever the layers below put there; a hard link is copied from its target when that was
    /// extracted; anything else is noted as skipped.
    fn write_entry<S: super::tarball::Source>(
        &mut self,
        archive: &mut TarReader<S>,
        entry: &super::tarball::Entry,
        shown: &str,
        local: &Path,
    ) -> io::Result<()> {
        match entry.kind {
            EntryKind::Dir => {
                if local.is_file() {
                    fs::remove_file(local)?;
                }
                self.make_dirs(local)?;
                self.mark(local);
            }
            EntryKind::File => {
                self.count_file()?;
                self.prepare_file(local)?;
                let mut out = fs::File::create(local)?;
                self.copy_counted(&mut archive.data(), &mut out)?;
                self.mark(local);
            }
            EntryKind::HardLink => self.hard_link(entry, shown, local)?,
            EntryKind::Symlink => self.skipped.push(shown, "a symbolic link"),
            EntryKind::Sparse => self.skipped.push(shown, "a sparse file"),
            EntryKind::Other(_) => self.skipped.push(shown, "not a file or directory"),
        }
        Ok(())
    }

    /// Makes room for a file at `local`: removes what is there (a directory, or a file that may
    /// share its content with a hard link), creates its parents.
    fn prepare_file(&mut self, local: &Path) -> io::Result<()> {
        remove(local)?;
        if let Some(parent) = local.parent() {
            self.make_dirs(parent)?;
        }
        Ok(())
    }

    /// Creates `dir` and its missing parents, each counted as a file written.
    fn make_dirs(&mut self, dir: &Path) -> io::Result<()> {
        let mut missing = 0;
        let mut p = dir;
        while !p.is_dir() {
            missing += 1;
            match p.parent() {
                Some(up) if up.starts_with(&self.root) => p = up,
                _ => break,
            }
        }
        for _ in 0..missing {
            self.count_file()?;
        }
        if missing > 0 {
            fs::create_dir_all(dir)?;
        }
        Ok(())
    }

    /// A hard link is made again when its target is a file already extracted (it costs a name, not
    /// its bytes); otherwise it is noted as skipped.
    fn hard_link(
        &mut self,
        entry: &super::tarball::Entry,
        shown: &str,
        local: &Path,
    ) -> io::Result<()> {
        let target = entry
            .link
            .as_deref()
            .and_then(|t| std::str::from_utf8(t).ok())
            .and_then(|t| path::image_path(t).ok())
            .and_then(|t| match self.place(t.parts()) {
                Place::Inside(l) if l.is_file() && l != local => Some(l),
                _ => None,
            });
        match target {
            Some(t) => {
                self.count_file()?;
                self.prepare_file(local)?;
                fs::hard_link(&t, local)?;
                self.mark(local);
            }
            None => self.skipped.push(
                shown,
                "a hard link to a file outside the extracted directory",
            ),
        }
        Ok(())
    }

    fn note_if_wanted(&mut self, name: &str, why: &str) {
        if self
            .wanted
            .iter()
            .any(|w| w.image.iter().any(|c| name.contains(c.as_str())))
        {
            self.skipped.push(name, why);
        }
    }

    /// Records `local` and its directories as written by this layer.
    fn mark(&mut self, local: &Path) {
        let mut p = local;
        // Once a directory is recorded, so are the ones above it.
        while p != self.root && self.this_layer.insert(key(p, self.seed)) {
            match p.parent() {
                Some(up) => p = up,
                None => break,
            }
        }
    }

    fn place(&self, parts: &[String]) -> Place {
        let mut above = Vec::new();
        for w in &self.wanted {
            if parts.len() >= w.image.len() && parts[..w.image.len()] == w.image[..] {
                let mut local = self.root.join(&w.local);
                for c in &parts[w.image.len()..] {
                    local.push(c);
                }
                return Place::Inside(local);
            }
            if parts.len() < w.image.len() && w.image[..parts.len()] == parts[..] {
                above.push(self.root.join(&w.local));
            }
        }
        if above.is_empty() {
            Place::Outside
        } else {
            Place::Above(above)
        }
    }

    /// Empties `dir` of what earlier layers put there (an opaque whiteout).
    fn clear(&self, dir: &Path) -> io::Result<()> {
        let Ok(read) = fs::read_dir(dir) else {
            return Ok(());
        };
        for e in read {
            let p = e?.path();
            if self.this_layer.contains(&key(&p, self.seed)) {
                if p.is_dir() {
                    self.clear(&p)?;
                }
            } else {
                remove(&p)?;
            }
        }
        Ok(())
    }
}

fn key(p: &Path, seed: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(p.as_os_str().as_encoded_bytes(), seed)
}

fn remove(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn remove_contents(dir: &Path) -> io::Result<()> {
    let Ok(read) = fs::read_dir(dir) else {
        return Ok(());
    };
    for e in read {
        remove(&e?.path())?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;
