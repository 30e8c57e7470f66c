//! A template opened for editing: the template document with its edit history, the catalog it
//! renders to (offline, bundle images resolved from the given sources), and that rendering's
//! problems placed on the template's own lines. Every edit re-renders and re-checks the template's
//! package; a save writes the template through the one all-or-nothing commit.

use std::path::Path;

use crate::catalog::commit::{CommitOptions, commit};
use crate::catalog::decode::{self, Format};
use crate::catalog::node::Node;
use crate::catalog::write::{SaveReport, WriteError};
use crate::catalog::{Catalog, Diagnostic, Location, Severity, emit, schema};
use crate::template::edit::{self, DocError, TemplateDoc, TemplateEdit, TemplateEditError};
use crate::template::source::BundleSource;
use crate::template::{Body, OpmChoice, OpmVersion, OpmVersionError, Rendered, TemplateError};
use crate::validate::{self, Report};

use super::{Outcome, SaveError};

/// A template opened for editing.
pub struct TemplateWorkspace {
    doc: TemplateDoc,
    sources: Box<dyn BundleSource + Send + Sync>,
    done: Vec<(TemplateEdit, Node)>,
    undone: Vec<TemplateEdit>,
    rendering: Result<Rendered, TemplateError>,
    rendered: Catalog,
    report: Report,
    /// A substitutes template's substitutions as rendered: (base, substitute's bundle name).
    substitutions: Vec<(String, String)>,
    /// The opm release the template renders as (the flag's, its operator's Makefile's or the
    /// default), or why the Makefile's cannot be used.
    opm: Result<OpmChoice, OpmVersionError>,
}

impl TemplateWorkspace {
    /// Opens a template and renders it as the opm release its operator's Makefile pins (in a
    /// repository layout), else the default.
    pub fn open(
        path: &Path,
        sources: Box<dyn BundleSource + Send + Sync>,
    ) -> Result<TemplateWorkspace, DocError> {
        Self::open_as(path, sources, None)
    }

    /// [`TemplateWorkspace::open`], rendering as `opm` when given (it wins over the Makefile).
    pub fn open_as(
        path: &Path,
        sources: Box<dyn BundleSource + Send + Sync>,
        opm: Option<OpmVersion>,
    ) -> Result<TemplateWorkspace, DocError> {
        Self::with_doc(TemplateDoc::open(path)?, sources, opm)
    }

    /// A template held as text (an editor's unsaved buffer) under the name `path`, rendered as
    /// [`TemplateWorkspace::open_as`] renders the file.
    pub fn open_text(
        path: &Path,
        text: &str,
        sources: Box<dyn BundleSource + Send + Sync>,
        opm: Option<OpmVersion>,
    ) -> Result<TemplateWorkspace, DocError> {
        Self::with_doc(TemplateDoc::from_text(path, text)?, sources, opm)
    }

    fn with_doc(
        doc: TemplateDoc,
        sources: Box<dyn BundleSource + Send + Sync>,
        opm: Option<OpmVersion>,
    ) -> Result<TemplateWorkspace, DocError> {
        let opm = OpmChoice::resolve(opm, doc.path());
        let mut ws = TemplateWorkspace {
            doc,
            sources,
            done: Vec::new(),
            undone: Vec::new(),
            rendering: Err(TemplateError::many("", Vec::new())),
            rendered: Catalog::in_memory(Path::new(".")),
            report: Report::default(),
            substitutions: Vec::new(),
            opm,
        };
        ws.rerender();
        Ok(ws)
    }

    pub fn doc(&self) -> &TemplateDoc {
        &self.doc
    }

    /// What the template renders to now, or why it does not render.
    pub fn rendering(&self) -> Result<&Rendered, &TemplateError> {
        self.rendering.as_ref()
    }

    /// The rendering as a catalog (empty when the template does not render).
    pub fn rendered(&self) -> &Catalog {
        &self.rendered
    }

    /// The opm release the template renders as, and why; `None` when its operator's Makefile pins
    /// one that cannot be used (the rendering then says why).
    pub fn opm(&self) -> Option<&OpmChoice> {
        self.opm.as_ref().ok()
    }

    /// The rendering's problems, each at the template line it comes from.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// A substitutes template's substitutions in the rendering: for each, the base bundle and the
    /// bundle that took its place (none when the template is of another kind or does not render).
    pub fn substitutions(&self) -> &[(String, String)] {
        &self.substitutions
    }

    /// Applies an edit, re-renders, and says which errors it introduced and fixed.
    pub fn apply(&mut self, e: TemplateEdit) -> Result<Outcome, TemplateEditError> {
        let before_errors = errors(&self.report);
        let node = edit::apply(&self.doc, &e, self.sources.as_ref())?;
        let old = self.doc.node().clone();
        self.doc.replace(node);
        self.rerender();
        self.done.push((e, old));
        self.undone.clear();
        let after = errors(&self.report);
        Ok(Outcome {
            introduced: after
                .iter()
                .filter(|d| !before_errors.iter().any(|b| same(b, d)))
                .cloned()
                .collect(),
            fixed: before_errors
                .iter()
                .filter(|d| !after.iter().any(|a| same(a, d)))
                .cloned()
                .collect(),
            notes: Vec::new(),
        })
    }

    /// The errors an edit would introduce, without keeping it.
    pub fn check(&mut self, e: &TemplateEdit) -> Result<Vec<Diagnostic>, TemplateEditError> {
        let redo = std::mem::take(&mut self.undone);
        let result = self.apply(e.clone()).map(|o| {
            self.undo();
            o.introduced
        });
        self.undone = redo;
        result
    }

    /// Undoes the last edit; returns what it was.
    pub fn undo(&mut self) -> Option<String> {
        let (e, old) = self.done.pop()?;
        self.doc.replace(old);
        self.rerender();
        let what = e.describe();
        self.undone.push(e);
        Some(what)
    }

    /// Applies the last undone edit again.
    pub fn redo(&mut self) -> Option<Result<String, TemplateEditError>> {
        let e = self.undone.pop()?;
        let what = e.describe();
        let rest = std::mem::take(&mut self.undone);
        let result = self.apply(e).map(|_| what);
        self.undone = rest;
        Some(result)
    }

    pub fn can_undo(&self) -> bool {
        !self.done.is_empty()
    }

    pub fn is_dirty(&self) -> bool {
        self.doc.is_dirty()
    }

    /// The unified diff of the template a save would write.
    pub fn preview(&self) -> Result<String, SaveError> {
        Ok(self.doc.catalog.preview()?)
    }

    /// Writes the template (all or nothing, never outside its directory, never through links) and
    /// starts a fresh history.
    pub fn save(&mut self, options: &CommitOptions) -> Result<SaveReport, SaveError> {
        let planned = self.doc.catalog.plan_changes()?;
        commit(&self.doc.catalog.root, &planned, options).map_err(WriteError::from)?;
        let report = SaveReport {
            written: planned.into_iter().map(|p| p.rel).collect(),
        };
        let path = self.doc.path().to_path_buf();
        self.doc = TemplateDoc::open(&path).map_err(|e| WriteError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e.to_string()),
        })?;
        self.done.clear();
        self.undone.clear();
        self.rerender();
        Ok(report)
    }

    /// Takes the template as read anew after a save: a fresh history, rendered again.
    pub fn reset(&mut self, doc: TemplateDoc) {
        self.doc = doc;
        self.done.clear();
        self.undone.clear();
        self.rerender();
    }

    /// The bytes of a catalog file this template renders to as it now stands (migrated for OCP
    /// 4.17 on when `migrate`), as the repositories' tooling writes them.
    pub fn catalog_text(&self, migrate: bool) -> Result<String, TemplateError> {
        let mut rendered = self.rendering.clone()?;
        crate::template::render_all::catalog_text(&self.doc.name(), &mut rendered, migrate)
    }

    /// Renders the template again and checks what it renders to.
    fn rerender(&mut self) {
        let template = match self.doc.template() {
            Ok(t) => t,
            Err(e) => {
                self.set_failed(e);
                return;
            }
        };
        let opm = match &self.opm {
            Ok(c) => c.version,
            Err(e) => {
                let e = TemplateError::new(&self.doc.name(), 0, e.to_string());
                self.set_failed(e);
                return;
            }
        };
        match template.render(self.sources.as_ref(), opm) {
            Ok(r) => {
                self.substitutions = substitutions_of(&template.body, &r);
                self.rendered = catalog_of(&r);
                let checked = validate::validate(&self.rendered);
                self.report = Report {
                    diagnostics: checked
                        .diagnostics
                        .into_iter()
                        .map(|d| placed(d, &self.doc, &template.body, self.sources.as_ref()))
                        .collect(),
                };
                self.report
                    .diagnostics
                    .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
                self.rendering = Ok(r);
            }
            Err(e) => self.set_failed(e),
        }
    }

    fn set_failed(&mut self, why: TemplateError) {
        self.substitutions.clear();
        let file = self.doc.name();
        let first = why.problems.first();
        let (line, column) = first.map_or((0, 1), |p| (p.line, p.column.max(1)));
        // The hint goes where the problems pane shows hints, not into the message.
        let mut plain = why.clone();
        plain.problems.iter_mut().for_each(|p| p.hint = None);
        let mut d = Diagnostic::new(
            crate::catalog::codes::catalog::SYNTAX,
            Severity::Error,
            Location::new(&file, line, column),
            format!("the template does not render: {plain}"),
        );
        if let Some(h) = first.and_then(|p| p.hint.clone()) {
            d = d.with_hint(h);
        }
        self.report = Report {
            diagnostics: vec![d],
        };
        self.rendered = Catalog::in_memory(Path::new("."));
        self.rendering = Err(why);
    }
}

fn errors(report: &Report) -> Vec<Diagnostic> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect()
}

fn same(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.code == b.code && a.message == b.message
}

/// Each substitution of a substitutes template: its base and the name of the bundle its image
/// rendered to.
fn substitutions_of(body: &Body, r: &Rendered) -> Vec<(String, String)> {
    let Body::Substitutes(s) = body else {
        return Vec::new();
    };
    s.substitutions
        .iter()
        .filter_map(|x| {
            let bundle = r.blobs.iter().find(|b| {
                b.get("schema").and_then(serde_json::Value::as_str) == Some(schema::BUNDLE)
                    && b.get("image").and_then(serde_json::Value::as_str) == Some(x.name.as_str())
            })?;
            let name = bundle.get("name")?.as_str()?;
            Some((x.base.clone(), name.to_string()))
        })
        .collect()
}

/// The rendered blobs as an in-memory catalog, for checking and drawing.
pub fn catalog_of(r: &Rendered) -> Catalog {
    let mut c = Catalog::in_memory(Path::new("."));
    let Ok(file) = c.create_file("rendered.yaml", Format::Yaml) else {
        return c;
    };
    for v in emit::ordered(&r.blobs) {
        let node = emit::to_node(v, false);
        if let Ok(meta) = decode::meta(&node, "rendered.yaml") {
            c.add_blob_to(file, node, meta);
        }
    }
    c
}

/// A problem of the rendering placed at the template line it comes from: the entry of a channel, the
/// channel, the bundle's image, or the package.
fn placed(
    mut d: Diagnostic,
    doc: &TemplateDoc,
    body: &Body,
    sources: &dyn BundleSource,
) -> Diagnostic {
    let line = template_line(doc, body, &d, sources).unwrap_or(doc.node().pos().line);
    d.location = Location::new(doc.name(), line, 1);
    d.related.clear();
    d
}

fn template_line(
    doc: &TemplateDoc,
    body: &Body,
    d: &Diagnostic,
    sources: &dyn BundleSource,
) -> Option<u32> {
    let o = &d.object;
    let bundle_line = |b: &str| -> Option<u32> {
        let images = match body {
            Body::Basic(t) => t.images(),
            Body::Semver(s) => s.images(),
            Body::Substitutes(s) => s.images(),
        };
        images.into_iter().find_map(|(image, line)| {
            let v = sources.bundle_for_image(&image)?.ok()?;
            (v.get("name").and_then(serde_json::Value::as_str) == Some(b)).then_some(line)
        })
    };
    if let Body::Substitutes(s) = body {
        // An object the entries define, else the substitute bundle's image.
        return s
            .entry_line(o)
            .or_else(|| o.bundle.as_deref().and_then(bundle_line))
            .or_else(|| {
                let mut only = o.clone();
                only.bundle = None;
                s.entry_line(&only)
            });
    }
    if let Body::Basic(_) = body {
        let entries = edit::entries_of(doc.node());
        let named = |schema_name: &str, name: &str| {
            entries.iter().find(|e| {
                edit::schema_of(e) == schema_name
                    && e.get_field("name").and_then(Node::as_str) == Some(name)
            })
        };
        if let Some(c) = &o.channel
            && let Some(ch) = named(schema::CHANNEL, c)
        {
            let entry_line = o.bundle.as_deref().and_then(|b| {
                ch.get_field("entries")?
                    .as_seq()?
                    .iter()
                    .find(|x| x.get_field("name").and_then(Node::as_str) == Some(b))
                    .map(|x| x.pos().line)
            });
            return Some(entry_line.unwrap_or(ch.pos().line));
        }
        if let Some(b) = &o.bundle {
            return bundle_line(b);
        }
        if let Some(p) = &o.package {
            return named(schema::PACKAGE, p).map(|e| e.pos().line);
        }
        return None;
    }
    o.bundle.as_deref().and_then(bundle_line)
}
