//! `fbc-edit lsp`: the language server of `fbc_lsp`, on standard input and output.

use clap::Args;

use super::exit;

#[derive(Debug, Args)]
pub struct LspArgs {
    /// Speak over standard input and output (the only transport; accepted because most editors
    /// pass it).
    #[arg(long)]
    pub stdio: bool,
    /// The largest message read from the editor (512KiB, 64MiB, 8GiB): a message whose
    /// Content-Length claims more is refused unread and the server exits. The default, 8 GiB,
    /// holds the largest catalog file fbc-edit reads.
    #[arg(long, value_name = "SIZE", value_parser = fbc_core::guard::limits::parse_size)]
    pub max_message: Option<u64>,
}

/// Serves until the editor shuts the server down.
pub fn run(args: &LspArgs) -> i32 {
    match fbc_lsp::run_stdio(args.max_message.unwrap_or(fbc_lsp::DEFAULT_MAX_MESSAGE)) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("fbc-edit lsp: {e}");
            exit::USAGE
        }
    }
}
