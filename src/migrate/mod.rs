//! The legacy package-manifest format turned into file-based catalogs (`fbc-edit migrate`).
//!
//! A package-manifest directory holds a `*.package.yaml` (package name, channels with their
//! `currentCSV`, default channel) and the manifests of every version: either one subdirectory per
//! version (a ClusterServiceVersion, its CRDs and other objects), or, in the flat layout, the CSVs and
//! CRDs directly beside the package manifest. Channels are not listed anywhere: they are the chains
//! of `spec.replaces` from each `currentCSV`, with `spec.skips` and the `olm.skipRange` annotation.
//!
//! [`migrate`] first checks the rules the format requires, reporting every problem with its file and
//! line, then builds one `olm.package`, the `olm.channel`s and one `olm.bundle` per version in a
//! channel, and finally validates what it would write. Nothing is written when an error was found.

pub mod codes;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::bundle::{self, RegistryBundle, RenderOptions, node_json, read_dir_sorted, read_docs};
use crate::catalog::commit::{CommitOptions, Expect, PlannedFile, commit};
use crate::catalog::emit::{OutFormat, write_fbc};
use crate::catalog::image_ref::ImageRef;
use crate::catalog::semver_range::Range;
use crate::catalog::{Diagnostic, Location, Node, Severity};

/// How to migrate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Image reference of each bundle, with `{package}`, `{name}` (the CSV name) and `{version}`
    /// replaced; bundles get an empty image without it, as opm leaves it for a directory.
    pub image_template: Option<String>,
    /// One `olm.csv.metadata` property per bundle instead of an `olm.bundle.object` per manifest.
    pub csv_metadata: bool,
    /// The format of the written catalogs.
    pub format: OutFormat,
}

/// Why nothing could be migrated at all (as opposed to problems in the input, which are diagnostics).
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("{0}: not a directory")]
    NotADirectory(PathBuf),
    #[error(
        "{0}: not a package-manifest directory: no package manifest (*.package.yaml) in it or in its subdirectories"
    )]
    NoPackage(PathBuf),
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("output dir \"{0}\" must be empty")]
    OutputNotEmpty(PathBuf),
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    #[error("cannot write the catalog: {0}")]
    Commit(crate::catalog::commit::CommitError),
    #[error("{0}")]
    Usage(String),
}

/// A channel as migrated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSummary {
    pub name: String,
    pub head: String,
    pub entries: Vec<String>,
}

/// One package as migrated.
#[derive(Debug, Clone)]
pub struct MigratedPackage {
    pub name: String,
    /// The package's directory relative to the input directory (empty for the input itself).
    pub dir: String,
    pub default_channel: String,
    pub channels: Vec<ChannelSummary>,
    /// Bundle names, sorted.
    pub bundles: Vec<String>,
    /// The package, channel and bundle blobs.
    pub blobs: Vec<Value>,
    /// The catalog file's text, in the chosen format.
    pub text: String,
}

/// What [`migrate`] found and built.
#[derive(Debug, Clone, Default)]
pub struct Migration {
    /// Packages built, by name. Complete only when there is no error.
    pub packages: Vec<MigratedPackage>,
    /// Every problem found, sorted by file and line; files are relative to the input directory.
    pub diagnostics: Vec<Diagnostic>,
    /// Warnings our validator gives the migrated catalogs (`fbc-edit validate` shows them).
    pub output_warnings: usize,
    pub format: OutFormat,
}

impl Migration {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// The catalog file written in each package directory.
    pub fn file_name(&self) -> &'static str {
        match self.format {
            OutFormat::Json => "catalog.json",
            OutFormat::Yaml => "catalog.yaml",
        }
    }

    /// Writes `<out>/<package>/catalog.json|yaml` for every package. `out` must be empty or absent;
    /// nothing is written when an error was found. Returns the files written.
    pub fn write(&self, out: &Path) -> Result<Vec<PathBuf>, MigrateError> {
        if self.errors() > 0 {
            return Err(MigrateError::Usage(format!(
                "not written: {} error(s) found",
                self.errors()
            )));
        }
        check_output_dir(out)?;
        std::fs::create_dir_all(out).map_err(|e| MigrateError::Write(out.to_path_buf(), e))?;
        // One commit for every package: all files or none, nothing through a link.
        let planned: Vec<PlannedFile> = self
            .packages
            .iter()
            .map(|p| PlannedFile {
                rel: format!("{}/{}", p.name, self.file_name()),
                bytes: p.text.clone().into_bytes(),
                expect: Expect::Absent,
            })
            .collect();
        commit(out, &planned, &CommitOptions::default()).map_err(MigrateError::Commit)?;
        Ok(planned.iter().map(|p| out.join(&p.rel)).collect())
    }
}

/// `out` must be absent or an empty directory (opm's rule for `opm migrate`).
pub fn check_output_dir(out: &Path) -> Result<(), MigrateError> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(MigrateError::OutputNotEmpty(out.to_path_buf()))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if out.exists() => Err(MigrateError::OutputNotEmpty(out.to_path_buf())),
        Err(e) => Err(MigrateError::Read(out.to_path_buf(), e)),
    }
}

/// Checks an image template: only `{package}`, `{name}` and `{version}` may appear in braces.
pub fn check_image_template(template: &str) -> Result<(), MigrateError> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(MigrateError::Usage(format!(
                "image template {template:?}: an unclosed '{{'"
            )));
        };
        let key = &after[..close];
        if !["package", "name", "version"].contains(&key) {
            return Err(MigrateError::Usage(format!(
                "image template {template:?}: unknown placeholder {{{key}}} (use {{package}}, {{name}} or {{version}})"
            )));
        }
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(MigrateError::Usage(format!(
            "image template {template:?}: a '}}' without '{{'"
        )));
    }
    Ok(())
}

fn fill_template(template: &str, package: &str, name: &str, version: &str) -> String {
    template
        .replace("{package}", package)
        .replace("{name}", name)
        .replace("{version}", version)
}

// ---------------------------------------------------------------------------------------------
// Reading the directory.

const EXTENSIONS: &[&str] = &["yaml", "yml", "json"];

fn catalog_extension(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

fn at(rel: &str, node: &Node) -> Location {
    Location::new(rel, node.pos.line, node.pos.col)
}

/// A field's key position (falling back to the mapping's own), and its value.
fn field<'n>(node: &'n Node, key: &str) -> Option<(&'n Node, &'n Node)> {
    node.get_field_entry(key).map(|e| (&e.key, &e.value))
}

fn node_str<'n>(node: &'n Node, text: &'n str) -> Option<String> {
    match node_json(node, text) {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// A package manifest as read.
#[derive(Debug, Clone)]
struct Manifest {
    file: String,
    name: String,
    name_loc: Location,
    channels: Vec<ChannelDecl>,
    default: Option<(String, Location)>,
}

#[derive(Debug, Clone)]
struct ChannelDecl {
    name: String,
    current: String,
    current_loc: Location,
}

/// A ClusterServiceVersion as read, with the places of its upgrade fields.
#[derive(Debug, Clone)]
struct Csv {
    name: String,
    file: String,
    file_name: String,
    loc: Location,
    value: Value,
    replaces: Option<String>,
    replaces_loc: Location,
    skips: Vec<String>,
    skips_loc: Location,
    skip_range: Option<String>,
    /// Owned CRD names (`plural.group`) with where each is listed.
    owned: Vec<(String, Location)>,
    icon_loc: Location,
}

#[derive(Debug, Clone)]
enum What {
    Manifest(Box<Manifest>),
    Csv(Box<Csv>),
    /// A CRD and its `metadata.name`.
    Crd(String),
    /// Another Kubernetes object.
    Object,
    /// Read, but no Kubernetes object and no package manifest (`empty` when it holds no document).
    Other {
        empty: bool,
        loc: Location,
    },
    /// Not a `.yaml`, `.yml` or `.json` file.
    Unread,
    /// Cannot be read or parsed (reported).
    Broken,
}

#[derive(Debug, Clone)]
struct File {
    name: String,
    rel: String,
    what: What,
}

/// A directory of manifests: a version directory, or the package directory itself.
#[derive(Debug, Clone)]
struct Dir {
    path: PathBuf,
    /// Prefix of its files relative to the input (`"etcd/0.9.2/"`), empty for the input itself.
    rel: String,
    files: Vec<File>,
    /// Subdirectories (not read), as relative paths ending in `/`.
    subdirs: Vec<String>,
}

impl Dir {
    fn csvs(&self) -> impl Iterator<Item = &Csv> {
        self.files.iter().filter_map(|f| match &f.what {
            What::Csv(c) => Some(c.as_ref()),
            _ => None,
        })
    }
}

/// Reads the files (not the subdirectories) of `path`; `rel` is its prefix.
fn read_dir_files(path: &Path, rel: &str, diags: &mut Vec<Diagnostic>) -> Dir {
    let mut dir = Dir {
        path: path.to_path_buf(),
        rel: rel.to_string(),
        files: Vec::new(),
        subdirs: Vec::new(),
    };
    let entries = match read_dir_sorted(path) {
        Ok(e) => e,
        Err(e) => {
            diags.push(Diagnostic::error(
                codes::UNREADABLE,
                Location::new(rel.trim_end_matches('/'), 0, 0),
                format!("cannot read the directory: {e}"),
            ));
            return dir;
        }
    };
    for (name, is_dir) in entries {
        if name.starts_with('.') {
            continue;
        }
        if is_dir {
            dir.subdirs.push(format!("{rel}{name}/"));
            continue;
        }
        let file_rel = format!("{rel}{name}");
        let what = read_file(&path.join(&name), &file_rel, &name, diags);
        dir.files.push(File {
            name,
            rel: file_rel,
            what,
        });
    }
    dir
}

fn read_file(path: &Path, rel: &str, name: &str, diags: &mut Vec<Diagnostic>) -> What {
    if !catalog_extension(name) {
        return What::Unread;
    }
    let mut found = Vec::new();
    let Some((text, nodes)) = read_docs(path, rel, &mut found, codes::UNREADABLE) else {
        diags.extend(found);
        return What::Broken;
    };
    let broken = found.iter().any(|d| d.severity == Severity::Error);
    diags.extend(found);
    if broken {
        return What::Broken;
    }
    let Some(Some(doc)) = nodes.first() else {
        return What::Other {
            empty: true,
            loc: Location::new(rel, 0, 0),
        };
    };
    let value = node_json(doc, &text);
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.is_empty() && doc.get_field("packageName").is_some() {
        return What::Manifest(Box::new(read_manifest(doc, &text, rel, diags)));
    }
    match kind {
        "" => What::Other {
            empty: false,
            loc: at(rel, doc),
        },
        "ClusterServiceVersion" => {
            What::Csv(Box::new(read_csv(doc, &text, value, rel, name, diags)))
        }
        "CustomResourceDefinition" => What::Crd(
            value
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        ),
        _ => What::Object,
    }
}

fn read_manifest(doc: &Node, text: &str, rel: &str, diags: &mut Vec<Diagnostic>) -> Manifest {
    let bad = |loc: Location, msg: String| Diagnostic::error(codes::PACKAGE_MANIFEST, loc, msg);
    let mut m = Manifest {
        file: rel.to_string(),
        name: String::new(),
        name_loc: at(rel, doc),
        channels: Vec::new(),
        default: None,
    };
    if let Some((key, value)) = field(doc, "packageName") {
        m.name_loc = at(rel, key);
        match node_str(value, text) {
            Some(s) if s.is_empty() => {
                diags.push(bad(m.name_loc.clone(), "packageName is empty".into()))
            }
            Some(s) => {
                let problems = crate::validate::dns1123_label(&s);
                if !problems.is_empty() {
                    diags.push(
                        bad(
                            m.name_loc.clone(),
                            format!(
                                "packageName {s:?} is not a valid package name: {}",
                                problems.join("; ")
                            ),
                        )
                        .with_hint("a package name is a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"),
                    );
                }
                m.name = s;
            }
            None => diags.push(bad(
                at(rel, value),
                format!("packageName is {}, not a string", a_type(value)),
            )),
        }
    }
    match field(doc, "channels") {
        None => diags.push(bad(
            at(rel, doc),
            "no channels: a package manifest lists at least one channel".into(),
        )),
        Some((key, value)) => match value.as_seq() {
            Some([]) => diags.push(bad(
                at(rel, key),
                "no channels: a package manifest lists at least one channel".into(),
            )),
            None if value.is_null() => diags.push(bad(
                at(rel, key),
                "no channels: a package manifest lists at least one channel".into(),
            )),
            None => diags.push(bad(
                at(rel, value),
                format!("channels is {}, not a list", a_type(value)),
            )),
            Some(items) => {
                let mut seen: BTreeMap<String, Location> = BTreeMap::new();
                for item in items {
                    let loc = at(rel, item);
                    if item.as_map().is_none() {
                        diags.push(bad(
                            loc,
                            format!(
                                "a channel is {}, not a mapping with name and currentCSV",
                                a_type(item)
                            ),
                        ));
                        continue;
                    }
                    let name = field(item, "name")
                        .and_then(|(_, v)| node_str(v, text))
                        .unwrap_or_default();
                    let (current, current_loc) = match field(item, "currentCSV") {
                        Some((k, v)) => (node_str(v, text).unwrap_or_default(), at(rel, k)),
                        None => (String::new(), loc.clone()),
                    };
                    if name.is_empty() {
                        diags.push(bad(loc.clone(), "a channel without a name".into()));
                        continue;
                    }
                    if let Some(first) = seen.get(&name) {
                        diags.push(
                            bad(loc.clone(), format!("channel {name:?} is listed twice"))
                                .with_related([first.clone()]),
                        );
                        continue;
                    }
                    seen.insert(name.clone(), loc.clone());
                    if current.is_empty() {
                        diags.push(Diagnostic::error(
                            codes::CURRENT_CSV,
                            current_loc.clone(),
                            format!("channel {name:?} has no currentCSV (the CSV at its head)"),
                        ));
                    }
                    m.channels.push(ChannelDecl {
                        name,
                        current,
                        current_loc,
                    });
                }
            }
        },
    }
    if let Some((key, value)) = field(doc, "defaultChannel")
        && let Some(s) = node_str(value, text).filter(|s| !s.is_empty())
    {
        m.default = Some((s, at(rel, key)));
    }
    m
}

fn read_csv(
    doc: &Node,
    text: &str,
    value: Value,
    rel: &str,
    file_name: &str,
    diags: &mut Vec<Diagnostic>,
) -> Csv {
    let metadata = doc.get_field("metadata");
    let spec = doc.get_field("spec");
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let loc = metadata
        .and_then(|m| field(m, "name"))
        .map(|(k, _)| at(rel, k))
        .unwrap_or_else(|| at(rel, doc));
    let bad = |loc: Location, msg: String| {
        Diagnostic::error(codes::UPGRADE_FIELD, loc, msg).for_bundle(&name)
    };
    let mut csv = Csv {
        name: name.clone(),
        file: rel.to_string(),
        file_name: file_name.to_string(),
        loc: loc.clone(),
        value: Value::Null,
        replaces: None,
        replaces_loc: loc.clone(),
        skips: Vec::new(),
        skips_loc: loc.clone(),
        skip_range: None,
        owned: Vec::new(),
        icon_loc: loc.clone(),
    };
    if let Some(spec) = spec {
        if let Some((key, v)) = field(spec, "replaces") {
            csv.replaces_loc = at(rel, key);
            match node_json(v, text) {
                Value::Null => {}
                Value::String(s) if s.is_empty() => {}
                Value::String(s) => csv.replaces = Some(s),
                _ => diags.push(bad(
                    csv.replaces_loc.clone(),
                    format!("spec.replaces is {}, not a CSV name", a_type(v)),
                )),
            }
        }
        if let Some((key, v)) = field(spec, "skips") {
            csv.skips_loc = at(rel, key);
            match v.as_seq() {
                Some(items) => {
                    for item in items {
                        match node_str(item, text) {
                            Some(s) if !s.is_empty() => csv.skips.push(s),
                            Some(_) => {
                                diags.push(bad(at(rel, item), "an empty name in spec.skips".into()))
                            }
                            None => diags.push(bad(
                                at(rel, item),
                                format!("spec.skips holds {}, not a CSV name", a_type(item)),
                            )),
                        }
                    }
                }
                None if v.is_null() => {}
                None => diags.push(bad(
                    at(rel, v),
                    format!("spec.skips is {}, not a list of CSV names", a_type(v)),
                )),
            }
        }
        if let Some((key, _)) = field(spec, "icon") {
            csv.icon_loc = at(rel, key);
        }
        if let Some(owned) = spec
            .get_field("customresourcedefinitions")
            .and_then(|c| c.get_field("owned"))
            .and_then(Node::as_seq)
        {
            for o in owned {
                let n = o
                    .get_field("name")
                    .and_then(|n| node_str(n, text))
                    .unwrap_or_default();
                let loc = field(o, "name")
                    .map(|(k, _)| at(rel, k))
                    .unwrap_or_else(|| at(rel, o));
                csv.owned.push((n, loc));
            }
        }
    }
    if let Some((key, v)) = metadata
        .and_then(|m| m.get_field("annotations"))
        .and_then(|a| field(a, "olm.skipRange"))
    {
        let loc = at(rel, key);
        match node_str(v, text) {
            Some(r) => match Range::parse(&r) {
                Ok(_) => csv.skip_range = Some(r),
                Err(e) => diags.push(bad(
                    loc,
                    format!("olm.skipRange {r:?} is not a valid semver range: {e}"),
                )),
            },
            None => diags.push(bad(
                loc,
                format!("olm.skipRange is {}, not a range", a_type(v)),
            )),
        }
    }
    csv.value = value;
    csv
}

// ---------------------------------------------------------------------------------------------
// Packages.

/// A package directory as read.
struct PackageDir {
    /// Directory prefix relative to the input (empty for the input itself).
    rel: String,
    /// `dirs[0]` is the package directory itself, then its version directories.
    dirs: Vec<Dir>,
    manifest: Manifest,
}

/// Migrates the package-manifest directory `dir`: a package directory, or a directory of them.
pub fn migrate(dir: &Path, opts: &Options) -> Result<Migration, MigrateError> {
    if !dir.is_dir() {
        return Err(MigrateError::NotADirectory(dir.to_path_buf()));
    }
    if let Some(t) = &opts.image_template {
        check_image_template(t)?;
    }
    if opts.csv_metadata && opts.image_template.is_none() {
        return Err(MigrateError::Usage(
            "--csv-metadata needs --image-template: a bundle without olm.bundle.object properties must have an image (opm validate: bundle image must be set)".into(),
        ));
    }
    let mut diags = Vec::new();
    let root = read_dir_files(dir, "", &mut diags);
    let mut packages = Vec::new();
    if let Some(manifest) = first_manifest(&root) {
        packages.push(read_package(root, manifest, &mut diags));
    } else {
        // A directory of package directories: only the subdirectories are read.
        let root_diags = std::mem::take(&mut diags);
        for f in &root.files {
            match &f.what {
                What::Csv(_) | What::Crd(_) | What::Object => diags.push(
                    Diagnostic::error(
                        codes::NO_PACKAGE_MANIFEST,
                        Location::new(&f.rel, 0, 0),
                        "a manifest beside package directories, with no package manifest of its own: it belongs to no package",
                    )
                    .with_hint("move it into its package's directory"),
                ),
                What::Broken => diags.extend(
                    root_diags
                        .iter()
                        .filter(|d| d.location.file == f.rel)
                        .cloned(),
                ),
                _ => diags.push(not_catalog(&f.rel, "file")),
            }
        }
        // Subdirectories without a package manifest, and whether they hold CSVs themselves (then
        // they look like version directories of a package whose manifest is missing).
        let mut orphans: Vec<(String, bool)> = Vec::new();
        for sub in &root.subdirs {
            let path = dir.join(sub.trim_end_matches('/'));
            let mut sub_diags = Vec::new();
            let d = read_dir_files(&path, sub, &mut sub_diags);
            if let Some(manifest) = first_manifest(&d) {
                diags.extend(sub_diags);
                packages.push(read_package(d, manifest, &mut diags));
            } else if d.csvs().next().is_some() {
                orphans.push((sub.clone(), true));
            } else if holds_csv(&d) {
                orphans.push((sub.clone(), false));
            } else {
                diags.push(not_catalog(sub, "directory"));
            }
        }
        let hint = "add <package>.package.yaml with packageName, channels (name, currentCSV) and defaultChannel";
        if packages.is_empty() && orphans.iter().any(|(_, direct)| *direct) {
            diags.push(
                Diagnostic::error(
                    codes::NO_PACKAGE_MANIFEST,
                    Location::new("", 0, 0),
                    "version directories with ClusterServiceVersions but no package manifest (*.package.yaml): the package's name and channels are unknown",
                )
                .with_hint(hint),
            );
        } else {
            for (sub, _) in orphans {
                diags.push(
                    Diagnostic::error(
                        codes::NO_PACKAGE_MANIFEST,
                        Location::new(sub.as_str(), 0, 0),
                        "holds ClusterServiceVersions but no package manifest (*.package.yaml): its package's name and channels are unknown",
                    )
                    .with_hint(hint),
                );
            }
        }
        if packages.is_empty() && !diags.iter().any(|d| d.code == codes::NO_PACKAGE_MANIFEST) {
            return Err(MigrateError::NoPackage(dir.to_path_buf()));
        }
    }

    // Two packages of the same name.
    let mut names: BTreeMap<String, Location> = BTreeMap::new();
    for p in &packages {
        if p.manifest.name.is_empty() {
            continue;
        }
        if let Some(first) = names.get(&p.manifest.name) {
            diags.push(
                Diagnostic::error(
                    codes::DUPLICATE_PACKAGE,
                    p.manifest.name_loc.clone(),
                    format!("package {:?} is declared twice", p.manifest.name),
                )
                .with_related([first.clone()])
                .in_package(&p.manifest.name),
            );
        } else {
            names.insert(p.manifest.name.clone(), p.manifest.name_loc.clone());
        }
    }

    let mut migrated = Vec::new();
    for p in &packages {
        if let Some(m) = build_package(p, opts, &mut diags) {
            migrated.push(m);
        }
    }
    migrated.sort_by(|a, b| a.name.cmp(&b.name));

    let mut m = Migration {
        packages: migrated,
        diagnostics: Vec::new(),
        output_warnings: 0,
        format: opts.format,
    };
    if !diags.iter().any(|d| d.severity == Severity::Error) {
        m.output_warnings = verify(&m, &packages, &mut diags);
    }
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diags.dedup_by(|a, b| a.code == b.code && a.location == b.location && a.message == b.message);
    m.diagnostics = diags;
    Ok(m)
}

fn not_catalog(rel: &str, what: &str) -> Diagnostic {
    Diagnostic::info(
        codes::NOT_CATALOG_DATA,
        Location::new(rel, 0, 0),
        format!("{what} is no part of the package-manifest format: it is not migrated"),
    )
}

/// Whether a directory or one of its subdirectories holds a CSV.
fn holds_csv(d: &Dir) -> bool {
    d.csvs().next().is_some()
        || d.subdirs.iter().any(|s| {
            let path = d.path.join(Path::new(s).file_name().unwrap_or_default());
            read_dir_files(&path, s, &mut Vec::new())
                .csvs()
                .next()
                .is_some()
        })
}

/// The package manifests of a directory, in file order.
fn manifests(d: &Dir) -> impl Iterator<Item = &Manifest> {
    d.files.iter().filter_map(|f| match &f.what {
        What::Manifest(m) => Some(m.as_ref()),
        _ => None,
    })
}

/// The manifest a package directory is read from: its first (a directory without one is no package).
fn first_manifest(d: &Dir) -> Option<Manifest> {
    manifests(d).next().cloned()
}

/// Reads a package directory whose package manifest is `manifest`.
fn read_package(root: Dir, manifest: Manifest, diags: &mut Vec<Diagnostic>) -> PackageDir {
    let rel = root.rel.clone();
    for other in manifests(&root).skip(1) {
        diags.push(
            Diagnostic::error(
                codes::PACKAGE_MANIFEST,
                other.name_loc.clone(),
                format!(
                    "a second package manifest in one directory; the package is read from {}",
                    manifest.file
                ),
            )
            .with_related([manifest.name_loc.clone()])
            .with_hint("keep one *.package.yaml per package directory"),
        );
    }
    // The package directory's own files: the manifest, flat-layout manifests, and other files.
    for f in &root.files {
        match &f.what {
            What::Other { empty: false, .. } | What::Unread => {
                diags.push(not_catalog(&f.rel, "file"))
            }
            _ => {}
        }
    }
    let subdirs = root.subdirs.clone();
    let mut dirs = vec![root];
    for sub in subdirs {
        let path = dirs[0].path.join(
            Path::new(sub.trim_end_matches('/'))
                .file_name()
                .unwrap_or_default(),
        );
        let d = read_dir_files(&path, &sub, diags);
        for s in &d.subdirs {
            diags.push(Diagnostic::info(
                codes::NOT_CATALOG_DATA,
                Location::new(s.as_str(), 0, 0),
                "a directory inside a version directory is not read: it is not migrated",
            ));
        }
        let mut has_manifests = false;
        for f in &d.files {
            match &f.what {
                What::Unread => diags.push(not_catalog(&f.rel, "file")),
                What::Other { empty: false, loc } => {
                    has_manifests = true;
                    diags.push(Diagnostic::error(
                        bundle::codes::MANIFEST,
                        loc.clone(),
                        "not a Kubernetes object (no `kind`) and not a package manifest",
                    ));
                }
                What::Manifest(m) => {
                    has_manifests = true;
                    diags.push(Diagnostic::error(
                        codes::PACKAGE_MANIFEST,
                        m.name_loc.clone(),
                        "a package manifest inside a version directory: it belongs beside the version directories",
                    ));
                }
                What::Csv(_) | What::Crd(_) | What::Object | What::Broken => has_manifests = true,
                What::Other { empty: true, .. } => {}
            }
        }
        let csvs: Vec<&Csv> = d.csvs().collect();
        if csvs.is_empty() {
            if has_manifests {
                diags.push(
                    Diagnostic::error(
                        codes::NO_CSV,
                        Location::new(sub.as_str(), 0, 0),
                        "a version directory with manifests but no ClusterServiceVersion: its manifests belong to no bundle",
                    )
                    .with_hint("a version directory holds one CSV and the CRDs and objects of that version"),
                );
            } else {
                diags.push(not_catalog(&sub, "directory"));
            }
        } else if csvs.len() > 1 {
            let names: Vec<String> = csvs
                .iter()
                .map(|c| format!("{} ({})", c.name, c.file_name))
                .collect();
            diags.push(
                Diagnostic::warning(
                    codes::SEVERAL_CSVS,
                    Location::new(sub.as_str(), 0, 0),
                    format!(
                        "{} ClusterServiceVersions in one version directory: {}; each becomes its own bundle, with the CRDs it owns and the directory's other objects",
                        csvs.len(),
                        names.join(", ")
                    ),
                )
                .with_related(csvs.iter().map(|c| c.loc.clone()))
                .with_hint("give each version its own directory"),
            );
        }
        dirs.push(d);
    }
    PackageDir {
        rel,
        dirs,
        manifest,
    }
}

/// The files of a CSV's bundle: in a directory with one CSV, every Kubernetes object in it; where
/// several CSVs share a directory (the flat layout), the CSV, the CRDs it owns and the objects that
/// are neither CSVs nor CRDs.
fn bundle_files(dir: &Dir, csv: &Csv) -> BTreeSet<String> {
    let shared = dir.csvs().count() > 1;
    let owned: BTreeSet<&str> = csv.owned.iter().map(|(n, _)| n.as_str()).collect();
    dir.files
        .iter()
        .filter(|f| match &f.what {
            What::Csv(c) => c.file == csv.file,
            What::Crd(name) => !shared || owned.contains(name.as_str()),
            What::Object => true,
            _ => false,
        })
        .map(|f| f.name.clone())
        .collect()
}

/// A channel built from its head.
struct BuiltChannel {
    entries: Vec<Value>,
    names: Vec<String>,
    /// CSVs reached but left out, with the skipped CSV where the chain stopped.
    dropped: Vec<(String, Option<String>)>,
}

/// Walks from the head along `spec.replaces`, adds the CSVs the chain skips, then leaves out what
/// OLM would strand (reached only through the replaces of a skipped CSV), until nothing is stranded.
fn build_channel(head: &str, csvs: &BTreeMap<String, Csv>) -> BuiltChannel {
    let chain = replaces_chain(head, csvs);
    let on_chain: BTreeSet<String> = chain.iter().cloned().collect();
    let mut skipped_only: Vec<String> = Vec::new();
    for m in &chain {
        for s in &csvs[m].skips {
            if csvs.contains_key(s) && !on_chain.contains(s) && !skipped_only.contains(s) {
                skipped_only.push(s.clone());
            }
        }
    }
    let no_skips: Vec<String> = Vec::new();
    let skips_of = |n: &str| -> &Vec<String> {
        if on_chain.contains(n) {
            &csvs[n].skips
        } else {
            &no_skips
        }
    };
    let replaces_of = |n: &str| -> Option<&str> {
        if on_chain.contains(n) {
            csvs[n].replaces.as_deref()
        } else {
            None
        }
    };
    let mut kept: BTreeSet<String> = chain.iter().chain(&skipped_only).cloned().collect();
    let mut dropped = Vec::new();
    loop {
        let skipped: BTreeSet<&str> = kept
            .iter()
            .flat_map(|n| skips_of(n).iter().map(String::as_str))
            .collect();
        let mut walked: BTreeSet<&str> = BTreeSet::from([head]);
        let mut cur = head;
        let mut stop = None;
        while let Some(r) = replaces_of(cur) {
            if skipped.contains(r) {
                stop = Some(r.to_string());
                break;
            }
            if walked.contains(r) || !kept.contains(r) {
                break;
            }
            walked.insert(r);
            cur = r;
        }
        let stranded: Vec<String> = kept
            .iter()
            .filter(|n| !walked.contains(n.as_str()) && !skipped.contains(n.as_str()))
            .cloned()
            .collect();
        if stranded.is_empty() {
            break;
        }
        for s in stranded {
            kept.remove(&s);
            dropped.push((s, stop.clone()));
        }
    }
    // Oldest first: the chain from its tail to the head, each CSV a chain member skips just before it.
    let mut names: Vec<String> = Vec::new();
    for m in chain.iter().rev() {
        if !kept.contains(m) {
            continue;
        }
        for s in &csvs[m].skips {
            if skipped_only.contains(s) && kept.contains(s) && !names.contains(s) {
                names.push(s.clone());
            }
        }
        names.push(m.clone());
    }
    let entries = names
        .iter()
        .map(|n| {
            let c = &csvs[n];
            let mut e = Map::new();
            e.insert("name".into(), Value::String(n.clone()));
            if on_chain.contains(n) {
                if let Some(r) = &c.replaces {
                    e.insert("replaces".into(), Value::String(r.clone()));
                }
                if !c.skips.is_empty() {
                    e.insert(
                        "skips".into(),
                        Value::Array(c.skips.iter().cloned().map(Value::String).collect()),
                    );
                }
            }
            if let Some(r) = &c.skip_range {
                e.insert("skipRange".into(), Value::String(r.clone()));
            }
            Value::Object(e)
        })
        .collect();
    BuiltChannel {
        entries,
        names,
        dropped,
    }
}

/// A value's JSON type with its article, for messages ("an object", "a string").
fn a_type(node: &Node) -> &'static str {
    match node.type_name() {
        "object" => "an object",
        "array" => "a list",
        "string" => "a string",
        "number" => "a number",
        "bool" => "true or false",
        _ => "null",
    }
}

/// The CSVs met walking `spec.replaces` from `head` (none when `head` is no CSV of the package),
/// stopping at a name that is no CSV or already met.
fn replaces_chain(head: &str, csvs: &BTreeMap<String, Csv>) -> Vec<String> {
    let mut chain: Vec<String> = Vec::new();
    let mut cur = csvs.get(head);
    while let Some(c) = cur {
        if chain.contains(&c.name) {
            break;
        }
        chain.push(c.name.clone());
        cur = c.replaces.as_deref().and_then(|r| csvs.get(r));
    }
    chain
}

/// Every cycle of `spec.replaces` among the package's CSVs, each once, starting at its smallest name.
fn replaces_cycles(csvs: &BTreeMap<String, Csv>) -> Vec<Vec<String>> {
    let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
    for start in csvs.keys() {
        let mut path: Vec<&str> = vec![start];
        let mut cur: &str = start;
        while let Some(next) = csvs.get(cur).and_then(|c| c.replaces.as_deref()) {
            if !csvs.contains_key(next) {
                break;
            }
            if let Some(i) = path.iter().position(|p| *p == next) {
                let mut cycle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
                let min = cycle
                    .iter()
                    .enumerate()
                    .min_by(|a, b| a.1.cmp(b.1))
                    .map(|(i, _)| i)
                    .unwrap_or(0);
                cycle.rotate_left(min);
                found.insert(cycle);
                break;
            }
            path.push(next);
            cur = next;
        }
    }
    found.into_iter().collect()
}

fn build_package(
    p: &PackageDir,
    opts: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Option<MigratedPackage> {
    let m = &p.manifest;
    let package = m.name.as_str();
    let start = diags.len();

    // The CSVs, by name.
    let mut csvs: BTreeMap<String, Csv> = BTreeMap::new();
    for c in p.dirs.iter().flat_map(Dir::csvs) {
        if c.name.is_empty() {
            continue; // reported by the bundle checks
        }
        if let Some(first) = csvs.get(&c.name) {
            diags.push(
                Diagnostic::error(
                    codes::DUPLICATE_CSV,
                    c.loc.clone(),
                    format!(
                        "a second ClusterServiceVersion named {}; the first is in {}",
                        c.name, first.file
                    ),
                )
                .with_related([first.loc.clone()])
                .for_bundle(&c.name),
            );
            continue;
        }
        csvs.insert(c.name.clone(), c.clone());
    }

    // Replaced CSVs exist, and replaces chains end: checked along the chains the channels follow
    // from their currentCSV, as opm's loader did; the replaces of a CSV no chain reaches is never
    // read (such a CSV is left out, or kept with its skipRange only when something skips it).
    let followed: BTreeSet<String> = m
        .channels
        .iter()
        .flat_map(|decl| replaces_chain(&decl.current, &csvs))
        .collect();
    for c in csvs.values().filter(|c| followed.contains(&c.name)) {
        if let Some(r) = &c.replaces
            && !csvs.contains_key(r)
        {
            diags.push(
                Diagnostic::error(
                    codes::REPLACES_MISSING,
                    c.replaces_loc.clone(),
                    format!(
                        "{} replaces {r}, which is not a ClusterServiceVersion of package {package:?}",
                        c.name
                    ),
                )
                .with_hint("fix the name, add that version's directory, or remove spec.replaces if this is the first version")
                .for_bundle(&c.name),
            );
        }
    }
    for cycle in replaces_cycles(&csvs)
        .into_iter()
        .filter(|c| followed.contains(&c[0]))
    {
        let first = &csvs[&cycle[0]];
        let mut path = cycle.clone();
        path.push(cycle[0].clone());
        diags.push(
            Diagnostic::error(
                codes::CYCLE,
                first.replaces_loc.clone(),
                format!("spec.replaces forms a cycle: {}", path.join(" -> ")),
            )
            .with_related(cycle[1..].iter().map(|n| csvs[n].replaces_loc.clone()))
            .for_bundle(&first.name),
        );
    }

    // Channels.
    let default = match (&m.default, m.channels.as_slice()) {
        (Some((d, loc)), [only]) if &only.name != d => {
            diags.push(
                Diagnostic::warning(
                    codes::DEFAULT_CHANNEL_SINGLE,
                    loc.clone(),
                    format!(
                        "defaultChannel {d:?} is not a channel; the only channel, {}, is the default (as opm's loader made it)",
                        only.name
                    ),
                )
                .with_hint(format!("write defaultChannel: {}", only.name)),
            );
            only.name.clone()
        }
        (Some((d, loc)), _) => {
            if !m.channels.is_empty() && !m.channels.iter().any(|c| &c.name == d) {
                let names: Vec<&str> = m.channels.iter().map(|c| c.name.as_str()).collect();
                diags.push(Diagnostic::error(
                    codes::DEFAULT_CHANNEL,
                    loc.clone(),
                    format!(
                        "defaultChannel {d:?} is not one of the channels ({})",
                        names.join(", ")
                    ),
                ));
            }
            d.clone()
        }
        (None, [only]) => only.name.clone(),
        (None, []) => String::new(),
        (None, _) => {
            diags.push(
                Diagnostic::error(
                    codes::DEFAULT_CHANNEL,
                    m.name_loc.clone(),
                    "no defaultChannel, and there are several channels",
                )
                .with_hint("add defaultChannel: <the channel users subscribe to by default>"),
            );
            String::new()
        }
    };
    let mut channels: Vec<(ChannelSummary, Vec<Value>)> = Vec::new();
    let mut in_channels: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut left_out: BTreeMap<String, Vec<(String, Option<String>)>> = BTreeMap::new();
    for decl in &m.channels {
        if decl.current.is_empty() {
            continue;
        }
        if !csvs.contains_key(&decl.current) {
            diags.push(
                Diagnostic::error(
                    codes::CURRENT_CSV,
                    decl.current_loc.clone(),
                    format!(
                        "the currentCSV of channel {:?}, {}, is not a ClusterServiceVersion of the package",
                        decl.name, decl.current
                    ),
                )
                .with_hint(format!(
                    "the package's CSVs: {}",
                    csvs.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
                .in_channel(&decl.name),
            );
            continue;
        }
        let built = build_channel(&decl.current, &csvs);
        for n in &built.names {
            in_channels
                .entry(n.clone())
                .or_default()
                .push(decl.name.clone());
        }
        for (n, stop) in built.dropped {
            left_out
                .entry(n)
                .or_default()
                .push((decl.name.clone(), stop));
        }
        let mut blob = Map::new();
        blob.insert("schema".into(), Value::from("olm.channel"));
        blob.insert("name".into(), Value::from(decl.name.clone()));
        blob.insert("package".into(), Value::from(package));
        blob.insert("entries".into(), Value::Array(built.entries.clone()));
        channels.push((
            ChannelSummary {
                name: decl.name.clone(),
                head: decl.current.clone(),
                entries: built.names,
            },
            vec![Value::Object(blob)],
        ));
    }

    // What no channel keeps.
    for c in csvs.values() {
        let kept = in_channels.get(&c.name);
        if let Some(drops) = left_out.get(&c.name) {
            let chans: Vec<&str> = drops.iter().map(|(ch, _)| ch.as_str()).collect();
            let stops: BTreeSet<&str> = drops.iter().filter_map(|(_, s)| s.as_deref()).collect();
            let skippers: Vec<&Csv> = csvs
                .values()
                .filter(|s| s.skips.iter().any(|x| stops.contains(x.as_str())))
                .collect();
            let why = if stops.is_empty() {
                "nothing that OLM follows reaches it once the edges of skipped CSVs are ignored"
                    .to_string()
            } else {
                format!(
                    "the replaces chain from the head reaches it only through {}, which {} skip{}; OLM ignores the upgrade edges of a skipped bundle, so it would be stranded (opm validate rejects such a channel)",
                    stops.iter().copied().collect::<Vec<_>>().join(", "),
                    skippers
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    if skippers.len() == 1 { "s" } else { "" }
                )
            };
            let whole = match kept {
                None => ", and so out of the catalog".to_string(),
                Some(k) => format!(" (it stays in {})", k.join(", ")),
            };
            diags.push(
                Diagnostic::warning(
                    codes::STRANDED,
                    c.loc.clone(),
                    format!(
                        "{} is left out of channel{} {}{whole}: {why}",
                        c.name,
                        if chans.len() == 1 { "" } else { "s" },
                        chans.join(", ")
                    ),
                )
                .with_related(skippers.iter().map(|s| s.skips_loc.clone()))
                .with_hint(
                    "to keep it, list it in the spec.skips of a CSV in the channel, or have a CSV that is not skipped replace it",
                )
                .for_bundle(&c.name),
            );
        } else if kept.is_none() && !m.channels.is_empty() {
            diags.push(
                Diagnostic::warning(
                    codes::NOT_IN_CHANNEL,
                    c.loc.clone(),
                    format!(
                        "{} is in no channel: no currentCSV reaches it through spec.replaces or spec.skips; it is left out of the catalog",
                        c.name
                    ),
                )
                .with_hint("make a channel's currentCSV replace or skip it, or make it a channel's currentCSV")
                .for_bundle(&c.name),
            );
        }
    }

    // Bundles: every CSV is read and checked; the ones in a channel are rendered.
    let mut bundles: Vec<Value> = Vec::new();
    for dir in &p.dirs {
        let csvs_here: Vec<&Csv> = dir.csvs().collect();
        if csvs_here.len() > 1 {
            let owned: BTreeSet<&str> = csvs_here
                .iter()
                .flat_map(|c| c.owned.iter().map(|(n, _)| n.as_str()))
                .collect();
            for f in &dir.files {
                if let What::Crd(name) = &f.what
                    && !owned.contains(name.as_str())
                {
                    diags.push(Diagnostic::warning(
                        codes::UNOWNED_CRD,
                        Location::new(&f.rel, 0, 0),
                        format!("CRD {name} is owned by none of the ClusterServiceVersions beside it, so it goes into no bundle"),
                    ).with_hint("list it in spec.customresourcedefinitions.owned of the CSV that provides it"));
                }
            }
        }
        for c in csvs_here {
            let bundle_start = diags.len();
            let files = bundle_files(dir, c);
            let chans = in_channels.get(&c.name).cloned().unwrap_or_default();
            let default_here = chans.iter().find(|ch| **ch == default).map(String::as_str);
            let b = RegistryBundle::from_manifests(
                &dir.path,
                &dir.rel,
                |name| files.contains(name),
                package,
                &chans,
                default_here,
            );
            const SYNTHETIC: &[&str] = &[
                bundle::codes::NO_ANNOTATIONS,
                bundle::codes::ANNOTATION_VALUE,
                bundle::codes::PACKAGE_NAME,
                bundle::codes::NO_CHANNELS,
                bundle::codes::DEFAULT_CHANNEL,
                bundle::codes::ANNOTATION_NAME,
                bundle::codes::OWNED_CRD_MISSING,
                bundle::codes::CSV_COUNT,
            ];
            for d in bundle::check_registry(&b) {
                if !SYNTHETIC.contains(&d.code) {
                    diags.push(d.for_bundle(&c.name));
                }
            }
            match b.missing_owned_crds() {
                Err(e) => diags.push(
                    Diagnostic::error(bundle::codes::OWNED_CRD_MISSING, c.loc.clone(), e)
                        .for_bundle(&c.name),
                ),
                Ok(missing) => {
                    for (key, name) in missing {
                        let loc = c
                            .owned
                            .iter()
                            .find(|(n, _)| *n == name)
                            .map(|(_, l)| l.clone())
                            .unwrap_or_else(|| c.loc.clone());
                        let beside = if dir.rel.is_empty() {
                            "beside it".to_string()
                        } else {
                            format!("in {}", dir.rel)
                        };
                        diags.push(
                            Diagnostic::error(
                                bundle::codes::OWNED_CRD_MISSING,
                                loc,
                                format!(
                                    "{} owns CRD {name} ({}/{} {}), but no CRD {beside} serves it",
                                    c.name, key.group, key.version, key.kind
                                ),
                            )
                            .with_hint("add the CustomResourceDefinition manifest, or fix the owned entry's name, version and kind")
                            .for_bundle(&c.name),
                        );
                    }
                }
            }
            // Nothing to render for a CSV in no channel, a duplicate, or a bundle already in error
            // (rendering would only stop at the same problem).
            if chans.is_empty()
                || csvs.get(&c.name).map(|x| &x.file) != Some(&c.file)
                || diags[bundle_start..]
                    .iter()
                    .any(|d| d.severity == Severity::Error)
            {
                continue;
            }
            let image = opts.image_template.as_ref().map(|t| {
                let version = b.version().unwrap_or_default();
                fill_template(t, package, &c.name, &version)
            });
            if let Some(img) = &image
                && let Err(e) = ImageRef::parse(img)
            {
                diags.push(
                    Diagnostic::error(
                        codes::IMAGE,
                        c.loc.clone(),
                        format!("the image template gives {img:?} for {}, which is not a valid image reference: {e}", c.name),
                    )
                    .for_bundle(&c.name),
                );
                continue;
            }
            let render_opts = RenderOptions {
                image,
                csv_metadata: opts.csv_metadata,
            };
            match bundle::render(&b, &render_opts) {
                Ok(blob) => bundles.push(blob),
                Err(e) => diags.push(
                    Diagnostic::error(
                        codes::OUTPUT_INVALID,
                        c.loc.clone(),
                        format!("{} cannot be rendered as a bundle: {e}", c.name),
                    )
                    .for_bundle(&c.name),
                ),
            }
        }
    }

    // The package: its icon and description come from the default channel's head.
    let mut pkg = Map::new();
    pkg.insert("schema".into(), Value::from("olm.package"));
    pkg.insert("name".into(), Value::from(package));
    pkg.insert("defaultChannel".into(), Value::from(default.clone()));
    let head = m
        .channels
        .iter()
        .find(|c| c.name == default)
        .and_then(|c| csvs.get(&c.current));
    if let Some(head) = head {
        if let Some(icon) = head.value.pointer("/spec/icon/0").filter(|i| i.is_object()) {
            // Go's JSON decoding matches field names in any case.
            let field = |k: &str| {
                icon.as_object()
                    .into_iter()
                    .flatten()
                    .rev()
                    .find(|(key, _)| key.eq_ignore_ascii_case(k))
                    .and_then(|(_, v)| v.as_str())
                    .unwrap_or("")
            };
            let (data, media) = (field("base64data"), field("mediatype"));
            match crate::validate::shape::decode_base64(data)
                .map_err(|at| format!("illegal base64 data at input byte {at}"))
            {
                Ok(bytes) if !bytes.is_empty() => {
                    let mut i = Map::new();
                    i.insert(
                        "base64data".into(),
                        Value::from(base64::engine::general_purpose::STANDARD.encode(bytes)),
                    );
                    i.insert("mediatype".into(), Value::from(media));
                    pkg.insert("icon".into(), Value::Object(i));
                }
                Ok(_) => {}
                Err(e) => diags.push(
                    Diagnostic::warning(
                        codes::ICON,
                        head.icon_loc.clone(),
                        format!(
                            "the icon of {} (the default channel's head) is not base64 data ({e}); the package gets no icon",
                            head.name
                        ),
                    )
                    .for_bundle(&head.name),
                ),
            }
        }
        if let Some(d) = head
            .value
            .pointer("/spec/description")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
        {
            pkg.insert("description".into(), Value::from(d));
        }
    }

    for d in &mut diags[start..] {
        if d.object.package.is_none() && !package.is_empty() {
            d.object.package = Some(package.to_string());
        }
    }
    if package.is_empty() {
        return None;
    }
    let mut blobs = vec![Value::Object(pkg)];
    let mut summaries = Vec::new();
    for (s, b) in channels {
        summaries.push(s);
        blobs.extend(b);
    }
    let mut bundle_names: Vec<String> = bundles
        .iter()
        .filter_map(|b| b.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    bundle_names.sort();
    blobs.extend(bundles);
    let text = write_fbc(&blobs, opts.format);
    Some(MigratedPackage {
        name: package.to_string(),
        dir: p.rel.trim_end_matches('/').to_string(),
        default_channel: default,
        channels: summaries,
        bundles: bundle_names,
        blobs,
        text,
    })
}

/// Loads the catalogs about to be written with our loader and validates them; every error becomes
/// an `OUTPUT_INVALID` diagnostic at the package's manifest. Returns the number of warnings.
fn verify(m: &Migration, packages: &[PackageDir], diags: &mut Vec<Diagnostic>) -> usize {
    let manifest_of = |name: &str| {
        packages
            .iter()
            .find(|p| p.manifest.name == name)
            .map(|p| p.manifest.name_loc.clone())
            .unwrap_or_default()
    };
    let fail = |loc: Location, msg: String| {
        Diagnostic::error(codes::OUTPUT_INVALID, loc, msg).with_hint(
            "this is a fault in fbc-edit's migration; please report it with the input directory",
        )
    };
    let tmp = match tempfile::tempdir() {
        Ok(t) => t,
        Err(e) => {
            diags.push(fail(
                Location::default(),
                format!("cannot create a temporary directory to validate the output: {e}"),
            ));
            return 0;
        }
    };
    for p in &m.packages {
        let dir = tmp.path().join(&p.name);
        let written = std::fs::create_dir(&dir)
            .and_then(|()| std::fs::write(dir.join(m.file_name()), &p.text));
        if let Err(e) = written {
            diags.push(fail(
                manifest_of(&p.name),
                format!("cannot write the catalog to validate it: {e}"),
            ));
            return 0;
        }
    }
    let catalog = match crate::catalog::load(tmp.path()) {
        Ok(c) => c,
        Err(e) => {
            diags.push(fail(
                Location::default(),
                format!("the migrated catalog cannot be loaded: {e}"),
            ));
            return 0;
        }
    };
    let report = crate::validate::validate(&catalog);
    let mut warnings = 0;
    for d in &report.diagnostics {
        match d.severity {
            Severity::Error => {
                let package = d
                    .object
                    .package
                    .clone()
                    .or_else(|| d.location.file.split('/').next().map(str::to_string))
                    .unwrap_or_default();
                diags.push(
                    fail(
                        manifest_of(&package),
                        format!(
                            "the migrated catalog fails validation: {}:{}: [{}] {}",
                            d.location.file, d.location.line, d.code, d.message
                        ),
                    )
                    .in_package(&package),
                );
            }
            Severity::Warning => warnings += 1,
            Severity::Info => {}
        }
    }
    warnings
}
