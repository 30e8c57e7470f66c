//! The pure `update`: every key, mouse event and worker result comes in as an action; the model
//! changes and what touches the outside world goes out as effects.

mod confirm;
pub mod dialogs;
mod diff;
pub mod edits;
mod pickers;
mod prompt;
mod results;
mod semver;

use crate::tui::input::Input;
use crate::tui::keymap::Command;
use crate::tui::model::{Action, Dialog, Effect, Model, Overlay, PANES, Pane, Prompt, State};
use crate::tui::tree::{Loaded, selected_location};
use crate::tui::update::dialogs::dialog_input;
use crate::tui::update::diff::{diff_resized, diff_wheel};
use crate::tui::update::edits::edit_command;
use crate::tui::update::prompt::{open_filter, prompt_input};
use crate::tui::update::results::{
    bundle_dir_checked, bundle_rendered, loaded, path_completed, previewed, saved, validated,
};
use crossterm::event::{MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use std::path::PathBuf;

pub use prompt::{candidates, complete, palette_hint};

/// Applies an action.
pub fn update(m: &mut Model, action: Action) -> Vec<Effect> {
    // The tree's rows on screen follow the selection when it moves, the tree is built anew or the
    // terminal resized; the wheel moves them on its own.
    let follow = matches!(
        &action,
        Action::Resize { .. } | Action::Loaded(_) | Action::TemplatesOpened(_)
    ) || matches!(&action, Action::Validated(_) | Action::Saved(_));
    let tick = matches!(action, Action::Tick);
    let before = m.loaded().map(|l| (l.selected().to_vec(), l.items.len()));
    let mut effects = handle(m, action);
    let rows = m.page();
    if m.status.is_some() {
        m.last_status.clone_from(&m.status);
    }
    if !matches!(m.prompt, Some(Prompt::Palette(_))) {
        m.palette_list = false;
    }
    if let Some(l) = m.loaded_mut() {
        if follow || before.as_ref() != Some(&(l.selected().to_vec(), l.items.len())) {
            l.keep_in_view(rows);
        }
        // The problems listed follow the report, the filter and what narrows them.
        if !tick {
            l.sync_problems();
        }
        // What the details of the selection show and the load left on disk is read by a worker.
        effects.extend(crate::tui::details::read_long(l));
    }
    effects
}

fn handle(m: &mut Model, action: Action) -> Vec<Effect> {
    match action {
        Action::Input(input) => return self::input(m, input),
        Action::Mouse(ev) => mouse(m, ev),
        Action::Tick => {}
        Action::Resize { width, height } => {
            m.size = ratatui::layout::Rect::new(0, 0, width, height);
            if let Some(Dialog::Write { view }) = &mut m.dialog {
                diff_resized(view, m.size);
            }
        }
        Action::Loaded(Ok(ws)) => {
            m.busy = None;
            loaded(m, fbc_core::workspace::session::Session::Catalog(ws));
            return m.find_changes();
        }
        Action::TemplatesOpened(Ok(set)) => {
            m.busy = None;
            if let Some(t) = &mut m.template {
                t.notes = set.notes().to_vec();
            }
            loaded(m, fbc_core::workspace::session::Session::Templates(set));
            return m.find_changes();
        }
        // Read again to apply unsaved edits to (`:reload`, the editor's "keep"): a catalog that
        // can no longer be read keeps the one on screen, and the edits with it.
        Action::TemplatesOpened(Err(e)) | Action::Loaded(Err(e))
            if m.replay.take().is_some() && m.loaded().is_some() =>
        {
            m.busy = None;
            m.status = Some(format!(
                "cannot read it again, so the unsaved edits are kept as they were: {e}"
            ));
        }
        Action::TemplatesOpened(Err(e)) | Action::Loaded(Err(e)) => {
            m.busy = None;
            m.state = State::Failed(e);
        }
        Action::Exported(message) => m.status = Some(message),
        Action::CompareLoaded(Ok(old)) => {
            m.compare = Some(old);
            return m.find_changes();
        }
        Action::ChangesFound(review) => m.changes_found(*review),
        Action::CompareLoaded(Err(e)) => {
            m.status = Some(format!("cannot open the catalog to compare with: {e}"))
        }
        Action::Previewed(result) => previewed(m, result),
        Action::Saved(result) => {
            m.busy = None;
            return saved(m, result);
        }
        Action::BundleDirChecked { dir, is_bundle } => bundle_dir_checked(m, dir, is_bundle),
        Action::BundleRendered { dir, result } => bundle_rendered(m, dir, result),
        Action::PathCompleted { from, to, note } => path_completed(m, from, to, note),
        Action::Validated(validation) => validated(m, *validation),
        Action::ImageLookedUp(edit) => {
            m.busy = None;
            semver::apply(m, *edit);
        }
        Action::StringsRead(read) => {
            if let Some(l) = m.loaded_mut() {
                l.long.took(read);
            }
        }
    }
    Vec::new()
}

/// The mouse: the wheel scrolls the pane under the pointer; a click focuses the pane under it and
/// selects what it is on in the tree and the problems.
pub(crate) fn mouse(m: &mut Model, ev: MouseEvent) {
    if let Some(Dialog::Write { view }) = &mut m.dialog {
        match ev.kind {
            MouseEventKind::ScrollDown => diff_wheel(view, 3, m.size),
            MouseEventKind::ScrollUp => diff_wheel(view, -3, m.size),
            _ => {}
        }
        return;
    }
    let areas = m.areas();
    let at = Position::new(ev.column, ev.row);
    if matches!(ev.kind, MouseEventKind::Down(_)) && areas.footer.contains(at) && m.prompt.is_none()
    {
        show_message(m);
        return;
    }
    let Some(pane) = areas.pane_at(at) else {
        return;
    };
    let tree_rows = crate::tui::layout::inner(areas.tree).height as usize;
    let problem_rows = crate::tui::layout::inner(areas.problems).height as usize;
    let (graph_rows, focus) = (m.graph_rows(), m.focus);
    let Some(l) = m.loaded_mut() else { return };
    let step: isize = match ev.kind {
        MouseEventKind::ScrollDown => 3,
        MouseEventKind::ScrollUp => -3,
        MouseEventKind::Down(_) => 0,
        _ => return,
    };
    if step != 0 {
        match pane {
            Pane::Tree => l.scroll_tree(step, tree_rows),
            // The focused graph keeps its cursor in view: the wheel moves the cursor.
            Pane::Graph if focus == Pane::Graph => l.move_cursor(step, graph_rows),
            Pane::Graph => {
                let rows = l.graph.as_ref().map_or(0, |(_, lay)| lay.rows.len());
                l.graph_scroll = l
                    .graph_scroll
                    .saturating_add_signed(step)
                    .min(rows.saturating_sub(1));
            }
            Pane::Details => l.details_scroll = l.details_scroll.saturating_add_signed(step),
            Pane::Problems => {
                let n = l.problem_rows();
                l.problem = l
                    .problem
                    .saturating_add_signed(step)
                    .min(n.saturating_sub(1));
            }
        }
        return;
    }
    let inner = crate::tui::layout::inner(match pane {
        Pane::Tree => areas.tree,
        Pane::Problems => areas.problems,
        _ => Rect::default(),
    });
    if inner.contains(at) {
        let row = (at.y - inner.y) as usize;
        match pane {
            Pane::Tree if l.click_row(row) => {
                l.details_scroll = 0;
                l.sync_graph();
            }
            Pane::Problems => {
                // The list shows the selected row last when it is below the first page.
                let first = l.problem.saturating_sub(problem_rows.saturating_sub(1));
                if first + row < l.problem_rows() {
                    l.problem = first + row;
                }
            }
            _ => {}
        }
    }
    m.focus = pane;
}

/// A key press, resolved in the layer on top.
pub(crate) fn input(m: &mut Model, input: Input) -> Vec<Effect> {
    if let Some(busy) = &m.busy {
        m.status = Some(format!("{busy} (keys wait until it is done)"));
        return Vec::new();
    }
    if let Input::Pending(k) = input {
        m.pending.push(k);
        return Vec::new();
    }
    m.pending.clear();
    // The help is on top of everything, the diff viewer's too.
    if m.overlay.is_some() {
        if let Input::Command(command) = input {
            help_command(m, command);
        }
        return Vec::new();
    }
    if let Some(dialog) = m.dialog.take() {
        return dialog_input(m, dialog, input);
    }
    if let Some(prompt) = m.prompt.clone() {
        return prompt_input(m, prompt, input);
    }
    let Input::Command(command) = input else {
        return Vec::new();
    };
    command_in_pane(m, command)
}

/// The help: scrolls, and closes.
fn help_command(m: &mut Model, command: Command) {
    let page = m.size.height.saturating_sub(2) as usize;
    let max = crate::tui::view::overlay_scroll_max(m);
    match command {
        Command::Down => m.help_scroll = (m.help_scroll + 1).min(max),
        Command::Up => m.help_scroll = m.help_scroll.saturating_sub(1),
        Command::HalfPageDown => m.help_scroll = (m.help_scroll + page / 2).min(max),
        Command::HalfPageUp => m.help_scroll = m.help_scroll.saturating_sub(page / 2),
        Command::Back | Command::Cancel | Command::Help | Command::Quit => {
            m.overlay = None;
            m.help_scroll = 0;
        }
        _ => {}
    }
}

/// `m` (or a click on the status line): the status line's last message in the message viewer.
fn show_message(m: &mut Model) {
    let Some(text) = m.status.clone().or_else(|| m.last_status.clone()) else {
        m.status = Some("no message yet".into());
        return;
    };
    m.help_scroll = 0;
    m.overlay = Some(Overlay::Message {
        title: "message".into(),
        lines: text.lines().map(str::to_string).collect(),
    });
}

/// A command in one of the panes.
pub(crate) fn command_in_pane(m: &mut Model, command: Command) -> Vec<Effect> {
    if command == Command::Message {
        show_message(m);
        return Vec::new();
    }
    m.status = None;
    match command {
        Command::Severity | Command::OnlySelection => problems_command(m, command),
        Command::Quit => {
            if m.loaded().is_some_and(|l| !l.dirty.is_empty()) {
                m.dialog = Some(Dialog::QuitUnsaved);
            } else {
                m.quit = true;
            }
        }
        c if c.is_edit() => {
            // In the graph pane an edit acts on the cursor's entry: the tree selects it first.
            if m.focus == Pane::Graph
                && !matches!(c, Command::Undo | Command::Redo | Command::Write)
                && let Some(l) = m.loaded_mut()
            {
                l.select_cursor();
            }
            return edit_command(m, c);
        }
        Command::Help => m.overlay = Some(Overlay::Help),
        Command::Enlarge => {
            m.enlarged = !m.enlarged;
            if m.enlarged {
                m.focus = Pane::Problems;
            }
            m.status = Some(if m.enlarged {
                format!(
                    "problems pane enlarged; {} shrinks it back",
                    m.keymap
                        .first_key(crate::tui::keymap::Layer::Problems, Command::Enlarge)
                )
            } else {
                "problems pane back to its size".into()
            });
        }
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
        Command::NextTemplate => next_template(m),
        Command::Filter => open_filter(m),
        Command::Palette => m.prompt = Some(Prompt::Palette(Default::default())),
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
        Command::Open => return open_command(m),
        _ => motion(m, command),
    }
    Vec::new()
}

/// `e` and `f`: which severities the problems pane lists, and whether only the selection's.
fn problems_command(m: &mut Model, command: Command) {
    let Some(l) = m.loaded_mut() else { return };
    if command == Command::Severity {
        l.problems.shown = l.problems.shown.next();
    } else if l.problems.only.take().is_none() {
        // A package, or the channel of a channel or entry.
        l.problems.only = Some(l.selected().iter().take(2).cloned().collect())
            .filter(|p: &Vec<String>| !p.is_empty());
    }
    l.sync_problems();
    let rows = l.problems.rows().len();
    let severities = match l.problems.shown {
        crate::tui::problems::Shown::All => "every severity",
        crate::tui::problems::Shown::Warnings => "errors and warnings",
        crate::tui::problems::Shown::Errors => "errors only",
    };
    let of = match &l.problems.only {
        Some(only) => format!("of {} only", only.join("/")),
        None => "of every object".into(),
    };
    m.status = Some(format!(
        "problems: listing {severities} {of} ({})",
        fbc_core::text::plural(rows, "problem", "problems")
    ));
}

/// `T`: the next template's rendering on screen (edits still go to every template).
fn next_template(m: &mut Model) {
    let Some(l) = m.loaded_mut() else { return };
    let Some(set) = l.ws.templates_mut() else {
        m.status = Some("no templates are open: T shows the next template's rendering".into());
        return;
    };
    let n = set.names().len();
    set.show((set.shown() + 1) % n);
    let name = set.names()[set.shown()].to_string();
    let at = set.shown() + 1;
    l.refresh();
    m.status = Some(format!(
        "showing {name} ({at} of {n}); edits go to every template they apply to"
    ));
}

/// `o`: the template, or the selected object's (or problem's) file at its line, in `$EDITOR`;
/// with unsaved edits, first a question, since the catalog is read again afterwards.
fn open_command(m: &mut Model) -> Vec<Effect> {
    if let Some(t) = &m.template
        && m.loaded().is_none()
    {
        return vec![Effect::OpenEditor {
            file: t.file.clone(),
            line: 1,
        }];
    }
    if let Some(i) = &m.image {
        m.status = Some(i.banner());
        return Vec::new();
    }
    let Some(l) = m.loaded() else {
        return Vec::new();
    };
    let loc = if m.focus == Pane::Problems {
        l.selected_problem().map(|d| d.location.clone())
    } else if let Some(file) = l.ws.template_file() {
        // The rendering has no file of its own: the template on screen, from its top.
        Some(fbc_core::catalog::Location::new(
            file.display().to_string(),
            1,
            1,
        ))
    } else {
        selected_location(l)
    };
    let Some(loc) = loc.filter(|l| l.file != ".") else {
        return Vec::new();
    };
    let line = loc.line.max(1);
    if l.ws.is_dirty() {
        m.dialog = Some(Dialog::OpenUnsaved {
            file: loc.file,
            line,
            files: l.dirty.len(),
        });
        return Vec::new();
    }
    vec![Effect::OpenEditor {
        file: editor_path(m, &loc.file),
        line,
    }]
}

/// The file to open for a location: a template's problems name it as given; a catalog's files are
/// under the catalog directory.
pub(crate) fn editor_path(m: &Model, file: &str) -> PathBuf {
    if m.loaded().is_some_and(|l| l.ws.templates().is_some()) {
        PathBuf::from(file)
    } else {
        m.dir.join(file)
    }
}

/// A motion or selection command in the focused pane.
pub(crate) fn motion(m: &mut Model, command: Command) {
    let focus = m.focus;
    let page = m.page().max(2);
    let graph_rows = m.graph_rows();
    let mut viewer = None;
    let Some(l) = m.loaded_mut() else { return };
    let status = match focus {
        Pane::Tree => tree_motion(l, command, page),
        Pane::Graph => graph_motion(l, command, graph_rows),
        Pane::Details => {
            details_motion(l, command, page);
            None
        }
        Pane::Problems if !l.changes.is_empty() => changes_motion(l, command),
        Pane::Problems => {
            let status = problems_motion(l, command, page);
            // Enter: the problem in full, over the panes (the object is selected under it).
            if command == Command::Select {
                viewer = l.selected_problem().map(|d| l.problem_text(d));
            }
            status
        }
    };
    if let Some((title, lines)) = viewer {
        m.help_scroll = 0;
        m.overlay = Some(Overlay::Message { title, lines });
    }
    if status.is_some() {
        m.status = status;
    }
}

/// Moves in the tree; the graph and details follow. Says which match `n`/`N` went to.
fn tree_motion(l: &mut Loaded, command: Command, page: usize) -> Option<String> {
    let mut status = None;
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
    status
}

/// Moves the graph cursor over the entry rows (the pane scrolls with it, `rows` of lanes on
/// screen); Enter selects its entry in the tree.
fn graph_motion(l: &mut Loaded, command: Command, rows: usize) -> Option<String> {
    let half = (rows / 2).max(1) as isize;
    match command {
        Command::Down => l.move_cursor(1, rows),
        Command::Up => l.move_cursor(-1, rows),
        Command::Top => l.move_cursor(isize::MIN, rows),
        Command::Bottom => l.move_cursor(isize::MAX, rows),
        Command::HalfPageDown => l.move_cursor(half, rows),
        Command::HalfPageUp => l.move_cursor(-half, rows),
        Command::Select => {
            let entry = l.graph_cursor.get(2)?.clone();
            return Some(if l.select_cursor() {
                format!("{entry} selected in the tree")
            } else {
                format!("{entry} is not in the tree")
            });
        }
        _ => {}
    }
    None
}

fn details_motion(l: &mut Loaded, command: Command, page: usize) {
    match command {
        Command::Down => l.details_scroll += 1,
        Command::Up => l.details_scroll = l.details_scroll.saturating_sub(1),
        Command::Top => l.details_scroll = 0,
        Command::HalfPageDown => l.details_scroll += page / 2,
        Command::HalfPageUp => l.details_scroll = l.details_scroll.saturating_sub(page / 2),
        _ => {}
    }
}

/// Review mode's changes list: Enter selects the object a change is about.
fn changes_motion(l: &mut Loaded, command: Command) -> Option<String> {
    let n = l.changes.len();
    match command {
        Command::Down => l.problem = (l.problem + 1).min(n - 1),
        Command::Up => l.problem = l.problem.saturating_sub(1),
        Command::Top => l.problem = 0,
        Command::Bottom => l.problem = n - 1,
        Command::Select => {
            let c = l.changes.get(l.problem).cloned()?;
            if l.filter.is_some() {
                l.filter = None;
                l.refilter();
            }
            l.select_deepest(&c.path);
            return Some(c.text.trim().to_string());
        }
        _ => {}
    }
    None
}

/// The problems list: Enter selects the object a problem is about and says where it is.
fn problems_motion(l: &mut Loaded, command: Command, page: usize) -> Option<String> {
    let last = l.problems.rows().len().saturating_sub(1);
    match command {
        Command::Down => l.problem = (l.problem + 1).min(last),
        Command::Up => l.problem = l.problem.saturating_sub(1),
        Command::Top => l.problem = 0,
        Command::Bottom => l.problem = last,
        Command::HalfPageDown => l.problem = (l.problem + page / 2).min(last),
        Command::HalfPageUp => l.problem = l.problem.saturating_sub(page / 2),
        Command::Select => {
            let d = l.selected_problem().cloned()?;
            let path = l.path_of(&d);
            if !path.is_empty() {
                // The filter stays when the object is in the tree it leaves (the pane lists only
                // those problems while it is on).
                if l.filter.is_some() && crate::tui::tree::tree_item(&l.items, &path).is_none() {
                    l.filter = None;
                    l.refilter();
                    l.sync_problems();
                }
                l.select_path(&path);
            }
            return Some(format!("{}: {}", d.location, d.message));
        }
        _ => {}
    }
    None
}
