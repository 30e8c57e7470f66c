//! The TUI's state: the model (panes, focus, dialogs, prompts, the loaded catalog), the actions that
//! change it and the effects `update` asks the runtime for.

use crate::tui::keymap::{Key, Keymap};
pub use crate::tui::line::LineInput;
use crate::tui::review::changes;
use crate::tui::tree::Loaded;
use crossterm::event::MouseEvent;
use fbc_core::catalog::commit::CommitOptions;
use fbc_core::catalog::{Catalog, Progress};
use fbc_core::edit::{Edit, Target};
use fbc_core::graph::channel::PackageFacts;
use fbc_core::workspace::SaveError;
use fbc_core::workspace::Workspace;
use fbc_core::workspace::templates::TemplateSet;
use std::path::PathBuf;
use std::sync::Arc;

/// The panes, in Tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Tree,
    Graph,
    Details,
    Problems,
}

pub(crate) const PANES: [Pane; 4] = [Pane::Tree, Pane::Graph, Pane::Details, Pane::Problems];

/// A text being typed at the bottom line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prompt {
    Filter(LineInput),
    Palette(LineInput),
}

/// What is on top of the panes (Esc closes it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    Help,
    /// A text in full, wrapped and scrolled (a problem, the status line's last message).
    Message {
        title: String,
        lines: Vec<String>,
    },
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
    pub(crate) fn version(
        &self,
        l: &Loaded,
        package: &str,
    ) -> Option<fbc_core::catalog::semver_range::Version> {
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
                fbc_core::catalog::semver_range::Version::parse(text).ok()
            }
        }
    }
}

pub use crate::tui::picker::{Picked, Picker};

/// What the options picked in a [`Dialog::Pick`] become.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PickFor {
    /// The entries a bundle being promoted skips (any number).
    PromoteSkips {
        package: String,
        channel: String,
        bundle: Promotee,
        range: Option<String>,
    },
    /// Then what it replaces (the current head highlighted).
    PromoteReplaces {
        package: String,
        channel: String,
        bundle: Promotee,
        range: Option<String>,
        skips: Vec<String>,
    },
    /// Entries an entry also skips.
    AddSkips {
        package: String,
        channel: String,
        entry: String,
    },
    /// Skips an entry no longer has.
    RemoveSkips {
        package: String,
        channel: String,
        entry: String,
    },
    /// What an entry replaces.
    SetReplaces {
        package: String,
        channel: String,
        entry: String,
    },
}

/// The option of the replaces picker that clears an entry's replaces.
pub const REPLACES_NOTHING: &str = "(nothing)";

/// A dialog: it says what will happen before it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dialog {
    /// Pick the bundle to promote into a channel.
    PickBundle {
        package: String,
        channel: String,
        picker: Picker,
    },
    /// A question answered with a line of text (which may offer a value Tab takes).
    Input {
        title: String,
        text: LineInput,
        then: InputFor,
    },
    /// `y` applies the edit; `invalid` when it leaves the catalog invalid.
    Confirm {
        edit: Edit,
        lines: Vec<String>,
        invalid: bool,
    },
    /// The diff of what saving writes, in the diff viewer; `y` writes.
    Write {
        view: Box<crate::tui::diffview::DiffView>,
    },
    /// Quitting with unsaved edits: `w` writes them and quits, `d` drops them and quits, any
    /// other key stays.
    QuitUnsaved,
    /// Opening a file in `$EDITOR` with unsaved edits, which reloading would drop: `y` writes
    /// them first, `o` opens and applies them again to what the editor leaves, `d` drops them.
    /// `file` is relative to the catalog.
    OpenUnsaved {
        file: String,
        line: u32,
        files: usize,
    },
    /// Pick the channel to promote the selected bundle into.
    PickChannel {
        package: String,
        bundle: String,
        picker: Picker,
    },
    /// A file changed on disk since loading, so nothing was written; `y` reads the catalog again
    /// and applies the unsaved edits again, `d` reads it again without them.
    Reload { why: String },
    /// A file to write is read-only, so nothing was written; `y` writes anyway.
    ForceWrite { why: String },
    /// A save failed part way: every file and what became of it; any key closes.
    SaveFailed { title: String, lines: Vec<String> },
    /// Pick one option, or several, for `then`.
    Pick {
        title: String,
        picker: Picker,
        then: PickFor,
    },
    /// Pick the channel a rendered bundle goes into (existing channels of its package, and the
    /// channels its annotations name, marked new).
    PickChannelForNew {
        bundle: Box<serde_json::Value>,
        picker: Picker,
    },
}

pub enum State {
    Loading(Arc<Progress>),
    Failed(String),
    Ready(Box<Loaded>),
}

/// The templates being edited: their rendering is on screen, and edits go into them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateView {
    /// The template, or the directory of templates, as given.
    pub file: PathBuf,
    /// Where bundle images are looked up, when the user did not say.
    pub source_note: Option<String>,
    /// What opening the templates had to say.
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

    /// The line shown when the templates (`count` of them) are opened.
    pub fn banner(&self, count: usize) -> String {
        let mut s = if count > 1 {
            format!(
                "{count} templates in {}: edits go into every template they apply to, the screens show one rendering (T the next)",
                self.name()
            )
        } else {
            format!(
                "template {}: edits go into the template, the screens show its rendering",
                self.name()
            )
        };
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
    /// Set when templates are edited: the catalog on screen is a template's rendering.
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
    /// The terminal's size: where the panes are, for page moves and the mouse.
    pub size: ratatui::layout::Rect,
    /// How far the help (or the message viewer) is scrolled.
    pub help_scroll: usize,
    /// The status line's last message, which `m` shows in full.
    pub last_status: Option<String>,
    /// The palette lists the names its text may become (Tab on an empty or ambiguous text).
    pub palette_list: bool,
    /// The problems pane takes most of the height (`z`).
    pub enlarged: bool,
    pub quit: bool,
    /// How saves proceed (tests inject failures here).
    pub save_options: CommitOptions,
    /// Work under way on a worker (a save, a validation, rendering a bundle): keys wait for it.
    pub busy: Option<String>,
    /// Unsaved edits to apply again once the catalog is read anew (after `$EDITOR`).
    pub replay: Option<Vec<fbc_core::template::edit::TemplateEdit>>,
    /// What to do once a save has gone through (open the editor after "write first").
    pub after_save: Option<Effect>,
    /// How far a dialog taller than the terminal is scrolled.
    pub dialog_scroll: usize,
    /// Quit once the save under way has gone through (`w` in the quit question).
    pub quit_after_save: bool,
    /// Review mode: the selection was put on the first change (done once, when the changes first
    /// come in).
    pub review_opened: bool,
}

/// Everything that can happen.
pub enum Action {
    /// A key press, already resolved in the keymap's layer that is on top.
    Input(crate::tui::input::Input),
    /// The older catalog of review mode (`--compare OLD`).
    CompareLoaded(Result<Box<Catalog>, String>),
    /// Review mode: the changes from the older catalog to the one loaded, worked out on a worker.
    ChangesFound(Box<fbc_core::diff::CatalogDiff>),
    Mouse(MouseEvent),
    /// The catalog read and validated on a worker ([`crate::tui::effects::load`]), or why it could
    /// not be read.
    Loaded(Result<Box<Workspace>, String>),
    /// Templates opened for editing, each rendered (or why none could be opened).
    TemplatesOpened(Result<Box<TemplateSet>, String>),
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
    /// Tab completion of a path: the text completed and what it became, with why nothing was
    /// completed when the directory was not read.
    PathCompleted {
        from: String,
        to: String,
        note: Option<String>,
    },
    /// The whole catalog validated afresh (`:validate`).
    Validated(Box<fbc_core::validate::Validation>),
    /// An image a template edit names was looked up (the templates' memo now answers for it): the
    /// edit is made.
    ImageLookedUp(Box<fbc_core::template::edit::TemplateEdit>),
    /// Strings left on disk that the details pane shows, read (empty: could not be read back).
    StringsRead(Vec<(fbc_core::catalog::StrKey, String)>),
    /// The terminal's size, at the start and whenever it changes.
    Resize {
        width: u16,
        height: u16,
    },
    Tick,
}

/// A save that went through: what it wrote, and what was written as read back from disk.
pub struct Saved {
    pub report: fbc_core::catalog::write::SaveReport,
    pub reopened: Reopened,
}

/// What a save reads back.
pub enum Reopened {
    /// The catalog, read anew.
    Catalog(Box<Workspace>),
    /// The templates written, each with its place in the set.
    Templates(Vec<(usize, fbc_core::template::edit::TemplateDoc)>),
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
    /// Review mode: write the changes as Markdown to a file.
    ExportChanges { file: PathBuf },
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
    /// Review mode: work out the changes from the older catalog ([`Action::ChangesFound`]).
    FindChanges,
    /// Look up a bundle image in the templates' sources, then make `edit`
    /// ([`Action::ImageLookedUp`]).
    LookUpImage {
        image: String,
        edit: Box<fbc_core::template::edit::TemplateEdit>,
    },
    /// Read strings left on disk that the details pane shows ([`Action::StringsRead`]).
    ReadStrings(Vec<fbc_core::catalog::StoredStr>),
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
            size: ratatui::layout::Rect::new(0, 0, 80, 24),
            help_scroll: 0,
            last_status: None,
            palette_list: false,
            enlarged: false,
            quit: false,
            save_options: Default::default(),
            busy: None,
            replay: None,
            after_save: None,
            dialog_scroll: 0,
            quit_after_save: false,
            review_opened: false,
        }
    }

    /// Review mode: asks a worker for the changes from the older catalog when both are loaded
    /// (they come back as [`Action::ChangesFound`]).
    pub fn find_changes(&self) -> Vec<Effect> {
        if self.compare.is_some() && self.loaded().is_some() {
            vec![Effect::FindChanges]
        } else {
            Vec::new()
        }
    }

    /// Review mode: takes the changes a worker found from the older catalog.
    pub fn changes_found(&mut self, review: fbc_core::diff::CatalogDiff) {
        let first_time = !self.review_opened;
        let Some(l) = (match &mut self.state {
            State::Ready(l) => Some(l),
            _ => None,
        }) else {
            return;
        };
        l.review = review;
        l.changes = changes(&l.review);
        l.refresh();
        if l.changes.is_empty() {
            self.status = Some("no changes from the catalog compared with".into());
            return;
        }
        // The review opens on the first change, not on the first package of the catalog.
        if first_time {
            self.review_opened = true;
            let at = crate::tui::review::first_change(&l.changes);
            l.problem = at;
            let path = l.changes[at].path.clone();
            l.select_deepest(&path);
        }
    }

    /// Applies an edit to the open catalog; the tree, graph and problems follow.
    pub fn apply_edit(
        &mut self,
        edit: Edit,
    ) -> Result<fbc_core::workspace::Outcome, fbc_core::template::edit::TemplateEditError> {
        let Some(l) = self.loaded_mut() else {
            return Err(fbc_core::edit::EditError::NotLoaded.into());
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

    /// Where the panes are on the terminal as it is now.
    pub fn areas(&self) -> crate::tui::layout::Areas {
        crate::tui::layout::Areas::of(self.size, self.focus, self.enlarged)
    }

    /// Rows of the tree pane, for page moves.
    pub fn page(&self) -> usize {
        crate::tui::layout::inner(self.areas().tree).height as usize
    }

    /// Rows of the graph pane that show lanes (the legend takes a row, two under OLM v1 rules,
    /// and the cursor's edges up to two).
    pub fn graph_rows(&self) -> usize {
        let legend = if self.loaded().is_some_and(|l| l.olm_v1) {
            2
        } else {
            1
        };
        let extra = legend + crate::tui::layout::CURSOR_LINES;
        self.areas()
            .graph
            .map_or(0, |g| crate::tui::layout::inner(g).height as usize)
            .saturating_sub(extra)
    }

    pub fn loaded(&self) -> Option<&Loaded> {
        match &self.state {
            State::Ready(l) => Some(l),
            _ => None,
        }
    }

    pub(crate) fn loaded_mut(&mut self) -> Option<&mut Loaded> {
        match &mut self.state {
            State::Ready(l) => Some(l),
            _ => None,
        }
    }
}
