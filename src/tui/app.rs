//! The TUI's state and its pure `update`: every change comes in as an [`Action`], and anything that
//! touches the outside world goes out as an [`Effect`], so screens are testable without a terminal.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::Position;
use tui_tree_widget::{TreeItem, TreeState};

use super::keymap::{Command, Key, Keymap, Lookup};
use crate::catalog::commit::CommitOptions;
use crate::catalog::model::{Bundle, Channel, Deprecations, Package};
use crate::catalog::schema;
use crate::catalog::semver_range::Version;
use crate::catalog::{Catalog, Location, Progress, Severity};
use crate::edit::{Edit, Target};
use crate::graph::channel::{ChannelGraph, PackageFacts};
use crate::graph::layout::{Layout, layout};
use crate::validate::Report;
use crate::workspace::SaveError;
use crate::workspace::Workspace;

/// The panes, in Tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Tree,
    Graph,
    Details,
    Problems,
}

const PANES: [Pane; 4] = [Pane::Tree, Pane::Graph, Pane::Details, Pane::Problems];

/// A text being typed at the bottom line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prompt {
    Filter(String),
    Palette(String),
}

/// What is on top of the panes (Esc closes it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    Help,
}

/// What a text typed in a dialog becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputFor {
    /// The skipRange of a bundle being promoted (empty: none).
    PromoteRange {
        package: String,
        channel: String,
        bundle: Promotee,
    },
    /// Then the entries it skips (comma-separated, empty: none).
    PromoteSkips {
        package: String,
        channel: String,
        bundle: Promotee,
        range: Option<String>,
    },
    /// Then what it replaces (prefilled with the current head).
    PromoteReplaces {
        package: String,
        channel: String,
        bundle: Promotee,
        range: Option<String>,
        skips: Vec<String>,
    },
    /// The directory of a bundle to add (Tab completes the path).
    AddBundleDir,
    /// Then its image reference (empty: none).
    AddBundleImage {
        dir: std::path::PathBuf,
    },
    SkipRange {
        package: String,
        channel: String,
        entry: String,
    },
    Skips {
        package: String,
        channel: String,
        entry: String,
    },
    Deprecate {
        package: String,
        target: Target,
    },
    CreateChannel {
        package: String,
        bundle: String,
    },
}

/// What a promote places: a bundle of the catalog, or one rendered from a bundle directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Promotee {
    Existing(String),
    Rendered(Box<serde_json::Value>),
}

impl Promotee {
    pub fn name(&self) -> &str {
        match self {
            Promotee::Existing(n) => n,
            Promotee::Rendered(v) => v.get("name").and_then(|n| n.as_str()).unwrap_or(""),
        }
    }

    /// The version its `olm.package` property gives.
    fn version(&self, l: &Loaded, package: &str) -> Option<crate::catalog::semver_range::Version> {
        match self {
            Promotee::Existing(n) => {
                let idx = l.ws.catalog().index().package(package)?;
                PackageFacts::read(l.ws.catalog(), idx)
                    .versions
                    .get(n)
                    .cloned()
            }
            Promotee::Rendered(v) => {
                let text = v
                    .get("properties")?
                    .as_array()?
                    .iter()
                    .find(|p| p["type"] == "olm.package")?["value"]["version"]
                    .as_str()?;
                crate::catalog::semver_range::Version::parse(text).ok()
            }
        }
    }
}

/// Completes a path prefix to the longest common prefix of the directory entries it matches
/// (directories get a trailing `/`).
pub fn complete_path(text: &str) -> String {
    let (dir, prefix) = match text.rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    let read_from = if dir.is_empty() { "." } else { dir };
    let Ok(entries) = std::fs::read_dir(read_from) else {
        return text.to_string();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.path().is_dir();
            (name.starts_with(prefix) && (!name.starts_with('.') || prefix.starts_with('.')))
                .then(|| if is_dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    let Some(first) = names.first() else {
        return text.to_string();
    };
    let mut common = first.clone();
    for n in &names[1..] {
        let len = common
            .char_indices()
            .zip(n.chars())
            .take_while(|((_, a), b)| a == b)
            .count();
        let cut = common
            .char_indices()
            .nth(len)
            .map_or(common.len(), |(i, _)| i);
        common.truncate(cut);
    }
    format!("{dir}{common}")
}

/// A list to choose from; typing filters it, arrows move, Enter chooses, Esc cancels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picker {
    pub options: Vec<String>,
    pub filter: String,
    pub selected: usize,
}

/// What a key did to a picker.
pub enum Picked {
    Chosen(String),
    Cancelled,
    Open,
}

impl Picker {
    pub fn new(options: Vec<String>) -> Picker {
        Picker {
            options,
            filter: String::new(),
            selected: 0,
        }
    }

    /// The options the filter lets through.
    pub fn shown(&self) -> Vec<&String> {
        self.options
            .iter()
            .filter(|o| o.contains(self.filter.as_str()))
            .collect()
    }

    pub fn key(&mut self, code: KeyCode) -> Picked {
        match code {
            KeyCode::Esc => return Picked::Cancelled,
            KeyCode::Enter => {
                if let Some(o) = self.shown().get(self.selected) {
                    return Picked::Chosen((*o).clone());
                }
            }
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.shown().len().saturating_sub(1))
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Backspace => {
                self.filter.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) => {
                self.filter.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        Picked::Open
    }
}

/// A dialog: it says what will happen before it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dialog {
    /// Pick the bundle to promote into a channel.
    PickBundle {
        package: String,
        channel: String,
        picker: Picker,
    },
    Input {
        title: String,
        text: String,
        then: InputFor,
    },
    /// `y` applies the edit.
    Confirm { edit: Edit, lines: Vec<String> },
    /// The diff of what saving writes; `y` writes.
    Write { lines: Vec<String>, scroll: usize },
    /// Quitting with unsaved edits; `y` quits anyway.
    QuitUnsaved,
    /// Pick the channel to promote the selected bundle into.
    PickChannel {
        package: String,
        bundle: String,
        picker: Picker,
    },
    /// A file changed on disk since loading, so nothing was written; `y` reloads (dropping edits).
    Reload { why: String },
    /// A file to write is read-only, so nothing was written; `y` writes anyway.
    ForceWrite { why: String },
    /// A save failed part way: every file and what became of it; any key closes.
    SaveFailed { title: String, lines: Vec<String> },
    /// Pick the channel a rendered bundle goes into (existing channels of its package, and the
    /// channels its annotations name, marked new).
    PickChannelForNew {
        bundle: Box<serde_json::Value>,
        picker: Picker,
    },
}

/// A loaded catalog and what the screens show of it.
pub struct Loaded {
    pub ws: Workspace,
    /// Files a save would write (worked out after each edit, not on every frame).
    pub dirty: Vec<String>,
    pub items: Vec<TreeItem<'static, String>>,
    pub tree: TreeState<String>,
    /// The active filter and the tree paths that match it.
    pub filter: Option<String>,
    pub matches: Vec<Vec<String>>,
    pub problem: usize,
    /// The selected channel's graph and layout, with the scroll offset of the graph pane.
    pub graph: Option<(ChannelGraph, Layout)>,
    pub graph_scroll: usize,
    pub details_scroll: usize,
    /// Review mode: what changed from the older catalog, as lines with the object each is about.
    pub changes: Vec<Change>,
    /// Review mode: the diff the changes come from (the graph pane lists a channel's part of it).
    pub review: crate::diff::CatalogDiff,
    /// The graph pane follows OLM v1's upgrade rules (nothing dropped; the highest successor is
    /// taken) instead of OLM v0's.
    pub olm_v1: bool,
}

/// One line of the review-mode changes pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub text: String,
    /// Tree path of the object (package, channel, entry).
    pub path: Vec<String>,
    /// What the change did to that object, for the marks in the tree and graph.
    pub object: ObjectChange,
    pub tone: Tone,
}

/// How a change line is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Something gained (green).
    Gained,
    /// Something lost (red).
    Lost,
    Neutral,
}

/// What a change did to the object its path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectChange {
    Added,
    Removed,
    /// Changed, or only where to look (an edge, a head, a deprecation).
    Changed,
}

/// The changes of a semantic diff as pane lines.
pub fn changes(d: &crate::diff::CatalogDiff) -> Vec<Change> {
    use ObjectChange::{Added, Changed, Removed};
    use Tone::{Gained, Lost, Neutral};
    let mut out = Vec::new();
    let mut push = |text: String, path: Vec<String>, object: ObjectChange, tone: Tone| {
        out.push(Change {
            text,
            path,
            object,
            tone,
        })
    };
    for p in &d.packages {
        let pkg = vec![p.name.clone()];
        let (object, tone) = match p.change {
            "added" => (Added, Gained),
            "removed" => (Removed, Lost),
            _ => (Changed, Neutral),
        };
        push(
            format!("package {} {}", p.name, p.change),
            pkg.clone(),
            object,
            tone,
        );
        if let Some([a, b]) = &p.default_channel {
            push(
                format!("  default channel {a} → {b}"),
                pkg.clone(),
                Changed,
                Neutral,
            );
        }
        let channel = |c: &str| vec![p.name.clone(), c.to_string()];
        let entry = |c: &str, e: &str| vec![p.name.clone(), c.to_string(), e.to_string()];
        for c in &p.channels_added {
            push(format!("  + channel {c}"), channel(c), Added, Gained);
        }
        for c in &p.channels_removed {
            push(format!("  - channel {c}"), channel(c), Removed, Lost);
        }
        for c in &p.channels {
            if let Some([a, b]) = &c.head {
                push(
                    format!(
                        "  {}: head {} → {}",
                        c.name,
                        a.as_deref().unwrap_or("-"),
                        b.as_deref().unwrap_or("-")
                    ),
                    channel(&c.name),
                    Changed,
                    Neutral,
                );
            }
            for e in &c.entries_added {
                push(
                    format!("  {}: + {e}", c.name),
                    entry(&c.name, e),
                    Added,
                    Gained,
                );
            }
            for e in &c.entries_removed {
                push(
                    format!("  {}: - {e}", c.name),
                    entry(&c.name, e),
                    Removed,
                    Lost,
                );
            }
            for e in &c.edges_added {
                push(
                    format!("  {}: + {} → {} ({})", c.name, e.from, e.to, e.kind),
                    entry(&c.name, &e.to),
                    Changed,
                    Gained,
                );
            }
            for e in &c.edges_removed {
                push(
                    format!("  {}: - {} → {} ({})", c.name, e.from, e.to, e.kind),
                    entry(&c.name, &e.to),
                    Changed,
                    Lost,
                );
            }
            for r in &c.skip_ranges_changed {
                push(
                    format!(
                        "  {}: ~ {} skipRange {} → {}",
                        c.name,
                        r.entry,
                        crate::diff::range_text(&r.old),
                        crate::diff::range_text(&r.new)
                    ),
                    entry(&c.name, &r.entry),
                    Changed,
                    Neutral,
                );
            }
            for e in &c.lost_path {
                push(
                    format!("  {}: ! {e} no longer reaches the head", c.name),
                    entry(&c.name, e),
                    Changed,
                    Lost,
                );
            }
        }
        for dep in &p.deprecations {
            let tone = match (&dep.old, &dep.new) {
                (None, _) => Gained,
                (_, None) => Lost,
                _ => Neutral,
            };
            push(
                format!("  deprecation of {} changed", dep.of),
                pkg.clone(),
                Changed,
                tone,
            );
        }
        for b in &p.bundles_changed {
            push(
                format!(
                    "  ! bundle {} changed (published bundles should not change)",
                    b.name
                ),
                pkg.clone(),
                Changed,
                Neutral,
            );
        }
    }
    out
}

pub enum State {
    Loading(Arc<Progress>),
    Failed(String),
    Ready(Box<Loaded>),
}

/// The template whose rendering is on screen (read-only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateView {
    pub file: PathBuf,
    /// Where bundle images are looked up, when the user did not say.
    pub source_note: Option<String>,
    /// Notes of the last rendering.
    pub notes: Vec<String>,
}

impl TemplateView {
    /// The template's file name, for short messages.
    pub fn name(&self) -> String {
        self.file.file_name().map_or_else(
            || self.file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// The line shown when the rendering is loaded.
    pub fn banner(&self) -> String {
        let mut s = format!(
            "read-only: the rendering of template {}; edit the template to change it",
            self.name()
        );
        for n in self.source_note.iter().chain(&self.notes) {
            s.push_str(" · ");
            s.push_str(n);
        }
        s
    }
}

/// The image whose catalog is on screen (read-only: it lives in the image cache).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageView {
    /// As the user wrote it.
    pub reference: String,
    pub digest: String,
}

impl ImageView {
    /// The line shown when the catalog is loaded.
    pub fn banner(&self) -> String {
        format!(
            "read-only: image {} ({}); :export DIR writes it out as a catalog directory to edit",
            self.reference,
            short_digest(&self.digest)
        )
    }
}

/// `sha256:0123456789ab` from a full digest.
pub fn short_digest(d: &str) -> &str {
    let end = d.find(':').map_or(12, |i| i + 13);
    d.get(..end).unwrap_or(d)
}

pub struct Model {
    pub dir: PathBuf,
    /// Set when the catalog is an image's: edits are refused; `:export DIR` writes a copy.
    pub image: Option<ImageView>,
    /// Set when the catalog is the rendering of a template: edits are refused, and the editor key
    /// opens the template.
    pub template: Option<TemplateView>,
    pub state: State,
    pub focus: Pane,
    pub overlay: Option<Overlay>,
    pub dialog: Option<Dialog>,
    pub prompt: Option<Prompt>,
    pub keymap: Keymap,
    pub pending: Vec<Key>,
    /// A one-line message at the bottom (errors, where a problem is, what was exported).
    pub status: Option<String>,
    /// Review mode: the older catalog, once loaded.
    pub compare: Option<Box<Catalog>>,
    /// Rows of the tree pane, for half-page moves (set by the view).
    pub page: usize,
    pub quit: bool,
    /// How saves proceed (tests inject failures here).
    pub save_options: CommitOptions,
    /// Work under way on a worker (a save, a validation, rendering a bundle): keys wait for it.
    pub busy: Option<String>,
}

/// Everything that can happen.
pub enum Action {
    Key(KeyEvent),
    /// The older catalog of review mode (`--compare OLD`).
    CompareLoaded(Result<Box<Catalog>, String>),
    Mouse(MouseEvent),
    Loaded(Result<Box<Catalog>, String>),
    /// A template was rendered (the catalog follows as `Loaded`), with its notes.
    Rendered(Vec<String>),
    /// The catalog was copied out (`:export DIR`): what to tell the user.
    Exported(String),
    /// What a save would write, as a unified diff (empty: nothing), or why it cannot be worked out.
    Previewed(Result<String, SaveError>),
    /// A save ended: what was written and the catalog as read back, or why nothing (or not
    /// everything) was written.
    Saved(Result<Saved, SaveError>),
    /// Whether a directory given to add a bundle from is a registry+v1 bundle directory.
    BundleDirChecked {
        dir: PathBuf,
        is_bundle: bool,
    },
    /// A bundle directory rendered with the channels its annotations name, or why it does not.
    BundleRendered {
        dir: PathBuf,
        result: Result<(serde_json::Value, Vec<String>), String>,
    },
    /// Tab completion of a path: the text completed and what it became.
    PathCompleted {
        from: String,
        to: String,
    },
    /// The whole catalog validated afresh (`:validate`).
    Validated(Box<crate::validate::Validation>),
    Resize,
    Tick,
}

/// A save that went through: what it wrote, and the catalog read back from disk.
pub struct Saved {
    pub report: crate::catalog::write::SaveReport,
    pub workspace: Box<Workspace>,
}

/// Work for the runtime.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    /// Open this file at this line in `$EDITOR`, then reload.
    OpenEditor { file: PathBuf, line: u32 },
    /// Load (again) the catalog directory.
    Load,
    /// Write an export to a file.
    Export { format: String, file: PathBuf },
    /// Copy the (image's) catalog directory into a new directory.
    ExportCatalog { dir: PathBuf },
    /// Work out what a save would write (comes back as [`Action::Previewed`]).
    Preview,
    /// Write the changes, all or nothing, then read the catalog back and validate it (comes back as
    /// [`Action::Saved`]).
    Save(CommitOptions),
    /// Tell whether a directory is a registry+v1 bundle ([`Action::BundleDirChecked`]).
    CheckBundleDir { dir: PathBuf },
    /// Read and render a bundle directory ([`Action::BundleRendered`]).
    RenderBundle { dir: PathBuf, image: Option<String> },
    /// Complete a path from the directory it names ([`Action::PathCompleted`]).
    CompletePath { text: String },
    /// Validate the whole catalog afresh ([`Action::Validated`]).
    ValidateAll,
}

impl Model {
    pub fn new(dir: PathBuf, keymap: Keymap, progress: Arc<Progress>) -> Model {
        Model {
            dir,
            image: None,
            template: None,
            state: State::Loading(progress),
            focus: Pane::Tree,
            overlay: None,
            dialog: None,
            prompt: None,
            keymap,
            pending: Vec::new(),
            status: None,
            compare: None,
            page: 20,
            quit: false,
            save_options: Default::default(),
            busy: None,
        }
    }

    /// Review mode: works out the changes from the older catalog (when both are loaded).
    pub fn refresh_changes(&mut self) {
        let Some(old) = self.compare.take() else {
            return;
        };
        if let Some(l) = self.loaded_mut() {
            l.review = crate::diff::diff(&old, l.ws.catalog());
            l.changes = changes(&l.review);
            l.refresh();
            if l.changes.is_empty() {
                self.status = Some("no changes from the catalog compared with".into());
            }
        }
        self.compare = Some(old);
    }

    /// Applies an edit to the open catalog; the tree, graph and problems follow.
    pub fn apply_edit(
        &mut self,
        edit: Edit,
    ) -> Result<crate::workspace::Outcome, crate::edit::EditError> {
        let Some(l) = self.loaded_mut() else {
            return Err(crate::edit::EditError::NotLoaded);
        };
        let package = edit.package().to_string();
        let result = l.ws.apply(edit);
        l.refresh_package(&package);
        result
    }

    /// Undoes the last edit; returns what it was.
    pub fn undo(&mut self) -> Option<String> {
        let l = self.loaded_mut()?;
        let package = l.ws.undo_package()?.to_string();
        let what = l.ws.undo();
        l.refresh_package(&package);
        what
    }

    pub fn loaded(&self) -> Option<&Loaded> {
        match &self.state {
            State::Ready(l) => Some(l),
            _ => None,
        }
    }

    fn loaded_mut(&mut self) -> Option<&mut Loaded> {
        match &mut self.state {
            State::Ready(l) => Some(l),
            _ => None,
        }
    }
}

/// The worst severity of the problems of each package, channel and entry, for the tree's markers,
/// gathered in one pass over the report.
#[derive(Default)]
struct Markers {
    packages: HashMap<String, Severity>,
    channels: HashMap<(String, String), Severity>,
    /// (package, bundle, channel or "" for any channel).
    entries: HashMap<(String, String, String), Severity>,
}

impl Markers {
    fn new(report: &Report) -> Markers {
        Markers::of(report, None)
    }

    /// The markers of one package's objects only (or of every package).
    fn of(report: &Report, only: Option<&str>) -> Markers {
        fn worse(slot: &mut Severity, s: Severity) {
            if s < *slot {
                *slot = s;
            }
        }
        let mut m = Markers::default();
        for d in &report.diagnostics {
            let Some(p) = &d.object.package else { continue };
            if only.is_some_and(|o| o != p) {
                continue;
            }
            worse(
                m.packages.entry(p.clone()).or_insert(Severity::Info),
                d.severity,
            );
            let ch = d.object.channel.clone().unwrap_or_default();
            if !ch.is_empty() {
                worse(
                    m.channels
                        .entry((p.clone(), ch.clone()))
                        .or_insert(Severity::Info),
                    d.severity,
                );
            }
            if let Some(b) = &d.object.bundle {
                worse(
                    m.entries
                        .entry((p.clone(), b.clone(), ch))
                        .or_insert(Severity::Info),
                    d.severity,
                );
            }
        }
        m
    }

    fn symbol(s: Option<&Severity>) -> &'static str {
        match s {
            Some(Severity::Error) => "  ✖",
            Some(Severity::Warning) => "  ⚠",
            _ => "",
        }
    }

    fn package(&self, p: &str) -> &'static str {
        Self::symbol(self.packages.get(p))
    }

    fn channel(&self, p: &str, c: &str) -> &'static str {
        Self::symbol(self.channels.get(&(p.to_string(), c.to_string())))
    }

    fn entry(&self, p: &str, c: &str, e: &str) -> &'static str {
        let key = |ch: &str| (p.to_string(), e.to_string(), ch.to_string());
        let here = self.entries.get(&key(c));
        let any = self.entries.get(&key(""));
        Self::symbol(match (here, any) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        })
    }
}

/// Whether an entry matches a filter text: its package, name, version or bundle image.
fn entry_matches(catalog: &Catalog, pkg: &str, entry: &str, needle: &str) -> bool {
    if pkg.to_lowercase().contains(needle) || entry.to_lowercase().contains(needle) {
        return true;
    }
    let Some(id) = catalog.index().bundle(pkg, entry) else {
        return false;
    };
    let Ok(b) = Bundle::read(&catalog.blob(id).value) else {
        return false;
    };
    b.version().is_some_and(|v| v.contains(needle)) || b.image.to_lowercase().contains(needle)
}

/// What the change under review did to the object at a tree path: added or removed (exactly this
/// object), or changed (something at or below it); `None` when untouched or not reviewing.
pub fn review_mark<S: AsRef<str>>(changes: &[Change], path: &[S]) -> Option<ObjectChange> {
    let under = |c: &Change| {
        c.path.len() >= path.len() && c.path.iter().zip(path).all(|(a, b)| a == b.as_ref())
    };
    let mut mark = None;
    for c in changes.iter().filter(|c| under(c)) {
        if c.path.len() == path.len() && c.object != ObjectChange::Changed {
            return Some(c.object);
        }
        mark = Some(ObjectChange::Changed);
    }
    mark
}

/// The tree items (packages → channels → entries), keeping only matches when filtering. In review
/// mode entries carry a `+`/`-` gutter, and the entries the change removed from a channel are
/// listed in it as `- name  removed` ghost rows.
pub fn build_tree(
    catalog: &Catalog,
    report: &Report,
    filter: Option<&str>,
    changes: &[Change],
) -> (Vec<TreeItem<'static, String>>, Vec<Vec<String>>) {
    let needle = filter.map(str::to_lowercase);
    let markers = Markers::new(report);
    let mut items = Vec::new();
    let mut matches = Vec::new();
    for idx in catalog.index().packages() {
        if let Some(item) = package_item(
            catalog,
            idx,
            &markers,
            needle.as_deref(),
            changes,
            &mut matches,
        ) {
            items.push(item);
        }
    }
    (items, matches)
}

/// The tree item of one package (with its channels and entries), and the paths of its entries that
/// match the filter; `None` when the filter leaves nothing of it.
fn package_item(
    catalog: &Catalog,
    idx: &crate::catalog::index::PackageIndex,
    markers: &Markers,
    needle: Option<&str>,
    changes: &[Change],
    matches: &mut Vec<Vec<String>>,
) -> Option<TreeItem<'static, String>> {
    let review = !changes.is_empty();
    let needle = needle.map(str::to_string);
    let pkg = &idx.name;
    let facts = PackageFacts::read(catalog, idx);
    let mut channels = Vec::new();
    let mut names: Vec<(String, crate::catalog::BlobId)> = idx
        .channels
        .iter()
        .map(|&id| (catalog.blob(id).name().to_string(), id))
        .collect();
    names.sort_by(|a, b| {
        (b.0 == facts.default_channel)
            .cmp(&(a.0 == facts.default_channel))
            .then(a.0.cmp(&b.0))
    });
    names.dedup_by(|a, b| a.0 == b.0);
    for (ch_name, id) in names {
        let Some(g) = ChannelGraph::build(catalog, &facts, id) else {
            continue;
        };
        // Newest first, with the entries the change removed as ghost rows at their version.
        let mut rows: Vec<(Option<&Version>, String, String)> = Vec::new();
        for n in g.newest_first() {
            let e = &g.graph[n];
            if let Some(nd) = &needle
                && !entry_matches(catalog, pkg, &e.name, nd)
            {
                continue;
            }
            let mark = review_mark(changes, &[pkg, &ch_name, &e.name]);
            let mut label = match (review, mark) {
                (true, Some(ObjectChange::Added)) => format!("+ {}", e.name),
                (true, _) => format!("  {}", e.name),
                (false, _) => e.name.clone(),
            };
            if e.head {
                label.push_str("  ◉ head");
            }
            if e.deprecated {
                label.push_str("  deprecated");
            }
            label.push_str(markers.entry(pkg, &ch_name, &e.name));
            if mark == Some(ObjectChange::Added) {
                label.push_str("  new");
            }
            rows.push((e.version.as_ref(), e.name.clone(), label));
        }
        let mut ghosts: Vec<(Option<&Version>, &String)> = changes
            .iter()
            .filter(|c| c.object == ObjectChange::Removed)
            .filter_map(|c| match c.path.as_slice() {
                [p, ch, e] if p == pkg && *ch == ch_name => Some(e),
                _ => None,
            })
            // An entry put back since (by an edit in review mode) is no ghost.
            .filter(|e| g.node(e).is_none())
            .filter(|e| {
                needle
                    .as_ref()
                    .is_none_or(|nd| entry_matches(catalog, pkg, e, nd))
            })
            .map(|e| (facts.versions.get(e.as_str()), e))
            .collect();
        ghosts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        ghosts.dedup_by(|a, b| a.1 == b.1);
        for (version, name) in ghosts {
            // Before the first row that is older (or has no version); without a version, last.
            let at = version.map_or(rows.len(), |v| {
                rows.iter()
                    .position(|(w, _, _)| w.is_none_or(|w| w < v))
                    .unwrap_or(rows.len())
            });
            rows.insert(at, (version, name.clone(), format!("- {name}  removed")));
        }
        let mut entries = Vec::with_capacity(rows.len());
        for (_, name, label) in rows {
            matches.push(vec![pkg.clone(), ch_name.clone(), name.clone()]);
            entries.push(TreeItem::new_leaf(name, label));
        }
        if needle.is_some() && entries.is_empty() {
            continue;
        }
        let mut label = format!("{ch_name}  ({})", g.graph.node_count());
        if g.default {
            label.push_str("  ★ default");
        }
        if g.deprecated {
            label.push_str("  deprecated");
        }
        label.push_str(markers.channel(pkg, &ch_name));
        if review_mark(changes, &[pkg, &ch_name]).is_some() {
            label.push_str("  ~ changed");
        }
        if let Ok(item) = TreeItem::new(ch_name.clone(), label, entries) {
            channels.push(item);
        }
    }
    if needle.is_some() && channels.is_empty() {
        return None;
    }
    let mut label = format!(
        "{pkg}  ({} ch, {} bundles)",
        idx.channels.len(),
        idx.bundles.len()
    );
    if facts.deprecated {
        label.push_str("  deprecated");
    }
    label.push_str(markers.package(pkg));
    if review_mark(changes, &[pkg]).is_some() {
        label.push_str("  ~ changed");
    }
    TreeItem::new(pkg.clone(), label, channels).ok()
}

/// The tree item at `path`, if there is one.
fn tree_item<'a>(
    items: &'a [TreeItem<'static, String>],
    path: &[String],
) -> Option<&'a TreeItem<'static, String>> {
    let (first, rest) = path.split_first()?;
    let item = items.iter().find(|i| i.identifier() == first)?;
    if rest.is_empty() {
        Some(item)
    } else {
        tree_item(item.children(), rest)
    }
}

impl Loaded {
    pub fn new(catalog: Catalog) -> Loaded {
        let ws = Workspace::open(catalog);
        let (items, _) = build_tree(ws.catalog(), ws.report(), None, &[]);
        let mut tree = TreeState::default();
        if let Some(first) = items.first() {
            tree.select(vec![first.identifier().clone()]);
        }
        let mut l = Loaded {
            ws,
            dirty: Vec::new(),
            items,
            tree,
            filter: None,
            matches: Vec::new(),
            problem: 0,
            graph: None,
            graph_scroll: 0,
            olm_v1: false,
            details_scroll: 0,
            changes: Vec::new(),
            review: Default::default(),
        };
        l.sync_graph();
        l
    }

    /// Moves the selection `delta` rows in the visible tree (clamped).
    fn move_by(&mut self, delta: isize) {
        let visible = self.tree.flatten(&self.items);
        if visible.is_empty() {
            return;
        }
        let cur = visible
            .iter()
            .position(|f| f.identifier.as_slice() == self.tree.selected());
        let next = match cur {
            None => 0,
            Some(i) => (i as isize + delta).clamp(0, visible.len() as isize - 1) as usize,
        };
        let id = visible[next].identifier.clone();
        self.tree.select(id);
    }

    fn move_to_end(&mut self, last: bool) {
        let visible = self.tree.flatten(&self.items);
        let target = if last {
            visible.last()
        } else {
            visible.first()
        };
        if let Some(f) = target {
            let id = f.identifier.clone();
            self.tree.select(id);
        }
    }

    /// Left: close the selected node, or go to its parent.
    fn go_left(&mut self) {
        let sel = self.tree.selected().to_vec();
        if sel.is_empty() {
            return;
        }
        if !self.tree.close(&sel) && sel.len() > 1 {
            self.tree.select(sel[..sel.len() - 1].to_vec());
        }
    }

    /// Right: open the selected node, or go to its first child.
    fn go_right(&mut self) {
        let sel = self.tree.selected().to_vec();
        if sel.is_empty() {
            return;
        }
        if !self.tree.open(sel.clone()) {
            let visible = self.tree.flatten(&self.items);
            if let Some(i) = visible.iter().position(|f| f.identifier == sel)
                && let Some(next) = visible.get(i + 1)
                && next.identifier.len() > sel.len()
            {
                let id = next.identifier.clone();
                self.tree.select(id);
            }
        }
    }

    /// The selected path: [package, channel, entry] as far as selected.
    pub fn selected(&self) -> &[String] {
        self.tree.selected()
    }

    /// Review mode: what the change did to a channel of both catalogs.
    pub fn channel_review(
        &self,
        package: &str,
        channel: &str,
    ) -> Option<&crate::diff::ChannelDiff> {
        self.review
            .packages
            .iter()
            .find(|p| p.name == package)?
            .channels
            .iter()
            .find(|c| c.name == channel)
    }

    /// Whether `path` is a ghost row: an entry the change under review removed from its channel.
    pub fn is_ghost(&self, path: &[String]) -> bool {
        let [p, c, e] = path else { return false };
        review_mark(&self.changes, path) == Some(ObjectChange::Removed)
            && !self
                .ws
                .catalog()
                .index()
                .package(p)
                .and_then(|idx| idx.channel(c))
                .and_then(|id| Channel::read(&self.ws.catalog().blob(id).value).ok())
                .is_some_and(|ch| ch.entries.iter().any(|x| x.name == e))
    }

    /// Rebuilds the graph of the selected channel when the selection moved to another channel.
    pub fn sync_graph(&mut self) {
        let sel = self.selected().to_vec();
        let (pkg, ch) = match sel.as_slice() {
            [p, c, ..] => (p.clone(), c.clone()),
            [p] => {
                // A package shows its default channel.
                let default = self
                    .ws
                    .catalog()
                    .index()
                    .package(p)
                    .and_then(|idx| idx.packages.first())
                    .and_then(|&id| Package::read(&self.ws.catalog().blob(id).value).ok())
                    .map(|pk| pk.default_channel.to_string())
                    .unwrap_or_default();
                (p.clone(), default)
            }
            [] => {
                self.graph = None;
                return;
            }
        };
        if let Some((g, _)) = &self.graph
            && g.package == pkg
            && g.channel == ch
        {
            return;
        }
        self.graph_scroll = 0;
        self.graph = self.ws.catalog().index().package(&pkg).and_then(|idx| {
            let facts = PackageFacts::read(self.ws.catalog(), idx);
            let id = idx.channel(&ch)?;
            let g = ChannelGraph::build(self.ws.catalog(), &facts, id)?;
            let l = layout(&g);
            Some((g, l))
        });
    }

    fn refilter(&mut self) {
        let (items, matches) = build_tree(
            self.ws.catalog(),
            self.ws.report(),
            self.filter.as_deref(),
            &self.changes,
        );
        self.items = items;
        self.matches = if self.filter.is_some() {
            matches
        } else {
            Vec::new()
        };
        if let Some(first) = self.matches.first().cloned() {
            self.select_path(&first);
        } else if let Some(first) = self.items.first() {
            self.tree.select(vec![first.identifier().clone()]);
        }
    }

    /// Selects the deepest part of `path` that is in the tree (a removed channel's package, say).
    fn select_deepest(&mut self, path: &[String]) {
        for i in (1..=path.len()).rev() {
            let p = &path[..i];
            let exists = tree_item(&self.items, p).is_some();
            if exists {
                self.select_path(p);
                return;
            }
        }
    }

    fn select_path(&mut self, path: &[String]) {
        for i in 1..path.len() {
            self.tree.open(path[..i].to_vec());
        }
        self.tree.select(path.to_vec());
        self.details_scroll = 0;
        self.sync_graph();
    }

    /// The tree path of the object a diagnostic is about.
    fn path_of(&self, d: &crate::catalog::Diagnostic) -> Vec<String> {
        let mut path = Vec::new();
        let Some(pkg) = &d.object.package else {
            return path;
        };
        path.push(pkg.clone());
        let channel = d.object.channel.clone().or_else(|| {
            let b = d.object.bundle.as_ref()?;
            let idx = self.ws.catalog().index().package(pkg)?;
            idx.channels_listing(b)
                .first()
                .map(|&id| self.ws.catalog().blob(id).name().to_string())
        });
        if let Some(c) = channel {
            path.push(c);
            if let Some(b) = &d.object.bundle {
                path.push(b.clone());
            }
        }
        path
    }
}

/// Where the selected object is defined, for `o`.
fn selected_location(l: &Loaded) -> Option<Location> {
    let cat = l.ws.catalog();
    let sel = l.selected();
    let idx = cat.index().package(sel.first()?)?;
    let id = match sel {
        [_] => *idx.packages.first()?,
        [_, c] => idx.channel(c)?,
        [_, c, e] => idx.bundle(e).or_else(|| idx.channel(c))?,
        _ => return None,
    };
    Some(cat.location(id))
}

/// Palette commands, for completion.
pub const PALETTE: [&str; 5] = ["package ", "channel ", "validate", "export ", "quit"];

/// Completions of the palette text.
pub fn complete(l: Option<&Loaded>, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in PALETTE {
        if c.starts_with(text) && c != text {
            out.push(c.to_string());
        }
    }
    if let (Some(l), Some(rest)) = (l, text.strip_prefix("package ")) {
        for n in l.ws.catalog().index().package_names() {
            if n.starts_with(rest) {
                out.push(format!("package {n}"));
            }
        }
    }
    if let (Some(l), Some(rest)) = (l, text.strip_prefix("channel "))
        && let Some(pkg) = l.selected().first()
        && let Some(idx) = l.ws.catalog().index().package(pkg)
    {
        for &id in &idx.channels {
            let n = l.ws.catalog().blob(id).name();
            if n.starts_with(rest) {
                out.push(format!("channel {n}"));
            }
        }
    }
    if let Some(rest) = text.strip_prefix("export ") {
        for f in ["mermaid ", "dot "] {
            if f.starts_with(rest) && f != rest {
                out.push(format!("export {f}"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Applies an action.
pub fn update(m: &mut Model, action: Action) -> Vec<Effect> {
    match action {
        Action::Tick | Action::Resize => Vec::new(),
        Action::Loaded(Ok(catalog)) => {
            let keep = m.loaded().map(|l| l.selected().to_vec());
            let mut l = Loaded::new(*catalog);
            if let Some(path) = keep.filter(|p| !p.is_empty()) {
                l.select_path(&path);
            }
            if let Some(t) = &m.template {
                m.status = Some(t.banner());
            } else if let Some(i) = &m.image {
                m.status = Some(i.banner());
            } else if l.ws.catalog().index().package_names().is_empty() {
                m.status = Some(format!(
                    "no catalog objects under {}: is this a file-based catalog directory?",
                    m.dir.display()
                ));
            }
            m.state = State::Ready(Box::new(l));
            m.refresh_changes();
            Vec::new()
        }
        Action::Loaded(Err(e)) => {
            m.state = State::Failed(e);
            Vec::new()
        }
        Action::Exported(message) => {
            m.status = Some(message);
            Vec::new()
        }
        Action::Rendered(notes) => {
            if let Some(t) = &mut m.template {
                t.notes = notes;
            }
            Vec::new()
        }
        Action::CompareLoaded(Ok(old)) => {
            m.compare = Some(old);
            m.refresh_changes();
            Vec::new()
        }
        Action::CompareLoaded(Err(e)) => {
            m.status = Some(format!("cannot open the catalog to compare with: {e}"));
            Vec::new()
        }
        Action::Mouse(ev) => {
            mouse(m, ev);
            Vec::new()
        }
        Action::Key(ev) => key(m, ev),
        Action::Previewed(result) => {
            previewed(m, result);
            Vec::new()
        }
        Action::Saved(result) => {
            m.busy = None;
            saved(m, result);
            Vec::new()
        }
        Action::BundleDirChecked { dir, is_bundle } => {
            if is_bundle {
                m.status = None;
                m.dialog = Some(Dialog::Input {
                    title: format!(
                        "image reference of the bundle in {} (empty for none)",
                        dir.display()
                    ),
                    text: String::new(),
                    then: InputFor::AddBundleImage { dir },
                });
            } else {
                m.status = Some(format!(
                    "{} is not a registry+v1 bundle directory (manifests/ and metadata/)",
                    dir.display()
                ));
            }
            Vec::new()
        }
        Action::BundleRendered { dir, result } => {
            bundle_rendered(m, dir, result);
            Vec::new()
        }
        Action::PathCompleted { from, to } => {
            // Only while the question is still open and nothing was typed meanwhile.
            if let Some(Dialog::Input {
                text,
                then: InputFor::AddBundleDir,
                ..
            }) = &mut m.dialog
                && *text == from
            {
                *text = to;
            }
            Vec::new()
        }
        Action::Validated(validation) => {
            m.busy = None;
            if let Some(l) = m.loaded_mut() {
                l.ws.set_validation(*validation);
                let errors = l.ws.report().count(Severity::Error);
                let warnings = l.ws.report().count(Severity::Warning);
                l.refresh_markers();
                m.status = Some(format!(
                    "{}: {errors} errors, {warnings} warnings",
                    if errors == 0 { "valid" } else { "invalid" }
                ));
            }
            Vec::new()
        }
    }
}

/// The diff of what a save would write is in: show it, or say why not.
fn previewed(m: &mut Model, result: Result<String, SaveError>) {
    m.status = None;
    match result {
        Ok(d) if d.is_empty() => m.status = Some("nothing to write".into()),
        Ok(d) => {
            m.dialog = Some(Dialog::Write {
                lines: d.lines().map(String::from).collect(),
                scroll: 0,
            })
        }
        Err(e @ SaveError::ChangedOnDisk(_)) => {
            m.dialog = Some(Dialog::Reload { why: e.to_string() })
        }
        Err(e) => m.status = Some(e.to_string()),
    }
}

/// A save ended: take the catalog as read back, or say what became of each file.
fn saved(m: &mut Model, result: Result<Saved, SaveError>) {
    m.status = None;
    match result {
        Ok(Saved { report, workspace }) => {
            if let Some(l) = m.loaded_mut() {
                l.ws = *workspace;
                l.refresh();
            }
            m.status = Some(format!("wrote {}", report.written.join(", ")));
        }
        Err(e @ SaveError::ChangedOnDisk(_)) => {
            m.dialog = Some(Dialog::Reload { why: e.to_string() });
        }
        Err(e) if e.is_read_only() => m.dialog = Some(Dialog::ForceWrite { why: e.to_string() }),
        Err(e) => {
            let text = e.to_string();
            let title = if e.wrote_nothing() {
                "nothing was written"
            } else {
                "the save failed"
            };
            if text.contains('\n') {
                m.dialog = Some(Dialog::SaveFailed {
                    title: title.into(),
                    lines: text.lines().map(str::to_string).collect(),
                });
            } else if e.wrote_nothing() {
                m.status = Some(format!("nothing written: {text}"));
            } else {
                m.status = Some(text);
            }
        }
    }
}

/// Starts a save: the screen says so until the result is in, and keys wait.
fn save(m: &mut Model, options: CommitOptions) -> Vec<Effect> {
    m.busy = Some("saving…".into());
    m.status = Some("saving…".into());
    vec![Effect::Save(options)]
}

/// A bundle directory was rendered: pick its channel next, or say why not.
fn bundle_rendered(
    m: &mut Model,
    dir: PathBuf,
    result: Result<(serde_json::Value, Vec<String>), String>,
) {
    m.busy = None;
    m.status = None;
    match result {
        Ok((bundle, annotated)) => {
            let Some(l) = m.loaded() else {
                return;
            };
            let options = channels_for_new(l, &bundle, &annotated);
            if options.is_empty() {
                m.status = Some(format!(
                    "the bundle in {} names no channel; add it with fbc-edit edit add-bundle --channel",
                    dir.display()
                ));
            } else {
                m.dialog = Some(Dialog::PickChannelForNew {
                    bundle: Box::new(bundle),
                    picker: Picker::new(options),
                });
            }
        }
        Err(e) => {
            m.status = Some(format!(
                "cannot render {}: {e} (fbc-edit check-bundle lists every problem)",
                dir.display()
            ))
        }
    }
}

fn mouse(m: &mut Model, ev: MouseEvent) {
    let focus = m.focus;
    let Some(l) = m.loaded_mut() else { return };
    match ev.kind {
        MouseEventKind::ScrollDown => match focus {
            Pane::Graph => l.graph_scroll += 3,
            _ => {
                l.tree.scroll_down(3);
            }
        },
        MouseEventKind::ScrollUp => match focus {
            Pane::Graph => l.graph_scroll = l.graph_scroll.saturating_sub(3),
            _ => {
                l.tree.scroll_up(3);
            }
        },
        MouseEventKind::Down(_) if l.tree.click_at(Position::new(ev.column, ev.row)) => {
            l.sync_graph();
            m.focus = Pane::Tree;
        }
        _ => {}
    }
}

fn key(m: &mut Model, ev: KeyEvent) -> Vec<Effect> {
    if let Some(busy) = &m.busy {
        m.status = Some(format!("{busy} (keys wait until it is done)"));
        return Vec::new();
    }
    if let Some(dialog) = m.dialog.take() {
        return dialog_key(m, dialog, ev);
    }
    if let Some(prompt) = m.prompt.clone() {
        return prompt_key(m, prompt, ev);
    }
    let k = Key::of(&ev);
    let command = match m.keymap.lookup(&m.pending, k) {
        Lookup::Pending => {
            m.pending.push(k);
            return Vec::new();
        }
        Lookup::Command(c) => {
            m.pending.clear();
            c
        }
        Lookup::None => {
            m.pending.clear();
            return Vec::new();
        }
    };
    if m.overlay.is_some() {
        if matches!(command, Command::Back | Command::Help | Command::Quit) {
            m.overlay = None;
        }
        return Vec::new();
    }
    m.status = None;
    match command {
        Command::Quit => {
            if m.loaded().is_some_and(|l| !l.dirty.is_empty()) {
                m.dialog = Some(Dialog::QuitUnsaved);
            } else {
                m.quit = true;
            }
        }
        Command::Promote
        | Command::DefaultChannel
        | Command::Skips
        | Command::SkipRange
        | Command::Deprecate
        | Command::RemoveEntry
        | Command::CreateChannel
        | Command::AddBundle
        | Command::Undo
        | Command::Redo
        | Command::Write => return edit_command(m, command),
        Command::Help => m.overlay = Some(Overlay::Help),
        Command::OlmRules => {
            if let Some(l) = m.loaded_mut() {
                l.olm_v1 = !l.olm_v1;
                m.status = Some(if l.olm_v1 {
                    "graph: OLM v1 rules (nothing dropped; the highest successor is taken)".into()
                } else {
                    "graph: OLM v0 rules (skipped and stranded entries dropped)".into()
                });
            }
        }
        Command::Filter => m.prompt = Some(Prompt::Filter(String::new())),
        Command::Palette => m.prompt = Some(Prompt::Palette(String::new())),
        Command::NextPane | Command::PrevPane => {
            let i = PANES.iter().position(|p| *p == m.focus).unwrap_or(0);
            let n = if command == Command::NextPane {
                (i + 1) % PANES.len()
            } else {
                (i + PANES.len() - 1) % PANES.len()
            };
            m.focus = PANES[n];
        }
        Command::Back => {
            if let Some(l) = m.loaded_mut()
                && l.filter.is_some()
            {
                l.filter = None;
                l.refilter();
            }
        }
        Command::Open if m.template.is_some() => {
            if let Some(t) = &m.template {
                return vec![Effect::OpenEditor {
                    file: t.file.clone(),
                    line: 1,
                }];
            }
        }
        Command::Open if m.image.is_some() => {
            if let Some(i) = &m.image {
                m.status = Some(i.banner());
            }
        }
        Command::Open => {
            let Some(l) = m.loaded() else {
                return Vec::new();
            };
            let loc = if m.focus == Pane::Problems {
                l.ws.report()
                    .diagnostics
                    .get(l.problem)
                    .map(|d| d.location.clone())
            } else {
                selected_location(l)
            };
            if let Some(loc) = loc.filter(|l| l.file != ".") {
                return vec![Effect::OpenEditor {
                    file: m.dir.join(&loc.file),
                    line: loc.line.max(1),
                }];
            }
        }
        _ => motion(m, command),
    }
    Vec::new()
}

fn motion(m: &mut Model, command: Command) {
    let focus = m.focus;
    let page = m.page.max(2);
    let mut status = None;
    let Some(l) = m.loaded_mut() else { return };
    match focus {
        Pane::Tree => {
            match command {
                Command::Down => l.move_by(1),
                Command::Up => l.move_by(-1),
                Command::Left => l.go_left(),
                Command::Right | Command::Select => l.go_right(),
                Command::Top => l.move_to_end(false),
                Command::Bottom => l.move_to_end(true),
                Command::HalfPageDown => l.move_by((page / 2) as isize),
                Command::HalfPageUp => l.move_by(-((page / 2) as isize)),
                Command::NextMatch | Command::PrevMatch if !l.matches.is_empty() => {
                    let cur = l.matches.iter().position(|p| p.as_slice() == l.selected());
                    let n = l.matches.len();
                    let i = match (cur, command) {
                        (Some(i), Command::NextMatch) => (i + 1) % n,
                        (Some(i), _) => (i + n - 1) % n,
                        (None, _) => 0,
                    };
                    let path = l.matches[i].clone();
                    l.select_path(&path);
                    status = Some(format!("match {} of {n}", i + 1));
                }
                _ => {}
            }
            l.details_scroll = 0;
            l.sync_graph();
        }
        Pane::Graph => {
            let rows = l.graph.as_ref().map_or(0, |(_, lay)| lay.rows.len());
            match command {
                Command::Down => l.graph_scroll += 1,
                Command::Up => l.graph_scroll = l.graph_scroll.saturating_sub(1),
                Command::Top => l.graph_scroll = 0,
                Command::Bottom => l.graph_scroll = rows.saturating_sub(1),
                Command::HalfPageDown => l.graph_scroll += page / 2,
                Command::HalfPageUp => l.graph_scroll = l.graph_scroll.saturating_sub(page / 2),
                _ => {}
            }
            l.graph_scroll = l.graph_scroll.min(rows.saturating_sub(1));
        }
        Pane::Details => match command {
            Command::Down => l.details_scroll += 1,
            Command::Up => l.details_scroll = l.details_scroll.saturating_sub(1),
            Command::Top => l.details_scroll = 0,
            Command::HalfPageDown => l.details_scroll += page / 2,
            Command::HalfPageUp => l.details_scroll = l.details_scroll.saturating_sub(page / 2),
            _ => {}
        },
        Pane::Problems if !l.changes.is_empty() => {
            let n = l.changes.len();
            match command {
                Command::Down => l.problem = (l.problem + 1).min(n - 1),
                Command::Up => l.problem = l.problem.saturating_sub(1),
                Command::Top => l.problem = 0,
                Command::Bottom => l.problem = n - 1,
                Command::Select => {
                    if let Some(c) = l.changes.get(l.problem).cloned() {
                        if l.filter.is_some() {
                            l.filter = None;
                            l.refilter();
                        }
                        l.select_deepest(&c.path);
                        status = Some(c.text.trim().to_string());
                    }
                }
                _ => {}
            }
        }
        Pane::Problems => {
            let n = l.ws.report().diagnostics.len();
            match command {
                Command::Down => l.problem = (l.problem + 1).min(n.saturating_sub(1)),
                Command::Up => l.problem = l.problem.saturating_sub(1),
                Command::Top => l.problem = 0,
                Command::Bottom => l.problem = n.saturating_sub(1),
                Command::HalfPageDown => {
                    l.problem = (l.problem + page / 2).min(n.saturating_sub(1))
                }
                Command::HalfPageUp => l.problem = l.problem.saturating_sub(page / 2),
                Command::Select => {
                    if let Some(d) = l.ws.report().diagnostics.get(l.problem).cloned() {
                        let path = l.path_of(&d);
                        if !path.is_empty() {
                            if l.filter.is_some() {
                                l.filter = None;
                                l.refilter();
                            }
                            l.select_path(&path);
                        }
                        status = Some(format!("{}: {}", d.location, d.message));
                    }
                }
                _ => {}
            }
        }
    }
    if status.is_some() {
        m.status = status;
    }
}

fn prompt_key(m: &mut Model, prompt: Prompt, ev: KeyEvent) -> Vec<Effect> {
    let (mut text, is_filter) = match prompt {
        Prompt::Filter(t) => (t, true),
        Prompt::Palette(t) => (t, false),
    };
    match ev.code {
        KeyCode::Esc => {
            m.prompt = None;
            return Vec::new();
        }
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Tab if !is_filter => {
            let options = complete(m.loaded(), &text);
            if let [one] = options.as_slice() {
                text = one.clone();
            } else if !options.is_empty() {
                m.status = Some(options.join("  "));
            }
        }
        KeyCode::Enter => {
            m.prompt = None;
            return if is_filter {
                apply_filter(m, text);
                Vec::new()
            } else {
                run_palette(m, text.trim())
            };
        }
        KeyCode::Char(c) if !ev.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
        _ => {}
    }
    m.prompt = Some(if is_filter {
        Prompt::Filter(text)
    } else {
        Prompt::Palette(text)
    });
    Vec::new()
}

fn apply_filter(m: &mut Model, text: String) {
    let Some(l) = m.loaded_mut() else { return };
    l.filter = (!text.is_empty()).then_some(text.clone());
    l.refilter();
    let n = l.matches.len();
    m.focus = Pane::Tree;
    m.status = Some(if text.is_empty() {
        "filter cleared".to_string()
    } else if n == 0 {
        format!("nothing matches {text:?}")
    } else {
        format!("{n} entries match {text:?}: n/N to move between them, Esc to clear")
    });
}

fn run_palette(m: &mut Model, text: &str) -> Vec<Effect> {
    let (cmd, arg) = text.split_once(' ').unwrap_or((text, ""));
    let arg = arg.trim();
    match cmd {
        "q" | "quit" => m.quit = true,
        "validate" => {
            if m.loaded().is_some() {
                m.busy = Some("validating…".into());
                m.status = m.busy.clone();
                return vec![Effect::ValidateAll];
            }
        }
        "package" => {
            let Some(l) = m.loaded_mut() else {
                return Vec::new();
            };
            if l.ws.catalog().index().package(arg).is_some() {
                l.select_path(&[arg.to_string()]);
                m.focus = Pane::Tree;
            } else {
                m.status = Some(format!("no package {arg:?}"));
            }
        }
        "channel" => {
            let Some(l) = m.loaded_mut() else {
                return Vec::new();
            };
            let Some(pkg) = l.selected().first().cloned() else {
                return Vec::new();
            };
            if l.ws.catalog().index().channel(&pkg, arg).is_some() {
                l.select_path(&[pkg, arg.to_string()]);
                m.focus = Pane::Tree;
            } else {
                m.status = Some(format!("package {pkg:?} has no channel {arg:?}"));
            }
        }
        "export"
            if m.image.is_some()
                && !arg.is_empty()
                && !arg.contains(' ')
                && !matches!(arg, "mermaid" | "dot") =>
        {
            return vec![Effect::ExportCatalog {
                dir: PathBuf::from(arg),
            }];
        }
        "export" => {
            let (format, file) = arg.split_once(' ').unwrap_or((arg, ""));
            if !matches!(format, "mermaid" | "dot") || file.trim().is_empty() {
                m.status = Some(if m.image.is_some() {
                    "usage: export DIR (the catalog, to edit) or export mermaid|dot FILE".into()
                } else {
                    "usage: export mermaid|dot FILE".into()
                });
            } else {
                return vec![Effect::Export {
                    format: format.to_string(),
                    file: PathBuf::from(file.trim()),
                }];
            }
        }
        "" => {}
        other => m.status = Some(format!("unknown command {other:?} (Tab completes)")),
    }
    Vec::new()
}

impl Loaded {
    /// Draws the tree's problem markers again after the whole catalog was validated afresh.
    fn refresh_markers(&mut self) {
        let (items, _) = build_tree(
            self.ws.catalog(),
            self.ws.report(),
            self.filter.as_deref(),
            &self.changes,
        );
        self.items = items;
    }

    /// After the catalog changed: the tree, the graph and the selection follow.
    fn refresh(&mut self) {
        let (items, matches) = build_tree(
            self.ws.catalog(),
            self.ws.report(),
            self.filter.as_deref(),
            &self.changes,
        );
        self.items = items;
        if self.filter.is_some() {
            self.matches = matches;
        }
        self.follow();
    }

    /// After an edit of `package`: only its part of the tree is built again, since nothing else
    /// can have changed; the whole tree when the set of packages changed or a filter is on.
    fn refresh_package(&mut self, package: &str) {
        let names = self.ws.catalog().index().package_names();
        let same_packages = self.filter.is_none()
            && names.len() == self.items.len()
            && names
                .iter()
                .zip(&self.items)
                .all(|(n, i)| i.identifier() == n);
        let at = self.items.iter().position(|i| i.identifier() == package);
        let idx = self.ws.catalog().index().package(package);
        match (same_packages, at, idx) {
            (true, Some(at), Some(idx)) => {
                let markers = Markers::of(self.ws.report(), Some(package));
                let mut matches = Vec::new();
                match package_item(
                    self.ws.catalog(),
                    idx,
                    &markers,
                    None,
                    &self.changes,
                    &mut matches,
                ) {
                    Some(item) => {
                        self.items[at] = item;
                        self.follow();
                    }
                    None => self.refresh(),
                }
            }
            _ => self.refresh(),
        }
    }

    /// After the tree was built again: the files to write, the selection (or its nearest surviving
    /// parent) and the graph of the selected channel.
    fn follow(&mut self) {
        self.dirty = self.ws.dirty_files();
        let keep = self.selected().to_vec();
        self.graph = None;
        // Keep the selection, or its nearest surviving parent.
        let visible = self.tree.flatten(&self.items);
        let mut path = keep;
        while !path.is_empty() && !visible.iter().any(|f| f.identifier == path) {
            path.pop();
        }
        drop(visible);
        if path.is_empty() {
            if let Some(first) = self.items.first() {
                self.tree.select(vec![first.identifier().clone()]);
            }
        } else {
            self.tree.select(path);
        }
        self.sync_graph();
    }
}

/// The dialog that states an edit and the problems it would introduce.
fn confirm(l: &mut Loaded, edit: Edit) -> Result<Dialog, String> {
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

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn edit_command(m: &mut Model, command: Command) -> Vec<Effect> {
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
fn promote_range_input(m: &Model, package: String, channel: String, bundle: Promotee) -> Dialog {
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
fn channels_for_new(l: &Loaded, bundle: &serde_json::Value, annotated: &[String]) -> Vec<String> {
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

/// Writes the changes; a refusal the user can act on opens its dialog.
fn dialog_key(m: &mut Model, dialog: Dialog, ev: KeyEvent) -> Vec<Effect> {
    let code = ev.code;
    match dialog {
        Dialog::Reload { why } => match code {
            KeyCode::Char('y') => {
                m.status = Some("reloading; the unsaved edits are dropped".into());
                return vec![Effect::Load];
            }
            _ => {
                m.status = Some(format!("nothing written: {why}"));
            }
        },
        Dialog::SaveFailed { .. } => {
            m.status = Some("the unsaved edits are kept".into());
        }
        Dialog::ForceWrite { why } => match code {
            KeyCode::Char('y') => {
                let options = CommitOptions {
                    force_read_only: true,
                    ..m.save_options.clone()
                };
                return save(m, options);
            }
            _ => m.status = Some(format!("nothing written: {why}")),
        },
        Dialog::PickChannel {
            package,
            bundle,
            mut picker,
        } => match picker.key(code) {
            Picked::Chosen(channel) => {
                m.dialog = Some(promote_range_input(
                    m,
                    package,
                    channel,
                    Promotee::Existing(bundle),
                ))
            }
            Picked::Cancelled => m.status = Some("cancelled".into()),
            Picked::Open => {
                m.dialog = Some(Dialog::PickChannel {
                    package,
                    bundle,
                    picker,
                })
            }
        },
        Dialog::PickChannelForNew { bundle, mut picker } => match picker.key(code) {
            Picked::Chosen(channel) => {
                let channel = channel.trim_end_matches(" (new)").to_string();
                let package = bundle["package"].as_str().unwrap_or("").to_string();
                m.dialog = Some(promote_range_input(
                    m,
                    package,
                    channel,
                    Promotee::Rendered(bundle),
                ))
            }
            Picked::Cancelled => m.status = Some("cancelled".into()),
            Picked::Open => m.dialog = Some(Dialog::PickChannelForNew { bundle, picker }),
        },
        Dialog::QuitUnsaved => match code {
            KeyCode::Char('y') => m.quit = true,
            _ => m.status = Some("not quitting; w writes the changes".into()),
        },
        Dialog::Write { lines, scroll } => match code {
            KeyCode::Char('y') => {
                let options = m.save_options.clone();
                return save(m, options);
            }
            KeyCode::Char('j') | KeyCode::Down => {
                m.dialog = Some(Dialog::Write {
                    scroll: (scroll + 1).min(lines.len().saturating_sub(1)),
                    lines,
                })
            }
            KeyCode::Char('k') | KeyCode::Up => {
                m.dialog = Some(Dialog::Write {
                    scroll: scroll.saturating_sub(1),
                    lines,
                })
            }
            _ => m.status = Some("nothing written".into()),
        },
        Dialog::Confirm { edit, lines } => match code {
            KeyCode::Char('y') => {
                let msg = match m.apply_edit(edit.clone()) {
                    Ok(o) if o.introduced.is_empty() => {
                        format!("{} (u undoes, w writes)", edit.describe())
                    }
                    Ok(o) => format!(
                        "{}: {} new problem(s) (u undoes)",
                        edit.describe(),
                        o.introduced.len()
                    ),
                    Err(e) => format!("cannot {}: {e}", edit.describe()),
                };
                m.status = Some(msg);
            }
            KeyCode::Char('n') | KeyCode::Esc => m.status = Some("cancelled".into()),
            _ => m.dialog = Some(Dialog::Confirm { edit, lines }),
        },
        Dialog::PickBundle {
            package,
            channel,
            mut picker,
        } => match picker.key(code) {
            Picked::Chosen(bundle) => {
                m.dialog = Some(promote_range_input(
                    m,
                    package,
                    channel,
                    Promotee::Existing(bundle),
                ))
            }
            Picked::Cancelled => m.status = Some("cancelled".into()),
            Picked::Open => {
                m.dialog = Some(Dialog::PickBundle {
                    package,
                    channel,
                    picker,
                })
            }
        },
        Dialog::Input {
            title,
            mut text,
            then,
        } => match code {
            KeyCode::Esc => m.status = Some("cancelled".into()),
            KeyCode::Enter => {
                let t = text.trim().to_string();
                let list = |t: &str| -> Vec<String> {
                    t.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect()
                };
                let edit = match then {
                    InputFor::PromoteRange {
                        package,
                        channel,
                        bundle,
                    } => {
                        m.dialog = Some(Dialog::Input {
                            title: format!(
                                "entries {} skips (comma-separated; empty for none)",
                                bundle.name()
                            ),
                            text: String::new(),
                            then: InputFor::PromoteSkips {
                                package,
                                channel,
                                bundle,
                                range: (!t.is_empty()).then_some(t),
                            },
                        });
                        return Vec::new();
                    }
                    InputFor::PromoteSkips {
                        package,
                        channel,
                        bundle,
                        range,
                    } => {
                        let head = m.loaded().and_then(|l| {
                            let idx = l.ws.catalog().index().package(&package)?;
                            let ch = crate::catalog::model::Channel::read(
                                &l.ws.catalog().blob(idx.channel(&channel)?).value,
                            )
                            .ok()?;
                            crate::graph::heads(&ch.entries)
                                .first()
                                .map(|h| h.to_string())
                        });
                        m.dialog = Some(Dialog::Input {
                            title: format!(
                                "{} replaces (the current head by default; empty for nothing)",
                                bundle.name()
                            ),
                            text: head.unwrap_or_default(),
                            then: InputFor::PromoteReplaces {
                                package,
                                channel,
                                bundle,
                                range,
                                skips: list(&t),
                            },
                        });
                        return Vec::new();
                    }
                    InputFor::PromoteReplaces {
                        package,
                        channel,
                        bundle,
                        range,
                        skips,
                    } => match bundle {
                        Promotee::Existing(bundle) => Edit::Promote {
                            package,
                            bundle,
                            channel,
                            replaces: (!t.is_empty()).then_some(t),
                            skips,
                            skip_range: range,
                        },
                        Promotee::Rendered(bundle) => Edit::AddBundle {
                            bundle: *bundle,
                            channel,
                            replaces: (!t.is_empty()).then_some(t),
                            skips,
                            skip_range: range,
                        },
                    },
                    InputFor::AddBundleDir => {
                        m.status = Some(format!("reading {t}…"));
                        return vec![Effect::CheckBundleDir {
                            dir: PathBuf::from(&t),
                        }];
                    }
                    InputFor::AddBundleImage { dir } => {
                        m.busy = Some(format!("rendering {}…", dir.display()));
                        m.status = m.busy.clone();
                        return vec![Effect::RenderBundle {
                            dir,
                            image: (!t.is_empty()).then_some(t),
                        }];
                    }
                    InputFor::SkipRange {
                        package,
                        channel,
                        entry,
                    } => Edit::SetSkipRange {
                        package,
                        channel,
                        entry,
                        range: (!t.is_empty()).then_some(t),
                    },
                    InputFor::Skips {
                        package,
                        channel,
                        entry,
                    } => Edit::AddSkips {
                        package,
                        channel,
                        entry,
                        skips: list(&t),
                    },
                    InputFor::Deprecate { package, target } => Edit::Deprecate {
                        package,
                        target,
                        message: t,
                    },
                    InputFor::CreateChannel { package, bundle } => Edit::CreateChannel {
                        package,
                        channel: t,
                        bundle,
                    },
                };
                let Some(l) = m.loaded_mut() else {
                    return Vec::new();
                };
                match confirm(l, edit) {
                    Ok(d) => m.dialog = Some(d),
                    Err(e) => m.status = Some(e),
                }
            }
            KeyCode::Backspace => {
                text.pop();
                m.dialog = Some(Dialog::Input { title, text, then });
            }
            KeyCode::Tab if then == InputFor::AddBundleDir => {
                let effect = Effect::CompletePath { text: text.clone() };
                m.dialog = Some(Dialog::Input { title, text, then });
                return vec![effect];
            }
            KeyCode::Char(c) if !ev.modifiers.contains(KeyModifiers::CONTROL) => {
                text.push(c);
                m.dialog = Some(Dialog::Input { title, text, then });
            }
            _ => m.dialog = Some(Dialog::Input { title, text, then }),
        },
    }
    Vec::new()
}

/// Text of the details pane for the selection.
pub fn details(l: &Loaded) -> Vec<String> {
    let cat = l.ws.catalog();
    let sel = l.selected();
    let Some(idx) = sel.first().and_then(|p| cat.index().package(p)) else {
        return vec!["Select a package, channel or entry.".into()];
    };
    let mut out = Vec::new();
    let text = |s: &crate::catalog::Str| cat.resolve(s).unwrap_or_default();
    match sel {
        [p] => {
            out.push(format!("package {p}"));
            if let Some(pk) = idx
                .packages
                .first()
                .and_then(|&id| Package::read(&cat.blob(id).value).ok())
            {
                out.push(format!("default channel: {}", pk.default_channel));
                if let Some(icon) = &pk.icon {
                    out.push(format!("icon: {}", icon.mediatype));
                }
                if let Some(d) = pk.description {
                    out.push(String::new());
                    out.extend(text(d).lines().map(String::from));
                }
            }
            out.push(format!(
                "channels: {}  bundles: {}",
                idx.channels.len(),
                idx.bundles.len()
            ));
        }
        [_, c] => {
            out.push(format!("channel {c}"));
            if let Some((g, _)) = &l.graph {
                out.push(format!("entries: {}", g.graph.node_count()));
                out.push(match g.chain.head() {
                    Some(h) => format!("head: {h}"),
                    None => format!("head: none ({:?})", g.chain),
                });
                if g.default {
                    out.push("the package's default channel".into());
                }
            }
        }
        [_, c, e] => {
            out.push(format!("entry {e}"));
            if l.is_ghost(sel) {
                out.push(format!(
                    "removed from channel {c} by the change under review (nothing to edit here)"
                ));
            }
            match idx
                .bundle(e)
                .and_then(|id| Bundle::read(&cat.blob(id).value).ok().map(|b| (id, b)))
            {
                None => out.push("no olm.bundle with this name in the package".into()),
                Some((id, b)) => {
                    out.push(format!("version: {}", b.version().unwrap_or("?")));
                    out.push(format!("image: {}", b.image));
                    let mut provided = Vec::new();
                    let mut required = Vec::new();
                    let mut packages = Vec::new();
                    let mut csv = None;
                    for pr in &b.properties {
                        use crate::catalog::model::PropertyValue as V;
                        match pr.parse() {
                            Ok(V::Gvk(g)) => {
                                provided.push(format!("{}/{} {}", g.group, g.version, g.kind))
                            }
                            Ok(V::GvkRequired(g)) => {
                                required.push(format!("{}/{} {}", g.group, g.version, g.kind))
                            }
                            Ok(V::PackageRequired(r)) => {
                                packages.push(format!("{} {}", r.package_name, r.version_range))
                            }
                            Ok(V::CsvMetadata(node)) => csv = Some(node),
                            _ => {}
                        }
                    }
                    for (title, list) in [
                        ("provides", &provided),
                        ("requires", &required),
                        ("requires packages", &packages),
                    ] {
                        if !list.is_empty() {
                            out.push(format!("{title}:"));
                            out.extend(list.iter().map(|s| format!("  {s}")));
                        }
                    }
                    if let Some(node) = csv {
                        if let Some(n) = node.get_field("displayName").and_then(|n| n.as_string()) {
                            out.push(format!("display name: {}", text(n)));
                        }
                        if let Some(n) = node.get_field("description").and_then(|n| n.as_string()) {
                            out.push("description:".into());
                            out.extend(text(n).lines().take(20).map(|s| format!("  {s}")));
                        }
                    }
                    if !b.related_images.is_empty() {
                        out.push("related images:".into());
                        out.extend(
                            b.related_images
                                .iter()
                                .map(|r| format!("  {} {}", r.name, r.image)),
                        );
                    }
                    let listing: Vec<&str> = idx
                        .channels_listing(e)
                        .iter()
                        .map(|&c| cat.blob(c).name())
                        .collect();
                    out.push(format!("in channels: {}", listing.join(", ")));
                    out.push(format!("defined at {}", cat.location(id)));
                }
            }
        }
        _ => {}
    }
    // Deprecation messages of the object (and of the package and channel above it).
    let scopes: Vec<(&str, &str)> = match sel {
        [_] => vec![(schema::PACKAGE, "")],
        [_, c] => vec![(schema::CHANNEL, c.as_str()), (schema::PACKAGE, "")],
        [_, c, e] => vec![
            (schema::BUNDLE, e.as_str()),
            (schema::CHANNEL, c.as_str()),
            (schema::PACKAGE, ""),
        ],
        _ => Vec::new(),
    };
    if let Some(dep) = idx
        .deprecations
        .first()
        .and_then(|&id| Deprecations::read(&cat.blob(id).value).ok())
    {
        for (schema_name, name) in scopes {
            if let Some(e) = dep
                .entries
                .iter()
                .find(|e| e.schema == schema_name && e.name == name)
            {
                let what = schema_name.trim_start_matches("olm.");
                out.push(format!("deprecated ({what}): {}", e.message));
            }
        }
    }
    out
}
