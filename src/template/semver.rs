//! `olm.semver`: bundle images listed under `candidate`, `fast` and `stable`; channels, edges and the
//! default channel are generated from the bundles' versions exactly as opm (v1.61.0 and later) does:
//!
//! * channels `<maturity>-v<major>` (major channels) and/or `<maturity>-v<major>.<minor>` (minor
//!   channels; the default when neither kind is asked for), entries in ascending version order;
//! * only the last (highest) entry of each minor version gets edges: it replaces the highest entry
//!   of the previous minor version of the same major and maturity, and skips every other lower entry
//!   of that major seen so far; nothing links across majors or maturities;
//! * the default channel is the "high-water mark": the most stable maturity, then the channel created
//!   by the highest version, then the preferred channel kind;
//! * the package's description and icon come from the CSV of the default channel's head.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::source::{BundleSource, resolve_all};
use super::{Problem, Rendered, TemplateError, a_type, canonical, schemas};
use crate::catalog::emit::to_node;
use crate::catalog::model::{Bundle, PropertyValue, property_type};
use crate::catalog::node::{Kind, Node};
use crate::catalog::schema;
use crate::catalog::semver_range::Version;

/// The maturities, from least to most stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Maturity {
    Candidate,
    Fast,
    Stable,
}

impl Maturity {
    pub const ALL: [Maturity; 3] = [Maturity::Candidate, Maturity::Fast, Maturity::Stable];

    pub fn as_str(self) -> &'static str {
        match self {
            Maturity::Candidate => "candidate",
            Maturity::Fast => "fast",
            Maturity::Stable => "stable",
        }
    }
}

/// A channel kind. Ordered as opm ranks them: none < major < minor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StreamKind {
    None,
    Major,
    Minor,
}

/// One `{image: ...}` of a list, with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRef {
    pub image: String,
    pub line: u32,
}

/// A semver template, read and checked.
#[derive(Debug, Clone)]
pub struct Semver {
    pub generate_major: bool,
    pub generate_minor: bool,
    /// `Major` or `Minor` after defaulting.
    pub preference: StreamKind,
    /// Bundle lists by maturity (candidate, fast, stable).
    pub lists: [Vec<BundleRef>; 3],
    /// Line of the document, for errors about the whole template.
    pub line: u32,
}

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
                node.pos.line,
                format!("{what} must be a mapping, found {}", a_type(node)),
            ));
            return Vec::new();
        }
    };
    let mut out: Vec<(&'static str, &'a Node)> = Vec::new();
    let mut seen: Vec<(&str, u32)> = Vec::new();
    for e in entries {
        let key = e.key_str();
        let line = e.key.pos.line;
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
                node.pos.line,
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
                node.pos.line,
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
        let line = node.pos.line;
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
        let preference = match preference {
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
        };
        Ok(Semver {
            generate_major: major,
            generate_minor: minor,
            preference,
            lists,
            line,
        })
    }

    /// Every distinct image, in the order candidate, fast, stable, with its first line.
    pub fn images(&self) -> Vec<(String, u32)> {
        let mut out: Vec<(String, u32)> = Vec::new();
        for b in self.lists.iter().flatten() {
            if !out.iter().any(|(i, _)| *i == b.image) {
                out.push((b.image.clone(), b.line));
            }
        }
        out
    }

    pub(crate) fn render(
        &self,
        file: &str,
        source: &dyn BundleSource,
    ) -> Result<Rendered, TemplateError> {
        let images = self.images();
        if images.is_empty() {
            return Err(TemplateError::new(
                file,
                self.line,
                "render: no bundles specified or no bundles could be rendered",
            ));
        }
        let resolved = resolve_all(file, &images, source)?;
        let mut bundles: Vec<Value> = Vec::with_capacity(resolved.len());
        for (blob, (image, line)) in resolved.iter().zip(&images) {
            let b = canonical::bundle(&to_node(blob, false)).map_err(|(_, e)| {
                TemplateError::new(
                    file,
                    *line,
                    format!("the bundle resolved for image {image:?} cannot be read: {e}"),
                )
            })?;
            bundles.push(b);
        }
        let by_image = |image: &str| images.iter().position(|(i, _)| i == image);

        // Versions per maturity, and the package (fixed by the first bundle seen).
        let mut package: Option<String> = None;
        let mut versions: [Vec<(String, Version)>; 3] = Default::default();
        for (m, list) in self.lists.iter().enumerate() {
            let mut lines = Vec::with_capacity(list.len());
            for r in list {
                let Some(i) = by_image(&r.image) else {
                    return Err(TemplateError::new(
                        file,
                        r.line,
                        format!(
                            "supplied bundle image name {:?} not found in rendered bundle images",
                            r.image
                        ),
                    ));
                };
                let (name, pkg, version) =
                    package_of(&bundles[i]).map_err(|e| TemplateError::new(file, r.line, e))?;
                match &package {
                    Some(p) if *p != pkg => {
                        return Err(TemplateError::new(
                            file,
                            r.line,
                            format!(
                                "bundle {pkg:?} does not belong to this package: {p:?} (image {:?} is bundle {name:?} of package {pkg:?})",
                                r.image
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => package = Some(pkg),
                }
                if versions[m].iter().any(|(n, _)| *n == name) {
                    return Err(TemplateError::new(
                        file,
                        r.line,
                        format!("duplicate bundle name {name:?}"),
                    ));
                }
                versions[m].push((name, version));
                lines.push(r.line);
            }
            build_metadata_conflicts(&versions[m], &lines)
                .map_err(|(line, e)| TemplateError::new(file, line, e))?;
        }
        let package = package.unwrap_or_default();

        let (channels, default_channel) = self.channels(&versions);

        let mut pkg = Map::new();
        pkg.insert("schema".into(), Value::String(schema::PACKAGE.into()));
        pkg.insert("name".into(), Value::String(package.clone()));
        pkg.insert(
            "defaultChannel".into(),
            Value::String(default_channel.clone()),
        );
        let mut notes = Vec::new();
        if let Some(head) = channels
            .get(&default_channel)
            .and_then(|c| c.last())
            .map(|e| e.name.clone())
            && let Some(b) = bundles
                .iter()
                .find(|b| b.get("name").and_then(Value::as_str) == Some(head.as_str()))
        {
            package_metadata(b, &package, source, &mut pkg, &mut notes);
        }

        let mut blobs = vec![Value::Object(pkg)];
        for (name, entries) in &channels {
            let mut c = Map::new();
            c.insert("schema".into(), Value::String(schema::CHANNEL.into()));
            c.insert("name".into(), Value::String(name.clone()));
            c.insert("package".into(), Value::String(package.clone()));
            let list = entries
                .iter()
                .map(|e| {
                    let mut o = Map::new();
                    o.insert("name".into(), Value::String(e.name.clone()));
                    if !e.replaces.is_empty() {
                        o.insert("replaces".into(), Value::String(e.replaces.clone()));
                    }
                    if !e.skips.is_empty() {
                        o.insert(
                            "skips".into(),
                            Value::Array(e.skips.iter().cloned().map(Value::String).collect()),
                        );
                    }
                    Value::Object(o)
                })
                .collect();
            c.insert("entries".into(), Value::Array(list));
            blobs.push(Value::Object(c));
        }
        blobs.extend(bundles);
        Ok(Rendered { blobs, notes })
    }

    /// Generates the channels (by name) with their linked entries, and the default channel.
    pub fn channels(
        &self,
        versions: &[Vec<(String, Version)>; 3],
    ) -> (BTreeMap<String, Vec<ChannelEntry>>, String) {
        let mut channels: BTreeMap<String, Vec<ChannelEntry>> = BTreeMap::new();
        let mut tuples: Vec<Tuple> = Vec::new();
        let mut best = HighWater {
            maturity: Maturity::Candidate,
            kind: StreamKind::None,
            version: Version {
                major: 0,
                minor: 0,
                patch: 0,
                pre: Vec::new(),
                build: Vec::new(),
            },
            name: String::new(),
        };
        for (m, maturity) in Maturity::ALL.into_iter().enumerate() {
            let mut sorted: Vec<&(String, Version)> = versions[m].iter().collect();
            sorted.sort_by(|a, b| a.1.cmp(&b.1));
            for (name, version) in sorted {
                let mut kinds = Vec::new();
                if self.generate_major {
                    kinds.push((
                        StreamKind::Major,
                        format!("{}-v{}", maturity.as_str(), version.major),
                    ));
                }
                if self.generate_minor {
                    kinds.push((
                        StreamKind::Minor,
                        format!("{}-v{}.{}", maturity.as_str(), version.major, version.minor),
                    ));
                }
                for (kind, channel) in kinds {
                    let entries = channels.entry(channel.clone()).or_insert_with(|| {
                        let candidate = HighWater {
                            maturity,
                            kind,
                            version: version.clone(),
                            name: channel.clone(),
                        };
                        if candidate.beats(&best, self.preference) {
                            best = candidate;
                        }
                        Vec::new()
                    });
                    entries.push(ChannelEntry {
                        name: name.clone(),
                        replaces: String::new(),
                        skips: Vec::new(),
                    });
                    tuples.push(Tuple {
                        maturity,
                        kind,
                        channel,
                        name: name.clone(),
                        version: version.clone(),
                        index: entries.len() - 1,
                    });
                }
            }
        }
        link(&mut channels, tuples);
        (channels, best.name)
    }
}

fn bundle_list(node: &Node, field: &str, problems: &mut Vec<Problem>) -> Vec<BundleRef> {
    let mut out = Vec::new();
    for (_, bundles) in fields(node, field, &["bundles"], problems) {
        let items: &[Node] = match &bundles.kind {
            Kind::Null => &[],
            Kind::Seq(items) => items,
            _ => {
                problems.push(Problem::new(
                    bundles.pos.line,
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
                problems.push(Problem::new(item.pos.line, format!("{what} has no image")));
                continue;
            }
            out.push(BundleRef {
                image: image.to_string(),
                line: item.pos.line,
            });
        }
    }
    out
}

/// A bundle's name, package and version from its single `olm.package` property, with opm's messages.
fn package_of(bundle: &Value) -> Result<(String, String, Version), String> {
    let node = to_node(bundle, false);
    let b = Bundle::read(&node).map_err(|e| format!("parse bundle: {e}"))?;
    let mut packages = Vec::new();
    for p in &b.properties {
        match p.parse() {
            Ok(PropertyValue::Package(v)) => packages.push(v),
            Ok(_) => {}
            Err(e) => return Err(format!("parse properties for bundle {:?}: {e}", b.name)),
        }
    }
    if packages.len() != 1 {
        return Err(format!(
            "bundle {:?} has multiple {:?} properties, expected exactly 1 (it has {})",
            b.name,
            property_type::PACKAGE,
            packages.len()
        ));
    }
    let p = &packages[0];
    let version = Version::parse(p.version).map_err(|e| {
        format!(
            "bundle {:?} has invalid version {:?}: {e}",
            b.name, p.version
        )
    })?;
    Ok((b.name.to_string(), p.package_name.to_string(), version))
}

/// Versions of one list that only differ in build metadata cannot be ordered. Later ones are named;
/// the error is at the line of the first of them.
fn build_metadata_conflicts(
    versions: &[(String, Version)],
    lines: &[u32],
) -> Result<(), (u32, String)> {
    let mut seen: Vec<String> = Vec::new();
    let mut errors = Vec::new();
    let mut at = 0;
    for ((_, v), line) in versions.iter().zip(lines) {
        let mut stripped = v.clone();
        stripped.build.clear();
        let stripped = stripped.to_string();
        if seen.contains(&stripped) {
            if errors.is_empty() {
                at = *line;
            }
            errors.push(format!(
                "bundle version {:?} cannot be compared to {stripped:?}",
                v.to_string()
            ));
        } else {
            seen.push(stripped);
        }
    }
    let what =
        "encountered bundle versions which differ only by build metadata, which cannot be ordered";
    match errors.len() {
        0 => Ok(()),
        1 => Err((at, format!("{what}: {}", errors[0]))),
        _ => Err((at, format!("{what}: [{}]", errors.join(", ")))),
    }
}

/// An entry of a generated channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelEntry {
    pub name: String,
    /// Empty when none.
    pub replaces: String,
    pub skips: Vec<String>,
}

/// An entry placed in a channel, with what linking needs.
struct Tuple {
    maturity: Maturity,
    kind: StreamKind,
    channel: String,
    name: String,
    version: Version,
    index: usize,
}

/// The best default channel so far.
struct HighWater {
    maturity: Maturity,
    kind: StreamKind,
    version: Version,
    name: String,
}

impl HighWater {
    /// More stable maturity first, then higher version, then the preferred kind, then minor over
    /// major.
    fn beats(&self, other: &HighWater, preference: StreamKind) -> bool {
        if self.maturity != other.maturity {
            return self.maturity > other.maturity;
        }
        if self.version != other.version {
            return self.version > other.version;
        }
        if self.kind != other.kind {
            if self.kind == preference {
                return true;
            }
            if other.kind == preference {
                return false;
            }
            return self.kind > other.kind;
        }
        false
    }
}

/// Sets `replaces` and `skips` on the last entry of each minor version stream.
fn link(channels: &mut BTreeMap<String, Vec<ChannelEntry>>, mut tuples: Vec<Tuple>) {
    tuples.sort_by(|a, b| {
        (a.maturity, a.kind)
            .cmp(&(b.maturity, b.kind))
            .then_with(|| a.version.cmp(&b.version))
    });
    let mut set_edges = |t: &Tuple, replaces: &str, seen: &std::collections::BTreeSet<String>| {
        if let Some(e) = channels
            .get_mut(&t.channel)
            .and_then(|c| c.get_mut(t.index))
        {
            e.replaces = replaces.to_string();
            e.skips = seen.iter().filter(|s| *s != replaces).cloned().collect();
        }
    };
    let mut zmax = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for pair in tuples.windows(2) {
        let (prev, cur) = (&pair[0], &pair[1]);
        let stream_changed = prev.maturity != cur.maturity
            || prev.kind != cur.kind
            || prev.version.major != cur.version.major;
        let minor_changed = prev.version.minor != cur.version.minor;
        if stream_changed || minor_changed {
            set_edges(prev, &zmax, &seen);
        }
        if stream_changed {
            seen.clear();
            zmax.clear();
        } else {
            if minor_changed {
                zmax = prev.name.clone();
            }
            seen.insert(prev.name.clone());
        }
    }
    if let [.., prev, last] = tuples.as_slice()
        && prev.maturity == last.maturity
        && prev.kind == last.kind
        && prev.version.major == last.version.major
    {
        set_edges(last, &zmax, &seen);
    }
}

/// The package's description and icon from the head bundle's CSV (opm v1.65.0+). A bundle that
/// carries only `olm.csv.metadata` has the description but no icon; the icon then comes from the
/// package as the source records it, when it does.
fn package_metadata(
    bundle: &Value,
    package: &str,
    source: &dyn BundleSource,
    pkg: &mut Map<String, Value>,
    notes: &mut Vec<String>,
) {
    let name = bundle.get("name").and_then(Value::as_str).unwrap_or("");
    let props = bundle
        .get("properties")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let csv = props
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(property_type::BUNDLE_OBJECT))
        .filter_map(|p| p.get("value")?.get("data")?.as_str())
        .filter_map(decode_object)
        .find(|o| o.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion"));
    if let Some(csv) = csv {
        let Some(spec) = csv.get("spec").filter(|s| s.is_object()) else {
            return;
        };
        if let Some(Value::String(d)) = spec.get("description")
            && !d.is_empty()
        {
            pkg.insert("description".into(), Value::String(d.clone()));
        }
        if let Some(icon) = csv_icon(spec) {
            pkg.insert("icon".into(), icon);
        }
        return;
    }
    let metadata = props
        .iter()
        .find(|p| p.get("type").and_then(Value::as_str) == Some(property_type::CSV_METADATA))
        .and_then(|p| p.get("value"));
    let Some(metadata) = metadata else {
        return;
    };
    if let Some(Value::String(d)) = metadata.get("description")
        && !d.is_empty()
    {
        pkg.insert("description".into(), Value::String(d.clone()));
    }
    match source.package_icon(package) {
        Some((icon, at)) => {
            pkg.insert("icon".into(), icon);
            notes.push(format!(
                "the head bundle {name:?} of the default channel carries olm.csv.metadata, which holds no icon; the package icon is the one recorded at {at}"
            ));
        }
        None => notes.push(format!(
            "the head bundle {name:?} of the default channel carries olm.csv.metadata, which holds no icon; the package gets none (opm, reading the bundle image, would copy the CSV's icon if it has one)"
        )),
    }
}

/// The first icon of a CSV spec as opm copies it: `{base64data, mediatype}`, the data re-encoded.
/// A malformed icon list gives no icon, as in opm.
fn csv_icon(spec: &Value) -> Option<Value> {
    let icons = spec.get("icon")?;
    if icons.is_null() {
        return None;
    }
    let list = icons.as_array()?;
    let mut parsed = Vec::with_capacity(list.len());
    for i in list {
        if i.is_null() {
            parsed.push((Value::Null, String::new()));
            continue;
        }
        let obj = i.as_object()?;
        let field = |k: &str| {
            obj.iter()
                .rev()
                .find(|(key, _)| key.eq_ignore_ascii_case(k))
                .map(|(_, v)| v)
        };
        let data = match field("base64data") {
            None | Some(Value::Null) => Value::Null,
            Some(Value::String(s)) => Value::String(canonical::base64_bytes(s).ok()?),
            Some(_) => return None,
        };
        let media = match field("mediatype") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return None,
        };
        parsed.push((data, media));
    }
    let (data, media) = parsed.into_iter().next()?;
    let mut icon = Map::new();
    icon.insert("base64data".into(), data);
    icon.insert("mediatype".into(), Value::String(media));
    Some(Value::Object(icon))
}

/// An `olm.bundle.object` payload (base64 of a JSON or YAML manifest) as JSON.
fn decode_object(data: &str) -> Option<Value> {
    use base64::Engine as _;
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut diags = Vec::new();
    let docs = crate::catalog::decode::decode(&text, 0, "manifest", &mut diags);
    let mut node = docs.into_iter().next()?.node;
    super::inline_strings(&mut node, &text);
    Some(super::to_value(&node))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;
    use serde_json::json;

    /// Bundles `<pkg>.v<version>` with image `img:<version>`.
    struct Versions {
        package: &'static str,
        csv: Option<Value>,
        icon: Option<Value>,
    }

    impl BundleSource for Versions {
        fn bundle_for_image(
            &self,
            image: &str,
        ) -> Option<Result<Value, super::super::ResolveError>> {
            let v = image.strip_prefix("img:")?;
            let (pkg, v) = match v.split_once('/') {
                Some((p, v)) => (p, v),
                None => (self.package, v),
            };
            let mut props =
                vec![json!({"type": "olm.package", "value": {"packageName": pkg, "version": v}})];
            if let Some(csv) = &self.csv {
                use base64::Engine as _;
                let data = base64::engine::general_purpose::STANDARD.encode(csv.to_string());
                props.push(json!({"type": "olm.bundle.object", "value": {"data": data}}));
            } else {
                props.push(json!({"type": "olm.csv.metadata", "value": {"description": format!("about {v}")}}));
            }
            Some(Ok(
                json!({"schema": "olm.bundle", "name": format!("{pkg}.v{v}"),
                "package": pkg, "image": image, "properties": props}),
            ))
        }
        fn package_icon(&self, _package: &str) -> Option<(Value, String)> {
            self.icon.clone().map(|i| (i, "catalog.yaml:1:1".into()))
        }
        fn describe(&self) -> String {
            "the test's bundles".into()
        }
    }

    fn source() -> Versions {
        Versions {
            package: "p",
            csv: None,
            icon: None,
        }
    }

    fn template(head: &str, lists: &[(&str, &[&str])]) -> String {
        let mut t = format!("schema: olm.semver\n{head}");
        for (m, versions) in lists {
            t.push_str(&format!("{m}:\n  bundles:\n"));
            for v in *versions {
                t.push_str(&format!("  - image: img:{v}\n"));
            }
        }
        t
    }

    fn render(text: &str) -> Result<Rendered, TemplateError> {
        parse("t.yaml", text)?.render(&source())
    }

    /// Channels as `name: entry[>replaces][~skip,skip] ...` and the default channel.
    fn summary(r: &Rendered) -> (Vec<String>, String) {
        let mut out = Vec::new();
        for b in &r.blobs {
            if b["schema"] != "olm.channel" {
                continue;
            }
            let entries: Vec<String> = b["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let mut s = e["name"]
                        .as_str()
                        .unwrap()
                        .trim_start_matches("p.v")
                        .to_string();
                    if let Some(r) = e["replaces"].as_str() {
                        s.push_str(&format!(">{}", r.trim_start_matches("p.v")));
                    }
                    if let Some(sk) = e["skips"].as_array() {
                        let sk: Vec<&str> = sk
                            .iter()
                            .map(|x| x.as_str().unwrap().trim_start_matches("p.v"))
                            .collect();
                        s.push_str(&format!("~{}", sk.join(",")));
                    }
                    s
                })
                .collect();
            out.push(format!(
                "{}: {}",
                b["name"].as_str().unwrap(),
                entries.join(" ")
            ));
        }
        (
            out,
            r.blobs[0]["defaultChannel"].as_str().unwrap().to_string(),
        )
    }

    #[test]
    fn major_mode_worked_example() {
        // semver_test.go TestLinkChannels: stable, major channels, 1.1.0 1.2.1 1.3.1 2.1.0.
        let r = render(&template(
            "generateMajorChannels: true\ngenerateMinorChannels: false\n",
            &[("stable", &["1.1.0", "1.2.1", "1.3.1", "2.1.0"])],
        ))
        .unwrap();
        assert_eq!(
            summary(&r),
            (
                vec![
                    "stable-v1: 1.1.0 1.2.1>1.1.0 1.3.1>1.2.1~1.1.0".to_string(),
                    "stable-v2: 2.1.0".to_string()
                ],
                "stable-v2".to_string()
            )
        );
    }

    #[test]
    fn minor_mode_readme_example() {
        let r = render(&template(
            "",
            &[(
                "candidate",
                &[
                    "0.1.0", "0.1.1", "0.1.2", "0.1.3", "0.2.0", "0.2.1", "0.2.2", "0.3.0",
                ],
            )],
        ))
        .unwrap();
        assert_eq!(
            summary(&r).0,
            vec![
                "candidate-v0.1: 0.1.0 0.1.1 0.1.2 0.1.3~0.1.0,0.1.1,0.1.2",
                "candidate-v0.2: 0.2.0 0.2.1 0.2.2>0.1.3~0.1.0,0.1.1,0.1.2,0.2.0,0.2.1",
                "candidate-v0.3: 0.3.0>0.2.2~0.1.0,0.1.1,0.1.2,0.1.3,0.2.0,0.2.1",
            ]
        );
        assert_eq!(summary(&r).1, "candidate-v0.3");
    }

    #[test]
    fn entries_are_sorted_by_version_and_lists_link_separately() {
        let r = render(&template(
            "generateMajorChannels: true\ngenerateMinorChannels: true\n",
            &[
                ("stable", &["1.0.1", "1.0.0", "1.1.0"]),
                ("candidate", &["1.1.0-rc.1", "1.0.0", "1.1.0-rc.0"]),
            ],
        ))
        .unwrap();
        assert_eq!(
            summary(&r).0,
            vec![
                "candidate-v1: 1.0.0 1.1.0-rc.0 1.1.0-rc.1>1.0.0~1.1.0-rc.0",
                "candidate-v1.0: 1.0.0",
                "candidate-v1.1: 1.1.0-rc.0 1.1.0-rc.1>1.0.0~1.1.0-rc.0",
                "stable-v1: 1.0.0 1.0.1~1.0.0 1.1.0>1.0.1~1.0.0",
                "stable-v1.0: 1.0.0 1.0.1~1.0.0",
                "stable-v1.1: 1.1.0>1.0.1~1.0.0",
            ]
        );
        // Stable beats candidate; same version (1.1.0) so the preferred kind (minor) wins.
        assert_eq!(summary(&r).1, "stable-v1.1");
    }

    #[test]
    fn default_channel_preference() {
        let both = "generateMajorChannels: true\ngenerateMinorChannels: true\n";
        let lists: &[(&str, &[&str])] = &[("fast", &["1.0.0", "2.0.0", "2.3.0"])];
        let pick =
            |extra: &str| summary(&render(&template(&format!("{both}{extra}"), lists)).unwrap()).1;
        assert_eq!(pick(""), "fast-v2.3");
        assert_eq!(pick("defaultChannelTypePreference: minor\n"), "fast-v2.3");
        // fast-v2 was created by 2.0.0, fast-v2.3 by 2.3.0: the higher version wins over the kind.
        assert_eq!(pick("defaultChannelTypePreference: major\n"), "fast-v2.3");
        let lists: &[(&str, &[&str])] = &[("fast", &["2.0.0"])];
        let pick =
            |extra: &str| summary(&render(&template(&format!("{both}{extra}"), lists)).unwrap()).1;
        assert_eq!(pick("defaultChannelTypePreference: major\n"), "fast-v2");
        assert_eq!(pick("defaultChannelTypePreference: minor\n"), "fast-v2.0");
        // Only major channels: the preference defaults to major.
        let r = render(&template(
            "GenerateMajorChannels: true\n",
            &[("stable", &["1.0.0"]), ("candidate", &["3.0.0"])],
        ))
        .unwrap();
        assert_eq!(summary(&r).1, "stable-v1");
    }

    #[test]
    fn a_prerelease_of_zero_creates_no_default_channel() {
        // The high-water mark starts at candidate 0.0.0; 0.0.0-alpha is lower, so opm leaves the
        // default channel empty.
        let r = render(&template("", &[("candidate", &["0.0.0-alpha"])])).unwrap();
        assert_eq!(summary(&r).1, "");
    }

    #[test]
    fn preference_errors_use_opm_words() {
        let e = render(&template(
            "generateMajorChannels: true\ndefaultChannelTypePreference: minor\n",
            &[("stable", &["1.0.0"])],
        ))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:1: schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels"
        );
        let e = render(&template(
            "defaultChannelTypePreference: major\n",
            &[("stable", &["1.0.0"])],
        ))
        .unwrap_err();
        assert!(
            e.to_string().contains(
                "set to 'major' doesn't make sense if not generating major-version channels"
            ),
            "{e}"
        );
        let e = render(&template(
            "defaultChannelTypePreference: Minor\n",
            &[("stable", &["1.0.0"])],
        ))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:1: unknown DefaultChannelTypePreference: \"Minor\"\nValid values are 'major' or 'minor'"
        );
    }

    #[test]
    fn strict_reading() {
        let e = render("Schema: olm.semver\nAvoidSkipPatch: true\nstable:\n  bundles:\n  - image: img:1.0.0\n    foo: 1\n").unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("t.yaml:2: unknown field \"AvoidSkipPatch\""),
            "{text}"
        );
        assert!(
            text.contains("t.yaml:6: unknown field \"foo\" in stable.bundles[0]"),
            "{text}"
        );
        let e = render("schema: olm.semver\nstable: {}\nstable: {}\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("t.yaml:3: key \"stable\" already set in map (first on line 2)"),
            "{e}"
        );
        let e = render("schema: olm.semver\nStable: {}\nstable: {}\n").unwrap_err();
        assert!(e.to_string().contains("are the same field"), "{e}");
        let e = render("schema: olm.semver\ngenerateMinorChannels: \"yes\"\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("t.yaml:2: generateMinorChannels must be true or false, found a string"),
            "{e}"
        );
        let e = render("schema: olm.semver\nstable:\n  bundles:\n  - {}\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("t.yaml:4: stable.bundles[0] has no image"),
            "{e}"
        );
        let e = render("schema: olm.semver\nstable:\n  bundles: 3\n").unwrap_err();
        assert!(
            e.to_string().contains("stable.bundles must be a list"),
            "{e}"
        );
    }

    #[test]
    fn yaml_11_booleans_and_pascal_case_work() {
        let r = render("Schema: olm.semver\nGenerateMajorChannels: yes\nGenerateMinorChannels: no\nStable:\n  Bundles:\n  - Image: img:1.2.3\n").unwrap();
        assert_eq!(summary(&r).0, vec!["stable-v1: 1.2.3"]);
    }

    #[test]
    fn no_bundles() {
        let e = render("schema: olm.semver\nstable:\n  bundles: []\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:1: render: no bundles specified or no bundles could be rendered"
        );
    }

    #[test]
    fn wrong_schema() {
        let t = parse("t.yaml", "schema: olm.semver\n").unwrap();
        let Body::Semver(_) = t.body else { panic!() };
        let node = to_node(&json!({"schema": "olm.semverx"}), false);
        let e = Semver::parse("t.yaml", &node).unwrap_err();
        assert!(
            e.to_string()
                .contains("input file has unknown schema, should be \"olm.semver\""),
            "{e}"
        );
    }

    use super::super::Body;

    #[test]
    fn build_metadata_only_differences_are_refused() {
        let e = render(&template(
            "",
            &[("stable", &["1.0.0+a", "1.0.0+b", "1.1.0"])],
        ))
        .unwrap_err();
        assert!(
            e.to_string().ends_with("encountered bundle versions which differ only by build metadata, which cannot be ordered: bundle version \"1.0.0+b\" cannot be compared to \"1.0.0\""),
            "{e}"
        );
        let e = render(&template(
            "",
            &[("stable", &["1.0.0+a", "1.0.0+b", "1.0.0+c"])],
        ))
        .unwrap_err();
        assert!(e.to_string().contains(": [bundle version \"1.0.0+b\" cannot be compared to \"1.0.0\", bundle version \"1.0.0+c\" cannot be compared to \"1.0.0\"]"), "{e}");
        // The same version in two lists is fine.
        assert!(
            render(&template(
                "",
                &[("stable", &["1.0.0+a"]), ("fast", &["1.0.0+b"])]
            ))
            .is_ok()
        );
    }

    #[test]
    fn wrong_package_duplicate_name_and_bad_version() {
        let e = render(&template("", &[("stable", &["1.0.0", "q/1.1.0"])])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:5: bundle \"q\" does not belong to this package: \"p\" (image \"img:q/1.1.0\" is bundle \"q.v1.1.0\" of package \"q\")"
        );
        let e = render(
            "schema: olm.semver\nstable:\n  bundles:\n  - image: img:1.0.0\n  - image: img:1.0.0\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:5: duplicate bundle name \"p.v1.0.0\""
        );
        let e = render(&template("", &[("stable", &["v1.0.0"])])).unwrap_err();
        assert!(e.to_string().contains("bundle \"p.vv1.0.0\" has invalid version \"v1.0.0\": Invalid character(s) found in major number \"v1\""), "{e}");
    }

    #[test]
    fn unresolvable_images_are_named() {
        let e = render("schema: olm.semver\nstable:\n  bundles:\n  - image: quay.io/x/y:1\n  - image: img:1.0.0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:4: cannot resolve bundle image \"quay.io/x/y:1\": not found in the test's bundles"
        );
    }

    #[test]
    fn description_and_icon_come_from_the_default_channel_head() {
        let t = parse(
            "t.yaml",
            &template(
                "",
                &[("stable", &["1.0.0", "1.1.0"]), ("candidate", &["2.0.0"])],
            ),
        )
        .unwrap();
        // From the CSV: description and first icon (re-encoded without line breaks).
        let csv = json!({"kind": "ClusterServiceVersion", "spec": {"description": "hello",
            "icon": [{"base64data": "aGVs\nbG8=", "mediatype": "image/png"}, {"base64data": "", "mediatype": "x"}]}});
        let src = Versions {
            package: "p",
            csv: Some(csv),
            icon: None,
        };
        let r = t.render(&src).unwrap();
        assert_eq!(
            r.blobs[0],
            json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable-v1.1",
                "icon": {"base64data": "aGVsbG8=", "mediatype": "image/png"}, "description": "hello"})
        );
        assert!(r.notes.is_empty());
        // From olm.csv.metadata: the description of the head (1.1.0), the icon recorded by the source.
        let src = Versions {
            package: "p",
            csv: None,
            icon: Some(json!({"base64data": "eA==", "mediatype": "image/svg+xml"})),
        };
        let r = t.render(&src).unwrap();
        assert_eq!(r.blobs[0]["description"], "about 1.1.0");
        assert_eq!(r.blobs[0]["icon"]["base64data"], "eA==");
        assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
        let r = t.render(&source()).unwrap();
        assert!(r.blobs[0].get("icon").is_none());
        assert!(
            r.notes[0].contains("the package gets none"),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn output_is_the_package_then_channels_then_bundles() {
        let r = render(&template("", &[("stable", &["1.0.0"])])).unwrap();
        let text = r.to_text(crate::catalog::emit::OutFormat::Yaml);
        assert_eq!(
            text,
            "---\ndefaultChannel: stable-v1.0\ndescription: about 1.0.0\nname: p\nschema: olm.package\n---\nentries:\n- name: p.v1.0.0\nname: stable-v1.0\npackage: p\nschema: olm.channel\n---\nimage: img:1.0.0\nname: p.v1.0.0\npackage: p\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n- type: olm.csv.metadata\n  value:\n    description: about 1.0.0\nschema: olm.bundle\n"
        );
    }
}
