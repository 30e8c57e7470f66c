//! opm's rules for `olm.channel`s and their entries: a known package, a name, defined once, entries
//! listed once and backed by a bundle, valid skips and skipRange, and one upgrade chain with one head.

use crate::guard::keyed::Map;

use super::Pkg;
use crate::catalog::diagnostic::{Diagnostic, OpmStage};
use crate::catalog::model::{Channel, ChannelEntry};
use crate::catalog::semver_range::Range;
use crate::catalog::{BlobId, Location};
use crate::graph::{self, Chain};
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;

/// Every rule for the channels of `p`.
pub(super) fn check(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let mut first_of: Map<&str, BlobId> = Map::default();
    // Entries without an olm.bundle, over all channels, for opm's single message.
    let mut missing: Vec<(BlobId, &ChannelEntry)> = Vec::new();
    for (id, ch) in &p.channels {
        let id = *id;
        unknown_package(cx, p, id, ch, out);
        if no_name(cx, p, id, ch, out) || defined_again(cx, p, id, ch, &first_of, out) {
            continue;
        }
        first_of.insert(ch.name, id);
        let mut seen: Map<&str, &ChannelEntry> = Map::default();
        for e in &ch.entries {
            if listed_twice(cx, p, id, ch, e, &seen, out) {
                continue;
            }
            seen.insert(e.name, e);
            if p.idx.bundle(e.name).is_none() {
                missing.push((id, e));
            }
            entry_no_name(cx, id, ch, e, out);
            empty_skips(cx, id, ch, e, out);
            invalid_skip_range(cx, id, ch, e, out);
        }
        chain(cx, id, ch, out);
    }
    entries_without_bundle(cx, p, &missing, out);
}

fn entry_location(cx: &Cx, id: BlobId, e: &ChannelEntry) -> Location {
    cx.catalog.node_location(id, e.node)
}

/// FBC015: the channel's package has an `olm.package`.
fn unknown_package(cx: &Cx, p: &Pkg, id: BlobId, ch: &Channel, out: &mut Vec<Diagnostic>) {
    if !p.idx.packages.is_empty() {
        return;
    }
    let pkg = p.name;
    out.push(
        Diagnostic::error(
            c::CHANNEL_UNKNOWN_PACKAGE,
            cx.catalog.location(id),
            format!(
                "channel {} belongs to package {}, which has no olm.package",
                go_quote(ch.name),
                go_quote(pkg)
            ),
        )
        .in_channel(ch.name)
        .with_hint("add the olm.package object, or fix the channel's `package:`")
        .with_opm(
            OpmStage::Convert,
            format!(
                "unknown package {} for channel {}",
                go_quote(pkg),
                go_quote(ch.name)
            ),
        ),
    );
}

/// FBC016: the channel has a name. True when it has none (nothing more is checked).
fn no_name(cx: &Cx, p: &Pkg, id: BlobId, ch: &Channel, out: &mut Vec<Diagnostic>) -> bool {
    if !ch.name.is_empty() {
        return false;
    }
    out.push(
        Diagnostic::error(
            c::CHANNEL_NO_NAME,
            cx.catalog.location(id),
            "channel has no name",
        )
        .with_opm(
            OpmStage::Convert,
            format!("package {} contains channel with no name", go_quote(p.name)),
        ),
    );
    true
}

/// FBC017: a channel name is defined once per package. True for a second definition (nothing more is
/// checked).
fn defined_again(
    cx: &Cx,
    p: &Pkg,
    id: BlobId,
    ch: &Channel,
    first_of: &Map<&str, BlobId>,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let Some(&first) = first_of.get(ch.name) else {
        return false;
    };
    let cat = cx.catalog;
    out.push(
        Diagnostic::error(
            c::DUPLICATE_CHANNEL,
            cat.location(id),
            format!("channel {} is defined again", go_quote(ch.name)),
        )
        .in_channel(ch.name)
        .with_related([cat.location(first)])
        .with_hint("merge the entries into one olm.channel object")
        .with_opm(
            OpmStage::Convert,
            format!(
                "package {} has duplicate channel {}",
                go_quote(p.name),
                go_quote(ch.name)
            ),
        ),
    );
    true
}

/// FBC018: an entry is listed once per channel. True for a second listing (nothing more is checked).
fn listed_twice(
    cx: &Cx,
    p: &Pkg,
    id: BlobId,
    ch: &Channel,
    e: &ChannelEntry,
    seen: &Map<&str, &ChannelEntry>,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let Some(prev) = seen.get(e.name) else {
        return false;
    };
    out.push(
        Diagnostic::error(
            c::DUPLICATE_ENTRY,
            entry_location(cx, id, e),
            format!(
                "entry {} is listed twice in channel {}",
                go_quote(e.name),
                go_quote(ch.name)
            ),
        )
        .in_channel(ch.name)
        .for_bundle(e.name)
        .with_related([entry_location(cx, id, prev)])
        .with_hint("keep one entry and merge its replaces/skips/skipRange")
        .with_opm(
            OpmStage::Convert,
            format!(
                "invalid package {}, channel {}: duplicate entry {}",
                go_quote(p.name),
                go_quote(ch.name),
                go_quote(e.name)
            ),
        ),
    );
    true
}

/// FBC054: an entry has a name.
fn entry_no_name(cx: &Cx, id: BlobId, ch: &Channel, e: &ChannelEntry, out: &mut Vec<Diagnostic>) {
    if !e.name.is_empty() {
        return;
    }
    out.push(
        Diagnostic::error(
            c::ENTRY_NO_NAME,
            entry_location(cx, id, e),
            format!("an entry of channel {} has no name", go_quote(ch.name)),
        )
        .in_channel(ch.name)
        .for_bundle("")
        .with_opm(OpmStage::Bundle, "name must be set"),
    );
}

/// FBC050: no empty string in `skips`.
fn empty_skips(cx: &Cx, id: BlobId, ch: &Channel, e: &ChannelEntry, out: &mut Vec<Diagnostic>) {
    for (i, s) in e.skips.iter().enumerate() {
        if !s.is_empty() {
            continue;
        }
        let node = e
            .node
            .get_field("skips")
            .and_then(|n| n.as_seq())
            .and_then(|items| items.get(i))
            .unwrap_or(e.node);
        out.push(
            Diagnostic::error(
                c::EMPTY_SKIP,
                cx.catalog.node_location(id, node),
                format!("skips[{i}] of entry {} is empty", go_quote(e.name)),
            )
            .in_channel(ch.name)
            .for_bundle(e.name)
            .with_hint("remove the empty item")
            .with_opm(OpmStage::Bundle, format!("skip[{i}] is empty")),
        );
    }
}

/// FBC051: `skipRange` is a valid range.
fn invalid_skip_range(
    cx: &Cx,
    id: BlobId,
    ch: &Channel,
    e: &ChannelEntry,
    out: &mut Vec<Diagnostic>,
) {
    let Some(r) = e.skip_range else {
        return;
    };
    let Err(err) = Range::parse(r) else {
        return;
    };
    let node = e.node.get_field("skipRange").unwrap_or(e.node);
    out.push(
        Diagnostic::error(
            c::SKIP_RANGE,
            cx.catalog.node_location(id, node),
            format!("skipRange {} is not a valid range: {err}", go_quote(r)),
        )
        .in_channel(ch.name)
        .for_bundle(e.name)
        .with_hint(skip_range_hint(r))
        .with_opm(
            OpmStage::Bundle,
            format!("invalid skipRange {}: {err}", go_quote(r)),
        ),
    );
}

/// A suggestion for the usual mistakes in ranges.
fn skip_range_hint(r: &str) -> String {
    let t = r.trim();
    if t.contains('v') {
        "write versions without a leading `v`, e.g. `>=1.0.0 <1.2.0`".into()
    } else if t.contains(',') {
        "separate comparators with a space, not a comma: `>=1.0.0 <1.2.0`".into()
    } else if t.contains('~') || t.contains('^') {
        "`~` and `^` are not supported; write the bounds out: `>=1.2.0 <1.3.0`".into()
    } else if t.contains("||") && !t.contains(" || ") {
        "put spaces around `||`".into()
    } else {
        "ranges are comparators separated by spaces, e.g. `>=1.0.0 <1.2.0`".into()
    }
}

/// FBC043–FBC047: the channel's upgrade chain, as opm computes it, has entries, one head, no cycle
/// and no stranded entry.
fn chain(cx: &Cx, id: BlobId, ch: &Channel, out: &mut Vec<Diagnostic>) {
    let at = cx.catalog.location(id);
    let name = ch.name;
    let locate = |n: &str| ch.entry(n).map(|e| entry_location(cx, id, e));
    let d = match graph::check_chain(&ch.entries) {
        Chain::Valid { .. } => return,
        Chain::Empty => Diagnostic::error(
            c::CHANNEL_EMPTY,
            at,
            format!("channel {} has no entries", go_quote(name)),
        )
        .with_hint("list at least one bundle in `entries`, or remove the channel")
        .with_opm(
            OpmStage::Channel,
            "channel must contain at least one bundle",
        ),
        Chain::NoHead => Diagnostic::error(
            c::NO_HEAD,
            at,
            format!(
                "channel {} has no head: every entry is replaced or skipped by another",
                go_quote(name)
            ),
        )
        .with_hint("look for a replaces/skips loop; the newest entry must not be referenced")
        .with_opm(OpmStage::Channel, "no channel head found in graph"),
        Chain::MultipleHeads(heads) => multiple_heads(name, at, &heads, &locate),
        Chain::Cycle(path) => cycle(name, at, &path, &locate),
        Chain::Stranded { head, stranded, .. } => {
            stranded_entries(name, at, head, &stranded, &locate)
        }
    };
    out.push(d.in_channel(name));
}

fn multiple_heads(
    name: &str,
    at: Location,
    heads: &[&str],
    locate: &dyn Fn(&str) -> Option<Location>,
) -> Diagnostic {
    Diagnostic::error(
        c::MULTIPLE_HEADS,
        at,
        format!(
            "channel {} has {} heads (entries nothing replaces or skips): {}",
            go_quote(name),
            heads.len(),
            heads.join(", ")
        ),
    )
    .with_related(heads.iter().filter_map(|h| locate(h)))
    .with_hint("link all but the newest head from a newer entry with `replaces` or `skips`")
    .with_opm(
        OpmStage::Channel,
        format!(
            "multiple channel heads found in graph: {}",
            heads.join(", ")
        ),
    )
}

fn cycle(
    name: &str,
    at: Location,
    path: &[&str],
    locate: &dyn Fn(&str) -> Option<Location>,
) -> Diagnostic {
    Diagnostic::error(
        c::CYCLE,
        locate(path[0]).unwrap_or(at),
        format!(
            "channel {} has a replaces cycle: {}",
            go_quote(name),
            path.join(" -> ")
        ),
    )
    .with_related(path.iter().skip(1).filter_map(|n| locate(n)))
    .with_hint("an entry must replace an older one; break the loop")
    .with_opm(
        OpmStage::Channel,
        format!(
            "detected cycle in replaces chain of upgrade graph: {}",
            path.join(" -> ")
        ),
    )
}

fn stranded_entries(
    name: &str,
    at: Location,
    head: &str,
    stranded: &[&str],
    locate: &dyn Fn(&str) -> Option<Location>,
) -> Diagnostic {
    let d = Diagnostic::error(
        c::STRANDED,
        at,
        format!(
            "channel {}: {} neither on the replaces chain from head {} nor skipped by any entry: {}",
            go_quote(name),
            if stranded.len() == 1 { "1 entry is" } else { "entries are" },
            go_quote(head),
            stranded.join(", ")
        ),
    )
    .with_related(stranded.iter().filter_map(|n| locate(n)))
    .with_hint(
        "OLM v0 cannot upgrade from a stranded entry: add it to a newer entry's `skips`, or put it on the replaces chain (a skipped entry's own replaces is ignored)",
    )
    .with_opm(
        OpmStage::Channel,
        format!(
            "channel contains one or more stranded bundles: {}",
            stranded.join(", ")
        ),
    );
    match stranded {
        [one] => d.for_bundle(one),
        _ => d,
    }
}

/// FBC029: every entry has an `olm.bundle` in the package. opm says it once, for all of them: the
/// first diagnostic carries its message.
fn entries_without_bundle(
    cx: &Cx,
    p: &Pkg,
    missing: &[(BlobId, &ChannelEntry)],
    out: &mut Vec<Diagnostic>,
) {
    if missing.is_empty() || p.idx.packages.is_empty() {
        return;
    }
    let pkg = p.name;
    let mut names: Vec<&str> = missing.iter().map(|(_, e)| e.name).collect();
    names.sort_unstable();
    names.dedup();
    let opm = format!(
        "no olm.bundle blobs found in package {} for olm.channel entries [{}]",
        go_quote(pkg),
        names.join(" ")
    );
    for (i, (id, e)) in missing.iter().enumerate() {
        let ch = p
            .channels
            .iter()
            .find(|(cid, _)| cid == id)
            .map_or("", |(_, ch)| ch.name);
        let mut d = Diagnostic::error(
            c::ENTRY_WITHOUT_BUNDLE,
            entry_location(cx, *id, e),
            format!(
                "entry {} of channel {} has no olm.bundle in package {}",
                go_quote(e.name),
                go_quote(ch),
                go_quote(pkg)
            ),
        )
        .in_channel(ch)
        .for_bundle(e.name)
        .with_hint("add the olm.bundle object, or remove the entry (re-linking its neighbours)");
        if i == 0 {
            d = d.with_opm(OpmStage::Convert, opm.clone());
        }
        out.push(d);
    }
}
