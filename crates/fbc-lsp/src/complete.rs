//! Completion, from the text of the line under the cursor (it works while the document is half
//! typed and does not parse): schema names and property types, channel names, bundle names in
//! `replaces` and `skips`, a skipRange skeleton from the channel's versions, template keys.

use fbc_core::catalog::model::{Bundle, Channel, property_type};
use fbc_core::catalog::semver_range::Version;
use fbc_core::catalog::{Catalog, schema};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, Position,
    TextDocumentPositionParams,
};

use crate::layout::FileKind;
use crate::state::Server;
use crate::text::Lines;

const SCHEMAS: [&str; 4] = [
    schema::PACKAGE,
    schema::CHANNEL,
    schema::BUNDLE,
    schema::DEPRECATIONS,
];
const TEMPLATE_SCHEMAS: [&str; 2] = ["olm.template.basic", "olm.semver"];
const PROPERTY_TYPES: [&str; 8] = [
    property_type::PACKAGE,
    property_type::PACKAGE_REQUIRED,
    property_type::GVK,
    property_type::GVK_REQUIRED,
    property_type::BUNDLE_OBJECT,
    property_type::CSV_METADATA,
    property_type::CHANNEL,
    property_type::CONSTRAINT,
];
/// The keys of an `olm.semver` template, as opm's documentation writes them.
const SEMVER_KEYS: [&str; 7] = [
    "schema",
    "GenerateMajorChannels",
    "GenerateMinorChannels",
    "DefaultChannelTypePreference",
    "Candidate",
    "Fast",
    "Stable",
];
const BASIC_KEYS: [&str; 2] = ["schema", "entries"];
const ENTRY_KEYS: [&str; 4] = ["name", "replaces", "skips", "skipRange"];

/// What the cursor is typing.
#[derive(Debug, PartialEq, Eq)]
enum Slot {
    /// The value of `key`.
    Value(String),
    /// An item of the list under `key`.
    Item(String),
    /// A key of a mapping indented this far.
    Key(usize),
}

/// What the line up to the cursor is typing, looking up for a list's key.
fn slot(lines: &Lines, at: Position) -> Option<Slot> {
    let line = lines.line(at.line as usize);
    let units: Vec<u16> = line.encode_utf16().take(at.character as usize).collect();
    let upto = String::from_utf16_lossy(&units);
    let t = upto.trim_start();
    let indent = upto.len() - t.len();
    let body = t.strip_prefix("- ").map(str::trim_start).unwrap_or(t);
    let item_indent = indent + (t.len() - body.len());
    let body_json = body.trim_start_matches(['{', ',', ' ']);
    if let Some((key, value)) = body_json.split_once(':') {
        let key = key.trim().trim_matches('"');
        if !value.contains([':', ',']) && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Some(Slot::Value(key.to_string()));
        }
        return None;
    }
    if t.starts_with('-') {
        for l in (0..at.line as usize).rev() {
            let above = lines.line(l);
            let a = above.trim_start();
            if a.is_empty() || a.starts_with('-') || a.starts_with('#') {
                continue;
            }
            let a = a.trim_end();
            return a
                .strip_suffix(':')
                .map(|k| Slot::Item(k.trim().to_string()));
        }
        return None;
    }
    if body.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Some(Slot::Key(item_indent));
    }
    None
}

fn item(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..Default::default()
    }
}

impl Server {
    pub(crate) fn completion(&mut self, p: CompletionParams) -> Option<CompletionResponse> {
        let at = &p.text_document_position;
        let (_, doc) = self.doc(&at.text_document.uri)?;
        let lines = Lines::new(&doc.text);
        let slot = slot(&lines, at.position)?;
        let template = doc.kind == FileKind::Template;
        let items: Vec<CompletionItem> = match (&slot, template) {
            (Slot::Value(k), _) if k == "schema" => {
                let mut names: Vec<&str> = SCHEMAS.to_vec();
                if template {
                    names.extend(TEMPLATE_SCHEMAS);
                }
                names
                    .into_iter()
                    .map(|s| item(s, CompletionItemKind::ENUM_MEMBER, None))
                    .collect()
            }
            (Slot::Value(k), _) if k == "type" => PROPERTY_TYPES
                .iter()
                .map(|s| item(s, CompletionItemKind::ENUM_MEMBER, None))
                .collect(),
            (Slot::Value(k), _)
                if k == "DefaultChannelTypePreference"
                    || k.eq_ignore_ascii_case("defaultchanneltypepreference") =>
            {
                ["major", "minor"]
                    .iter()
                    .map(|s| item(s, CompletionItemKind::ENUM_MEMBER, None))
                    .collect()
            }
            (Slot::Key(indent), true) => {
                let semver = doc.text.contains("olm.semver");
                let keys: &[&str] = match (semver, *indent) {
                    (true, 0) => &SEMVER_KEYS,
                    (true, _) => &["Bundles", "Image"],
                    (false, 0) => &BASIC_KEYS,
                    (false, _) => &[
                        "schema",
                        "package",
                        "name",
                        "image",
                        "defaultChannel",
                        "entries",
                        "replaces",
                        "skips",
                        "skipRange",
                    ],
                };
                keys.iter()
                    .map(|k| item(k, CompletionItemKind::PROPERTY, None))
                    .collect()
            }
            (Slot::Key(indent), false) if *indent > 0 => ENTRY_KEYS
                .iter()
                .map(|k| item(k, CompletionItemKind::PROPERTY, None))
                .collect(),
            _ => self.catalog_completion(at, &slot).unwrap_or_default(),
        };
        (!items.is_empty()).then_some(CompletionResponse::Array(items))
    }

    /// Names from the package being typed in: channels, bundles, a skipRange skeleton.
    fn catalog_completion(
        &self,
        at: &TextDocumentPositionParams,
        slot: &Slot,
    ) -> Option<Vec<CompletionItem>> {
        let (_, cat, file, offset) = self.catalog_at(at)?;
        let package = package_here(cat, file, offset)?;
        let idx = cat.index().package(&package)?;
        let bundles = || {
            idx.bundles
                .iter()
                .map(|&b| {
                    let blob = cat.blob(b);
                    let v = Bundle::read(&blob.value)
                        .ok()
                        .and_then(|x| x.version())
                        .map(str::to_string);
                    item(blob.name(), CompletionItemKind::VALUE, v)
                })
                .collect::<Vec<_>>()
        };
        let channels = || {
            idx.channels
                .iter()
                .map(|&c| {
                    item(
                        cat.blob(c).name(),
                        CompletionItemKind::ENUM,
                        Some("channel".into()),
                    )
                })
                .collect::<Vec<_>>()
        };
        Some(match slot {
            Slot::Value(k) if k == "defaultChannel" => channels(),
            Slot::Value(k) if k == "replaces" || k == "name" => bundles(),
            Slot::Item(k) if k == "skips" => bundles(),
            Slot::Value(k) if k == "skipRange" => skeleton(cat, file, offset)
                .map(|s| {
                    vec![item(
                        &s,
                        CompletionItemKind::SNIPPET,
                        Some("skipRange from the channel's versions".into()),
                    )]
                })
                .unwrap_or_default(),
            _ => return None,
        })
    }
}

/// The package of the blob at `offset` (else the file's first).
fn package_here(cat: &Catalog, file: usize, offset: usize) -> Option<String> {
    let blobs = &cat.files[file].blobs;
    let here = blobs
        .iter()
        .find(|&&b| cat.blob(b).start <= offset && offset <= cat.blob(b).end)
        .or_else(|| blobs.first())?;
    Some(crate::state::owner(cat, *here))
}

/// `>=LOWEST <VERSION`: from the lowest version the channel lists to the version of the entry
/// under the cursor.
fn skeleton(cat: &Catalog, file: usize, offset: usize) -> Option<String> {
    let &blob = cat.files[file]
        .blobs
        .iter()
        .find(|&&b| cat.blob(b).start <= offset && offset <= cat.blob(b).end)?;
    let b = cat.blob(blob);
    let ch = Channel::read(&b.value).ok()?;
    let idx = cat.index().package(b.package())?;
    let version = |name: &str| {
        let id = idx.bundle(name)?;
        Version::parse(Bundle::read(&cat.blob(id).value).ok()?.version()?).ok()
    };
    // The last entry starting before the cursor: a key still without its value may lie past the
    // end the reader gives its mapping.
    let entry = ch
        .entries
        .iter()
        .rfind(|e| e.node.pos().is_real() && e.node.pos().start as usize <= offset)?;
    let top = version(entry.name)?;
    let lowest = ch
        .entries
        .iter()
        .filter_map(|e| version(e.name))
        .filter(|v| *v < top)
        .min()?;
    Some(format!(">={lowest} <{top}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_under_the_cursor() {
        let text = "entries:\n  - name: a\n    replaces: fo\n    skips:\n      - b\n    sk\n";
        let l = Lines::new(text);
        assert_eq!(
            slot(&l, Position::new(2, 16)),
            Some(Slot::Value("replaces".into()))
        );
        assert_eq!(
            slot(&l, Position::new(4, 9)),
            Some(Slot::Item("skips".into()))
        );
        assert_eq!(slot(&l, Position::new(5, 6)), Some(Slot::Key(4)));
        assert_eq!(
            slot(&Lines::new("{\"schema\": \"ol"), Position::new(0, 14)),
            Some(Slot::Value("schema".into()))
        );
    }
}
