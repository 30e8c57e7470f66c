//! `fbc-edit graph` (draw channels) and `fbc-edit path` (how an installed version reaches the head).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::json;

use super::{Output, exit};
use crate::catalog::{Catalog, load};
use crate::graph::channel::{ChainSummary, ChannelGraph, PackageFacts, package_channel_graphs};
use crate::graph::export::{self, MermaidOptions, Selection};
use crate::graph::layout;
use crate::graph::query::{self, Installed, NoPath};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum GraphFormat {
    /// Lanes in the terminal, newest entry first.
    #[default]
    Text,
    /// Mermaid, as `opm alpha render-graph` prints it.
    Mermaid,
    /// Graphviz DOT.
    Dot,
}

#[derive(Debug, Args)]
pub struct GraphArgs {
    /// Catalog directory or catalog image.
    pub dir: PathBuf,
    /// Only this package.
    #[arg(long, short)]
    pub package: Option<String>,
    /// Only channels with this name.
    #[arg(long, short)]
    pub channel: Option<String>,
    #[arg(long, short, value_enum, default_value_t)]
    pub format: GraphFormat,
    /// Mermaid: mark what OLM v0 ignores (skipped entries and the links into them), like opm's
    /// `--draw-v0-semantics`.
    #[arg(long)]
    pub v0_semantics: bool,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Catalog directory or catalog image.
    pub dir: PathBuf,
    #[arg(long, short)]
    pub package: String,
    #[arg(long, short)]
    pub channel: String,
    /// The installed bundle name, or its version.
    #[arg(long)]
    pub from: String,
    #[arg(long, short, value_enum, default_value_t)]
    pub output: Output,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

fn open(dir: &std::path::Path, images: &super::image::ImageArgs) -> Result<Catalog, i32> {
    let dir = super::image::catalog_dir(dir, images).map_err(|e| {
        eprintln!("fbc-edit: {e}");
        exit::USAGE
    })?;
    load(&dir).map_err(|e| {
        eprintln!("fbc-edit: cannot open catalog {e}");
        exit::USAGE
    })
}

/// Checks that the named package (and channel) exist, with a message naming what does.
fn check_selection(catalog: &Catalog, sel: &Selection) -> Result<(), String> {
    if let Some(p) = &sel.package {
        let Some(idx) = catalog.index().package(p) else {
            return Err(format!("no package {p:?} in the catalog"));
        };
        if let Some(c) = &sel.channel
            && idx.channel(c).is_none()
        {
            let names: Vec<&str> = idx
                .channels
                .iter()
                .map(|&id| catalog.blob(id).name())
                .collect();
            return Err(format!(
                "package {p:?} has no channel {c:?} (its channels: {})",
                names.join(", ")
            ));
        }
    }
    Ok(())
}

pub fn run_graph(args: &GraphArgs) -> i32 {
    let catalog = match open(&args.dir, &args.images) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let sel = Selection {
        package: args.package.clone(),
        channel: args.channel.clone(),
    };
    if let Err(msg) = check_selection(&catalog, &sel) {
        eprintln!("fbc-edit: {msg}");
        return exit::USAGE;
    }
    let out = match args.format {
        GraphFormat::Mermaid => export::mermaid(
            &catalog,
            &sel,
            &MermaidOptions {
                v0_semantics: args.v0_semantics,
            },
        ),
        GraphFormat::Dot => export::dot(&catalog, &sel),
        GraphFormat::Text => text(&catalog, &sel),
    };
    print!("{out}");
    std::mem::forget(catalog);
    exit::OK
}

const LEGEND: &str =
    "◉ head  ● entry  ○ dropped by OLM v0 (skipped or stranded)  ✗ deprecated  │ replaces  ┆ skips";

fn text(catalog: &Catalog, sel: &Selection) -> String {
    let mut out = format!("{LEGEND}\n");
    for idx in catalog.index().packages() {
        if sel.package.as_deref().is_some_and(|p| p != idx.name) {
            continue;
        }
        let mut graphs: Vec<ChannelGraph> = package_channel_graphs(catalog, idx)
            .into_iter()
            .filter(|g| sel.channel.as_deref().is_none_or(|c| c == g.channel))
            .collect();
        // The default channel first, then by name.
        graphs.sort_by(|a, b| b.default.cmp(&a.default).then(a.channel.cmp(&b.channel)));
        for g in graphs {
            out.push('\n');
            out.push_str(&header(&g));
            out.push('\n');
            out.push_str(&layout::layout(&g).text());
        }
    }
    out
}

fn header(g: &ChannelGraph) -> String {
    let mut h = format!("{} / {}", g.package, g.channel);
    if g.default {
        h.push_str("  (default channel)");
    }
    if g.deprecated {
        h.push_str("  (deprecated)");
    }
    h.push_str(&format!("  {} entries", g.graph.node_count()));
    match &g.chain {
        ChainSummary::Valid { head } => h.push_str(&format!("  head {head}")),
        ChainSummary::Stranded { head, stranded } => {
            h.push_str(&format!("  head {head}  stranded: {}", stranded.join(", ")))
        }
        ChainSummary::Empty => {}
        ChainSummary::NoHead => h.push_str("  no head"),
        ChainSummary::MultipleHeads(hs) => h.push_str(&format!("  heads: {}", hs.join(", "))),
        ChainSummary::Cycle(c) => h.push_str(&format!("  cycle: {}", c.join(" -> "))),
    }
    h
}

pub fn run_path(args: &PathArgs) -> i32 {
    let catalog = match open(&args.dir, &args.images) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let sel = Selection {
        package: Some(args.package.clone()),
        channel: Some(args.channel.clone()),
    };
    if let Err(msg) = check_selection(&catalog, &sel) {
        eprintln!("fbc-edit: {msg}");
        return exit::USAGE;
    }
    let Some(idx) = catalog.index().package(&args.package) else {
        return exit::USAGE;
    };
    let facts = PackageFacts::read(&catalog, idx);
    let Some(g) = idx
        .channel(&args.channel)
        .and_then(|id| ChannelGraph::build(&catalog, &facts, id))
    else {
        eprintln!("fbc-edit: channel {:?} cannot be read", args.channel);
        return exit::USAGE;
    };
    let Some(from) = Installed::resolve(&g, &args.from) else {
        eprintln!(
            "fbc-edit: {:?} is neither an entry of {}/{} nor a version",
            args.from, g.package, g.channel
        );
        return exit::USAGE;
    };
    let path = query::path_to_head(&g, &from);
    let offers = query::v0_offers(&g, &from).unwrap_or_default();
    let head = g.chain.head().unwrap_or_default().to_string();
    let from_text = from.name.clone().unwrap_or_else(|| {
        format!(
            "version {}",
            from.version
                .as_ref()
                .map(|v| v.to_string())
                .unwrap_or_default()
        )
    });
    let kinds = |via: &[crate::graph::channel::EdgeKind]| -> Vec<&'static str> {
        via.iter().map(|k| k.as_str()).collect()
    };
    match args.output {
        Output::Json => {
            let value = json!({
                "package": g.package,
                "channel": g.channel,
                "from": from_text,
                "head": if head.is_empty() { serde_json::Value::Null } else { head.clone().into() },
                "next": offers.iter().map(|o| json!({
                    "entry": g.graph[o.entry].name,
                    "via": kinds(&o.via),
                })).collect::<Vec<_>>(),
                "path": match &path {
                    Ok(hops) => hops.iter().map(|h| json!({
                        "from": h.from,
                        "to": g.graph[h.to].name,
                        "via": kinds(&h.via),
                    })).collect::<Vec<_>>().into(),
                    Err(_) => serde_json::Value::Null,
                },
                "error": path.as_ref().err().map(NoPath::to_string),
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            );
        }
        Output::Text => match &path {
            Ok(hops) if hops.is_empty() => {
                println!(
                    "{from_text} is the head of {}/{}: there is nothing newer",
                    g.package, g.channel
                );
            }
            Ok(hops) => {
                println!(
                    "{from_text} → {head} ({}/{}): {} upgrade{}",
                    g.package,
                    g.channel,
                    hops.len(),
                    if hops.len() == 1 { "" } else { "s" }
                );
                for h in hops {
                    println!(
                        "  {} → {}  via {}",
                        h.from,
                        g.graph[h.to].name,
                        kinds(&h.via).join(", ")
                    );
                }
                if offers.len() > 1 {
                    let others: Vec<&str> = offers[1..]
                        .iter()
                        .map(|o| g.graph[o.entry].name.as_str())
                        .collect();
                    println!(
                        "OLM v0 offers {} first; also reachable in one step: {}",
                        g.graph[offers[0].entry].name,
                        others.join(", ")
                    );
                }
            }
            Err(why) => {
                println!(
                    "no upgrade path from {from_text} to the head of {}/{}: {why}",
                    g.package, g.channel
                );
            }
        },
    }
    std::mem::forget(catalog);
    if path.is_ok() {
        exit::OK
    } else {
        exit::INVALID
    }
}
