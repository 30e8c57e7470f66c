//! The problems pane's list: the report's problems worst first (errors, warnings, then info; each
//! by file and line as the report has them), narrowed to the severities shown, to the selection
//! pinned with `f`, and to what the tree's filter leaves.

use std::collections::HashSet;

use fbc_core::catalog::{Diagnostic, Severity};
use fbc_core::text::plural;

use crate::tui::tree::Loaded;

/// The severities the pane lists (`e` cycles them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shown {
    #[default]
    All,
    /// Errors and warnings.
    Warnings,
    Errors,
}

impl Shown {
    /// The next step of the cycle: all → errors and warnings → errors → all.
    pub fn next(self) -> Shown {
        match self {
            Shown::All => Shown::Warnings,
            Shown::Warnings => Shown::Errors,
            Shown::Errors => Shown::All,
        }
    }

    pub fn admits(self, s: Severity) -> bool {
        match self {
            Shown::All => true,
            Shown::Warnings => s != Severity::Info,
            Shown::Errors => s == Severity::Error,
        }
    }

    /// How the pane's title and the status line name it.
    pub fn label(self) -> &'static str {
        match self {
            Shown::All => "all",
            Shown::Warnings => "errors+warnings",
            Shown::Errors => "errors",
        }
    }
}

/// What the problems pane lists, and in which order.
#[derive(Clone, Debug, Default)]
pub struct ProblemList {
    pub shown: Shown,
    /// `[package]` or `[package, channel]`: only the problems of that object (and of what is in it).
    pub only: Option<Vec<String>>,
    /// Indices into the report's problems, in the pane's order.
    rows: Vec<usize>,
}

impl ProblemList {
    /// The report's indices of the rows listed.
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// Whether anything narrows the list (so the title says how many of how many).
    pub fn narrowed(&self, filter: bool) -> bool {
        self.shown != Shown::All || self.only.is_some() || filter
    }
}

/// The entries a channel lists, for narrowing to it.
fn channel_entries(l: &Loaded, package: &str, channel: &str) -> HashSet<String> {
    let cat = l.ws.catalog();
    cat.index()
        .channel(package, channel)
        .and_then(|id| fbc_core::catalog::model::Channel::read(&cat.blob(id).value).ok())
        .map(|ch| ch.entries.iter().map(|e| e.name.to_string()).collect())
        .unwrap_or_default()
}

/// What the tree shows while it is filtered: its packages, channels and entries.
struct TreeScope<'a> {
    packages: HashSet<&'a str>,
    channels: HashSet<(&'a str, &'a str)>,
    entries: HashSet<(&'a str, &'a str)>,
}

impl<'a> TreeScope<'a> {
    fn of(l: &'a Loaded) -> TreeScope<'a> {
        let mut s = TreeScope {
            packages: HashSet::new(),
            channels: HashSet::new(),
            entries: HashSet::new(),
        };
        for p in &l.items {
            s.packages.insert(p.identifier().as_str());
            for c in p.children() {
                s.channels
                    .insert((p.identifier().as_str(), c.identifier().as_str()));
            }
        }
        for m in &l.matches {
            if let [p, _, e] = m.as_slice() {
                s.entries.insert((p.as_str(), e.as_str()));
            }
        }
        s
    }

    /// A problem is in the filtered tree when the deepest object it names is.
    fn holds(&self, d: &Diagnostic) -> bool {
        let o = &d.object;
        let Some(p) = o.package.as_deref() else {
            return false;
        };
        match (o.channel.as_deref(), o.bundle.as_deref()) {
            (_, Some(b)) => self.entries.contains(&(p, b)),
            (Some(c), None) => self.channels.contains(&(p, c)),
            (None, None) => self.packages.contains(p),
        }
    }
}

impl Loaded {
    /// Lists the problems again (after the report, the filter, the severities shown or the pinned
    /// selection changed), keeping the highlighted row in range.
    pub(crate) fn sync_problems(&mut self) {
        let review = !self.changes.is_empty();
        let highlighted = (!review)
            .then(|| self.problems.rows.get(self.problem).copied())
            .flatten();
        let report = self.ws.report();
        let shown = self.problems.shown;
        let only = self.problems.only.as_deref();
        let entries = match only {
            Some([p, c]) => channel_entries(self, p, c),
            _ => HashSet::new(),
        };
        let in_only = |d: &Diagnostic| match only {
            None => true,
            Some(path) => {
                let o = &d.object;
                let package = o.package.as_deref() == path.first().map(String::as_str);
                match path.get(1) {
                    None => package,
                    Some(c) => {
                        package
                            && (o.channel.as_deref() == Some(c.as_str())
                                || (o.channel.is_none()
                                    && o.bundle.as_ref().is_some_and(|b| entries.contains(b))))
                    }
                }
            }
        };
        let scope = self.filter.is_some().then(|| TreeScope::of(self));
        let mut rows = Vec::new();
        for severity in [Severity::Error, Severity::Warning, Severity::Info] {
            if !shown.admits(severity) {
                continue;
            }
            rows.extend(
                report
                    .diagnostics
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| d.severity == severity && in_only(d))
                    .filter(|(_, d)| scope.as_ref().is_none_or(|s| s.holds(d)))
                    .map(|(i, _)| i),
            );
        }
        // The highlighted problem stays highlighted while it is listed.
        if !review {
            self.problem = highlighted
                .and_then(|i| rows.iter().position(|&r| r == i))
                .unwrap_or_else(|| self.problem.min(rows.len().saturating_sub(1)));
        }
        self.problems.rows = rows;
    }

    /// The problem on the `row`th row of the pane.
    pub fn problem_at(&self, row: usize) -> Option<&Diagnostic> {
        let i = *self.problems.rows.get(row)?;
        self.ws.report().diagnostics.get(i)
    }

    /// The highlighted problem.
    pub fn selected_problem(&self) -> Option<&Diagnostic> {
        self.problem_at(self.problem)
    }

    /// The pane's title in `width` cells: the counts of the whole report, then what narrows the
    /// list and how many rows it leaves; shorter forms when that does not fit.
    pub fn problems_title(&self, width: u16) -> String {
        let report = self.ws.report();
        let errors = report.count(Severity::Error);
        let warnings = report.count(Severity::Warning);
        let info = report.count(Severity::Info);
        let mut counts = format!(
            "{}, {}",
            plural(errors, "error", "errors"),
            plural(warnings, "warning", "warnings")
        );
        // Info rows are listed too, so the count says so.
        if info > 0 {
            counts.push_str(&format!(", {info} info"));
        }
        let filter = self.filter.is_some();
        if !self.problems.narrowed(filter) {
            return format!("problems · {counts}");
        }
        let mut how = Vec::new();
        if self.problems.shown != Shown::All {
            how.push(format!("showing {}", self.problems.shown.label()));
        }
        if let Some(only) = &self.problems.only {
            how.push(format!("only {}", only.join("/")));
        }
        if filter {
            how.push("in the filter".into());
        }
        let listed = self.problems.rows.len();
        let how = how.join(", ");
        let candidates = [
            format!("problems · {counts} · {how} ({listed} listed)"),
            format!(
                "problems · {listed} of {} · {how}",
                report.diagnostics.len()
            ),
            format!("problems · {listed} of {}", report.diagnostics.len()),
        ];
        let room = usize::from(width.saturating_sub(4));
        candidates
            .iter()
            .find(|c| c.chars().count() <= room)
            .unwrap_or(&candidates[2])
            .clone()
    }

    /// The full text of a problem, for the message viewer: what, where, about what, the message,
    /// its hint and the other places it names.
    pub fn problem_text(&self, d: &Diagnostic) -> (String, Vec<String>) {
        let title = format!("{} {}", d.severity.as_str(), d.code);
        let mut lines = vec![format!("at {}", d.location)];
        let o = &d.object;
        let about: Vec<String> = [
            ("package", &o.package),
            ("channel", &o.channel),
            ("bundle", &o.bundle),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}")))
        .collect();
        if !about.is_empty() {
            lines.push(format!("about {}", about.join(", ")));
        }
        lines.push(String::new());
        lines.extend(d.message.lines().map(str::to_string));
        if let Some(h) = &d.hint {
            lines.push(String::new());
            lines.push(format!("hint: {h}"));
        }
        if !d.related.is_empty() {
            lines.push(String::new());
            lines.push("see also:".into());
            lines.extend(d.related.iter().map(|r| format!("  {r}")));
        }
        (title, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::Shown;
    use fbc_core::catalog::Severity;

    #[test]
    fn the_severity_cycle_comes_back_to_all() {
        let mut s = Shown::All;
        let mut seen = Vec::new();
        for _ in 0..3 {
            s = s.next();
            seen.push(s.label());
        }
        assert_eq!(seen, ["errors+warnings", "errors", "all"]);
        assert!(Shown::Warnings.admits(Severity::Warning));
        assert!(!Shown::Warnings.admits(Severity::Info));
        assert!(!Shown::Errors.admits(Severity::Warning));
    }
}
