//! Generating the channels of a semver template and linking their entries exactly as opm does,
//! and choosing the default channel (the "high-water mark").

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Maturity, Semver, StreamKind, Versions};
use crate::catalog::schema;
use crate::catalog::semver_range::Version;
use crate::template::opm::Linking;

impl Semver {
    /// Generates the channels (by name) with their entries linked as `linking` says, and the
    /// default channel.
    pub fn channels(
        &self,
        versions: &Versions,
        linking: Linking,
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
        match linking {
            Linking::EdgeScoped => link(&mut channels, tuples),
            Linking::ChannelSkipsReplaced => link_within_channels(&mut channels, &tuples, true),
            Linking::ChannelReplacesOnly => link_within_channels(&mut channels, &tuples, false),
        }
        (channels, best.name)
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

/// The channel-scoped linking of opm v1.37–v1.60: each channel on its own, its entries (in
/// ascending version order) taken in runs of one major and minor version. The last entry of each
/// run replaces the last entry of the run before it (and, with `skip_replaced`, skips it first),
/// then skips the run's other entries in ascending order. Nothing links across channels.
fn link_within_channels(
    channels: &mut BTreeMap<String, Vec<ChannelEntry>>,
    tuples: &[Tuple],
    skip_replaced: bool,
) {
    for (name, entries) in channels.iter_mut() {
        let mut versions: Vec<Option<&Version>> = vec![None; entries.len()];
        for t in tuples.iter().filter(|t| t.channel == *name) {
            if let Some(v) = versions.get_mut(t.index) {
                *v = Some(&t.version);
            }
        }
        let stream = |i: usize| versions[i].map(|v| (v.major, v.minor));
        let mut previous_head: Option<String> = None;
        let mut start = 0;
        while start < entries.len() {
            let mut end = start + 1;
            while end < entries.len() && stream(end) == stream(start) {
                end += 1;
            }
            let head = end - 1;
            let mut skips = Vec::new();
            let mut replaces = String::new();
            if let Some(p) = previous_head.take() {
                if skip_replaced {
                    skips.push(p.clone());
                }
                replaces = p;
            }
            skips.extend(entries[start..head].iter().map(|e| e.name.clone()));
            let e = &mut entries[head];
            e.replaces = replaces;
            e.skips = skips;
            previous_head = Some(e.name.clone());
            start = end;
        }
    }
}

/// The `olm.channel` blob of a generated channel.
pub(super) fn channel_blob(name: &str, package: &str, entries: &[ChannelEntry]) -> Value {
    let mut c = Map::new();
    c.insert("schema".into(), Value::String(schema::CHANNEL.into()));
    c.insert("name".into(), Value::String(name.to_string()));
    c.insert("package".into(), Value::String(package.to_string()));
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
    Value::Object(c)
}
