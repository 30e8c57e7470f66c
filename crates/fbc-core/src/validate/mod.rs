//! Checking a catalog: every rule opm applies (same verdict), all problems at once with their file and
//! line, plus lints for mistakes opm lets through.
//!
//! ```text
//! let report = validate(&catalog);          // everything
//! let mut v = Validation::run(&catalog);    // or keep the state, and after an edit:
//! v.revalidate(&catalog, &["my-package"]);  // re-check only what the edit touched
//! ```

/// The codes of catalog checks (`FBC00x` reading files, `FBC010`–`FBC099` what opm rejects, `FBC1xx`
/// checks opm does not make, `FBC3xx` profile rules), defined in the registry [`crate::catalog::codes`].
pub use crate::catalog::codes::catalog as codes;
pub(crate) mod lint;
pub mod opm;
pub mod profile;
mod rules;
pub mod shape;

use crate::guard::keyed::Map;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::catalog::diagnostic::{Diagnostic, OpmStage, Severity};
use crate::catalog::model::property_type;
use crate::catalog::node::{Kind, Node, Str};
use crate::catalog::payload::Payload;
use crate::catalog::{BlobId, BlobState, Catalog, schema};
use crate::text::escape::go_quote;

/// All problems of a catalog, sorted by file, line and code.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    /// Valid as opm sees it: no errors (warnings and notes allowed).
    pub fn is_valid(&self) -> bool {
        self.count(Severity::Error) == 0
    }
}

/// Checks everything.
pub fn validate(catalog: &Catalog) -> Report {
    Validation::run(catalog).report()
}

/// Validation results kept per package, so an edit re-checks only the packages it touched.
#[derive(Debug, Default)]
pub struct Validation {
    /// Problems of the catalog as a whole: loading, and blobs that belong to no package.
    global: Vec<Diagnostic>,
    packages: BTreeMap<String, Vec<Diagnostic>>,
    /// Shape problems of blobs unchanged since loading (checking them may read large strings).
    shapes: Map<BlobId, Vec<Diagnostic>>,
}

impl Validation {
    /// Checks the whole catalog.
    pub fn run(catalog: &Catalog) -> Validation {
        let cx = Cx::new(catalog);
        let names = catalog.index().package_names();
        type PackageResult = (String, Vec<Diagnostic>, Vec<(BlobId, Vec<Diagnostic>)>);
        let results: Vec<PackageResult> = names
            .par_iter()
            .map(|name| {
                let mut shapes = Vec::new();
                let diags = check_package(&cx, name, &Map::default(), &mut shapes);
                (name.clone(), diags, shapes)
            })
            .collect();
        let mut v = Validation::default();
        for (name, diags, shapes) in results {
            v.packages.insert(name, diags);
            v.shapes.extend(shapes);
        }
        v.global = check_global(&cx);
        v
    }

    /// Checks only the named packages and the catalog as a whole (loading, blobs that belong to no
    /// package): all an edit of those packages can change. The other packages go unchecked, so
    /// the report says nothing about them.
    pub fn run_packages(catalog: &Catalog, packages: &[&str]) -> Validation {
        let mut v = Validation::default();
        v.revalidate(catalog, packages);
        v
    }

    /// Re-checks the named packages (and the blobs that belong to none) after an edit. Packages that
    /// no longer exist are dropped.
    pub fn revalidate(&mut self, catalog: &Catalog, packages: &[&str]) {
        let cx = Cx::new(catalog);
        for &name in packages {
            if catalog.index().package(name).is_none() {
                self.packages.remove(name);
                continue;
            }
            let mut shapes = Vec::new();
            let diags = check_package(&cx, name, &self.shapes, &mut shapes);
            self.shapes.extend(shapes);
            self.packages.insert(name.to_string(), diags);
        }
        self.global = check_global(&cx);
    }

    /// Drops what is kept of blobs whose value was replaced in place (a text laid over their file,
    /// [`Catalog::overlay`]): their next check reads them afresh.
    pub fn forget(&mut self, blobs: &[BlobId]) {
        for b in blobs {
            self.shapes.remove(b);
        }
    }

    /// The problems of the catalog as a whole (loading, blobs that belong to no package), sorted.
    pub fn global(&self) -> &[Diagnostic] {
        &self.global
    }

    /// The problems of one package, sorted.
    pub fn package(&self, name: &str) -> &[Diagnostic] {
        self.packages.get(name).map_or(&[], Vec::as_slice)
    }

    /// Everything, sorted.
    pub fn report(&self) -> Report {
        let mut diagnostics: Vec<Diagnostic> = self
            .global
            .iter()
            .chain(self.packages.values().flatten())
            .cloned()
            .collect();
        sort(&mut diagnostics);
        Report { diagnostics }
    }
}

fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

/// What rules need: the catalog, and a way to read strings left on disk.
pub(crate) struct Cx<'c> {
    pub catalog: &'c Catalog,
    handles: Vec<OnceLock<Option<std::fs::File>>>,
}

impl<'c> Cx<'c> {
    fn new(catalog: &'c Catalog) -> Self {
        Cx {
            catalog,
            handles: (0..catalog.files.len()).map(|_| OnceLock::new()).collect(),
        }
    }

    /// What a string left on disk decodes to: the load's verdict when it checked it, else the
    /// string is read (one positioned read from a handle opened once per file, and only if the file
    /// is unchanged since loading) and decoded. `None` when it cannot be read.
    pub fn payload(&self, file: u32, start: u32, len: u32) -> Option<Payload> {
        let checked = self.catalog.files.get(file as usize)?.checked.as_deref();
        if let Some(verdict) = checked.and_then(|c| c.get(start, len)) {
            return Some(verdict.clone());
        }
        thread_local! {
            static RAW: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
        }
        crate::catalog::payload::with_spare(&RAW, |raw| {
            self.read_bytes(file as usize, u64::from(start), len as usize, raw)
                .then(|| Payload::of(raw))
        })
    }

    /// A string left on disk decoded as base64: `Err(at)` at the first bad byte.
    pub fn base64(&self, s: &Str) -> Option<Result<(), usize>> {
        match s {
            Str::Inline(t) => Some(crate::text::go_base64::decode(t).map(drop)),
            Str::Deferred { file, start, len } => {
                let checked = self.catalog.files.get(*file as usize)?.checked.as_deref();
                checked
                    .and_then(|c| c.base64(*start, *len))
                    .or_else(|| Some(self.payload(*file, *start, *len)?.base64()))
            }
        }
    }

    /// Bytes `start..start+len` of a catalog file as loaded: kept by the load when it checked the
    /// file (a retyped scalar's text), else read.
    pub fn read_range(&self, file: usize, start: u64, len: usize) -> Option<String> {
        let checked = self.catalog.files.get(file)?.checked.as_deref();
        if let (Some(c), Ok(s), Ok(l)) = (checked, u32::try_from(start), u32::try_from(len))
            && let Some(text) = c.text(s, l)
        {
            return Some(text.to_string());
        }
        let mut buf = Vec::new();
        self.read_bytes(file, start, len, &mut buf)
            .then(|| String::from_utf8(buf).ok())
            .flatten()
    }

    /// Reads bytes `start..start+len` of a catalog file into `buf`; false when the file cannot be read
    /// or changed since it was loaded.
    pub fn read_bytes(&self, file: usize, start: u64, len: usize, buf: &mut Vec<u8>) -> bool {
        let Some(slot) = self.handles.get(file) else {
            return false;
        };
        let handle = slot.get_or_init(|| {
            let f = self.catalog.files.get(file)?;
            let (h, meta) = crate::guard::file::open_regular(&f.abs).ok()?;
            (meta.len() == f.len && meta.modified().ok() == f.modified).then_some(h)
        });
        let Some(h) = handle.as_ref() else {
            return false;
        };
        buf.resize(len, 0);
        read_at(h, buf, start).is_ok()
    }
}

#[cfg(unix)]
fn read_at(h: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    h.read_exact_at(buf, at)
}

#[cfg(not(unix))]
fn read_at(h: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut h = h.try_clone()?;
    h.seek(SeekFrom::Start(at))?;
    h.read_exact(buf)
}

fn check_global(cx: &Cx) -> Vec<Diagnostic> {
    let cat = cx.catalog;
    let mut out: Vec<Diagnostic> = cat.diagnostics.clone();
    let unowned = &cat.index().unowned;
    for &id in unowned {
        out.extend(blob_shape(cx, id));
    }
    rules::unowned(cx, unowned, &mut out);
    lint::unowned(cx, unowned, &mut out);
    sort(&mut out);
    out
}

fn check_package(
    cx: &Cx,
    name: &str,
    cache: &Map<BlobId, Vec<Diagnostic>>,
    computed: &mut Vec<(BlobId, Vec<Diagnostic>)>,
) -> Vec<Diagnostic> {
    let cat = cx.catalog;
    let Some(idx) = cat.index().package(name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let ids = idx
        .packages
        .iter()
        .chain(&idx.channels)
        .chain(&idx.bundles)
        .chain(&idx.deprecations)
        .chain(&idx.others);
    for &id in ids {
        let blob = cat.blob(id);
        let pristine = blob.state == BlobState::Loaded && blob.original.is_none();
        match cache.get(&id) {
            Some(found) if pristine => out.extend(found.iter().cloned()),
            _ => {
                let diags = blob_shape(cx, id);
                out.extend(diags.iter().cloned());
                if pristine {
                    computed.push((id, diags));
                }
            }
        }
    }
    for d in &mut out {
        if d.object.package.is_none() {
            d.object.package = Some(name.to_string());
        }
    }
    let p = rules::Pkg::read(cx, idx);
    rules::check_package(cx, &p, &mut out);
    lint::package(cx, &p, &mut out);
    sort(&mut out);
    out
}

/// Problems with the shape of one blob: fields of the wrong type for opm's structs, bundle property
/// values that do not decode, and bundle objects that are not base64 of a manifest.
fn blob_shape(cx: &Cx, id: BlobId) -> Vec<Diagnostic> {
    let cat = cx.catalog;
    let blob = cat.blob(id);
    let (st, what) = match blob.schema() {
        schema::PACKAGE => (&shape::PACKAGE, "package"),
        schema::CHANNEL => (&shape::CHANNEL, "channel"),
        schema::BUNDLE => (&shape::BUNDLE, "bundle"),
        schema::DEPRECATIONS => (&shape::DEPRECATION, "deprecation"),
        _ => return Vec::new(),
    };
    let base64 = |s: &Str| cx.base64(s);
    let mut mismatches = Vec::new();
    shape::check(&blob.value, st, &base64, &mut mismatches);
    let file = &cat.files[blob.file].path;
    let mut out: Vec<Diagnostic> = mismatches
        .into_iter()
        .map(|m| {
            type_diag(
                codes::TYPE,
                file,
                m,
                OpmStage::Load,
                format!("parse {what}: "),
            )
        })
        .collect();
    if blob.schema() == schema::BUNDLE {
        bundle_properties(cx, id, &mut out);
    }
    for d in &mut out {
        if blob.schema() == schema::BUNDLE {
            d.object.bundle = Some(blob.name().to_string());
        } else if blob.schema() == schema::CHANNEL {
            d.object.channel = Some(blob.name().to_string());
        }
    }
    out
}

fn type_diag(
    code: &'static str,
    file: &str,
    m: shape::Mismatch,
    stage: OpmStage,
    prefix: String,
) -> Diagnostic {
    let mut d = Diagnostic::error(
        code,
        crate::catalog::Location::new(file, m.line, m.col),
        m.message,
    )
    .with_opm(stage, format!("{prefix}{}", m.go));
    if m.yaml_trap {
        d = d.with_hint("quote the value: YAML 1.1 (which opm reads) turned the unquoted text into a number or boolean");
    }
    d
}

fn bundle_properties(cx: &Cx, id: BlobId, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let blob = cat.blob(id);
    let file = &cat.files[blob.file].path;
    let (pkg, name) = (blob.package(), blob.name());
    let Some(props) = blob.value.get_field("properties").and_then(Node::as_seq) else {
        return;
    };
    for (i, prop) in props.iter().enumerate() {
        if !matches!(prop.kind, Kind::Map(_)) {
            continue;
        }
        let type_ = prop
            .get_field("type")
            .and_then(Node::as_str)
            .unwrap_or_default();
        let value = prop.get_field("value");
        let object = type_ == property_type::BUNDLE_OBJECT;
        let (code, stage) = if object {
            (codes::BUNDLE_OBJECT, OpmStage::Load)
        } else {
            (codes::PROPERTY, OpmStage::Convert)
        };
        // Worded only for a problem: most properties have none.
        let prefix = || {
            if object {
                format!(
                    "read bundle objects: package {}, bundle {}: parse property at index {i} as bundle object: ",
                    go_quote(pkg),
                    go_quote(name)
                )
            } else {
                format!(
                    "parse properties for bundle {}: parse property[{i}] of type {}: ",
                    go_quote(name),
                    go_quote(type_)
                )
            }
        };
        let Some(value) = value else {
            out.push(
                Diagnostic::error(
                    code,
                    cat.node_location(id, prop),
                    format!("properties[{i}] ({type_}) has no value"),
                )
                .with_opm(stage, format!("{}unexpected end of JSON input", prefix())),
            );
            continue;
        };
        let Some(st) = shape::property_struct(type_) else {
            continue;
        };
        let base64 = |s: &Str| if object { None } else { cx.base64(s) };
        let mut mismatches = Vec::new();
        shape::check(value, st, &base64, &mut mismatches);
        let bad = !mismatches.is_empty();
        if bad {
            let prefix = prefix();
            for mut m in mismatches {
                m.message = format!(
                    "properties[{i}] ({type_}): {}",
                    m.message.replacen("the value", "value", 1)
                );
                out.push(type_diag(code, file, m, stage, prefix.clone()));
            }
        }
        if object && !bad {
            manifest(cx, id, i, value, out);
        }
    }
}

/// An `olm.bundle.object`'s data must decode to a JSON or YAML manifest (opm converts it at load).
/// Long data left on disk was decoded by the load when it was asked to; else it is read here.
fn manifest(cx: &Cx, id: BlobId, i: usize, value: &Node, out: &mut Vec<Diagnostic>) {
    let cat = cx.catalog;
    let blob = cat.blob(id);
    let Some(data_node) = value.get_field("data") else {
        return;
    };
    let Some(data) = data_node.as_string() else {
        return;
    };
    let here = || cat.node_location(id, data_node);
    let opm = |what: String| {
        format!(
            "read bundle objects: package {}, bundle {}: {what}",
            go_quote(blob.package()),
            go_quote(blob.name())
        )
    };
    let verdict = match data {
        Str::Inline(t) => match Payload::of(t.as_bytes()) {
            // Short data was checked with the value's shape.
            Payload::NotBase64(_) => return,
            v => v,
        },
        Str::Deferred { file, start, len } => match cx.payload(*file, *start, *len) {
            Some(v) => v,
            None => return,
        },
    };
    let d = match verdict {
        Payload::Manifest => return,
        Payload::NotBase64(at) => Diagnostic::error(
            codes::BUNDLE_OBJECT,
            here(),
            format!("properties[{i}] (olm.bundle.object): data is not valid base64 (standard alphabet, padded): bad data at byte {at}"),
        )
        .with_opm(
            OpmStage::Load,
            opm(format!(
                "parse property at index {i} as bundle object: illegal base64 data at input byte {at}"
            )),
        ),
        Payload::NotManifest(err) => Diagnostic::error(
            codes::BUNDLE_OBJECT,
            here(),
            format!("properties[{i}] (olm.bundle.object): the decoded data is not a JSON or YAML manifest: {err}"),
        )
        .with_opm(
            OpmStage::Load,
            opm(format!(
                "convert bundle object property at index {i} to JSON: {err}"
            )),
        ),
    };
    out.push(d);
}
