//! A catalog diff as plain text (one fact per line) and as Markdown for a pull-request comment, with
//! a Mermaid picture of each channel whose graph changed.

use std::fmt::Write as _;

use super::fields::{self, FieldChange};
use super::{BundleChange, CatalogDiff, ChannelDiff, DeprecationChange, OtherChange, PackageDiff};

fn or_none(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("(none)")
}

/// What a changed skipRange covers, after its line (`: now covers 1.0.0–1.2.1 (4 entries)`).
fn coverage(r: &super::SkipRangeChange) -> String {
    r.coverage().map_or_else(String::new, |c| format!(": {c}"))
}

/// A skipRange as text: quoted (its spaces matter), or `(none)`.
pub fn range_text(v: &Option<String>) -> String {
    v.as_ref().map_or("(none)".into(), |r| format!("{r:?}"))
}

const IMMUTABLE: &str = "published bundles should not change: release a new bundle instead";

fn bundle_details(b: &BundleChange) -> impl Iterator<Item = &FieldChange> {
    b.properties
        .iter()
        .chain(&b.related_images)
        .chain(&b.fields)
}

/// Plain text, one fact per line.
pub fn text(d: &CatalogDiff) -> String {
    let mut out = String::new();
    for p in &d.packages {
        package_text(p, &mut out);
    }
    if !d.others.is_empty() {
        let _ = writeln!(out, "objects of no package:");
        others_text(&d.others, "  ", &mut out);
    }
    out
}

/// One package's changes as text: the package itself, its channels, deprecations, bundles and
/// other objects.
fn package_text(p: &PackageDiff, out: &mut String) {
    let _ = writeln!(out, "package {} ({})", p.name, p.change);
    if let Some([a, b]) = &p.default_channel {
        let _ = writeln!(out, "  default channel: {a} → {b}");
    }
    for f in &p.fields_changed {
        let _ = writeln!(out, "  {}", fields::line(f));
    }
    for c in &p.channels_added {
        let _ = writeln!(out, "  + channel {c}");
    }
    for c in &p.channels_removed {
        let _ = writeln!(out, "  - channel {c}");
    }
    for c in &p.channels {
        channel_text(c, out);
    }
    for dep in &p.deprecations {
        deprecation_text(dep, out);
    }
    for b in &p.bundles_added {
        let _ = writeln!(out, "  + bundle {b}");
    }
    for b in &p.bundles_removed {
        let _ = writeln!(out, "  - bundle {b}");
    }
    for b in &p.bundles_changed {
        let _ = write!(out, "  ! bundle {} changed", b.name);
        if let Some([a, c]) = &b.image {
            let _ = write!(out, ": image {a} → {c}");
        }
        let _ = writeln!(out, " ({IMMUTABLE})");
        for f in bundle_details(b) {
            let _ = writeln!(out, "    {}", fields::line(f));
        }
    }
    others_text(&p.others, "  ", out);
}

/// One changed channel as text: its head, entries, links, skipRanges, fields and who can still
/// reach the head.
fn channel_text(c: &ChannelDiff, out: &mut String) {
    let _ = writeln!(out, "  channel {}:", c.name);
    if let Some([a, b]) = &c.head {
        let _ = writeln!(out, "    head: {} → {}", or_none(a), or_none(b));
    }
    for e in &c.entries_added {
        let _ = writeln!(out, "    + entry {e}");
    }
    for e in &c.entries_removed {
        let _ = writeln!(out, "    - entry {e}");
    }
    // A changed skipRange's links are said by its own line.
    for e in c.edges_added.iter().filter(|e| !c.by_skip_range(e)) {
        let _ = writeln!(out, "    + edge {} → {} ({})", e.from, e.to, e.kind);
    }
    for e in c.edges_removed.iter().filter(|e| !c.by_skip_range(e)) {
        let _ = writeln!(out, "    - edge {} → {} ({})", e.from, e.to, e.kind);
    }
    for r in &c.skip_ranges_changed {
        let _ = writeln!(
            out,
            "    ~ skipRange of {}: {} → {}{}",
            r.entry,
            range_text(&r.old),
            range_text(&r.new),
            coverage(r)
        );
    }
    for f in &c.fields_changed {
        let _ = writeln!(out, "    {}", fields::line(f));
    }
    if !c.lost_path.is_empty() {
        let _ = writeln!(
            out,
            "    ! no longer reach the head: {}",
            c.lost_path.join(", ")
        );
    }
    if !c.removed_lost_path.is_empty() {
        let _ = writeln!(
            out,
            "    ! clusters on these removed entries no longer reach the head: {}",
            c.removed_lost_path.join(", ")
        );
    }
    if !c.gained_path.is_empty() {
        let _ = writeln!(out, "    now reach the head: {}", c.gained_path.join(", "));
    }
}

fn deprecation_text(dep: &DeprecationChange, out: &mut String) {
    let _ = match (&dep.old, &dep.new) {
        (None, Some(m)) => writeln!(out, "  + deprecation of {}: {m:?}", dep.of),
        (Some(m), None) => writeln!(out, "  - deprecation of {}: {m:?}", dep.of),
        (Some(a), Some(b)) => {
            writeln!(out, "  deprecation of {} reworded: {a:?} → {b:?}", dep.of)
        }
        (None, None) => Ok(()),
    };
}

fn others_text(others: &[OtherChange], indent: &str, out: &mut String) {
    for o in others {
        let sign = match o.change {
            "added" => '+',
            "removed" => '-',
            _ => '~',
        };
        let _ = writeln!(out, "{indent}{sign} {}", o.title());
        for l in o.lifecycle.iter().flat_map(|l| l.lines()) {
            let _ = writeln!(out, "{indent}  {}", l.text());
        }
        for f in &o.fields {
            let _ = writeln!(out, "{indent}  {}", fields::line(f));
        }
    }
}

/// Inline code for Markdown: backticks inside are doubled around.
fn code(s: &str) -> String {
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn md_change(f: &FieldChange) -> String {
    match (&f.old, &f.new) {
        (Some(a), Some(b)) => format!(
            "{}: {} → {}",
            code(&f.path),
            code(&fields::short(a)),
            code(&fields::short(b))
        ),
        (None, Some(b)) => format!("{} added: {}", code(&f.path), code(&fields::short(b))),
        (Some(a), None) => format!("{} removed: {}", code(&f.path), code(&fields::short(a))),
        (None, None) => f.path.clone(),
    }
}

fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn names(list: &[String]) -> String {
    list.iter().map(|e| code(e)).collect::<Vec<_>>().join(", ")
}

/// Markdown for a pull-request comment.
pub fn markdown(d: &CatalogDiff) -> String {
    if d.is_empty() {
        return "No catalog changes.\n".into();
    }
    let mut out = String::from("## Catalog changes\n");
    for p in &d.packages {
        package_markdown(p, &mut out);
    }
    if !d.others.is_empty() {
        let _ = writeln!(out, "\n### Objects of no package\n");
        others_markdown(&d.others, &mut out);
    }
    out
}

/// One package's section: the package itself, its channels, deprecations, bundles and other
/// objects, then a picture of each channel whose graph changed.
fn package_markdown(p: &PackageDiff, out: &mut String) {
    let _ = writeln!(out, "\n### `{}` ({})\n", p.name, p.change);
    if let Some([a, b]) = &p.default_channel {
        let _ = writeln!(out, "- default channel: `{a}` → `{b}`");
    }
    for f in &p.fields_changed {
        let _ = writeln!(out, "- {}", md_change(f));
    }
    for c in &p.channels_added {
        let _ = writeln!(out, "- channel added: `{c}`");
    }
    for c in &p.channels_removed {
        let _ = writeln!(out, "- channel removed: `{c}`");
    }
    for c in &p.channels {
        channel_markdown(c, out);
    }
    for dep in &p.deprecations {
        deprecation_markdown(dep, out);
    }
    if !p.bundles_added.is_empty() {
        let _ = writeln!(out, "- bundles added: {}", names(&p.bundles_added));
    }
    if !p.bundles_removed.is_empty() {
        let _ = writeln!(out, "- bundles removed: {}", names(&p.bundles_removed));
    }
    for b in &p.bundles_changed {
        bundle_markdown(b, out);
    }
    others_markdown(&p.others, out);
    for c in &p.channels {
        if let Some(pic) = &c.picture {
            let _ = writeln!(
                out,
                "\n<details open><summary>channel <code>{}</code>: the changed part of its graph (added in green, removed dashed)</summary>\n\n```mermaid\n{}```\n\n</details>",
                html(&c.name),
                pic.mermaid()
            );
        }
    }
}

/// One changed channel as a list item: its head, entries, links, skipRanges, fields and who can
/// still reach the head.
fn channel_markdown(c: &ChannelDiff, out: &mut String) {
    let _ = writeln!(out, "- channel `{}`", c.name);
    if let Some([a, b]) = &c.head {
        let _ = writeln!(out, "  - head: `{}` → `{}`", or_none(a), or_none(b));
    }
    for e in &c.entries_added {
        let _ = writeln!(out, "  - entry added: `{e}`");
    }
    for e in &c.entries_removed {
        let _ = writeln!(out, "  - entry removed: `{e}`");
    }
    for e in c.edges_added.iter().filter(|e| !c.by_skip_range(e)) {
        let _ = writeln!(
            out,
            "  - edge added: `{}` → `{}` ({})",
            e.from, e.to, e.kind
        );
    }
    for e in c.edges_removed.iter().filter(|e| !c.by_skip_range(e)) {
        let _ = writeln!(
            out,
            "  - edge removed: `{}` → `{}` ({})",
            e.from, e.to, e.kind
        );
    }
    for r in &c.skip_ranges_changed {
        let range = |v: &Option<String>| v.as_ref().map_or("(none)".into(), |r| format!("`{r}`"));
        let _ = writeln!(
            out,
            "  - skipRange of `{}`: {} → {}{}",
            r.entry,
            range(&r.old),
            range(&r.new),
            coverage(r)
        );
    }
    for f in &c.fields_changed {
        let _ = writeln!(out, "  - {}", md_change(f));
    }
    reach_markdown(c, out);
}

/// Which entries lost or gained a way to the channel's head.
fn reach_markdown(c: &ChannelDiff, out: &mut String) {
    if !c.lost_path.is_empty() {
        let _ = writeln!(
            out,
            "  - :warning: no longer reach the head: {}",
            names(&c.lost_path)
        );
    }
    if !c.removed_lost_path.is_empty() {
        let _ = writeln!(
            out,
            "  - :warning: clusters on these removed entries no longer reach the head: {}",
            names(&c.removed_lost_path)
        );
    }
    if !c.gained_path.is_empty() {
        let _ = writeln!(out, "  - now reach the head: {}", names(&c.gained_path));
    }
}

fn deprecation_markdown(dep: &DeprecationChange, out: &mut String) {
    let _ = match (&dep.old, &dep.new) {
        (None, Some(m)) => writeln!(out, "- deprecation added for {}: {m}", dep.of),
        (Some(m), None) => writeln!(out, "- deprecation removed for {}: {m}", dep.of),
        (Some(a), Some(b)) => {
            writeln!(out, "- deprecation of {} reworded: {a} → {b}", dep.of)
        }
        (None, None) => Ok(()),
    };
}

/// A changed bundle, flagged: published bundles should not change.
fn bundle_markdown(b: &BundleChange, out: &mut String) {
    let _ = writeln!(
        out,
        "- :warning: bundle `{}` changed{} — published bundles should not change; release a new bundle instead",
        b.name,
        b.image
            .as_ref()
            .map_or(String::new(), |[a, c]| format!(": image `{a}` → `{c}`")),
    );
    for f in bundle_details(b) {
        let _ = writeln!(out, "  - {}", md_change(f));
    }
}

fn others_markdown(others: &[OtherChange], out: &mut String) {
    for o in others {
        let _ = writeln!(out, "- {} {}", code(&o.title()), o.change);
        for l in o.lifecycle.iter().flat_map(|l| l.lines()) {
            let version = code(l.name());
            let _ = match l.sign {
                '+' => writeln!(out, "  - version {version} added ({})", l.words),
                '-' => writeln!(out, "  - version {version} removed ({})", l.words),
                _ => writeln!(out, "  - version {version} {}", l.words),
            };
        }
        for f in &o.fields {
            let _ = writeln!(out, "  - {}", md_change(f));
        }
    }
}
