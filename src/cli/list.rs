//! `fbc-edit list DIR [PACKAGE [CHANNEL]]`.

use std::path::PathBuf;

use clap::Args;
use serde_json::Value;

use super::{Output, exit};
use fbc_core::catalog::{Catalog, Severity};
use fbc_core::graph::listing;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Catalog directory, or catalog image (REGISTRY/REPO:TAG, oci:DIR[:TAG], oci-archive:FILE,
    /// docker-archive:FILE).
    pub dir: PathBuf,
    /// Show the channels of this package.
    pub package: Option<String>,
    /// Show the entries of this channel of the package.
    pub channel: Option<String>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t)]
    pub output: Output,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

pub fn run(args: &ListArgs) -> i32 {
    let options = listing::load_options(args.channel.is_some());
    let opened = super::open::locate(&args.dir, &args.images).and_then(|l| l.load_with(&options));
    let catalog = match opened {
        Ok(c) => c,
        Err(e) => return e.report(),
    };
    report_load_problems(&catalog);
    let result = match (&args.package, &args.channel) {
        (None, _) => Ok(listing::packages(&catalog)),
        (Some(p), None) => listing::channels(&catalog, p),
        (Some(p), Some(c)) => listing::entries(&catalog, p, c),
    };
    match result {
        Err(msg) => {
            eprintln!("fbc-edit: {msg}");
            exit::USAGE
        }
        Ok(value) => {
            match args.output {
                Output::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&value).unwrap_or_default()
                ),
                Output::Text => print!("{}", text(&value)),
            }
            exit::OK
        }
    }
}

fn report_load_problems(catalog: &Catalog) {
    let shown: Vec<_> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .collect();
    for d in &shown {
        eprintln!("{d}");
    }
    if !shown.is_empty() {
        eprintln!(
            "{} problem(s) while loading; the objects listed below are the ones that loaded",
            shown.len()
        );
    }
}

/// The lifecycle as a table: one row per phase, the version and what it runs on in its first row.
fn lifecycle_text(v: &Value) -> String {
    let mut rows = Vec::new();
    for ver in v["lifecycle"].as_array().into_iter().flatten() {
        let runs_on: Vec<String> = ver["platformCompatibility"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pl| format!("{} {}", cell(&pl["name"]), cell(&pl["versions"])))
            .collect();
        let phases = ver["phases"].as_array().cloned().unwrap_or_default();
        if phases.is_empty() {
            rows.push(vec![
                cell(&ver["name"]),
                "-".into(),
                "-".into(),
                "-".into(),
                runs_on.join("; "),
            ]);
        }
        for (i, ph) in phases.iter().enumerate() {
            let first = i == 0;
            rows.push(vec![
                if first {
                    cell(&ver["name"])
                } else {
                    String::new()
                },
                cell(&ph["name"]),
                cell(&ph["startDate"]),
                cell(&ph["endDate"]),
                if first {
                    runs_on.join("; ")
                } else {
                    String::new()
                },
            ]);
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let t = table(&["LIFECYCLE", "PHASE", "START", "END", "RUNS ON"], rows);
    // Rows without the last columns' text end where their text ends.
    let trimmed: Vec<&str> = t.lines().map(str::trim_end).collect();
    format!("\n{}\n", trimmed.join("\n"))
}

/// Renders the JSON value of any level as aligned columns.
/// A cell: `-` for nothing, a list comma-separated.
fn cell(v: &Value) -> String {
    match v {
        Value::Null => "-".to_string(),
        Value::String(s) if s.is_empty() => "-".to_string(),
        Value::String(s) => s.clone(),
        Value::Array(a) if a.is_empty() => "-".to_string(),
        Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

/// The rows of `key`'s list in `v`, each made by `row`.
fn rows_of(v: &Value, key: &str, row: impl Fn(&Value) -> Vec<String>) -> Vec<Vec<String>> {
    v[key].as_array().into_iter().flatten().map(row).collect()
}

fn channel_row(c: &Value) -> Vec<String> {
    let name = if c["default"] == Value::Bool(true) {
        format!("{} (default)", cell(&c["name"]))
    } else {
        cell(&c["name"])
    };
    let head = match &c["head"] {
        Value::Null => format!(
            "{} heads: {}",
            c["heads"].as_array().map_or(0, Vec::len),
            cell(&c["heads"])
        ),
        h => cell(h),
    };
    vec![name, head, cell(&c["entries"])]
}

/// The listing as a table with aligned columns.
fn text(v: &Value) -> String {
    let fields = |names: &'static [&'static str]| {
        move |x: &Value| names.iter().map(|n| cell(&x[*n])).collect::<Vec<_>>()
    };
    let (header, rows): (Vec<&str>, Vec<Vec<String>>) = if v.get("packages").is_some() {
        (
            vec!["PACKAGE", "DEFAULT CHANNEL", "CHANNELS", "BUNDLES"],
            rows_of(
                v,
                "packages",
                fields(&["name", "defaultChannel", "channels", "bundles"]),
            ),
        )
    } else if v.get("channels").is_some() {
        (
            vec!["CHANNEL", "HEAD", "ENTRIES"],
            rows_of(v, "channels", channel_row),
        )
    } else if any_release(v) {
        (
            vec![
                "ENTRY",
                "VERSION",
                "RELEASE",
                "REPLACES",
                "SKIPS",
                "SKIPRANGE",
            ],
            rows_of(
                v,
                "entries",
                fields(&[
                    "name",
                    "version",
                    "release",
                    "replaces",
                    "skips",
                    "skipRange",
                ]),
            ),
        )
    } else {
        (
            vec!["ENTRY", "VERSION", "REPLACES", "SKIPS", "SKIPRANGE"],
            rows_of(
                v,
                "entries",
                fields(&["name", "version", "replaces", "skips", "skipRange"]),
            ),
        )
    };
    let mut out = table(&header, rows);
    if v.get("channels").is_some() {
        out.push_str(&lifecycle_text(v));
    }
    out
}

/// Whether an entry of the listing has a release (the RELEASE column is shown only then).
fn any_release(v: &Value) -> bool {
    v["entries"]
        .as_array()
        .is_some_and(|a| a.iter().any(|e| e["release"].is_string()))
}

fn table(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<String>| {
        let last = cells.len() - 1;
        for (k, (c, w)) in cells.iter().zip(&widths).enumerate() {
            out.push_str(c);
            if k < last {
                out.extend(std::iter::repeat_n(' ', w - c.chars().count() + 2));
            }
        }
        out.push('\n');
    };
    line(header.iter().map(|h| h.to_string()).collect());
    for r in rows {
        line(r);
    }
    out
}
