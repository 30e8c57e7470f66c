//! Catalog and bundle arguments that may name images: the flags that say how to reach registries
//! (the arguments are opened in [`super::open`]). `fbc-edit export IMAGE DIR` writes an image out as
//! files to edit.

use std::path::PathBuf;

use clap::Args;

use super::exit;
use fbc_core::guard::limits::{LimitError, Limits};
use fbc_image::{self as image, Kind, Want};

/// How images are fetched (for arguments that name one).
#[derive(Debug, Args, Clone, Default)]
pub struct ImageArgs {
    /// Images: accept a registry TLS certificate that does not verify (a self-signed one).
    #[arg(long)]
    pub insecure: bool,
    /// Images: speak plain HTTP to the registry (a local registry without TLS).
    #[arg(long)]
    pub plain_http: bool,
    /// Images: ask the registry again and pull again, even when the cache holds the image.
    #[arg(long)]
    pub refresh: bool,
}

/// A `--limit` value, checked when the command line is read.
pub(super) fn check_limit(setting: &str) -> Result<String, String> {
    Limits::default()
        .set(setting)
        .map(|()| setting.to_string())
        .map_err(|e| e.why)
}

/// The budgets of `FBC_EDIT_LIMITS` with the command line's `--limit` settings on top.
pub fn limits(settings: &[String]) -> Result<Limits, LimitError> {
    let mut limits = Limits::from_env()?;
    for l in settings {
        limits.set(l)?;
    }
    Ok(limits)
}

impl ImageArgs {
    /// The options, with a progress bar on standard error (drawn only on a terminal), and the
    /// process's budgets (`FBC_EDIT_LIMITS`, then `--limit`).
    pub fn options(&self) -> image::Options {
        image::Options {
            insecure: self.insecure,
            plain_http: self.plain_http,
            refresh: self.refresh,
            progress: true,
            limits: fbc_core::guard::limits::current(),
        }
    }
}

/// `fbc-edit export IMAGE DIR`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The image (a registry reference, oci:DIR[:TAG], oci-archive:FILE or docker-archive:FILE).
    pub image: PathBuf,
    /// Where to write it: a new (or empty) directory.
    pub dir: PathBuf,
    #[command(flatten)]
    pub images: ImageArgs,
}

pub fn run_export(args: &ExportArgs) -> i32 {
    if !image::is_image(&args.image) {
        eprintln!(
            "fbc-edit: export {}: not an image reference (REGISTRY/REPOSITORY[:TAG], oci:DIR[:TAG], oci-archive:FILE, docker-archive:FILE)",
            args.image.display()
        );
        return exit::USAGE;
    }
    let opened = match super::open::image(&args.image, &args.images, Want::Any) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::USAGE;
        }
    };
    match image::export(&opened.dir, &args.dir, &fbc_core::guard::limits::current()) {
        Ok(n) => {
            let what = match &opened.kind {
                Kind::Catalog { .. } => "catalog directory",
                Kind::Bundle { .. } => "bundle directory (manifests/ and metadata/)",
            };
            eprintln!(
                "wrote {} ({n} files) as a {what}: {}",
                args.dir.display(),
                opened.digest
            );
            exit::OK
        }
        Err(e) => {
            eprintln!("fbc-edit: export {}: {e}", args.image.display());
            exit::USAGE
        }
    }
}
