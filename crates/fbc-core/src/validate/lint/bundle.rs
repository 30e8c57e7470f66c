//! Lints of a package's bundles: names unlike `<package>.v<version>` (FBC109) and required package
//! ranges that are not valid (FBC111).

use crate::guard::keyed::Set;

use crate::catalog::diagnostic::Diagnostic;
use crate::catalog::model::{PropertyValue, property_type};
use crate::catalog::semver_range::{Range, Version};
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;
use crate::validate::rules::Pkg;

pub(super) fn bundles(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let mut seen = Set::default();
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
