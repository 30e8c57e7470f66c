//! FBC103: `replaces` and `skips` naming a bundle in no channel of the package.
//!
//! Most such names are releases pruned from the catalog long ago, which OLM tolerates (a cluster
//! still running one upgrades by name): a catalog that keeps skipping them draws hundreds. Those
//! are one note per channel, listing every place. A warning is kept for the names worth acting on:
//! a bundle of another package (edges work within a package only) and a name that looks like a
//! typo of one the package has.

use super::Cx;
use super::codes as c;
use super::rules::Pkg;
use crate::catalog::BlobId;
use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::ChannelEntry;
use crate::catalog::node::Node;
use crate::catalog::semver_range::Version;
use crate::graph::Chain;
use crate::text::escape::go_quote;

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
    let other_package = |name: &str| {
        cx.catalog
            .index()
            .packages()
            .find(|q| q.name != p.name && q.bundle(name).is_some())
            .map(|q| q.name.clone())
    };
    // (entry, field, target, where) of the names pruned from the catalog.
    let mut pruned: Vec<(&str, &str, &str, crate::catalog::Location)> = Vec::new();
    for e in entries {
        let mut targets: Vec<(&str, &str, &Node)> = Vec::new();
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
        for (field, target, node) in targets {
            if target.is_empty() || !p.idx.channels_listing(target).is_empty() {
                continue;
            }
            let at = cx.catalog.node_location(id, node);
            if let Some(q) = other_package(target) {
                out.push(
                    Diagnostic::warning(
                        c::DANGLING_EDGE,
                        at,
                        format!(
                            "{} {field} {}, which is in no channel of package {} (it is a bundle of package {})",
                            go_quote(e.name),
                            go_quote(target),
                            go_quote(p.name),
                            go_quote(&q)
                        ),
                    )
                    .with_hint("edges only work within a package: name a bundle of this package")
                    .in_channel(ch)
                    .for_bundle(e.name),
                );
            } else if let Some(b) = near(p, target) {
                out.push(
                    Diagnostic::warning(
                        c::DANGLING_EDGE,
                        at,
                        format!(
                            "{} {field} {}, which is in no channel of package {}; the package has {}",
                            go_quote(e.name),
                            go_quote(target),
                            go_quote(p.name),
                            go_quote(b)
                        ),
                    )
                    .with_hint(format!("did you mean {b}?"))
                    .in_channel(ch)
                    .for_bundle(e.name),
                );
            } else if field == "replaces" && tail == Some(e.name) {
                out.push(
                    Diagnostic::info(
                        c::DANGLING_EDGE,
                        at,
                        format!(
                            "the channel's oldest entry {} replaces {}, which is in no channel of the package (usually an older, pruned release)",
                            go_quote(e.name),
                            go_quote(target)
                        ),
                    )
                    .in_channel(ch)
                    .for_bundle(e.name),
                );
            } else {
                pruned.push((e.name, field, target, at));
            }
        }
    }
    match pruned.as_slice() {
        [] => {}
        [(entry, field, target, at)] => out.push(
            Diagnostic::info(
                c::DANGLING_EDGE,
                at.clone(),
                format!(
                    "{} {field} {}, which is in no channel of package {} (a release pruned from the catalog, which OLM tolerates)",
                    go_quote(entry),
                    go_quote(target),
                    go_quote(p.name)
                ),
            )
            .in_channel(ch)
            .for_bundle(entry),
        ),
        [(_, _, first, at), .., (_, _, last, _)] => {
            let n = pruned.len();
            let fields: Vec<&str> = {
                let mut f: Vec<&str> = pruned.iter().map(|x| x.1).collect();
                f.sort_unstable();
                f.dedup();
                f
            };
            out.push(
                Diagnostic::info(
                    c::DANGLING_EDGE,
                    at.clone(),
                    format!(
                        "{n} {} in channel {} name bundles in no channel of package {} (releases pruned from the catalog, which OLM tolerates): {first} … {last}",
                        fields.join("/"),
                        go_quote(ch),
                        go_quote(p.name)
                    ),
                )
                .with_related(pruned[1..].iter().map(|x| x.3.clone()))
                .in_channel(ch),
            );
        }
    }
}
