//! What the library's rules say about the selection, for the screen: which edit keys apply to it
//! (the footer), why an option of a picker is greyed out, and what a skipRange being typed matches.
//! The rules themselves stay in `edit/` and `graph/`; this only asks them.

use crate::tui::keymap::Command;
use crate::tui::model::Model;
use crate::tui::tree::Loaded;
use fbc_core::catalog::semver_range::Range;
use fbc_core::edit::{Edit, EditError, Target};
use fbc_core::graph::channel::{ChannelGraph, PackageFacts};
use fbc_core::template::schemas::{SEMVER, SUBSTITUTES};

/// Entries of a skipRange preview listed by name; more are counted.
const PREVIEW_NAMES: usize = 8;

/// The edit keys that apply to the selection, in the order the footer shows them: what the
/// selected package, channel or entry can have done to it, then undo and write when there is
/// something to undo or write. None when the catalog cannot be edited (an image). Templates take
/// the same edits, but semver templates only those they can write and substitutes templates none.
pub fn edit_hints(m: &Model) -> Vec<Command> {
    let Some(l) = m.loaded() else {
        return Vec::new();
    };
    if m.image.is_some() || l.is_ghost(l.selected()) {
        return Vec::new();
    }
    let mut out = selection_edits(l);
    let set = l.ws.templates();
    let only = |schemas: &[&str]| set.is_some_and(|set| set.all_of(schemas));
    if only(&[SUBSTITUTES]) {
        // Substitutes templates take none of these: their substitutions are edited from the
        // palette, their entries as written.
        out.clear();
    } else if only(&[SEMVER, SUBSTITUTES]) {
        out.retain(|c| {
            matches!(
                c,
                Command::Promote
                    | Command::AddBundle
                    | Command::RemoveEntry
                    | Command::RemoveBundle
            )
        });
    }
    if l.ws.can_undo() {
        out.push(Command::Undo);
    }
    if l.ws.is_dirty() {
        out.push(Command::Write);
    }
    out
}

/// The guided edits the library allows on the selected package, channel or entry.
fn selection_edits(l: &Loaded) -> Vec<Command> {
    let cat = l.ws.catalog();
    let ok = |e: Edit| e.check(cat).is_ok();
    let (p, target) = match l.selected() {
        [p] => (p, Target::Package),
        [p, c] => (p, Target::Channel(c.clone())),
        [p, _, e] => (p, Target::Bundle(e.clone())),
        _ => return Vec::new(),
    };
    let undeprecate = ok(Edit::Undeprecate {
        package: p.clone(),
        target: target.clone(),
    });
    let deprecation = if undeprecate {
        Command::Undeprecate
    } else {
        Command::Deprecate
    };
    match l.selected() {
        [_] => vec![deprecation, Command::AddBundle],
        [p, c] => {
            let mut v = vec![Command::Promote];
            let default = Edit::SetDefaultChannel {
                package: p.clone(),
                channel: c.clone(),
            };
            if ok(default) {
                v.push(Command::DefaultChannel);
            }
            v.extend([deprecation, Command::CreateChannel]);
            let delete = Edit::DeleteChannel {
                package: p.clone(),
                channel: c.clone(),
            };
            if ok(delete) {
                v.push(Command::DeleteChannel);
            }
            v
        }
        [_, _, _] => {
            let mut v = vec![Command::Promote, Command::Skips];
            if entry_skips(l).is_some_and(|s| !s.is_empty()) {
                v.push(Command::RemoveSkips);
            }
            v.extend([
                Command::SkipRange,
                Command::SetReplaces,
                Command::RemoveEntry,
                Command::RemoveBundle,
                deprecation,
            ]);
            v
        }
        _ => Vec::new(),
    }
}

/// The skips of the selected entry, as its channel lists them.
pub(crate) fn entry_skips(l: &Loaded) -> Option<Vec<String>> {
    let [p, c, e] = l.selected() else {
        return None;
    };
    let cat = l.ws.catalog();
    let id = cat.index().channel(p, c)?;
    let ch = fbc_core::catalog::model::Channel::read(&cat.blob(id).value).ok()?;
    Some(ch.entry(e)?.skips.iter().map(|s| s.to_string()).collect())
}

/// Why an option cannot be chosen, in the few words a greyed-out row has room for.
pub fn reason(e: &EditError) -> String {
    match e {
        EditError::NotNewerThanHead {
            version,
            head_version,
            ..
        } => format!("{version} is not newer than the head ({head_version})"),
        EditError::AlreadyInChannel { .. } => "already in the channel".into(),
        EditError::AlreadySkips { .. } => "skipped already".into(),
        EditError::SkipsItself { .. } | EditError::ReplacesItself { .. } => "itself".into(),
        EditError::ReplacesUnchanged => "what it replaces now".into(),
        other => other.to_string(),
    }
}

/// The graph of a channel: the one on screen when it is that one, else built.
fn channel_graph(l: &Loaded, package: &str, channel: &str) -> Option<ChannelGraph> {
    if let Some((g, _)) = &l.graph
        && g.package == package
        && g.channel == channel
    {
        return Some(g.clone());
    }
    let cat = l.ws.catalog();
    let idx = cat.index().package(package)?;
    let facts = PackageFacts::read(cat, idx);
    ChannelGraph::build(cat, &facts, idx.channel(channel)?)
}

/// What the skipRange `text` would match among the entries of `channel` (other than `entry`, the
/// one it belongs to), and which of those OLM v0 prunes: lines shown under the text as it is typed.
pub fn range_preview(
    l: &Loaded,
    package: &str,
    channel: &str,
    entry: Option<&str>,
    text: &str,
) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return vec!["no skipRange".into()];
    }
    let range = match Range::parse(text) {
        Ok(r) => r,
        Err(why) => return vec![format!("not a valid range: {why}")],
    };
    let Some(g) = channel_graph(l, package, channel) else {
        return vec![format!(
            "{channel} has no entries yet: the range matches none"
        )];
    };
    let effect = fbc_core::graph::query::range_effect(&g, &range, entry.and_then(|e| g.node(e)));
    let total = g.graph.node_count() - usize::from(entry.is_some_and(|e| g.node(e).is_some()));
    let mut out = vec![format!(
        "matches {} of {total} other entries of {channel}; OLM v0 prunes {} of them",
        effect.matched.len(),
        effect.pruned.len()
    )];
    for &n in effect.matched.iter().take(PREVIEW_NAMES) {
        let node = &g.graph[n];
        let version = node.version.as_ref().map(|v| v.to_string());
        out.push(format!(
            "  ✓ {}  {}{}",
            node.name,
            version.unwrap_or_default(),
            if effect.pruned.contains(&n) {
                "  pruned by OLM v0"
            } else {
                ""
            }
        ));
    }
    if effect.matched.len() > PREVIEW_NAMES {
        out.push(format!(
            "  … and {} more",
            effect.matched.len() - PREVIEW_NAMES
        ));
    }
    out
}
