//! The quick fixes, in one table: each code whose hint names one concrete change (or a few, one
//! action each) maps to what makes it. A fix is an engine edit where one exists — the same edit
//! and writer as `fbc-edit edit`, so the same bytes — or else a text edit of the document that
//! removes exactly the problem (a list item or key deleted, a value rewritten, a missing
//! `olm.package` written by the catalog emitter). Codes absent from [`TABLE`] have no single
//! change to offer; docs/editors.md says why for each.

mod edits;
mod text;

use fbc_core::catalog::codes::repo as rc;
use fbc_core::catalog::model::Channel;
use fbc_core::catalog::semver_range::Version;
use fbc_core::catalog::{BlobId, Catalog, Diagnostic};
use fbc_core::edit::Edit;
use fbc_core::validate::codes as c;
use lsp_types::NumberOrString;

use crate::text::Lines;
use edits::*;
use text::*;

/// A problem a fix is asked for.
pub(crate) struct Problem<'a> {
    pub published: &'a lsp_types::Diagnostic,
    /// The document's text and lines.
    pub text: &'a str,
    pub lines: &'a Lines<'a>,
    /// For a catalog document: the catalog (the document's text laid over its file), the
    /// engine's diagnostic and the document's catalog-relative path.
    pub engine: Option<(&'a Catalog, &'a Diagnostic, &'a str)>,
}

/// One fix.
pub(crate) enum Fix {
    /// An engine edit.
    Edit { title: String, edit: Edit },
    /// Bytes `start..end` of the document replaced by `new`.
    Text {
        title: String,
        start: usize,
        end: usize,
        new: String,
    },
}

type Maker = fn(&Problem) -> Vec<Fix>;

/// Code → fix. A code may have several makers (a name corrected, or the link dropped).
pub(crate) const TABLE: &[(&str, Maker)] = &[
    // Loading and types.
    (c::TYPE, quote),
    (c::PROPERTY, quote),
    (c::YAML_TRAP, quote),
    (c::UNKNOWN_SCHEMA, did_you_mean),
    (c::UNKNOWN_PROPERTY, did_you_mean),
    // Packages.
    (c::CHANNEL_UNKNOWN_PACKAGE, add_package),
    (c::BUNDLE_UNKNOWN_PACKAGE, add_package),
    (c::DEPRECATION_UNKNOWN_PACKAGE, add_package),
    (c::DEFAULT_CHANNEL_UNSET, default_channel),
    (c::DEFAULT_CHANNEL_MISSING, default_channel),
    // Channels and their entries.
    (c::DUPLICATE_ENTRY, drop_duplicate_entry),
    (c::CHANNEL_EMPTY, delete_channel),
    (c::MULTIPLE_HEADS, link_heads),
    (c::STRANDED, skip_stranded),
    (c::ENTRY_WITHOUT_BUNDLE, remove_entry),
    (c::EMPTY_SKIP, drop_empty_skip),
    (c::SKIP_RANGE, fix_skip_range),
    (c::SKIP_RANGE_ABOVE_VERSION, cap_skip_range),
    (c::SKIP_RANGE_ONLY, link_skip_range_only),
    (c::DANGLING_EDGE, did_you_mean),
    (c::DANGLING_EDGE, drop_edge),
    // Bundles.
    (c::PACKAGE_PROPERTY_MISMATCH, package_name),
    (c::VERSION, drop_leading_v),
    (c::BUNDLE_NOT_IN_CHANNEL, place_bundle),
    // Deprecations.
    (c::DUPLICATE_DEPRECATION_ENTRY, drop_deprecation),
    (c::DEPRECATED_BUNDLE_MISSING, drop_deprecation),
    (c::DEPRECATED_CHANNEL_MISSING, drop_deprecation),
    (c::DEPRECATED_PACKAGE_NAMED, drop_reference_name),
    // Profiles.
    (c::PROFILE_DANGLING, skip_dangling),
    (c::PROFILE_PRUNED, replace_previous),
    (c::PROFILE_REPLACES, replace_previous),
    // The pipeline's files.
    (rc::CATALOG_NAME, did_you_mean),
    (rc::RELEASE_TEMPLATE, did_you_mean),
];

/// The fixes of a problem, as the table gives them.
pub(crate) fn fixes(p: &Problem) -> Vec<Fix> {
    let Some(NumberOrString::String(code)) = &p.published.code else {
        return Vec::new();
    };
    TABLE
        .iter()
        .filter(|(c, _)| c == code)
        .flat_map(|(_, make)| make(p))
        .collect()
}

fn hint_of(d: &lsp_types::Diagnostic) -> Option<&str> {
    d.data.as_ref()?.get("hint")?.as_str()
}

/// The texts quoted in a message (`'x'`, `"x"` or `` `x` ``), in order of their quote kind.
pub(crate) fn quoted(message: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ['"', '\'', '`'] {
        let parts: Vec<&str> = message.split(q).collect();
        out.extend(
            parts
                .iter()
                .skip(1)
                .step_by(2)
                .filter(|s| !s.is_empty())
                .map(|s| s.to_string()),
        );
    }
    out
}

/// `old` on the problem's line (at or after the problem's column) replaced by `new`.
fn on_line(p: &Problem, old: &str, new: String, title: String) -> Option<Fix> {
    let start = p.lines.offset(p.published.range.start);
    let line_start = p
        .lines
        .offset(lsp_types::Position::new(p.published.range.start.line, 0));
    let line = p.lines.line(p.published.range.start.line as usize);
    let from = start - line_start;
    let col = line
        .get(from..)
        .and_then(|rest| rest.find(old))
        .map(|i| i + from)
        .or_else(|| line.find(old))?;
    Some(Fix::Text {
        title,
        start: line_start + col,
        end: line_start + col + old.len(),
        new,
    })
}

/// The name a "did you mean" hint gives, in place of the name the message quotes.
fn did_you_mean(p: &Problem) -> Vec<Fix> {
    let Some(rest) = hint_of(p.published).and_then(|h| h.strip_prefix("did you mean ")) else {
        return Vec::new();
    };
    let new = rest
        .trim_end_matches('?')
        .trim_matches(['\'', '"'])
        .to_string();
    let line = p.lines.line(p.published.range.start.line as usize);
    // The name is quoted in the message, or (unquoted) a word of it like the suggestion.
    let alike = |w: &String| {
        let n = 3.min(new.len());
        w.len() >= n && w[..n].eq_ignore_ascii_case(&new[..n])
    };
    let words = p
        .published
        .message
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, ':' | ',' | ';' | '(' | ')'))
                .to_string()
        })
        .filter(alike);
    let Some(old) = quoted(&p.published.message)
        .into_iter()
        .chain(words)
        .find(|q| line.contains(q.as_str()) && *q != new)
    else {
        return Vec::new();
    };
    let title = format!("Change {old} to {new}");
    on_line(p, &old, new, title).into_iter().collect()
}

/// A scalar YAML 1.1 would retype, quoted.
fn quote(p: &Problem) -> Vec<Fix> {
    let Some(hint) = hint_of(p.published) else {
        return Vec::new();
    };
    if !hint.starts_with("quote the value") && !hint.starts_with("quote it if you mean the text") {
        return Vec::new();
    }
    let line = p.lines.line(p.published.range.start.line as usize);
    let start = p.lines.offset(p.published.range.start)
        - p.lines
            .offset(lsp_types::Position::new(p.published.range.start.line, 0));
    let Some(rest) = line.get(start..) else {
        return Vec::new();
    };
    let value = rest.split(" #").next().unwrap_or("").trim_end();
    let value = value.strip_suffix(',').unwrap_or(value);
    if value.is_empty() || value.starts_with(['"', '\'']) {
        return Vec::new();
    }
    let new = format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""));
    on_line(p, value, new, format!("Quote {value}"))
        .into_iter()
        .collect()
}

fn edit(title: String, edit: Edit) -> Fix {
    Fix::Edit { title, edit }
}

/// The package, channel and bundle the engine names.
fn object<'a>(p: &Problem<'a>) -> Option<(&'a Catalog, &'a Diagnostic, String)> {
    let (cat, d, _) = p.engine?;
    let package = d
        .object
        .package
        .clone()
        .filter(|s| !s.is_empty())
        .or_else(|| named_package(&d.message))?;
    Some((cat, d, package))
}

/// The package a message names (`package "x"`): problems of a package without its olm.package
/// name it there.
fn named_package(message: &str) -> Option<String> {
    let rest = &message[message.find("package \"")? + "package \"".len()..];
    Some(rest[..rest.find('"')?].to_string())
}

fn channel_blob<'c>(
    cat: &'c Catalog,
    package: &str,
    channel: &str,
) -> Option<(BlobId, Channel<'c>)> {
    let id = cat.index().channel(package, channel)?;
    Some((id, Channel::read(&cat.blob(id).value).ok()?))
}

fn version_of(cat: &Catalog, package: &str, bundle: &str) -> Option<Version> {
    let id = cat.index().bundle(package, bundle)?;
    let b = fbc_core::catalog::model::Bundle::read(&cat.blob(id).value).ok()?;
    Version::parse(b.version()?).ok()
}

/// A package's channel names, in the catalog's order.
fn channels(cat: &Catalog, package: &str) -> Vec<String> {
    cat.index()
        .package(package)
        .map(|idx| {
            idx.channels
                .iter()
                .map(|&c| cat.blob(c).name().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_fix(code: &str) -> bool {
        TABLE.iter().any(|(c, _)| *c == code)
    }

    /// The codes a line of docs/editors.md's tables names (`FBC001–FBC009` is a run).
    fn named(line: &str) -> Vec<String> {
        let first = line.split('|').nth(1).unwrap_or("");
        let mut out = Vec::new();
        for part in first.split(',') {
            let part = part.trim();
            match part.split_once('–') {
                Some((a, b)) => {
                    let (a, b): (u32, u32) = (a[3..].parse().unwrap(), b[3..].parse().unwrap());
                    out.extend((a..=b).map(|n| format!("FBC{n:03}")));
                }
                None if part.starts_with("FBC") => out.push(part.to_string()),
                None => {}
            }
        }
        out
    }

    /// docs/editors.md lists every code of the table as fixed, and every catalog code in exactly
    /// one of its two lists.
    #[test]
    fn the_docs_say_which_codes_have_fixes() {
        let doc = include_str!("../../../../../docs/editors.md");
        let section = &doc[doc.find("### Quick fixes").unwrap()..];
        let (with, without) = section.split_at(section.find("No quick fix, and why").unwrap());
        let without = &without[..without.find("\n\n## ").unwrap_or(without.len())];
        let listed = |t: &str| -> Vec<String> { t.lines().flat_map(named).collect() };
        let (with, without) = (listed(with), listed(without));
        for (code, _) in TABLE {
            assert!(
                with.iter().any(|c| c == code),
                "{code} has a fix the docs do not list"
            );
        }
        for code in &with {
            assert!(
                has_fix(code),
                "the docs list a fix for {code}, the table has none"
            );
        }
        for rule in fbc_core::catalog::codes::catalog::REGISTRY {
            let n = usize::from(with.contains(&rule.code.to_string()))
                + usize::from(without.contains(&rule.code.to_string()));
            assert_eq!(n, 1, "{} is in {n} of the docs' lists", rule.code);
        }
    }

    #[test]
    fn usual_mistakes_in_ranges_are_mended() {
        for (bad, good) in [
            (">=v1.0.0 <v1.2.0", Some(">=1.0.0 <1.2.0")),
            (">=1.0.0, <1.2.0", Some(">=1.0.0 <1.2.0")),
            ("~1.2.3", Some(">=1.2.3 <1.3.0")),
            ("^1.2.3", Some(">=1.2.3 <2.0.0")),
            ("<1.0.0||>=1.1.0", Some("<1.0.0 || >=1.1.0")),
            ("not a range", None),
            (">=1.0.0 <1.2.0", None),
        ] {
            assert_eq!(edits::mended_range(bad).as_deref(), good, "{bad}");
        }
    }
}
