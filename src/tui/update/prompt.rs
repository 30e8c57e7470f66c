//! The prompts: the filter, the command palette and its completion.

use super::command_in_pane;
use crate::tui::input::Input;
pub use crate::tui::keymap::palette_hint;
use crate::tui::keymap::{Command, Verb, palette_desc, palette_names};
use crate::tui::model::{Effect, Model, Pane, Prompt};
use crate::tui::tree::{FilterBefore, Loaded};
use std::path::PathBuf;

/// Completions of the palette text.
pub fn complete(l: Option<&Loaded>, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in palette_names() {
        if c.starts_with(text) && c != text {
            out.push(c);
        }
    }
    if let (Some(l), Some(rest)) = (l, text.strip_prefix("package ")) {
        for n in l.ws.catalog().index().package_names() {
            if n.starts_with(rest) {
                out.push(format!("package {n}"));
            }
        }
    }
    if let (Some(l), Some(rest)) = (l, text.strip_prefix("channel "))
        && let Some(pkg) = l.selected().first()
        && let Some(idx) = l.ws.catalog().index().package(pkg)
    {
        for &id in &idx.channels {
            let n = l.ws.catalog().blob(id).name();
            if n.starts_with(rest) {
                out.push(format!("channel {n}"));
            }
        }
    }
    if let Some(rest) = text.strip_prefix("export ") {
        for f in ["mermaid ", "dot "] {
            if f.starts_with(rest) && f != rest {
                out.push(format!("export {f}"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// What the palette lists for its text: each completion as shown (a verb with what it takes,
/// `package NAME`) with what it does.
pub fn candidates(l: Option<&Loaded>, text: &str) -> Vec<(String, &'static str)> {
    complete(l, text)
        .into_iter()
        .map(|c| {
            let shown = match Verb::all().find(|v| format!("{} ", v.name()) == c) {
                Some(v) => format!("{}{}", v.name(), v.args()),
                None => c.trim_end().to_string(),
            };
            (shown, palette_desc(&c))
        })
        .collect()
}

/// The longest text every option starts with.
fn common_prefix(options: &[String]) -> String {
    let Some(first) = options.first() else {
        return String::new();
    };
    let mut prefix = first.as_str();
    for o in &options[1..] {
        let shared = prefix
            .char_indices()
            .zip(o.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8());
        prefix = &prefix[..shared];
    }
    prefix.to_string()
}

pub(crate) fn prompt_input(m: &mut Model, prompt: Prompt, input: Input) -> Vec<Effect> {
    let (mut text, is_filter) = match prompt {
        Prompt::Filter(t) => (t, true),
        Prompt::Palette(t) => (t, false),
    };
    let typed = text.text().to_string();
    match input {
        Input::Command(Command::Cancel) => {
            m.prompt = None;
            if is_filter {
                restore_filter(m);
            }
            return Vec::new();
        }
        Input::Command(Command::Complete) if !is_filter => {
            let options = complete(m.loaded(), text.text());
            if let [one] = options.as_slice() {
                text.set(one.clone());
                m.palette_list = false;
            } else {
                // Empty, ambiguous or matching nothing: what it could become is listed under the
                // text, which grows to what the options share.
                let common = common_prefix(&options);
                if common.len() > text.text().len() {
                    text.set(common);
                }
                m.palette_list = true;
            }
        }
        Input::Command(Command::Accept) => {
            m.prompt = None;
            return if is_filter {
                if let Some(l) = m.loaded_mut() {
                    l.filter_before = None;
                }
                apply_filter(m, text.text().to_string());
                Vec::new()
            } else {
                run_palette(m, text.trim())
            };
        }
        // Typing and the line-editing keys.
        other => {
            text.edit(other);
        }
    }
    if is_filter && text.text() != typed {
        live_filter(m, text.text(), &typed);
    }
    m.prompt = Some(if is_filter {
        Prompt::Filter(text)
    } else {
        Prompt::Palette(text)
    });
    Vec::new()
}

/// `/`: the filter prompt opens; the filter and selection of now come back on Esc.
pub(crate) fn open_filter(m: &mut Model) {
    if let Some(l) = m.loaded_mut() {
        l.filter_before = Some(FilterBefore {
            filter: l.filter.clone(),
            selected: l.selected().to_vec(),
            opened: l.tree.opened().iter().cloned().collect(),
            offset: l.tree_offset,
        });
    }
    m.prompt = Some(Prompt::Filter(Default::default()));
}

/// Each key typed in the filter prompt: the tree narrows (or widens) to the text as it is,
/// `before` being the text before the key.
fn live_filter(m: &mut Model, text: &str, before: &str) {
    let Some(l) = m.loaded_mut() else { return };
    let previous = l.filter.clone().filter(|f| f == before);
    l.filter = (!text.is_empty()).then(|| text.to_string());
    l.refilter_from(previous.as_deref());
    m.focus = Pane::Tree;
}

/// Esc in the filter prompt: the filter from before `/`, with what was open, selected and on
/// screen in the tree.
fn restore_filter(m: &mut Model) {
    let Some(l) = m.loaded_mut() else { return };
    let Some(before) = l.filter_before.take() else {
        return;
    };
    if l.filter != before.filter {
        l.filter = before.filter;
        l.refilter();
    }
    l.tree.close_all();
    for path in before.opened {
        l.tree.open(path);
    }
    l.select_deepest(&before.selected);
    l.tree_offset = before.offset;
}

/// `:reload`: the catalog (or the templates) read again from disk by the load worker; the unsaved
/// edits are applied again to what is read, and what no longer applies is said
/// ([`crate::tui::update::results::loaded`]). Keys wait until it is read.
pub(crate) fn reload(m: &mut Model) -> Vec<Effect> {
    if m.image.is_some() {
        m.status =
            Some("an image's catalog does not change: there is nothing to read again".into());
        return Vec::new();
    }
    let edits = m.loaded().map(|l| l.ws.edits()).unwrap_or_default();
    m.busy = Some(if edits.is_empty() {
        "reading the catalog again…".to_string()
    } else {
        format!(
            "reading the catalog again; then the {} applied again…",
            fbc_core::text::plural(edits.len(), "unsaved edit is", "unsaved edits are")
        )
    });
    m.status = m.busy.clone();
    m.replay = (!edits.is_empty()).then_some(edits);
    vec![Effect::Load]
}

/// Enter in the filter prompt (the tree already shows it, unless the text came another way).
pub(crate) fn apply_filter(m: &mut Model, text: String) {
    let Some(l) = m.loaded_mut() else { return };
    let filter = (!text.is_empty()).then_some(text.clone());
    if l.filter != filter {
        l.filter = filter;
        l.refilter();
    }
    let n = l.matches.len();
    m.focus = Pane::Tree;
    m.status = Some(if text.is_empty() {
        "filter cleared".to_string()
    } else if n == 0 {
        format!("nothing matches {text:?}")
    } else {
        format!("{n} entries match {text:?}: n/N to move between them, Esc to clear")
    });
}

pub(crate) fn run_palette(m: &mut Model, text: &str) -> Vec<Effect> {
    let (cmd, arg) = text.split_once(' ').unwrap_or((text, ""));
    let arg = arg.trim();
    let Some(verb) = Verb::from_name(cmd) else {
        return match Command::from_name(cmd).filter(|c| c.in_palette()) {
            Some(c) if arg.is_empty() => command_in_pane(m, c),
            Some(c) => {
                m.status = Some(format!("{} takes nothing after it", c.name()));
                Vec::new()
            }
            None if cmd.is_empty() => Vec::new(),
            None => {
                m.status = Some(format!("unknown command {cmd:?} (Tab completes)"));
                Vec::new()
            }
        };
    };
    match verb {
        // Unsaved edits are asked about, as `q` asks.
        Verb::Quit => return command_in_pane(m, Command::Quit),
        Verb::Reload => return reload(m),
        Verb::Validate => {
            if m.loaded().is_some() {
                m.busy = Some("validating…".into());
                m.status = m.busy.clone();
                return vec![Effect::ValidateAll];
            }
        }
        Verb::Package => {
            let Some(l) = m.loaded_mut() else {
                return Vec::new();
            };
            if l.ws.catalog().index().package(arg).is_some() {
                l.select_path(&[arg.to_string()]);
                m.focus = Pane::Tree;
            } else {
                m.status = Some(format!("no package {arg:?}"));
            }
        }
        Verb::Channel => {
            let Some(l) = m.loaded_mut() else {
                return Vec::new();
            };
            let Some(pkg) = l.selected().first().cloned() else {
                return Vec::new();
            };
            if l.ws.catalog().index().channel(&pkg, arg).is_some() {
                l.select_path(&[pkg, arg.to_string()]);
                m.focus = Pane::Tree;
            } else {
                m.status = Some(format!("package {pkg:?} has no channel {arg:?}"));
            }
        }
        Verb::Export
            if m.image.is_some()
                && !arg.is_empty()
                && !arg.contains(' ')
                && !matches!(arg, "mermaid" | "dot") =>
        {
            return vec![Effect::ExportCatalog {
                dir: PathBuf::from(arg),
            }];
        }
        Verb::Export => {
            let (format, file) = arg.split_once(' ').unwrap_or((arg, ""));
            if !matches!(format, "mermaid" | "dot") || file.trim().is_empty() {
                m.status = Some(if m.image.is_some() {
                    "usage: export DIR (the catalog, to edit) or export mermaid|dot FILE".into()
                } else {
                    "usage: export mermaid|dot FILE".into()
                });
            } else {
                return vec![Effect::Export {
                    format: format.to_string(),
                    file: PathBuf::from(file.trim()),
                }];
            }
        }
        Verb::ExportChanges if m.compare.is_none() => {
            m.status = Some(
                "export-changes: no changes to write outside review mode (fbc-edit DIR --compare OLD)"
                    .into(),
            );
        }
        Verb::ExportChanges if arg.is_empty() => {
            m.status = Some("usage: export-changes FILE.md".into());
        }
        Verb::ExportChanges => {
            return vec![Effect::ExportChanges {
                file: PathBuf::from(arg),
            }];
        }
        Verb::AddImage
        | Verb::MoveImage
        | Verb::RemoveImage
        | Verb::Generate
        | Verb::ChannelPreference
        | Verb::Substitute
        | Verb::Unsubstitute => return super::semver::palette(m, verb, arg),
    }
    Vec::new()
}
