//! Edits of a package's channels: promoting a bundle into one, making one the default, creating and
//! deleting channels.

use crate::catalog::model::Package;
use crate::catalog::node::Node;
use crate::catalog::semver_range::Range;
use crate::catalog::version_release::VersionRelease;
use crate::catalog::{Catalog, schema};
use crate::graph;

use super::EditError;
use super::support::{
    Change, Links, Recorder, channel_id, entries_mut, entry_node, not_an_entry, package,
    read_channel, version_of,
};

/// Where the version of a bundle being promoted comes from.
#[derive(Clone, Copy)]
pub(super) enum Incoming<'v> {
    /// The bundle is in the catalog (it must be).
    InCatalog,
    /// The bundle is about to be added, with this version and release (if it has a version).
    Rendered(Option<&'v VersionRelease>),
}

/// Adds `bundle` to `channel`: by default the new head, replacing the current head.
pub(super) fn promote<'e>(
    catalog: &Catalog,
    pkg: &'e str,
    bundle: &'e str,
    channel: &'e str,
    links: Links<'e>,
    incoming: Incoming,
) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, pkg, channel)?;
    let version = match incoming {
        Incoming::InCatalog if catalog.index().bundle(pkg, bundle).is_none() => {
            return Err(EditError::NoBundle {
                package: pkg.to_string(),
                bundle: bundle.to_string(),
            });
        }
        Incoming::InCatalog => version_of(catalog, pkg, bundle),
        Incoming::Rendered(v) => v.cloned(),
    };
    let ch = read_channel(catalog, id)?;
    if ch.entry(bundle).is_some() {
        return Err(EditError::AlreadyInChannel {
            bundle: bundle.to_string(),
            channel: channel.to_string(),
        });
    }
    let head = graph::heads(&ch.entries).first().map(|h| h.to_string());
    if let (Some(h), Some(new)) = (&head, version)
        && let Some(old) = version_of(catalog, pkg, h)
        && new <= old
    {
        return Err(EditError::NotNewerThanHead {
            bundle: bundle.to_string(),
            version: new.to_string(),
            channel: channel.to_string(),
            head: h.clone(),
            head_version: old.to_string(),
        });
    }
    if let Some(r) = links.replaces
        && ch.entry(r).is_none()
    {
        return Err(not_an_entry(r, channel));
    }
    check_skip_range(links.skip_range)?;
    let replaces = links.replaces.map(str::to_string).or(head);
    Ok(Box::new(move |catalog, rec| {
        let entry = entry_node(
            bundle,
            Links {
                replaces: replaces.as_deref(),
                ..links
            },
        );
        rec.touch(catalog, id);
        catalog.edit(id, |c| {
            if let Some(list) = entries_mut(c) {
                list.push(entry);
            } else {
                c.set_field("entries", Node::seq(vec![entry]));
            }
        });
        Ok(())
    }))
}

/// A skipRange given for a new entry must parse.
pub(super) fn check_skip_range(range: Option<&str>) -> Result<(), EditError> {
    match range.map(|r| (r, Range::parse(r))) {
        Some((r, Err(e))) => Err(EditError::InvalidSkipRange {
            range: r.to_string(),
            why: e,
        }),
        _ => Ok(()),
    }
}

/// The package's default channel as it is now.
pub(super) fn default_channel(catalog: &Catalog, pkg: &str) -> Result<(usize, String), EditError> {
    let pid = package(catalog, pkg)?.packages[0];
    let current = Package::read(&catalog.blob(pid).value)
        .map(|p| p.default_channel.to_string())
        .unwrap_or_default();
    Ok((pid, current))
}

pub(super) fn set_default_channel<'e>(
    catalog: &Catalog,
    pkg: &'e str,
    channel: &'e str,
) -> Result<Change<'e>, EditError> {
    channel_id(catalog, pkg, channel)?;
    let (pid, current) = default_channel(catalog, pkg)?;
    if current == channel {
        return Err(EditError::AlreadyDefault {
            package: pkg.to_string(),
            channel: channel.to_string(),
        });
    }
    Ok(Box::new(move |catalog, rec| {
        rec.touch(catalog, pid);
        catalog.edit(pid, |p| {
            p.set_field("defaultChannel", Node::string(channel))
        });
        Ok(())
    }))
}

/// A new channel whose only entry is `bundle`.
pub(super) fn create_channel<'e>(
    catalog: &Catalog,
    pkg: &'e str,
    channel: &'e str,
    bundle: &'e str,
) -> Result<Change<'e>, EditError> {
    let p = package(catalog, pkg)?;
    if channel.trim().is_empty() {
        return Err(EditError::ChannelNeedsName);
    }
    if p.channel(channel).is_some() {
        return Err(EditError::ChannelExists {
            package: pkg.to_string(),
            channel: channel.to_string(),
        });
    }
    if p.bundle(bundle).is_none() {
        return Err(EditError::NoBundle {
            package: pkg.to_string(),
            bundle: bundle.to_string(),
        });
    }
    Ok(Box::new(move |catalog, rec| {
        let entry = Node::map(vec![("name", Node::string(bundle))]);
        add_channel(catalog, rec, pkg, channel, entry)
    }))
}

/// Adds an `olm.channel` blob with one entry.
pub(super) fn add_channel(
    catalog: &mut Catalog,
    rec: &mut Recorder,
    pkg: &str,
    channel: &str,
    entry: Node,
) -> Result<(), EditError> {
    let blob = Node::map(vec![
        ("schema", Node::string(schema::CHANNEL)),
        ("package", Node::string(pkg)),
        ("name", Node::string(channel)),
        ("entries", Node::seq(vec![entry])),
    ]);
    let id = catalog.add_blob(blob)?;
    rec.added(catalog, id);
    Ok(())
}

/// Deletes a channel that is not the default one.
pub(super) fn delete_channel<'e>(
    catalog: &Catalog,
    pkg: &'e str,
    channel: &'e str,
) -> Result<Change<'e>, EditError> {
    let id = channel_id(catalog, pkg, channel)?;
    let (_, default) = default_channel(catalog, pkg)?;
    if default == channel {
        return Err(EditError::DeletingDefault {
            package: pkg.to_string(),
            channel: channel.to_string(),
        });
    }
    Ok(Box::new(move |catalog, rec| {
        rec.touch(catalog, id);
        catalog.remove_blob(id);
        Ok(())
    }))
}
