//! Drawing dialogs: pickers, inputs, confirmations and a save's questions, each sized to its text
//! with its answer line kept at the bottom (the write preview is `diff.rs`'s).

use super::{block, centered};
use crate::theme::Theme;
use crate::tui::app::{Dialog, LineInput, Model, Picker};
use crate::tui::app::{InputFor, range_preview};
use crate::tui::keymap::Keymap;
use crate::tui::keymap::{Command, Layer};
use ratatui::Frame;
use ratatui::layout::Layout as Split;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

/// A picker: the filter, its options with the choice kept in view (greyed-out ones with their
/// reason, marked ones ticked), and the keys.
fn picker_text(title: String, picker: &Picker, keys: &Keymap, theme: &Theme) -> DialogText {
    let k = |c| keys.hint(Layer::Picker, c);
    let mut filter = vec![Span::raw("filter: ")];
    filter.extend(super::line_spans(&picker.filter, theme));
    let mut lines = vec![Line::from(filter), Line::from("")];
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
    let answer = Line::from(format!(
        "{}/{} choose · type to filter · {take} · {} cancels",
        k(Command::Up),
        k(Command::Down),
        k(Command::Cancel)
    ));
    DialogText {
        title,
        body: lines,
        answer: vec![answer],
        // The filter and a blank line come before the options.
        scroll: Scroll::Show(picker.selected + 2),
    }
}

pub(super) fn dialog(m: &Model, d: &Dialog, f: &mut Frame, area: Rect, theme: &Theme) {
    if let Dialog::Write { view } = d {
        super::diff::diff_view(m, view, f, theme);
        return;
    }
    let (text, g) = geometry(d, m, area, theme);
    f.render_widget(Clear, g.rect);
    let mut block = block(&text.title, true, theme);
    let below = g.body_rows.saturating_sub(g.scroll + g.visible);
    if g.scroll > 0 || below > 0 {
        let keys = match text.scroll {
            Scroll::Model => format!(
                " · {}/{} scroll",
                m.keymap.first_key(Layer::Dialog, Command::Down),
                m.keymap.first_key(Layer::Dialog, Command::Up)
            ),
            _ => String::new(),
        };
        let more = match (g.scroll, below) {
            (0, b) => format!(" ↓ {b} more{keys} "),
            (a, 0) => format!(" ↑ {a} more{keys} "),
            (a, b) => format!(" ↑ {a} ↓ {b} more{keys} "),
        };
        block = block
            .title_bottom(Line::from(Span::styled(more, theme.fg(Color::Yellow))).right_aligned());
    }
    let inner = block.inner(g.rect);
    f.render_widget(block, g.rect);
    let [body, answer] =
        Split::vertical([Constraint::Length(g.visible as u16), Constraint::Fill(1)]).areas(inner);
    f.render_widget(
        Paragraph::new(text.body)
            .wrap(Wrap { trim: false })
            .scroll((g.scroll as u16, 0)),
        body,
    );
    f.render_widget(
        Paragraph::new(text.answer).wrap(Wrap { trim: false }),
        answer,
    );
}

/// How far a dialog of the dialog layer can scroll on the terminal as it is now (0: it fits).
pub(crate) fn dialog_scroll_max(m: &Model) -> usize {
    let Some(d) = &m.dialog else { return 0 };
    // Styles do not change sizes.
    let (_, g) = geometry(d, m, m.size, &Theme::plain());
    g.body_rows.saturating_sub(g.visible)
}

/// Where a popup goes and how its text fits: its body's wrapped rows, the rows of it shown, and
/// how far it is scrolled.
struct Geometry {
    rect: Rect,
    body_rows: usize,
    visible: usize,
    scroll: usize,
}

/// Sized to the text as wrapped at the popup's width, so the answer line (kept at the bottom)
/// always shows; when the terminal is too short, the body scrolls above it.
fn geometry(d: &Dialog, m: &Model, area: Rect, theme: &Theme) -> (DialogText, Geometry) {
    let width = if area.width > 30 {
        area.width.saturating_sub(8).min(110)
    } else {
        area.width
    };
    let inner = width.saturating_sub(2).max(1);
    let text = title_into_body(dialog_text(d, m, theme), usize::from(inner));
    let rows = |lines: &[Line<'static>]| {
        Paragraph::new(lines.to_vec())
            .wrap(Wrap { trim: false })
            .line_count(inner)
    };
    let (body_rows, answer_rows) = (rows(&text.body), rows(&text.answer));
    let room = area.height.saturating_sub(2).max(3) as usize;
    let h = (body_rows + answer_rows + 2).min(room);
    let visible = h.saturating_sub(answer_rows + 2);
    let max = body_rows.saturating_sub(visible);
    let scroll = match text.scroll {
        Scroll::Model => m.dialog_scroll,
        Scroll::Show(row) => (row + 1).saturating_sub(visible),
        Scroll::End => max,
    }
    .min(max);
    let rect = centered(area, width, h as u16);
    (
        text,
        Geometry {
            rect,
            body_rows,
            visible,
            scroll,
        },
    )
}

/// How a dialog's body is scrolled: by the model (the dialog layer's motion keys), to keep a row
/// in view (a picker's choice), or to its end (the text being typed).
enum Scroll {
    Model,
    Show(usize),
    End,
}

/// A dialog's title, its body, the answer line kept at the bottom, and how the body scrolls.
struct DialogText {
    title: String,
    body: Vec<Line<'static>>,
    answer: Vec<Line<'static>>,
    scroll: Scroll,
}

/// What a dialog shows: one arm per kind of dialog.
fn dialog_text(d: &Dialog, m: &Model, theme: &Theme) -> DialogText {
    let keys = &m.keymap;
    let yes = keys.hint(Layer::Dialog, Command::Confirm);
    match d {
        Dialog::Reload { why } => message(
            "nothing was written",
            [why.clone()],
            format!(
                "{yes} reads it again and applies the unsaved edits again · {} reads it again without them · any other key keeps them (:reload later)",
                keys.hint(Layer::Dialog, Command::Discard)
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
        Dialog::PickChannelForNew { bundle, picker } => picker_text(
            format!(
                "add {} to which channel of {}?",
                bundle["name"].as_str().unwrap_or(""),
                bundle["package"].as_str().unwrap_or("")
            ),
            picker,
            keys,
            theme,
        ),
        Dialog::PickChannel { bundle, picker, .. } => picker_text(
            format!("promote {bundle} into which channel?"),
            picker,
            keys,
            theme,
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
            [m.loaded().map_or_else(
                || "There are edits that are not written.".to_string(),
                |l| {
                    format!(
                        "There are edits that are not written ({}).",
                        fbc_core::text::plural(l.dirty.len(), "file", "files")
                    )
                },
            )],
            format!(
                "{} write and quit · {} discard the edits and quit · {} or any other key stays",
                keys.hint(Layer::Dialog, Command::Write),
                keys.hint(Layer::Dialog, Command::Discard),
                "Esc"
            ),
        ),
        // Drawn by the diff viewer.
        Dialog::Write { .. } => message("", [], String::new()),
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
            let mut t = DialogText {
                scroll: Scroll::End,
                ..message(title, Vec::new(), input_keys(text, then, keys))
            };
            t.body.insert(0, Line::from(super::line_spans(text, theme)));
            // The skipRange being typed: what it matches, under the text, which stays in view.
            let preview = input_preview(m, text, then);
            if !preview.is_empty() {
                t.scroll = Scroll::Show(0);
            }
            for (i, p) in preview.into_iter().enumerate() {
                t.body
                    .insert(1 + i, Line::from(Span::styled(p, theme.fg(Color::Cyan))));
            }
            t
        }
        Dialog::PickBundle {
            channel, picker, ..
        } => picker_text(
            format!("promote which bundle into {channel}?"),
            picker,
            keys,
            theme,
        ),
        Dialog::Pick { title, picker, .. } => picker_text(title.clone(), picker, keys, theme),
    }
}

/// A title keeps only what the dialog asks: what it says in brackets (how to answer, what the
/// default is) opens the body, wrapped, and a title still wider than the border
/// opens it whole (the border shows it cut).
fn title_into_body(mut text: DialogText, room: usize) -> DialogText {
    let mut opening = Vec::new();
    if text.title.ends_with(')')
        && let Some(at) = text.title.rfind(" (")
    {
        // Kept as written (`manifests/ and metadata/` must not become `Manifests/`).
        let mut sentence = text.title[at + 2..text.title.len() - 1].to_string();
        text.title.truncate(at);
        if !sentence.ends_with(['.', '?', '!']) {
            sentence.push('.');
        }
        opening.push(sentence);
    }
    // Two cells of border and a space each side of the title.
    if super::text::width(&text.title) + 4 > room + 2 {
        opening.insert(0, text.title.clone());
        text.title = super::text::cut_right(&text.title, room.saturating_sub(2));
    }
    if opening.is_empty() {
        return text;
    }
    let added = opening.len() + 1;
    let mut body: Vec<Line<'static>> = opening.into_iter().map(Line::from).collect();
    body.push(Line::from(""));
    body.append(&mut text.body);
    text.body = body;
    text.scroll = match text.scroll {
        Scroll::Show(row) => Scroll::Show(row + added),
        other => other,
    };
    text
}

/// A message dialog: its lines of text and a blank line, then the keys to answer with.
fn message(title: &str, text: impl IntoIterator<Item = String>, answer: String) -> DialogText {
    let body = text
        .into_iter()
        .map(Line::from)
        .chain([Line::from("")])
        .collect();
    DialogText {
        title: title.to_string(),
        body,
        answer: vec![Line::from(answer)],
        scroll: Scroll::Model,
    }
}

/// The keys of a text input; a bundle directory's path can also be completed, and a value offered
/// taken.
fn input_keys(text: &LineInput, then: &InputFor, keys: &Keymap) -> String {
    let prompt = |c| keys.hint(Layer::Prompt, c);
    if text.hint().is_some() && text.is_empty() {
        format!(
            "{} continues with none · {} takes the one offered · {} cancels",
            prompt(Command::Accept),
            prompt(Command::Complete),
            prompt(Command::Cancel)
        )
    } else if *then == InputFor::AddBundleDir {
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

/// What a skipRange being typed matches, for the lines under it (nothing for other inputs).
fn input_preview(m: &Model, text: &str, then: &InputFor) -> Vec<String> {
    let Some(l) = m.loaded() else {
        return Vec::new();
    };
    match then {
        InputFor::SkipRange {
            package,
            channel,
            entry,
        } => range_preview(l, package, channel, Some(entry), text),
        InputFor::PromoteRange {
            package, channel, ..
        } => range_preview(l, package, channel, None, text),
        _ => Vec::new(),
    }
}
