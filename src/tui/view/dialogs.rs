//! Drawing dialogs: pickers, inputs, confirmations, the write preview and a save's questions.

use super::*;

pub(super) fn picker_lines(picker: &Picker) -> Vec<Line<'static>> {
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

pub(super) fn dialog(d: &Dialog, f: &mut Frame, area: Rect, theme: &Theme) {
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
