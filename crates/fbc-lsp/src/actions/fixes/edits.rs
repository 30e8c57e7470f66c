//! Fixes made by the engine's edits (the same edit and writer as `fbc-edit edit`).

use fbc_core::catalog::Catalog;
use fbc_core::catalog::model::Channel;
use fbc_core::catalog::schema;
use fbc_core::catalog::semver_range::{Range, Version};
use fbc_core::edit::{Edit, Target};
use fbc_core::graph::{Chain, check_chain};
use fbc_core::validate::codes as c;

use super::{Fix, Problem, channel_blob, channels, edit, object, quoted, version_of};

/// FBC030, FBC031: one action per channel.
pub(super) fn default_channel(p: &Problem) -> Vec<Fix> {
    let Some((cat, _, package)) = object(p) else {
        return Vec::new();
    };
    channels(cat, &package)
        .into_iter()
        .map(|channel| {
            edit(
                format!("Make {channel} the default channel"),
                Edit::SetDefaultChannel {
                    package: package.clone(),
                    channel,
                },
            )
        })
        .collect()
}

/// FBC043.
pub(super) fn delete_channel(p: &Problem) -> Vec<Fix> {
    let Some((_, d, package)) = object(p) else {
        return Vec::new();
    };
    let Some(channel) = d.object.channel.clone() else {
        return Vec::new();
    };
    vec![edit(
        format!("Delete channel {channel}"),
        Edit::DeleteChannel { package, channel },
    )]
}

/// FBC029: the entry removed, its neighbours relinked.
pub(super) fn remove_entry(p: &Problem) -> Vec<Fix> {
    let Some((_, d, package)) = object(p) else {
        return Vec::new();
    };
    let (Some(channel), Some(entry)) = (d.object.channel.clone(), d.object.bundle.clone()) else {
        return Vec::new();
    };
    vec![edit(
        format!("Remove {entry} from {channel}"),
        Edit::RemoveEntry {
            package,
            channel,
            entry,
        },
    )]
}

/// FBC028: promoted into each channel, or removed.
pub(super) fn place_bundle(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let Some(bundle) = d.object.bundle.clone() else {
        return Vec::new();
    };
    let mut out: Vec<Fix> = channels(cat, &package)
        .into_iter()
        .map(|channel| {
            edit(
                format!("Promote {bundle} to the head of {channel}"),
                Edit::Promote {
                    package: package.clone(),
                    bundle: bundle.clone(),
                    channel,
                    replaces: None,
                    skips: Vec::new(),
                    skip_range: None,
                },
            )
        })
        .collect();
    out.push(edit(
        format!("Remove bundle {bundle}"),
        Edit::RemoveBundle {
            package,
            bundle,
            relink: false,
        },
    ));
    out
}

/// FBC103: the `replaces` or skip naming a bundle in no channel dropped.
pub(super) fn drop_edge(p: &Problem) -> Vec<Fix> {
    let Some((_, d, package)) = object(p) else {
        return Vec::new();
    };
    let (Some(channel), Some(entry)) = (d.object.channel.clone(), d.object.bundle.clone()) else {
        return Vec::new();
    };
    let Some(target) = quoted(&d.message).into_iter().nth(1) else {
        return Vec::new();
    };
    let head = format!("\"{entry}\" ");
    let Some(rest) = d.message.strip_prefix(&head) else {
        return Vec::new();
    };
    if rest.starts_with("replaces ") {
        vec![edit(
            format!("Drop {entry}'s replaces {target}"),
            Edit::SetReplaces {
                package,
                channel,
                entry,
                replaces: None,
            },
        )]
    } else if rest.starts_with("skips ") {
        vec![edit(
            format!("Drop {target} from {entry}'s skips"),
            Edit::RemoveSkips {
                package,
                channel,
                entry,
                skips: vec![target],
            },
        )]
    } else {
        Vec::new()
    }
}

/// The channel's entry of the highest version below `entry`'s.
pub(super) fn previous(cat: &Catalog, package: &str, ch: &Channel, entry: &str) -> Option<String> {
    let own = version_of(cat, package, entry)?;
    ch.entries
        .iter()
        .filter(|e| e.name != entry)
        .filter_map(|e| Some((version_of(cat, package, e.name)?, e.name)))
        .filter(|(v, _)| *v < own)
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, n)| n.to_string())
}

/// FBC305, FBC306: `replaces` naming the previous entry of the channel.
pub(super) fn replace_previous(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let (Some(channel), Some(entry)) = (d.object.channel.clone(), d.object.bundle.clone()) else {
        return Vec::new();
    };
    let Some((_, ch)) = channel_blob(cat, &package, &channel) else {
        return Vec::new();
    };
    let Some(prev) = previous(cat, &package, &ch, &entry) else {
        return Vec::new();
    };
    vec![edit(
        format!("Make {entry} replace {prev}"),
        Edit::SetReplaces {
            package,
            channel,
            entry,
            replaces: Some(prev),
        },
    )]
}

/// FBC102: the entry covering it by skipRange also skips it, or replaces it.
pub(super) fn link_skip_range_only(p: &Problem) -> Vec<Fix> {
    let Some((_, d, package)) = object(p) else {
        return Vec::new();
    };
    let (Some(channel), Some(entry)) = (d.object.channel.clone(), d.object.bundle.clone()) else {
        return Vec::new();
    };
    let Some(by) = quoted(&d.message).into_iter().nth(1) else {
        return Vec::new();
    };
    vec![
        edit(
            format!("Make {by} skip {entry}"),
            Edit::AddSkips {
                package: package.clone(),
                channel: channel.clone(),
                entry: by.clone(),
                skips: vec![entry.clone()],
            },
        ),
        edit(
            format!("Make {by} replace {entry}"),
            Edit::SetReplaces {
                package,
                channel,
                entry: by,
                replaces: Some(entry),
            },
        ),
    ]
}

/// FBC045: the newest head skips the other heads.
pub(super) fn link_heads(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let Some(channel) = d.object.channel.clone() else {
        return Vec::new();
    };
    let Some((_, ch)) = channel_blob(cat, &package, &channel) else {
        return Vec::new();
    };
    let Chain::MultipleHeads(heads) = check_chain(&ch.entries) else {
        return Vec::new();
    };
    let versions: Option<Vec<(Version, &str)>> = heads
        .iter()
        .map(|h| Some((version_of(cat, &package, h)?, *h)))
        .collect();
    let Some(mut versions) = versions else {
        return Vec::new();
    };
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    if versions.len() < 2 || versions[0].0 == versions[1].0 {
        return Vec::new();
    }
    let newest = versions[0].1.to_string();
    let others: Vec<String> = versions[1..].iter().map(|(_, n)| n.to_string()).collect();
    vec![edit(
        format!("Make {newest} skip {}", others.join(", ")),
        Edit::AddSkips {
            package,
            channel,
            entry: newest,
            skips: others,
        },
    )]
}

/// FBC047: the head skips the stranded entries.
pub(super) fn skip_stranded(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let Some(channel) = d.object.channel.clone() else {
        return Vec::new();
    };
    let Some((_, ch)) = channel_blob(cat, &package, &channel) else {
        return Vec::new();
    };
    let Chain::Stranded { head, stranded, .. } = check_chain(&ch.entries) else {
        return Vec::new();
    };
    let skips: Vec<String> = stranded.iter().map(|s| s.to_string()).collect();
    vec![edit(
        format!("Make {head} skip {}", skips.join(", ")),
        Edit::AddSkips {
            package,
            channel,
            entry: head.to_string(),
            skips,
        },
    )]
}

/// FBC303: the head skips the dangling bundle.
pub(super) fn skip_dangling(p: &Problem) -> Vec<Fix> {
    let Some((cat, d, package)) = object(p) else {
        return Vec::new();
    };
    let (Some(channel), Some(entry)) = (d.object.channel.clone(), d.object.bundle.clone()) else {
        return Vec::new();
    };
    let Some((_, ch)) = channel_blob(cat, &package, &channel) else {
        return Vec::new();
    };
    let head = match check_chain(&ch.entries) {
        Chain::Valid { head, .. } | Chain::Stranded { head, .. } => head.to_string(),
        _ => return Vec::new(),
    };
    if head == entry {
        return Vec::new();
    }
    vec![edit(
        format!("Make {head} skip {entry}"),
        Edit::AddSkips {
            package,
            channel,
            entry: head,
            skips: vec![entry],
        },
    )]
}

/// FBC036–FBC038: the deprecation entry removed (for a repeat, the first listing goes and the
/// repeat stays).
pub(super) fn drop_deprecation(p: &Problem) -> Vec<Fix> {
    let Some((_, d, package)) = object(p) else {
        return Vec::new();
    };
    let target = if d.code == c::DEPRECATED_BUNDLE_MISSING {
        d.object.bundle.clone().map(Target::Bundle)
    } else if d.code == c::DEPRECATED_CHANNEL_MISSING {
        d.object.channel.clone().map(Target::Channel)
    } else {
        // "deprecation of olm.bundle "x" is listed twice"
        let name = quoted(&d.message).into_iter().next();
        let kind = d.message.split(' ').nth(2).unwrap_or("");
        match (kind, name) {
            (schema::BUNDLE, Some(n)) => Some(Target::Bundle(n)),
            (schema::CHANNEL, Some(n)) => Some(Target::Channel(n)),
            _ => None,
        }
    };
    let Some(target) = target else {
        return Vec::new();
    };
    let title = match (&target, d.code == c::DUPLICATE_DEPRECATION_ENTRY) {
        (Target::Bundle(b), false) => format!("Remove the deprecation of bundle {b}"),
        (Target::Channel(ch), false) => format!("Remove the deprecation of channel {ch}"),
        (Target::Bundle(b), true) => format!("Keep one deprecation of bundle {b}"),
        (Target::Channel(ch), true) => format!("Keep one deprecation of channel {ch}"),
        (Target::Package, _) => return Vec::new(),
    };
    vec![edit(title, Edit::Undeprecate { package, target })]
}

/// A range the engine reads, for a skipRange with one of the usual mistakes.
pub(crate) fn mended_range(r: &str) -> Option<String> {
    let mut s = String::new();
    let chars: Vec<char> = r.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let prev_word = i > 0 && chars[i - 1].is_ascii_alphanumeric();
        if matches!(ch, 'v' | 'V') && next_digit && !prev_word {
            continue;
        }
        s.push(if ch == ',' { ' ' } else { ch });
    }
    let s = s.replace("||", " || ");
    let words: Vec<String> = s
        .split_whitespace()
        .map(tilde_caret)
        .collect::<Option<_>>()?;
    let out = words.join(" ");
    (out != r && Range::parse(&out).is_ok()).then_some(out)
}

/// `~1.2.3` and `^1.2.3` written out as their bounds; anything else as it is.
pub(super) fn tilde_caret(w: &str) -> Option<String> {
    let (op, rest) = match w.chars().next() {
        Some(op @ ('~' | '^')) => (op, &w[1..]),
        _ => return Some(w.to_string()),
    };
    let v = Version::parse(rest).ok()?;
    let upper = match op {
        '~' => format!("{}.{}.0", v.major, v.minor + 1),
        _ if v.major > 0 => format!("{}.0.0", v.major + 1),
        _ => format!("0.{}.0", v.minor + 1),
    };
    Some(format!(">={rest} <{upper}"))
}

/// The skipRange of the problem's entry.
pub(super) fn entry_range(p: &Problem) -> Option<(String, String, String, String)> {
    let (cat, d, package) = object(p)?;
    let channel = d.object.channel.clone()?;
    let entry = d.object.bundle.clone()?;
    let (_, ch) = channel_blob(cat, &package, &channel)?;
    let r = ch.entry(&entry)?.skip_range?.to_string();
    Some((package, channel, entry, r))
}

/// FBC051: the range with its mistake mended, when that reads.
pub(super) fn fix_skip_range(p: &Problem) -> Vec<Fix> {
    let Some((package, channel, entry, r)) = entry_range(p) else {
        return Vec::new();
    };
    let Some(range) = mended_range(&r) else {
        return Vec::new();
    };
    vec![edit(
        format!("Set the skipRange of {entry} to {range}"),
        Edit::SetSkipRange {
            package,
            channel,
            entry,
            range: Some(range),
        },
    )]
}

/// FBC101: the upper bound lowered to the entry's own version.
pub(super) fn cap_skip_range(p: &Problem) -> Vec<Fix> {
    let Some((package, channel, entry, r)) = entry_range(p) else {
        return Vec::new();
    };
    let Some((cat, _, _)) = object(p) else {
        return Vec::new();
    };
    let Some(own) = version_of(cat, &package, &entry) else {
        return Vec::new();
    };
    let words: Vec<&str> = r.split_whitespace().collect();
    let range = match words.as_slice() {
        [lower, upper] if lower.starts_with('>') && upper.starts_with('<') => {
            format!("{lower} <{own}")
        }
        [upper] if upper.starts_with('<') => format!("<{own}"),
        _ => return Vec::new(),
    };
    if Range::parse(&range).is_err() || range == r {
        return Vec::new();
    }
    vec![edit(
        format!("Set the skipRange of {entry} to {range}"),
        Edit::SetSkipRange {
            package,
            channel,
            entry,
            range: Some(range),
        },
    )]
}
