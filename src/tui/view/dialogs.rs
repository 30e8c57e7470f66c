//! Drawing dialogs: pickers, inputs, confirmations, the write preview and a save's questions.

use super::*;
use crate::tui::app::{InputFor, range_preview};
use crate::tui::keymap::Keymap;

pub(super) fn picker_lines(picker: &Picker, keys: &Keymap, theme: &Theme) -> Vec<Line<'static>> {
    let k = |c| keys.hint(Layer::Picker, c);
    let mut lines = vec![
        Line::from(format!("filter: {}▏", picker.filter)),
        Line::from(""),
    ];
    for (i, o) in picker.shown().into_iter().enumerate() {
        let why = picker.why_greyed(o);
        let mut style = match why {
            Some(_) => theme.fg(Color::DarkGray),
            None => Style::default(),
        };
        if i == picker.selected {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let mark = match (picker.multi, picker.marked.contains(o)) {
            (false, _) => "",
            (true, true) => "[x] ",
            (true, false) => "[ ] ",
        };
        let mut spans = vec![Span::styled(format!("{mark}{o}"), style)];
        if let Some(why) = why {
            spans.push(Span::styled(
                format!("  ✗ {why}"),
                theme.fg(Color::DarkGray),
            ));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(""));
    if let Some(note) = &picker.note {
        lines.push(Line::from(Span::styled(
            format!("cannot choose {note}"),
            theme.fg(Color::Yellow),
        )));
    }
    let take = if picker.multi {
        format!(
            "{} marks · {} takes the marked{}",
            k(Command::Toggle),
            k(Command::Accept),
            if picker.none_ok {
                " (none is fine)"
            } else {
                " (or the highlighted)"
            }
        )
    } else {
        format!("{} continues", k(Command::Accept))
    };
    lines.push(Line::from(format!(
        "{}/{} choose · type to filter · {take} · {} cancels",
        k(Command::Up),
        k(Command::Down),
        k(Command::Cancel)
    )));
    lines
}

pub(super) fn dialog(m: &Model, d: &Dialog, f: &mut Frame, area: Rect, theme: &Theme) {
    let keys = &m.keymap;
    let (title, mut lines, scroll) = dialog_text(d, keys, theme);
    if let (Dialog::Input { text, then, .. }, Some(l)) = (d, m.loaded()) {
        // The skipRange being typed: what it matches, under the text.
        let preview = match then {
            InputFor::SkipRange {
                package,
                channel,
                entry,
            } => Some(range_preview(l, package, channel, Some(entry), text)),
            InputFor::PromoteRange {
                package, channel, ..
            } => Some(range_preview(l, package, channel, None, text)),
            _ => None,
        };
        for (i, p) in preview.into_iter().flatten().enumerate() {
            lines.insert(1 + i, Line::from(Span::styled(p, theme.fg(Color::Cyan))));
        }
    }
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

/// A dialog's title, its lines and how far they are scrolled.
type DialogText = (String, Vec<Line<'static>>, usize);

/// What a dialog shows: one arm per kind of dialog.
fn dialog_text(d: &Dialog, keys: &Keymap, theme: &Theme) -> DialogText {
    let yes = keys.hint(Layer::Dialog, Command::Confirm);
    match d {
        Dialog::Reload { why } => message(
            "nothing was written",
            [why.clone()],
            format!(
                "{yes} reloads the catalog from disk (the unsaved edits are dropped) · any other key keeps them"
            ),
        ),
        Dialog::SaveFailed { title, lines } => message(
            title,
            lines.iter().cloned(),
            "any key closes; the edits stay unsaved".into(),
        ),
        Dialog::ForceWrite { why } => message(
            "nothing was written",
            [why.clone()],
            format!("{yes} writes it anyway · any other key writes nothing"),
        ),
        Dialog::PickChannelForNew { bundle, picker } => (
            format!(
                "add {} to which channel of {}?",
                bundle["name"].as_str().unwrap_or(""),
                bundle["package"].as_str().unwrap_or("")
            ),
            picker_lines(picker, keys, theme),
            0,
        ),
        Dialog::PickChannel { bundle, picker, .. } => (
            format!("promote {bundle} into which channel?"),
            picker_lines(picker, keys, theme),
            0,
        ),
        Dialog::OpenUnsaved { file, files, .. } => message(
            "unsaved edits",
            [
                format!(
                    "{files} file{} unsaved edits. After the editor the catalog is read again from disk.",
                    if *files == 1 { " has" } else { "s have" }
                ),
                format!("Opening {file}."),
            ],
            format!(
                "{yes} write them first · {} keep them (applied again to what the editor leaves) · {} drop them · any other key stays",
                keys.hint(Layer::Dialog, Command::Keep),
                keys.hint(Layer::Dialog, Command::Discard)
            ),
        ),
        Dialog::QuitUnsaved => message(
            "unsaved edits",
            ["There are edits that are not written.".to_string()],
            format!(
                "{yes} quit without writing · any other key stays ({} writes)",
                keys.first_key(Layer::Tree, Command::Write)
            ),
        ),
        Dialog::Write { lines, scroll } => (
            format!(
                "write these changes? {yes} writes · {}/{} scroll · other keys cancel",
                keys.first_key(Layer::Dialog, Command::Down),
                keys.first_key(Layer::Dialog, Command::Up)
            ),
            preview_lines(lines, theme),
            *scroll,
        ),
        Dialog::Confirm { lines, invalid, .. } => message(
            "confirm",
            lines.iter().cloned(),
            format!(
                "{yes} apply{} · {} cancel",
                if *invalid { " anyway" } else { "" },
                keys.hint(Layer::Dialog, Command::Cancel)
            ),
        ),
        Dialog::Input { title, text, then } => {
            message(title, [format!("{text}▏")], input_keys(then, keys))
        }
        Dialog::PickBundle {
            channel, picker, ..
        } => (
            format!("promote which bundle into {channel}?"),
            picker_lines(picker, keys, theme),
            picker.selected.saturating_sub(8),
        ),
        Dialog::Pick { title, picker, .. } => (
            title.clone(),
            picker_lines(picker, keys, theme),
            picker.selected.saturating_sub(8),
        ),
    }
}

/// A message dialog, not scrolled: its lines of text, a blank line, then the keys to answer with.
fn message(title: &str, text: impl IntoIterator<Item = String>, answer: String) -> DialogText {
    let lines = text
        .into_iter()
        .map(Line::from)
        .chain([Line::from(""), Line::from(answer)])
        .collect();
    (title.to_string(), lines, 0)
}

/// The write preview: a unified diff with added lines green and removed lines red.
fn preview_lines(lines: &[String], theme: &Theme) -> Vec<Line<'static>> {
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
        .collect()
}

/// The keys of a text input; a bundle directory's path can also be completed.
fn input_keys(then: &crate::tui::app::InputFor, keys: &Keymap) -> String {
    let prompt = |c| keys.hint(Layer::Prompt, c);
    if *then == crate::tui::app::InputFor::AddBundleDir {
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
    }
}
