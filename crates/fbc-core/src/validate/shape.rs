//! Value shapes opm's Go decoder demands: each known schema and property type is decoded into a Go
//! struct, so a number where a string belongs, an object where a list belongs, or bad base64 in a
//! `[]byte` field fails the whole catalog. This module checks nodes against those structs (described
//! in `catalog::gotypes`), reporting every mismatch (Go stops at the first) with Go's wording for
//! `--output opm`.

pub use crate::catalog::gotypes::*;
use crate::catalog::node::{Kind, Node, Str, Style};

/// One value of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Our path to the value, e.g. `entries[2].skips[0]`.
    pub path: String,
    pub line: u32,
    pub col: u32,
    /// Our wording.
    pub message: String,
    /// Go's `encoding/json` wording.
    pub go: String,
    /// A YAML scalar written plain that YAML 1.1 read as a number or boolean.
    pub yaml_trap: bool,
}

/// Decodes a string left on disk as base64: `Err(at)` at the first bad byte, `None` when it cannot
/// be read (the check is then skipped).
pub type Base64<'r> = dyn Fn(&Str) -> Option<Result<(), usize>> + 'r;

/// Checks `node` against `ty` as a top-level value (no struct context yet).
pub fn check(node: &Node, st: &'static StructTy, base64: &Base64, out: &mut Vec<Mismatch>) {
    let mut cx = Cx {
        base64,
        out,
        struct_name: None,
        fields: Vec::new(),
    };
    let ty = Ty::Struct(st);
    cx.value(node, &ty, &Path::Root);
}

/// Where a value sits, built on the stack while walking and printed only for a mismatch.
pub enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(Path::Root, k) => f.write_str(k),
            Path::Key(parent, k) => write!(f, "{parent}.{k}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

struct Cx<'a, 'r> {
    base64: &'a Base64<'r>,
    out: &'a mut Vec<Mismatch>,
    /// Innermost Go struct whose field is being decoded (its full Go name, shortened only when a
    /// message names it), and the JSON field names from the top.
    struct_name: Option<&'static str>,
    fields: Vec<&'static str>,
}

fn short(go: &'static str) -> &'static str {
    go.rsplit('.').next().unwrap_or(go)
}

/// Whether `node` is of type `ty` with nothing inside to check: a leaf whose kind is the type's, a
/// null, or anything for raw JSON. Such a value needs no call of [`Cx::value`].
#[inline]
fn fits(node: &Node, ty: &Ty) -> bool {
    matches!(
        (ty, &node.kind),
        (Ty::Raw, _)
            | (_, Kind::Null)
            | (Ty::Str | Ty::NamedStr(_), Kind::String(_))
            | (Ty::Bool, Kind::Bool(_))
    )
}

impl Cx<'_, '_> {
    fn go_context(&self, value: &str, ty: &str) -> String {
        match self.struct_name {
            Some(s) => format!(
                "json: cannot unmarshal {value} into Go struct field {}.{} of type {ty}",
                short(s),
                self.fields.join(".")
            ),
            None => format!("json: cannot unmarshal {value} into Go value of type {ty}"),
        }
    }

    fn mismatch(&mut self, node: &Node, ty: &Ty, path: &Path, go_value: String) {
        let path = path.to_string();
        let found = match node.kind {
            Kind::Bool(_) => "true/false",
            Kind::Number(_) => "a number",
            Kind::String(_) => "a string",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "an object",
            Kind::Null => "null",
        };
        let shown = if path.is_empty() { "the value" } else { &path };
        let yaml_trap =
            node.style() == Style::Plain && matches!(node.kind, Kind::Number(_) | Kind::Bool(_));
        let go = self.go_context(&go_value, &ty.go_name());
        self.out.push(Mismatch {
            path: path.clone(),
            line: node.pos().line,
            col: node.pos().col,
            message: format!("{shown} must be {}, found {found}", ty.ours()),
            go,
            yaml_trap,
        });
    }

    fn value(&mut self, node: &Node, ty: &Ty, path: &Path) {
        if node.is_null() {
            return;
        }
        match (ty, &node.kind) {
            (Ty::Raw, _) => {}
            (Ty::Str | Ty::NamedStr(_), Kind::String(_)) => {}
            (Ty::Bool, Kind::Bool(_)) => {}
            (Ty::Int32, Kind::Number(n)) => {
                if n.parse::<i32>().is_err() {
                    self.mismatch(node, ty, path, format!("number {n}"));
                }
            }
            (Ty::Bytes, Kind::String(s)) => {
                let verdict = match s {
                    Str::Inline(t) => Some(crate::text::go_base64::decode(t).map(drop)),
                    Str::Deferred { .. } => (self.base64)(s),
                };
                if let Some(Err(at)) = verdict {
                    self.out.push(Mismatch {
                        path: path.to_string(),
                        line: node.pos().line,
                        col: node.pos().col,
                        message: format!(
                            "{path} is not valid base64 (standard alphabet, padded): bad data at byte {at}"
                        ),
                        go: format!("illegal base64 data at input byte {at}"),
                        yaml_trap: false,
                    });
                }
            }
            (Ty::Bytes, Kind::Seq(items)) => {
                // Go also fills a []byte from a list of small numbers.
                for (i, item) in items.iter().enumerate() {
                    if !item.is_null()
                        && !matches!(&item.kind, Kind::Number(n) if n.parse::<u8>().is_ok())
                    {
                        let v = match &item.kind {
                            Kind::Number(n) => format!("number {n}"),
                            _ => item.type_name().to_string(),
                        };
                        self.mismatch(item, &Ty::Int32, &Path::Index(path, i), v);
                    }
                }
            }
            (Ty::Slice(elem), Kind::Seq(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if !fits(item, elem) {
                        self.value(item, elem, &Path::Index(path, i));
                    }
                }
            }
            (Ty::Map(elem), Kind::Map(entries)) => {
                for e in entries {
                    if !fits(&e.value, elem) {
                        self.value(&e.value, elem, &Path::Key(path, e.key_str()));
                    }
                }
            }
            (Ty::Struct(st), Kind::Map(entries)) => {
                let saved = self.struct_name.replace(st.go);
                for e in entries {
                    let key = e.key_str();
                    let Some((name, fty)) = field(st, key) else {
                        continue;
                    };
                    if fits(&e.value, fty) {
                        continue;
                    }
                    self.fields.push(name);
                    self.value(&e.value, fty, &Path::Key(path, key));
                    self.fields.pop();
                }
                self.struct_name = saved;
            }
            _ => {
                let v = node.type_name().to_string();
                self.mismatch(node, ty, path, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::json::JsonReader;

    fn mismatches(json: &str, st: &'static StructTy) -> Vec<(String, String)> {
        let node = JsonReader::new(json, 0).next_value().unwrap().unwrap();
        let mut out = Vec::new();
        check(&node, st, &|_| None, &mut out);
        out.into_iter().map(|m| (m.path, m.go)).collect()
    }

    #[test]
    fn reports_go_wording_for_each_mismatch() {
        assert_eq!(
            mismatches(
                r#"{"schema":"olm.channel","name":"a","package":"p","entries":[{"name":"x","skips":[1,"y"]},{"Name":true}]}"#,
                &CHANNEL
            ),
            [
                (
                    "entries[0].skips[0]",
                    "json: cannot unmarshal number into Go struct field ChannelEntry.entries.skips of type string"
                ),
                (
                    "entries[1].Name",
                    "json: cannot unmarshal bool into Go struct field ChannelEntry.entries.name of type string"
                ),
            ]
            .map(|(p, g)| (p.to_string(), g.to_string()))
        );
    }

    #[test]
    fn nested_types_carry_the_innermost_struct() {
        assert_eq!(
            mismatches(
                r#"{"installModes":[{"type":"OwnNamespace","supported":"yes"}],"labels":{"a":1},
                   "apiServiceDefinitions":{"owned":[{"containerPort":1.5},{"containerPort":8443}]},
                   "provider":"Acme"}"#,
                &PROP_CSV_METADATA
            ),
            [
                (
                    "installModes[0].supported",
                    "json: cannot unmarshal string into Go struct field InstallMode.installModes.supported of type bool"
                ),
                (
                    "labels.a",
                    "json: cannot unmarshal number into Go struct field CSVMetadata.labels of type string"
                ),
                (
                    "apiServiceDefinitions.owned[0].containerPort",
                    "json: cannot unmarshal number 1.5 into Go struct field APIServiceDescription.apiServiceDefinitions.owned.containerPort of type int32"
                ),
                (
                    "provider",
                    "json: cannot unmarshal string into Go struct field CSVMetadata.provider of type v1alpha1.AppLink"
                ),
            ]
            .map(|(p, g)| (p.to_string(), g.to_string()))
        );
        assert_eq!(
            mismatches(r#""1.0.0""#, &PROP_PACKAGE),
            [(
                String::new(),
                "json: cannot unmarshal string into Go value of type property.Package".to_string()
            )]
        );
    }

    #[test]
    fn base64_follows_go() {
        assert_eq!(
            mismatches(r#"{"icon":{"base64data":"not base64!"}}"#, &PACKAGE),
            [(
                "icon.base64data".to_string(),
                "illegal base64 data at input byte 3".to_string()
            )]
        );
    }
}
