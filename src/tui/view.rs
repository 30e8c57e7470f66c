//! Drawing the model. Nothing here changes state.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout as Split, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Gauge, List, ListItem, ListState, Paragraph, Wrap};
use tui_tree_widget::Tree;

use super::app::{
    Dialog, Loaded, Model, ObjectChange, Overlay, Pane, Picker, Prompt, State, Tone, details,
    review_mark,
};
use super::keymap::Command;
use crate::catalog::Severity;
use crate::graph::layout::CellKind;

/// Colours, or none when `NO_COLOR` is set. Colours are the 16 ANSI ones, which terminals map for
/// dark and light themes alike.
#[derive(Clone, Copy, Debug)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    fn focus(&self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        }
    }

    fn severity(&self, s: Severity) -> Style {
        match s {
            Severity::Error => self.fg(Color::Red).add_modifier(Modifier::BOLD),
            Severity::Warning => self.fg(Color::Yellow),
            Severity::Info => self.fg(Color::Blue),
        }
    }
}

fn block(title: &str, focused: bool, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.focus(focused))
        .title(Span::styled(format!(" {title} "), theme.focus(focused)))
}

pub fn view(m: &mut Model, f: &mut Frame, theme: &Theme) {
    let area = f.area();
    let [main, footer] = Split::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
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
                (Some(t), _) => format!("rendering template {}", t.file.display()),
                (None, Some(i)) => format!("loading image {}", i.reference),
                (None, None) => format!("loading {}", m.dir.display()),
            };
            let gauge = Gauge::default()
                .block(block(&what, true, theme))
                .gauge_style(theme.fg(Color::Cyan))
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
                    "cannot render template {}:\n\n{e}\n\n{}{} opens the template in $EDITOR; it is rendered again when the editor exits.",
                    t.file.display(),
                    t.source_note
                        .as_ref()
                        .map_or_else(String::new, |n| format!("Note: {n}.\n\n")),
                    m.keymap.first_key_of(Command::Open)
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
        State::Ready(_) => panes(m, f, main, theme),
    }
    footer_line(m, f, footer, theme);
    if m.overlay == Some(Overlay::Help) {
        help(m, f, area, theme);
    }
    if let Some(d) = &m.dialog {
        dialog(d, f, area, theme);
    }
}

fn picker_lines(picker: &Picker) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::from(format!("filter: {}▏", picker.filter)),
        Line::from(""),
    ];
    for (i, o) in picker.shown().into_iter().enumerate() {
        let style = if i == picker.selected {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        lines.push(Line::from(Span::styled(o.clone(), style)));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(
        "↑/↓ choose · type to filter · Enter continues · Esc cancels",
    ));
    lines
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

fn dialog(d: &Dialog, f: &mut Frame, area: Rect, theme: &Theme) {
    let (title, lines, scroll): (String, Vec<Line>, usize) = match d {
        Dialog::Reload { why } => (
            "nothing was written".into(),
            vec![
                Line::from(why.clone()),
                Line::from(""),
                Line::from(
                    "y reloads the catalog from disk (the unsaved edits are dropped) · any other key keeps them",
                ),
            ],
            0,
        ),
        Dialog::SaveFailed { title, lines } => (
            title.clone(),
            lines
                .iter()
                .map(|l| Line::from(l.clone()))
                .chain([
                    Line::from(""),
                    Line::from("any key closes; the edits stay unsaved"),
                ])
                .collect(),
            0,
        ),
        Dialog::ForceWrite { why } => (
            "nothing was written".into(),
            vec![
                Line::from(why.clone()),
                Line::from(""),
                Line::from("y writes it anyway · any other key writes nothing"),
            ],
            0,
        ),
        Dialog::PickChannelForNew { bundle, picker } => (
            format!(
                "add {} to which channel of {}?",
                bundle["name"].as_str().unwrap_or(""),
                bundle["package"].as_str().unwrap_or("")
            ),
            picker_lines(picker),
            0,
        ),
        Dialog::PickChannel { bundle, picker, .. } => (
            format!("promote {bundle} into which channel?"),
            picker_lines(picker),
            0,
        ),
        Dialog::QuitUnsaved => (
            "unsaved edits".into(),
            vec![
                Line::from("There are edits that are not written."),
                Line::from(""),
                Line::from("y quit without writing · any other key stays (w writes)"),
            ],
            0,
        ),
        Dialog::Write { lines, scroll } => (
            "write these changes? y writes · j/k scroll · other keys cancel".into(),
            lines
                .iter()
                .map(|l| {
                    let style = if l.starts_with('+') && !l.starts_with("+++") {
                        theme.fg(Color::Green)
                    } else if l.starts_with('-') && !l.starts_with("---") {
                        theme.fg(Color::Red)
                    } else {
                        Style::default()
                    };
                    Line::from(Span::styled(l.clone(), style))
                })
                .collect(),
            *scroll,
        ),
        Dialog::Confirm { lines, .. } => (
            "confirm".into(),
            lines.iter().map(|l| Line::from(l.clone())).collect(),
            0,
        ),
        Dialog::Input { title, text, then } => (
            title.clone(),
            vec![
                Line::from(format!("{text}▏")),
                Line::from(""),
                Line::from(if *then == crate::tui::app::InputFor::AddBundleDir {
                    "Enter continues · Tab completes · Esc cancels"
                } else {
                    "Enter continues · Esc cancels"
                }),
            ],
            0,
        ),
        Dialog::PickBundle {
            channel, picker, ..
        } => (
            format!("promote which bundle into {channel}?"),
            picker_lines(picker),
            picker.selected.saturating_sub(8),
        ),
    };
    // Sized to the text as wrapped, so the last line (the keys to answer with) always shows.
    let width = area.width.saturating_sub(8).min(110);
    let popup = Paragraph::new(lines)
        .block(block(&title, true, theme))
        .wrap(Wrap { trim: false });
    let h = (popup.line_count(width.saturating_sub(2)) as u16).min(area.height.saturating_sub(2));
    let rect = centered(area, width, h);
    f.render_widget(Clear, rect);
    f.render_widget(popup.scroll((scroll as u16, 0)), rect);
}

fn panes(m: &mut Model, f: &mut Frame, area: Rect, theme: &Theme) {
    let focus = m.focus;
    let narrow = area.width < 100;
    let problems_height = if area.height < 30 { 5 } else { 9 };
    let [top, problems] =
        Split::vertical([Constraint::Min(6), Constraint::Length(problems_height)]).areas(area);
    let [tree_area, right] = Split::horizontal([
        Constraint::Percentage(if narrow { 45 } else { 35 }),
        Constraint::Fill(1),
    ])
    .areas(top);
    // Narrow screens show the graph or the details, whichever was focused last.
    let (graph_area, details_area) = if narrow {
        if focus == Pane::Details {
            (None, Some(right))
        } else {
            (Some(right), None)
        }
    } else {
        let [g, d] =
            Split::vertical([Constraint::Percentage(60), Constraint::Fill(1)]).areas(right);
        (Some(g), Some(d))
    };
    m.page = tree_area.height.saturating_sub(2) as usize;
    let State::Ready(l) = &mut m.state else {
        return;
    };
    let what = match (&m.template, &m.image) {
        (Some(t), _) => format!("{} rendered · read-only", t.name()),
        (None, Some(i)) => format!("read-only · {}", i.reference),
        (None, None) => "catalog".to_string(),
    };
    let mut title = match &l.filter {
        Some(t) => format!("{what} · filter {t:?} ({})", l.matches.len()),
        None => format!(
            "{what} · {} packages",
            l.ws.catalog().index().package_names().len()
        ),
    };
    if !l.dirty.is_empty() {
        title.push_str(&format!(
            " · ● {} unsaved file{}",
            l.dirty.len(),
            if l.dirty.len() == 1 { "" } else { "s" }
        ));
    }
    if l.items.is_empty() {
        let why = if l.filter.is_some() {
            "Nothing matches the filter. Esc clears it.".to_string()
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
        f.render_stateful_widget(tree, tree_area, &mut l.tree);
        if !l.changes.is_empty() && theme.color {
            colour_review_rows(l, f, inner, theme);
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
    problems_pane(l, f, problems, focus == Pane::Problems, theme);
}

/// Review mode: rows of what the change added in green, ghost rows of what it removed in red
/// (their `+`/`-` marks say the same without colour).
fn colour_review_rows(l: &Loaded, f: &mut Frame, inner: Rect, theme: &Theme) {
    let mut previous: Option<&[String]> = None;
    for y in inner.top()..inner.bottom() {
        // Rows below the last item report the last item again.
        let Some(path) = l.tree.rendered_at(Position::new(inner.x, y)) else {
            continue;
        };
        if previous == Some(path) {
            break;
        }
        previous = Some(path);
        let colour = match review_mark(&l.changes, path) {
            Some(ObjectChange::Added) => Color::Green,
            Some(ObjectChange::Removed) => Color::Red,
            _ => continue,
        };
        f.buffer_mut()
            .set_style(Rect::new(inner.x, y, inner.width, 1), theme.fg(colour));
    }
}

fn graph(l: &Loaded, f: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
    let Some((g, lay)) = &l.graph else {
        f.render_widget(
            Paragraph::new("Select a channel to see its upgrade graph.")
                .block(block("graph", focused, theme)),
            area,
        );
        return;
    };
    let mut title = format!("graph · {}/{}", g.package, g.channel);
    if g.default {
        title.push_str(" ★ default");
    }
    if l.olm_v1 {
        title.push_str(" · OLM v1 rules");
    }
    let selected = l.selected().get(2).and_then(|e| g.node(e));
    // The selected entry's neighbours (either direction) are highlighted.
    let neighbours: Vec<_> = selected
        .map(|n| g.graph.neighbors_undirected(n).collect())
        .unwrap_or_default();
    let mut lines: Vec<Line> = Vec::new();
    lines.push(Line::from(Span::styled(
        if l.olm_v1 {
            "◉ head ● entry ○ dropped by OLM v0, kept by OLM v1 ✗ deprecated │ replaces ┆ skips"
        } else {
            "◉ head ● entry ○ dropped by OLM v0 ✗ deprecated │ replaces ┆ skips"
        },
        theme.fg(Color::DarkGray),
    )));
    if l.olm_v1
        && let Some(n) = selected
    {
        lines.push(Line::from(Span::styled(
            olm_v1_line(g, n),
            theme.fg(Color::Cyan),
        )));
    }
    // Review mode: what the change removed or relinked here, listed under the lanes in the room
    // they leave, and in at least half the pane.
    let room = area.height.saturating_sub(3) as usize;
    let review = review_lines(
        l,
        g,
        theme,
        (room / 2).max(room.saturating_sub(lay.rows.len())),
    );
    let visible = room.saturating_sub(review.len());
    let start = l.graph_scroll.min(lay.rows.len().saturating_sub(1));
    // Keep the selected entry in view.
    let start = match selected.and_then(|n| lay.rows.iter().position(|r| r.entry == Some(n))) {
        Some(i) if i < start || i >= start + visible => i.saturating_sub(visible / 2),
        _ => start,
    };
    for row in lay.rows.iter().skip(start).take(visible) {
        let mut spans: Vec<Span> = row
            .cells
            .iter()
            .map(|c| {
                let style = match c.kind {
                    CellKind::Node if row.marks.deprecated => theme.fg(Color::Magenta),
                    CellKind::Node if row.marks.head => {
                        theme.fg(Color::Green).add_modifier(Modifier::BOLD)
                    }
                    CellKind::Node if row.marks.dropped => theme.fg(Color::DarkGray),
                    CellKind::Lane(crate::graph::channel::EdgeKind::Skips) => {
                        theme.fg(Color::Yellow)
                    }
                    CellKind::Lane(_) => theme.fg(Color::Cyan),
                    _ => Style::default(),
                };
                Span::styled(c.ch.to_string(), style)
            })
            .collect();
        spans.push(Span::raw(
            " ".repeat(lay.width.saturating_sub(row.cells.len()) + 1),
        ));
        let mut style = Style::default();
        let added = row.entry.is_some_and(|n| {
            l.changes.iter().any(|c| {
                c.object == ObjectChange::Added
                    && c.path.len() == 3
                    && c.path[0] == g.package
                    && c.path[1] == g.channel
                    && c.path[2] == g.graph[n].name
            })
        });
        if added {
            style = theme.fg(Color::Green).add_modifier(Modifier::BOLD);
        }
        if row.entry.is_some() && row.entry == selected {
            style = style.add_modifier(Modifier::REVERSED);
        } else if row.entry.is_some_and(|n| neighbours.contains(&n)) {
            style = theme.fg(Color::Green).add_modifier(Modifier::UNDERLINED);
        }
        if added {
            // The mark stays visible however long the label runs.
            spans.push(Span::styled("+ ", theme.fg(Color::Green)));
        }
        spans.push(Span::styled(row.label.clone(), style));
        lines.push(Line::from(spans));
    }
    lines.extend(review);
    f.render_widget(
        Paragraph::new(lines).block(block(&title, focused, theme)),
        area,
    );
}

/// What OLM v1 takes from the selected entry, beside what OLM v0 offers.
fn olm_v1_line(g: &crate::graph::channel::ChannelGraph, n: petgraph::graph::NodeIndex) -> String {
    use crate::graph::query::{Installed, v0_offers, v1_successors};
    let from = Installed {
        name: Some(g.graph[n].name.clone()),
        version: g.graph[n].version.clone(),
    };
    let v1 = v1_successors(&[g], &from)
        .into_iter()
        .find(|s| Some(&s.name) != from.name.as_ref());
    let v0 = v0_offers(g, &from)
        .ok()
        .and_then(|o| o.first().map(|o| g.graph[o.entry].name.clone()));
    let v0 = v0.map_or("OLM v0 offers nothing".to_string(), |x| {
        format!("OLM v0 offers {x}")
    });
    match v1 {
        Some(s) => format!(
            "OLM v1 from here takes {} (highest successor); {v0}",
            s.name
        ),
        None => format!("OLM v1 from here: no successor; {v0}"),
    }
}

/// An edge in words: the newer entry first, as the catalog says it.
fn edge_words(e: &crate::diff::Edge) -> String {
    match e.kind {
        "skipRange" => format!("skipRange of {} matches {}", e.to, e.from),
        kind => format!("{} {kind} {}", e.to, e.from),
    }
}

/// Review mode: the selected channel's removed entries, removed and added edges and rewritten
/// skipRanges, in at most `room` lines (the rest are in the changes pane).
fn review_lines(
    l: &Loaded,
    g: &crate::graph::channel::ChannelGraph,
    theme: &Theme,
    room: usize,
) -> Vec<Line<'static>> {
    let Some(d) = l.channel_review(&g.package, &g.channel) else {
        return Vec::new();
    };
    let selected = l.selected().get(2);
    let (red, green) = (theme.fg(Color::Red), theme.fg(Color::Green));
    let mut items: Vec<Line> = Vec::new();
    for e in &d.entries_removed {
        let style = if selected == Some(e) {
            red.add_modifier(Modifier::REVERSED)
        } else {
            red
        };
        items.push(Line::from(Span::styled(format!("- {e}  removed"), style)));
    }
    for e in &d.edges_removed {
        items.push(Line::from(Span::styled(
            format!("- {}", edge_words(e)),
            red,
        )));
    }
    for e in &d.edges_added {
        items.push(Line::from(Span::styled(
            format!("+ {}", edge_words(e)),
            green,
        )));
    }
    for r in &d.skip_ranges_changed {
        items.push(Line::from(Span::styled(
            format!(
                "~ skipRange of {}: {} → {}",
                r.entry,
                crate::diff::range_text(&r.old),
                crate::diff::range_text(&r.new)
            ),
            theme.fg(Color::Yellow),
        )));
    }
    if items.is_empty() || room < 2 {
        return Vec::new();
    }
    // A heading, then as many as fit, then how many more there are.
    if items.len() + 1 > room {
        let more = items.len() - (room - 2);
        items.truncate(room - 2);
        items.push(Line::from(Span::styled(
            format!("… {more} more in the changes pane"),
            theme.fg(Color::DarkGray),
        )));
    }
    let mut out = vec![Line::from(Span::styled(
        "changes in this channel:",
        theme.fg(Color::DarkGray),
    ))];
    out.extend(items);
    out
}

fn changes_pane(l: &Loaded, f: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
    let errors = l.ws.report().count(Severity::Error);
    let title = format!(
        "changes · {} (problems: {errors} errors; Enter selects)",
        l.changes.len()
    );
    let items: Vec<ListItem> = l
        .changes
        .iter()
        .map(|c| {
            let style = match c.tone {
                Tone::Gained => theme.fg(Color::Green),
                Tone::Lost => theme.fg(Color::Red),
                Tone::Neutral => Style::default(),
            };
            ListItem::new(Line::from(Span::styled(c.text.clone(), style)))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(l.problem));
    f.render_stateful_widget(
        List::new(items)
            .block(block(&title, focused, theme))
            .highlight_style(Style::default().add_modifier(Modifier::REVERSED)),
        area,
        &mut state,
    );
}

fn problems_pane(l: &Loaded, f: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
    if !l.changes.is_empty() {
        changes_pane(l, f, area, focused, theme);
        return;
    }
    let errors = l.ws.report().count(Severity::Error);
    let warnings = l.ws.report().count(Severity::Warning);
    let title = format!("problems · {errors} errors, {warnings} warnings");
    if l.ws.report().diagnostics.is_empty() {
        f.render_widget(
            Paragraph::new("No problems: the catalog is valid.")
                .block(block(&title, focused, theme)),
            area,
        );
        return;
    }
    let items: Vec<ListItem> =
        l.ws.report()
            .diagnostics
            .iter()
            .map(|d| {
                ListItem::new(Line::from(vec![
                    Span::styled(
                        format!("{:<7} ", d.severity.as_str()),
                        theme.severity(d.severity),
                    ),
                    Span::raw(format!("{} {}  ", d.code, d.location)),
                    Span::raw(d.message.clone()),
                ]))
            })
            .collect();
    let mut state = ListState::default().with_selected(Some(l.problem));
    f.render_stateful_widget(
        List::new(items)
            .block(block(&title, focused, theme))
            .highlight_style(Style::default().add_modifier(Modifier::REVERSED)),
        area,
        &mut state,
    );
}

fn footer_line(m: &Model, f: &mut Frame, area: Rect, theme: &Theme) {
    let line = match &m.prompt {
        Some(Prompt::Filter(t)) => Line::from(format!("/{t}▏")),
        Some(Prompt::Palette(t)) => Line::from(format!(
            ":{t}▏   (Tab completes: package, channel, validate, export mermaid|dot FILE, quit)"
        )),
        None => match &m.status {
            Some(s) => Line::from(Span::styled(s.clone(), theme.fg(Color::Yellow))),
            None => {
                let mut spans = Vec::new();
                // A template's rendering and an image are read-only: no write hint.
                let read_only = m.template.is_some() || m.image.is_some();
                let shown = |c: Command| {
                    !(read_only && c == Command::Write || m.image.is_some() && c == Command::Open)
                };
                for b in m
                    .keymap
                    .bindings
                    .iter()
                    .filter(|b| b.footer && shown(b.command))
                {
                    spans.push(Span::styled(
                        m.keymap.first_key_of(b.command),
                        theme.fg(Color::Cyan).add_modifier(Modifier::BOLD),
                    ));
                    spans.push(Span::raw(format!(" {}  ", short(b.command))));
                }
                Line::from(spans)
            }
        },
    };
    f.render_widget(Paragraph::new(line), area);
}

fn short(c: Command) -> &'static str {
    match c {
        Command::NextPane => "pane",
        Command::Select => "select",
        Command::Filter => "filter",
        Command::Palette => "command",
        Command::Open => "editor",
        Command::Help => "help",
        Command::Quit => "quit",
        Command::Write => "write",
        _ => "",
    }
}

fn help(m: &Model, f: &mut Frame, area: Rect, theme: &Theme) {
    let w = area.width.min(76);
    let h = area.height.min(m.keymap.bindings.len() as u16 + 9);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    let k = |c: Command| m.keymap.keys_of(c);
    let (pane, about): (&str, Vec<String>) = match m.focus {
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
                    "{} / {}: scroll; the selected entry stays in view",
                    k(Command::Down),
                    k(Command::Up)
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
            "problems, sorted by file and line",
            vec![
                format!(
                    "{}: select the object the problem is about",
                    k(Command::Select)
                ),
                format!("{}: open the problem's file at its line", k(Command::Open)),
            ],
        ),
    };
    let mut lines = vec![Line::from(Span::styled(pane, theme.focus(true)))];
    lines.extend(about.into_iter().map(Line::from));
    lines.push(Line::from(""));
    for b in &m.keymap.bindings {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:<18}", m.keymap.keys_of(b.command)),
                theme.fg(Color::Cyan),
            ),
            Span::raw(b.desc),
        ]));
    }
    f.render_widget(Clear, rect);
    f.render_widget(
        Paragraph::new(lines).block(block("help · Esc closes", true, theme)),
        rect,
    );
}
