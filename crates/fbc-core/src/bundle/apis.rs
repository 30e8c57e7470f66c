//! The APIs a bundle provides (its CRDs and owned API services) and requires, as opm computes them.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::Value;

use super::RegistryBundle;

/// An API a bundle provides or requires.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ApiKey {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{} ({})",
            self.group, self.version, self.kind, self.plural
        )
    }
}

struct Def<'v>(&'v Value);

impl Def<'_> {
    fn s(&self, k: &str) -> String {
        self.0
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }
}

fn definitions<'v>(csv: &'v Value, which: &str, list: &str) -> impl Iterator<Item = Def<'v>> {
    csv.get("spec")
        .and_then(|s| s.get(which))
        .and_then(|d| d.get(list))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(Def)
}

impl RegistryBundle {
    /// The APIs the bundle provides: every version of every CRD in `manifests/`, and the CSV's owned
    /// API services.
    pub fn provided_apis(&self) -> BTreeSet<ApiKey> {
        let mut out = BTreeSet::new();
        for o in &self.objects {
            let api = o.api_version();
            let (v1, v1beta1) = (api.ends_with("/v1"), api.ends_with("/v1beta1"));
            if o.kind() != "CustomResourceDefinition" || !(v1 || v1beta1) {
                continue;
            }
            let spec = o.value.get("spec").unwrap_or(&Value::Null);
            let s = |p: &str| {
                spec.pointer(p)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let (group, kind, plural) = (s("/group"), s("/names/kind"), s("/names/plural"));
            let mut versions: Vec<String> = spec
                .get("versions")
                .and_then(Value::as_array)
                .map(|vs| {
                    vs.iter()
                        .filter_map(|v| v.get("name").and_then(Value::as_str).map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if v1beta1 {
                let v = s("/version");
                if !v.is_empty() {
                    versions.push(v);
                }
            }
            for version in versions {
                out.insert(ApiKey {
                    group: group.clone(),
                    version,
                    kind: kind.clone(),
                    plural: plural.clone(),
                });
            }
        }
        if let Some(csv) = self.csv() {
            for d in definitions(&csv.value, "apiservicedefinitions", "owned") {
                out.insert(ApiKey {
                    group: d.s("group"),
                    version: d.s("version"),
                    kind: d.s("kind"),
                    plural: d.s("name"),
                });
            }
        }
        out
    }

    /// The APIs the CSV requires (`plural.group` CRD names and API services).
    pub fn required_apis(&self) -> Result<BTreeSet<ApiKey>, CrdNameError> {
        let mut out = BTreeSet::new();
        let Some(csv) = self.csv() else {
            return Ok(out);
        };
        for d in definitions(&csv.value, "customresourcedefinitions", "required") {
            let name = d.s("name");
            let Some((plural, group)) = name.split_once('.') else {
                return Err(CrdNameError { name });
            };
            out.insert(ApiKey {
                group: group.into(),
                version: d.s("version"),
                kind: d.s("kind"),
                plural: plural.into(),
            });
        }
        for d in definitions(&csv.value, "apiservicedefinitions", "required") {
            out.insert(ApiKey {
                group: d.s("group"),
                version: d.s("version"),
                kind: d.s("kind"),
                plural: d.s("name"),
            });
        }
        Ok(out)
    }

    /// CRDs the CSV owns that are not in `manifests/`, with the place the CSV lists each.
    pub fn missing_owned_crds(&self) -> Result<Vec<(ApiKey, String)>, CrdNameError> {
        let Some(csv) = self.csv() else {
            return Ok(Vec::new());
        };
        let provided = self.provided_apis();
        let mut out = Vec::new();
        for d in definitions(&csv.value, "customresourcedefinitions", "owned") {
            let name = d.s("name");
            let Some((plural, group)) = name.split_once('.') else {
                return Err(CrdNameError { name });
            };
            let key = ApiKey {
                group: group.into(),
                version: d.s("version"),
                kind: d.s("kind"),
                plural: plural.into(),
            };
            if !provided.contains(&key) {
                out.push((key, name));
            }
        }
        Ok(out)
    }
}

/// A CRD name in the CSV that is not `plural.group` (opm's wording).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("couldn't parse plural.group from crd name: {name}")]
pub struct CrdNameError {
    pub name: String,
}
