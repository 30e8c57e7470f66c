//! Writing nodes as JSON in a file's own layout: its indentation unit, or compact.

use crate::catalog::node::{Kind, Node, Str};
use crate::text::escape::write_json_string;
use crate::text::lines::line_indent;

/// How a JSON file is laid out, so new text matches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonStyle {
    /// Indentation unit (`"    "` in opm's output); empty means compact, one line.
    pub indent: &'static str,
}

impl JsonStyle {
    pub const OPM: JsonStyle = JsonStyle { indent: "    " };
    pub const COMPACT: JsonStyle = JsonStyle { indent: "" };

    pub fn from_width(width: usize, tabs: bool) -> JsonStyle {
        const SPACES: &str = "                ";
        if tabs {
            return JsonStyle { indent: "\t" };
        }
        JsonStyle {
            indent: &SPACES[..width.min(SPACES.len())],
        }
    }

    /// The layout a blob of `text` uses: the distance from its `{` to its first key, when on another
    /// line; compact when the first key is on the `{` line; opm's when the blob has no key.
    pub fn detect(text: &str, root: &Node) -> JsonStyle {
        let Some(first) = root.as_map().and_then(|m| m.first()) else {
            return JsonStyle::OPM;
        };
        if !first.key.pos().is_real() || first.key.pos().line == root.pos().line {
            return JsonStyle::COMPACT;
        }
        let key_indent = line_indent(text, first.key.pos().start as usize);
        let root_indent = line_indent(text, root.pos().start as usize);
        let tabs = key_indent.starts_with('\t');
        let width = key_indent.len().saturating_sub(root_indent.len()).max(1);
        JsonStyle::from_width(width, tabs)
    }
}

/// Writes `node` as JSON. `level` is the nesting level of the node itself (its closing bracket is indented
/// `level` times); the first line is not indented, so the caller places it.
pub fn write_json(
    out: &mut String,
    node: &Node,
    style: JsonStyle,
    level: usize,
    resolve: &dyn Fn(&Str) -> String,
) {
    let newline = |out: &mut String, level: usize| {
        if !style.indent.is_empty() {
            out.push('\n');
            for _ in 0..level {
                out.push_str(style.indent);
            }
        }
    };
    match &node.kind {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Kind::Number(n) => out.push_str(n),
        Kind::String(s) => match s {
            Str::Inline(s) => write_json_string(out, s, false),
            deferred => write_json_string(out, &resolve(deferred), false),
        },
        Kind::Seq(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                write_json(out, item, style, level + 1, resolve);
            }
            newline(out, level);
            out.push(']');
        }
        Kind::Map(entries) => {
            if entries.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                write_json_string(out, e.key_str(), false);
                out.push(':');
                if !style.indent.is_empty() {
                    out.push(' ');
                }
                write_json(out, &e.value, style, level + 1, resolve);
            }
            newline(out, level);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::json::{JsonError, JsonReader};

    fn parse_all(text: &str) -> Result<Vec<Node>, JsonError> {
        let mut r = JsonReader::new(text, 0);
        let mut out = Vec::new();
        while let Some(v) = r.next_value() {
            out.push(v?);
        }
        Ok(out)
    }

    #[test]
    fn writes_with_indent_like_opm() {
        let v = parse_all(r#"{"a":[1,{"b":"c"}],"e":{},"f":[]}"#).unwrap();
        let mut out = String::new();
        write_json(&mut out, &v[0], JsonStyle::OPM, 0, &|_| String::new());
        assert_eq!(
            out,
            "{\n    \"a\": [\n        1,\n        {\n            \"b\": \"c\"\n        }\n    ],\n    \"e\": {},\n    \"f\": []\n}"
        );
        let mut out = String::new();
        write_json(&mut out, &v[0], JsonStyle::COMPACT, 0, &|_| String::new());
        assert_eq!(out, r#"{"a":[1,{"b":"c"}],"e":{},"f":[]}"#);
    }
}
