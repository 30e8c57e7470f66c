//! What kinds of templates a set holds, for the faces to offer only the edits they can write.

use super::TemplateSet;

impl TemplateSet {
    /// Whether every template of the set is a semver template: those list bundles by image and
    /// generate their channels, so of the guided edits only adding, promoting and removing a bundle
    /// can be written into them.
    pub fn all_semver(&self) -> bool {
        self.members.iter().all(|m| {
            crate::template::edit::schema_of(m.ws.doc().node()) == crate::template::schemas::SEMVER
        })
    }
}
