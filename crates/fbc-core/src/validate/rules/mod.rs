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

//!
//! One file per kind of object, one function per rule: [`package`], [`channel`], [`bundle`],
//! [`deprecation`]. Blobs that belong to no package are checked here ([`unowned`]).

mod bundle;
mod channel;
mod deprecation;
mod package;

use crate::guard::keyed::{Map, Set};

use super::Cx;
use super::codes as c;
use crate::catalog::diagnostic::{Diagnostic, OpmStage};
use crate::catalog::model::{Bundle, Channel, Deprecations, Package};
use crate::catalog::semver_range::{Pre, Version, parse_release};
use crate::catalog::{BlobId, PackageIndex, schema};
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
    pub versions: Map<&'c str, (Version, Vec<Pre>)>,
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
        let mut versions = Map::default();
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
        // Versions apart only in build metadata are equal as versions: their order (which a
        // message naming the lowest or the newer versions shows) is by that metadata, not by
        // the map's.
        sorted_versions.sort_by(|a, b| a.cmp(b).then_with(|| a.build.cmp(&b.build)));
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
        let mut seen = Set::default();
        self.channels
            .iter()
            .filter(move |(_, ch)| !ch.name.is_empty() && seen.insert(ch.name))
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

/// opm's rules for one package: its package, channels, bundles and deprecations.
pub fn check_package(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let mut d = Vec::new();
    package::check(cx, p, &mut d);
    channel::check(cx, p, &mut d);
    bundle::check(cx, p, &mut d);
    deprecation::check(cx, p, &mut d);
    for diag in &mut d {
        if diag.object.package.is_none() {
            diag.object.package = Some(p.name.to_string());
        }
    }
    out.append(&mut d);
}
