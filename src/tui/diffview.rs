//! The write preview's diff viewer: a unified diff read once into files, hunks and lines, and the
//! pure moves over it (a line cursor, pages, hunk and file jumps, search, the whole line under the
//! cursor wrapped in a popup). No drawing here: `view/diffview.rs` draws what this holds, and only
//! the rows on screen.

use std::ops::Range;

use ratatui::layout::Rect;
use unicode_width::UnicodeWidthChar;

/// What a row of the viewer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A file's header: its path (the `---`/`+++` pair of the diff).
    File,
    /// A hunk's `@@ -a,b +c,d @@` line.
    Hunk,
    Context,
    Added,
    Removed,
    /// `\ No newline at end of file`, or a line the diff format does not explain.
    Note,
}

/// One row: its kind, where its text is in the diff (without the `+`/`-`/` ` prefix), its line
/// numbers on the old and new side (0: none) and the file it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub kind: RowKind,
    pub text: Range<usize>,
    pub old: u32,
    pub new: u32,
    pub file: usize,
}

/// A file of the diff: its path, the lines it adds and removes, and its header row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffFile {
    pub path: String,
    pub added: usize,
    pub removed: usize,
    pub row: usize,
    /// A new file (the old side is `/dev/null`).
    pub created: bool,
}

/// The whole of one line, wrapped at the popup's width: where each wrapped row starts in the diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeLine {
    pub row: usize,
    /// The width it was wrapped at.
    pub width: usize,
    /// Byte offsets into the diff where each wrapped row starts; the last row ends at the line's end.
    pub starts: Vec<usize>,
    pub scroll: usize,
}

/// The diff, read once, and where the viewer is in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffView {
    text: String,
    rows: Vec<Row>,
    files: Vec<DiffFile>,
    /// The rows of hunk headers, in order.
    hunks: Vec<usize>,
    pub cursor: usize,
    /// The first row on screen.
    pub top: usize,
    /// The search being typed (`/`), shown at the bottom.
    pub typing: Option<crate::tui::line::LineInput>,
    /// The last search made, and the rows it matches.
    pub query: Option<String>,
    pub matches: Vec<usize>,
    /// The whole line under the cursor, when shown.
    pub whole: Option<WholeLine>,
    /// What the last key did, when it says something (`match 2 of 5`, `no next hunk`).
    pub note: Option<String>,
}

/// Where `query` is in `haystack`: ignoring case unless the query has a capital letter.
pub fn find(haystack: &str, query: &str) -> Option<usize> {
    if query.is_empty() {
        return None;
    }
    if query.chars().any(char::is_uppercase) {
        haystack.find(query)
    } else if query.is_ascii() {
        // An ASCII match starts on an ASCII byte, so always at a character boundary.
        let q = query.as_bytes();
        haystack
            .as_bytes()
            .windows(q.len())
            .position(|w| w.eq_ignore_ascii_case(q))
    } else {
        // Lower-casing can change lengths: compare character by character from each start.
        let q: Vec<char> = query.chars().flat_map(char::to_lowercase).collect();
        haystack.char_indices().map(|(i, _)| i).find(|&i| {
            let mut h = haystack[i..].chars().flat_map(char::to_lowercase);
            q.iter().all(|c| h.next() == Some(*c))
        })
    }
}

/// Every place `query` is in `haystack`, as byte ranges (for highlighting what is on screen).
pub fn find_all(haystack: &str, query: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = haystack.get(at..).and_then(|h| find(h, query)) {
        let start = at + i;
        // The match's length in the haystack: as many characters as the query has.
        let len: usize = haystack[start..]
            .chars()
            .take(query.chars().count())
            .map(char::len_utf8)
            .sum();
        out.push(start..start + len);
        at = start + len.max(1);
    }
    out
}

/// `-a,b +c,d` of a hunk header: the first old and new line numbers and the line counts.
fn hunk_numbers(line: &str) -> Option<(u32, u32, u32, u32)> {
    let mut parts = line.strip_prefix("@@ ")?.split(' ');
    let side = |p: Option<&str>, sign: char| -> Option<(u32, u32)> {
        let p = p?.strip_prefix(sign)?;
        match p.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((p.parse().ok()?, 1)),
        }
    };
    let (a, b) = side(parts.next(), '-')?;
    let (c, d) = side(parts.next(), '+')?;
    Some((a, b, c, d))
}

/// The lines of a text with their byte ranges (without the newline).
fn lines(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i);
        let r = at..end;
        at = end + 1;
        Some(r)
    })
}

impl DiffView {
    /// Reads a unified diff (as `catalog::write::unified_diff` writes it) into files, hunks and
    /// rows. Lines inside a hunk are told apart by the hunk's counts, so a removed line that reads
    /// `-- x` is not taken for a file header.
    pub fn parse(text: String) -> DiffView {
        let mut rows = Vec::new();
        let mut files: Vec<DiffFile> = Vec::new();
        let mut hunks = Vec::new();
        let (mut old, mut new, mut old_left, mut new_left) = (0u32, 0u32, 0u32, 0u32);
        let mut pending_old: Option<Range<usize>> = None;
        for r in lines(&text) {
            let line = &text[r.clone()];
            let in_hunk = old_left > 0 || new_left > 0;
            let file = files.len().saturating_sub(1);
            let row = |kind, text: Range<usize>, o, n| Row {
                kind,
                text,
                old: o,
                new: n,
                file,
            };
            if !in_hunk && line.starts_with("--- ") {
                pending_old = Some(r.start + 4..r.end);
                continue;
            }
            if !in_hunk && let Some(path) = line.strip_prefix("+++ ") {
                let created = pending_old.take().is_some_and(|o| &text[o] == "/dev/null");
                let start = r.start + 4 + if path.starts_with("b/") { 2 } else { 0 };
                files.push(DiffFile {
                    path: text[start..r.end].to_string(),
                    added: 0,
                    removed: 0,
                    row: rows.len(),
                    created,
                });
                rows.push(Row {
                    kind: RowKind::File,
                    text: start..r.end,
                    old: 0,
                    new: 0,
                    file: files.len() - 1,
                });
                continue;
            }
            if !in_hunk && let Some((a, b, c, d)) = hunk_numbers(line) {
                (old, new, old_left, new_left) = (a, c, b, d);
                hunks.push(rows.len());
                rows.push(row(RowKind::Hunk, r, 0, 0));
                continue;
            }
            let body = r.start + 1.min(line.len())..r.end;
            let f = files.last_mut();
            match line.as_bytes().first() {
                Some(b' ') if in_hunk => {
                    rows.push(row(RowKind::Context, body, old, new));
                    (old, new) = (old + 1, new + 1);
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
                Some(b'-') if in_hunk => {
                    rows.push(row(RowKind::Removed, body, old, 0));
                    old += 1;
                    old_left = old_left.saturating_sub(1);
                    if let Some(f) = f {
                        f.removed += 1;
                    }
                }
                Some(b'+') if in_hunk => {
                    rows.push(row(RowKind::Added, body, 0, new));
                    new += 1;
                    new_left = new_left.saturating_sub(1);
                    if let Some(f) = f {
                        f.added += 1;
                    }
                }
                _ => rows.push(row(RowKind::Note, r, 0, 0)),
            }
        }
        DiffView {
            text,
            rows,
            files,
            hunks,
            cursor: 0,
            top: 0,
            typing: None,
            query: None,
            matches: Vec::new(),
            whole: None,
            note: None,
        }
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    pub fn files(&self) -> &[DiffFile] {
        &self.files
    }

    pub fn hunks(&self) -> &[usize] {
        &self.hunks
    }

    /// A row's text (without its prefix).
    pub fn text(&self, row: &Row) -> &str {
        self.text.get(row.text.clone()).unwrap_or("")
    }

    /// The text from a byte offset to the end of a row (for the whole-line view).
    pub fn text_between(&self, from: usize, to: usize) -> &str {
        self.text.get(from..to).unwrap_or("")
    }

    /// Moves the cursor by `delta` rows and keeps it on screen (`page` rows tall).
    pub fn move_by(&mut self, delta: isize, page: usize) {
        let last = self.rows.len().saturating_sub(1);
        self.cursor = self.cursor.saturating_add_signed(delta).min(last);
        self.follow(page);
    }

    /// A page (or half) down or up: the view and the cursor move together, as far as they can.
    pub fn scroll_by(&mut self, delta: isize, page: usize) {
        let max_top = self.rows.len().saturating_sub(page);
        self.top = self.top.saturating_add_signed(delta).min(max_top);
        self.move_by(delta, page);
    }

    pub fn to_end(&mut self, bottom: bool, page: usize) {
        self.cursor = if bottom {
            self.rows.len().saturating_sub(1)
        } else {
            0
        };
        self.follow(page);
    }

    /// The next (or previous) hunk header becomes the cursor and the top row.
    pub fn jump_hunk(&mut self, forward: bool, page: usize) -> bool {
        let to = next_of(&self.hunks, self.cursor, forward);
        self.jump(to, page)
    }

    /// The next (or previous) file's header becomes the cursor and the top row.
    pub fn jump_file(&mut self, forward: bool, page: usize) -> bool {
        let heads: Vec<usize> = self.files.iter().map(|f| f.row).collect();
        let to = next_of(&heads, self.cursor, forward);
        self.jump(to, page)
    }

    fn jump(&mut self, to: Option<usize>, page: usize) -> bool {
        let Some(to) = to else { return false };
        self.cursor = to;
        self.top = to.min(self.rows.len().saturating_sub(page));
        self.follow(page);
        true
    }

    /// Searches every row for `query`: the rows that match, and the cursor on the first at or after
    /// it. Says how many matched.
    pub fn search(&mut self, query: String, page: usize) -> usize {
        self.matches = (0..self.rows.len())
            .filter(|&i| find(self.text(&self.rows[i]), &query).is_some())
            .collect();
        self.query = Some(query);
        if let Some(&first) = self
            .matches
            .iter()
            .find(|&&i| i >= self.cursor)
            .or(self.matches.first())
        {
            self.cursor = first;
            self.follow(page);
        }
        self.matches.len()
    }

    /// The next (or previous) match, round the end; which one of how many it is.
    pub fn next_match(&mut self, forward: bool, page: usize) -> Option<(usize, usize)> {
        let n = self.matches.len();
        if n == 0 {
            return None;
        }
        let i = match next_of(&self.matches, self.cursor, forward) {
            Some(row) => self.matches.iter().position(|&m| m == row).unwrap_or(0),
            None if forward => 0,
            None => n - 1,
        };
        self.cursor = self.matches[i];
        self.follow(page);
        Some((i + 1, n))
    }

    /// Keeps the cursor on screen, and the screen within the rows.
    pub fn follow(&mut self, page: usize) {
        let page = page.max(1);
        if self.cursor < self.top {
            self.top = self.cursor;
        }
        if self.cursor >= self.top + page {
            self.top = self.cursor + 1 - page;
        }
        self.top = self.top.min(self.rows.len().saturating_sub(page));
    }

    /// Opens the whole of the line under the cursor, wrapped at `width` columns.
    pub fn open_whole(&mut self, width: usize) {
        let Some(row) = self.rows.get(self.cursor) else {
            return;
        };
        let range = row.text.clone();
        self.whole = Some(WholeLine {
            row: self.cursor,
            width,
            starts: wrap(&self.text, range, width),
            scroll: 0,
        });
    }

    /// The terminal changed size: the whole line is wrapped again at the new width.
    pub fn rewrap(&mut self, width: usize) {
        if let Some(w) = &self.whole
            && w.width != width
            && let Some(row) = self.rows.get(w.row)
        {
            let (at, scroll) = (w.starts.get(w.scroll).copied(), w.scroll);
            let starts = wrap(&self.text, row.text.clone(), width);
            let scroll = at.map_or(scroll, |at| starts.partition_point(|&s| s <= at) - 1);
            self.whole = Some(WholeLine {
                row: w.row,
                width,
                starts,
                scroll,
            });
        }
    }

    /// Scrolls the whole-line view, never past its last page (`page` rows tall).
    pub fn scroll_whole(&mut self, delta: isize, page: usize) {
        if let Some(w) = &mut self.whole {
            let max = w.starts.len().saturating_sub(page.max(1));
            w.scroll = w.scroll.saturating_add_signed(delta).min(max);
        }
    }

    /// The whole line's wrapped row `i` as text.
    pub fn whole_row(&self, i: usize) -> &str {
        let Some(w) = &self.whole else { return "" };
        let Some(row) = self.rows.get(w.row) else {
            return "";
        };
        let Some(&from) = w.starts.get(i) else {
            return "";
        };
        let to = w.starts.get(i + 1).copied().unwrap_or(row.text.end);
        self.text_between(from, to)
    }
}

/// The first of `rows` (sorted) after `at`, or the last before it.
fn next_of(rows: &[usize], at: usize, forward: bool) -> Option<usize> {
    if forward {
        rows.iter().copied().find(|&r| r > at)
    } else {
        rows.iter().rev().copied().find(|&r| r < at)
    }
}

/// Where each row of `text[range]` starts when cut every `width` columns.
fn wrap(text: &str, range: Range<usize>, width: usize) -> Vec<usize> {
    let width = width.max(1);
    let mut starts = vec![range.start];
    let mut used = 0;
    for (i, c) in text[range.clone()].char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > width && used > 0 {
            starts.push(range.start + i);
            used = 0;
        }
        used += w;
    }
    starts
}

/// Where the viewer is drawn for a terminal of this size: all of it but the footer line.
pub fn area(size: Rect) -> Rect {
    Rect::new(size.x, size.y, size.width, size.height.saturating_sub(1))
}

/// The rows of diff on screen: the viewer less its borders.
pub fn page(size: Rect) -> usize {
    (area(size).height.saturating_sub(2) as usize).max(1)
}

/// Where the whole-line popup is drawn: the viewer less a margin.
pub fn whole_area(size: Rect) -> Rect {
    let a = area(size);
    let (mx, my) = (
        if a.width > 40 { 4 } else { 0 },
        if a.height > 12 { 2 } else { 0 },
    );
    Rect::new(
        a.x + mx,
        a.y + my,
        a.width.saturating_sub(2 * mx),
        a.height.saturating_sub(2 * my),
    )
}

/// The whole-line popup's text width and rows.
pub fn whole_size(size: Rect) -> (usize, usize) {
    let a = whole_area(size);
    (
        (a.width.saturating_sub(2) as usize).max(1),
        (a.height.saturating_sub(2) as usize).max(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "--- a/p/catalog.yaml\n+++ b/p/catalog.yaml\n@@ -1,3 +1,3 @@\n ---\n-defaultChannel: fast\n+defaultChannel: stable\n icon:\n@@ -10,2 +10,2 @@\n a\n+b\n--- c\n\\ No newline at end of file\n--- /dev/null\n+++ b/q/new.yaml\n@@ -0,0 +1,1 @@\n+schema: olm.package\n";

    #[test]
    fn files_hunks_and_rows_are_read_once_with_line_numbers() {
        let v = DiffView::parse(DIFF.to_string());
        let kinds: Vec<RowKind> = v.rows().iter().map(|r| r.kind).collect();
        use RowKind::{Added, Context, File, Hunk, Note, Removed};
        assert_eq!(
            kinds,
            [
                File, Hunk, Context, Removed, Added, Context, Hunk, Context, Added, Removed, Note,
                File, Hunk, Added
            ]
        );
        assert_eq!(v.files()[0].path, "p/catalog.yaml");
        assert_eq!((v.files()[0].added, v.files()[0].removed), (2, 2));
        assert!(v.files()[1].created);
        // `--- c` inside the second hunk is a removed line `-- c`, not a file header.
        assert_eq!(v.text(&v.rows()[9]), "-- c");
        assert_eq!((v.rows()[4].old, v.rows()[4].new), (0, 2));
        assert_eq!((v.rows()[8].old, v.rows()[8].new), (0, 11));
        assert_eq!((v.rows()[9].old, v.rows()[9].new), (11, 0));
        assert_eq!(v.hunks(), [1, 6, 12]);
    }

    #[test]
    fn moves_stay_within_the_rows_and_keep_the_cursor_on_screen() {
        let mut v = DiffView::parse(DIFF.to_string());
        v.scroll_by(100, 5);
        assert_eq!((v.cursor, v.top), (13, 9));
        v.move_by(-7, 5);
        assert_eq!((v.cursor, v.top), (6, 6));
        assert!(v.jump_hunk(true, 5));
        assert_eq!((v.cursor, v.top), (12, 9));
        assert!(v.jump_file(false, 5));
        assert_eq!((v.cursor, v.top), (11, 9));
        assert!(!v.jump_file(true, 5));
        assert!(v.jump_hunk(false, 5));
        assert_eq!((v.cursor, v.top), (6, 6));
        v.to_end(false, 5);
        assert_eq!((v.cursor, v.top), (0, 0));
    }

    #[test]
    fn search_ignores_case_unless_asked_and_goes_round() {
        let mut v = DiffView::parse(DIFF.to_string());
        assert_eq!(v.search("CHANNEL".into(), 5), 0);
        assert_eq!(v.search("channel".into(), 5), 2);
        assert_eq!(v.cursor, 3);
        assert_eq!(v.next_match(true, 5), Some((2, 2)));
        assert_eq!(v.next_match(true, 5), Some((1, 2)));
        assert_eq!(v.next_match(false, 5), Some((2, 2)));
        assert_eq!(find("aÉé", "é"), Some(1));
        assert_eq!(find_all("Channel channel", "channel"), [0..7, 8..15]);
    }

    #[test]
    fn the_whole_line_wraps_at_the_width_and_scrolls_to_its_last_page() {
        let long = format!(
            "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-{}\n+x\n",
            "0123456789".repeat(10)
        );
        let mut v = DiffView::parse(long);
        v.cursor = 2;
        v.open_whole(30);
        assert_eq!(v.whole.as_ref().unwrap().starts.len(), 4);
        assert_eq!(v.whole_row(3), "0123456789");
        v.scroll_whole(10, 2);
        assert_eq!(v.whole.as_ref().unwrap().scroll, 2);
        v.rewrap(50);
        assert_eq!(v.whole.as_ref().unwrap().starts.len(), 2);
        assert_eq!(v.whole.as_ref().unwrap().scroll, 1);
    }
}
