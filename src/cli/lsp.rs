//! `fbc-edit lsp`: the language server of `fbc_lsp`, on standard input and output.

use clap::Args;

use super::exit;

#[derive(Debug, Args)]
pub struct LspArgs {
    /// Speak over standard input and output (the only transport; accepted because most editors
    /// pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// Serves until the editor shuts the server down.
pub fn run(_args: &LspArgs) -> i32 {
    match fbc_lsp::run_stdio() {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("fbc-edit lsp: {e}");
            exit::USAGE
        }
    }
}
