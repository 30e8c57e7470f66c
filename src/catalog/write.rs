//! Writing edits back with minimal diffs.
//!
//! Files are never re-rendered. For every changed blob the loaded tree and the edited tree are compared
//! structure by structure, and only the smallest changed pieces are spliced into the original bytes:
//! a changed scalar replaces that scalar's text (keeping its quoting), a new mapping key or sequence
//! item becomes new lines in the indentation its neighbours use, a removed one takes its lines with it.
//! Where a piece cannot be placed safely (a reordered mapping, a flow collection, an edit inside an
//! alias) the smallest enclosing node is written anew in the document's own style. Untouched blobs and
//! files keep every byte.

use std::cell::RefCell;
use std::fs;

use super::commit::{self, CommitError, CommitOptions, Expect, PlannedFile, Refusal};
use super::decode::Format;
use super::json::{JsonStyle, write_json};
use super::node::{Entry, Kind, Node, Str, Style};
use super::yaml::{self, YamlStyle};
use super::{BlobState, Catalog, FileId};
use crate::text::escape::write_json_string;

/// Why a save or a preview failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{path}: changed on disk since it was loaded; reload before saving")]
    ChangedOnDisk { path: String },
    #[error("{path}: already exists on disk; it was not there when the catalog was loaded")]
    Exists { path: String },
    #[error("{path}: has load errors and is never rewritten; fix it by hand first")]
    NotClean { path: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A long value left on disk when the catalog was loaded cannot be read back.
    #[error("{path}: a value kept on disk cannot be read back ({source})")]
    Unreadable {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Two changes of one file overlap: writing either would corrupt the other.
    #[error("{path}: two changes overlap at byte {at} (please report this)")]
    Overlap { path: String, at: usize },
    #[error(transparent)]
    Commit(CommitError),
}

impl From<CommitError> for WriteError {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::Refused {
                path,
                why: Refusal::ChangedOnDisk,
            } => WriteError::ChangedOnDisk { path },
            CommitError::Refused {
                path,
                why: Refusal::Exists,
            } => WriteError::Exists { path },
            e => WriteError::Commit(e),
        }
    }
}

impl WriteError {
    /// Whether the save stopped before writing anything (else the message says what became of each file).
    pub fn wrote_nothing(&self) -> bool {
        !matches!(self, WriteError::Commit(CommitError::Failed { .. }))
    }

    /// Whether the save was refused only because a file is read-only (forcing it would write).
    pub fn is_read_only(&self) -> bool {
        matches!(
            self,
            WriteError::Commit(CommitError::Refused {
                why: Refusal::ReadOnly,
                ..
            })
        )
    }
}

/// One byte-range replacement of the original text.
#[derive(Debug)]
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

/// What a save did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SaveReport {
    /// Relative paths of the files written, in catalog order.
    pub written: Vec<String>,
}

struct Ctx<'a> {
    text: &'a str,
    resolve: &'a dyn Fn(&Str) -> String,
    yaml: YamlStyle,
    json: JsonStyle,
    json_unit: usize,
}

impl Catalog {
    /// Reads a file's current bytes and checks they are still what was loaded.
    fn read_unchanged(&self, file: FileId) -> Result<String, WriteError> {
        let f = &self.files[file];
        if f.created {
            if f.abs.exists() {
                return Err(WriteError::Exists {
                    path: f.path.clone(),
                });
            }
            return Ok(String::new());
        }
        if !f.clean {
            return Err(WriteError::NotClean {
                path: f.path.clone(),
            });
        }
        let bytes = fs::read(&f.abs).map_err(|source| WriteError::Io {
            path: f.path.clone(),
            source,
        })?;
        if bytes.len() as u64 != f.len || xxhash_rust::xxh3::xxh3_64(&bytes) != f.hash {
            return Err(WriteError::ChangedOnDisk {
                path: f.path.clone(),
            });
        }
        String::from_utf8(bytes).map_err(|_| WriteError::ChangedOnDisk {
            path: f.path.clone(),
        })
    }

    /// The text `file` would have after saving.
    pub fn render_file(&self, file: FileId) -> Result<String, WriteError> {
        let original = self.read_unchanged(file)?;
        self.render_text(file, &original)
    }

    /// Old and new text of every file a save would write, in catalog order.
    pub fn pending_changes(&self) -> Result<Vec<(FileId, String, String)>, WriteError> {
        let mut out = Vec::new();
        for f in self.dirty_files() {
            let old = self.read_unchanged(f)?;
            let new = self.render_text(f, &old)?;
            let created = self.files[f].created
                && self.files[f]
                    .blobs
                    .iter()
                    .any(|&b| self.blobs[b].state != super::BlobState::Removed);
            if new != old || created {
                out.push((f, old, new));
            }
        }
        Ok(out)
    }

    /// A unified diff of everything a save would write.
    pub fn preview(&self) -> Result<String, WriteError> {
        let mut out = String::new();
        for (f, old, new) in self.pending_changes()? {
            let path = &self.files[f].path;
            let diff = similar::TextDiff::from_lines(&old, &new);
            let old_name = if self.files[f].created {
                "/dev/null".to_string()
            } else {
                format!("a/{path}")
            };
            out.push_str(
                &diff
                    .unified_diff()
                    .context_radius(3)
                    .header(&old_name, &format!("b/{path}"))
                    .to_string(),
            );
        }
        Ok(out)
    }

    /// Writes every changed file, all or nothing (see [`commit`]), and reloads the catalog. Refuses,
    /// writing nothing, when any file to be written changed on disk since it was loaded, is read-only,
    /// or lies behind a symbolic link that could lead outside the catalog.
    pub fn save(&mut self) -> Result<SaveReport, WriteError> {
        self.save_with(&CommitOptions::default())
    }

    /// [`Catalog::save`] with options (forcing read-only files, injecting failures in tests).
    pub fn save_with(&mut self, options: &CommitOptions) -> Result<SaveReport, WriteError> {
        let report = self.write_changes(options)?;
        let reloaded = super::load(&self.root).map_err(|e| WriteError::Io {
            path: ".".into(),
            source: std::io::Error::other(e.to_string()),
        })?;
        *self = reloaded;
        Ok(report)
    }

    /// Writes every changed file, all or nothing, and leaves the catalog as it is in memory (for a
    /// command that ends after writing; reload before editing it further).
    pub fn write_changes(&self, options: &CommitOptions) -> Result<SaveReport, WriteError> {
        let planned = self.plan_changes()?;
        commit::commit(&self.root, &planned, options)?;
        Ok(SaveReport {
            written: planned.into_iter().map(|p| p.rel).collect(),
        })
    }

    /// The files a save would write, with what each must find on disk (paths relative to the root),
    /// to be committed alone or with other files.
    pub fn plan_changes(&self) -> Result<Vec<PlannedFile>, WriteError> {
        let changes = self.pending_changes()?;
        let planned: Vec<PlannedFile> = changes
            .into_iter()
            .map(|(f, _, new)| {
                let file = &self.files[f];
                PlannedFile {
                    rel: file.path.clone(),
                    bytes: new.into_bytes(),
                    expect: if file.created {
                        Expect::Absent
                    } else {
                        Expect::Unchanged {
                            len: file.len,
                            hash: file.hash,
                        }
                    },
                }
            })
            .collect();
        Ok(planned)
    }

    fn render_text(&self, file: FileId, original: &str) -> Result<String, WriteError> {
        let f = &self.files[file];
        // A long value left on disk is read from this file's text when it is in it (the text was just
        // checked to be what was loaded), else from its own file. A value that cannot be read stops the
        // save: writing anything else in its place would lose it.
        let unreadable: RefCell<Option<std::io::Error>> = RefCell::new(None);
        let resolve = |s: &Str| -> String {
            let got = match *s {
                Str::Deferred {
                    file: of,
                    start,
                    len,
                } if of as usize == file => original
                    .get(start as usize..(start as usize + len as usize))
                    .map(str::to_string)
                    .ok_or_else(|| std::io::Error::other("its place in the file is gone")),
                _ => self.resolve(s),
            };
            got.unwrap_or_else(|e| {
                unreadable.borrow_mut().get_or_insert(e);
                String::new()
            })
        };
        let mut splices: Vec<Splice> = Vec::new();
        // Where the next added blob goes: after the previous blob of the file (for a removed blob, where
        // its text started), written in that blob's format.
        let mut cursor = 0usize;
        let mut cursor_format = f.format.unwrap_or(Format::Yaml);
        let mut seen_original = false;
        let mut pending: Vec<usize> = Vec::new();
        let flush =
            |pending: &mut Vec<usize>, at: usize, format: Format, splices: &mut Vec<Splice>| {
                if pending.is_empty() {
                    return;
                }
                let at = at.min(original.len());
                let at_line_start = at == 0 || original[..at].ends_with('\n');
                let mut text = String::new();
                // After the last blob of a file that does not end with a newline.
                if !at_line_start && at == original.len() {
                    text.push('\n');
                }
                for &b in pending.iter() {
                    let blob = &self.blobs[b];
                    match format {
                        Format::Yaml => {
                            if !(original.is_empty() && text.is_empty()) {
                                text.push_str("---\n");
                            }
                            yaml::write_document(
                                &mut text,
                                &blob.value,
                                self.doc_yaml_style(file),
                                &resolve,
                            );
                        }
                        Format::Json => {
                            let style = self.file_json_style(file, original);
                            write_json(&mut text, &blob.value, style, 0, &resolve);
                            text.push('\n');
                        }
                    }
                }
                // JSON right after the previous object's closing brace: keep its newline after ours.
                if format == Format::Json && !at_line_start && at < original.len() {
                    text.insert(0, '\n');
                    text.pop();
                }
                splices.push(Splice {
                    start: at,
                    end: at,
                    text,
                });
                pending.clear();
            };
        for &b in &f.blobs {
            let blob = &self.blobs[b];
            match blob.state {
                BlobState::Added => pending.push(b),
                BlobState::Removed if f.created => {}
                BlobState::Removed => {
                    flush(&mut pending, cursor, cursor_format, &mut splices);
                    let cut = removal(original, blob.format, blob.start, blob.end);
                    cursor = cut.start;
                    cursor_format = blob.format;
                    splices.push(cut);
                    seen_original = true;
                }
                BlobState::Loaded => {
                    flush(&mut pending, cursor, cursor_format, &mut splices);
                    if let Some(old) = blob.original.as_ref().filter(|o| **o != blob.value) {
                        let ctx = Ctx {
                            text: original,
                            resolve: &resolve,
                            yaml: YamlStyle::detect(old),
                            json: json_style_of(original, old),
                            json_unit: json_style_of(original, old).indent.len().max(1),
                        };
                        if blob.has_anchors {
                            // Anchors and aliases cannot be patched safely: write the document anew,
                            // with aliases expanded.
                            rewrite_yaml_root(&ctx, old, &blob.value, &mut splices);
                        } else {
                            patch_root(&ctx, blob.format, old, &blob.value, &mut splices);
                        }
                    }
                    cursor = blob.end;
                    cursor_format = blob.format;
                    seen_original = true;
                }
            }
        }
        let end = if seen_original {
            cursor
        } else {
            original.len()
        };
        flush(&mut pending, end, cursor_format, &mut splices);
        if let Some(source) = unreadable.into_inner() {
            return Err(WriteError::Unreadable {
                path: f.path.clone(),
                source,
            });
        }
        apply(original, splices).map_err(|at| WriteError::Overlap {
            path: f.path.clone(),
            at,
        })
    }

    fn doc_yaml_style(&self, file: FileId) -> YamlStyle {
        self.files[file]
            .blobs
            .iter()
            .map(|&b| &self.blobs[b])
            .find(|b| b.state == BlobState::Loaded)
            .map(|b| YamlStyle::detect(b.original.as_ref().unwrap_or(&b.value)))
            .unwrap_or_default()
    }

    fn file_json_style(&self, file: FileId, original: &str) -> JsonStyle {
        self.files[file]
            .blobs
            .iter()
            .map(|&b| &self.blobs[b])
            .find(|b| b.state == BlobState::Loaded)
            .map(|b| json_style_of(original, b.original.as_ref().unwrap_or(&b.value)))
            .unwrap_or(JsonStyle::OPM)
    }
}

/// Applies the splices to the original text; the offset where two of them overlap is an error.
fn apply(original: &str, mut splices: Vec<Splice>) -> Result<String, usize> {
    splices.sort_by_key(|s| (s.start, s.end));
    let crlf = crlf_majority(original);
    let mut out = String::with_capacity(original.len() + 256);
    let mut at = 0usize;
    for s in splices {
        if s.start < at {
            // Neighbouring cuts may overlap; extend the cut. Anything else would corrupt text.
            if s.text.is_empty() {
                at = at.max(s.end);
                continue;
            }
            return Err(s.start);
        }
        out.push_str(&original[at..s.start]);
        if crlf {
            out.push_str(&s.text.replace("\r\n", "\n").replace('\n', "\r\n"));
        } else {
            out.push_str(&s.text);
        }
        at = s.end;
    }
    out.push_str(&original[at..]);
    Ok(out)
}

/// Whether most lines of `text` end with CRLF (new lines then do too).
fn crlf_majority(text: &str) -> bool {
    let lf = text.bytes().filter(|&c| c == b'\n').count();
    let crlf = text.matches("\r\n").count();
    crlf * 2 > lf
}

/// The bytes to cut for a removed blob: its document and the separator or whitespace that goes with it.
fn removal(text: &str, format: Format, start: usize, end: usize) -> Splice {
    let b = text.as_bytes();
    match format {
        Format::Yaml => {
            // Take the `---` line in front of the chunk with it. A first chunk leaves the following
            // separator, so the file then starts with `---` (an empty first document, skipped).
            let mut s = start;
            if s > 0 {
                let prev_line = line_start(text, s - 1);
                if text[prev_line..s].starts_with("---") {
                    s = prev_line;
                }
            }
            Splice {
                start: s,
                end,
                text: String::new(),
            }
        }
        Format::Json => {
            let mut e = end;
            while e < b.len() && matches!(b[e], b' ' | b'\t' | b'\r') {
                e += 1;
            }
            if e < b.len() && b[e] == b'\n' {
                e += 1;
            }
            Splice {
                start,
                end: e,
                text: String::new(),
            }
        }
    }
}

fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// Index just past the newline ending the line that holds `pos` (or the end of the text).
fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

/// Whether only whitespace precedes `pos` on its line.
fn owns_line(text: &str, pos: usize) -> bool {
    text[line_start(text, pos)..pos]
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
}

fn line_indent(text: &str, pos: usize) -> &str {
    let s = line_start(text, pos);
    let rest = &text[s..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}

/// The JSON indentation a blob uses: the distance from its `{` to its first key, when on another line.
fn json_style_of(text: &str, root: &Node) -> JsonStyle {
    let Some(first) = root.as_map().and_then(|m| m.first()) else {
        return JsonStyle::OPM;
    };
    if !first.key.pos.is_real() || first.key.pos.line == root.pos.line {
        return JsonStyle::COMPACT;
    }
    let key_indent = line_indent(text, first.key.pos.start as usize);
    let root_indent = line_indent(text, root.pos.start as usize);
    let tabs = key_indent.starts_with('\t');
    let width = key_indent.len().saturating_sub(root_indent.len()).max(1);
    JsonStyle::from_width(width, tabs)
}

fn patch_root(ctx: &Ctx, format: Format, old: &Node, new: &Node, out: &mut Vec<Splice>) {
    match format {
        Format::Json => json_patch(ctx, old, new, out),
        Format::Yaml => {
            let mut local = Vec::new();
            if yaml_patch(ctx, old, new, &mut local) {
                out.append(&mut local);
            } else {
                rewrite_yaml_root(ctx, old, new, out);
            }
        }
    }
}

/// Rewrites a whole YAML document in its own style. A document written as JSON (a JSON file read as
/// YAML, as behind a byte order mark) is written as JSON again, in place, keeping what precedes it.
fn rewrite_yaml_root(ctx: &Ctx, old: &Node, new: &Node, out: &mut Vec<Splice>) {
    let start = old.pos.start as usize;
    if ctx.text.get(start..).is_some_and(|t| t.starts_with('{')) {
        let mut text = String::new();
        super::json::write_json(&mut text, new, ctx.json, 0, ctx.resolve);
        out.push(Splice {
            start,
            end: old.pos.end as usize,
            text,
        });
        return;
    }
    let col = old.pos.col.saturating_sub(1) as usize;
    let mut text = String::new();
    yaml::write_block(&mut text, new, col, ctx.yaml, ctx.resolve);
    out.push(Splice {
        start: line_start(ctx.text, old.pos.start as usize),
        end: end_with_comment(ctx.text, old.pos.end as usize),
        text,
    });
}

/// Extends `end` over a trailing `# comment` on the same line, so a rewrite that spans several lines
/// does not pull the comment into its last value.
fn end_with_comment(text: &str, end: usize) -> usize {
    let eol = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let rest = text[end..eol].trim_end_matches('\r');
    if rest.trim_start().starts_with('#') {
        end + rest.len()
    } else {
        end
    }
}

/// How the kept elements of a collection line up with the new ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Old element `i` is new element `j` (possibly changed inside).
    Keep(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// Aligns old and new elements. Map entries align by key; sequence items by equality (longest common
/// subsequence), with leftover deletions and insertions in the same gap paired up as changes.
fn align_seq(old: &[Node], new: &[Node]) -> Vec<Op> {
    let (n, m) = (old.len(), new.len());
    // Common prefix and suffix first: most edits touch one end.
    let mut pre = 0;
    while pre < n && pre < m && old[pre] == new[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < n - pre && suf < m - pre && old[n - 1 - suf] == new[m - 1 - suf] {
        suf += 1;
    }
    let (o, w) = (&old[pre..n - suf], &new[pre..m - suf]);
    let mut ops: Vec<Op> = (0..pre).map(|i| Op::Keep(i, i)).collect();
    let mid = if o.len() * w.len() > 4_000_000 {
        // Too big to align precisely: treat as replaced wholesale.
        let mut v: Vec<Op> = (0..o.len()).map(Op::Delete).collect();
        v.extend((0..w.len()).map(Op::Insert));
        v
    } else {
        lcs(o, w)
    };
    let mid = pair_changes(mid);
    ops.extend(mid.into_iter().map(|op| match op {
        Op::Keep(i, j) => Op::Keep(i + pre, j + pre),
        Op::Delete(i) => Op::Delete(i + pre),
        Op::Insert(j) => Op::Insert(j + pre),
    }));
    ops.extend((0..suf).map(|k| Op::Keep(n - suf + k, m - suf + k)));
    ops
}

fn lcs(o: &[Node], w: &[Node]) -> Vec<Op> {
    let (n, m) = (o.len(), w.len());
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if o[i] == w[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < n || j < m {
        if i < n && j < m && o[i] == w[j] {
            ops.push(Op::Keep(i, j));
            i += 1;
            j += 1;
        } else if j < m && (i == n || t[i * (m + 1) + j + 1] >= t[(i + 1) * (m + 1) + j]) {
            ops.push(Op::Insert(j));
            j += 1;
        } else {
            ops.push(Op::Delete(i));
            i += 1;
        }
    }
    ops
}

/// Within each run between kept elements, pairs deletions with insertions as in-place changes.
fn pair_changes(ops: Vec<Op>) -> Vec<Op> {
    let mut out = Vec::with_capacity(ops.len());
    let mut k = 0;
    while k < ops.len() {
        if let Op::Keep(..) = ops[k] {
            out.push(ops[k]);
            k += 1;
            continue;
        }
        let start = k;
        while k < ops.len() && !matches!(ops[k], Op::Keep(..)) {
            k += 1;
        }
        let run = &ops[start..k];
        let dels: Vec<usize> = run
            .iter()
            .filter_map(|o| {
                if let Op::Delete(i) = o {
                    Some(*i)
                } else {
                    None
                }
            })
            .collect();
        let ins: Vec<usize> = run
            .iter()
            .filter_map(|o| {
                if let Op::Insert(j) = o {
                    Some(*j)
                } else {
                    None
                }
            })
            .collect();
        let pairs = dels.len().min(ins.len());
        for p in 0..pairs {
            out.push(Op::Keep(dels[p], ins[p]));
        }
        out.extend(dels[pairs..].iter().map(|&i| Op::Delete(i)));
        out.extend(ins[pairs..].iter().map(|&j| Op::Insert(j)));
    }
    out
}

/// Aligns map entries by key, or `None` when kept keys changed order (then the map is rewritten).
fn align_map(old: &[Entry], new: &[Entry]) -> Option<Vec<Op>> {
    let find = |k: &str| old.iter().position(|e| e.key_str() == k);
    let mut ops = Vec::new();
    let mut last_old: Option<usize> = None;
    let mut used = vec![false; old.len()];
    for (j, e) in new.iter().enumerate() {
        match find(e.key_str()) {
            Some(i) => {
                if last_old.is_some_and(|l| i <= l) || used[i] {
                    return None;
                }
                // Deleted keys that came before this one in the old map.
                for (d, u) in used.iter_mut().enumerate().take(i) {
                    if !*u && last_old.is_none_or(|l| d > l) {
                        ops.push(Op::Delete(d));
                        *u = true;
                    }
                }
                ops.push(Op::Keep(i, j));
                used[i] = true;
                last_old = Some(i);
            }
            None => ops.push(Op::Insert(j)),
        }
    }
    for (d, u) in used.iter().enumerate() {
        if !*u {
            ops.push(Op::Delete(d));
        }
    }
    // Deletions pushed at the end must stay after every kept element for insertion anchors to work.
    Some(ops)
}

// ---------------------------------------------------------------------------------------------- JSON

fn json_level(ctx: &Ctx, node: &Node) -> usize {
    if ctx.json.indent.is_empty() {
        return 0;
    }
    line_indent(ctx.text, node.pos.start as usize).len() / ctx.json_unit
}

fn json_emit(ctx: &Ctx, node: &Node, level: usize) -> String {
    let mut s = String::new();
    write_json(&mut s, node, ctx.json, level, ctx.resolve);
    s
}

/// Element `k` of a JSON container: its byte range.
fn json_elem_range(old: &Node, k: usize) -> (usize, usize) {
    match &old.kind {
        Kind::Map(entries) => (
            entries[k].key.pos.start as usize,
            entries[k].value.pos.end as usize,
        ),
        Kind::Seq(items) => (items[k].pos.start as usize, items[k].pos.end as usize),
        _ => (0, 0),
    }
}

fn json_patch(ctx: &Ctx, old: &Node, new: &Node, out: &mut Vec<Splice>) {
    if old == new {
        return;
    }
    let replace_whole = |out: &mut Vec<Splice>| {
        out.push(Splice {
            start: old.pos.start as usize,
            end: old.pos.end as usize,
            text: json_emit(ctx, new, json_level(ctx, old)),
        })
    };
    if !old.pos.is_real() {
        return replace_whole(out);
    }
    let ops = match (&old.kind, &new.kind) {
        (Kind::Map(o), Kind::Map(n)) if !o.is_empty() => match align_map(o, n) {
            Some(ops) => ops,
            None => return replace_whole(out),
        },
        (Kind::Seq(o), Kind::Seq(n)) if !o.is_empty() => align_seq(o, n),
        _ => return replace_whole(out),
    };
    let count = match &old.kind {
        Kind::Map(o) => o.len(),
        Kind::Seq(o) => o.len(),
        _ => 0,
    };
    let deletes: Vec<usize> = ops
        .iter()
        .filter_map(|o| {
            if let Op::Delete(i) = o {
                Some(*i)
            } else {
                None
            }
        })
        .collect();
    let has_insert = ops.iter().any(|o| matches!(o, Op::Insert(_)));
    if deletes.len() == count || (!deletes.is_empty() && has_insert) {
        return replace_whole(out);
    }
    // Separator between elements as written (newline + indentation, or nothing on one line).
    let (s0, _) = json_elem_range(old, 0);
    let sep = if owns_line(ctx.text, s0) {
        format!("\n{}", line_indent(ctx.text, s0))
    } else if ctx.text[..s0].ends_with(' ') {
        " ".to_string()
    } else {
        String::new()
    };
    let level = if owns_line(ctx.text, s0) {
        line_indent(ctx.text, s0).len() / ctx.json_unit
    } else {
        0
    };
    let emit_elem = |j: usize| -> String {
        let mut s = String::new();
        match &new.kind {
            Kind::Map(n) => {
                write_json_string(&mut s, n[j].key_str(), false);
                s.push(':');
                if !ctx.json.indent.is_empty() || !sep.is_empty() {
                    s.push(' ');
                }
                s.push_str(&json_emit(ctx, &n[j].value, level));
            }
            Kind::Seq(n) => s.push_str(&json_emit(ctx, &n[j], level)),
            _ => {}
        }
        s
    };
    let mut anchor: Option<usize> = None; // last old element placed before the cursor
    let mut leading = String::new(); // inserts before the first old element
    let mut after: Vec<(usize, String)> = Vec::new();
    for op in &ops {
        match *op {
            Op::Keep(i, j) => {
                match (&old.kind, &new.kind) {
                    (Kind::Map(o), Kind::Map(n)) => json_patch(ctx, &o[i].value, &n[j].value, out),
                    (Kind::Seq(o), Kind::Seq(n)) => json_patch(ctx, &o[i], &n[j], out),
                    _ => {}
                }
                anchor = Some(i);
            }
            Op::Insert(j) => match anchor {
                None => {
                    leading.push_str(&emit_elem(j));
                    leading.push(',');
                    leading.push_str(&sep);
                }
                Some(i) => after.push((i, format!(",{sep}{}", emit_elem(j)))),
            },
            Op::Delete(_) => {}
        }
    }
    // Runs of neighbouring deletions go out as one cut each: up to the next kept element, or, for a
    // run that ends the container, from the end of the element before it (taking its comma).
    let mut sorted = deletes.clone();
    sorted.sort_unstable();
    let mut k = 0;
    while k < sorted.len() {
        let a = sorted[k];
        let mut b = a;
        while k + 1 < sorted.len() && sorted[k + 1] == b + 1 {
            k += 1;
            b += 1;
        }
        k += 1;
        let (start, end) = if b + 1 < count {
            (json_elem_range(old, a).0, json_elem_range(old, b + 1).0)
        } else {
            (json_elem_range(old, a - 1).1, json_elem_range(old, b).1)
        };
        out.push(Splice {
            start,
            end,
            text: String::new(),
        });
    }
    if !leading.is_empty() {
        out.push(Splice {
            start: s0,
            end: s0,
            text: leading,
        });
    }
    // Several inserts after the same element go out as one splice, in order.
    let mut k = 0;
    while k < after.len() {
        let i = after[k].0;
        let mut text = String::new();
        while k < after.len() && after[k].0 == i {
            text.push_str(&after[k].1);
            k += 1;
        }
        let (_, e) = json_elem_range(old, i);
        out.push(Splice {
            start: e,
            end: e,
            text,
        });
    }
}

// ---------------------------------------------------------------------------------------------- YAML

fn is_scalar(n: &Node) -> bool {
    !matches!(n.kind, Kind::Seq(_) | Kind::Map(_))
}

fn is_empty_collection(n: &Node) -> bool {
    match &n.kind {
        Kind::Seq(v) => v.is_empty(),
        Kind::Map(v) => v.is_empty(),
        _ => false,
    }
}

/// Patches `old` into `new` in place. Returns false when the caller must rewrite the node itself.
fn yaml_patch(ctx: &Ctx, old: &Node, new: &Node, out: &mut Vec<Splice>) -> bool {
    if old == new {
        return true;
    }
    if !old.pos.is_real() {
        return false;
    }
    // Scalars (and flow collections) are replaced where they stand, keeping their quoting.
    let inline_ok = |n: &Node| is_scalar(n) || is_empty_collection(n);
    if (is_scalar(old) && !matches!(old.style, Style::Literal | Style::Folded) && inline_ok(new))
        || old.style == Style::Flow && inline_ok(new)
    {
        if let Kind::String(Str::Inline(s)) = &new.kind
            && s.contains('\n')
        {
            return false;
        }
        let mut text = String::new();
        if old.pos.start == old.pos.end {
            // An empty value (`key:` or `-`) sits right after its indicator.
            text.push(' ');
        }
        yaml::write_inline(&mut text, new, old.style, ctx.resolve);
        out.push(Splice {
            start: old.pos.start as usize,
            end: old.pos.end as usize,
            text,
        });
        return true;
    }
    if old.style != Style::Block {
        return false;
    }
    match (&old.kind, &new.kind) {
        (Kind::Map(o), Kind::Map(n)) if !o.is_empty() && !n.is_empty() => {
            yaml_patch_map(ctx, o, n, out)
        }
        (Kind::Seq(o), Kind::Seq(n)) if !o.is_empty() && !n.is_empty() => {
            yaml_patch_seq(ctx, o, n, out)
        }
        _ => false,
    }
}

fn entry_end(e: &Entry) -> usize {
    e.value.pos.end.max(e.key.pos.end) as usize
}

fn yaml_patch_map(ctx: &Ctx, o: &[Entry], n: &[Entry], out: &mut Vec<Splice>) -> bool {
    let Some(ops) = align_map(o, n) else {
        return false;
    };
    if o.iter().any(|e| !e.key.pos.is_real()) {
        return false;
    }
    let col = o[0].key.pos.col.saturating_sub(1) as usize;
    let elems = BlockElems {
        starts: o.iter().map(|e| e.key.pos.start as usize).collect(),
        ends: o.iter().map(entry_end).collect(),
        col,
        patch: &|i, j, out| yaml_patch(ctx, &o[i].value, &n[j].value, out),
        emit: &|j, text| yaml::write_map_entry(text, &n[j], col, ctx.yaml, ctx.resolve),
    };
    yaml_patch_block(ctx, &ops, &elems, out)
}

fn dash_of(text: &str, item: &Node) -> Option<usize> {
    yaml::dash_before(text, item.pos.start as usize)
}

fn yaml_patch_seq(ctx: &Ctx, o: &[Node], n: &[Node], out: &mut Vec<Splice>) -> bool {
    let mut dashes = Vec::with_capacity(o.len());
    for item in o {
        match dash_of(ctx.text, item) {
            Some(d) if item.pos.is_real() => dashes.push(d),
            _ => return false,
        }
    }
    let col = dashes[0] - line_start(ctx.text, dashes[0]);
    let elems = BlockElems {
        starts: dashes,
        ends: o.iter().map(|i| i.pos.end as usize).collect(),
        col,
        patch: &|i, j, out| yaml_patch(ctx, &o[i], &n[j], out),
        emit: &|j, text| yaml::write_seq_item(text, &n[j], col, ctx.yaml, ctx.resolve),
    };
    yaml_patch_block(ctx, &align_seq(o, n), &elems, out)
}

/// The elements of a block mapping or sequence, as the shared patching code sees them.
struct BlockElems<'a> {
    /// Where each old element starts (its key, or its dash) and ends.
    starts: Vec<usize>,
    ends: Vec<usize>,
    /// Column of the elements' first character.
    col: usize,
    /// Patches old element `i` into new element `j` in place; false when it must be rewritten.
    patch: &'a dyn Fn(usize, usize, &mut Vec<Splice>) -> bool,
    /// Writes new element `j` with the cursor at `col`.
    emit: &'a dyn Fn(usize, &mut String),
}

fn yaml_patch_block(ctx: &Ctx, ops: &[Op], b: &BlockElems, out: &mut Vec<Splice>) -> bool {
    let mut local = Vec::new();
    let mut anchor: Option<usize> = None;
    let mut leading = String::new();
    let mut after: Vec<(usize, String)> = Vec::new();
    for op in ops {
        match *op {
            Op::Keep(i, j) => {
                if !(b.patch)(i, j, &mut local) {
                    let mut text = String::new();
                    (b.emit)(j, &mut text);
                    let end = if text.contains('\n') {
                        end_with_comment(ctx.text, b.ends[i])
                    } else {
                        b.ends[i]
                    };
                    local.push(Splice {
                        start: b.starts[i],
                        end,
                        text,
                    });
                }
                anchor = Some(i);
            }
            Op::Insert(j) => {
                let mut text = " ".repeat(b.col);
                (b.emit)(j, &mut text);
                text.push('\n');
                match anchor {
                    None => leading.push_str(&text),
                    Some(i) => after.push((i, text)),
                }
            }
            Op::Delete(i) => {
                if !owns_line(ctx.text, b.starts[i]) {
                    return false;
                }
                local.push(Splice {
                    start: line_start(ctx.text, b.starts[i]),
                    end: line_end(ctx.text, b.ends[i]),
                    text: String::new(),
                });
            }
        }
    }
    if !leading.is_empty() {
        if !owns_line(ctx.text, b.starts[0]) {
            return false;
        }
        let at = line_start(ctx.text, b.starts[0]);
        local.push(Splice {
            start: at,
            end: at,
            text: leading,
        });
    }
    push_after(ctx, &mut local, after, |i| b.ends[i]);
    out.append(&mut local);
    true
}

/// New lines go after the line that ends element `i`.
fn push_after(
    ctx: &Ctx,
    out: &mut Vec<Splice>,
    after: Vec<(usize, String)>,
    end_of: impl Fn(usize) -> usize,
) {
    let mut k = 0;
    while k < after.len() {
        let i = after[k].0;
        let mut text = String::new();
        while k < after.len() && after[k].0 == i {
            text.push_str(&after[k].1);
            k += 1;
        }
        let at = line_end(ctx.text, end_of(i));
        if at == ctx.text.len() && !ctx.text.ends_with('\n') {
            text.insert(0, '\n');
            text.pop();
        }
        out.push(Splice {
            start: at,
            end: at,
            text,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(start: usize, end: usize, text: &str) -> Splice {
        Splice {
            start,
            end,
            text: text.into(),
        }
    }

    #[test]
    fn overlapping_changes_are_an_error_not_a_skipped_change() {
        let original = "a: 1\nb: 2\nc: 3\n";
        assert_eq!(
            apply(
                original,
                vec![splice(0, 10, "x: 9\n"), splice(5, 15, "y: 8\n")]
            ),
            Err(5)
        );
        // Cuts that only remove text may overlap: the removed range is their union.
        assert_eq!(
            apply(original, vec![splice(0, 10, ""), splice(5, 15, "")]).as_deref(),
            Ok("")
        );
        assert_eq!(
            apply(original, vec![splice(5, 10, "B: 2\n")]).as_deref(),
            Ok("a: 1\nB: 2\nc: 3\n")
        );
    }
}
