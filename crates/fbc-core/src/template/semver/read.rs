//! Reading a semver template strictly, as opm's Go decoder does: field names in any letter case,
//! unknown and repeated fields refused, every problem reported with its line.

use super::{BundleRef, Semver, StreamKind};
use crate::catalog::node::{Kind, Node};
use crate::template::{Problem, TemplateError, a_type, schemas};

/// The fields of a mapping, matched like Go's strict decoding: in any letter case, unknown names and
/// repeated keys refused. `null` reads as an empty mapping.
fn fields<'a>(
    node: &'a Node,
    what: &str,
    known: &[&'static str],
    problems: &mut Vec<Problem>,
) -> Vec<(&'static str, &'a Node)> {
    let entries = match &node.kind {
        Kind::Null => return Vec::new(),
        Kind::Map(entries) => entries,
        _ => {
            problems.push(Problem::new(
                node.pos().line,
                format!("{what} must be a mapping, found {}", a_type(node)),
            ));
            return Vec::new();
        }
    };
    let mut out: Vec<(&'static str, &'a Node)> = Vec::new();
    let mut seen: Vec<(&str, u32)> = Vec::new();
    for e in entries {
        let key = e.key_str();
        let line = e.key.pos().line;
        let Some(field) = known.iter().find(|f| f.eq_ignore_ascii_case(key)) else {
            problems.push(Problem::new(
                line,
                format!(
                    "unknown field {key:?} in {what} (known: {})",
                    known.join(", ")
                ),
            ));
            continue;
        };
        if let Some((earlier, at)) = seen.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
            let msg = if *earlier == key {
                format!("key {key:?} already set in map (first on line {at})")
            } else {
                format!(
                    "{key:?} and {earlier:?} (line {at}) are the same field {field:?}; give it once"
                )
            };
            problems.push(Problem::new(line, msg));
            continue;
        }
        seen.push((key, line));
        out.push((field, &e.value));
    }
    out
}

fn boolean(node: &Node, field: &str, problems: &mut Vec<Problem>) -> bool {
    match node.kind {
        Kind::Bool(b) => b,
        Kind::Null => false,
        _ => {
            problems.push(Problem::new(
                node.pos().line,
                format!("{field} must be true or false, found {}", a_type(node)),
            ));
            false
        }
    }
}

fn string<'a>(node: &'a Node, field: &str, problems: &mut Vec<Problem>) -> &'a str {
    match node.kind {
        Kind::String(_) => node.as_str().unwrap_or_default(),
        Kind::Null => "",
        _ => {
            problems.push(Problem::new(
                node.pos().line,
                format!("{field} must be a string, found {}", a_type(node)),
            ));
            ""
        }
    }
}

impl Semver {
    pub(crate) fn parse(file: &str, node: &Node) -> Result<Semver, TemplateError> {
        let mut problems = Vec::new();
        let mut schema_value = "";
        let mut major = false;
        let mut minor = false;
        let mut preference = "";
        let mut lists: [Vec<BundleRef>; 3] = Default::default();
        let top = fields(
            node,
            "the semver template",
            &[
                "schema",
                "generateMajorChannels",
                "generateMinorChannels",
                "defaultChannelTypePreference",
                "candidate",
                "fast",
                "stable",
            ],
            &mut problems,
        );
        for (field, value) in top {
            match field {
                "schema" => schema_value = string(value, field, &mut problems),
                "generateMajorChannels" => major = boolean(value, field, &mut problems),
                "generateMinorChannels" => minor = boolean(value, field, &mut problems),
                "defaultChannelTypePreference" => preference = string(value, field, &mut problems),
                _ => {
                    let i = match field {
                        "candidate" => 0,
                        "fast" => 1,
                        _ => 2,
                    };
                    lists[i] = bundle_list(value, field, &mut problems);
                }
            }
        }
        if !problems.is_empty() {
            return Err(TemplateError::many(file, problems));
        }
        let line = node.pos().line;
        if schema_value != schemas::SEMVER {
            return Err(TemplateError::new(
                file,
                line,
                format!(
                    "input file has unknown schema, should be {:?}",
                    schemas::SEMVER
                ),
            ));
        }
        if !major && !minor {
            minor = true;
        }
        let preference = default_preference(file, line, preference, major, minor)?;
        Ok(Semver {
            generate_major: major,
            generate_minor: minor,
            preference,
            lists,
            line,
        })
    }
}

/// The kind of channel the default comes from: as asked for (when such channels are generated),
/// else minor when minor channels are generated, else major.
fn default_preference(
    file: &str,
    line: u32,
    preference: &str,
    major: bool,
    minor: bool,
) -> Result<StreamKind, TemplateError> {
    Ok(match preference {
        "" if minor => StreamKind::Minor,
        "" => StreamKind::Major,
        "minor" if minor => StreamKind::Minor,
        "major" if major => StreamKind::Major,
        "minor" | "major" => {
            return Err(TemplateError::new(
                file,
                line,
                format!(
                    "schema attribute mismatch: DefaultChannelTypePreference set to '{preference}' doesn't make sense if not generating {preference}-version channels"
                ),
            ));
        }
        other => {
            return Err(TemplateError::new(
                file,
                line,
                format!(
                    "unknown DefaultChannelTypePreference: {other:?}\nValid values are 'major' or 'minor'"
                ),
            ));
        }
    })
}

fn bundle_list(node: &Node, field: &str, problems: &mut Vec<Problem>) -> Vec<BundleRef> {
    let mut out = Vec::new();
    for (_, bundles) in fields(node, field, &["bundles"], problems) {
        let items: &[Node] = match &bundles.kind {
            Kind::Null => &[],
            Kind::Seq(items) => items,
            _ => {
                problems.push(Problem::new(
                    bundles.pos().line,
                    format!(
                        "{field}.bundles must be a list of {{image: <bundle image>}}, found {}",
                        a_type(bundles)
                    ),
                ));
                continue;
            }
        };
        for (i, item) in items.iter().enumerate() {
            let what = format!("{field}.bundles[{i}]");
            let before = problems.len();
            let mut image = "";
            for (_, v) in fields(item, &what, &["image"], problems) {
                image = string(v, &format!("{what}.image"), problems);
            }
            if problems.len() > before {
                continue;
            }
            if image.is_empty() {
                problems.push(Problem::new(
                    item.pos().line,
                    format!("{what} has no image"),
                ));
                continue;
            }
            out.push(BundleRef {
                image: image.to_string(),
                line: item.pos().line,
            });
        }
    }
    out
}
