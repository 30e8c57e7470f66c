//! The auto-release step, locally: a bundle directory's `release-config.yaml` applied to the
//! operator's templates the way the community pipeline's release step applies it (`add-bundle-to-fbc`),
//! with its refusals, except where the pipeline is wrong:
//!
//! - the package of a new channel or template is the bundle's package, not the operator
//!   directory's name (they differ for some operators, and the pipeline then writes a package that
//!   does not exist);
//! - a bundle already in the template under another image reference (a tag and a digest of one
//!   bundle), or an entry of the same name already in a channel with other links, is refused instead
//!   of written twice;
//! - semver keys are matched in any letter case (the pipeline fails on `bundles:` and adds a second
//!   `Stable:` beside a `stable:`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::catalog::node::{Kind, Node};
use crate::catalog::schema;
use crate::catalog::yaml::typed::{self, Typed, TypedError};
use crate::guard::path::plain_name;
use crate::template::schemas;

use super::basic::{entries_of, schema_of, with_entries};
use super::doc::key_as_written;

/// One item of `catalog_templates`. Other keys are allowed on an item, as the pipeline's schema
/// allows them (only the top level is closed).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
pub struct ReleaseTemplate {
    pub template_name: String,
    pub channels: Vec<String>,
    #[serde(rename = "defaultChannel", default)]
    pub default_channel: Option<String>,
    #[serde(default)]
    pub replaces: Option<String>,
    #[serde(default)]
    pub skips: Option<Vec<String>>,
    #[serde(rename = "skipRange", default)]
    pub skip_range: Option<String>,
}

/// A `release-config.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseConfig {
    pub catalog_templates: Vec<ReleaseTemplate>,
    #[serde(default)]
    pub merge: Option<bool>,
}

/// One `fbc.catalog_mapping` item of an operator's `ci.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CatalogMapping {
    pub template_name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub catalog_names: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct CiYaml {
    #[serde(default)]
    fbc: Option<Fbc>,
}

#[derive(Debug, Deserialize)]
struct Fbc {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    catalog_mapping: Vec<CatalogMapping>,
}

/// Why the release step refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    /// A file that cannot be read or is refused, at the place to blame when there is one.
    #[error("{}: {why}", TypedError::at(file, *line, *col))]
    Config {
        file: String,
        line: u32,
        col: u32,
        why: String,
    },
    #[error("{0}")]
    Refused(String),
}

impl From<TypedError> for ReleaseError {
    fn from(e: TypedError) -> Self {
        // serde's messages say where they are themselves.
        let (line, col) = if e.message.contains(" at line ") {
            (0, 0)
        } else {
            (e.line, e.col)
        };
        ReleaseError::Config {
            file: e.file,
            line,
            col,
            why: e.message,
        }
    }
}

fn config_error(file: &Path, line: u32, why: impl Into<String>) -> ReleaseError {
    ReleaseError::Config {
        file: file.display().to_string(),
        line,
        col: 0,
        why: why.into(),
    }
}

/// The line of `node`, 0 when there is none.
fn line_of(node: Option<&Node>) -> u32 {
    node.map_or(0, |n| n.pos().line)
}

/// The items of the sequence at `node`, none when it is not one.
fn items(node: Option<&Node>) -> &[Node] {
    node.and_then(Node::as_seq).unwrap_or_default()
}

/// Reads and checks the `release-config.yaml` of the bundle directory `from` with the schema the
/// pipeline checks it with; a template name must be a plain file name. The file is read only when
/// it resolves inside `from`.
pub fn read_release_config(from: &Path) -> Result<ReleaseConfig, ReleaseError> {
    let path = &from.join("release-config.yaml");
    let Typed {
        value: config,
        tree,
    } = typed::read::<ReleaseConfig>(from, path)?;
    let listed = items(tree.get_field("catalog_templates"));
    let bad = |line: u32, why: String| Err(config_error(path, line, why));
    if config.catalog_templates.is_empty() {
        return bad(
            line_of(tree.get_field("catalog_templates")),
            "catalog_templates lists no template".into(),
        );
    }
    let mut seen = HashSet::new();
    for (i, t) in config.catalog_templates.iter().enumerate() {
        let item = listed.get(i);
        let line = |key: &str| line_of(item.and_then(|n| n.get_field(key)).or(item));
        if let Err(why) = plain_name(&t.template_name) {
            return bad(
                line("template_name"),
                format!("template_name {:?} {why}", t.template_name),
            );
        }
        if !seen.insert(t) {
            return bad(
                line_of(item),
                format!("template {} is listed twice", t.template_name),
            );
        }
        if t.channels.is_empty() {
            return bad(
                line("channels"),
                format!("{}: channels lists no channel", t.template_name),
            );
        }
        if has_duplicates(&t.channels) {
            return bad(
                line("channels"),
                format!("{}: a channel is listed twice", t.template_name),
            );
        }
        if let Some(skips) = &t.skips
            && (skips.is_empty() || has_duplicates(skips))
        {
            return bad(
                line("skips"),
                format!(
                    "{}: skips must list at least one entry, each once",
                    t.template_name
                ),
            );
        }
    }
    Ok(config)
}

fn has_duplicates(items: &[String]) -> bool {
    let mut seen = HashSet::with_capacity(items.len());
    !items.iter().all(|i| seen.insert(i.as_str()))
}

/// The `fbc` section of the `ci.yaml` of the operator directory `dir`: whether FBC delivery is on,
/// and the mappings. Every template and catalog name of the mappings must be a plain file or
/// directory name. The file is read only when it resolves inside `dir`.
pub fn read_ci_mapping(dir: &Path) -> Result<(bool, Vec<CatalogMapping>), ReleaseError> {
    let path = &dir.join("ci.yaml");
    let Typed { value: ci, tree } = typed::read::<CiYaml>(dir, path)?;
    let fbc = ci.fbc.unwrap_or(Fbc {
        enabled: None,
        catalog_mapping: Vec::new(),
    });
    let listed = items(
        tree.get_field("fbc")
            .and_then(|f| f.get_field("catalog_mapping")),
    );
    for (i, m) in fbc.catalog_mapping.iter().enumerate() {
        let item = listed.get(i);
        let field = |key: &str| item.and_then(|n| n.get_field(key));
        if let Err(why) = plain_name(&m.template_name) {
            return Err(config_error(
                path,
                line_of(field("template_name").or(item)),
                format!("template_name {:?} {why}", m.template_name),
            ));
        }
        for (j, c) in m.catalog_names.iter().enumerate() {
            if let Err(why) = plain_name(c) {
                let at = items(field("catalog_names")).get(j);
                return Err(config_error(
                    path,
                    line_of(at.or(item)),
                    format!("catalog name {c:?} {why}"),
                ));
            }
        }
    }
    Ok((fbc.enabled.unwrap_or(false), fbc.catalog_mapping))
}

/// Where an operator's files are: `operators/<op>/` with `ci.yaml` and `catalog-templates/`.
#[derive(Debug, Clone)]
pub struct OperatorDir {
    pub dir: PathBuf,
    pub templates: PathBuf,
}

impl OperatorDir {
    /// The repository the operator directory is in (`<repo>/operators/<op>`): the directory two
    /// levels up, symbolic links resolved. `None` when the directory cannot be resolved or is too
    /// near the file system's root.
    pub fn repository(&self) -> Option<PathBuf> {
        let dir = self.dir.canonicalize().ok()?;
        dir.parent().and_then(Path::parent).map(Path::to_path_buf)
    }

    /// From the operator directory or its `catalog-templates/`.
    pub fn find(path: &Path) -> OperatorDir {
        let is_templates = path.file_name().is_some_and(|n| n == "catalog-templates");
        if is_templates {
            OperatorDir {
                dir: path.parent().unwrap_or(path).to_path_buf(),
                templates: path.to_path_buf(),
            }
        } else {
            OperatorDir {
                dir: path.to_path_buf(),
                templates: path.join("catalog-templates"),
            }
        }
    }
}

/// What to release: the bundle's name, package and image, with where it goes.
#[derive(Debug, Clone)]
pub struct Release<'a> {
    pub bundle: &'a str,
    pub package: &'a str,
    pub image: &'a str,
    pub item: &'a ReleaseTemplate,
}

/// The channel entry the release adds: `name`, then `replaces`, `skips`, `skipRange` as given.
fn channel_entry(r: &Release) -> Node {
    let mut fields = vec![("name", Node::string(r.bundle))];
    if let Some(x) = &r.item.replaces {
        fields.push(("replaces", Node::string(x.as_str())));
    }
    if let Some(s) = &r.item.skips {
        fields.push((
            "skips",
            Node::seq(s.iter().map(|x| Node::string(x.as_str()))),
        ));
    }
    if let Some(x) = &r.item.skip_range {
        fields.push(("skipRange", Node::string(x.as_str())));
    }
    Node::map(fields)
}

/// Checks the item against the mapping and returns the template type.
pub fn template_type(
    r: &ReleaseTemplate,
    mappings: &[CatalogMapping],
) -> Result<&'static str, ReleaseError> {
    if let Some(d) = &r.default_channel
        && !r.channels.contains(d)
    {
        let list: Vec<String> = r.channels.iter().map(|c| format!("'{c}'")).collect();
        return Err(ReleaseError::Refused(format!(
            "defaultChannel '{d}' not found in '{}'. Available channels: [{}]",
            r.template_name,
            list.join(", ")
        )));
    }
    let m = mappings
        .iter()
        .find(|m| m.template_name == r.template_name)
        .ok_or_else(|| {
            ReleaseError::Refused(format!(
                "Template mapping not found for '{}' in ci.yaml.",
                r.template_name
            ))
        })?;
    let kind = match m.kind.as_str() {
        schemas::BASIC => schemas::BASIC,
        schemas::SEMVER => schemas::SEMVER,
        other => {
            return Err(ReleaseError::Refused(format!(
                "Unknown template type '{other}' in ci.yaml."
            )));
        }
    };
    if kind == schemas::SEMVER
        && let Some(c) = r
            .channels
            .iter()
            .find(|c| !["Fast", "Candidate", "Stable"].contains(&c.as_str()))
    {
        return Err(ReleaseError::Refused(format!(
            "{}: channel {c:?} is not a semver channel: a semver template lists bundles under Candidate, Fast and Stable",
            r.template_name
        )));
    }
    Ok(kind)
}

/// A new basic template for the release.
pub fn create_basic(r: &Release) -> Node {
    let default = r
        .item
        .default_channel
        .clone()
        .unwrap_or_else(|| r.item.channels[0].clone());
    let mut entries = vec![Node::map(vec![
        ("schema", Node::string(schema::PACKAGE)),
        ("name", Node::string(r.package)),
        ("defaultChannel", Node::string(default)),
    ])];
    for c in &r.item.channels {
        entries.push(Node::map(vec![
            ("schema", Node::string(schema::CHANNEL)),
            ("name", Node::string(c.as_str())),
            ("package", Node::string(r.package)),
            ("entries", Node::seq(vec![channel_entry(r)])),
        ]));
    }
    entries.push(bundle_entry(r.image));
    Node::map(vec![
        ("schema", Node::string(schemas::BASIC)),
        ("entries", Node::seq(entries)),
    ])
}

fn bundle_entry(image: &str) -> Node {
    Node::map(vec![
        ("schema", Node::string(schema::BUNDLE)),
        ("image", Node::string(image)),
    ])
}

/// A new semver template for the release.
pub fn create_semver(r: &Release) -> Node {
    let mut fields = vec![
        ("Schema", Node::string(schemas::SEMVER)),
        ("GenerateMajorChannels", Node::new(Kind::Bool(true))),
        ("GenerateMinorChannels", Node::new(Kind::Bool(true))),
    ];
    for c in &r.item.channels {
        fields.push((
            c.as_str(),
            Node::map(vec![(
                "Bundles",
                Node::seq(vec![Node::map(vec![("Image", Node::string(r.image))])]),
            )]),
        ));
    }
    Node::map(fields)
}

/// The release added to an existing basic template (`images`: the bundle name each image of the
/// template renders to, where known).
pub fn amend_basic(
    doc: &Node,
    r: &Release,
    images: &[(String, Option<String>)],
) -> Result<Node, ReleaseError> {
    let mut entries = entries_of(doc);
    if let Some((other, _)) = images
        .iter()
        .find(|(i, name)| i != r.image && name.as_deref() == Some(r.bundle))
    {
        return Err(ReleaseError::Refused(format!(
            "{} is already in {} as image {other}; a second reference to the same bundle would render it twice",
            r.bundle, r.item.template_name
        )));
    }
    let name_of = |n: &Node| {
        n.get_field("name")
            .and_then(Node::as_str)
            .map(str::to_string)
    };
    let present: HashSet<String> = entries
        .iter()
        .filter(|e| schema_of(e) == schema::CHANNEL)
        .filter_map(name_of)
        .collect();
    for c in &r.item.channels {
        if !present.contains(c) {
            entries.push(Node::map(vec![
                ("schema", Node::string(schema::CHANNEL)),
                ("name", Node::string(c.as_str())),
                ("package", Node::string(r.package)),
                ("entries", Node::seq(vec![])),
            ]));
        }
    }
    let listed = entries.iter().any(|e| {
        schema_of(e) == schema::BUNDLE
            && e.get_field("image").and_then(Node::as_str) == Some(r.image)
    });
    if !listed {
        entries.push(bundle_entry(r.image));
    }
    let entry = channel_entry(r);
    let wanted: HashSet<&str> = r.item.channels.iter().map(String::as_str).collect();
    for e in entries.iter_mut() {
        if schema_of(e) != schema::CHANNEL {
            continue;
        }
        let Some(name) = name_of(e).filter(|n| wanted.contains(n.as_str())) else {
            continue;
        };
        if e.get_field("entries").is_none_or(Node::is_null) {
            e.set_field("entries", Node::seq(vec![]));
        }
        let Some(list) = e.get_field_mut("entries").and_then(Node::as_seq_mut) else {
            return Err(ReleaseError::Refused(format!(
                "the entries of channel {name} in {} are not a list",
                r.item.template_name
            )));
        };
        if list.contains(&entry) {
            continue;
        }
        if list.iter().any(|x| name_of(x).as_deref() == Some(r.bundle)) {
            return Err(ReleaseError::Refused(format!(
                "channel {name} of {} already lists {} with other links; change that entry instead of adding a second one",
                r.item.template_name, r.bundle
            )));
        }
        list.push(entry.clone());
    }
    Ok(with_entries(doc, entries))
}

/// The release added to an existing semver template: each channel's list gets the image (keys matched
/// in any case; a missing list is added at the end in the template's case).
pub fn amend_semver(doc: &Node, r: &Release) -> Result<Node, ReleaseError> {
    let mut node = doc.clone();
    for c in &r.item.channels {
        let key = key_as_written(&node, c)
            .map(str::to_string)
            .unwrap_or_else(|| c.clone());
        if !matches!(node.get_field(&key).map(|n| &n.kind), Some(Kind::Map(_))) {
            node.set_field(&key, Node::map(vec![]));
        }
        let Some(section) = node.get_field_mut(&key) else {
            continue;
        };
        let bundles = key_as_written(section, "bundles")
            .map(str::to_string)
            .unwrap_or_else(|| "Bundles".into());
        if !matches!(
            section.get_field(&bundles).map(|n| &n.kind),
            Some(Kind::Seq(_))
        ) {
            section.set_field(&bundles, Node::seq(vec![]));
        }
        let Some(items) = section.get_field_mut(&bundles).and_then(Node::as_seq_mut) else {
            continue;
        };
        let present = items
            .iter()
            .any(|i| i.get_field("image").and_then(Node::as_str) == Some(r.image));
        if !present {
            let image_key = items
                .iter()
                .find_map(|i| key_as_written(i, "image").map(str::to_string))
                .unwrap_or_else(|| "Image".into());
            items.push(Node::map(vec![(image_key.as_str(), Node::string(r.image))]));
        }
    }
    Ok(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_may_carry_other_keys_but_the_top_level_may_not() {
        let ok: ReleaseConfig = serde_yaml::from_str(
            "catalog_templates:\n- template_name: v4.20.yaml\n  channels: [stable]\n  note: for the 1.19 line\n",
        )
        .unwrap();
        assert_eq!(ok.catalog_templates[0].channels, ["stable"]);
        let e = serde_yaml::from_str::<ReleaseConfig>(
            "catalog_templates:\n- template_name: v4.20.yaml\n  channels: [stable]\nnote: x\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown field `note`"), "{e}");
    }
}
