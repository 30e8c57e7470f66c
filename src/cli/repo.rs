//! `fbc-edit repo …` on a whole repository laid out as community-operators-prod,
//! certified-operators or marketplace: `check` every FBC operator as its CI and `make catalogs` see
//! it; `add-ocp` opens a new OCP catalog version.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use std::io::{BufRead, IsTerminal, Write};

use super::exit;
use fbc_core::catalog::{Diagnostic, Severity};
use fbc_core::guard::path::Root;
use fbc_core::repo::add_ocp;
use fbc_core::repo::{self, Report};
use fbc_core::text::plural;

#[derive(Debug, Args)]
pub struct RepoArgs {
    #[command(subcommand)]
    pub command: RepoCommand,
}

#[derive(Debug, Subcommand)]
pub enum RepoCommand {
    /// Check every operator with fbc.enabled: ci.yaml against the pipeline's schema, the mapping
    /// against catalog-templates/ and catalogs/, every mapped catalog re-rendered and compared
    /// byte for byte, every catalogs/<ocp> validated with the community profile, every
    /// release-config.yaml; with --git, the pull-request rules. Exit 0 clean, 1 problems, 2 not
    /// a repository.
    Check(RepoCheckArgs),
    /// Open a new OCP catalog version as operator-pipelines' promote-catalog.py does, per
    /// operator's fbc.version_promotion_strategy: copy catalogs/<from>/<op>/ to catalogs/<to>/<op>/
    /// (rendered from the mapped template with the migration where a pre-4.17 catalog would be
    /// copied into 4.17 or later) and append <to> to the ci.yaml mapping that holds <from>.
    /// Everything is planned and previewed first, then written all or nothing.
    AddOcp(AddOcpArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum RepoOutput {
    /// Problems grouped by operator, `file:line: severity[CODE]: message`, and a summary.
    #[default]
    Text,
    /// `{"operators": [{"name", "problems": [{code, severity, file, line, message}]}],
    /// "repository": [...], "summary": {...}}`; files relative to ROOT.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands: an annotation per problem.
    Github,
}

#[derive(Debug, Args)]
pub struct RepoCheckArgs {
    /// The repository's root (holding operators/ and catalogs/).
    pub root: PathBuf,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t)]
    pub output: RepoOutput,
    /// Also check the pull-request rules for the changes from this git revision to HEAD.
    #[arg(long, value_name = "BASE")]
    pub git: Option<String>,
}

#[derive(Debug, Args)]
pub struct AddOcpArgs {
    /// The repository's root (holding operators/ and catalogs/).
    pub root: PathBuf,
    /// The catalog version to open, vX.Y.
    pub version: String,
    /// The catalog version to promote from (default: the highest catalog version below VERSION
    /// in catalogs/; OCP versions are not a line, so 5.0 is not below 4.23).
    #[arg(long, value_name = "vA.B")]
    pub from: Option<String>,
    /// Write without asking.
    #[arg(long, conflicts_with = "dry_run")]
    pub yes: bool,
    /// Show what would change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only these operators (directory names under catalogs/<from>/); repeatable.
    #[arg(long = "operator", value_name = "OP", num_args = 1..)]
    pub operators: Vec<String>,
}

pub fn run(args: &RepoArgs) -> i32 {
    match &args.command {
        RepoCommand::Check(a) => run_check(a),
        RepoCommand::AddOcp(a) => run_add_ocp(a),
    }
}

fn run_check(args: &RepoCheckArgs) -> i32 {
    let options = repo::Options {
        git_base: args.git.clone(),
    };
    let report = match repo::check(&args.root, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::USAGE;
        }
    };
    let shown = |file: &str| shown_path(&args.root, file);
    match args.output {
        RepoOutput::Text => print!("{}", text(&report, &shown)),
        RepoOutput::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json_value(&report)).unwrap_or_default()
        ),
        RepoOutput::Sarif => {
            let all = with_shown_paths(&report, &shown);
            let refs: Vec<&Diagnostic> = all.iter().collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&super::report::sarif(&refs, &|f| f.to_string()))
                    .unwrap_or_default()
            );
        }
        RepoOutput::Github => {
            let all: Vec<&Diagnostic> = report.problems().collect();
            print!("{}", super::report::github(&all, &shown));
        }
    }
    if report.is_clean() {
        exit::OK
    } else {
        exit::INVALID
    }
}

/// A file relative to the root as reached from where the command runs.
fn shown_path(root: &Path, file: &str) -> String {
    if root == Path::new(".") || root.as_os_str().is_empty() {
        file.to_string()
    } else {
        root.join(file).display().to_string()
    }
}

fn with_shown_paths(report: &Report, shown: &dyn Fn(&str) -> String) -> Vec<Diagnostic> {
    report
        .problems()
        .map(|d| {
            let mut d = d.clone();
            d.location.file = shown(&d.location.file);
            for r in &mut d.related {
                r.file = shown(&r.file);
            }
            d
        })
        .collect()
}

fn line(d: &Diagnostic, shown: &dyn Fn(&str) -> String) -> String {
    let place = if d.location.line == 0 {
        shown(&d.location.file)
    } else {
        format!("{}:{}", shown(&d.location.file), d.location.line)
    };
    let mut out = format!("  {place}: {}[{}]: {}\n", d.severity, d.code, d.message);
    if let Some(h) = &d.hint {
        out.push_str(&format!("    hint: {h}\n"));
    }
    out
}

/// Problems grouped by operator (the repository's first), then the summary.
pub fn text(report: &Report, shown: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    if !report.repository.is_empty() {
        out.push_str("repository:\n");
        for d in &report.repository {
            out.push_str(&line(d, shown));
        }
    }
    for op in report.operators.iter().filter(|o| !o.problems.is_empty()) {
        out.push_str(&format!("{}:\n", op.name));
        for d in &op.problems {
            out.push_str(&line(d, shown));
        }
    }
    let with = report
        .operators
        .iter()
        .filter(|o| !o.problems.is_empty())
        .count();
    out.push_str(&format!(
        "{} ({} with fbc.enabled), {} validated: {} with problems; {}, {}\n",
        plural(report.operators.len(), "operator", "operators"),
        report.fbc_operators,
        plural(report.catalogs, "catalog", "catalogs"),
        plural(with, "operator", "operators"),
        plural(report.count(Severity::Error), "error", "errors"),
        plural(report.count(Severity::Warning), "warning", "warnings"),
    ));
    out
}

/// A problem as the JSON report has it: exactly its code, severity, file, line and message.
fn problem(d: &Diagnostic) -> Value {
    json!({
        "code": d.code,
        "severity": d.severity.as_str(),
        "file": d.location.file,
        "line": d.location.line,
        "message": d.message,
    })
}

/// The JSON report: operators with their problems, the repository's problems and a summary.
pub fn json_value(report: &Report) -> Value {
    json!({
        "operators": report.operators.iter().map(|o| json!({
            "name": o.name,
            "problems": o.problems.iter().map(problem).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "repository": report.repository.iter().map(problem).collect::<Vec<_>>(),
        "summary": report.summary_json(),
    })
}

fn run_add_ocp(args: &AddOcpArgs) -> i32 {
    // The directory written in is fixed from the command line before anything is read.
    let root = match Root::new(&args.root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fbc-edit: {}: {e}", args.root.display());
            return exit::USAGE;
        }
    };
    let plan = match add_ocp::plan(&root, &args.version, args.from.as_deref(), &args.operators) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fbc-edit: nothing written: {e}");
            return exit::USAGE;
        }
    };
    for line in add_ocp::describe(&plan) {
        println!("{line}");
    }
    print!("{}", add_ocp::preview(&plan));
    let refused = plan.refusals().count();
    let code = if refused > 0 { exit::INVALID } else { exit::OK };
    if refused > 0 {
        eprintln!("fbc-edit: {refused} operator(s) cannot be promoted: see above");
    }
    if plan.is_empty() {
        eprintln!("nothing to write: {} is open already", plan.to);
        return code;
    }
    if args.dry_run {
        eprintln!(
            "{} file(s) would be written (dry run: nothing written)",
            plan.files.len()
        );
        return code;
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            eprintln!(
                "fbc-edit: nothing written: give --yes to write the {} file(s), or --dry-run",
                plan.files.len()
            );
            return exit::USAGE;
        }
        eprint!("write {} file(s)? [y/N] ", plan.files.len());
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing written");
            return code;
        }
    }
    match add_ocp::write(&root, &plan) {
        Ok(written) => {
            eprintln!("opened {}: wrote {}", plan.to, written.join(", "));
            code
        }
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            exit::USAGE
        }
    }
}
