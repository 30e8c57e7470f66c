//! What comes back from the workers: the write preview, a save's outcome, a rendered bundle.

use super::*;

/// The diff of what a save would write is in: show it, or say why not.
pub(crate) fn previewed(m: &mut Model, result: Result<String, SaveError>) {
    m.status = None;
    match result {
        Ok(d) if d.is_empty() => m.status = Some("nothing to write".into()),
        Ok(d) => {
            m.dialog = Some(Dialog::Write {
                lines: d.lines().map(String::from).collect(),
                scroll: 0,
            })
        }
        Err(e @ SaveError::ChangedOnDisk(_)) => {
            m.dialog = Some(Dialog::Reload { why: e.to_string() })
        }
        Err(e) => m.status = Some(e.to_string()),
    }
}

/// A save ended: take the catalog as read back, or say what became of each file.
pub(crate) fn saved(m: &mut Model, result: Result<Saved, SaveError>) {
    m.status = None;
    match result {
        Ok(Saved { report, workspace }) => {
            if let Some(l) = m.loaded_mut() {
                l.ws = *workspace;
                l.refresh();
            }
            m.status = Some(format!("wrote {}", report.written.join(", ")));
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
            if options.is_empty() {
                m.status = Some(format!(
                    "the bundle in {} names no channel; add it with fbc-edit edit add-bundle --channel",
                    dir.display()
                ));
            } else {
                m.dialog = Some(Dialog::PickChannelForNew {
                    bundle: Box::new(bundle),
                    picker: Picker::new(options),
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
