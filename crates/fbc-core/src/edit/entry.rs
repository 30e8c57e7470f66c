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
                match e.get_field_mut("skips").and_then(Node::as_seq_mut) {
                    Some(list) => list.extend(new.iter().map(|s| Node::string(s.as_str()))),
                    None => e.set_field("skips", strings(&new)),
                }
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

/// Removes an entry; the entries that replaced it take over its `replaces`, and skips naming it go.
pub(super) fn remove_entry<'e>(catalog: &Catalog, at: At<'e>) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, at.pkg, at.channel)?;
    let ch = read_channel(catalog, id)?;
    let e = ch
        .entry(at.entry)
        .ok_or_else(|| not_an_entry(at.entry, at.channel))?;
    if ch.entries.len() == 1 {
        return Err(EditError::LastEntry {
            entry: at.entry.to_string(),
            channel: at.channel.to_string(),
        });
    }
    let inherited = e.replaces.map(str::to_string);
    Ok(Box::new(move |catalog, rec| {
        rec.touch(catalog, id);
        catalog.edit(id, |c| cut_entry(c, at.entry, inherited.as_deref(), true));
        Ok(())
    }))
}

/// Takes `entry` out of a channel node: the entries that replaced it replace `inherited` instead
/// (or nothing), and with `drop_skips` the skips naming it go too.
pub(super) fn cut_entry(
    channel: &mut Node,
    entry: &str,
    inherited: Option<&str>,
    drop_skips: bool,
) {
    let Some(list) = entries_mut(channel) else {
        return;
    };
    list.retain(|n| n.get_field("name").and_then(Node::as_str) != Some(entry));
    for n in list.iter_mut() {
        if n.get_field("replaces").and_then(Node::as_str) == Some(entry) {
            match inherited {
                Some(r) => n.set_field("replaces", Node::string(r)),
                None => {
                    n.remove_field("replaces");
                }
            }
        }
        if drop_skips && let Some(skips) = n.get_field_mut("skips").and_then(Node::as_seq_mut) {
            skips.retain(|s| s.as_str() != Some(entry));
            if skips.is_empty() {
                n.remove_field("skips");
            }
        }
    }
}
