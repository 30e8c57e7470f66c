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
        let lines = Lines::new(&text);
        let mut out = Vec::new();
        // Fixes made in the text itself (a name corrected, a scalar quoted): any document.
        for d in p
            .context
            .diagnostics
            .iter()
            .filter(|d| d.source.as_deref() == Some(crate::convert::SOURCE))
        {
            if let Some(a) = text_fix(d, &lines, &uri) {
                out.push(CodeActionOrCommand::CodeAction(a));
            }
        }
        let FileKind::Catalog { root, rel } = doc.kind.clone() else {
            return Some(out);
        };
        let offset = lines.offset(p.range.start);
        let mut offers = Vec::new();
        {
            let r = self.roots.get(&root)?;
            let cat = r.ws.catalog();
            let here = file_diagnostics(r, &rel);
            for d in p
                .context
                .diagnostics
                .iter()
                .filter(|d| d.source.as_deref() == Some(crate::convert::SOURCE))
            {
                if let Some(engine) = engine_diagnostic(&here, d) {
                    offers.extend(guided_fixes(cat, engine, d));
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

fn hint_of(d: &lsp_types::Diagnostic) -> Option<&str> {
    d.data.as_ref()?.get("hint")?.as_str()
}

/// A fix written straight into the text: the name a "did you mean" hint gives, or a scalar
/// quoted as YAML 1.1 would otherwise retype it.
// See `changes` for the map's key type.
#[allow(clippy::mutable_key_type)]
fn text_fix(d: &lsp_types::Diagnostic, lines: &Lines, uri: &lsp_types::Uri) -> Option<CodeAction> {
    let hint = hint_of(d)?;
    let line_no = d.range.start.line as usize;
    let line = lines.line(line_no);
    let (old, new, title) = if let Some(rest) = hint.strip_prefix("did you mean ") {
        let new = rest
            .trim_end_matches('?')
            .trim_matches(['\'', '"'])
            .to_string();
        let old = quoted(&d.message)
            .into_iter()
            .find(|q| line.contains(q.as_str()) && *q != new)?;
        let title = format!("Change {old} to {new}");
        (old, new, title)
    } else if hint.starts_with("quote the value")
        || hint.starts_with("quote it if you mean the text")
    {
        let start = lines.offset(d.range.start)
            - lines.offset(lsp_types::Position::new(d.range.start.line, 0));
        let rest = line.get(start..)?;
        let value = rest.split(" #").next()?.trim_end();
        let value = value.strip_suffix(',').unwrap_or(value);
        if value.is_empty() || value.starts_with(['"', '\'']) {
            return None;
        }
        let quoted = format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""));
        let title = format!("Quote {value}");
        (value.to_string(), quoted, title)
    } else {
        return None;
    };
    let col = line.find(old.as_str())?;
    let line_start = lines.offset(lsp_types::Position::new(line_no as u32, 0));
    let range = lines.range(line_start + col, line_start + col + old.len());
    let mut changes = HashMap::new();
    changes.insert(uri.clone(), vec![TextEdit::new(range, new)]);
    Some(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        is_preferred: Some(true),
        edit: Some(WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        }),
        ..Default::default()
    })
}

/// The texts quoted in a message (`'x'`, `"x"` or `` `x` ``).
fn quoted(message: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ['\'', '"', '`'] {
        let parts: Vec<&str> = message.split(q).collect();
        out.extend(
            parts
                .iter()
                .skip(1)
                .step_by(2)
                .filter(|s| !s.is_empty())
                .map(|s| s.to_string()),
        );
    }
    out
}

/// Fixes that are guided edits: a default channel that names no channel, a channel with no
/// entries.
fn guided_fixes(cat: &Catalog, d: &Diagnostic, published: &lsp_types::Diagnostic) -> Vec<Offer> {
    let Some(package) = d.object.package.clone() else {
        return Vec::new();
    };
    let hint = d.hint.as_deref().unwrap_or("");
    let mut out = Vec::new();
    if hint.starts_with("set `defaultChannel:` to one of")
        && let Some(idx) = cat.index().package(&package)
    {
        for &c in &idx.channels {
            let channel = cat.blob(c).name().to_string();
            out.push(Offer {
                title: format!("Make {channel} the default channel"),
                kind: CodeActionKind::QUICKFIX,
                edit: Edit::SetDefaultChannel {
                    package: package.clone(),
                    channel,
                },
                fixes: Some(published.clone()),
            });
        }
    }
    if hint.starts_with("list at least one bundle in `entries`, or remove the channel")
        && let Some(channel) = d.object.channel.clone()
    {
        out.push(Offer {
            title: format!("Delete channel {channel}"),
            kind: CodeActionKind::QUICKFIX,
            edit: Edit::DeleteChannel { package, channel },
            fixes: Some(published.clone()),
        });
    }
    out
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
