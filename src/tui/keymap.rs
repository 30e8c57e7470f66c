//! One layered keymap drives key handling, the footer hints, the `?` help, the palette and
//! `fbc-edit info`. Each layer (the four panes, dialogs, pickers, prompts and the help) is a list of
//! bindings `{on, run, desc}`, looked up in order. Users prepend or append bindings per layer, or
//! give a command other keys, in `config.yaml` under the config directory.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

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
    SkipRange,
    Deprecate,
    RemoveEntry,
    CreateChannel,
    AddBundle,
    Undo,
    Redo,
    Write,
    OlmRules,
    /// Dialogs: yes.
    Confirm,
    /// Dialogs, pickers and prompts: no, close.
    Cancel,
    /// Pickers and prompts: take what is chosen or typed.
    Accept,
    /// Pickers and prompts: delete the character before the cursor.
    DeleteBack,
    /// Prompts: complete the text.
    Complete,
    /// Dialogs: drop what is unsaved and go on.
    Discard,
    /// Dialogs: go on and keep what is unsaved.
    Keep,
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
    (Command::Select, "select", "select / jump to the problem"),
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
        Command::SkipRange,
        "skip-range",
        "set or clear the selected entry's skipRange",
    ),
    (
        Command::Deprecate,
        "deprecate",
        "deprecate the selected package, channel or bundle",
    ),
    (
        Command::RemoveEntry,
        "remove-entry",
        "remove the selected entry, re-linking its neighbours",
    ),
    (
        Command::CreateChannel,
        "create-channel",
        "create a channel with the selected bundle",
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
    (Command::Confirm, "confirm", "yes: do what the dialog says"),
    (Command::Cancel, "cancel", "no: close without doing it"),
    (Command::Accept, "accept", "take the choice or the text"),
    (
        Command::DeleteBack,
        "delete-back",
        "delete the last character",
    ),
    (Command::Complete, "complete", "complete the text"),
    (
        Command::Discard,
        "discard",
        "drop the unsaved edits and go on",
    ),
    (Command::Keep, "keep", "go on and keep the unsaved edits"),
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
            Command::Confirm => "yes",
            Command::Cancel => "cancel",
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
            _ => return None,
        })
    }

    /// Runs from the palette by its name (`:undo`): the commands that act on the catalog or the
    /// screen rather than move within a pane.
    pub fn in_palette(self) -> bool {
        matches!(
            self,
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
                | Command::Write
                | Command::OlmRules
                | Command::Help
                | Command::Open
                | Command::Filter
        )
    }
}

/// Where keys are looked up: the focused pane, or what is open over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    Tree,
    Graph,
    Details,
    Problems,
    /// Questions answered with a key (confirm, the write preview, a save's questions).
    Dialog,
    /// Lists to choose from, filtered by typing.
    Picker,
    /// Text typed at the bottom line or in an input dialog.
    Prompt,
    Help,
}

impl Layer {
    pub const ALL: [Layer; 8] = [
        Layer::Tree,
        Layer::Graph,
        Layer::Details,
        Layer::Problems,
        Layer::Dialog,
        Layer::Picker,
        Layer::Prompt,
        Layer::Help,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Layer::Tree => "tree",
            Layer::Graph => "graph",
            Layer::Details => "details",
            Layer::Problems => "problems",
            Layer::Dialog => "dialog",
            Layer::Picker => "picker",
            Layer::Prompt => "prompt",
            Layer::Help => "help",
        }
    }

    fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Printable keys no binding takes are typed as text here.
    pub fn takes_text(self) -> bool {
        matches!(self, Layer::Picker | Layer::Prompt)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One key: a code and its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub fn of(ev: &KeyEvent) -> Key {
        // Shift is part of the key for letters (`N`) and for BackTab, which terminals send with
        // the Shift modifier, so it is not kept as a modifier there.
        let mods = match ev.code {
            KeyCode::Char(_) | KeyCode::BackTab => ev.modifiers - KeyModifiers::SHIFT,
            _ => ev.modifiers,
        };
        Key {
            code: ev.code,
            mods,
        }
    }

    /// Reads `j`, `N`, `ctrl-u`, `down`, `pageup`, `enter`, `esc`, `tab`, `backtab`, `space`,
    /// `backspace`, `f1`.
    pub fn parse(s: &str) -> Result<Key, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = s;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-") {
                mods |= KeyModifiers::CONTROL;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-") {
                mods |= KeyModifiers::ALT;
                rest = r;
            } else {
                break;
            }
        }
        let code = match rest {
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "enter" => KeyCode::Enter,
            "esc" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "space" => KeyCode::Char(' '),
            f if f.len() > 1 && f.starts_with('f') && f[1..].parse::<u8>().is_ok() => {
                KeyCode::F(f[1..].parse().unwrap_or(1))
            }
            c if c.chars().count() == 1 => KeyCode::Char(c.chars().next().unwrap_or(' ')),
            other => return Err(format!("unknown key {other:?}")),
        };
        Ok(Key { code, mods })
    }

    pub fn name(&self) -> String {
        let mut s = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            s.push_str("ctrl-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            s.push_str("alt-");
        }
        s.push_str(&match self.code {
            KeyCode::Up => "up".into(),
            KeyCode::Down => "down".into(),
            KeyCode::Left => "left".into(),
            KeyCode::Right => "right".into(),
            KeyCode::Home => "home".into(),
            KeyCode::End => "end".into(),
            KeyCode::PageUp => "pageup".into(),
            KeyCode::PageDown => "pagedown".into(),
            KeyCode::Enter => "enter".into(),
            KeyCode::Esc => "esc".into(),
            KeyCode::Tab => "tab".into(),
            KeyCode::BackTab => "backtab".into(),
            KeyCode::Backspace => "backspace".into(),
            KeyCode::Char(' ') => "space".into(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::F(n) => format!("f{n}"),
            other => format!("{other:?}").to_lowercase(),
        });
        s
    }
}

impl Key {
    /// The key as hints in sentences name it: named keys capitalised, arrows drawn.
    pub fn label(&self) -> String {
        if !self.mods.is_empty() {
            return self.name();
        }
        match self.code {
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift-Tab".into(),
            KeyCode::Backspace => "Backspace".into(),
            _ => self.name(),
        }
    }
}

fn sequence(s: &str) -> Result<Vec<Key>, String> {
    let keys: Vec<Key> = s
        .split(' ')
        .filter(|p| !p.is_empty())
        .map(Key::parse)
        .collect::<Result<_, _>>()?;
    if keys.is_empty() {
        return Err("an empty key".into());
    }
    Ok(keys)
}

fn sequence_name(keys: &[Key]) -> String {
    keys.iter().map(Key::name).collect::<Vec<_>>().join(" ")
}

/// A binding: the keys (a sequence such as `g g`), the command they run, and what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub on: Vec<Key>,
    pub run: Command,
    pub desc: String,
}

/// The panes' bindings; those marked with a pane are that pane's alone.
const PANES: &[(&str, Command, Option<Layer>)] = &[
    ("j", Command::Down, None),
    ("down", Command::Down, None),
    ("k", Command::Up, None),
    ("up", Command::Up, None),
    ("h", Command::Left, Some(Layer::Tree)),
    ("left", Command::Left, Some(Layer::Tree)),
    ("l", Command::Right, Some(Layer::Tree)),
    ("right", Command::Right, Some(Layer::Tree)),
    ("g g", Command::Top, None),
    ("home", Command::Top, None),
    ("G", Command::Bottom, None),
    ("end", Command::Bottom, None),
    ("ctrl-d", Command::HalfPageDown, None),
    ("pagedown", Command::HalfPageDown, None),
    ("ctrl-u", Command::HalfPageUp, None),
    ("pageup", Command::HalfPageUp, None),
    ("tab", Command::NextPane, None),
    ("backtab", Command::PrevPane, None),
    ("enter", Command::Select, None),
    ("/", Command::Filter, None),
    ("n", Command::NextMatch, Some(Layer::Tree)),
    ("N", Command::PrevMatch, Some(Layer::Tree)),
    (":", Command::Palette, None),
    ("o", Command::Open, None),
    ("?", Command::Help, None),
    ("esc", Command::Back, None),
    ("q", Command::Quit, None),
    ("ctrl-c", Command::Quit, None),
    ("p", Command::Promote, None),
    ("d", Command::DefaultChannel, None),
    ("s", Command::Skips, None),
    ("r", Command::SkipRange, None),
    ("x", Command::Deprecate, None),
    ("D", Command::RemoveEntry, None),
    ("c", Command::CreateChannel, None),
    ("a", Command::AddBundle, None),
    ("u", Command::Undo, None),
    ("ctrl-r", Command::Redo, None),
    ("w", Command::Write, None),
    ("v", Command::OlmRules, None),
];

const DIALOG: &[(&str, Command)] = &[
    ("y", Command::Confirm),
    ("o", Command::Keep),
    ("d", Command::Discard),
    ("n", Command::Cancel),
    ("esc", Command::Cancel),
    ("ctrl-c", Command::Cancel),
    ("j", Command::Down),
    ("down", Command::Down),
    ("k", Command::Up),
    ("up", Command::Up),
    ("ctrl-d", Command::HalfPageDown),
    ("pagedown", Command::HalfPageDown),
    ("ctrl-u", Command::HalfPageUp),
    ("pageup", Command::HalfPageUp),
];

const PICKER: &[(&str, Command)] = &[
    ("down", Command::Down),
    ("ctrl-n", Command::Down),
    ("up", Command::Up),
    ("ctrl-p", Command::Up),
    ("enter", Command::Accept),
    ("esc", Command::Cancel),
    ("ctrl-c", Command::Cancel),
    ("backspace", Command::DeleteBack),
];

const PROMPT: &[(&str, Command)] = &[
    ("enter", Command::Accept),
    ("esc", Command::Cancel),
    ("ctrl-c", Command::Cancel),
    ("backspace", Command::DeleteBack),
    ("tab", Command::Complete),
];

const HELP: &[(&str, Command)] = &[
    ("esc", Command::Back),
    ("?", Command::Back),
    ("q", Command::Back),
    ("j", Command::Down),
    ("down", Command::Down),
    ("k", Command::Up),
    ("up", Command::Up),
    ("ctrl-d", Command::HalfPageDown),
    ("pagedown", Command::HalfPageDown),
    ("ctrl-u", Command::HalfPageUp),
    ("pageup", Command::HalfPageUp),
];

fn bindings(table: &[(&str, Command)]) -> Vec<Binding> {
    table
        .iter()
        .filter_map(|(on, run)| {
            Some(Binding {
                on: sequence(on).ok()?,
                run: *run,
                desc: run.desc().to_string(),
            })
        })
        .collect()
}

/// The effective bindings, per layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    layers: [Vec<Binding>; 8],
}

impl Default for Keymap {
    fn default() -> Self {
        let layers = Layer::ALL.map(|layer| match layer {
            Layer::Tree | Layer::Graph | Layer::Details | Layer::Problems => {
                let mine: Vec<(&str, Command)> = PANES
                    .iter()
                    .filter(|(.., only)| only.is_none_or(|o| o == layer))
                    .map(|(on, run, _)| (*on, *run))
                    .collect();
                bindings(&mine)
            }
            Layer::Dialog => bindings(DIALOG),
            Layer::Picker => bindings(PICKER),
            Layer::Prompt => bindings(PROMPT),
            Layer::Help => bindings(HELP),
        });
        Keymap { layers }
    }
}

/// What a key press means, given the keys pressed just before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    Command(Command),
    /// The start of a sequence (`g` of `g g`): wait for the next key.
    Pending,
    None,
}

impl Keymap {
    /// A layer's bindings, in the order they are looked up.
    pub fn layer(&self, layer: Layer) -> &[Binding] {
        &self.layers[layer.index()]
    }

    /// The first binding whose keys are `pending` then `key` wins; a longer sequence that starts
    /// so makes the key wait for the next.
    pub fn lookup(&self, layer: Layer, pending: &[Key], key: Key) -> Lookup {
        let mut seq = pending.to_vec();
        seq.push(key);
        let mut prefix = false;
        for b in self.layer(layer) {
            if b.on == seq {
                return Lookup::Command(b.run);
            }
            if b.on.len() > seq.len() && b.on[..seq.len()] == seq[..] {
                prefix = true;
            }
        }
        if prefix {
            Lookup::Pending
        } else {
            Lookup::None
        }
    }

    /// The first key of a command in a layer, as hints show it (`gg`, `ctrl-d`).
    pub fn first_key(&self, layer: Layer, command: Command) -> String {
        self.layer(layer)
            .iter()
            .find(|b| b.run == command)
            .map(|b| b.on.iter().map(Key::name).collect::<String>())
            .unwrap_or_default()
    }

    /// The first key of a command in a layer as sentences in dialogs say it (`Esc`, `Enter`, `↑`, `y`).
    pub fn hint(&self, layer: Layer, command: Command) -> String {
        self.layer(layer)
            .iter()
            .find(|b| b.run == command)
            .map(|b| b.on.iter().map(Key::label).collect::<String>())
            .unwrap_or_default()
    }

    /// Every key of a command in a layer, `/`-separated (`j/down`).
    pub fn keys(&self, layer: Layer, command: Command) -> String {
        self.layer(layer)
            .iter()
            .filter(|b| b.run == command)
            .map(|b| b.on.iter().map(Key::name).collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// A layer's commands, each once, in the order of their first binding, with all their keys.
    pub fn commands(&self, layer: Layer) -> Vec<(Command, String, &str)> {
        let mut out: Vec<(Command, String, &str)> = Vec::new();
        for b in self.layer(layer) {
            if !out.iter().any(|(c, ..)| *c == b.run) {
                out.push((b.run, self.keys(layer, b.run), b.desc.as_str()));
            }
        }
        out
    }
}

/// A binding as the config file writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigBinding {
    on: OneOrMany,
    run: String,
    #[serde(default)]
    desc: Option<String>,
}

/// `on: "g g"` or `on: [g, g]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigLayer {
    #[serde(default)]
    prepend: Vec<ConfigBinding>,
    #[serde(default)]
    append: Vec<ConfigBinding>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// Command → keys: the command's keys in every layer it is bound in.
    #[serde(default)]
    keys: BTreeMap<String, Vec<String>>,
    /// Layer → bindings to put ahead of or after the layer's own.
    #[serde(default)]
    keymap: BTreeMap<String, ConfigLayer>,
}

/// Where the config file lives: `$FBC_EDIT_CONFIG_DIR/config.yaml`, else the platform's config
/// directory for fbc-edit.
pub fn config_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FBC_EDIT_CONFIG_DIR") {
        return Some(PathBuf::from(dir).join("config.yaml"));
    }
    directories::ProjectDirs::from("", "", "fbc-edit").map(|d| d.config_dir().join("config.yaml"))
}

fn known_commands() -> String {
    Command::all()
        .map(Command::name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `keys:` — a command's keys, replaced wherever the command is bound.
fn replace_keys(map: &mut Keymap, name: &str, keys: &[String]) -> Result<(), String> {
    let command = Command::from_name(name).ok_or_else(|| {
        format!(
            "unknown command {name:?} in keys (known: {})",
            known_commands()
        )
    })?;
    let parsed: Vec<Vec<Key>> = keys
        .iter()
        .map(|k| sequence(k).map_err(|e| format!("keys.{name}: {e}")))
        .collect::<Result<_, _>>()?;
    for layer in &mut map.layers {
        let Some(at) = layer.iter().position(|b| b.run == command) else {
            continue;
        };
        layer.retain(|b| b.run != command);
        for (i, on) in parsed.iter().enumerate() {
            layer.insert(
                (at + i).min(layer.len()),
                Binding {
                    on: on.clone(),
                    run: command,
                    desc: command.desc().to_string(),
                },
            );
        }
    }
    Ok(())
}

fn binding(layer: &str, b: ConfigBinding) -> Result<Binding, String> {
    let run = Command::from_name(&b.run).ok_or_else(|| {
        format!(
            "keymap.{layer}: unknown command {:?} (known: {})",
            b.run,
            known_commands()
        )
    })?;
    let on = match b.on {
        OneOrMany::One(s) => sequence(&s),
        OneOrMany::Many(v) => v.iter().map(|k| Key::parse(k)).collect(),
    }
    .map_err(|e| format!("keymap.{layer}: {e}"))?;
    if on.is_empty() {
        return Err(format!("keymap.{layer}: a binding with no keys"));
    }
    Ok(Binding {
        on,
        run,
        desc: b.desc.unwrap_or_else(|| run.desc().to_string()),
    })
}

fn apply(map: &mut Keymap, file: ConfigFile) -> Result<(), String> {
    for (name, keys) in &file.keys {
        replace_keys(map, name, keys)?;
    }
    for (name, cfg) in file.keymap {
        let layer = Layer::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = Layer::ALL.iter().map(|l| l.name()).collect();
            format!(
                "unknown layer {name:?} in keymap (known: {})",
                known.join(", ")
            )
        })?;
        let prepend: Vec<Binding> = cfg
            .prepend
            .into_iter()
            .map(|b| binding(&name, b))
            .collect::<Result<_, _>>()?;
        let append: Vec<Binding> = cfg
            .append
            .into_iter()
            .map(|b| binding(&name, b))
            .collect::<Result<_, _>>()?;
        let bindings = &mut map.layers[layer.index()];
        bindings.splice(0..0, prepend);
        bindings.extend(append);
    }
    Ok(())
}

/// The keymap with the user's changes from `text` (the config file's content). On a problem the
/// defaults are kept and the message says where it is.
pub fn with_overrides(text: &str, path: &str) -> (Keymap, Option<String>) {
    let file: ConfigFile = match serde_yaml::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let at = e
                .location()
                .map_or(String::new(), |l| format!(":{}:{}", l.line(), l.column()));
            return (
                Keymap::default(),
                Some(format!("{path}{at}: {e}; using the default keys")),
            );
        }
    };
    let mut map = Keymap::default();
    match apply(&mut map, file) {
        Ok(()) => (map, None),
        Err(e) => (
            Keymap::default(),
            Some(format!("{path}: {e}; using the default keys")),
        ),
    }
}

/// Loads the keymap from the config file, if there is one.
pub fn load() -> (Keymap, Option<String>) {
    let Some(path) = config_path() else {
        return (Keymap::default(), None);
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => with_overrides(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Keymap::default(), None),
        Err(e) => (
            Keymap::default(),
            Some(format!("{}: {e}; using the default keys", path.display())),
        ),
    }
}

/// The keymap as `fbc-edit info` prints it: each layer, each command with its keys.
pub fn describe(map: &Keymap) -> String {
    let mut out = String::new();
    for layer in Layer::ALL {
        out.push_str(&format!("{}:\n", layer.name()));
        for (command, keys, desc) in map.commands(layer) {
            out.push_str(&format!("  {:<16} {:<20} {desc}\n", command.name(), keys));
        }
    }
    out
}

/// A binding as the config file would write it (`g g`), for messages.
pub fn binding_name(b: &Binding) -> String {
    sequence_name(&b.on)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Key {
        Key::parse(s).unwrap()
    }

    #[test]
    fn sequences_and_overrides() {
        let map = Keymap::default();
        let t = Layer::Tree;
        assert_eq!(map.lookup(t, &[], key("j")), Lookup::Command(Command::Down));
        assert_eq!(map.lookup(t, &[], key("g")), Lookup::Pending);
        assert_eq!(
            map.lookup(t, &[key("g")], key("g")),
            Lookup::Command(Command::Top)
        );
        assert_eq!(
            map.lookup(t, &[], key("ctrl-d")),
            Lookup::Command(Command::HalfPageDown)
        );
        let (map, warning) = with_overrides("keys:\n  down: [s]\n", "c.yaml");
        assert_eq!(warning, None);
        assert_eq!(map.lookup(t, &[], key("s")), Lookup::Command(Command::Down));
        assert_eq!(map.lookup(t, &[], key("j")), Lookup::None);
        // The dialog's own `j` scrolls the write preview: it is in that layer, so it changed too.
        assert_eq!(
            map.lookup(Layer::Dialog, &[], key("s")),
            Lookup::Command(Command::Down)
        );
    }

    #[test]
    fn layers_answer_the_same_key_differently() {
        let map = Keymap::default();
        assert_eq!(
            map.lookup(Layer::Tree, &[], key("n")),
            Lookup::Command(Command::NextMatch)
        );
        assert_eq!(
            map.lookup(Layer::Dialog, &[], key("n")),
            Lookup::Command(Command::Cancel)
        );
        // Typed as text in pickers and prompts.
        assert_eq!(map.lookup(Layer::Picker, &[], key("n")), Lookup::None);
        assert!(Layer::Picker.takes_text());
        assert_eq!(
            map.lookup(Layer::Tree, &[], key("l")),
            Lookup::Command(Command::Right)
        );
        assert_eq!(map.lookup(Layer::Graph, &[], key("l")), Lookup::None);
    }

    #[test]
    fn prepend_wins_and_append_only_fills_gaps() {
        let cfg = "keymap:\n  tree:\n    prepend:\n      - {on: j, run: bottom, desc: jump}\n    append:\n      - {on: k, run: top}\n      - {on: [z, z], run: top}\n";
        let (map, warning) = with_overrides(cfg, "c.yaml");
        assert_eq!(warning, None);
        let t = Layer::Tree;
        assert_eq!(
            map.lookup(t, &[], key("j")),
            Lookup::Command(Command::Bottom)
        );
        assert_eq!(map.lookup(t, &[], key("k")), Lookup::Command(Command::Up));
        assert_eq!(map.lookup(t, &[], key("z")), Lookup::Pending);
        assert_eq!(
            map.lookup(t, &[key("z")], key("z")),
            Lookup::Command(Command::Top)
        );
        // Other layers keep their own.
        assert_eq!(
            map.lookup(Layer::Graph, &[], key("j")),
            Lookup::Command(Command::Down)
        );
        assert_eq!(map.layer(t)[0].desc, "jump");
    }

    #[test]
    fn backtab_is_found_with_the_shift_terminals_send() {
        let ev = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(
            Keymap::default().lookup(Layer::Tree, &[], Key::of(&ev)),
            Lookup::Command(Command::PrevPane)
        );
    }

    #[test]
    fn bad_config_names_its_line_and_keeps_the_defaults() {
        let (map, warning) = with_overrides("keys:\n  down: [j]\n  up: {k: 1}\n", "c.yaml");
        assert_eq!(map, Keymap::default());
        assert!(warning.unwrap().starts_with("c.yaml:3:"));
        let (map, warning) = with_overrides("keys:\n  dwn: [j]\n", "c.yaml");
        assert_eq!(map, Keymap::default());
        assert!(warning.unwrap().contains("unknown command \"dwn\""));
        let (_, warning) = with_overrides("keys:\n  down: [hyper-j]\n", "c.yaml");
        assert!(warning.unwrap().contains("unknown key"));
        let (_, warning) = with_overrides("keymap:\n  trees: {}\n", "c.yaml");
        assert!(warning.unwrap().contains("unknown layer \"trees\""));
        let (_, warning) = with_overrides(
            "keymap:\n  tree:\n    prepend: [{on: j, run: jump}]\n",
            "c.yaml",
        );
        assert!(warning.unwrap().contains("keymap.tree: unknown command"));
    }
}
