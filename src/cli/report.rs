//! Problems in the formats CI systems read: SARIF 2.1.0 (code scanning) and GitHub Actions workflow
//! commands (`::error file=…,line=…,col=…,title=CODE::message`, shown as annotations on the diff).

use serde_json::{Value, json};

use fbc_core::catalog::{Diagnostic, Location, Severity};

/// Every rule of the code registry (catalog, bundle and migrate codes): code, severity and summary.
fn rules() -> Vec<(&'static str, Severity, &'static str)> {
    fbc_core::catalog::codes::all()
        .map(|r| (r.code, r.severity, r.title))
        .collect()
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A relative path as a URI reference (`/` separators, characters outside the unreserved set and
/// `/` percent-encoded).
pub fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn location(file: &str, loc: &Location) -> Value {
    let mut physical = json!({ "artifactLocation": { "uri": uri(file) } });
    if loc.line > 0 {
        physical["region"] = json!({
            "startLine": loc.line,
            "startColumn": loc.column.max(1),
        });
    }
    json!({ "physicalLocation": physical })
}

/// A SARIF 2.1.0 log of `diagnostics`; `path` turns a diagnostic's file into the path to report
/// (relative to where the command runs).
pub fn sarif(diagnostics: &[&Diagnostic], path: &dyn Fn(&str) -> String) -> Value {
    let rules = rules();
    let descriptors: Vec<Value> = rules
        .iter()
        .map(|(code, severity, summary)| {
            json!({
                "id": code,
                "shortDescription": { "text": summary },
                "fullDescription": { "text": format!("{code}: {summary}") },
                "help": {
                    "text": format!("{summary}. Every code is explained in fbc-edit's docs (docs/validate.md, docs/bundles.md); `fbc-edit validate --list-rules` lists them."),
                },
                "defaultConfiguration": { "level": level(*severity) },
            })
        })
        .collect();
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let mut text = d.message.clone();
            if let Some(h) = &d.hint {
                text.push_str(&format!(" (hint: {h})"));
            }
            let mut r = json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [location(&path(&d.location.file), &d.location)],
            });
            if let Some(i) = rules.iter().position(|(c, ..)| *c == d.code) {
                r["ruleIndex"] = i.into();
            }
            if !d.related.is_empty() {
                r["relatedLocations"] = d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let mut v = location(&path(&l.file), l);
                        v["id"] = i.into();
                        v
                    })
                    .collect::<Vec<_>>()
                    .into();
            }
            let mut props = serde_json::Map::new();
            for (k, v) in [
                ("package", &d.object.package),
                ("channel", &d.object.channel),
                ("bundle", &d.object.bundle),
            ] {
                if let Some(v) = v {
                    props.insert(k.into(), v.clone().into());
                }
            }
            if !props.is_empty() {
                r["properties"] = Value::Object(props);
            }
            r
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "fbc-edit",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": descriptors,
                }
            },
            "results": results,
        }]
    })
}

/// Escapes a workflow command's message.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands, one per problem: errors and warnings as such, notes as
/// `::notice`.
pub fn github(diagnostics: &[&Diagnostic], path: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = vec![format!("file={}", property(&path(&d.location.file)))];
        if d.location.line > 0 {
            props.push(format!("line={}", d.location.line));
            props.push(format!("col={}", d.location.column.max(1)));
        }
        props.push(format!("title={}", property(d.code)));
        let mut message = d.message.clone();
        if let Some(h) = &d.hint {
            message.push_str(&format!("\nhint: {h}"));
        }
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            props.join(","),
            data(&message)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_commands_escape_what_would_end_them() {
        let d = Diagnostic::error(
            "FBC045",
            Location::new("a,b:c.yaml", 3, 0),
            "two\nlines 100%",
        )
        .with_hint("fix");
        let out = github(&[&d], &|f| f.to_string());
        assert_eq!(
            out,
            "::error file=a%2Cb%3Ac.yaml,line=3,col=1,title=FBC045::two%0Alines 100%25%0Ahint: fix\n"
        );
    }

    /// Every code of the registry is a SARIF rule, and so is every code written out in the sources
    /// (the validators report codes by their registry constants, a few by their text).
    #[test]
    fn every_code_is_a_sarif_rule() {
        let log = sarif(&[], &|f| f.to_string());
        let ids: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["id"].as_str())
            .collect();
        for rule in fbc_core::catalog::codes::all() {
            assert!(
                ids.contains(&rule.code),
                "{} is not a SARIF rule",
                rule.code
            );
        }
        // The program's sources and the engine's, where the registry is.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut stack = vec![root.join("src"), root.join("crates")];
        let mut written = 0;
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                for (i, _) in text.match_indices("\"FBC") {
                    let code = &text[i + 1..(i + 7).min(text.len())];
                    if code[3..].bytes().all(|b| b.is_ascii_digit()) && code.len() == 6 {
                        written += 1;
                        assert!(
                            ids.contains(&code),
                            "{code} in {} is not a SARIF rule",
                            p.display()
                        );
                    }
                }
            }
        }
        assert!(written > 100, "the registry's codes are among those found");
    }

    #[test]
    fn a_result_points_at_its_rule() {
        let d = Diagnostic::warning(
            fbc_core::bundle::codes::SKIPPED_FILE,
            Location::new("manifests/a.yaml", 1, 1),
            "skipped",
        );
        let log = sarif(&[&d], &|f| f.to_string());
        let run = &log["runs"][0];
        let i = run["results"][0]["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run["tool"]["driver"]["rules"][i]["id"], "FBC218");
    }

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri("my dir/catalog.yaml"), "my%20dir/catalog.yaml");
    }
}
