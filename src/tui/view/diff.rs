//! Drawing the write preview's diff viewer: file headers with their counts, hunk headers, and
//! lines cut to the width with `…` (never wrapped), with the cursor and search matches marked; the
//! whole line under the cursor in a popup. Only the rows on screen are looked at, and of each only
//! as many characters as fit, so a line of hundreds of kilobytes costs what a short one does.

use super::block;
use crate::theme::{Role, Theme};
use crate::tui::app::Model;
use crate::tui::diffview::{self, DiffView, Row, RowKind, find_all};
use crate::tui::keymap::{Command, Layer};
use ratatui::Frame;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Clear;
use unicode_width::UnicodeWidthChar;

/// The columns before a line's text: the cursor mark, old and new line numbers, and the sign.
const GUTTER: usize = 14;

pub(super) fn diff_view(m: &Model, v: &DiffView, f: &mut Frame, theme: &Theme) {
    let area = diffview::area(f.area());
    let keys = &m.keymap;
    let (added, removed) = v
        .files()
        .iter()
        .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
    let title = format!(
        "write {}? +{added} −{removed} · {} writes · {} closes · {} help",
        fbc_core::text::plural(v.files().len(), "file", "files"),
        keys.hint(Layer::Diff, Command::Confirm),
        keys.hint(Layer::Diff, Command::Cancel),
        keys.hint(Layer::Diff, Command::Help),
    );
    let block = block(&title, true, theme).title_bottom(Line::from(Span::styled(
        format!(" {} ", where_line(v)),
        theme.role(Role::Notice),
    )));
    let inner = block.inner(area);
    f.render_widget(Clear, area);
    f.render_widget(block, area);
    let query = v.query.as_deref().filter(|_| !v.matches.is_empty());
    let buf = f.buffer_mut();
    for (y, i) in (v.top..v.rows().len())
        .take(inner.height as usize)
        .enumerate()
    {
        let line = row_line(v, i, inner.width as usize, query, theme);
        buf.set_line(inner.x, inner.y + y as u16, &line, inner.width);
    }
    if v.whole.is_some() {
        whole_line(m, v, f, theme);
    }
}

/// The bottom line: where the cursor is, and what the last key said or the search being typed.
fn where_line(v: &DiffView) -> String {
    let rows = v.rows();
    let of = |list: &[usize]| {
        let i = list.partition_point(|&r| r <= v.cursor);
        format!("{i}/{}", list.len())
    };
    let files: Vec<usize> = v.files().iter().map(|f| f.row).collect();
    let mut s = format!(
        "row {}/{} · hunk {} · file {}",
        (v.cursor + 1).min(rows.len()),
        rows.len(),
        of(v.hunks()),
        of(&files)
    );
    if let Some(t) = &v.typing {
        let (before, after) = t.split();
        s.push_str(&format!(" · /{before}▏{after}"));
    } else if let Some(n) = &v.note {
        s.push_str(&format!(" · {n}"));
    }
    s
}

/// One row of the diff as drawn, `width` columns at most.
fn row_line(
    v: &DiffView,
    i: usize,
    width: usize,
    query: Option<&str>,
    theme: &Theme,
) -> Line<'static> {
    let row = &v.rows()[i];
    let cursor = i == v.cursor;
    let mark = Span::styled(
        if cursor { "▶" } else { " " },
        theme.role(Role::Key).add_modifier(Modifier::BOLD),
    );
    let mut spans = vec![mark];
    let text = v.text(row);
    match row.kind {
        RowKind::File => {
            let f = &v.files()[row.file];
            let head = format!(" {text} ");
            let (shown, _) = cut(&head, width.saturating_sub(1));
            spans.push(Span::styled(
                shown.to_string(),
                theme.role(Role::Key).add_modifier(Modifier::BOLD),
            ));
            let counts = format!(
                "{}+{} −{} ",
                if f.created { "new file · " } else { "" },
                f.added,
                f.removed
            );
            spans.push(Span::styled(counts, theme.role(Role::Notice)));
            let used: usize = spans.iter().map(|s| s.width()).sum();
            spans.push(Span::styled(
                "─".repeat(width.saturating_sub(used)),
                theme.role(Role::Key),
            ));
        }
        RowKind::Hunk | RowKind::Note => {
            let (shown, more) = cut(text, width.saturating_sub(1));
            let style = if row.kind == RowKind::Hunk {
                theme.role(Role::Deprecated)
            } else {
                theme.role(Role::Muted)
            };
            spans.push(Span::styled(ellipsis(shown, more), style));
        }
        _ => spans.extend(body_spans(row, text, width, query, theme)),
    }
    let mut line = Line::from(spans);
    if cursor && theme.color {
        line = line.style(
            Style::default()
                .add_modifier(Modifier::BOLD)
                .bg(theme.color(Role::Cursor)),
        );
    }
    line
}

/// A context, added or removed line: its numbers, its sign and its text cut to fit, with the
/// search's matches in the part shown marked.
fn body_spans(
    row: &Row,
    text: &str,
    width: usize,
    query: Option<&str>,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let num = |n: u32| {
        if n == 0 { String::new() } else { n.to_string() }
    };
    let (sign, style) = match row.kind {
        RowKind::Added => ("+", theme.role(Role::Added)),
        RowKind::Removed => ("-", theme.role(Role::Removed)),
        _ => (" ", Style::default()),
    };
    let mut spans = vec![
        Span::styled(
            format!("{:>5} {:>5} ", num(row.old), num(row.new)),
            theme.role(Role::Muted),
        ),
        Span::styled(sign, style),
    ];
    let (shown, more) = cut(text, width.saturating_sub(GUTTER));
    let mut at = 0;
    let hit = Style::default().add_modifier(Modifier::REVERSED | Modifier::UNDERLINED);
    for r in query.map_or_else(Vec::new, |q| find_all(shown, q)) {
        spans.push(Span::styled(shown[at..r.start].to_string(), style));
        spans.push(Span::styled(shown[r.clone()].to_string(), style.patch(hit)));
        at = r.end;
    }
    spans.push(Span::styled(ellipsis(&shown[at..], more), style));
    spans
}

/// `text` with `…` after it when it was cut.
fn ellipsis(text: &str, cut: bool) -> String {
    if cut {
        format!("{text}…")
    } else {
        text.to_string()
    }
}

/// As much of `text` as fits in `width` columns: all of it, or a prefix leaving a column for `…`
/// (and whether it was cut). Looks at no more than `width + 1` characters; tabs count as a column.
fn cut(text: &str, width: usize) -> (&str, bool) {
    let mut used = 0;
    let mut keep = 0;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(1);
        if used + w > width {
            return (&text[..keep], true);
        }
        used += w;
        if used < width {
            keep = i + c.len_utf8();
        }
    }
    (text, false)
}

/// The whole line under the cursor, wrapped, in a popup over the diff; only its rows on screen
/// are drawn.
fn whole_line(m: &Model, v: &DiffView, f: &mut Frame, theme: &Theme) {
    let Some(w) = &v.whole else { return };
    let Some(row) = v.rows().get(w.row) else {
        return;
    };
    let area = diffview::whole_area(f.area());
    let path = v.files().get(row.file).map_or("", |f| f.path.as_str());
    let line = match (row.new, row.old) {
        (0, 0) => String::new(),
        (0, old) => format!(" line {old} (old)"),
        (new, _) => format!(" line {new}"),
    };
    let title = format!(
        "{path}{line} · {} bytes · {}/{} scroll · {} closes",
        row.text.len(),
        m.keymap.first_key(Layer::Diff, Command::Down),
        m.keymap.first_key(Layer::Diff, Command::Up),
        m.keymap.hint(Layer::Diff, Command::Cancel)
    );
    let rows = w.starts.len();
    let block = block(&title, true, theme).title_bottom(Line::from(Span::styled(
        format!(
            " rows {}–{} of {rows} ",
            w.scroll + 1,
            (w.scroll + diffview::whole_size(f.area()).1).min(rows)
        ),
        theme.role(Role::Notice),
    )));
    let inner = block.inner(area);
    f.render_widget(Clear, area);
    f.render_widget(block, area);
    let buf = f.buffer_mut();
    for y in 0..(inner.height as usize).min(rows.saturating_sub(w.scroll)) {
        let text = v.whole_row(w.scroll + y);
        buf.set_stringn(
            inner.x,
            inner.y + y as u16,
            text,
            inner.width as usize,
            Style::default(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_leaves_room_for_the_ellipsis_and_keeps_what_fits() {
        assert_eq!(cut("abcdef", 6), ("abcdef", false));
        assert_eq!(cut("abcdefg", 6), ("abcde", true));
        assert_eq!(cut("日本語です", 6), ("日本", true));
        assert_eq!(cut("", 0), ("", false));
    }
}
