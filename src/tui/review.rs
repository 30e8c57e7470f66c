//! Review mode: the changes from an older catalog as lines of the changes pane, and the mark each
//! object of the tree and graph gets.

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
pub fn changes(d: &crate::diff::CatalogDiff) -> Vec<Change> {
    use ObjectChange::{Added, Changed, Removed};
    use Tone::{Gained, Lost, Neutral};
    let mut out = Vec::new();
    let mut push = |text: String, path: Vec<String>, object: ObjectChange, tone: Tone| {
        out.push(Change {
            text,
            path,
            object,
            tone,
        })
    };
    for p in &d.packages {
        let pkg = vec![p.name.clone()];
        let (object, tone) = match p.change {
            "added" => (Added, Gained),
            "removed" => (Removed, Lost),
            _ => (Changed, Neutral),
        };
        push(
            format!("package {} {}", p.name, p.change),
            pkg.clone(),
            object,
            tone,
        );
        if let Some([a, b]) = &p.default_channel {
            push(
                format!("  default channel {a} → {b}"),
                pkg.clone(),
                Changed,
                Neutral,
            );
        }
        let channel = |c: &str| vec![p.name.clone(), c.to_string()];
        let entry = |c: &str, e: &str| vec![p.name.clone(), c.to_string(), e.to_string()];
        for c in &p.channels_added {
            push(format!("  + channel {c}"), channel(c), Added, Gained);
        }
        for c in &p.channels_removed {
            push(format!("  - channel {c}"), channel(c), Removed, Lost);
        }
        for c in &p.channels {
            if let Some([a, b]) = &c.head {
                push(
                    format!(
                        "  {}: head {} → {}",
                        c.name,
                        a.as_deref().unwrap_or("-"),
                        b.as_deref().unwrap_or("-")
                    ),
                    channel(&c.name),
                    Changed,
                    Neutral,
                );
            }
            for e in &c.entries_added {
                push(
                    format!("  {}: + {e}", c.name),
                    entry(&c.name, e),
                    Added,
                    Gained,
                );
            }
            for e in &c.entries_removed {
                push(
                    format!("  {}: - {e}", c.name),
                    entry(&c.name, e),
                    Removed,
                    Lost,
                );
            }
            for e in &c.edges_added {
                push(
                    format!("  {}: + {} → {} ({})", c.name, e.from, e.to, e.kind),
                    entry(&c.name, &e.to),
                    Changed,
                    Gained,
                );
            }
            for e in &c.edges_removed {
                push(
                    format!("  {}: - {} → {} ({})", c.name, e.from, e.to, e.kind),
                    entry(&c.name, &e.to),
                    Changed,
                    Lost,
                );
            }
            for r in &c.skip_ranges_changed {
                push(
                    format!(
                        "  {}: ~ {} skipRange {} → {}",
                        c.name,
                        r.entry,
                        crate::diff::range_text(&r.old),
                        crate::diff::range_text(&r.new)
                    ),
                    entry(&c.name, &r.entry),
                    Changed,
                    Neutral,
                );
            }
            for e in &c.lost_path {
                push(
                    format!("  {}: ! {e} no longer reaches the head", c.name),
                    entry(&c.name, e),
                    Changed,
                    Lost,
                );
            }
        }
        for dep in &p.deprecations {
            let tone = match (&dep.old, &dep.new) {
                (None, _) => Gained,
                (_, None) => Lost,
                _ => Neutral,
            };
            push(
                format!("  deprecation of {} changed", dep.of),
                pkg.clone(),
                Changed,
                tone,
            );
        }
        for b in &p.bundles_changed {
            push(
                format!(
                    "  ! bundle {} changed (published bundles should not change)",
                    b.name
                ),
                pkg.clone(),
                Changed,
                Neutral,
            );
        }
    }
    out
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
