//! What the template commands print about files: each named by its path under the root the
//! command line fixed (an operator's `v4.17.yaml` told from another's), and what a write did.

use std::path::Path;

use fbc_core::catalog::write::{Pending, WriteError};
use fbc_core::guard::path::Root;
use fbc_core::template::edit::TemplateDoc;
use fbc_core::workspace::templates;

/// What a save would change in a template, each file named by its path under `root` (the
/// directory the command line fixed), so that templates of one name in several directories are
/// told apart.
pub(crate) fn template_pending(root: &Root, doc: &TemplateDoc) -> Result<Vec<Pending>, WriteError> {
    let dir = doc.path().parent().unwrap_or(Path::new(""));
    Ok(doc
        .catalog
        .pending()?
        .into_iter()
        .map(|mut p| {
            p.path = shown(root, &dir.join(&p.path));
            p
        })
        .collect())
}

/// A path as a diff names it: below `root` as it is written (a link named, not followed), else as
/// placed under the root, else as it is.
pub(crate) fn shown(root: &Root, path: &Path) -> String {
    let written = std::path::absolute(path).ok().and_then(|abs| {
        let rel = abs.strip_prefix(root.path()).ok()?;
        let parts = rel
            .components()
            .map(|c| match c {
                std::path::Component::Normal(s) => s.to_str(),
                _ => None,
            })
            .collect::<Option<Vec<&str>>>()?;
        (!parts.is_empty()).then(|| parts.join("/"))
    });
    written.unwrap_or_else(|| {
        templates::place(root, path).unwrap_or_else(|_| path.display().to_string())
    })
}

/// What a write did: the files it wrote, or that there was nothing to write (the templates hold
/// the change already and their catalogs are rendered from them).
pub(crate) fn said_written(what: &str, written: &[String]) -> String {
    if written.is_empty() {
        format!(
            "{what}: nothing to write: the templates hold it already and the catalogs they map to are up to date"
        )
    } else {
        format!("{what}: wrote {}", written.join(", "))
    }
}
