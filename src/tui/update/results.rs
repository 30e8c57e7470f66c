//! What comes back from the workers: the write preview, a save's outcome, a rendered bundle.

use crate::tui::model::{Dialog, Effect, InputFor, Model, Reopened, Saved, State};
use crate::tui::tree::Loaded;
use crate::tui::update::pickers::{channels_for_new, grey_new_channels};
use fbc_core::catalog::Severity;
use fbc_core::catalog::commit::CommitOptions;
use fbc_core::workspace::SaveError;
use fbc_core::workspace::session::Session;
use std::path::PathBuf;

/// The diff of what a save would write is in: show it, or say why not.
pub(crate) fn previewed(m: &mut Model, result: Result<String, SaveError>) {
    m.status = None;
    match result {
        Ok(d) if d.is_empty() => m.status = Some("nothing to write".into()),
        // Read into files, hunks and rows once, here; frames draw only the rows on screen.
        Ok(d) => {
            m.dialog = Some(Dialog::Write {
                view: Box::new(crate::tui::diffview::DiffView::parse(d)),
            })
        }
        Err(e @ SaveError::ChangedOnDisk(_)) => {
            m.dialog = Some(Dialog::Reload { why: e.to_string() })
        }
        Err(e) => m.status = Some(e.to_string()),
    }
}

/// A save ended: take the catalog as read back, or say what became of each file.
pub(crate) fn saved(m: &mut Model, result: Result<Saved, SaveError>) -> Vec<Effect> {
    m.status = None;
    let after = m.after_save.take();
    // Nothing (or not everything) written: the quit waits for the user's answer.
    if result.is_err() {
        m.quit_after_save = false;
    }
    match result {
        Ok(Saved { report, reopened }) => {
            if let Some(l) = m.loaded_mut() {
                match reopened {
                    Reopened::Catalog(ws) => l.ws = Session::Catalog(ws),
                    Reopened::Templates(docs) => {
                        if let Some(set) = l.ws.templates_mut() {
                            set.saved(docs);
                        }
                    }
                }
                l.refresh();
            }
            m.status = Some(format!("wrote {}", report.written.join(", ")));
            // `w` in the quit question: written, so the quit goes on.
            if std::mem::take(&mut m.quit_after_save) {
                m.quit = true;
            }
            return after.into_iter().collect();
        }
        Err(e @ SaveError::ChangedOnDisk(_)) => {
            m.dialog = Some(Dialog::Reload { why: e.to_string() });
        }
        Err(e) if e.is_read_only() => m.dialog = Some(Dialog::ForceWrite { why: e.to_string() }),
        Err(e) => {
            let text = e.to_string();
            let title = if e.wrote_nothing() {
                "nothing was written"
            } else {
                "the save failed"
            };
            if text.contains('\n') {
                m.dialog = Some(Dialog::SaveFailed {
                    title: title.into(),
                    lines: text.lines().map(str::to_string).collect(),
                });
            } else if e.wrote_nothing() {
                m.status = Some(format!("nothing written: {text}"));
            } else {
                m.status = Some(text);
            }
        }
    }
    Vec::new()
}

/// Starts a save: the screen says so until the result is in, and keys wait.
pub(crate) fn save(m: &mut Model, options: CommitOptions) -> Vec<Effect> {
    m.busy = Some("saving…".into());
    m.status = Some("saving…".into());
    vec![Effect::Save(options)]
}

/// A bundle directory was rendered: pick its channel next, or say why not.
pub(crate) fn bundle_rendered(
    m: &mut Model,
    dir: PathBuf,
    result: Result<(serde_json::Value, Vec<String>), String>,
) {
    m.busy = None;
    m.status = None;
    match result {
        Ok((bundle, annotated)) => {
            let Some(l) = m.loaded() else {
                return;
            };
            let options = channels_for_new(l, &bundle, &annotated);
            let picker = grey_new_channels(l, &bundle, options.clone());
            if options.is_empty() {
                m.status = Some(format!(
                    "the bundle in {} names no channel; add it with fbc-edit edit add-bundle --channel",
                    dir.display()
                ));
            } else {
                m.dialog = Some(Dialog::PickChannelForNew {
                    bundle: Box::new(bundle),
                    picker,
                });
            }
        }
        Err(e) => {
            m.status = Some(format!(
                "cannot render {}: {e} (fbc-edit check-bundle lists every problem)",
                dir.display()
            ))
        }
    }
}

/// A catalog (re)loaded: the tree is built afresh, keeping the filter, the template shown and the
/// selection where it can (after `:reload` or `$EDITOR`, the tree looks as it did).
pub(crate) fn loaded(m: &mut Model, mut ws: Session) {
    let keep = m
        .loaded()
        .map(|l| (l.selected().to_vec(), l.filter.clone(), l.olm_v1));
    let shown = m
        .loaded()
        .and_then(|l| l.ws.templates())
        .map(|set| (set.shown(), set.names().len()));
    if let (Some((i, n)), Some(set)) = (shown, ws.templates_mut())
        && set.names().len() == n
    {
        set.show(i);
    }
    let mut l = Loaded::new(ws);
    let replayed = m.replay.take().map(|edits| replay(&mut l, edits));
    if let Some((path, filter, olm_v1)) = keep {
        l.olm_v1 = olm_v1;
        if filter.is_some() {
            l.filter = filter;
            l.refilter();
        }
        if !path.is_empty() {
            l.select_deepest(&path);
        }
    }
    if let Some(t) = &m.template {
        let count = l.ws.templates().map_or(1, |set| set.names().len());
        m.status = Some(t.banner(count));
    } else if let Some(i) = &m.image {
        m.status = Some(i.banner());
    } else if l.ws.catalog().index().package_names().is_empty() {
        m.status = Some(format!(
            "no catalog objects under {}: is this a file-based catalog directory?",
            m.dir.display()
        ));
    }
    if let Some(said) = replayed {
        m.status = Some(said);
    }
    m.state = State::Ready(Box::new(l));
}

/// Applies unsaved edits again to the catalog read anew; says how many still applied and which
/// no longer do (the file they change was changed outside).
fn replay(l: &mut Loaded, edits: Vec<fbc_core::template::edit::TemplateEdit>) -> String {
    let total = edits.len();
    let mut refused = Vec::new();
    for edit in edits {
        if let Err(e) = l.ws.apply_template(edit.clone()) {
            refused.push(format!("{}: {e}", edit.describe()));
        }
    }
    l.refresh();
    let kept = total - refused.len();
    let mut said = format!(
        "read again; {kept} of {total} unsaved edit{} applied again",
        if total == 1 { "" } else { "s" }
    );
    if !refused.is_empty() {
        said.push_str(&format!("; no longer applies: {}", refused.join("; ")));
    }
    said
}

/// Whether the directory given to add a bundle from is one: then its image reference is asked.
pub(crate) fn bundle_dir_checked(m: &mut Model, dir: PathBuf, is_bundle: bool) {
    if !is_bundle {
        m.status = Some(format!(
            "{} is not a registry+v1 bundle directory (manifests/ and metadata/)",
            dir.display()
        ));
        return;
    }
    m.status = None;
    m.dialog = Some(Dialog::Input {
        title: format!(
            "image reference of the bundle in {} (empty for none)",
            dir.display()
        ),
        text: Default::default(),
        then: InputFor::AddBundleImage { dir },
    });
}

/// A path completed: taken only while the question is still open and nothing was typed meanwhile.
pub(crate) fn path_completed(m: &mut Model, from: String, to: String, note: Option<String>) {
    if let Some(Dialog::Input {
        text,
        then: InputFor::AddBundleDir,
        ..
    }) = &mut m.dialog
        && text.text() == from
    {
        text.set(to);
        if note.is_some() {
            m.status = note;
        }
    }
}

/// The whole catalog validated afresh (`:validate`).
pub(crate) fn validated(m: &mut Model, validation: fbc_core::validate::Validation) {
    m.busy = None;
    if let Some(l) = m.loaded_mut() {
        l.ws.set_validation(validation);
        let errors = l.ws.report().count(Severity::Error);
        let warnings = l.ws.report().count(Severity::Warning);
        l.refresh();
        m.status = Some(format!(
            "{}: {}, {}",
            if errors == 0 { "valid" } else { "invalid" },
            fbc_core::text::plural(errors, "error", "errors"),
            fbc_core::text::plural(warnings, "warning", "warnings")
        ));
    }
}
