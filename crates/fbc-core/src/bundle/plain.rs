//! Checking a plain+v0 bundle: a flat `manifests/` whose files hold Kubernetes objects.

use std::path::Path;

use serde_json::Value;

use super::read::{node_json, read_dir_sorted, read_docs};
use super::{codes, diag};
use crate::catalog::Severity;
use crate::catalog::diagnostic::{Diagnostic, Location};
use crate::guard::dir::MAX_BUNDLE_ENTRIES;
use crate::guard::file::Within;

/// Checks a plain+v0 bundle: a flat `manifests/` whose files hold Kubernetes objects.
pub fn check_plain(dir: &Path) -> Vec<Diagnostic> {
    check_plain_within(dir, MAX_BUNDLE_ENTRIES)
}

/// [`check_plain`], `manifests/` listed within `max` entries.
pub(super) fn check_plain_within(dir: &Path, max: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let cannot_read = |e: String| {
        vec![diag(
            codes::UNREADABLE,
            Severity::Error,
            Location::new("manifests", 0, 0),
            format!("cannot read: {e}"),
        )]
    };
    // Manifests are read only when they resolve inside the bundle directory.
    let within = match Within::new(dir) {
        Ok(w) => w,
        Err(e) => return cannot_read(e.to_string()),
    };
    let entries = match read_dir_sorted(&dir.join("manifests"), &within, max) {
        Ok(e) => e,
        Err(e) => return cannot_read(e.to_string()),
    };
    let mut objects = 0usize;
    for (name, is_dir) in entries {
        let rel = format!("manifests/{name}");
        if is_dir {
            out.push(diag(
                codes::PLAIN_SUBDIR,
                Severity::Error,
                Location::new(format!("{rel}/"), 0, 0),
                "a plain+v0 bundle's manifests/ must be flat: subdirectories are not allowed",
            ));
            continue;
        }
        objects += plain_manifest(&within, &dir.join("manifests").join(&name), &rel, &mut out);
    }
    if objects == 0 {
        out.push(diag(
            codes::PLAIN_EMPTY,
            Severity::Error,
            Location::new("manifests", 0, 0),
            "a plain+v0 bundle needs at least one object in manifests/",
        ));
    }
    out
}

/// FBC222: every document of a plain+v0 manifest file is a Kubernetes object with `apiVersion`,
/// `kind` and `metadata.name`. Returns how many are.
fn plain_manifest(within: &Within, path: &Path, rel: &str, out: &mut Vec<Diagnostic>) -> usize {
    let Some((text, nodes)) = read_docs(within, path, rel, out, codes::PLAIN_OBJECT) else {
        return 0;
    };
    let mut objects = 0;
    for n in nodes.iter().flatten() {
        let loc = Location::new(rel, n.pos().line, n.pos().col.max(1));
        let v = node_json(n, &text);
        if !v.is_object() {
            out.push(diag(
                codes::PLAIN_OBJECT,
                Severity::Error,
                loc,
                "not a Kubernetes object (a mapping is expected)",
            ));
            continue;
        }
        let missing: Vec<&str> = [
            ("apiVersion", "/apiVersion"),
            ("kind", "/kind"),
            ("metadata.name", "/metadata/name"),
        ]
        .into_iter()
        .filter(|(_, p)| {
            v.pointer(p)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        })
        .map(|(n, _)| n)
        .collect();
        if missing.is_empty() {
            objects += 1;
        } else {
            out.push(diag(
                codes::PLAIN_OBJECT,
                Severity::Error,
                loc,
                format!("object lacks {}", missing.join(", ")),
            ));
        }
    }
    objects
}
