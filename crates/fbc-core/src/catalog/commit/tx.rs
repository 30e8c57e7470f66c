//! One commit as a transaction: check every target, then create directories, write and flush
//! temporary files, keep second names of the files to replace, check once more, rename into place;
//! on failure undo, and say what became of every file.

use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

#[cfg(feature = "fault-injection")]
use super::Fault;
use super::resolve::{Resolve, Target};
use super::sys::{Dir, is_kind, keep_owner_and_mode, side_name};
use super::{CommitError, Expect, FileState, PlannedFile, Refusal, Step};

/// Progress of one file through the steps.
#[derive(Default)]
struct Done {
    temp: Option<String>,
    /// A second name of the old file (or a copy of it).
    backup: Option<String>,
    renamed: bool,
}

/// One commit in progress.
pub(super) struct Tx<'a> {
    /// The root as given, and as the file system names it.
    pub(super) root: PathBuf,
    pub(super) canonical_root: PathBuf,
    files: &'a [PlannedFile],
    targets: Vec<Target>,
    /// Open directories by path relative to the root (`""` is the root).
    pub(super) dirs: HashMap<String, Dir>,
    /// Directories this commit created, in creation order.
    created_dirs: Vec<String>,
    done: Vec<Done>,
    /// The failure to inject (tests).
    #[cfg(feature = "fault-injection")]
    pub(super) fault: Option<Fault>,
}

/// A failed step: which, for which planned file, and why.
pub(super) type StepError = (Step, usize, std::io::Error);

impl<'a> Tx<'a> {
    pub(super) fn new(root: &Path, files: &'a [PlannedFile]) -> Result<Self, CommitError> {
        let io = |source| CommitError::Failed {
            step: Step::Check,
            path: ".".into(),
            source,
            files: untouched(files),
        };
        let dir = Dir::open_root(root).map_err(io)?;
        let canonical_root = std::fs::canonicalize(root).map_err(io)?;
        let mut dirs = HashMap::new();
        dirs.insert(String::new(), dir);
        Ok(Tx {
            root: root.to_path_buf(),
            canonical_root,
            files,
            targets: Vec::new(),
            dirs,
            created_dirs: Vec::new(),
            done: files.iter().map(|_| Done::default()).collect(),
            #[cfg(feature = "fault-injection")]
            fault: None,
        })
    }

    #[cfg(feature = "fault-injection")]
    fn inject(&self, step: Step, file: usize) -> std::io::Result<()> {
        if self.fault == Some(Fault { step, file }) {
            return Err(std::io::Error::other(format!(
                "failure injected at step {} (FBC_EDIT_FAULT)",
                step.name()
            )));
        }
        Ok(())
    }

    /// Without the `fault-injection` feature no step fails on purpose.
    #[cfg(not(feature = "fault-injection"))]
    fn inject(&self, _step: Step, _file: usize) -> std::io::Result<()> {
        Ok(())
    }

    /// Resolves and checks every planned file; nothing is written.
    pub(super) fn check(&mut self, force_read_only: bool) -> Result<(), CommitError> {
        for (i, f) in self.files.iter().enumerate() {
            let refused = |why| CommitError::Refused {
                path: f.rel.clone(),
                why,
            };
            let failed = |source| CommitError::Failed {
                step: Step::Check,
                path: f.rel.clone(),
                source,
                files: untouched(self.files),
            };
            let target = match self.resolve(&f.rel, 0, f.expect) {
                Ok(t) => t,
                Err(Resolve::Refused(why)) => return Err(refused(why)),
                Err(Resolve::Io(e)) => return Err(failed(e)),
            };
            match (&target.old, f.expect) {
                // `resolve` refuses a file where none is expected before reading it; kept so the
                // check stands on its own.
                (Some(_), Expect::Absent) => return Err(refused(Refusal::Exists)),
                (None, Expect::Unchanged { .. }) => return Err(refused(Refusal::ChangedOnDisk)),
                (Some(old), Expect::Unchanged { len, hash }) => {
                    if old.bytes.len() as u64 != len
                        || xxhash_rust::xxh3::xxh3_64(&old.bytes) != hash
                    {
                        return Err(refused(Refusal::ChangedOnDisk));
                    }
                    if old.read_only && !force_read_only {
                        return Err(refused(Refusal::ReadOnly));
                    }
                }
                (None, Expect::Absent) => {}
            }
            let same = |t: &Target| {
                t.rel == target.rel
                    || matches!((&t.old, &target.old),
                        (Some(a), Some(b)) if a.dev == b.dev && a.ino == b.ino)
            };
            if let Some(j) = self.targets.iter().position(same) {
                return Err(refused(Refusal::SameFile(self.files[j].rel.clone())));
            }
            // A directory we cannot write into fails every rename: say so before writing anything.
            if target.missing == 0 {
                let dir = target.dirs.join("/");
                if !self.dirs[&dir].writable() {
                    let shown = if dir.is_empty() { ".".into() } else { dir };
                    return Err(refused(Refusal::DirectoryNotWritable(shown)));
                }
            }
            self.inject(Step::Check, i).map_err(failed)?;
            self.targets.push(target);
        }
        Ok(())
    }

    /// Runs the writing steps; the error names the step and the file.
    pub(super) fn run(&mut self) -> Result<(), StepError> {
        self.create_dirs()?;
        self.write_temps()?;
        self.keep_second_names()?;
        self.verify()?;
        self.rename_into_place()
    }

    /// Creates the directories planned files need.
    fn create_dirs(&mut self) -> Result<(), StepError> {
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            if t.missing == 0 {
                continue;
            }
            self.inject(Step::CreateDir, i)
                .map_err(|e| (Step::CreateDir, i, e))?;
            let existing = t.dirs.len() - t.missing;
            let mut path = t.dirs[..existing].join("/");
            for comp in &t.dirs[existing..] {
                let child = if path.is_empty() {
                    comp.clone()
                } else {
                    format!("{path}/{comp}")
                };
                if !self.dirs.contains_key(&child) {
                    let parent = &self.dirs[&path];
                    parent.mkdir(comp).map_err(|e| (Step::CreateDir, i, e))?;
                    self.created_dirs.push(child.clone());
                    let dir = parent.open_dir(comp).map_err(|e| (Step::CreateDir, i, e))?;
                    self.dirs.insert(child.clone(), dir);
                }
                path = child;
            }
        }
        Ok(())
    }

    /// Writes and flushes every new content into a temporary file beside its target.
    fn write_temps(&mut self) -> Result<(), StepError> {
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let dir = &self.dirs[&t.dirs.join("/")];
            let temp = side_name("new", &t.name);
            let mode = t.old.as_ref().map_or(0o666, |o| o.mode);
            let mut file = dir
                .create_new(&temp, mode)
                .map_err(|e| (Step::WriteTemp, i, e))?;
            self.done[i].temp = Some(temp);
            self.inject(Step::WriteTemp, i)
                .and_then(|()| file.write_all(&self.files[i].bytes))
                .and_then(|()| match &t.old {
                    Some(o) => keep_owner_and_mode(&file, o),
                    None => Ok(()),
                })
                .map_err(|e| (Step::WriteTemp, i, e))?;
            self.inject(Step::Sync, i)
                .and_then(|()| file.sync_all())
                .map_err(|e| (Step::Sync, i, e))?;
        }
        Ok(())
    }

    /// Gives every file about to be replaced a second name (or a copy), to put it back from.
    fn keep_second_names(&mut self) -> Result<(), StepError> {
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let Some(old) = &t.old else { continue };
            self.inject(Step::Backup, i)
                .map_err(|e| (Step::Backup, i, e))?;
            let dir = &self.dirs[&t.dirs.join("/")];
            let backup = side_name("old", &t.name);
            match dir.link(&t.name, &backup) {
                Ok(()) => self.done[i].backup = Some(backup),
                Err(_) => {
                    // No hard links here: keep a copy of the old content instead.
                    let mut file = dir
                        .create_new(&backup, old.mode)
                        .map_err(|e| (Step::Backup, i, e))?;
                    self.done[i].backup = Some(backup);
                    file.write_all(&old.bytes)
                        .and_then(|()| keep_owner_and_mode(&file, old))
                        .and_then(|()| file.sync_all())
                        .map_err(|e| (Step::Backup, i, e))?;
                }
            }
        }
        Ok(())
    }

    /// Checks every target once more, right before anything is replaced.
    fn verify(&self) -> Result<(), StepError> {
        for i in 0..self.targets.len() {
            self.inject(Step::Verify, i)
                .map_err(|e| (Step::Verify, i, e))?;
            let t = &self.targets[i];
            self.dirs_in_place(&t.dirs)
                .map_err(|e| (Step::Verify, i, e))?;
            let dir = &self.dirs[&t.dirs.join("/")];
            let changed = || std::io::Error::other("changed on disk during the save");
            match (&t.old, dir.stat(&t.name)) {
                (None, Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
                (None, Ok(_)) => {
                    return Err((
                        Step::Verify,
                        i,
                        std::io::Error::other("created by someone else during the save"),
                    ));
                }
                (Some(old), Ok(st))
                    if is_kind(&st, libc::S_IFREG)
                        && st.st_dev == old.dev
                        && st.st_ino == old.ino =>
                {
                    // One byte more than it held tells a file that grew: no more is read.
                    let mut now = Vec::with_capacity(old.bytes.len() + 1);
                    dir.open_file(&t.name)
                        .and_then(|f| f.take(old.bytes.len() as u64 + 1).read_to_end(&mut now))
                        .map_err(|e| (Step::Verify, i, e))?;
                    if now != old.bytes {
                        return Err((Step::Verify, i, changed()));
                    }
                }
                (_, Err(e)) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err((Step::Verify, i, e));
                }
                _ => return Err((Step::Verify, i, changed())),
            }
        }
        Ok(())
    }

    /// Renames every temporary file over its target (a new file only where the name is still free).
    fn rename_into_place(&mut self) -> Result<(), StepError> {
        for i in 0..self.targets.len() {
            self.inject(Step::Rename, i)
                .map_err(|e| (Step::Rename, i, e))?;
            let t = &self.targets[i];
            let dir = &self.dirs[&t.dirs.join("/")];
            let temp = self.done[i].temp.clone().unwrap_or_default();
            let r = if t.old.is_some() {
                dir.rename(&temp, &t.name)
            } else {
                dir.rename_new(&temp, &t.name)
            };
            r.map_err(|e| (Step::Rename, i, e))?;
            self.done[i].temp = None;
            self.done[i].renamed = true;
        }
        Ok(())
    }

    /// Checks that the directories held open for `dirs` are still the ones found walking from the
    /// root, none of them a link: a directory moved out of the root (or swapped) since the check would
    /// otherwise take the write with it.
    fn dirs_in_place(&self, dirs: &[String]) -> std::io::Result<()> {
        let mut path = String::new();
        for comp in dirs {
            let child = if path.is_empty() {
                comp.clone()
            } else {
                format!("{path}/{comp}")
            };
            let moved = || std::io::Error::other(format!("{child} was moved during the save"));
            let st = self.dirs[&path].stat(comp).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    moved()
                } else {
                    e
                }
            })?;
            let held = self.dirs.get(&child).ok_or_else(moved)?.id()?;
            if !is_kind(&st, libc::S_IFDIR) || (st.st_dev, st.st_ino) != held {
                return Err(moved());
            }
            path = child;
        }
        Ok(())
    }

    /// After a complete commit: flush the directories and drop the second names.
    pub(super) fn finish(&mut self) {
        for (i, t) in self.targets.iter().enumerate() {
            let dir = &self.dirs[&t.dirs.join("/")];
            dir.sync();
            if let Some(b) = self.done[i].backup.take() {
                let _ = dir.unlink(&b);
            }
        }
        for d in &self.created_dirs {
            let parent = d.rsplit_once('/').map_or("", |(p, _)| p);
            self.dirs[parent].sync();
        }
        self.dirs[""].sync();
    }

    /// Undoes what was done; returns what became of each planned file.
    pub(super) fn undo(&mut self) -> Vec<(String, FileState)> {
        let mut states = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            // A file not reached (or whose directory was never made) was not touched.
            let Some((t, dir)) = self
                .targets
                .get(i)
                .and_then(|t| Some((t, self.dirs.get(&t.dirs.join("/"))?)))
            else {
                states.push((f.rel.clone(), FileState::Untouched));
                continue;
            };
            let done = &mut self.done[i];
            if let Some(temp) = done.temp.take() {
                let _ = dir.unlink(&temp);
            }
            let state = if !done.renamed {
                if let Some(b) = done.backup.take() {
                    let _ = dir.unlink(&b);
                }
                FileState::Untouched
            } else if t.old.is_none() {
                match dir.unlink(&t.name) {
                    Ok(()) => FileState::Removed,
                    Err(e) => FileState::NotRestored {
                        why: format!("cannot remove it again: {e}"),
                        old_content: None,
                    },
                }
            } else {
                let backup = done.backup.take();
                match backup.as_deref().map(|b| dir.rename(b, &t.name)) {
                    Some(Ok(())) => FileState::Restored,
                    Some(Err(e)) => FileState::NotRestored {
                        why: format!("cannot put it back: {e}"),
                        old_content: backup.map(|b| {
                            let mut p = t.dirs.clone();
                            p.push(b);
                            p.join("/")
                        }),
                    },
                    None => FileState::NotRestored {
                        why: "its old content was not kept".into(),
                        old_content: None,
                    },
                }
            };
            dir.sync();
            states.push((f.rel.clone(), state));
        }
        for d in self.created_dirs.iter().rev() {
            let (parent, name) = d.rsplit_once('/').unwrap_or(("", d));
            self.dirs.remove(d);
            if let Some(p) = self.dirs.get(parent) {
                let _ = p.rmdir(name);
            }
        }
        states
    }
}

pub(super) fn untouched(files: &[PlannedFile]) -> Vec<(String, FileState)> {
    files
        .iter()
        .map(|f| (f.rel.clone(), FileState::Untouched))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::commit::{Expect, FileState};

    fn planned(rel: &str, old: &[u8], new: &[u8]) -> PlannedFile {
        PlannedFile {
            rel: rel.into(),
            bytes: new.to_vec(),
            expect: Expect::Unchanged {
                len: old.len() as u64,
                hash: xxhash_rust::xxh3::xxh3_64(old),
            },
        }
    }

    /// A file grown (or swapped for a sparse one of any size) after it was read for the save is
    /// refused as changed without being read; one of the same length is read no further than that
    /// length and one byte however it grows.
    #[test]
    fn a_file_grown_since_it_was_read_is_refused_unread() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::write(root.join("catalog.yaml"), "old\n").unwrap();
        let files = [planned("catalog.yaml", b"old\n", b"new\n")];
        let huge = 64u64 << 30;
        std::fs::File::options()
            .write(true)
            .open(root.join("catalog.yaml"))
            .unwrap()
            .set_len(huge)
            .unwrap();
        let err = crate::catalog::commit::commit(root, &files, &Default::default()).unwrap_err();
        assert!(
            matches!(
                &err,
                CommitError::Refused {
                    why: Refusal::ChangedOnDisk,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            std::fs::metadata(root.join("catalog.yaml")).unwrap().len(),
            huge
        );
        // A file that should not be there is refused unread too.
        let new = [PlannedFile {
            rel: "catalog.yaml".into(),
            bytes: b"new\n".to_vec(),
            expect: Expect::Absent,
        }];
        let err = crate::catalog::commit::commit(root, &new, &Default::default()).unwrap_err();
        assert!(
            matches!(
                &err,
                CommitError::Refused {
                    why: Refusal::Exists,
                    ..
                }
            ),
            "{err}"
        );
        // Of the length read but other bytes: read, and refused as changed.
        std::fs::write(root.join("catalog.yaml"), "odd\n").unwrap();
        let err = crate::catalog::commit::commit(root, &files, &Default::default()).unwrap_err();
        assert!(err.to_string().contains("changed on disk"), "{err}");
        std::fs::write(root.join("catalog.yaml"), "old\n").unwrap();
        crate::catalog::commit::commit(root, &files, &Default::default()).unwrap();
        assert_eq!(std::fs::read(root.join("catalog.yaml")).unwrap(), b"new\n");
    }

    #[test]
    fn a_directory_moved_out_of_the_root_after_the_check_takes_no_write_with_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("catalog");
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/catalog.yaml"), "old\n").unwrap();
        let files = [planned("pkg/catalog.yaml", b"old\n", b"new\n")];
        let mut tx = Tx::new(&root, &files).unwrap();
        tx.check(false).unwrap();
        // Between the check and the rename the package directory leaves the root, and a look-alike
        // takes its place.
        let outside = tmp.path().join("outside");
        std::fs::rename(root.join("pkg"), &outside).unwrap();
        std::fs::create_dir(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/catalog.yaml"), "old\n").unwrap();
        let (step, index, e) = tx.run().unwrap_err();
        assert_eq!((step, index), (Step::Verify, 0));
        assert!(
            e.to_string().contains("pkg was moved during the save"),
            "{e}"
        );
        let states = tx.undo();
        assert_eq!(
            states,
            vec![("pkg/catalog.yaml".into(), FileState::Untouched)]
        );
        assert_eq!(
            std::fs::read(outside.join("catalog.yaml")).unwrap(),
            b"old\n"
        );
        assert_eq!(
            std::fs::read(root.join("pkg/catalog.yaml")).unwrap(),
            b"old\n"
        );
        let left: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary or second name left outside");
    }

    #[test]
    fn a_directory_swapped_for_a_link_after_the_check_takes_no_write_with_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("catalog");
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/catalog.yaml"), "old\n").unwrap();
        let files = [planned("pkg/catalog.yaml", b"old\n", b"new\n")];
        let mut tx = Tx::new(&root, &files).unwrap();
        tx.check(false).unwrap();
        let outside = tmp.path().join("outside");
        std::fs::rename(root.join("pkg"), &outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("pkg")).unwrap();
        let (step, _, _) = tx.run().unwrap_err();
        assert_eq!(step, Step::Verify);
        tx.undo();
        assert_eq!(
            std::fs::read(outside.join("catalog.yaml")).unwrap(),
            b"old\n"
        );
    }
}
