//! The pure `update`: every key, mouse event and worker result comes in as an action; the model
//! changes and what touches the outside world goes out as effects.

pub mod dialogs;
pub mod edits;

use crate::catalog::Severity;
use crate::catalog::commit::CommitOptions;
use crate::tui::keymap::{Command, Key, Lookup};
use crate::tui::model::*;
use crate::tui::tree::*;
use crate::tui::update::dialogs::*;
use crate::tui::update::edits::*;
use crate::workspace::SaveError;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::Position;
use std::path::PathBuf;

/// Completes a path prefix to the longest common prefix of the directory entries it matches
/// (directories get a trailing `/`).
pub fn complete_path(text: &str) -> String {
    let (dir, prefix) = match text.rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    let read_from = if dir.is_empty() { "." } else { dir };
    let Ok(entries) = std::fs::read_dir(read_from) else {
        return text.to_string();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.path().is_dir();
            (name.starts_with(prefix) && (!name.starts_with('.') || prefix.starts_with('.')))
                .then(|| if is_dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    let Some(first) = names.first() else {
        return text.to_string();
    };
    let mut common = first.clone();
    for n in &names[1..] {
        let len = common
            .char_indices()
            .zip(n.chars())
            .take_while(|((_, a), b)| a == b)
            .count();
        let cut = common
            .char_indices()
            .nth(len)
            .map_or(common.len(), |(i, _)| i);
        common.truncate(cut);
    }
    format!("{dir}{common}")
}

/// Palette commands, for completion.
pub const PALETTE: [&str; 5] = ["package ", "channel ", "validate", "export ", "quit"];

/// Completions of the palette text.
pub fn complete(l: Option<&Loaded>, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in PALETTE {
        if c.starts_with(text) && c != text {
            out.push(c.to_string());
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

/// Applies an action.
pub fn update(m: &mut Model, action: Action) -> Vec<Effect> {
    match action {
        Action::Tick | Action::Resize => Vec::new(),
        Action::Loaded(Ok(catalog)) => {
            let keep = m.loaded().map(|l| l.selected().to_vec());
            let mut l = Loaded::new(*catalog);
            if let Some(path) = keep.filter(|p| !p.is_empty()) {
                l.select_path(&path);
            }
            if let Some(t) = &m.template {
                m.status = Some(t.banner());
            } else if let Some(i) = &m.image {
                m.status = Some(i.banner());
            } else if l.ws.catalog().index().package_names().is_empty() {
                m.status = Some(format!(
                    "no catalog objects under {}: is this a file-based catalog directory?",
                    m.dir.display()
                ));
            }
            m.state = State::Ready(Box::new(l));
            m.refresh_changes();
            Vec::new()
        }
        Action::Loaded(Err(e)) => {
            m.state = State::Failed(e);
            Vec::new()
        }
        Action::Exported(message) => {
            m.status = Some(message);
            Vec::new()
        }
        Action::Rendered(notes) => {
            if let Some(t) = &mut m.template {
                t.notes = notes;
            }
            Vec::new()
        }
        Action::CompareLoaded(Ok(old)) => {
            m.compare = Some(old);
            m.refresh_changes();
            Vec::new()
        }
        Action::CompareLoaded(Err(e)) => {
            m.status = Some(format!("cannot open the catalog to compare with: {e}"));
            Vec::new()
        }
        Action::Mouse(ev) => {
            mouse(m, ev);
            Vec::new()
        }
        Action::Key(ev) => key(m, ev),
        Action::Previewed(result) => {
            previewed(m, result);
            Vec::new()
        }
        Action::Saved(result) => {
            m.busy = None;
            saved(m, result);
            Vec::new()
        }
        Action::BundleDirChecked { dir, is_bundle } => {
            if is_bundle {
                m.status = None;
                m.dialog = Some(Dialog::Input {
                    title: format!(
                        "image reference of the bundle in {} (empty for none)",
                        dir.display()
                    ),
                    text: String::new(),
                    then: InputFor::AddBundleImage { dir },
                });
            } else {
                m.status = Some(format!(
                    "{} is not a registry+v1 bundle directory (manifests/ and metadata/)",
                    dir.display()
                ));
            }
            Vec::new()
        }
        Action::BundleRendered { dir, result } => {
            bundle_rendered(m, dir, result);
            Vec::new()
        }
        Action::PathCompleted { from, to } => {
            // Only while the question is still open and nothing was typed meanwhile.
            if let Some(Dialog::Input {
                text,
                then: InputFor::AddBundleDir,
                ..
            }) = &mut m.dialog
                && *text == from
            {
                *text = to;
            }
            Vec::new()
        }
        Action::Validated(validation) => {
            m.busy = None;
            if let Some(l) = m.loaded_mut() {
                l.ws.set_validation(*validation);
                let errors = l.ws.report().count(Severity::Error);
                let warnings = l.ws.report().count(Severity::Warning);
                l.refresh_markers();
                m.status = Some(format!(
                    "{}: {errors} errors, {warnings} warnings",
                    if errors == 0 { "valid" } else { "invalid" }
                ));
            }
            Vec::new()
        }
    }
}

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

pub(crate) fn mouse(m: &mut Model, ev: MouseEvent) {
    let focus = m.focus;
    let Some(l) = m.loaded_mut() else { return };
    match ev.kind {
        MouseEventKind::ScrollDown => match focus {
            Pane::Graph => l.graph_scroll += 3,
            _ => {
                l.tree.scroll_down(3);
            }
        },
        MouseEventKind::ScrollUp => match focus {
            Pane::Graph => l.graph_scroll = l.graph_scroll.saturating_sub(3),
            _ => {
                l.tree.scroll_up(3);
            }
        },
        MouseEventKind::Down(_) if l.tree.click_at(Position::new(ev.column, ev.row)) => {
            l.sync_graph();
            m.focus = Pane::Tree;
        }
        _ => {}
    }
}

pub(crate) fn key(m: &mut Model, ev: KeyEvent) -> Vec<Effect> {
    if let Some(busy) = &m.busy {
        m.status = Some(format!("{busy} (keys wait until it is done)"));
        return Vec::new();
    }
    if let Some(dialog) = m.dialog.take() {
        return dialog_key(m, dialog, ev);
    }
    if let Some(prompt) = m.prompt.clone() {
        return prompt_key(m, prompt, ev);
    }
    let k = Key::of(&ev);
    let command = match m.keymap.lookup(&m.pending, k) {
        Lookup::Pending => {
            m.pending.push(k);
            return Vec::new();
        }
        Lookup::Command(c) => {
            m.pending.clear();
            c
        }
        Lookup::None => {
            m.pending.clear();
            return Vec::new();
        }
    };
    if m.overlay.is_some() {
        if matches!(command, Command::Back | Command::Help | Command::Quit) {
            m.overlay = None;
        }
        return Vec::new();
    }
    m.status = None;
    match command {
        Command::Quit => {
            if m.loaded().is_some_and(|l| !l.dirty.is_empty()) {
                m.dialog = Some(Dialog::QuitUnsaved);
            } else {
                m.quit = true;
            }
        }
        Command::Promote
        | Command::DefaultChannel
        | Command::Skips
        | Command::SkipRange
        | Command::Deprecate
        | Command::RemoveEntry
        | Command::CreateChannel
        | Command::AddBundle
        | Command::Undo
        | Command::Redo
        | Command::Write => return edit_command(m, command),
        Command::Help => m.overlay = Some(Overlay::Help),
        Command::OlmRules => {
            if let Some(l) = m.loaded_mut() {
                l.olm_v1 = !l.olm_v1;
                m.status = Some(if l.olm_v1 {
                    "graph: OLM v1 rules (nothing dropped; the highest successor is taken)".into()
                } else {
                    "graph: OLM v0 rules (skipped and stranded entries dropped)".into()
                });
            }
        }
        Command::Filter => m.prompt = Some(Prompt::Filter(String::new())),
        Command::Palette => m.prompt = Some(Prompt::Palette(String::new())),
        Command::NextPane | Command::PrevPane => {
            let i = PANES.iter().position(|p| *p == m.focus).unwrap_or(0);
            let n = if command == Command::NextPane {
                (i + 1) % PANES.len()
            } else {
                (i + PANES.len() - 1) % PANES.len()
            };
            m.focus = PANES[n];
        }
        Command::Back => {
            if let Some(l) = m.loaded_mut()
                && l.filter.is_some()
            {
                l.filter = None;
                l.refilter();
            }
        }
        Command::Open if m.template.is_some() => {
            if let Some(t) = &m.template {
                return vec![Effect::OpenEditor {
                    file: t.file.clone(),
                    line: 1,
                }];
            }
        }
        Command::Open if m.image.is_some() => {
            if let Some(i) = &m.image {
                m.status = Some(i.banner());
            }
        }
        Command::Open => {
            let Some(l) = m.loaded() else {
                return Vec::new();
            };
            let loc = if m.focus == Pane::Problems {
                l.ws.report()
                    .diagnostics
                    .get(l.problem)
                    .map(|d| d.location.clone())
            } else {
                selected_location(l)
            };
            if let Some(loc) = loc.filter(|l| l.file != ".") {
                return vec![Effect::OpenEditor {
                    file: m.dir.join(&loc.file),
                    line: loc.line.max(1),
                }];
            }
        }
        _ => motion(m, command),
    }
    Vec::new()
}

pub(crate) fn motion(m: &mut Model, command: Command) {
    let focus = m.focus;
    let page = m.page.max(2);
    let mut status = None;
    let Some(l) = m.loaded_mut() else { return };
    match focus {
        Pane::Tree => {
            match command {
                Command::Down => l.move_by(1),
                Command::Up => l.move_by(-1),
                Command::Left => l.go_left(),
                Command::Right | Command::Select => l.go_right(),
                Command::Top => l.move_to_end(false),
                Command::Bottom => l.move_to_end(true),
                Command::HalfPageDown => l.move_by((page / 2) as isize),
                Command::HalfPageUp => l.move_by(-((page / 2) as isize)),
                Command::NextMatch | Command::PrevMatch if !l.matches.is_empty() => {
                    let cur = l.matches.iter().position(|p| p.as_slice() == l.selected());
                    let n = l.matches.len();
                    let i = match (cur, command) {
                        (Some(i), Command::NextMatch) => (i + 1) % n,
                        (Some(i), _) => (i + n - 1) % n,
                        (None, _) => 0,
                    };
                    let path = l.matches[i].clone();
                    l.select_path(&path);
                    status = Some(format!("match {} of {n}", i + 1));
                }
                _ => {}
            }
            l.details_scroll = 0;
            l.sync_graph();
        }
        Pane::Graph => {
            let rows = l.graph.as_ref().map_or(0, |(_, lay)| lay.rows.len());
            match command {
                Command::Down => l.graph_scroll += 1,
                Command::Up => l.graph_scroll = l.graph_scroll.saturating_sub(1),
                Command::Top => l.graph_scroll = 0,
                Command::Bottom => l.graph_scroll = rows.saturating_sub(1),
                Command::HalfPageDown => l.graph_scroll += page / 2,
                Command::HalfPageUp => l.graph_scroll = l.graph_scroll.saturating_sub(page / 2),
                _ => {}
            }
            l.graph_scroll = l.graph_scroll.min(rows.saturating_sub(1));
        }
        Pane::Details => match command {
            Command::Down => l.details_scroll += 1,
            Command::Up => l.details_scroll = l.details_scroll.saturating_sub(1),
            Command::Top => l.details_scroll = 0,
            Command::HalfPageDown => l.details_scroll += page / 2,
            Command::HalfPageUp => l.details_scroll = l.details_scroll.saturating_sub(page / 2),
            _ => {}
        },
        Pane::Problems if !l.changes.is_empty() => {
            let n = l.changes.len();
            match command {
                Command::Down => l.problem = (l.problem + 1).min(n - 1),
                Command::Up => l.problem = l.problem.saturating_sub(1),
                Command::Top => l.problem = 0,
                Command::Bottom => l.problem = n - 1,
                Command::Select => {
                    if let Some(c) = l.changes.get(l.problem).cloned() {
                        if l.filter.is_some() {
                            l.filter = None;
                            l.refilter();
                        }
                        l.select_deepest(&c.path);
                        status = Some(c.text.trim().to_string());
                    }
                }
                _ => {}
            }
        }
        Pane::Problems => {
            let n = l.ws.report().diagnostics.len();
            match command {
                Command::Down => l.problem = (l.problem + 1).min(n.saturating_sub(1)),
                Command::Up => l.problem = l.problem.saturating_sub(1),
                Command::Top => l.problem = 0,
                Command::Bottom => l.problem = n.saturating_sub(1),
                Command::HalfPageDown => {
                    l.problem = (l.problem + page / 2).min(n.saturating_sub(1))
                }
                Command::HalfPageUp => l.problem = l.problem.saturating_sub(page / 2),
                Command::Select => {
                    if let Some(d) = l.ws.report().diagnostics.get(l.problem).cloned() {
                        let path = l.path_of(&d);
                        if !path.is_empty() {
                            if l.filter.is_some() {
                                l.filter = None;
                                l.refilter();
                            }
                            l.select_path(&path);
                        }
                        status = Some(format!("{}: {}", d.location, d.message));
                    }
                }
                _ => {}
            }
        }
    }
    if status.is_some() {
        m.status = status;
    }
}

pub(crate) fn prompt_key(m: &mut Model, prompt: Prompt, ev: KeyEvent) -> Vec<Effect> {
    let (mut text, is_filter) = match prompt {
        Prompt::Filter(t) => (t, true),
        Prompt::Palette(t) => (t, false),
    };
    match ev.code {
        KeyCode::Esc => {
            m.prompt = None;
            return Vec::new();
        }
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Tab if !is_filter => {
            let options = complete(m.loaded(), &text);
            if let [one] = options.as_slice() {
                text = one.clone();
            } else if !options.is_empty() {
                m.status = Some(options.join("  "));
            }
        }
        KeyCode::Enter => {
            m.prompt = None;
            return if is_filter {
                apply_filter(m, text);
                Vec::new()
            } else {
                run_palette(m, text.trim())
            };
        }
        KeyCode::Char(c) if !ev.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
        _ => {}
    }
    m.prompt = Some(if is_filter {
        Prompt::Filter(text)
    } else {
        Prompt::Palette(text)
    });
    Vec::new()
}

pub(crate) fn apply_filter(m: &mut Model, text: String) {
    let Some(l) = m.loaded_mut() else { return };
    l.filter = (!text.is_empty()).then_some(text.clone());
    l.refilter();
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
    match cmd {
        "q" | "quit" => m.quit = true,
        "validate" => {
            if m.loaded().is_some() {
                m.busy = Some("validating…".into());
                m.status = m.busy.clone();
                return vec![Effect::ValidateAll];
            }
        }
        "package" => {
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
        "channel" => {
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
        "export"
            if m.image.is_some()
                && !arg.is_empty()
                && !arg.contains(' ')
                && !matches!(arg, "mermaid" | "dot") =>
        {
            return vec![Effect::ExportCatalog {
                dir: PathBuf::from(arg),
            }];
        }
        "export" => {
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
        "" => {}
        other => m.status = Some(format!("unknown command {other:?} (Tab completes)")),
    }
    Vec::new()
}
