//! The two JSON Schemas operator-pipelines checks repository files with (`ci-schema.json` for an
//! operator's `ci.yaml`, `release-config-schema.json` for a bundle's `release-config.yaml`),
//! written out as [`Shape`]s and checked against a file's tree, so every violation is named with its
//! line. Only what those schemas use is here: types, closed objects, required keys, enumerations,
//! and arrays with a least length and unique items. A repeated key, which the pipeline's YAML
//! reader silently resolves to the last one, is reported beside them.

use crate::catalog::node::{Kind, Node};

/// What a value must be.
#[derive(Debug)]
pub enum Shape {
    Str,
    /// A string among these.
    OneOf(&'static [&'static str]),
    Bool,
    Array {
        items: &'static Shape,
        min: usize,
        unique: bool,
    },
    Object {
        props: &'static [(&'static str, Shape)],
        required: &'static [&'static str],
        /// Whether keys other than `props` are refused (`additionalProperties: false`).
        closed: bool,
    },
}

/// One way a file does not comply: where (a path such as `fbc.catalog_mapping[0]`), the line, and
/// what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub path: String,
    pub line: u32,
    pub message: String,
    /// A repeated key rather than a schema rule.
    pub duplicate_key: bool,
}

const STRINGS: Shape = Shape::Str;

/// `operatorcert/schemas/ci-schema.json`.
pub const CI: Shape = Shape::Object {
    props: &[
        (
            "updateGraph",
            Shape::OneOf(&["replaces-mode", "semver-mode"]),
        ),
        (
            "reviewers",
            Shape::Array {
                items: &STRINGS,
                min: 1,
                unique: false,
            },
        ),
        ("merge", Shape::Bool),
        ("cert_project_id", Shape::Str),
        (
            "fbc",
            Shape::Object {
                props: &[
                    ("enabled", Shape::Bool),
                    (
                        "version_promotion_strategy",
                        Shape::OneOf(&["review-needed", "always", "never"]),
                    ),
                    (
                        "catalog_mapping",
                        Shape::Array {
                            items: &MAPPING,
                            min: 0,
                            unique: false,
                        },
                    ),
                ],
                required: &[],
                closed: true,
            },
        ),
    ],
    required: &[],
    closed: false,
};

const MAPPING: Shape = Shape::Object {
    props: &[
        ("template_name", Shape::Str),
        (
            "catalog_names",
            Shape::Array {
                items: &STRINGS,
                min: 1,
                unique: true,
            },
        ),
        ("type", Shape::OneOf(&["olm.template.basic", "olm.semver"])),
    ],
    required: &["template_name", "type", "catalog_names"],
    closed: false,
};

/// `operatorcert/schemas/release-config-schema.json`.
pub const RELEASE_CONFIG: Shape = Shape::Object {
    props: &[
        ("merge", Shape::Bool),
        (
            "catalog_templates",
            Shape::Array {
                items: &RELEASE_TEMPLATE,
                min: 1,
                unique: true,
            },
        ),
    ],
    required: &["catalog_templates"],
    closed: true,
};

const RELEASE_TEMPLATE: Shape = Shape::Object {
    props: &[
        ("template_name", Shape::Str),
        (
            "channels",
            Shape::Array {
                items: &STRINGS,
                min: 1,
                unique: true,
            },
        ),
        ("defaultChannel", Shape::Str),
        ("replaces", Shape::Str),
        (
            "skips",
            Shape::Array {
                items: &STRINGS,
                min: 1,
                unique: true,
            },
        ),
        ("skipRange", Shape::Str),
    ],
    required: &["template_name", "channels"],
    closed: false,
};

/// Every violation of `shape` by `node`, in document order.
pub fn check(node: &Node, shape: &Shape) -> Vec<Violation> {
    let mut out = Vec::new();
    walk(node, shape, "", &mut out);
    duplicate_keys(node, "", &mut out);
    out.sort_by(|a, b| (a.line, &a.path).cmp(&(b.line, &b.path)));
    out
}

fn walk(node: &Node, shape: &Shape, path: &str, out: &mut Vec<Violation>) {
    let mut fail = |message: String| {
        out.push(Violation {
            path: shown(path),
            line: node.pos().line,
            message,
            duplicate_key: false,
        });
    };
    match shape {
        Shape::Str => {
            if node.as_str().is_none() {
                fail(format!("{} is not of type 'string'", value(node)));
            }
        }
        Shape::OneOf(allowed) => match node.as_str() {
            Some(s) if allowed.contains(&s) => {}
            Some(_) => fail(format!(
                "{} is not one of {}",
                value(node),
                allowed
                    .iter()
                    .map(|a| format!("'{a}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => fail(format!("{} is not of type 'string'", value(node))),
        },
        Shape::Bool => {
            if !matches!(node.kind, Kind::Bool(_)) {
                fail(format!("{} is not of type 'boolean'", value(node)));
            }
        }
        Shape::Array { items, min, unique } => {
            let Some(list) = node.as_seq() else {
                fail(format!("{} is not of type 'array'", value(node)));
                return;
            };
            if list.len() < *min {
                fail(format!(
                    "lists {} item(s), at least {min} needed",
                    list.len()
                ));
            }
            if *unique {
                for (i, item) in list.iter().enumerate() {
                    if list[..i].contains(item) {
                        out.push(Violation {
                            path: shown(&format!("{path}[{i}]")),
                            line: item.pos().line,
                            message: format!("{} is listed twice", value(item)),
                            duplicate_key: false,
                        });
                    }
                }
            }
            for (i, item) in list.iter().enumerate() {
                walk(item, items, &format!("{path}[{i}]"), out);
            }
        }
        Shape::Object {
            props,
            required,
            closed,
        } => {
            let Some(entries) = node.as_map() else {
                fail(format!("{} is not of type 'object'", value(node)));
                return;
            };
            for key in *required {
                if node.get(key).is_none() {
                    fail(format!("'{key}' is a required property"));
                }
            }
            let mut seen: Vec<&str> = Vec::new();
            for e in entries {
                let key = e.key_str();
                // A repeated key is read once, as the last value.
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                let last = node.get(key).unwrap_or(&e.value);
                let here = join(path, key);
                match props.iter().find(|(k, _)| *k == key) {
                    Some((_, s)) => walk(last, s, &here, out),
                    None if *closed => out.push(Violation {
                        path: shown(path),
                        line: e.key.pos().line,
                        message: format!("additional property '{key}' is not allowed"),
                        duplicate_key: false,
                    }),
                    None => {}
                }
            }
        }
    }
}

/// Keys written twice in any mapping of the tree.
fn duplicate_keys(node: &Node, path: &str, out: &mut Vec<Violation>) {
    match &node.kind {
        Kind::Map(entries) => {
            for (i, e) in entries.iter().enumerate() {
                let key = e.key_str();
                if entries[..i].iter().any(|p| p.key_str() == key) {
                    out.push(Violation {
                        path: shown(path),
                        line: e.key.pos().line,
                        message: format!("key '{key}' is written more than once; the last is used"),
                        duplicate_key: true,
                    });
                }
                duplicate_keys(&e.value, &join(path, key), out);
            }
        }
        Kind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                duplicate_keys(item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn shown(path: &str) -> String {
    if path.is_empty() {
        "(top level)".to_string()
    } else {
        path.to_string()
    }
}

/// A value as the message shows it: strings quoted, collections by their kind.
fn value(node: &Node) -> String {
    match &node.kind {
        Kind::Null => "null".to_string(),
        Kind::Bool(b) => b.to_string(),
        Kind::Number(n) => n.to_string(),
        Kind::String(_) => {
            let s = node.as_str().unwrap_or_default();
            let cut: String = s.chars().take(80).collect();
            format!("'{cut}'")
        }
        Kind::Seq(_) => "a list".to_string(),
        Kind::Map(_) => "a mapping".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::yaml::typed;

    fn violations(text: &str, shape: &Shape) -> Vec<(String, u32, String)> {
        let t = typed::parse::<serde::de::IgnoredAny>(text, "f.yaml").unwrap();
        check(&t.tree, shape)
            .into_iter()
            .map(|v| (v.path, v.line, v.message))
            .collect()
    }

    #[test]
    fn ci_yaml_rules_as_the_pipeline_has_them() {
        let text = "fbc:\n  enabled: yes\n  catalog_mapping:\n  - template_name: a.yaml\n    catalog_names: [v4.18, v4.18]\n  - type: olm.template.composite\n    catalog_names: []\n  extra: 1\nupdateGraph: semver-mode\nreviewers: []\nother: fine\n";
        let v = violations(text, &CI);
        let messages: Vec<String> = v.iter().map(|(p, l, m)| format!("{l} {p}: {m}")).collect();
        assert_eq!(
            messages,
            [
                "4 fbc.catalog_mapping[0]: 'type' is a required property",
                "5 fbc.catalog_mapping[0].catalog_names[1]: 'v4.18' is listed twice",
                "6 fbc.catalog_mapping[1]: 'template_name' is a required property",
                "6 fbc.catalog_mapping[1].type: 'olm.template.composite' is not one of 'olm.template.basic', 'olm.semver'",
                "7 fbc.catalog_mapping[1].catalog_names: lists 0 item(s), at least 1 needed",
                "8 fbc: additional property 'extra' is not allowed",
                "10 reviewers: lists 0 item(s), at least 1 needed",
            ],
            "{messages:#?}"
        );
    }

    #[test]
    fn a_number_where_a_string_is_wanted_and_a_repeated_key() {
        let text = "fbc:\n  enabled: true\n  catalog_mapping:\n  - template_name: a.yaml\n    type: olm.semver\n    catalog_names: [4.22]\n  enabled: false\n";
        let t = typed::parse::<serde::de::IgnoredAny>(text, "f.yaml");
        // serde refuses the repeated key only for typed maps; the tree keeps both.
        let tree = match t {
            Ok(t) => t.tree,
            Err(e) => panic!("{e}"),
        };
        let v = check(&tree, &CI);
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].line, 6);
        assert_eq!(v[0].message, "4.22 is not of type 'string'");
        assert!(v[1].duplicate_key && v[1].line == 7, "{v:?}");
    }

    #[test]
    fn release_config_is_closed_at_the_top() {
        let v = violations(
            "catalog_templates:\n- template_name: v4.17.yaml\n  channels: [stable, stable]\n  extra: kept\nmerge: 1\nsomething: x\n",
            &RELEASE_CONFIG,
        );
        let messages: Vec<String> = v.iter().map(|(p, l, m)| format!("{l} {p}: {m}")).collect();
        assert_eq!(
            messages,
            [
                "3 catalog_templates[0].channels[1]: 'stable' is listed twice",
                "5 merge: 1 is not of type 'boolean'",
                "6 (top level): additional property 'something' is not allowed",
            ]
        );
    }
}
