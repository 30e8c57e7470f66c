//! What a registry+v1 bundle says about itself: its CSV, package and channels (from the
//! annotations), name, version and release (from the CSV), and the properties and typing problems of
//! its CSV, each read the way opm reads it.

use serde_json::Value;

use super::{
    Annotation, CHANNELS_KEY, DEFAULT_CHANNEL_KEY, Object, PACKAGE_KEY, RegistryBundle, TypedValue,
};

/// A field of the CSV that does not hold the kind of value opm reads it as (opm's wording).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CsvFieldError {
    /// `spec.version` is not a string (`found`: the JSON kind, as Go names it).
    #[error("json: cannot unmarshal {found} into Go value of type string")]
    VersionNotString { found: &'static str },
    /// `spec.release` is neither a string nor a number.
    #[error("release field must be a string or number")]
    ReleaseNotStringOrNumber,
}

/// The CSV's `olm.properties` annotation is not a JSON list of properties.
#[derive(Debug, thiserror::Error)]
#[error("olm.properties annotation: {0}")]
pub struct AnnotationPropertiesError(#[source] serde_json::Error);

impl RegistryBundle {
    pub fn csv(&self) -> Option<&Object> {
        self.csv.map(|i| &self.objects[i])
    }

    /// An annotation as opm reads it: names match in any case, the last one wins.
    pub fn annotation(&self, key: &str) -> Option<&Annotation> {
        self.annotations
            .iter()
            .rev()
            .find(|a| a.key.eq_ignore_ascii_case(key))
    }

    /// The package name from the annotations.
    pub fn package(&self) -> &str {
        self.annotation(PACKAGE_KEY)
            .map(|a| a.value.as_str())
            .unwrap_or("")
    }

    pub fn channels(&self) -> Vec<String> {
        match self.annotation(CHANNELS_KEY) {
            Some(a) if !a.value.is_empty() => a.value.split(',').map(str::to_string).collect(),
            _ => Vec::new(),
        }
    }

    pub fn default_channel(&self) -> Option<&str> {
        self.annotation(DEFAULT_CHANNEL_KEY)
            .map(|a| a.value.as_str())
            .filter(|s| !s.is_empty())
    }

    /// The bundle's name: its CSV's `metadata.name`.
    pub fn name(&self) -> &str {
        self.csv().map(Object::name).unwrap_or("")
    }

    /// CSV `spec.version` (must be a string for opm).
    pub fn version(&self) -> Result<String, CsvFieldError> {
        match self.csv().and_then(|c| c.value.pointer("/spec/version")) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(CsvFieldError::VersionNotString {
                found: go_type(other),
            }),
        }
    }

    /// CSV `spec.release`: a string, or a number written as text.
    pub fn release(&self) -> Result<String, CsvFieldError> {
        match self.csv().and_then(|c| c.value.pointer("/spec/release")) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => {
                let f = n.as_f64().unwrap_or(0.0);
                Ok(if f.fract() == 0.0 && f.abs() < 9.2e18 {
                    format!("{}", f as i64)
                } else {
                    format!("{f}")
                })
            }
            Some(_) => Err(CsvFieldError::ReleaseNotStringOrNumber),
        }
    }

    /// Properties from the CSV's `olm.properties` annotation (a JSON list), raw texts kept exactly.
    pub fn csv_annotation_properties(&self) -> Result<Vec<TypedValue>, AnnotationPropertiesError> {
        let Some(csv) = self.csv() else {
            return Ok(Vec::new());
        };
        let Some(text) = csv
            .value
            .pointer("/metadata/annotations/olm.properties")
            .and_then(Value::as_str)
        else {
            return Ok(Vec::new());
        };
        #[derive(serde::Deserialize)]
        struct Raw<'a> {
            #[serde(rename = "type", default)]
            type_: String,
            #[serde(borrow)]
            value: Option<&'a serde_json::value::RawValue>,
        }
        let list: Vec<Raw> = serde_json::from_str(text).map_err(AnnotationPropertiesError)?;
        Ok(list
            .into_iter()
            .map(|r| {
                let raw = r
                    .value
                    .map(|v| v.get().to_string())
                    .unwrap_or_else(|| "null".into());
                TypedValue {
                    type_: r.type_,
                    value: serde_json::from_str(&raw).unwrap_or(Value::Null),
                    raw,
                    location: csv.location(),
                }
            })
            .collect())
    }

    /// Stops where opm's parser stops.
    /// Why opm cannot read the CSV into its typed form (a non-string name, annotation or label).
    pub fn csv_type_problem(&self) -> Option<String> {
        let csv = self.csv()?;
        let meta = csv.value.get("metadata")?;
        if let Some(n) = meta.get("name").filter(|n| !n.is_string() && !n.is_null()) {
            return Some(format!("metadata.name is {n}, not a string"));
        }
        for which in ["annotations", "labels"] {
            match meta.get(which) {
                None | Some(Value::Null) => {}
                Some(Value::Object(m)) => {
                    if let Some((k, v)) = m.iter().find(|(_, v)| !v.is_string() && !v.is_null()) {
                        return Some(format!(
                            "metadata.{which}[{k:?}] is {v}, not a string (quote it)"
                        ));
                    }
                }
                Some(other) => return Some(format!("metadata.{which} is {other}, not a map")),
            }
        }
        None
    }
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        _ => "string",
    }
}
