//! Drawing the changes pane of review mode and the problems pane.

use super::block;
use crate::theme::{Role, Theme};
use crate::tui::app::{Loaded, Shown, Tone};
use crate::tui::keymap::{Command, Keymap, Layer};
use fbc_core::catalog::Severity;
use fbc_core::text::plural;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph, Wrap};

pub(super) fn changes_pane(l: &Loaded, f: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
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
                Tone::Gained => theme.role(Role::Added),
                Tone::Lost => theme.role(Role::Removed),
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

pub(super) fn problems_pane(
    l: &Loaded,
    keys: &Keymap,
    f: &mut Frame,
    area: Rect,
    focused: bool,
    theme: &Theme,
) {
    if !l.changes.is_empty() {
        changes_pane(l, f, area, focused, theme);
        return;
    }
    let title = l.problems_title(area.width);
    let report = l.ws.report();
    if report.diagnostics.is_empty() || l.problems.rows().is_empty() {
        let text = if report.diagnostics.is_empty() {
            "No problems: the catalog is valid.".to_string()
        } else {
            let k = |c| keys.first_key(Layer::Problems, c);
            let mut ways = Vec::new();
            if l.problems.shown != Shown::All {
                ways.push(format!("{} lists more severities", k(Command::Severity)));
            }
            if l.problems.only.is_some() {
                ways.push(format!("{} every object's", k(Command::OnlySelection)));
            }
            if l.filter.is_some() {
                ways.push("Esc in the tree clears its filter".to_string());
            }
            format!(
                "None of the {} is listed: {}.",
                plural(report.diagnostics.len(), "problem", "problems"),
                ways.join(", ")
            )
        };
        f.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: false })
                .block(block(&title, focused, theme)),
            area,
        );
        return;
    }
    // Only the rows on screen are built: the list keeps the highlighted row last when it is below
    // the first page, as the list widget does.
    let height = usize::from(area.height.saturating_sub(2)).max(1);
    let first = l.problem.saturating_sub(height - 1);
    let items: Vec<ListItem> = (first..l.problems.rows().len().min(first + height))
        .filter_map(|row| l.problem_at(row))
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
    let mut state = ListState::default().with_selected(Some(l.problem - first));
    f.render_stateful_widget(
        List::new(items)
            .block(block(&title, focused, theme))
            .highlight_style(Style::default().add_modifier(Modifier::REVERSED)),
        area,
        &mut state,
    );
}
