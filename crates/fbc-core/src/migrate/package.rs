//! Building one migrated package: its CSVs checked, its channels, the bundles in them rendered,
//! and the package blob with the default channel head's icon and description.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::catalog::Diagnostic;
use crate::catalog::emit::write_fbc;

use super::bundles::build_bundles;
use super::channels::{build_channel, replaces_chain, replaces_cycles};
use super::codes;
use super::packages::PackageDir;
use super::read::{Csv, Dir, Manifest};
use super::{ChannelSummary, MigratedPackage, Options};

/// Builds one package: its CSVs checked, its channels, the bundles in them rendered, and the package
/// blob. Problems go to `diags`; `None` when the package has no name.
pub(super) fn build_package(
    p: &PackageDir,
    opts: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Option<MigratedPackage> {
    let m = &p.manifest;
    let package = m.name.as_str();
    let start = diags.len();
    let csvs = collect_csvs(p, diags);
    check_replaces(m, &csvs, diags);
    let default = default_channel(m, diags);
    let channels = build_channels(m, &csvs, diags);
    report_left_out(m, &csvs, &channels, diags);
    let bundles = build_bundles(p, &csvs, &channels.kept, &default, opts, diags);
    let pkg = package_blob(m, &csvs, &default, diags);
    for d in &mut diags[start..] {
        if d.object.package.is_none() && !package.is_empty() {
            d.object.package = Some(package.to_string());
        }
    }
    if package.is_empty() {
        return None;
    }
    let mut blobs = vec![pkg];
    let mut summaries = Vec::new();
    for (s, b) in channels.built {
        summaries.push(s);
        blobs.push(b);
    }
    let mut bundle_names: Vec<String> = bundles
        .iter()
        .filter_map(|b| b.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    bundle_names.sort();
    blobs.extend(bundles);
    let text = write_fbc(&blobs, opts.format);
    Some(MigratedPackage {
        name: package.to_string(),
        dir: p.rel.trim_end_matches('/').to_string(),
        default_channel: default,
        channels: summaries,
        bundles: bundle_names,
        blobs,
        text,
    })
}

/// The package's CSVs by name; a second CSV with a name already seen is reported and left out.
fn collect_csvs(p: &PackageDir, diags: &mut Vec<Diagnostic>) -> BTreeMap<String, Csv> {
    let mut csvs: BTreeMap<String, Csv> = BTreeMap::new();
    for c in p.dirs.iter().flat_map(Dir::csvs) {
        if c.name.is_empty() {
            continue; // reported by the bundle checks
        }
        if let Some(first) = csvs.get(&c.name) {
            diags.push(
                Diagnostic::error(
                    codes::DUPLICATE_CSV,
                    c.loc.clone(),
                    format!(
                        "a second ClusterServiceVersion named {}; the first is in {}",
                        c.name, first.file
                    ),
                )
                .with_related([first.loc.clone()])
                .for_bundle(&c.name),
            );
            continue;
        }
        csvs.insert(c.name.clone(), c.clone());
    }
    csvs
}

/// Replaced CSVs exist, and replaces chains end: checked along the chains the channels follow from
/// their currentCSV, as opm's loader did; the replaces of a CSV no chain reaches is never read (such
/// a CSV is left out, or kept with its skipRange only when something skips it).
fn check_replaces(m: &Manifest, csvs: &BTreeMap<String, Csv>, diags: &mut Vec<Diagnostic>) {
    let package = &m.name;
    let followed: BTreeSet<String> = m
        .channels
        .iter()
        .flat_map(|decl| replaces_chain(&decl.current, csvs))
        .collect();
    for c in csvs.values().filter(|c| followed.contains(&c.name)) {
        if let Some(r) = &c.replaces
            && !csvs.contains_key(r)
        {
            diags.push(
                Diagnostic::error(
                    codes::REPLACES_MISSING,
                    c.replaces_loc.clone(),
                    format!(
                        "{} replaces {r}, which is not a ClusterServiceVersion of package {package:?}",
                        c.name
                    ),
                )
                .with_hint("fix the name, add that version's directory, or remove spec.replaces if this is the first version")
                .for_bundle(&c.name),
            );
        }
    }
    for cycle in replaces_cycles(csvs)
        .into_iter()
        .filter(|c| followed.contains(&c[0]))
    {
        let first = &csvs[&cycle[0]];
        let mut path = cycle.clone();
        path.push(cycle[0].clone());
        diags.push(
            Diagnostic::error(
                codes::CYCLE,
                first.replaces_loc.clone(),
                format!("spec.replaces forms a cycle: {}", path.join(" -> ")),
            )
            .with_related(cycle[1..].iter().map(|n| csvs[n].replaces_loc.clone()))
            .for_bundle(&first.name),
        );
    }
}

/// The default channel as opm's loader decided it: the manifest's, or the only channel.
fn default_channel(m: &Manifest, diags: &mut Vec<Diagnostic>) -> String {
    match (&m.default, m.channels.as_slice()) {
        (Some((d, loc)), [only]) if &only.name != d => {
            diags.push(
                Diagnostic::warning(
                    codes::DEFAULT_CHANNEL_SINGLE,
                    loc.clone(),
                    format!(
                        "defaultChannel {d:?} is not a channel; the only channel, {}, is the default (as opm's loader made it)",
                        only.name
                    ),
                )
                .with_hint(format!("write defaultChannel: {}", only.name)),
            );
            only.name.clone()
        }
        (Some((d, loc)), _) => {
            if !m.channels.is_empty() && !m.channels.iter().any(|c| &c.name == d) {
                let names: Vec<&str> = m.channels.iter().map(|c| c.name.as_str()).collect();
                diags.push(Diagnostic::error(
                    codes::DEFAULT_CHANNEL,
                    loc.clone(),
                    format!(
                        "defaultChannel {d:?} is not one of the channels ({})",
                        names.join(", ")
                    ),
                ));
            }
            d.clone()
        }
        (None, [only]) => only.name.clone(),
        (None, []) => String::new(),
        (None, _) => {
            diags.push(
                Diagnostic::error(
                    codes::DEFAULT_CHANNEL,
                    m.name_loc.clone(),
                    "no defaultChannel, and there are several channels",
                )
                .with_hint("add defaultChannel: <the channel users subscribe to by default>"),
            );
            String::new()
        }
    }
}

/// The package's channels as built, and where each CSV ended up.
struct Channels {
    /// Each channel's summary and blob, in manifest order.
    built: Vec<(ChannelSummary, Value)>,
    /// CSV name → the channels that keep it.
    kept: BTreeMap<String, Vec<String>>,
    /// CSV name → the channels that reached but left it out, with the skipped CSV where the chain
    /// stopped.
    left_out: BTreeMap<String, Vec<(String, Option<String>)>>,
}

fn build_channels(
    m: &Manifest,
    csvs: &BTreeMap<String, Csv>,
    diags: &mut Vec<Diagnostic>,
) -> Channels {
    let mut out = Channels {
        built: Vec::new(),
        kept: BTreeMap::new(),
        left_out: BTreeMap::new(),
    };
    for decl in &m.channels {
        if decl.current.is_empty() {
            continue;
        }
        if !csvs.contains_key(&decl.current) {
            diags.push(
                Diagnostic::error(
                    codes::CURRENT_CSV,
                    decl.current_loc.clone(),
                    format!(
                        "the currentCSV of channel {:?}, {}, is not a ClusterServiceVersion of the package",
                        decl.name, decl.current
                    ),
                )
                .with_hint(format!(
                    "the package's CSVs: {}",
                    csvs.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
                .in_channel(&decl.name),
            );
            continue;
        }
        let built = build_channel(&decl.current, csvs);
        for n in &built.names {
            out.kept
                .entry(n.clone())
                .or_default()
                .push(decl.name.clone());
        }
        for (n, stop) in built.dropped {
            out.left_out
                .entry(n)
                .or_default()
                .push((decl.name.clone(), stop));
        }
        let mut blob = Map::new();
        blob.insert("schema".into(), Value::from("olm.channel"));
        blob.insert("name".into(), Value::from(decl.name.clone()));
        blob.insert("package".into(), Value::from(m.name.as_str()));
        blob.insert("entries".into(), Value::Array(built.entries));
        out.built.push((
            ChannelSummary {
                name: decl.name.clone(),
                head: decl.current.clone(),
                entries: built.names,
            },
            Value::Object(blob),
        ));
    }
    out
}

/// Reports the CSVs a channel leaves out (OLM would strand them) and those no channel reaches.
fn report_left_out(
    m: &Manifest,
    csvs: &BTreeMap<String, Csv>,
    channels: &Channels,
    diags: &mut Vec<Diagnostic>,
) {
    for c in csvs.values() {
        let kept = channels.kept.get(&c.name);
        if let Some(drops) = channels.left_out.get(&c.name) {
            diags.push(stranded(c, csvs, drops, kept));
        } else if kept.is_none() && !m.channels.is_empty() {
            diags.push(
                Diagnostic::warning(
                    codes::NOT_IN_CHANNEL,
                    c.loc.clone(),
                    format!(
                        "{} is in no channel: no currentCSV reaches it through spec.replaces or spec.skips; it is left out of the catalog",
                        c.name
                    ),
                )
                .with_hint("make a channel's currentCSV replace or skip it, or make it a channel's currentCSV")
                .for_bundle(&c.name),
            );
        }
    }
}

/// The warning for a CSV left out of channels (`drops`) because OLM would strand it there.
fn stranded(
    c: &Csv,
    csvs: &BTreeMap<String, Csv>,
    drops: &[(String, Option<String>)],
    kept: Option<&Vec<String>>,
) -> Diagnostic {
    let chans: Vec<&str> = drops.iter().map(|(ch, _)| ch.as_str()).collect();
    let stops: BTreeSet<&str> = drops.iter().filter_map(|(_, s)| s.as_deref()).collect();
    let skippers: Vec<&Csv> = csvs
        .values()
        .filter(|s| s.skips.iter().any(|x| stops.contains(x.as_str())))
        .collect();
    let why = if stops.is_empty() {
        "nothing that OLM follows reaches it once the edges of skipped CSVs are ignored".to_string()
    } else {
        format!(
            "the replaces chain from the head reaches it only through {}, which {} skip{}; OLM ignores the upgrade edges of a skipped bundle, so it would be stranded (opm validate rejects such a channel)",
            stops.iter().copied().collect::<Vec<_>>().join(", "),
            skippers
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if skippers.len() == 1 { "s" } else { "" }
        )
    };
    let whole = match kept {
        None => ", and so out of the catalog".to_string(),
        Some(k) => format!(" (it stays in {})", k.join(", ")),
    };
    Diagnostic::warning(
        codes::STRANDED,
        c.loc.clone(),
        format!(
            "{} is left out of channel{} {}{whole}: {why}",
            c.name,
            if chans.len() == 1 { "" } else { "s" },
            chans.join(", ")
        ),
    )
    .with_related(skippers.iter().map(|s| s.skips_loc.clone()))
    .with_hint(
        "to keep it, list it in the spec.skips of a CSV in the channel, or have a CSV that is not skipped replace it",
    )
    .for_bundle(&c.name)
}

/// The `olm.package` blob: its icon and description come from the default channel's head.
fn package_blob(
    m: &Manifest,
    csvs: &BTreeMap<String, Csv>,
    default: &str,
    diags: &mut Vec<Diagnostic>,
) -> Value {
    let mut pkg = Map::new();
    pkg.insert("schema".into(), Value::from("olm.package"));
    pkg.insert("name".into(), Value::from(m.name.as_str()));
    pkg.insert("defaultChannel".into(), Value::from(default));
    let head = m
        .channels
        .iter()
        .find(|c| c.name == default)
        .and_then(|c| csvs.get(&c.current));
    if let Some(head) = head {
        if let Some(icon) = head_icon(head, diags) {
            pkg.insert("icon".into(), icon);
        }
        if let Some(d) = head
            .value
            .pointer("/spec/description")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
        {
            pkg.insert("description".into(), Value::from(d));
        }
    }
    Value::Object(pkg)
}

/// The first icon of the head CSV as opm's loader decoded it: field names in any case, the data
/// decoded as Go decodes base64 and encoded again.
fn head_icon(head: &Csv, diags: &mut Vec<Diagnostic>) -> Option<Value> {
    let icon = head
        .value
        .pointer("/spec/icon/0")
        .filter(|i| i.is_object())?;
    let field = |k: &str| {
        icon.as_object()
            .into_iter()
            .flatten()
            .rev()
            .find(|(key, _)| key.eq_ignore_ascii_case(k))
            .and_then(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let (data, media) = (field("base64data"), field("mediatype"));
    match crate::text::go_base64::decode(data)
        .map_err(|at| format!("illegal base64 data at input byte {at}"))
    {
        Ok(bytes) if !bytes.is_empty() => {
            let mut i = Map::new();
            i.insert(
                "base64data".into(),
                Value::from(base64::engine::general_purpose::STANDARD.encode(bytes)),
            );
            i.insert("mediatype".into(), Value::from(media));
            Some(Value::Object(i))
        }
        Ok(_) => None,
        Err(e) => {
            diags.push(
                Diagnostic::warning(
                    codes::ICON,
                    head.icon_loc.clone(),
                    format!(
                        "the icon of {} (the default channel's head) is not base64 data ({e}); the package gets no icon",
                        head.name
                    ),
                )
                .for_bundle(&head.name),
            );
            None
        }
    }
}
