//! What a template edit changes in the catalog the template renders to, told the way a reviewer of
//! a semver template needs it: a semver template's text names bundle images only, so the channels
//! and upgrade edges an edit generates are shown from the renderings before and after.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::catalog::schema;

/// A channel's entries by name, with their edges in words.
type Entries = BTreeMap<String, String>;

/// The channels of a rendering, by (package, channel), and the default channel of each package.
fn channels(
    blobs: &[Value],
) -> (
    BTreeMap<(String, String), Entries>,
    BTreeMap<String, String>,
) {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut out = BTreeMap::new();
    let mut defaults = BTreeMap::new();
    for b in blobs {
        match b.get("schema").and_then(Value::as_str) {
            Some(schema::PACKAGE) => {
                defaults.insert(text(b, "name"), text(b, "defaultChannel"));
            }
            Some(schema::CHANNEL) => {
                let entries: Entries = b
                    .get("entries")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|e| (text(e, "name"), edges(e)))
                    .collect();
                out.insert((text(b, "package"), text(b, "name")), entries);
            }
            _ => {}
        }
    }
    (out, defaults)
}

/// `replaces A, skips [B, C], skipRange R`, or `no edges`.
fn edges(entry: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(r) = entry.get("replaces").and_then(Value::as_str) {
        parts.push(format!("replaces {r}"));
    }
    if let Some(s) = entry.get("skips").and_then(Value::as_array)
        && !s.is_empty()
    {
        let names: Vec<&str> = s.iter().filter_map(Value::as_str).collect();
        parts.push(format!("skips [{}]", names.join(", ")));
    }
    if let Some(r) = entry.get("skipRange").and_then(Value::as_str) {
        parts.push(format!("skipRange {r}"));
    }
    if parts.is_empty() {
        "no edges".to_string()
    } else {
        parts.join(", ")
    }
}

/// One line per change between two renderings: default channels, channels added and removed, and
/// entries added, removed or given other edges (`+`, `-`, `~`), in package and channel order.
pub fn rendering_changes(before: &[Value], after: &[Value]) -> Vec<String> {
    let (old, old_defaults) = channels(before);
    let (new, new_defaults) = channels(after);
    let mut lines = Vec::new();
    for (package, d) in &new_defaults {
        match old_defaults.get(package) {
            Some(o) if o != d => lines.push(format!("~ default channel of {package}: {o} → {d}")),
            _ => {}
        }
    }
    let empty = Entries::new();
    let keys: std::collections::BTreeSet<&(String, String)> =
        old.keys().chain(new.keys()).collect();
    for key in keys {
        let (package, name) = key;
        let (o, n) = (old.get(key), new.get(key));
        match (o, n) {
            (None, Some(_)) => lines.push(format!("+ channel {name} of {package}")),
            (Some(_), None) => {
                lines.push(format!("- channel {name} of {package}"));
                continue;
            }
            _ => {}
        }
        let (o, n) = (o.unwrap_or(&empty), n.unwrap_or(&empty));
        for (entry, e) in n {
            match o.get(entry) {
                None => lines.push(format!("  + {name}: {entry} ({e})")),
                Some(was) if was != e => {
                    lines.push(format!("  ~ {name}: {entry} ({was} → {e})"));
                }
                _ => {}
            }
        }
        for entry in o.keys().filter(|k| !n.contains_key(*k)) {
            lines.push(format!("  - {name}: {entry}"));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_channels_entries_and_edges_that_change() {
        let before = vec![
            json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable-v1"}),
            json!({"schema": "olm.channel", "name": "stable-v1", "package": "p", "entries": [
                {"name": "p.v1.0.0"}, {"name": "p.v1.1.0", "replaces": "p.v1.0.0"}]}),
            json!({"schema": "olm.channel", "name": "fast-v1", "package": "p", "entries": [
                {"name": "p.v1.0.0"}]}),
        ];
        let after = vec![
            json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable-v2"}),
            json!({"schema": "olm.channel", "name": "stable-v1", "package": "p", "entries": [
                {"name": "p.v1.1.0"}]}),
            json!({"schema": "olm.channel", "name": "stable-v2", "package": "p", "entries": [
                {"name": "p.v2.0.0", "skips": ["p.v1.1.0"]}]}),
        ];
        assert_eq!(
            rendering_changes(&before, &after),
            [
                "~ default channel of p: stable-v1 → stable-v2",
                "- channel fast-v1 of p",
                "  ~ stable-v1: p.v1.1.0 (replaces p.v1.0.0 → no edges)",
                "  - stable-v1: p.v1.0.0",
                "+ channel stable-v2 of p",
                "  + stable-v2: p.v2.0.0 (skips [p.v1.1.0])",
            ]
        );
        assert!(rendering_changes(&after, &after).is_empty());
    }
}
