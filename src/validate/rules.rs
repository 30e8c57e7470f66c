//! opm's rules (`ConvertToModel` and `model.Validate`), each reported wherever it applies instead of
//! stopping at the first, with opm's wording kept for `--output opm`.
//!
//! Deliberate differences from opm, all about *which message* (the verdict is the same):
//! - opm remembers only the last channel's entries when looking for entries without an `olm.bundle`
//!   (its set is overwritten per channel); entries of other channels then fail later with unrelated
//!   messages. We report every such entry as FBC029.
//! - opm silently creates a missing default channel and then complains that it is empty. We report
//!   FBC031 ("default channel … does not exist"), keeping opm's text for `--output opm`.
//! - opm checks a bundle once per channel listing it and repeats the same message; we report it once.
//! - opm walks Go maps, so its order is random; ours follows the files.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::Cx;
use super::codes as c;
use crate::catalog::diagnostic::{Diagnostic, OpmStage};
use crate::catalog::model::{
    Bundle, Channel, ChannelEntry, Deprecations, Package, PropertyValue, property_type,
};
use crate::catalog::semver_range::{Range, Version, parse_release};
use crate::catalog::{BlobId, PackageIndex, image_ref::ImageRef, schema};
use crate::graph::{self, Chain};
use crate::text::escape::go_quote;

/// A package's blobs read through their views (blobs whose view fails are left out: their shape
/// problems are reported by the shape checks).
pub struct Pkg<'c> {
    pub name: &'c str,
    pub idx: &'c PackageIndex,
    /// The first `olm.package` blob.
    pub package: Option<(BlobId, Package<'c>)>,
    pub channels: Vec<(BlobId, Channel<'c>)>,
    pub bundles: Vec<(BlobId, Bundle<'c>)>,
    pub deprecations: Vec<(BlobId, Deprecations<'c>)>,
    /// Bundle name → parsed version (and release), for bundles whose version parses.
    pub versions: HashMap<&'c str, (Version, Vec<crate::catalog::semver_range::Pre>)>,
    /// Those versions, sorted.
    pub sorted_versions: Vec<Version>,
}

impl<'c> Pkg<'c> {
    pub fn read(cx: &Cx<'c>, idx: &'c PackageIndex) -> Pkg<'c> {
        let cat = cx.catalog;
        let package = idx
            .packages
            .first()
            .and_then(|&id| Package::read(&cat.blob(id).value).ok().map(|v| (id, v)));
        let channels: Vec<_> = idx
            .channels
            .iter()
            .filter_map(|&id| Channel::read(&cat.blob(id).value).ok().map(|v| (id, v)))
            .collect();
        let bundles: Vec<_> = idx
            .bundles
            .iter()
            .filter_map(|&id| Bundle::read(&cat.blob(id).value).ok().map(|v| (id, v)))
            .collect();
        let deprecations = idx
            .deprecations
            .iter()
            .filter_map(|&id| {
                Deprecations::read(&cat.blob(id).value)
                    .ok()
                    .map(|v| (id, v))
            })
            .collect();
        let mut versions = HashMap::new();
        for (_, b) in &bundles {
            let Some(p) = b.package_property() else {
                continue;
            };
            if let Ok(v) = Version::parse(p.version) {
                let rel = parse_release(p.release.unwrap_or("")).unwrap_or_default();
                versions.entry(b.name).or_insert((v, rel));
            }
        }
        let mut sorted_versions: Vec<Version> = versions.values().map(|(v, _)| v.clone()).collect();
        sorted_versions.sort();
        Pkg {
            sorted_versions,
            name: &idx.name,
            idx,
            package,
            channels,
            bundles,
            deprecations,
            versions,
        }
    }

    pub fn bundle(&self, name: &str) -> Option<&(BlobId, Bundle<'c>)> {
        self.bundles.iter().find(|(_, b)| b.name == name)
    }

    /// Channels as opm's model has them: the first of each name.
    pub fn model_channels(&self) -> impl Iterator<Item = &(BlobId, Channel<'c>)> {
        let mut seen = HashSet::new();
        self.channels
            .iter()
            .filter(move |(_, ch)| !ch.name.is_empty() && seen.insert(ch.name))
    }
}

/// The version string opm groups duplicates by: `<version>` or `<version>-<release>`.
fn version_string(v: &Version, release: &[crate::catalog::semver_range::Pre]) -> String {
    if release.is_empty() {
        v.to_string()
    } else {
        let rel: Vec<String> = release.iter().map(|p| p.to_string()).collect();
        format!("{v}-{}", rel.join("."))
    }
}

/// Problems of blobs that belong to no package: an `olm.package` without a name, channels, bundles
/// and deprecations without a package.
pub fn unowned(cx: &Cx, ids: &[BlobId], out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    // opm numbers deprecations by their place among all of them (counted only when needed).
    let deprecation_index = |id: BlobId| {
        cat.live_blobs()
            .filter(|(_, b)| b.schema() == schema::DEPRECATIONS)
            .position(|(d, _)| d == id)
            .unwrap_or(0)
    };
    for &id in ids {
        let blob = cat.blob(id);
        let at = cat.location(id);
        let name = blob.name();
        match blob.schema() {
            schema::PACKAGE => out.push(
                Diagnostic::error(c::PACKAGE_NO_NAME, at, "olm.package has no name")
                    .with_opm(OpmStage::Convert, "config contains package with no name"),
            ),
            schema::CHANNEL => out.push(
                Diagnostic::error(
                    c::CHANNEL_UNKNOWN_PACKAGE,
                    at,
                    format!("channel {} names no package", go_quote(name)),
                )
                .with_hint("set `package:` to the name of an olm.package in the catalog")
                .with_opm(
                    OpmStage::Convert,
                    format!("unknown package \"\" for channel {}", go_quote(name)),
                ),
            ),
            schema::BUNDLE => out.push(
                Diagnostic::error(
                    c::BUNDLE_NO_PACKAGE,
                    at,
                    format!("bundle {} names no package", go_quote(name)),
                )
                .with_hint("set `package:` to the package the bundle belongs to")
                .with_opm(
                    OpmStage::Convert,
                    format!("package name must be set for bundle {}", go_quote(name)),
                ),
            ),
            schema::DEPRECATIONS => out.push(
                Diagnostic::error(
                    c::DEPRECATION_NO_PACKAGE,
                    at,
                    "olm.deprecations names no package",
                )
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "package name must be set for deprecation item {}",
                        deprecation_index(id)
                    ),
                ),
            ),
            _ => {}
        }
    }
}

/// opm's rules for one package.
pub fn package(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let mut d = Vec::new();
    packages(cx, p, &mut d);
    channels(cx, p, &mut d);
    bundles(cx, p, &mut d);
    deprecations(cx, p, &mut d);
    for diag in &mut d {
        if diag.object.package.is_none() {
            diag.object.package = Some(p.name.to_string());
        }
    }
    out.append(&mut d);
}

fn packages(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let name = p.name;
    if let Some(&first) = p.idx.packages.first() {
        for &dup in &p.idx.packages[1..] {
            out.push(
                Diagnostic::error(
                    c::DUPLICATE_PACKAGE,
                    cat.location(dup),
                    format!("package {} is defined again", go_quote(name)),
                )
                .with_related([cat.location(first)])
                .with_hint("remove one of the olm.package objects")
                .with_opm(
                    OpmStage::Convert,
                    format!("duplicate package {}", go_quote(name)),
                ),
            );
        }
        let errs = crate::text::dns1123::label_problems(name);
        if !errs.is_empty() {
            let at = cat
                .blob(first)
                .value
                .get_field("name")
                .map_or_else(|| cat.location(first), |n| cat.node_location(first, n));
            out.push(
                Diagnostic::error(
                    c::PACKAGE_NAME,
                    at,
                    format!(
                        "package name {} is not a DNS-1123 label: {}",
                        go_quote(name),
                        errs.join("; ")
                    ),
                )
                .with_hint("use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit")
                .with_opm(
                    OpmStage::Convert,
                    format!("invalid package name {}: [{}]", go_quote(name), errs.join(" ")),
                ),
            );
        }
    }
    let Some((pid, pkg)) = &p.package else {
        return;
    };
    let pid = *pid;
    let default = pkg.default_channel;
    let default_at = pkg
        .node
        .get_field("defaultChannel")
        .map_or_else(|| cat.location(pid), |n| cat.node_location(pid, n));
    let has_channels = p.model_channels().next().is_some();
    if default.is_empty() {
        out.push(
            Diagnostic::error(
                c::DEFAULT_CHANNEL_UNSET,
                default_at,
                format!("package {} has no default channel", go_quote(name)),
            )
            .with_hint("set `defaultChannel:` to one of the package's channels")
            .with_opm(OpmStage::Package, "default channel must be set"),
        );
        if !has_channels {
            out.push(
                Diagnostic::error(
                    c::PACKAGE_NO_CHANNELS,
                    cat.location(pid),
                    format!("package {} has no channels", go_quote(name)),
                )
                .with_hint("add an olm.channel listing the package's bundles")
                .with_opm(
                    OpmStage::Package,
                    "package must contain at least one channel",
                ),
            );
        }
    } else if p.idx.channel(default).is_none() {
        let known: Vec<&str> = p.model_channels().map(|(_, ch)| ch.name).collect();
        let hint = if known.is_empty() {
            "add an olm.channel with this name".to_string()
        } else {
            format!(
                "set `defaultChannel:` to one of: {} (or add that channel)",
                known.join(", ")
            )
        };
        out.push(
            Diagnostic::error(
                c::DEFAULT_CHANNEL_MISSING,
                default_at,
                format!(
                    "default channel {} of package {} does not exist",
                    go_quote(default),
                    go_quote(name)
                ),
            )
            .in_channel(default)
            .with_hint(hint)
            .with_opm(
                OpmStage::Channel,
                "channel must contain at least one bundle",
            ),
        );
    }
}

fn entry_location(cx: &Cx, id: BlobId, e: &ChannelEntry) -> crate::catalog::Location {
    cx.catalog.node_location(id, e.node)
}

fn channels(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let pkg = p.name;
    let known_package = !p.idx.packages.is_empty();
    let mut first_of: HashMap<&str, BlobId> = HashMap::new();
    // Entries without an olm.bundle, over all channels, for opm's single message.
    let mut missing: Vec<(BlobId, &ChannelEntry)> = Vec::new();
    for (id, ch) in &p.channels {
        let id = *id;
        let at = cat.location(id);
        if !known_package {
            out.push(
                Diagnostic::error(
                    c::CHANNEL_UNKNOWN_PACKAGE,
                    at.clone(),
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
        if ch.name.is_empty() {
            out.push(
                Diagnostic::error(c::CHANNEL_NO_NAME, at.clone(), "channel has no name").with_opm(
                    OpmStage::Convert,
                    format!("package {} contains channel with no name", go_quote(pkg)),
                ),
            );
            continue;
        }
        if let Some(&first) = first_of.get(ch.name) {
            out.push(
                Diagnostic::error(
                    c::DUPLICATE_CHANNEL,
                    at,
                    format!("channel {} is defined again", go_quote(ch.name)),
                )
                .in_channel(ch.name)
                .with_related([cat.location(first)])
                .with_hint("merge the entries into one olm.channel object")
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "package {} has duplicate channel {}",
                        go_quote(pkg),
                        go_quote(ch.name)
                    ),
                ),
            );
            continue;
        }
        first_of.insert(ch.name, id);
        let mut seen: HashMap<&str, &ChannelEntry> = HashMap::new();
        for e in &ch.entries {
            let here = entry_location(cx, id, e);
            if let Some(prev) = seen.get(e.name) {
                out.push(
                    Diagnostic::error(
                        c::DUPLICATE_ENTRY,
                        here,
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
                            go_quote(pkg),
                            go_quote(ch.name),
                            go_quote(e.name)
                        ),
                    ),
                );
                continue;
            }
            seen.insert(e.name, e);
            if p.idx.bundle(e.name).is_none() {
                missing.push((id, e));
            }
            entry_rules(cx, p, id, ch, e, out);
        }
        chain_rules(cx, p, id, ch, out);
    }
    if !missing.is_empty() && known_package {
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
            .with_hint(
                "add the olm.bundle object, or remove the entry (re-linking its neighbours)",
            );
            if i == 0 {
                d = d.with_opm(OpmStage::Convert, opm.clone());
            }
            out.push(d);
        }
    }
}

/// Checks of one channel entry that opm makes on the bundle in that channel.
fn entry_rules(
    cx: &Cx,
    p: &Pkg,
    id: BlobId,
    ch: &Channel,
    e: &ChannelEntry,
    out: &mut Vec<Diagnostic>,
) {
    let cat = cx.catalog;
    if e.name.is_empty() {
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
    for (i, s) in e.skips.iter().enumerate() {
        if s.is_empty() {
            let node = e
                .node
                .get_field("skips")
                .and_then(|n| n.as_seq())
                .and_then(|items| items.get(i))
                .unwrap_or(e.node);
            out.push(
                Diagnostic::error(
                    c::EMPTY_SKIP,
                    cat.node_location(id, node),
                    format!("skips[{i}] of entry {} is empty", go_quote(e.name)),
                )
                .in_channel(ch.name)
                .for_bundle(e.name)
                .with_hint("remove the empty item")
                .with_opm(OpmStage::Bundle, format!("skip[{i}] is empty")),
            );
        }
    }
    if let Some(r) = e.skip_range
        && let Err(err) = Range::parse(r)
    {
        let node = e.node.get_field("skipRange").unwrap_or(e.node);
        out.push(
            Diagnostic::error(
                c::SKIP_RANGE,
                cat.node_location(id, node),
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
    let _ = p;
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

fn chain_rules(cx: &Cx, p: &Pkg, id: BlobId, ch: &Channel, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let at = cat.location(id);
    let name = ch.name;
    let locate = |n: &str| ch.entry(n).map(|e| entry_location(cx, id, e));
    match graph::check_chain(&ch.entries) {
        Chain::Valid { .. } => {}
        Chain::Empty => out.push(
            Diagnostic::error(
                c::CHANNEL_EMPTY,
                at,
                format!("channel {} has no entries", go_quote(name)),
            )
            .in_channel(name)
            .with_hint("list at least one bundle in `entries`, or remove the channel")
            .with_opm(
                OpmStage::Channel,
                "channel must contain at least one bundle",
            ),
        ),
        Chain::NoHead => out.push(
            Diagnostic::error(
                c::NO_HEAD,
                at,
                format!(
                    "channel {} has no head: every entry is replaced or skipped by another",
                    go_quote(name)
                ),
            )
            .in_channel(name)
            .with_hint("look for a replaces/skips loop; the newest entry must not be referenced")
            .with_opm(OpmStage::Channel, "no channel head found in graph"),
        ),
        Chain::MultipleHeads(heads) => out.push(
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
            .in_channel(name)
            .with_related(heads.iter().filter_map(|h| locate(h)))
            .with_hint("link all but the newest head from a newer entry with `replaces` or `skips`")
            .with_opm(
                OpmStage::Channel,
                format!(
                    "multiple channel heads found in graph: {}",
                    heads.join(", ")
                ),
            ),
        ),
        Chain::Cycle(path) => out.push(
            Diagnostic::error(
                c::CYCLE,
                locate(path[0]).unwrap_or(at),
                format!(
                    "channel {} has a replaces cycle: {}",
                    go_quote(name),
                    path.join(" -> ")
                ),
            )
            .in_channel(name)
            .with_related(path.iter().skip(1).filter_map(|n| locate(n)))
            .with_hint("an entry must replace an older one; break the loop")
            .with_opm(
                OpmStage::Channel,
                format!(
                    "detected cycle in replaces chain of upgrade graph: {}",
                    path.join(" -> ")
                ),
            ),
        ),
        Chain::Stranded { head, stranded, .. } => {
            let mut d = Diagnostic::error(
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
            .in_channel(name)
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
            if let [one] = stranded.as_slice() {
                d = d.for_bundle(one);
            }
            out.push(d);
        }
    }
    let _ = p;
}

fn bundles(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let pkg = p.name;
    let known_package = !p.idx.packages.is_empty();
    let mut first_of: HashMap<&str, BlobId> = HashMap::new();
    // Bundles of the model (listed in a channel), by version string, for duplicate versions.
    let mut by_version: BTreeMap<String, Vec<(BlobId, &str)>> = BTreeMap::new();
    for (id, b) in &p.bundles {
        let id = *id;
        let at = cat.location(id);
        let q = go_quote(b.name);
        let name_at = b
            .node
            .get_field("name")
            .map_or_else(|| at.clone(), |n| cat.node_location(id, n));
        let diag = |code, at, msg: String| Diagnostic::error(code, at, msg).for_bundle(b.name);
        if !known_package {
            out.push(
                diag(
                    c::BUNDLE_UNKNOWN_PACKAGE,
                    at.clone(),
                    format!(
                        "bundle {q} belongs to package {}, which has no olm.package",
                        go_quote(pkg)
                    ),
                )
                .with_hint("add the olm.package object, or fix the bundle's `package:`")
                .with_opm(
                    OpmStage::Convert,
                    format!("unknown package {} for bundle {q}", go_quote(pkg)),
                ),
            );
        }
        if let Some(&first) = first_of.get(b.name) {
            out.push(
                diag(
                    c::DUPLICATE_BUNDLE,
                    name_at,
                    format!("bundle {q} is defined again"),
                )
                .with_related([cat.location(first)])
                .with_hint("remove one of the two olm.bundle objects")
                .with_opm(
                    OpmStage::Convert,
                    format!("package {} has duplicate bundle {q}", go_quote(pkg)),
                ),
            );
            continue;
        }
        first_of.insert(b.name, id);

        // olm.package properties.
        let package_props: Vec<_> = b
            .properties
            .iter()
            .filter(|pr| pr.type_ == property_type::PACKAGE)
            .collect();
        let parsed: Vec<_> = package_props
            .iter()
            .filter_map(|pr| match pr.parse() {
                Ok(PropertyValue::Package(v)) => Some((pr, v)),
                _ => None,
            })
            .collect();
        if package_props.len() != 1 {
            let where_ = package_props
                .get(1)
                .map_or_else(|| at.clone(), |pr| cat.node_location(id, pr.node));
            out.push(
                diag(
                    c::PACKAGE_PROPERTY_COUNT,
                    where_,
                    format!(
                        "bundle {q} has {} olm.package properties; it needs exactly one",
                        package_props.len()
                    ),
                )
                .with_hint(format!(
                    "properties:\n- type: olm.package\n  value: {{packageName: {pkg}, version: <version>}}"
                ))
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "package {} bundle {q} must have exactly 1 \"olm.package\" property, found {}",
                        go_quote(pkg),
                        package_props.len()
                    ),
                ),
            );
        }
        if let [(prop, pp)] = parsed.as_slice()
            && package_props.len() == 1
        {
            let value_at = |field: &str| {
                prop.value.get_field(field).map_or_else(
                    || cat.node_location(id, prop.node),
                    |n| cat.node_location(id, n),
                )
            };
            if pp.package_name != pkg {
                out.push(
                    diag(
                        c::PACKAGE_PROPERTY_MISMATCH,
                        value_at("packageName"),
                        format!(
                            "bundle {q} is in package {} but its olm.package property says {}",
                            go_quote(pkg),
                            go_quote(pp.package_name)
                        ),
                    )
                    .with_opm(
                        OpmStage::Convert,
                        format!(
                            "package {} does not match \"olm.package\" property {}",
                            go_quote(pkg),
                            go_quote(pp.package_name)
                        ),
                    ),
                );
            }
            match Version::parse(pp.version) {
                Err(err) => out.push(
                    diag(
                        c::VERSION,
                        value_at("version"),
                        format!(
                            "version {} of bundle {q} is not semver: {err}",
                            go_quote(pp.version)
                        ),
                    )
                    .with_hint(if pp.version.starts_with('v') {
                        "drop the leading `v`: versions are MAJOR.MINOR.PATCH".to_string()
                    } else {
                        "versions are MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]".to_string()
                    })
                    .with_opm(
                        OpmStage::Convert,
                        format!(
                            "error parsing bundle {q} version {}: {err}",
                            go_quote(pp.version)
                        ),
                    ),
                ),
                Ok(v) => {
                    let release = pp.release.unwrap_or("");
                    match parse_release(release) {
                        Err(err) => out.push(
                            diag(
                                c::RELEASE,
                                value_at("release"),
                                format!("release of bundle {q}: {}", err.replace('\n', "; ")),
                            )
                            .with_opm(
                                OpmStage::Convert,
                                format!(
                                    "error parsing bundle {q} release version {}: {err}",
                                    go_quote(release)
                                ),
                            ),
                        ),
                        Ok(rel) => {
                            let listed = !p.idx.channels_listing(b.name).is_empty();
                            if listed {
                                by_version
                                    .entry(version_string(&v, &rel))
                                    .or_default()
                                    .push((id, b.name));
                            }
                            if !rel.is_empty() {
                                let normalized = format!("{pkg}-v{}", version_string(&v, &rel));
                                if b.name != normalized && listed {
                                    out.push(
                                        diag(
                                            c::RELEASE_NAME,
                                            name_at.clone(),
                                            format!(
                                                "bundle {q} has a release, so its name must be {}",
                                                go_quote(&normalized)
                                            ),
                                        )
                                        .with_opm(
                                            OpmStage::Bundle,
                                            format!(
                                                "name {q} does not match normalized name {}",
                                                go_quote(&normalized)
                                            ),
                                        ),
                                    );
                                }
                                if !v.build.is_empty() && listed {
                                    out.push(
                                        diag(
                                            c::BUILD_WITH_RELEASE,
                                            value_at("version"),
                                            format!(
                                                "version {} of bundle {q} has build metadata and a release; use one",
                                                go_quote(pp.version)
                                            ),
                                        )
                                        .with_opm(
                                            OpmStage::Bundle,
                                            "cannot use build metadata in version with a release version",
                                        ),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }

        // Image pull specs.
        if !b.image.is_empty()
            && let Err(err) = ImageRef::parse(b.image)
        {
            let node = b.node.get_field("image").unwrap_or(b.node);
            out.push(
                diag(
                    c::IMAGE,
                    cat.node_location(id, node),
                    format!(
                        "image {} is not a valid pull spec: {err}",
                        go_quote(b.image)
                    ),
                )
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "package {} bundle {q} image: invalid image pull spec {}: {err}",
                        go_quote(pkg),
                        go_quote(b.image)
                    ),
                ),
            );
        }
        let related_nodes = b.node.get_field("relatedImages").and_then(|n| n.as_seq());
        for (i, r) in b.related_images.iter().enumerate() {
            if r.image.is_empty() {
                continue;
            }
            if let Err(err) = ImageRef::parse(r.image) {
                let node = related_nodes
                    .and_then(|items| items.get(i))
                    .and_then(|n| n.get_field("image"))
                    .unwrap_or(b.node);
                out.push(
                    diag(
                        c::IMAGE,
                        cat.node_location(id, node),
                        format!(
                            "relatedImages[{i}].image {} is not a valid pull spec: {err}",
                            go_quote(r.image)
                        ),
                    )
                    .with_opm(
                        OpmStage::Convert,
                        format!(
                            "package {} bundle {q} relatedImages[{i}].image: invalid image pull spec {}: {err}",
                            go_quote(pkg),
                            go_quote(r.image)
                        ),
                    ),
                );
            }
        }

        // Listed in a channel?
        if p.idx.channels_listing(b.name).is_empty() {
            out.push(
                diag(
                    c::BUNDLE_NOT_IN_CHANNEL,
                    name_at.clone(),
                    format!(
                        "bundle {q} is listed in no channel of package {}",
                        go_quote(pkg)
                    ),
                )
                .with_hint("add it to a channel's entries (or remove the bundle)")
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "package {}, bundle {q} not found in any channel entries",
                        go_quote(pkg)
                    ),
                ),
            );
        } else if b.image.is_empty()
            && !b
                .properties
                .iter()
                .any(|pr| pr.type_ == property_type::BUNDLE_OBJECT)
        {
            out.push(
                diag(
                    c::NO_IMAGE,
                    at.clone(),
                    format!("bundle {q} has no image and no olm.bundle.object properties"),
                )
                .with_hint("set `image:` to the bundle image's pull spec")
                .with_opm(OpmStage::Bundle, "bundle image must be set"),
            );
        }
    }

    // Duplicate versions among the bundles of the model.
    let groups: Vec<(&String, &Vec<(BlobId, &str)>)> =
        by_version.iter().filter(|(_, v)| v.len() > 1).collect();
    if !groups.is_empty() {
        let opm = format!(
            "duplicate versions found in bundles: [{}]",
            groups
                .iter()
                .map(|(v, bs)| {
                    let mut names: Vec<&str> = bs.iter().map(|(_, n)| *n).collect();
                    names.sort_unstable();
                    format!("{{{v}: [{}]}}", names.join(", "))
                })
                .collect::<Vec<_>>()
                .join(" ")
        );
        for (i, (version, bs)) in groups.iter().enumerate() {
            let (last_id, last_name) = bs[bs.len() - 1];
            let names: Vec<&str> = bs.iter().map(|(_, n)| *n).collect();
            let mut d = Diagnostic::error(
                c::DUPLICATE_VERSION,
                cat.location(last_id),
                format!("bundles {} all have version {version}", names.join(", ")),
            )
            .for_bundle(last_name)
            .with_related(bs[..bs.len() - 1].iter().map(|(id, _)| cat.location(*id)))
            .with_hint("each bundle of a package needs its own version; remove or re-version one");
            if i == 0 {
                d = d.with_opm(OpmStage::Package, opm.clone());
            }
            out.push(d);
        }
    }
}

fn deprecations(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let pkg = p.name;
    let known_package = !p.idx.packages.is_empty();
    let default = p.package.as_ref().map_or("", |(_, pk)| pk.default_channel);
    for (n, (id, dep)) in p.deprecations.iter().enumerate() {
        let id = *id;
        let at = cat.location(id);
        if !known_package {
            out.push(
                Diagnostic::error(
                    c::DEPRECATION_UNKNOWN_PACKAGE,
                    at.clone(),
                    format!(
                        "olm.deprecations for package {}, which has no olm.package",
                        go_quote(pkg)
                    ),
                )
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "cannot apply deprecations to an unknown package {}",
                        go_quote(pkg)
                    ),
                ),
            );
        }
        if n > 0 {
            out.push(
                Diagnostic::error(
                    c::DUPLICATE_DEPRECATIONS,
                    at,
                    format!(
                        "package {} has more than one olm.deprecations object",
                        go_quote(pkg)
                    ),
                )
                .with_related([cat.location(p.deprecations[0].0)])
                .with_hint("merge the entries into one olm.deprecations object")
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "expected a maximum of one deprecation per package: {}",
                        go_quote(pkg)
                    ),
                ),
            );
            continue;
        }
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        for (j, e) in dep.entries.iter().enumerate() {
            let here = cat.node_location(id, e.node);
            let reference = format!(
                "declcfg.PackageScopedReference{{Schema:{}, Name:{}}}",
                go_quote(e.schema),
                go_quote(e.name)
            );
            if e.schema.is_empty() {
                out.push(
                    Diagnostic::error(
                        c::DEPRECATION_NO_SCHEMA,
                        here,
                        format!("deprecation entry [{j}] has no reference.schema"),
                    )
                    .with_hint("set reference.schema to olm.package, olm.channel or olm.bundle")
                    .with_opm(
                        OpmStage::Convert,
                        format!(
                            "schema must be set for deprecation entry [{j}] for package {}",
                            go_quote(pkg)
                        ),
                    ),
                );
                continue;
            }
            if !seen.insert((e.schema, e.name)) {
                out.push(
                    Diagnostic::error(
                        c::DUPLICATE_DEPRECATION_ENTRY,
                        here,
                        format!(
                            "deprecation of {} {} is listed twice",
                            e.schema,
                            go_quote(e.name)
                        ),
                    )
                    .with_opm(
                        OpmStage::Convert,
                        format!(
                            "duplicate deprecation entry {reference} for package {}",
                            go_quote(pkg)
                        ),
                    ),
                );
                continue;
            }
            let mut target = |d: Diagnostic| out.push(d);
            let (stage, object): (OpmStage, Diagnostic) = match e.schema {
                schema::BUNDLE => {
                    if p.idx.bundle(e.name).is_none() {
                        target(
                            Diagnostic::error(
                                c::DEPRECATED_BUNDLE_MISSING,
                                here,
                                format!(
                                    "deprecation of bundle {}, which package {} does not have",
                                    go_quote(e.name),
                                    go_quote(pkg)
                                ),
                            )
                            .for_bundle(e.name)
                            .with_opm(
                                OpmStage::Convert,
                                format!(
                                    "cannot deprecate bundle {} for package {}: bundle not found",
                                    go_quote(e.name),
                                    go_quote(pkg)
                                ),
                            ),
                        );
                        continue;
                    }
                    (
                        OpmStage::Bundle,
                        Diagnostic::error(c::DEPRECATION_MESSAGE, here, "").for_bundle(e.name),
                    )
                }
                schema::CHANNEL => {
                    if p.idx.channel(e.name).is_none() && (e.name != default || e.name.is_empty()) {
                        target(
                            Diagnostic::error(
                                c::DEPRECATED_CHANNEL_MISSING,
                                here,
                                format!(
                                    "deprecation of channel {}, which package {} does not have",
                                    go_quote(e.name),
                                    go_quote(pkg)
                                ),
                            )
                            .in_channel(e.name)
                            .with_opm(
                                OpmStage::Convert,
                                format!(
                                    "cannot deprecate channel {} for package {}: channel not found",
                                    go_quote(e.name),
                                    go_quote(pkg)
                                ),
                            ),
                        );
                        continue;
                    }
                    (
                        OpmStage::Channel,
                        Diagnostic::error(c::DEPRECATION_MESSAGE, here, "").in_channel(e.name),
                    )
                }
                schema::PACKAGE => {
                    if !e.name.is_empty() {
                        target(
                            Diagnostic::error(
                                c::DEPRECATED_PACKAGE_NAMED,
                                here,
                                format!(
                                    "a package deprecation must not name anything (it names {})",
                                    go_quote(e.name)
                                ),
                            )
                            .with_hint("remove reference.name: the deprecation applies to this object's package")
                            .with_opm(
                                OpmStage::Convert,
                                format!(
                                    "package name must be empty for deprecated package {} (specified {})",
                                    go_quote(pkg),
                                    go_quote(e.name)
                                ),
                            ),
                        );
                        continue;
                    }
                    (
                        OpmStage::Package,
                        Diagnostic::error(c::DEPRECATION_MESSAGE, here, ""),
                    )
                }
                other => {
                    target(
                        Diagnostic::error(
                            c::DEPRECATION_SCHEMA,
                            here,
                            format!(
                                "cannot deprecate a {} object: only olm.package, olm.channel and olm.bundle",
                                go_quote(other)
                            ),
                        )
                        .with_opm(
                            OpmStage::Convert,
                            format!(
                                "cannot deprecate object {reference} referenced by entry {j} for package {}: object schema unknown",
                                go_quote(pkg)
                            ),
                        ),
                    );
                    continue;
                }
            };
            if e.message.is_empty() {
                let mut d = object;
                d.message = format!(
                    "deprecation of {} has no message",
                    if e.schema == schema::PACKAGE {
                        format!("package {}", go_quote(pkg))
                    } else {
                        format!("{} {}", e.schema, go_quote(e.name))
                    }
                );
                out.push(
                    d.with_hint("say why, and what to use instead")
                        .with_opm(stage, "invalid deprecation: message must be set"),
                );
            }
        }
    }
}
