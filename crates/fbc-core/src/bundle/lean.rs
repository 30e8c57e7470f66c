//! Manifests read only to be rendered ([`RegistryBundle::read_for_render`]): an object other than
//! the CSV goes into the rendering as its JSON text alone (`olm.bundle.object`), so that text is
//! written straight from the parsed document, and its `value` keeps only what reading and
//! rendering ask of it (kind, API version, name, and a CRD's group, names and versions), instead
//! of the whole document built as JSON values, written out, and dropped.

use serde_json::{Map, Value};

use super::RegistryBundle;
use crate::catalog::emit::write_go_json_sorted;
use crate::catalog::node::{Kind, Node, Str, json_in_text};
use crate::text::escape::write_json_string;

impl RegistryBundle {
    /// Reads a registry+v1 bundle directory for [`super::render`]: as [`RegistryBundle::read`],
    /// with the same diagnostics and the same rendering, but objects other than the CSV carry
    /// their JSON text ([`super::Object::json`]) and, as `value`, only the fields rendering reads.
    /// Not for checking a bundle (the checks read the whole objects).
    pub fn read_for_render(root: &std::path::Path) -> RegistryBundle {
        RegistryBundle::read_as(root, true)
    }
}

/// Whether the document is an object read lean: a mapping whose `kind` is not the CSV's.
pub(super) fn is_lean(doc: &Node, text: &str) -> bool {
    doc.as_map().is_some()
        && doc
            .get("kind")
            .map(|k| json_in_text(k, text))
            .is_none_or(|k| k.as_str() != Some("ClusterServiceVersion"))
}

/// What rendering asks of an object that is not the CSV: `apiVersion`, `kind`, `metadata.name`,
/// and from `spec` a CRD's `group`, `names`, `version` and the `name` of each of `versions`.
pub(super) fn fields(doc: &Node, text: &str) -> Value {
    let mut m = Map::new();
    for key in ["apiVersion", "kind"] {
        if let Some(v) = doc.get(key) {
            m.insert(key.to_string(), json_in_text(v, text));
        }
    }
    if let Some(meta) = doc.get("metadata") {
        m.insert("metadata".to_string(), picked(meta, text, &["name"]));
    }
    if let Some(spec) = doc.get("spec") {
        let value = match spec.as_map() {
            None => json_in_text(spec, text),
            Some(_) => {
                let mut s = Map::new();
                for key in ["group", "names", "version"] {
                    if let Some(v) = spec.get(key) {
                        s.insert(key.to_string(), json_in_text(v, text));
                    }
                }
                if let Some(versions) = spec.get("versions") {
                    let value = match versions.as_seq() {
                        Some(items) => {
                            Value::Array(items.iter().map(|v| picked(v, text, &["name"])).collect())
                        }
                        None => json_in_text(versions, text),
                    };
                    s.insert("versions".to_string(), value);
                }
                Value::Object(s)
            }
        };
        m.insert("spec".to_string(), value);
    }
    Value::Object(m)
}

/// A mapping with only `keys` of it (the last of a repeated key, as JSON reading keeps it); any
/// other node whole.
fn picked(node: &Node, text: &str, keys: &[&str]) -> Value {
    if node.as_map().is_none() {
        return json_in_text(node, text);
    }
    let mut m = Map::new();
    for key in keys {
        if let Some(v) = node.get(key) {
            m.insert(key.to_string(), json_in_text(v, text));
        }
    }
    Value::Object(m)
}

/// Writes `node` as Go's encoder writes the JSON value read from it (`json_in_text`): object keys
/// sorted by bytes, a repeated key's last value, HTML characters escaped when `escape_html`.
pub(crate) fn write_node_go_json(out: &mut String, node: &Node, text: &str, escape_html: bool) {
    match &node.kind {
        Kind::Seq(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node_go_json(out, item, text, escape_html);
            }
            out.push(']');
        }
        Kind::Map(entries) if !entries.is_empty() => {
            let mut sorted: Vec<(&str, &Node)> =
                entries.iter().map(|e| (e.key_str(), &e.value)).collect();
            // Stable: of a repeated key, the last one read comes last and is the one kept.
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            let mut first = true;
            for (i, (key, value)) in sorted.iter().enumerate() {
                if sorted.get(i + 1).is_some_and(|(next, _)| next == key) {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                write_json_string(out, key, escape_html);
                out.push(':');
                write_node_go_json(out, value, text, escape_html);
            }
            out.push('}');
        }
        Kind::String(Str::Inline(s)) => write_json_string(out, s, escape_html),
        Kind::String(Str::Deferred { start, len, .. }) => write_json_string(
            out,
            text.get(*start as usize..(*start as usize + *len as usize))
                .unwrap_or_default(),
            escape_html,
        ),
        _ => write_go_json_sorted(out, &json_in_text(node, text), escape_html),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        crate::catalog::yaml::parse_chunk(
            text,
            crate::catalog::yaml::split_documents(text, 0, 1).0[0],
            u32::MAX,
        )
        .unwrap()
        .node
    }

    /// The text written from the document is the one written from its JSON value, for what YAML
    /// holds: numbers in YAML 1.1 forms, booleans, nulls, empty and nested collections, HTML
    /// characters, long strings, repeated keys.
    #[test]
    fn the_text_is_the_values() {
        let long = "x<y>&".repeat(200);
        let text = format!(
            "kind: CustomResourceDefinition\nb: 1.10\na: [1, 0x1F, 1e3, -0, .5]\nz: {{}}\ny: []\nn: ~\nt: yes\nspec:\n  v: \"é\\u2028\"\n  long: {long}\n  v: last\n  names: {{kind: A, plural: as}}\n  versions:\n  - name: v1\n    schema: {{x: 1}}\n  - 3\n"
        );
        let node = doc(&text);
        for html in [true, false] {
            let mut ours = String::new();
            write_node_go_json(&mut ours, &node, &text, html);
            let mut theirs = String::new();
            write_go_json_sorted(&mut theirs, &json_in_text(&node, &text), html);
            assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn the_fields_are_what_rendering_reads() {
        let text = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: as.example.com\n  annotations: {big: x}\nspec:\n  group: example.com\n  names: {kind: A, plural: as}\n  versions:\n  - name: v1\n    schema: {x: 1}\n  - 3\n";
        let node = doc(text);
        assert!(is_lean(&node, text));
        assert_eq!(
            fields(&node, text),
            serde_json::json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "as.example.com"},
                "spec": {"group": "example.com", "names": {"kind": "A", "plural": "as"}, "versions": [{"name": "v1"}, 3]},
            })
        );
        let csv = "kind: ClusterServiceVersion\n";
        assert!(!is_lean(&doc(csv), csv));
    }
}
