//! Drawing dialogs: pickers, inputs, confirmations, the write preview and a save's questions.

use super::*;
use crate::tui::keymap::Keymap;

pub(super) fn picker_lines(picker: &Picker, keys: &Keymap) -> Vec<Line<'static>> {
    let k = |c| keys.hint(Layer::Picker, c);
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
    lines.push(Line::from(format!(
        "{}/{} choose · type to filter · {} continues · {} cancels",
        k(Command::Up),
        k(Command::Down),
        k(Command::Accept),
        k(Command::Cancel)
    )));
    lines
}

pub(super) fn dialog(d: &Dialog, keys: &Keymap, f: &mut Frame, area: Rect, theme: &Theme) {
    let yes = keys.hint(Layer::Dialog, Command::Confirm);
    let prompt = |c| keys.hint(Layer::Prompt, c);
    let (title, lines, scroll): (String, Vec<Line>, usize) = match d {
        Dialog::Reload { why } => (
            "nothing was written".into(),
            vec![
                Line::from(why.clone()),
                Line::from(""),
                Line::from(format!(
                    "{yes} reloads the catalog from disk (the unsaved edits are dropped) · any other key keeps them"
                )),
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
                Line::from(format!(
                    "{yes} writes it anyway · any other key writes nothing"
                )),
            ],
            0,
        ),
        Dialog::PickChannelForNew { bundle, picker } => (
            format!(
                "add {} to which channel of {}?",
                bundle["name"].as_str().unwrap_or(""),
                bundle["package"].as_str().unwrap_or("")
            ),
            picker_lines(picker, keys),
            0,
        ),
        Dialog::PickChannel { bundle, picker, .. } => (
            format!("promote {bundle} into which channel?"),
            picker_lines(picker, keys),
            0,
        ),
        Dialog::OpenUnsaved { file, files, .. } => (
            "unsaved edits".into(),
            vec![
                Line::from(format!(
                    "{} file{} unsaved edits. After the editor the catalog is read again from disk.",
                    files,
                    if *files == 1 { " has" } else { "s have" }
                )),
                Line::from(format!("Opening {file}.")),
                Line::from(""),
                Line::from(format!(
                    "{yes} write them first · {} keep them (applied again to what the editor leaves) · {} drop them · any other key stays",
                    keys.hint(Layer::Dialog, Command::Keep),
                    keys.hint(Layer::Dialog, Command::Discard)
                )),
            ],
            0,
        ),
        Dialog::QuitUnsaved => (
            "unsaved edits".into(),
            vec![
                Line::from("There are edits that are not written."),
                Line::from(""),
                Line::from(format!(
                    "{yes} quit without writing · any other key stays ({} writes)",
                    keys.first_key(Layer::Tree, Command::Write)
                )),
            ],
            0,
        ),
        Dialog::Write { lines, scroll } => (
            format!(
                "write these changes? {yes} writes · {}/{} scroll · other keys cancel",
                keys.first_key(Layer::Dialog, Command::Down),
                keys.first_key(Layer::Dialog, Command::Up)
            ),
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
        Dialog::Confirm { lines, invalid, .. } => (
            "confirm".into(),
            lines
                .iter()
                .map(|l| Line::from(l.clone()))
                .chain([
                    Line::from(""),
                    Line::from(format!(
                        "{yes} apply{} · {} cancel",
                        if *invalid { " anyway" } else { "" },
                        keys.hint(Layer::Dialog, Command::Cancel)
                    )),
                ])
                .collect(),
            0,
        ),
        Dialog::Input { title, text, then } => (
            title.clone(),
            vec![
                Line::from(format!("{text}▏")),
                Line::from(""),
                Line::from(if *then == crate::tui::app::InputFor::AddBundleDir {
                    format!(
                        "{} continues · {} completes · {} cancels",
                        prompt(Command::Accept),
                        prompt(Command::Complete),
                        prompt(Command::Cancel)
                    )
                } else {
                    format!(
                        "{} continues · {} cancels",
                        prompt(Command::Accept),
                        prompt(Command::Cancel)
                    )
                }),
            ],
            0,
        ),
        Dialog::PickBundle {
            channel, picker, ..
        } => (
            format!("promote which bundle into {channel}?"),
            picker_lines(picker, keys),
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
