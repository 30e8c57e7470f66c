//! Checks opm does not make. They report mistakes that pass `opm validate` but hurt users of the catalog
//! (or that opm rejects with a message that does not say why). None of them is an error.

use std::collections::HashSet;

use super::Cx;
use super::codes as c;
use super::rules::Pkg;
use super::shape::Path;
use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::{ChannelEntry, PropertyValue, property_type};
use crate::catalog::node::{Kind, Node, Style};
use crate::catalog::semver_range::{Op, Range, Version};
use crate::catalog::{BlobId, Format, schema};
use crate::graph::{self, Chain};
use crate::text::escape::go_quote;

const SCHEMAS: [&str; 4] = [
    schema::PACKAGE,
    schema::CHANNEL,
    schema::BUNDLE,
    schema::DEPRECATIONS,
];

/// Template schemas: input to `opm alpha render-template`, not catalog content.
const TEMPLATE_SCHEMAS: [&str; 5] = [
    "olm.template.basic",
    "olm.semver",
    "olm.template.substitutes",
    "olm.composite",
    "olm.composite.catalogs",
];

/// Property types OLM, opm or the console understand (including the legacy `olm.skips` and
/// `olm.skipRange` of early file-based catalogs).
const PROPERTY_TYPES: [&str; 15] = [
    property_type::PACKAGE,
    property_type::PACKAGE_REQUIRED,
    property_type::GVK,
    property_type::GVK_REQUIRED,
    property_type::BUNDLE_OBJECT,
    property_type::CSV_METADATA,
    property_type::CHANNEL,
    property_type::CONSTRAINT,
    "olm.maxOpenShiftVersion",
    "olm.label",
    "olm.label.required",
    "olm.bundle.mediatype",
    "olm.substitutesFor",
    "olm.deprecated",
    "olm.skipRange",
];

const LEGACY_PROPERTY_TYPES: [&str; 1] = ["olm.skips"];

/// Lints for blobs that belong to no package.
pub fn unowned(cx: &Cx, ids: &[BlobId], out: &mut Vec<Diagnostic>) {
    for &id in ids {
        unknown_schema(cx, id, out);
        yaml_traps(cx, id, out);
    }
}

/// Lints for one package.
pub fn package(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let mut d = Vec::new();
    let idx = p.idx;
    for &id in idx
        .packages
        .iter()
        .chain(&idx.channels)
        .chain(&idx.bundles)
        .chain(&idx.deprecations)
        .chain(&idx.others)
    {
        unknown_schema(cx, id, &mut d);
        yaml_traps(cx, id, &mut d);
        unknown_properties(cx, id, &mut d);
    }
    for (id, ch) in p.model_channels() {
        let chain = graph::check_chain(&ch.entries);
        for e in &ch.entries {
            skip_range(cx, p, *id, ch.name, e, &mut d);
        }
        skip_range_only(cx, p, *id, ch.name, &ch.entries, &chain, &mut d);
        super::dangling::check(cx, p, *id, ch.name, &ch.entries, &chain, &mut d);
        head_metadata(cx, p, *id, ch.name, &ch.entries, &chain, &mut d);
    }
    bundles(cx, p, &mut d);
    for diag in &mut d {
        if diag.object.package.is_none() {
            diag.object.package = Some(p.name.to_string());
        }
    }
    out.append(&mut d);
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known name closest to `name`, if it looks like a typo of it.
fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let lower = name.to_lowercase();
    let by_spelling = known
        .iter()
        .map(|k| (levenshtein(&lower, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, k)| k);
    // An old or reworded name sharing the word: `olm.catalog.deprecation` for `olm.deprecations`.
    by_spelling.or_else(|| {
        known.iter().copied().find(|k| {
            let word = k.rsplit('.').next().unwrap_or(k).to_lowercase();
            word.len() >= 6 && lower.contains(&word[..word.len().min(8)])
        })
    })
}

fn unknown_schema(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let s = cat.blob(id).schema();
    if !s.starts_with("olm.") || SCHEMAS.contains(&s) {
        return;
    }
    let at = cat
        .blob(id)
        .value
        .get_field("schema")
        .map_or_else(|| cat.location(id), |n| cat.node_location(id, n));
    let d = if TEMPLATE_SCHEMAS.contains(&s) {
        Diagnostic::warning(
            c::UNKNOWN_SCHEMA,
            at,
            format!("{s} is a template schema: in a catalog opm keeps it as an unknown object and never checks it"),
        )
        .with_hint("render templates with `opm alpha render-template` and keep them outside the catalog directory (or list them in .indexignore)")
    } else {
        let hint = match closest(s, &SCHEMAS) {
            Some(k) => format!("did you mean {k}?"),
            None => "catalog objects use olm.package, olm.channel, olm.bundle or olm.deprecations"
                .to_string(),
        };
        Diagnostic::warning(
            c::UNKNOWN_SCHEMA,
            at,
            format!("unknown schema {s}: opm keeps the object but never reads or checks it"),
        )
        .with_hint(hint)
    };
    out.push(d);
}

fn unknown_properties(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let blob = cat.blob(id);
    let Some(props) = blob.value.get_field("properties").and_then(Node::as_seq) else {
        return;
    };
    for (i, p) in props.iter().enumerate() {
        let Some(t) = p.get_field("type").and_then(Node::as_str) else {
            continue;
        };
        if !t.starts_with("olm.")
            || PROPERTY_TYPES.contains(&t)
            || LEGACY_PROPERTY_TYPES.contains(&t)
        {
            continue;
        }
        let node = p.get_field("type").unwrap_or(p);
        let mut d = Diagnostic::warning(
            c::UNKNOWN_PROPERTY,
            cat.node_location(id, node),
            format!("properties[{i}] has unknown type {t}: OLM ignores it"),
        );
        if let Some(k) = closest(t, &PROPERTY_TYPES) {
            d = d.with_hint(format!("did you mean {k}?"));
        }
        if blob.schema() == schema::BUNDLE {
            d = d.for_bundle(blob.name());
        }
        out.push(d);
    }
}

/// YAML 1.1 reads some unquoted scalars as numbers or booleans that a reader takes for text: `1.10`
/// becomes 1.1, `010` becomes 8, `on`/`yes`/`y` become true.
fn yaml_traps(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let blob = cat.blob(id);
    if blob.format != Format::Yaml {
        return;
    }
    let node = blob.original.as_ref().unwrap_or(&blob.value);
    let mut found = Vec::new();
    collect_traps(node, &Path::Root, &mut found);
    for (path, n) in found {
        let len = (n.pos.end - n.pos.start) as usize;
        let Some(text) = cx.read_range(blob.file, u64::from(n.pos.start), len) else {
            continue;
        };
        let read_as = match &n.kind {
            Kind::Bool(b) => format!("the boolean {b}"),
            Kind::Number(v) => format!("the number {v}"),
            _ => continue,
        };
        let mut d = Diagnostic::warning(
            c::YAML_TRAP,
            cat.node_location(id, n),
            format!("{path}: unquoted `{text}` is read by opm (YAML 1.1) as {read_as}"),
        )
        .with_hint(format!("quote it if you mean the text: \"{text}\""));
        if blob.schema() == schema::BUNDLE {
            d = d.for_bundle(blob.name());
        }
        out.push(d);
    }
}

fn collect_traps<'n>(node: &'n Node, path: &Path, out: &mut Vec<(String, &'n Node)>) {
    match &node.kind {
        Kind::Map(entries) => {
            for e in entries {
                collect_traps(&e.value, &Path::Key(path, e.key_str()), out);
            }
        }
        Kind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_traps(item, &Path::Index(path, i), out);
            }
        }
        Kind::Bool(b) if node.style == Style::Plain && node.pos.is_real() => {
            // `true`/`false` in any case are meant; `yes`, `on`, `y`… are the trap.
            let len = node.pos.end.saturating_sub(node.pos.start);
            if len != if *b { 4 } else { 5 } {
                out.push((path.to_string(), node));
            }
        }
        Kind::Number(v) if node.style == Style::Plain && node.pos.is_real() => {
            // The number as opm writes it differs from the text: `1.10`, `010`, `0x1F`, `1_000`.
            let len = node.pos.end.saturating_sub(node.pos.start) as usize;
            if len != v.len() {
                out.push((path.to_string(), node));
            }
        }
        _ => {}
    }
}

fn entry_at(cx: &Cx, id: BlobId, e: &ChannelEntry) -> crate::catalog::Location {
    cx.catalog.node_location(id, e.node)
}

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
fn skip_range(cx: &Cx, p: &Pkg, id: BlobId, ch: &str, e: &ChannelEntry, out: &mut Vec<Diagnostic>) {
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

fn skip_range_only(
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

fn head_metadata(
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

fn bundles(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let mut seen = HashSet::new();
    for (id, b) in &p.bundles {
        if !seen.insert(b.name) {
            continue;
        }
        let id = *id;
        for pr in &b.properties {
            match pr.type_ {
                "olm.bundle.mediatype" if pr.value.as_str() == Some("plain+v0") => out.push(
                    Diagnostic::warning(
                        c::PLAIN_BUNDLE,
                        cat.node_location(id, pr.node),
                        format!(
                            "bundle {} is a plain+v0 bundle: OLM v0 cannot install it from a registry catalog",
                            go_quote(b.name)
                        ),
                    )
                    .for_bundle(b.name),
                ),
                property_type::PACKAGE_REQUIRED => {
                    if let Ok(PropertyValue::PackageRequired(req)) = pr.parse()
                        && let Err(err) = Range::parse(req.version_range)
                    {
                        let node = pr.value.get_field("versionRange").unwrap_or(pr.node);
                        out.push(
                            Diagnostic::warning(
                                c::REQUIRED_RANGE,
                                cat.node_location(id, node),
                                format!(
                                    "bundle {} requires package {} with versionRange {}, which OLM cannot parse: {err}",
                                    go_quote(b.name),
                                    go_quote(req.package_name),
                                    go_quote(req.version_range)
                                ),
                            )
                            .for_bundle(b.name)
                            .with_hint("ranges are comparators separated by spaces, e.g. `>=1.0.0 <2.0.0`"),
                        );
                    }
                }
                _ => {}
            }
        }
        let Some(pp) = b.package_property() else {
            continue;
        };
        if pp.release.is_some() || Version::parse(pp.version).is_err() {
            continue;
        }
        let expected = format!("{}.v{}", p.name, pp.version);
        if b.name != expected {
            let node = b.node.get_field("name").unwrap_or(b.node);
            out.push(
                Diagnostic::info(
                    c::BUNDLE_NAME,
                    cat.node_location(id, node),
                    format!(
                        "bundle name {} differs from the usual {}",
                        go_quote(b.name),
                        go_quote(&expected)
                    ),
                )
                .for_bundle(b.name),
            );
        }
    }
}
