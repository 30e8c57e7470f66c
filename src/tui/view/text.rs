//! Fitting text into cells: word wrapping (with a hanging indent for key columns) and cutting a
//! name from the left, so the end of it (a version) stays in sight.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The display width of a text.
pub(crate) fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut from the left to at most `room` cells: `…` and its end (`…operator.v1.2.3`).
pub(crate) fn cut_left(s: &str, room: usize) -> String {
    if width(s) <= room {
        return s.to_string();
    }
    if room == 0 {
        return String::new();
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 1;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        tail.push(c);
    }
    std::iter::once('…').chain(tail.into_iter().rev()).collect()
}

/// `s` cut from the right to at most `room` cells, ending in `…` when it was cut.
pub(crate) fn cut_right(s: &str, room: usize) -> String {
    if width(s) <= room {
        return s.to_string();
    }
    if room == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 1;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// `text` wrapped at word boundaries into lines of at most `room` cells; a word longer than a line
/// is broken. Blank lines are kept; a line's leading spaces are kept on its first row.
pub(crate) fn wrap(text: &str, room: usize) -> Vec<String> {
    let room = room.max(1);
    let mut out = Vec::new();
    for line in text.split('\n') {
        if line.trim().is_empty() {
            out.push(String::new());
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let mut row = " ".repeat(width(&line[..indent]).min(room - 1));
        let mut row_w = width(&row);
        let mut has_word = false;
        for word in line[indent..].split(' ').filter(|w| !w.is_empty()) {
            let ww = width(word);
            let gap = usize::from(has_word);
            if row_w + gap + ww <= room {
                if has_word {
                    row.push(' ');
                }
                row.push_str(word);
                row_w += gap + ww;
                has_word = true;
                continue;
            }
            if has_word {
                out.push(std::mem::take(&mut row));
                row_w = 0;
            }
            has_word = true;
            // Break a word wider than a whole row.
            let mut rest = word;
            while width(rest) > room - row_w {
                let mut taken = 0;
                let mut end = 0;
                for (i, c) in rest.char_indices() {
                    let w = c.width().unwrap_or(0);
                    if row_w + taken + w > room {
                        break;
                    }
                    taken += w;
                    end = i + c.len_utf8();
                }
                if end == 0 {
                    break;
                }
                row.push_str(&rest[..end]);
                out.push(std::mem::take(&mut row));
                row_w = 0;
                rest = &rest[end..];
            }
            row.push_str(rest);
            row_w += width(rest);
        }
        out.push(row);
    }
    out
}

/// A key column and its text: the text wrapped beside the column, later rows indented under it.
pub(crate) fn hanging(
    key: &str,
    key_width: usize,
    text: &str,
    room: usize,
) -> Vec<(String, String)> {
    let key_width = key_width.max(width(key) + 1);
    let rows = wrap(text, room.saturating_sub(key_width).max(10));
    rows.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let k = if i == 0 { key } else { "" };
            (format!("{k:<key_width$}"), r)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_from_the_left_keeping_the_version() {
        assert_eq!(
            cut_left("multi-nic-cni-operator.v1.2.3", 16),
            "…operator.v1.2.3"
        );
        assert_eq!(cut_left("short", 16), "short");
        assert_eq!(cut_right("a long title", 7), "a long…");
    }

    #[test]
    fn wrapping_keeps_every_word_and_breaks_long_ones() {
        let text = "templates: show the next template's rendering (edits go to every template)";
        let rows = wrap(text, 30);
        assert!(rows.iter().all(|r| width(r) <= 30), "{rows:?}");
        assert_eq!(rows.join(" "), text);
        let rows = wrap("quay.io/openshift-community-operators/kube-rbac-proxy", 20);
        assert_eq!(
            rows.concat(),
            "quay.io/openshift-community-operators/kube-rbac-proxy"
        );
        assert!(rows.iter().all(|r| width(r) <= 20), "{rows:?}");
        assert_eq!(wrap("a\n\nb", 10), ["a", "", "b"]);
    }

    #[test]
    fn a_hanging_indent_lines_up_under_the_text() {
        let rows = hanging("T", 4, "show the next template's rendering", 20);
        assert_eq!(rows[0].0, "T   ");
        assert!(rows[1..].iter().all(|(k, _)| k == "    "));
        assert!(rows.len() > 1);
    }
}
