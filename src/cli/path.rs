//! `fbc-edit path`: how a cluster running a version reaches the channel head under OLM v0 (hop by
//! hop, or why it cannot, naming the chain of links that stops it), or where OLM v1's automatic
//! upgrades lead (`--olm v1`), side by side with OLM v0 where the two differ.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::graph::check_selection;
use super::{Output, exit};
use crate::graph::channel::{ChannelGraph, EdgeKind, PackageFacts};
use crate::graph::export::Selection;
use crate::graph::query::{self, Hop, Installed, NoPath, V1Path};

/// Which OLM's upgrade rules to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Olm {
    /// OLM v0 (catalog operator): one channel, skipped and stranded entries dropped, the offer
    /// nearest the head first.
    #[default]
    V0,
    /// OLM v1 (operator-controller, CatalogProvided policy): the highest version among the
    /// entries that replace, skip or have a skipRange containing the installed bundle; nothing is
    /// dropped.
    V1,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Catalog directory or catalog image.
    pub dir: PathBuf,
    #[arg(long, short)]
    pub package: String,
    /// The channel (with --olm v1 it may be left out: every channel of the package is in scope,
    /// as for a ClusterExtension that names none).
    #[arg(long, short)]
    pub channel: Option<String>,
    /// The installed bundle name, or its version.
    #[arg(long)]
    pub from: String,
    /// Whose upgrade rules to follow.
    #[arg(long, value_enum, default_value_t)]
    pub olm: Olm,
    #[arg(long, short, value_enum, default_value_t)]
    pub output: Output,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

fn kinds(via: &[EdgeKind]) -> Vec<&'static str> {
    via.iter().map(|k| k.as_str()).collect()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// OLM v0's answer for one channel: JSON and text lines.
fn v0_answer(g: &ChannelGraph, from: &Installed) -> (Result<Vec<Hop>, NoPath>, Value, Vec<String>) {
    let path = query::path_to_head(g, from);
    let offers = query::v0_offers(g, from).unwrap_or_default();
    let head = g.chain.head().unwrap_or_default().to_string();
    let from_text = from.describe();
    let value = json!({
        "package": g.package,
        "channel": g.channel,
        "from": from_text,
        "head": if head.is_empty() { Value::Null } else { head.clone().into() },
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
            Err(_) => Value::Null,
        },
        "error": path.as_ref().err().map(NoPath::to_string),
    });
    let mut lines = Vec::new();
    match &path {
        Ok(hops) if hops.is_empty() => lines.push(format!(
            "{from_text} is the head of {}/{}: there is nothing newer",
            g.package, g.channel
        )),
        Ok(hops) => {
            lines.push(format!(
                "{from_text} → {head} ({}/{}): {} upgrade{}",
                g.package,
                g.channel,
                hops.len(),
                plural(hops.len())
            ));
            for h in hops {
                lines.push(format!(
                    "  {} → {}  via {}",
                    h.from,
                    g.graph[h.to].name,
                    kinds(&h.via).join(", ")
                ));
            }
            if offers.len() > 1 {
                let others: Vec<&str> = offers[1..]
                    .iter()
                    .map(|o| g.graph[o.entry].name.as_str())
                    .collect();
                lines.push(format!(
                    "OLM v0 offers {} first; also reachable in one step: {}",
                    g.graph[offers[0].entry].name,
                    others.join(", ")
                ));
            }
        }
        Err(why) => lines.push(format!(
            "no upgrade path from {from_text} to the head of {}/{}: {why}",
            g.package, g.channel
        )),
    }
    (path, value, lines)
}

fn v1_json(p: &V1Path, scope: &[String]) -> Value {
    json!({
        "channels": scope,
        "target": p.target,
        "end": p.end,
        "reached": p.reached,
        "path": p.hops.iter().map(|h| json!({
            "from": h.from,
            "to": h.to,
            "version": h.version.as_ref().map(|v| v.to_string()),
            "via": h.via.iter().map(|(c, k)| json!({"channel": c, "kind": k.as_str()})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn v1_lines(p: &V1Path, from: &Installed, scope_text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let from_text = from.describe();
    let target = p.target.as_deref().unwrap_or("?");
    if p.hops.is_empty() && p.reached {
        lines.push(format!(
            "OLM v1 ({scope_text}): {from_text} is the newest there: there is nothing to upgrade to"
        ));
        return lines;
    }
    if p.hops.is_empty() {
        lines.push(format!(
            "OLM v1 ({scope_text}): no upgrade from {from_text}: nothing replaces or skips it and no skipRange contains its version (the target is {target})"
        ));
        return lines;
    }
    let n = p.hops.len();
    if p.reached {
        lines.push(format!(
            "OLM v1 ({scope_text}): {from_text} → {target}: {n} upgrade{}",
            plural(n)
        ));
    } else {
        lines.push(format!(
            "OLM v1 ({scope_text}): {from_text} → {}: {n} upgrade{}, then nothing replaces, skips or has a skipRange containing {}; it stops short of {target}",
            p.end,
            plural(n),
            p.end
        ));
    }
    for h in &p.hops {
        let via: Vec<String> = h
            .via
            .iter()
            .map(|(c, k)| format!("{} ({c})", k.as_str()))
            .collect();
        lines.push(format!(
            "  {} → {}  highest successor{}, via {}",
            h.from,
            h.to,
            h.version
                .as_ref()
                .map_or(String::new(), |v| format!(" {v}")),
            via.join(", ")
        ));
    }
    lines
}

pub fn run(args: &PathArgs) -> i32 {
    let catalog = match super::open::catalog(&args.dir, &args.images) {
        Ok(c) => c,
        Err(e) => return e.report(),
    };
    if args.olm == Olm::V0 && args.channel.is_none() {
        eprintln!(
            "fbc-edit: OLM v0 follows one channel: give --channel (or --olm v1 for every channel of the package)"
        );
        return exit::USAGE;
    }
    let sel = Selection {
        package: Some(args.package.clone()),
        channel: args.channel.clone(),
        ..Default::default()
    };
    if let Err(msg) = check_selection(&catalog, &sel) {
        eprintln!("fbc-edit: {msg}");
        return exit::USAGE;
    }
    let Some(idx) = catalog.index().package(&args.package) else {
        return exit::USAGE;
    };
    let facts = PackageFacts::read(&catalog, idx);
    let graphs: Vec<ChannelGraph> = idx
        .channels
        .iter()
        .filter_map(|&id| ChannelGraph::build(&catalog, &facts, id))
        .filter(|g| args.channel.as_deref().is_none_or(|c| c == g.channel))
        .collect();
    let Some(first) = graphs.first() else {
        eprintln!("fbc-edit: no channel of {} can be read", args.package);
        return exit::USAGE;
    };
    // A name or version known in any channel in scope; else a version no longer in the catalog.
    let known = graphs
        .iter()
        .find_map(|g| Installed::resolve(g, &args.from).filter(|i| i.name.is_some()));
    let Some(from) = known.or_else(|| Installed::resolve(first, &args.from)) else {
        eprintln!(
            "fbc-edit: {:?} is neither an entry of {} nor a version",
            args.from,
            match &args.channel {
                Some(c) => format!("{}/{c}", args.package),
                None => args.package.clone(),
            }
        );
        return exit::USAGE;
    };
    let ok = match args.olm {
        Olm::V0 => {
            let (path, value, lines) = v0_answer(first, &from);
            match args.output {
                Output::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&value).unwrap_or_default()
                ),
                Output::Text => lines.iter().for_each(|l| println!("{l}")),
            }
            path.is_ok()
        }
        Olm::V1 => {
            let refs: Vec<&ChannelGraph> = graphs.iter().collect();
            // The target: the channel's head, or else the highest version in scope.
            let target = match (&args.channel, first.chain.head()) {
                (Some(_), Some(h)) => Some(h.to_string()),
                _ => refs
                    .iter()
                    .flat_map(|g| g.graph.node_weights())
                    .max_by(|a, b| a.version.cmp(&b.version).then(b.name.cmp(&a.name)))
                    .map(|n| n.name.clone()),
            };
            let p = query::v1_path(&refs, &from, target.as_deref());
            let reached = p.reached || target.as_deref() == from.name.as_deref();
            let p = V1Path { reached, ..p };
            let scope: Vec<String> = graphs.iter().map(|g| g.channel.clone()).collect();
            let scope_text = match &args.channel {
                Some(c) => format!("channel {c}"),
                None => format!("every channel of {}", args.package),
            };
            // OLM v0, for the named channel, where its answer differs.
            let v0 = args.channel.as_ref().map(|_| v0_answer(first, &from));
            let same = v0.as_ref().is_some_and(|(path, _, _)| match path {
                Ok(hops) => {
                    let names: Vec<&str> = hops
                        .iter()
                        .map(|h| first.graph[h.to].name.as_str())
                        .collect();
                    let v1: Vec<&str> = p.hops.iter().map(|h| h.to.as_str()).collect();
                    names == v1 && p.reached
                }
                Err(_) => false,
            });
            match args.output {
                Output::Json => {
                    let mut value = v1_json(&p, &scope);
                    value["olm"] = "v1".into();
                    value["package"] = args.package.clone().into();
                    value["from"] = from.describe().into();
                    if let Some((_, v0_value, _)) = &v0 {
                        value["v0"] = v0_value.clone();
                        value["v0_differs"] = (!same).into();
                    }
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&value).unwrap_or_default()
                    );
                }
                Output::Text => {
                    v1_lines(&p, &from, &scope_text)
                        .iter()
                        .for_each(|l| println!("{l}"));
                    match &v0 {
                        Some(_) if same => println!("OLM v0 takes the same way."),
                        Some((_, _, lines)) => {
                            println!("OLM v0 differs:");
                            lines.iter().for_each(|l| println!("  {l}"));
                        }
                        None => {}
                    }
                }
            }
            p.reached
        }
    };
    if ok { exit::OK } else { exit::INVALID }
}
