//! `olm.template.substitutes` (opm v1.62.0 and later; rendered here as v1.67.0 and later render it): ordinary catalog `entries` (bundles written
//! out in full) and `substitutions: [{name: <bundle image>, base: <bundle name>}]`, for re-spinning
//! a bundle (the same version, a new release) without editing every channel by hand.
//!
//! Rendering, as opm renders it: the entries must convert into opm's model; then, for each
//! substitution in order, the image is rendered, its bundle must be newer than the base
//! ([`order`]), it takes the base's place in every channel listing the base ([`rewire`]), it is
//! added to the catalog, and the catalog must still convert ([`check`]). A base used twice, or one
//! image substituted for two bases, is an error. Every problem is said in opm's words, at the line
//! and column of the template it comes from, with a hint.

pub mod check;
pub mod order;
pub mod rewire;

use serde_json::{Map, Value};

use super::opm::OpmVersion;
use super::source::BundleSource;
use super::{Problem, Rendered, TemplateError, a_type, basic, canonical, schemas, to_value};
use crate::catalog::emit::{self, to_node};
use crate::catalog::model::{Bundle, property_type};
use crate::catalog::node::{Kind, Node};
use crate::catalog::{Object, decode, schema};

pub use order::{Rules, VersionRelease};

/// A substitutes template, read and ready to render.
#[derive(Debug, Clone)]
pub struct Substitutes {
    /// The entries as opm holds them (bundles as written), in the template's order.
    pub entries: Vec<Value>,
    /// The line of each entry.
    pub entry_lines: Vec<u32>,
    pub substitutions: Vec<Substitution>,
}

/// One substitution: the bundle rendered from image `name` takes the place of bundle `base`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substitution {
    pub name: String,
    pub base: String,
    /// Line and column of the item, of its `name` value and of its `base` value (the item's when
    /// the field is missing).
    pub at: (u32, u32),
    pub name_at: (u32, u32),
    pub base_at: (u32, u32),
}

/// The opm release's handling of substitutes templates: none before v1.62.0 (v1.62–v1.66 are not
/// rendered as at all).
pub fn rules(opm: OpmVersion) -> Option<Rules> {
    if opm < OpmVersion::V1_67_0 {
        None
    } else if opm < OpmVersion::V1_69_0 {
        Some(Rules::Composite)
    } else {
        Some(Rules::VersionRelease)
    }
}

/// The field of a mapping that Go's JSON decoding fills for `key`: matched in any letter case,
/// the last spelling winning.
fn field<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    node.as_map()?
        .iter()
        .rev()
        .find(|e| e.key_str().eq_ignore_ascii_case(key))
        .map(|e| &e.value)
}

fn at(n: &Node) -> (u32, u32) {
    (n.pos().line, n.pos().col.max(1))
}

const PARSE: &str = "render: unable to parse template";
const LOAD: &str = "render: unable to create declarative config from entries";

impl Substitutes {
    pub(crate) fn parse(
        file: &str,
        node: &Node,
        notes: &mut Vec<String>,
    ) -> Result<Substitutes, TemplateError> {
        let schema_field = field(node, "schema").and_then(Node::as_str).unwrap_or("");
        if schema_field != schemas::SUBSTITUTES {
            let (l, col) = at(field(node, "schema").unwrap_or(node));
            return Err(TemplateError::many(
                file,
                vec![Problem::at(l, col, format!(
                    "{PARSE}: template has unknown schema ({schema_field:?}), should be {:?}",
                    schemas::SUBSTITUTES
                ))
                .with_hint("a substitutes template starts with `schema: olm.template.substitutes`")],
            ));
        }
        for e in node.as_map().unwrap_or_default() {
            let k = e.key_str();
            if !["schema", "entries", "substitutions"]
                .iter()
                .any(|f| f.eq_ignore_ascii_case(k))
            {
                notes.push(format!(
                    "{file}:{}: field {k:?} is not part of a substitutes template; ignored (opm ignores it too)",
                    e.key.pos().line
                ));
            }
        }
        let mut problems = Vec::new();
        let items = list(
            field(node, "entries"),
            "entries",
            "catalog objects",
            &mut problems,
        );
        let mut entries = Vec::with_capacity(items.len());
        let mut entry_lines = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match entry(item, notes, file) {
                Ok(v) => {
                    entries.push(v);
                    entry_lines.push(item.pos().line);
                }
                Err((line, msg)) => problems.push(
                    Problem::at(
                        if line > 0 { line } else { item.pos().line },
                        item.pos().col.max(1),
                        format!("{LOAD}: entries[{i}]: {msg}"),
                    )
                    .with_hint("each entry is a catalog object: olm.package, olm.channel, olm.bundle (written out in full) or olm.deprecations"),
                ),
            }
        }
        let items = list(
            field(node, "substitutions"),
            "substitutions",
            "{name: <bundle image>, base: <bundle name>} mappings",
            &mut problems,
        );
        let mut substitutions = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match substitution(item) {
                Ok(s) => substitutions.push(s),
                Err(p) => problems.push(Problem {
                    message: format!(
                        "{PARSE}: unmarshalling template: substitutions[{i}]: {}",
                        p.message
                    ),
                    ..p
                }),
            }
        }
        if !problems.is_empty() {
            return Err(TemplateError::many(file, problems));
        }
        Ok(Substitutes {
            entries,
            entry_lines,
            substitutions,
        })
    }

    /// The substitutes' images, each with its line, in the order rendering resolves them.
    pub fn images(&self) -> Vec<(String, u32)> {
        self.substitutions
            .iter()
            .map(|s| (s.name.clone(), s.name_at.0))
            .collect()
    }

    /// The line of the entry defining an object (a package, channel or bundle by name), if any.
    pub fn entry_line(&self, o: &Object) -> Option<u32> {
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let wanted = |v: &Value| {
            let s = text(v, "schema");
            let package = o.package.clone().unwrap_or_default();
            match (&o.bundle, &o.channel) {
                (Some(b), _) if s == schema::BUNDLE => text(v, "name") == *b,
                (None, Some(c)) if s == schema::CHANNEL => {
                    text(v, "name") == *c && text(v, "package") == package
                }
                (None, None) if s == schema::PACKAGE => text(v, "name") == package,
                _ => false,
            }
        };
        self.entries
            .iter()
            .position(wanted)
            .map(|i| self.entry_lines[i])
    }

    pub(crate) fn render(
        &self,
        file: &str,
        source: &dyn BundleSource,
        opm: OpmVersion,
    ) -> Result<Rendered, TemplateError> {
        let Some(rules) = rules(opm) else {
            return Err(TemplateError::many(
                file,
                vec![Problem::new(
                    1,
                    format!("unknown template schema: {} (opm {opm} has no substitutes template; it came with v1.62.0)", schemas::SUBSTITUTES),
                )
                .with_hint("render as opm v1.67.0 or later: --opm-version v1.71.0, or OPM_VERSION in the operator's Makefile")],
            ));
        };
        let mut cfg = self.entries.clone();
        if let Some((why, o)) = check::first_error(&cfg) {
            let line = self.entry_line(&o).unwrap_or(1);
            return Err(TemplateError::many(
                file,
                vec![Problem::at(line, 1, format!("render: entries are not valid FBC: {why}"))
                    .with_hint("the entries must be a catalog opm accepts before any substitution: fix this entry")],
            ));
        }
        let mut bases: Vec<&str> = Vec::new();
        let mut images: Vec<(&str, &str)> = Vec::new();
        for s in &self.substitutions {
            if bases.contains(&s.base.as_str()) {
                return Err(one(
                    file,
                    s.base_at,
                    format!(
                        "render: cannot reuse the same substitution base {:?}",
                        s.base
                    ),
                    "each bundle is substituted once: substitute the newest re-spin for the base, or chain them (the next one's base is the previous substitute's bundle name)",
                ));
            }
            bases.push(&s.base);
            if let Some((_, first)) = images.iter().find(|(n, _)| *n == s.name) {
                return Err(one(
                    file,
                    s.name_at,
                    format!(
                        "render: cannot reuse the same substitution {:?} for different bases ({first:?} and {:?})",
                        s.name, s.base
                    ),
                    "an image stands in for one base only: remove one of the two substitutions",
                ));
            }
            images.push((&s.name, &s.base));
            if let Err((why, place, hint)) = substitute(&mut cfg, s, source, opm, rules) {
                return Err(one(
                    file,
                    place,
                    format!(
                        "render: error processing substitution {} -> {}: {why}",
                        quote(&s.base, rules),
                        quote(&s.name, rules)
                    ),
                    hint,
                ));
            }
        }
        let written = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, v)| v.get("schema").and_then(Value::as_str) == Some(schema::BUNDLE))
            .map(|(i, _)| i)
            .collect();
        Ok(Rendered {
            blobs: cfg,
            notes: Vec::new(),
            images: self.images(),
            as_written: written,
        })
    }
}

/// opm v1.67–v1.68 name the two sides of a substitution bare, later releases quoted.
fn quote(s: &str, rules: Rules) -> String {
    match rules {
        Rules::Composite => s.to_string(),
        Rules::VersionRelease => format!("{s:?}"),
    }
}

fn one(file: &str, place: (u32, u32), message: String, hint: &str) -> TemplateError {
    TemplateError::many(
        file,
        vec![Problem::at(place.0, place.1, message).with_hint(hint)],
    )
}

/// Why a substitution cannot be made: opm's words, where in the template, and a hint.
type Refusal = (String, (u32, u32), &'static str);

/// One substitution made in `cfg`, as opm makes it (`cfg` may be left half changed on an error,
/// as opm leaves it; the rendering is refused then).
fn substitute(
    cfg: &mut Vec<Value>,
    s: &Substitution,
    source: &dyn BundleSource,
    opm: OpmVersion,
    rules: Rules,
) -> Result<(), Refusal> {
    if s.name.is_empty() {
        return Err((
            "substitution name cannot be empty".into(),
            s.name_at,
            "name is the substitute bundle's image: name: quay.io/org/bundle@sha256:…",
        ));
    }
    if s.base.is_empty() {
        return Err((
            "substitution base cannot be empty".into(),
            s.base_at,
            "base is the name of the bundle the image replaces, as listed in the channels' entries",
        ));
    }
    if s.name == s.base {
        return Err((
            "substitution name and base cannot be the same".into(),
            s.name_at,
            "name is an image reference and base a bundle name",
        ));
    }
    let bundle = rendered_bundle(&s.name, source, opm).map_err(|why| {
        (
            format!("failed to render bundle image reference {:?}: {why}", s.name),
            s.name_at,
            "give the image's bundle directory (--bundle-dir IMAGE=DIR), a catalog holding it (--catalog DIR), or --pull",
        )
    })?;
    let substitute_vr = order::version_release(&bundle, rules).map_err(|why| {
        (
            format!(
                "failed to get {} for substitute bundle {:?}: {why}",
                rules.noun(),
                s.name
            ),
            s.name_at,
            "the substitute's bundle needs exactly one olm.package property with a semver version (and a valid release)",
        )
    })?;
    let Some(base) = cfg.iter().find(|v| {
        v.get("schema").and_then(Value::as_str) == Some(schema::BUNDLE)
            && v.get("name").and_then(Value::as_str) == Some(s.base.as_str())
    }) else {
        return Err((
            format!("base bundle {:?} does not exist in catalog", s.base),
            s.base_at,
            "base names an olm.bundle of the entries (or the bundle of an earlier substitution)",
        ));
    };
    let base_vr = order::version_release(base, rules).map_err(|why| {
        (
            format!(
                "failed to get {} for base bundle {:?}: {why}",
                rules.noun(),
                s.base
            ),
            s.base_at,
            "the base bundle needs exactly one olm.package property with a semver version (and a valid release)",
        )
    })?;
    if order::compare(&base_vr, &substitute_vr).is_ge() {
        return Err((
            format!(
                "base bundle {:?} is not less than substitute bundle {:?}",
                s.base, s.name
            ),
            s.name_at,
            "the substitute must be newer: a higher version, or the same version with a higher release",
        ));
    }
    let name = bundle
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    rewire::rewire(cfg, &s.base, &name);
    cfg.push(bundle);
    if let Some((why, _)) = check::first_error(cfg) {
        return Err((
            format!("resulting config is not valid FBC: {why}"),
            s.at,
            "the substitute must be a new bundle of the base's package, not one the entries already hold",
        ));
    }
    Ok(())
}

/// The bundle rendered from `image` as opm renders it.
fn rendered_bundle(
    image: &str,
    source: &dyn BundleSource,
    opm: OpmVersion,
) -> Result<Value, String> {
    let blob = match source.bundle_for_image(image) {
        Some(Ok(v)) => v,
        Some(Err(why)) => return Err(why.to_string()),
        None => return Err(format!("not found in {}", source.describe())),
    };
    let mut b = canonical::bundle(&to_node(&blob, false), opm.sort())
        .map_err(|(_, e)| format!("the bundle resolved for it cannot be read: {e}"))?;
    opm.adjust_bundle(&mut b);
    Ok(b)
}

/// A list field's items (none when missing or null); anything else is a problem.
fn list<'n>(n: Option<&'n Node>, what: &str, of: &str, problems: &mut Vec<Problem>) -> &'n [Node] {
    match n.map(|n| (n, &n.kind)) {
        None | Some((_, Kind::Null)) => &[],
        Some((_, Kind::Seq(items))) => items,
        Some((n, _)) => {
            let (l, c) = at(n);
            problems.push(
                Problem::at(
                    l,
                    c,
                    format!(
                        "{PARSE}: unmarshalling template: {what} must be a list of {of}, found {}",
                        a_type(n)
                    ),
                )
                .with_hint(format!("write {what} as a YAML list (`- ...` items)")),
            );
            &[]
        }
    }
}

/// One substitution as Go reads it into `{name, base}` (a null item is an empty one).
fn substitution(item: &Node) -> Result<Substitution, Problem> {
    let place = at(item);
    let mut s = Substitution {
        name: String::new(),
        base: String::new(),
        at: place,
        name_at: place,
        base_at: place,
    };
    match &item.kind {
        Kind::Null => return Ok(s),
        Kind::Map(_) => {}
        _ => {
            return Err(Problem::at(
                place.0,
                place.1,
                format!(
                    "json: cannot unmarshal {} into Go value of type substitutes.Substitute",
                    a_type(item)
                ),
            )
            .with_hint(
                "each substitution is a mapping: {name: <bundle image>, base: <bundle name>}",
            ));
        }
    }
    for (key, slot, place) in [
        ("name", &mut s.name, &mut s.name_at),
        ("base", &mut s.base, &mut s.base_at),
    ] {
        let Some(v) = field(item, key) else {
            continue;
        };
        *place = at(v);
        match &v.kind {
            Kind::Null => {}
            Kind::String(_) => *slot = v.as_str().unwrap_or("").to_string(),
            _ => {
                return Err(Problem::at(
                    place.0,
                    place.1,
                    format!(
                        "json: cannot unmarshal {} into Go struct field Substitute.substitutions.{key} of type string",
                        a_type(v)
                    ),
                )
                .with_hint(format!("{key} is a string")));
            }
        }
    }
    Ok(s)
}

/// One entry as opm loads it: bundles as written (checked as opm reads them), anything else as a
/// basic template reads it.
fn entry(item: &Node, notes: &mut Vec<String>, file: &str) -> Result<Value, canonical::Fault> {
    if item.is_null() {
        return Err((0, "an entry is null; it must be a catalog object".into()));
    }
    let meta = decode::meta(item, file).map_err(|d| (d.location.line, d.message))?;
    if meta.schema != schema::BUNDLE {
        return match basic::entry(item, notes, file)? {
            basic::Entry::Object(v) => Ok(v),
            basic::Entry::Bundle { .. } => Err((0, "a bundle entry is not read here".into())),
        };
    }
    let known = [
        "schema",
        "name",
        "package",
        "image",
        "properties",
        "relatedImages",
    ];
    for e in item.as_map().unwrap_or_default() {
        let k = e.key_str();
        if !known.iter().any(|f| f.eq_ignore_ascii_case(k)) {
            notes.push(format!(
                "{file}:{}: field {k:?} is not an olm.bundle field; dropped (as opm drops it)",
                e.key.pos().line
            ));
        }
    }
    let b = Bundle::read(item).map_err(|e| (e.line, format!("parse bundle: {e}")))?;
    let mut m = Map::new();
    m.insert("schema".into(), Value::from(schema::BUNDLE));
    if !b.name.is_empty() {
        m.insert("name".into(), Value::from(b.name));
    }
    if !b.package.is_empty() {
        m.insert("package".into(), Value::from(b.package));
    }
    m.insert("image".into(), Value::from(b.image));
    if !b.properties.is_empty() {
        let mut list = Vec::with_capacity(b.properties.len());
        for (i, p) in b.properties.iter().enumerate() {
            let mut value = to_value(p.value);
            emit::sort_keys(&mut value);
            if p.type_ == property_type::BUNDLE_OBJECT {
                bundle_object(&value).map_err(|why| {
                    (
                        p.value.pos().line,
                        format!(
                            "read bundle objects: package {:?}, bundle {:?}: parse property at index {i} as bundle object: {why}",
                            b.package, b.name
                        ),
                    )
                })?;
            }
            let mut o = Map::new();
            o.insert("type".into(), Value::from(p.type_));
            o.insert("value".into(), value);
            list.push(Value::Object(o));
        }
        m.insert("properties".into(), Value::Array(list));
    }
    if !b.related_images.is_empty() {
        let list = b
            .related_images
            .iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("name".into(), Value::from(r.name));
                o.insert("image".into(), Value::from(r.image));
                Value::Object(o)
            })
            .collect();
        m.insert("relatedImages".into(), Value::Array(list));
    }
    Ok(Value::Object(m))
}

/// An `olm.bundle.object` value as opm decodes it: `data` is base64.
fn bundle_object(value: &Value) -> Result<(), String> {
    match value.get("data") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(s)) => canonical::base64_bytes(s)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Some(other) => Err(format!(
            "json: cannot unmarshal {} into Go struct field BundleObject.data of type []uint8",
            match other {
                Value::Bool(_) => "bool",
                Value::Number(_) => "number",
                Value::Array(_) => "array",
                _ => "object",
            }
        )),
    }
}

#[cfg(test)]
mod tests;
