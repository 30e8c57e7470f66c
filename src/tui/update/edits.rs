//! Starting guided edits from the tree: the pickers and inputs each edit asks for, and the
//! confirmation that says what it will do and which problems it introduces.

use crate::edit::{Edit, Target};
use crate::graph::channel::{ChannelGraph, PackageFacts};
use crate::tui::keymap::Command;
use crate::tui::model::*;
use crate::tui::tree::*;

/// The dialog that states an edit and the problems it would introduce.
pub(crate) fn confirm(l: &mut Loaded, edit: Edit) -> Result<Dialog, String> {
    let introduced =
        l.ws.check(&edit)
            .map_err(|e| format!("cannot {}: {e}", edit.describe()))?;
    let mut lines = vec![format!("{}?", capitalise(&edit.describe())), String::new()];
    if let Edit::SetSkipRange {
        range: Some(r),
        entry,
        ..
    } = &edit
        && let Some((g, _)) = &l.graph
        && let Ok(range) = crate::catalog::semver_range::Range::parse(r)
    {
        let effect = crate::graph::query::range_effect(g, &range, g.node(entry));
        let names = |ns: &[petgraph::graph::NodeIndex]| -> String {
            ns.iter()
                .map(|&n| g.graph[n].name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        lines.push(format!(
            "matches {}: {}",
            effect.matched.len(),
            names(&effect.matched)
        ));
        lines.push(format!(
            "of those, OLM v0 prunes {}: {}",
            effect.pruned.len(),
            names(&effect.pruned)
        ));
        lines.push(String::new());
    }
    if introduced.is_empty() {
        lines.push("The catalog stays valid.".into());
    } else {
        lines.push(format!(
            "This leaves the catalog invalid ({} new problem{}):",
            introduced.len(),
            if introduced.len() == 1 { "" } else { "s" }
        ));
        lines.extend(
            introduced
                .iter()
                .map(|d| format!("  [{}] {}", d.code, d.message)),
        );
    }
    Ok(Dialog::Confirm {
        edit,
        lines,
        invalid: !introduced.is_empty(),
    })
}

/// The first letter upper-cased when the text starts with a plain word (`set …` → `Set …`), not
/// when it starts with a name (`cloud-native-postgresql.v1 in stable also skips …` stays).
pub(crate) fn capitalise(s: &str) -> String {
    let first_word = s.split(' ').next().unwrap_or("");
    if !first_word.chars().all(|c| c.is_ascii_lowercase()) {
        return s.to_string();
    }
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// Why nothing on screen can be edited, when it cannot (an image).
fn read_only_refusal(m: &Model) -> Option<String> {
    m.image.as_ref().map(|i| i.banner())
}

/// An edit key: undo, redo and write act at once; the others open the dialog that asks for what
/// the edit needs.
pub(crate) fn edit_command(m: &mut Model, command: Command) -> Vec<Effect> {
    if let Some(why) = read_only_refusal(m) {
        m.status = Some(why);
        return Vec::new();
    }
    match command {
        Command::Undo => {
            m.status = Some(match m.undo() {
                Some(what) => format!("undone: {what}"),
                None => "nothing to undo".into(),
            });
            return Vec::new();
        }
        Command::Redo => {
            m.status = Some(redo(m));
            return Vec::new();
        }
        Command::Write => {
            if m.loaded().is_some_and(|l| l.ws.is_dirty()) {
                m.status = Some("working out the changes…".into());
                return vec![Effect::Preview];
            }
            m.status = Some("nothing to write".into());
            return Vec::new();
        }
        _ => {}
    }
    let Some(l) = m.loaded_mut() else {
        return Vec::new();
    };
    let sel = l.selected().to_vec();
    let result = if l.is_ghost(&sel) {
        Err(format!(
            "{} was removed from {} by the change under review: there is nothing to edit",
            sel[2], sel[1]
        ))
    } else {
        edit_dialog(l, command, &sel)
    };
    match result {
        Ok(d) => m.dialog = Some(d),
        Err(msg) => m.status = Some(msg),
    }
    Vec::new()
}

fn redo(m: &mut Model) -> String {
    let Some(l) = m.loaded_mut() else {
        return "nothing to redo".into();
    };
    let package = l.ws.redo_package().map(str::to_string);
    let said = match l.ws.redo() {
        Some(Ok(what)) => format!("redone: {what}"),
        Some(Err(e)) => format!("cannot redo: {e}"),
        None => "nothing to redo".into(),
    };
    if let Some(p) = package {
        l.refresh_package(&p);
    }
    said
}

/// The dialog an edit key opens on the selected path (package, channel, entry), or why it cannot.
fn edit_dialog(l: &mut Loaded, command: Command, sel: &[String]) -> Result<Dialog, String> {
    let need = |what: &str| Err(format!("select {what} first"));
    let input = |title: String, then: InputFor| {
        Ok(Dialog::Input {
            title,
            text: String::new(),
            then,
        })
    };
    match (command, sel) {
        (Command::Promote, [p, _, e]) => pick_channel_to_promote_into(l, p, e),
        (Command::Promote, [p, c]) => pick_bundle_to_promote(l, p, c),
        (Command::DefaultChannel, [p, c, ..]) => confirm(
            l,
            Edit::SetDefaultChannel {
                package: p.clone(),
                channel: c.clone(),
            },
        ),
        (Command::RemoveEntry, [p, c, e]) => confirm(
            l,
            Edit::RemoveEntry {
                package: p.clone(),
                channel: c.clone(),
                entry: e.clone(),
            },
        ),
        (Command::SkipRange, [p, c, e]) => Ok(skip_range_input(l, p, c, e)),
        (Command::Skips, [p, c, e]) => input(
            format!("entries {e} also skips (comma-separated)"),
            InputFor::Skips {
                package: p.clone(),
                channel: c.clone(),
                entry: e.clone(),
            },
        ),
        (Command::Deprecate, [p, rest @ ..]) => input(
            "deprecation message (why, and what to use instead)".into(),
            InputFor::Deprecate {
                package: p.clone(),
                target: match rest {
                    [c] => Target::Channel(c.clone()),
                    [_, e] => Target::Bundle(e.clone()),
                    _ => Target::Package,
                },
            },
        ),
        (Command::CreateChannel, [p, rest @ ..]) => {
            let bundle = match rest {
                [_, e] => Some(e.clone()),
                _ => l
                    .graph
                    .as_ref()
                    .and_then(|(g, _)| g.chain.head().map(String::from)),
            };
            let Some(b) = bundle else {
                return need("an entry");
            };
            input(
                format!("name of the new channel of {p} (first entry: {b})"),
                InputFor::CreateChannel {
                    package: p.clone(),
                    bundle: b,
                },
            )
        }
        (Command::AddBundle, _) => input(
            "bundle directory to add (manifests/ and metadata/; Tab completes)".into(),
            InputFor::AddBundleDir,
        ),
        (Command::Promote | Command::DefaultChannel, _) => need("a channel"),
        (Command::RemoveEntry | Command::SkipRange | Command::Skips, _) => need("an entry"),
        _ => need("something"),
    }
}

/// Promote the selected entry: the channels of its package it is not in yet.
fn pick_channel_to_promote_into(l: &Loaded, p: &str, e: &str) -> Result<Dialog, String> {
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
    Ok(Dialog::PickChannel {
        package: p.to_string(),
        bundle: e.to_string(),
        picker: Picker::new(options),
    })
}

/// Promote into the selected channel: the bundles of its package not in it yet, newest first.
fn pick_bundle_to_promote(l: &Loaded, p: &str, c: &str) -> Result<Dialog, String> {
    let in_channel: Vec<String> = l
        .graph
        .as_ref()
        .map(|(g, _)| g.graph.node_weights().map(|n| n.name.clone()).collect())
        .unwrap_or_default();
    let catalog = l.ws.catalog();
    let mut options: Vec<(Option<crate::catalog::semver_range::Version>, String)> = catalog
        .index()
        .package(p)
        .map(|idx| {
            let facts = PackageFacts::read(catalog, idx);
            idx.bundles
                .iter()
                .map(|&id| catalog.blob(id).name().to_string())
                .filter(|n| !in_channel.contains(n))
                .map(|n| (facts.versions.get(&n).cloned(), n))
                .collect()
        })
        .unwrap_or_default();
    options.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    options.dedup_by(|a, b| a.1 == b.1);
    if options.is_empty() {
        return Err(format!("every bundle of {p} is already in {c}"));
    }
    Ok(Dialog::PickBundle {
        package: p.to_string(),
        channel: c.to_string(),
        picker: Picker::new(options.into_iter().map(|(_, n)| n).collect()),
    })
}

/// The skipRange input, filled with the entry's own range, or one from the channel's oldest
/// version up to the entry's.
fn skip_range_input(l: &Loaded, p: &str, c: &str, e: &str) -> Dialog {
    let graph = l.graph.as_ref().map(|(g, _)| g);
    let current = graph.and_then(|g| g.node(e).and_then(|n| g.skip_ranges.get(&n).cloned()));
    let suggested = current.or_else(|| {
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
        text: suggested.unwrap_or_default(),
        then: InputFor::SkipRange {
            package: p.to_string(),
            channel: c.to_string(),
            entry: e.to_string(),
        },
    }
}

/// After choosing what to promote where: offer a skipRange from the channel's oldest version up to
/// the bundle's.
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
            "skipRange for {} in {channel} ({how}; clear the text for none)",
            bundle.name()
        ),
        text: suggested.unwrap_or_default(),
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
