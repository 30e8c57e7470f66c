//! The command palette while it is open: a panel over the bottom of the screen with the text being
//! typed, and under it what the palette takes (wrapped) or, after Tab on an empty or ambiguous
//! text, the names it could become, each with what it does.

use super::block;
use super::text::{hanging, width, wrap};
use crate::theme::{Role, Theme};
use crate::tui::app::{LineInput, Model, candidates, palette_hint};
use crate::tui::keymap::{Command, Layer};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// The widest the name column gets; longer names push their description to the next row.
const NAME_COLUMN: usize = 28;

pub(super) fn palette(m: &Model, input: &LineInput, f: &mut Frame, area: Rect, theme: &Theme) {
    let text = input.text();
    let room = usize::from(area.width.saturating_sub(2)).max(1);
    let tab = m.keymap.hint(Layer::Prompt, Command::Complete);
    let mut first = vec![Span::raw(":")];
    first.extend(super::line_spans(input, theme));
    let mut rows = vec![Line::from(first)];
    let mut listed = 0;
    if m.palette_list {
        let options = candidates(m.loaded(), text);
        listed = options.len();
        if options.is_empty() {
            rows.extend(
                wrap(
                    &format!("nothing the palette runs starts with {text:?}"),
                    room,
                )
                .into_iter()
                .map(|r| Line::from(Span::styled(r, theme.fg(Color::Yellow)))),
            );
        }
        let column = options
            .iter()
            .map(|(n, _)| width(n) + 2)
            .max()
            .unwrap_or(0)
            .min(NAME_COLUMN);
        for (name, desc) in &options {
            let pieces = if width(name) + 2 > column {
                let mut p = vec![(name.clone(), String::new())];
                p.extend(hanging("", column, desc, room));
                p
            } else {
                hanging(name, column, desc, room)
            };
            for (key, d) in pieces {
                rows.push(Line::from(vec![
                    Span::styled(key, theme.role(Role::Key)),
                    Span::raw(d),
                ]));
            }
        }
    } else {
        let hint = format!(
            "{tab} completes, or lists what the text can become: {}",
            palette_hint()
        );
        rows.extend(wrap(&hint, room).into_iter().map(Line::from));
    }
    let most = (area.height.saturating_mul(2) / 3).max(4);
    let h = (rows.len() as u16 + 2).min(most).min(area.height);
    let rect = Rect::new(area.x, area.bottom().saturating_sub(h), area.width, h);
    let visible = usize::from(h.saturating_sub(2));
    let title = format!(
        "command · {} runs · {} closes",
        m.keymap.hint(Layer::Prompt, Command::Accept),
        m.keymap.hint(Layer::Prompt, Command::Cancel)
    );
    let mut b = block(&title, true, theme);
    if rows.len() > visible {
        let hidden = rows.len() - visible;
        let more = if listed > 0 {
            format!(" ↓ {hidden} more rows · type to narrow ")
        } else {
            format!(" ↓ {hidden} more rows ")
        };
        b = b.title_bottom(Line::from(Span::styled(more, theme.fg(Color::Yellow))).right_aligned());
    }
    f.render_widget(Clear, rect);
    f.render_widget(Paragraph::new(rows).block(b), rect);
}
