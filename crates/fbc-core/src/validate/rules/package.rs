//! opm's rules for an `olm.package`: defined once, a DNS-1123 name, a default channel that exists,
//! at least one channel.

use super::Pkg;
use crate::catalog::diagnostic::{Diagnostic, OpmStage};
use crate::text::escape::go_quote;
use crate::validate::Cx;
use crate::validate::codes as c;

/// Every rule for the package of `p`.
pub(super) fn check(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    duplicate_packages(cx, p, out);
    name_is_a_label(cx, p, out);
    default_channel(cx, p, out);
}

/// FBC013: one `olm.package` per package.
fn duplicate_packages(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let name = p.name;
    let Some(&first) = p.idx.packages.first() else {
        return;
    };
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
}

/// FBC014: the package name is a DNS-1123 label.
fn name_is_a_label(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let name = p.name;
    let Some(&first) = p.idx.packages.first() else {
        return;
    };
    let errs = crate::text::dns1123::label_problems(name);
    if errs.is_empty() {
        return;
    }
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

/// FBC030 (no default channel, then FBC042 when there are no channels either) and FBC031 (a default
/// channel that does not exist).
fn default_channel(cx: &Cx, p: &Pkg, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let name = p.name;
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
