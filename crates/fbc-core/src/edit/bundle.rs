//! Adding a bundle rendered from a bundle directory: into its package's files (a new package when
//! needed, a file of its own when the package keeps one bundle per file), then promoted into a channel
//! or as the only entry of a new one.

use crate::catalog::model::Bundle;
use crate::catalog::node::Node;
use crate::catalog::version_release::VersionRelease;
use crate::catalog::{BlobId, BlobState, Catalog, schema};

use super::EditError;
use super::channel::{Incoming, add_channel, check_skip_range, promote};
use super::support::{Change, Links, Recorder, channel_id, entry_node, json_str, package};

/// Adds the rendered `bundle` and places it in `channel`. On an error nothing has changed.
pub(super) fn add_bundle_edit<'e>(
    catalog: &Catalog,
    bundle: &'e serde_json::Value,
    channel: &'e str,
    links: Links<'e>,
) -> Result<Change<'e>, EditError> {
    let pkg = json_str(bundle, "package");
    let name = json_str(bundle, "name");
    if pkg.is_empty() {
        return Err(EditError::BundleWithoutPackage);
    }
    if name.is_empty() {
        return Err(EditError::BundleWithoutName);
    }
    if channel.trim().is_empty() {
        return Err(EditError::ChannelNeedsName);
    }
    if catalog.index().bundle(pkg, name).is_some() {
        return Err(EditError::BundleExists {
            package: pkg.to_string(),
            bundle: name.to_string(),
        });
    }
    let new_package = package(catalog, pkg).is_err();
    let new_channel = new_package || channel_id(catalog, pkg, channel).is_err();
    if new_channel {
        check_skip_range(links.skip_range)?;
    } else {
        // What promoting it will check, with the version it is about to bring.
        let (v, r) = version_in(bundle);
        let version = VersionRelease::parse(&v, &r).ok();
        promote(
            catalog,
            pkg,
            name,
            channel,
            links,
            Incoming::Rendered(version.as_ref()),
        )
        .map(drop)?;
    }
    Ok(Box::new(move |catalog, rec| {
        let start = rec.blobs.len();
        let result = add_bundle(
            catalog,
            rec,
            pkg,
            name,
            bundle,
            new_package.then_some(channel),
        )
        .and_then(|()| {
            if new_channel {
                add_channel(catalog, rec, pkg, channel, entry_node(name, links))
            } else {
                promote(catalog, pkg, name, channel, links, Incoming::InCatalog)
                    .and_then(|change| change(catalog, rec))
            }
        });
        if let Err(e) = result {
            // Take back what was added (a refused promote leaves no bundle behind).
            let undo = super::Undo {
                blobs: rec.blobs.split_off(start),
            };
            undo.apply(catalog);
            return Err(e);
        }
        Ok(())
    }))
}

/// The version a rendered bundle's `olm.package` property gives (empty when none).
/// The version and release (empty for none) of a rendered bundle's `olm.package` property.
fn version_in(value: &serde_json::Value) -> (String, String) {
    value
        .get("properties")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .find(|p| json_str(p, "type") == crate::catalog::model::property_type::PACKAGE)
        .map(|p| {
            (
                json_str(&p["value"], "version").to_string(),
                json_str(&p["value"], "release").to_string(),
            )
        })
        .unwrap_or_default()
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
        let meta = crate::catalog::decode::meta(&blob, &rel)
            .map_err(crate::catalog::AddError::Unreadable)?;
        let id = catalog.add_blob_to(file, blob, meta);
        rec.added(catalog, id);
        let node = node_for(value, format);
        let meta = crate::catalog::decode::meta(&node, &rel)
            .map_err(crate::catalog::AddError::Unreadable)?;
        let id = catalog.add_blob_to(file, node, meta);
        rec.added(catalog, id);
        return Ok(());
    }
    let (version, _) = version_in(value);
    if let Some((rel, format)) = own_file_for(catalog, pkg, name, &version) {
        let file = new_file(catalog, &rel, format)?;
        let node = node_for(value, format);
        let meta = crate::catalog::decode::meta(&node, &rel)
            .map_err(crate::catalog::AddError::Unreadable)?;
        let id = catalog.add_blob_to(file, node, meta);
        rec.added(catalog, id);
        return Ok(());
    }
    let pid = package(catalog, pkg)?.packages[0];
    let format = catalog.blob(pid).format;
    let id = catalog.add_blob(node_for(value, format))?;
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
            let bundle = Bundle::read(&catalog.blob(b).value).ok()?;
            let v = bundle.version()?.to_string();
            Some((VersionRelease::of_bundle(&bundle)?, v, b))
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
        None => !catalog.on_disk(rel),
    }
}

/// A new file at `rel` (or the empty one an undone edit left there).
fn new_file(
    catalog: &mut Catalog,
    rel: &str,
    format: crate::catalog::Format,
) -> Result<crate::catalog::FileId, EditError> {
    if !reusable(catalog, rel) {
        return Err(EditError::FileExists {
            file: rel.to_string(),
        });
    }
    match catalog.files.iter().position(|f| f.path == rel) {
        Some(i) => Ok(i),
        None => Ok(catalog.create_file(rel, format)?),
    }
}
