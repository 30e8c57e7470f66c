//! `fbc-edit validate DIR`: every problem at once, with file and line.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::exit;
use crate::catalog::{Diagnostic, Severity, load};
use crate::validate::{self, codes};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ValidateOutput {
    /// One line per problem, `path:line:col: severity[CODE]: message`, with hints and a summary.
    #[default]
    Text,
    /// An array of objects with code, severity, message, file, line, column, package, channel,
    /// bundle and hint.
    Json,
    /// opm's wording and error tree (errors only).
    Opm,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Catalog directory, or catalog image (problems are then shown under the image's name).
    #[arg(required_unless_present = "list_rules")]
    pub dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t)]
    pub output: ValidateOutput,
    /// Fail (exit 1) on warnings too.
    #[arg(long)]
    pub strict: bool,
    /// Leave out notes (severity info).
    #[arg(long, short)]
    pub quiet: bool,
    /// Print every rule's code, severity and summary, and exit.
    #[arg(long)]
    pub list_rules: bool,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

pub fn run(args: &ValidateArgs) -> i32 {
    if args.list_rules {
        for (code, severity, summary) in codes::RULES {
            println!("{code}  {:<7}  {summary}", severity.as_str());
        }
        return exit::OK;
    }
    let Some(dir) = &args.dir else {
        return exit::USAGE;
    };
    // Problems in an image's catalog are named after the image, not the cache directory.
    let read_from = match super::image::catalog_dir(dir, &args.images) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::USAGE;
        }
    };
    let catalog = match load(&read_from) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fbc-edit: cannot open catalog {e}");
            return exit::USAGE;
        }
    };
    let report = validate::validate(&catalog);
    let shown: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| !(args.quiet && d.severity == Severity::Info))
        .collect();
    match args.output {
        ValidateOutput::Text => print!("{}", text(dir, &shown, &report)),
        ValidateOutput::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json_value(dir, &shown)).unwrap_or_default()
        ),
        ValidateOutput::Opm => {
            let out = validate::opm::render(&catalog, &report.diagnostics);
            if !out.is_empty() {
                println!("{out}");
            }
        }
    }
    let failed = !report.is_valid() || (args.strict && report.count(Severity::Warning) > 0);
    // The process ends here: freeing a large catalog node by node is wasted time.
    std::mem::forget(catalog);
    if failed { exit::INVALID } else { exit::OK }
}

/// A diagnostic's file as the user reaches it from where they ran the command.
fn shown_path(dir: &Path, file: &str) -> String {
    if file == "." || file.is_empty() {
        dir.display().to_string()
    } else {
        dir.join(file).display().to_string()
    }
}

fn located(dir: &Path, loc: &crate::catalog::Location) -> String {
    let path = shown_path(dir, &loc.file);
    if loc.line == 0 {
        path
    } else {
        format!("{path}:{}:{}", loc.line, loc.column.max(1))
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn text(dir: &Path, shown: &[&Diagnostic], report: &validate::Report) -> String {
    let counts = [Severity::Error, Severity::Warning, Severity::Info].map(|s| report.count(s));
    diagnostics_text(dir, shown, counts)
}

/// Diagnostics one per line with related places and hints, then the verdict line; `counts` are the
/// errors, warnings and notes found (notes may be left out of `shown`).
pub(crate) fn diagnostics_text(dir: &Path, shown: &[&Diagnostic], counts: [usize; 3]) -> String {
    let mut out = String::new();
    for d in shown {
        out.push_str(&format!(
            "{}: {}[{}]: {}\n",
            located(dir, &d.location),
            d.severity,
            d.code,
            d.message
        ));
        for r in &d.related {
            out.push_str(&format!("  see {}\n", located(dir, r)));
        }
        if let Some(h) = &d.hint {
            let mut lines = h.lines();
            if let Some(first) = lines.next() {
                out.push_str(&format!("  hint: {first}\n"));
            }
            for l in lines {
                out.push_str(&format!("        {l}\n"));
            }
        }
    }
    let [errors, warnings, notes] = counts;
    out.push_str(&format!(
        "{}: {}, {}, {}\n",
        if errors == 0 { "valid" } else { "invalid" },
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings"),
        plural(notes, "note", "notes"),
    ));
    out
}

pub(crate) fn json_value(dir: &Path, shown: &[&Diagnostic]) -> Value {
    Value::Array(
        shown
            .iter()
            .map(|d| {
                json!({
                    "code": d.code,
                    "severity": d.severity.as_str(),
                    "message": d.message,
                    "file": shown_path(dir, &d.location.file),
                    "line": d.location.line,
                    "column": d.location.column,
                    "package": d.object.package,
                    "channel": d.object.channel,
                    "bundle": d.object.bundle,
                    "hint": d.hint,
                    "related": d.related.iter().map(|r| located(dir, r)).collect::<Vec<_>>(),
                    "opm": d.opm.as_ref().map(|o| o.text.as_str()),
                })
            })
            .collect(),
    )
}
