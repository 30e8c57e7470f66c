//! Keys inside dialogs: pickers, inputs, confirmations, the write preview and the questions a save
//! can ask.

use crate::catalog::commit::CommitOptions;
use crate::edit::Edit;
use crate::tui::model::*;
use crate::tui::update::edits::*;
use crate::tui::update::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::PathBuf;

/// A key while a dialog is open: the dialog answers it, and stays open or gives way to the next.
pub(crate) fn dialog_key(m: &mut Model, dialog: Dialog, ev: KeyEvent) -> Vec<Effect> {
    let code = ev.code;
    match dialog {
        Dialog::Reload { why } => match code {
            KeyCode::Char('y') => {
                m.status = Some("reloading; the unsaved edits are dropped".into());
                return vec![Effect::Load];
            }
            _ => {
                m.status = Some(format!("nothing written: {why}"));
            }
        },
        Dialog::SaveFailed { .. } => {
            m.status = Some("the unsaved edits are kept".into());
        }
        Dialog::ForceWrite { why } => match code {
            KeyCode::Char('y') => {
                let options = CommitOptions {
                    force_read_only: true,
                    ..m.save_options.clone()
                };
                return save(m, options);
            }
            _ => m.status = Some(format!("nothing written: {why}")),
        },
        Dialog::PickChannel {
            package,
            bundle,
            mut picker,
        } => match picker.key(code) {
            Picked::Chosen(channel) => {
                m.dialog = Some(promote_range_input(
                    m,
                    package,
                    channel,
                    Promotee::Existing(bundle),
                ))
            }
            Picked::Cancelled => m.status = Some("cancelled".into()),
            Picked::Open => {
                m.dialog = Some(Dialog::PickChannel {
                    package,
                    bundle,
                    picker,
                })
            }
        },
        Dialog::PickChannelForNew { bundle, mut picker } => match picker.key(code) {
            Picked::Chosen(channel) => {
                let channel = channel.trim_end_matches(" (new)").to_string();
                let package = bundle["package"].as_str().unwrap_or("").to_string();
                m.dialog = Some(promote_range_input(
                    m,
                    package,
                    channel,
                    Promotee::Rendered(bundle),
                ))
            }
            Picked::Cancelled => m.status = Some("cancelled".into()),
            Picked::Open => m.dialog = Some(Dialog::PickChannelForNew { bundle, picker }),
        },
        Dialog::QuitUnsaved => match code {
            KeyCode::Char('y') => m.quit = true,
            _ => m.status = Some("not quitting; w writes the changes".into()),
        },
        Dialog::Write { lines, scroll } => match code {
            KeyCode::Char('y') => {
                let options = m.save_options.clone();
                return save(m, options);
            }
            KeyCode::Char('j') | KeyCode::Down => {
                m.dialog = Some(Dialog::Write {
                    scroll: (scroll + 1).min(lines.len().saturating_sub(1)),
                    lines,
                })
            }
            KeyCode::Char('k') | KeyCode::Up => {
                m.dialog = Some(Dialog::Write {
                    scroll: scroll.saturating_sub(1),
                    lines,
                })
            }
            _ => m.status = Some("nothing written".into()),
        },
        Dialog::Confirm { edit, lines } => match code {
            KeyCode::Char('y') => {
                let msg = match m.apply_edit(edit.clone()) {
                    Ok(o) if o.introduced.is_empty() => {
                        format!("{} (u undoes, w writes)", edit.describe())
                    }
                    Ok(o) => format!(
                        "{}: {} new problem(s) (u undoes)",
                        edit.describe(),
                        o.introduced.len()
                    ),
                    Err(e) => format!("cannot {}: {e}", edit.describe()),
                };
                m.status = Some(msg);
            }
            KeyCode::Char('n') | KeyCode::Esc => m.status = Some("cancelled".into()),
            _ => m.dialog = Some(Dialog::Confirm { edit, lines }),
        },
        Dialog::PickBundle {
            package,
            channel,
            mut picker,
        } => match picker.key(code) {
            Picked::Chosen(bundle) => {
                m.dialog = Some(promote_range_input(
                    m,
                    package,
                    channel,
                    Promotee::Existing(bundle),
                ))
            }
            Picked::Cancelled => m.status = Some("cancelled".into()),
            Picked::Open => {
                m.dialog = Some(Dialog::PickBundle {
                    package,
                    channel,
                    picker,
                })
            }
        },
        Dialog::Input { title, text, then } => return input_key(m, title, text, then, ev),
    }
    Vec::new()
}

/// A key in a text input: typing, Tab completion of a path, Esc, and Enter, which goes on to what
/// the text was asked for.
fn input_key(
    m: &mut Model,
    title: String,
    mut text: String,
    then: InputFor,
    ev: KeyEvent,
) -> Vec<Effect> {
    let code = ev.code;
    match code {
        KeyCode::Esc => m.status = Some("cancelled".into()),
        KeyCode::Enter => {
            let t = text.trim().to_string();
            let list = |t: &str| -> Vec<String> {
                t.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            };
            let edit = match then {
                InputFor::PromoteRange {
                    package,
                    channel,
                    bundle,
                } => {
                    m.dialog = Some(Dialog::Input {
                        title: format!(
                            "entries {} skips (comma-separated; empty for none)",
                            bundle.name()
                        ),
                        text: String::new(),
                        then: InputFor::PromoteSkips {
                            package,
                            channel,
                            bundle,
                            range: (!t.is_empty()).then_some(t),
                        },
                    });
                    return Vec::new();
                }
                InputFor::PromoteSkips {
                    package,
                    channel,
                    bundle,
                    range,
                } => {
                    let head = m.loaded().and_then(|l| {
                        let idx = l.ws.catalog().index().package(&package)?;
                        let ch = crate::catalog::model::Channel::read(
                            &l.ws.catalog().blob(idx.channel(&channel)?).value,
                        )
                        .ok()?;
                        crate::graph::heads(&ch.entries)
                            .first()
                            .map(|h| h.to_string())
                    });
                    m.dialog = Some(Dialog::Input {
                        title: format!(
                            "{} replaces (the current head by default; empty for nothing)",
                            bundle.name()
                        ),
                        text: head.unwrap_or_default(),
                        then: InputFor::PromoteReplaces {
                            package,
                            channel,
                            bundle,
                            range,
                            skips: list(&t),
                        },
                    });
                    return Vec::new();
                }
                InputFor::PromoteReplaces {
                    package,
                    channel,
                    bundle,
                    range,
                    skips,
                } => match bundle {
                    Promotee::Existing(bundle) => Edit::Promote {
                        package,
                        bundle,
                        channel,
                        replaces: (!t.is_empty()).then_some(t),
                        skips,
                        skip_range: range,
                    },
                    Promotee::Rendered(bundle) => Edit::AddBundle {
                        bundle: *bundle,
                        channel,
                        replaces: (!t.is_empty()).then_some(t),
                        skips,
                        skip_range: range,
                    },
                },
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
                        image: (!t.is_empty()).then_some(t),
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
                    range: (!t.is_empty()).then_some(t),
                },
                InputFor::Skips {
                    package,
                    channel,
                    entry,
                } => Edit::AddSkips {
                    package,
                    channel,
                    entry,
                    skips: list(&t),
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
            let Some(l) = m.loaded_mut() else {
                return Vec::new();
            };
            match confirm(l, edit) {
                Ok(d) => m.dialog = Some(d),
                Err(e) => m.status = Some(e),
            }
        }
        KeyCode::Backspace => {
            text.pop();
            m.dialog = Some(Dialog::Input { title, text, then });
        }
        KeyCode::Tab if then == InputFor::AddBundleDir => {
            let effect = Effect::CompletePath { text: text.clone() };
            m.dialog = Some(Dialog::Input { title, text, then });
            return vec![effect];
        }
        KeyCode::Char(c) if !ev.modifiers.contains(KeyModifiers::CONTROL) => {
            text.push(c);
            m.dialog = Some(Dialog::Input { title, text, then });
        }
        _ => m.dialog = Some(Dialog::Input { title, text, then }),
    }
    Vec::new()
}
