//! `fbc-edit completions SHELL` and `fbc-edit man`: a shell's completion script and a roff manual
//! page, both written from the command line's own definitions.

use std::io::Write;

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;

use super::{Cli, exit};

/// The shells completion scripts are written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellArg {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: ShellArg,
}

pub fn run_completions(args: &CompletionsArgs) -> i32 {
    let shell = match args.shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Elvish => Shell::Elvish,
        ShellArg::Powershell => Shell::PowerShell,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "fbc-edit", &mut out);
    write_out(&out)
}

/// The manual page: fbc-edit(1), every subcommand described in it.
pub fn man_page() -> Vec<u8> {
    let cmd = Cli::command();
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(cmd.clone());
    // Writing into memory cannot fail.
    let _ = man.render_title(&mut out);
    let _ = man.render_name_section(&mut out);
    let _ = man.render_synopsis_section(&mut out);
    let _ = man.render_description_section(&mut out);
    let _ = man.render_options_section(&mut out);
    let _ = man.render_subcommands_section(&mut out);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        subcommand_section(&mut out, sub, "fbc-edit");
    }
    let _ = man.render_version_section(&mut out);
    out
}

/// A subcommand's section: its synopsis, description and options, then its own subcommands.
fn subcommand_section(out: &mut Vec<u8>, sub: &clap::Command, parent: &str) {
    let name = format!("{parent} {}", sub.get_name());
    let _ = writeln!(out, ".SH \"{}\"", name.to_uppercase());
    let mut page = Vec::new();
    let man = clap_mangen::Man::new(sub.clone().bin_name(name.clone()));
    let _ = man.render_synopsis_section(&mut page);
    let _ = man.render_description_section(&mut page);
    let _ = man.render_options_section(&mut page);
    // Each part begins with its own .SH heading: under one subcommand they are subsections.
    let text = String::from_utf8_lossy(&page).replace("\n.SH ", "\n.SS ");
    let text = text
        .strip_prefix(".SH ")
        .map_or(text.clone(), |t| format!(".SS {t}"));
    out.extend_from_slice(text.as_bytes());
    for s in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
        subcommand_section(out, s, &name);
    }
}

pub fn run_man() -> i32 {
    write_out(&man_page())
}

fn write_out(bytes: &[u8]) -> i32 {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            exit::USAGE
        }
    }
}
