//! Changing a text by byte ranges: each [`Splice`] replaces one range of the original, and
//! [`apply`] makes the new text from all of them at once, refusing overlaps that would corrupt it.

/// One byte-range replacement of the original text.
#[derive(Debug)]
pub struct Splice {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Splice {
    /// Inserts `text` at `at`.
    pub fn insert(at: usize, text: String) -> Splice {
        Splice {
            start: at,
            end: at,
            text,
        }
    }

    /// Removes `start..end`.
    pub fn cut(start: usize, end: usize) -> Splice {
        Splice {
            start,
            end,
            text: String::new(),
        }
    }
}

/// Applies the splices to the original text; the offset where two of them overlap is an error.
/// Cuts that only remove text may overlap (the union is removed). New text gets CRLF line ends when
/// most lines of the original have them.
pub fn apply(original: &str, mut splices: Vec<Splice>) -> Result<String, usize> {
    splices.sort_by_key(|s| (s.start, s.end));
    let crlf = crlf_majority(original);
    let mut out = String::with_capacity(original.len() + 256);
    let mut at = 0usize;
    for s in splices {
        if s.start < at {
            // Neighbouring cuts may overlap; extend the cut. Anything else would corrupt text.
            if s.text.is_empty() {
                at = at.max(s.end);
                continue;
            }
            return Err(s.start);
        }
        out.push_str(&original[at..s.start]);
        if crlf {
            out.push_str(&s.text.replace("\r\n", "\n").replace('\n', "\r\n"));
        } else {
            out.push_str(&s.text);
        }
        at = s.end;
    }
    out.push_str(&original[at..]);
    Ok(out)
}

/// Whether most lines of `text` end with CRLF (new lines then do too).
fn crlf_majority(text: &str) -> bool {
    let lf = text.bytes().filter(|&c| c == b'\n').count();
    let crlf = text.matches("\r\n").count();
    crlf * 2 > lf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(start: usize, end: usize, text: &str) -> Splice {
        Splice {
            start,
            end,
            text: text.into(),
        }
    }

    #[test]
    fn overlapping_changes_are_an_error_not_a_skipped_change() {
        let original = "a: 1\nb: 2\nc: 3\n";
        assert_eq!(
            apply(
                original,
                vec![splice(0, 10, "x: 9\n"), splice(5, 15, "y: 8\n")]
            ),
            Err(5)
        );
        // Cuts that only remove text may overlap: the removed range is their union.
        assert_eq!(
            apply(original, vec![splice(0, 10, ""), splice(5, 15, "")]).as_deref(),
            Ok("")
        );
        assert_eq!(
            apply(original, vec![splice(5, 10, "B: 2\n")]).as_deref(),
            Ok("a: 1\nB: 2\nc: 3\n")
        );
    }
}
