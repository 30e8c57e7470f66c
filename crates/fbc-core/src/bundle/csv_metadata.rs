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
#[path = "csv_metadata_tests.rs"]
mod tests;
