//! Field-by-field comparison of catalog objects by meaning: properties grouped by type, related
//! images by name, bundle objects by kind and name (decoded), and any other field by its JSON path.
//! Nothing a reader of the catalog could notice is left out; what did not change is never listed.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// At most this many changes are listed inside one object; the rest are counted.
pub const MAX_CHANGES: usize = 20;

/// One changed field. `old` is absent for an added field, `new` for a removed one.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FieldChange {
    /// Where, in the catalog's words: `description`, `icon.mediatype`, `property olm.gvk`,
    /// `relatedImages[operator]`, `object CustomResourceDefinition/foos.example.com spec.versions[0]`.
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

impl FieldChange {
    fn new(path: String, old: Option<&Value>, new: Option<&Value>) -> Self {
        FieldChange {
            path: path.trim_end().to_string(),
            old: old.cloned(),
            new: new.cloned(),
        }
    }

    /// `+`, `-` or `~`.
    pub fn sign(&self) -> char {
        match (&self.old, &self.new) {
            (None, _) => '+',
            (_, None) => '-',
            _ => '~',
        }
    }
}

/// Collects changes up to [`MAX_CHANGES`], counting the rest.
#[derive(Debug, Default)]
pub struct Changes {
    pub list: Vec<FieldChange>,
    pub more: usize,
}

impl Changes {
    fn push(&mut self, c: FieldChange) {
        if self.list.len() < MAX_CHANGES {
            self.list.push(c);
        } else {
            self.more += 1;
        }
    }

    /// The list, ending with a count of what was left out.
    pub fn finish(mut self) -> Vec<FieldChange> {
        if self.more > 0 {
            self.list.push(FieldChange {
                path: format!("… {} more changes", self.more),
                old: None,
                new: None,
            });
        }
        self.list
    }
}

fn join(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/'));
    let key = if plain {
        key.to_string()
    } else {
        format!("{key:?}")
    };
    if path.is_empty() || path.ends_with(' ') {
        format!("{path}{key}")
    } else {
        format!("{path}.{key}")
    }
}

/// A name that identifies an element of a list, if every element has a distinct one.
fn keyed<'v>(items: &'v [Value], field: &str) -> Option<BTreeMap<&'v str, &'v Value>> {
    let mut map = BTreeMap::new();
    for i in items {
        let k = i.get(field)?.as_str()?;
        if map.insert(k, i).is_some() {
            return None;
        }
    }
    Some(map)
}

/// Every difference between `a` and `b` under `path`: maps key by key, lists element by element (or
/// by `name` when their elements have distinct names), anything else as a whole.
pub fn compare(path: &str, a: &Value, b: &Value, out: &mut Changes) {
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => compare(&join(path, k), va, vb, out),
                    None => out.push(FieldChange::new(join(path, k), Some(va), None)),
                }
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    out.push(FieldChange::new(join(path, k), None, Some(vb)));
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if let (Some(kx), Some(ky)) = (keyed(x, "name"), keyed(y, "name")) {
                for (k, va) in &kx {
                    let p = format!("{path}[{k}]");
                    match ky.get(k) {
                        Some(vb) => compare(&p, va, vb, out),
                        None => out.push(FieldChange::new(p, Some(va), None)),
                    }
                }
                for (k, vb) in &ky {
                    if !kx.contains_key(k) {
                        out.push(FieldChange::new(format!("{path}[{k}]"), None, Some(vb)));
                    }
                }
            } else if x.len() == y.len() {
                for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                    compare(&format!("{path}[{i}]"), va, vb, out);
                }
            } else {
                out.push(FieldChange::new(path.to_string(), Some(a), Some(b)));
            }
        }
        _ => out.push(FieldChange::new(path.to_string(), Some(a), Some(b))),
    }
}

/// Compares the fields of two objects other than `skip` (fields compared by meaning elsewhere).
pub fn other_fields(a: &Value, b: &Value, skip: &[&str], out: &mut Changes) {
    let strip = |v: &Value| -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(k, _)| !skip.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
            other => other.clone(),
        }
    };
    compare("", &strip(a), &strip(b), out);
}

fn list<'v>(v: &'v Value, field: &str) -> &'v [Value] {
    v.get(field)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Elements of `a` not matched by an equal element of `b` (as multisets, in `a`'s order).
fn minus<'v>(a: &[&'v Value], b: &[&'v Value]) -> Vec<&'v Value> {
    let mut left: Vec<Option<&Value>> = b.iter().map(|v| Some(*v)).collect();
    let mut out = Vec::new();
    for v in a {
        match left.iter_mut().find(|l| l.is_some_and(|l| l == *v)) {
            Some(slot) => *slot = None,
            None => out.push(*v),
        }
    }
    out
}

/// A decoder of `olm.bundle.object` data into the manifest it holds.
pub type DecodeObject<'f> = &'f dyn Fn(&str) -> Option<Value>;

/// Properties compared by type: a type held once on each side is compared field by field (`property
/// olm.csv.metadata description`); otherwise the values added and removed are listed. Bundle
/// objects are decoded and compared by kind and name.
pub fn properties(a: &Value, b: &Value, decode: DecodeObject, out: &mut Changes) {
    let group = |v: &'_ Value| -> BTreeMap<String, Vec<Value>> {
        let mut m: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for p in list(v, "properties") {
            let t = p.get("type").and_then(Value::as_str).unwrap_or("");
            m.entry(t.to_string())
                .or_default()
                .push(p.get("value").cloned().unwrap_or(Value::Null));
        }
        m
    };
    let (ga, gb) = (group(a), group(b));
    let empty = Vec::new();
    let mut types: Vec<&String> = ga.keys().chain(gb.keys()).collect();
    types.sort();
    types.dedup();
    for t in types {
        let (va, vb) = (ga.get(t).unwrap_or(&empty), gb.get(t).unwrap_or(&empty));
        if va == vb {
            continue;
        }
        if t == crate::catalog::model::property_type::BUNDLE_OBJECT {
            objects(va, vb, decode, out);
            continue;
        }
        let path = format!("property {t}");
        if let ([x], [y]) = (va.as_slice(), vb.as_slice()) {
            compare(&format!("{path} "), x, y, out);
            continue;
        }
        let (ra, rb): (Vec<&Value>, Vec<&Value>) = (va.iter().collect(), vb.iter().collect());
        for v in minus(&ra, &rb) {
            out.push(FieldChange::new(path.clone(), Some(v), None));
        }
        for v in minus(&rb, &ra) {
            out.push(FieldChange::new(path.clone(), None, Some(v)));
        }
    }
}

/// `Kind/name` of a manifest.
fn object_key(m: &Value) -> String {
    let kind = m.get("kind").and_then(Value::as_str).unwrap_or("?");
    let name = m
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    format!("{kind}/{name}")
}

fn objects(a: &[Value], b: &[Value], decode: DecodeObject, out: &mut Changes) {
    let data = |v: &Value| v.get("data").and_then(Value::as_str).map(str::to_string);
    let decoded = |vs: &[Value]| -> Vec<(String, Value)> {
        vs.iter()
            .map(|v| match data(v).and_then(|d| decode(&d)) {
                Some(m) => (object_key(&m), m),
                None => ("(undecodable object)".to_string(), v.clone()),
            })
            .collect()
    };
    let (da, db) = (decoded(a), decoded(b));
    let by_key = |d: &[(String, Value)]| -> BTreeMap<String, Vec<Value>> {
        let mut m: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for (k, v) in d {
            m.entry(k.clone()).or_default().push(v.clone());
        }
        m
    };
    let (ka, kb) = (by_key(&da), by_key(&db));
    let mut keys: Vec<&String> = ka.keys().chain(kb.keys()).collect();
    keys.sort();
    keys.dedup();
    let summary = |m: &Value| Value::String(object_key(m));
    for k in keys {
        let path = format!("object {k}");
        match (ka.get(k).map(Vec::as_slice), kb.get(k).map(Vec::as_slice)) {
            (Some([x]), Some([y])) => compare(&format!("{path} "), x, y, out),
            (Some(xs), None) => {
                for x in xs {
                    out.push(FieldChange::new(path.clone(), Some(&summary(x)), None));
                }
            }
            (None, Some(ys)) => {
                for y in ys {
                    out.push(FieldChange::new(path.clone(), None, Some(&summary(y))));
                }
            }
            (Some(xs), Some(ys)) if xs != ys => {
                out.push(FieldChange::new(
                    path.clone(),
                    Some(&Value::from(format!("{} objects", xs.len()))),
                    Some(&Value::from(format!("{} objects", ys.len()))),
                ));
            }
            _ => {}
        }
    }
}

/// Related images by name (by image when names repeat or are empty).
pub fn related_images(a: &Value, b: &Value, out: &mut Changes) {
    let (la, lb) = (list(a, "relatedImages"), list(b, "relatedImages"));
    if la == lb {
        return;
    }
    let named = |l: &[Value]| -> Option<BTreeMap<String, Value>> {
        let mut m = BTreeMap::new();
        for r in l {
            let name = r.get("name").and_then(Value::as_str).unwrap_or("");
            if name.is_empty() {
                return None;
            }
            let image = r.get("image").cloned().unwrap_or(Value::Null);
            if m.insert(name.to_string(), image).is_some() {
                return None;
            }
        }
        Some(m)
    };
    match (named(la), named(lb)) {
        (Some(ma), Some(mb)) => {
            for (k, va) in &ma {
                let p = format!("relatedImages[{k}]");
                match mb.get(k) {
                    Some(vb) if vb != va => out.push(FieldChange::new(p, Some(va), Some(vb))),
                    Some(_) => {}
                    None => out.push(FieldChange::new(p, Some(va), None)),
                }
            }
            for (k, vb) in &mb {
                if !ma.contains_key(k) {
                    out.push(FieldChange::new(
                        format!("relatedImages[{k}]"),
                        None,
                        Some(vb),
                    ));
                }
            }
        }
        _ => {
            let (ra, rb): (Vec<&Value>, Vec<&Value>) = (la.iter().collect(), lb.iter().collect());
            for v in minus(&ra, &rb) {
                out.push(FieldChange::new("relatedImages".into(), Some(v), None));
            }
            for v in minus(&rb, &ra) {
                out.push(FieldChange::new("relatedImages".into(), None, Some(v)));
            }
        }
    }
}

/// A value as short text for one line: strings as they are (quoted when they hold spaces), long
/// text and large objects summarised.
pub fn short(v: &Value) -> String {
    const LIMIT: usize = 100;
    match v {
        Value::String(s) if s.chars().count() > LIMIT || s.contains('\n') => {
            let first: String = s.lines().next().unwrap_or("").chars().take(60).collect();
            format!("{first:?}… ({} characters)", s.chars().count())
        }
        Value::String(s) if s.is_empty() || s.contains(' ') => format!("{s:?}"),
        Value::String(s) => s.clone(),
        other => {
            let text = other.to_string();
            if text.chars().count() <= LIMIT {
                text
            } else {
                match other {
                    Value::Object(m) => format!("{{…}} ({} fields)", m.len()),
                    Value::Array(a) => format!("[…] ({} items)", a.len()),
                    _ => text.chars().take(LIMIT).collect(),
                }
            }
        }
    }
}

/// One change as text: `~ path: old → new`, `+ path: new`, `- path: old`.
pub fn line(c: &FieldChange) -> String {
    match (&c.old, &c.new) {
        (Some(a), Some(b)) => format!("~ {}: {} → {}", c.path, short(a), short(b)),
        (None, Some(b)) => format!("+ {}: {}", c.path, short(b)),
        (Some(a), None) => format!("- {}: {}", c.path, short(a)),
        (None, None) => c.path.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn changes(a: Value, b: Value) -> Vec<String> {
        let mut c = Changes::default();
        compare("", &a, &b, &mut c);
        c.finish().iter().map(line).collect()
    }

    #[test]
    fn maps_lists_and_leaves() {
        assert_eq!(
            changes(
                json!({"a": 1, "b": {"c": "x"}, "l": [1, 2]}),
                json!({"a": 2, "b": {"c": "y", "d": true}, "l": [1, 3]})
            ),
            vec!["~ a: 1 → 2", "~ b.c: x → y", "+ b.d: true", "~ l[1]: 2 → 3"]
        );
        assert_eq!(
            changes(json!({"l": [1]}), json!({"l": [1, 2]})),
            vec!["~ l: [1] → [1,2]"]
        );
        assert!(changes(json!({"a": [1]}), json!({"a": [1]})).is_empty());
    }

    #[test]
    fn lists_of_named_objects_match_by_name() {
        assert_eq!(
            changes(
                json!({"v": [{"name": "v1", "x": 1}, {"name": "v2"}]}),
                json!({"v": [{"name": "v2"}, {"name": "v1", "x": 2}, {"name": "v3"}]})
            ),
            vec!["~ v[v1].x: 1 → 2", "+ v[v3]: {\"name\":\"v3\"}"]
        );
    }

    #[test]
    fn properties_by_type() {
        let a = json!({"properties": [
            {"type": "olm.gvk", "value": {"group": "g", "kind": "A", "version": "v1"}},
            {"type": "olm.package", "value": {"packageName": "p", "version": "1.0.0"}},
        ]});
        let b = json!({"properties": [
            {"type": "olm.gvk", "value": {"group": "g", "kind": "B", "version": "v1"}},
            {"type": "olm.gvk", "value": {"group": "g", "kind": "A", "version": "v1"}},
            {"type": "olm.package", "value": {"packageName": "p", "version": "1.0.1"}},
        ]});
        let mut c = Changes::default();
        properties(&a, &b, &|_| None, &mut c);
        let lines: Vec<String> = c.finish().iter().map(line).collect();
        assert_eq!(
            lines,
            vec![
                "+ property olm.gvk: {\"group\":\"g\",\"kind\":\"B\",\"version\":\"v1\"}",
                "~ property olm.package version: 1.0.0 → 1.0.1"
            ]
        );
    }

    #[test]
    fn many_changes_are_counted() {
        let a: serde_json::Map<String, Value> =
            (0..30).map(|i| (format!("k{i:02}"), json!(i))).collect();
        let b: serde_json::Map<String, Value> = (0..30)
            .map(|i| (format!("k{i:02}"), json!(i + 1)))
            .collect();
        let l = changes(Value::Object(a), Value::Object(b));
        assert_eq!(l.len(), MAX_CHANGES + 1);
        assert_eq!(l.last().unwrap(), "… 10 more changes");
    }

    #[test]
    fn long_text_is_summarised() {
        let long = "word ".repeat(50);
        assert!(short(&json!(long)).ends_with("(250 characters)"));
        assert_eq!(short(&json!("a b")), "\"a b\"");
    }
}
