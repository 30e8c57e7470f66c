//! A diagnostic as the tools return it: code, severity, file (relative to the served directory
//! that holds it), line, column, message, hint, and the package, channel and bundle concerned.

use std::path::Path;

use fbc_core::catalog::Diagnostic;
use serde_json::{Value, json};

use crate::roots::Roots;

/// `d`, found in the catalog or repository at `dir`.
pub fn value(roots: &Roots, dir: &Path, d: &Diagnostic) -> Value {
    let file = if d.location.file.is_empty() || d.location.file == "." {
        dir.to_path_buf()
    } else {
        dir.join(&d.location.file)
    };
    json!({
        "code": d.code,
        "severity": d.severity.as_str(),
        "file": roots.show(&file),
        "line": d.location.line,
        "column": d.location.column,
        "message": d.message,
        "hint": d.hint,
        "package": d.object.package,
        "channel": d.object.channel,
        "bundle": d.object.bundle,
    })
}

/// Every diagnostic of `list`, in order.
pub fn values<'a>(
    roots: &Roots,
    dir: &Path,
    list: impl IntoIterator<Item = &'a Diagnostic>,
) -> Vec<Value> {
    list.into_iter().map(|d| value(roots, dir, d)).collect()
}
