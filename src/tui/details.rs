//! The details pane: what the selected package, channel or entry is, in lines of text.

use crate::catalog::model::{Bundle, Deprecations, Package};
use crate::catalog::schema;
use crate::tui::tree::*;

/// Text of the details pane for the selection.
pub fn details(l: &Loaded) -> Vec<String> {
    let cat = l.ws.catalog();
    let sel = l.selected();
    let Some(idx) = sel.first().and_then(|p| cat.index().package(p)) else {
        return vec!["Select a package, channel or entry.".into()];
    };
    let mut out = Vec::new();
    let text = |s: &crate::catalog::Str| cat.resolve(s).unwrap_or_default();
    match sel {
        [p] => {
            out.push(format!("package {p}"));
            if let Some(pk) = idx
                .packages
                .first()
                .and_then(|&id| Package::read(&cat.blob(id).value).ok())
            {
                out.push(format!("default channel: {}", pk.default_channel));
                if let Some(icon) = &pk.icon {
                    out.push(format!("icon: {}", icon.mediatype));
                }
                if let Some(d) = pk.description {
                    out.push(String::new());
                    out.extend(text(d).lines().map(String::from));
                }
            }
            out.push(format!(
                "channels: {}  bundles: {}",
                idx.channels.len(),
                idx.bundles.len()
            ));
        }
        [_, c] => {
            out.push(format!("channel {c}"));
            if let Some((g, _)) = &l.graph {
                out.push(format!("entries: {}", g.graph.node_count()));
                out.push(match g.chain.head() {
                    Some(h) => format!("head: {h}"),
                    None => format!("head: none ({:?})", g.chain),
                });
                if g.default {
                    out.push("the package's default channel".into());
                }
            }
        }
        [_, c, e] => {
            out.push(format!("entry {e}"));
            if l.is_ghost(sel) {
                out.push(format!(
                    "removed from channel {c} by the change under review (nothing to edit here)"
                ));
            }
            match idx
                .bundle(e)
                .and_then(|id| Bundle::read(&cat.blob(id).value).ok().map(|b| (id, b)))
            {
                None => out.push("no olm.bundle with this name in the package".into()),
                Some((id, b)) => {
                    out.push(format!("version: {}", b.version().unwrap_or("?")));
                    out.push(format!("image: {}", b.image));
                    let mut provided = Vec::new();
                    let mut required = Vec::new();
                    let mut packages = Vec::new();
                    let mut csv = None;
                    for pr in &b.properties {
                        use crate::catalog::model::PropertyValue as V;
                        match pr.parse() {
                            Ok(V::Gvk(g)) => {
                                provided.push(format!("{}/{} {}", g.group, g.version, g.kind))
                            }
                            Ok(V::GvkRequired(g)) => {
                                required.push(format!("{}/{} {}", g.group, g.version, g.kind))
                            }
                            Ok(V::PackageRequired(r)) => {
                                packages.push(format!("{} {}", r.package_name, r.version_range))
                            }
                            Ok(V::CsvMetadata(node)) => csv = Some(node),
                            _ => {}
                        }
                    }
                    for (title, list) in [
                        ("provides", &provided),
                        ("requires", &required),
                        ("requires packages", &packages),
                    ] {
                        if !list.is_empty() {
                            out.push(format!("{title}:"));
                            out.extend(list.iter().map(|s| format!("  {s}")));
                        }
                    }
                    if let Some(node) = csv {
                        if let Some(n) = node.get_field("displayName").and_then(|n| n.as_string()) {
                            out.push(format!("display name: {}", text(n)));
                        }
                        if let Some(n) = node.get_field("description").and_then(|n| n.as_string()) {
                            out.push("description:".into());
                            out.extend(text(n).lines().take(20).map(|s| format!("  {s}")));
                        }
                    }
                    if !b.related_images.is_empty() {
                        out.push("related images:".into());
                        out.extend(
                            b.related_images
                                .iter()
                                .map(|r| format!("  {} {}", r.name, r.image)),
                        );
                    }
                    let listing: Vec<&str> = idx
                        .channels_listing(e)
                        .iter()
                        .map(|&c| cat.blob(c).name())
                        .collect();
                    out.push(format!("in channels: {}", listing.join(", ")));
                    out.push(format!("defined at {}", cat.location(id)));
                }
            }
        }
        _ => {}
    }
    // Deprecation messages of the object (and of the package and channel above it).
    let scopes: Vec<(&str, &str)> = match sel {
        [_] => vec![(schema::PACKAGE, "")],
        [_, c] => vec![(schema::CHANNEL, c.as_str()), (schema::PACKAGE, "")],
        [_, c, e] => vec![
            (schema::BUNDLE, e.as_str()),
            (schema::CHANNEL, c.as_str()),
            (schema::PACKAGE, ""),
        ],
        _ => Vec::new(),
    };
    if let Some(dep) = idx
        .deprecations
        .first()
        .and_then(|&id| Deprecations::read(&cat.blob(id).value).ok())
    {
        for (schema_name, name) in scopes {
            if let Some(e) = dep
                .entries
                .iter()
                .find(|e| e.schema == schema_name && e.name == name)
            {
                let what = schema_name.trim_start_matches("olm.");
                out.push(format!("deprecated ({what}): {}", e.message));
            }
        }
    }
    out
}
