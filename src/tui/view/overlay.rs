//! What is drawn over everything: the help of the focused pane and the message viewer (a problem
//! or the status line's last message in full). Both are sized to the terminal, their text wrapped,
//! and scroll when it is taller than the screen.

use super::text::{hanging, wrap};
use super::{block, diff_help, pane_help};
use crate::theme::{Role, Theme};
use crate::tui::app::{Dialog, Model, Overlay, Pane};
use crate::tui::keymap::{Command, Layer};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// The widest the help gets; the message viewer is narrower, for reading.
const HELP_WIDTH: u16 = 120;
const MESSAGE_WIDTH: u16 = 100;
/// The key column of the help.
const KEY_COLUMN: usize = 18;

/// An overlay laid out for a terminal: its title, its rows (wrapped), where it goes and how many
/// rows show.
struct Laid {
    title: String,
    rows: Vec<Line<'static>>,
    rect: Rect,
    visible: usize,
}

fn popup(area: Rect, widest: u16) -> u16 {
    if area.width > 24 {
        area.width.saturating_sub(4).min(widest)
    } else {
        area.width
    }
}

fn lay(m: &Model, overlay: &Overlay, area: Rect, theme: &Theme) -> Laid {
    let widest = match overlay {
        Overlay::Help => HELP_WIDTH,
        Overlay::Message { .. } => MESSAGE_WIDTH,
    };
    let w = popup(area, widest);
    let room = usize::from(w.saturating_sub(2)).max(1);
    let (title, rows) = match overlay {
        Overlay::Help => help_rows(m, room, theme),
        Overlay::Message { title, lines } => (
            format!(
                "{title} · {} closes",
                m.keymap.hint(Layer::Help, Command::Back)
            ),
            lines
                .iter()
                .flat_map(|l| wrap(l, room))
                .map(Line::from)
                .collect(),
        ),
    };
    // A row free above and below (the footer says how to close and scroll) when there is room.
    let tallest = if area.height > 10 {
        area.height - 2
    } else {
        area.height
    };
    let h = (rows.len() as u16 + 2).min(tallest).max(tallest.min(3));
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    Laid {
        title,
        rows,
        rect,
        visible: usize::from(h.saturating_sub(2)),
    }
}

/// The help's rows: what the pane (or the diff viewer) shows, then each command with its keys, its
/// description wrapped beside the key column.
fn help_rows(m: &Model, room: usize, theme: &Theme) -> (String, Vec<Line<'static>>) {
    let diff = matches!(m.dialog, Some(Dialog::Write { .. }));
    let layer = match m.focus {
        _ if diff => Layer::Diff,
        Pane::Tree => Layer::Tree,
        Pane::Graph => Layer::Graph,
        Pane::Details => Layer::Details,
        Pane::Problems => Layer::Problems,
    };
    let k = |c| m.keymap.keys(layer, c);
    let (pane, about) = if diff {
        diff_help(k)
    } else {
        pane_help(m.focus, k)
    };
    let mut rows: Vec<Line<'static>> = wrap(pane, room)
        .into_iter()
        .map(|r| Line::from(Span::styled(r, theme.focus(true))))
        .collect();
    rows.extend(about.iter().flat_map(|a| wrap(a, room)).map(Line::from));
    rows.push(Line::from(""));
    for (_, keys, desc) in m.keymap.commands(layer) {
        for (key, text) in hanging(&keys, KEY_COLUMN, desc, room) {
            rows.push(Line::from(vec![
                Span::styled(key, theme.role(Role::Key)),
                Span::raw(text),
            ]));
        }
    }
    let title = format!(
        "help · {} closes",
        m.keymap.hint(Layer::Help, Command::Back)
    );
    (title, rows)
}

/// The help or the message viewer over everything.
pub(super) fn overlay(m: &Model, overlay: &Overlay, f: &mut Frame, area: Rect, theme: &Theme) {
    let laid = lay(m, overlay, area, theme);
    let max = laid.rows.len().saturating_sub(laid.visible);
    let scroll = m.help_scroll.min(max);
    let mut b = block(&laid.title, true, theme);
    let below = max - scroll;
    if scroll > 0 || below > 0 {
        let keys = format!(
            "{}/{} scroll",
            m.keymap.first_key(Layer::Help, Command::Down),
            m.keymap.first_key(Layer::Help, Command::Up)
        );
        let more = match (scroll, below) {
            (0, b) => format!(" ↓ {b} more · {keys} "),
            (a, 0) => format!(" ↑ {a} more · {keys} "),
            (a, b) => format!(" ↑ {a} ↓ {b} more · {keys} "),
        };
        b = b.title_bottom(Line::from(Span::styled(more, theme.fg(Color::Yellow))).right_aligned());
    }
    f.render_widget(Clear, laid.rect);
    f.render_widget(
        Paragraph::new(laid.rows)
            .block(b)
            .scroll((scroll as u16, 0)),
        laid.rect,
    );
}

/// How far the overlay on top can scroll on the terminal as it is now (0: it fits).
pub(crate) fn overlay_scroll_max(m: &Model) -> usize {
    let Some(o) = &m.overlay else { return 0 };
    // Styles do not change sizes.
    let laid = lay(m, o, m.size, &Theme::plain());
    laid.rows.len().saturating_sub(laid.visible)
}
