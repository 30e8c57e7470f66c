//! Templates opened together for editing (one template file, an operator's `catalog-templates/`, or
//! files given): one guided edit goes to every template it applies to, and the templates it does
//! not apply to are named with the reason. One template is shown (its rendering is what the screens
//! draw); undo and redo take back or make again an edit in every template it changed.
//!
//! A save writes the changed templates and, in a repository laid out as `operators/<op>/` beside
//! `catalogs/`, the catalogs each changed template maps to (`ci.yaml`'s `fbc.catalog_mapping`, or
//! the `vX.Y` names), re-rendered from the template as it now stands, byte for byte as the
//! repositories' tooling writes them: all in the one all-or-nothing commit.

use std::path::{Path, PathBuf};

use crate::catalog::commit::{CommitOptions, Expect, PlannedFile, commit};
use crate::catalog::write::{Pending, SaveReport, WriteError};
use crate::catalog::{Catalog, Diagnostic};
use crate::edit::Edit;
use crate::template::edit::{TemplateDoc, TemplateEdit, TemplateEditError};
use crate::template::memo::Memo;
use crate::template::render_all::{self, Output};
use crate::validate::Report;
use crate::workspace::template::TemplateWorkspace;

mod kinds;
mod mapping;
pub mod release;
use crate::guard::path::{OutsideRoot, Root};
use crate::workspace::{Outcome, SaveError};
use mapping::mapped_outputs;
pub use mapping::{
    RerenderError, Rerendered, place, rerendered, rerendered_checked, save_root, save_root_of,
};

/// A template of the set, with the catalog files it renders into.
struct Member {
    /// Opened by the path as given, so its problems name the file as the user does.
    ws: TemplateWorkspace,
    /// The template's path, absolute.
    abs: PathBuf,
    /// The template's path under the set's root (the path as given when it is not under it).
    rel: String,
    /// The catalog files it maps to (under the root, or why not), and whether each is migrated.
    outputs: Vec<(Result<String, OutsideRoot>, bool)>,
}

/// An edit of the set: which templates it changed, and the package it is about.
struct Step {
    edit: TemplateEdit,
    package: String,
    members: Vec<usize>,
}

/// Why a set of templates cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.join("\n"))]
pub struct SetError(pub Vec<String>);

/// Templates opened together for editing.
pub struct TemplateSet {
    root: Root,
    members: Vec<Member>,
    shown: usize,
    done: Vec<Step>,
    undone: Vec<Step>,
    /// Said once when the set opens: templates that could not be opened, where catalogs go.
    notes: Vec<String>,
    /// Why the catalogs the templates map to cannot be worked out (a save then refuses).
    mapping_error: Option<String>,
    memo: Memo,
}

impl TemplateSet {
    /// Opens the templates, each rendered with bundles from `memo`. Templates that cannot be opened
    /// are left out with a note; none opening at all is an error. A save writes in the directory
    /// [`save_root`] gives for the paths, fixed here before anything is read.
    pub fn open(paths: &[PathBuf], memo: Memo) -> Result<TemplateSet, SetError> {
        Self::open_as(paths, memo, None)
    }

    /// [`TemplateSet::open`], each template rendered as opm release `opm` when given, else as its
    /// operator's Makefile pins (or the default); the notes say which, and why.
    pub fn open_as(
        paths: &[PathBuf],
        memo: Memo,
        opm: Option<crate::template::OpmVersion>,
    ) -> Result<TemplateSet, SetError> {
        let root = save_root_of(paths)
            .map_err(|e| SetError(vec![format!("cannot tell where a save would write: {e}")]))?;
        let mut opened = Vec::new();
        let mut notes = Vec::new();
        for p in paths {
            let abs = p.canonicalize().unwrap_or_else(|_| p.clone());
            match TemplateWorkspace::open_as(p, Box::new(memo.clone()), opm) {
                Ok(ws) => {
                    if let Some(c) = ws.opm().filter(|c| c.is_chosen()) {
                        notes.push(format!("{}: {}", p.display(), c.note()));
                    }
                    opened.push((abs, ws));
                }
                Err(e) => notes.push(format!("{}: not opened: {e}", p.display())),
            }
        }
        if opened.is_empty() {
            return Err(SetError(notes));
        }
        for (path, _) in &opened {
            if let Err(e) = place(&root, path) {
                notes.push(format!("{e}: a save of it is refused"));
            }
        }
        let (outputs, mapping_error) = mapped_outputs(opened.iter().map(|(p, _)| p.as_path()));
        let mapping_error = mapping_error.map(|e| e.to_string());
        let members: Vec<Member> = opened
            .into_iter()
            .zip(outputs)
            .map(|((path, ws), outs)| Member {
                rel: place(&root, &path).unwrap_or_else(|_| ws.doc().name()),
                outputs: outs.iter().map(|(p, m)| (place(&root, p), *m)).collect(),
                ws,
                abs: path,
            })
            .collect();
        let mapped: usize = members.iter().map(|m| m.outputs.len()).sum();
        if mapped > 0 {
            notes.push(format!(
                "a save also re-renders the {} catalog file{} the templates map to",
                mapped,
                if mapped == 1 { "" } else { "s" }
            ));
        }
        let shown = latest(&members);
        Ok(TemplateSet {
            root,
            members,
            shown,
            done: Vec::new(),
            undone: Vec::new(),
            notes,
            mapping_error,
            memo,
        })
    }

    /// The directory every file the set writes lies under.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The source bundle images are resolved from (a bundle rendered elsewhere can be handed in).
    pub fn memo(&self) -> &Memo {
        &self.memo
    }

    /// Each template's path under the root, in the order they were given.
    pub fn names(&self) -> Vec<&str> {
        self.members.iter().map(|m| m.rel.as_str()).collect()
    }

    /// The template on screen.
    pub fn shown(&self) -> usize {
        self.shown
    }

    /// Shows another template (out of range: nothing changes).
    pub fn show(&mut self, i: usize) {
        if i < self.members.len() {
            self.shown = i;
        }
    }

    /// The template on screen.
    pub fn shown_template(&self) -> &TemplateWorkspace {
        &self.members[self.shown].ws
    }

    /// The rendering of the template on screen.
    pub fn catalog(&self) -> &Catalog {
        self.members[self.shown].ws.rendered()
    }

    /// The problems of the template on screen, at its lines.
    pub fn report(&self) -> &Report {
        self.members[self.shown].ws.report()
    }

    /// Applies a guided edit to every template it applies to. When it applies to none, the shown
    /// template's reason is the error.
    pub fn apply(&mut self, edit: Edit) -> Result<Outcome, TemplateEditError> {
        self.apply_template(TemplateEdit::Catalog(edit))
    }

    /// Applies a template edit (a guided edit, or one only a semver template has) to every
    /// template it applies to. A semver edit also says what it changes in the shown template's
    /// rendering: the channels and edges it generates.
    pub fn apply_template(&mut self, edit: TemplateEdit) -> Result<Outcome, TemplateEditError> {
        self.memo.remember_added(&edit);
        // A semver edit names no package and is told by what it changes in the rendering: both are
        // read from the rendering before the edit. A guided edit names its package.
        let (package, before) = match &edit {
            TemplateEdit::Catalog(e) => (e.package().to_string(), None),
            TemplateEdit::Semver(_) | TemplateEdit::Substitutes(_) => (
                self.catalog()
                    .index()
                    .package_names()
                    .first()
                    .map(|p| p.to_string())
                    .unwrap_or_default(),
                self.members[self.shown]
                    .ws
                    .rendering()
                    .ok()
                    .map(|r| r.blobs.clone()),
            ),
        };
        let mut outcome = Outcome::default();
        let mut changed = Vec::new();
        let mut refusals = Vec::new();
        for (i, m) in self.members.iter_mut().enumerate() {
            match m.ws.apply(edit.clone()) {
                Ok(o) => {
                    outcome.introduced.extend(o.introduced);
                    outcome.fixed.extend(o.fixed);
                    changed.push(i);
                }
                Err(e) => refusals.push((i, e)),
            }
        }
        if changed.is_empty() {
            let shown = refusals.iter().position(|(i, _)| *i == self.shown);
            let (_, e) = refusals.swap_remove(shown.unwrap_or(0));
            return Err(e);
        }
        if self.members.len() > 1 {
            outcome.notes.push(format!(
                "applied to {} of {} templates",
                changed.len(),
                self.members.len()
            ));
        }
        for (i, e) in refusals {
            outcome
                .notes
                .push(format!("{}: not applied: {e}", self.members[i].rel));
        }
        if let (Some(before), Ok(after)) = (before, self.members[self.shown].ws.rendering()) {
            outcome
                .notes
                .extend(crate::template::preview::rendering_changes(
                    &before,
                    &after.blobs,
                ));
        }
        self.done.push(Step {
            edit,
            package,
            members: changed,
        });
        self.undone.clear();
        Ok(outcome)
    }

    /// The errors `edit` would introduce in the templates it applies to, without keeping it.
    pub fn check(&mut self, edit: &Edit) -> Result<Vec<Diagnostic>, TemplateEditError> {
        let edit = TemplateEdit::Catalog(edit.clone());
        self.memo.remember_added(&edit);
        let (mut introduced, mut first_error, mut applies) = (Vec::new(), None, false);
        for m in &mut self.members {
            match m.ws.check(&edit) {
                Ok(d) => {
                    applies = true;
                    introduced.extend(d);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) if !applies => Err(e),
            _ => Ok(introduced),
        }
    }

    /// Undoes the last edit in every template it changed; returns what it was.
    pub fn undo(&mut self) -> Option<String> {
        let step = self.done.pop()?;
        for &i in &step.members {
            self.members[i].ws.undo();
        }
        let what = step.edit.describe();
        self.undone.push(step);
        Some(what)
    }

    /// Makes the last undone edit again in the templates it changed.
    pub fn redo(&mut self) -> Option<Result<String, TemplateEditError>> {
        let step = self.undone.pop()?;
        for &i in &step.members {
            if let Some(Err(e)) = self.members[i].ws.redo() {
                return Some(Err(e));
            }
        }
        let what = step.edit.describe();
        self.done.push(step);
        Some(Ok(what))
    }

    pub fn undo_package(&self) -> Option<&str> {
        self.done.last().map(|s| s.package.as_str())
    }

    pub fn redo_package(&self) -> Option<&str> {
        self.undone.last().map(|s| s.package.as_str())
    }

    pub fn can_undo(&self) -> bool {
        !self.done.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.undone.is_empty()
    }

    /// The edits made and not undone, oldest first.
    pub fn edits(&self) -> Vec<TemplateEdit> {
        self.done.iter().map(|s| s.edit.clone()).collect()
    }

    /// The templates a save would write, under the root.
    pub fn dirty_files(&self) -> Vec<String> {
        self.dirty().map(|m| m.rel.clone()).collect()
    }

    pub fn is_dirty(&self) -> bool {
        self.dirty().next().is_some()
    }

    fn dirty(&self) -> impl Iterator<Item = &Member> {
        self.members.iter().filter(|m| m.ws.is_dirty())
    }

    /// The changed templates (each path from the root) and the catalogs they re-render, as a save
    /// would write them.
    pub fn pending(&self) -> Result<Vec<Pending>, SaveError> {
        let mut out = Vec::new();
        for m in self.dirty() {
            for mut p in m.ws.doc().catalog.pending()? {
                p.path = self.rebased(m, &p.path)?;
                out.push(p);
            }
            for o in self.rendered_outputs(m)? {
                let old = match render_all::read_output(self.root.path(), &o.rel) {
                    Ok(b) => b.map(|b| String::from_utf8_lossy(&b).into_owned()),
                    Err(source) => return Err(io_error(&o.rel, source)),
                };
                if old.as_deref() != Some(o.text.as_str()) {
                    out.push(Pending {
                        path: o.rel,
                        created: old.is_none(),
                        old: old.unwrap_or_default(),
                        new: o.text,
                    });
                }
            }
        }
        Ok(out)
    }

    /// Every file a save writes, under the root, for the one commit.
    pub fn plan_save(&self) -> Result<Vec<PlannedFile>, SaveError> {
        let mut planned = Vec::new();
        for m in self.dirty() {
            let dir = m.abs.parent().unwrap_or(Path::new(""));
            planned.extend(plan_template(&self.root, dir, m.ws.doc())?);
            for o in self.rendered_outputs(m)? {
                planned.extend(plan_rendered(&self.root, &o)?);
            }
        }
        Ok(planned)
    }

    /// The templates a save writes, absolute, with their place in the set: to read them back.
    pub fn dirty_templates(&self) -> Vec<(usize, PathBuf)> {
        self.members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.ws.is_dirty())
            .map(|(i, m)| (i, m.ws.doc().path().to_path_buf()))
            .collect()
    }

    /// Takes the templates as read back after a save: each starts a fresh history.
    pub fn saved(&mut self, docs: Vec<(usize, TemplateDoc)>) {
        for (i, doc) in docs {
            if let Some(m) = self.members.get_mut(i) {
                m.ws.reset(doc);
            }
        }
        self.done.clear();
        self.undone.clear();
    }

    /// A path of a member's one-file catalog (relative to the template's directory) from the root;
    /// refused when it is not under the root.
    fn rebased(&self, m: &Member, rel: &str) -> Result<String, SaveError> {
        let dir = m.abs.parent().unwrap_or(Path::new(""));
        place(&self.root, &dir.join(rel)).map_err(|e| SaveError::Failed(WriteError::Outside(e)))
    }

    /// The catalog files a changed template re-renders into. Refuses when the mapping cannot be
    /// read or the template does not render: nothing is written then.
    fn rendered_outputs(&self, m: &Member) -> Result<Vec<Output>, SaveError> {
        if let Some(why) = &self.mapping_error {
            return Err(failed(
                &m.rel,
                format!("cannot tell which catalogs it renders into: {why}"),
            ));
        }
        let mut out = Vec::new();
        for (rel, migrate) in &m.outputs {
            let rel = rel
                .as_ref()
                .map_err(|e| SaveError::Failed(WriteError::Outside(e.clone())))?;
            let text =
                m.ws.catalog_text(*migrate)
                    .map_err(|e| failed(&m.rel, format!("cannot re-render {rel} from it: {e}")))?;
            out.push(Output {
                rel: rel.clone(),
                text,
                template_name: m.rel.clone(),
            });
        }
        Ok(out)
    }
}

/// A template's changes for a commit under `root`: the files of its one-file catalog, placed from
/// `dir`, the template's directory. Refused when one is not under the root.
pub fn plan_template(
    root: &Root,
    dir: &Path,
    doc: &TemplateDoc,
) -> Result<Vec<PlannedFile>, SaveError> {
    let mut planned = Vec::new();
    for mut f in doc.catalog.plan_changes()? {
        f.rel = place(root, &dir.join(&f.rel))
            .map_err(|e| SaveError::Failed(WriteError::Outside(e)))?;
        planned.push(f);
    }
    Ok(planned)
}

/// A catalog rendered from a template, for a commit under `root`: `None` when the file already
/// holds exactly that; its current bytes are what the commit expects to replace.
pub fn plan_rendered(root: &Root, output: &Output) -> Result<Option<PlannedFile>, SaveError> {
    render_all::planned_output(root.path(), output).map_err(|e| failed(&output.rel, e.to_string()))
}

/// Every file a save of templates not opened as a set writes under `root`, for one commit: the
/// changes of `docs`, then `new_files` (templates that must not exist yet), then the catalogs
/// `rendered` from them (absolute paths with their text). A file outside the root is refused,
/// and then nothing is planned.
pub fn plan_files(
    root: &Root,
    docs: &[&TemplateDoc],
    new_files: &[(PathBuf, String)],
    rendered: &[(PathBuf, String)],
) -> Result<Vec<PlannedFile>, SaveError> {
    let outside = |e| SaveError::Failed(WriteError::Outside(e));
    let mut planned = Vec::new();
    for d in docs {
        let dir = d.path().parent().unwrap_or(Path::new(""));
        planned.extend(plan_template(root, dir, d)?);
    }
    for (p, text) in new_files {
        planned.push(PlannedFile {
            rel: place(root, p).map_err(outside)?,
            bytes: text.clone().into_bytes(),
            expect: Expect::Absent,
        });
    }
    for (p, text) in rendered {
        let output = Output {
            rel: place(root, p).map_err(outside)?,
            text: text.clone(),
            template_name: String::new(),
        };
        planned.extend(plan_rendered(root, &output)?);
    }
    Ok(planned)
}

/// Writes what [`TemplateSet::plan_save`] (or [`plan_files`]) planned, all or nothing, then reads the templates back
/// (for [`TemplateSet::saved`]).
pub fn write_and_reread(
    root: &Path,
    planned: Vec<PlannedFile>,
    options: &CommitOptions,
    templates: Vec<(usize, PathBuf)>,
) -> Result<(SaveReport, Vec<(usize, TemplateDoc)>), SaveError> {
    commit(root, &planned, options).map_err(WriteError::from)?;
    let report = SaveReport {
        written: planned.into_iter().map(|p| p.rel).collect(),
    };
    let mut docs = Vec::new();
    for (i, path) in templates {
        let doc = TemplateDoc::open(&path).map_err(|e| {
            SaveError::from(WriteError::Io {
                path: path.display().to_string(),
                source: std::io::Error::other(format!("written, but cannot be read back: {e}")),
            })
        })?;
        docs.push((i, doc));
    }
    Ok((report, docs))
}

fn failed(rel: &str, why: String) -> SaveError {
    io_error(rel, std::io::Error::other(why))
}

fn io_error(rel: &str, source: std::io::Error) -> SaveError {
    SaveError::Failed(WriteError::Io {
        path: rel.to_string(),
        source,
    })
}

/// The template with the highest version-like name (`v4.21.yaml` after `v4.9.yaml`).
fn latest(members: &[Member]) -> usize {
    (0..members.len())
        .max_by(|&a, &b| natural_key(&members[a].rel).cmp(&natural_key(&members[b].rel)))
        .unwrap_or(0)
}

/// A name split into text and numbers, so numbers compare by value.
fn natural_key(s: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut n = c.to_digit(10).map_or(0, u64::from);
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(u64::from(d));
                chars.next();
            }
            out.push((std::mem::take(&mut text), n));
        } else {
            text.push(c);
        }
    }
    out.push((text, 0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_names_compare_by_value() {
        let mut names = vec!["v4.9.yaml", "v4.21.yaml", "v4.12.yaml", "semver.yaml"];
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(
            names,
            ["semver.yaml", "v4.9.yaml", "v4.12.yaml", "v4.21.yaml"]
        );
    }

    #[test]
    fn a_save_writes_in_the_repository_or_the_templates_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let templates = tmp.path().join("repo/operators/a/catalog-templates");
        std::fs::create_dir_all(&templates).unwrap();
        std::fs::create_dir_all(tmp.path().join("loose")).unwrap();
        let repo = top.join("repo");
        for given in [
            templates.join("v4.20.yaml"),
            templates.clone(),
            tmp.path().join("repo/operators/a"),
        ] {
            assert_eq!(save_root(&given).unwrap(), repo, "{}", given.display());
        }
        assert_eq!(
            save_root(&tmp.path().join("loose/basic.yaml")).unwrap(),
            top.join("loose")
        );
        let both = save_root_of(&[
            templates.join("v4.20.yaml"),
            tmp.path().join("loose/basic.yaml"),
        ])
        .unwrap();
        assert_eq!(both.path(), top);
    }
}
