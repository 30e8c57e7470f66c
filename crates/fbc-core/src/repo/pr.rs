//! The pull-request rules of operator-pipelines (its `parsed_file.py`), for the changes from a git
//! revision to `HEAD`: a changed file belongs to a bundle (`operators/<op>/<version>/` holding
//! `manifests/` and `metadata/`), to an operator (`operators/<op>/` with a `ci.yaml` or a bundle),
//! to an operator's catalog (`catalogs/<name>/<op>/` holding `catalog.yaml`, `.yml` or `.json`), at
//! either revision, or to none. The trees of both revisions are listed with `git ls-tree`, and
//! every output of `git` is read within a budget.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::de::IgnoredAny;

use super::RepoError;
use crate::catalog::codes::repo as c;
use crate::catalog::node::Kind;
use crate::catalog::yaml::typed;
use crate::catalog::{Diagnostic, Location};
use crate::guard::git::{Git, revision};

/// The most bytes read from one `git` command: a tree listing of a large repository is a few
/// megabytes.
pub const MAX_GIT_OUTPUT: u64 = 256 << 20;

/// The files of a revision, grouped the way the pipeline groups them.
#[derive(Debug, Default)]
struct Tree {
    files: BTreeSet<String>,
    /// `operators/<op>/<version>` with files under both `manifests/` and `metadata/`.
    bundles: BTreeSet<(String, String)>,
    operators: BTreeSet<String>,
    /// `(catalog, op)` with a catalog file.
    catalog_operators: BTreeSet<(String, String)>,
}

impl Tree {
    fn read(files: Vec<String>) -> Tree {
        let mut t = Tree::default();
        let mut manifests = BTreeSet::new();
        let mut metadata = BTreeSet::new();
        for f in &files {
            let parts: Vec<&str> = f.split('/').collect();
            match parts.as_slice() {
                ["operators", op, "ci.yaml"] => {
                    t.operators.insert(op.to_string());
                }
                ["operators", op, ver, "manifests", _, ..] => {
                    manifests.insert((op.to_string(), ver.to_string()));
                }
                ["operators", op, ver, "metadata", _, ..] => {
                    metadata.insert((op.to_string(), ver.to_string()));
                }
                [
                    "catalogs",
                    catalog,
                    op,
                    "catalog.yaml" | "catalog.yml" | "catalog.json",
                ] => {
                    t.catalog_operators
                        .insert((catalog.to_string(), op.to_string()));
                }
                _ => {}
            }
        }
        t.bundles = manifests.intersection(&metadata).cloned().collect();
        t.operators
            .extend(t.bundles.iter().map(|(op, _)| op.clone()));
        t.files = files.into_iter().collect();
        t
    }
}

/// What a changed file belongs to.
enum Owner {
    Bundle(String, String),
    Operator(String),
    Catalog(String, String),
    None,
}

fn owner(file: &str, head: &Tree, base: &Tree) -> Owner {
    let parts: Vec<&str> = file.split('/').collect();
    if parts.len() >= 3 && parts[0] == "operators" {
        let (op, ver) = (parts[1].to_string(), parts[2].to_string());
        let is_operator = head.operators.contains(&op) || base.operators.contains(&op);
        let key = (op.clone(), ver.clone());
        if is_operator && (head.bundles.contains(&key) || base.bundles.contains(&key)) {
            return Owner::Bundle(op, ver);
        }
        if is_operator {
            return Owner::Operator(op);
        }
    }
    if parts.len() >= 3 && parts[0] == "catalogs" {
        let key = (parts[1].to_string(), parts[2].to_string());
        if head.catalog_operators.contains(&key) || base.catalog_operators.contains(&key) {
            return Owner::Catalog(key.0, key.1);
        }
    }
    Owner::None
}

/// Runs `git` in `root` (hardened: see [`crate::guard::git`]) and returns its output, at most
/// `max` bytes of it.
fn git_within(root: &Path, args: &[&str], max: u64) -> Result<Vec<u8>, RepoError> {
    Git::new(root)
        .output(args, max)
        .map_err(|e| RepoError::Git(e.to_string()))
}

/// [`git_within`] with the budget of a listing, [`MAX_GIT_OUTPUT`].
fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, RepoError> {
    git_within(root, args, MAX_GIT_OUTPUT)
}

/// NUL-separated paths.
fn paths(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

fn tree(root: &Path, rev: &str) -> Result<Tree, RepoError> {
    let listing = git(
        root,
        &[
            "ls-tree",
            "-r",
            "--name-only",
            "-z",
            "--end-of-options",
            rev,
            "--",
            ".",
        ],
    )?;
    Ok(Tree::read(paths(&listing)))
}

/// The pull-request rules for the changes from `base` to `HEAD` in the repository at `root`, each
/// problem with the operator it is about (`None`: the change as a whole).
pub fn check(root: &Path, base: &str) -> Result<Vec<(Option<String>, Diagnostic)>, RepoError> {
    let base = revision(base).map_err(|e| RepoError::Git(e.to_string()))?;
    let base_rev = format!("{base}^{{commit}}");
    git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &base_rev,
        ],
    )
    .map_err(|_| RepoError::Git(format!("{base:?} is not a revision of {}", root.display())))?;
    let changed = paths(&git(
        root,
        &[
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            "--relative",
            "--no-ext-diff",
            "--no-textconv",
            "--end-of-options",
            base,
            "HEAD",
            "--",
        ],
    )?);
    let head = tree(root, "HEAD")?;
    let old = tree(root, base)?;
    let mut bundles: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut operators: BTreeSet<String> = BTreeSet::new();
    let mut catalog_operators: BTreeSet<(String, String)> = BTreeSet::new();
    let mut extra: Vec<String> = Vec::new();
    for f in &changed {
        match owner(f, &head, &old) {
            Owner::Bundle(op, ver) => {
                operators.insert(op.clone());
                bundles.entry(op).or_default().insert(ver);
            }
            Owner::Operator(op) => {
                operators.insert(op);
            }
            Owner::Catalog(catalog, op) => {
                catalog_operators.insert((catalog, op));
            }
            Owner::None => extra.push(f.clone()),
        }
    }
    let (mut added, mut modified, mut deleted) = (Vec::new(), Vec::new(), Vec::new());
    for (op, versions) in &bundles {
        for ver in versions {
            let key = (op.clone(), ver.clone());
            match (head.bundles.contains(&key), old.bundles.contains(&key)) {
                (true, false) => added.push(key),
                (true, true) => modified.push(key),
                (false, true) => deleted.push(key),
                (false, false) => {}
            }
        }
    }
    let shown = |list: &[(String, String)]| {
        list.iter()
            .map(|(o, v)| format!("{o}/{v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let at_bundle =
        |(op, ver): &(String, String)| Location::new(format!("operators/{op}/{ver}"), 0, 0);
    let only_operator = (operators.len() == 1)
        .then(|| operators.iter().next().cloned())
        .flatten();
    let mut out: Vec<(Option<String>, Diagnostic)> = Vec::new();
    if !extra.is_empty() {
        let mut sorted = extra.clone();
        sorted.sort();
        out.push((
            None,
            Diagnostic::error(
                c::PR_EXTRA_FILES,
                Location::new(&sorted[0], 0, 0),
                format!(
                    "the change affects non-operator files: {}",
                    sorted.join(", ")
                ),
            ),
        ));
    }
    let any_bundle = !(added.is_empty() && modified.is_empty() && deleted.is_empty());
    if operators.len() > 1 && any_bundle {
        out.push((
            None,
            Diagnostic::error(
                c::PR_SEVERAL_OPERATORS,
                Location::new("operators", 0, 0),
                format!(
                    "the change affects more than one operator: {}",
                    operators.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            ),
        ));
    }
    for b in &modified {
        out.push((
            Some(b.0.clone()),
            Diagnostic::error(
                c::PR_MODIFIED_BUNDLE,
                at_bundle(b),
                format!("the change modifies an existing bundle: {}/{}", b.0, b.1),
            ),
        ));
    }
    if added.len() > 1 {
        out.push((
            only_operator.clone(),
            Diagnostic::error(
                c::PR_SEVERAL_BUNDLES,
                at_bundle(&added[1]),
                format!("the change adds more than one bundle: {}", shown(&added)),
            ),
        ));
    }
    if !added.is_empty() && !deleted.is_empty() {
        out.push((
            only_operator.clone(),
            Diagnostic::error(
                c::PR_ADD_AND_DELETE,
                at_bundle(&deleted[0]),
                format!(
                    "the change adds ({}) and deletes ({}) bundles at once: split it into two pull requests",
                    shown(&added),
                    shown(&deleted)
                ),
            ),
        ));
    }
    let added_or_modified: Vec<(String, String)> = added.iter().chain(&modified).cloned().collect();
    if !added_or_modified.is_empty() && !catalog_operators.is_empty() {
        let catalogs: Vec<String> = catalog_operators
            .iter()
            .map(|(c, o)| format!("{c}/{o}"))
            .collect();
        out.push((
            Some(added_or_modified[0].0.clone()),
            Diagnostic::error(
                c::PR_BUNDLE_AND_CATALOG,
                at_bundle(&added_or_modified[0]),
                format!(
                    "the change affects a bundle ({}) and catalogs ({}) at the same time: split operator and catalog changes into two pull requests",
                    shown(&added_or_modified),
                    catalogs.join(", ")
                ),
            ),
        ));
    }
    deleted_bundles(root, base, &old, &deleted, &mut out)?;
    Ok(out)
}

/// A deleted bundle needs `fbc.enabled` (at the base revision) and no catalog that still names its
/// ClusterServiceVersion.
fn deleted_bundles(
    root: &Path,
    base: &str,
    old: &Tree,
    deleted: &[(String, String)],
    out: &mut Vec<(Option<String>, Diagnostic)>,
) -> Result<(), RepoError> {
    // A file's content at the base, within the `yaml-file` budget (`None`: not there, or larger).
    // `cat-file`, not `show`: `show` would run a `textconv` program the repository names.
    let limit = crate::guard::limits::current().get(crate::guard::limits::Limit::YamlFile);
    let show = |rel: &str| {
        git_within(
            root,
            &[
                "cat-file",
                "blob",
                "--end-of-options",
                &format!("{base}:./{rel}"),
            ],
            limit,
        )
        .ok()
    };
    let operators: BTreeSet<&String> = deleted.iter().map(|(op, _)| op).collect();
    for op in operators {
        let ci = format!("operators/{op}/ci.yaml");
        let enabled = old.files.contains(&ci)
            && show(&ci).and_then(|bytes| {
                let text = String::from_utf8(bytes).ok()?;
                let t = typed::parse::<IgnoredAny>(&text, &ci).ok()?;
                let e = t.tree.get("fbc")?.get("enabled")?;
                Some(matches!(e.kind, Kind::Bool(true)))
            }) == Some(true);
        if !enabled {
            out.push((
                Some(op.clone()),
                Diagnostic::error(
                    c::PR_DELETE_WITHOUT_FBC,
                    Location::new(format!("operators/{op}"), 0, 0),
                    format!(
                        "the change deletes bundles of operator {op}, which is allowed only with fbc.enabled"
                    ),
                ),
            ));
        }
    }
    for (op, ver) in deleted {
        let prefix = format!("operators/{op}/{ver}/manifests/");
        let Some(csv_file) = old.files.iter().find(|f| {
            f.strip_prefix(&prefix).is_some_and(|rest| {
                !rest.contains('/')
                    && (rest.ends_with(".clusterserviceversion.yaml")
                        || rest.ends_with(".clusterserviceversion.yml"))
            })
        }) else {
            continue;
        };
        let Some(bytes) = show(csv_file) else {
            continue;
        };
        let Some(csv) = String::from_utf8(bytes).ok().and_then(|text| {
            let t = typed::parse::<IgnoredAny>(&text, csv_file).ok()?;
            Some(t.tree.get("metadata")?.get("name")?.as_str()?.to_string())
        }) else {
            continue;
        };
        // A catalogs/ over its bound is reported by the repository's check, which lists it first.
        let catalogs = super::check::subdirectories(&root.join("catalogs")).unwrap_or_default();
        for catalog in catalogs {
            let dir = root.join("catalogs").join(&catalog).join(op);
            if !dir.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                continue;
            }
            let Ok(loaded) = crate::catalog::load(&dir) else {
                continue;
            };
            let named = loaded.index().packages().any(|p| {
                p.bundles.iter().any(|id| {
                    loaded.blob(*id).value.get("name").and_then(|n| n.as_str()) == Some(&csv)
                })
            });
            if named {
                out.push((
                    Some(op.clone()),
                    Diagnostic::error(
                        c::PR_DELETED_BUNDLE_IN_USE,
                        Location::new(format!("operators/{op}/{ver}"), 0, 0),
                        format!(
                            "the change deletes bundle {op}/{ver} ({csv}), which catalog {catalog} still names"
                        ),
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_grouped_as_the_pipeline_groups_them() {
        let t = Tree::read(
            [
                "operators/a/ci.yaml",
                "operators/a/1.0.0/manifests/a.clusterserviceversion.yaml",
                "operators/a/1.0.0/metadata/annotations.yaml",
                "operators/a/2.0.0/manifests/x.yaml",
                "operators/b/0.1/manifests/x.yaml",
                "operators/b/0.1/metadata/annotations.yaml",
                "catalogs/v4.18/a/catalog.yaml",
                "catalogs/v4.18/c/other.yaml",
            ]
            .map(String::from)
            .to_vec(),
        );
        assert_eq!(
            t.bundles.iter().cloned().collect::<Vec<_>>(),
            [("a".into(), "1.0.0".into()), ("b".into(), "0.1".into())]
        );
        assert_eq!(t.operators.len(), 2);
        assert_eq!(t.catalog_operators.len(), 1);
        let base = Tree::default();
        assert!(matches!(
            owner("operators/a/2.0.0/x", &t, &base),
            Owner::Operator(_)
        ));
        assert!(matches!(
            owner("operators/a/1.0.0/x", &t, &base),
            Owner::Bundle(..)
        ));
        assert!(matches!(
            owner("catalogs/v4.18/c/other.yaml", &t, &base),
            Owner::None
        ));
        assert!(matches!(owner("README.md", &t, &base), Owner::None));
    }
}
