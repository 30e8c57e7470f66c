//! FBC103: `replaces` and `skips` naming a bundle in no channel of the package.
//!
//! Most such names are releases pruned from the catalog long ago, which OLM tolerates (a cluster
//! still running one upgrades by name): a catalog that keeps skipping them draws hundreds. Those
//! are one note per channel, listing every place. A warning is kept for the names worth acting on:
//! a bundle of another package (edges work within a package only) and a name that looks like a
//! typo of one the package has.

use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::ChannelEntry;
use crate::catalog::node::Node;
use crate::catalog::semver_range::Version;
use crate::catalog::{BlobId, Location};
use crate::graph::Chain;
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;
use crate::validate::rules::Pkg;

/// The version written in a bundle name (`foo.v1.2.0`, `foo-1.2.0`), if any.
fn version_in(name: &str) -> Option<Version> {
    let bytes = name.as_bytes();
    (0..bytes.len())
        .filter(|&i| bytes[i].is_ascii_digit() && (i == 0 || b".v-_".contains(&bytes[i - 1])))
        .find_map(|i| Version::parse(&name[i..]).ok())
}

/// The bundle of the package that `name` probably means: the same name in another case, or another
/// name for the same version (`foo.1.2.0` for `foo.v1.2.0`). Names of other versions are not typos:
/// they are the pruned releases this rule is mostly about.
fn near<'p>(p: &Pkg<'p>, name: &str) -> Option<&'p str> {
    if let Some((_, b)) = p
        .bundles
        .iter()
        .find(|(_, b)| b.name != name && b.name.eq_ignore_ascii_case(name))
    {
        return Some(b.name);
    }
    let v = version_in(name)?;
    p.versions
        .iter()
        .filter(|(b, (bv, _))| **b != name && *bv == v)
        .map(|(b, _)| *b)
        .min()
}

/// One `replaces` or `skips` link of an entry to a name in no channel of the package.
struct Edge<'a> {
    entry: &'a str,
    field: &'static str,
    target: &'a str,
    at: Location,
}

pub(super) fn check(
    cx: &Cx,
    p: &Pkg,
    id: BlobId,
    ch: &str,
    entries: &[ChannelEntry],
    chain: &Chain,
    out: &mut Vec<Diagnostic>,
) {
    let tail = match chain {
        Chain::Valid { chain, .. } | Chain::Stranded { chain, .. } => chain.last().copied(),
        _ => None,
    };
    // The names pruned from the catalog.
    let mut pruned: Vec<Edge> = Vec::new();
    for e in entries {
        for (field, target, node) in links(e) {
            if target.is_empty() || !p.idx.channels_listing(target).is_empty() {
                continue;
            }
            let edge = Edge {
                entry: e.name,
                field,
                target,
                at: cx.catalog.node_location(id, node),
            };
            match worth_a_look(cx, p, &edge, tail) {
                Some(d) => out.push(d.in_channel(ch).for_bundle(e.name)),
                None => pruned.push(edge),
            }
        }
    }
    pruned_note(p, ch, &pruned, out);
}

/// The entry's `replaces` and `skips` with the node each is written at.
fn links<'e>(e: &ChannelEntry<'e>) -> Vec<(&'static str, &'e str, &'e Node)> {
    let mut targets: Vec<(&'static str, &'e str, &'e Node)> = Vec::new();
    if let Some(r) = e.replaces {
        targets.push((
            "replaces",
            r,
            e.node.get_field("replaces").unwrap_or(e.node),
        ));
    }
    let skip_nodes = e.node.get_field("skips").and_then(Node::as_seq);
    for (i, s) in e.skips.iter().enumerate() {
        let node = skip_nodes.and_then(|n| n.get(i)).unwrap_or(e.node);
        targets.push(("skips", s, node));
    }
    targets
}

/// A diagnostic of its own for a name worth acting on (a bundle of another package, a likely typo)
/// or for the oldest entry's `replaces`; `None` for a release pruned from the catalog.
fn worth_a_look(cx: &Cx, p: &Pkg, edge: &Edge, tail: Option<&str>) -> Option<Diagnostic> {
    let Edge {
        entry,
        field,
        target,
        at,
    } = edge;
    let other_package = cx
        .catalog
        .index()
        .packages()
        .find(|q| q.name != p.name && q.bundle(target).is_some())
        .map(|q| q.name.clone());
    if let Some(q) = other_package {
        return Some(
            Diagnostic::warning(
                c::DANGLING_EDGE,
                at.clone(),
                format!(
                    "{} {field} {}, which is in no channel of package {} (it is a bundle of package {})",
                    go_quote(entry),
                    go_quote(target),
                    go_quote(p.name),
                    go_quote(&q)
                ),
            )
            .with_hint("edges only work within a package: name a bundle of this package"),
        );
    }
    if let Some(b) = near(p, target) {
        return Some(
            Diagnostic::warning(
                c::DANGLING_EDGE,
                at.clone(),
                format!(
                    "{} {field} {}, which is in no channel of package {}; the package has {}",
                    go_quote(entry),
                    go_quote(target),
                    go_quote(p.name),
                    go_quote(b)
                ),
            )
            .with_hint(format!("did you mean {b}?")),
        );
    }
    if *field == "replaces" && tail == Some(*entry) {
        return Some(Diagnostic::info(
            c::DANGLING_EDGE,
            at.clone(),
            format!(
                "the channel's oldest entry {} replaces {}, which is in no channel of the package (usually an older, pruned release)",
                go_quote(entry),
                go_quote(target)
            ),
        ));
    }
    None
}

/// One note for all the names pruned from the catalog in a channel.
fn pruned_note(p: &Pkg, ch: &str, pruned: &[Edge], out: &mut Vec<Diagnostic>) {
    match pruned {
        [] => {}
        [one] => out.push(
            Diagnostic::info(
                c::DANGLING_EDGE,
                one.at.clone(),
                format!(
                    "{} {} {}, which is in no channel of package {} (a release pruned from the catalog, which OLM tolerates)",
                    go_quote(one.entry),
                    one.field,
                    go_quote(one.target),
                    go_quote(p.name)
                ),
            )
            .in_channel(ch)
            .for_bundle(one.entry),
        ),
        [first, .., last] => {
            let n = pruned.len();
            let mut fields: Vec<&str> = pruned.iter().map(|x| x.field).collect();
            fields.sort_unstable();
            fields.dedup();
            out.push(
                Diagnostic::info(
                    c::DANGLING_EDGE,
                    first.at.clone(),
                    format!(
                        "{n} {} in channel {} name bundles in no channel of package {} (releases pruned from the catalog, which OLM tolerates): {} … {}",
                        fields.join("/"),
                        go_quote(ch),
                        go_quote(p.name),
                        first.target,
                        last.target
                    ),
                )
                .with_related(pruned[1..].iter().map(|x| x.at.clone()))
                .in_channel(ch),
            );
        }
    }
}
