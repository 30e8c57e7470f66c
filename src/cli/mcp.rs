//! `fbc-edit mcp [ROOT…]`: the Model Context Protocol server over stdio (crate `fbc_mcp`).

use std::path::PathBuf;

use clap::Args;

use super::exit;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The directories the server may read and edit in (default: the current directory); any
    /// other path a client names is refused.
    #[arg(value_name = "ROOT")]
    pub roots: Vec<PathBuf>,
}

pub fn run(args: &McpArgs) -> i32 {
    let roots = match fbc_mcp::Roots::new(&args.roots) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::USAGE;
        }
    };
    match fbc_mcp::serve(roots) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            exit::USAGE
        }
    }
}
