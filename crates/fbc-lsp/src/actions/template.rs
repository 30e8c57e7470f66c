//! Code actions on templates: the guided edits `fbc-edit edit TEMPLATE …` makes, offered at the
//! cursor (a channel, a channel entry, a bundle image, a semver setting, a substitution) and
//! quick fixes for the rendering's problems that map back to a template change. Each is made by
//! the engine's template edit on the buffer's text and handed over as the line edits of its
//! minimal change; one the engine refuses, or that would leave the rendering invalid (which the
//! command refuses too without `--force`), is offered greyed out with the reason.

use std::collections::HashMap;

use fbc_core::catalog::model::Channel;
use fbc_core::catalog::{Catalog, Severity, schema};
use fbc_core::edit::{Edit, Target};
use fbc_core::template::edit::{
    SemverEdit, SemverFlag, SubstitutesEdit, TemplateEdit, entries_of, schema_of,
};
use fbc_core::template::semver::{Maturity, StreamKind};
use fbc_core::template::{Body, Template};
use fbc_core::validate::codes as c;
use fbc_core::workspace::template::TemplateWorkspace;
use lsp_types::{
    CodeAction, CodeActionDisabled, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    NumberOrString, WorkspaceEdit,
};

use crate::state::Server;
use crate::text::{Lines, line_edits};
use crate::uri;

const MATURITIES: [(Maturity, &str); 3] = [
    (Maturity::Candidate, "Candidate"),
    (Maturity::Fast, "Fast"),
    (Maturity::Stable, "Stable"),
];

/// A template edit to offer.
struct Offer {
    title: String,
    kind: CodeActionKind,
    edit: TemplateEdit,
    fixes: Option<lsp_types::Diagnostic>,
}

impl Server {
    /// The actions on a template document at the request's range.
    pub(crate) fn template_actions(
        &mut self,
        p: &CodeActionParams,
        text: &str,
    ) -> Vec<CodeActionOrCommand> {
        let Some(path) = uri::to_path(&p.text_document.uri) else {
            return Vec::new();
        };
        let memo = match self.templates.get(&path) {
            Some(t) => t.memo.clone(),
            None => return Vec::new(),
        };
        let Ok(mut ws) =
            TemplateWorkspace::open_text(&path, text, Box::new(memo), self.settings.opm)
        else {
            return Vec::new();
        };
        let Ok(template) = ws.doc().template() else {
            return Vec::new();
        };
        let lines = Lines::new(text);
        let offset = lines.offset(p.range.start);
        let line = p.range.start.line + 1;
        let mut offers = at_cursor(&ws, &template, &lines, offset, line);
        offers.extend(template_fixes(&ws, &template, p));
        offers
            .into_iter()
            .map(|o| action(&mut ws, &p.text_document.uri, text, o))
            .collect()
    }
}

/// The edit made on the template, its text changes taken, and the edit undone.
// The protocol's `WorkspaceEdit` maps URIs to edits; see `changes` in the parent module.
#[allow(clippy::mutable_key_type)]
fn action(
    ws: &mut TemplateWorkspace,
    uri: &lsp_types::Uri,
    text: &str,
    o: Offer,
) -> CodeActionOrCommand {
    let mut a = CodeAction {
        title: o.title,
        kind: Some(o.kind),
        diagnostics: o.fixes.map(|d| vec![d]),
        ..Default::default()
    };
    match new_text(ws, o.edit) {
        Ok(new) => {
            let mut changes = HashMap::new();
            changes.insert(uri.clone(), line_edits(text, &new));
            a.edit = Some(WorkspaceEdit {
                changes: Some(changes),
                ..Default::default()
            });
        }
        Err(reason) => a.disabled = Some(CodeActionDisabled { reason }),
    }
    CodeActionOrCommand::CodeAction(a)
}

/// The template's text after `edit`, or why it is not made.
pub(crate) fn new_text(ws: &mut TemplateWorkspace, edit: TemplateEdit) -> Result<String, String> {
    let what = edit.describe();
    let outcome = ws.apply(edit).map_err(|e| e.to_string())?;
    let result = match outcome
        .introduced
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        Some(d) => Err(format!(
            "{what} would leave a rendering invalid: {}",
            d.message
        )),
        None => ws
            .doc()
            .catalog
            .pending()
            .map_err(|e| e.to_string())
            .and_then(|p| {
                p.into_iter()
                    .next()
                    .map(|p| p.new)
                    .ok_or_else(|| format!("{what} changes nothing"))
            }),
    };
    ws.undo();
    result
}

fn offer(title: String, edit: TemplateEdit) -> Offer {
    Offer {
        title,
        kind: CodeActionKind::REFACTOR_REWRITE,
        edit,
        fixes: None,
    }
}

/// The guided edits for what the cursor is on.
fn at_cursor(
    ws: &TemplateWorkspace,
    template: &Template,
    lines: &Lines,
    offset: usize,
    line: u32,
) -> Vec<Offer> {
    match &template.body {
        Body::Semver(s) => {
            let mut out = Vec::new();
            for (i, list) in s.lists.iter().enumerate() {
                for b in list.iter().filter(|b| b.line == line) {
                    for (m, name) in MATURITIES {
                        if MATURITIES[i].0 == m {
                            continue;
                        }
                        out.push(offer(
                            format!("Move {} to {name}", b.image),
                            TemplateEdit::Semver(SemverEdit::MoveBundle {
                                image: b.image.clone(),
                                to: m,
                            }),
                        ));
                    }
                    out.push(offer(
                        format!("Remove {}", b.image),
                        TemplateEdit::Semver(SemverEdit::RemoveBundle {
                            image: b.image.clone(),
                        }),
                    ));
                }
            }
            let key = lines
                .line(line as usize - 1)
                .trim_start()
                .to_ascii_lowercase();
            for (flag, name, now) in [
                (
                    SemverFlag::GenerateMajorChannels,
                    "generatemajorchannels",
                    s.generate_major,
                ),
                (
                    SemverFlag::GenerateMinorChannels,
                    "generateminorchannels",
                    s.generate_minor,
                ),
            ] {
                if key.starts_with(name) {
                    let what = if name.contains("major") {
                        "major"
                    } else {
                        "minor"
                    };
                    out.push(offer(
                        format!(
                            "{} {what}-version channels",
                            if now { "Stop generating" } else { "Generate" }
                        ),
                        TemplateEdit::Semver(SemverEdit::SetFlag { flag, value: !now }),
                    ));
                }
            }
            if key.starts_with("defaultchanneltypepreference") {
                for (pref, kind) in [("major", StreamKind::Major), ("minor", StreamKind::Minor)] {
                    if s.preference != kind {
                        out.push(offer(
                            format!("Prefer {pref}-version channels as the default"),
                            TemplateEdit::Semver(SemverEdit::SetPreference {
                                preference: Some(pref.to_string()),
                            }),
                        ));
                    }
                }
                out.push(offer(
                    "Leave the default channel's kind to opm".to_string(),
                    TemplateEdit::Semver(SemverEdit::SetPreference { preference: None }),
                ));
            }
            out
        }
        Body::Substitutes(s) => s
            .substitutions
            .iter()
            .filter(|sub| [sub.at.0, sub.name_at.0, sub.base_at.0].contains(&line))
            .map(|sub| {
                offer(
                    format!("Drop the substitution of {}", sub.base),
                    TemplateEdit::Substitutes(SubstitutesEdit::Remove {
                        base: sub.base.clone(),
                    }),
                )
            })
            .collect(),
        Body::Basic(_) => basic(ws, offset),
    }
}

fn contains(n: &fbc_core::catalog::Node, offset: usize) -> bool {
    let p = n.pos();
    p.is_real() && p.start as usize <= offset && offset <= p.end as usize
}

/// A basic template: its entry at the cursor (a channel, one of its entries, a bundle image, the
/// package) and the guided edits on it.
fn basic(ws: &TemplateWorkspace, offset: usize) -> Vec<Offer> {
    let entries = entries_of(ws.doc().node());
    let Some(node) = entries.iter().find(|n| contains(n, offset)) else {
        return Vec::new();
    };
    let rendered = ws.rendered();
    let cat = |e: Edit| TemplateEdit::Catalog(e);
    let mut out = Vec::new();
    match schema_of(node) {
        schema::CHANNEL => {
            let Ok(ch) = Channel::read(node) else {
                return out;
            };
            let package = ch.package.to_string();
            let channel = ch.name.to_string();
            if let Some(e) = ch.entries.iter().find(|e| contains(e.node, offset)) {
                let entry = e.name.to_string();
                out.push(offer(
                    format!("Remove {entry} from {channel}"),
                    cat(Edit::RemoveEntry {
                        package: package.clone(),
                        channel: channel.clone(),
                        entry: entry.clone(),
                    }),
                ));
                out.push(offer(
                    format!("Deprecate bundle {entry}"),
                    cat(Edit::Deprecate {
                        package,
                        target: Target::Bundle(entry.clone()),
                        message: format!("{entry} is deprecated"),
                    }),
                ));
            } else {
                out.push(offer(
                    format!("Make {channel} the default channel"),
                    cat(Edit::SetDefaultChannel {
                        package: package.clone(),
                        channel: channel.clone(),
                    }),
                ));
                out.push(offer(
                    format!("Deprecate channel {channel}"),
                    cat(Edit::Deprecate {
                        package,
                        target: Target::Channel(channel.clone()),
                        message: format!("channel {channel} is deprecated"),
                    }),
                ));
            }
        }
        schema::BUNDLE => {
            let Some(image) = node.get_field("image").and_then(|n| n.as_str()) else {
                return out;
            };
            let Some((package, bundle)) = bundle_of_image(rendered, image) else {
                return out;
            };
            if let Some(idx) = rendered.index().package(&package) {
                for &c in &idx.channels {
                    if idx.channels_listing(&bundle).contains(&c) {
                        continue;
                    }
                    let channel = rendered.blob(c).name().to_string();
                    out.push(offer(
                        format!("Promote {bundle} to the head of {channel}"),
                        cat(Edit::Promote {
                            package: package.clone(),
                            bundle: bundle.clone(),
                            channel,
                            replaces: None,
                            skips: Vec::new(),
                            skip_range: None,
                        }),
                    ));
                }
            }
            out.push(offer(
                format!("Deprecate bundle {bundle}"),
                cat(Edit::Deprecate {
                    package,
                    target: Target::Bundle(bundle.clone()),
                    message: format!("{bundle} is deprecated"),
                }),
            ));
        }
        schema::PACKAGE => {
            let Some(package) = node.get_field("name").and_then(|n| n.as_str()) else {
                return out;
            };
            out.push(offer(
                format!("Deprecate package {package}"),
                cat(Edit::Deprecate {
                    package: package.to_string(),
                    target: Target::Package,
                    message: format!("{package} is deprecated"),
                }),
            ));
        }
        _ => {}
    }
    out
}

/// The package and name of the rendered bundle with this image.
fn bundle_of_image(rendered: &Catalog, image: &str) -> Option<(String, String)> {
    rendered.live_blobs().find_map(|(_, b)| {
        (b.schema() == schema::BUNDLE
            && b.value.get_field("image").and_then(|n| n.as_str()) == Some(image))
        .then(|| (b.package().to_string(), b.name().to_string()))
    })
}

/// Quick fixes for the rendering's problems that a template change mends: a default channel
/// that names no channel, a channel without entries, an entry without its bundle.
fn template_fixes(ws: &TemplateWorkspace, template: &Template, p: &CodeActionParams) -> Vec<Offer> {
    if !matches!(template.body, Body::Basic(_)) {
        return Vec::new();
    }
    let report = ws.report();
    let rendered = ws.rendered();
    let mut out = Vec::new();
    for published in &p.context.diagnostics {
        let Some(NumberOrString::String(code)) = &published.code else {
            continue;
        };
        let Some(d) = report.diagnostics.iter().find(|d| {
            d.code == code && d.location.line.saturating_sub(1) == published.range.start.line
        }) else {
            continue;
        };
        let Some(package) = d.object.package.clone() else {
            continue;
        };
        let fix = |title: String, edit: Edit| Offer {
            title,
            kind: CodeActionKind::QUICKFIX,
            edit: TemplateEdit::Catalog(edit),
            fixes: Some(published.clone()),
        };
        if d.code == c::DEFAULT_CHANNEL_MISSING || d.code == c::DEFAULT_CHANNEL_UNSET {
            let channels = rendered
                .index()
                .package(&package)
                .map(|idx| idx.channels.clone())
                .unwrap_or_default();
            for ch in channels {
                let channel = rendered.blob(ch).name().to_string();
                out.push(fix(
                    format!("Make {channel} the default channel"),
                    Edit::SetDefaultChannel {
                        package: package.clone(),
                        channel,
                    },
                ));
            }
        } else if d.code == c::CHANNEL_EMPTY {
            if let Some(channel) = d.object.channel.clone() {
                out.push(fix(
                    format!("Delete channel {channel}"),
                    Edit::DeleteChannel { package, channel },
                ));
            }
        } else if d.code == c::ENTRY_WITHOUT_BUNDLE
            && let (Some(channel), Some(entry)) =
                (d.object.channel.clone(), d.object.bundle.clone())
        {
            out.push(fix(
                format!("Remove {entry} from {channel}"),
                Edit::RemoveEntry {
                    package,
                    channel,
                    entry,
                },
            ));
        }
    }
    out
}
