//! Review mode: the changes from an older catalog as lines of the changes pane, and the mark each
//! object of the tree and graph gets.

use fbc_core::diff::CatalogDiff;

/// One line of the review-mode changes pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub text: String,
    /// Tree path of the object (package, channel, entry).
    pub path: Vec<String>,
    /// What the change did to that object, for the marks in the tree and graph.
    pub object: ObjectChange,
    pub tone: Tone,
}

/// How a change line is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Something gained (green).
    Gained,
    /// Something lost (red).
    Lost,
    Neutral,
}

/// What a change did to the object its path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectChange {
    Added,
    Removed,
    /// Changed, or only where to look (an edge, a head, a deprecation).
    Changed,
}

/// The changes of a semantic diff as pane lines.
pub fn changes(d: &CatalogDiff) -> Vec<Change> {
    let mut out = Vec::new();
    for p in &d.packages {
        package_changes(p, &mut out);
        for c in &p.channels {
            channel_changes(&p.name, c, &mut out);
        }
        package_notes(p, &mut out);
    }
    out
}

/// The line review mode opens on: the first about a channel or an entry, or a package added or
/// removed (a package's own "changed" line only says where to look).
pub fn first_change(changes: &[Change]) -> usize {
    changes
        .iter()
        .position(|c| c.path.len() > 1 || c.object != ObjectChange::Changed)
        .unwrap_or(0)
}

/// One change line.
fn change(text: String, path: Vec<String>, object: ObjectChange, tone: Tone) -> Change {
    Change {
        text,
        path,
        object,
        tone,
    }
}

/// A package's own line, its default channel's change and the channels it gained and lost.
fn package_changes(p: &fbc_core::diff::PackageDiff, out: &mut Vec<Change>) {
    use ObjectChange::{Added, Changed, Removed};
    use Tone::{Gained, Lost, Neutral};
    let pkg = vec![p.name.clone()];
    let (object, tone) = match p.change {
        "added" => (Added, Gained),
        "removed" => (Removed, Lost),
        _ => (Changed, Neutral),
    };
    out.push(change(
        format!("package {} {}", p.name, p.change),
        pkg.clone(),
        object,
        tone,
    ));
    if let Some([a, b]) = &p.default_channel {
        out.push(change(
            format!("  default channel {a} → {b}"),
            pkg,
            Changed,
            Neutral,
        ));
    }
    let channel = |c: &str| vec![p.name.clone(), c.to_string()];
    for c in &p.channels_added {
        out.push(change(
            format!("  + channel {c}"),
            channel(c),
            Added,
            Gained,
        ));
    }
    for c in &p.channels_removed {
        out.push(change(
            format!("  - channel {c}"),
            channel(c),
            Removed,
            Lost,
        ));
    }
}

/// What changed in one channel: its head, entries, edges, skipRanges (each one line saying what
/// it now covers, not a line per edge it makes), and the entries that no longer reach the head.
fn channel_changes(pkg: &str, c: &fbc_core::diff::ChannelDiff, out: &mut Vec<Change>) {
    use ObjectChange::{Added, Changed, Removed};
    use Tone::{Gained, Lost, Neutral};
    let entry = |e: &str| vec![pkg.to_string(), c.name.clone(), e.to_string()];
    if let Some([a, b]) = &c.head {
        out.push(change(
            format!(
                "  {}: head {} → {}",
                c.name,
                a.as_deref().unwrap_or("-"),
                b.as_deref().unwrap_or("-")
            ),
            vec![pkg.to_string(), c.name.clone()],
            Changed,
            Neutral,
        ));
    }
    for (entries, sign, kind, tone) in [
        (&c.entries_added, '+', Added, Gained),
        (&c.entries_removed, '-', Removed, Lost),
    ] {
        for e in entries {
            out.push(change(
                format!("  {}: {sign} {e}", c.name),
                entry(e),
                kind,
                tone,
            ));
        }
    }
    // The links a changed skipRange makes or drops are said by its own line.
    for (edges, sign, tone) in [(&c.edges_added, '+', Gained), (&c.edges_removed, '-', Lost)] {
        for e in edges.iter().filter(|e| !c.by_skip_range(e)) {
            out.push(change(
                format!("  {}: {sign} {} → {} ({})", c.name, e.from, e.to, e.kind),
                entry(&e.to),
                Changed,
                tone,
            ));
        }
    }
    for r in &c.skip_ranges_changed {
        out.push(change(
            format!(
                "  {}: ~ {} skipRange {} → {}{}",
                c.name,
                r.entry,
                fbc_core::diff::range_text(&r.old),
                fbc_core::diff::range_text(&r.new),
                r.coverage().map_or_else(String::new, |c| format!(": {c}"))
            ),
            entry(&r.entry),
            Changed,
            Neutral,
        ));
    }
    for e in &c.lost_path {
        out.push(change(
            format!("  {}: ! {e} no longer reaches the head", c.name),
            entry(e),
            Changed,
            Lost,
        ));
    }
}

/// A package's changed deprecations, its changed bundles and its objects of other schemas (an
/// OpenShift lifecycle), listed after its channels.
fn package_notes(p: &fbc_core::diff::PackageDiff, out: &mut Vec<Change>) {
    let pkg = || vec![p.name.clone()];
    for dep in &p.deprecations {
        let tone = match (&dep.old, &dep.new) {
            (None, _) => Tone::Gained,
            (_, None) => Tone::Lost,
            _ => Tone::Neutral,
        };
        out.push(change(
            format!("  deprecation of {} changed", dep.of),
            pkg(),
            ObjectChange::Changed,
            tone,
        ));
    }
    for b in &p.bundles_changed {
        out.push(change(
            format!(
                "  ! bundle {} changed (published bundles should not change)",
                b.name
            ),
            pkg(),
            ObjectChange::Changed,
            Tone::Neutral,
        ));
    }
    for o in &p.others {
        other_changes(o, pkg(), out);
    }
}

/// An object of another schema: its own line, then a lifecycle's versions added, removed and
/// moved to other platforms, then its other changed fields.
fn other_changes(o: &fbc_core::diff::OtherChange, pkg: Vec<String>, out: &mut Vec<Change>) {
    let (sign, tone) = match o.change {
        "added" => ('+', Tone::Gained),
        "removed" => ('-', Tone::Lost),
        _ => ('~', Tone::Neutral),
    };
    out.push(change(
        format!("  {sign} {}", o.title()),
        pkg.clone(),
        ObjectChange::Changed,
        tone,
    ));
    for l in o.lifecycle.iter().flat_map(|l| l.lines()) {
        let tone = match l.sign {
            '+' => Tone::Gained,
            '-' => Tone::Lost,
            _ => Tone::Neutral,
        };
        out.push(change(
            format!("    {}", l.text()),
            pkg.clone(),
            ObjectChange::Changed,
            tone,
        ));
    }
    for f in &o.fields {
        out.push(change(
            format!("    {}", fbc_core::diff::fields::line(f)),
            pkg.clone(),
            ObjectChange::Changed,
            Tone::Neutral,
        ));
    }
}

/// What the change under review did to the object at a tree path: added or removed (exactly this
/// object), or changed (something at or below it); `None` when untouched or not reviewing.
pub fn review_mark<S: AsRef<str>>(changes: &[Change], path: &[S]) -> Option<ObjectChange> {
    let under = |c: &Change| {
        c.path.len() >= path.len() && c.path.iter().zip(path).all(|(a, b)| a == b.as_ref())
    };
    let mut mark = None;
    for c in changes.iter().filter(|c| under(c)) {
        if c.path.len() == path.len() && c.object != ObjectChange::Changed {
            return Some(c.object);
        }
        mark = Some(ObjectChange::Changed);
    }
    mark
}
