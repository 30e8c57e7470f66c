//! The engine's problems as the protocol's diagnostics: the code as `code`, the places that explain
//! it as `relatedInformation`, the severity as `validate` gives it, the hint after the message (and
//! in `data`, for the quick fixes).

use std::collections::HashMap;
use std::path::Path;

use fbc_core::catalog::{Diagnostic, Severity};
use fbc_core::workspace::Workspace;
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, NumberOrString, Position, Range,
};

use crate::text::Lines;
use crate::uri;

/// The name diagnostics are published under.
pub const SOURCE: &str = "fbc-edit";

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The range a problem at `line`, `col` marks in a file whose text is known (else the line, the
/// columns taken as UTF-16 units, which they are for every character of the basic plane).
pub fn range_in(text: Option<&str>, line: u32, col: u32) -> Range {
    match text {
        Some(t) => Lines::new(t).problem_range(line, col),
        None if line == 0 => Range::default(),
        None => Range::new(
            Position::new(line - 1, col.saturating_sub(1)),
            Position::new(line, 0),
        ),
    }
}

fn base(d: &Diagnostic, range: Range) -> lsp_types::Diagnostic {
    let mut message = d.message.clone();
    if let Some(h) = &d.hint {
        message.push_str("\nhint: ");
        message.push_str(h);
    }
    lsp_types::Diagnostic {
        range,
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some(SOURCE.to_string()),
        message,
        data: d.hint.as_ref().map(|h| serde_json::json!({ "hint": h })),
        ..Default::default()
    }
}

/// The files of a catalog, to place its problems: the lines of each open file worked out once.
pub struct Files<'w> {
    root: &'w Path,
    ws: &'w Workspace,
    lines: HashMap<usize, Lines<'w>>,
}

impl<'w> Files<'w> {
    pub fn new(root: &'w Path, ws: &'w Workspace) -> Files<'w> {
        Files {
            root,
            ws,
            lines: HashMap::new(),
        }
    }

    fn range(&mut self, rel: &str, line: u32, col: u32) -> Range {
        let cat = self.ws.catalog();
        let Some(file) = cat.file_id(rel) else {
            return range_in(None, line, col);
        };
        match cat.overlay_text(file) {
            Some(t) => self
                .lines
                .entry(file)
                .or_insert_with(|| Lines::new(t))
                .problem_range(line, col),
            None => range_in(None, line, col),
        }
    }

    /// A problem of a catalog file, with the places that explain it.
    pub fn diagnostic(&mut self, d: &Diagnostic) -> lsp_types::Diagnostic {
        let range = self.range(&d.location.file, d.location.line, d.location.column);
        let mut out = base(d, range);
        if !d.related.is_empty() {
            out.related_information = Some(
                d.related
                    .iter()
                    .map(|l| DiagnosticRelatedInformation {
                        location: lsp_types::Location::new(
                            uri::from_path(&self.root.join(&l.file)),
                            self.range(&l.file, l.line, l.column),
                        ),
                        message: "related".into(),
                    })
                    .collect(),
            );
        }
        out
    }
}

/// A problem of a document that stands alone (a template, `ci.yaml`): places in other files are
/// left out.
pub fn plain(d: &Diagnostic, lines: &Lines) -> lsp_types::Diagnostic {
    base(d, lines.problem_range(d.location.line, d.location.column))
}

/// A document that does not read at all.
pub fn unreadable(message: &str, lines: &Lines) -> lsp_types::Diagnostic {
    let line = message
        .split(':')
        .skip(1)
        .find_map(|p| p.trim().parse::<u32>().ok())
        .filter(|&l| (l as usize) <= lines.count())
        .unwrap_or(1);
    lsp_types::Diagnostic {
        range: lines.problem_range(line, 0),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some(SOURCE.to_string()),
        message: message.to_string(),
        ..Default::default()
    }
}
