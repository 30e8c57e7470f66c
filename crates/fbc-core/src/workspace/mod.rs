//! An opened catalog with its edit history: apply, undo, redo, the live diagnostics (re-checked per
//! touched package), a preview of what saving would write, and save.

pub mod session;
pub mod template;
pub mod templates;

use thiserror::Error;

use crate::catalog::commit::CommitOptions;
use crate::catalog::write::{SaveReport, WriteError};
use crate::catalog::{Catalog, Diagnostic, Severity};
use crate::edit::{Edit, EditError, Undo};
use crate::validate::{Report, Validation};

/// An opened catalog. Its catalog is read through [`Workspace::catalog`] and changed only by edits
/// ([`Workspace::apply`], undo, redo), so the history and the diagnostics always match it.
pub struct Workspace {
    catalog: Catalog,
    validation: Validation,
    /// The validation's report, made when first asked for after a change.
    report: std::sync::OnceLock<Report>,
    done: Vec<(Edit, Undo)>,
    undone: Vec<Edit>,
}

/// What an applied edit changed in the diagnostics.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Errors the edit introduced.
    pub introduced: Vec<Diagnostic>,
    /// Errors the edit fixed.
    pub fixed: Vec<Diagnostic>,
    /// What else there is to say (the templates of a set the edit does not apply to, and why).
    pub notes: Vec<String>,
}

/// Why a save (or its preview) did not go through, told apart by what the user can do about it.
/// The message is the write's own.
#[derive(Debug, Error)]
pub enum SaveError {
    /// A file changed on disk since the catalog was read: reloading is the way on.
    #[error(transparent)]
    ChangedOnDisk(WriteError),
    /// Refused only because a file is read-only: forcing the save would write it.
    #[error(transparent)]
    ReadOnly(WriteError),
    /// Any other failure.
    #[error(transparent)]
    Failed(WriteError),
}

impl From<WriteError> for SaveError {
    fn from(e: WriteError) -> Self {
        if matches!(e, WriteError::ChangedOnDisk { .. }) {
            SaveError::ChangedOnDisk(e)
        } else if e.is_read_only() {
            SaveError::ReadOnly(e)
        } else {
            SaveError::Failed(e)
        }
    }
}

impl SaveError {
    /// Whether the save stopped before writing anything (else the message says what became of each
    /// file).
    pub fn wrote_nothing(&self) -> bool {
        self.write_error().wrote_nothing()
    }

    /// Whether the save was refused only because a file is read-only.
    pub fn is_read_only(&self) -> bool {
        matches!(self, SaveError::ReadOnly(_))
    }

    /// The write's own account of what went wrong.
    pub fn write_error(&self) -> &WriteError {
        match self {
            SaveError::ChangedOnDisk(e) | SaveError::ReadOnly(e) | SaveError::Failed(e) => e,
        }
    }
}

fn errors_of(report: &Report, package: &str) -> Vec<Diagnostic> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter(|d| d.object.package.as_deref().is_none_or(|p| p == package))
        .cloned()
        .collect()
}

fn same(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.code == b.code && a.message == b.message
}

impl Workspace {
    pub fn open(catalog: Catalog) -> Workspace {
        let validation = Validation::run(&catalog);
        let report = validation.report().into();
        Workspace {
            catalog,
            validation,
            report,
            done: Vec::new(),
            undone: Vec::new(),
        }
    }

    /// A workspace for edits of one package and nothing else, such as a command that makes one edit
    /// and ends: only that package and the catalog as a whole are checked, so opening costs no
    /// validation of packages the edits cannot change. [`Workspace::report`] covers no other
    /// package; [`Workspace::apply`] still says which errors an edit of `package` introduced.
    pub fn open_for(catalog: Catalog, package: &str) -> Workspace {
        let validation = Validation::run_packages(&catalog, &[package]);
        let report = validation.report().into();
        Workspace {
            catalog,
            validation,
            report,
            done: Vec::new(),
            undone: Vec::new(),
        }
    }

    /// Reads `text` in place of the file at `rel` (an editor's unsaved buffer, see
    /// [`Catalog::overlay`]) and re-checks only the packages the file held and holds. The edit
    /// history is dropped: the text is what the file now holds.
    pub fn overlay(&mut self, rel: &str, text: &str) -> crate::catalog::overlay::Overlaid {
        let o = self.catalog.overlay(rel, text);
        self.done.clear();
        self.undone.clear();
        self.validation.forget(&o.blobs);
        let packages: Vec<&str> = o.packages.iter().map(String::as_str).collect();
        self.validation.revalidate(&self.catalog, &packages);
        self.report = std::sync::OnceLock::new();
        o
    }

    /// The checks kept per package, to read one package's problems without the whole report.
    pub fn validation(&self) -> &Validation {
        &self.validation
    }

    /// The catalog as the edits so far left it.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The live diagnostics, sorted.
    pub fn report(&self) -> &Report {
        self.report.get_or_init(|| self.validation.report())
    }

    fn revalidate(&mut self, package: &str) {
        self.validation.revalidate(&self.catalog, &[package]);
        self.report = std::sync::OnceLock::new();
    }

    /// Applies an edit, re-checks its package, and says which errors it introduced and fixed.
    pub fn apply(&mut self, edit: Edit) -> Result<Outcome, EditError> {
        let before = errors_of(self.report(), edit.package());
        let undo = edit.apply(&mut self.catalog)?;
        self.revalidate(edit.package());
        let after = errors_of(self.report(), edit.package());
        let outcome = Outcome {
            introduced: after
                .iter()
                .filter(|d| !before.iter().any(|b| same(b, d)))
                .cloned()
                .collect(),
            fixed: before
                .iter()
                .filter(|d| !after.iter().any(|a| same(a, d)))
                .cloned()
                .collect(),
            notes: Vec::new(),
        };
        self.done.push((edit, undo));
        self.undone.clear();
        Ok(outcome)
    }

    /// The edits made since loading or the last save, oldest first: what to apply again to the
    /// catalog read anew after it was changed outside (see the TUI's open-in-editor).
    pub fn edits(&self) -> Vec<Edit> {
        self.done.iter().map(|(e, _)| e.clone()).collect()
    }

    /// The errors an edit would introduce, without keeping it.
    pub fn check(&mut self, edit: &Edit) -> Result<Vec<Diagnostic>, EditError> {
        let redo = std::mem::take(&mut self.undone);
        let result = self.apply(edit.clone()).map(|outcome| {
            self.undo();
            outcome.introduced
        });
        self.undone = redo;
        result
    }

    /// Undoes the last edit; returns what it was.
    pub fn undo(&mut self) -> Option<String> {
        let (edit, undo) = self.done.pop()?;
        undo.apply(&mut self.catalog);
        self.revalidate(edit.package());
        let what = edit.describe();
        self.undone.push(edit);
        Some(what)
    }

    /// Applies the last undone edit again.
    pub fn redo(&mut self) -> Option<Result<String, EditError>> {
        let edit = self.undone.pop()?;
        let what = edit.describe();
        let redo_stack = std::mem::take(&mut self.undone);
        let result = self.apply(edit).map(|_| what);
        self.undone = redo_stack;
        Some(result)
    }

    /// The package the next undo changes.
    pub fn undo_package(&self) -> Option<&str> {
        self.done.last().map(|(e, _)| e.package())
    }

    /// The package the next redo changes.
    pub fn redo_package(&self) -> Option<&str> {
        self.undone.last().map(Edit::package)
    }

    pub fn can_undo(&self) -> bool {
        !self.done.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.undone.is_empty()
    }

    /// Files a save would write (catalog-relative paths). Worked out from the objects, without
    /// rendering any file.
    pub fn dirty_files(&self) -> Vec<String> {
        self.catalog
            .dirty_files()
            .into_iter()
            .map(|f| self.catalog.files[f].path.clone())
            .collect()
    }

    pub fn is_dirty(&self) -> bool {
        !self.dirty_files().is_empty()
    }

    /// The unified diff of everything a save would write.
    pub fn preview(&self) -> Result<String, SaveError> {
        Ok(self.catalog.preview()?)
    }

    /// The files a save would change, with their text now and after (reads the changed files);
    /// [`crate::catalog::write::unified_diff`] makes the preview of them.
    pub fn pending(&self) -> Result<Vec<crate::catalog::write::Pending>, SaveError> {
        Ok(self.catalog.pending()?)
    }

    /// Saves (all files or none; refusing when a file changed on disk, is read-only or lies behind a
    /// link) and starts a fresh history.
    pub fn save(&mut self) -> Result<SaveReport, SaveError> {
        self.save_with(&CommitOptions::default())
    }

    /// [`Workspace::save`] with options (for example writing read-only files).
    pub fn save_with(&mut self, options: &CommitOptions) -> Result<SaveReport, SaveError> {
        let report = self.catalog.save_with(options)?;
        self.done.clear();
        self.undone.clear();
        self.validation = Validation::run(&self.catalog);
        self.report = std::sync::OnceLock::new();
        Ok(report)
    }

    /// The files a save would write, with what each must find on disk (reads the changed files).
    pub fn plan_save(&self) -> Result<Vec<crate::catalog::commit::PlannedFile>, SaveError> {
        Ok(self.catalog.plan_changes()?)
    }

    /// Validates the whole catalog afresh (for [`Workspace::set_validation`]); slow on big catalogs,
    /// so it can run apart from the workspace.
    pub fn validate_all(&self) -> Validation {
        Validation::run(&self.catalog)
    }

    /// Takes a whole-catalog validation made by [`Workspace::validate_all`].
    pub fn set_validation(&mut self, validation: Validation) {
        self.report = std::sync::OnceLock::new();
        self.validation = validation;
    }

    /// Writes the changes like [`Workspace::save`] but keeps the workspace as it is: for a command that
    /// ends after writing, so it does not read back what it just wrote.
    pub fn write_and_finish(self, options: &CommitOptions) -> Result<SaveReport, SaveError> {
        Ok(self.catalog.write_changes(options)?)
    }
}

/// Writes planned files under `root` (all or nothing), then opens the catalog as it now is on disk:
/// the second half of a save, which needs no workspace and so can run on a worker thread.
pub fn write_and_reopen(
    root: &std::path::Path,
    planned: Vec<crate::catalog::commit::PlannedFile>,
    options: &CommitOptions,
) -> Result<(SaveReport, Workspace), SaveError> {
    crate::catalog::commit::commit(root, &planned, options).map_err(WriteError::from)?;
    let report = SaveReport {
        written: planned.into_iter().map(|p| p.rel).collect(),
    };
    // The strings left on disk are checked while their file is read, so the checks of later
    // edits read nothing (the terminal UI makes them as keys are pressed).
    let options = crate::catalog::LoadOptions {
        check_payloads: true,
        ..Default::default()
    };
    let catalog = crate::catalog::load_with(root, &options).map_err(|e| {
        SaveError::from(WriteError::Io {
            path: ".".into(),
            source: std::io::Error::other(e.to_string()),
        })
    })?;
    Ok((report, Workspace::open(catalog)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::Target;

    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    fn demo() -> (tempfile::TempDir, Workspace) {
        let tmp = tempfile::tempdir().unwrap();
        copy(
            &std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                .join("assets/demo-catalog"),
            tmp.path(),
        );
        let ws = Workspace::open(crate::catalog::load(tmp.path()).unwrap());
        (tmp, ws)
    }

    #[test]
    fn apply_undo_redo_and_live_problems() {
        let (_tmp, mut ws) = demo();
        assert!(!ws.is_dirty());
        let out = ws
            .apply(Edit::DeleteChannel {
                package: "cache-operator".into(),
                channel: "candidate".into(),
            })
            .unwrap();
        assert_eq!(
            out.introduced.len(),
            1,
            "the rc bundle is in no channel any more"
        );
        assert!(ws.is_dirty());
        assert_eq!(
            ws.undo().as_deref(),
            Some("delete channel candidate of cache-operator")
        );
        assert!(!ws.is_dirty());
        assert!(ws.report().is_valid());
        assert!(ws.redo().unwrap().is_ok());
        assert!(!ws.report().is_valid());
        ws.undo();
        // check() leaves nothing behind.
        let introduced = ws
            .check(&Edit::Deprecate {
                package: "backup-operator".into(),
                target: Target::Package,
                message: "use metrics-gateway".into(),
            })
            .unwrap();
        assert!(introduced.is_empty());
        assert!(!ws.is_dirty());
        assert!(ws.can_redo(), "check() keeps the redo history");
    }

    /// Opened for one package, a workspace checks that package alone (another package's error goes
    /// unreported), and an edit introduces the same errors as in a workspace that checked all.
    #[test]
    fn open_for_checks_one_package_and_finds_the_same_new_errors() {
        let (tmp, _) = demo();
        let package = tmp.path().join("backup-operator/package.yaml");
        let text = std::fs::read_to_string(&package).unwrap();
        std::fs::write(
            &package,
            text.replace("defaultChannel: stable", "defaultChannel: nowhere"),
        )
        .unwrap();
        let catalog = || crate::catalog::load(tmp.path()).unwrap();
        let mut full = Workspace::open(catalog());
        let mut one = Workspace::open_for(catalog(), "cache-operator");
        let in_backup = |ws: &Workspace| {
            ws.report()
                .diagnostics
                .iter()
                .filter(|d| d.object.package.as_deref() == Some("backup-operator"))
                .count()
        };
        assert!(in_backup(&full) > 0);
        assert_eq!(in_backup(&one), 0);
        let edit = Edit::DeleteChannel {
            package: "cache-operator".into(),
            channel: "candidate".into(),
        };
        let (a, b) = (full.apply(edit.clone()).unwrap(), one.apply(edit).unwrap());
        assert_eq!(
            b.introduced.len(),
            1,
            "the rc bundle is in no channel any more"
        );
        let messages =
            |o: &Outcome| -> Vec<String> { o.introduced.iter().map(|d| d.to_string()).collect() };
        assert_eq!(messages(&a), messages(&b));
        assert_eq!(one.preview().unwrap(), full.preview().unwrap());
    }

    #[test]
    fn save_writes_and_starts_fresh() {
        let (tmp, mut ws) = demo();
        ws.apply(Edit::SetDefaultChannel {
            package: "cache-operator".into(),
            channel: "fast".into(),
        })
        .unwrap();
        assert_eq!(ws.dirty_files(), ["cache-operator/catalog.yaml"]);
        let report = ws.save().unwrap();
        assert_eq!(report.written, ["cache-operator/catalog.yaml"]);
        assert!(!ws.can_undo() && !ws.is_dirty());
        let text = std::fs::read_to_string(tmp.path().join("cache-operator/catalog.yaml")).unwrap();
        assert!(text.contains("defaultChannel: fast"));
    }
}
