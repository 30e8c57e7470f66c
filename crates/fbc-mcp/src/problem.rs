//! A diagnostic as the tools return it: code, severity, file (relative to the served directory
//! that holds it), line, column, message, hint, and the package, channel and bundle concerned.

use std::path::Path;

use fbc_core::catalog::Diagnostic;

use crate::output::Problem;
use crate::roots::Roots;

/// `d`, found in the catalog or repository at `dir`.
pub fn value(roots: &Roots, dir: &Path, d: &Diagnostic) -> Problem {
    let file = if d.location.file.is_empty() || d.location.file == "." {
        dir.to_path_buf()
    } else {
        dir.join(&d.location.file)
    };
    Problem {
        code: d.code.to_string(),
        severity: d.severity.as_str().to_string(),
        file: roots.show(&file),
        line: d.location.line,
        column: d.location.column,
        message: d.message.clone(),
        hint: d.hint.clone(),
        package: d.object.package.clone(),
        channel: d.object.channel.clone(),
        bundle: d.object.bundle.clone(),
    }
}

/// Every diagnostic of `list`, in order.
pub fn values<'a>(
    roots: &Roots,
    dir: &Path,
    list: impl IntoIterator<Item = &'a Diagnostic>,
) -> Vec<Problem> {
    list.into_iter().map(|d| value(roots, dir, d)).collect()
}
