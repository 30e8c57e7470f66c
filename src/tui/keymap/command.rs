//! The commands keys run: each with its name in the config file, what help says it does, the word
//! the footer shows for it, and whether it edits or runs from the palette. With the verbs only the
//! palette runs (`verb`) they are everything the palette runs.

use super::Layer;

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    Up,
    Down,
    Left,
    Right,
    Top,
    Bottom,
    HalfPageDown,
    HalfPageUp,
    NextPane,
    PrevPane,
    Select,
    Filter,
    NextMatch,
    PrevMatch,
    Palette,
    Help,
    Open,
    Back,
    Quit,
    Promote,
    DefaultChannel,
    Skips,
    RemoveSkips,
    SkipRange,
    SetReplaces,
    Deprecate,
    Undeprecate,
    RemoveEntry,
    RemoveBundle,
    CreateChannel,
    DeleteChannel,
    AddBundle,
    Undo,
    Redo,
    Write,
    OlmRules,
    /// Templates: show the next template's rendering.
    NextTemplate,
    /// The problems pane (review mode's changes): take most of the height, or give it back.
    Enlarge,
    /// The problems pane: all severities, errors and warnings, or errors only.
    Severity,
    /// The problems pane: only the problems of the selected package or channel, or all again.
    OnlySelection,
    /// The message viewer: the last message of the status line in full.
    Message,
    /// Dialogs: yes.
    Confirm,
    /// Dialogs, pickers and prompts: no, close.
    Cancel,
    /// Pickers and prompts: take what is chosen or typed.
    Accept,
    /// Pickers that take several: mark or unmark the highlighted option.
    Toggle,
    /// Pickers and prompts: delete the character before the cursor.
    DeleteBack,
    /// Prompts: complete the text (or take the value an input offers).
    Complete,
    /// Text inputs: delete the character under the cursor.
    DeleteForward,
    /// Text inputs: the cursor a character left or right.
    CursorLeft,
    CursorRight,
    /// Text inputs: the cursor to the start or the end of the line.
    LineStart,
    LineEnd,
    /// Text inputs: delete from the cursor to the start, or to the end, of the line.
    KillToStart,
    KillToEnd,
    /// Text inputs: delete the word before the cursor (up to a space).
    KillWordBack,
    /// Text inputs: the cursor a word back or forward.
    WordBack,
    WordForward,
    /// Dialogs: drop what is unsaved and go on.
    Discard,
    /// Dialogs: go on and keep what is unsaved.
    Keep,
    /// The diff viewer: a whole page down or up.
    PageDown,
    PageUp,
    /// The diff viewer: the next or previous hunk, the next or previous file.
    NextHunk,
    PrevHunk,
    NextFile,
    PrevFile,
    /// The diff viewer: search its lines.
    Search,
    /// The diff viewer: the whole of the line under the cursor.
    WholeLine,
    /// A repository's list: check the repository again.
    Recheck,
}

/// Every command with its name in the config file and what it does.
const COMMANDS: &[(Command, &str, &str)] = &[
    (Command::Down, "down", "move down"),
    (Command::Up, "up", "move up"),
    (Command::Left, "left", "collapse / go to parent"),
    (Command::Right, "right", "expand / go into"),
    (Command::Top, "top", "go to the top"),
    (Command::Bottom, "bottom", "go to the bottom"),
    (Command::HalfPageDown, "half-page-down", "half a page down"),
    (Command::HalfPageUp, "half-page-up", "half a page up"),
    (Command::NextPane, "next-pane", "next pane"),
    (Command::PrevPane, "previous-pane", "previous pane"),
    (
        Command::Select,
        "select",
        "select / jump to the problem or entry",
    ),
    (
        Command::Filter,
        "filter",
        "filter packages, bundles, versions, images",
    ),
    (Command::NextMatch, "next-match", "next match"),
    (Command::PrevMatch, "previous-match", "previous match"),
    (Command::Palette, "palette", "command palette"),
    (Command::Open, "open", "open the object's file in $EDITOR"),
    (Command::Help, "help", "help for this pane"),
    (Command::Back, "back", "close / clear the filter"),
    (Command::Quit, "quit", "quit"),
    (
        Command::Promote,
        "promote",
        "promote a bundle into the selected channel",
    ),
    (
        Command::DefaultChannel,
        "default-channel",
        "make the selected channel the default",
    ),
    (Command::Skips, "skips", "add skips to the selected entry"),
    (
        Command::RemoveSkips,
        "remove-skips",
        "remove skips from the selected entry",
    ),
    (
        Command::SkipRange,
        "skip-range",
        "set or clear the selected entry's skipRange",
    ),
    (
        Command::SetReplaces,
        "set-replaces",
        "set or clear what the selected entry replaces",
    ),
    (
        Command::Deprecate,
        "deprecate",
        "deprecate the selected package, channel or bundle",
    ),
    (
        Command::Undeprecate,
        "undeprecate",
        "undeprecate the selected package, channel or bundle",
    ),
    (
        Command::RemoveEntry,
        "remove-entry",
        "remove the selected entry, re-linking its neighbours",
    ),
    (
        Command::RemoveBundle,
        "remove-bundle",
        "remove the selected bundle from its package",
    ),
    (
        Command::CreateChannel,
        "create-channel",
        "create a channel with the selected bundle",
    ),
    (
        Command::DeleteChannel,
        "delete-channel",
        "delete the selected channel",
    ),
    (
        Command::AddBundle,
        "add-bundle",
        "add a bundle directory to the catalog and promote it into a channel",
    ),
    (Command::Undo, "undo", "undo the last edit"),
    (Command::Redo, "redo", "redo the last undone edit"),
    (
        Command::Write,
        "write",
        "show the diff and write the changed files",
    ),
    (
        Command::OlmRules,
        "olm-rules",
        "graph: switch between OLM v0 and OLM v1 upgrade rules",
    ),
    (
        Command::NextTemplate,
        "next-template",
        "templates: show the next template's rendering (edits go to every template)",
    ),
    (
        Command::Enlarge,
        "enlarge",
        "enlarge the problems (review: changes) pane, or shrink it back",
    ),
    (
        Command::Severity,
        "severity",
        "problems: list all, errors and warnings, or errors only",
    ),
    (
        Command::OnlySelection,
        "only-selection",
        "problems: only those of the selected package or channel, or all again",
    ),
    (
        Command::Message,
        "message",
        "read the status line's last message in full",
    ),
    (Command::Confirm, "confirm", "yes: do what the dialog says"),
    (Command::Cancel, "cancel", "no: close without doing it"),
    (Command::Accept, "accept", "take the choice or the text"),
    (Command::Toggle, "toggle", "mark or unmark the option"),
    (
        Command::DeleteBack,
        "delete-back",
        "delete the character before the cursor",
    ),
    (
        Command::Complete,
        "complete",
        "complete the text, or take the value offered",
    ),
    (
        Command::DeleteForward,
        "delete-forward",
        "delete the character under the cursor",
    ),
    (
        Command::CursorLeft,
        "cursor-left",
        "the cursor a character left",
    ),
    (
        Command::CursorRight,
        "cursor-right",
        "the cursor a character right",
    ),
    (Command::LineStart, "line-start", "the cursor to the start"),
    (Command::LineEnd, "line-end", "the cursor to the end"),
    (
        Command::KillToStart,
        "kill-to-start",
        "delete from the cursor to the start",
    ),
    (
        Command::KillToEnd,
        "kill-to-end",
        "delete from the cursor to the end",
    ),
    (
        Command::KillWordBack,
        "kill-word-back",
        "delete the word before the cursor",
    ),
    (Command::WordBack, "word-back", "the cursor a word back"),
    (
        Command::WordForward,
        "word-forward",
        "the cursor a word forward",
    ),
    (
        Command::Discard,
        "discard",
        "drop the unsaved edits and go on",
    ),
    (Command::Keep, "keep", "go on and keep the unsaved edits"),
    (Command::PageDown, "page-down", "a page down"),
    (Command::PageUp, "page-up", "a page up"),
    (Command::NextHunk, "next-hunk", "next hunk"),
    (Command::PrevHunk, "previous-hunk", "previous hunk"),
    (Command::NextFile, "next-file", "next file"),
    (Command::PrevFile, "previous-file", "previous file"),
    (Command::Search, "search", "search the diff"),
    (
        Command::WholeLine,
        "whole-line",
        "show the whole line under the cursor, wrapped",
    ),
    (
        Command::Recheck,
        "recheck",
        "repository: check every operator again",
    ),
];

impl Command {
    /// The command's name in the config file and the palette.
    pub fn name(self) -> &'static str {
        COMMANDS
            .iter()
            .find(|(c, ..)| *c == self)
            .map_or("", |(_, n, _)| n)
    }

    /// What the command does, as help says it.
    pub fn desc(self) -> &'static str {
        COMMANDS
            .iter()
            .find(|(c, ..)| *c == self)
            .map_or("", |(.., d)| d)
    }

    pub fn from_name(name: &str) -> Option<Command> {
        COMMANDS
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(c, ..)| *c)
    }

    /// Every command, in help order.
    pub fn all() -> impl Iterator<Item = Command> {
        COMMANDS.iter().map(|(c, ..)| *c)
    }

    /// The word the footer shows for a command it hints at in a layer, if it hints at it.
    pub fn footer(self, layer: Layer) -> Option<&'static str> {
        Some(match self {
            Command::Back if layer == Layer::Help => "close",
            Command::Down if layer == Layer::Help => "scroll",
            Command::Down if layer == Layer::Picker => "choose",
            Command::Confirm if layer == Layer::Diff => "write",
            Command::Cancel if layer == Layer::Diff => "close",
            Command::Confirm => "yes",
            Command::Cancel => "cancel",
            Command::NextHunk => "hunk",
            Command::NextFile => "file",
            Command::Search => "search",
            Command::NextMatch if layer == Layer::Diff => "match",
            Command::WholeLine => "whole line",
            Command::Accept => "accept",
            Command::Complete => "complete",
            Command::NextPane => "pane",
            Command::Select => "select",
            Command::Filter => "filter",
            Command::Palette => "command",
            Command::Open => "editor",
            Command::Help => "help",
            Command::Quit => "quit",
            Command::Write => "write",
            Command::Toggle => "mark",
            Command::Promote => "promote",
            Command::DefaultChannel => "default",
            Command::Skips => "skips",
            Command::RemoveSkips => "unskip",
            Command::SkipRange => "skipRange",
            Command::SetReplaces => "replaces",
            Command::Deprecate => "deprecate",
            Command::Undeprecate => "undeprecate",
            Command::RemoveEntry => "remove",
            Command::RemoveBundle => "remove bundle",
            Command::CreateChannel => "new channel",
            Command::DeleteChannel => "delete",
            Command::AddBundle => "add bundle",
            Command::Undo => "undo",
            Command::NextTemplate => "next template",
            Command::Enlarge => "enlarge",
            Command::Severity if layer == Layer::Problems => "severity",
            Command::OnlySelection if layer == Layer::Problems => "only selected",
            Command::Recheck => "recheck",
            _ => return None,
        })
    }

    /// A guided edit, or undo, redo and write: what changes the catalog or writes it.
    pub fn is_edit(self) -> bool {
        matches!(
            self,
            Command::Promote
                | Command::DefaultChannel
                | Command::Skips
                | Command::RemoveSkips
                | Command::SkipRange
                | Command::SetReplaces
                | Command::Deprecate
                | Command::Undeprecate
                | Command::RemoveEntry
                | Command::RemoveBundle
                | Command::CreateChannel
                | Command::DeleteChannel
                | Command::AddBundle
                | Command::Undo
                | Command::Redo
                | Command::Write
        )
    }

    /// Runs from the palette by its name (`:undo`): the commands that act on the catalog or the
    /// screen rather than move within a pane.
    pub fn in_palette(self) -> bool {
        self.is_edit()
            || matches!(
                self,
                Command::OlmRules
                    | Command::NextTemplate
                    | Command::Enlarge
                    | Command::Severity
                    | Command::OnlySelection
                    | Command::Message
                    | Command::Help
                    | Command::Open
                    | Command::Filter
            )
    }
}
