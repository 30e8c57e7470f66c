//! `fbc-edit graph`: draw channels as lanes, Mermaid or DOT.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::exit;
use fbc_core::catalog::Catalog;
use fbc_core::catalog::semver_range::Version;
use fbc_core::graph::channel::{ChainSummary, ChannelGraph};
use fbc_core::graph::export::{self, MermaidOptions, Selection};
use fbc_core::graph::filter::{Filter, Window};
use fbc_core::graph::layout;

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
    /// Catalog directory.
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
    /// Leave out links to versions below this bundle's, as opm's `render-graph --minimum-edge`
    /// does (it draws only the package of the first channel listing the bundle).
    #[arg(long, value_name = "BUNDLE")]
    pub minimum_edge: Option<String>,
    /// Only entries of this version or newer (and the links between them).
    #[arg(long, value_name = "VERSION")]
    pub from: Option<String>,
    /// Only entries of this version or older (and the links between them).
    #[arg(long, value_name = "VERSION")]
    pub to: Option<String>,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

/// Checks that the named package (and channel) exist, with a message naming what does.
pub(crate) fn check_selection(catalog: &Catalog, sel: &Selection) -> Result<(), String> {
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
    let catalog = match super::open::catalog(&args.dir, &args.images) {
        Ok(c) => c,
        Err(e) => return e.report(),
    };
    let filter = match filter_of(&catalog, args) {
        Ok(f) => f,
        Err(msg) => {
            eprintln!("fbc-edit: {msg}");
            return exit::USAGE;
        }
    };
    let sel = Selection {
        package: args.package.clone(),
        channel: args.channel.clone(),
        filter,
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
    exit::OK
}

/// The minimum edge and version window asked for, checked.
fn filter_of(catalog: &Catalog, args: &GraphArgs) -> Result<Filter, String> {
    let version = |flag: &str, text: &Option<String>| -> Result<Option<Version>, String> {
        text.as_deref()
            .map(|t| {
                Version::parse(t.strip_prefix('v').unwrap_or(t))
                    .map_err(|e| format!("--{flag} {t:?} is not a version: {e}"))
            })
            .transpose()
    };
    let minimum_edge = match &args.minimum_edge {
        None => None,
        Some(name) => match export::bundle_version(catalog, name) {
            Some(v) => Some((name.clone(), v)),
            // opm's wording.
            None => return Err(format!("unknown minimum edge name: {name:?}")),
        },
    };
    Ok(Filter {
        minimum_edge,
        window: Window {
            from: version("from", &args.from)?,
            to: version("to", &args.to)?,
        },
    })
}

const LEGEND: &str =
    "◉ head  ● entry  ○ dropped by OLM v0 (skipped or stranded)  ✗ deprecated  │ replaces  ┆ skips";

fn text(catalog: &Catalog, sel: &Selection) -> String {
    let mut out = format!("{LEGEND}\n");
    let mut graphs = export::selected_graphs(catalog, sel);
    // By package; in each, the default channel first, then by name.
    graphs.sort_by(|a, b| {
        a.package
            .cmp(&b.package)
            .then(b.default.cmp(&a.default))
            .then(a.channel.cmp(&b.channel))
    });
    for g in graphs {
        out.push('\n');
        out.push_str(&header(&g));
        out.push('\n');
        out.push_str(&layout::layout(&g).text());
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
