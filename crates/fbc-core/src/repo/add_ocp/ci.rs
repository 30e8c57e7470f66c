//! An operator's `ci.yaml` as the promotion reads and edits it: the typed value, and the new
//! catalog name spliced into `catalog_names` in the list's own style, read back and compared
//! before it is accepted.

use std::path::Path;

use serde::Deserialize;

use crate::catalog::json::JsonStyle;
use crate::catalog::node::{Kind, Node, Str, Style};
use crate::catalog::yaml::patch::YamlPatch;
use crate::catalog::yaml::typed::{self, TypedError};
use crate::catalog::yaml::{YamlStyle, write_inline};
use crate::guard::file::{self, ReadError};
use crate::guard::limits::{self, Limit};
use crate::text::splice::{self, Splice};

use super::Refusal;

/// An operator's `ci.yaml`, as far as the promotion reads it.
#[derive(Debug, Deserialize)]
pub(super) struct CiYaml {
    #[serde(default)]
    pub(super) fbc: Option<Fbc>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Fbc {
    #[serde(default)]
    pub(super) version_promotion_strategy: Option<String>,
    #[serde(default)]
    pub(super) catalog_mapping: Vec<Mapping>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Mapping {
    #[serde(default)]
    pub(super) template_name: Option<String>,
    #[serde(rename = "type", default)]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) catalog_names: Vec<String>,
}

/// A `ci.yaml` as read: its value, the tree of its document and its text.
pub(super) struct Ci {
    pub(super) value: CiYaml,
    pub(super) tree: Node,
    pub(super) text: String,
}

/// Reads `operators/<op>/ci.yaml` (inside the operator's directory, within the `yaml-file`
/// budget); `None` when there is none.
pub(super) fn read_ci(op_dir: &Path, shown: &str) -> Result<Option<Ci>, Refusal> {
    let path = op_dir.join("ci.yaml");
    let budgets = limits::current();
    let limit = budgets.get(Limit::YamlFile);
    let text = match file::read_text_limited_within(op_dir, &path, limit) {
        Ok(t) => t,
        Err(e) if e.is_not_found() && path.symlink_metadata().is_err() => return Ok(None),
        Err(ReadError::TooLarge { len, .. }) => {
            return Err(Refusal::OverBudget {
                file: shown.to_string(),
                message: budgets.exceeded(
                    Limit::YamlFile,
                    &format!("the file holds {len} bytes; not read"),
                ),
            });
        }
        Err(why) => {
            return Err(Refusal::Unreadable {
                file: shown.to_string(),
                why,
            });
        }
    };
    let typed::Typed { value, tree } = typed::parse::<CiYaml>(&text, shown)?;
    Ok(Some(Ci { value, tree, text }))
}

/// The `catalog_names` list of mapping `i` in a `ci.yaml` tree.
pub(super) fn names_node(tree: &Node, i: usize) -> Option<&Node> {
    tree.get_field("fbc")?
        .get_field("catalog_mapping")?
        .as_seq()?
        .get(i)?
        .get_field("catalog_names")
}

/// The text of `ci.yaml` with `catalog` appended to the `catalog_names` of mapping `i`, every
/// other byte kept: a flow list gets `, <name>` after its last item, quoted like it; a block list
/// is patched by the document's own writer. The result is read back and must say exactly that.
pub(super) fn append_catalog(ci: &Ci, i: usize, catalog: &str) -> Result<String, AppendError> {
    let names = names_node(&ci.tree, i).ok_or(AppendError::NotAList)?;
    let items = names.as_seq().ok_or(AppendError::NotAList)?;
    let resolve = |s: &Str| s.as_inline().unwrap_or_default().to_string();
    let mut splices = Vec::new();
    match items.last() {
        Some(last) if names.style() == Style::Flow && last.pos().is_real() => {
            let mut text = String::from(", ");
            let like = match last.style() {
                s @ (Style::SingleQuoted | Style::DoubleQuoted) => s,
                _ => Style::Plain,
            };
            write_inline(&mut text, &Node::string(catalog), like, &resolve);
            splices.push(Splice::insert(last.pos().end as usize, text));
        }
        _ => {
            let mut new = ci.tree.clone();
            let list = new
                .get_field_mut("fbc")
                .and_then(|f| f.get_field_mut("catalog_mapping"))
                .and_then(Node::as_seq_mut)
                .and_then(|s| s.get_mut(i))
                .and_then(|m| m.get_field_mut("catalog_names"))
                .and_then(Node::as_seq_mut)
                .ok_or(AppendError::NotAList)?;
            list.push(Node::string(catalog));
            let patch = YamlPatch {
                text: &ci.text,
                resolve: &resolve,
                style: YamlStyle::detect(&ci.tree),
                json: JsonStyle::detect(&ci.text, &ci.tree),
            };
            patch.patch_document(&ci.tree, &new, &mut splices);
        }
    }
    let text = splice::apply(&ci.text, splices).map_err(|at| AppendError::Placing { at })?;
    // Read back: the mapping must list the old names and the new one, and nothing else may change.
    let back = typed::parse::<CiYaml>(&text, "ci.yaml").map_err(AppendError::Unreadable)?;
    let mut expected: Vec<String> = items
        .iter()
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect();
    expected.push(catalog.to_string());
    let got = names_node(&back.tree, i)
        .and_then(Node::as_seq)
        .map(|s| {
            s.iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut rest_before = ci.tree.clone();
    let mut rest_after = back.tree.clone();
    for t in [&mut rest_before, &mut rest_after] {
        if let Some(n) = t
            .get_field_mut("fbc")
            .and_then(|f| f.get_field_mut("catalog_mapping"))
            .and_then(Node::as_seq_mut)
            .and_then(|s| s.get_mut(i))
        {
            n.set_field("catalog_names", Node::NULL);
        }
    }
    if got != expected || !same_value(&rest_before, &rest_after) {
        return Err(AppendError::OtherValues);
    }
    Ok(text)
}

/// Why a catalog name cannot be appended to a mapping of `ci.yaml` (nothing is written then).
#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    #[error("the mapping's catalog_names is not a list")]
    NotAList,
    /// The edit's pieces overlap (`at`: the byte where they do).
    #[error("cannot place the new catalog name (at byte {at})")]
    Placing { at: usize },
    #[error("the edit would leave the file unreadable ({0}); nothing written")]
    Unreadable(#[source] TypedError),
    #[error("cannot append the catalog name without changing other values; nothing written")]
    OtherValues,
}

/// Whether two trees hold the same values, positions and styles aside.
pub(super) fn same_value(a: &Node, b: &Node) -> bool {
    match (&a.kind, &b.kind) {
        (Kind::Map(x), Kind::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(p, q)| p.key_str() == q.key_str() && same_value(&p.value, &q.value))
        }
        (Kind::Seq(x), Kind::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_value(p, q))
        }
        _ => a == b || a.as_str().is_some() && a.as_str() == b.as_str(),
    }
}
