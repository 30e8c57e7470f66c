//! Lints of a channel: an entry linked only by a skipRange, which opm counts as a second head
//! (FBC102), and a head without CSV metadata (FBC107).

use crate::catalog::BlobId;
use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::{ChannelEntry, property_type};
use crate::catalog::semver_range::Range;
use crate::graph::Chain;
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;
use crate::validate::rules::Pkg;

fn entry_at(cx: &Cx, id: BlobId, e: &ChannelEntry) -> crate::catalog::Location {
    cx.catalog.node_location(id, e.node)
}

pub(super) fn skip_range_only(
    cx: &Cx,
    p: &Pkg,
    id: BlobId,
    ch: &str,
    entries: &[ChannelEntry],
    chain: &Chain,
    out: &mut Vec<Diagnostic>,
) {
    let Chain::MultipleHeads(heads) = chain else {
        return;
    };
    for &h in heads {
        let Some((version, _)) = p.versions.get(h) else {
            continue;
        };
        let by = entries.iter().find(|e| {
            e.name != h
                && e.skip_range
                    .and_then(|r| Range::parse(r).ok())
                    .is_some_and(|r| r.matches(version))
        });
        let (Some(by), Some(entry)) = (by, entries.iter().find(|e| e.name == h)) else {
            continue;
        };
        out.push(
            Diagnostic::warning(
                c::SKIP_RANGE_ONLY,
                entry_at(cx, id, entry),
                format!(
                    "entry {} is linked only by the skipRange of {}; opm ignores skipRange when finding the head, so it counts as a second head",
                    go_quote(h),
                    go_quote(by.name)
                ),
            )
            .in_channel(ch)
            .for_bundle(h)
            .with_related([entry_at(cx, id, by)])
            .with_hint(format!(
                "also list it in {}'s `skips` (or make {} `replaces: {h}`)",
                by.name, by.name
            )),
        );
    }
}

pub(super) fn head_metadata(
    cx: &Cx,
    p: &Pkg,
    id: BlobId,
    ch: &str,
    entries: &[ChannelEntry],
    chain: &Chain,
    out: &mut Vec<Diagnostic>,
) {
    let head = match chain {
        Chain::Valid { head, .. } | Chain::Stranded { head, .. } => *head,
        _ => return,
    };
    let Some((_, b)) = p.bundle(head) else { return };
    let has = b.properties.iter().any(|pr| {
        pr.type_ == property_type::CSV_METADATA || pr.type_ == property_type::BUNDLE_OBJECT
    });
    if has {
        return;
    }
    let Some(entry) = entries.iter().find(|e| e.name == head) else {
        return;
    };
    out.push(
        Diagnostic::warning(
            c::HEAD_WITHOUT_METADATA,
            entry_at(cx, id, entry),
            format!(
                "head {} of channel {} has neither olm.csv.metadata nor olm.bundle.object: consoles show the package without description, icon or CRD details",
                go_quote(head),
                go_quote(ch)
            ),
        )
        .in_channel(ch)
        .for_bundle(head)
        .with_hint("render the bundle with `opm render --migrate-level bundle-object-to-csv-metadata` to add olm.csv.metadata"),
    );
}
