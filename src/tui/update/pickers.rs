//! The pickers and inputs the guided edits ask with: what to promote where, which entries to skip or
//! unskip, what an entry replaces, and the skipRange. Options the edit would refuse are greyed out
//! with the library's reason, and a picker with nothing to choose is not opened at all.

use crate::tui::model::{Dialog, InputFor, LineInput, Model, PickFor, Promotee, REPLACES_NOTHING};
use crate::tui::picker::Picker;
use crate::tui::rules::{entry_skips, reason};
use crate::tui::tree::Loaded;
use fbc_core::edit::Edit;
use fbc_core::graph::channel::{ChannelGraph, PackageFacts};

/// Greys out the options for which `edit` is refused, with the reason.
fn grey_refused(picker: Picker, l: &Loaded, edit: impl Fn(&str) -> Edit) -> Picker {
    let cat = l.ws.catalog();
    picker.greying(|o| edit(o).check(cat).err().map(|e| reason(&e)))
}

/// Refuses a picker whose options are all greyed out, naming the first and why.
fn something_to_choose(picker: &Picker, nothing: String) -> Result<(), String> {
    if picker.nothing_to_choose() {
        let first = picker
            .greyed
            .first()
            .map(|(o, why)| format!(" ({o}: {why})"))
            .unwrap_or_default();
        return Err(format!("{nothing}{first}"));
    }
    Ok(())
}

/// The entries of a channel, newest first (none when it does not exist).
pub(crate) fn channel_entries(l: &Loaded, package: &str, channel: &str) -> Vec<String> {
    let from = |g: &ChannelGraph| -> Vec<String> {
        g.newest_first()
            .into_iter()
            .map(|n| g.graph[n].name.clone())
            .collect()
    };
    if let Some((g, _)) = &l.graph
        && g.package == package
        && g.channel == channel
    {
        return from(g);
    }
    let cat = l.ws.catalog();
    cat.index()
        .package(package)
        .and_then(|idx| {
            let facts = PackageFacts::read(cat, idx);
            ChannelGraph::build(cat, &facts, idx.channel(channel)?)
        })
        .map(|g| from(&g))
        .unwrap_or_default()
}

/// Promote the selected entry: the channels of its package it is not in yet, those it cannot go
/// into greyed out.
pub(crate) fn pick_channel_to_promote_into(l: &Loaded, p: &str, e: &str) -> Result<Dialog, String> {
    let catalog = l.ws.catalog();
    let mut options: Vec<String> = catalog
        .index()
        .package(p)
        .map(|idx| {
            let listing: Vec<&str> = idx
                .channels_listing(e)
                .iter()
                .map(|&id| catalog.blob(id).name())
                .collect();
            idx.channels
                .iter()
                .map(|&id| catalog.blob(id).name())
                .filter(|c| !listing.contains(c))
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    options.sort();
    options.dedup();
    if options.is_empty() {
        return Err(format!("{e} is already in every channel of {p}"));
    }
    let picker = grey_refused(Picker::new(options), l, |c| promote(p, e, c));
    something_to_choose(&picker, format!("{e} cannot be promoted into any channel"))?;
    Ok(Dialog::PickChannel {
        package: p.to_string(),
        bundle: e.to_string(),
        picker,
    })
}

/// The channels a rendered bundle can go into; those that would refuse it (not newer than their
/// head) greyed out.
pub(crate) fn grey_new_channels(
    l: &Loaded,
    bundle: &serde_json::Value,
    options: Vec<String>,
) -> Picker {
    grey_refused(Picker::new(options), l, |c| Edit::AddBundle {
        bundle: bundle.clone(),
        channel: c.trim_end_matches(" (new)").to_string(),
        replaces: None,
        skips: Vec::new(),
        skip_range: None,
    })
}

/// Promoting `bundle` into `channel` as its new head, with nothing else said.
fn promote(package: &str, bundle: &str, channel: &str) -> Edit {
    Edit::Promote {
        package: package.to_string(),
        bundle: bundle.to_string(),
        channel: channel.to_string(),
        replaces: None,
        skips: Vec::new(),
        skip_range: None,
    }
}

/// Promote into the selected channel: the bundles of its package not in it yet, newest first (by
/// version, then release), those
/// the channel cannot take (not newer than its head) greyed out.
pub(crate) fn pick_bundle_to_promote(l: &Loaded, p: &str, c: &str) -> Result<Dialog, String> {
    let in_channel = channel_entries(l, p, c);
    let catalog = l.ws.catalog();
    let mut options: Vec<(
        Option<fbc_core::catalog::version_release::VersionRelease>,
        String,
    )> = catalog
        .index()
        .package(p)
        .map(|idx| {
            let facts = PackageFacts::read(catalog, idx);
            idx.bundles
                .iter()
                .map(|&id| catalog.blob(id).name().to_string())
                .filter(|n| !in_channel.contains(n))
                .map(|n| (facts.version_release(&n), n))
                .collect()
        })
        .unwrap_or_default();
    options.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    options.dedup_by(|a, b| a.1 == b.1);
    if options.is_empty() {
        return Err(format!("every bundle of {p} is already in {c}"));
    }
    let options = options.into_iter().map(|(_, n)| n).collect();
    let picker = grey_refused(Picker::new(options), l, |b| promote(p, b, c));
    something_to_choose(
        &picker,
        format!("no bundle of {p} can be promoted into {c}"),
    )?;
    Ok(Dialog::PickBundle {
        package: p.to_string(),
        channel: c.to_string(),
        picker,
    })
}

/// Entries the selected entry also skips: the other entries of its channel, those it skips
/// already greyed out.
pub(crate) fn pick_skips(l: &Loaded, p: String, c: String, e: String) -> Result<Dialog, String> {
    let options: Vec<String> = channel_entries(l, &p, &c)
        .into_iter()
        .filter(|o| *o != e)
        .collect();
    if options.is_empty() {
        return Err(format!(
            "{e} is the only entry of {c}: there is nothing to skip"
        ));
    }
    let picker = grey_refused(Picker::multi(options, false), l, |o| Edit::AddSkips {
        package: p.clone(),
        channel: c.clone(),
        entry: e.clone(),
        skips: vec![o.to_string()],
    });
    something_to_choose(&picker, format!("{e} cannot skip any more entries of {c}"))?;
    Ok(Dialog::Pick {
        title: format!("which entries does {e} also skip?"),
        picker,
        then: PickFor::AddSkips {
            package: p,
            channel: c,
            entry: e,
        },
    })
}

/// Skips the selected entry no longer has: those it has.
pub(crate) fn pick_unskips(l: &Loaded, p: String, c: String, e: String) -> Result<Dialog, String> {
    let skips = entry_skips(l).unwrap_or_default();
    if skips.is_empty() {
        return Err(format!("{e} skips nothing"));
    }
    Ok(Dialog::Pick {
        title: format!("which skips does {e} drop?"),
        picker: Picker::multi(skips, false),
        then: PickFor::RemoveSkips {
            package: p,
            channel: c,
            entry: e,
        },
    })
}

/// What the selected entry replaces: nothing, or another entry of its channel; what it replaces
/// now greyed out.
pub(crate) fn pick_replaces(l: &Loaded, p: String, c: String, e: String) -> Result<Dialog, String> {
    let mut options = vec![REPLACES_NOTHING.to_string()];
    options.extend(channel_entries(l, &p, &c).into_iter().filter(|o| *o != e));
    let picker = grey_refused(Picker::new(options), l, |o| Edit::SetReplaces {
        package: p.clone(),
        channel: c.clone(),
        entry: e.clone(),
        replaces: (o != REPLACES_NOTHING).then(|| o.to_string()),
    });
    something_to_choose(&picker, format!("{e} can replace nothing else in {c}"))?;
    Ok(Dialog::Pick {
        title: format!("{e} replaces which entry?"),
        picker,
        then: PickFor::SetReplaces {
            package: p,
            channel: c,
            entry: e,
        },
    })
}

/// After the skipRange of a promotion: the entries of the channel it skips (any number).
pub(crate) fn pick_promote_skips(
    l: &Loaded,
    package: String,
    channel: String,
    bundle: Promotee,
    range: Option<String>,
) -> Dialog {
    let options = channel_entries(l, &package, &channel);
    Dialog::Pick {
        title: format!("which entries does {} skip? (none is fine)", bundle.name()),
        picker: Picker::multi(options, true),
        then: PickFor::PromoteSkips {
            package,
            channel,
            bundle,
            range,
        },
    }
}

/// Then what it replaces: an entry of the channel, the current head highlighted.
pub(crate) fn pick_promote_replaces(
    l: &Loaded,
    package: String,
    channel: String,
    bundle: Promotee,
    range: Option<String>,
    skips: Vec<String>,
) -> Dialog {
    let options = channel_entries(l, &package, &channel);
    let head =
        l.ws.catalog()
            .index()
            .channel(&package, &channel)
            .and_then(|id| {
                let ch =
                    fbc_core::catalog::model::Channel::read(&l.ws.catalog().blob(id).value).ok()?;
                fbc_core::graph::heads(&ch.entries)
                    .first()
                    .map(|h| h.to_string())
            });
    let picker = Picker::new(options);
    let picker = match &head {
        Some(h) => picker.at(h),
        None => picker,
    };
    Dialog::Pick {
        title: format!(
            "{} replaces which entry? (the head by default)",
            bundle.name()
        ),
        picker,
        then: PickFor::PromoteReplaces {
            package,
            channel,
            bundle,
            range,
            skips,
        },
    }
}

/// The skipRange input, filled with the entry's own range; an entry without one starts empty,
/// offering a range from the channel's oldest version up to the entry's (Tab takes it).
pub(crate) fn skip_range_input(l: &Loaded, p: &str, c: &str, e: &str) -> Dialog {
    let graph = l.graph.as_ref().map(|(g, _)| g);
    let current = graph.and_then(|g| g.node(e).and_then(|n| g.skip_ranges.get(&n).cloned()));
    let suggested = current.is_none().then(|| {
        let g = graph?;
        let own = g.graph[g.node(e)?].version.clone()?;
        let oldest = g
            .graph
            .node_weights()
            .filter_map(|n| n.version.clone())
            .min()?;
        (oldest < own).then(|| format!(">={oldest} <{own}"))
    });
    Dialog::Input {
        title: format!("skipRange of {e} (empty clears it)"),
        text: LineInput::new(current.unwrap_or_default()).with_hint(suggested.flatten()),
        then: InputFor::SkipRange {
            package: p.to_string(),
            channel: c.to_string(),
            entry: e.to_string(),
        },
    }
}

/// After choosing what to promote where: the skipRange, empty (a repository that links with
/// `replaces` wants none), offering one from the channel's oldest version up to the bundle's.
pub(crate) fn promote_range_input(
    m: &Model,
    package: String,
    channel: String,
    bundle: Promotee,
) -> Dialog {
    let suggested = m.loaded().and_then(|l| {
        let cat = l.ws.catalog();
        let idx = cat.index().package(&package)?;
        let facts = PackageFacts::read(cat, idx);
        let g = ChannelGraph::build(cat, &facts, idx.channel(&channel)?)?;
        let oldest = g
            .graph
            .node_weights()
            .filter_map(|n| n.version.clone())
            .min()?;
        let own = bundle.version(l, &package)?;
        (oldest < own).then(|| format!(">={oldest} <{own}"))
    });
    let exists = m
        .loaded()
        .and_then(|l| l.ws.catalog().index().channel(&package, &channel))
        .is_some();
    let how = if exists {
        "it replaces the current head"
    } else {
        "a new channel"
    };
    Dialog::Input {
        title: format!(
            "skipRange for {} in {channel} ({how}; empty for none)",
            bundle.name()
        ),
        text: LineInput::default().with_hint(suggested),
        then: InputFor::PromoteRange {
            package,
            channel,
            bundle,
        },
    }
}

/// The channels offered for a rendered bundle: its package's channels, then the channels its
/// annotations name that do not exist yet, marked `(new)`.
pub(crate) fn channels_for_new(
    l: &Loaded,
    bundle: &serde_json::Value,
    annotated: &[String],
) -> Vec<String> {
    let package = bundle["package"].as_str().unwrap_or("");
    let mut existing: Vec<String> =
        l.ws.catalog()
            .index()
            .package(package)
            .map(|idx| {
                idx.channels
                    .iter()
                    .map(|&id| l.ws.catalog().blob(id).name().to_string())
                    .collect()
            })
            .unwrap_or_default();
    existing.sort();
    existing.dedup();
    let mut options = existing.clone();
    for c in annotated {
        if !existing.contains(c) {
            options.push(format!("{c} (new)"));
        }
    }
    options
}
