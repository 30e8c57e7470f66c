//! Positions: the protocol counts UTF-16 code units on 0-based lines, the engine characters on
//! 1-based lines and bytes in files. A [`Lines`] over a text converts between them.

use lsp_types::{Position, Range};

/// Where each line of a text starts.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(memchr_iter(text).map(|i| i + 1));
        Lines { text, starts }
    }

    /// The text of 0-based line `line`, without its line break.
    pub fn line(&self, line: usize) -> &'t str {
        let Some(&start) = self.starts.get(line) else {
            return "";
        };
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |&e| e - 1);
        let s = &self.text[start..end];
        s.strip_suffix('\r').unwrap_or(s)
    }

    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The position of byte `offset` (clamped to the text, and back to a character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col = self.text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum::<usize>();
        Position::new(line as u32, col as u32)
    }

    /// The byte offset of a position (a column past the line's end is its end; a line past the
    /// text's end is the text's end).
    pub fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else {
            return self.text.len();
        };
        let line = self.line(p.line as usize);
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= p.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }

    /// The position of 1-based line `line`, 1-based character column `col` (0 is the line's first
    /// non-blank character).
    pub fn at_char(&self, line: u32, col: u32) -> Position {
        let l = line.saturating_sub(1) as usize;
        let text = self.line(l);
        let units = if col == 0 {
            let blank = text.len() - text.trim_start().len();
            text[..blank].chars().map(char::len_utf16).sum()
        } else {
            text.chars()
                .take(col as usize - 1)
                .map(char::len_utf16)
                .sum::<usize>()
        };
        Position::new(l as u32, units as u32)
    }

    /// The range a problem at 1-based `line`, `col` marks: from there to the end of the line's
    /// text (the whole file's first line when `line` is 0).
    pub fn problem_range(&self, line: u32, col: u32) -> Range {
        if line == 0 {
            return Range::new(Position::new(0, 0), Position::new(0, 0));
        }
        let start = self.at_char(line, col);
        let text = self.line(start.line as usize).trim_end();
        let end_units: usize = text.chars().map(char::len_utf16).sum();
        let end = Position::new(start.line, (end_units as u32).max(start.character));
        Range::new(start, end)
    }

    /// The range of bytes `start..end`.
    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }
}

fn memchr_iter(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i)
}

/// Applies one change an editor sent (a range and its new text, or the whole text).
pub fn apply_change(text: &mut String, range: Option<Range>, new: &str) {
    match range {
        None => {
            text.clear();
            text.push_str(new);
        }
        Some(r) => {
            let lines = Lines::new(text);
            let (a, b) = (lines.offset(r.start), lines.offset(r.end));
            let (a, b) = (a.min(b), a.max(b));
            text.replace_range(a..b, new);
        }
    }
}

/// The edits that turn `old` into `new`, whole lines at a time, each placed in `old`.
pub fn line_edits(old: &str, new: &str) -> Vec<lsp_types::TextEdit> {
    use similar::{DiffTag, TextDiff};
    let diff = TextDiff::from_lines(old, new);
    let lines = Lines::new(old);
    let old_starts = line_starts(old);
    let new_starts = line_starts(new);
    let mut out = Vec::new();
    for op in diff.ops() {
        if op.tag() == DiffTag::Equal {
            continue;
        }
        let (o, n) = (op.old_range(), op.new_range());
        let at = |starts: &[usize], i: usize, len: usize| starts.get(i).copied().unwrap_or(len);
        let (a, b) = (
            at(&old_starts, o.start, old.len()),
            at(&old_starts, o.end, old.len()),
        );
        let (c, d) = (
            at(&new_starts, n.start, new.len()),
            at(&new_starts, n.end, new.len()),
        );
        out.push(lsp_types::TextEdit::new(
            lines.range(a, b),
            new[c..d].to_string(),
        ));
    }
    out
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr_iter(text).map(|i| i + 1).filter(|&i| i < text.len()));
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let t = "a: é😀x\nb: c\n";
        let l = Lines::new(t);
        let x = t.find('x').unwrap();
        assert_eq!(l.position(x), Position::new(0, 6));
        assert_eq!(l.offset(Position::new(0, 6)), x);
        assert_eq!(l.offset(Position::new(1, 99)), t.len() - 1);
        assert_eq!(l.offset(Position::new(9, 0)), t.len());
        assert_eq!(l.at_char(1, 6), Position::new(0, 6));
        assert_eq!(l.problem_range(2, 0).end, Position::new(1, 4));
    }

    #[test]
    fn changes_apply_and_line_edits_rebuild_the_new_text() {
        let mut t = String::from("one\ntwo\nthree\n");
        apply_change(
            &mut t,
            Some(Range::new(Position::new(1, 0), Position::new(1, 3))),
            "2",
        );
        assert_eq!(t, "one\n2\nthree\n");
        for (old, new) in [
            ("a\nb\nc\n", "a\nB\nc\nd\n"),
            ("a\nb", "a\nb\nc"),
            ("x\n", ""),
            ("", "y\n"),
        ] {
            let mut rebuilt = old.to_string();
            // Applied from the last edit back, as an editor does.
            for e in line_edits(old, new).into_iter().rev() {
                apply_change(&mut rebuilt, Some(e.range), &e.new_text);
            }
            assert_eq!(rebuilt, new, "{old:?} -> {new:?}");
        }
    }
}
