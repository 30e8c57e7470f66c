//! What a catalog holds, level by level, as JSON: its packages; a package's channels with their
//! heads; a channel's entries with their versions. `fbc-edit list --output json` prints it and the
//! MCP server's `list` tool returns it.

use serde_json::{Value, json};

use crate::catalog::lifecycle::Lifecycle;
use crate::catalog::model::{Bundle, Channel, Package};
use crate::catalog::{Catalog, Keep, LoadOptions, PackageIndex};

/// How to load a catalog for a listing: packages and channels need no bundle's properties, so
/// the catalog is read in outline ([`Keep::Outline`]), which finds the same load problems; a
/// channel's entries show bundles' versions, so for them (`entries`) it is read whole.
pub fn load_options(entries: bool) -> LoadOptions {
    LoadOptions {
        keep: if entries { Keep::All } else { Keep::Outline },
        ..LoadOptions::default()
    }
}

/// A package or channel asked for that the catalog does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("no package {name:?} in the catalog (packages: {known})")]
    NoPackage { name: String, known: String },
    #[error("package {package:?} has no channel {channel:?}")]
    NoChannel { package: String, channel: String },
    /// The channel's document cannot be read as a channel (`at`: its file and line).
    #[error("{at}: {why}")]
    Unreadable { at: String, why: String },
}

fn package_info<'a>(catalog: &'a Catalog, p: &PackageIndex) -> Option<Package<'a>> {
    p.packages
        .first()
        .and_then(|&b| Package::read(&catalog.blob(b).value).ok())
}

/// Every package: name, default channel, how many channels and bundles.
pub fn packages(catalog: &Catalog) -> Value {
    let list: Vec<Value> = catalog
        .index()
        .packages()
        .map(|p| {
            let default = package_info(catalog, p).map(|pk| pk.default_channel.to_string());
            json!({
                "name": p.name,
                "defaultChannel": default.unwrap_or_default(),
                "channels": p.channels.len(),
                "bundles": p.bundles.len(),
            })
        })
        .collect();
    json!({ "packages": list })
}

fn find_package<'a>(catalog: &'a Catalog, name: &str) -> Result<&'a PackageIndex, ListError> {
    catalog.index().package(name).ok_or_else(|| {
        let names = catalog.index().package_names();
        ListError::NoPackage {
            name: name.to_string(),
            known: if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            },
        }
    })
}

/// A package's channels by name: whether each is the default, its head (or heads) and size; and
/// the package's OpenShift lifecycle.
pub fn channels(catalog: &Catalog, package: &str) -> Result<Value, ListError> {
    let p = find_package(catalog, package)?;
    let default = package_info(catalog, p).map(|pk| pk.default_channel.to_string());
    let mut list: Vec<Value> = p
        .channels
        .iter()
        .filter_map(|&b| Channel::read(&catalog.blob(b).value).ok())
        .map(|ch| {
            let heads = super::heads(&ch.entries);
            json!({
                "name": ch.name,
                "default": default.as_deref() == Some(ch.name),
                "head": if heads.len() == 1 { Value::from(heads[0]) } else { Value::Null },
                "heads": heads,
                "entries": ch.entries.len(),
            })
        })
        .collect();
    list.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Ok(json!({
        "package": package,
        "defaultChannel": default.unwrap_or_default(),
        "channels": list,
        "lifecycle": lifecycle(catalog, p),
    }))
}

/// The package's OpenShift lifecycle (the first blob, as the console would read a single one):
/// each version with its phases and the platforms it runs on; `[]` without one.
fn lifecycle(catalog: &Catalog, p: &PackageIndex) -> Value {
    let all = Lifecycle::of_package(catalog, p);
    let Some((_, lc)) = all.first() else {
        return json!([]);
    };
    lc.versions
        .iter()
        .map(|v| {
            json!({
                "name": v.name,
                "phases": v.phases.iter().map(|ph| json!({
                    "name": ph.name,
                    "startDate": ph.start,
                    "endDate": ph.end,
                })).collect::<Vec<_>>(),
                "platformCompatibility": v.platforms.iter().map(|pl| json!({
                    "name": pl.name,
                    "versions": pl.versions,
                })).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// A channel's entries in file order: version, release, replaces, skips and skipRange of each.
pub fn entries(catalog: &Catalog, package: &str, channel: &str) -> Result<Value, ListError> {
    let p = find_package(catalog, package)?;
    let ch_blob = p.channel(channel).ok_or_else(|| ListError::NoChannel {
        package: package.to_string(),
        channel: channel.to_string(),
    })?;
    let ch = Channel::read(&catalog.blob(ch_blob).value).map_err(|e| ListError::Unreadable {
        at: catalog.location(ch_blob).to_string(),
        why: e.to_string(),
    })?;
    let list: Vec<Value> = ch
        .entries
        .iter()
        .map(|e| {
            let pp = p
                .bundle(e.name)
                .and_then(|b| Bundle::read(&catalog.blob(b).value).ok())
                .and_then(|b| b.package_property());
            json!({
                "name": e.name,
                "version": pp.as_ref().map(|pp| pp.version),
                "release": pp.as_ref().and_then(|pp| pp.release),
                "replaces": e.replaces,
                "skips": e.skips,
                "skipRange": e.skip_range,
            })
        })
        .collect();
    Ok(json!({
        "package": package,
        "channel": channel,
        "heads": super::heads(&ch.entries),
        "entries": list,
    }))
}
