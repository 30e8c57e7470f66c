//! Small YAML files read into typed values: an operator's `ci.yaml`, a bundle's
//! `release-config.yaml`, the user's `config.yaml`. Such a file may come from someone else (a pull
//! request), so it is read whole only when it is a regular file within the `yaml-file` budget (and,
//! for [`read`], when it resolves inside the directory it belongs to, a link leading out of it not
//! followed), and
//! this crate's reader goes over it first: its depth and alias budgets bound the work before serde
//! reads the text, whose own parser would take minutes on a few hundred kilobytes of nesting. The
//! tree that reader builds is kept, so a caller can name the line of any value it refuses.

use std::fmt;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::{parse_chunk, split_documents};
use crate::catalog::node::Node;
use crate::guard::file::{self, ReadError};
use crate::guard::limits::{self, Limit};

/// A file's value, with the tree of its (first non-empty) document for the lines of its values.
#[derive(Debug)]
pub struct Typed<T> {
    pub value: T,
    pub tree: Node,
}

/// Why a small YAML file was not read: the file as named, the place when known (0 when not),
/// and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl TypedError {
    /// `file:line:col`, `file` alone when the place is not known.
    pub fn place(&self) -> String {
        TypedError::at(&self.file, self.line, self.col)
    }

    /// `file:line:col`, `file:line` without a column, `file` without a line.
    pub fn at(file: &str, line: u32, col: u32) -> String {
        match (line, col) {
            (0, _) => file.to_string(),
            (line, 0) => format!("{file}:{line}"),
            (line, col) => format!("{file}:{line}:{col}"),
        }
    }
}

impl fmt::Display for TypedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place(), self.message)
    }
}

impl std::error::Error for TypedError {}

/// Reads the file at `path` into a `T`, when it resolves (symbolic links followed) to a file inside
/// `root`: the directory the command line names that it belongs to.
pub fn read<T: DeserializeOwned>(root: &Path, path: &Path) -> Result<Typed<T>, TypedError> {
    let shown = path.display().to_string();
    let text = text_if_present(Some(root), path)
        .and_then(|t| t.ok_or(SmallFileError::Missing))
        .map_err(|why| TypedError {
            file: shown.clone(),
            line: 0,
            col: 0,
            message: why.to_string(),
        })?;
    parse(&text, &shown)
}

/// The text of a small YAML file, when it is a regular file within the `yaml-file` budget;
/// `None` when there is no file. The error is the reason, in words. Symbolic links are followed
/// wherever they lead: this is for the user's own files (`config.yaml`), not for someone else's.
pub fn read_text_if_present(path: &Path) -> Result<Option<String>, SmallFileError> {
    text_if_present(None, path)
}

/// [`read_text_if_present`], inside `root` when one is given.
fn text_if_present(root: Option<&Path>, path: &Path) -> Result<Option<String>, SmallFileError> {
    let budgets = limits::current();
    let limit = budgets.get(Limit::YamlFile);
    let read = match root {
        Some(root) => file::read_text_limited_within(root, path, limit),
        None => file::read_text_limited(path, limit),
    };
    match read {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(ReadError::TooLarge { len, .. }) => Err(SmallFileError::OverBudget(budgets.exceeded(
            Limit::YamlFile,
            &format!("the file holds {len} bytes; not read"),
        ))),
        Err(e) => Err(SmallFileError::Unreadable(e)),
    }
}

/// Why a small YAML file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SmallFileError {
    #[error("no such file")]
    Missing,
    /// Larger than the `yaml-file` budget: the budget's wording.
    #[error("{0}")]
    OverBudget(String),
    #[error("{0}")]
    Unreadable(#[source] ReadError),
}

/// Reads `text` (the content of `file`, as named in messages) into a `T`.
pub fn parse<T: DeserializeOwned>(text: &str, file: &str) -> Result<Typed<T>, TypedError> {
    let tree = check(text, file)?;
    let value = serde_yaml::from_str(text).map_err(|e| {
        let (line, col) = e
            .location()
            .map_or((0, 0), |l| (l.line() as u32, l.column() as u32));
        TypedError {
            file: file.to_string(),
            line,
            col,
            message: e.to_string(),
        }
    })?;
    Ok(Typed { value, tree })
}

/// Every document of `text` read with this crate's reader, within its depth and alias budgets;
/// the first one that is not empty.
fn check(text: &str, file: &str) -> Result<Node, TypedError> {
    let at = |line: u32, col: u32, message: String| TypedError {
        file: file.to_string(),
        line,
        col,
        message,
    };
    let (chunks, separators) = split_documents(text, 0, 1);
    // Text on a `---` line would be read by serde but not by the documents split here.
    if let Some(s) = separators.first() {
        return Err(at(
            s.line,
            0,
            format!(
                "text after the document separator `---`: {:?} (start it on the next line)",
                s.rest
            ),
        ));
    }
    let mut first = None;
    for chunk in chunks {
        let doc = parse_chunk(text, chunk, 0).map_err(|e| at(e.line, e.col, e.message.clone()))?;
        if first.is_none() && !doc.node.is_null() {
            first = Some(doc.node);
        }
    }
    Ok(first.unwrap_or(Node::NULL))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Config {
        names: Vec<String>,
    }

    #[test]
    fn values_keep_their_lines() {
        let t: Typed<Config> = parse("---\nnames:\n  - a\n  - b\n", "c.yaml").unwrap();
        assert_eq!(t.value.names, ["a", "b"]);
        let b = &t.tree.get_field("names").unwrap().as_seq().unwrap()[1];
        assert_eq!(b.pos().line, 4);
    }

    #[test]
    fn deep_nesting_is_refused_before_serde_reads_it() {
        let text = format!("names: {}\n", "[".repeat(200_000));
        let started = std::time::Instant::now();
        let e = parse::<Config>(&text, "c.yaml").unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!((e.file.as_str(), e.line), ("c.yaml", 1));
        assert!(e.message.contains("nested deeper than"), "{e}");
    }

    #[test]
    fn an_alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let refs = vec![format!("*a{}", i - 1); 9].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        text.push_str("names: []\n");
        let e = parse::<Config>(&text, "c.yaml").unwrap_err();
        assert!(e.message.contains("excessive aliasing"), "{e}");
        assert!(e.line > 0, "{e}");
    }

    #[test]
    fn text_on_a_separator_line_is_refused() {
        let e = parse::<Config>("--- {names: []}\n", "c.yaml").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.to_string().starts_with("c.yaml:1: text after"), "{e}");
    }

    #[test]
    fn a_serde_error_keeps_its_place() {
        let e = parse::<Config>("names: 3\n", "c.yaml").unwrap_err();
        assert_eq!((e.line, e.col), (1, 8));
        assert!(e.message.contains("invalid type"), "{e}");
    }
}
