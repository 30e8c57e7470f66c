use clap::Parser;

/// Loading builds many small nodes; mimalloc allocates and frees them markedly faster than the
/// system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = fbc_edit::cli::Cli::parse();
    std::process::exit(fbc_edit::cli::run(cli));
}
