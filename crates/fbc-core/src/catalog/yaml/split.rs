//! Splitting a YAML file into documents the way opm does, and finding the `-` of a block sequence
//! item in the text.

/// One document of a YAML stream: bytes `start..end` of the file, starting at `line`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub start: usize,
    pub end: usize,
    pub line: u32,
}

/// A line starting with `---` that has other text after it (opm rejects it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeparatorError {
    pub line: u32,
    pub rest: String,
}

/// Splits `text` (starting at byte `from`, which is on line `first_line`) into documents with opm's rule:
/// a line whose first three bytes are `---` ends a document; only spaces or a comment may follow on that
/// line. Chunks with no bytes at all are dropped; a chunk of blank lines is kept (opm rejects it).
pub fn split_documents(
    text: &str,
    from: usize,
    first_line: u32,
) -> (Vec<Chunk>, Vec<SeparatorError>) {
    let (chunks, errors, _) = split_documents_to_end(text, from, first_line);
    (chunks, errors)
}

/// [`split_documents`], and the number of the line after the text's last line break (`first_line`
/// plus the line breaks from `from` on).
pub fn split_documents_to_end(
    text: &str,
    from: usize,
    first_line: u32,
) -> (Vec<Chunk>, Vec<SeparatorError>, u32) {
    let mut chunks = Vec::new();
    let mut errors = Vec::new();
    let bytes = text.as_bytes();
    let mut chunk_start = from;
    let mut chunk_line = first_line;
    // Only lines starting with `---` matter: they are found with one search for `---` (rare in a
    // catalog, where a line break followed by a `-` is not), each kept when a line starts with it,
    // and the lines before each counted in one pass.
    let mut counted = from;
    let mut line = first_line;
    let rest = &bytes[from.min(bytes.len())..];
    let at_start = rest.starts_with(b"---");
    let separators = at_start.then_some(from).into_iter().chain(
        memchr::memmem::find_iter(rest, b"---")
            .filter(|&p| p > 0 && rest[p - 1] == b'\n')
            .map(|p| from + p),
    );
    for i in separators {
        line += memchr::memchr_iter(b'\n', &bytes[counted..i]).count() as u32;
        counted = i;
        let eol = memchr_newline(bytes, i);
        let next = if eol < bytes.len() { eol + 1 } else { eol };
        let rest = text[i + 3..eol].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            errors.push(SeparatorError {
                line,
                rest: rest.to_string(),
            });
        }
        if i > chunk_start {
            chunks.push(Chunk {
                start: chunk_start,
                end: i,
                line: chunk_line,
            });
        }
        chunk_start = next;
        chunk_line = line + 1;
    }
    if bytes.len() > chunk_start {
        chunks.push(Chunk {
            start: chunk_start,
            end: bytes.len(),
            line: chunk_line,
        });
    }
    let end_line =
        line + memchr::memchr_iter(b'\n', &bytes[counted.min(bytes.len())..]).count() as u32;
    (chunks, errors, end_line)
}

fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |p| from + p)
}

/// The `-` of the block sequence item starting at `pos`: the last character before it that is not
/// blank and not part of a comment.
pub fn dash_before(text: &str, pos: usize) -> Option<usize> {
    let mut end = pos;
    loop {
        let line_start = text[..end].rfind('\n').map_or(0, |i| i + 1);
        let mut seg = &text[line_start..end];
        // A comment runs from a `#` at the start of the line or after a blank to the end of the line,
        // on the item's own line too: an empty item (`- # note`) starts after its comment.
        if let Some(h) = seg
            .char_indices()
            .find(|&(i, c)| c == '#' && (i == 0 || seg[..i].ends_with([' ', '\t'])))
            .map(|(i, _)| i)
        {
            seg = &seg[..h];
        }
        let trimmed = seg.trim_end_matches([' ', '\t', '\r']);
        if !trimmed.is_empty() {
            return trimmed
                .ends_with('-')
                .then(|| line_start + trimmed.len() - 1);
        }
        if line_start == 0 {
            return None;
        }
        end = line_start - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dash_of_an_item_is_found_over_blanks_and_comments() {
        let text = "b:\n- x\n-   # a note\n- # another\n  y\n";
        // `x`, on its dash's line.
        assert_eq!(dash_before(text, 5), Some(3));
        // An empty item, placed after the comment ending its dash's line.
        let eol = text.find("note").unwrap() + 4;
        assert_eq!(dash_before(text, eol), Some(7));
        // An item on the line after its dash and a comment.
        assert_eq!(
            dash_before(text, text.find('y').unwrap()),
            Some(text.find("- #").unwrap())
        );
        assert_eq!(dash_before(text, 1), None);
    }

    #[test]
    fn splits_like_opm() {
        let text = "---\na: 1\n--- # c\nb: 2\n---\n---\nc: 3\n---\n";
        let (chunks, errs) = split_documents(text, 0, 1);
        assert!(errs.is_empty());
        let bodies: Vec<&str> = chunks.iter().map(|c| &text[c.start..c.end]).collect();
        assert_eq!(bodies, vec!["a: 1\n", "b: 2\n", "c: 3\n"]);
        assert_eq!(chunks[1].line, 4);
        let (_, errs) = split_documents("a: 1\n--- !tag\nb: 2\n", 0, 1);
        assert_eq!(
            errs,
            vec![SeparatorError {
                line: 2,
                rest: "!tag".into()
            }]
        );
        let (chunks, _) = split_documents("# header\n---\na: 1\n", 0, 1);
        assert_eq!(chunks.len(), 2, "a comment-only chunk is kept, as opm does");
    }

    /// opm's rule applied line by line, as written: the reference the quick split must match.
    fn split_line_by_line(
        text: &str,
        from: usize,
        first_line: u32,
    ) -> (Vec<Chunk>, Vec<SeparatorError>) {
        let (mut chunks, mut errors) = (Vec::new(), Vec::new());
        let (mut line, mut chunk_start, mut chunk_line) = (first_line, from, first_line);
        let mut i = from;
        while i < text.len() {
            let eol = text[i..].find('\n').map_or(text.len(), |p| i + p);
            let next = (eol + 1).min(text.len());
            if text[i..eol].starts_with("---") {
                let rest = text[i + 3..eol].trim();
                if !rest.is_empty() && !rest.starts_with('#') {
                    errors.push(SeparatorError {
                        line,
                        rest: rest.to_string(),
                    });
                }
                if i > chunk_start {
                    chunks.push(Chunk {
                        start: chunk_start,
                        end: i,
                        line: chunk_line,
                    });
                }
                chunk_start = next;
                chunk_line = line + 1;
            }
            i = next;
            line += 1;
        }
        if text.len() > chunk_start {
            chunks.push(Chunk {
                start: chunk_start,
                end: text.len(),
                line: chunk_line,
            });
        }
        (chunks, errors)
    }

    proptest::proptest! {
        #[test]
        fn splits_as_line_by_line(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "---", "--- # c", "--- x", "----", "--", "-", "a: 1", "  ---", "", "\n", " ", "#", "...", "é",
            ]), 0..24),
            newlines in proptest::collection::vec(proptest::bool::ANY, 24),
            from in 0usize..64,
        ) {
            let mut text = String::new();
            for (p, nl) in pieces.iter().zip(&newlines) {
                text.push_str(p);
                if *nl {
                    text.push('\n');
                }
            }
            // Any place to start from: a line start, or where JSON read before it ended.
            let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            let at = bounds[from % bounds.len()];
            proptest::prop_assert_eq!(
                split_documents(&text, at, 3),
                split_line_by_line(&text, at, 3)
            );
        }
    }
}
