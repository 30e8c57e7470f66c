//! What go-yaml accepts in quoted scalars and the full parser refuses, read the way go-yaml reads it.
//!
//! go-yaml (v2, and the fork `sigs.k8s.io/yaml` uses, which opm reads manifests and catalogs with)
//! does not check the indentation of the lines a single- or double-quoted scalar runs on to: a
//! continuation line may start at any column, even left of the key the scalar belongs to, and may
//! be indented with tabs. Only a document marker (`---` or `...` at column 0) or the end of the
//! input inside the scalar is an error. The leading blanks of a continuation line are not part of
//! the value, so the value is the same wherever the line starts.
//!
//! The full parser follows the YAML specification instead ("invalid indentation in quoted scalar",
//! "tab cannot be used as indentation"). When it reports either, [`Repairs`] notes how to indent the
//! scalar's continuation lines (spaces added at the start of a line, tabs among the leading blanks
//! written as spaces) and the document is read again from a copy so indented; positions are mapped
//! back to the original text, so nodes keep their real byte ranges, lines and columns.

use std::collections::{BTreeMap, BTreeSet};

/// Re-reads allowed for one document: each repairs at least one scalar. A document with more
/// scalars to repair is reported with the parser's error.
pub(super) const MAX_REREADS: usize = 256;

/// Changes to a document's text that leave every value as go-yaml reads it.
#[derive(Debug, Default)]
pub(super) struct Repairs {
    /// Spaces to add at the start of a line, by the byte offset (in the original) of the line.
    indent: BTreeMap<usize, usize>,
    /// Byte offsets (in the original) of tabs to write as spaces.
    tabs: BTreeSet<usize>,
}

/// A document's text with [`Repairs`] applied, and where spaces were added.
pub(super) struct Repaired {
    pub text: String,
    /// `(offset in the repaired text, spaces added there)`, ascending.
    pub added: Vec<(usize, usize)>,
}

impl Repaired {
    /// The offset in the original text of an offset in the repaired one.
    #[cfg(test)]
    fn original(&self, at: usize) -> usize {
        original(&self.added, at)
    }
}

/// The offset in the original text of offset `at` in a text with spaces `added` (as in
/// [`Repaired::added`]). An offset inside added spaces maps to the start of their line.
pub(super) fn original(added: &[(usize, usize)], at: usize) -> usize {
    let mut shift = 0;
    for &(p, n) in added {
        if at < p {
            break;
        }
        if at < p + n {
            return p - shift;
        }
        shift += n;
    }
    at - shift
}

impl Repairs {
    pub fn is_empty(&self) -> bool {
        self.indent.is_empty() && self.tabs.is_empty()
    }

    /// `src` with the repairs applied.
    pub fn apply(&self, src: &str) -> Repaired {
        let mut text = String::with_capacity(src.len() + self.indent.values().sum::<usize>());
        let mut added = Vec::with_capacity(self.indent.len());
        let mut last = 0;
        let mut cuts: BTreeSet<usize> = self.indent.keys().copied().collect();
        cuts.extend(self.tabs.iter().copied());
        for cut in cuts {
            text.push_str(&src[last..cut]);
            last = cut;
            if let Some(&n) = self.indent.get(&cut) {
                added.push((text.len(), n));
                text.extend(std::iter::repeat_n(' ', n));
            }
            if self.tabs.contains(&cut) {
                text.push(' ');
                last = cut + 1;
            }
        }
        text.push_str(&src[last..]);
        Repaired { text, added }
    }

    /// Notes the repairs for the quoted scalar whose opening quote is at byte `quote` of `src`,
    /// which sits at column `col` (0-based, counted in the text as it is being read). Each line the
    /// scalar runs on to is to start right of the quote, its leading tabs written as spaces. True
    /// when something new was noted.
    pub fn quoted_scalar(&mut self, src: &str, quote: usize, col: usize) -> bool {
        let b = src.as_bytes();
        let Some(&q) = b.get(quote) else {
            return false;
        };
        if q != b'"' && q != b'\'' {
            return false;
        }
        let need = col + 1;
        let mut changed = false;
        let mut i = quote + 1;
        while i < b.len() {
            match b[i] {
                // An escaped line break is still a line break: the next line continues.
                b'\\' if q == b'"' && matches!(b.get(i + 1), Some(b'\n' | b'\r')) => i += 1,
                b'\\' if q == b'"' => i += 2,
                b'\'' if q == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 2,
                c if c == q => return changed,
                b'\n' => {
                    i += 1;
                    if document_marker(&b[i..]) {
                        // go-yaml refuses the scalar here; so does the parser.
                        return changed;
                    }
                    changed |= self.continuation(b, i, need);
                }
                _ => i += 1,
            }
        }
        changed
    }

    /// Notes the repairs of the line starting at byte `line`, which continues a quoted scalar and
    /// must start at column `need` or right of it.
    fn continuation(&mut self, b: &[u8], line: usize, need: usize) -> bool {
        let mut changed = false;
        let blanks = b[line..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        for (k, &c) in b.iter().enumerate().skip(line).take(blanks) {
            if c == b'\t' {
                changed |= self.tabs.insert(k);
            }
        }
        let rest = b.get(line + blanks).copied();
        if blanks < need && !matches!(rest, None | Some(b'\n' | b'\r')) {
            let add = need - blanks;
            let slot = self.indent.entry(line).or_insert(0);
            if *slot < add {
                *slot = add;
                changed = true;
            }
        }
        changed
    }

    /// Notes that the tabs among the leading blanks of the line holding byte `at` are to be
    /// written as spaces. True when something new was noted.
    pub fn leading_tabs(&mut self, src: &str, at: usize) -> bool {
        let b = src.as_bytes();
        let at = at.min(b.len());
        let line = b[..at]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let mut changed = false;
        for (k, &c) in b.iter().enumerate().skip(line) {
            match c {
                b'\t' => changed |= self.tabs.insert(k),
                b' ' => {}
                _ => break,
            }
        }
        changed
    }
}

/// `---` or `...` followed by a blank or the end of the line: a document marker at column 0.
fn document_marker(b: &[u8]) -> bool {
    (b.starts_with(b"---") || b.starts_with(b"..."))
        && matches!(b.get(3), None | Some(b' ' | b'\t' | b'\n' | b'\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_left_of_the_quote_are_indented_past_it() {
        let src = "a:\n  b: 'x\n  y\nz'\n";
        let mut r = Repairs::default();
        assert!(r.quoted_scalar(src, src.find('\'').unwrap(), 5));
        let fixed = r.apply(src);
        assert_eq!(fixed.text, "a:\n  b: 'x\n      y\n      z'\n");
        // Offsets map back: the `y` and the closing quote are where they were.
        let y = fixed.text.find('y').unwrap();
        assert_eq!(fixed.original(y), src.find('y').unwrap());
        let close = fixed.text.rfind('\'').unwrap();
        assert_eq!(fixed.original(close), src.rfind('\'').unwrap());
        // Nothing new to do the second time.
        assert!(!r.quoted_scalar(src, src.find('\'').unwrap(), 5));
    }

    #[test]
    fn escapes_and_doubled_quotes_do_not_close_the_scalar() {
        let src = "k: \"a \\\" b\nc\"\nl: 'it''s\nd'\n";
        let mut r = Repairs::default();
        assert!(r.quoted_scalar(src, 3, 3));
        let l = src.find("'it").unwrap();
        assert!(r.quoted_scalar(src, l, 3));
        assert_eq!(
            r.apply(src).text,
            "k: \"a \\\" b\n    c\"\nl: 'it''s\n    d'\n"
        );
    }

    #[test]
    fn tabs_become_spaces_and_markers_stop_the_scan() {
        let src = "k: 'a\n\t\tb\n---\n c'\n";
        let mut r = Repairs::default();
        assert!(r.quoted_scalar(src, 3, 3));
        assert_eq!(r.apply(src).text, "k: 'a\n    b\n---\n c'\n");
        let mut t = Repairs::default();
        assert!(t.leading_tabs("x: 'a\n \tb'", 7));
        assert_eq!(t.apply("x: 'a\n \tb'").text, "x: 'a\n  b'");
    }
}
