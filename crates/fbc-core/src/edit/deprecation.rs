//! Deprecating and undeprecating a package, a channel or a bundle in the package's
//! `olm.deprecations` (created beside the package's file for its first deprecation).

use crate::catalog::model::Deprecations;
use crate::catalog::node::Node;
use crate::catalog::{BlobId, Catalog, schema};

use super::support::{Change, channel_id, package};
use super::{EditError, Target};

pub(super) fn deprecate<'e>(
    catalog: &Catalog,
    pkg: &'e str,
    target: &'e Target,
    message: &'e str,
) -> Result<Change<'e>, EditError> {
    check_target(catalog, pkg, target)?;
    if message.trim().is_empty() {
        return Err(EditError::EmptyMessage);
    }
    let Some(did) = package(catalog, pkg)?.deprecations.first().copied() else {
        return Ok(Box::new(move |catalog, rec| {
            let blob = Node::map(vec![
                ("schema", Node::string(schema::DEPRECATIONS)),
                ("package", Node::string(pkg)),
                (
                    "entries",
                    Node::seq(vec![deprecation_entry(target, message)]),
                ),
            ]);
            let id = add_deprecations(catalog, pkg, blob)?;
            rec.added(catalog, id);
            Ok(())
        }));
    };
    let dep = read_deprecations(catalog, did)?;
    if dep
        .entries
        .iter()
        .any(|e| matches_target(e.schema, e.name, target))
    {
        return Err(EditError::AlreadyDeprecated {
            what: what(pkg, target),
        });
    }
    Ok(Box::new(move |catalog, rec| {
        let entry = deprecation_entry(target, message);
        rec.touch(catalog, did);
        catalog.edit(did, |d| {
            match d.get_field_mut("entries").and_then(Node::as_seq_mut) {
                Some(list) => list.push(entry),
                None => d.set_field("entries", Node::seq(vec![entry])),
            }
        });
        Ok(())
    }))
}

pub(super) fn undeprecate<'e>(
    catalog: &Catalog,
    pkg: &'e str,
    target: &'e Target,
) -> Result<Change<'e>, EditError> {
    let not_deprecated = || EditError::NotDeprecated {
        what: what(pkg, target),
    };
    let did = package(catalog, pkg)?
        .deprecations
        .first()
        .copied()
        .ok_or_else(not_deprecated)?;
    let dep = read_deprecations(catalog, did)?;
    let i = dep
        .entries
        .iter()
        .position(|e| matches_target(e.schema, e.name, target))
        .ok_or_else(not_deprecated)?;
    let last = dep.entries.len() == 1;
    Ok(Box::new(move |catalog, rec| {
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
        Ok(())
    }))
}

pub(super) fn read_deprecations(
    catalog: &Catalog,
    id: BlobId,
) -> Result<Deprecations<'_>, EditError> {
    Deprecations::read(&catalog.blob(id).value).map_err(|e| EditError::Unreadable {
        what: "the olm.deprecations object",
        why: e.to_string(),
    })
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
    let meta =
        crate::catalog::decode::meta(&blob, &rel).map_err(crate::catalog::AddError::Unreadable)?;
    let file = match catalog.files.iter().position(|f| f.path == rel) {
        Some(f) => f,
        None => {
            if catalog.on_disk(&rel) {
                return Err(EditError::FileOutsideCatalog { file: rel });
            }
            catalog.create_file(&rel, format)?
        }
    };
    Ok(catalog.add_blob_to(file, blob, meta))
}

/// What a deprecation is about, in words ("channel stable of foo").
pub(super) fn what(pkg: &str, target: &Target) -> String {
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
        Target::Bundle(b) => Err(EditError::NoBundle {
            package: pkg.to_string(),
            bundle: b.clone(),
        }),
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
