//! Drawing the changes pane of review mode and the problems pane.

use super::block;
use crate::theme::{Role, Theme};
use crate::tui::app::{Loaded, Tone};
use fbc_core::catalog::Severity;
use fbc_core::text::plural;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};

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

pub(super) fn problems_pane(l: &Loaded, f: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
    if !l.changes.is_empty() {
        changes_pane(l, f, area, focused, theme);
        return;
    }
    let errors = l.ws.report().count(Severity::Error);
    let warnings = l.ws.report().count(Severity::Warning);
    let info = l.ws.report().count(Severity::Info);
    let mut title = format!(
        "problems · {}, {}",
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings")
    );
    // Info rows are listed too, so the count says so.
    if info > 0 {
        title.push_str(&format!(", {info} info"));
    }
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
