//! Fixes written into the document's text, where no engine edit makes the change: each removes
//! exactly the problem (the tests check the document again after it).

use fbc_core::catalog::emit::{OutFormat, write_fbc};
use fbc_core::catalog::model::{Channel, Deprecations};
use fbc_core::catalog::node::{Node, Pos};
use fbc_core::catalog::semver_range::Version;
use fbc_core::catalog::{BlobId, Format, schema};

use super::{Fix, Problem, channels, named_package, object, on_line, quoted};

/// FBC026: the version without its leading `v`, when that is semver.
pub(super) fn drop_leading_v(p: &Problem) -> Vec<Fix> {
    let Some(old) = quoted(&p.published.message).into_iter().next() else {
        return Vec::new();
    };
    let Some(new) = old.strip_prefix(['v', 'V']) else {
        return Vec::new();
    };
    if Version::parse(new).is_err() {
        return Vec::new();
    }
    let title = format!("Change the version to {new}");
    on_line(p, &old, new.to_string(), title)
        .into_iter()
        .collect()
}

/// FBC024: the olm.package property names the bundle's package.
pub(super) fn package_name(p: &Problem) -> Vec<Fix> {
    let q = quoted(&p.published.message);
    let (Some(package), Some(said)) = (q.get(1), q.get(2)) else {
        return Vec::new();
    };
    let title = format!("Change the olm.package property to {package}");
    on_line(p, said, package.clone(), title)
        .into_iter()
        .collect()
}

/// FBC015, FBC020, FBC033: an `olm.package` written at the end of the document, one action per
/// channel it could default to (or one without a default channel when the package has none).
pub(super) fn add_package(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, _)) = p.engine else {
        return Vec::new();
    };
    let package = d
        .object
        .package
        .clone()
        .filter(|s| !s.is_empty())
        .or_else(|| named_package(&d.message));
    let Some(package) = package.filter(|s| !s.is_empty()) else {
        return Vec::new();
    };
    let format = match document_format(p) {
        Some(Format::Json) => OutFormat::Json,
        _ => OutFormat::Yaml,
    };
    let mut defaults: Vec<Option<String>> = channels(cat, &package).into_iter().map(Some).collect();
    if defaults.is_empty() {
        defaults.push(None);
    }
    defaults
        .into_iter()
        .map(|default| {
            let mut blob = serde_json::json!({"schema": schema::PACKAGE, "name": package});
            if let Some(c) = &default {
                blob["defaultChannel"] = c.clone().into();
            }
            let mut new = String::new();
            if !p.text.is_empty() && !p.text.ends_with('\n') {
                new.push('\n');
            }
            new.push_str(&write_fbc(&[blob], format));
            let title = match &default {
                Some(c) => format!("Add package {package} with default channel {c}"),
                None => format!("Add package {package}"),
            };
            Fix::Text {
                title,
                start: p.text.len(),
                end: p.text.len(),
                new,
            }
        })
        .collect()
}

pub(super) fn document_format(p: &Problem) -> Option<Format> {
    let (cat, _, rel) = p.engine?;
    let f = cat.file_id(rel)?;
    cat.files[f].format
}

/// The blob of the document at the problem's line with this schema, package and name.
pub(super) fn blob_here(
    p: &Problem,
    schema_name: &str,
    package: &str,
    name: &str,
) -> Option<BlobId> {
    let (cat, d, rel) = p.engine?;
    let idx = cat.index().package(package)?;
    idx.channels
        .iter()
        .chain(&idx.deprecations)
        .copied()
        .filter(|&b| {
            let blob = cat.blob(b);
            blob.schema() == schema_name
                && (name.is_empty() || blob.name() == name)
                && cat.file_of(b).path == rel
        })
        .find(|&b| {
            let pos = cat.blob(b).value.pos();
            pos.is_real() && pos.line <= d.location.line
        })
}

/// FBC018: the repeat of an entry removed, when it says nothing its first listing does not.
pub(super) fn drop_duplicate_entry(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let (Some(channel), Some(entry)) = (d.object.channel.clone(), d.object.bundle.clone()) else {
        return Vec::new();
    };
    let Some(id) = blob_here(p, schema::CHANNEL, &package, &channel) else {
        return Vec::new();
    };
    let Ok(ch) = Channel::read(&cat.blob(id).value) else {
        return Vec::new();
    };
    let Some(items) = cat
        .blob(id)
        .value
        .get_field("entries")
        .and_then(Node::as_seq)
    else {
        return Vec::new();
    };
    let same: Vec<usize> = ch
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.name == entry)
        .map(|(i, _)| i)
        .collect();
    let (Some(&first), Some(&repeat)) = (
        same.first(),
        same.iter()
            .skip(1)
            .rfind(|&&i| items[i].pos().line <= d.location.line),
    ) else {
        return Vec::new();
    };
    let (a, b) = (&ch.entries[first], &ch.entries[repeat]);
    let adds_nothing = b.replaces.is_none_or(|r| a.replaces == Some(r))
        && b.skips.iter().all(|s| a.skips.contains(s))
        && b.skip_range.is_none_or(|r| a.skip_range == Some(r));
    if !adds_nothing {
        return Vec::new();
    }
    let spans: Vec<Pos> = items.iter().map(Node::pos).collect();
    remove_span(p.text, &spans, repeat, false)
        .map(|(start, end)| Fix::Text {
            title: format!("Remove the repeated entry {entry}"),
            start,
            end,
            new: String::new(),
        })
        .into_iter()
        .collect()
}

/// FBC050: the empty item removed from the entry's skips.
pub(super) fn drop_empty_skip(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let (Some(channel), Some(entry)) = (d.object.channel.clone(), d.object.bundle.clone()) else {
        return Vec::new();
    };
    let Some(i) = d
        .message
        .strip_prefix("skips[")
        .and_then(|r| r.split(']').next())
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return Vec::new();
    };
    let Some(id) = blob_here(p, schema::CHANNEL, &package, &channel) else {
        return Vec::new();
    };
    let Ok(ch) = Channel::read(&cat.blob(id).value) else {
        return Vec::new();
    };
    let Some(skips) = ch
        .entries
        .iter()
        .filter(|e| e.name == entry)
        .filter_map(|e| e.node.get_field("skips").and_then(Node::as_seq))
        .find(|s| s.get(i).is_some_and(|n| n.pos().line == d.location.line))
    else {
        return Vec::new();
    };
    let spans: Vec<Pos> = skips.iter().map(Node::pos).collect();
    remove_span(p.text, &spans, i, false)
        .map(|(start, end)| Fix::Text {
            title: format!("Remove the empty skip of {entry}"),
            start,
            end,
            new: String::new(),
        })
        .into_iter()
        .collect()
}

/// FBC039: `reference.name` removed from the package deprecation.
pub(super) fn drop_reference_name(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let Some(id) = blob_here(p, schema::DEPRECATIONS, &package, "") else {
        return Vec::new();
    };
    let Ok(dep) = Deprecations::read(&cat.blob(id).value) else {
        return Vec::new();
    };
    // The package deprecation naming something that starts last at or before the problem's line.
    let Some(reference) = dep
        .entries
        .iter()
        .filter(|e| e.schema == schema::PACKAGE && !e.name.is_empty())
        .filter(|e| e.node.pos().is_real() && e.node.pos().line <= d.location.line)
        .max_by_key(|e| e.node.pos().line)
        .and_then(|e| e.node.get_field("reference"))
    else {
        return Vec::new();
    };
    let Some(fields) = reference.as_map() else {
        return Vec::new();
    };
    let Some(i) = fields.iter().position(|e| e.key_str() == "name") else {
        return Vec::new();
    };
    let spans: Vec<Pos> = fields
        .iter()
        .map(|e| {
            let (k, v) = (e.key.pos(), e.value.pos());
            Pos {
                start: k.start,
                end: v.end.max(k.end),
                line: k.line,
                col: k.col,
            }
        })
        .collect();
    remove_span(p.text, &spans, i, true)
        .map(|(start, end)| Fix::Text {
            title: "Remove reference.name from the package deprecation".to_string(),
            start,
            end,
            new: String::new(),
        })
        .into_iter()
        .collect()
}

/// The bytes to delete to remove item `i` of a list (or, `map`, of a map's keys) whose items sit
/// at `spans`: its lines in block YAML, the item and a separating comma in flow YAML and JSON.
pub(crate) fn remove_span(
    text: &str,
    spans: &[Pos],
    i: usize,
    map: bool,
) -> Option<(usize, usize)> {
    let span = spans.get(i)?;
    if !spans.iter().all(Pos::is_real) {
        return None;
    }
    let (start, end) = (span.start as usize, (span.end as usize).min(text.len()));
    let bytes = text.as_bytes();
    let mut trimmed = end;
    while trimmed > start && bytes[trimmed - 1].is_ascii_whitespace() {
        trimmed -= 1;
    }
    let line_start = text.get(..start)?.rfind('\n').map_or(0, |n| n + 1);
    let bare = text.get(line_start..start)?.trim();
    let line_end = text[trimmed..]
        .find('\n')
        .map_or(text.len(), |n| trimmed + n + 1);
    let tail = text.get(trimmed..line_end)?.trim();
    let own_lines = tail.is_empty() || tail.starts_with('#');
    if own_lines && bare.is_empty() {
        return Some((line_start, line_end));
    }
    if own_lines && bare == "-" {
        // A list item on lines of its own; a map's first key after its item's dash is not
        // removed (the dash would go with it).
        return (!map).then_some((line_start, line_end));
    }
    if i > 0 {
        Some((spans[i - 1].end as usize, end))
    } else if let Some(next) = spans.get(1) {
        Some((start, next.start as usize))
    } else {
        Some((start, end))
    }
}
