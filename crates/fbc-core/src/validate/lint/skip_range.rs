//! Lints of an entry's skipRange: blang/semver quirks (FBC110), a range that matches no version of
//! the package (FBC100), a range reaching above the entry's own version (FBC101).

use crate::catalog::BlobId;
use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::ChannelEntry;
use crate::catalog::semver_range::{Op, Range, Version};
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;
use crate::validate::rules::Pkg;

/// An entry's skipRange as its lints see it.
struct SkipRange<'a> {
    raw: &'a str,
    range: Range,
    /// Where the skipRange is written.
    at: crate::catalog::Location,
    channel: &'a str,
    entry: &'a str,
    /// The range, quoted.
    q: String,
}

impl SkipRange<'_> {
    fn diag(&self, d: Diagnostic) -> Diagnostic {
        d.in_channel(self.channel).for_bundle(self.entry)
    }

    fn warning(&self, code: &'static str, msg: String) -> Diagnostic {
        self.diag(Diagnostic::warning(code, self.at.clone(), msg))
    }

    fn info(&self, code: &'static str, msg: String) -> Diagnostic {
        self.diag(Diagnostic::info(code, self.at.clone(), msg))
    }
}

/// The lints of an entry's (valid) skipRange: FBC110, FBC100, FBC101.
pub(super) fn skip_range(
    cx: &Cx,
    p: &Pkg,
    id: BlobId,
    ch: &str,
    e: &ChannelEntry,
    out: &mut Vec<Diagnostic>,
) {
    let Some(raw) = e.skip_range else { return };
    let Ok(range) = Range::parse(raw) else { return };
    let node = e.node.get_field("skipRange").unwrap_or(e.node);
    let sr = SkipRange {
        raw,
        range,
        at: cx.catalog.node_location(id, node),
        channel: ch,
        entry: e.name,
        q: go_quote(raw),
    };
    skip_range_quirks(&sr, out);
    skip_range_matches_nothing(p, &sr, out);
    if let Some((own, _)) = p.versions.get(e.name) {
        skip_range_above_version(p, &sr, own, out);
    }
}

/// FBC110: quirks of blang/semver: what is written is not what is matched.
fn skip_range_quirks(sr: &SkipRange, out: &mut Vec<Diagnostic>) {
    let q = &sr.q;
    if !sr.range.dropped.is_empty() {
        out.push(
            sr.warning(
                c::SKIP_RANGE_QUIRK,
                format!(
                    "skipRange {q}: one-character part(s) {} are silently ignored",
                    sr.range.dropped.join(", ")
                ),
            )
            .with_hint("remove them, or join an operator to its version"),
        );
    }
    for token in sr.raw.split(' ') {
        let t = token.trim();
        if t.contains(".x.x") || t.contains(".X.X") {
            out.push(
                sr.warning(
                    c::SKIP_RANGE_QUIRK,
                    format!("skipRange {q}: `{t}` matches only its first minor version (blang/semver reads `1.x.x` as `1.0.x`)"),
                )
                .with_hint("write the bounds out, e.g. `>=1.0.0 <2.0.0`"),
            );
        }
        if t.starts_with('!') && t.contains('x') {
            out.push(
                sr.warning(
                    c::SKIP_RANGE_QUIRK,
                    format!("skipRange {q}: `{t}` with a wildcard matches nothing in blang/semver"),
                )
                .with_hint("write the excluded interval as two alternatives: `<1.0.0 || >=1.1.0`"),
            );
        }
    }
}

/// FBC100: the skipRange matches some version of the package.
fn skip_range_matches_nothing(p: &Pkg, sr: &SkipRange, out: &mut Vec<Diagnostic>) {
    let (range, versions) = (&sr.range, &p.sorted_versions);
    if versions.is_empty() || versions.iter().any(|v| range.matches(v)) {
        return;
    }
    // A range entirely below the package's oldest version covers releases pruned from the
    // catalog that clusters may still run: normal, a note. One that can never match, or that
    // lies among the package's versions and still misses them all, is worth a look.
    let empty = range.alternatives.iter().all(|alt| {
        let lower = alt
            .iter()
            .filter(|c| matches!(c.op, Op::Gt | Op::Ge | Op::Eq))
            .max_by(|a, b| a.version.cmp(&b.version));
        let upper = alt
            .iter()
            .filter(|c| matches!(c.op, Op::Lt | Op::Le | Op::Eq))
            .min_by(|a, b| a.version.cmp(&b.version));
        lower.zip(upper).is_some_and(|(l, u)| {
            l.version > u.version || (l.version == u.version && (l.op == Op::Gt || u.op == Op::Lt))
        })
    });
    let below = range.alternatives.iter().all(|alt| {
        alt.iter()
            .any(|c| matches!(c.op, Op::Lt | Op::Le) && c.version <= versions[0])
    });
    let message = format!(
        "skipRange {} matches no version of package {} (its versions go from {} to {})",
        sr.q,
        go_quote(p.name),
        versions[0],
        versions[versions.len() - 1]
    );
    out.push(if empty {
        sr.warning(c::SKIP_RANGE_MATCHES_NOTHING, format!("{message}; its lower bound is not below its upper bound, so it can never match"))
            .with_hint("fix the bounds: `>=A <B` needs A below B")
    } else if below {
        sr.info(c::SKIP_RANGE_MATCHES_NOTHING, format!("{message}: it covers only older releases, no longer in the catalog"))
    } else {
        sr.warning(c::SKIP_RANGE_MATCHES_NOTHING, message).with_hint(
            "fine if it covers releases no longer in the catalog that clusters may still run; otherwise check the bounds",
        )
    });
}

/// FBC101: the skipRange stays below the entry's own version `own`.
fn skip_range_above_version(p: &Pkg, sr: &SkipRange, own: &Version, out: &mut Vec<Diagnostic>) {
    let (range, q) = (&sr.range, &sr.q);
    // The lowest upper bound of each alternative; an alternative without one is unbounded.
    let mut above: Option<String> = None;
    for alt in &range.alternatives {
        let upper = alt
            .iter()
            .filter(|cmp| matches!(cmp.op, Op::Lt | Op::Le | Op::Eq))
            .min_by(|a, b| a.version.cmp(&b.version));
        match upper {
            None => {
                above = Some("has no upper bound".to_string());
                break;
            }
            Some(cmp) if cmp.version > *own => {
                above = Some(format!("reaches up to {}{}", cmp.op.as_str(), cmp.version));
            }
            Some(_) => {}
        }
    }
    let Some(why) = above else {
        return;
    };
    let newer: Vec<String> = p
        .sorted_versions
        .iter()
        .filter(|v| *v > own && range.matches(v))
        .map(|v| v.to_string())
        .collect();
    // An upper bound of the entry's own release (`<4.17.0` on `4.17.0-202409100034`) is above
    // its prerelease version only by prerelease ordering; if it matches nothing but builds of
    // that same release, it is a common convention, worth a note only.
    let same_release =
        |v: &Version| (v.major, v.minor, v.patch) == (own.major, own.minor, own.patch);
    let bound_is_own_release = range.alternatives.iter().all(|alt| {
        alt.iter()
            .filter(|cmp| matches!(cmp.op, Op::Lt | Op::Le | Op::Eq))
            .min_by(|a, b| a.version.cmp(&b.version))
            .is_some_and(|cmp| {
                cmp.op == Op::Lt && cmp.version.pre.is_empty() && same_release(&cmp.version)
            })
    });
    if bound_is_own_release && !own.pre.is_empty() {
        out.push(sr.info(
            c::SKIP_RANGE_ABOVE_VERSION,
            format!(
                "skipRange {q} of {} ends at its own release {}.{}.{}, above its prerelease version {own}: it also matches {} newer build{} of that release",
                go_quote(sr.entry),
                own.major,
                own.minor,
                own.patch,
                newer.len(),
                if newer.len() == 1 { "" } else { "s" }
            ),
        ));
        return;
    }
    let tail = if newer.is_empty() {
        String::new()
    } else {
        format!("; it matches newer versions: {}", newer.join(", "))
    };
    out.push(
        sr.warning(
            c::SKIP_RANGE_ABOVE_VERSION,
            format!(
                "skipRange {q} of {} {why}, above the entry's own version {own}{tail}",
                go_quote(sr.entry)
            ),
        )
        .with_hint(format!(
            "end the range below the entry's version, e.g. `<{own}`"
        )),
    );
}
