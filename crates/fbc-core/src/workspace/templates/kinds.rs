//! What kinds of templates a set holds, for the faces to offer only the edits they can write.

use super::TemplateSet;

impl TemplateSet {
    /// Whether every template of the set is a semver template: those list bundles by image and
    /// generate their channels, so of the guided edits only adding, promoting and removing a bundle
    /// can be written into them.
    pub fn all_semver(&self) -> bool {
        self.all_of(&[crate::template::schemas::SEMVER])
    }

    /// Whether every template of the set is of one of `schemas` (`olm.semver`,
    /// `olm.template.substitutes`, …). A substitutes template's entries are edited as written, so
    /// none of the guided edits of a catalog can be written into one; only its substitutions are
    /// edited.
    pub fn all_of(&self, schemas: &[&str]) -> bool {
        self.members
            .iter()
            .all(|m| schemas.contains(&crate::template::edit::schema_of(m.ws.doc().node())))
    }
}
