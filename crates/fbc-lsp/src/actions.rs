//! Code actions: a quick fix for each problem whose fix is known (the hints `validate` prints),
//! and the guided edits (promote here, make default, add skips, set skipRange, deprecate, remove
//! entry) as refactorings. Each is made by the engine's edit and its byte-preserving writer — the
//! same minimal change `fbc-edit edit` writes — and handed over as the line edits between the old
//! and new text; an edit the engine refuses is offered disabled, with the engine's reason.

use std::collections::HashMap;
use std::path::Path;

use fbc_core::catalog::model::Channel;
use fbc_core::catalog::{Catalog, Diagnostic, schema};
use fbc_core::edit::{Edit, Target};
use fbc_core::workspace::Workspace;
use lsp_types::{
    CodeAction, CodeActionDisabled, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    NumberOrString, TextEdit, WorkspaceEdit,
};

mod fixes;
mod template;

use fixes::{Fix, Problem};

use crate::layout::FileKind;
use crate::locate::{self, Named};
use crate::state::{Server, file_diagnostics};
use crate::text::{Lines, line_edits};
use crate::uri;

/// Other entries offered as skips of the entry under the cursor, newest first.
const SKIP_CHOICES: usize = 5;

/// An edit to offer, with its title and kind.
struct Offer {
    title: String,
    kind: CodeActionKind,
    edit: Edit,
    fixes: Option<lsp_types::Diagnostic>,
}

/// The edit applied, its text changes taken, and the edit undone.
// The protocol's `WorkspaceEdit` maps URIs to edits; a `Uri` caches parts of itself in cells,
// none of which its hash or equality reads.
#[allow(clippy::mutable_key_type)]
fn changes(ws: &mut Workspace, root: &Path, edit: Edit) -> Result<WorkspaceEdit, String> {
    ws.apply(edit).map_err(|e| e.to_string())?;
    let pending = ws.pending();
    ws.undo();
    let pending = pending.map_err(|e| e.to_string())?;
    let mut out: HashMap<lsp_types::Uri, Vec<TextEdit>> = HashMap::new();
    for p in pending {
        if p.created {
            return Err(format!(
                "the edit would create {}: make it with fbc-edit edit",
                p.path
            ));
        }
        out.insert(
            uri::from_path(&root.join(&p.path)),
            line_edits(&p.old, &p.new),
        );
    }
    Ok(WorkspaceEdit {
        changes: Some(out),
        ..Default::default()
    })
}

impl Server {
    pub(crate) fn code_actions(&mut self, p: CodeActionParams) -> Option<Vec<CodeActionOrCommand>> {
        let (_, doc) = self.doc(&p.text_document.uri)?;
        let uri = doc.uri.clone();
        let text = doc.text.clone();
        let kind = doc.kind.clone();
        let is_template = matches!(kind, FileKind::Template);
        let lines = Lines::new(&text);
        let ours: Vec<&lsp_types::Diagnostic> = p
            .context
            .diagnostics
            .iter()
            .filter(|d| d.source.as_deref() == Some(crate::convert::SOURCE))
            .collect();
        let mut out = Vec::new();
        let FileKind::Catalog { root, rel } = kind else {
            for d in ours {
                let problem = Problem {
                    published: d,
                    text: &text,
                    lines: &lines,
                    engine: None,
                };
                out.extend(
                    fixes::fixes(&problem)
                        .into_iter()
                        .filter_map(|f| text_action(f, d, &uri, &lines)),
                );
            }
            if is_template {
                out.extend(self.template_actions(&p, &text));
            }
            return Some(out);
        };
        let offset = lines.offset(p.range.start);
        let mut offers = Vec::new();
        {
            let r = self.roots.get(&root)?;
            let cat = r.ws.catalog();
            let here = file_diagnostics(r, &rel);
            for d in ours {
                let engine = engine_diagnostic(&here, d);
                let problem = Problem {
                    published: d,
                    text: &text,
                    lines: &lines,
                    engine: engine.map(|e| (cat, e, rel.as_str())),
                };
                for f in fixes::fixes(&problem) {
                    match f {
                        Fix::Edit { title, edit } => offers.push(Offer {
                            title,
                            kind: CodeActionKind::QUICKFIX,
                            edit,
                            fixes: Some(d.clone()),
                        }),
                        text_fix => out.extend(text_action(text_fix, d, &uri, &lines)),
                    }
                }
            }
            let file = cat.file_id(&rel)?;
            if let Some(place) = locate::place(cat, file, offset) {
                offers.extend(refactorings(cat, &place));
            }
        }
        let r = self.roots.get_mut(&root)?;
        for o in offers {
            let result = changes(&mut r.ws, &root, o.edit);
            let mut a = CodeAction {
                title: o.title,
                kind: Some(o.kind),
                diagnostics: o.fixes.map(|d| vec![d]),
                ..Default::default()
            };
            match result {
                Ok(e) => a.edit = Some(e),
                Err(reason) => a.disabled = Some(CodeActionDisabled { reason }),
            }
            out.push(CodeActionOrCommand::CodeAction(a));
        }
        Some(out)
    }
}

/// The engine's problem a published diagnostic stands for (same code, same line).
fn engine_diagnostic<'d>(
    here: &[&'d Diagnostic],
    d: &lsp_types::Diagnostic,
) -> Option<&'d Diagnostic> {
    let NumberOrString::String(code) = d.code.as_ref()? else {
        return None;
    };
    here.iter()
        .find(|e| e.code == code && e.location.line.saturating_sub(1) == d.range.start.line)
        .copied()
}

/// A fix written into the document's text, as a quick fix of `d`.
// See `changes` for the map's key type.
#[allow(clippy::mutable_key_type)]
fn text_action(
    fix: Fix,
    d: &lsp_types::Diagnostic,
    uri: &lsp_types::Uri,
    lines: &Lines,
) -> Option<CodeActionOrCommand> {
    let Fix::Text {
        title,
        start,
        end,
        new,
    } = fix
    else {
        return None;
    };
    let mut changes = HashMap::new();
    changes.insert(
        uri.clone(),
        vec![TextEdit::new(lines.range(start, end), new)],
    );
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        is_preferred: Some(true),
        edit: Some(WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        }),
        ..Default::default()
    }))
}

/// The guided edits for what the cursor is on.
fn refactorings(cat: &Catalog, place: &locate::Place) -> Vec<Offer> {
    let package = place.package.clone();
    let Some(idx) = cat.index().package(&package) else {
        return Vec::new();
    };
    let blob = cat.blob(place.blob);
    let rewrite = CodeActionKind::REFACTOR_REWRITE;
    let offer = |title: String, edit: Edit| Offer {
        title,
        kind: rewrite.clone(),
        edit,
        fixes: None,
    };
    let mut out = Vec::new();
    let bundle = match (&place.named, &place.entry) {
        (Some(Named::Bundle(b)), _) => Some(b.clone()),
        (_, Some((_, e))) => Some(e.clone()),
        _ if blob.schema() == schema::BUNDLE => Some(blob.name().to_string()),
        _ => None,
    };
    if let Some((channel, entry)) = &place.entry {
        let ch = Channel::read(&blob.value).ok();
        if let Some(skeleton) = ch
            .as_ref()
            .and_then(|ch| skip_range_for(cat, &package, ch, entry))
        {
            out.push(offer(
                format!("Set the skipRange of {entry} to {skeleton}"),
                Edit::SetSkipRange {
                    package: package.clone(),
                    channel: channel.clone(),
                    entry: entry.clone(),
                    range: Some(skeleton),
                },
            ));
        }
        for other in ch
            .iter()
            .flat_map(|ch| others(cat, &package, ch, entry))
            .take(SKIP_CHOICES)
        {
            out.push(offer(
                format!("Make {entry} skip {other}"),
                Edit::AddSkips {
                    package: package.clone(),
                    channel: channel.clone(),
                    entry: entry.clone(),
                    skips: vec![other],
                },
            ));
        }
        out.push(offer(
            format!("Remove {entry} from {channel}"),
            Edit::RemoveEntry {
                package: package.clone(),
                channel: channel.clone(),
                entry: entry.clone(),
            },
        ));
    }
    if let Some(b) = &bundle {
        for &c in &idx.channels {
            let channel = cat.blob(c).name().to_string();
            if idx.channels_listing(b).contains(&c) {
                continue;
            }
            out.push(offer(
                format!("Promote {b} to the head of {channel}"),
                Edit::Promote {
                    package: package.clone(),
                    bundle: b.clone(),
                    channel,
                    replaces: None,
                    skips: Vec::new(),
                    skip_range: None,
                },
            ));
        }
        out.push(offer(
            format!("Deprecate bundle {b}"),
            Edit::Deprecate {
                package: package.clone(),
                target: Target::Bundle(b.clone()),
                message: format!("{b} is deprecated"),
            },
        ));
    }
    let channel = match &place.named {
        Some(Named::Channel(c)) => Some(c.clone()),
        _ if blob.schema() == schema::CHANNEL && place.entry.is_none() => {
            Some(blob.name().to_string())
        }
        _ => None,
    };
    if let Some(c) = channel {
        out.push(offer(
            format!("Make {c} the default channel"),
            Edit::SetDefaultChannel {
                package: package.clone(),
                channel: c.clone(),
            },
        ));
        out.push(offer(
            format!("Deprecate channel {c}"),
            Edit::Deprecate {
                package: package.clone(),
                target: Target::Channel(c.clone()),
                message: format!("channel {c} is deprecated"),
            },
        ));
    }
    if blob.schema() == schema::PACKAGE {
        out.push(offer(
            format!("Deprecate package {package}"),
            Edit::Deprecate {
                package: package.clone(),
                target: Target::Package,
                message: format!("{package} is deprecated"),
            },
        ));
    }
    out
}

fn version_of(
    cat: &Catalog,
    package: &str,
    bundle: &str,
) -> Option<fbc_core::catalog::semver_range::Version> {
    let id = cat.index().bundle(package, bundle)?;
    let b = fbc_core::catalog::model::Bundle::read(&cat.blob(id).value).ok()?;
    fbc_core::catalog::semver_range::Version::parse(b.version()?).ok()
}

/// `>=LOWEST <VERSION` over the channel's versions below the entry's.
fn skip_range_for(cat: &Catalog, package: &str, ch: &Channel, entry: &str) -> Option<String> {
    let top = version_of(cat, package, entry)?;
    let lowest = ch
        .entries
        .iter()
        .filter_map(|e| version_of(cat, package, e.name))
        .filter(|v| *v < top)
        .min()?;
    Some(format!(">={lowest} <{top}"))
}

/// The channel's other entries older than `entry` that it does not skip yet, newest first.
fn others(cat: &Catalog, package: &str, ch: &Channel, entry: &str) -> Vec<String> {
    let top = version_of(cat, package, entry);
    let skipped: Vec<&str> = ch.entry(entry).map(|e| e.skips.clone()).unwrap_or_default();
    let mut older: Vec<(Option<_>, String)> = ch
        .entries
        .iter()
        .filter(|e| e.name != entry && !skipped.contains(&e.name))
        .map(|e| (version_of(cat, package, e.name), e.name.to_string()))
        .filter(|(v, _)| match (v, &top) {
            (Some(v), Some(t)) => v < t,
            _ => true,
        })
        .collect();
    older.sort_by(|a, b| b.0.cmp(&a.0));
    older.into_iter().map(|(_, n)| n).collect()
}
