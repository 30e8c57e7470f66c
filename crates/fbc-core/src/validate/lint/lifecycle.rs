//! OpenShift lifecycle blobs (`io.openshift.operators.lifecycles.v1alpha1`, FBC120–FBC127): the
//! enhancement's JSON Schema (no other properties at any level, required fields, at least one
//! version, one phase and one platform version), `MAJOR.MINOR` version names, real dates, phases
//! that end after they start and follow each other day after day, platform names and versions, one
//! blob per package, of a package the catalog defines.
//!
//! opm keeps these blobs without looking inside, so they are warnings here and the verdict stays
//! opm's; `validate --profile konflux` and catalogs for OpenShift 5.0 and later raise them to
//! errors (`profile::escalate`).

use crate::guard::keyed::Set;

use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::lifecycle::{Date, SCHEMA, is_major_minor};
use crate::catalog::node::Node;
use crate::catalog::{BlobId, Catalog, PackageIndex};
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;

/// Every lifecycle code, for raising them to errors.
pub const CODES: [&str; 8] = [
    c::LIFECYCLE_SHAPE,
    c::LIFECYCLE_VERSION_NAME,
    c::LIFECYCLE_DATE,
    c::LIFECYCLE_PHASE_ORDER,
    c::LIFECYCLE_PHASE_GAP,
    c::LIFECYCLE_PLATFORM,
    c::LIFECYCLE_DUPLICATE,
    c::LIFECYCLE_UNKNOWN_PACKAGE,
];

const SHAPE_HINT: &str = "the lifecycle schema allows schema, package and versions; each version name, phases and platformCompatibility; each phase name, startDate and endDate; each platform name and versions";

/// One blob's problems, written with the blob's place.
struct At<'c> {
    cat: &'c Catalog,
    id: BlobId,
    package: String,
    out: Vec<Diagnostic>,
}

impl At<'_> {
    fn warn(&mut self, code: &'static str, node: &Node, message: String, hint: &str) {
        let what = if self.package.is_empty() {
            "lifecycle".to_string()
        } else {
            format!("lifecycle of package {}", go_quote(&self.package))
        };
        self.out.push(
            Diagnostic::warning(
                code,
                self.cat.node_location(self.id, node),
                format!("{what}: {message}"),
            )
            .with_hint(hint),
        );
    }

    /// Keys not in `allowed`, each a problem at the key.
    fn extra_keys(&mut self, node: &Node, path: &str, allowed: &[&str]) {
        for e in node.as_map().unwrap_or_default() {
            let k = e.key_str();
            if !allowed.contains(&k) {
                let field = if path.is_empty() {
                    k.to_string()
                } else {
                    format!("{path}.{k}")
                };
                self.warn(
                    c::LIFECYCLE_SHAPE,
                    &e.key,
                    format!("unknown field {field}"),
                    SHAPE_HINT,
                );
            }
        }
    }

    /// A required field of `ty` ("string", "list", "object"); `None` (after saying why) when it is
    /// missing or of another type.
    fn required<'n>(
        &mut self,
        owner: &'n Node,
        key: &str,
        path: &str,
        ty: &str,
    ) -> Option<&'n Node> {
        let field = if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        };
        let Some(v) = owner.get(key) else {
            self.warn(
                c::LIFECYCLE_SHAPE,
                owner,
                format!("{field} is required"),
                SHAPE_HINT,
            );
            return None;
        };
        self.typed(v, &field, ty)
    }

    fn typed<'n>(&mut self, v: &'n Node, field: &str, ty: &str) -> Option<&'n Node> {
        let ok = match ty {
            "string" => v.as_str().is_some(),
            "list" => v.as_seq().is_some(),
            _ => v.as_map().is_some(),
        };
        if !ok {
            self.warn(
                c::LIFECYCLE_SHAPE,
                v,
                format!("{field} must be a {ty}, found {}", v.type_name()),
                SHAPE_HINT,
            );
            return None;
        }
        Some(v)
    }

    /// A list that must not be empty.
    fn non_empty(&mut self, v: &Node, field: &str, what: &str) -> bool {
        let empty = v.as_seq().is_some_and(<[Node]>::is_empty);
        if empty {
            self.warn(
                c::LIFECYCLE_SHAPE,
                v,
                format!("{field} is empty"),
                &format!("give at least one {what}"),
            );
        }
        !empty
    }
}

/// The problems of one lifecycle blob, on its own.
pub(super) fn blob(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let node = &cat.blob(id).value;
    let mut at = At {
        cat,
        id,
        package: cat.blob(id).package().to_string(),
        out: Vec::new(),
    };
    at.extra_keys(node, "", &["schema", "package", "versions"]);
    at.required(node, "package", "", "string");
    if let Some(versions) = at.required(node, "versions", "", "list")
        && at.non_empty(versions, "versions", "version")
    {
        let mut names = Set::default();
        for (i, v) in versions.as_seq().unwrap_or_default().iter().enumerate() {
            let path = format!("versions[{i}]");
            if at.typed(v, &path, "object").is_none() {
                continue;
            }
            version(&mut at, v, &path, &mut names);
        }
    }
    out.append(&mut at.out);
}

fn version<'n>(at: &mut At, v: &'n Node, path: &str, names: &mut Set<&'n str>) {
    at.extra_keys(v, path, &["name", "phases", "platformCompatibility"]);
    if let Some(name) = at.required(v, "name", path, "string") {
        let text = name.as_str().unwrap_or_default();
        if !is_major_minor(text) {
            at.warn(
                c::LIFECYCLE_VERSION_NAME,
                name,
                format!("{path}.name {} is not MAJOR.MINOR", go_quote(text)),
                "name the operator's minor version, e.g. \"4.12\" or \"1.5\"",
            );
        } else if !names.insert(text) {
            at.warn(
                c::LIFECYCLE_VERSION_NAME,
                name,
                format!("version {} is listed twice", go_quote(text)),
                "give each minor version once, with all its phases",
            );
        }
    }
    if let Some(phases) = at.required(v, "phases", path, "list")
        && at.non_empty(phases, &format!("{path}.phases"), "phase")
    {
        let mut previous: Option<(Date, String)> = None;
        for (j, p) in phases.as_seq().unwrap_or_default().iter().enumerate() {
            let ppath = format!("{path}.phases[{j}]");
            if at.typed(p, &ppath, "object").is_none() {
                previous = None;
                continue;
            }
            previous = phase(at, p, &ppath, previous.take());
        }
    }
    if let Some(platforms) = v.get("platformCompatibility") {
        let field = format!("{path}.platformCompatibility");
        if at.typed(platforms, &field, "list").is_some() {
            for (j, p) in platforms.as_seq().unwrap_or_default().iter().enumerate() {
                let ppath = format!("{field}[{j}]");
                if at.typed(p, &ppath, "object").is_some() {
                    platform(at, p, &ppath);
                }
            }
        }
    }
}

/// Checks one phase; its end date and name when it has one, for the next phase.
fn phase(
    at: &mut At,
    p: &Node,
    path: &str,
    previous: Option<(Date, String)>,
) -> Option<(Date, String)> {
    at.extra_keys(p, path, &["name", "startDate", "endDate"]);
    at.required(p, "name", path, "string");
    let mut date = |key: &str| -> Option<(Date, &Node)> {
        let n = at.required(p, key, path, "string")?;
        let text = n.as_str().unwrap_or_default();
        match Date::parse(text) {
            Some(d) => Some((d, n)),
            None => {
                at.warn(
                    c::LIFECYCLE_DATE,
                    n,
                    format!("{path}.{key} {} is not a date", go_quote(text)),
                    "write dates as YYYY-MM-DD, a day that exists (e.g. \"2025-01-17\")",
                );
                None
            }
        }
    };
    let start = date("startDate");
    let end = date("endDate");
    let name = p.get("name").and_then(Node::as_str).unwrap_or_default();
    if let (Some((s, _)), Some((e, en))) = (start, end)
        && e <= s
    {
        at.warn(
            c::LIFECYCLE_PHASE_ORDER,
            en,
            format!(
                "phase {} ends on {e}, not after it starts on {s}",
                go_quote(name)
            ),
            "a phase ends strictly after it starts; both dates are inclusive",
        );
    }
    if let (Some((s, sn)), Some((prev_end, prev_name))) = (start, previous) {
        let expected = prev_end.next();
        if s != expected {
            let why = if s > expected { "a gap" } else { "an overlap" };
            at.warn(
                c::LIFECYCLE_PHASE_GAP,
                sn,
                format!(
                    "phase {} starts on {s}, but phase {} ends on {prev_end}: {why}",
                    go_quote(name),
                    go_quote(&prev_name)
                ),
                &format!("start it the day after the previous phase ends: {expected}"),
            );
        }
    }
    end.map(|(e, _)| (e, name.to_string()))
}

fn platform(at: &mut At, p: &Node, path: &str) {
    at.extra_keys(p, path, &["name", "versions"]);
    if let Some(name) = at.required(p, "name", path, "string")
        && name.as_str().is_some_and(|s| s.trim().is_empty())
    {
        at.warn(
            c::LIFECYCLE_PLATFORM,
            name,
            format!("{path}.name is empty"),
            "name the platform, e.g. \"openshift\"",
        );
    }
    let Some(versions) = at.required(p, "versions", path, "list") else {
        return;
    };
    if !at.non_empty(versions, &format!("{path}.versions"), "platform version") {
        return;
    }
    for (k, v) in versions.as_seq().unwrap_or_default().iter().enumerate() {
        let field = format!("{path}.versions[{k}]");
        let Some(text) = at.typed(v, &field, "string").and_then(Node::as_str) else {
            continue;
        };
        if !is_major_minor(text) {
            at.warn(
                c::LIFECYCLE_PLATFORM,
                v,
                format!("{field} {} is not MAJOR.MINOR", go_quote(text)),
                "name the platform's minor version, e.g. \"4.17\"",
            );
        }
    }
}

/// The package-wide rules: one lifecycle blob per package, of a package the catalog defines; and
/// each blob's own problems.
pub(super) fn package(cx: &Cx, idx: &PackageIndex, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let ids: Vec<BlobId> = idx
        .others
        .iter()
        .copied()
        .filter(|&id| cat.blob(id).schema() == SCHEMA)
        .collect();
    let Some(&first) = ids.first() else {
        return;
    };
    let q = go_quote(&idx.name);
    if idx.packages.is_empty() {
        let node = &cat.blob(first).value;
        out.push(
            Diagnostic::warning(
                c::LIFECYCLE_UNKNOWN_PACKAGE,
                cat.node_location(first, node.get("package").unwrap_or(node)),
                format!("lifecycle of package {q}: the catalog defines no package {q}"),
            )
            .with_hint("name a package of this catalog, or remove the lifecycle blob"),
        );
    }
    for &id in &ids[1..] {
        out.push(
            Diagnostic::warning(
                c::LIFECYCLE_DUPLICATE,
                cat.location(id),
                format!(
                    "package {q} has {} lifecycle blobs: the console shows \"No data\" when there is more than one",
                    ids.len()
                ),
            )
            .with_hint("keep one lifecycle blob per package, with every version in it")
            .with_related([cat.location(first)]),
        );
    }
    for &id in &ids {
        blob(cx, id, out);
    }
}
