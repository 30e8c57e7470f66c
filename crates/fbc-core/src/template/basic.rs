//! `olm.template.basic`: `{schema: olm.template.basic, entries: [<catalog objects>]}`. Packages,
//! channels, deprecations and other objects pass through as opm reads them; every `olm.bundle`
//! entry is only `{schema, image}` and is replaced by the bundle rendered from that image.

use serde_json::Value;

use super::opm::{OpmVersion, adjust_bundles};
use super::source::{BundleSource, resolve_all};
use super::{Problem, Rendered, TemplateError, a_type, canonical, schemas};
use crate::catalog::decode;
use crate::catalog::model::Bundle;
use crate::catalog::node::{Kind, Node};
use crate::catalog::schema;

/// A basic template's entries, checked and ready to render.
#[derive(Debug, Clone)]
pub struct Basic {
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
pub enum Entry {
    /// A catalog object that passes through (already in the form opm writes it).
    Object(Value),
    /// A bundle to render from its image.
    Bundle { image: String, line: u32 },
}

impl Basic {
    pub(crate) fn parse(
        file: &str,
        node: &Node,
        notes: &mut Vec<String>,
    ) -> Result<Basic, TemplateError> {
        let schema_field = node.get_field("schema").and_then(Node::as_str);
        if schema_field != Some(schemas::BASIC) {
            return Err(TemplateError::new(
                file,
                node.pos().line,
                format!(
                    "template has unknown schema ({:?}), should be {:?}",
                    schema_field.unwrap_or_default(),
                    schemas::BASIC
                ),
            ));
        }
        for e in node.as_map().unwrap_or_default() {
            let k = e.key_str();
            if !k.eq_ignore_ascii_case("schema") && !k.eq_ignore_ascii_case("entries") {
                notes.push(format!(
                    "{file}:{}: field {k:?} is not part of a basic template; ignored (opm ignores it too)",
                    e.key.pos().line
                ));
            }
        }
        let items: &[Node] = match node.get_field("entries") {
            None => &[],
            Some(n) => match &n.kind {
                Kind::Null => &[],
                Kind::Seq(items) => items,
                _ => {
                    return Err(TemplateError::new(
                        file,
                        n.pos().line,
                        format!(
                            "unmarshalling template: entries must be a list of catalog objects, found {}",
                            a_type(n)
                        ),
                    ));
                }
            },
        };
        let mut entries = Vec::with_capacity(items.len());
        let mut problems = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match entry(item, notes, file) {
                Ok(e) => entries.push(e),
                Err((line, msg)) => problems.push(Problem::new(
                    if line > 0 { line } else { item.pos().line },
                    format!("entries[{i}]: {msg}"),
                )),
            }
        }
        if !problems.is_empty() {
            return Err(TemplateError::many(file, problems));
        }
        Ok(Basic { entries })
    }

    /// The bundle images, in entry order, with their lines.
    pub fn images(&self) -> Vec<(String, u32)> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Bundle { image, line } => Some((image.clone(), *line)),
                Entry::Object(_) => None,
            })
            .collect()
    }

    pub(crate) fn render(
        &self,
        file: &str,
        source: &dyn BundleSource,
        opm: OpmVersion,
    ) -> Result<Rendered, TemplateError> {
        let images = self.images();
        let resolved = resolve_all(file, &images, source)?;
        let mut bundles = Vec::with_capacity(resolved.len());
        let mut problems = Vec::new();
        for (blob, (image, line)) in resolved.iter().zip(&images) {
            match canonical::bundle(&crate::catalog::emit::to_node(blob, false), opm.sort()) {
                Ok(b) => bundles.push(b),
                Err((_, e)) => problems.push(Problem::new(
                    *line,
                    format!("the bundle resolved for image {image:?} cannot be read: {e}"),
                )),
            }
        }
        if !problems.is_empty() {
            return Err(TemplateError::many(file, problems));
        }
        adjust_bundles(opm, &mut bundles);
        let mut bundles = bundles.into_iter();
        let blobs = self
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Object(v) => Some(v.clone()),
                Entry::Bundle { .. } => bundles.next(),
            })
            .collect();
        Ok(Rendered {
            blobs,
            notes: Vec::new(),
            images,
            as_written: Vec::new(),
        })
    }
}

/// Reads one entry the way opm's loader reads a catalog object. A problem comes with the line of the
/// value at fault when known (0 otherwise).
pub(crate) fn entry(
    item: &Node,
    notes: &mut Vec<String>,
    file: &str,
) -> Result<Entry, canonical::Fault> {
    if item.is_null() {
        return Err((0, "an entry is null; it must be a catalog object".into()));
    }
    let meta = decode::meta(item, file).map_err(|d| (d.location.line, d.message))?;
    let known: &[&str] = match meta.schema.as_str() {
        schema::PACKAGE => &[
            "schema",
            "name",
            "defaultChannel",
            "icon",
            "description",
            "properties",
        ],
        schema::CHANNEL => &["schema", "name", "package", "entries", "properties"],
        schema::DEPRECATIONS => &["schema", "package", "entries"],
        schema::BUNDLE => &[
            "schema",
            "name",
            "package",
            "image",
            "properties",
            "relatedImages",
        ],
        _ => &[],
    };
    if !known.is_empty() {
        for e in item.as_map().unwrap_or_default() {
            let k = e.key_str();
            if !known.iter().any(|f| f.eq_ignore_ascii_case(k)) {
                notes.push(format!(
                    "{file}:{}: field {k:?} is not an {} field; dropped (as opm drops it)",
                    e.key.pos().line,
                    meta.schema
                ));
            }
        }
    }
    match meta.schema.as_str() {
        schema::PACKAGE => canonical::package(item).map(Entry::Object),
        schema::CHANNEL => canonical::channel(item).map(Entry::Object),
        schema::DEPRECATIONS => canonical::deprecations(item).map(Entry::Object),
        schema::BUNDLE => {
            let b = Bundle::read(item).map_err(|e| (e.line, format!("parse bundle: {e}")))?;
            let mut extra = Vec::new();
            if !b.package.is_empty() {
                extra.push("package");
            }
            if !b.properties.is_empty() {
                extra.push("properties");
            }
            if !b.related_images.is_empty() {
                extra.push("relatedImages");
            }
            if b.image.is_empty() {
                return Err((
                    0,
                    "unexpected fields present in basic template bundle: a bundle entry is {schema: olm.bundle, image: <bundle image>} and this one has no image".into(),
                ));
            }
            if !extra.is_empty() {
                return Err((
                    0,
                    format!(
                        "unexpected fields present in basic template bundle: {} (a bundle entry is only {{schema: olm.bundle, image: <bundle image>}}; the rest comes from the image)",
                        extra.join(", ")
                    ),
                ));
            }
            Ok(Entry::Bundle {
                image: b.image.to_string(),
                line: item.pos().line,
            })
        }
        _ => Ok(Entry::Object(canonical::other(item))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ResolveError, parse};
    use super::*;
    use serde_json::json;

    struct Fixed(Vec<(&'static str, Value)>);

    impl BundleSource for Fixed {
        fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
            self.0
                .iter()
                .find(|(i, _)| *i == image)
                .map(|(_, v)| Ok(v.clone()))
        }
        fn describe(&self) -> String {
            "the test's bundles".into()
        }
    }

    fn bundle(name: &str, image: &str) -> Value {
        json!({"schema": "olm.bundle", "name": name, "package": "p", "image": image,
            "relatedImages": [{"name": "z", "image": "zz"}, {"name": "", "image": image}],
            "properties": [
                {"type": "olm.bundle.object", "value": {"data": "e30="}},
                {"type": "olm.package", "value": {"packageName": "p", "version": "1.0.0"}}]})
    }

    #[test]
    fn bundles_are_replaced_and_other_entries_pass_through() {
        let t = parse(
            "t.yaml",
            "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: p\n  defaultChannel: stable\n  Description: hi\n- schema: olm.channel\n  package: p\n  name: stable\n  entries:\n  - name: p.v1\n    Replaces: p.v0\n- schema: olm.bundle\n  name: ignored\n  image: img:1\n- schema: my.thing\n  z: 1\n  a: {c: 2, b: 1.0}\n",
        )
        .unwrap();
        let r = t
            .render(
                &Fixed(vec![("img:1", bundle("p.v1", "img:1"))]),
                crate::template::OpmVersion::DEFAULT,
            )
            .unwrap();
        assert_eq!(
            r.blobs,
            vec![
                json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable", "description": "hi"}),
                json!({"schema": "olm.channel", "name": "stable", "package": "p",
                    "entries": [{"name": "p.v1", "replaces": "p.v0"}]}),
                json!({"schema": "olm.bundle", "name": "p.v1", "package": "p", "image": "img:1",
                    "properties": [
                        {"type": "olm.package", "value": {"packageName": "p", "version": "1.0.0"}},
                        {"type": "olm.bundle.object", "value": {"data": "e30="}}],
                    "relatedImages": [{"name": "", "image": "img:1"}, {"name": "z", "image": "zz"}]}),
                json!({"a": {"b": 1, "c": 2}, "schema": "my.thing", "z": 1}),
            ]
        );
        let text = r.to_text(crate::catalog::emit::OutFormat::Json);
        assert!(text.starts_with("{\n    \"schema\": \"olm.package\",\n    \"name\": \"p\",\n    \"defaultChannel\": \"stable\",\n    \"description\": \"hi\"\n}\n"), "{text}");
    }

    #[test]
    fn bundle_entries_must_be_only_an_image() {
        let e = parse(
            "t.yaml",
            "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: a\n  package: p\n  properties: [{type: x, value: 1}]\n- schema: olm.bundle\n  name: b\n",
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("t.yaml:3: entries[0]: unexpected fields present in basic template bundle: package, properties"),
            "{text}"
        );
        assert!(
            text.contains(
                "t.yaml:7: entries[1]: unexpected fields present in basic template bundle"
            ) && text.contains("has no image"),
            "{text}"
        );
    }

    #[test]
    fn wrong_schema_and_bad_entries() {
        let e = parse("t.yaml", "schema: olm.template.basic\nentries: 3\n").unwrap_err();
        assert!(e.to_string().contains("entries must be a list"), "{e}");
        let e = parse(
            "t.yaml",
            "schema: olm.template.basic\nentries:\n- name: x\n- schema: olm.channel\n  name: [1]\n- Schema: a\n  schema: b\n- ~\n- schema: olm.channel\n  name: s\n  entries: [{name: [1]}]\n",
        )
        .unwrap_err();
        let lines: Vec<String> = e.to_string().lines().map(String::from).collect();
        assert_eq!(lines.len(), 5, "{e}");
        assert!(lines[0].starts_with("t.yaml:3: entries[0]: object is missing root schema field"));
        assert!(
            lines[1]
                .contains("entries[1]: expected value for key \"name\" to be a string, got array"),
            "{}",
            lines[1]
        );
        assert!(lines[2].contains("duplicate keys for key \"schema\": [Schema schema]"));
        assert!(lines[3].contains("entries[3]: an entry is null"));
        assert_eq!(
            lines[4],
            "t.yaml:11: entries[4]: parse channel: field entries[0].name must be a string, found array"
        );
    }

    #[test]
    fn unresolvable_images_are_all_named() {
        let t = parse(
            "t.yaml",
            "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: one:1\n- schema: olm.bundle\n  image: img:1\n- schema: olm.bundle\n  image: two:2\n",
        )
        .unwrap();
        let e = t
            .render(
                &Fixed(vec![("img:1", bundle("p.v1", "img:1"))]),
                crate::template::OpmVersion::DEFAULT,
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:3: cannot resolve bundle image \"one:1\": not found in the test's bundles\nt.yaml:7: cannot resolve bundle image \"two:2\": not found in the test's bundles"
        );
    }

    #[test]
    fn unknown_fields_are_noted_not_kept() {
        let t = parse(
            "t.yaml",
            "schema: olm.template.basic\nextra: 1\nentries:\n- schema: olm.package\n  name: p\n  colour: blue\n",
        )
        .unwrap();
        assert_eq!(t.notes.len(), 2, "{:?}", t.notes);
        let r = t
            .render(&Fixed(vec![]), crate::template::OpmVersion::DEFAULT)
            .unwrap();
        assert_eq!(
            r.blobs,
            vec![json!({"schema": "olm.package", "name": "p", "defaultChannel": ""})]
        );
    }
}
