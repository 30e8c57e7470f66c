//! Guided edits: each is a typed value that checks its preconditions, applies to the catalog and
//! returns what undoes it. No edit touches a file; saving is the catalog's (or workspace's) business.

use crate::catalog::model::{Bundle, Channel, Deprecations, Package};
use crate::catalog::node::Node;
use crate::catalog::semver_range::{Range, Version};
use crate::catalog::{BlobId, BlobState, Catalog, PackageIndex, schema};
use crate::graph;

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
    /// Removes an entry; the entry that replaced it takes over its `replaces`, so nothing strands.
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
}

/// Why an edit cannot be made, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EditError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, EditError> {
    Err(EditError(msg.into()))
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

/// Records blobs before they change.
struct Recorder {
    blobs: Vec<(BlobId, Node, BlobState)>,
}

impl Recorder {
    fn touch(&mut self, catalog: &Catalog, id: BlobId) {
        if !self.blobs.iter().any(|(b, _, _)| *b == id) {
            let blob = catalog.blob(id);
            self.blobs.push((id, blob.value.clone(), blob.state));
        }
    }

    /// A blob this edit added: undoing removes it again.
    fn added(&mut self, catalog: &Catalog, id: BlobId) {
        let blob = catalog.blob(id);
        self.blobs
            .push((id, blob.value.clone(), BlobState::Removed));
    }
}

fn package<'c>(catalog: &'c Catalog, name: &str) -> Result<&'c PackageIndex, EditError> {
    match catalog.index().package(name) {
        Some(p) if !p.packages.is_empty() => Ok(p),
        _ => err(format!("there is no package {name:?}")),
    }
}

fn channel_id(catalog: &Catalog, pkg: &str, channel: &str) -> Result<BlobId, EditError> {
    let p = package(catalog, pkg)?;
    p.channel(channel).ok_or_else(|| {
        let names: Vec<&str> = p.channels.iter().map(|&c| catalog.blob(c).name()).collect();
        EditError(format!(
            "package {pkg:?} has no channel {channel:?} (its channels: {})",
            names.join(", ")
        ))
    })
}

fn read_channel(catalog: &Catalog, id: BlobId) -> Result<Channel<'_>, EditError> {
    Channel::read(&catalog.blob(id).value)
        .map_err(|e| EditError(format!("the channel cannot be read: {e}")))
}

fn version_of(catalog: &Catalog, pkg: &str, bundle: &str) -> Option<Version> {
    let id = catalog.index().bundle(pkg, bundle)?;
    Bundle::read(&catalog.blob(id).value)
        .ok()?
        .version()
        .and_then(|v| Version::parse(v).ok())
}

/// The entries list of a channel node, for changing.
fn entries_mut(channel: &mut Node) -> Option<&mut Vec<Node>> {
    channel.get_field_mut("entries").and_then(Node::as_seq_mut)
}

fn entry_mut<'n>(channel: &'n mut Node, name: &str) -> Option<&'n mut Node> {
    entries_mut(channel)?
        .iter_mut()
        .find(|e| e.get_field("name").and_then(Node::as_str) == Some(name))
}

/// Sets (or with `None` removes) a string field of a channel entry.
fn set_entry_field(
    catalog: &mut Catalog,
    rec: &mut Recorder,
    id: BlobId,
    entry: &str,
    key: &str,
    value: Option<&str>,
) {
    rec.touch(catalog, id);
    catalog.edit(id, |c| {
        if let Some(e) = entry_mut(c, entry) {
            match value {
                Some(v) => e.set_field(key, Node::string(v)),
                None => {
                    e.remove_field(key);
                }
            }
        }
    });
}

/// A channel entry with the fields that are set.
fn entry_node(
    name: &str,
    replaces: Option<&str>,
    skips: &[String],
    skip_range: Option<&str>,
) -> Node {
    let mut fields = vec![("name", Node::string(name))];
    if let Some(r) = replaces {
        fields.push(("replaces", Node::string(r)));
    }
    if !skips.is_empty() {
        fields.push(("skips", strings(skips)));
    }
    if let Some(r) = skip_range {
        fields.push(("skipRange", Node::string(r)));
    }
    Node::map(fields)
}

fn strings(items: &[String]) -> Node {
    Node::seq(items.iter().map(|s| Node::string(s.as_str())).collect())
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
            } => format!("deprecate {}", what(package, target)),
            Edit::Undeprecate { package, target } => {
                format!("undeprecate {}", what(package, target))
            }
            Edit::AddBundle {
                bundle, channel, ..
            } => format!(
                "add bundle {} to {} and promote it into {channel}",
                json_str(bundle, "name"),
                json_str(bundle, "package")
            ),
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
            | Edit::Undeprecate { package, .. } => package,
            Edit::AddBundle { bundle, .. } => json_str(bundle, "package"),
        }
    }

    /// Checks the preconditions and applies the edit. On an error nothing has changed.
    pub fn apply(&self, catalog: &mut Catalog) -> Result<Undo, EditError> {
        let mut rec = Recorder { blobs: Vec::new() };
        match self {
            Edit::Promote {
                package: pkg,
                bundle,
                channel,
                replaces,
                skips,
                skip_range,
            } => {
                let id = channel_id(catalog, pkg, channel)?;
                if catalog.index().bundle(pkg, bundle).is_none() {
                    return err(format!("package {pkg:?} has no bundle {bundle:?}"));
                }
                let ch = read_channel(catalog, id)?;
                if ch.entry(bundle).is_some() {
                    return err(format!("{bundle} is already in channel {channel}"));
                }
                let heads = graph::heads(&ch.entries);
                let head = heads.first().map(|h| h.to_string());
                if let (Some(h), Some(new)) = (&head, version_of(catalog, pkg, bundle))
                    && let Some(old) = version_of(catalog, pkg, h)
                    && new <= old
                {
                    return err(format!(
                        "{bundle} ({new}) is not newer than the head of {channel}, {h} ({old})"
                    ));
                }
                if let Some(r) = replaces
                    && ch.entry(r).is_none()
                {
                    return err(format!("{r} is not an entry of {channel}"));
                }
                if let Some(r) = skip_range
                    && let Err(e) = Range::parse(r)
                {
                    return err(format!("skipRange {r:?} is not a valid range: {e}"));
                }
                let replaces = replaces.clone().or(head);
                let entry = entry_node(bundle, replaces.as_deref(), skips, skip_range.as_deref());
                rec.touch(catalog, id);
                catalog.edit(id, |c| {
                    if let Some(list) = entries_mut(c) {
                        list.push(entry);
                    } else {
                        c.set_field("entries", Node::seq(vec![entry]));
                    }
                });
            }
            Edit::SetDefaultChannel {
                package: pkg,
                channel,
            } => {
                channel_id(catalog, pkg, channel)?;
                let pid = package(catalog, pkg)?.packages[0];
                let current = Package::read(&catalog.blob(pid).value)
                    .map(|p| p.default_channel.to_string())
                    .unwrap_or_default();
                if current == *channel {
                    return err(format!("{channel} already is the default channel of {pkg}"));
                }
                rec.touch(catalog, pid);
                catalog.edit(pid, |p| {
                    p.set_field("defaultChannel", Node::string(channel.as_str()))
                });
            }
            Edit::CreateChannel {
                package: pkg,
                channel,
                bundle,
            } => {
                let p = package(catalog, pkg)?;
                if channel.trim().is_empty() {
                    return err("a channel needs a name");
                }
                if p.channel(channel).is_some() {
                    return err(format!("package {pkg:?} already has a channel {channel:?}"));
                }
                if p.bundle(bundle).is_none() {
                    return err(format!("package {pkg:?} has no bundle {bundle:?}"));
                }
                let blob = Node::map(vec![
                    ("schema", Node::string(schema::CHANNEL)),
                    ("package", Node::string(pkg.as_str())),
                    ("name", Node::string(channel.as_str())),
                    (
                        "entries",
                        Node::seq(vec![Node::map(vec![(
                            "name",
                            Node::string(bundle.as_str()),
                        )])]),
                    ),
                ]);
                let id = catalog.add_blob(blob).map_err(EditError)?;
                rec.added(catalog, id);
            }
            Edit::DeleteChannel {
                package: pkg,
                channel,
            } => {
                let id = channel_id(catalog, pkg, channel)?;
                let pid = package(catalog, pkg)?.packages[0];
                let default = Package::read(&catalog.blob(pid).value)
                    .map(|p| p.default_channel.to_string())
                    .unwrap_or_default();
                if default == *channel {
                    return err(format!(
                        "{channel} is the default channel of {pkg}; make another channel the default first"
                    ));
                }
                rec.touch(catalog, id);
                catalog.remove_blob(id);
            }
            Edit::AddSkips {
                package: pkg,
                channel,
                entry,
                skips,
            } => {
                let id = channel_id(catalog, pkg, channel)?;
                let ch = read_channel(catalog, id)?;
                let Some(e) = ch.entry(entry) else {
                    return err(format!("{entry} is not an entry of {channel}"));
                };
                let new: Vec<String> = skips
                    .iter()
                    .filter(|s| !e.skips.contains(&s.as_str()))
                    .cloned()
                    .collect();
                if new.is_empty() {
                    return err(format!("{entry} already skips {}", skips.join(", ")));
                }
                if new.iter().any(|s| s == entry) {
                    return err(format!("{entry} cannot skip itself"));
                }
                rec.touch(catalog, id);
                catalog.edit(id, |c| {
                    if let Some(e) = entry_mut(c, entry) {
                        match e.get_field_mut("skips").and_then(Node::as_seq_mut) {
                            Some(list) => list.extend(new.iter().map(|s| Node::string(s.as_str()))),
                            None => e.set_field("skips", strings(&new)),
                        }
                    }
                });
            }
            Edit::RemoveSkips {
                package: pkg,
                channel,
                entry,
                skips,
            } => {
                let id = channel_id(catalog, pkg, channel)?;
                let ch = read_channel(catalog, id)?;
                let Some(e) = ch.entry(entry) else {
                    return err(format!("{entry} is not an entry of {channel}"));
                };
                let missing: Vec<&String> = skips
                    .iter()
                    .filter(|s| !e.skips.contains(&s.as_str()))
                    .collect();
                if !missing.is_empty() {
                    let m: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                    return err(format!("{entry} does not skip {}", m.join(", ")));
                }
                let keep_any = e.skips.iter().any(|s| !skips.iter().any(|x| x == s));
                rec.touch(catalog, id);
                catalog.edit(id, |c| {
                    if let Some(e) = entry_mut(c, entry) {
                        if keep_any {
                            if let Some(list) = e.get_field_mut("skips").and_then(Node::as_seq_mut)
                            {
                                list.retain(|n| {
                                    !n.as_str().is_some_and(|s| skips.iter().any(|x| x == s))
                                });
                            }
                        } else {
                            e.remove_field("skips");
                        }
                    }
                });
            }
            Edit::SetSkipRange {
                package: pkg,
                channel,
                entry,
                range,
            } => {
                let id = channel_id(catalog, pkg, channel)?;
                let ch = read_channel(catalog, id)?;
                let Some(e) = ch.entry(entry) else {
                    return err(format!("{entry} is not an entry of {channel}"));
                };
                if let Some(r) = range
                    && let Err(why) = Range::parse(r)
                {
                    return err(format!("{r:?} is not a valid range: {why}"));
                }
                if e.skip_range == range.as_deref() {
                    return err("the skipRange is already that".to_string());
                }
                set_entry_field(catalog, &mut rec, id, entry, "skipRange", range.as_deref());
            }
            Edit::SetReplaces {
                package: pkg,
                channel,
                entry,
                replaces,
            } => {
                let id = channel_id(catalog, pkg, channel)?;
                let ch = read_channel(catalog, id)?;
                let Some(e) = ch.entry(entry) else {
                    return err(format!("{entry} is not an entry of {channel}"));
                };
                if replaces.as_deref() == Some(entry.as_str()) {
                    return err(format!("{entry} cannot replace itself"));
                }
                if e.replaces == replaces.as_deref() {
                    return err("it already replaces that".to_string());
                }
                set_entry_field(
                    catalog,
                    &mut rec,
                    id,
                    entry,
                    "replaces",
                    replaces.as_deref(),
                );
            }
            Edit::RemoveEntry {
                package: pkg,
                channel,
                entry,
            } => {
                let id = channel_id(catalog, pkg, channel)?;
                let ch = read_channel(catalog, id)?;
                let Some(e) = ch.entry(entry) else {
                    return err(format!("{entry} is not an entry of {channel}"));
                };
                if ch.entries.len() == 1 {
                    return err(format!(
                        "{entry} is the last entry of {channel}; delete the channel instead"
                    ));
                }
                let inherited = e.replaces.map(str::to_string);
                let successors: Vec<String> = ch
                    .entries
                    .iter()
                    .filter(|x| x.replaces == Some(entry.as_str()))
                    .map(|x| x.name.to_string())
                    .collect();
                rec.touch(catalog, id);
                catalog.edit(id, |c| {
                    if let Some(list) = entries_mut(c) {
                        list.retain(|n| n.get_field("name").and_then(Node::as_str) != Some(entry));
                        for n in list.iter_mut() {
                            let name = n
                                .get_field("name")
                                .and_then(Node::as_str)
                                .map(str::to_string);
                            if name.is_some_and(|nm| successors.contains(&nm)) {
                                match &inherited {
                                    Some(r) => n.set_field("replaces", Node::string(r.as_str())),
                                    None => {
                                        n.remove_field("replaces");
                                    }
                                }
                            }
                            // Skips of the removed entry go: it is no longer in the channel.
                            if let Some(list) = n.get_field_mut("skips").and_then(Node::as_seq_mut)
                            {
                                list.retain(|s| s.as_str() != Some(entry));
                            }
                        }
                    }
                });
            }
            Edit::Deprecate {
                package: pkg,
                target,
                message,
            } => {
                check_target(catalog, pkg, target)?;
                if message.trim().is_empty() {
                    return err("a deprecation needs a message: say why, and what to use instead");
                }
                let entry = deprecation_entry(target, message);
                let p = package(catalog, pkg)?;
                match p.deprecations.first().copied() {
                    Some(did) => {
                        let dep = Deprecations::read(&catalog.blob(did).value).map_err(|e| {
                            EditError(format!("the olm.deprecations object cannot be read: {e}"))
                        })?;
                        if dep
                            .entries
                            .iter()
                            .any(|e| matches_target(e.schema, e.name, target))
                        {
                            return err(format!("{} is already deprecated", what(pkg, target)));
                        }
                        rec.touch(catalog, did);
                        catalog.edit(did, |d| {
                            match d.get_field_mut("entries").and_then(Node::as_seq_mut) {
                                Some(list) => list.push(entry),
                                None => d.set_field("entries", Node::seq(vec![entry])),
                            }
                        });
                    }
                    None => {
                        let blob = Node::map(vec![
                            ("schema", Node::string(schema::DEPRECATIONS)),
                            ("package", Node::string(pkg.as_str())),
                            ("entries", Node::seq(vec![entry])),
                        ]);
                        let id = add_deprecations(catalog, pkg, blob)?;
                        rec.added(catalog, id);
                    }
                }
            }
            Edit::Undeprecate {
                package: pkg,
                target,
            } => {
                let p = package(catalog, pkg)?;
                let Some(did) = p.deprecations.first().copied() else {
                    return err(format!("{} is not deprecated", what(pkg, target)));
                };
                let dep = Deprecations::read(&catalog.blob(did).value).map_err(|e| {
                    EditError(format!("the olm.deprecations object cannot be read: {e}"))
                })?;
                let Some(i) = dep
                    .entries
                    .iter()
                    .position(|e| matches_target(e.schema, e.name, target))
                else {
                    return err(format!("{} is not deprecated", what(pkg, target)));
                };
                let last = dep.entries.len() == 1;
                rec.touch(catalog, did);
                if last {
                    catalog.remove_blob(did);
                } else {
                    catalog.edit(did, |d| {
                        if let Some(list) = d.get_field_mut("entries").and_then(Node::as_seq_mut) {
                            list.remove(i);
                        }
                    });
                }
            }
            Edit::AddBundle {
                bundle,
                channel,
                replaces,
                skips,
                skip_range,
            } => {
                let pkg = json_str(bundle, "package");
                let name = json_str(bundle, "name");
                if pkg.is_empty() {
                    return err("the bundle names no package (its package annotation is missing)");
                }
                if name.is_empty() {
                    return err("the bundle has no name (its CSV has no metadata.name)");
                }
                if channel.trim().is_empty() {
                    return err("a channel needs a name");
                }
                if catalog.index().bundle(pkg, name).is_some() {
                    return err(format!("{name} is already a bundle of {pkg}"));
                }
                let new_package = package(catalog, pkg).is_err();
                let new_channel = new_package || channel_id(catalog, pkg, channel).is_err();
                if new_channel
                    && let Some(r) = skip_range
                    && let Err(e) = Range::parse(r)
                {
                    return err(format!("skipRange {r:?} is not a valid range: {e}"));
                }
                let result = add_bundle(
                    catalog,
                    &mut rec,
                    pkg,
                    name,
                    bundle,
                    new_package.then_some(channel.as_str()),
                )
                .and_then(|()| {
                    if new_channel {
                        let entry =
                            entry_node(name, replaces.as_deref(), skips, skip_range.as_deref());
                        let blob = Node::map(vec![
                            ("schema", Node::string(schema::CHANNEL)),
                            ("package", Node::string(pkg)),
                            ("name", Node::string(channel.as_str())),
                            ("entries", Node::seq(vec![entry])),
                        ]);
                        let id = catalog.add_blob(blob).map_err(EditError)?;
                        rec.added(catalog, id);
                        Ok(())
                    } else {
                        let promote = Edit::Promote {
                            package: pkg.to_string(),
                            bundle: name.to_string(),
                            channel: channel.clone(),
                            replaces: replaces.clone(),
                            skips: skips.clone(),
                            skip_range: skip_range.clone(),
                        };
                        let undo = promote.apply(catalog)?;
                        rec.blobs.extend(undo.blobs);
                        Ok(())
                    }
                });
                if let Err(e) = result {
                    Undo { blobs: rec.blobs }.apply(catalog);
                    return Err(e);
                }
            }
        }
        Ok(Undo { blobs: rec.blobs })
    }
}

fn json_str<'v>(v: &'v serde_json::Value, key: &str) -> &'v str {
    v.get(key).and_then(serde_json::Value::as_str).unwrap_or("")
}

/// The format most of the catalog's files use (YAML for an empty catalog).
fn main_format(catalog: &Catalog) -> crate::catalog::Format {
    use crate::catalog::Format;
    let json = catalog
        .files
        .iter()
        .filter(|f| f.format == Some(Format::Json))
        .count();
    if json * 2 > catalog.files.len() {
        Format::Json
    } else {
        Format::Yaml
    }
}

/// A blob as a node for a file of `format`: opm's field order for JSON, keys sorted for YAML (what
/// opm writes in each).
fn node_for(value: &serde_json::Value, format: crate::catalog::Format) -> Node {
    use crate::catalog::emit;
    let value = emit::opm_fields(value);
    emit::to_node(&value, format == crate::catalog::Format::Yaml)
}

/// Adds a rendered bundle (and, for a new package, its `olm.package` with `default_channel`). A
/// package whose bundles each live in a file of their own gets a new file named like the file of its
/// newest bundle; otherwise the bundle joins the package's file.
fn add_bundle(
    catalog: &mut Catalog,
    rec: &mut Recorder,
    pkg: &str,
    name: &str,
    value: &serde_json::Value,
    default_channel: Option<&str>,
) -> Result<(), EditError> {
    use crate::catalog::Format;
    if let Some(default) = default_channel {
        let format = main_format(catalog);
        let ext = if format == Format::Json {
            "json"
        } else {
            "yaml"
        };
        let rel = format!("{pkg}/catalog.{ext}");
        let file = new_file(catalog, &rel, format)?;
        let blob = Node::map(vec![
            ("schema", Node::string(schema::PACKAGE)),
            ("name", Node::string(pkg)),
            ("defaultChannel", Node::string(default)),
        ]);
        let meta = crate::catalog::decode::meta(&blob, &rel).map_err(|d| EditError(d.message))?;
        let id = catalog.add_blob_to(file, blob, meta);
        rec.added(catalog, id);
        let node = node_for(value, format);
        let meta = crate::catalog::decode::meta(&node, &rel).map_err(|d| EditError(d.message))?;
        let id = catalog.add_blob_to(file, node, meta);
        rec.added(catalog, id);
        return Ok(());
    }
    let version = value
        .get("properties")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .find(|p| json_str(p, "type") == crate::catalog::model::property_type::PACKAGE)
        .map(|p| json_str(&p["value"], "version").to_string())
        .unwrap_or_default();
    if let Some((rel, format)) = own_file_for(catalog, pkg, name, &version) {
        let file = new_file(catalog, &rel, format)?;
        let node = node_for(value, format);
        let meta = crate::catalog::decode::meta(&node, &rel).map_err(|d| EditError(d.message))?;
        let id = catalog.add_blob_to(file, node, meta);
        rec.added(catalog, id);
        return Ok(());
    }
    let pid = package(catalog, pkg)?.packages[0];
    let format = catalog.blob(pid).format;
    let id = catalog
        .add_blob(node_for(value, format))
        .map_err(EditError)?;
    rec.added(catalog, id);
    Ok(())
}

/// For a package laid out one bundle per file, the path of a new bundle's own file: the newest
/// bundle's file name with its version (or name) replaced by the new one's.
fn own_file_for(
    catalog: &Catalog,
    pkg: &str,
    name: &str,
    version: &str,
) -> Option<(String, crate::catalog::Format)> {
    let p = catalog.index().package(pkg)?;
    let live = |id: BlobId| catalog.blob(id).state != BlobState::Removed;
    let bundles: Vec<BlobId> = p.bundles.iter().copied().filter(|&b| live(b)).collect();
    if bundles.len() < 2 {
        return None;
    }
    let alone = bundles.iter().all(|&b| {
        let f = &catalog.files[catalog.blob(b).file];
        f.blobs.iter().filter(|&&x| live(x)).count() == 1
    });
    if !alone {
        return None;
    }
    let newest = bundles
        .iter()
        .copied()
        .filter_map(|b| {
            let v = Bundle::read(&catalog.blob(b).value)
                .ok()?
                .version()?
                .to_string();
            Some((Version::parse(&v).ok()?, v, b))
        })
        .max_by(|a, b| a.0.cmp(&b.0))?;
    let (_, old_version, id) = newest;
    let old_name = catalog.blob(id).name().to_string();
    let file = &catalog.files[catalog.blob(id).file];
    let (dir, base) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
    let new_base = if base.contains(&old_name) {
        base.replacen(&old_name, name, 1)
    } else if !old_version.is_empty() && !version.is_empty() && base.contains(&old_version) {
        base.replacen(&old_version, version, 1)
    } else {
        return None;
    };
    let rel = if dir.is_empty() {
        new_base
    } else {
        format!("{dir}/{new_base}")
    };
    let format = catalog.blob(id).format;
    reusable(catalog, &rel).then_some((rel, format))
}

/// Whether a new file may be made at `rel`: nothing is there, or only a file an earlier (undone)
/// edit created.
fn reusable(catalog: &Catalog, rel: &str) -> bool {
    match catalog.files.iter().find(|f| f.path == rel) {
        Some(f) => {
            f.created
                && f.blobs
                    .iter()
                    .all(|&b| catalog.blob(b).state == BlobState::Removed)
        }
        None => !catalog.root.join(rel).exists(),
    }
}

/// A new file at `rel` (or the empty one an undone edit left there).
fn new_file(
    catalog: &mut Catalog,
    rel: &str,
    format: crate::catalog::Format,
) -> Result<crate::catalog::FileId, EditError> {
    if !reusable(catalog, rel) {
        return err(format!(
            "{rel} already exists; move it aside or add the objects there yourself"
        ));
    }
    match catalog.files.iter().position(|f| f.path == rel) {
        Some(i) => Ok(i),
        None => catalog.create_file(rel, format).map_err(EditError),
    }
}

/// A package's first `olm.deprecations` goes into `deprecations.yaml` (or `.json` when the package
/// is written in JSON) beside the file of its `olm.package`.
fn add_deprecations(catalog: &mut Catalog, pkg: &str, blob: Node) -> Result<BlobId, EditError> {
    use crate::catalog::Format;
    let pid = package(catalog, pkg)?.packages[0];
    let file = &catalog.files[catalog.blob(pid).file];
    let format = catalog.blob(pid).format;
    let dir = file
        .path
        .rsplit_once('/')
        .map_or("", |(d, _)| d)
        .to_string();
    let name = match format {
        Format::Json => "deprecations.json",
        Format::Yaml => "deprecations.yaml",
    };
    let rel = if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    };
    let meta = crate::catalog::decode::meta(&blob, &rel).map_err(|d| EditError(d.message))?;
    let file = match catalog.files.iter().position(|f| f.path == rel) {
        Some(f) => f,
        None => {
            if catalog.root.join(&rel).exists() {
                return err(format!(
                    "{rel} exists but is not part of the catalog (.indexignore?)"
                ));
            }
            catalog.create_file(&rel, format).map_err(EditError)?
        }
    };
    Ok(catalog.add_blob_to(file, blob, meta))
}

fn what(pkg: &str, target: &Target) -> String {
    match target {
        Target::Package => format!("package {pkg}"),
        Target::Channel(c) => format!("channel {c} of {pkg}"),
        Target::Bundle(b) => format!("bundle {b}"),
    }
}

fn check_target(catalog: &Catalog, pkg: &str, target: &Target) -> Result<(), EditError> {
    let p = package(catalog, pkg)?;
    match target {
        Target::Package => Ok(()),
        Target::Channel(c) => channel_id(catalog, pkg, c).map(|_| ()),
        Target::Bundle(b) if p.bundle(b).is_some() => Ok(()),
        Target::Bundle(b) => err(format!("package {pkg:?} has no bundle {b:?}")),
    }
}

fn matches_target(schema_name: &str, name: &str, target: &Target) -> bool {
    match target {
        Target::Package => schema_name == schema::PACKAGE,
        Target::Channel(c) => schema_name == schema::CHANNEL && name == c,
        Target::Bundle(b) => schema_name == schema::BUNDLE && name == b,
    }
}

fn deprecation_entry(target: &Target, message: &str) -> Node {
    let reference = match target {
        Target::Package => Node::map(vec![("schema", Node::string(schema::PACKAGE))]),
        Target::Channel(c) => Node::map(vec![
            ("schema", Node::string(schema::CHANNEL)),
            ("name", Node::string(c.as_str())),
        ]),
        Target::Bundle(b) => Node::map(vec![
            ("schema", Node::string(schema::BUNDLE)),
            ("name", Node::string(b.as_str())),
        ]),
    };
    Node::map(vec![
        ("reference", reference),
        ("message", Node::string(message)),
    ])
}
