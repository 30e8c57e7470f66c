//! Reading a package-manifest directory: the package manifest, the CSVs with their replaces, skips
//! and skipRange, and which file is what; every problem recorded with its file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::bundle::{node_json, read_dir_sorted, read_docs};
use crate::catalog::semver_range::Range;
use crate::catalog::{Diagnostic, Location, Node, Severity};
use crate::guard::dir::MAX_BUNDLE_ENTRIES;
use crate::guard::file::Within;

use super::codes;

pub(super) const EXTENSIONS: &[&str] = &["yaml", "yml", "json"];

pub(super) fn catalog_extension(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

pub(super) fn at(rel: &str, node: &Node) -> Location {
    Location::new(rel, node.pos().line, node.pos().col)
}

/// A field's key position (falling back to the mapping's own), and its value.
pub(super) fn field<'n>(node: &'n Node, key: &str) -> Option<(&'n Node, &'n Node)> {
    node.get_field_entry(key).map(|e| (&e.key, &e.value))
}

pub(super) fn node_str<'n>(node: &'n Node, text: &'n str) -> Option<String> {
    match node_json(node, text) {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// A package manifest as read.
#[derive(Debug, Clone)]
pub(super) struct Manifest {
    pub(super) file: String,
    pub(super) name: String,
    pub(super) name_loc: Location,
    pub(super) channels: Vec<ChannelDecl>,
    pub(super) default: Option<(String, Location)>,
}

#[derive(Debug, Clone)]
pub(super) struct ChannelDecl {
    pub(super) name: String,
    pub(super) current: String,
    pub(super) current_loc: Location,
}

/// A ClusterServiceVersion as read, with the places of its upgrade fields.
#[derive(Debug, Clone)]
pub(super) struct Csv {
    pub(super) name: String,
    pub(super) file: String,
    pub(super) file_name: String,
    pub(super) loc: Location,
    pub(super) value: Value,
    pub(super) replaces: Option<String>,
    pub(super) replaces_loc: Location,
    pub(super) skips: Vec<String>,
    pub(super) skips_loc: Location,
    pub(super) skip_range: Option<String>,
    /// Owned CRD names (`plural.group`) with where each is listed.
    pub(super) owned: Vec<(String, Location)>,
    pub(super) icon_loc: Location,
}

#[derive(Debug, Clone)]
pub(super) enum What {
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
pub(super) struct File {
    pub(super) name: String,
    pub(super) rel: String,
    pub(super) what: What,
}

/// A directory of manifests: a version directory, or the package directory itself.
#[derive(Debug, Clone)]
pub(super) struct Dir {
    /// The directory migrated: every file is read only when it resolves inside it.
    pub(super) within: Within,
    pub(super) path: PathBuf,
    /// Prefix of its files relative to the input (`"etcd/0.9.2/"`), empty for the input itself.
    pub(super) rel: String,
    pub(super) files: Vec<File>,
    /// Subdirectories (not read), as relative paths ending in `/`.
    pub(super) subdirs: Vec<String>,
}

impl Dir {
    pub(super) fn csvs(&self) -> impl Iterator<Item = &Csv> {
        self.files.iter().filter_map(|f| match &f.what {
            What::Csv(c) => Some(c.as_ref()),
            _ => None,
        })
    }
}

/// Reads the files (not the subdirectories) of `path`; `rel` is its prefix. Only files that
/// resolve inside `within` are read.
pub(super) fn read_dir_files(
    within: &Within,
    path: &Path,
    rel: &str,
    diags: &mut Vec<Diagnostic>,
) -> Dir {
    read_dir_files_within(within, path, rel, diags, MAX_BUNDLE_ENTRIES)
}

/// [`read_dir_files`], the directory listed within `max` entries.
fn read_dir_files_within(
    within: &Within,
    path: &Path,
    rel: &str,
    diags: &mut Vec<Diagnostic>,
    max: usize,
) -> Dir {
    let mut dir = Dir {
        within: within.clone(),
        path: path.to_path_buf(),
        rel: rel.to_string(),
        files: Vec::new(),
        subdirs: Vec::new(),
    };
    let entries = match read_dir_sorted(path, within, max) {
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
        let what = read_file(within, &path.join(&name), &file_rel, &name, diags);
        dir.files.push(File {
            name,
            rel: file_rel,
            what,
        });
    }
    dir
}

pub(super) fn read_file(
    within: &Within,
    path: &Path,
    rel: &str,
    name: &str,
    diags: &mut Vec<Diagnostic>,
) -> What {
    if !catalog_extension(name) {
        return What::Unread;
    }
    let mut found = Vec::new();
    let Some((text, nodes)) = read_docs(within, path, rel, &mut found, codes::UNREADABLE) else {
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

/// Reads a package manifest: its name, channels and default channel.
pub(super) fn read_manifest(
    doc: &Node,
    text: &str,
    rel: &str,
    diags: &mut Vec<Diagnostic>,
) -> Manifest {
    let mut m = Manifest {
        file: rel.to_string(),
        name: String::new(),
        name_loc: at(rel, doc),
        channels: Vec::new(),
        default: None,
    };
    if let Some((key, value)) = field(doc, "packageName") {
        m.name_loc = at(rel, key);
        if let Some(name) = read_package_name(value, text, rel, &m.name_loc, diags) {
            m.name = name;
        }
    }
    m.channels = read_channel_decls(doc, text, rel, diags);
    if let Some((key, value)) = field(doc, "defaultChannel")
        && let Some(s) = node_str(value, text).filter(|s| !s.is_empty())
    {
        m.default = Some((s, at(rel, key)));
    }
    m
}

/// A package manifest's `packageName`, when it is a string (checked as a DNS-1123 label).
fn read_package_name(
    value: &Node,
    text: &str,
    rel: &str,
    name_loc: &Location,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let bad = |loc: Location, msg: String| Diagnostic::error(codes::PACKAGE_MANIFEST, loc, msg);
    match node_str(value, text) {
        Some(s) if s.is_empty() => {
            diags.push(bad(name_loc.clone(), "packageName is empty".into()));
            None
        }
        Some(s) => {
            let problems = crate::text::dns1123::label_problems(&s);
            if !problems.is_empty() {
                diags.push(
                    bad(
                        name_loc.clone(),
                        format!(
                            "packageName {s:?} is not a valid package name: {}",
                            problems.join("; ")
                        ),
                    )
                    .with_hint("a package name is a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"),
                );
            }
            Some(s)
        }
        None => {
            diags.push(bad(
                at(rel, value),
                format!("packageName is {}, not a string", a_type(value)),
            ));
            None
        }
    }
}

/// A package manifest's `channels`: each with a name (once) and its currentCSV.
fn read_channel_decls(
    doc: &Node,
    text: &str,
    rel: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ChannelDecl> {
    let bad = |loc: Location, msg: String| Diagnostic::error(codes::PACKAGE_MANIFEST, loc, msg);
    let none = "no channels: a package manifest lists at least one channel";
    let items = match field(doc, "channels") {
        None => {
            diags.push(bad(at(rel, doc), none.into()));
            return Vec::new();
        }
        Some((key, value)) => match value.as_seq() {
            Some([]) => {
                diags.push(bad(at(rel, key), none.into()));
                return Vec::new();
            }
            None if value.is_null() => {
                diags.push(bad(at(rel, key), none.into()));
                return Vec::new();
            }
            None => {
                diags.push(bad(
                    at(rel, value),
                    format!("channels is {}, not a list", a_type(value)),
                ));
                return Vec::new();
            }
            Some(items) => items,
        },
    };
    let mut decls = Vec::new();
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
        decls.push(ChannelDecl {
            name,
            current,
            current_loc,
        });
    }
    decls
}

/// Reads what the migration needs of a ClusterServiceVersion: its name, upgrade fields, skipRange,
/// owned CRDs and where each is written.
pub(super) fn read_csv(
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
        read_csv_spec(spec, text, rel, &mut csv, diags);
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

/// The parts of a CSV's spec the migration uses: replaces, skips, where the icon is, owned CRDs.
fn read_csv_spec(spec: &Node, text: &str, rel: &str, csv: &mut Csv, diags: &mut Vec<Diagnostic>) {
    let name = csv.name.clone();
    let bad = |loc: Location, msg: String| {
        Diagnostic::error(codes::UPGRADE_FIELD, loc, msg).for_bundle(&name)
    };
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

/// A value's JSON type with its article, for messages ("an object", "a string").
pub(super) fn a_type(node: &Node) -> &'static str {
    match node.type_name() {
        "object" => "an object",
        "array" => "a list",
        "string" => "a string",
        "number" => "a number",
        "bool" => "true or false",
        _ => "null",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_over_the_bound_is_reported_and_none_of_it_read() {
        let tmp = tempfile::tempdir().unwrap();
        for f in ["a.package.yaml", "b.yaml", "c.yaml"] {
            std::fs::write(tmp.path().join(f), "a: 1\n").unwrap();
        }
        std::fs::create_dir(tmp.path().join("1.0.0")).unwrap();
        let within = Within::new(tmp.path()).unwrap();
        let mut diags = Vec::new();
        let d = read_dir_files_within(&within, tmp.path(), "", &mut diags, 4);
        let names: Vec<&str> = d.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a.package.yaml", "b.yaml", "c.yaml"]);
        assert_eq!(d.subdirs, ["1.0.0/"]);
        let mut diags = Vec::new();
        let d = read_dir_files_within(&within, tmp.path(), "pkg/", &mut diags, 3);
        assert!(d.files.is_empty() && d.subdirs.is_empty());
        let got: Vec<String> = diags
            .iter()
            .map(|d| format!("{}: {}", d.location.file, d.message))
            .collect();
        assert_eq!(
            got,
            ["pkg: cannot read the directory: more than 3 entries; not read further"]
        );
    }
}
