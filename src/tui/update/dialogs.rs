//! Keys inside dialogs: pickers, inputs, confirmations, the write preview and the questions a save
//! can ask.

use crate::tui::input::Input;
use crate::tui::keymap::Command;
use crate::tui::model::{
    Dialog, Effect, InputFor, LineInput, Model, PickFor, Promotee, REPLACES_NOTHING,
};
use crate::tui::picker::Picked;
use crate::tui::update::edits::confirm;
use crate::tui::update::pickers::{
    channel_entries, pick_promote_replaces, pick_promote_skips, promote_range_input,
};
use crate::tui::update::results::save;
use fbc_core::catalog::commit::CommitOptions;
use fbc_core::edit::Edit;
use std::path::PathBuf;

/// A key while a dialog is open: the dialog answers it, and stays open or gives way to the next.
/// A dialog taller than the terminal scrolls with the motion keys of the dialog layer.
pub(crate) fn dialog_input(m: &mut Model, dialog: Dialog, input: Input) -> Vec<Effect> {
    let yes = input == Input::Command(Command::Confirm);
    if crate::tui::input::layer_of(&dialog) == crate::tui::keymap::Layer::Dialog
        && let Input::Command(c) = input
        && let Some(step) = scroll_step(c, m.size.height)
    {
        m.dialog = Some(dialog);
        let max = crate::tui::view::dialog_scroll_max(m);
        m.dialog_scroll = m.dialog_scroll.saturating_add_signed(step).min(max);
        return Vec::new();
    }
    m.dialog_scroll = 0;
    match dialog {
        // Read again with the edits applied again (`:reload`), or without them.
        Dialog::Reload { .. } if yes => return super::prompt::reload(m),
        Dialog::Reload { .. } if input == Input::Command(Command::Discard) => {
            m.status = Some("reading the catalog again; the unsaved edits are dropped".into());
            m.busy = m.status.clone();
            return vec![Effect::Load];
        }
        Dialog::Reload { why } => {
            m.status = Some(format!(
                "nothing written: {why} (:reload reads it again and applies the edits again)"
            ));
        }
        Dialog::ForceWrite { why } if !yes => {
            m.status = Some(format!("nothing written: {why}"));
        }
        Dialog::ForceWrite { .. } => {
            let options = CommitOptions {
                force_read_only: true,
                ..m.save_options.clone()
            };
            return save(m, options);
        }
        Dialog::SaveFailed { .. } => m.status = Some("the unsaved edits are kept".into()),
        Dialog::OpenUnsaved { file, line, .. } => return open_unsaved(m, file, line, input),
        Dialog::QuitUnsaved => return quit_unsaved(m, input),
        Dialog::Write { view } => return super::diff::diff_input(m, view, input),
        Dialog::Confirm {
            edit,
            lines,
            invalid,
        } => match input {
            Input::Command(Command::Confirm) => m.status = Some(apply_confirmed(m, edit)),
            Input::Command(Command::Cancel) => m.status = Some("cancelled".into()),
            _ => {
                m.dialog = Some(Dialog::Confirm {
                    edit,
                    lines,
                    invalid,
                })
            }
        },
        Dialog::Input { title, text, then } => return text_input(m, title, text, then, input),
        Dialog::Pick {
            title,
            mut picker,
            then,
        } => match picker.input(input) {
            Picked::Open => {
                m.dialog = Some(Dialog::Pick {
                    title,
                    picker,
                    then,
                })
            }
            Picked::Cancelled => m.status = Some("cancelled".into()),
            Picked::Chosen(one) => picked(m, then, vec![one]),
            Picked::ChosenMany(many) => picked(m, then, many),
        },
        picker @ (Dialog::PickBundle { .. }
        | Dialog::PickChannel { .. }
        | Dialog::PickChannelForNew { .. }) => picker_input(m, picker, input),
    }
    Vec::new()
}

/// Quitting with unsaved edits: `w` writes them, then quits once the save went through; `d`
/// drops them and quits; any other key stays.
fn quit_unsaved(m: &mut Model, input: Input) -> Vec<Effect> {
    match input {
        Input::Command(Command::Write) => {
            m.quit_after_save = true;
            let options = m.save_options.clone();
            save(m, options)
        }
        Input::Command(Command::Discard) => {
            m.quit = true;
            Vec::new()
        }
        _ => {
            m.status = Some("not quitting; the unsaved edits are kept".into());
            Vec::new()
        }
    }
}

/// `o` with unsaved edits: write them first, keep them (applied again once the catalog is read
/// anew after the editor), drop them, or stay.
fn open_unsaved(m: &mut Model, file: String, line: u32, input: Input) -> Vec<Effect> {
    let open = Effect::OpenEditor {
        file: crate::tui::update::editor_path(m, &file),
        line,
    };
    match input {
        Input::Command(Command::Confirm) => {
            m.after_save = Some(open);
            let options = m.save_options.clone();
            save(m, options)
        }
        Input::Command(Command::Keep) => {
            m.replay = m.loaded().map(|l| l.ws.edits());
            vec![open]
        }
        Input::Command(Command::Discard) => vec![open],
        _ => {
            m.status = Some("not opened; the unsaved edits are kept".into());
            Vec::new()
        }
    }
}

/// Applies a confirmed edit; what to say about it.
fn apply_confirmed(m: &mut Model, edit: Edit) -> String {
    let said = match m.apply_edit(edit.clone()) {
        Ok(o) if o.introduced.is_empty() => Ok(o.notes),
        Ok(o) => Err((
            format!(
                "{}: {} (u undoes)",
                edit.describe(),
                fbc_core::text::plural(o.introduced.len(), "new problem", "new problems")
            ),
            o.notes,
        )),
        Err(e) => return format!("cannot {}: {e}", edit.describe()),
    };
    let (mut text, notes) = match said {
        Ok(notes) => (format!("{} (u undoes, w writes)", edit.describe()), notes),
        Err(said) => said,
    };
    // Templates the edit went to, and the ones it did not.
    for n in notes {
        text.push_str(" · ");
        text.push_str(&n);
    }
    text
}

/// How far a motion key scrolls a dialog taller than the terminal.
fn scroll_step(command: Command, height: u16) -> Option<isize> {
    let half = (height as isize / 4).max(1);
    Some(match command {
        Command::Down => 1,
        Command::Up => -1,
        Command::HalfPageDown => half,
        Command::HalfPageUp => -half,
        _ => return None,
    })
}

/// A key in one of the pickers; a choice goes on to the promote questions.
fn picker_input(m: &mut Model, mut dialog: Dialog, input: Input) {
    let picked = match &mut dialog {
        Dialog::PickBundle { picker, .. }
        | Dialog::PickChannel { picker, .. }
        | Dialog::PickChannelForNew { picker, .. } => picker.input(input),
        _ => return,
    };
    let choice = match picked {
        Picked::Open => {
            m.dialog = Some(dialog);
            return;
        }
        Picked::Cancelled => {
            m.status = Some("cancelled".into());
            return;
        }
        Picked::Chosen(choice) => choice,
        Picked::ChosenMany(_) => return,
    };
    let (package, channel, promotee) = match dialog {
        Dialog::PickBundle {
            package, channel, ..
        } => (package, channel, Promotee::Existing(choice)),
        Dialog::PickChannel {
            package, bundle, ..
        } => (package, choice, Promotee::Existing(bundle)),
        Dialog::PickChannelForNew { bundle, .. } => (
            bundle["package"].as_str().unwrap_or("").to_string(),
            choice.trim_end_matches(" (new)").to_string(),
            Promotee::Rendered(bundle),
        ),
        _ => return,
    };
    m.dialog = Some(promote_range_input(m, package, channel, promotee));
}

/// A key in a text input: typing and line editing, Tab (completion of a path, or the value the
/// input offers), Esc, and Enter, which goes on to what the text was asked for.
fn text_input(
    m: &mut Model,
    title: String,
    mut text: LineInput,
    then: InputFor,
    input: Input,
) -> Vec<Effect> {
    match input {
        Input::Command(Command::Cancel) => {
            m.status = Some("cancelled".into());
            return Vec::new();
        }
        Input::Command(Command::Accept) => {
            return accept_text(m, then, text.trim().to_string());
        }
        Input::Command(Command::Complete) if then == InputFor::AddBundleDir => {
            let effect = Effect::CompletePath {
                text: text.text().to_string(),
            };
            m.dialog = Some(Dialog::Input { title, text, then });
            return vec![effect];
        }
        Input::Command(Command::Complete) => {
            text.take_hint();
        }
        other => {
            text.edit(other);
        }
    }
    m.dialog = Some(Dialog::Input { title, text, then });
    Vec::new()
}

/// The text typed for a question: the next question, the work it starts, or the edit to confirm.
fn accept_text(m: &mut Model, then: InputFor, t: String) -> Vec<Effect> {
    let some = |t: &str| (!t.is_empty()).then(|| t.to_string());
    let edit = match then {
        InputFor::PromoteRange {
            package,
            channel,
            bundle,
        } => {
            promote_range_taken(m, package, channel, bundle, some(&t));
            return Vec::new();
        }
        InputFor::AddBundleDir => {
            m.status = Some(format!("reading {t}…"));
            return vec![Effect::CheckBundleDir {
                dir: PathBuf::from(&t),
            }];
        }
        InputFor::AddBundleImage { dir } => {
            m.busy = Some(format!("rendering {}…", dir.display()));
            m.status = m.busy.clone();
            return vec![Effect::RenderBundle {
                dir,
                image: some(&t),
            }];
        }
        InputFor::SkipRange {
            package,
            channel,
            entry,
        } => Edit::SetSkipRange {
            package,
            channel,
            entry,
            range: some(&t),
        },
        InputFor::Deprecate { package, target } => Edit::Deprecate {
            package,
            target,
            message: t,
        },
        InputFor::CreateChannel { package, bundle } => Edit::CreateChannel {
            package,
            channel: t,
            bundle,
        },
    };
    to_confirm(m, edit);
    Vec::new()
}

/// The skipRange of a promotion typed: refused at once when the library refuses it (the input stays
/// open); else the skips, then what it replaces, are picked from the channel's entries. A channel
/// with no entries yet (a new one) has neither to ask.
fn promote_range_taken(
    m: &mut Model,
    package: String,
    channel: String,
    bundle: Promotee,
    range: Option<String>,
) {
    // What the bundle and channel allow was checked when they were picked: a refusal now is the
    // range's.
    let probe = promotion(
        package.clone(),
        channel.clone(),
        bundle.clone(),
        range.clone(),
        Vec::new(),
        None,
    );
    if let (Some(l), Some(r)) = (m.loaded(), &range)
        && let Err(why) = probe.check(l.ws.catalog())
    {
        m.status = Some(format!("cannot {}: {why}", probe.describe()));
        m.dialog = Some(promote_range_input(m, package, channel, bundle));
        if let Some(Dialog::Input { text, .. }) = &mut m.dialog {
            text.set(r.clone());
        }
        return;
    }
    let Some(l) = m.loaded() else { return };
    if channel_entries(l, &package, &channel).is_empty() {
        let edit = promotion(package, channel, bundle, range, Vec::new(), None);
        to_confirm(m, edit);
        return;
    }
    m.dialog = Some(pick_promote_skips(l, package, channel, bundle, range));
}

/// The edit a promotion's answers make.
fn promotion(
    package: String,
    channel: String,
    bundle: Promotee,
    range: Option<String>,
    skips: Vec<String>,
    replaces: Option<String>,
) -> Edit {
    match bundle {
        Promotee::Existing(bundle) => Edit::Promote {
            package,
            bundle,
            channel,
            replaces,
            skips,
            skip_range: range,
        },
        Promotee::Rendered(bundle) => Edit::AddBundle {
            bundle: *bundle,
            channel,
            replaces,
            skips,
            skip_range: range,
        },
    }
}

/// The confirmation of an edit, or why it cannot be made.
fn to_confirm(m: &mut Model, edit: Edit) {
    if let Some(l) = m.loaded_mut() {
        match confirm(l, edit) {
            Ok(d) => m.dialog = Some(d),
            Err(e) => m.status = Some(e),
        }
    }
}

/// What was picked: the next question of a promotion, or the edit to confirm.
fn picked(m: &mut Model, then: PickFor, chosen: Vec<String>) {
    let edit = match then {
        PickFor::PromoteSkips {
            package,
            channel,
            bundle,
            range,
        } => {
            if let Some(l) = m.loaded() {
                m.dialog = Some(pick_promote_replaces(
                    l, package, channel, bundle, range, chosen,
                ));
            }
            return;
        }
        PickFor::PromoteReplaces {
            package,
            channel,
            bundle,
            range,
            skips,
        } => promotion(
            package,
            channel,
            bundle,
            range,
            skips,
            chosen.into_iter().next(),
        ),
        PickFor::AddSkips {
            package,
            channel,
            entry,
        } => Edit::AddSkips {
            package,
            channel,
            entry,
            skips: chosen,
        },
        PickFor::RemoveSkips {
            package,
            channel,
            entry,
        } => Edit::RemoveSkips {
            package,
            channel,
            entry,
            skips: chosen,
        },
        PickFor::SetReplaces {
            package,
            channel,
            entry,
        } => Edit::SetReplaces {
            package,
            channel,
            entry,
            replaces: chosen.into_iter().next().filter(|o| o != REPLACES_NOTHING),
        },
    };
    to_confirm(m, edit);
}
