//! `fbc-edit migrate DIR OUT_DIR`: a legacy package-manifest directory to a file-based catalog.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::bundle::RenderOutput;
use super::exit;
use super::validate::{diagnostics_text, json_value};
use fbc_core::catalog::{Diagnostic, Severity};
use fbc_core::migrate::{self, Migration, Options};

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Package-manifest directory: a package (its *.package.yaml beside version directories, or
    /// beside the CSVs and CRDs in the flat layout), or a directory of such packages.
    pub dir: PathBuf,
    /// Where to write <package>/catalog.json; must be empty or absent. Not needed with --check.
    #[arg(required_unless_present = "check")]
    pub out: Option<PathBuf>,
    /// Format of the written catalogs.
    #[arg(long, short, value_enum, default_value_t)]
    pub output: RenderOutput,
    /// Image reference of each bundle, with {package}, {name} (the CSV name) and {version}
    /// replaced, e.g. quay.io/org/{package}-bundle:v{version}. Without it bundles have no image.
    #[arg(long, value_name = "TEMPLATE")]
    pub image_template: Option<String>,
    /// Write one olm.csv.metadata property per bundle instead of its manifests as
    /// olm.bundle.object properties (needs --image-template).
    #[arg(long)]
    pub csv_metadata: bool,
    /// Only check and report; write nothing.
    #[arg(long)]
    pub check: bool,
    /// Leave out notes (severity info).
    #[arg(long, short)]
    pub quiet: bool,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t)]
    pub report: super::Output,
}

pub fn run(args: &MigrateArgs) -> i32 {
    let out = if args.check { None } else { args.out.as_ref() };
    if let Some(out) = out
        && let Err(e) = migrate::check_output_dir(out)
    {
        eprintln!("fbc-edit: migrate: {e}");
        return exit::USAGE;
    }
    let opts = Options {
        image_template: args.image_template.clone(),
        csv_metadata: args.csv_metadata,
        format: args.output.into(),
    };
    let m = match migrate::migrate(&args.dir, &opts) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("fbc-edit: migrate: {e}");
            return exit::USAGE;
        }
    };
    let mut written = Vec::new();
    if let Some(out) = out
        && m.errors() == 0
    {
        match m.write(out) {
            Ok(files) => written = files,
            Err(e) => {
                eprintln!("fbc-edit: migrate: {e}");
                return exit::USAGE;
            }
        }
    }
    let shown: Vec<&Diagnostic> = m
        .diagnostics
        .iter()
        .filter(|d| !(args.quiet && d.severity == Severity::Info))
        .collect();
    match args.report {
        super::Output::Text => print!("{}", text(args, &m, &shown, &written)),
        super::Output::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "valid": m.errors() == 0,
                "written": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                "outputWarnings": m.output_warnings,
                "packages": m.packages.iter().map(|p| json!({
                    "name": p.name,
                    "dir": p.dir,
                    "defaultChannel": p.default_channel,
                    "channels": p.channels.iter().map(|c| json!({
                        "name": c.name,
                        "head": c.head,
                        "entries": c.entries,
                    })).collect::<Vec<_>>(),
                    "bundles": p.bundles,
                })).collect::<Vec<_>>(),
                "diagnostics": json_value(&args.dir, &shown),
            }))
            .unwrap_or_default()
        ),
    }
    if m.errors() == 0 {
        exit::OK
    } else {
        exit::INVALID
    }
}

fn text(args: &MigrateArgs, m: &Migration, shown: &[&Diagnostic], written: &[PathBuf]) -> String {
    let mut out = diagnostics_text(
        &args.dir,
        shown,
        [
            m.count(Severity::Error),
            m.count(Severity::Warning),
            m.count(Severity::Info),
        ],
    );
    if m.errors() > 0 {
        out.push_str("not migrated: fix the errors above; nothing was written\n");
        return out;
    }
    for p in &m.packages {
        let channels: Vec<String> = p
            .channels
            .iter()
            .map(|c| format!("{} ({})", c.name, c.entries.len()))
            .collect();
        out.push_str(&format!(
            "{}: default channel {}, channels {}, {} bundle{}",
            p.name,
            p.default_channel,
            channels.join(", "),
            p.bundles.len(),
            if p.bundles.len() == 1 { "" } else { "s" }
        ));
        match written.iter().find(|f| {
            f.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|n| n == p.name.as_str())
        }) {
            Some(f) => out.push_str(&format!(" -> {}\n", f.display())),
            None => out.push('\n'),
        }
    }
    let verdict = if m.output_warnings == 0 {
        "the migrated catalog validates".to_string()
    } else {
        format!(
            "the migrated catalog validates, with {} warning{} (fbc-edit validate shows them)",
            m.output_warnings,
            if m.output_warnings == 1 { "" } else { "s" }
        )
    };
    out.push_str(&verdict);
    out.push_str(if args.check {
        "; nothing written (--check)\n"
    } else {
        "\n"
    });
    out
}
