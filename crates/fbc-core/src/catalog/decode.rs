//! Turning one file's text into documents, with opm's choice between a JSON stream and YAML.

use super::codes::catalog as codes;
use super::diagnostic::{Diagnostic, Location, Severity};
use super::json::JsonReader;
use super::node::{Entry, Kind, Node, Sharing};
use super::yaml::{self, Chunk, Keep};

/// How a document is written in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Json,
    Yaml,
}

/// One top-level document of a file.
#[derive(Debug)]
pub struct Document {
    pub node: Node,
    pub format: Format,
    /// Byte range of the document's own text (for YAML, the whole chunk between separators).
    pub start: usize,
    pub end: usize,
    /// A YAML document using anchors or aliases.
    pub has_anchors: bool,
}

/// Decodes a whole file. Problems are pushed to `diags`; every document that could be read is returned.
pub fn decode(text: &str, file: u32, path: &str, diags: &mut Vec<Diagnostic>) -> Vec<Document> {
    decode_kept(text, file, path, Keep::All, diags)
}

/// [`decode`], keeping of each YAML document what `keep` asks for (JSON documents are kept whole).
/// The problems found are the same whatever is kept.
pub fn decode_kept(
    text: &str,
    file: u32,
    path: &str,
    keep: Keep,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Document> {
    let first = text.bytes().position(|b| !b.is_ascii_whitespace());
    if text.is_empty() {
        diags.push(Diagnostic::new(
            codes::EMPTY,
            Severity::Info,
            Location::new(path, 0, 0),
            "empty file: it holds no catalog objects",
        ));
        return Vec::new();
    }
    match first {
        Some(i) if text.as_bytes()[i] == b'{' => decode_json(text, file, path, keep, diags),
        _ if json_behind_bom(text) => {
            // opm looks for `{` at the very start and sees the mark instead: the file is YAML to it, and
            // go-yaml skips the mark. One JSON object reads the same as YAML; a stream of them does not.
            let mut own = Vec::new();
            let docs = decode_yaml(text, 0, 1, file, path, keep, &mut own);
            let failed = own.iter().any(|d| d.severity == Severity::Error);
            for d in &mut own {
                if d.code == codes::SYNTAX {
                    d.message.push_str(BOM_NOTE);
                }
            }
            if !failed {
                own.push(Diagnostic::new(
                    codes::LENIENT,
                    Severity::Warning,
                    Location::new(path, 1, 1),
                    format!("JSON read as YAML{BOM_NOTE}"),
                ));
            }
            diags.extend(own);
            docs
        }
        _ => decode_yaml(text, 0, 1, file, path, keep, diags),
    }
}

const BOM_NOTE: &str = " (the file starts with a UTF-8 byte order mark, so opm reads it as YAML, not as a JSON stream, and so do we: remove the mark)";

/// Whether [`decode_kept`] reads a file starting with `head` as YAML documents alone, whatever
/// follows: `head` shows something other than spaces (after a byte order mark), and neither JSON
/// stream that [`decode_kept`] looks for.
pub(super) fn plain_yaml(head: &str) -> bool {
    let shown = !head
        .strip_prefix('\u{feff}')
        .unwrap_or(head)
        .trim_start()
        .is_empty();
    let first = head.bytes().find(|b| !b.is_ascii_whitespace());
    shown && first != Some(b'{') && !json_behind_bom(head)
}

/// A UTF-8 byte order mark followed by what looks like JSON.
fn json_behind_bom(text: &str) -> bool {
    text.strip_prefix('\u{feff}')
        .is_some_and(|rest| rest.trim_start().starts_with('{'))
}

fn decode_json(
    text: &str,
    file: u32,
    path: &str,
    keep: Keep,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Document> {
    let mut reader = JsonReader::new(text, file);
    let mut docs = Vec::new();
    let mut last_end = 0usize;
    loop {
        match reader.next_value() {
            None => return docs,
            Some(Ok(node)) => {
                last_end = node.pos().end as usize;
                docs.push(Document {
                    start: node.pos().start as usize,
                    end: node.pos().end as usize,
                    node,
                    format: Format::Json,
                    has_anchors: false,
                });
            }
            Some(Err(e)) => {
                // opm falls back to YAML for the rest of the file when at most one object was read.
                if docs.len() <= 1 {
                    let mut from = last_end;
                    let bytes = text.as_bytes();
                    while from < bytes.len() && bytes[from].is_ascii_whitespace() {
                        from += 1;
                        if bytes[from - 1] == b'\n' {
                            break;
                        }
                    }
                    let line = 1 + text[..from].bytes().filter(|&b| b == b'\n').count() as u32;
                    let mut yaml_diags = Vec::new();
                    let yaml_docs =
                        decode_yaml(text, from, line, file, path, keep, &mut yaml_diags);
                    if !yaml_diags.iter().any(|d| d.severity == Severity::Error) {
                        diags.push(Diagnostic::new(
                            codes::LENIENT,
                            Severity::Warning,
                            Location::new(path, e.line, e.col),
                            format!(
                                "not valid JSON ({}); opm reads the rest of this file as YAML, and so do we",
                                e.message
                            ),
                        ));
                        diags.extend(yaml_diags);
                        docs.extend(yaml_docs);
                        return docs;
                    }
                }
                diags.push(Diagnostic::new(
                    codes::SYNTAX,
                    Severity::Error,
                    Location::new(path, e.line, e.col),
                    format!("invalid JSON: {}", e.message),
                ));
                return docs;
            }
        }
    }
}

fn decode_yaml(
    text: &str,
    from: usize,
    first_line: u32,
    file: u32,
    path: &str,
    keep: Keep,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Document> {
    let start = Start {
        from,
        line: first_line,
        base: 0,
    };
    decode_yaml_part(text, start, file, path, keep, diags).0
}

/// Where YAML documents start in a text: at byte `from`, on line `line`, the text holding its
/// file's bytes from byte `base` on.
#[derive(Clone, Copy)]
pub(super) struct Start {
    pub(super) from: usize,
    pub(super) line: u32,
    pub(super) base: usize,
}

/// [`decode_yaml`] of the YAML documents in `text` from `start`: the documents, and the number of
/// the line after the text's last line break.
pub(super) fn decode_yaml_part(
    text: &str,
    start: Start,
    file: u32,
    path: &str,
    keep: Keep,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<Document>, u32) {
    let Start { from, line, base } = start;
    let (chunks, sep_errors, end_line) = yaml::split_documents_to_end(text, from, line);
    for e in sep_errors {
        diags.push(Diagnostic::new(
            codes::SYNTAX,
            Severity::Error,
            Location::new(path, e.line, 1),
            format!(
                "invalid Yaml document separator: {} (only a comment may follow `---` on its line)",
                e.rest
            ),
        ));
    }
    let mut docs = Vec::with_capacity(chunks.len());
    // Documents parse independently, so a large file uses every core; results keep file order.
    let parsed: Vec<_> = if chunks.len() > 1 && text.len() > 64 * 1024 {
        use rayon::prelude::*;
        chunks
            .par_iter()
            .map_init(Sharing::default, |sharing, &c| {
                (
                    c,
                    yaml::parse_chunk_kept(text, c, base as u32, file, sharing, keep),
                )
            })
            .collect()
    } else {
        let mut sharing = Sharing::default();
        chunks
            .iter()
            .map(|&c| {
                (
                    c,
                    yaml::parse_chunk_kept(text, c, base as u32, file, &mut sharing, keep),
                )
            })
            .collect()
    };
    for (chunk, result) in parsed {
        match result {
            Ok(parsed) => {
                if let Some(line) = parsed.ignored_tail {
                    diags.push(Diagnostic::new(
                        codes::LENIENT,
                        Severity::Warning,
                        Location::new(path, line, 1),
                        "text after the `...` document end marker is ignored (by opm too); start a new document with `---` instead",
                    ));
                }
                if parsed.node.is_null() {
                    diags.push(empty_chunk(path, text, chunk));
                    continue;
                }
                docs.push(Document {
                    node: parsed.node,
                    format: Format::Yaml,
                    start: base + chunk.start,
                    end: base + chunk.end,
                    has_anchors: parsed.has_anchors,
                });
            }
            Err(e) => diags.push(Diagnostic::new(
                codes::SYNTAX,
                Severity::Error,
                Location::new(path, e.line, e.col),
                format!("invalid YAML: {}", e.message),
            )),
        }
    }
    (docs, end_line)
}

fn empty_chunk(path: &str, text: &str, chunk: Chunk) -> Diagnostic {
    let body = &text[chunk.start..chunk.end];
    let what = if body.trim().is_empty() {
        "blank lines"
    } else {
        "only comments"
    };
    Diagnostic::new(
        codes::NOT_A_BLOB,
        Severity::Error,
        Location::new(path, chunk.line, 1),
        format!(
            "document holds {what}; opm reads it as an object with no schema (\"object '' is missing root schema field\"): remove it or the `---` next to it"
        ),
    )
}

/// The `schema`, `package` and `name` of a document, read like opm: keys matched case-insensitively,
/// and top-level keys that differ only in case rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub schema: String,
    pub package: String,
    pub name: String,
}

/// Reads the meta keys of a document, or explains why it is not a catalog object.
pub fn meta(node: &Node, path: &str) -> Result<Meta, Box<Diagnostic>> {
    let at = |n: &Node| Location::new(path, n.pos().line, n.pos().col);
    let Kind::Map(entries) = &node.kind else {
        return Err(Box::new(Diagnostic::new(
            codes::NOT_A_BLOB,
            Severity::Error,
            at(node),
            format!(
                "expected an object, found {} (opm: cannot unmarshal {} into Go value of type map[string]interface {{}})",
                node.type_name(),
                node.type_name()
            ),
        )));
    };
    if let Some((key, msg)) = keys_differing_in_case(entries) {
        return Err(Box::new(Diagnostic::new(
            codes::META,
            Severity::Error,
            at(key),
            msg,
        )));
    }
    let field = |key: &str| -> Result<String, Box<Diagnostic>> {
        match node.get_field_entry(key) {
            None => Ok(String::new()),
            Some(e) => match &e.value.kind {
                Kind::String(s) => Ok(s.as_inline().unwrap_or_default().to_string()),
                _ => Err(Box::new(Diagnostic::new(
                    codes::META,
                    Severity::Error,
                    at(&e.value),
                    format!(
                        "expected value for key {key:?} to be a string, got {}",
                        e.value.type_name()
                    ),
                ))),
            },
        }
    };
    let meta = Meta {
        schema: field("schema")?,
        package: field("package")?,
        name: field("name")?,
    };
    if meta.schema.is_empty() {
        let hint = match (
            node.get("kind").and_then(Node::as_str),
            node.get("apiVersion"),
        ) {
            (Some(kind), Some(_)) => format!(
                " (this is a Kubernetes {kind} manifest, not a catalog object; list it in an .indexignore to skip it)"
            ),
            _ => String::new(),
        };
        return Err(Box::new(Diagnostic::new(
            codes::NOT_A_BLOB,
            Severity::Error,
            at(node),
            format!("object is missing root schema field{hint}"),
        )));
    }
    Ok(meta)
}

/// Top-level keys that differ only in case, which opm's decoder rejects: the key to report (the
/// last spelling of the first such key) and the message naming every such key.
fn keys_differing_in_case(entries: &[Entry]) -> Option<(&Node, String)> {
    let mut folded: Vec<(String, &str, &Node)> = entries
        .iter()
        .map(|e| (e.key_str().to_lowercase(), e.key_str(), &e.key))
        .collect();
    folded.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    let mut problems = Vec::new();
    let mut i = 0;
    while i < folded.len() {
        let mut j = i + 1;
        while j < folded.len() && folded[j].0 == folded[i].0 {
            j += 1;
        }
        let mut spellings: Vec<&str> = folded[i..j].iter().map(|f| f.1).collect();
        spellings.dedup();
        if spellings.len() > 1 {
            problems.push((
                folded[i..j]
                    .iter()
                    .map(|f| f.2)
                    .max_by_key(|n| n.pos().start)
                    .unwrap_or(folded[i].2),
                format!(
                    "duplicate keys for key {:?}: [{}]",
                    folded[i].0,
                    spellings.join(" ")
                ),
            ));
        }
        i = j;
    }
    let (key, _) = problems.first()?;
    let msg = problems
        .iter()
        .map(|p| p.1.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Some((key, msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_behind_a_byte_order_mark_is_read_as_opm_reads_it() {
        let one = "\u{feff}{\n  \"schema\": \"olm.package\",\n  \"name\": \"foo\"\n}\n";
        let mut diags = Vec::new();
        let docs = decode(one, 0, "a.json", &mut diags);
        assert_eq!(docs.len(), 1, "one object reads the same as YAML");
        assert_eq!(docs[0].format, Format::Yaml);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, codes::LENIENT);
        assert!(diags[0].message.contains("byte order mark"));

        let stream = format!("{one}{{\"schema\": \"olm.channel\"}}\n");
        let mut diags = Vec::new();
        decode(&stream, 0, "a.json", &mut diags);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, codes::SYNTAX);
        assert_eq!(diags[0].location.line, 5);
        assert!(
            diags[0].message.contains("byte order mark"),
            "{}",
            diags[0].message
        );
    }
}
