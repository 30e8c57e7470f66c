//! O(1) lookups over a catalog: package → its blobs, (package, name) → channel or bundle, and which
//! channels list a bundle.

use std::collections::HashMap;

use super::{BlobId, BlobState, Catalog, schema};

/// Everything that belongs to one package, in file order.
#[derive(Debug, Default, Clone)]
pub struct PackageIndex {
    pub name: String,
    /// `olm.package` blobs (more than one is a validation error).
    pub packages: Vec<BlobId>,
    pub channels: Vec<BlobId>,
    pub bundles: Vec<BlobId>,
    pub deprecations: Vec<BlobId>,
    /// Blobs of other schemas that name this package.
    pub others: Vec<BlobId>,
    channel_by_name: HashMap<String, BlobId>,
    bundle_by_name: HashMap<String, BlobId>,
    /// Entry name → channels that list it.
    listed_in: HashMap<String, Vec<BlobId>>,
}

impl PackageIndex {
    /// The channel blob with this name (the first one when duplicated).
    pub fn channel(&self, name: &str) -> Option<BlobId> {
        self.channel_by_name.get(name).copied()
    }

    /// The bundle blob with this name (the first one when duplicated).
    pub fn bundle(&self, name: &str) -> Option<BlobId> {
        self.bundle_by_name.get(name).copied()
    }

    /// The channels whose entries list `entry`.
    pub fn channels_listing(&self, entry: &str) -> &[BlobId] {
        self.listed_in.get(entry).map_or(&[], Vec::as_slice)
    }
}

#[derive(Debug, Default, Clone)]
pub struct Index {
    packages: HashMap<String, PackageIndex>,
    /// Package names, sorted.
    names: Vec<String>,
    /// Blobs with no package (unknown schemas at the root, or missing `package`).
    pub unowned: Vec<BlobId>,
}

impl Index {
    pub fn build(catalog: &Catalog) -> Index {
        let mut idx = Index::default();
        for (id, blob) in catalog.blobs.iter().enumerate() {
            if blob.state == BlobState::Removed {
                continue;
            }
            let m = &blob.meta;
            let pkg = if m.schema == schema::PACKAGE {
                &m.name
            } else {
                &m.package
            };
            if pkg.is_empty() {
                idx.unowned.push(id);
                continue;
            }
            let p = idx
                .packages
                .entry(pkg.clone())
                .or_insert_with(|| PackageIndex {
                    name: pkg.clone(),
                    ..Default::default()
                });
            match m.schema.as_str() {
                schema::PACKAGE => p.packages.push(id),
                schema::CHANNEL => {
                    p.channels.push(id);
                    p.channel_by_name.entry(m.name.clone()).or_insert(id);
                    // Entry names are read leniently: a channel with a badly typed field elsewhere
                    // still lists its entries.
                    let entries = blob.value.get_field("entries").and_then(|n| n.as_seq());
                    for e in entries.unwrap_or_default() {
                        let Some(name) = e.get_field("name").and_then(|n| n.as_str()) else {
                            continue;
                        };
                        let list = p.listed_in.entry(name.to_string()).or_default();
                        if list.last() != Some(&id) {
                            list.push(id);
                        }
                    }
                }
                schema::BUNDLE => {
                    p.bundles.push(id);
                    p.bundle_by_name.entry(m.name.clone()).or_insert(id);
                }
                schema::DEPRECATIONS => p.deprecations.push(id),
                _ => p.others.push(id),
            }
        }
        idx.names = idx.packages.keys().cloned().collect();
        idx.names.sort();
        idx
    }

    /// Package names in byte order.
    pub fn package_names(&self) -> &[String] {
        &self.names
    }

    pub fn package(&self, name: &str) -> Option<&PackageIndex> {
        self.packages.get(name)
    }

    /// Packages in name order.
    pub fn packages(&self) -> impl Iterator<Item = &PackageIndex> {
        self.names.iter().filter_map(|n| self.packages.get(n))
    }

    /// The bundle blob `name` of `package`.
    pub fn bundle(&self, package: &str, name: &str) -> Option<BlobId> {
        self.packages.get(package)?.bundle(name)
    }

    /// The channel blob `name` of `package`.
    pub fn channel(&self, package: &str, name: &str) -> Option<BlobId> {
        self.packages.get(package)?.channel(name)
    }
}
