//! What the terminal UI edits: a catalog directory, or templates whose rendering is on screen while
//! the edits go into the templates. Both answer the same questions (the catalog to draw, its
//! problems, apply, undo, what a save writes), so the screens need not tell them apart.

use std::path::{Path, PathBuf};

use crate::catalog::commit::PlannedFile;
use crate::catalog::write::Pending;
use crate::catalog::{Catalog, Diagnostic};
use crate::edit::Edit;
use crate::template::edit::{TemplateEdit, TemplateEditError};
use crate::validate::{Report, Validation};

use super::templates::TemplateSet;
use super::{Outcome, SaveError, Workspace};

/// A catalog or a set of templates, opened for editing.
pub enum Session {
    Catalog(Box<Workspace>),
    Templates(Box<TemplateSet>),
}

impl From<Workspace> for Session {
    fn from(ws: Workspace) -> Self {
        Session::Catalog(Box::new(ws))
    }
}

impl From<TemplateSet> for Session {
    fn from(set: TemplateSet) -> Self {
        Session::Templates(Box::new(set))
    }
}

impl Session {
    /// The catalog on screen: the catalog itself, or the shown template's rendering.
    pub fn catalog(&self) -> &Catalog {
        match self {
            Session::Catalog(ws) => ws.catalog(),
            Session::Templates(set) => set.catalog(),
        }
    }

    pub fn report(&self) -> &Report {
        match self {
            Session::Catalog(ws) => ws.report(),
            Session::Templates(set) => set.report(),
        }
    }

    /// The templates, when templates are edited.
    pub fn templates(&self) -> Option<&TemplateSet> {
        match self {
            Session::Templates(set) => Some(set),
            Session::Catalog(_) => None,
        }
    }

    pub fn templates_mut(&mut self) -> Option<&mut TemplateSet> {
        match self {
            Session::Templates(set) => Some(set),
            Session::Catalog(_) => None,
        }
    }

    /// The directory saves write under.
    pub fn root(&self) -> PathBuf {
        match self {
            Session::Catalog(ws) => ws.catalog().root.clone(),
            Session::Templates(set) => set.root().to_path_buf(),
        }
    }

    /// The file edits go into when a problem or object has no file of its own on disk: the shown
    /// template (none for a catalog).
    pub fn template_file(&self) -> Option<&Path> {
        self.templates()
            .map(|set| set.shown_template().doc().path())
    }

    pub fn apply(&mut self, edit: Edit) -> Result<Outcome, TemplateEditError> {
        match self {
            Session::Catalog(ws) => Ok(ws.apply(edit)?),
            Session::Templates(set) => set.apply(edit),
        }
    }

    /// Applies a template edit: a guided edit anywhere, an edit only a semver template has to
    /// templates alone.
    pub fn apply_template(&mut self, edit: TemplateEdit) -> Result<Outcome, TemplateEditError> {
        match (self, edit) {
            (Session::Catalog(ws), TemplateEdit::Catalog(e)) => Ok(ws.apply(e)?),
            (Session::Catalog(_), TemplateEdit::Semver(e)) => {
                Err(TemplateEditError::CannotExpress(format!(
                    "a catalog has no {}: that is a semver template's, and no template is open",
                    e.field()
                )))
            }
            (Session::Catalog(_), TemplateEdit::Substitutes(e)) => {
                Err(TemplateEditError::CannotExpress(format!(
                    "a catalog has no {}: that is a substitutes template's, and no template is open",
                    e.field()
                )))
            }
            (Session::Templates(set), e) => set.apply_template(e),
        }
    }

    pub fn check(&mut self, edit: &Edit) -> Result<Vec<Diagnostic>, TemplateEditError> {
        match self {
            Session::Catalog(ws) => Ok(ws.check(edit)?),
            Session::Templates(set) => set.check(edit),
        }
    }

    pub fn undo(&mut self) -> Option<String> {
        match self {
            Session::Catalog(ws) => ws.undo(),
            Session::Templates(set) => set.undo(),
        }
    }

    pub fn redo(&mut self) -> Option<Result<String, TemplateEditError>> {
        match self {
            Session::Catalog(ws) => ws.redo().map(|r| r.map_err(TemplateEditError::from)),
            Session::Templates(set) => set.redo(),
        }
    }

    pub fn undo_package(&self) -> Option<&str> {
        match self {
            Session::Catalog(ws) => ws.undo_package(),
            Session::Templates(set) => set.undo_package(),
        }
    }

    pub fn redo_package(&self) -> Option<&str> {
        match self {
            Session::Catalog(ws) => ws.redo_package(),
            Session::Templates(set) => set.redo_package(),
        }
    }

    pub fn can_undo(&self) -> bool {
        match self {
            Session::Catalog(ws) => ws.can_undo(),
            Session::Templates(set) => set.can_undo(),
        }
    }

    pub fn can_redo(&self) -> bool {
        match self {
            Session::Catalog(ws) => ws.can_redo(),
            Session::Templates(set) => set.can_redo(),
        }
    }

    /// The edits made and not undone, oldest first (to make again after reading anew).
    pub fn edits(&self) -> Vec<TemplateEdit> {
        match self {
            Session::Catalog(ws) => ws.edits().into_iter().map(TemplateEdit::Catalog).collect(),
            Session::Templates(set) => set.edits(),
        }
    }

    /// The files a save would write (templates: the templates; their catalogs follow).
    pub fn dirty_files(&self) -> Vec<String> {
        match self {
            Session::Catalog(ws) => ws.dirty_files(),
            Session::Templates(set) => set.dirty_files(),
        }
    }

    pub fn is_dirty(&self) -> bool {
        match self {
            Session::Catalog(ws) => ws.is_dirty(),
            Session::Templates(set) => set.is_dirty(),
        }
    }

    /// Each file a save would change, before and after.
    pub fn pending(&self) -> Result<Vec<Pending>, SaveError> {
        match self {
            Session::Catalog(ws) => ws.pending(),
            Session::Templates(set) => set.pending(),
        }
    }

    /// Every file a save writes, under [`Session::root`].
    pub fn plan_save(&self) -> Result<Vec<PlannedFile>, SaveError> {
        match self {
            Session::Catalog(ws) => ws.plan_save(),
            Session::Templates(set) => set.plan_save(),
        }
    }

    /// Checks the catalog on screen afresh, as a whole.
    pub fn validate_all(&self) -> Validation {
        Validation::run(self.catalog())
    }

    /// Takes a whole-catalog check. A template's problems are worked out afresh on every edit, at
    /// its own lines, so they stay as they are.
    pub fn set_validation(&mut self, validation: Validation) {
        if let Session::Catalog(ws) = self {
            ws.set_validation(validation);
        }
    }
}
