//! opm's rules for `olm.bundle`s: a known package, defined once, exactly one `olm.package` property
//! that matches, a semver version and valid release, valid image pull specs, listed in a channel, and
//! no two bundles of a package with the same version.

use crate::guard::keyed::{Map, Set};
use std::collections::BTreeMap;

use super::Pkg;
use crate::catalog::diagnostic::{Diagnostic, OpmStage};
use crate::catalog::image_ref::{ImageRef, ImageRefError};
use crate::catalog::model::{Bundle, PackageProperty, Property, PropertyValue, property_type};
use crate::catalog::semver_range::{Pre, Version, parse_release};
use crate::catalog::{BlobId, Location};
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;

/// Bundles of the model (listed in a channel), by version string, for duplicate versions.
type ByVersion<'c> = BTreeMap<String, Vec<(BlobId, &'c str)>>;

/// Every rule for the bundles of `p`.
pub(super) fn check(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let mut first_of: Map<&str, BlobId> = Map::default();
    let mut by_version: ByVersion = BTreeMap::new();
    // A package's bundles name many pull specs again (a bundle's own image among its related
    // ones, an operator image in every version): each is checked once.
    let mut valid = Set::default();
    for (id, b) in &p.bundles {
        let s = Subject::new(cx, p, *id, b);
        unknown_package(&s, out);
        if defined_again(&s, &first_of, out) {
            continue;
        }
        first_of.insert(b.name, s.id);
        package_property(&s, &mut by_version, out);
        image(&s, &mut valid, out);
        related_images(&s, &mut valid, out);
        in_a_channel(&s, out);
    }
    duplicate_versions(cx, &by_version, out);
}

/// The bundle a rule looks at; the places and names its messages need are worked out only for a
/// message (most bundles have none).
struct Subject<'a, 'c> {
    cx: &'a Cx<'c>,
    p: &'a Pkg<'c>,
    id: BlobId,
    b: &'a Bundle<'c>,
}

/// A name written the way opm quotes it (`%q`), quoted only when displayed.
struct Quoted<'a>(&'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&go_quote(self.0))
    }
}

impl<'a, 'c> Subject<'a, 'c> {
    fn new(cx: &'a Cx<'c>, p: &'a Pkg<'c>, id: BlobId, b: &'a Bundle<'c>) -> Self {
        Subject { cx, p, id, b }
    }

    /// The whole blob.
    fn at(&self) -> Location {
        self.cx.catalog.location(self.id)
    }

    /// Its `name`.
    fn name_at(&self) -> Location {
        let cat = self.cx.catalog;
        self.b
            .node
            .get_field("name")
            .map_or_else(|| self.at(), |n| cat.node_location(self.id, n))
    }

    /// The quoted bundle name.
    fn q(&self) -> Quoted<'a> {
        Quoted(self.b.name)
    }

    fn diag(&self, code: &'static str, at: Location, msg: String) -> Diagnostic {
        Diagnostic::error(code, at, msg).for_bundle(self.b.name)
    }
}

/// FBC020: the bundle's package has an `olm.package`.
fn unknown_package(s: &Subject, out: &mut Vec<Diagnostic>) {
    if !s.p.idx.packages.is_empty() {
        return;
    }
    let (q, pkg) = (s.q(), s.p.name);
    out.push(
        s.diag(
            c::BUNDLE_UNKNOWN_PACKAGE,
            s.at(),
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

/// FBC021: a bundle name is defined once per package. True for a second definition (nothing more is
/// checked).
fn defined_again(s: &Subject, first_of: &Map<&str, BlobId>, out: &mut Vec<Diagnostic>) -> bool {
    let Some(&first) = first_of.get(s.b.name) else {
        return false;
    };
    let q = s.q();
    out.push(
        s.diag(
            c::DUPLICATE_BUNDLE,
            s.name_at(),
            format!("bundle {q} is defined again"),
        )
        .with_related([s.cx.catalog.location(first)])
        .with_hint("remove one of the two olm.bundle objects")
        .with_opm(
            OpmStage::Convert,
            format!("package {} has duplicate bundle {q}", go_quote(s.p.name)),
        ),
    );
    true
}

/// FBC023 (exactly one `olm.package` property), then for that property FBC024 (it names the package),
/// FBC026 (semver version), FBC027 (valid release) and, for a bundle with a release, FBC049 and
/// FBC053. Records the version of a bundle listed in a channel in `by_version`.
fn package_property<'c>(
    s: &Subject<'_, 'c>,
    by_version: &mut ByVersion<'c>,
    out: &mut Vec<Diagnostic>,
) {
    let package_props: Vec<&Property> =
        s.b.properties
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
        property_count(s, &package_props, out);
    }
    if let [(prop, pp)] = parsed.as_slice()
        && package_props.len() == 1
    {
        let value_at = |field: &str| {
            let cat = s.cx.catalog;
            prop.value.get_field(field).map_or_else(
                || cat.node_location(s.id, prop.node),
                |n| cat.node_location(s.id, n),
            )
        };
        package_matches(s, pp, &value_at, out);
        version_and_release(s, pp, &value_at, by_version, out);
    }
}

/// FBC023.
fn property_count(s: &Subject, package_props: &[&Property], out: &mut Vec<Diagnostic>) {
    let (q, pkg) = (s.q(), s.p.name);
    let where_ = package_props
        .get(1)
        .map_or_else(|| s.at(), |pr| s.cx.catalog.node_location(s.id, pr.node));
    out.push(
        s.diag(
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

/// FBC024.
fn package_matches(
    s: &Subject,
    pp: &PackageProperty,
    value_at: &dyn Fn(&str) -> Location,
    out: &mut Vec<Diagnostic>,
) {
    let (q, pkg) = (s.q(), s.p.name);
    if pp.package_name == pkg {
        return;
    }
    out.push(
        s.diag(
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

/// FBC026 and FBC027; FBC049 and FBC053 for a bundle with a release.
fn version_and_release<'c>(
    s: &Subject<'_, 'c>,
    pp: &PackageProperty,
    value_at: &dyn Fn(&str) -> Location,
    by_version: &mut ByVersion<'c>,
    out: &mut Vec<Diagnostic>,
) {
    let q = s.q();
    let v = match Version::parse(pp.version) {
        Ok(v) => v,
        Err(err) => {
            out.push(
                s.diag(
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
            );
            return;
        }
    };
    let release = pp.release.unwrap_or("");
    let rel = match parse_release(release) {
        Ok(rel) => rel,
        Err(err) => {
            out.push(
                s.diag(
                    c::RELEASE,
                    value_at("release"),
                    format!("release of bundle {q}: {}", err.one_line()),
                )
                .with_opm(
                    OpmStage::Convert,
                    format!(
                        "error parsing bundle {q} release version {}: {err}",
                        go_quote(release)
                    ),
                ),
            );
            return;
        }
    };
    let listed = !s.p.idx.channels_listing(s.b.name).is_empty();
    if listed {
        by_version
            .entry(version_string(&v, &rel))
            .or_default()
            .push((s.id, s.b.name));
    }
    if !rel.is_empty() && listed {
        release_name(s, &v, &rel, out);
        build_with_release(s, pp, &v, value_at, out);
    }
}

/// The version string opm groups duplicates by: `<version>` or `<version>-<release>`.
fn version_string(v: &Version, release: &[Pre]) -> String {
    if release.is_empty() {
        v.to_string()
    } else {
        let rel: Vec<String> = release.iter().map(|p| p.to_string()).collect();
        format!("{v}-{}", rel.join("."))
    }
}

/// FBC049: a bundle with a release is named `<package>-v<version>-<release>`.
fn release_name(s: &Subject, v: &Version, rel: &[Pre], out: &mut Vec<Diagnostic>) {
    let q = s.q();
    let normalized = format!("{}-v{}", s.p.name, version_string(v, rel));
    if s.b.name == normalized {
        return;
    }
    out.push(
        s.diag(
            c::RELEASE_NAME,
            s.name_at(),
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

/// FBC053: a version with a release has no build metadata.
fn build_with_release(
    s: &Subject,
    pp: &PackageProperty,
    v: &Version,
    value_at: &dyn Fn(&str) -> Location,
    out: &mut Vec<Diagnostic>,
) {
    if v.build.is_empty() {
        return;
    }
    out.push(
        s.diag(
            c::BUILD_WITH_RELEASE,
            value_at("version"),
            format!(
                "version {} of bundle {} has build metadata and a release; use one",
                go_quote(pp.version),
                s.q()
            ),
        )
        .with_opm(
            OpmStage::Bundle,
            "cannot use build metadata in version with a release version",
        ),
    );
}

/// [`ImageRef::check`], remembering what passed in `valid`.
fn check_image<'c>(image: &'c str, valid: &mut Set<&'c str>) -> Result<(), ImageRefError> {
    if valid.contains(image) {
        return Ok(());
    }
    ImageRef::check(image)?;
    valid.insert(image);
    Ok(())
}

/// FBC025: `image` is a valid pull spec.
fn image<'c>(s: &Subject<'_, 'c>, valid: &mut Set<&'c str>, out: &mut Vec<Diagnostic>) {
    let b = s.b;
    if b.image.is_empty() {
        return;
    }
    let Err(err) = check_image(b.image, valid) else {
        return;
    };
    let node = b.node.get_field("image").unwrap_or(b.node);
    out.push(
        s.diag(
            c::IMAGE,
            s.cx.catalog.node_location(s.id, node),
            format!(
                "image {} is not a valid pull spec: {err}",
                go_quote(b.image)
            ),
        )
        .with_opm(
            OpmStage::Convert,
            format!(
                "package {} bundle {} image: invalid image pull spec {}: {err}",
                go_quote(s.p.name),
                s.q(),
                go_quote(b.image)
            ),
        ),
    );
}

/// FBC025: every `relatedImages[].image` is a valid pull spec.
fn related_images<'c>(s: &Subject<'_, 'c>, valid: &mut Set<&'c str>, out: &mut Vec<Diagnostic>) {
    let b = s.b;
    let related_nodes = b.node.get_field("relatedImages").and_then(|n| n.as_seq());
    for (i, r) in b.related_images.iter().enumerate() {
        if r.image.is_empty() {
            continue;
        }
        let Err(err) = check_image(r.image, valid) else {
            continue;
        };
        let node = related_nodes
            .and_then(|items| items.get(i))
            .and_then(|n| n.get_field("image"))
            .unwrap_or(b.node);
        out.push(
            s.diag(
                c::IMAGE,
                s.cx.catalog.node_location(s.id, node),
                format!(
                    "relatedImages[{i}].image {} is not a valid pull spec: {err}",
                    go_quote(r.image)
                ),
            )
            .with_opm(
                OpmStage::Convert,
                format!(
                    "package {} bundle {} relatedImages[{i}].image: invalid image pull spec {}: {err}",
                    go_quote(s.p.name),
                    s.q(),
                    go_quote(r.image)
                ),
            ),
        );
    }
}

/// FBC028 (listed in a channel); for a listed bundle, FBC052 (an image or an `olm.bundle.object`).
fn in_a_channel(s: &Subject, out: &mut Vec<Diagnostic>) {
    let (b, q, pkg) = (s.b, s.q(), s.p.name);
    if s.p.idx.channels_listing(b.name).is_empty() {
        out.push(
            s.diag(
                c::BUNDLE_NOT_IN_CHANNEL,
                s.name_at(),
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
            s.diag(
                c::NO_IMAGE,
                s.at(),
                format!("bundle {q} has no image and no olm.bundle.object properties"),
            )
            .with_hint("set `image:` to the bundle image's pull spec")
            .with_opm(OpmStage::Bundle, "bundle image must be set"),
        );
    }
}

/// FBC048: no two bundles of the model share a version. opm says it once, for every group: the first
/// diagnostic carries its message.
fn duplicate_versions(cx: &Cx, by_version: &ByVersion, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let groups: Vec<(&String, &Vec<(BlobId, &str)>)> =
        by_version.iter().filter(|(_, v)| v.len() > 1).collect();
    if groups.is_empty() {
        return;
    }
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
