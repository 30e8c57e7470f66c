//! How one substitution changes the channels, as opm changes them. In every channel listing the
//! base:
//!
//! - each entry of the base gets a new entry for the substitute, appended at the end of the
//!   channel, holding the base entry's `replaces`, `skips` (plus the base) and `skipRange`; the
//!   base entry keeps only its name;
//! - every other entry that replaced the base now replaces the substitute and skips the base;
//!   one that only skipped the base skips the substitute instead.

use serde_json::{Map, Value};

use crate::catalog::schema;

/// Changes the channels among `cfg` for `base` substituted by `substitute`.
pub fn rewire(cfg: &mut [Value], base: &str, substitute: &str) {
    for channel in cfg.iter_mut() {
        if channel.get("schema").and_then(Value::as_str) != Some(schema::CHANNEL) {
            continue;
        }
        let Some(entries) = channel.get_mut("entries").and_then(Value::as_array_mut) else {
            continue;
        };
        let of_base: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| text(e, "name") == base)
            .map(|(i, _)| i)
            .collect();
        // opm walks them from the last, so the new entries come in reverse order.
        for &i in of_base.iter().rev() {
            let old = &entries[i];
            let mut skips = list(old);
            skips.push(base.to_string());
            let new = entry(
                substitute,
                text(old, "replaces"),
                &skips,
                text(old, "skipRange"),
            );
            entries[i] = entry(base, "", &[], "");
            entries.push(new);
        }
        let original = entries.len() - of_base.len();
        for e in entries.iter_mut().take(original) {
            let mut skips = list(e);
            let (replaces, range) = (text(e, "replaces").to_string(), text(e, "skipRange"));
            if replaces == base {
                skips.push(base.to_string());
                *e = entry(text(e, "name"), substitute, &skips, range);
            } else if skips.iter().any(|s| s == base) {
                skips.push(substitute.to_string());
                skips.retain(|s| s != base);
                *e = entry(text(e, "name"), &replaces, &skips, range);
            }
        }
    }
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn list(v: &Value) -> Vec<String> {
    v.get("skips")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A channel entry as opm writes one: empty fields left out.
fn entry(name: &str, replaces: &str, skips: &[String], skip_range: &str) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::from(name));
    if !replaces.is_empty() {
        m.insert("replaces".into(), Value::from(replaces));
    }
    if !skips.is_empty() {
        m.insert(
            "skips".into(),
            Value::Array(skips.iter().map(|s| Value::from(s.as_str())).collect()),
        );
    }
    if !skip_range.is_empty() {
        m.insert("skipRange".into(), Value::from(skip_range));
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn channel(name: &str, entries: Value) -> Value {
        json!({"schema": "olm.channel", "name": name, "package": "testoperator", "entries": entries})
    }

    #[test]
    fn the_substitute_takes_the_base_entrys_edges_and_skips_the_base() {
        let mut cfg = vec![channel(
            "stable",
            json!([
                {"name": "testoperator-v1.0.0-alpha"},
                {"name": "testoperator-v1.1.0-alpha", "replaces": "testoperator-v1.0.0-alpha",
                 "skips": ["testoperator-v0.9.0-alpha"], "skipRange": ">=0.9.0 <1.1.0"}
            ]),
        )];
        rewire(
            &mut cfg,
            "testoperator-v1.1.0-alpha",
            "testoperator-v1.2.0-alpha",
        );
        assert_eq!(
            cfg[0]["entries"],
            json!([
                {"name": "testoperator-v1.0.0-alpha"},
                {"name": "testoperator-v1.1.0-alpha"},
                {"name": "testoperator-v1.2.0-alpha", "replaces": "testoperator-v1.0.0-alpha",
                 "skips": ["testoperator-v0.9.0-alpha", "testoperator-v1.1.0-alpha"],
                 "skipRange": ">=0.9.0 <1.1.0"}
            ])
        );
    }

    #[test]
    fn entries_replacing_or_skipping_the_base_move_to_the_substitute() {
        let mut cfg = vec![channel(
            "stable",
            json!([
                {"name": "a.v1.0.0"},
                {"name": "a.v1.1.0", "replaces": "a.v1.0.0"},
                {"name": "a.v1.2.0", "replaces": "a.v1.1.0"},
                {"name": "a.v1.3.0", "skips": ["a.v1.1.0", "x", "a.v1.1.0"]}
            ]),
        )];
        rewire(&mut cfg, "a.v1.1.0", "a-v1.1.0-1");
        assert_eq!(
            cfg[0]["entries"],
            json!([
                {"name": "a.v1.0.0"},
                {"name": "a.v1.1.0"},
                {"name": "a.v1.2.0", "replaces": "a-v1.1.0-1", "skips": ["a.v1.1.0"]},
                {"name": "a.v1.3.0", "skips": ["x", "a-v1.1.0-1"]},
                {"name": "a-v1.1.0-1", "replaces": "a.v1.0.0", "skips": ["a.v1.1.0"]}
            ])
        );
    }

    #[test]
    fn every_channel_holding_the_base_is_changed_and_others_are_not() {
        let two = json!([{"name": "b1"}, {"name": "b2", "replaces": "b1"}]);
        let mut cfg = vec![
            channel("stable", two.clone()),
            channel("beta", two),
            channel("other", json!([{"name": "b1"}])),
            json!({"schema": "olm.package", "name": "testoperator"}),
        ];
        rewire(&mut cfg, "b2", "b3");
        for c in &cfg[..2] {
            assert_eq!(
                c["entries"],
                json!([{"name": "b1"}, {"name": "b2"}, {"name": "b3", "replaces": "b1", "skips": ["b2"]}])
            );
        }
        assert_eq!(cfg[2]["entries"], json!([{"name": "b1"}]));
    }
}
