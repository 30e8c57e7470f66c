//! opm's rules for `olm.deprecations`: a known package, one object per package, and entries that
//! have a schema, are listed once, reference something that exists and carry a message.

use crate::guard::keyed::Set;

use super::Pkg;
use crate::catalog::diagnostic::{Diagnostic, OpmStage};
use crate::catalog::model::{DeprecationEntry, Deprecations};
use crate::catalog::{BlobId, Location, schema};
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;

/// Every rule for the deprecations of `p`.
pub(super) fn check(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    for (n, (id, dep)) in p.deprecations.iter().enumerate() {
        unknown_package(cx, p, *id, out);
        if n > 0 {
            defined_again(cx, p, *id, out);
            continue;
        }
        entries(cx, p, *id, dep, out);
    }
}

/// FBC033: the package has an `olm.package`.
fn unknown_package(cx: &Cx, p: &Pkg, id: BlobId, out: &mut Vec<Diagnostic>) {
    if !p.idx.packages.is_empty() {
        return;
    }
    out.push(
        Diagnostic::error(
            c::DEPRECATION_UNKNOWN_PACKAGE,
            cx.catalog.location(id),
            format!(
                "olm.deprecations for package {}, which has no olm.package",
                go_quote(p.name)
            ),
        )
        .with_opm(
            OpmStage::Convert,
            format!(
                "cannot apply deprecations to an unknown package {}",
                go_quote(p.name)
            ),
        ),
    );
}

/// FBC034: one `olm.deprecations` per package (`id` is a second one; its entries are not checked).
fn defined_again(cx: &Cx, p: &Pkg, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    out.push(
        Diagnostic::error(
            c::DUPLICATE_DEPRECATIONS,
            cat.location(id),
            format!(
                "package {} has more than one olm.deprecations object",
                go_quote(p.name)
            ),
        )
        .with_related([cat.location(p.deprecations[0].0)])
        .with_hint("merge the entries into one olm.deprecations object")
        .with_opm(
            OpmStage::Convert,
            format!(
                "expected a maximum of one deprecation per package: {}",
                go_quote(p.name)
            ),
        ),
    );
}

/// One deprecation entry, as its rules see it.
struct Entry<'a> {
    /// Its place among the entries.
    j: usize,
    e: &'a DeprecationEntry<'a>,
    here: Location,
    /// opm's `%#v` of the reference.
    reference: String,
}

/// The rules for each entry of the package's (first) `olm.deprecations`.
fn entries(cx: &Cx, p: &Pkg, id: BlobId, dep: &Deprecations, out: &mut Vec<Diagnostic>) {
    let mut seen: Set<(&str, &str)> = Set::default();
    for (j, e) in dep.entries.iter().enumerate() {
        let entry = Entry {
            j,
            e,
            here: cx.catalog.node_location(id, e.node),
            reference: format!(
                "declcfg.PackageScopedReference{{Schema:{}, Name:{}}}",
                go_quote(e.schema),
                go_quote(e.name)
            ),
        };
        if no_schema(p, &entry, out) || listed_twice(p, &entry, &mut seen, out) {
            continue;
        }
        let Some((stage, object)) = target(p, &entry, out) else {
            continue;
        };
        no_message(p, &entry, stage, object, out);
    }
}

/// FBC035: the entry names the schema of what it deprecates. True when it does not.
fn no_schema(p: &Pkg, entry: &Entry, out: &mut Vec<Diagnostic>) -> bool {
    if !entry.e.schema.is_empty() {
        return false;
    }
    let j = entry.j;
    out.push(
        Diagnostic::error(
            c::DEPRECATION_NO_SCHEMA,
            entry.here.clone(),
            format!("deprecation entry [{j}] has no reference.schema"),
        )
        .with_hint("set reference.schema to olm.package, olm.channel or olm.bundle")
        .with_opm(
            OpmStage::Convert,
            format!(
                "schema must be set for deprecation entry [{j}] for package {}",
                go_quote(p.name)
            ),
        ),
    );
    true
}

/// FBC036: each reference is deprecated once. True for a second listing.
fn listed_twice<'e>(
    p: &Pkg,
    entry: &Entry<'e>,
    seen: &mut Set<(&'e str, &'e str)>,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let e = entry.e;
    if seen.insert((e.schema, e.name)) {
        return false;
    }
    out.push(
        Diagnostic::error(
            c::DUPLICATE_DEPRECATION_ENTRY,
            entry.here.clone(),
            format!(
                "deprecation of {} {} is listed twice",
                e.schema,
                go_quote(e.name)
            ),
        )
        .with_opm(
            OpmStage::Convert,
            format!(
                "duplicate deprecation entry {} for package {}",
                entry.reference,
                go_quote(p.name)
            ),
        ),
    );
    true
}

/// FBC037–FBC040: the entry deprecates a bundle or channel that exists, or the package itself, and
/// nothing else. When it does, where opm reports a missing message, and that diagnostic waiting for
/// its message.
fn target(p: &Pkg, entry: &Entry, out: &mut Vec<Diagnostic>) -> Option<(OpmStage, Diagnostic)> {
    let (e, here, pkg) = (entry.e, entry.here.clone(), p.name);
    let missing = |code, what: &str, found_in: &str| {
        Diagnostic::error(
            code,
            here.clone(),
            format!(
                "deprecation of {what} {}, which package {} does not have",
                go_quote(e.name),
                go_quote(pkg)
            ),
        )
        .with_opm(
            OpmStage::Convert,
            format!(
                "cannot deprecate {what} {} for package {}: {found_in} not found",
                go_quote(e.name),
                go_quote(pkg)
            ),
        )
    };
    let empty = Diagnostic::error(c::DEPRECATION_MESSAGE, here.clone(), "");
    match e.schema {
        schema::BUNDLE if p.idx.bundle(e.name).is_none() => {
            out.push(missing(c::DEPRECATED_BUNDLE_MISSING, "bundle", "bundle").for_bundle(e.name));
            None
        }
        schema::BUNDLE => Some((OpmStage::Bundle, empty.for_bundle(e.name))),
        schema::CHANNEL
            if p.idx.channel(e.name).is_none()
                && (e.name != default_channel(p) || e.name.is_empty()) =>
        {
            out.push(
                missing(c::DEPRECATED_CHANNEL_MISSING, "channel", "channel").in_channel(e.name),
            );
            None
        }
        schema::CHANNEL => Some((OpmStage::Channel, empty.in_channel(e.name))),
        schema::PACKAGE if !e.name.is_empty() => {
            out.push(package_named(pkg, e.name, here));
            None
        }
        schema::PACKAGE => Some((OpmStage::Package, empty)),
        other => {
            out.push(unknown_schema(p, entry, other));
            None
        }
    }
}

fn default_channel<'c>(p: &Pkg<'c>) -> &'c str {
    p.package.as_ref().map_or("", |(_, pk)| pk.default_channel)
}

/// FBC039.
fn package_named(pkg: &str, name: &str, here: Location) -> Diagnostic {
    Diagnostic::error(
        c::DEPRECATED_PACKAGE_NAMED,
        here,
        format!(
            "a package deprecation must not name anything (it names {})",
            go_quote(name)
        ),
    )
    .with_hint("remove reference.name: the deprecation applies to this object's package")
    .with_opm(
        OpmStage::Convert,
        format!(
            "package name must be empty for deprecated package {} (specified {})",
            go_quote(pkg),
            go_quote(name)
        ),
    )
}

/// FBC040.
fn unknown_schema(p: &Pkg, entry: &Entry, other: &str) -> Diagnostic {
    Diagnostic::error(
        c::DEPRECATION_SCHEMA,
        entry.here.clone(),
        format!(
            "cannot deprecate a {} object: only olm.package, olm.channel and olm.bundle",
            go_quote(other)
        ),
    )
    .with_opm(
        OpmStage::Convert,
        format!(
            "cannot deprecate object {} referenced by entry {} for package {}: object schema unknown",
            entry.reference,
            entry.j,
            go_quote(p.name)
        ),
    )
}

/// FBC041: a deprecation says why.
fn no_message(
    p: &Pkg,
    entry: &Entry,
    stage: OpmStage,
    object: Diagnostic,
    out: &mut Vec<Diagnostic>,
) {
    let e = entry.e;
    if !e.message.is_empty() {
        return;
    }
    let mut d = object;
    d.message = format!(
        "deprecation of {} has no message",
        if e.schema == schema::PACKAGE {
            format!("package {}", go_quote(p.name))
        } else {
            format!("{} {}", e.schema, go_quote(e.name))
        }
    );
    out.push(
        d.with_hint("say why, and what to use instead")
            .with_opm(stage, "invalid deprecation: message must be set"),
    );
}
