//! Finding lines in a text by byte offset: where a line starts and ends, its indentation, and
//! whether a position is the first thing on its line.

/// Index of the first byte of the line that holds `pos`.
pub fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// Index just past the newline ending the line that holds `pos` (or the end of the text).
pub fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

/// Whether only whitespace precedes `pos` on its line.
pub fn owns_line(text: &str, pos: usize) -> bool {
    text[line_start(text, pos)..pos]
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
}

/// The spaces and tabs that start the line holding `pos`.
pub fn line_indent(text: &str, pos: usize) -> &str {
    let s = line_start(text, pos);
    let rest = &text[s..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_around_a_position() {
        let text = "a: 1\n  b: 2\nc";
        assert_eq!((line_start(text, 8), line_end(text, 8)), (5, 12));
        assert_eq!(line_end(text, 12), text.len());
        assert!(owns_line(text, 7) && !owns_line(text, 8));
        assert_eq!(line_indent(text, 9), "  ");
    }
}
