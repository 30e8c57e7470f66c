//! Removing a bundle from its package entirely: its entries in every channel, its `olm.bundle`
//! blob and the deprecations naming it. Refused when a channel would be left empty or with an entry
//! replacing a bundle that is gone; with relinking, the entries that replaced or skipped it take
//! over what it linked (its `replaces`, its skips, its skipRange: see `cut_entry`), as
//! `remove-entry` does, and skips naming it are dropped.

use crate::catalog::node::Node;
use crate::catalog::{BlobId, Catalog, schema};

use super::EditError;
use super::channel::default_channel;
use super::deprecation::read_deprecations;
use super::entry::cut_entry;
use super::support::{Change, package, read_channel};

/// Removes `bundle` of `pkg`. On an error nothing has changed.
pub(super) fn remove_bundle<'e>(
    catalog: &Catalog,
    pkg: &'e str,
    bundle: &'e str,
    relink: bool,
) -> Result<Change<'e>, EditError> {
    let p = package(catalog, pkg)?;
    let blobs: Vec<BlobId> = p
        .bundles
        .iter()
        .copied()
        .filter(|&b| catalog.blob(b).name() == bundle)
        .collect();
    if blobs.is_empty() {
        return Err(EditError::NoBundle {
            package: pkg.to_string(),
            bundle: bundle.to_string(),
        });
    }
    let channels = p.channels_listing(bundle).to_vec();
    check_channels(catalog, pkg, bundle, &channels, relink)?;
    let deprecations = deprecation_entries(catalog, pkg, bundle)?;
    Ok(Box::new(move |catalog, rec| {
        for &id in &channels {
            rec.touch(catalog, id);
            catalog.edit(id, |c| cut_entry(c, bundle, relink));
        }
        for id in blobs {
            rec.touch(catalog, id);
            catalog.remove_blob(id);
        }
        for (id, indices, all) in deprecations {
            rec.touch(catalog, id);
            if all {
                catalog.remove_blob(id);
            } else {
                catalog.edit(id, |d| {
                    if let Some(list) = d.get_field_mut("entries").and_then(Node::as_seq_mut) {
                        for &i in indices.iter().rev() {
                            list.remove(i);
                        }
                    }
                });
            }
        }
        Ok(())
    }))
}

/// What removing `bundle` does, in a sentence.
pub(super) fn describe(pkg: &str, bundle: &str, relink: bool) -> String {
    let how = if relink {
        ", re-linking its neighbours"
    } else {
        ""
    };
    format!("remove bundle {bundle} from {pkg}{how}")
}

/// Checks that removing `bundle` from each of `channels` leaves no channel empty and, without
/// relinking, no `replaces` dangling.
fn check_channels(
    catalog: &Catalog,
    pkg: &str,
    bundle: &str,
    channels: &[BlobId],
    relink: bool,
) -> Result<(), EditError> {
    let (_, default) = default_channel(catalog, pkg)?;
    for &id in channels {
        let ch = read_channel(catalog, id)?;
        if ch.entries.iter().all(|e| e.name == bundle) {
            return Err(EditError::WouldEmptyChannel {
                bundle: bundle.to_string(),
                channel: ch.name.to_string(),
                default_of: (ch.name == default).then(|| pkg.to_string()),
            });
        }
        let successors: Vec<String> = ch
            .entries
            .iter()
            .filter(|e| e.name != bundle && e.replaces == Some(bundle))
            .map(|e| e.name.to_string())
            .collect();
        if !relink && !successors.is_empty() {
            return Err(EditError::WouldDangle {
                bundle: bundle.to_string(),
                channel: ch.name.to_string(),
                entries: successors,
            });
        }
    }
    Ok(())
}

/// The package's `olm.deprecations` blobs with entries about `bundle`: the indices of those entries,
/// and whether they are all the blob has (then the blob goes).
fn deprecation_entries(
    catalog: &Catalog,
    pkg: &str,
    bundle: &str,
) -> Result<Vec<(BlobId, Vec<usize>, bool)>, EditError> {
    let mut found = Vec::new();
    for &id in &package(catalog, pkg)?.deprecations {
        let dep = read_deprecations(catalog, id)?;
        let indices: Vec<usize> = dep
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.schema == schema::BUNDLE && e.name == bundle)
            .map(|(i, _)| i)
            .collect();
        if !indices.is_empty() {
            let all = indices.len() == dep.entries.len();
            found.push((id, indices, all));
        }
    }
    Ok(found)
}
