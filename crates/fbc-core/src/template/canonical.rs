//! A catalog object as opm holds it after reading it into its Go types: the known schemas keep only
//! their fields (matched in any letter case, the last spelling winning) in declaration order, with
//! property values and unknown schemas' objects keeping every key, sorted.

use super::*;
use crate::catalog::model::{self, Bundle, Channel, Deprecations, Package, ViewError};
use serde_json::Map;

fn text(s: Option<&Str>) -> String {
    s.and_then(Str::as_inline).unwrap_or_default().to_string()
}

fn sorted(node: &Node) -> Value {
    let mut v = to_value(node);
    emit::sort_keys(&mut v);
    v
}

fn properties(props: &[model::Property<'_>], m: &mut Map<String, Value>) {
    if props.is_empty() {
        return;
    }
    let list = props
        .iter()
        .map(|p| {
            let mut o = Map::new();
            o.insert("type".into(), Value::String(p.type_.to_string()));
            o.insert("value".into(), sorted(p.value));
            Value::Object(o)
        })
        .collect();
    m.insert("properties".into(), Value::Array(list));
}

/// Go's `base64.CorruptInputError`: the offset of the first byte that is not base64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal base64 data at input byte {0}")]
pub(crate) struct CorruptBase64(pub usize);

/// Go decodes `[]byte` from padded standard base64 (line breaks allowed) and writes it back
/// without line breaks.
pub(crate) fn base64_bytes(s: &str) -> Result<String, CorruptBase64> {
    use base64::Engine as _;
    let bytes = crate::text::go_base64::decode(s).map_err(CorruptBase64)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// A problem reading an object, with the line of the value at fault (0 when unknown).
pub(crate) type Fault = (u32, String);

pub(crate) fn package(node: &Node) -> Result<Value, Fault> {
    let p = Package::read(node).map_err(|e| view_error("parse package", &e))?;
    let mut m = Map::new();
    m.insert("schema".into(), Value::String(schema::PACKAGE.into()));
    m.insert("name".into(), Value::String(p.name.into()));
    m.insert(
        "defaultChannel".into(),
        Value::String(p.default_channel.into()),
    );
    if let Some(icon) = &p.icon {
        let data = match icon.base64data {
            Some(s) => Value::String(base64_bytes(s.as_inline().unwrap_or_default()).map_err(
                |e| {
                    let line = node
                        .get_field("icon")
                        .and_then(|i| i.get_field("base64data"))
                        .map_or(0, |n| n.pos().line);
                    (line, format!("parse package: icon.base64data: {e}"))
                },
            )?),
            None => Value::Null,
        };
        let mut i = Map::new();
        i.insert("base64data".into(), data);
        i.insert("mediatype".into(), Value::String(icon.mediatype.into()));
        m.insert("icon".into(), Value::Object(i));
    }
    let description = text(p.description);
    if !description.is_empty() {
        m.insert("description".into(), Value::String(description));
    }
    properties(&p.properties, &mut m);
    Ok(Value::Object(m))
}

pub(crate) fn channel(node: &Node) -> Result<Value, Fault> {
    let c = Channel::read(node).map_err(|e| view_error("parse channel", &e))?;
    let mut m = Map::new();
    m.insert("schema".into(), Value::String(schema::CHANNEL.into()));
    m.insert("name".into(), Value::String(c.name.into()));
    m.insert("package".into(), Value::String(c.package.into()));
    let entries = match node.get_field("entries") {
        None => Value::Null,
        Some(n) if n.is_null() => Value::Null,
        Some(_) => Value::Array(
            c.entries
                .iter()
                .map(|e| {
                    let mut o = Map::new();
                    o.insert("name".into(), Value::String(e.name.into()));
                    if let Some(r) = e.replaces {
                        o.insert("replaces".into(), Value::String(r.into()));
                    }
                    if !e.skips.is_empty() {
                        o.insert(
                            "skips".into(),
                            Value::Array(
                                e.skips.iter().map(|s| Value::String((*s).into())).collect(),
                            ),
                        );
                    }
                    if let Some(r) = e.skip_range {
                        o.insert("skipRange".into(), Value::String(r.into()));
                    }
                    Value::Object(o)
                })
                .collect(),
        ),
    };
    m.insert("entries".into(), entries);
    properties(&c.properties, &mut m);
    Ok(Value::Object(m))
}

pub(crate) fn deprecations(node: &Node) -> Result<Value, Fault> {
    let d = Deprecations::read(node).map_err(|e| view_error("parse deprecation", &e))?;
    let mut m = Map::new();
    m.insert("schema".into(), Value::String(schema::DEPRECATIONS.into()));
    m.insert("package".into(), Value::String(d.package.into()));
    let entries = match node.get_field("entries") {
        None => Value::Null,
        Some(n) if n.is_null() => Value::Null,
        Some(_) => Value::Array(
            d.entries
                .iter()
                .map(|e| {
                    let mut r = Map::new();
                    r.insert("schema".into(), Value::String(e.schema.into()));
                    if !e.name.is_empty() {
                        r.insert("name".into(), Value::String(e.name.into()));
                    }
                    let mut o = Map::new();
                    o.insert("reference".into(), Value::Object(r));
                    o.insert("message".into(), Value::String(e.message.into()));
                    Value::Object(o)
                })
                .collect(),
        ),
    };
    m.insert("entries".into(), entries);
    Ok(Value::Object(m))
}

/// A rendered bundle as `opm render` prints one: its fields in declaration order, bundle objects
/// and CSV metadata moved after the other properties, related images sorted by image as opm
/// built with `go` sorts them.
pub(crate) fn bundle(node: &Node, go: GoRelease) -> Result<Value, Fault> {
    let b = Bundle::read(node).map_err(|e| view_error("parse bundle", &e))?;
    let mut m = Map::new();
    m.insert("schema".into(), Value::String(schema::BUNDLE.into()));
    if !b.name.is_empty() {
        m.insert("name".into(), Value::String(b.name.into()));
    }
    if !b.package.is_empty() {
        m.insert("package".into(), Value::String(b.package.into()));
    }
    m.insert("image".into(), Value::String(b.image.into()));
    let last = |t: &str| {
        t == model::property_type::BUNDLE_OBJECT || t == model::property_type::CSV_METADATA
    };
    let mut props: Vec<&model::Property<'_>> =
        b.properties.iter().filter(|p| !last(p.type_)).collect();
    props.extend(b.properties.iter().filter(|p| last(p.type_)));
    if !props.is_empty() {
        let list = props
            .iter()
            .map(|p| {
                let mut o = Map::new();
                o.insert("type".into(), Value::String(p.type_.to_string()));
                o.insert("value".into(), to_value(p.value));
                Value::Object(o)
            })
            .collect();
        m.insert("properties".into(), Value::Array(list));
    }
    if !b.related_images.is_empty() {
        let mut related = b.related_images.clone();
        // Go's unstable sort.Slice by image, as opm: names of one image keep opm's order.
        gosort::slice(&mut related, go, |x, y| x.image < y.image);
        let list = related
            .iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("name".into(), Value::String(r.name.into()));
                o.insert("image".into(), Value::String(r.image.into()));
                Value::Object(o)
            })
            .collect();
        m.insert("relatedImages".into(), Value::Array(list));
    }
    Ok(Value::Object(m))
}

/// An object of a schema opm does not know: every key kept, sorted at every depth.
pub(crate) fn other(node: &Node) -> Value {
    sorted(node)
}

fn view_error(what: &str, e: &ViewError) -> Fault {
    (e.line, format!("{what}: {e}"))
}
