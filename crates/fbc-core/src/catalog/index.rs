//! O(1) lookups over a catalog: package → its blobs, (package, name) → channel or bundle, and which
//! channels list a bundle.

use crate::guard::keyed::Map;

use super::{BlobId, BlobState, Catalog, schema};

/// Everything that belongs to one package, in file order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PackageIndex {
    pub name: String,
    /// `olm.package` blobs (more than one is a validation error).
    pub packages: Vec<BlobId>,
    pub channels: Vec<BlobId>,
    pub bundles: Vec<BlobId>,
    pub deprecations: Vec<BlobId>,
    /// Blobs of other schemas that name this package.
    pub others: Vec<BlobId>,
    channel_by_name: Map<String, BlobId>,
    bundle_by_name: Map<String, BlobId>,
    /// Entry name → channels that list it.
    listed_in: Map<String, Vec<BlobId>>,
}

/// The package a blob belongs to: its name for an `olm.package`, else its `package` field.
fn owner(blob: &super::Blob) -> &str {
    if blob.meta.schema == schema::PACKAGE {
        &blob.meta.name
    } else {
        &blob.meta.package
    }
}

impl PackageIndex {
    /// Files blob `id` under this package (blobs are added in catalog order).
    fn add(&mut self, id: BlobId, blob: &super::Blob) {
        let m = &blob.meta;
        match m.schema.as_str() {
            schema::PACKAGE => self.packages.push(id),
            schema::CHANNEL => {
                self.channels.push(id);
                self.channel_by_name.entry(m.name.clone()).or_insert(id);
                // Entry names are read leniently: a channel with a badly typed field elsewhere
                // still lists its entries.
                let entries = blob.value.get_field("entries").and_then(|n| n.as_seq());
                for e in entries.unwrap_or_default() {
                    let Some(name) = e.get_field("name").and_then(|n| n.as_str()) else {
                        continue;
                    };
                    let list = self.listed_in.entry(name.to_string()).or_default();
                    if list.last() != Some(&id) {
                        list.push(id);
                    }
                }
            }
            schema::BUNDLE => {
                self.bundles.push(id);
                self.bundle_by_name.entry(m.name.clone()).or_insert(id);
            }
            schema::DEPRECATIONS => self.deprecations.push(id),
            _ => self.others.push(id),
        }
    }

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

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Index {
    packages: Map<String, PackageIndex>,
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
            p.add(id, blob);
        }
        idx.names = idx.packages.keys().cloned().collect();
        idx.names.sort();
        idx
    }

    /// Brings the index up to date after blob `id` changed (its value, its state, or the package it
    /// belongs to; `was` is the package it belonged to before), rebuilding only the packages it was
    /// and is in, so an edit costs the size of its package, not of the catalog.
    pub fn update_blob(&mut self, catalog: &Catalog, id: BlobId, was: Option<&str>) {
        let now = catalog
            .blobs
            .get(id)
            .filter(|b| b.state != BlobState::Removed)
            .map(|b| owner(b).to_string());
        if was.is_some_and(str::is_empty) || now.as_deref().is_some_and(str::is_empty) {
            // Blobs without a package are kept apart; rare enough to index everything again.
            *self = Index::build(catalog);
            return;
        }
        for pkg in [was.map(str::to_string), now].into_iter().flatten() {
            let mut ids = self.ids_of(&pkg);
            ids.push(id);
            ids.sort_unstable();
            ids.dedup();
            self.set_package(catalog, &pkg, &ids);
        }
    }

    /// Every blob indexed under package `pkg`.
    fn ids_of(&self, pkg: &str) -> Vec<BlobId> {
        self.packages
            .get(pkg)
            .map(|p| {
                [
                    &p.packages,
                    &p.channels,
                    &p.bundles,
                    &p.deprecations,
                    &p.others,
                ]
                .into_iter()
                .flatten()
                .copied()
                .collect()
            })
            .unwrap_or_default()
    }

    /// Indexes package `pkg` afresh from `ids` (sorted; those removed or now of another package
    /// are passed over), dropping it when none is left.
    fn set_package(&mut self, catalog: &Catalog, pkg: &str, ids: &[BlobId]) {
        let mut p = PackageIndex {
            name: pkg.to_string(),
            ..Default::default()
        };
        for &b in ids {
            let blob = &catalog.blobs[b];
            if blob.state != BlobState::Removed && owner(blob) == pkg {
                p.add(b, blob);
            }
        }
        let empty = [
            &p.packages,
            &p.channels,
            &p.bundles,
            &p.deprecations,
            &p.others,
        ]
        .iter()
        .all(|v| v.is_empty());
        let known = self.packages.contains_key(pkg);
        match (empty, known) {
            (true, true) => {
                self.packages.remove(pkg);
                self.names.retain(|n| *n != pkg);
            }
            (true, false) => {}
            (false, known) => {
                if !known && let Err(at) = self.names.binary_search_by(|n| n.as_str().cmp(pkg)) {
                    self.names.insert(at, pkg.to_string());
                }
                self.packages.insert(pkg.to_string(), p);
            }
        }
    }

    /// Rebuilds the named packages from the blobs indexed under them and `blobs` (the ones that
    /// changed), as [`Index::update_blob`] does for one: for a file's blobs replaced at once.
    pub(crate) fn rebuild_packages(
        &mut self,
        catalog: &Catalog,
        packages: &[String],
        blobs: &[BlobId],
    ) {
        for pkg in packages {
            let mut ids = self.ids_of(pkg);
            ids.extend(blobs);
            ids.sort_unstable();
            ids.dedup();
            self.set_package(catalog, pkg, &ids);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Node;

    fn demo() -> Catalog {
        crate::catalog::load(
            &std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                .join("assets/demo-catalog"),
        )
        .unwrap()
    }

    /// Kept up to date blob by blob, the index is the one a full build gives: for a new package, a
    /// blob moved to another package, one moved out of every package, and removals.
    #[test]
    fn updating_one_blob_gives_the_index_a_full_build_gives() {
        let mut c = demo();
        let check = |c: &Catalog| assert_eq!(c.index(), &Index::build(c));
        let id = c
            .add_blob(Node::map(vec![
                ("schema", Node::string("olm.package")),
                ("name", Node::string("aaa-new")),
                ("defaultChannel", Node::string("stable")),
            ]))
            .unwrap();
        check(&c);
        assert_eq!(c.index().package_names()[0], "aaa-new");
        let channel = c.index().package("cache-operator").unwrap().channels[0];
        c.edit(channel, |n| {
            n.set_field("package", Node::string("backup-operator"))
        });
        check(&c);
        c.edit(channel, |n| n.set_field("package", Node::string("")));
        check(&c);
        assert!(c.index().unowned.contains(&channel));
        c.remove_blob(channel);
        check(&c);
        c.remove_blob(id);
        check(&c);
        assert!(c.index().package("aaa-new").is_none());
    }
}
