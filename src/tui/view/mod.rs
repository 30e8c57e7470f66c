//! Drawing the model: `view` reads the model and writes nothing back. Where each pane goes comes
//! from [`crate::tui::layout`], which `update` uses too.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout as Split, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Gauge, Paragraph, Wrap};
use tui_tree_widget::Tree;

use super::app::{Dialog, LineInput, Loaded, Model, Pane, Prompt, State, details, edit_hints};
use super::input;
use super::keymap::{Command, Layer};
use super::layout::Areas;
use ratatui::buffer::Buffer;
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::TreeState;

mod cut;
mod dialogs;
mod diff;
mod graph;
mod overlay;
mod palette;
mod panes;
mod text;

pub use crate::theme::{Role, Theme};

pub(crate) use dialogs::dialog_scroll_max;
pub(crate) use overlay::overlay_scroll_max;

use crate::tui::view::dialogs::dialog;
use crate::tui::view::graph::colour_review_rows;
use crate::tui::view::panes::problems_pane;
use graph::graph;

fn block(title: &str, focused: bool, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.focus(focused))
        .title(Span::styled(format!(" {title} "), theme.focus(focused)))
}

pub fn view(m: &Model, f: &mut Frame, theme: &Theme) {
    let area = f.area();
    let areas = crate::tui::layout::Areas::of(area, m.focus, m.enlarged);
    let (main, footer) = (areas.main, areas.footer);
    match &m.state {
        State::Loading(p) => {
            let (fd, ft, bd, bt) = p.snapshot();
            let ratio = if bt > 0 { bd as f64 / bt as f64 } else { 0.0 };
            let [_, mid, _] = Split::vertical([
                Constraint::Fill(1),
                Constraint::Length(3),
                Constraint::Fill(1),
            ])
            .areas(main);
            let what = match (&m.template, &m.image) {
                (Some(t), _) => format!("opening and rendering {}", t.file.display()),
                (None, Some(i)) => format!("loading image {}", i.reference),
                (None, None) => format!("loading {}", m.dir.display()),
            };
            let gauge = Gauge::default()
                .block(block(&what, true, theme))
                .gauge_style(theme.role(Role::Focus))
                .ratio(ratio.clamp(0.0, 1.0))
                .label(format!(
                    "{fd}/{ft} files, {} of {} MB",
                    bd / 1_000_000,
                    bt / 1_000_000
                ));
            f.render_widget(gauge, mid);
        }
        State::Failed(e) => {
            let text = match &m.template {
                Some(t) => format!(
                    "cannot open {}:\n\n{e}\n\n{}{} opens the template in $EDITOR; it is opened again when the editor exits.",
                    t.file.display(),
                    t.source_note
                        .as_ref()
                        .map_or_else(String::new, |n| format!("Note: {n}.\n\n")),
                    m.keymap.first_key(Layer::Tree, Command::Open)
                ),
                None => format!("cannot open the catalog: {e}"),
            };
            f.render_widget(
                Paragraph::new(text)
                    .block(block("fbc-edit", true, theme))
                    .wrap(Wrap { trim: false }),
                main,
            );
        }
        // The diff viewer covers the panes: they are not drawn under it.
        State::Ready(_) if matches!(m.dialog, Some(Dialog::Write { .. })) => {}
        State::Ready(l) => panes(m, l, f, &areas, theme),
    }
    footer_line(m, f, footer, theme);
    if let Some(d) = &m.dialog {
        dialog(m, d, f, area, theme);
    }
    if let Some(Prompt::Palette(text)) = &m.prompt {
        palette::palette(m, text, f, area, theme);
    }
    // The help and the message viewer are on top of everything, as they take the keys first.
    if let Some(o) = &m.overlay {
        overlay::overlay(m, o, f, area, theme);
    }
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn panes(m: &Model, l: &Loaded, f: &mut Frame, areas: &Areas, theme: &Theme) {
    let focus = m.focus;
    let (tree_area, graph_area, details_area, problems) =
        (areas.tree, areas.graph, areas.details, areas.problems);
    let what = match (&m.template, &m.image) {
        (Some(t), _) => template_title(t, l),
        (None, Some(i)) => format!("read-only · {}", i.reference),
        (None, None) => "catalog".to_string(),
    };
    let count = match &l.filter {
        Some(t) => format!("filter {t:?} ({})", l.matches.len()),
        None => fbc_core::text::plural(
            l.ws.catalog().index().package_names().len(),
            "package",
            "packages",
        ),
    };
    let unsaved = (!l.dirty.is_empty()).then(|| {
        format!(
            "● {}",
            fbc_core::text::plural(l.dirty.len(), "unsaved file", "unsaved files")
        )
    });
    let title = fit_title(&what, &count, unsaved.as_deref(), tree_area.width);
    if l.items.is_empty() {
        let why = if l.filter.is_some() {
            "Nothing matches the filter. Esc clears it.".to_string()
        } else if l.ws.templates().is_some() {
            format!(
                "The template renders to nothing: the problems below say why.\n\n{} opens the template in $EDITOR at the selected problem; it is opened again when the editor exits.",
                m.keymap.first_key(Layer::Problems, Command::Open)
            )
        } else {
            format!(
                "No catalog objects here.\n\nfbc-edit reads OLM file-based catalogs: directories of JSON or YAML files with olm.package, olm.channel and olm.bundle objects.\n\n{} problem(s) were found while reading; see below.",
                l.ws.report().diagnostics.len()
            )
        };
        f.render_widget(
            Paragraph::new(why).wrap(Wrap { trim: false }).block(block(
                &title,
                focus == Pane::Tree,
                theme,
            )),
            tree_area,
        );
    } else if let Ok(tree) = Tree::new(&l.items) {
        let tree_block = block(&title, focus == Pane::Tree, theme);
        let inner = tree_block.inner(tree_area);
        let tree = tree
            .block(tree_block)
            .highlight_style(Style::default().add_modifier(Modifier::REVERSED));
        let mut state = tree_state(l);
        f.render_stateful_widget(tree, tree_area, &mut state);
        cut::entries_from_the_left(l, &state, f.buffer_mut(), inner);
        if !l.changes.is_empty() && theme.color {
            colour_review_rows(l, &state, f, inner, theme);
        }
    }
    if let Some(a) = graph_area {
        graph(l, f, a, focus == Pane::Graph, theme);
    }
    if let Some(a) = details_area {
        let lines: Vec<Line> = details(l).into_iter().map(Line::from).collect();
        f.render_widget(
            Paragraph::new(lines)
                .block(block("details", focus == Pane::Details, theme))
                .wrap(Wrap { trim: false })
                .scroll((l.details_scroll as u16, 0)),
            a,
        );
    }
    problems_pane(l, &m.keymap, f, problems, focus == Pane::Problems, theme);
}

/// The tree widget's state for one drawing: what the model has open and selected, scrolled to the
/// model's offset. The widget keeps its offset only in its state and clamps it to the length of the
/// list it last drew, so it first draws, into a one-cell scratch buffer, just the top-level items
/// that reach the offset (at least `offset + 1` rows, however long the whole tree), then takes it.
fn tree_state(l: &Loaded) -> TreeState<String> {
    let mut state = TreeState::default();
    for path in l.tree.opened() {
        state.open(path.clone());
    }
    // Selected before the scratch drawing, which uses up the widget's wish to bring the selection
    // into view: the rows are the model's (the wheel may have scrolled the selection away).
    state.select(l.selected().to_vec());
    let reach = (l.tree_offset + 1).min(l.items.len());
    if let Ok(tree) = Tree::new(&l.items[..reach]) {
        let cell = Rect::new(0, 0, 1, 1);
        tree.render(cell, &mut Buffer::empty(cell), &mut state);
    }
    state.scroll_up(usize::MAX);
    state.scroll_down(l.tree_offset);
    state
}

/// A line being typed, its cursor drawn where it is (`▏`); a value offered and not typed yet is
/// shown greyed after the cursor (`offered: …`) while nothing is typed.
pub(crate) fn line_spans(input: &LineInput, theme: &Theme) -> Vec<Span<'static>> {
    let (before, after) = input.split();
    let mut spans = vec![Span::raw(before.to_string()), Span::raw("▏")];
    match input.hint() {
        Some(h) if input.is_empty() => spans.push(Span::styled(
            format!("offered: {h}"),
            theme.role(Role::Muted),
        )),
        _ => spans.push(Span::raw(after.to_string())),
    }
    spans
}

fn footer_line(m: &Model, f: &mut Frame, area: Rect, theme: &Theme) {
    let line = match &m.prompt {
        Some(Prompt::Filter(t)) => {
            let mut spans = vec![Span::raw("/")];
            spans.extend(line_spans(t, theme));
            Line::from(spans)
        }
        Some(Prompt::Palette(t)) => {
            let mut spans = vec![Span::raw(":")];
            spans.extend(line_spans(t, theme));
            spans.push(Span::raw(format!(
                "   ({} completes: {})",
                m.keymap.hint(Layer::Prompt, Command::Complete),
                crate::tui::app::palette_hint()
            )));
            Line::from(spans)
        }
        None => match &m.status {
            Some(s) => status_line(m, s, area.width, theme),
            None => Line::from(footer_hints(m, theme)),
        },
    };
    f.render_widget(Paragraph::new(line), area);
}

/// A status message; one longer than the line (or of several lines) ends in how to read it all.
fn status_line(m: &Model, s: &str, width: u16, theme: &Theme) -> Line<'static> {
    let room = usize::from(width);
    let first = s.lines().next().unwrap_or("");
    if first.len() == s.len() && text::width(s) <= room {
        return Line::from(Span::styled(s.to_string(), theme.role(Role::Notice)));
    }
    let key = m.keymap.first_key(Layer::Tree, Command::Message);
    let more = if key.is_empty() {
        String::new()
    } else {
        format!(" {key} reads all")
    };
    let cut = text::cut_right(first, room.saturating_sub(text::width(&more)));
    let cut = if cut.ends_with('…') {
        cut
    } else {
        format!("{cut} …")
    };
    Line::from(vec![
        Span::styled(cut, theme.role(Role::Notice)),
        Span::styled(more, theme.role(Role::Key)),
    ])
}

/// The keys the footer hints at: in a pane, help first, then the edit keys that apply to the
/// selection, then moving about; elsewhere the keys of the dialog, picker or prompt on top.
fn footer_hints(m: &Model, theme: &Theme) -> Vec<Span<'static>> {
    let layer = input::layer(m);
    if layer == Layer::Dialog
        && let Some(own) = m.dialog.as_ref().and_then(question_keys)
    {
        return own
            .iter()
            .flat_map(|&(command, word)| key_hint(m.keymap.first_key(layer, command), word, theme))
            .collect();
    }
    let pane = matches!(
        layer,
        Layer::Tree | Layer::Graph | Layer::Details | Layer::Problems
    );
    let multi = matches!(&m.dialog, Some(Dialog::Pick { picker, .. }) if picker.multi);
    let several_templates = m
        .loaded()
        .and_then(|l| l.ws.templates())
        .is_some_and(|set| set.names().len() > 1);
    let quit_question = matches!(m.dialog, Some(Dialog::QuitUnsaved));
    let shown = |c: Command| match c {
        // The quit question's own keys; the other dialogs answer `y`/`n`.
        Command::Write | Command::Discard if layer == Layer::Dialog => quit_question,
        Command::Confirm if quit_question => false,
        Command::Open => m.image.is_none(),
        Command::Toggle => multi,
        Command::NextTemplate => several_templates,
        // In a pane, the edit keys (write among them) come from the selection.
        c if pane => !c.is_edit(),
        _ => true,
    };
    let mut commands: Vec<Command> = Vec::new();
    if pane {
        commands.push(Command::Help);
        commands.extend(edit_hints(m));
    }
    for (command, _, _) in m.keymap.commands(layer) {
        if shown(command) && !commands.contains(&command) {
            commands.push(command);
        }
    }
    let mut spans = Vec::new();
    for command in commands {
        let word = match command {
            Command::Write if quit_question => Some("write and quit"),
            Command::Discard if quit_question => Some("discard and quit"),
            Command::Cancel if quit_question => Some("stay"),
            _ => command.footer(layer),
        };
        // Any key stays in the quit question; Esc is the one named.
        let esc = quit_question
            && command == Command::Cancel
            && m.keymap.keys(layer, command).split('/').any(|k| k == "esc");
        let key = if esc {
            "esc".to_string()
        } else {
            m.keymap.first_key(layer, command)
        };
        let (key, Some(word)) = (key, word) else {
            continue;
        };
        spans.extend(key_hint(key, word, theme));
    }
    spans
}

/// A key and its word in the footer (nothing for a key left unbound).
fn key_hint(key: String, word: &str, theme: &Theme) -> Vec<Span<'static>> {
    if key.is_empty() {
        return Vec::new();
    }
    vec![
        Span::styled(key, theme.role(Role::Key).add_modifier(Modifier::BOLD)),
        Span::raw(format!(" {word}  ")),
    ]
}

/// The keys of a question that takes more than yes and no, each with what it does: all of them,
/// so none is a secret of the dialog's text.
fn question_keys(d: &Dialog) -> Option<&'static [(Command, &'static str)]> {
    match d {
        Dialog::Reload { .. } => Some(&[
            (Command::Confirm, "reload with the edits"),
            (Command::Discard, "reload without them"),
            (Command::Cancel, "not now"),
        ]),
        Dialog::OpenUnsaved { .. } => Some(&[
            (Command::Confirm, "write first"),
            (Command::Keep, "keep the edits"),
            (Command::Discard, "drop them"),
            (Command::Cancel, "stay"),
        ]),
        _ => None,
    }
}

/// What the diff viewer shows and how to move in it, above the list of its keys.
fn diff_help(k: impl Fn(Command) -> String) -> (&'static str, Vec<String>) {
    (
        "write preview: the diff of every file saving writes",
        vec![
            "files → hunks → lines; long lines are cut with …, never wrapped".into(),
            format!(
                "{} / {}: hunks; {} / {}: files; {}: the whole line under the cursor",
                k(Command::NextHunk),
                k(Command::PrevHunk),
                k(Command::NextFile),
                k(Command::PrevFile),
                k(Command::WholeLine)
            ),
            format!(
                "{} then Enter: search (ignores case without capitals); {} / {}: matches",
                k(Command::Search),
                k(Command::NextMatch),
                k(Command::PrevMatch)
            ),
            format!(
                "{} writes every file shown; {} closes and writes nothing",
                k(Command::Confirm),
                k(Command::Cancel)
            ),
        ],
    )
}

/// What the focused pane shows and how to move in it, above the list of its commands; `k` gives
/// the keys of a command.
fn pane_help(pane: Pane, k: impl Fn(Command) -> String) -> (&'static str, Vec<String>) {
    match pane {
        Pane::Tree => (
            "tree: packages → channels → entries",
            vec![
                format!(
                    "{} / {}: open or close, go into or up",
                    k(Command::Right),
                    k(Command::Left)
                ),
                format!(
                    "{}: filter; {} / {}: next and previous match",
                    k(Command::Filter),
                    k(Command::NextMatch),
                    k(Command::PrevMatch)
                ),
            ],
        ),
        Pane::Graph => (
            "graph: the selected channel, newest first",
            vec![
                format!(
                    "{} / {}: move the cursor over the entries (→ what it replaces or skips, ← what replaces or skips it; its edges under the lanes)",
                    k(Command::Down),
                    k(Command::Up)
                ),
                format!(
                    "{}: select the cursor's entry in the tree; edit keys act on it",
                    k(Command::Select)
                ),
                "◉ head ● entry ○ dropped by OLM v0 ✗ deprecated │ replaces ┆ skips".into(),
                format!(
                    "{}: OLM v0 or OLM v1 rules; with v1, what OLM v1 takes from the selected entry",
                    k(Command::OlmRules)
                ),
                "review mode: + marks new entries; what the change removed or relinked here is listed under the lanes".into(),
            ],
        ),
        Pane::Details => (
            "details of the selected object",
            vec![format!("{} / {}: scroll", k(Command::Down), k(Command::Up))],
        ),
        Pane::Problems => (
            "problems: errors, then warnings, then info; each by file and line",
            vec![
                format!(
                    "{}: select the object the problem is about and read the problem in full",
                    k(Command::Select)
                ),
                format!(
                    "{}: list all, errors and warnings, or errors only; {}: only the problems of the selected package or channel (the tree's filter narrows the list too)",
                    k(Command::Severity),
                    k(Command::OnlySelection)
                ),
                format!("{}: open the problem's file at its line", k(Command::Open)),
                format!(
                    "{}: enlarge the pane for long lists (review mode's changes), and back",
                    k(Command::Enlarge)
                ),
            ],
        ),
    }
}

/// The tree's title for templates: the template on screen, and which of how many.
fn template_title(t: &crate::tui::app::TemplateView, l: &Loaded) -> String {
    let file = |rel: &str| rel.rsplit('/').next().unwrap_or(rel).to_string();
    match l.ws.templates() {
        Some(set) if set.names().len() > 1 => format!(
            "{} rendered ({} of {})",
            file(set.names()[set.shown()]),
            set.shown() + 1,
            set.names().len()
        ),
        Some(set) => format!("{} rendered", file(set.names()[set.shown()])),
        None => format!("{} rendered", t.name()),
    }
}

/// The tree's title in the room there is: what is shown, the count (or filter) and the unsaved
/// files. When it does not fit, words go first, then the count, so what is shown and the unsaved
/// mark stay.
fn fit_title(what: &str, count: &str, unsaved: Option<&str>, width: u16) -> String {
    let room = usize::from(width.saturating_sub(4));
    let join = |parts: &[&str]| parts.join(" · ");
    let mut candidates = vec![match unsaved {
        Some(u) => join(&[what, count, u]),
        None => join(&[what, count]),
    }];
    if let Some(u) = unsaved {
        let short = u.trim_end_matches(" files").trim_end_matches(" file");
        let shortest = short.trim_end_matches(" unsaved");
        candidates.push(join(&[what, count, short]));
        candidates.push(join(&[what, short]));
        candidates.push(join(&[what, shortest]));
        candidates.push(short.to_string());
    }
    candidates
        .iter()
        .find(|c| c.chars().count() <= room)
        .cloned()
        .unwrap_or_else(|| candidates[0].clone())
}

#[cfg(test)]
mod title_tests {
    use super::fit_title;

    #[test]
    fn the_unsaved_mark_stays_when_the_title_is_too_long() {
        assert_eq!(
            fit_title("catalog", "3 packages", Some("● 2 unsaved files"), 60),
            "catalog · 3 packages · ● 2 unsaved files"
        );
        assert_eq!(
            fit_title(
                "v4.17.yaml rendered (1 of 5)",
                "1 package",
                Some("● 5 unsaved files"),
                40
            ),
            "v4.17.yaml rendered (1 of 5) · ● 5"
        );
        assert_eq!(
            fit_title("catalog", "1 package", Some("● 1 unsaved file"), 15),
            "● 1 unsaved"
        );
    }
}
