use clap::Parser;

/// Loading builds many small nodes; mimalloc allocates and frees them markedly faster than the
/// system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    fbc_edit::alloc::tune();
    // Piped into `head`, output stops quietly like any Unix tool's instead of a panic on the
    // broken pipe.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = fbc_edit::cli::Cli::parse();
    std::process::exit(fbc_edit::cli::run(cli));
}
