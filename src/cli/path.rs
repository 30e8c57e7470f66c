//! `fbc-edit path`: how a cluster running a version reaches the channel head under OLM v0 (hop by
//! hop, or why it cannot, naming the chain of links that stops it), or where OLM v1's automatic
//! upgrades lead (`--olm v1`), side by side with OLM v0 where the two differ.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::Value;

use super::graph::check_selection;
use super::{Output, exit};
use fbc_core::graph::answer;
use fbc_core::graph::channel::{ChannelGraph, EdgeKind};
use fbc_core::graph::export::Selection;
use fbc_core::graph::query::{Installed, UpgradeQuery, V0Answer, V1Path};

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
fn v0_answer(g: &ChannelGraph, from: &Installed, answer: &V0Answer) -> (Value, Vec<String>) {
    let value = answer::v0_value(g, from, answer);
    let V0Answer { path, offers } = answer;
    let head = g.chain.head().unwrap_or_default().to_string();
    let from_text = from.describe();
    let mut lines = Vec::new();
    match path {
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
    (value, lines)
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
    let query =
        match UpgradeQuery::new(&catalog, &args.package, args.channel.as_deref(), &args.from) {
            Ok(q) => q,
            Err(e) => {
                eprintln!("fbc-edit: {e}");
                return exit::USAGE;
            }
        };
    let (first, from) = (query.first(), query.from());
    let ok = match args.olm {
        Olm::V0 => {
            let answer = query.v0();
            let (value, lines) = v0_answer(first, from, &answer);
            match args.output {
                Output::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&value).unwrap_or_default()
                ),
                Output::Text => lines.iter().for_each(|l| println!("{l}")),
            }
            answer.path.is_ok()
        }
        Olm::V1 if args.output == Output::Json => {
            let (value, reached) = query.v1_json(&args.package, args.channel.as_deref());
            println!(
                "{}",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            );
            reached
        }
        Olm::V1 => {
            let p = query.v1();
            let scope_text = match &args.channel {
                Some(c) => format!("channel {c}"),
                None => format!("every channel of {}", args.package),
            };
            // OLM v0, for the named channel, where its answer differs.
            let v0 = args.channel.as_ref().map(|_| query.v0());
            let same = v0.as_ref().is_some_and(|a| a.same_way_as(first, &p));
            let v0 = v0.map(|a| v0_answer(first, from, &a));
            v1_lines(&p, from, &scope_text)
                .iter()
                .for_each(|l| println!("{l}"));
            match &v0 {
                Some(_) if same => println!("OLM v0 takes the same way."),
                Some((_, lines)) => {
                    println!("OLM v0 differs:");
                    lines.iter().for_each(|l| println!("  {l}"));
                }
                None => {}
            }
            p.reached
        }
    };
    if ok { exit::OK } else { exit::INVALID }
}
