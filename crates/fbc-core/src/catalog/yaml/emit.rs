//! Writing nodes as YAML in a document's own style: its indentation, where its sequences sit, and
//! whether it wraps long values; strings quoted only when they must be (see [`super::yaml11`]).

use super::yaml11::{self, QuoteStyle};
use crate::catalog::node::{Entry, Kind, Node, Str, Style};

/// The layout of a YAML document, so text written into it looks like its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YamlStyle {
    /// Spaces per nesting level of a mapping.
    pub indent: usize,
    /// Whether `- ` items of a sequence sit deeper than their key (`key:\n  - a`) or level with it.
    pub indent_sequences: bool,
    /// The width past which a long plain value without spaces goes on the line after its key
    /// (`key: ⏎  value`, with the space after the colon kept), as ruamel.yaml writes it; `None` for a
    /// document that never does that.
    pub wrap_width: Option<usize>,
}

impl Default for YamlStyle {
    fn default() -> Self {
        YamlStyle {
            indent: 2,
            indent_sequences: false,
            wrap_width: None,
        }
    }
}

/// ruamel.yaml's default line width.
const RUAMEL_WIDTH: usize = 80;

impl YamlStyle {
    /// Detects the style of a document from its block collections.
    pub fn detect(root: &Node) -> YamlStyle {
        let mut style = YamlStyle::default();
        let mut found_indent = false;
        let mut seq_offset = None;
        detect_walk(root, &mut style, &mut found_indent, &mut seq_offset);
        if wraps_long_values(root) {
            style.wrap_width = Some(RUAMEL_WIDTH);
        }
        if let Some(offset) = seq_offset {
            style.indent_sequences = offset > 0;
            // With no nested mapping to learn from, indented sequences tell the indent width.
            if !found_indent && offset > 0 {
                style.indent = offset;
            }
        }
        style
    }
}

/// Whether some plain scalar of the document starts on the line after its key (`key: ⏎  value`).
fn wraps_long_values(node: &Node) -> bool {
    match &node.kind {
        Kind::Map(entries) => entries.iter().any(|e| {
            let wrapped = matches!(e.value.kind, Kind::String(_))
                && e.value.style() == Style::Plain
                && e.value.pos().is_real()
                && e.key.pos().is_real()
                && e.value.pos().line > e.key.pos().line;
            wrapped || wraps_long_values(&e.value)
        }),
        Kind::Seq(items) => items.iter().any(wraps_long_values),
        _ => false,
    }
}

fn detect_walk(
    node: &Node,
    style: &mut YamlStyle,
    found_indent: &mut bool,
    seq_offset: &mut Option<usize>,
) {
    if *found_indent && seq_offset.is_some() {
        return;
    }
    match &node.kind {
        Kind::Map(entries) => {
            for e in entries {
                let nested = node.style() == Style::Block
                    && e.value.style() == Style::Block
                    && e.value.pos().is_real()
                    && e.key.pos().is_real()
                    && e.value.pos().line > e.key.pos().line;
                if nested {
                    match &e.value.kind {
                        Kind::Map(_) if !*found_indent && e.value.pos().col > e.key.pos().col => {
                            style.indent = (e.value.pos().col - e.key.pos().col) as usize;
                            *found_indent = true;
                        }
                        Kind::Seq(_) if seq_offset.is_none() => {
                            *seq_offset =
                                Some(e.value.pos().col.saturating_sub(e.key.pos().col) as usize);
                        }
                        _ => {}
                    }
                }
                detect_walk(&e.value, style, found_indent, seq_offset);
            }
        }
        Kind::Seq(items) => {
            for i in items {
                detect_walk(i, style, found_indent, seq_offset);
            }
        }
        _ => {}
    }
}

/// Writes a scalar (or an empty collection) inline. `like` is the original node whose quoting to keep.
pub fn write_inline(out: &mut String, node: &Node, like: Style, resolve: &dyn Fn(&Str) -> String) {
    match &node.kind {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Kind::Number(n) => out.push_str(n),
        Kind::String(s) => {
            let text;
            let s: &str = match s {
                Str::Inline(s) => s,
                d => {
                    text = resolve(d);
                    &text
                }
            };
            let q = match like {
                Style::SingleQuoted => QuoteStyle::Single,
                Style::DoubleQuoted => QuoteStyle::Double,
                _ => QuoteStyle::Plain,
            };
            yaml11::write_scalar_str(out, s, q);
        }
        Kind::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_inline(out, item, Style::Any, resolve);
            }
            out.push(']');
        }
        Kind::Map(entries) => {
            out.push('{');
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                yaml11::write_scalar_str(out, e.key_str(), QuoteStyle::Plain);
                out.push_str(": ");
                write_inline(out, &e.value, Style::Any, resolve);
            }
            out.push('}');
        }
    }
}

fn is_block(node: &Node) -> bool {
    match &node.kind {
        Kind::Seq(v) => !v.is_empty(),
        Kind::Map(v) => !v.is_empty(),
        _ => false,
    }
}

fn literal_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with([' ', '\t', '\n'])
        && !s.ends_with("\n\n")
        && s.chars().all(|c| c == '\n' || c == '\t' || !c.is_control())
        && s.lines().all(|l| !l.ends_with([' ', '\t']))
}

fn push_indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Writes the value part of a `key: value` pair at mapping indentation `indent`: either ` scalar` on the
/// same line, or a newline and a block below.
pub fn write_value_after_key(
    out: &mut String,
    value: &Node,
    indent: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    match &value.kind {
        Kind::Map(_) if is_block(value) => {
            out.push('\n');
            write_block(out, value, indent + style.indent, style, resolve);
        }
        Kind::Seq(_) if is_block(value) => {
            out.push('\n');
            let dash = if style.indent_sequences {
                indent + style.indent
            } else {
                indent
            };
            write_block(out, value, dash, style, resolve);
        }
        Kind::String(Str::Inline(s)) if literal_ok(s) => {
            out.push_str(if s.ends_with('\n') { " |\n" } else { " |-\n" });
            for line in s.trim_end_matches('\n').split('\n') {
                if !line.is_empty() {
                    push_indent(out, indent + style.indent);
                    out.push_str(line);
                }
                out.push('\n');
            }
            out.pop();
        }
        Kind::String(Str::Inline(s)) if wraps_here(out, s, style) => {
            out.push_str(" \n");
            push_indent(out, indent + style.indent);
            write_inline(out, value, Style::Any, resolve);
        }
        _ => {
            out.push(' ');
            write_inline(out, value, Style::Any, resolve);
        }
    }
}

/// Whether a value goes on the next line in a document that wraps long values: it is written plain,
/// has no spaces, and would pass the width after `key: ` on the current line of `out`.
fn wraps_here(out: &str, s: &str, style: YamlStyle) -> bool {
    let Some(width) = style.wrap_width else {
        return false;
    };
    let column = out.len() - out.rfind('\n').map_or(0, |i| i + 1);
    let mut plain = String::new();
    yaml11::write_scalar_str(&mut plain, s, QuoteStyle::Plain);
    plain == s && !s.contains(' ') && column + 1 + s.chars().count() > width
}

/// Writes a block collection whose first line starts at column `indent` (the first line is indented
/// too). No trailing newline.
pub fn write_block(
    out: &mut String,
    node: &Node,
    indent: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    match &node.kind {
        Kind::Map(entries) if !entries.is_empty() => {
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                push_indent(out, indent);
                write_map_entry(out, e, indent, style, resolve);
            }
        }
        Kind::Seq(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                push_indent(out, indent);
                write_seq_item(out, item, indent, style, resolve);
            }
        }
        _ => {
            push_indent(out, indent);
            write_inline(out, node, Style::Any, resolve);
        }
    }
}

/// Writes `key: value` (the cursor is already at the key's column).
pub fn write_map_entry(
    out: &mut String,
    e: &Entry,
    indent: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    yaml11::write_scalar_str(out, e.key_str(), QuoteStyle::Plain);
    out.push(':');
    write_value_after_key(out, &e.value, indent, style, resolve);
}

/// Writes `- item` (the cursor is already at the dash's column `dash`).
pub fn write_seq_item(
    out: &mut String,
    item: &Node,
    dash: usize,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    out.push('-');
    match &item.kind {
        Kind::Map(entries) if !entries.is_empty() => {
            out.push(' ');
            let inner = dash + 2;
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                    push_indent(out, inner);
                }
                write_map_entry(out, e, inner, style, resolve);
            }
        }
        Kind::Seq(items) if !items.is_empty() => {
            out.push(' ');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                    push_indent(out, dash + 2);
                }
                write_seq_item(out, it, dash + 2, style, resolve);
            }
        }
        _ => {
            // A multi-line string after a dash reads as `- |` with the text indented below.
            write_value_after_key(out, item, dash, style, resolve);
        }
    }
}

/// Writes a whole document (a block mapping at column 0) followed by a newline.
pub fn write_document(
    out: &mut String,
    node: &Node,
    style: YamlStyle,
    resolve: &dyn Fn(&Str) -> String,
) {
    write_block(out, node, 0, style, resolve);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::yaml::parse_one as parse;

    #[test]
    fn detects_indent_and_sequence_style() {
        let a = parse("a:\n    b: 1\nl:\n    - x\n");
        assert_eq!(
            YamlStyle::detect(&a),
            YamlStyle {
                indent: 4,
                indent_sequences: true,
                wrap_width: None,
            }
        );
        let b = parse("a:\n  b: 1\nl:\n- x\n");
        assert_eq!(YamlStyle::detect(&b), YamlStyle::default());
    }

    #[test]
    fn a_document_that_wraps_long_values_gets_new_ones_wrapped_too() {
        let wrapped = parse(
            "- image: \n    quay.io/a/very/long/reference/that/passes/the/eighty/column/mark@sha256:0123\n  schema: olm.bundle\n",
        );
        let style = YamlStyle::detect(&wrapped);
        assert_eq!(style.wrap_width, Some(80));
        let entry = Node::map(vec![
            ("schema", Node::string("olm.bundle")),
            (
                "image",
                Node::string(
                    "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3",
                ),
            ),
        ]);
        let mut out = String::new();
        write_block(&mut out, &entry, 2, style, &|_| String::new());
        assert_eq!(
            out,
            "  schema: olm.bundle\n  image: \n    quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3"
        );
        // A value that fits stays on its line; without the style nothing wraps.
        let mut out = String::new();
        write_block(&mut out, &entry, 2, YamlStyle::default(), &|_| {
            String::new()
        });
        assert!(out.ends_with("  image: quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3"));
    }

    #[test]
    fn writes_blocks_that_read_back_equal() {
        let src = "schema: olm.channel\nname: \"yes\"\nentries:\n- name: a\n  skips:\n  - \"1.10\"\n  - on\ndesc: |\n  line one\n  line two\nempty: []\n";
        let n = parse(src);
        for style in [
            YamlStyle::default(),
            YamlStyle {
                indent: 4,
                indent_sequences: true,
                wrap_width: None,
            },
        ] {
            let mut out = String::new();
            write_document(&mut out, &n, style, &|_| String::new());
            let back = parse(&out);
            assert_eq!(back, n, "{out}");
        }
    }
}
