//! `fbc-edit diff OLD NEW` / `fbc-edit diff DIR --git REV`: what changed, by meaning.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{exit, open};
use fbc_core::diff;

fn read(at: open::Located) -> Result<open::Opened, String> {
    at.load().map_err(|e| e.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum DiffOutput {
    #[default]
    Text,
    Json,
    /// For pull-request comments.
    Markdown,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old catalog, a directory or an image (with --git: the catalog directory, compared with
    /// itself at REV).
    pub old: PathBuf,
    /// The new catalog, a directory or an image.
    #[arg(required_unless_present = "git", conflicts_with = "git")]
    pub new: Option<PathBuf>,
    /// Compare DIR at this git revision (old) with DIR as it is now (new).
    #[arg(long, value_name = "REV")]
    pub git: Option<String>,
    #[arg(long, short, value_enum, default_value_t)]
    pub output: DiffOutput,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

pub fn run(args: &DiffArgs) -> i32 {
    let result = (|| -> Result<diff::CatalogDiff, String> {
        match (&args.new, &args.git) {
            (Some(new), _) => {
                // Both images are fetched before either catalog is read.
                let old = open::locate(&args.old, &args.images).map_err(|e| e.to_string())?;
                let new = open::locate(new, &args.images).map_err(|e| e.to_string())?;
                // Both sides load at once: each load is parallel, but not all of it.
                let (old, new) = rayon::join(|| read(old), || read(new));
                let (old, new) = (old?, new?);
                Ok(diff::diff(&old, &new))
            }
            (None, Some(rev)) => {
                let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
                diff::git::checkout(&args.old, rev, tmp.path()).map_err(|e| e.to_string())?;
                let old = read(open::Located::dir(tmp.path()))?;
                let new = read(open::Located::dir(&args.old))?;
                Ok(diff::diff(&old, &new))
            }
            (None, None) => Err("give NEW or --git REV".into()),
        }
    })();
    let d = match result {
        Ok(d) => d,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::USAGE;
        }
    };
    match args.output {
        DiffOutput::Text => print!("{}", diff::text(&d)),
        DiffOutput::Json => println!("{}", serde_json::to_string_pretty(&d).unwrap_or_default()),
        DiffOutput::Markdown => {
            if !d.is_empty() {
                print!("{}", diff::markdown(&d));
            }
        }
    }
    if d.is_empty() {
        exit::OK
    } else {
        exit::INVALID
    }
}
