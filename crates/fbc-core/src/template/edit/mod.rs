//! Editing catalog templates where their authors edit them: guided edits written into the template's
//! own text, so that comments, key order and case, quoting and indentation stay, and untouched lines
//! keep every byte.
//!
//! A template file is opened as a one-file catalog ([`TemplateDoc`]): its document is one blob with
//! positions, and saving it goes through the catalog writer (minimal line changes) and the one
//! all-or-nothing commit.
//!
//! - A **basic** template lists catalog objects. A guided [`Edit`] is applied to a view of the catalog
//!   the template stands for (its package, channels and deprecations as written, its bundles rendered
//!   from their images), and what changed in the view is written back into the template's `entries`:
//!   a changed channel in place, a new channel or deprecation after the last entry of its kind, a
//!   new bundle as `{schema: olm.bundle, image}`.
//! - A **semver** template lists bundle images per maturity; channels and edges are generated. Its
//!   own edits are [`SemverEdit`]s; the guided edits it can express (adding or removing a bundle)
//!   are translated, the others refused in plain words.

mod basic;
mod doc;
pub mod release;
mod semver;
mod substitutes;

pub use basic::{entries_of, schema_of};
pub use doc::{DocError, TemplateDoc};
pub use semver::{SemverEdit, SemverFlag, maturity_of};
pub use substitutes::SubstitutesEdit;

use crate::catalog::node::Node;
use crate::edit::{Edit, EditError};

use super::source::BundleSource;
use super::{Body, TemplateError};

/// An edit of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateEdit {
    /// A guided edit of the catalog the template renders to, written into the template.
    Catalog(Edit),
    /// An edit only a semver template has.
    Semver(SemverEdit),
    /// An edit of a substitutes template's `substitutions`.
    Substitutes(SubstitutesEdit),
}

impl TemplateEdit {
    /// What the edit will do, in a sentence.
    pub fn describe(&self) -> String {
        match self {
            TemplateEdit::Catalog(e) => e.describe(),
            TemplateEdit::Semver(e) => e.describe(),
            TemplateEdit::Substitutes(e) => e.describe(),
        }
    }
}

/// Why a template edit cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateEditError {
    /// The edit's own preconditions (as for a catalog).
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The template cannot say this (a skipRange in a semver template, say).
    #[error("{0}")]
    CannotExpress(String),
    /// The template cannot be read or rendered as it is.
    #[error("{0}")]
    Template(String),
}

impl From<TemplateError> for TemplateEditError {
    fn from(e: TemplateError) -> Self {
        TemplateEditError::Template(e.to_string())
    }
}

/// Applies `edit` to the template held by `doc`, resolving bundle images with `source`; returns the
/// template document as it becomes (nothing is changed on an error).
pub fn apply(
    doc: &TemplateDoc,
    edit: &TemplateEdit,
    source: &dyn BundleSource,
) -> Result<Node, TemplateEditError> {
    let template = doc.template()?;
    match (&template.body, edit) {
        (Body::Basic(_), TemplateEdit::Catalog(e)) => basic::apply(doc, e, source),
        (Body::Basic(_), TemplateEdit::Semver(e)) => {
            Err(TemplateEditError::CannotExpress(format!(
                "{}: a basic template has no {}; that is a semver template's setting",
                doc.name(),
                e.field()
            )))
        }
        (Body::Semver(s), TemplateEdit::Catalog(e)) => {
            let translated = semver::translate(doc, s, e, source)?;
            semver::apply(doc, s, &translated)
        }
        (Body::Semver(s), TemplateEdit::Semver(e)) => semver::apply(doc, s, e),
        (Body::Substitutes(s), TemplateEdit::Substitutes(e)) => substitutes::apply(doc, s, e),
        (Body::Substitutes(_), TemplateEdit::Catalog(e)) => {
            Err(TemplateEditError::CannotExpress(format!(
                "{}: a substitutes template's entries are edited as written (in $EDITOR); its own edits add and drop substitutions ({})",
                doc.name(),
                e.describe()
            )))
        }
        (Body::Substitutes(_), TemplateEdit::Semver(e)) => {
            Err(TemplateEditError::CannotExpress(format!(
                "{}: a substitutes template has no {}; that is a semver template's setting",
                doc.name(),
                e.field()
            )))
        }
        (_, TemplateEdit::Substitutes(e)) => Err(TemplateEditError::CannotExpress(format!(
            "{}: only a substitutes template has {}",
            doc.name(),
            e.field()
        ))),
    }
}
