//! Starting guided edits from the tree: the pickers and inputs each edit asks for, and the
//! confirmation that says what it will do and which problems it introduces.

use crate::tui::keymap::Command;
use crate::tui::model::{Dialog, Effect, InputFor, Model};
use crate::tui::tree::Loaded;
use crate::tui::update::pickers::{
    pick_bundle_to_promote, pick_channel_to_promote_into, pick_replaces, pick_skips, pick_unskips,
    skip_range_input,
};
use fbc_core::edit::{Edit, Target};

/// The dialog that states an edit and the problems it would introduce.
pub(crate) fn confirm(l: &mut Loaded, edit: Edit) -> Result<Dialog, String> {
    confirm_with(l, edit, Vec::new())
}

/// [`confirm`] with lines of its own under the question (why relinking is asked, say).
pub(crate) fn confirm_with(
    l: &mut Loaded,
    edit: Edit,
    notes: Vec<String>,
) -> Result<Dialog, String> {
    let introduced =
        l.ws.check(&edit)
            .map_err(|e| format!("cannot {}: {e}", edit.describe()))?;
    let mut lines = vec![format!("{}?", capitalise(&edit.describe())), String::new()];
    if !notes.is_empty() {
        lines.extend(notes);
        lines.push(String::new());
    }
    if let Edit::SetSkipRange {
        range: Some(r),
        entry,
        ..
    } = &edit
        && let Some((g, _)) = &l.graph
        && let Ok(range) = fbc_core::catalog::semver_range::Range::parse(r)
    {
        let effect = fbc_core::graph::query::range_effect(g, &range, g.node(entry));
        let names = |ns: &[petgraph::graph::NodeIndex]| -> String {
            ns.iter()
                .map(|&n| g.graph[n].name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        lines.push(match effect.matched.len() {
            0 => "matches no entry".into(),
            n => format!("matches {n}: {}", names(&effect.matched)),
        });
        if !effect.matched.is_empty() {
            lines.push(match effect.pruned.len() {
                0 => "of those, OLM v0 prunes none".into(),
                n => format!("of those, OLM v0 prunes {n}: {}", names(&effect.pruned)),
            });
        }
        lines.push(String::new());
    }
    let before = l.ws.report().count(fbc_core::catalog::Severity::Error);
    let templates = l.ws.templates().is_some();
    lines.extend(super::confirm::verdict(&introduced, before, templates));
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

/// Refuses, before anything is asked, an edit the library already says cannot be made.
fn refuse(l: &Loaded, edit: &Edit) -> Result<(), String> {
    edit.check(l.ws.catalog())
        .map_err(|e| format!("cannot {}: {e}", edit.describe()))
}

/// What a deprecation key is about: the selected package, channel or bundle.
fn target(rest: &[String]) -> Target {
    match rest {
        [c] => Target::Channel(c.clone()),
        [_, e] => Target::Bundle(e.clone()),
        _ => Target::Package,
    }
}

/// The dialog an edit key opens on the selected path (package, channel, entry), or why it cannot.
/// Each checks the edit's preconditions first, so nothing is asked for an edit that will be refused.
fn edit_dialog(l: &mut Loaded, command: Command, sel: &[String]) -> Result<Dialog, String> {
    let need = |what: &str| Err(format!("select {what} first"));
    let input = |title: String, then: InputFor| {
        Ok(Dialog::Input {
            title,
            text: Default::default(),
            then,
        })
    };
    let (p, c, e) = (
        sel.first().cloned().unwrap_or_default(),
        sel.get(1).cloned().unwrap_or_default(),
        sel.get(2).cloned().unwrap_or_default(),
    );
    match (command, sel.len()) {
        (Command::Promote, 3) => pick_channel_to_promote_into(l, &p, &e),
        (Command::Promote, 2) => pick_bundle_to_promote(l, &p, &c),
        (Command::DefaultChannel, 2 | 3) => confirm(
            l,
            Edit::SetDefaultChannel {
                package: p,
                channel: c,
            },
        ),
        (Command::DeleteChannel, 2) => confirm(
            l,
            Edit::DeleteChannel {
                package: p,
                channel: c,
            },
        ),
        (Command::RemoveEntry, 3) => confirm(
            l,
            Edit::RemoveEntry {
                package: p,
                channel: c,
                entry: e,
            },
        ),
        (Command::RemoveBundle, 3) => remove_bundle(l, p, e),
        (Command::SkipRange, 3) => Ok(skip_range_input(l, &p, &c, &e)),
        (Command::Skips, 3) => pick_skips(l, p, c, e),
        (Command::RemoveSkips, 3) => pick_unskips(l, p, c, e),
        (Command::SetReplaces, 3) => pick_replaces(l, p, c, e),
        (Command::Deprecate, 1..) => {
            let target = target(&sel[1..]);
            refuse(
                l,
                &Edit::Deprecate {
                    package: p.clone(),
                    target: target.clone(),
                    message: "why".into(),
                },
            )?;
            input(
                "deprecation message (why, and what to use instead)".into(),
                InputFor::Deprecate { package: p, target },
            )
        }
        (Command::Undeprecate, 1..) => confirm(
            l,
            Edit::Undeprecate {
                package: p,
                target: target(&sel[1..]),
            },
        ),
        (Command::CreateChannel, 2 | 3) => {
            let bundle = match sel.len() {
                3 => Some(e),
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
                    package: p,
                    bundle: b,
                },
            )
        }
        (Command::AddBundle, _) => input(
            "bundle directory to add (manifests/ and metadata/; Tab completes)".into(),
            InputFor::AddBundleDir,
        ),
        (Command::Promote | Command::DefaultChannel | Command::DeleteChannel, _) => {
            need("a channel")
        }
        (Command::CreateChannel, _) => need("a channel or an entry"),
        (Command::Deprecate | Command::Undeprecate, _) => need("a package, channel or bundle"),
        _ => need("an entry"),
    }
}

/// Removing a bundle: confirmed as it is when nothing depends on it; when entries replace it, the
/// confirmation asks to relink them; refused plainly when even relinking cannot help.
fn remove_bundle(l: &mut Loaded, package: String, bundle: String) -> Result<Dialog, String> {
    let plain = Edit::RemoveBundle {
        package: package.clone(),
        bundle: bundle.clone(),
        relink: false,
    };
    let Err(why) = plain.check(l.ws.catalog()) else {
        return confirm(l, plain);
    };
    let relinked = Edit::RemoveBundle {
        package,
        bundle,
        relink: true,
    };
    refuse(l, &relinked)?;
    confirm_with(
        l,
        relinked,
        vec![
            format!("It cannot simply go: {why}."),
            "Relinking hands its replaces to the entries that replaced it, its skips (and its skipRange where they have none) to those that replaced or skipped it, and drops the skips naming it.".into(),
        ],
    )
}
