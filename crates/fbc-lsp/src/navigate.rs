//! Go to definition, find references, document and workspace symbols.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use fbc_core::catalog::model::{Bundle, Channel, Deprecations};
use fbc_core::catalog::node::Node;
use fbc_core::catalog::{BlobId, Catalog, FileId, schema};
use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams,
    GotoDefinitionResponse, Location, Position, Range, ReferenceParams, SymbolInformation,
    SymbolKind, TextDocumentPositionParams, WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use crate::layout::FileKind;
use crate::locate::{self, Named, Place};
use crate::state::Server;
use crate::text::Lines;
use crate::uri;

/// Places nodes of a catalog as the protocol's locations, each file's lines worked out once.
pub(crate) struct Placer<'c> {
    root: &'c Path,
    cat: &'c Catalog,
    lines: HashMap<FileId, Lines<'c>>,
}

impl<'c> Placer<'c> {
    pub fn new(root: &'c Path, cat: &'c Catalog) -> Placer<'c> {
        Placer {
            root,
            cat,
            lines: HashMap::new(),
        }
    }

    pub fn uri(&self, blob: BlobId) -> lsp_types::Uri {
        uri::from_path(&self.root.join(&self.cat.file_of(blob).path))
    }

    /// The range of `node` of `blob` (the blob's first line when the node has no place).
    pub fn range(&mut self, blob: BlobId, node: &Node) -> Range {
        let file = self.cat.blob(blob).file;
        let p = node.pos();
        if !p.is_real() {
            let l = self.cat.location(blob).line.saturating_sub(1);
            return Range::new(Position::new(l, 0), Position::new(l, 0));
        }
        if let Some(t) = self.cat.overlay_text(file) {
            let lines = self.lines.entry(file).or_insert_with(|| Lines::new(t));
            return lines.range(p.start as usize, p.end as usize);
        }
        let start = Position::new(p.line - 1, p.col.saturating_sub(1));
        let len = p.end.saturating_sub(p.start);
        Range::new(start, Position::new(start.line, start.character + len))
    }

    /// The range of bytes `start..end` of `blob`'s file (its lines when the file is not open).
    pub fn span(&mut self, blob: BlobId, start: usize, end: usize) -> Range {
        let file = self.cat.blob(blob).file;
        if let Some(t) = self.cat.overlay_text(file) {
            let lines = self.lines.entry(file).or_insert_with(|| Lines::new(t));
            return lines.range(start, end);
        }
        let l = self.cat.location(blob).line.saturating_sub(1);
        Range::new(Position::new(l, 0), Position::new(l, 0))
    }

    pub fn location(&mut self, blob: BlobId, node: &Node) -> Location {
        Location::new(self.uri(blob), self.range(blob, node))
    }
}

/// The node that names a blob (its `name`, else the blob).
pub(crate) fn name_node(cat: &Catalog, blob: BlobId) -> &Node {
    let v = &cat.blob(blob).value;
    v.get_field("name").unwrap_or(v)
}

impl Server {
    /// The catalog a document belongs to, the byte offset of a position in it, and its file.
    pub(crate) fn catalog_at(
        &self,
        p: &TextDocumentPositionParams,
    ) -> Option<(&PathBuf, &Catalog, FileId, usize)> {
        let (_, doc) = self.doc(&p.text_document.uri)?;
        let FileKind::Catalog { root, rel } = &doc.kind else {
            return None;
        };
        let (root, r) = self.roots.get_key_value(root)?;
        let cat = r.ws.catalog();
        let file = cat.file_id(rel)?;
        let offset = Lines::new(&doc.text).offset(p.position);
        Some((root, cat, file, offset))
    }

    pub(crate) fn definition(&mut self, p: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
        let at = &p.text_document_position_params;
        if let Some((root, cat, file, offset)) = self.catalog_at(at) {
            let place = locate::place(cat, file, offset)?;
            let named = place.named.as_ref()?;
            let target = locate::definition(cat, &place.package, named)?;
            let mut placer = Placer::new(root, cat);
            return Some(GotoDefinitionResponse::Scalar(
                placer.location(target, name_node(cat, target)),
            ));
        }
        self.template_definition(at)
    }

    /// From an image a template names to the bundle with that image in the catalogs its
    /// repository generated from it (`catalogs/<ocp>/<operator>/catalog.yaml`, newest first).
    fn template_definition(
        &self,
        at: &TextDocumentPositionParams,
    ) -> Option<GotoDefinitionResponse> {
        let (path, doc) = self.doc(&at.text_document.uri)?;
        if doc.kind != FileKind::Template {
            return None;
        }
        let line = Lines::new(&doc.text).line(at.position.line as usize).trim();
        let image = line
            .trim_start_matches("- ")
            .split_once(':')
            .filter(|(k, _)| k.trim().eq_ignore_ascii_case("image"))
            .map(|(_, v)| v.trim().trim_matches(['"', '\'']).to_string())?;
        let op_dir = path.parent()?.parent()?;
        let operator = op_dir.file_name()?.to_str()?;
        let repo = op_dir.parent()?.parent()?;
        let mut versions = fbc_core::repo::check::subdirectories(&repo.join("catalogs")).ok()?;
        versions.sort_by_key(|v| std::cmp::Reverse(fbc_core::validate::profile::parse_ocp(v)));
        for v in versions {
            let file = repo
                .join("catalogs")
                .join(&v)
                .join(operator)
                .join("catalog.yaml");
            let Ok(bytes) =
                fbc_core::guard::file::read_limited(&file, fbc_core::catalog::load::MAX_FILE)
            else {
                continue;
            };
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            let lines = Lines::new(&text);
            for i in 0..lines.count() {
                let l = lines.line(i);
                let t = l.trim_start();
                let Some(v) = t.strip_prefix("image:") else {
                    continue;
                };
                if v.trim().trim_matches(['"', '\'']) == image && l.len() - t.len() == 0 {
                    let start = Position::new(i as u32, 0);
                    let end = Position::new(i as u32, l.encode_utf16().count() as u32);
                    return Some(GotoDefinitionResponse::Scalar(Location::new(
                        uri::from_path(&file),
                        Range::new(start, end),
                    )));
                }
            }
        }
        None
    }

    pub(crate) fn references(&mut self, p: ReferenceParams) -> Option<Vec<Location>> {
        let (root, cat, file, offset) = self.catalog_at(&p.text_document_position)?;
        let place = locate::place(cat, file, offset)?;
        let Some(Named::Bundle(bundle)) = &place.named else {
            return None;
        };
        let idx = cat.index().package(&place.package)?;
        let mut placer = Placer::new(root, cat);
        let mut out = Vec::new();
        if p.context.include_declaration
            && let Some(b) = idx.bundle(bundle)
        {
            out.push(placer.location(b, name_node(cat, b)));
        }
        for &c in &idx.channels {
            let Ok(ch) = Channel::read(&cat.blob(c).value) else {
                continue;
            };
            for e in &ch.entries {
                for key in ["name", "replaces"] {
                    if let Some(n) = e.node.get_field(key)
                        && n.as_str() == Some(bundle)
                    {
                        out.push(placer.location(c, n));
                    }
                }
                for s in e
                    .node
                    .get_field("skips")
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                {
                    if s.as_str() == Some(bundle) {
                        out.push(placer.location(c, s));
                    }
                }
            }
        }
        for &d in &idx.deprecations {
            let Ok(dep) = Deprecations::read(&cat.blob(d).value) else {
                continue;
            };
            for e in dep
                .entries
                .iter()
                .filter(|e| e.schema == schema::BUNDLE && e.name == bundle)
            {
                if let Some(n) = e
                    .node
                    .get_field("reference")
                    .and_then(|r| r.get_field("name"))
                {
                    out.push(placer.location(d, n));
                }
            }
        }
        Some(out)
    }

    pub(crate) fn document_symbols(
        &mut self,
        p: DocumentSymbolParams,
    ) -> Option<DocumentSymbolResponse> {
        let (_, doc) = self.doc(&p.text_document.uri)?;
        let FileKind::Catalog { root, rel } = &doc.kind else {
            return None;
        };
        let r = self.roots.get(root)?;
        let cat = r.ws.catalog();
        let file = cat.file_id(rel)?;
        let mut placer = Placer::new(root, cat);
        let mut packages: Vec<(String, DocumentSymbol)> = Vec::new();
        for &b in &cat.files[file].blobs {
            let blob = cat.blob(b);
            let range = placer.span(b, blob.start, blob.end);
            let selection = placer.range(b, name_node(cat, b));
            let owner = crate::state::owner(cat, b);
            let at = match packages.iter().position(|(n, _)| *n == owner) {
                Some(i) => i,
                None => {
                    packages.push((
                        owner.clone(),
                        symbol(&owner, None, SymbolKind::PACKAGE, range, selection),
                    ));
                    packages.len() - 1
                }
            };
            let parent = &mut packages[at].1;
            parent.range = cover(parent.range, range);
            let child = match blob.schema() {
                schema::PACKAGE => {
                    parent.selection_range = selection;
                    continue;
                }
                schema::CHANNEL => {
                    let mut s = symbol(
                        blob.name(),
                        Some("channel"),
                        SymbolKind::ENUM,
                        range,
                        selection,
                    );
                    if let Ok(ch) = Channel::read(&blob.value) {
                        s.children = Some(
                            ch.entries
                                .iter()
                                .map(|e| {
                                    let r = placer.range(b, e.node);
                                    let sel =
                                        e.node.get_field("name").map_or(r, |n| placer.range(b, n));
                                    let detail = e.replaces.map(|x| format!("replaces {x}"));
                                    symbol(
                                        e.name,
                                        detail.as_deref(),
                                        SymbolKind::ENUM_MEMBER,
                                        r,
                                        sel,
                                    )
                                })
                                .collect(),
                        );
                    }
                    s
                }
                schema::BUNDLE => {
                    let version = Bundle::read(&blob.value).ok().and_then(|b| b.version());
                    symbol(blob.name(), version, SymbolKind::OBJECT, range, selection)
                }
                schema::DEPRECATIONS => {
                    symbol("deprecations", None, SymbolKind::PROPERTY, range, selection)
                }
                other => symbol(other, None, SymbolKind::STRUCT, range, selection),
            };
            parent.children.get_or_insert_with(Vec::new).push(child);
        }
        Some(DocumentSymbolResponse::Nested(
            packages.into_iter().map(|(_, s)| s).collect(),
        ))
    }

    pub(crate) fn workspace_symbols(
        &mut self,
        p: WorkspaceSymbolParams,
    ) -> Option<WorkspaceSymbolResponse> {
        const MOST: usize = 500;
        let query = p.query.to_lowercase();
        let matches = |s: &str| s.to_lowercase().contains(&query);
        let mut out = Vec::new();
        for (root, r) in &self.roots {
            let cat = r.ws.catalog();
            let mut placer = Placer::new(root, cat);
            for idx in cat.index().packages() {
                for &c in &idx.channels {
                    let name = cat.blob(c).name();
                    if matches(name) {
                        out.push(info(
                            name,
                            SymbolKind::ENUM,
                            placer.location(c, name_node(cat, c)),
                            &idx.name,
                        ));
                    }
                }
                for &b in &idx.bundles {
                    let blob = cat.blob(b);
                    let version = Bundle::read(&blob.value).ok().and_then(|x| x.version());
                    if matches(blob.name()) || version.is_some_and(matches) {
                        out.push(info(
                            blob.name(),
                            SymbolKind::OBJECT,
                            placer.location(b, name_node(cat, b)),
                            &idx.name,
                        ));
                    }
                }
                if out.len() >= MOST {
                    break;
                }
            }
        }
        // The rest of the workspace, from the index (catalogs loaded above answer for themselves).
        for (path, symbols) in self.index.files.iter().flatten() {
            if out.len() >= MOST {
                break;
            }
            if self.roots.iter().any(|(root, r)| indexed_in(path, root, r)) {
                continue;
            }
            let file = uri::from_path(path);
            for s in symbols {
                if matches(&s.name) || s.version.as_deref().is_some_and(matches) {
                    let start = Position::new(s.line, s.col);
                    let end = Position::new(s.line, s.col + s.len);
                    out.push(info(
                        &s.name,
                        s.kind,
                        Location::new(file.clone(), Range::new(start, end)),
                        &s.package,
                    ));
                }
            }
        }
        out.truncate(MOST);
        Some(WorkspaceSymbolResponse::Flat(out))
    }
}

/// Whether the file at `path` is one of the loaded catalog `r`'s, at `root`.
fn indexed_in(path: &Path, root: &Path, r: &crate::state::CatalogRoot) -> bool {
    path.strip_prefix(root).is_ok_and(|rel| {
        let rel = rel.to_string_lossy().replace('\\', "/");
        r.ws.catalog().file_id(&rel).is_some()
    })
}

fn cover(a: Range, b: Range) -> Range {
    let start = if (b.start.line, b.start.character) < (a.start.line, a.start.character) {
        b.start
    } else {
        a.start
    };
    let end = if (b.end.line, b.end.character) > (a.end.line, a.end.character) {
        b.end
    } else {
        a.end
    };
    Range::new(start, end)
}

#[allow(deprecated)]
fn symbol(
    name: &str,
    detail: Option<&str>,
    kind: SymbolKind,
    range: Range,
    selection: Range,
) -> DocumentSymbol {
    DocumentSymbol {
        name: if name.is_empty() {
            "(unnamed)".into()
        } else {
            name.to_string()
        },
        detail: detail.map(str::to_string),
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: if contains(range, selection) {
            selection
        } else {
            range
        },
        children: None,
    }
}

fn contains(outer: Range, inner: Range) -> bool {
    let le = |a: Position, b: Position| (a.line, a.character) <= (b.line, b.character);
    le(outer.start, inner.start) && le(inner.end, outer.end)
}

#[allow(deprecated)]
fn info(name: &str, kind: SymbolKind, location: Location, package: &str) -> SymbolInformation {
    SymbolInformation {
        name: name.to_string(),
        kind,
        tags: None,
        deprecated: None,
        location,
        container_name: Some(package.to_string()),
    }
}

/// The place under the cursor, for the other requests.
pub(crate) fn place_at<'s>(
    server: &'s Server,
    at: &TextDocumentPositionParams,
) -> Option<(&'s PathBuf, &'s Catalog, Place<'s>)> {
    let (root, cat, file, offset) = server.catalog_at(at)?;
    Some((root, cat, locate::place(cat, file, offset)?))
}
