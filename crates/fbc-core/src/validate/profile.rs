//! Opt-in rule profiles: the checks ecosystem CI runs on file-based catalogs, so a catalog can be
//! checked before the pipeline does it.
//!
//! - `community`: the operator-pipelines static checks of community-operators-prod and
//!   certified-operators (`check_olm_bundle_object_in_fbc`, `check_bundle_images_in_fbc`,
//!   `check_dangling_bundles`, `check_upgrade_graph_loop`, `check_pruned_graph`,
//!   `check_replaces_availability`), read for a file-based catalog.
//! - `konflux`: Konflux's `validate-fbc` task (bundle metadata format by OCP version, digest-pinned
//!   bundle images, bundle images only from registry.redhat.io or registry.stage.redhat.io).
//!
//! Each rule has a code (`FBC3xx`), the place in the file and a hint. A rule the pipeline fails on
//! is an error; one it only warns about is a warning.

use std::collections::HashSet;
use std::path::Path;

use petgraph::algo::tarjan_scc;
use petgraph::visit::EdgeRef;

use super::codes as c;
use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::{Bundle, Channel, ChannelEntry, property_type};
use crate::catalog::node::Node;
use crate::catalog::{BlobId, Catalog, Location};
use crate::graph::channel::{ChannelGraph, PackageFacts};
use crate::graph::query::{Installed, v0_offers};

/// A set of rules some CI applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Profile {
    Community,
    Konflux,
}

/// The registries Konflux accepts bundle images from when no other list is given.
pub const KONFLUX_REGISTRIES: [&str; 2] = ["registry.redhat.io", "registry.stage.redhat.io"];

/// What the profiles check.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub profiles: Vec<Profile>,
    /// The OpenShift version the catalog is for (major, minor).
    pub ocp: Option<(u32, u32)>,
    /// Registries bundle images may come from (prefixes, as operator-pipelines matches them).
    pub allowed_registries: Vec<String>,
}

impl Options {
    fn has(&self, p: Profile) -> bool {
        self.profiles.contains(&p)
    }
}

/// Reads `4.18`, `v4.18`: an OpenShift version.
pub fn parse_ocp(text: &str) -> Option<(u32, u32)> {
    let t = text.trim().trim_start_matches('v');
    let (a, b) = t.split_once(['.', '-'])?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The OpenShift version a catalog directory is named for (`catalogs/v4.18`, `catalog-4-17`,
/// `v4.17/catalog`), looking at the directory and its parents.
pub fn ocp_from_path(dir: &Path) -> Option<(u32, u32)> {
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    abs.components()
        .rev()
        .find_map(|part| ocp_in_name(part.as_os_str().as_encoded_bytes()))
}

/// The first OpenShift version in a file name: after its start or a character that is no ASCII
/// letter or digit, an optional `v`, `4` or `5`, `.` or `-`, and one or two digits not followed by
/// another (`v4.18`, `catalog-4-17`; not `v4.180`, `x4.18`).
fn ocp_in_name(name: &[u8]) -> Option<(u32, u32)> {
    let at = |i: usize| name.get(i).copied().unwrap_or(0);
    (0..name.len()).find_map(|p| {
        if p > 0 && name[p - 1].is_ascii_alphanumeric() {
            return None;
        }
        let q = p + usize::from(at(p) == b'v');
        let major = at(q);
        if !matches!(major, b'4' | b'5') || !matches!(at(q + 1), b'.' | b'-') {
            return None;
        }
        let digits = name[(q + 2).min(name.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if !(1..=2).contains(&digits) {
            return None;
        }
        let minor = name[q + 2..q + 2 + digits]
            .iter()
            .fold(0, |n, &d| n * 10 + u32::from(d - b'0'));
        Some((u32::from(major - b'0'), minor))
    })
}

/// Whether lifecycle problems (FBC120–FBC127) are errors: under the konflux profile (Konflux's
/// `fbc-inject-lifecycle` writes these blobs), and in catalogs for OpenShift 5.0 and later, whose
/// update planner reads them.
pub fn lifecycle_is_error(opts: &Options) -> bool {
    opts.has(Profile::Konflux) || opts.ocp.is_some_and(|v| v >= (5, 0))
}

/// Raises lifecycle warnings to errors when [`lifecycle_is_error`] says so; other problems are
/// left as they are.
pub fn escalate(diagnostics: &mut [Diagnostic], opts: &Options) {
    if !lifecycle_is_error(opts) {
        return;
    }
    for d in diagnostics {
        if super::lint::lifecycle::CODES.contains(&d.code) {
            d.severity = crate::catalog::diagnostic::Severity::Error;
        }
    }
}

/// Every profile rule that applies.
pub fn check(catalog: &Catalog, opts: &Options) -> Vec<Diagnostic> {
    check_some(catalog, opts, None)
}

/// [`check`] for the named packages only (an editor re-checks the package typed into).
pub fn check_packages(catalog: &Catalog, opts: &Options, packages: &[&str]) -> Vec<Diagnostic> {
    check_some(catalog, opts, Some(packages))
}

/// The registries bundle images may come from under `opts` (Konflux's own when none are given);
/// empty when any registry will do.
pub fn registries(opts: &Options) -> Vec<String> {
    let mut registries: Vec<String> = opts.allowed_registries.clone();
    if registries.is_empty() && opts.has(Profile::Konflux) {
        registries = KONFLUX_REGISTRIES.iter().map(|r| r.to_string()).collect();
    }
    registries
}

/// Whether `image` comes from one of `registries` (each a host or a prefix such as
/// `quay.io/org/`); true when the list is empty.
pub fn allowed_registry(image: &str, registries: &[String]) -> bool {
    registries.is_empty() || registries.iter().any(|r| from_registry(image, r))
}

fn check_some(catalog: &Catalog, opts: &Options, packages: Option<&[&str]>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if opts.profiles.is_empty() {
        return out;
    }
    let registries = registries(opts);
    let chosen = |name: &str| packages.is_none_or(|p| p.contains(&name));
    for idx in catalog.index().packages().filter(|i| chosen(&i.name)) {
        let start = out.len();
        package_rules(catalog, idx, opts, &registries, &mut out);
        for d in &mut out[start..] {
            d.object.package = Some(idx.name.clone());
        }
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}

fn package_rules(
    catalog: &Catalog,
    idx: &crate::catalog::PackageIndex,
    opts: &Options,
    registries: &[String],
    out: &mut Vec<Diagnostic>,
) {
    let (community, konflux) = (opts.has(Profile::Community), opts.has(Profile::Konflux));
    {
        let facts = PackageFacts::read(catalog, idx);
        for &id in &idx.bundles {
            let blob = catalog.blob(id);
            let Ok(b) = Bundle::read(&blob.value) else {
                continue;
            };
            if let Some(ocp) = opts.ocp {
                metadata_format(catalog, id, &b, ocp, konflux, out);
            }
            let image_at =
                || catalog.node_location(id, b.node.get_field("image").unwrap_or(b.node));
            if konflux && !b.image.is_empty() && !b.image.contains("@sha256:") {
                out.push(
                    Diagnostic::error(
                        c::PROFILE_DIGEST,
                        image_at(),
                        format!(
                            "olm.bundle image references are not digest-pinned: bundle {} has image {}",
                            b.name, b.image
                        ),
                    )
                    .for_bundle(b.name)
                    .with_hint("refer to the image by digest (`<image>@sha256:<digest>`; `skopeo inspect docker://<image>:<tag>` gives it)"),
                );
            }
            if !registries.is_empty()
                && !b.image.is_empty()
                && !registries.iter().any(|r| from_registry(b.image, r))
            {
                out.push(
                    Diagnostic::error(
                        c::PROFILE_REGISTRY,
                        image_at(),
                        format!(
                            "bundle {} has image {}, which is not from an allowed registry ({})",
                            b.name,
                            b.image,
                            registries.join(", ")
                        ),
                    )
                    .for_bundle(b.name)
                    .with_hint(
                        "publish the bundle image to an allowed registry and refer to it there",
                    ),
                );
            }
        }
        if !community {
            return;
        }
        for &id in &idx.channels {
            let Ok(ch) = Channel::read(&catalog.blob(id).value) else {
                continue;
            };
            let g = ChannelGraph::from_entries(ch.package, ch.name, &ch.entries, &facts);
            graph_rules(catalog, id, &ch, &g, out);
        }
    }
}

/// Whether `image` is from `registry` (a host, or a prefix such as `quay.io/org/`).
fn from_registry(image: &str, registry: &str) -> bool {
    let r = registry.trim_end_matches('/');
    image.strip_prefix(r).is_some_and(|rest| {
        rest.is_empty() || registry.ends_with('/') || rest.starts_with(['/', ':', '@'])
    })
}

/// OCP 4.17 and later need `olm.csv.metadata` and refuse `olm.bundle.object`; Konflux wants the
/// opposite before 4.17.
fn metadata_format(
    catalog: &Catalog,
    id: BlobId,
    b: &Bundle,
    (major, minor): (u32, u32),
    konflux: bool,
    out: &mut Vec<Diagnostic>,
) {
    let new = (major, minor) >= (4, 17);
    let objects: Vec<&Node> = b
        .properties
        .iter()
        .filter(|p| p.type_ == property_type::BUNDLE_OBJECT)
        .map(|p| p.node)
        .collect();
    let csv = b
        .properties
        .iter()
        .find(|p| p.type_ == property_type::CSV_METADATA);
    let ver = format!("{major}.{minor}");
    if new {
        if let Some(first) = objects.first() {
            out.push(
                Diagnostic::error(
                    c::PROFILE_METADATA,
                    catalog.node_location(id, first),
                    format!(
                        "olm.bundle.object bundle properties are not permitted in a FBC fragment for OCP version {ver} (bundle {} has {}); catalogs for OCP 4.17 and later carry olm.csv.metadata",
                        b.name,
                        objects.len()
                    ),
                )
                .for_bundle(b.name)
                .with_hint("render the bundle again with `opm render --migrate-level bundle-object-to-csv-metadata` (or `fbc-edit render --csv-metadata`)"),
            );
        } else if konflux && csv.is_none() {
            out.push(
                Diagnostic::error(
                    c::PROFILE_METADATA,
                    catalog.location(id),
                    format!(
                        "every olm.bundle object in the fragment must have a corresponding olm.csv.metadata bundle property (bundle {} has none; OCP {ver})",
                        b.name
                    ),
                )
                .for_bundle(b.name)
                .with_hint("render the bundle with `opm render --migrate-level bundle-object-to-csv-metadata`"),
            );
        }
    } else if konflux {
        if let Some(p) = csv {
            out.push(
                Diagnostic::error(
                    c::PROFILE_METADATA,
                    catalog.node_location(id, p.node),
                    format!(
                        "olm.csv.metadata bundle properties are not permitted in a FBC fragment for OCP version {ver} (bundle {}); catalogs before OCP 4.17 carry olm.bundle.object",
                        b.name
                    ),
                )
                .for_bundle(b.name)
                .with_hint("render the bundle without --migrate-level so it carries its manifests as olm.bundle.object"),
            );
        } else if objects.is_empty() {
            out.push(
                Diagnostic::error(
                    c::PROFILE_METADATA,
                    catalog.location(id),
                    format!(
                        "every olm.bundle object in the fragment must have at least one olm.bundle.object bundle property (bundle {} has none; OCP {ver})",
                        b.name
                    ),
                )
                .for_bundle(b.name)
                .with_hint("render the bundle with `opm render` to add its manifests"),
            );
        }
    }
}

/// The community graph checks for one channel.
fn graph_rules(
    catalog: &Catalog,
    id: BlobId,
    ch: &Channel,
    g: &ChannelGraph,
    out: &mut Vec<Diagnostic>,
) {
    let at = |name: &str| {
        ch.entries.iter().find(|e| e.name == name).map_or_else(
            || catalog.location(id),
            |e| catalog.node_location(id, e.node),
        )
    };
    loops(ch, g, &at, out);
    if g.ordered() {
        dangling(ch, g, &at, out);
    }
    let tail = match &g.chain {
        crate::graph::channel::ChainSummary::Valid { .. }
        | crate::graph::channel::ChainSummary::Stranded { .. } => {
            // The oldest entry of the head's replaces walk.
            g.graph
                .node_indices()
                .filter(|&n| g.graph[n].rank.is_some())
                .max_by_key(|&n| g.graph[n].rank)
                .map(|n| g.graph[n].name.clone())
        }
        _ => None,
    };
    let idx = catalog.index().package(&g.package);
    for e in &ch.entries {
        pruned(catalog, id, ch, e, out);
        // Replaces availability: the replaced bundle must be in this catalog (but for the oldest
        // entry, whose replaces usually names a release pruned long ago).
        if let Some(r) = e.replaces.filter(|r| !r.is_empty())
            && idx.is_some_and(|i| i.bundle(r).is_none())
            && tail.as_deref() != Some(e.name)
        {
            replaced_missing(catalog, id, ch, e, r, out);
        }
    }
}

/// FBC304: loops over every kind of link (a skipRange can close one that replaces alone does not).
fn loops(ch: &Channel, g: &ChannelGraph, at: &dyn Fn(&str) -> Location, out: &mut Vec<Diagnostic>) {
    for scc in tarjan_scc(&g.graph) {
        let looped = scc.len() > 1
            || scc
                .first()
                .is_some_and(|&n| g.graph.edges_connecting(n, n).next().is_some());
        if !looped {
            continue;
        }
        let mut names: Vec<&str> = scc.iter().map(|&n| g.graph[n].name.as_str()).collect();
        names.sort_unstable();
        let first = names[0];
        out.push(
            Diagnostic::error(
                c::PROFILE_LOOP,
                at(first),
                format!(
                    "upgrade graph loop detected in channel {}: {} upgrade to one another (through replaces, skips or skipRange)",
                    ch.name,
                    match names.as_slice() {
                        short if short.len() <= 6 => short.join(", "),
                        long => format!(
                            "{} entries ({} … {})",
                            long.len(),
                            long[0],
                            long[long.len() - 1]
                        ),
                    }
                ),
            )
            .in_channel(ch.name)
            .for_bundle(first)
            .with_related(names[1..].iter().take(5).map(|n| at(n)))
            .with_hint("links go from older to newer versions only: fix the replaces, skips or skipRange that points at a newer entry"),
        );
    }
}

/// FBC303: entries (other than the head) from which OLM v0 offers no upgrade.
fn dangling(
    ch: &Channel,
    g: &ChannelGraph,
    at: &dyn Fn(&str) -> Location,
    out: &mut Vec<Diagnostic>,
) {
    let head = g.chain.head();
    let mut dangling = Vec::new();
    for n in g.graph.node_indices() {
        let name = &g.graph[n].name;
        if Some(name.as_str()) == head {
            continue;
        }
        let here = Installed {
            name: Some(name.clone()),
            version: g.graph[n].version.clone(),
        };
        if v0_offers(g, &here).is_ok_and(|o| o.is_empty()) {
            dangling.push(n);
        }
    }
    dangling.sort_by_key(|&n| g.graph[n].position);
    for n in dangling {
        let name = &g.graph[n].name;
        let successors: Vec<&str> = g
            .graph
            .edges_directed(n, petgraph::Direction::Outgoing)
            .map(|e| g.graph[e.target()].name.as_str())
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let why = if successors.is_empty() {
            "nothing replaces or skips it and no skipRange contains its version".to_string()
        } else {
            let mut s = successors;
            s.sort_unstable();
            format!(
                "the entries that link from it ({}) are all dropped by OLM v0 (skipped or stranded)",
                s.join(", ")
            )
        };
        out.push(
            Diagnostic::error(
                c::PROFILE_DANGLING,
                at(name),
                format!(
                    "channel {} has a dangling bundle {name}: clusters running it get no upgrade, as {why}",
                    ch.name
                ),
            )
            .in_channel(ch.name)
            .for_bundle(name)
            .with_hint(format!(
                "link it from an entry OLM v0 keeps: list it in the `skips` of {} or cover its version with that entry's skipRange (`fbc-edit path` explains the chain)",
                head.unwrap_or("the head")
            )),
        );
    }
}

/// FBC305: a skipRange and no replaces, in a channel of several entries, may prune the graph.
fn pruned(
    catalog: &Catalog,
    id: BlobId,
    ch: &Channel,
    e: &ChannelEntry,
    out: &mut Vec<Diagnostic>,
) {
    if e.skip_range.is_none() || !e.replaces.is_none_or(str::is_empty) || ch.entries.len() <= 1 {
        return;
    }
    let node = e.node.get_field("skipRange").unwrap_or(e.node);
    out.push(
        Diagnostic::warning(
            c::PROFILE_PRUNED,
            catalog.node_location(id, node),
            format!(
                "{} has a skipRange but no replaces: the definition may lead to unintentional pruning of the update graph",
                e.name
            ),
        )
        .in_channel(ch.name)
        .for_bundle(e.name)
        .with_hint("add `replaces:` naming the previous entry, unless pruning the older entries is intended"),
    );
}

/// FBC306: the bundle an entry replaces (`r`) is not in this catalog.
fn replaced_missing(
    catalog: &Catalog,
    id: BlobId,
    ch: &Channel,
    e: &ChannelEntry,
    r: &str,
    out: &mut Vec<Diagnostic>,
) {
    let node = e.node.get_field("replaces").unwrap_or(e.node);
    out.push(
        Diagnostic::error(
            c::PROFILE_REPLACES,
            catalog.node_location(id, node),
            format!(
                "{} replaces {r}, which is not a bundle of this catalog: the replaced bundle is not available where {} is",
                e.name, e.name
            ),
        )
        .in_channel(ch.name)
        .for_bundle(e.name)
        .with_hint("replace a bundle this catalog holds (add the bundle, or point `replaces` at the previous entry)"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ocp_versions_from_flags_and_paths() {
        assert_eq!(parse_ocp("4.18"), Some((4, 18)));
        assert_eq!(parse_ocp("v4.9"), Some((4, 9)));
        assert_eq!(parse_ocp("four"), None);
        assert_eq!(ocp_from_path(Path::new("/x/catalogs/v4.18")), Some((4, 18)));
        assert_eq!(ocp_from_path(Path::new("/x/catalog-4-17")), Some((4, 17)));
        assert_eq!(ocp_from_path(Path::new("/x/v4.12/catalog")), Some((4, 12)));
        assert_eq!(ocp_from_path(Path::new("/x/catalog")), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// A name gives the version the pattern it follows reads from it.
        #[test]
        fn a_version_in_a_name_is_read_as_the_pattern_reads_it(
            name in proptest::collection::vec(proptest::sample::select(vec![
                "v", "4", "5", "1", "8", "0", ".", "-", "_", "x", "V", "é", "/", "44", "v4.1", "5-",
            ]), 0..12),
        ) {
            let name = name.concat();
            let re = regex::Regex::new(r"(?:^|[^0-9A-Za-z])v?([45])[.-]([0-9]{1,2})(?:$|[^0-9])").unwrap();
            let want = re.captures(&name).map(|m| (m[1].parse().unwrap(), m[2].parse().unwrap()));
            proptest::prop_assert_eq!(ocp_in_name(name.as_bytes()), want, "{}", name);
        }
    }

    #[test]
    fn registries_match_by_prefix() {
        assert!(from_registry(
            "registry.redhat.io/a/b@sha256:1",
            "registry.redhat.io"
        ));
        assert!(!from_registry(
            "registry.redhat.io.evil.com/a",
            "registry.redhat.io"
        ));
        assert!(from_registry("quay.io/org/b:1", "quay.io/org/"));
        assert!(!from_registry("quay.io/other/b:1", "quay.io/org"));
    }
}
