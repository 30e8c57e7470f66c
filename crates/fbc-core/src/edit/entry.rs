//! Edits of one channel entry: its skips, skipRange and replaces, and removing it while re-linking its
//! neighbours so nothing strands.

use crate::catalog::Catalog;
use crate::catalog::node::Node;
use crate::catalog::semver_range::Range;

use super::EditError;
use super::support::{
    Change, channel_id, entries_mut, entry_mut, not_an_entry, read_channel, set_entry_field,
    strings,
};

/// The entry of a channel, located for an edit.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub(super) pkg: &'a str,
    pub(super) channel: &'a str,
    pub(super) entry: &'a str,
}

pub(super) fn add_skips<'e>(
    catalog: &Catalog,
    at: At<'e>,
    skips: &'e [String],
) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, at.pkg, at.channel)?;
    let ch = read_channel(catalog, id)?;
    let e = ch
        .entry(at.entry)
        .ok_or_else(|| not_an_entry(at.entry, at.channel))?;
    if skips.is_empty() {
        return Err(EditError::NoSkipsGiven);
    }
    let new: Vec<String> = skips
        .iter()
        .filter(|s| !e.skips.contains(&s.as_str()))
        .cloned()
        .collect();
    if new.is_empty() {
        return Err(EditError::AlreadySkips {
            entry: at.entry.to_string(),
            skips: skips.to_vec(),
        });
    }
    if new.iter().any(|s| s == at.entry) {
        return Err(EditError::SkipsItself {
            entry: at.entry.to_string(),
        });
    }
    Ok(Box::new(move |catalog, rec| {
        rec.touch(catalog, id);
        catalog.edit(id, |c| {
            if let Some(e) = entry_mut(c, at.entry) {
                append_skips(e, &new);
            }
        });
        Ok(())
    }))
}

pub(super) fn remove_skips<'e>(
    catalog: &Catalog,
    at: At<'e>,
    skips: &'e [String],
) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, at.pkg, at.channel)?;
    let ch = read_channel(catalog, id)?;
    let e = ch
        .entry(at.entry)
        .ok_or_else(|| not_an_entry(at.entry, at.channel))?;
    if skips.is_empty() {
        return Err(EditError::NoSkipsGiven);
    }
    let missing: Vec<String> = skips
        .iter()
        .filter(|s| !e.skips.contains(&s.as_str()))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(EditError::DoesNotSkip {
            entry: at.entry.to_string(),
            skips: missing,
        });
    }
    let keep_any = e.skips.iter().any(|s| !skips.iter().any(|x| x == s));
    Ok(Box::new(move |catalog, rec| {
        rec.touch(catalog, id);
        catalog.edit(id, |c| {
            let Some(e) = entry_mut(c, at.entry) else {
                return;
            };
            if !keep_any {
                e.remove_field("skips");
            } else if let Some(list) = e.get_field_mut("skips").and_then(Node::as_seq_mut) {
                list.retain(|n| !n.as_str().is_some_and(|s| skips.iter().any(|x| x == s)));
            }
        });
        Ok(())
    }))
}

/// Sets (or with `None` clears) an entry's skipRange.
pub(super) fn set_skip_range<'e>(
    catalog: &Catalog,
    at: At<'e>,
    range: Option<&'e str>,
) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, at.pkg, at.channel)?;
    let ch = read_channel(catalog, id)?;
    let e = ch
        .entry(at.entry)
        .ok_or_else(|| not_an_entry(at.entry, at.channel))?;
    if let Some(r) = range
        && let Err(why) = Range::parse(r)
    {
        return Err(EditError::InvalidRange {
            range: r.to_string(),
            why,
        });
    }
    if e.skip_range == range {
        return Err(EditError::SkipRangeUnchanged);
    }
    Ok(Box::new(move |catalog, rec| {
        set_entry_field(catalog, rec, id, at.entry, "skipRange", range);
        Ok(())
    }))
}

/// Sets (or with `None` clears) an entry's replaces.
pub(super) fn set_replaces<'e>(
    catalog: &Catalog,
    at: At<'e>,
    replaces: Option<&'e str>,
) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, at.pkg, at.channel)?;
    let ch = read_channel(catalog, id)?;
    let e = ch
        .entry(at.entry)
        .ok_or_else(|| not_an_entry(at.entry, at.channel))?;
    if replaces == Some(at.entry) {
        return Err(EditError::ReplacesItself {
            entry: at.entry.to_string(),
        });
    }
    if e.replaces == replaces {
        return Err(EditError::ReplacesUnchanged);
    }
    Ok(Box::new(move |catalog, rec| {
        set_entry_field(catalog, rec, id, at.entry, "replaces", replaces);
        Ok(())
    }))
}

/// Removes an entry; the entries that replaced or skipped it take over what it linked (see
/// [`cut_entry`]), and skips naming it go.
pub(super) fn remove_entry<'e>(catalog: &Catalog, at: At<'e>) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, at.pkg, at.channel)?;
    let ch = read_channel(catalog, id)?;
    if ch.entry(at.entry).is_none() {
        return Err(not_an_entry(at.entry, at.channel));
    }
    if ch.entries.len() == 1 {
        return Err(EditError::LastEntry {
            entry: at.entry.to_string(),
            channel: at.channel.to_string(),
        });
    }
    Ok(Box::new(move |catalog, rec| {
        rec.touch(catalog, id);
        catalog.edit(id, |c| cut_entry(c, at.entry, true));
        Ok(())
    }))
}

/// What a removed entry linked to: its `replaces`, its `skips` and its `skipRange`.
struct Links {
    replaces: Option<String>,
    skips: Vec<String>,
    skip_range: Option<String>,
}

impl Links {
    fn of(entry: &Node) -> Links {
        let text = |key| {
            entry
                .get_field(key)
                .and_then(Node::as_str)
                .map(str::to_string)
        };
        Links {
            replaces: text("replaces"),
            skips: entry
                .get_field("skips")
                .and_then(Node::as_seq)
                .map(|s| {
                    s.iter()
                        .filter_map(Node::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            skip_range: text("skipRange"),
        }
    }
}

/// Takes `entry` out of a channel node. The entries that replaced it replace what it replaced
/// instead (or nothing). With `relink`, the entries that replaced or skipped it also take over what
/// it skipped, so that nothing it kept reachable strands or becomes a second head, and its
/// skipRange when they have none of their own (clusters it let upgrade keep an upgrade); the skips
/// naming it go.
pub(super) fn cut_entry(channel: &mut Node, entry: &str, relink: bool) {
    let Some(list) = entries_mut(channel) else {
        return;
    };
    let named = |n: &Node| n.get_field("name").and_then(Node::as_str) == Some(entry);
    let Some(links) = list.iter().find(|n| named(n)).map(Links::of) else {
        return;
    };
    list.retain(|n| !named(n));
    for n in list.iter_mut() {
        let replaced_it = n.get_field("replaces").and_then(Node::as_str) == Some(entry);
        let skipped_it = n
            .get_field("skips")
            .and_then(Node::as_seq)
            .is_some_and(|s| s.iter().any(|x| x.as_str() == Some(entry)));
        if replaced_it {
            match &links.replaces {
                Some(r) => n.set_field("replaces", Node::string(r.as_str())),
                None => {
                    n.remove_field("replaces");
                }
            }
        }
        if !relink {
            continue;
        }
        if replaced_it || skipped_it {
            take_over(n, &links);
        }
        if let Some(skips) = n.get_field_mut("skips").and_then(Node::as_seq_mut) {
            skips.retain(|s| s.as_str() != Some(entry));
            if skips.is_empty() {
                n.remove_field("skips");
            }
        }
    }
}

/// A successor of a removed entry takes over its skips (those it does not skip yet, never itself)
/// and, having none, its skipRange.
fn take_over(successor: &mut Node, links: &Links) {
    let own = successor
        .get_field("name")
        .and_then(Node::as_str)
        .unwrap_or("")
        .to_string();
    let has = |n: &Node, s: &str| {
        n.get_field("skips")
            .and_then(Node::as_seq)
            .is_some_and(|list| list.iter().any(|x| x.as_str() == Some(s)))
    };
    let new: Vec<String> = links
        .skips
        .iter()
        .filter(|s| **s != own && !has(successor, s))
        .cloned()
        .collect();
    if !new.is_empty() {
        append_skips(successor, &new);
    }
    if let Some(r) = &links.skip_range
        && successor.get_field("skipRange").is_none()
    {
        successor.set_field("skipRange", Node::string(r.as_str()));
    }
}

/// Appends `skips` to an entry's list, creating the list when it has none.
fn append_skips(entry: &mut Node, skips: &[String]) {
    match entry.get_field_mut("skips").and_then(Node::as_seq_mut) {
        Some(list) => list.extend(skips.iter().map(|s| Node::string(s.as_str()))),
        None => entry.set_field("skips", strings(skips)),
    }
}
