//! Hover: what a bundle, channel, package, skipRange or image is in its catalog.

use std::fmt::Write as _;

use fbc_core::catalog::Catalog;
use fbc_core::catalog::image_ref::ImageRef;
use fbc_core::catalog::model::{Bundle, Channel};
use fbc_core::catalog::semver_range::{Range, Version};
use fbc_core::graph::channel::{ChannelGraph, PackageFacts};
use fbc_core::validate::profile;
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use crate::locate::Named;
use crate::navigate::{Placer, place_at};
use crate::state::Server;

/// Names listed in a hover before "and N more".
const LISTED: usize = 12;

impl Server {
    pub(crate) fn hover(&mut self, p: HoverParams) -> Option<Hover> {
        let at = &p.text_document_position_params;
        let (root, cat, place) = place_at(self, at)?;
        let named = place.named.clone()?;
        let pkg = place.package.as_str();
        let text = match &named {
            Named::Bundle(b) => bundle(cat, pkg, b)?,
            Named::Channel(c) => channel(cat, pkg, c)?,
            Named::Package(p) => package(cat, p)?,
            Named::SkipRange {
                channel,
                entry,
                range,
            } => skip_range(cat, pkg, channel, entry, range)?,
            Named::Image(i) => image(i, &self.settings.profile_options(root)),
        };
        let range = Placer::new(root, cat).range(place.blob, place.found.node);
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(range),
        })
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    let mut s = names
        .iter()
        .take(LISTED)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LISTED {
        let _ = write!(s, " and {} more", names.len() - LISTED);
    }
    s
}

fn bundle(cat: &Catalog, package: &str, name: &str) -> Option<String> {
    let idx = cat.index().package(package)?;
    let mut out = format!("**bundle** `{name}` of package `{package}`\n\n");
    let version = idx.bundle(name).and_then(|b| {
        Bundle::read(&cat.blob(b).value)
            .ok()?
            .version()
            .map(str::to_string)
    });
    match &version {
        Some(v) => {
            let _ = writeln!(out, "- version: `{v}`");
        }
        None if idx.bundle(name).is_none() => {
            let _ = writeln!(out, "- no `olm.bundle` of this name in the package");
        }
        None => {
            let _ = writeln!(out, "- version: none readable");
        }
    }
    let parsed = version.as_deref().and_then(|v| Version::parse(v).ok());
    let listing = idx.channels_listing(name);
    let names: Vec<String> = listing
        .iter()
        .map(|&c| cat.blob(c).name().to_string())
        .collect();
    let _ = writeln!(out, "- channels: {}", list(&names));
    for &c in &idx.channels {
        let Ok(ch) = Channel::read(&cat.blob(c).value) else {
            continue;
        };
        if let Some(e) = ch.entry(name) {
            let mut what = Vec::new();
            if let Some(r) = e.replaces {
                what.push(format!("replaces `{r}`"));
            }
            if !e.skips.is_empty() {
                what.push(format!(
                    "skips {}",
                    list(&e.skips.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                ));
            }
            if let Some(r) = e.skip_range {
                what.push(format!("skipRange `{r}`"));
            }
            if what.is_empty() {
                what.push("replaces nothing".into());
            }
            let _ = writeln!(out, "- in `{}`: {}", ch.name, what.join("; "));
        }
        let reached: Vec<String> = ch
            .entries
            .iter()
            .filter(|e| e.name != name)
            .filter(|e| {
                e.replaces == Some(name)
                    || e.skips.contains(&name)
                    || match (e.skip_range.and_then(|r| Range::parse(r).ok()), &parsed) {
                        (Some(r), Some(v)) => r.matches(v),
                        _ => false,
                    }
            })
            .map(|e| e.name.to_string())
            .collect();
        if !reached.is_empty() {
            let _ = writeln!(
                out,
                "- upgrades from it in `{}`: {}",
                ch.name,
                list(&reached)
            );
        }
    }
    Some(out)
}

fn graph(cat: &Catalog, package: &str, channel: &str) -> Option<(ChannelGraph, PackageFacts)> {
    let idx = cat.index().package(package)?;
    let facts = PackageFacts::read(cat, idx);
    let g = ChannelGraph::build(cat, &facts, idx.channel(channel)?)?;
    Some((g, facts))
}

fn channel(cat: &Catalog, package: &str, name: &str) -> Option<String> {
    let mut out = format!("**channel** `{name}` of package `{package}`\n\n");
    let Some((g, facts)) = graph(cat, package, name) else {
        let _ = writeln!(out, "- no `olm.channel` of this name in the package");
        return Some(out);
    };
    match g.chain.head() {
        Some(h) => {
            let _ = writeln!(out, "- head: `{h}`");
        }
        None => {
            let _ = writeln!(out, "- head: none ({:?})", g.chain);
        }
    }
    let _ = writeln!(out, "- entries: {}", g.graph.node_count());
    if facts.default_channel == name {
        let _ = writeln!(out, "- the package's default channel");
    }
    if g.deprecated {
        let _ = writeln!(out, "- deprecated");
    }
    Some(out)
}

fn package(cat: &Catalog, name: &str) -> Option<String> {
    let idx = cat.index().package(name)?;
    let facts = PackageFacts::read(cat, idx);
    let channels: Vec<String> = idx
        .channels
        .iter()
        .map(|&c| cat.blob(c).name().to_string())
        .collect();
    Some(format!(
        "**package** `{name}`\n\n- default channel: `{}`\n- channels: {}\n- bundles: {}\n",
        facts.default_channel,
        list(&channels),
        idx.bundles.len()
    ))
}

fn skip_range(
    cat: &Catalog,
    package: &str,
    channel: &str,
    entry: &str,
    text: &str,
) -> Option<String> {
    let mut out = format!("**skipRange** `{text}` of `{entry}` in `{channel}`\n\n");
    let range = match Range::parse(text) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(out, "- not a valid range: {e}");
            return Some(out);
        }
    };
    let (g, _) = graph(cat, package, channel)?;
    let effect = fbc_core::graph::query::range_effect(&g, &range, g.node(entry));
    let matched: Vec<String> = effect
        .matched
        .iter()
        .map(|&n| g.graph[n].name.clone())
        .collect();
    let pruned: Vec<String> = effect
        .pruned
        .iter()
        .map(|&n| g.graph[n].name.clone())
        .collect();
    let _ = writeln!(
        out,
        "- matches {} other entr{} of the channel: {}",
        effect.matched.len(),
        if effect.matched.len() == 1 {
            "y"
        } else {
            "ies"
        },
        list(&matched)
    );
    let _ = writeln!(
        out,
        "- OLM v0 prunes {} of them (still upgraded from, never installed or upgraded to): {}",
        effect.pruned.len(),
        list(&pruned)
    );
    Some(out)
}

fn image(text: &str, opts: &profile::Options) -> String {
    let mut out = format!("**image** `{text}`\n\n");
    match ImageRef::parse(text) {
        Ok(r) => {
            match &r.digest {
                Some(d) => {
                    let _ = writeln!(out, "- pinned by digest `{d}`");
                }
                None => {
                    let _ = writeln!(
                        out,
                        "- not pinned by digest (tag `{}`): the image it names can change",
                        r.tag.as_deref().unwrap_or("latest")
                    );
                }
            }
            let registries = profile::registries(opts);
            if registries.is_empty() {
                let _ = writeln!(
                    out,
                    "- registry `{}`: no allowed-registry list is active",
                    r.domain
                );
            } else if profile::allowed_registry(text, &registries) {
                let _ = writeln!(
                    out,
                    "- registry `{}`: allowed ({})",
                    r.domain,
                    registries.join(", ")
                );
            } else {
                let _ = writeln!(
                    out,
                    "- registry `{}`: **not allowed** under the active profile ({})",
                    r.domain,
                    registries.join(", ")
                );
            }
        }
        Err(e) => {
            let _ = writeln!(out, "- not a valid image reference: {e}");
        }
    }
    out
}
