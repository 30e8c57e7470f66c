//! One operator of a repository, checked as the pipeline and `make catalogs` see it: its `ci.yaml`
//! (the pipeline's schema and catalog rules), the mapping against `catalog-templates/` and
//! `catalogs/*/<op>/`, every mapped catalog re-rendered and compared byte for byte (with
//! [`render_all`], the code `template render-all --check` runs), and every bundle's
//! `release-config.yaml`.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde::de::IgnoredAny;

use super::committed::Committed;
pub use super::listing::subdirectories;
use super::listing::{operator_subdirectories, template_files, unlisted};
use super::rendering::render_and_compare;
use super::schema::{self, Violation};
use crate::catalog::codes::repo as c;
use crate::catalog::node::{Kind, Node};
use crate::catalog::yaml::typed;
use crate::catalog::{Diagnostic, Location};
use crate::guard::path::plain_name;
use crate::template::schemas;

/// What checking one operator gave.
#[derive(Debug, Default)]
pub struct OperatorCheck {
    /// Whether `ci.yaml` sets `fbc.enabled: true`.
    pub fbc: bool,
    pub problems: Vec<Diagnostic>,
}

/// One `catalog_mapping` item as written, with the lines of its values.
#[derive(Debug)]
pub(super) struct Mapping {
    pub(super) template: Option<(String, u32)>,
    pub(super) kind: Option<(String, u32)>,
    pub(super) catalogs: Vec<(String, u32)>,
}

/// Whether `name` is a catalog name the pipeline knows as an OpenShift version: `vX.Y`.
pub fn is_ocp_catalog(name: &str) -> bool {
    let Some((x, y)) = name.strip_prefix('v').and_then(|v| v.split_once('.')) else {
        return false;
    };
    [x, y]
        .iter()
        .all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Checks the operator `name` of the repository at `root`; `catalogs` are the directory names
/// under `root/catalogs/`, sorted.
pub fn operator(root: &Path, name: &str, catalogs: &[String]) -> OperatorCheck {
    let committed = Committed::default();
    operator_with(root, name, catalogs, &Texts::new(), Some(&committed))
}

/// [`operator`], its committed catalogs read from those already loaded.
pub(super) fn operator_sharing(
    root: &Path,
    name: &str,
    catalogs: &[String],
    committed: &Committed,
) -> OperatorCheck {
    operator_with(root, name, catalogs, &Texts::new(), Some(committed))
}

/// Texts read in place of files of a repository (an editor's unsaved buffers), by path relative to
/// its root (`operators/<op>/ci.yaml`).
pub type Texts = std::collections::BTreeMap<String, String>;

/// The checks of an operator's `ci.yaml` and `release-config.yaml` files (the pipeline's schema, the
/// mapping, the release rules) without re-rendering its catalogs, with `texts` read in place of
/// the files they name: what an editor checks as the files are typed.
pub fn operator_files(
    root: &Path,
    name: &str,
    catalogs: &[String],
    texts: &Texts,
) -> OperatorCheck {
    operator_with(root, name, catalogs, texts, None)
}

/// A small YAML file of the repository as a tree: its text in `texts` when there, else read
/// inside `dir`; `None` when there is neither.
fn read_tree(
    dir: &Path,
    file: &str,
    rel: &str,
    texts: &Texts,
) -> Option<Result<Node, typed::TypedError>> {
    if let Some(text) = texts.get(rel) {
        return Some(typed::parse::<IgnoredAny>(text, rel).map(|t| t.tree));
    }
    let path = dir.join(file);
    path.symlink_metadata().ok()?;
    Some(typed::read::<IgnoredAny>(dir, &path).map(|t| t.tree))
}

fn operator_with(
    root: &Path,
    name: &str,
    catalogs: &[String],
    texts: &Texts,
    render: Option<&Committed>,
) -> OperatorCheck {
    let dir = root.join("operators").join(name);
    let rel = format!("operators/{name}");
    let mut out = OperatorCheck::default();
    let ci_rel = format!("{rel}/ci.yaml");
    let tree = match read_tree(&dir, "ci.yaml", &ci_rel, texts) {
        None => None,
        Some(r) => match r {
            Ok(t) => Some(t),
            Err(e) => {
                out.problems.push(Diagnostic::error(
                    c::CI_UNREADABLE,
                    Location::new(&ci_rel, e.line, e.col),
                    e.message,
                ));
                return out;
            }
        },
    };
    let fbc = tree.as_ref().and_then(|t| t.get("fbc"));
    out.fbc = fbc
        .and_then(|f| f.get("enabled"))
        .is_some_and(|e| matches!(e.kind, Kind::Bool(true)));
    let mappings = fbc.map(read_mappings).unwrap_or_default();
    release_configs(root, name, out.fbc, &mappings, texts, &mut out.problems);
    let Some(tree) = tree.filter(|_| out.fbc) else {
        return out;
    };
    let mut blocking = false;
    for v in schema::check(&tree, &schema::CI) {
        blocking |= !v.duplicate_key;
        out.problems
            .push(violation(&ci_rel, v, c::CI_SCHEMA, "ci.yaml"));
    }
    blocking |= mapping_rules(root, name, &mappings, catalogs, &mut out.problems);
    if let Some(committed) = render.filter(|_| !blocking && !mappings.is_empty()) {
        render_and_compare(&dir, name, &mappings, committed, &mut out.problems);
    }
    out
}

fn violation(file: &str, v: Violation, code: &'static str, what: &str) -> Diagnostic {
    if v.duplicate_key {
        Diagnostic::warning(
            c::DUPLICATE_KEY,
            Location::new(file, v.line, 0),
            format!("{}: {}", v.path, v.message),
        )
    } else {
        Diagnostic::error(
            code,
            Location::new(file, v.line, 0),
            format!(
                "{what} does not comply with the pipeline's schema: {}: {}",
                v.path, v.message
            ),
        )
    }
}

fn read_mappings(fbc: &Node) -> Vec<Mapping> {
    let text = |n: Option<&Node>| n.and_then(|n| Some((n.as_str()?.to_string(), n.pos().line)));
    fbc.get("catalog_mapping")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter(|m| m.as_map().is_some())
        .map(|m| Mapping {
            template: text(m.get("template_name")),
            kind: text(m.get("type")),
            catalogs: m
                .get("catalog_names")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|n| text(Some(n)))
                .collect(),
        })
        .collect()
}

/// The mapping against the templates and catalogs on disk. True when rendering cannot go ahead
/// (the mapping itself is wrong).
fn mapping_rules(
    root: &Path,
    name: &str,
    mappings: &[Mapping],
    catalogs: &[String],
    out: &mut Vec<Diagnostic>,
) -> bool {
    let ci = format!("operators/{name}/ci.yaml");
    let templates_dir = root.join("operators").join(name).join("catalog-templates");
    let mut blocking = false;
    let mut first_mapping: HashMap<&str, &str> = HashMap::new();
    for m in mappings {
        let template = m.template.as_ref().map_or("", |(t, _)| t.as_str());
        for (catalog, line) in &m.catalogs {
            // The pipeline counts every occurrence, in one mapping or in several.
            if let Some(other) = first_mapping.get(catalog.as_str()) {
                blocking = true;
                out.push(Diagnostic::error(
                    c::CATALOG_MAPPED_TWICE,
                    Location::new(&ci, *line, 0),
                    format!(
                        "ci.yaml maps catalog '{catalog}' more than once (templates '{other}' and '{template}')"
                    ),
                ));
            } else {
                first_mapping.insert(catalog, template);
            }
            if let Err(why) = plain_name(catalog) {
                blocking = true;
                out.push(Diagnostic::error(
                    c::NAME,
                    Location::new(&ci, *line, 0),
                    format!("catalog name {catalog:?} {why}"),
                ));
            } else if !is_ocp_catalog(catalog) {
                let hint = match catalog.strip_prefix('V') {
                    Some(rest) if is_ocp_catalog(&format!("v{rest}")) => format!("v{rest}"),
                    _ => format!("v{catalog}"),
                };
                out.push(
                    Diagnostic::error(
                        c::CATALOG_NAME,
                        Location::new(&ci, *line, 0),
                        format!(
                            "catalog name '{catalog}' is not an OpenShift version vX.Y: make catalogs would write catalogs/{catalog}/{name}, which no index is built from, and never migrate it"
                        ),
                    )
                    .with_hint(format!("did you mean {hint}?")),
                );
            } else if !is_file(
                &root
                    .join("catalogs")
                    .join(catalog)
                    .join(name)
                    .join("catalog.yaml"),
            ) {
                out.push(Diagnostic::error(
                    c::CATALOG_MISSING,
                    Location::new(&ci, *line, 0),
                    format!(
                        "catalog '{catalog}' is mapped but catalogs/{catalog}/{name}/catalog.yaml was never generated (run make catalogs)"
                    ),
                ));
            }
        }
        let Some((template, line)) = &m.template else {
            continue;
        };
        if let Err(why) = plain_name(template) {
            blocking = true;
            out.push(Diagnostic::error(
                c::NAME,
                Location::new(&ci, *line, 0),
                format!("template_name {template:?} {why}"),
            ));
            continue;
        }
        let path = templates_dir.join(template);
        if !is_file(&path) {
            out.push(Diagnostic::error(
                c::TEMPLATE_MISSING,
                Location::new(&ci, *line, 0),
                format!(
                    "template '{template}' is mapped but operators/{name}/catalog-templates/{template} does not exist"
                ),
            ));
            continue;
        }
        let Some((kind, kind_line)) = &m.kind else {
            continue;
        };
        match crate::template::read_text(&path) {
            Ok(text) => {
                let schema = crate::template::template_schema(&text);
                let rel = format!("operators/{name}/catalog-templates/{template}");
                // A file that is no template at all: why, from the template reader.
                if schema.is_none()
                    && let Err(e) = crate::template::parse(&rel, &text)
                    && let Some(p) = e.problems.first()
                {
                    out.push(Diagnostic::error(
                        c::RENDER,
                        Location::new(&rel, p.line, 0),
                        format!("the template cannot be read: {}", p.message),
                    ));
                    continue;
                }
                if (kind == schemas::BASIC
                    || kind == schemas::SEMVER
                    || kind == schemas::SUBSTITUTES)
                    && schema != Some(kind)
                {
                    out.push(Diagnostic::error(
                        c::TEMPLATE_TYPE,
                        Location::new(&ci, *kind_line, 0),
                        format!(
                            "ci.yaml maps '{template}' as {kind}, but its schema is {}",
                            schema.unwrap_or("not a template schema")
                        ),
                    ));
                }
            }
            Err(e) => out.push(Diagnostic::error(
                c::READ,
                Location::new(
                    format!("operators/{name}/catalog-templates/{template}"),
                    0,
                    0,
                ),
                e.to_string(),
            )),
        }
    }
    let mapped_templates: BTreeSet<&str> = mappings
        .iter()
        .filter_map(|m| m.template.as_ref().map(|(t, _)| t.as_str()))
        .collect();
    let files = template_files(&templates_dir).unwrap_or_else(|e| {
        out.push(unlisted(format!("operators/{name}/catalog-templates"), &e));
        Vec::new()
    });
    for file in files {
        if !mapped_templates.contains(file.as_str()) {
            out.push(Diagnostic::warning(
                c::TEMPLATE_UNMAPPED,
                Location::new(
                    format!("operators/{name}/catalog-templates/{file}"),
                    0,
                    0,
                ),
                format!("template '{file}' is named by no mapping in ci.yaml: make catalogs never renders it"),
            ));
        }
    }
    let mapped_catalogs: BTreeSet<&str> = mappings
        .iter()
        .flat_map(|m| m.catalogs.iter().map(|(c, _)| c.as_str()))
        .collect();
    for catalog in catalogs {
        let here = root.join("catalogs").join(catalog).join(name);
        if !mapped_catalogs.contains(catalog.as_str()) && is_dir(&here) {
            out.push(Diagnostic::error(
                c::CATALOG_UNMAPPED,
                Location::new(format!("catalogs/{catalog}/{name}"), 0, 0),
                format!(
                    "catalogs/{catalog}/{name} is produced by no mapping in ci.yaml: make catalogs deletes it"
                ),
            ));
        }
    }
    blocking
}

/// Every `operators/<op>/<version>/release-config.yaml`: the pipeline's schema, then its rules
/// against `ci.yaml`.
fn release_configs(
    root: &Path,
    name: &str,
    fbc: bool,
    mappings: &[Mapping],
    texts: &Texts,
    out: &mut Vec<Diagnostic>,
) {
    let dir = root.join("operators").join(name);
    let versions = operator_subdirectories(&dir).unwrap_or_else(|e| {
        out.push(unlisted(format!("operators/{name}"), &e));
        Vec::new()
    });
    for version in versions {
        let vdir = dir.join(&version);
        let rel = format!("operators/{name}/{version}/release-config.yaml");
        let Some(tree) = read_tree(&vdir, "release-config.yaml", &rel, texts) else {
            continue;
        };
        let tree = match tree {
            Ok(t) => t,
            Err(e) => {
                out.push(Diagnostic::error(
                    c::RELEASE_UNREADABLE,
                    Location::new(&rel, e.line, e.col),
                    e.message,
                ));
                continue;
            }
        };
        for v in schema::check(&tree, &schema::RELEASE_CONFIG) {
            out.push(violation(&rel, v, c::RELEASE_SCHEMA, "release-config.yaml"));
        }
        if !fbc {
            out.push(Diagnostic::error(
                c::RELEASE_FBC_DISABLED,
                Location::new(&rel, 0, 0),
                "release-config.yaml is used but FBC is not enabled for the operator: set fbc.enabled: true in ci.yaml",
            ));
            continue;
        }
        let items = tree
            .get("catalog_templates")
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for item in items {
            let Some(template) = item
                .get("template_name")
                .and_then(|t| t.as_str().map(|s| (s, t)))
            else {
                continue;
            };
            let (template, node) = template;
            if let Err(why) = plain_name(template) {
                out.push(Diagnostic::error(
                    c::NAME,
                    Location::new(&rel, node.pos().line, 0),
                    format!("template_name {template:?} {why}"),
                ));
                continue;
            }
            let channels: Vec<&str> = item
                .get("channels")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(Node::as_str)
                .collect();
            if let Some(d) = item.get("defaultChannel")
                && let Some(default) = d.as_str()
                && !channels.contains(&default)
            {
                out.push(Diagnostic::error(
                    c::RELEASE_DEFAULT_CHANNEL,
                    Location::new(&rel, d.pos().line, 0),
                    format!(
                        "defaultChannel '{default}' not found in '{template}'. Available channels: {channels:?}"
                    ),
                ));
            }
            let mapping = mappings
                .iter()
                .find(|m| m.template.as_ref().is_some_and(|(t, _)| t == template));
            let Some(mapping) = mapping else {
                let known: Vec<&str> = mappings
                    .iter()
                    .filter_map(|m| m.template.as_ref().map(|(t, _)| t.as_str()))
                    .collect();
                let near = known
                    .iter()
                    .find(|k| k.trim_start_matches('v') == template.trim_start_matches('v'));
                let mut d = Diagnostic::error(
                    c::RELEASE_TEMPLATE,
                    Location::new(&rel, node.pos().line, 0),
                    format!(
                        "catalog template '{template}' is not defined in ci.yaml under catalog_mapping"
                    ),
                );
                if let Some(near) = near {
                    d = d.with_hint(format!("did you mean '{near}'?"));
                }
                out.push(d);
                continue;
            };
            let semver = mapping
                .kind
                .as_ref()
                .is_some_and(|(k, _)| k == schemas::SEMVER);
            const SEMVER_CHANNELS: [&str; 3] = ["Fast", "Candidate", "Stable"];
            if semver && !channels.iter().all(|c| SEMVER_CHANNELS.contains(c)) {
                let line = item
                    .get("channels")
                    .map_or(node.pos().line, |n| n.pos().line);
                out.push(Diagnostic::error(
                    c::RELEASE_SEMVER_CHANNEL,
                    Location::new(&rel, line, 0),
                    format!(
                        "semver template '{template}' is given channels {channels:?}; allowed are Fast, Candidate and Stable (case-sensitive)"
                    ),
                ));
            }
        }
    }
}

/// Whether `path` is a regular file, links not followed.
fn is_file(path: &Path) -> bool {
    path.symlink_metadata().is_ok_and(|m| m.is_file())
}

/// Whether `path` is a directory, links not followed.
fn is_dir(path: &Path) -> bool {
    path.symlink_metadata().is_ok_and(|m| m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::super::rendering::first_line;
    use super::*;
    use crate::template::render_all;

    #[test]
    fn catalog_names_are_ocp_versions() {
        for (name, ok) in [
            ("v4.22", true),
            ("v5.0", true),
            ("4.22", false),
            ("v4", false),
            ("v4.x", false),
            ("latest", false),
            ("v4.22.1", false),
        ] {
            assert_eq!(is_ocp_catalog(name), ok, "{name}");
        }
    }

    #[test]
    fn the_summary_line_is_read_back() {
        let s = render_all::diff_summary("a\nb\n", "a\nc\n");
        assert_eq!(first_line(&s), 2);
        assert_eq!(first_line("differs only in its line endings"), 0);
    }

    /// Texts stand in for the files they name: a ci.yaml and a release-config.yaml typed but not
    /// saved are checked as typed, and the disk's versions are not read.
    #[test]
    fn texts_stand_in_for_the_files() {
        let tmp = tempfile::tempdir().unwrap();
        let op = tmp.path().join("operators/demo");
        std::fs::create_dir_all(op.join("1.0.0")).unwrap();
        std::fs::create_dir_all(tmp.path().join("catalogs/v4.18/demo")).unwrap();
        std::fs::write(op.join("ci.yaml"), "fbc:\n  enabled: false\n").unwrap();
        std::fs::write(
            op.join("1.0.0/release-config.yaml"),
            "catalog_templates: []\n",
        )
        .unwrap();
        let catalogs = vec!["v4.18".to_string()];
        let on_disk = operator_files(tmp.path(), "demo", &catalogs, &Texts::new());
        assert!(!on_disk.fbc);
        let mut texts = Texts::new();
        texts.insert(
            "operators/demo/ci.yaml".into(),
            "fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: t.yaml\n      type: olm.template.basic\n      catalog_names: [\"4.18\"]\n".into(),
        );
        texts.insert(
            "operators/demo/1.0.0/release-config.yaml".into(),
            "catalog_templates:\n  - template_name: other.yaml\n    channels: [stable]\n".into(),
        );
        let typed = operator_files(tmp.path(), "demo", &catalogs, &texts);
        assert!(typed.fbc);
        let codes: Vec<(&str, &str, u32)> = typed
            .problems
            .iter()
            .map(|d| (d.code, d.location.file.as_str(), d.location.line))
            .collect();
        assert!(
            codes.contains(&(c::CATALOG_NAME, "operators/demo/ci.yaml", 6)),
            "{codes:?}"
        );
        assert!(
            codes.contains(&(
                c::RELEASE_TEMPLATE,
                "operators/demo/1.0.0/release-config.yaml",
                2
            )),
            "{codes:?}"
        );
    }
}
