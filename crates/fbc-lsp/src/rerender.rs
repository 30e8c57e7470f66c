//! The comparison `fbc-edit repo check` makes of an operator's committed catalogs with their
//! templates rendered again: too slow for every keystroke, so it runs on the worker when the
//! operator's `ci.yaml` is opened and when one of the operator's files is saved, for that operator
//! only. Its problems are published on the lines `repo check` reports them at (`ci.yaml`, a
//! template, a committed catalog), beside each file's own. Every run gets a generation: a keystroke
//! in the operator's `ci.yaml` or `release-config.yaml`, or a newer run, makes an older run's
//! results stale, and stale results are dropped (a run not yet started is skipped).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use fbc_core::repo::check;

use crate::layout::FileKind;
use crate::state::Server;
use crate::text::Lines;
use crate::worker::Job;
use crate::{convert, uri};

/// An operator's re-render: its generation and the problems of its latest run, by absolute path.
#[derive(Default)]
pub(crate) struct OperatorRun {
    pub generation: Arc<AtomicU64>,
    pub files: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>,
}

/// The repository and operator a file belongs to, for the files whose saving re-renders it:
/// `ci.yaml`, `release-config.yaml`, a template under `catalog-templates/`, a committed catalog
/// under `catalogs/<ocp>/<operator>/`.
pub(crate) fn operator_of(path: &Path, kind: Option<&FileKind>) -> Option<(PathBuf, String)> {
    if let Some(FileKind::Ci { repo, operator } | FileKind::ReleaseConfig { repo, operator }) = kind
    {
        return Some((repo.clone(), operator.clone()));
    }
    let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let parent = path.parent()?;
    if name(parent).as_deref() == Some("catalog-templates") {
        let op_dir = parent.parent()?;
        let operators = op_dir.parent()?;
        if name(operators).as_deref() == Some("operators") {
            return Some((operators.parent()?.to_path_buf(), name(op_dir)?));
        }
    }
    // catalogs/<ocp>/<operator>/<file>
    let version = parent.parent()?;
    let catalogs = version.parent()?;
    if name(catalogs).as_deref() == Some("catalogs") {
        return Some((catalogs.parent()?.to_path_buf(), name(parent)?));
    }
    None
}

impl Server {
    /// Whether an open `ci.yaml` names the operator: only then does saving its files re-render it.
    fn ci_open(&self, repo: &Path, operator: &str) -> bool {
        self.docs.values().any(|d| {
            matches!(&d.kind, FileKind::Ci { repo: r, operator: o } if r == repo && o == operator)
        })
    }

    /// Queues a re-render of the operator, making every earlier run stale.
    pub(crate) fn rerender(&mut self, repo: &Path, operator: &str) {
        if !self.ci_open(repo, operator) {
            return;
        }
        let run = self
            .operators
            .entry((repo.to_path_buf(), operator.to_string()))
            .or_default();
        let generation = run.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let current = run.generation.clone();
        self.jobs.push(Job::Render {
            repo: repo.to_path_buf(),
            operator: operator.to_string(),
            generation,
            current,
        });
    }

    /// Makes the operator's running re-render stale (its results are dropped).
    pub(crate) fn obsolete(&mut self, repo: &Path, operator: &str) {
        if let Some(run) = self
            .operators
            .get(&(repo.to_path_buf(), operator.to_string()))
        {
            run.generation.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A file saved: its operator re-rendered, when its `ci.yaml` is open.
    pub(crate) fn saved(&mut self, path: &Path) {
        let kind = self.docs.get(path).map(|d| d.kind.clone());
        if let Some((repo, operator)) = operator_of(path, kind.as_ref()) {
            self.rerender(&repo, &operator);
        }
        self.reindex(vec![path.to_path_buf()]);
    }

    /// An operator's `ci.yaml` closed: its re-render's problems are taken back.
    pub(crate) fn forget_operator(&mut self, repo: &Path, operator: &str) {
        if let Some(run) = self
            .operators
            .remove(&(repo.to_path_buf(), operator.to_string()))
        {
            run.generation.fetch_add(1, Ordering::SeqCst);
            for path in run.files.into_keys() {
                self.republish(&path);
            }
        }
    }

    /// A re-render's problems: published unless a newer run or a keystroke made them stale.
    pub(crate) fn rendered(
        &mut self,
        repo: PathBuf,
        operator: String,
        generation: u64,
        files: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>,
    ) {
        let Some(run) = self.operators.get_mut(&(repo, operator)) else {
            return;
        };
        if run.generation.load(Ordering::SeqCst) != generation {
            return;
        }
        let old = std::mem::replace(&mut run.files, files);
        let touched: BTreeSet<PathBuf> = old.into_keys().chain(run.files.keys().cloned()).collect();
        for path in touched {
            self.republish(&path);
        }
    }

    /// The re-render problems placed in `path`.
    pub(crate) fn render_problems(&self, path: &Path) -> Vec<lsp_types::Diagnostic> {
        self.operators
            .values()
            .filter_map(|r| r.files.get(path))
            .flatten()
            .cloned()
            .collect()
    }

    /// Publishes `path`'s diagnostics again: an open document is checked again; a file of a
    /// catalog some open document belongs to gets that catalog's problems; any other file only
    /// the re-render's.
    fn republish(&mut self, path: &Path) {
        if self.docs.contains_key(path) {
            self.pending.insert(path.to_path_buf());
            return;
        }
        let mut own = Vec::new();
        for (root, r) in &self.roots {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if r.ws.catalog().file_id(&rel).is_none() {
                continue;
            }
            let mut conv = convert::Files::new(root, &r.ws);
            own = crate::state::file_diagnostics(r, &rel)
                .iter()
                .map(|d| conv.diagnostic(d))
                .collect();
            break;
        }
        self.publish(uri::from_path(path), None, own);
    }
}

/// Re-renders the operator's catalogs as `repo check` does and returns the problems only that
/// finds (those of the files themselves are published as they are typed), placed in each file's
/// text as it is on disk.
pub(crate) fn render(repo: &Path, operator: &str) -> BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> {
    // A catalogs/ over its bound lists none here; `repo check` reports it.
    let catalogs = check::subdirectories(&repo.join("catalogs")).unwrap_or_default();
    let full = check::operator(repo, operator, &catalogs);
    let plain = check::operator_files(repo, operator, &catalogs, &check::Texts::new());
    let mut by_file: BTreeMap<String, Vec<&fbc_core::catalog::Diagnostic>> = BTreeMap::new();
    for d in full.problems.iter().filter(|d| !plain.problems.contains(d)) {
        by_file.entry(d.location.file.clone()).or_default().push(d);
    }
    let mut out = BTreeMap::new();
    for (rel, found) in by_file {
        let Ok(rel_path) = fbc_core::guard::path::relative(&rel) else {
            continue;
        };
        let path = rel_path.under(repo);
        let text =
            fbc_core::guard::file::read_text_limited(&path, fbc_core::catalog::load::MAX_FILE)
                .unwrap_or_default();
        let lines = Lines::new(&text);
        out.insert(
            path,
            found.iter().map(|d| convert::plain(d, &lines)).collect(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    #[test]
    fn files_name_their_operator() {
        let op = |p: &str| operator_of(Path::new(p), None);
        let want = Some((PathBuf::from("/r"), "op".to_string()));
        assert_eq!(op("/r/operators/op/catalog-templates/v4.18.yaml"), want);
        assert_eq!(op("/r/catalogs/v4.18/op/catalog.yaml"), want);
        assert_eq!(op("/r/operators/op/manifests/csv.yaml"), None);
        assert_eq!(op("/elsewhere/catalog.yaml"), None);
    }

    /// Only the latest run's results are published: an older run's, or one a keystroke made
    /// stale, are dropped.
    #[test]
    fn stale_runs_are_dropped() {
        let mut s = Server::new(Settings::default(), Vec::new());
        let (repo, op) = (PathBuf::from("/r"), "op".to_string());
        let run = OperatorRun::default();
        run.generation.store(2, Ordering::SeqCst);
        s.operators.insert((repo.clone(), op.clone()), run);
        let file = PathBuf::from("/r/catalogs/v4.18/op/catalog.yaml");
        let problem = lsp_types::Diagnostic {
            message: "differs from the rendering".into(),
            ..Default::default()
        };
        let files = BTreeMap::from([(file.clone(), vec![problem])]);
        s.rendered(repo.clone(), op.clone(), 1, files.clone());
        assert!(s.take_messages().is_empty());
        s.rendered(repo.clone(), op.clone(), 2, files.clone());
        let sent = serde_json::to_string(&s.take_messages()).unwrap();
        assert!(sent.contains("differs from the rendering"), "{sent}");
        assert_eq!(s.render_problems(&file).len(), 1);
        s.obsolete(&repo, &op);
        s.rendered(repo, op, 2, BTreeMap::new());
        assert!(s.take_messages().is_empty());
        assert_eq!(s.render_problems(&file).len(), 1);
    }
}
