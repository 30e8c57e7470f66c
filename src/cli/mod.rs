//! The command line: thin wrappers that parse arguments, call the library and print.

pub mod bundle;
pub mod diff;
pub mod edit;
mod edit_args;
pub mod edit_template;
pub mod graph;
pub mod image;
pub mod list;
pub mod lsp;
pub mod mcp;
pub mod migrate;
pub mod open;
pub mod path;
pub mod release;
pub mod repo;
pub mod report;
pub mod schema;
pub mod shell;
pub mod template;
mod template_out;
pub mod validate;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Exit codes shared by every command.
pub mod exit {
    pub const OK: i32 = 0;
    pub const INVALID: i32 = 1;
    pub const USAGE: i32 = 2;
}

#[derive(Debug, Parser)]
#[command(
    name = "fbc-edit",
    version,
    about = "Browse, check and edit OLM file-based catalogs",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Catalog directory to open in the terminal UI (default: the current directory), a catalog
    /// image (read-only), or a basic or semver template file, which opens as its rendering
    /// (read-only).
    pub dir: Option<PathBuf>,
    /// For a template: where its bundle images are resolved from.
    #[command(flatten)]
    pub sources: template::SourceArgs,
    /// Review mode: show what changed from this older catalog (a directory, an image, or
    /// git:REV for DIR at a git revision) to DIR.
    #[arg(long, value_name = "OLD")]
    pub compare: Option<PathBuf>,
    /// Review mode: compare DIR with itself at this git revision (as --compare git:REV).
    #[arg(long, value_name = "REV", conflicts_with = "compare")]
    pub git: Option<String>,
    #[command(flatten)]
    pub images: image::ImageArgs,
    /// Set a budget for reading untrusted input (NAME=VALUE, e.g. extract-bytes=8GiB,
    /// pull-time=2h), for this command; repeatable. `fbc-edit info` lists the budgets;
    /// FBC_EDIT_LIMITS sets them for every command.
    #[arg(
        long = "limit",
        value_name = "NAME=VALUE",
        value_parser = image::check_limit,
        global = true
    )]
    pub limits: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List packages; the channels of a package; or the entries of a channel.
    List(list::ListArgs),
    /// Check a catalog: opm's rules (same verdict) and lints opm lacks, every problem with its file and line.
    Validate(validate::ValidateArgs),
    /// Draw channels' upgrade graphs: lanes in the terminal, Mermaid (as opm prints it) or DOT.
    Graph(graph::GraphArgs),
    /// How a cluster running a version reaches the channel head under OLM v0 (or v1), hop by hop, or why not.
    Path(path::PathArgs),
    /// What changed between two catalogs, by meaning (exit 1 when something did, like diff).
    Diff(diff::DiffArgs),
    /// Make one guided edit (checked, previewed as a diff, written with minimal changes), in a
    /// catalog or in templates.
    #[command(subcommand_precedence_over_arg = true)]
    Edit(edit::EditArgs),
    /// Render registry+v1 bundle directories into olm.bundle blobs, as `opm render DIR` does.
    Render(bundle::RenderArgs),
    /// Check a bundle directory (registry+v1 or plain+v0): exit 0 valid, 1 invalid, 2 unreadable.
    CheckBundle(bundle::CheckBundleArgs),
    /// Turn a legacy package-manifest directory into a file-based catalog (checked, then validated).
    Migrate(migrate::MigrateArgs),
    /// Write a catalog image's catalog (or a bundle image's manifests/ and metadata/) into a
    /// directory, to edit.
    Export(image::ExportArgs),
    /// Catalog templates (olm.template.basic, olm.semver): render them offline.
    Template(template::TemplateArgs),
    /// The release pipeline's step for a bundle with a release-config.yaml: preview it.
    Release(release::ReleaseArgs),
    /// Whole repositories of operators and catalogs (community-operators-prod,
    /// certified-operators, marketplace): check every FBC operator as the repository's CI does,
    /// or open a new OCP catalog version.
    Repo(repo::RepoArgs),
    /// Print the JSON Schema of a catalog object, a template, ci.yaml or release-config.yaml
    /// (without NAME, list them), for editors and other checkers.
    Schema(schema::SchemaArgs),
    /// Speak the Language Server Protocol on standard input and output: diagnostics as you type,
    /// navigation, hover, completion and guided edits for catalogs, templates, ci.yaml and
    /// release-config.yaml, in any editor with a language client (see docs/editors.md).
    Lsp(lsp::LspArgs),
    /// Where the config file is, and the effective key bindings.
    Info,
    /// Serve the catalogs and templates under ROOT… (default: the current directory) to agents:
    /// a Model Context Protocol server over stdio (docs/agents.md).
    Mcp(mcp::McpArgs),
    /// Print a shell's completion script (bash, zsh, fish, elvish or powershell).
    Completions(shell::CompletionsArgs),
    /// Print the manual page (roff), for `man -l -` or a man directory.
    Man,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Output {
    #[default]
    Text,
    Json,
}

/// Runs the parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match image::limits(&cli.limits) {
        Ok(limits) => fbc_core::guard::limits::install(limits),
        Err(e) => {
            eprintln!("fbc-edit: {}: {e}", fbc_core::guard::limits::ENV);
            return exit::USAGE;
        }
    }
    match cli.command {
        Some(Command::List(args)) => list::run(&args),
        Some(Command::Validate(args)) => validate::run(&args),
        Some(Command::Graph(args)) => graph::run_graph(&args),
        Some(Command::Path(args)) => path::run(&args),
        Some(Command::Edit(args)) => edit::run(&args),
        Some(Command::Diff(args)) => diff::run(&args),
        Some(Command::Render(args)) => bundle::run_render(&args),
        Some(Command::CheckBundle(args)) => bundle::run_check(&args),
        Some(Command::Migrate(args)) => migrate::run(&args),
        Some(Command::Export(args)) => image::run_export(&args),
        Some(Command::Template(args)) => template::run(&args),
        Some(Command::Repo(args)) => repo::run(&args),
        Some(Command::Release(args)) => release::run(&args),
        Some(Command::Schema(args)) => schema::run(&args),
        Some(Command::Lsp(args)) => lsp::run(&args),
        Some(Command::Info) => info(),
        Some(Command::Mcp(args)) => mcp::run(&args),
        Some(Command::Completions(args)) => shell::run_completions(&args),
        Some(Command::Man) => shell::run_man(),
        None => {
            let dir = cli.dir.unwrap_or_else(|| PathBuf::from("."));
            let git = cli.git.clone().or_else(|| {
                let old = cli.compare.as_ref()?.to_str()?;
                old.strip_prefix("git:").map(str::to_string)
            });
            let compare = match (&cli.compare, git) {
                (_, Some(rev)) => Some(crate::tui::Compare::Git {
                    dir: dir.clone(),
                    rev,
                }),
                (Some(old), None) => match open::locate(old, &cli.images) {
                    Ok(l) => Some(crate::tui::Compare::Dir(l.dir)),
                    Err(e) => return e.report(),
                },
                (None, None) => None,
            };
            if fbc_image::is_image(&dir) {
                let opened = match open::image(&dir, &cli.images, fbc_image::Want::Catalog) {
                    Ok(o) => o,
                    Err(e) => {
                        eprintln!("fbc-edit: {e}");
                        return exit::USAGE;
                    }
                };
                return match crate::tui::run_image(&opened, compare.as_ref()) {
                    Ok(()) => exit::OK,
                    Err(e) => {
                        eprintln!("fbc-edit: {e}");
                        exit::USAGE
                    }
                };
            }
            if compare.is_none() && dir.is_dir() && fbc_core::repo::is_repository(&dir) {
                let (sources, images) = (&cli.sources, &cli.images);
                let mut open = |op: &std::path::Path| {
                    if !edit_template::holds_templates(op) {
                        return Err(
                            "no catalog templates to open (catalog-templates/ is empty or missing)"
                                .to_string(),
                        );
                    }
                    match template::run_tui(op, sources, images, false) {
                        exit::OK => Ok(()),
                        code => Err(format!(
                            "could not be opened (exit {code}; its message is printed after quitting)"
                        )),
                    }
                };
                return match crate::tui::repo::run(&dir, &mut open) {
                    Ok(()) => exit::OK,
                    Err(e) => {
                        eprintln!("fbc-edit: {e}");
                        exit::USAGE
                    }
                };
            }
            if dir.is_file() || dir.is_dir() && edit_template::holds_templates(&dir) {
                return template::run_tui(&dir, &cli.sources, &cli.images, compare.is_some());
            }
            if !dir.is_dir() {
                eprintln!("fbc-edit: {}: not a directory", dir.display());
                return exit::USAGE;
            }
            if !cli.sources.catalog.is_empty()
                || !cli.sources.bundle_dirs.is_empty()
                || cli.sources.pull
            {
                eprintln!(
                    "fbc-edit: --catalog, --bundle-dir and --pull are for opening a template file, and {} is a directory",
                    dir.display()
                );
                return exit::USAGE;
            }
            match crate::tui::run(&dir, compare.as_ref()) {
                Ok(()) => exit::OK,
                Err(e) => {
                    eprintln!("fbc-edit: {e}");
                    exit::USAGE
                }
            }
        }
    }
}

/// `fbc-edit info`.
fn info() -> i32 {
    use crate::tui::keymap;
    let path = keymap::config_path();
    let (map, warning) = keymap::load();
    println!(
        "config file: {}",
        path.map_or("(no config directory on this system)".into(), |p| {
            let exists = if p.exists() {
                ""
            } else {
                " (absent: defaults in use)"
            };
            format!("{}{exists}", p.display())
        })
    );
    if let Some(w) = warning {
        println!("warning: {w}");
    }
    let (theme, warning) = crate::theme::load();
    if let Some(w) = warning {
        println!("warning: {w}");
    }
    print!("{}", theme.describe());
    println!(
        "budgets for untrusted input (--limit NAME=VALUE, or {}=\"NAME=VALUE,…\"):",
        fbc_core::guard::limits::ENV
    );
    for line in fbc_core::guard::limits::current().describe() {
        println!("  {line}");
    }
    println!("keys, by layer (the first binding of a key wins):");
    print!("{}", keymap::describe(&map));
    exit::OK
}
