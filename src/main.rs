use clap::Parser;

fn main() {
    let cli = fbc_edit::cli::Cli::parse();
    std::process::exit(fbc_edit::cli::run(cli));
}
