//! The server's state: the open documents, the catalogs they belong to (each loaded once, the
//! documents laid over its files), the templates, and the diagnostics published for each.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fbc_core::catalog::{Diagnostic, LoadOptions};
use fbc_core::template::Sources;
use fbc_core::template::memo::Memo;
use fbc_core::validate::profile;
use fbc_core::workspace::Workspace;
use fbc_core::workspace::template::TemplateWorkspace;
use lsp_server::{Message, Notification};
use lsp_types::Uri;

use crate::convert;
use crate::layout::{self, FileKind};
use crate::settings::Settings;
use crate::uri;

/// An open document.
pub(crate) struct Doc {
    pub uri: Uri,
    pub version: i32,
    pub text: String,
    pub kind: FileKind,
}

/// A catalog some open document belongs to.
pub(crate) struct CatalogRoot {
    pub ws: Workspace,
    /// The profiles' problems, per package.
    pub profile: BTreeMap<String, Vec<Diagnostic>>,
    /// Files (catalog-relative) diagnostics were last published for, not yet cleared.
    pub published: BTreeSet<String>,
}

/// A template some open document is: the bundles its renderings looked up, kept from one
/// keystroke to the next.
pub(crate) struct TemplateState {
    pub memo: Memo,
    /// What the worker found for the images no local source holds.
    pub pulled: crate::images::Pulled,
}

/// Everything the server knows.
pub struct Server {
    pub(crate) docs: BTreeMap<PathBuf, Doc>,
    pub(crate) roots: BTreeMap<PathBuf, CatalogRoot>,
    pub(crate) templates: BTreeMap<PathBuf, TemplateState>,
    pub(crate) settings: Settings,
    pub(crate) folders: Vec<PathBuf>,
    /// Documents changed since their diagnostics were last worked out.
    pub(crate) pending: BTreeSet<PathBuf>,
    /// Notifications to send.
    pub(crate) out: Vec<Message>,
    /// Work for the worker threads, oldest first (the loop hands it over).
    pub(crate) jobs: Vec<crate::worker::Job>,
    /// The re-renders of operators whose `ci.yaml` is open, by repository and operator.
    pub(crate) operators: BTreeMap<(PathBuf, String), crate::rerender::OperatorRun>,
    /// The workspace's catalogs and templates, for workspace symbols.
    pub(crate) index: crate::index::Index,
}

impl Server {
    pub fn new(settings: Settings, folders: Vec<PathBuf>) -> Server {
        Server {
            docs: BTreeMap::new(),
            roots: BTreeMap::new(),
            templates: BTreeMap::new(),
            settings,
            folders,
            pending: BTreeSet::new(),
            out: Vec::new(),
            jobs: Vec::new(),
            operators: BTreeMap::new(),
            index: crate::index::Index::default(),
        }
    }

    pub(crate) fn log(&mut self, kind: lsp_types::MessageType, message: String) {
        self.out.push(Message::Notification(Notification::new(
            "window/logMessage".into(),
            lsp_types::LogMessageParams { typ: kind, message },
        )));
    }

    /// Takes the messages to send the client (diagnostics, log messages), oldest first.
    pub fn take_messages(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.out)
    }

    /// A document opened (`textDocument/didOpen`); checked at the next [`Server::flush`].
    pub fn open(&mut self, uri: Uri, version: i32, text: String) {
        let Some(path) = uri::to_path(&uri) else {
            return;
        };
        let kind = layout::classify(&path, &text, &self.settings.catalog_roots, &self.folders);
        let operator = match &kind {
            FileKind::Ci { repo, operator } => Some((repo.clone(), operator.clone())),
            _ => None,
        };
        self.docs.insert(
            path.clone(),
            Doc {
                uri,
                version,
                text,
                kind,
            },
        );
        self.pending.insert(path);
        if let Some((repo, operator)) = operator {
            self.rerender(&repo, &operator);
        }
    }

    /// A document changed (`textDocument/didChange`); checked at the next [`Server::flush`].
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<lsp_types::TextDocumentContentChangeEvent>,
    ) {
        let Some(path) = uri::to_path(uri) else {
            return;
        };
        let Some(doc) = self.docs.get_mut(&path) else {
            return;
        };
        for c in changes {
            crate::text::apply_change(&mut doc.text, c.range, &c.text);
        }
        doc.version = version;
        if let FileKind::Ci { repo, operator } | FileKind::ReleaseConfig { repo, operator } =
            doc.kind.clone()
        {
            self.obsolete(&repo, &operator);
        }
        self.pending.insert(path);
    }

    /// A document closed: the file on disk is what the catalog holds again.
    pub fn close(&mut self, uri: &Uri) {
        let Some(path) = uri::to_path(uri) else {
            return;
        };
        let Some(doc) = self.docs.remove(&path) else {
            return;
        };
        self.pending.remove(&path);
        match doc.kind {
            FileKind::Catalog { root, rel } => {
                let disk =
                    fbc_core::guard::file::read_limited(&path, fbc_core::catalog::load::MAX_FILE)
                        .ok()
                        .and_then(|b| String::from_utf8(b).ok());
                if let (Some(r), Some(text)) = (self.roots.get_mut(&root), disk) {
                    let before = files_of(r, std::slice::from_ref(&rel));
                    let o = r.ws.overlay(&rel, &text);
                    self.after_overlay(&root, &rel, o.packages, before);
                }
                if !self.docs.values().any(|d| in_root(d, &root)) {
                    self.clear_root(&root);
                }
            }
            FileKind::Template => {
                self.templates.remove(&path);
                self.publish(doc.uri, None, Vec::new());
            }
            FileKind::Ci { repo, operator } => {
                self.publish(doc.uri, None, Vec::new());
                self.forget_operator(&repo, &operator);
            }
            _ => self.publish(doc.uri, None, Vec::new()),
        }
    }

    /// New settings: every open document is checked again (catalogs are read again when the
    /// layout rules now place a document elsewhere).
    pub(crate) fn configure(&mut self, settings: Settings) {
        self.settings = settings;
        let paths: Vec<PathBuf> = self.docs.keys().cloned().collect();
        for p in paths {
            let kind = {
                let d = &self.docs[&p];
                layout::classify(&p, &d.text, &self.settings.catalog_roots, &self.folders)
            };
            if let Some(d) = self.docs.get_mut(&p) {
                d.kind = kind;
            }
            self.pending.insert(p);
        }
        let roots: Vec<PathBuf> = self.roots.keys().cloned().collect();
        for root in roots {
            if !self.docs.values().any(|d| in_root(d, &root)) {
                self.clear_root(&root);
            } else if let Some(r) = self.roots.get_mut(&root) {
                r.profile.clear();
            }
        }
        self.templates.clear();
        self.index = crate::index::Index {
            waiting: std::mem::take(&mut self.index.waiting),
            ..Default::default()
        };
    }

    /// Works out and publishes the diagnostics of every document changed since the last time.
    pub fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let mut repos = BTreeSet::new();
        for path in pending {
            let Some(doc) = self.docs.get(&path) else {
                continue;
            };
            match doc.kind.clone() {
                FileKind::Catalog { root, rel } => {
                    let text = doc.text.clone();
                    self.check_catalog_file(&root, &rel, &text);
                }
                FileKind::Template => self.check_template(&path),
                FileKind::Ci { repo, operator } | FileKind::ReleaseConfig { repo, operator } => {
                    repos.insert((repo, operator));
                }
                FileKind::Other => {}
            }
        }
        for (repo, operator) in repos {
            self.check_operator(&repo, &operator);
        }
    }

    /// The catalog at `root`, loaded when first needed.
    pub(crate) fn root(&mut self, root: &Path) -> Option<&mut CatalogRoot> {
        if !self.roots.contains_key(root) {
            let options = LoadOptions {
                check_payloads: true,
                ..Default::default()
            };
            match fbc_core::catalog::load_with(root, &options) {
                Ok(c) => {
                    self.roots.insert(
                        root.to_path_buf(),
                        CatalogRoot {
                            ws: Workspace::open(c),
                            profile: BTreeMap::new(),
                            published: BTreeSet::new(),
                        },
                    );
                }
                Err(e) => {
                    self.log(
                        lsp_types::MessageType::ERROR,
                        format!("cannot read the catalog at {}: {e}", root.display()),
                    );
                    return None;
                }
            }
        }
        self.roots.get_mut(root)
    }

    fn check_catalog_file(&mut self, root: &Path, rel: &str, text: &str) {
        let Some(r) = self.root(root) else {
            return;
        };
        let before = files_of(r, &[rel.to_string()]);
        let o = r.ws.overlay(rel, text);
        self.after_overlay(root, rel, o.packages, before);
    }

    /// After a file of `root` changed: the profiles of its packages checked again, and the
    /// diagnostics of every file of those packages (and of the files that had some) published.
    fn after_overlay(
        &mut self,
        root: &Path,
        rel: &str,
        packages: Vec<String>,
        mut files: BTreeSet<String>,
    ) {
        let opts = self.settings.profile_options(root);
        let Some(r) = self.roots.get_mut(root) else {
            return;
        };
        let names: Vec<&str> = packages.iter().map(String::as_str).collect();
        let mut found = profile::check_packages(r.ws.catalog(), &opts, &names);
        for p in &packages {
            let mine: Vec<Diagnostic> = found
                .iter()
                .filter(|d| d.object.package.as_deref() == Some(p))
                .cloned()
                .collect();
            found.retain(|d| d.object.package.as_deref() != Some(p));
            r.profile.insert(p.clone(), mine);
        }
        files.extend(files_of(r, &packages));
        files.insert(rel.to_string());
        files.extend(r.published.iter().filter(|f| !in_catalog(r, f)).cloned());
        let mut placed = Vec::new();
        {
            let mut conv = convert::Files::new(root, &r.ws);
            for f in files {
                let diags: Vec<lsp_types::Diagnostic> = file_diagnostics(r, &f)
                    .iter()
                    .map(|d| conv.diagnostic(d))
                    .collect();
                placed.push((f, diags));
            }
        }
        let mut messages = Vec::new();
        for (f, converted) in placed {
            let (uri, version) = match self.docs.get(&root.join(&f)) {
                Some(d) => (d.uri.clone(), Some(d.version)),
                None => (uri::from_path(&root.join(&f)), None),
            };
            if converted.is_empty() {
                r.published.remove(&f);
            } else {
                r.published.insert(f.clone());
            }
            messages.push((uri, version, converted));
        }
        for (uri, version, converted) in messages {
            self.publish(uri, version, converted);
        }
    }

    fn clear_root(&mut self, root: &Path) {
        if let Some(r) = self.roots.remove(root) {
            for f in r.published {
                let uri = uri::from_path(&root.join(&f));
                self.publish(uri, None, Vec::new());
            }
        }
    }

    fn check_template(&mut self, path: &Path) {
        let Some(doc) = self.docs.get(path) else {
            return;
        };
        let (uri, version, text) = (doc.uri.clone(), doc.version, doc.text.clone());
        let (memo, pulled) = match self.templates.get(path) {
            Some(t) => (t.memo.clone(), t.pulled.clone()),
            None => (
                match Sources::for_template(path, &[], Vec::new(), None) {
                    Ok((sources, _)) => Memo::new(sources),
                    Err(e) => {
                        self.log(lsp_types::MessageType::WARNING, e.to_string());
                        Memo::new(Sources::new())
                    }
                },
                crate::images::Pulled::default(),
            ),
        };
        let lines = crate::text::Lines::new(&text);
        let diags = match TemplateWorkspace::open_text(
            path,
            &text,
            Box::new(pulled.source(memo.clone())),
            self.settings.opm,
        ) {
            Ok(ws) => ws
                .report()
                .diagnostics
                .iter()
                .map(|d| convert::plain(d, &lines))
                .collect(),
            Err(e) => vec![convert::unreadable(&e.to_string(), &lines)],
        };
        self.templates.insert(
            path.to_path_buf(),
            TemplateState {
                memo,
                pulled: pulled.clone(),
            },
        );
        self.publish(uri, Some(version), diags);
        self.ask_images(path, &pulled);
    }

    /// `ci.yaml` and the `release-config.yaml` files of an operator, open ones read from their
    /// buffers; published for each of them that is open.
    fn check_operator(&mut self, repo: &Path, operator: &str) {
        let mut texts = fbc_core::repo::check::Texts::new();
        let mut open = Vec::new();
        for (p, d) in &self.docs {
            let mine = match &d.kind {
                FileKind::Ci {
                    repo: r,
                    operator: o,
                }
                | FileKind::ReleaseConfig {
                    repo: r,
                    operator: o,
                } => r == repo && o == operator,
                _ => false,
            };
            let Ok(rel) = p.strip_prefix(repo) else {
                continue;
            };
            if mine {
                let rel = rel.to_string_lossy().replace('\\', "/");
                texts.insert(rel.clone(), d.text.clone());
                open.push((rel, d.uri.clone(), d.version, d.text.clone()));
            }
        }
        // A catalogs/ over its bound lists none here; `repo check` reports it.
        let catalogs =
            fbc_core::repo::check::subdirectories(&repo.join("catalogs")).unwrap_or_default();
        let found = fbc_core::repo::check::operator_files(repo, operator, &catalogs, &texts);
        for (rel, uri, version, text) in open {
            let lines = crate::text::Lines::new(&text);
            let diags = found
                .problems
                .iter()
                .filter(|d| d.location.file == rel)
                .map(|d| convert::plain(d, &lines))
                .collect();
            self.publish(uri, Some(version), diags);
        }
    }

    /// Publishes a file's diagnostics, with the problems the operator's last re-render placed in it.
    pub(crate) fn publish(
        &mut self,
        uri: Uri,
        version: Option<i32>,
        mut diagnostics: Vec<lsp_types::Diagnostic>,
    ) {
        if let Some(path) = uri::to_path(&uri) {
            diagnostics.extend(self.render_problems(&path));
        }
        self.out.push(publish_message(uri, version, diagnostics));
    }

    /// The open document at `uri`.
    pub(crate) fn doc(&self, uri: &Uri) -> Option<(&PathBuf, &Doc)> {
        let path = uri::to_path(uri)?;
        self.docs.get_key_value(&path)
    }
}

fn publish_message(
    uri: Uri,
    version: Option<i32>,
    diagnostics: Vec<lsp_types::Diagnostic>,
) -> Message {
    Message::Notification(Notification::new(
        "textDocument/publishDiagnostics".into(),
        lsp_types::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    ))
}

fn in_root(d: &Doc, root: &Path) -> bool {
    matches!(&d.kind, FileKind::Catalog { root: r, .. } if r == root)
}

fn in_catalog(r: &CatalogRoot, rel: &str) -> bool {
    r.ws.catalog().file_id(rel).is_some()
}

/// The files holding blobs of `packages` (or, for a file's path, that file's packages' files).
fn files_of(r: &CatalogRoot, names: &[String]) -> BTreeSet<String> {
    let cat = r.ws.catalog();
    let mut packages: BTreeSet<String> = BTreeSet::new();
    for n in names {
        if let Some(f) = cat.file_id(n) {
            packages.extend(cat.files[f].blobs.iter().map(|&b| owner(cat, b)));
        } else {
            packages.insert(n.clone());
        }
    }
    let mut out = BTreeSet::new();
    for p in packages {
        let Some(idx) = cat.index().package(&p) else {
            continue;
        };
        for &b in idx
            .packages
            .iter()
            .chain(&idx.channels)
            .chain(&idx.bundles)
            .chain(&idx.deprecations)
            .chain(&idx.others)
        {
            out.insert(cat.file_of(b).path.clone());
        }
    }
    out
}

pub(crate) fn owner(cat: &fbc_core::catalog::Catalog, b: usize) -> String {
    let blob = cat.blob(b);
    if blob.schema() == fbc_core::catalog::schema::PACKAGE {
        blob.name().to_string()
    } else {
        blob.package().to_string()
    }
}

/// The problems placed in file `rel`: the catalog's own, its packages' and the profiles'.
pub(crate) fn file_diagnostics<'r>(r: &'r CatalogRoot, rel: &str) -> Vec<&'r Diagnostic> {
    let cat = r.ws.catalog();
    let v = r.ws.validation();
    let mut packages: BTreeSet<String> = BTreeSet::new();
    if let Some(f) = cat.file_id(rel) {
        packages.extend(cat.files[f].blobs.iter().map(|&b| owner(cat, b)));
    }
    let mut out: Vec<&Diagnostic> = v
        .global()
        .iter()
        .filter(|d| d.location.file == rel)
        .collect();
    for p in &packages {
        out.extend(v.package(p).iter().filter(|d| d.location.file == rel));
        if let Some(found) = r.profile.get(p) {
            out.extend(found.iter().filter(|d| d.location.file == rel));
        }
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out.dedup_by(|a, b| a == b);
    out
}
