//! Applying an image's layers to a directory, in order, keeping only what lies under the wanted
//! directories of the image (the catalog's `/configs`, or a bundle's `manifests/` and `metadata/`).
//! Each layer is a tar stream (gzip-compressed or not, found by its first bytes) read once, entry by
//! entry, so an image is never held in memory. Whiteouts follow the OCI layer rules: `.wh.NAME`
//! removes NAME from the layers below, `.wh..wh..opq` empties its directory of what the layers below
//! put there. Paths that climb out (`..`) are refused; links are not followed or created.

use std::collections::HashSet;
use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};

const WHITEOUT: &str = ".wh.";
const OPAQUE: &str = ".wh..wh..opq";

/// A directory of the image to keep, and where it goes below the extraction root.
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    /// Path components in the image (`["configs"]`).
    pub image: Vec<String>,
    /// Where it lands below the root (`""` for the root itself).
    pub local: PathBuf,
}

pub(crate) struct Extractor {
    root: PathBuf,
    wanted: Vec<Wanted>,
    /// Entries under a wanted directory that were left out (links, devices, unsafe paths).
    pub skipped: Vec<String>,
    /// Whether anything under a wanted directory (or the directory itself) was seen.
    pub found: bool,
    /// Local paths written by the layer being applied (an opaque whiteout keeps them).
    this_layer: HashSet<PathBuf>,
}

/// Where an image path falls relative to the wanted directories.
enum Place {
    /// Below (or at) a wanted directory: the local path.
    Inside(PathBuf),
    /// An ancestor of wanted directories: their local roots.
    Above(Vec<PathBuf>),
    Outside,
}

impl Extractor {
    pub fn new(root: &Path, wanted: Vec<Wanted>) -> Extractor {
        Extractor {
            root: root.to_path_buf(),
            wanted,
            skipped: Vec::new(),
            found: false,
            this_layer: HashSet::new(),
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
        let mut archive = tar::Archive::new(reader);
        for entry in archive.entries()? {
            let mut entry = entry?;
            let raw_path = entry.path()?.into_owned();
            let Some(parts) = components(&raw_path) else {
                self.note_if_wanted(&raw_path, "a path that leaves the image root");
                continue;
            };
            let Some((name, dir)) = parts.split_last() else {
                continue;
            };
            if name == OPAQUE {
                self.opaque_whiteout(dir)?;
            } else if let Some(hidden) = name.strip_prefix(WHITEOUT) {
                self.whiteout(dir, hidden)?;
            } else if let Place::Inside(local) = self.place(&parts) {
                self.found = true;
                self.write_entry(&mut entry, &raw_path, &local)?;
            }
        }
        Ok(())
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
    fn write_entry<R: Read>(
        &mut self,
        entry: &mut tar::Entry<'_, R>,
        raw_path: &Path,
        local: &Path,
    ) -> io::Result<()> {
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            if local.is_file() {
                fs::remove_file(local)?;
            }
            fs::create_dir_all(local)?;
            self.mark(local);
        } else if kind.is_file() {
            if local.is_dir() {
                fs::remove_dir_all(local)?;
            }
            if let Some(parent) = local.parent() {
                fs::create_dir_all(parent)?;
            }
            let mut out = fs::File::create(local)?;
            io::copy(entry, &mut out)?;
            self.mark(local);
        } else if kind.is_hard_link() {
            self.hard_link(entry, raw_path, local)?;
        } else if kind.is_symlink() {
            self.skipped
                .push(format!("{}: a symbolic link", raw_path.display()));
        } else if !kind.is_pax_global_extensions() && !kind.is_pax_local_extensions() {
            self.skipped
                .push(format!("{}: not a file or directory", raw_path.display()));
        }
        Ok(())
    }

    /// A hard link becomes a copy of its target when the target is a file already extracted;
    /// otherwise it is noted as skipped.
    fn hard_link<R: Read>(
        &mut self,
        entry: &tar::Entry<'_, R>,
        raw_path: &Path,
        local: &Path,
    ) -> io::Result<()> {
        let target = entry
            .link_name()?
            .and_then(|t| components(&t))
            .and_then(|t| match self.place(&t) {
                Place::Inside(l) if l.is_file() => Some(l),
                _ => None,
            });
        match target {
            Some(t) => {
                if let Some(parent) = local.parent() {
                    fs::create_dir_all(parent)?;
                }
                fs::copy(&t, local)?;
                self.mark(local);
            }
            None => self.skipped.push(format!(
                "{}: a hard link to a file outside the extracted directory",
                raw_path.display()
            )),
        }
        Ok(())
    }

    fn note_if_wanted(&mut self, path: &Path, why: &str) {
        let text = path.to_string_lossy();
        if self
            .wanted
            .iter()
            .any(|w| w.image.iter().any(|c| text.contains(c.as_str())))
        {
            self.skipped.push(format!("{text}: {why}"));
        }
    }

    fn mark(&mut self, local: &Path) {
        let mut p = local.to_path_buf();
        loop {
            self.this_layer.insert(p.clone());
            if !p.pop() || p == self.root {
                break;
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
            if self.this_layer.contains(&p) {
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

/// The normal components of a tar path (`./configs/x` → `configs`, `x`); `None` when it climbs out.
fn components(path: &Path) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(s) => out.push(s.to_string_lossy().into_owned()),
            Component::CurDir | Component::RootDir => {}
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
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
mod tests {
    use super::*;

    fn layer(entries: &[(&str, Option<&str>)]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (path, content) in entries {
            let mut h = tar::Header::new_gnu();
            match content {
                Some(c) => {
                    h.set_entry_type(tar::EntryType::Regular);
                    h.set_size(c.len() as u64);
                    h.set_mode(0o644);
                    b.append_data(&mut h, path, c.as_bytes()).unwrap();
                }
                None => {
                    h.set_entry_type(tar::EntryType::Directory);
                    h.set_size(0);
                    h.set_mode(0o755);
                    b.append_data(&mut h, path, &b""[..]).unwrap();
                }
            }
        }
        b.into_inner().unwrap()
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn tree(root: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for e in walk(root) {
            let rel = e.strip_prefix(root).unwrap().display().to_string();
            if e.is_file() {
                out.push(format!("{rel}={}", fs::read_to_string(&e).unwrap()));
            } else {
                out.push(format!("{rel}/"));
            }
        }
        out.sort();
        out
    }

    fn walk(p: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in fs::read_dir(p).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                out.extend(walk(&path));
            }
            out.push(path);
        }
        out
    }

    fn configs(root: &Path) -> Extractor {
        Extractor::new(
            root,
            vec![Wanted {
                image: vec!["configs".into()],
                local: PathBuf::new(),
            }],
        )
    }

    #[test]
    fn layers_apply_in_order_with_whiteouts_and_only_the_wanted_directory() {
        let dir = tempfile::tempdir().unwrap();
        let mut x = configs(dir.path());
        let first = layer(&[
            ("bin/opm", Some("binary")),
            ("configs/", None),
            ("configs/a/catalog.yaml", Some("a1")),
            ("configs/b/catalog.yaml", Some("b1")),
            ("configs/c/old.yaml", Some("c1")),
        ]);
        x.apply_layer(&mut &gzip(&first)[..]).unwrap();
        let second = layer(&[
            ("./configs/a/catalog.yaml", Some("a2")),
            ("configs/b/.wh.catalog.yaml", Some("")),
            ("configs/c/.wh..wh..opq", Some("")),
            ("configs/c/new.yaml", Some("c2")),
            ("etc/.wh.passwd", Some("")),
        ]);
        x.apply_layer(&mut &second[..]).unwrap();
        assert!(x.found);
        assert_eq!(
            tree(dir.path()),
            ["a/", "a/catalog.yaml=a2", "b/", "c/", "c/new.yaml=c2"]
        );
    }

    #[test]
    fn a_whiteout_of_the_wanted_directory_itself_empties_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut x = configs(dir.path());
        x.apply_layer(&mut &layer(&[("configs/a.yaml", Some("1"))])[..])
            .unwrap();
        x.apply_layer(&mut &layer(&[(".wh.configs", Some("")), ("configs/b.yaml", Some("2"))])[..])
            .unwrap();
        assert_eq!(tree(dir.path()), ["b.yaml=2"]);
        x.apply_layer(&mut &layer(&[(".wh..wh..opq", Some(""))])[..])
            .unwrap();
        assert!(tree(dir.path()).is_empty());
    }

    #[test]
    fn paths_that_climb_out_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir(&root).unwrap();
        let mut x = configs(&root);
        // tar::Builder refuses `..`; write the name into the header by hand.
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Regular);
        h.set_size(1);
        h.as_gnu_mut().unwrap().name[..20].copy_from_slice(b"configs/../../escape");
        h.set_cksum();
        let mut b = tar::Builder::new(Vec::new());
        b.append(&h, &b"x"[..]).unwrap();
        let data = b.into_inner().unwrap();
        x.apply_layer(&mut &data[..]).unwrap();
        assert!(!dir.path().join("escape").exists());
        assert_eq!(x.skipped.len(), 1, "{:?}", x.skipped);
        assert!(tree(&root).is_empty());
    }
}
