//! `fbc-edit validate DIR`: every problem at once, with file and line.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::Value;

use super::exit;
use fbc_core::catalog::{Diagnostic, Severity};
use fbc_core::guard::{
    self,
    dir::{DirError, Kind, MAX_REPOSITORY_ENTRIES},
};
use fbc_core::text::plural;
use fbc_core::validate::{self, codes, profile};

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
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands: an annotation per problem.
    Github,
}

/// A set of checks some CI runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// operator-pipelines' static checks (community-operators-prod, certified-operators).
    Community,
    /// Konflux's validate-fbc task.
    Konflux,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Catalog directory.
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
    /// Also run the checks of this CI (repeatable): community or konflux.
    #[arg(long, value_enum)]
    pub profile: Vec<ProfileArg>,
    /// The OpenShift version the catalog is for (default: read from the directory name, such as
    /// `v4.18` or `catalog-4-17`).
    #[arg(long, value_name = "VERSION")]
    pub ocp: Option<String>,
    /// A registry (or prefix) bundle images may come from (repeatable).
    #[arg(long, value_name = "REGISTRY")]
    pub allowed_registry: Vec<String>,
    /// Validate each immediate subdirectory of DIR as a catalog of its own (a tree such as
    /// `catalogs/v4.18`, `catalogs/v4.19`).
    #[arg(long)]
    pub each: bool,
    #[command(flatten)]
    pub images: super::image::ImageArgs,
}

pub fn run(args: &ValidateArgs) -> i32 {
    if args.list_rules {
        let listed = write_report(|out| {
            codes::RULES
                .iter()
                .try_for_each(|(code, severity, summary)| {
                    writeln!(out, "{code}  {:<7}  {summary}", severity.as_str())
                })
        });
        return match listed {
            Ok(()) => exit::OK,
            Err(code) => code,
        };
    }
    let Some(dir) = &args.dir else {
        return exit::USAGE;
    };
    let ocp = match args.ocp.as_deref().map(profile::parse_ocp) {
        Some(None) => {
            eprintln!(
                "fbc-edit: --ocp {:?} is not a version such as 4.18",
                args.ocp.as_deref().unwrap_or("")
            );
            return exit::USAGE;
        }
        Some(v) => v,
        None => None,
    };
    let catalogs = match catalog_dirs(args, dir) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut results = Results::default();
    for cat_dir in &catalogs {
        let report = match check(args, cat_dir, ocp) {
            Ok(r) => r,
            Err(code) => return code,
        };
        results.add(args, cat_dir, report);
    }
    if let Err(code) = write_report(|out| write_results(out, args, &catalogs, &results)) {
        return code;
    }
    if results.failed {
        exit::INVALID
    } else {
        exit::OK
    }
}

/// The catalogs to validate: the directory, or with `--each` each of its subdirectories.
fn catalog_dirs(args: &ValidateArgs, dir: &Path) -> Result<Vec<PathBuf>, i32> {
    if !args.each {
        return Ok(vec![dir.to_path_buf()]);
    }
    match subdirectories(dir, MAX_REPOSITORY_ENTRIES) {
        Ok(d) if d.is_empty() => {
            eprintln!(
                "fbc-edit: {} has no subdirectory to validate",
                dir.display()
            );
            Err(exit::USAGE)
        }
        Ok(d) => Ok(d),
        Err(DirError::Io { source, .. }) => {
            eprintln!("fbc-edit: cannot read {}: {source}", dir.display());
            Err(exit::USAGE)
        }
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            Err(exit::USAGE)
        }
    }
}

/// Loads and validates one catalog, with the ecosystem profiles asked for; `-o opm` prints as it
/// goes, as opm does.
fn check(
    args: &ValidateArgs,
    cat_dir: &Path,
    ocp: Option<(u32, u32)>,
) -> Result<validate::Report, i32> {
    // Problems in an image's catalog are named after the image, not the cache directory.
    // Every payload is checked: decoded as it is read, so no file is read twice. What validation
    // only checks is checked as it is read, and not kept.
    let options = fbc_core::catalog::LoadOptions {
        check_payloads: true,
        keep: fbc_core::catalog::yaml::Keep::Checked,
        ..Default::default()
    };
    let catalog = super::open::locate(cat_dir, &args.images)
        .and_then(|l| l.load_with(&options))
        .map_err(|e| e.report())?;
    let mut report = validate::validate(&catalog);
    if args.profile.is_empty() {
        // The OpenShift 5.0 policy holds without a profile: lifecycle problems are errors there.
        let opts = profile::Options {
            ocp: ocp.or_else(|| profile::ocp_from_path(cat_dir)),
            ..Default::default()
        };
        profile::escalate(&mut report.diagnostics, &opts);
    } else {
        let opts = profile::Options {
            profiles: args
                .profile
                .iter()
                .map(|p| match p {
                    ProfileArg::Community => profile::Profile::Community,
                    ProfileArg::Konflux => profile::Profile::Konflux,
                })
                .collect(),
            ocp: ocp.or_else(|| profile::ocp_from_path(cat_dir)),
            allowed_registries: args.allowed_registry.clone(),
        };
        if opts.ocp.is_none() && args.output == ValidateOutput::Text {
            eprintln!(
                "fbc-edit: {}: OpenShift version unknown (give --ocp): the bundle metadata format is not checked",
                cat_dir.display()
            );
        }
        report.diagnostics.extend(profile::check(&catalog, &opts));
        profile::escalate(&mut report.diagnostics, &opts);
        report
            .diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    if args.output == ValidateOutput::Opm {
        let out = validate::opm::render(&catalog, &report.diagnostics);
        if !out.is_empty() {
            write_report(|w| writeln!(w, "{out}"))?;
        }
    }
    Ok(report)
}

/// Writes a report with `write` to standard output, buffered; one that cannot be written whole
/// (to a full disk, say) is said on standard error and fails the command.
fn write_report(
    write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>,
) -> Result<(), i32> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    write(&mut out).and_then(|()| out.flush()).map_err(|e| {
        eprintln!("fbc-edit: cannot write the report: {e}");
        exit::USAGE
    })
}

/// What every catalog validated gave: the problems shown, the counts per catalog and in all.
#[derive(Default)]
struct Results {
    all: Vec<(PathBuf, Diagnostic)>,
    failed: bool,
    counts: [usize; 3],
    summaries: Vec<(PathBuf, [usize; 3])>,
}

impl Results {
    fn add(&mut self, args: &ValidateArgs, cat_dir: &Path, report: validate::Report) {
        let here = [Severity::Error, Severity::Warning, Severity::Info].map(|s| report.count(s));
        for (i, n) in here.iter().enumerate() {
            self.counts[i] += n;
        }
        self.failed |= !report.is_valid() || (args.strict && report.count(Severity::Warning) > 0);
        self.summaries.push((cat_dir.to_path_buf(), here));
        self.all.extend(
            report
                .diagnostics
                .into_iter()
                .filter(|d| !(args.quiet && d.severity == Severity::Info))
                .map(|d| (cat_dir.to_path_buf(), d)),
        );
    }
}

/// The results, as asked.
fn write_results(
    out: &mut impl std::io::Write,
    args: &ValidateArgs,
    catalogs: &[PathBuf],
    r: &Results,
) -> std::io::Result<()> {
    let path = |cat_dir: &Path, file: &str| shown_path(cat_dir, file);
    match args.output {
        ValidateOutput::Text => write_text(out, args, catalogs, r)?,
        ValidateOutput::Json => {
            // Written as it is serialized: no value tree is built for thousands of problems.
            let items: Vec<JsonProblem> = r
                .all
                .iter()
                .map(|(cat_dir, d)| JsonProblem::of(cat_dir, d))
                .collect();
            serde_json::to_writer_pretty(&mut *out, &items)?;
            writeln!(out)?;
        }
        ValidateOutput::Opm => {}
        ValidateOutput::Sarif => {
            // One log: each result's path is the file as reached from where the command runs.
            let shown: Vec<Diagnostic> = r
                .all
                .iter()
                .map(|(cat_dir, d)| {
                    let mut d = d.clone();
                    d.location.file = path(cat_dir, &d.location.file);
                    for rel in &mut d.related {
                        rel.file = path(cat_dir, &rel.file);
                    }
                    d
                })
                .collect();
            let refs: Vec<&Diagnostic> = shown.iter().collect();
            let log = super::report::sarif(&refs, &|f| f.to_string());
            serde_json::to_writer_pretty(&mut *out, &log)?;
            writeln!(out)?;
        }
        ValidateOutput::Github => {
            for (cat_dir, d) in &r.all {
                write!(
                    out,
                    "{}",
                    super::report::github(&[d], &|f| path(cat_dir, f))
                )?;
            }
        }
    }
    Ok(())
}

fn write_text(
    out: &mut impl std::io::Write,
    args: &ValidateArgs,
    catalogs: &[PathBuf],
    r: &Results,
) -> std::io::Result<()> {
    for (cat_dir, here) in &r.summaries {
        let shown: Vec<&Diagnostic> = r
            .all
            .iter()
            .filter(|(d, _)| d == cat_dir)
            .map(|(_, d)| d)
            .collect();
        if args.each {
            writeln!(out, "{}:", cat_dir.display())?;
        }
        write!(out, "{}", diagnostics_text(cat_dir, &shown, *here))?;
    }
    if args.each {
        writeln!(
            out,
            "{} catalogs: {}, {}, {}",
            catalogs.len(),
            plural(r.counts[0], "error", "errors"),
            plural(r.counts[1], "warning", "warnings"),
            plural(r.counts[2], "note", "notes"),
        )?;
    }
    Ok(())
}

/// The immediate subdirectories of `dir` (links and hidden ones left out), sorted: `dir` listed
/// within `max` entries, more being an error found before the rest is read.
fn subdirectories(dir: &Path, max: usize) -> Result<Vec<PathBuf>, DirError> {
    let mut out: Vec<PathBuf> = guard::dir::list_own(dir, max)?
        .into_iter()
        .filter(|e| !e.link && e.kind == Kind::Dir)
        .filter(|e| !e.name.to_string_lossy().starts_with('.'))
        .map(|e| e.path)
        .collect();
    out.sort();
    Ok(out)
}

/// A diagnostic's file as the user reaches it from where they ran the command.
fn shown_path(dir: &Path, file: &str) -> String {
    if file == "." || file.is_empty() {
        dir.display().to_string()
    } else {
        dir.join(file).display().to_string()
    }
}

fn located(dir: &Path, loc: &fbc_core::catalog::Location) -> String {
    let path = shown_path(dir, &loc.file);
    if loc.line == 0 {
        path
    } else {
        format!("{path}:{}:{}", loc.line, loc.column.max(1))
    }
}

/// Related places shown per problem in text output.
const RELATED_SHOWN: usize = 5;

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
        // A grouped note lists every place; the text shows the first few (JSON and SARIF all).
        for r in d.related.iter().take(RELATED_SHOWN) {
            out.push_str(&format!("  see {}\n", located(dir, r)));
        }
        if d.related.len() > RELATED_SHOWN {
            out.push_str(&format!(
                "  … and {} more places (--output json lists them all)\n",
                d.related.len() - RELATED_SHOWN
            ));
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

/// One problem as `--output json` prints it: its fields in this order.
#[derive(serde::Serialize)]
struct JsonProblem<'a> {
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    file: String,
    line: u32,
    column: u32,
    package: Option<&'a str>,
    channel: Option<&'a str>,
    bundle: Option<&'a str>,
    hint: Option<&'a str>,
    related: Vec<String>,
    opm: Option<&'a str>,
}

impl<'a> JsonProblem<'a> {
    fn of(dir: &Path, d: &'a Diagnostic) -> Self {
        JsonProblem {
            code: d.code,
            severity: d.severity.as_str(),
            message: &d.message,
            file: shown_path(dir, &d.location.file),
            line: d.location.line,
            column: d.location.column,
            package: d.object.package.as_deref(),
            channel: d.object.channel.as_deref(),
            bundle: d.object.bundle.as_deref(),
            hint: d.hint.as_deref(),
            related: d.related.iter().map(|r| located(dir, r)).collect(),
            opm: d.opm.as_ref().map(|o| o.text.as_str()),
        }
    }
}

pub(crate) fn json_value(dir: &Path, shown: &[&Diagnostic]) -> Value {
    Value::Array(
        shown
            .iter()
            .map(|d| serde_json::to_value(JsonProblem::of(dir, d)).unwrap_or_default())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdirectories_are_listed_within_the_bound() {
        let tmp = tempfile::tempdir().unwrap();
        for d in ["v4.18", "v4.17", ".git"] {
            std::fs::create_dir(tmp.path().join(d)).unwrap();
        }
        std::fs::write(tmp.path().join("README.md"), "").unwrap();
        std::os::unix::fs::symlink("v4.18", tmp.path().join("v4.19")).unwrap();
        let got = subdirectories(tmp.path(), 5).unwrap();
        assert_eq!(got, [tmp.path().join("v4.17"), tmp.path().join("v4.18")]);
        let e = subdirectories(tmp.path(), 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: more than 4 entries; not read further",
                tmp.path().display()
            )
        );
    }
}
