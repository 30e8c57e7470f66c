//! `fbc-edit repo …`: changes to a whole catalog repository (`operators/<op>/` beside `catalogs/`).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::exit;
use crate::guard::path::Root;
use crate::repo::add_ocp;

#[derive(Debug, Args)]
pub struct RepoArgs {
    #[command(subcommand)]
    pub command: RepoCommand,
}

#[derive(Debug, Subcommand)]
pub enum RepoCommand {
    /// Open a new OCP catalog version as operator-pipelines' promote-catalog.py does, per
    /// operator's fbc.version_promotion_strategy: copy catalogs/<from>/<op>/ to catalogs/<to>/<op>/
    /// (rendered from the mapped template with the migration where a pre-4.17 catalog would be
    /// copied into 4.17 or later) and append <to> to the ci.yaml mapping that holds <from>.
    /// Everything is planned and previewed first, then written all or nothing.
    AddOcp(AddOcpArgs),
}

#[derive(Debug, Args)]
pub struct AddOcpArgs {
    /// The repository's root (holding operators/ and catalogs/).
    pub root: PathBuf,
    /// The catalog version to open, vX.Y.
    pub version: String,
    /// The catalog version to promote from (default: the highest catalog version below VERSION
    /// in catalogs/; OCP versions are not a line, so 5.0 is not below 4.23).
    #[arg(long, value_name = "vA.B")]
    pub from: Option<String>,
    /// Write without asking.
    #[arg(long, conflicts_with = "dry_run")]
    pub yes: bool,
    /// Show what would change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only these operators (directory names under catalogs/<from>/); repeatable.
    #[arg(long = "operator", value_name = "OP", num_args = 1..)]
    pub operators: Vec<String>,
}

pub fn run(args: &RepoArgs) -> i32 {
    match &args.command {
        RepoCommand::AddOcp(a) => run_add_ocp(a),
    }
}

fn run_add_ocp(args: &AddOcpArgs) -> i32 {
    // The directory written in is fixed from the command line before anything is read.
    let root = match Root::new(&args.root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fbc-edit: {}: {e}", args.root.display());
            return exit::USAGE;
        }
    };
    let plan = match add_ocp::plan(&root, &args.version, args.from.as_deref(), &args.operators) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fbc-edit: nothing written: {e}");
            return exit::USAGE;
        }
    };
    for line in add_ocp::describe(&plan) {
        println!("{line}");
    }
    print!("{}", add_ocp::preview(&plan));
    let refused = plan.refusals().count();
    let code = if refused > 0 { exit::INVALID } else { exit::OK };
    if refused > 0 {
        eprintln!("fbc-edit: {refused} operator(s) cannot be promoted: see above");
    }
    if plan.is_empty() {
        eprintln!("nothing to write: {} is open already", plan.to);
        return code;
    }
    if args.dry_run {
        eprintln!(
            "{} file(s) would be written (dry run: nothing written)",
            plan.files.len()
        );
        return code;
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            eprintln!(
                "fbc-edit: nothing written: give --yes to write the {} file(s), or --dry-run",
                plan.files.len()
            );
            return exit::USAGE;
        }
        eprint!("write {} file(s)? [y/N] ", plan.files.len());
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing written");
            return code;
        }
    }
    match add_ocp::write(&root, &plan) {
        Ok(written) => {
            eprintln!("opened {}: wrote {}", plan.to, written.join(", "));
            code
        }
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            exit::USAGE
        }
    }
}
