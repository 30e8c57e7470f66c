//! `fbc-edit render BUNDLE_DIR|IMAGE` and `fbc-edit check-bundle DIR`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::exit;
use super::validate::{diagnostics_text, json_value};
use fbc_core::bundle::{self, RenderOptions};
use fbc_core::catalog::emit::{OutFormat, write_fbc};
use fbc_core::catalog::{Diagnostic, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum RenderOutput {
    #[default]
    Json,
    Yaml,
}

impl From<RenderOutput> for OutFormat {
    fn from(o: RenderOutput) -> OutFormat {
        match o {
            RenderOutput::Json => OutFormat::Json,
            RenderOutput::Yaml => OutFormat::Yaml,
        }
    }
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// registry+v1 bundle directories (each holding manifests/ and metadata/), bundle images
    /// (rendered with the reference as their `image`) or catalog images (their whole catalog).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The bundle's image reference: written as `image` and added to relatedImages (empty otherwise,
    /// as opm leaves it for a directory; a bundle image's own reference otherwise). With several
    /// directories, applies to each.
    #[arg(long, value_name = "REF", value_parser = super::edit_args::image_ref)]
    pub image: Option<String>,
    /// Write one olm.csv.metadata property instead of an olm.bundle.object per manifest.
    #[arg(long)]
    pub csv_metadata: bool,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t)]
    pub output: RenderOutput,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

pub fn run_render(args: &RenderArgs) -> i32 {
    let opts = RenderOptions {
        image: args.image.clone(),
        csv_metadata: args.csv_metadata,
        related: fbc_core::bundle::RelatedOrder::default(),
    };
    if args.csv_metadata && args.image.is_none() {
        eprintln!(
            "fbc-edit: warning: --csv-metadata without --image: a bundle with olm.csv.metadata and no image fails opm validate (\"bundle image must be set\")"
        );
    }
    let mut blobs = Vec::new();
    for dir in &args.dirs {
        if fbc_image::is_image(dir) {
            match render_image(dir, args, &opts) {
                Ok(mut b) => blobs.append(&mut b),
                Err((code, e)) => {
                    eprintln!("fbc-edit: render {}: {e}", dir.display());
                    return code;
                }
            }
            continue;
        }
        if !dir.is_dir() {
            eprintln!("fbc-edit: render {}: not a directory", dir.display());
            return exit::USAGE;
        }
        if bundle::detect(dir) != Some(bundle::Format::RegistryV1) {
            eprintln!(
                "fbc-edit: render {}: not a registry+v1 bundle directory (it needs manifests/ and metadata/)",
                dir.display()
            );
            return exit::USAGE;
        }
        match bundle::render_dir_noting(dir, &opts) {
            Ok((b, unread)) => {
                note_unread(dir, &unread);
                blobs.push(b);
            }
            Err(e) => {
                eprintln!("fbc-edit: render {}: {e}", dir.display());
                eprintln!(
                    "  hint: fbc-edit check-bundle {} lists every problem",
                    dir.display()
                );
                return exit::INVALID;
            }
        }
    }
    print!("{}", write_fbc(&blobs, args.output.into()));
    exit::OK
}

/// Says on stderr which files of the bundle directory `dir` a rendering left out, unread.
pub(crate) fn note_unread(dir: &std::path::Path, unread: &[String]) {
    for u in unread {
        eprintln!("note: {}/{u}; left out of the rendering", dir.display());
    }
}

/// The blobs an image renders to: a bundle image's `olm.bundle` (its `image` the reference unless
/// --image says otherwise), or every object of a catalog image's catalog.
fn render_image(
    reference: &std::path::Path,
    args: &RenderArgs,
    opts: &RenderOptions,
) -> Result<Vec<serde_json::Value>, (i32, String)> {
    use fbc_image::Kind;
    let opened = super::open::image(reference, &args.images, fbc_image::Want::Any)
        .map_err(|e| (exit::USAGE, e.to_string()))?;
    match opened.kind {
        Kind::Bundle { .. } => {
            let opts = RenderOptions {
                image: opts
                    .image
                    .clone()
                    .or_else(|| Some(opened.reference.clone())),
                csv_metadata: opts.csv_metadata,
                related: fbc_core::bundle::RelatedOrder::default(),
            };
            bundle::render_dir(&opened.dir, &opts)
                .map(|b| vec![b])
                .map_err(|e| (exit::INVALID, e.to_string()))
        }
        Kind::Catalog { .. } => {
            let catalog = super::open::Located::from(opened)
                .load()
                .map_err(|e| (exit::USAGE, e.to_string()))?;
            for d in catalog
                .diagnostics
                .iter()
                .filter(|d| d.severity != Severity::Info)
            {
                eprintln!("{d}");
            }
            catalog
                .live_blobs()
                .map(|(_, b)| catalog.to_json(&b.value))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| (exit::USAGE, format!("cannot read the catalog back: {e}")))
        }
    }
}

#[derive(Debug, Args)]
pub struct CheckBundleArgs {
    /// Bundle directory (registry+v1 or plain+v0).
    pub dir: PathBuf,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t)]
    pub output: super::Output,
    /// Leave out notes (severity info).
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run_check(args: &CheckBundleArgs) -> i32 {
    if !args.dir.is_dir() {
        eprintln!(
            "fbc-edit: check-bundle {}: not a directory",
            args.dir.display()
        );
        return exit::USAGE;
    }
    let check = bundle::check_dir(&args.dir);
    if check.format.is_none() {
        for d in &check.diagnostics {
            eprintln!("fbc-edit: {}", d.message);
        }
        return exit::USAGE;
    }
    let shown: Vec<&Diagnostic> = check
        .diagnostics
        .iter()
        .filter(|d| !(args.quiet && d.severity == Severity::Info))
        .collect();
    let count = |s| check.diagnostics.iter().filter(|d| d.severity == s).count();
    match args.output {
        super::Output::Text => {
            if let Some(f) = check.format {
                println!("{}: {f} bundle", args.dir.display());
            }
            print!(
                "{}",
                diagnostics_text(
                    &args.dir,
                    &shown,
                    [
                        count(Severity::Error),
                        count(Severity::Warning),
                        count(Severity::Info)
                    ]
                )
            );
        }
        super::Output::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "format": check.format.map(|f| f.to_string()),
                "valid": check.errors() == 0,
                "diagnostics": json_value(&args.dir, &shown),
            }))
            .unwrap_or_default()
        ),
    }
    if check.errors() == 0 {
        exit::OK
    } else {
        exit::INVALID
    }
}
