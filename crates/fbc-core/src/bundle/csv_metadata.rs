//! `olm.csv.metadata`: the slice of a ClusterServiceVersion that catalogs keep instead of the whole
//! bundle, built the way opm builds it: the CSV is decoded into Go's typed CSV (unknown fields dropped,
//! field names matched case-insensitively) and re-encoded with Go's field order and `omitempty` rules.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

/// A Go type as `encoding/json` decodes and encodes it.
enum G {
    Str,
    Bool,
    Int,
    /// `json.RawMessage`: kept as it is.
    Raw,
    /// `map[string]string`, written with sorted keys.
    StrMap,
    Slice(&'static G),
    Struct(&'static [F]),
}

/// A struct field: JSON name, type, `omitempty`.
type F = (&'static str, G, bool);

const REF: &[F] = &[
    ("name", G::Str, false),
    ("kind", G::Str, false),
    ("version", G::Str, false),
];
const DESCRIPTOR: &[F] = &[
    ("path", G::Str, false),
    ("displayName", G::Str, true),
    ("description", G::Str, true),
    ("x-descriptors", G::Slice(&G::Str), true),
    ("value", G::Raw, true),
];
const CRD: &[F] = &[
    ("name", G::Str, false),
    ("version", G::Str, false),
    ("kind", G::Str, false),
    ("displayName", G::Str, true),
    ("description", G::Str, true),
    ("resources", G::Slice(&G::Struct(REF)), true),
    ("statusDescriptors", G::Slice(&G::Struct(DESCRIPTOR)), true),
    ("specDescriptors", G::Slice(&G::Struct(DESCRIPTOR)), true),
    ("actionDescriptors", G::Slice(&G::Struct(DESCRIPTOR)), true),
];
const API_SERVICE: &[F] = &[
    ("name", G::Str, false),
    ("group", G::Str, false),
    ("version", G::Str, false),
    ("kind", G::Str, false),
    ("deploymentName", G::Str, true),
    ("containerPort", G::Int, true),
    ("displayName", G::Str, true),
    ("description", G::Str, true),
    ("resources", G::Slice(&G::Struct(REF)), true),
    ("statusDescriptors", G::Slice(&G::Struct(DESCRIPTOR)), true),
    ("specDescriptors", G::Slice(&G::Struct(DESCRIPTOR)), true),
    ("actionDescriptors", G::Slice(&G::Struct(DESCRIPTOR)), true),
];
const CRDS: &[F] = &[
    ("owned", G::Slice(&G::Struct(CRD)), true),
    ("required", G::Slice(&G::Struct(CRD)), true),
];
const API_SERVICES: &[F] = &[
    ("owned", G::Slice(&G::Struct(API_SERVICE)), true),
    ("required", G::Slice(&G::Struct(API_SERVICE)), true),
];
const INSTALL_MODE: &[F] = &[("type", G::Str, false), ("supported", G::Bool, false)];
const LINK: &[F] = &[("name", G::Str, true), ("url", G::Str, true)];
const MAINTAINER: &[F] = &[("name", G::Str, true), ("email", G::Str, true)];
const GVK: &[F] = &[
    ("group", G::Str, false),
    ("version", G::Str, false),
    ("kind", G::Str, false),
];

/// Why a CSV cannot be decoded into opm's typed CSV: the field, from the outside in (`spec`
/// fields by their name, list items as `[i]`), and what it holds instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{found}", .at.iter().rev().map(|f| format!("{f}: ")).collect::<String>())]
pub struct CsvMetadataError {
    /// The field's path, innermost first.
    at: Vec<String>,
    pub found: Mismatch,
}

impl CsvMetadataError {
    /// The same error, one field further out.
    fn within(mut self, field: &str) -> Self {
        self.at.push(field.to_string());
        self
    }
}

impl From<Mismatch> for CsvMetadataError {
    fn from(found: Mismatch) -> Self {
        CsvMetadataError {
            at: Vec::new(),
            found,
        }
    }
}

/// A value of another kind than the Go type of its field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    #[error("expected a string, found {0}")]
    NotAString(Value),
    #[error("expected true or false, found {0}")]
    NotABool(Value),
    #[error("expected a 32-bit whole number, found {0}")]
    NotAnInt32(Value),
    #[error("expected an object, found {0}")]
    NotAnObject(Value),
    #[error("expected a list, found {0}")]
    NotAList(Value),
}

/// Why a bundle's objects cannot be migrated to `olm.csv.metadata`.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("an olm.bundle.object without data")]
    NoData,
    #[error("an olm.bundle.object is not base64: {0}")]
    NotBase64(#[source] base64::DecodeError),
    #[error("an olm.bundle.object is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The CSV among them cannot be read as opm's typed CSV.
    #[error(transparent)]
    CsvMetadata(#[from] CsvMetadataError),
}

/// Builds the `olm.csv.metadata` value of a CSV object.
pub fn csv_metadata(csv: &Value) -> Result<Value, CsvMetadataError> {
    let meta = field(csv, "metadata");
    let spec = field(csv, "spec");
    // (output name, source object, source field, type)
    let fields: [(&str, Option<&Value>, &str, G); 14] = [
        ("annotations", meta, "annotations", G::StrMap),
        (
            "apiServiceDefinitions",
            spec,
            "apiservicedefinitions",
            G::Struct(API_SERVICES),
        ),
        (
            "crdDescriptions",
            spec,
            "customresourcedefinitions",
            G::Struct(CRDS),
        ),
        ("description", spec, "description", G::Str),
        ("displayName", spec, "displayName", G::Str),
        (
            "installModes",
            spec,
            "installModes",
            G::Slice(&G::Struct(INSTALL_MODE)),
        ),
        ("keywords", spec, "keywords", G::Slice(&G::Str)),
        ("labels", meta, "labels", G::StrMap),
        ("links", spec, "links", G::Slice(&G::Struct(LINK))),
        (
            "maintainers",
            spec,
            "maintainers",
            G::Slice(&G::Struct(MAINTAINER)),
        ),
        ("maturity", spec, "maturity", G::Str),
        ("minKubeVersion", spec, "minKubeVersion", G::Str),
        ("nativeAPIs", spec, "nativeAPIs", G::Slice(&G::Struct(GVK))),
        ("provider", spec, "provider", G::Struct(LINK)),
    ];
    let mut out = Map::new();
    for (name, from, key, ty) in fields {
        let v = from.and_then(|o| field(o, key));
        let v = decode(v, &ty).map_err(|e| e.within(key))?;
        // Every field but the two structs is `omitempty`.
        if !matches!(ty, G::Struct(_)) && is_zero(&v) {
            continue;
        }
        out.insert(name.to_string(), v);
    }
    Ok(Value::Object(out))
}

/// A field of a JSON object as Go's decoder finds it: the last key equal to `name` ignoring case.
fn field<'v>(obj: &'v Value, name: &str) -> Option<&'v Value> {
    let map = obj.as_object()?;
    map.get(name).or_else(|| {
        map.iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
            .next_back()
    })
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
    }
}

/// Decodes `v` into Go type `ty` and encodes it back.
fn decode(v: Option<&Value>, ty: &G) -> Result<Value, CsvMetadataError> {
    let v = v.filter(|v| !v.is_null());
    Ok(match ty {
        G::Str => match v {
            None => Value::String(String::new()),
            Some(Value::String(s)) => Value::String(s.clone()),
            Some(other) => return Err(Mismatch::NotAString(other.clone()).into()),
        },
        G::Bool => match v {
            None => Value::Bool(false),
            Some(Value::Bool(b)) => Value::Bool(*b),
            Some(other) => return Err(Mismatch::NotABool(other.clone()).into()),
        },
        G::Int => match v {
            None => Value::from(0),
            Some(Value::Number(n)) if n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()) => {
                Value::Number(n.clone())
            }
            Some(other) => return Err(Mismatch::NotAnInt32(other.clone()).into()),
        },
        G::Raw => v.cloned().unwrap_or(Value::Null),
        G::StrMap => match v {
            None => Value::Object(Map::new()),
            Some(Value::Object(m)) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                let mut out = Map::new();
                for (k, v) in entries {
                    match v {
                        Value::String(_) => out.insert(k.clone(), v.clone()),
                        Value::Null => out.insert(k.clone(), Value::String(String::new())),
                        other => {
                            return Err(CsvMetadataError::from(Mismatch::NotAString(
                                other.clone(),
                            ))
                            .within(k));
                        }
                    };
                }
                Value::Object(out)
            }
            Some(other) => return Err(Mismatch::NotAnObject(other.clone()).into()),
        },
        G::Slice(item) => match v {
            None => Value::Array(Vec::new()),
            Some(Value::Array(a)) => Value::Array(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| decode(Some(x), item).map_err(|e| e.within(&format!("[{i}]"))))
                    .collect::<Result<_, _>>()?,
            ),
            Some(other) => return Err(Mismatch::NotAList(other.clone()).into()),
        },
        G::Struct(fields) => {
            let obj = match v {
                None => None,
                Some(o @ Value::Object(_)) => Some(o),
                Some(other) => return Err(Mismatch::NotAnObject(other.clone()).into()),
            };
            let mut out = Map::new();
            for (name, ty, omit) in fields.iter() {
                let raw = obj.and_then(|o| field(o, name));
                let fv = decode(raw, ty).map_err(|e| e.within(name))?;
                let empty = match ty {
                    // A `null` given is kept as raw JSON `null`; only an absent value is empty.
                    G::Raw => raw.is_none(),
                    G::Struct(_) => false,
                    _ => is_zero(&fv),
                };
                if *omit && empty {
                    continue;
                }
                // A nil slice or map without omitempty is written as null, like Go.
                let fv = match (ty, &fv) {
                    (G::Slice(_) | G::StrMap, v) if is_zero(v) => Value::Null,
                    _ => fv,
                };
                out.insert(name.to_string(), fv);
            }
            Value::Object(out)
        }
    })
}

/// opm's `bundle-object-to-csv-metadata` migration of one rendered `olm.bundle` blob: a bundle with an
/// image, a ClusterServiceVersion among its `olm.bundle.object`s and no `olm.csv.metadata` loses every
/// `olm.bundle.object` and gains one `olm.csv.metadata` built from that CSV, last. Other bundles are
/// left as they are. Returns whether the blob changed; an object that cannot be decoded is an error.
pub fn migrate_bundle_objects(bundle: &mut Value) -> Result<bool, MigrateError> {
    migrate_bundle_objects_with(bundle, None)
}

/// [`migrate_bundle_objects`], each `olm.bundle.object` decoded once for all the bundles migrated
/// with `memo` (the same manifest in every catalog an operator's templates render, say).
pub fn migrate_bundle_objects_with(
    bundle: &mut Value,
    memo: Option<&MigrationMemo>,
) -> Result<bool, MigrateError> {
    if bundle["image"].as_str().is_none_or(str::is_empty) {
        return Ok(false);
    }
    let Some(props) = bundle.get_mut("properties").and_then(Value::as_array_mut) else {
        return Ok(false);
    };
    let is = |p: &Value, t: &str| p["type"].as_str() == Some(t);
    if props.iter().any(|p| is(p, "olm.csv.metadata")) {
        return Ok(false);
    }
    let mut meta = None;
    for p in props.iter().filter(|p| is(p, "olm.bundle.object")) {
        let data = p["value"]["data"].as_str().ok_or(MigrateError::NoData)?;
        let decoded = match memo {
            Some(m) => m.decoded(data)?,
            None => Arc::new(Decoded::of(data)?),
        };
        match &*decoded {
            Decoded::Other => {}
            Decoded::Csv(m) => {
                meta = Some(m.clone()?);
                break;
            }
        }
    }
    let Some(meta) = meta else {
        return Ok(false);
    };
    props.retain(|p| !is(p, "olm.bundle.object"));
    props.push(serde_json::json!({"type": "olm.csv.metadata", "value": meta}));
    Ok(true)
}

/// What the migration makes of one `olm.bundle.object`'s data that decodes (data that does not
/// ends the migration, and is not remembered).
#[derive(Debug)]
enum Decoded {
    /// A manifest of another kind.
    Other,
    /// A CSV: its `olm.csv.metadata`, or why it has none.
    Csv(Result<Value, CsvMetadataError>),
}

impl Decoded {
    fn of(data: &str) -> Result<Decoded, MigrateError> {
        use base64::Engine as _;
        let data = data.trim();
        // The SIMD decoder takes the same canonical base64 as the scalar one, which is asked only
        // for what the first refuses, to say why.
        let bytes = match base64_simd::STANDARD.decode_to_vec(data) {
            Ok(b) => b,
            Err(_) => base64::engine::general_purpose::STANDARD
                .decode(data)
                .map_err(MigrateError::NotBase64)?,
        };
        let object: Value = serde_json::from_slice(&bytes).map_err(MigrateError::NotJson)?;
        Ok(
            if object["kind"].as_str() == Some("ClusterServiceVersion") {
                Decoded::Csv(csv_metadata(&object))
            } else {
                Decoded::Other
            },
        )
    }
}

/// The `olm.bundle.object`s the migration has decoded, by their data, shared by the renderings of
/// one operator (clones share it). What a manifest migrates to depends on its data alone, so a
/// bundle met again is migrated without decoding its manifests again.
///
/// Entries are found by a hash of the data under a seed drawn for each memo, then compared with
/// the data itself: data crafted to collide can cost a comparison, never give another manifest's
/// migration.
#[derive(Debug, Clone)]
pub struct MigrationMemo {
    decoded: Arc<Mutex<HashMap<u64, Vec<Remembered>>>>,
    seed: u64,
}

/// One decoded manifest and the data it was decoded from.
#[derive(Debug)]
struct Remembered {
    data: Box<str>,
    decoded: Arc<Decoded>,
}

impl Default for MigrationMemo {
    fn default() -> Self {
        use std::hash::BuildHasher as _;
        MigrationMemo {
            decoded: Arc::default(),
            seed: std::hash::RandomState::new().hash_one(0x006d_6967_7261_7465_u64),
        }
    }
}

impl MigrationMemo {
    fn decoded(&self, data: &str) -> Result<Arc<Decoded>, MigrateError> {
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(data.as_bytes(), self.seed);
        let known = self
            .decoded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .and_then(|held| held.iter().find(|r| &*r.data == data))
            .map(|r| Arc::clone(&r.decoded));
        if let Some(d) = known {
            return Ok(d);
        }
        let d = Arc::new(Decoded::of(data)?);
        let mut map = self.decoded.lock().unwrap_or_else(PoisonError::into_inner);
        let held = map.entry(key).or_default();
        // Another rendering may have decoded the same data meanwhile.
        if !held.iter().any(|r| &*r.data == data) {
            held.push(Remembered {
                data: data.into(),
                decoded: Arc::clone(&d),
            });
        }
        Ok(d)
    }

    /// How many distinct manifests are remembered.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.decoded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(Vec::len)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_go_fields_in_go_order() {
        let csv = json!({
            "metadata": {"name": "x", "annotations": {"b": "2", "a": "1"}},
            "spec": {
                "Description": "hello",
                "keywords": [],
                "installModes": [{"supported": true, "type": "AllNamespaces", "extra": 1}],
                "customresourcedefinitions": {"owned": [{"name": "foos.example.com", "kind": "Foo",
                    "version": "v1", "specDescriptors": [{"path": "size", "value": 3}]}]},
                "links": [{"url": "https://x"}],
            }
        });
        let m = csv_metadata(&csv).unwrap();
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"annotations":{"a":"1","b":"2"},"apiServiceDefinitions":{},"crdDescriptions":{"owned":[{"name":"foos.example.com","version":"v1","kind":"Foo","specDescriptors":[{"path":"size","value":3}]}]},"description":"hello","installModes":[{"type":"AllNamespaces","supported":true}],"links":[{"url":"https://x"}],"provider":{}}"#
        );
    }

    #[test]
    fn a_null_descriptor_value_is_kept_an_absent_one_omitted() {
        let csv = json!({"spec": {"customresourcedefinitions": {"owned": [{"name": "a.b", "kind": "A",
            "version": "v1", "specDescriptors": [{"path": "x", "value": null}, {"path": "y"}]}]}}});
        let m = csv_metadata(&csv).unwrap();
        assert_eq!(
            m["crdDescriptions"]["owned"][0]["specDescriptors"].to_string(),
            r#"[{"path":"x","value":null},{"path":"y"}]"#
        );
    }

    #[test]
    fn wrong_types_are_errors() {
        let csv = json!({"spec": {"keywords": "a"}});
        assert!(
            csv_metadata(&csv)
                .unwrap_err()
                .to_string()
                .contains("keywords")
        );
    }

    #[test]
    fn a_wrong_type_deep_down_is_named_by_its_path() {
        let csv = json!({"spec": {"maintainers": [{"name": "a", "email": 5}]}});
        let e = csv_metadata(&csv).unwrap_err();
        assert_eq!(e.found, Mismatch::NotAString(json!(5)));
        assert_eq!(
            e.to_string(),
            "maintainers: [0]: email: expected a string, found 5"
        );
        let csv = json!({"metadata": {"labels": {"tier": true}}});
        assert_eq!(
            csv_metadata(&csv).unwrap_err().to_string(),
            "labels: tier: expected a string, found true"
        );
    }

    fn object(v: &Value) -> Value {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(v.to_string());
        json!({"type": "olm.bundle.object", "value": {"data": data}})
    }

    #[test]
    fn a_memo_migrates_as_decoding_each_time_does() {
        let csv = json!({"kind": "ClusterServiceVersion", "metadata": {"name": "a.v1"},
            "spec": {"displayName": "A", "keywords": ["x"]}});
        let crd = json!({"kind": "CustomResourceDefinition", "metadata": {"name": "as.b"}});
        let bad_csv = json!({"kind": "ClusterServiceVersion", "spec": {"keywords": "x"}});
        let not_base64 = json!({"type": "olm.bundle.object", "value": {"data": "%%"}});
        let bundle = |objects: Vec<Value>| {
            let mut props =
                vec![json!({"type": "olm.package", "value": {"packageName": "a", "version": "1"}})];
            props.extend(objects);
            json!({"schema": "olm.bundle", "name": "a.v1", "image": "r/a:1", "properties": props})
        };
        let cases = [
            bundle(vec![object(&crd), object(&csv)]),
            bundle(vec![object(&csv), not_base64.clone()]),
            bundle(vec![object(&crd), not_base64]),
            bundle(vec![object(&bad_csv)]),
            bundle(vec![object(&crd)]),
        ];
        let memo = MigrationMemo::default();
        // Twice over: the second time every object is known to the memo.
        for round in 0..2 {
            for case in &cases {
                let (mut plain, mut memoized) = (case.clone(), case.clone());
                let want = migrate_bundle_objects(&mut plain).map_err(|e| e.to_string());
                let got = migrate_bundle_objects_with(&mut memoized, Some(&memo))
                    .map_err(|e| e.to_string());
                assert_eq!(got, want, "round {round}: {case}");
                assert_eq!(memoized, plain, "round {round}");
            }
        }
        let mut migrated = cases[0].clone();
        assert!(migrate_bundle_objects_with(&mut migrated, Some(&memo)).unwrap());
        assert_eq!(
            migrated["properties"][1]["value"]["displayName"], "A",
            "{migrated}"
        );
        assert!(
            migrate_bundle_objects(&mut cases[2].clone())
                .unwrap_err()
                .to_string()
                .contains("not base64")
        );
        // The CSV, the CRD and the CSV that cannot migrate: each remembered once.
        assert_eq!(memo.len(), 3);
    }

    proptest::proptest! {
        /// What the SIMD decoder takes, the scalar one takes too, as the same bytes: the
        /// migration accepts no more base64 than before.
        #[test]
        fn simd_decoding_takes_only_what_the_scalar_one_does(
            raw in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
            noise in "[A-Za-z0-9+/=]{0,12}",
            cut in 0usize..4,
        ) {
            use base64::Engine as _;
            let good = base64::engine::general_purpose::STANDARD.encode(&raw);
            let mangled = format!("{}{noise}", &good[..good.len().saturating_sub(cut)]);
            for text in [good.as_str(), mangled.as_str()] {
                if let Ok(fast) = base64_simd::STANDARD.decode_to_vec(text) {
                    let slow = base64::engine::general_purpose::STANDARD.decode(text);
                    proptest::prop_assert_eq!(slow.ok(), Some(fast), "{}", text);
                }
            }
        }
    }

    #[test]
    fn data_under_the_same_hash_is_not_taken_for_another() {
        let csv = |name: &str| {
            let v = json!({"kind": "ClusterServiceVersion", "metadata": {"name": name},
                "spec": {"displayName": name}});
            object(&v)["value"]["data"].as_str().unwrap().to_string()
        };
        let (a, b) = (csv("a.v1"), csv("b.v1"));
        let memo = MigrationMemo::default();
        let decoded_a = memo.decoded(&a).unwrap();
        // B's hash now leads to A's data, as a collision would.
        let key_b = xxhash_rust::xxh3::xxh3_64_with_seed(b.as_bytes(), memo.seed);
        memo.decoded
            .lock()
            .unwrap()
            .entry(key_b)
            .or_default()
            .push(Remembered {
                data: a.as_str().into(),
                decoded: decoded_a,
            });
        let got = memo.decoded(&b).unwrap();
        let Decoded::Csv(Ok(meta)) = &*got else {
            panic!("not a CSV: {got:?}");
        };
        assert_eq!(meta["displayName"], "b.v1");
    }
}
