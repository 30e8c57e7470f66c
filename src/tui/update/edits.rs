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
    lines.push(String::new());
    lines.push(if introduced.is_empty() {
        "y apply · n cancel".into()
    } else {
        "y apply anyway · n cancel".into()
    });
    Ok(Dialog::Confirm { edit, lines })
}

pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

pub(crate) fn edit_command(m: &mut Model, command: Command) -> Vec<Effect> {
    if let Some(i) = &m.image {
        m.status = Some(i.banner());
        return Vec::new();
    }
    if let Some(t) = &m.template {
        m.status = Some(format!(
            "read-only: this is the rendering of template {}; {} opens the template to edit it, and it is rendered again",
            t.name(),
            m.keymap.first_key_of(Command::Open)
        ));
        return Vec::new();
    }
    let Some(l) = m.loaded_mut() else {
        return Vec::new();
    };
    let sel = l.selected().to_vec();
    if !matches!(command, Command::Undo | Command::Redo | Command::Write) && l.is_ghost(&sel) {
        m.status = Some(format!(
            "{} was removed from {} by the change under review: there is nothing to edit",
            sel[2], sel[1]
        ));
        return Vec::new();
    }
    let need = |what: &str| format!("select {what} first");
    let result: Result<Option<Dialog>, String> = match (command, sel.as_slice()) {
        (Command::Undo, _) => {
            m.status = Some(match m.undo() {
                Some(what) => format!("undone: {what}"),
                None => "nothing to undo".into(),
            });
            return Vec::new();
        }
        (Command::Redo, _) => {
            let package = l.ws.redo_package().map(str::to_string);
            m.status = Some(match l.ws.redo() {
                Some(Ok(what)) => format!("redone: {what}"),
                Some(Err(e)) => format!("cannot redo: {e}"),
                None => "nothing to redo".into(),
            });
            if let Some(l) = m.loaded_mut()
                && let Some(p) = package
            {
                l.refresh_package(&p);
            }
            return Vec::new();
        }
        (Command::Write, _) => {
            if !l.ws.is_dirty() {
                Err("nothing to write".into())
            } else {
                m.status = Some("working out the changes…".into());
                return vec![Effect::Preview];
            }
        }
        (Command::Promote, [p, _, e]) => {
            let idx = l.ws.catalog().index().package(p);
            let options: Vec<String> = idx
                .map(|idx| {
                    let mut names: Vec<String> = idx
                        .channels
                        .iter()
                        .map(|&id| l.ws.catalog().blob(id).name().to_string())
                        .filter(|c| {
                            !idx.channels_listing(e)
                                .iter()
                                .any(|&id| l.ws.catalog().blob(id).name() == c)
                        })
                        .collect();
                    names.sort();
                    names.dedup();
                    names
                })
                .unwrap_or_default();
            if options.is_empty() {
                Err(format!("{e} is already in every channel of {p}"))
            } else {
                Ok(Some(Dialog::PickChannel {
                    package: p.clone(),
                    bundle: e.clone(),
                    picker: Picker::new(options),
                }))
            }
        }
        (Command::Promote, [p, c]) => {
            let in_channel: Vec<String> = l
                .graph
                .as_ref()
                .map(|(g, _)| g.graph.node_weights().map(|n| n.name.clone()).collect())
                .unwrap_or_default();
            let mut options: Vec<(Option<crate::catalog::semver_range::Version>, String)> =
                l.ws.catalog()
                    .index()
                    .package(p)
                    .map(|idx| {
                        let facts = PackageFacts::read(l.ws.catalog(), idx);
                        idx.bundles
                            .iter()
                            .map(|&id| l.ws.catalog().blob(id).name().to_string())
                            .filter(|n| !in_channel.contains(n))
                            .map(|n| (facts.versions.get(&n).cloned(), n))
                            .collect()
                    })
                    .unwrap_or_default();
            // Newest first.
            options.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            options.dedup_by(|a, b| a.1 == b.1);
            if options.is_empty() {
                Err(format!("every bundle of {p} is already in {c}"))
            } else {
                Ok(Some(Dialog::PickBundle {
                    package: p.clone(),
                    channel: c.clone(),
                    picker: Picker::new(options.into_iter().map(|(_, n)| n).collect()),
                }))
            }
        }
        (Command::Promote, _) => Err(need("a channel")),
        (Command::DefaultChannel, [p, c, ..]) => confirm(
            l,
            Edit::SetDefaultChannel {
                package: p.clone(),
                channel: c.clone(),
            },
        )
        .map(Some),
        (Command::DefaultChannel, _) => Err(need("a channel")),
        (Command::RemoveEntry, [p, c, e]) => confirm(
            l,
            Edit::RemoveEntry {
                package: p.clone(),
                channel: c.clone(),
                entry: e.clone(),
            },
        )
        .map(Some),
        (Command::RemoveEntry, _) => Err(need("an entry")),
        (Command::SkipRange, [p, c, e]) => {
            let current = l
                .graph
                .as_ref()
                .and_then(|(g, _)| g.node(e).and_then(|n| g.skip_ranges.get(&n).cloned()));
            let suggested = current.clone().or_else(|| {
                let (g, _) = l.graph.as_ref()?;
                let own = g.graph[g.node(e)?].version.clone()?;
                let oldest = g
                    .graph
                    .node_weights()
                    .filter_map(|n| n.version.clone())
                    .min()?;
                (oldest < own).then(|| format!(">={oldest} <{own}"))
            });
            Ok(Some(Dialog::Input {
                title: format!("skipRange of {e} (empty clears it)"),
                text: suggested.unwrap_or_default(),
                then: InputFor::SkipRange {
                    package: p.clone(),
                    channel: c.clone(),
                    entry: e.clone(),
                },
            }))
        }
        (Command::SkipRange, _) => Err(need("an entry")),
        (Command::Skips, [p, c, e]) => Ok(Some(Dialog::Input {
            title: format!("entries {e} also skips (comma-separated)"),
            text: String::new(),
            then: InputFor::Skips {
                package: p.clone(),
                channel: c.clone(),
                entry: e.clone(),
            },
        })),
        (Command::Skips, _) => Err(need("an entry")),
        (Command::Deprecate, [p, rest @ ..]) => {
            let target = match rest {
                [] => Target::Package,
                [c] => Target::Channel(c.clone()),
                [_, e] => Target::Bundle(e.clone()),
                _ => Target::Package,
            };
            Ok(Some(Dialog::Input {
                title: "deprecation message (why, and what to use instead)".into(),
                text: String::new(),
                then: InputFor::Deprecate {
                    package: p.clone(),
                    target,
                },
            }))
        }
        (Command::CreateChannel, [p, rest @ ..]) => {
            let bundle = match rest {
                [_, e] => Some(e.clone()),
                _ => l
                    .graph
                    .as_ref()
                    .and_then(|(g, _)| g.chain.head().map(String::from)),
            };
            match bundle {
                Some(b) => Ok(Some(Dialog::Input {
                    title: format!("name of the new channel of {p} (first entry: {b})"),
                    text: String::new(),
                    then: InputFor::CreateChannel {
                        package: p.clone(),
                        bundle: b,
                    },
                })),
                None => Err(need("an entry")),
            }
        }
        (Command::AddBundle, _) => Ok(Some(Dialog::Input {
            title: "bundle directory to add (manifests/ and metadata/; Tab completes)".into(),
            text: String::new(),
            then: InputFor::AddBundleDir,
        })),
        _ => Err(need("something")),
    };
    match result {
        Ok(d) => m.dialog = d,
        Err(msg) => m.status = Some(msg),
    }
    Vec::new()
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
