//! Catalog templates, rendered offline: `olm.template.basic` (FBC entries whose bundles are only image
//! references) and `olm.semver` (bundle images listed per maturity, channels and edges generated from
//! their versions), as `opm alpha render-template` renders them.
//!
//! opm pulls every bundle image to render it. Here each image is resolved by a [`BundleSource`]: an
//! existing catalog that already holds a bundle with that image, or a registry+v1 bundle directory
//! given for it. An image no source can resolve is an error that names it.
//!
//! Like opm, only the first document of a template file is read. The semver template is read
//! strictly (unknown fields and repeated keys are errors; field names match in any letter case, so
//! both `schema` and `Schema` work); the basic template's entries are read like catalog objects.

pub mod basic;
pub mod convert;
pub mod edit;
pub mod files;
pub mod memo;
pub mod opm;
pub mod preview;
pub mod render_all;
pub mod repository;
pub mod semver;
pub mod source;
pub mod substitutes;

pub(crate) mod canonical;

use std::fmt;
use std::path::Path;

use serde_json::Value;

use crate::catalog::decode;
use crate::catalog::emit::{self, OutFormat};
use crate::catalog::node::{Kind, Node, Str};
use crate::catalog::{Severity, schema};
use crate::text::gosort::{self, GoRelease};

pub use opm::{OpmChoice, OpmVersion, OpmVersionError};
pub use source::{
    BundleDirSource, BundleSource, CatalogSource, ImageOpenError, ImageOpener, ImageSource,
    ResolveError, Sources, SourcesError,
};

/// Template schemas.
pub mod schemas {
    pub const BASIC: &str = "olm.template.basic";
    pub const SEMVER: &str = "olm.semver";
    pub const SUBSTITUTES: &str = "olm.template.substitutes";
    pub const COMPOSITE: &str = "olm.composite";
    pub const COMPOSITE_CATALOGS: &str = "olm.composite.catalogs";
}

/// One problem with a template, at a line of its file (0 when no line applies) and, when known, a
/// column, with a hint saying how to fix it when one is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: u32,
    /// 1-based; 0 when only the line is known.
    pub column: u32,
    pub message: String,
    pub hint: Option<String>,
}

impl Problem {
    pub fn new(line: u32, message: impl Into<String>) -> Self {
        Problem {
            line,
            column: 0,
            message: message.into(),
            hint: None,
        }
    }

    /// The problem placed at `line` and `column`.
    pub fn at(line: u32, column: u32, message: impl Into<String>) -> Self {
        Problem {
            column,
            ..Problem::new(line, message)
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// Why a template could not be read or rendered: every problem found, each with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub file: String,
    pub problems: Vec<Problem>,
}

impl TemplateError {
    pub fn new(file: &str, line: u32, message: impl Into<String>) -> Self {
        TemplateError {
            file: file.to_string(),
            problems: vec![Problem::new(line, message)],
        }
    }

    pub fn many(file: &str, problems: Vec<Problem>) -> Self {
        TemplateError {
            file: file.to_string(),
            problems,
        }
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            if p.line == 0 {
                write!(f, "{}: {}", self.file, p.message)?;
            } else if p.column == 0 {
                write!(f, "{}:{}: {}", self.file, p.line, p.message)?;
            } else {
                write!(f, "{}:{}:{}: {}", self.file, p.line, p.column, p.message)?;
            }
            if let Some(h) = &p.hint {
                write!(f, "\n  hint: {h}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for TemplateError {}

/// A template read from a file, ready to render.
#[derive(Debug, Clone)]
pub struct Template {
    /// The file as named in messages.
    pub file: String,
    pub body: Body,
    /// Things worth knowing that are not errors (ignored documents or fields).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum Body {
    Basic(basic::Basic),
    Semver(semver::Semver),
    Substitutes(substitutes::Substitutes),
}

/// A rendered template: the catalog blobs it generates, and notes about how they were made.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub blobs: Vec<Value>,
    pub notes: Vec<String>,
    /// The bundle images the template names, each with its line: their bundles are what opm
    /// renders from the images (other bundles of a basic template are passed through as written).
    pub images: Vec<(String, u32)>,
    /// Indices into `blobs` of bundles the template holds as written (a substitutes template's
    /// entries): opm renders no image for them, so no migration touches them.
    pub as_written: Vec<usize>,
}

impl Rendered {
    /// The catalog as opm prints it (`-o json` or `-o yaml`).
    pub fn to_text(&self, format: OutFormat) -> String {
        emit::write_fbc(&self.blobs, format)
    }
}

impl Template {
    /// The template's schema.
    pub fn schema(&self) -> &'static str {
        match self.body {
            Body::Basic(_) => schemas::BASIC,
            Body::Semver(_) => schemas::SEMVER,
            Body::Substitutes(_) => schemas::SUBSTITUTES,
        }
    }

    /// The bundle images the template names, each with its line, in the order rendering resolves
    /// them.
    pub fn images(&self) -> Vec<(String, u32)> {
        match &self.body {
            Body::Basic(b) => b.images(),
            Body::Semver(s) => s.images(),
            Body::Substitutes(s) => s.images(),
        }
    }

    /// Renders the template as opm release `opm` renders it, resolving bundle images with `source`.
    pub fn render(
        &self,
        source: &dyn BundleSource,
        opm: OpmVersion,
    ) -> Result<Rendered, TemplateError> {
        let mut out = match &self.body {
            Body::Basic(b) => b.render(&self.file, source, opm)?,
            Body::Semver(s) => s.render(&self.file, source, opm)?,
            Body::Substitutes(s) => s.render(&self.file, source, opm)?,
        };
        let mut notes = self.notes.clone();
        notes.append(&mut out.notes);
        out.notes = notes;
        Ok(out)
    }
}

/// Reads a template file (see [`parse`]). An unreadable file is an `io::Error`.
pub fn read(path: &Path) -> std::io::Result<Result<Template, TemplateError>> {
    let text = read_text(path)?;
    Ok(parse(&path.display().to_string(), &text))
}

/// A template file's text: only a regular file is read (a FIFO would never end the read), of at
/// most the size of a catalog file, and only when it resolves inside the directory it is named in
/// or was found in (a symbolic link leading out of it is not followed).
pub fn read_text(path: &Path) -> std::io::Result<String> {
    use crate::guard::file;
    Ok(file::read_text_limited_within(
        file::dir_of(path),
        path,
        crate::catalog::load::MAX_FILE,
    )?)
}

/// Reads a template; its type comes from the first document's `schema`, as opm detects it.
pub fn parse(file: &str, text: &str) -> Result<Template, TemplateError> {
    let (node, notes) = first_document(file, text)?;
    parse_node(file, &node, notes)
}

/// Reads a template from its first document, already decoded (its long strings held in memory).
pub fn parse_node(
    file: &str,
    node: &Node,
    mut notes: Vec<String>,
) -> Result<Template, TemplateError> {
    let node = node.clone();
    let schema = detect(file, &node)?;
    let body = match schema.as_str() {
        schemas::BASIC => Body::Basic(basic::Basic::parse(file, &node, &mut notes)?),
        schemas::SEMVER => Body::Semver(semver::Semver::parse(file, &node)?),
        schemas::SUBSTITUTES => {
            Body::Substitutes(substitutes::Substitutes::parse(file, &node, &mut notes)?)
        }
        schemas::COMPOSITE | schemas::COMPOSITE_CATALOGS => {
            return Err(TemplateError::new(
                file,
                node.pos().line,
                format!(
                    "unknown template schema: {schema} (composite templates were removed from opm in v1.44.0; render each component's template on its own)"
                ),
            ));
        }
        other => {
            return Err(TemplateError::new(
                file,
                node.pos().line,
                format!("unknown template schema: {other}"),
            ));
        }
    };
    Ok(Template {
        file: file.to_string(),
        body,
        notes: std::mem::take(&mut notes),
    })
}

/// The schema of a text's first document when it is a template schema (basic, semver, substitutes
/// or composite), to tell a template file from a catalog file.
pub fn template_schema(text: &str) -> Option<&'static str> {
    let (node, _) = first_document("", text).ok()?;
    let schema = node.get_field("schema")?.as_str()?;
    [
        schemas::BASIC,
        schemas::SEMVER,
        schemas::SUBSTITUTES,
        schemas::COMPOSITE,
        schemas::COMPOSITE_CATALOGS,
    ]
    .into_iter()
    .find(|s| *s == schema)
}

/// The template's type, from `schema` (matched in any letter case, the last spelling winning, as
/// Go's JSON decoding does).
fn detect(file: &str, node: &Node) -> Result<String, TemplateError> {
    let Kind::Map(_) = node.kind else {
        return Err(TemplateError::new(
            file,
            node.pos().line,
            format!(
                "unmarshalling template schema: a template is a mapping with a schema field, found {}",
                a_type(node)
            ),
        ));
    };
    match node.get_field("schema") {
        None => Err(TemplateError::new(
            file,
            node.pos().line,
            "template input missing required 'schema' field",
        )),
        Some(v) => match &v.kind {
            Kind::Null => Err(TemplateError::new(
                file,
                v.pos().line,
                "template input missing required 'schema' field",
            )),
            Kind::String(_) if v.as_str() == Some("") => Err(TemplateError::new(
                file,
                v.pos().line,
                "template input missing required 'schema' field",
            )),
            Kind::String(_) => Ok(v.as_str().unwrap_or_default().to_string()),
            _ => Err(TemplateError::new(
                file,
                v.pos().line,
                format!(
                    "unmarshalling template schema: schema must be a string, found {}",
                    a_type(v)
                ),
            )),
        },
    }
}

/// The first document of a template file, with long strings read into memory. opm reads only the
/// first document; later ones are ignored (with a note).
fn first_document(file: &str, text: &str) -> Result<(Node, Vec<String>), TemplateError> {
    let mut diags = Vec::new();
    let docs = decode::decode(text, 0, file, &mut diags);
    let mut notes = Vec::new();
    let Some(first) = docs.first() else {
        let problems: Vec<Problem> = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| Problem::new(d.location.line, d.message.clone()))
            .collect();
        if problems.is_empty() {
            return Err(TemplateError::new(
                file,
                0,
                "the file holds no template (it is empty)",
            ));
        }
        return Err(TemplateError::many(file, problems));
    };
    let last_line = 1 + text
        .get(..first.end)
        .unwrap_or(text)
        .bytes()
        .filter(|&b| b == b'\n')
        .count() as u32;
    let problems: Vec<Problem> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error && d.location.line <= last_line)
        .map(|d| Problem::new(d.location.line, d.message.clone()))
        .collect();
    if !problems.is_empty() {
        return Err(TemplateError::many(file, problems));
    }
    for d in &diags {
        if d.severity == Severity::Warning && d.location.line <= last_line {
            notes.push(format!("{}:{}: {}", file, d.location.line, d.message));
        }
    }
    if docs.len() > 1 || diags.iter().any(|d| d.location.line > last_line) {
        notes.push(format!(
            "{file}: only the first document is a template; the rest of the file (from line {}) is ignored, as opm ignores it",
            last_line + 1
        ));
    }
    let mut node = first.node.clone();
    inline_strings(&mut node, text);
    Ok((node, notes))
}

/// Replaces strings left on disk by their text (the template is small and must stand alone).
fn inline_strings(node: &mut Node, text: &str) {
    match &mut node.kind {
        Kind::String(s) => {
            if let Str::Deferred { start, len, .. } = *s {
                let (start, len) = (start as usize, len as usize);
                *s = Str::new(text.get(start..start + len).unwrap_or_default());
            }
        }
        Kind::Seq(items) => items.iter_mut().for_each(|i| inline_strings(i, text)),
        Kind::Map(entries) => {
            for e in entries {
                inline_strings(&mut e.key, text);
                inline_strings(&mut e.value, text);
            }
        }
        Kind::Null | Kind::Bool(_) | Kind::Number(_) => {}
    }
}

/// A node (with its strings in memory) as JSON, numbers as opm reads them.
pub(crate) fn to_value(node: &Node) -> Value {
    match &node.kind {
        Kind::Null => Value::Null,
        Kind::Bool(b) => Value::Bool(*b),
        Kind::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        Kind::String(s) => Value::String(s.as_inline().unwrap_or_default().to_string()),
        Kind::Seq(items) => Value::Array(items.iter().map(to_value).collect()),
        Kind::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|e| (e.key_str().to_string(), to_value(&e.value)))
                .collect(),
        ),
    }
}

/// "a string", "a number", "a list", "a mapping", "null", for messages.
pub(crate) fn a_type(node: &Node) -> &'static str {
    match node.kind {
        Kind::Null => "null",
        Kind::Bool(_) => "a boolean",
        Kind::Number(_) => "a number",
        Kind::String(_) => "a string",
        Kind::Seq(_) => "a list",
        Kind::Map(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests;
