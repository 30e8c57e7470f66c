//! An OpenShift lifecycle blob compared version by version: the versions added and removed, each
//! with its phases and dates and the platforms it runs on, and a version's changed platform
//! compatibility, said in words; what else changed (a phase moved, renamed, added) is listed field
//! by field, as for any object.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::fields::{self, Changes, FieldChange};
use crate::catalog::lifecycle::{Lifecycle, LifecycleVersion, Platform};

/// What changed in a package's lifecycle, by version.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct LifecycleChange {
    /// Versions in the new blob only, as the blob writes them (`name`, `phases`,
    /// `platformCompatibility`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versions_added: Vec<LifecycleVersion>,
    /// Versions in the old blob only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versions_removed: Vec<LifecycleVersion>,
    /// Versions in both whose platform compatibility changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub platforms_changed: Vec<PlatformsChange>,
}

/// A version's platform compatibility, before and after.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PlatformsChange {
    pub version: String,
    pub old: Vec<Platform>,
    pub new: Vec<Platform>,
}

/// One line of a lifecycle change: `+`, `-` or `~`, the version, and the rest in words (for a
/// version added or removed its phases and platforms, for a change what changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifecycleLine {
    pub sign: char,
    pub version: String,
    pub words: String,
}

impl LifecycleChange {
    fn is_empty(&self) -> bool {
        self.versions_added.is_empty()
            && self.versions_removed.is_empty()
            && self.platforms_changed.is_empty()
    }

    /// Every version a whole blob added (or, `added` false, removed) holds.
    pub(super) fn whole(lc: &Lifecycle, added: bool) -> Option<LifecycleChange> {
        let versions = lc.versions.clone();
        let c = if added {
            LifecycleChange {
                versions_added: versions,
                ..Default::default()
            }
        } else {
            LifecycleChange {
                versions_removed: versions,
                ..Default::default()
            }
        };
        (!c.is_empty()).then_some(c)
    }

    /// The change in lines: versions added, then removed, then platform changes.
    pub fn lines(&self) -> Vec<LifecycleLine> {
        let line = |sign, version: &str, words| LifecycleLine {
            sign,
            version: version.to_string(),
            words,
        };
        let mut out: Vec<LifecycleLine> = Vec::new();
        for v in &self.versions_added {
            out.push(line('+', &v.name, version_words(v)));
        }
        for v in &self.versions_removed {
            out.push(line('-', &v.name, version_words(v)));
        }
        for p in &self.platforms_changed {
            out.push(line('~', &p.version, p.words()));
        }
        out
    }
}

impl LifecycleLine {
    /// As one line of text: `+ version 4.18 (phases: Full support 2025-02-25 – 2025-09-25; runs
    /// on openshift 4.18)`.
    pub fn text(&self) -> String {
        let name = name_or_blank(&self.version);
        match self.sign {
            '+' | '-' => format!("{} version {name} ({})", self.sign, self.words),
            _ => format!("{} version {name} {}", self.sign, self.words),
        }
    }

    /// The version's name, or `(no name)`.
    pub fn name(&self) -> &str {
        name_or_blank(&self.version)
    }
}

fn name_or_blank(s: &str) -> &str {
    if s.is_empty() { "(no name)" } else { s }
}

fn or_unknown(s: &str) -> &str {
    if s.is_empty() { "?" } else { s }
}

/// A version's phases with their dates, and what it runs on: `phases: Full support 2024-10-01 –
/// 2025-05-25, Maintenance support 2025-05-26 – 2026-04-01; runs on openshift 4.17`.
pub fn version_words(v: &LifecycleVersion) -> String {
    let phases = if v.phases.is_empty() {
        "no phases".to_string()
    } else {
        let list: Vec<String> = v
            .phases
            .iter()
            .map(|p| {
                format!(
                    "{} {} – {}",
                    or_unknown(&p.name),
                    or_unknown(&p.start),
                    or_unknown(&p.end)
                )
            })
            .collect();
        format!("phases: {}", list.join(", "))
    };
    if v.platforms.is_empty() {
        phases
    } else {
        format!("{phases}; runs on {}", platforms_text(&v.platforms))
    }
}

/// `openshift 4.17, 4.18; microshift 4.18`, or `nothing` for an empty list.
fn platforms_text(p: &[Platform]) -> String {
    if p.is_empty() {
        return "nothing".into();
    }
    p.iter()
        .map(|p| {
            if p.versions.is_empty() {
                or_unknown(&p.name).to_string()
            } else {
                format!("{} {}", or_unknown(&p.name), p.versions.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Each platform version in a list, as `openshift 4.18`.
fn pairs(p: &[Platform]) -> BTreeSet<String> {
    p.iter()
        .flat_map(|pl| {
            pl.versions
                .iter()
                .map(move |v| format!("{} {v}", or_unknown(&pl.name)))
        })
        .collect()
}

impl PlatformsChange {
    /// `runs on: openshift 4.17 → openshift 4.17, 4.18 (gains openshift 4.18)`.
    pub fn words(&self) -> String {
        let (a, b) = (pairs(&self.old), pairs(&self.new));
        let gained: Vec<&String> = b.difference(&a).collect();
        let lost: Vec<&String> = a.difference(&b).collect();
        let mut what = Vec::new();
        if !gained.is_empty() {
            what.push(format!("gains {}", join(&gained)));
        }
        if !lost.is_empty() {
            what.push(format!("loses {}", join(&lost)));
        }
        let mut s = format!(
            "runs on: {} → {}",
            platforms_text(&self.old),
            platforms_text(&self.new)
        );
        if !what.is_empty() {
            s.push_str(&format!(" ({})", what.join("; ")));
        }
        s
    }
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// Names of every version, if each has one of its own.
fn distinct_names(lc: &Lifecycle) -> Option<BTreeSet<&str>> {
    let mut names = BTreeSet::new();
    for v in &lc.versions {
        if v.name.is_empty() || !names.insert(v.name.as_str()) {
            return None;
        }
    }
    Some(names)
}

/// The JSON of each version element by name (elements without a string name are left out).
fn json_versions(v: &Value) -> BTreeMap<String, &Value> {
    v.get("versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| Some((e.get("name")?.as_str()?.to_string(), e)))
        .collect()
}

/// `v` without the version elements named in `drop`, and without the `platformCompatibility` of
/// those named in `platforms`.
fn stripped(v: &Value, drop: &BTreeSet<&str>, platforms: &BTreeSet<&str>) -> Value {
    let mut v = v.clone();
    if let Some(list) = v.get_mut("versions").and_then(Value::as_array_mut) {
        let name = |e: &Value| e.get("name").and_then(Value::as_str).map(str::to_string);
        list.retain(|e| name(e).is_none_or(|n| !drop.contains(n.as_str())));
        for e in list.iter_mut() {
            if let Some(n) = name(e)
                && platforms.contains(n.as_str())
                && let Value::Object(m) = e
            {
                m.remove("platformCompatibility");
            }
        }
    }
    v
}

/// Two lifecycle blobs (read leniently as `old` and `new`, `x` and `y` their JSON): the versions
/// added and removed and the platforms changed, and every other changed field. When a blob's
/// versions are not each named once, everything is compared field by field.
pub(super) fn compare(
    old: &Lifecycle,
    new: &Lifecycle,
    x: &Value,
    y: &Value,
) -> (Option<LifecycleChange>, Vec<FieldChange>) {
    let skip = ["schema", "package", "name"];
    let by_fields = |a: &Value, b: &Value| {
        let mut c = Changes::default();
        fields::other_fields(a, b, &skip, &mut c);
        c.finish()
    };
    let (Some(on), Some(nn)) = (distinct_names(old), distinct_names(new)) else {
        return (None, by_fields(x, y));
    };
    let (jx, jy) = (json_versions(x), json_versions(y));
    let mut change = LifecycleChange {
        versions_added: new
            .versions
            .iter()
            .filter(|v| !on.contains(v.name.as_str()))
            .cloned()
            .collect(),
        versions_removed: old
            .versions
            .iter()
            .filter(|v| !nn.contains(v.name.as_str()))
            .cloned()
            .collect(),
        platforms_changed: Vec::new(),
    };
    let mut moved: BTreeSet<&str> = BTreeSet::new();
    for v in &old.versions {
        let Some(w) = new.versions.iter().find(|w| w.name == v.name) else {
            continue;
        };
        let json_of = |j: &BTreeMap<String, &Value>| {
            j.get(&v.name)
                .and_then(|e| e.get("platformCompatibility"))
                .cloned()
        };
        // Said in words only when the words differ; anything else stays a field change.
        if v.platforms != w.platforms && json_of(&jx) != json_of(&jy) {
            change.platforms_changed.push(PlatformsChange {
                version: v.name.clone(),
                old: v.platforms.clone(),
                new: w.platforms.clone(),
            });
            moved.insert(v.name.as_str());
        }
    }
    let gone: BTreeSet<&str> = on.symmetric_difference(&nn).copied().collect();
    let rest = by_fields(&stripped(x, &gone, &moved), &stripped(y, &gone, &moved));
    ((!change.is_empty()).then_some(change), rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::lifecycle::Phase;
    use serde_json::json;

    fn version(name: &str, platforms: &[&str]) -> Value {
        json!({
            "name": name,
            "phases": [{"name": "Full support", "startDate": "2024-10-01", "endDate": "2025-05-25"}],
            "platformCompatibility": [{"name": "openshift", "versions": platforms}],
        })
    }

    fn read(v: &Value) -> Lifecycle {
        let text = serde_json::to_string(v).unwrap();
        let node = crate::catalog::json::JsonReader::new(&text, 0)
            .next_value()
            .unwrap()
            .unwrap();
        Lifecycle::read(&node)
    }

    fn blob(versions: Vec<Value>) -> Value {
        json!({"schema": crate::catalog::lifecycle::SCHEMA, "package": "p", "versions": versions})
    }

    #[test]
    fn versions_added_removed_and_platforms_in_words() {
        let x = blob(vec![version("4.12", &["4.12"]), version("4.17", &["4.17"])]);
        let mut moved = version("4.17", &["4.17", "4.18"]);
        moved["phases"][0]["endDate"] = json!("2025-06-01");
        let y = blob(vec![moved, version("4.18", &["4.18"])]);
        let (c, rest) = compare(&read(&x), &read(&y), &x, &y);
        let lines: Vec<String> = c.unwrap().lines().iter().map(LifecycleLine::text).collect();
        assert_eq!(
            lines,
            vec![
                "+ version 4.18 (phases: Full support 2024-10-01 – 2025-05-25; runs on openshift 4.18)",
                "- version 4.12 (phases: Full support 2024-10-01 – 2025-05-25; runs on openshift 4.12)",
                "~ version 4.17 runs on: openshift 4.17 → openshift 4.17, 4.18 (gains openshift 4.18)",
            ]
        );
        let rest: Vec<String> = rest.iter().map(fields::line).collect();
        assert_eq!(
            rest,
            vec!["~ versions[4.17].phases[Full support].endDate: 2025-05-25 → 2025-06-01"]
        );
    }

    #[test]
    fn versions_named_twice_are_compared_field_by_field() {
        let x = blob(vec![version("4.12", &["4.12"])]);
        let y = blob(vec![version("4.12", &["4.12"]), version("4.12", &["4.13"])]);
        let (c, rest) = compare(&read(&x), &read(&y), &x, &y);
        assert_eq!(c, None);
        assert_eq!(rest.len(), 1, "{rest:?}");
        assert_eq!(rest[0].path, "versions");
    }

    #[test]
    fn a_version_without_phases_or_platforms_says_so() {
        let v = LifecycleVersion {
            name: "5.0".into(),
            phases: vec![Phase {
                name: String::new(),
                start: "2026-01-01".into(),
                end: String::new(),
            }],
            platforms: Vec::new(),
        };
        assert_eq!(version_words(&v), "phases: ? 2026-01-01 – ?");
        let none = LifecycleVersion {
            name: "5.0".into(),
            ..Default::default()
        };
        assert_eq!(version_words(&none), "no phases");
        let p = PlatformsChange {
            version: "4.17".into(),
            old: vec![Platform {
                name: "openshift".into(),
                versions: vec!["4.16".into(), "4.17".into()],
            }],
            new: Vec::new(),
        };
        assert_eq!(
            p.words(),
            "runs on: openshift 4.16, 4.17 → nothing (loses openshift 4.16, openshift 4.17)"
        );
    }
}
