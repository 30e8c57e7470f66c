//! Guided edits: each is a typed value that checks its preconditions, applies to the catalog and
//! returns what undoes it. No edit touches a file; saving is the catalog's (or workspace's) business.

mod bundle;
mod channel;
mod deprecation;
mod entry;
mod error;
mod remove_bundle;
mod support;

use crate::catalog::node::Node;
use crate::catalog::{BlobId, BlobState, Catalog};

pub use error::EditError;
use support::{Change, Links, Recorder, json_str};

/// What a deprecation is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Package,
    Channel(String),
    Bundle(String),
}

/// One guided edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Adds bundle `bundle` to `channel`. By default it becomes the head and replaces the current
    /// head; `replaces` names another entry instead, `skips` and `skip_range` are set as given.
    Promote {
        package: String,
        bundle: String,
        channel: String,
        replaces: Option<String>,
        skips: Vec<String>,
        skip_range: Option<String>,
    },
    SetDefaultChannel {
        package: String,
        channel: String,
    },
    /// A new channel whose only entry is `bundle`.
    CreateChannel {
        package: String,
        channel: String,
        bundle: String,
    },
    /// Deletes a channel (not the default one).
    DeleteChannel {
        package: String,
        channel: String,
    },
    AddSkips {
        package: String,
        channel: String,
        entry: String,
        skips: Vec<String>,
    },
    RemoveSkips {
        package: String,
        channel: String,
        entry: String,
        skips: Vec<String>,
    },
    /// Sets (or with `None` clears) an entry's skipRange.
    SetSkipRange {
        package: String,
        channel: String,
        entry: String,
        range: Option<String>,
    },
    /// Sets (or with `None` clears) an entry's replaces.
    SetReplaces {
        package: String,
        channel: String,
        entry: String,
        replaces: Option<String>,
    },
    /// Removes an entry; the entries that replaced it take over its `replaces`, and those that
    /// replaced or skipped it its skips (and its skipRange when they have none), so nothing strands.
    RemoveEntry {
        package: String,
        channel: String,
        entry: String,
    },
    Deprecate {
        package: String,
        target: Target,
        message: String,
    },
    Undeprecate {
        package: String,
        target: Target,
    },
    /// Adds a rendered `olm.bundle` (from a bundle directory) to the catalog, creating its package
    /// when new, and places it in `channel`: promoted as the new head when the channel exists
    /// (`replaces`, `skips`, `skip_range` as for [`Edit::Promote`]), or as the only entry of a new
    /// channel (which becomes the default channel of a new package).
    AddBundle {
        bundle: serde_json::Value,
        channel: String,
        replaces: Option<String>,
        skips: Vec<String>,
        skip_range: Option<String>,
    },
    /// Removes a bundle from its package entirely: its entries in every channel, its `olm.bundle`
    /// and the deprecations naming it. Refused when a channel would be left empty, or (unless
    /// `relink`) when another entry replaces it; with `relink` those entries take over its
    /// `replaces`, the entries that replaced or skipped it its skips (and its skipRange when they
    /// have none), as for [`Edit::RemoveEntry`], and skips naming it are dropped.
    RemoveBundle {
        package: String,
        bundle: String,
        relink: bool,
    },
}

/// What undoes an edit: the blobs it touched, as they were.
#[derive(Clone, Debug)]
pub struct Undo {
    blobs: Vec<(BlobId, Node, BlobState)>,
}

impl Undo {
    /// Puts the touched blobs back (most recent first).
    pub fn apply(self, catalog: &mut Catalog) {
        for (id, value, state) in self.blobs.into_iter().rev() {
            catalog.restore_blob(id, value, state);
        }
    }
}

impl Edit {
    /// What the edit will do, in a sentence.
    pub fn describe(&self) -> String {
        match self {
            Edit::Promote {
                package,
                bundle,
                channel,
                ..
            } => format!("promote {bundle} into {package}/{channel}"),
            Edit::SetDefaultChannel { package, channel } => {
                format!("make {channel} the default channel of {package}")
            }
            Edit::CreateChannel {
                package,
                channel,
                bundle,
            } => format!("create channel {channel} of {package} with {bundle}"),
            Edit::DeleteChannel { package, channel } => {
                format!("delete channel {channel} of {package}")
            }
            Edit::AddSkips {
                channel,
                entry,
                skips,
                ..
            } => {
                format!("{entry} in {channel} also skips {}", skips.join(", "))
            }
            Edit::RemoveSkips {
                channel,
                entry,
                skips,
                ..
            } => {
                format!("{entry} in {channel} no longer skips {}", skips.join(", "))
            }
            Edit::SetSkipRange {
                channel,
                entry,
                range,
                ..
            } => match range {
                Some(r) => format!("set the skipRange of {entry} in {channel} to {r:?}"),
                None => format!("clear the skipRange of {entry} in {channel}"),
            },
            Edit::SetReplaces {
                channel,
                entry,
                replaces,
                ..
            } => match replaces {
                Some(r) => format!("{entry} in {channel} replaces {r}"),
                None => format!("{entry} in {channel} replaces nothing"),
            },
            Edit::RemoveEntry { channel, entry, .. } => {
                format!("remove {entry} from {channel}, re-linking its neighbours")
            }
            Edit::Deprecate {
                package, target, ..
            } => format!("deprecate {}", deprecation::what(package, target)),
            Edit::Undeprecate { package, target } => {
                format!("undeprecate {}", deprecation::what(package, target))
            }
            Edit::AddBundle {
                bundle, channel, ..
            } => format!(
                "add bundle {} to {} and promote it into {channel}",
                json_str(bundle, "name"),
                json_str(bundle, "package")
            ),
            Edit::RemoveBundle {
                package,
                bundle,
                relink,
            } => remove_bundle::describe(package, bundle, *relink),
        }
    }

    /// The package the edit changes (to re-validate it).
    pub fn package(&self) -> &str {
        match self {
            Edit::Promote { package, .. }
            | Edit::SetDefaultChannel { package, .. }
            | Edit::CreateChannel { package, .. }
            | Edit::DeleteChannel { package, .. }
            | Edit::AddSkips { package, .. }
            | Edit::RemoveSkips { package, .. }
            | Edit::SetSkipRange { package, .. }
            | Edit::SetReplaces { package, .. }
            | Edit::RemoveEntry { package, .. }
            | Edit::Deprecate { package, .. }
            | Edit::Undeprecate { package, .. }
            | Edit::RemoveBundle { package, .. } => package,
            Edit::AddBundle { bundle, .. } => json_str(bundle, "package"),
        }
    }

    /// Checks the preconditions and applies the edit. On an error nothing has changed.
    pub fn apply(&self, catalog: &mut Catalog) -> Result<Undo, EditError> {
        let change = self.plan(catalog)?;
        let mut rec = Recorder::new();
        change(catalog, &mut rec)?;
        Ok(Undo { blobs: rec.blobs })
    }

    /// Checks the preconditions alone, changing nothing: what a face asks before it asks the user
    /// for more (a picker greys out what `apply` would refuse). `apply` checks them again, and can
    /// still refuse what only writing finds out (a file in the way).
    pub fn check(&self, catalog: &Catalog) -> Result<(), EditError> {
        self.plan(catalog).map(|_| ())
    }

    /// Checks the preconditions and returns the change that makes the edit (a flat table by kind).
    fn plan<'e>(&'e self, catalog: &Catalog) -> Result<Change<'e>, EditError> {
        match self {
            Edit::Promote {
                package,
                bundle,
                channel,
                replaces,
                skips,
                skip_range,
            } => {
                let links = links(replaces, skips, skip_range);
                let how = channel::Incoming::InCatalog;
                channel::promote(catalog, package, bundle, channel, links, how)
            }
            Edit::SetDefaultChannel { package, channel } => {
                channel::set_default_channel(catalog, package, channel)
            }
            Edit::CreateChannel {
                package,
                channel,
                bundle,
            } => channel::create_channel(catalog, package, channel, bundle),
            Edit::DeleteChannel { package, channel } => {
                channel::delete_channel(catalog, package, channel)
            }
            Edit::AddSkips {
                package,
                channel,
                entry,
                skips,
            } => entry::add_skips(catalog, at(package, channel, entry), skips),
            Edit::RemoveSkips {
                package,
                channel,
                entry,
                skips,
            } => entry::remove_skips(catalog, at(package, channel, entry), skips),
            Edit::SetSkipRange {
                package,
                channel,
                entry,
                range,
            } => entry::set_skip_range(catalog, at(package, channel, entry), range.as_deref()),
            Edit::SetReplaces {
                package,
                channel,
                entry,
                replaces,
            } => entry::set_replaces(catalog, at(package, channel, entry), replaces.as_deref()),
            Edit::RemoveEntry {
                package,
                channel,
                entry,
            } => entry::remove_entry(catalog, at(package, channel, entry)),
            Edit::Deprecate {
                package,
                target,
                message,
            } => deprecation::deprecate(catalog, package, target, message),
            Edit::Undeprecate { package, target } => {
                deprecation::undeprecate(catalog, package, target)
            }
            Edit::AddBundle {
                bundle,
                channel,
                replaces,
                skips,
                skip_range,
            } => {
                let links = links(replaces, skips, skip_range);
                bundle::add_bundle_edit(catalog, bundle, channel, links)
            }
            Edit::RemoveBundle {
                package,
                bundle,
                relink,
            } => remove_bundle::remove_bundle(catalog, package, bundle, *relink),
        }
    }
}

fn at<'a>(pkg: &'a str, channel: &'a str, entry: &'a str) -> entry::At<'a> {
    entry::At {
        pkg,
        channel,
        entry,
    }
}

fn links<'a>(
    replaces: &'a Option<String>,
    skips: &'a [String],
    skip_range: &'a Option<String>,
) -> Links<'a> {
    Links {
        replaces: replaces.as_deref(),
        skips,
        skip_range: skip_range.as_deref(),
    }
}
