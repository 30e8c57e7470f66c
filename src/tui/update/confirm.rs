//! What a confirmation says about validity: that the catalog stays valid only when it is valid,
//! how many problems were there before when the edit adds none, and each problem it adds once,
//! naming the templates (or files) it appears in.

use fbc_core::catalog::Diagnostic;

/// The lines that close a confirmation: `introduced` are the errors the edit would bring, `before`
/// the errors there are now.
pub(crate) fn verdict(introduced: &[Diagnostic], before: usize, templates: bool) -> Vec<String> {
    if introduced.is_empty() {
        return vec![if before == 0 {
            "The catalog stays valid.".into()
        } else {
            format!("No new problems ({before} already there).")
        }];
    }
    let groups = grouped(introduced);
    let mut lines = vec![format!(
        "This leaves the catalog invalid ({} new problem{}):",
        groups.len(),
        if groups.len() == 1 { "" } else { "s" }
    )];
    let names = short_names(introduced);
    let kind = if templates { "templates" } else { "files" };
    for g in groups {
        let mut line = format!("  [{}] {}", g.code, g.message);
        if g.files.len() > 1 {
            let named: Vec<&str> = g.files.iter().map(|f| names(f)).collect();
            line.push_str(&format!(
                " (in {} {kind}: {})",
                g.files.len(),
                named.join(", ")
            ));
        }
        lines.push(line);
    }
    lines
}

/// One problem and the files it appears in, in the order first met.
struct Group<'a> {
    code: &'a str,
    message: String,
    files: Vec<&'a str>,
}

/// The problems with the same code and message (once the file's own name is taken out of the
/// message: a template that does not render names itself) as one.
fn grouped(ds: &[Diagnostic]) -> Vec<Group<'_>> {
    let mut groups: Vec<Group> = Vec::new();
    for d in ds {
        let file = d.location.file.as_str();
        let message = if file.is_empty() {
            d.message.clone()
        } else {
            d.message.replace(&format!("{file}: "), "")
        };
        match groups
            .iter_mut()
            .find(|g| g.code == d.code && g.message == message)
        {
            Some(g) => {
                if !g.files.contains(&file) {
                    g.files.push(file);
                }
            }
            None => groups.push(Group {
                code: d.code,
                message,
                files: vec![file],
            }),
        }
    }
    groups
}

/// How to name the files of the problems: by their last part when that tells them apart (the
/// templates of one operator), else in full.
fn short_names(ds: &[Diagnostic]) -> impl Fn(&str) -> &str {
    let last = |f: &str| -> String { f.rsplit('/').next().unwrap_or(f).to_string() };
    let mut files: Vec<&str> = ds.iter().map(|d| d.location.file.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    let mut lasts: Vec<String> = files.iter().map(|f| last(f)).collect();
    lasts.sort_unstable();
    lasts.dedup();
    let distinct = lasts.len() == files.len();
    move |f: &str| {
        if distinct {
            f.rsplit('/').next().unwrap_or(f)
        } else {
            f
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fbc_core::catalog::{Location, Severity};

    fn problem(code: &'static str, file: &str, message: &str) -> Diagnostic {
        Diagnostic::new(code, Severity::Error, Location::new(file, 3, 1), message)
    }

    #[test]
    fn stays_valid_only_when_it_was_valid() {
        assert_eq!(verdict(&[], 0, false), ["The catalog stays valid."]);
        assert_eq!(
            verdict(&[], 11, true),
            ["No new problems (11 already there)."]
        );
    }

    #[test]
    fn the_same_problem_in_several_templates_is_listed_once_naming_them() {
        let ds: Vec<Diagnostic> = ["a/t/v4.17.yaml", "a/t/v4.18.yaml", "a/t/v4.19.yaml"]
            .iter()
            .map(|f| problem("FBC047", f, "stranded: x.v1"))
            .chain([problem(
                "FBC003",
                "a/t/v4.17.yaml",
                "a/t/v4.17.yaml: broken",
            )])
            .chain([problem(
                "FBC003",
                "a/t/v4.18.yaml",
                "a/t/v4.18.yaml: broken",
            )])
            .collect();
        assert_eq!(
            verdict(&ds, 0, true),
            [
                "This leaves the catalog invalid (2 new problems):",
                "  [FBC047] stranded: x.v1 (in 3 templates: v4.17.yaml, v4.18.yaml, v4.19.yaml)",
                "  [FBC003] broken (in 2 templates: v4.17.yaml, v4.18.yaml)",
            ]
        );
    }

    #[test]
    fn files_of_one_name_are_named_in_full() {
        let ds = [
            problem("FBC047", "x/catalog.yaml", "m"),
            problem("FBC047", "y/catalog.yaml", "m"),
        ];
        assert_eq!(
            verdict(&ds, 2, false)[1],
            "  [FBC047] m (in 2 files: x/catalog.yaml, y/catalog.yaml)"
        );
    }

    #[test]
    fn one_problem_in_one_place_names_no_file() {
        let ds = [problem("FBC047", "x/catalog.yaml", "m")];
        assert_eq!(
            verdict(&ds, 0, false),
            [
                "This leaves the catalog invalid (1 new problem):",
                "  [FBC047] m"
            ]
        );
    }
}
