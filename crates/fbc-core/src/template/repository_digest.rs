//! Digest references of the pipelines' repositories proven against the directories they are
//! built from, and the lookups over an operator's directories that proving needs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError};

use serde_json::Value;

use super::*;

impl RepositoryBundles {
    /// A digest reference answered from the directory it is proven to be built from; `None` (and
    /// the reason kept) when it is not proven.
    pub(super) fn render_digest(&self, image: &str) -> Option<Result<Value, RepositoryError>> {
        let op = RepositoryBundles::digest_names(image)?;
        self.proof(image, op).map(|v| Ok(Value::clone(&v)))
    }

    /// [`RepositoryBundles::render_digest`]'s answer, proven on the first time it is asked for.
    pub(super) fn proof(&self, image: &str, op: &str) -> Option<Arc<Value>> {
        let known = self
            .proofs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(image)
            .cloned();
        if let Some(answer) = known {
            return answer;
        }
        let answer = self.prove_digest(image, op).map(Arc::new);
        self.proofs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(image.to_string(), answer.clone());
        answer
    }

    /// The bundle of the directory the digest reference `image` of operator `op` is proven to be
    /// built from; `None` (and the reason kept) when it is not proven.
    fn prove_digest(&self, image: &str, op: &str) -> Option<Value> {
        let mut held = self.committed.get(image).cloned().unwrap_or_default();
        for c in &self.catalogs {
            // A bundle the catalog cannot give (unreadable, ambiguous) proves nothing.
            if let Some(Ok(bundle)) = c.bundle_for_image(image)
                && !held.iter().any(|h| h.bundle == bundle)
            {
                held.push(Committed {
                    catalog: c.dir().display().to_string(),
                    bundle,
                });
            }
        }
        if held.is_empty() {
            return None;
        }
        match self.prove(image, op, &held) {
            Ok(v) => Some(v),
            Err(Unproven::Because(why)) => {
                self.unproven
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(image.to_string(), why);
                None
            }
        }
    }

    fn prove(&self, image: &str, op: &str, held: &[Committed]) -> Result<Value, Unproven> {
        // Every committed form names one bundle version.
        let mut versions: BTreeSet<&str> = BTreeSet::new();
        for c in held {
            versions.insert(package_version(&c.bundle).ok_or_else(|| {
                Unproven::Because(format!(
                    "the bundle catalog {} holds for it has no olm.package version",
                    c.catalog
                ))
            })?);
        }
        let version = match versions.len() {
            1 => versions.into_iter().next().unwrap_or_default(),
            _ => {
                return Err(Unproven::Because(format!(
                    "the committed catalogs hold it as versions {}",
                    versions.into_iter().collect::<Vec<_>>().join(", ")
                )));
            }
        };
        let dir = match plain_name(version)
            .ok()
            .map(|v| self.version_dir(op, v))
            .transpose()
            .map_err(|e| Unproven::Because(e.to_string()))?
            .flatten()
        {
            Some(d) => d,
            None => self.dir_holding(op, version)?,
        };
        // A directory that cannot be rendered (or read as the image would be) is not shown to be
        // the image opm rendered: the committed catalogs answer, as they would without it.
        let r = self
            .render_cached(image, &dir)
            .map_err(|e| Unproven::Because(e.to_string()))?;
        for c in held {
            let migrated = has_property(&c.bundle, CSV_METADATA);
            let migration;
            let ours = if migrated {
                let mut v = r.value.clone();
                crate::bundle::migrate_bundle_objects_with(&mut v, Some(self.cache.migrations()))
                    .map_err(|e| {
                    Unproven::Because(format!(
                        "bundle directory {} cannot be migrated to olm.csv.metadata: {e}",
                        dir.display()
                    ))
                })?;
                migration = v;
                &migration
            } else {
                &r.value
            };
            // The directory's render leaves related images unsorted; the committed bundle has them
            // as the opm that wrote it sorted them, with whichever Go release built it.
            // The newest release first: most committed bundles are its, and then one copy is made.
            let mut differs = None;
            for go in GoRelease::ALL.into_iter().rev() {
                let mut sorted = ours.clone();
                crate::bundle::sort_related_images(&mut sorted, go);
                match first_difference(&sorted, &c.bundle, String::new()) {
                    None => {
                        differs = None;
                        break;
                    }
                    Some(at) => {
                        differs.get_or_insert(at);
                    }
                }
            }
            if let Some(at) = differs {
                return Err(Unproven::Because(format!(
                    "bundle directory {} renders{} unlike the bundle catalog {} holds for it, at {at}",
                    dir.display(),
                    if migrated {
                        ", migrated to olm.csv.metadata,"
                    } else {
                        ""
                    },
                    c.catalog
                )));
            }
        }
        Ok(r.value.clone())
    }

    /// The one version directory of `op` whose CSV holds `version`.
    fn dir_holding(&self, op: &str, version: &str) -> Result<PathBuf, Unproven> {
        let op_dir = self.root.join("operators").join(op);
        let entries = self
            .siblings(&op_dir)
            .map_err(|e| Unproven::Because(e.to_string()))?;
        let mut found = Vec::new();
        for (name, is_dir) in entries {
            if !is_dir || plain_name(&name).is_err() {
                continue;
            }
            let Ok(Some(dir)) = self.version_dir(op, &name) else {
                continue;
            };
            if !dir.join("manifests").is_dir() {
                continue;
            }
            if RegistryBundle::read_for_render(&dir)
                .version()
                .ok()
                .as_deref()
                == Some(version)
            {
                found.push(dir);
            }
        }
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(Unproven::Because(format!(
                "the committed catalogs hold it as version {version}, and no directory of operators/{op}/ holds that version"
            ))),
            n => Err(Unproven::Because(format!(
                "the committed catalogs hold it as version {version}, which {n} directories of operators/{op}/ hold"
            ))),
        }
    }

    /// The packages the bundle directories of `op` other than `except` declare in
    /// `metadata/annotations.yaml` (those that can be read). Each directory's is read once, so
    /// what is found does not depend on which directory was asked about first.
    pub(super) fn packages_of(
        &self,
        op: &str,
        except: &Path,
    ) -> Result<BTreeSet<String>, RepositoryError> {
        let mut known = self.packages.lock().unwrap_or_else(PoisonError::into_inner);
        if !known.contains_key(op) {
            let op_dir = self.root.join("operators").join(op);
            let mut found = Vec::new();
            for (name, is_dir) in self.siblings(&op_dir)? {
                let dir = op_dir.join(&name);
                if !is_dir {
                    continue;
                }
                let file = dir.join("metadata").join("annotations.yaml");
                let Ok(read) = typed::read::<AnnotationsFile>(&self.root, &file) else {
                    continue;
                };
                if let Some(serde_yaml::Value::String(p)) = read.value.annotations.get(PACKAGE_KEY)
                {
                    found.push((dir, p.clone()));
                }
            }
            known.insert(op.to_string(), found);
        }
        Ok(known[op]
            .iter()
            .filter(|(dir, _)| dir != except)
            .map(|(_, p)| p.clone())
            .collect())
    }

    /// The entries of an operator's directory by name, each with whether it is a directory (a
    /// link only when it leads to one inside the repository): none when it cannot be listed, an
    /// error when it holds more than `max_siblings` entries.
    fn siblings(&self, op_dir: &Path) -> Result<Vec<(String, bool)>, RepositoryError> {
        let Ok(within) = Within::new(&self.root) else {
            return Ok(Vec::new());
        };
        match crate::bundle::read_dir_sorted(op_dir, &within, self.max_siblings) {
            Ok(entries) => Ok(entries),
            Err(ListError::TooMany { max }) => Err(RepositoryError::TooMany {
                dir: op_dir.to_path_buf(),
                max,
            }),
            Err(ListError::Io(_)) => Ok(Vec::new()),
        }
    }
}
