//! The server's settings, from the client's `initializationOptions` or
//! `workspace/didChangeConfiguration` (either the settings themselves or under `fbcEdit`).

use std::path::PathBuf;

use fbc_core::template::OpmVersion;
use fbc_core::validate::profile::{self, Profile};
use serde::Deserialize;

/// What a user sets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Policy profiles checked beside opm's rules (`community`, `konflux`).
    pub profiles: Vec<Profile>,
    /// Registries bundle images may come from (Konflux's when empty and that profile is on).
    pub allowed_registries: Vec<String>,
    /// The OpenShift version of a catalog whose path does not say it (`catalogs/v4.18/`).
    pub ocp: Option<(u32, u32)>,
    /// The opm release templates are rendered as (else the operator's Makefile's, else the
    /// default).
    pub opm: Option<OpmVersion>,
    /// Directories that are catalog roots, absolute or relative to the first workspace folder
    /// (the longest one holding a file wins over the layout rules).
    pub catalog_roots: Vec<PathBuf>,
    /// Resolve a template's bundle images no local source holds from their registries, on the
    /// server's worker (images already in the cache are used without it).
    pub pull_images: bool,
    /// Speak plain HTTP to registries (a local test registry).
    pub plain_http: bool,
    /// Accept registry certificates that do not verify.
    pub insecure: bool,
}

#[derive(Debug, Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct Raw {
    profile: Option<OneOrMany>,
    allowed_registries: Vec<String>,
    ocp: Option<String>,
    opm: Option<String>,
    catalog_roots: Vec<PathBuf>,
    pull_images: bool,
    plain_http: bool,
    insecure: bool,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// Why settings were not taken.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingsError {
    #[error("settings: {0}")]
    Shape(String),
    #[error("settings: unknown profile {0:?} (community or konflux)")]
    Profile(String),
    #[error("settings: ocp {0:?} is not an OpenShift version such as 4.18")]
    Ocp(String),
    #[error("settings: opm {0:?}: {1}")]
    Opm(String, String),
}

impl Settings {
    /// Reads settings; `null` (or nothing) is the defaults.
    pub fn from_json(value: &serde_json::Value) -> Result<Settings, SettingsError> {
        let value = value.get("fbcEdit").unwrap_or(value);
        if value.is_null() {
            return Ok(Settings::default());
        }
        let raw: Raw = serde_json::from_value(value.clone())
            .map_err(|e| SettingsError::Shape(e.to_string()))?;
        let names = match raw.profile {
            None => Vec::new(),
            Some(OneOrMany::One(s)) => vec![s],
            Some(OneOrMany::Many(v)) => v,
        };
        let mut profiles = Vec::new();
        for n in names {
            profiles.push(match n.as_str() {
                "community" => Profile::Community,
                "konflux" => Profile::Konflux,
                "none" | "" => continue,
                _ => return Err(SettingsError::Profile(n)),
            });
        }
        profiles.sort();
        profiles.dedup();
        let ocp = match raw.ocp {
            None => None,
            Some(t) => Some(profile::parse_ocp(&t).ok_or(SettingsError::Ocp(t))?),
        };
        let opm = match raw.opm {
            None => None,
            Some(t) => {
                Some(OpmVersion::parse(&t).map_err(|e| SettingsError::Opm(t, e.to_string()))?)
            }
        };
        Ok(Settings {
            profiles,
            allowed_registries: raw.allowed_registries,
            ocp,
            opm,
            catalog_roots: raw.catalog_roots,
            pull_images: raw.pull_images,
            plain_http: raw.plain_http,
            insecure: raw.insecure,
        })
    }

    /// The profile options for a catalog at `root`.
    pub fn profile_options(&self, root: &std::path::Path) -> profile::Options {
        profile::Options {
            profiles: self.profiles.clone(),
            ocp: profile::ocp_from_path(root).or(self.ocp),
            allowed_registries: self.allowed_registries.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_read_plain_or_nested_and_refuse_unknowns() {
        let s = Settings::from_json(&json!({"fbcEdit": {"profile": "konflux", "ocp": "v4.18"}}))
            .unwrap();
        assert_eq!(s.profiles, [Profile::Konflux]);
        assert_eq!(s.ocp, Some((4, 18)));
        let s = Settings::from_json(
            &json!({"profile": ["community", "konflux"], "catalogRoots": ["cat"]}),
        )
        .unwrap();
        assert_eq!(s.profiles.len(), 2);
        assert_eq!(s.catalog_roots, [PathBuf::from("cat")]);
        assert_eq!(
            Settings::from_json(&json!(null)).unwrap(),
            Settings::default()
        );
        assert!(matches!(
            Settings::from_json(&json!({"profile": "strict"})),
            Err(SettingsError::Profile(_))
        ));
        assert!(matches!(
            Settings::from_json(&json!({"profiel": "community"})),
            Err(SettingsError::Shape(_))
        ));
        assert!(matches!(
            Settings::from_json(&json!({"ocp": "four"})),
            Err(SettingsError::Ocp(_))
        ));
        let s = Settings::from_json(&json!({"pullImages": true, "plainHttp": true})).unwrap();
        assert!(s.pull_images && s.plain_http && !s.insecure);
        assert!(matches!(
            Settings::from_json(&json!({"pullImages": "yes"})),
            Err(SettingsError::Shape(_))
        ));
        assert!(
            Settings::from_json(&json!({"opm": "v1.46.0"}))
                .unwrap()
                .opm
                .is_some()
        );
    }
}
