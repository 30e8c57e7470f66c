//! Exports: Mermaid in the exact form `opm alpha render-graph` prints, and Graphviz DOT.
//!
//! For one package the Mermaid text is byte-for-byte opm's. opm's defects are fixed where they change
//! nothing for catalogs opm draws correctly:
//! - link numbers (for `linkStyle`) follow the printed order; opm numbers links in channel-name
//!   order across packages but prints package by package, so its red links land on the wrong edges
//!   when several packages are drawn;
//! - deprecations match by package as well as by name (opm styles a channel or bundle of the same
//!   name in every package), and every deprecated package is styled (opm styles only the last one);
//! - node ids with characters Mermaid cannot take, and labels with `"`, are escaped (opm prints them
//!   raw and the diagram fails to render).
//!
//! Entries with equal versions (build metadata aside) come in the order opm's unstable sort leaves
//! them: Go's `sort.Slice`, run here step for step on the entries in file order.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use super::channel::{ChannelGraph, EdgeKind, PackageFacts};
use super::filter::{self, Filter};
use crate::catalog::Catalog;
use crate::catalog::model::{Bundle, Channel, ChannelEntry};
use crate::catalog::semver_range::{Range, Version};
use crate::text::escape::{dot_string, go_quote};
use crate::text::gosort::{self, GoRelease};

/// Which channels to draw, and which part of them.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub package: Option<String>,
    pub channel: Option<String>,
    /// opm's `--minimum-edge` and a version window.
    pub filter: Filter,
}

/// Options of the Mermaid export.
#[derive(Clone, Debug, Default)]
pub struct MermaidOptions {
    /// Mark what OLM v0 ignores (opm's `--draw-v0-semantics`): skipped entries, and links into them.
    pub v0_semantics: bool,
}

struct Selected<'c> {
    package: &'c str,
    /// Each channel with the entries to draw (all of them unless a filter leaves some out).
    channels: Vec<(Channel<'c>, Vec<ChannelEntry<'c>>)>,
    facts: PackageFacts,
}

/// The package of the first channel (by name) listing the minimum edge, which opm draws alone.
fn minimum_edge_package<'c>(catalog: &'c Catalog, name: &str) -> Option<&'c str> {
    let mut channels: Vec<(&str, &str, Channel)> = catalog
        .index()
        .packages()
        .flat_map(|idx| idx.channels.iter().map(move |&id| (idx, id)))
        .filter_map(|(idx, id)| {
            Channel::read(&catalog.blob(id).value)
                .ok()
                .map(|c| (c.name, idx.name.as_str(), c))
        })
        .collect();
    channels.sort_by(|a, b| a.0.cmp(b.0).then(a.1.cmp(b.1)));
    channels
        .into_iter()
        .find(|(_, _, c)| c.entries.iter().any(|e| e.name == name))
        .map(|(_, p, _)| p)
}

fn select<'c>(catalog: &'c Catalog, sel: &Selection) -> Vec<Selected<'c>> {
    let versions = version_map(catalog);
    let version = |name: &str| versions.get(name).cloned().unwrap_or_else(zero);
    let only = sel
        .filter
        .minimum_edge
        .as_ref()
        .and_then(|(name, _)| minimum_edge_package(catalog, name));
    let mut out = Vec::new();
    for idx in catalog.index().packages() {
        if sel.package.as_deref().is_some_and(|p| p != idx.name)
            || only.is_some_and(|p| p != idx.name)
        {
            continue;
        }
        let mut channels: Vec<(Channel<'c>, Vec<ChannelEntry<'c>>)> = idx
            .channels
            .iter()
            .filter_map(|&id| Channel::read(&catalog.blob(id).value).ok())
            .filter(|c| sel.channel.as_deref().is_none_or(|n| n == c.name))
            .filter_map(|c| {
                let kept = filter::entries(&c.entries, &version, &sel.filter);
                (!kept.is_empty() || sel.filter.is_none()).then_some((c, kept))
            })
            .collect();
        if channels.is_empty() {
            continue;
        }
        channels.sort_by(|a, b| a.0.name.cmp(b.0.name));
        out.push(Selected {
            package: &idx.name,
            channels,
            facts: PackageFacts::read(catalog, idx),
        });
    }
    out
}

/// The graphs of the selected channels, filtered, by package and then channel name. Marks (head,
/// skipped, dropped) are those of the whole channel.
pub fn selected_graphs(catalog: &Catalog, sel: &Selection) -> Vec<super::channel::ChannelGraph> {
    let mut out = Vec::new();
    for p in select(catalog, sel) {
        for (ch, entries) in &p.channels {
            let whole = super::channel::ChannelGraph::from_entries(
                p.package,
                ch.name,
                &ch.entries,
                &p.facts,
            );
            out.push(if sel.filter.is_none() {
                whole
            } else {
                filter::part(&whole, entries, &p.facts)
            });
        }
    }
    out
}

/// Whether `name` is a bundle of the catalog (opm's `--minimum-edge` must name one), and its
/// version (0.0.0 when it has none opm can read).
pub fn bundle_version(catalog: &Catalog, name: &str) -> Option<Version> {
    let known = catalog
        .live_blobs()
        .any(|(_, b)| b.schema() == crate::catalog::schema::BUNDLE && b.name() == name);
    known.then(|| version_map(catalog).get(name).cloned().unwrap_or_else(zero))
}

/// Versions by bundle name over the whole catalog, first occurrence winning, as opm's writer reads
/// them; names without a bundle (or a readable version) are 0.0.0.
fn version_map(catalog: &Catalog) -> HashMap<&str, Version> {
    let mut map = HashMap::new();
    for (_, blob) in catalog.live_blobs() {
        if blob.schema() != crate::catalog::schema::BUNDLE {
            continue;
        }
        let Ok(b) = Bundle::read(&blob.value) else {
            continue;
        };
        if let Some(v) = b.version().and_then(|v| Version::parse(v).ok()) {
            map.entry(b.name).or_insert(v);
        }
    }
    map
}

fn zero() -> Version {
    Version::parse("0.0.0").expect("0.0.0 is a version")
}

/// Go's `%q` for the labels (what opm prints), with `"` written the way Mermaid reads it.
fn label(s: &str) -> String {
    let quoted = go_quote(s);
    if s.contains('"') {
        let inner = &quoted[1..quoted.len() - 1];
        format!("\"{}\"", inner.replace("\\\"", "#quot;"))
    } else {
        quoted
    }
}

/// A node id as opm writes it, made safe when it holds characters Mermaid ids cannot.
fn id(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
    {
        s.to_string()
    } else {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+') {
                    c.to_string()
                } else {
                    format!("_{:x}_", c as u32)
                }
            })
            .collect()
    }
}

/// What the Mermaid text gathers while channels are written: link numbers, links to draw red,
/// deprecated packages and channels, entry classes.
#[derive(Default)]
struct MermaidBody<'c> {
    text: String,
    /// Number of the next link (Mermaid numbers them in order).
    link: usize,
    red_links: Vec<usize>,
    deprecated_packages: Vec<String>,
    deprecated_channels: Vec<String>,
    classes: BTreeMap<&'c str, Vec<String>>,
}

/// The Mermaid text of the selected channels, as `opm alpha render-graph DIR [-p PACKAGE]` prints it.
pub fn mermaid(catalog: &Catalog, sel: &Selection, opts: &MermaidOptions) -> String {
    let versions = version_map(catalog);
    let version = |name: &str| versions.get(name).cloned().unwrap_or_else(zero);
    let mut body = MermaidBody::default();
    for p in select(catalog, sel) {
        let _ = writeln!(body.text, "  %% package {}", go_quote(p.package));
        let _ = writeln!(body.text, "  subgraph {}", go_quote(p.package));
        if p.facts.deprecated {
            body.deprecated_packages.push(id(p.package));
        }
        for (ch, entries) in &p.channels {
            mermaid_channel(&mut body, &p, ch, entries, &version, opts);
        }
        body.text.push_str("  end\n");
    }
    let mut out = String::from(
        "graph LR\n  classDef deprecated fill:#E8960F\n  classDef skipped stroke:#FF0000,stroke-width:4px\n  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px\n",
    );
    out.push_str(&body.text);
    for p in body.deprecated_packages {
        let _ = writeln!(out, "style {p} fill:#989695");
    }
    for c in body.deprecated_channels {
        let _ = writeln!(out, "style {c} fill:#DCD0FF");
    }
    for (class, mut ids) in body.classes {
        ids.sort();
        let _ = writeln!(out, "class {} {class}", ids.join(","));
    }
    if !body.red_links.is_empty() {
        let ids: Vec<String> = body.red_links.iter().map(|l| l.to_string()).collect();
        let _ = writeln!(
            out,
            "linkStyle {} stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;",
            ids.join(",")
        );
    }
    out
}

/// One channel's subgraph: entries newest first, each with its skips, skipRange and replaces links.
fn mermaid_channel(
    body: &mut MermaidBody,
    p: &Selected,
    ch: &Channel,
    entries: &[ChannelEntry],
    version: &dyn Fn(&str) -> Version,
    opts: &MermaidOptions,
) {
    let channel_id = id(&format!("{}-{}", p.package, ch.name));
    let _ = writeln!(body.text, "    %% channel {}", go_quote(ch.name));
    let _ = writeln!(body.text, "    subgraph {channel_id}[{}]", label(ch.name));
    if p.facts.deprecated_channels.contains(ch.name) {
        body.deprecated_channels.push(channel_id.clone());
    }
    let mut sorted: Vec<&ChannelEntry> = entries.iter().collect();
    gosort::slice(&mut sorted, GoRelease::default(), |a, b| {
        version(a.name) > version(b.name)
    });
    let mut skipped: HashSet<&str> = HashSet::new();
    let node = |name: &str| format!("{}[{}]", id(&format!("{channel_id}-{name}")), label(name));
    for e in sorted {
        let entry_id = id(&format!("{channel_id}-{}", e.name));
        let _ = writeln!(body.text, "      {}", node(e.name));
        let deprecated = p.facts.deprecated_bundles.contains(e.name);
        let class = match (deprecated, skipped.contains(e.name)) {
            (true, true) => Some("deprecatedskipped"),
            (true, false) => Some("deprecated"),
            (false, true) => Some("skipped"),
            (false, false) => None,
        };
        if let Some(c) = class {
            body.classes.entry(c).or_default().push(entry_id.clone());
        }
        for s in &e.skips {
            let _ = writeln!(body.text, "      {}-- skip --> {}", node(s), node(e.name));
            let red = opts.v0_semantics && !skipped.insert(s);
            body.add_link(red);
        }
        if let Some(r) = e.skip_range
            && let Ok(range) = Range::parse(r)
        {
            for x in entries {
                if range.matches(&version(x.name)) {
                    let _ = writeln!(
                        body.text,
                        "      {}-- \"skipRange({r})\" --> {}",
                        node(x.name),
                        node(e.name)
                    );
                    body.add_link(opts.v0_semantics && skipped.contains(e.name));
                }
            }
        }
        if let Some(r) = e.replaces {
            let _ = writeln!(
                body.text,
                "      {}-- replace --> {}",
                node(r),
                node(e.name)
            );
            body.add_link(opts.v0_semantics && skipped.contains(e.name));
        }
    }
    body.text.push_str("    end\n");
}

impl MermaidBody<'_> {
    /// Counts the link just written, drawn red when `red`.
    fn add_link(&mut self, red: bool) {
        if red {
            self.red_links.push(self.link);
        }
        self.link += 1;
    }
}

/// Graphviz DOT of the selected channels: a cluster per package and channel, entries newest first
/// (left to right), solid `replaces`, dashed `skips` and dotted `skipRange` edges; the head drawn
/// bold, deprecated entries filled, entries OLM v0 drops drawn dashed.
pub fn dot(catalog: &Catalog, sel: &Selection) -> String {
    let mut out = String::from(
        "digraph upgrades {\n  rankdir=RL;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    for p in select(catalog, sel) {
        let _ = writeln!(
            out,
            "  subgraph {} {{\n    label={};",
            dot_string(&format!("cluster_{}", p.package)),
            dot_string(&format!(
                "{}{}",
                p.package,
                if p.facts.deprecated {
                    " (deprecated)"
                } else {
                    ""
                }
            ))
        );
        for (ch, entries) in &p.channels {
            let g = ChannelGraph::from_entries(p.package, ch.name, &ch.entries, &p.facts);
            let g = if sel.filter.is_none() {
                g
            } else {
                filter::part(&g, entries, &p.facts)
            };
            dot_channel(&mut out, p.package, ch.name, &g);
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// One channel's cluster: its title, its entries, then its edges.
fn dot_channel(out: &mut String, package: &str, channel: &str, g: &ChannelGraph) {
    let mut notes = Vec::new();
    if g.default {
        notes.push("default");
    }
    if g.deprecated {
        notes.push("deprecated");
    }
    let title = if notes.is_empty() {
        channel.to_string()
    } else {
        format!("{} ({})", channel, notes.join(", "))
    };
    let _ = writeln!(
        out,
        "    subgraph {} {{\n      label={};",
        dot_string(&format!("cluster_{package}/{channel}")),
        dot_string(&title)
    );
    let nid = |name: &str| dot_string(&format!("{package}/{channel}/{name}"));
    for n in g.newest_first() {
        let e = &g.graph[n];
        let mut attrs = vec![format!(
            "label={}",
            dot_string(&match e.version_release() {
                Some(v) => format!("{}\n{v}", e.name),
                None => e.name.clone(),
            })
        )];
        let mut style = vec!["rounded"];
        if e.head {
            attrs.push("penwidth=2".into());
            style.push("bold");
        }
        if e.deprecated {
            style.push("filled");
            attrs.push("fillcolor=\"#E8960F\"".into());
        }
        if g.dropped(n) {
            style.push("dashed");
        }
        attrs.push(format!("style={}", dot_string(&style.join(","))));
        let _ = writeln!(out, "      {} [{}];", nid(&e.name), attrs.join(", "));
    }
    for o in &g.outside {
        let _ = writeln!(
            out,
            "      {} [label={}, shape=plaintext];",
            nid(&o.from),
            dot_string(&o.from)
        );
    }
    dot_edges(out, g, &nid);
    out.push_str("    }\n");
}

/// A channel's edges, sorted: solid `replaces`, dashed `skips`, dotted `skipRange`.
fn dot_edges(out: &mut String, g: &ChannelGraph, nid: &dyn Fn(&str) -> String) {
    use petgraph::visit::EdgeRef;
    let mut edges: Vec<(String, String, EdgeKind)> = g
        .graph
        .edge_references()
        .map(|e| {
            (
                g.graph[e.source()].name.clone(),
                g.graph[e.target()].name.clone(),
                *e.weight(),
            )
        })
        .chain(
            g.outside
                .iter()
                .map(|o| (o.from.clone(), g.graph[o.to].name.clone(), o.kind)),
        )
        .collect();
    edges.sort();
    for (from, to, kind) in edges {
        let attrs = match kind {
            EdgeKind::Replaces => "label=\"replaces\"".to_string(),
            EdgeKind::Skips => "label=\"skips\", style=dashed".to_string(),
            EdgeKind::SkipRange => format!(
                "label={}, style=dotted, color=\"#555555\"",
                dot_string(&format!(
                    "skipRange({})",
                    g.node(&to)
                        .and_then(|n| g.skip_ranges.get(&n))
                        .map_or("", String::as_str)
                ))
            ),
        };
        let _ = writeln!(out, "      {} -> {} [{attrs}];", nid(&from), nid(&to));
    }
}
