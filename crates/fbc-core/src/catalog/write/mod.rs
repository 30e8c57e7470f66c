//! Writing edits back with minimal diffs: previewing, planning and saving.
//!
//! Files are never re-rendered. For every changed blob the loaded tree and the edited tree are compared
//! structure by structure, and only the smallest changed pieces are spliced into the original bytes:
//! a changed scalar replaces that scalar's text (keeping its quoting), a new mapping key or sequence
//! item becomes new lines in the indentation its neighbours use, a removed one takes its lines with it.
//! Where a piece cannot be placed safely (a reordered mapping, a flow collection, an edit inside an
//! alias) the smallest enclosing node is written anew in the document's own style. Untouched blobs and
//! files keep every byte.
//!
//! Here: what a save writes and how ([`Catalog::save`], [`Catalog::preview`], errors). `render` makes
//! a file's new text from splices; the patchers are `crate::catalog::yaml::patch` and
//! `crate::catalog::json::patch`, aligned by `crate::catalog::align`; the all-or-nothing write is
//! `crate::catalog::commit`.

mod render;

use super::commit::{self, CommitError, CommitOptions, Expect, PlannedFile, Refusal};
use super::{BlobState, Catalog, FileId};

/// Why a save or a preview failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{path}: changed on disk since it was loaded; reload before saving")]
    ChangedOnDisk { path: String },
    #[error("{path}: already exists on disk; it was not there when the catalog was loaded")]
    Exists { path: String },
    #[error("{path}: has load errors and is never rewritten; fix it by hand first")]
    NotClean { path: String },
    /// The catalog was loaded as an outline, with values left out: writing it would lose them.
    #[error("{path}: the catalog was read in outline, with values left out, and is never written")]
    Outline { path: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A long value left on disk when the catalog was loaded cannot be read back.
    #[error("{path}: a value kept on disk cannot be read back ({source})")]
    Unreadable {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Two changes of one file overlap: writing either would corrupt the other.
    #[error("{path}: two changes overlap at byte {at} (please report this)")]
    Overlap { path: String, at: usize },
    #[error(transparent)]
    Commit(CommitError),
    /// A file to write lies outside the directory the save writes in.
    #[error("{0}; nothing written")]
    Outside(crate::guard::path::OutsideRoot),
}

impl From<CommitError> for WriteError {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::Refused {
                path,
                why: Refusal::ChangedOnDisk,
            } => WriteError::ChangedOnDisk { path },
            CommitError::Refused {
                path,
                why: Refusal::Exists,
            } => WriteError::Exists { path },
            e => WriteError::Commit(e),
        }
    }
}

impl WriteError {
    /// Whether the save stopped before writing anything (else the message says what became of each file).
    pub fn wrote_nothing(&self) -> bool {
        !matches!(self, WriteError::Commit(CommitError::Failed { .. }))
    }

    /// Whether the save was refused only because a file is read-only (forcing it would write).
    pub fn is_read_only(&self) -> bool {
        matches!(
            self,
            WriteError::Commit(CommitError::Refused {
                why: Refusal::ReadOnly,
                ..
            })
        )
    }
}

/// What a save did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SaveReport {
    /// Relative paths of the files written, in catalog order.
    pub written: Vec<String>,
}

impl Catalog {
    /// Reads a file's current bytes and checks they are still what was loaded.
    fn read_unchanged(&self, file: FileId) -> Result<String, WriteError> {
        let f = &self.files[file];
        if self.outline {
            return Err(WriteError::Outline {
                path: f.path.clone(),
            });
        }
        if f.created {
            if f.abs.exists() {
                return Err(WriteError::Exists {
                    path: f.path.clone(),
                });
            }
            return Ok(String::new());
        }
        if !f.clean {
            return Err(WriteError::NotClean {
                path: f.path.clone(),
            });
        }
        if let Some(text) = &f.overlay {
            return Ok(text.to_string());
        }
        let bytes =
            crate::guard::file::read_limited(&f.abs, super::load::MAX_FILE).map_err(|e| {
                WriteError::Io {
                    path: f.path.clone(),
                    source: e.into(),
                }
            })?;
        if bytes.len() as u64 != f.len || xxhash_rust::xxh3::xxh3_64(&bytes) != f.hash {
            return Err(WriteError::ChangedOnDisk {
                path: f.path.clone(),
            });
        }
        String::from_utf8(bytes).map_err(|_| WriteError::ChangedOnDisk {
            path: f.path.clone(),
        })
    }

    /// The text `file` would have after saving.
    pub fn render_file(&self, file: FileId) -> Result<String, WriteError> {
        let original = self.read_unchanged(file)?;
        self.render_text(file, &original)
    }

    /// Old and new text of every file a save would write, in catalog order.
    pub fn pending_changes(&self) -> Result<Vec<(FileId, String, String)>, WriteError> {
        let mut out = Vec::new();
        for f in self.dirty_files() {
            let old = self.read_unchanged(f)?;
            let new = self.render_text(f, &old)?;
            let created = self.files[f].created
                && self.files[f]
                    .blobs
                    .iter()
                    .any(|&b| self.blobs[b].state != BlobState::Removed);
            if new != old || created {
                out.push((f, old, new));
            }
        }
        Ok(out)
    }

    /// Every file a save would change, with its text now and after (reads the changed files).
    pub fn pending(&self) -> Result<Vec<Pending>, WriteError> {
        Ok(self
            .pending_changes()?
            .into_iter()
            .map(|(f, old, new)| Pending {
                path: self.files[f].path.clone(),
                created: self.files[f].created,
                old,
                new,
            })
            .collect())
    }

    /// A unified diff of everything a save would write.
    pub fn preview(&self) -> Result<String, WriteError> {
        Ok(unified_diff(&self.pending()?))
    }

    /// Writes every changed file, all or nothing (see [`commit`]), and reloads the catalog. Refuses,
    /// writing nothing, when any file to be written changed on disk since it was loaded, is read-only,
    /// or lies behind a symbolic link that could lead outside the catalog.
    pub fn save(&mut self) -> Result<SaveReport, WriteError> {
        self.save_with(&CommitOptions::default())
    }

    /// [`Catalog::save`] with options (forcing read-only files, injecting failures in tests).
    pub fn save_with(&mut self, options: &CommitOptions) -> Result<SaveReport, WriteError> {
        let report = self.write_changes(options)?;
        let reloaded = super::load(&self.root).map_err(|e| WriteError::Io {
            path: ".".into(),
            source: std::io::Error::other(e.to_string()),
        })?;
        *self = reloaded;
        Ok(report)
    }

    /// Writes every changed file, all or nothing, and leaves the catalog as it is in memory (for a
    /// command that ends after writing; reload before editing it further).
    pub fn write_changes(&self, options: &CommitOptions) -> Result<SaveReport, WriteError> {
        let planned = self.plan_changes()?;
        commit::commit(&self.root, &planned, options)?;
        Ok(SaveReport {
            written: planned.into_iter().map(|p| p.rel).collect(),
        })
    }

    /// The files a save would write, with what each must find on disk (paths relative to the root),
    /// to be committed alone or with other files.
    pub fn plan_changes(&self) -> Result<Vec<PlannedFile>, WriteError> {
        let changes = self.pending_changes()?;
        let planned: Vec<PlannedFile> = changes
            .into_iter()
            .map(|(f, _, new)| {
                let file = &self.files[f];
                PlannedFile {
                    rel: file.path.clone(),
                    bytes: new.into_bytes(),
                    expect: if file.created {
                        Expect::Absent
                    } else {
                        Expect::Unchanged {
                            len: file.len,
                            hash: file.hash,
                        }
                    },
                }
            })
            .collect();
        Ok(planned)
    }
}

/// A file a save would change: its path, whether it is new, and its text now and after.
#[derive(Debug, Clone)]
pub struct Pending {
    pub path: String,
    pub created: bool,
    pub old: String,
    pub new: String,
}

/// A unified diff (three lines of context) of files a save would change. Pure: the slow part of a
/// preview, which can run away from the catalog.
pub fn unified_diff(pending: &[Pending]) -> String {
    let mut out = String::new();
    for p in pending {
        let diff = similar::TextDiff::from_lines(&p.old, &p.new);
        let old_name = if p.created {
            "/dev/null".to_string()
        } else {
            format!("a/{}", p.path)
        };
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&old_name, &format!("b/{}", p.path))
                .to_string(),
        );
    }
    out
}
