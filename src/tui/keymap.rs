//! One binding table drives key handling, the footer hints and the `?` help. Users override keys in
//! `config.yaml` under the config directory.

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
}

/// One key: a code and its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub fn of(ev: &KeyEvent) -> Key {
        // Shift is part of the character for letters (`N`), so it is not kept as a modifier there.
        let mods = match ev.code {
            KeyCode::Char(_) => ev.modifiers - KeyModifiers::SHIFT,
            _ => ev.modifiers,
        };
        Key {
            code: ev.code,
            mods,
        }
    }

    /// Reads `j`, `N`, `ctrl-u`, `down`, `pageup`, `enter`, `esc`, `tab`, `backtab`, `space`, `f1`.
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
            KeyCode::Char(' ') => "space".into(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::F(n) => format!("f{n}"),
            other => format!("{other:?}").to_lowercase(),
        });
        s
    }
}

/// A binding: a command, its keys (each a sequence such as `g g`), and what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub command: Command,
    /// The name used in the config file.
    pub name: &'static str,
    pub keys: Vec<Vec<Key>>,
    pub desc: &'static str,
    /// Shown in the footer.
    pub footer: bool,
}

const DEFAULTS: &[(Command, &str, &[&str], &str, bool)] = &[
    (Command::Down, "down", &["j", "down"], "move down", false),
    (Command::Up, "up", &["k", "up"], "move up", false),
    (
        Command::Left,
        "left",
        &["h", "left"],
        "collapse / go to parent",
        false,
    ),
    (
        Command::Right,
        "right",
        &["l", "right"],
        "expand / go into",
        false,
    ),
    (
        Command::Top,
        "top",
        &["g g", "home"],
        "go to the top",
        false,
    ),
    (
        Command::Bottom,
        "bottom",
        &["G", "end"],
        "go to the bottom",
        false,
    ),
    (
        Command::HalfPageDown,
        "half-page-down",
        &["ctrl-d", "pagedown"],
        "half a page down",
        false,
    ),
    (
        Command::HalfPageUp,
        "half-page-up",
        &["ctrl-u", "pageup"],
        "half a page up",
        false,
    ),
    (Command::NextPane, "next-pane", &["tab"], "next pane", true),
    (
        Command::PrevPane,
        "previous-pane",
        &["backtab"],
        "previous pane",
        false,
    ),
    (
        Command::Select,
        "select",
        &["enter"],
        "select / jump to the problem",
        true,
    ),
    (
        Command::Filter,
        "filter",
        &["/"],
        "filter packages, bundles, versions, images",
        true,
    ),
    (
        Command::NextMatch,
        "next-match",
        &["n"],
        "next match",
        false,
    ),
    (
        Command::PrevMatch,
        "previous-match",
        &["N"],
        "previous match",
        false,
    ),
    (Command::Palette, "palette", &[":"], "command palette", true),
    (
        Command::Open,
        "open",
        &["o"],
        "open the object's file in $EDITOR",
        true,
    ),
    (Command::Help, "help", &["?"], "help for this pane", true),
    (
        Command::Back,
        "back",
        &["esc"],
        "close / clear the filter",
        false,
    ),
    (Command::Quit, "quit", &["q", "ctrl-c"], "quit", true),
    (
        Command::Promote,
        "promote",
        &["p"],
        "promote a bundle into the selected channel",
        false,
    ),
    (
        Command::DefaultChannel,
        "default-channel",
        &["d"],
        "make the selected channel the default",
        false,
    ),
    (
        Command::Skips,
        "skips",
        &["s"],
        "add skips to the selected entry",
        false,
    ),
    (
        Command::SkipRange,
        "skip-range",
        &["r"],
        "set or clear the selected entry's skipRange",
        false,
    ),
    (
        Command::Deprecate,
        "deprecate",
        &["x"],
        "deprecate the selected package, channel or bundle",
        false,
    ),
    (
        Command::RemoveEntry,
        "remove-entry",
        &["D"],
        "remove the selected entry, re-linking its neighbours",
        false,
    ),
    (
        Command::CreateChannel,
        "create-channel",
        &["c"],
        "create a channel with the selected bundle",
        false,
    ),
    (
        Command::AddBundle,
        "add-bundle",
        &["a"],
        "add a bundle directory to the catalog and promote it into a channel",
        false,
    ),
    (Command::Undo, "undo", &["u"], "undo the last edit", false),
    (
        Command::Redo,
        "redo",
        &["ctrl-r"],
        "redo the last undone edit",
        false,
    ),
    (
        Command::Write,
        "write",
        &["w"],
        "show the diff and write the changed files",
        true,
    ),
    (
        Command::OlmRules,
        "olm-rules",
        &["v"],
        "graph: switch between OLM v0 and OLM v1 upgrade rules",
        false,
    ),
];

/// The effective bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    pub bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: DEFAULTS
                .iter()
                .map(|(command, name, keys, desc, footer)| Binding {
                    command: *command,
                    name,
                    keys: keys
                        .iter()
                        .map(|k| k.split(' ').filter_map(|p| Key::parse(p).ok()).collect())
                        .collect(),
                    desc,
                    footer: *footer,
                })
                .collect(),
        }
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
    pub fn lookup(&self, pending: &[Key], key: Key) -> Lookup {
        let mut seq = pending.to_vec();
        seq.push(key);
        let mut prefix = false;
        for b in &self.bindings {
            for k in &b.keys {
                if *k == seq {
                    return Lookup::Command(b.command);
                }
                if k.len() > seq.len() && k[..seq.len()] == seq[..] {
                    prefix = true;
                }
            }
        }
        if prefix {
            Lookup::Pending
        } else {
            Lookup::None
        }
    }

    /// The first key of a command, as shown in the footer.
    pub fn first_key_of(&self, command: Command) -> String {
        self.bindings
            .iter()
            .find(|b| b.command == command)
            .and_then(|b| b.keys.first())
            .map(|seq| seq.iter().map(Key::name).collect::<Vec<_>>().join(""))
            .unwrap_or_default()
    }

    pub fn keys_of(&self, command: Command) -> String {
        self.bindings
            .iter()
            .find(|b| b.command == command)
            .map(|b| {
                b.keys
                    .iter()
                    .map(|seq| seq.iter().map(Key::name).collect::<Vec<_>>().join(""))
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .unwrap_or_default()
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    keys: std::collections::BTreeMap<String, Vec<String>>,
}

/// Where the config file lives: `$FBC_EDIT_CONFIG_DIR/config.yaml`, else the platform's config
/// directory for fbc-edit.
pub fn config_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FBC_EDIT_CONFIG_DIR") {
        return Some(PathBuf::from(dir).join("config.yaml"));
    }
    directories::ProjectDirs::from("", "", "fbc-edit").map(|d| d.config_dir().join("config.yaml"))
}

/// The keymap with the user's overrides from `text` (the config file's content). On a problem the
/// defaults are kept and the message says where it is.
pub fn with_overrides(text: &str, path: &str) -> (Keymap, Option<String>) {
    let mut map = Keymap::default();
    let file: ConfigFile = match serde_yaml::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let at = e
                .location()
                .map_or(String::new(), |l| format!(":{}:{}", l.line(), l.column()));
            return (
                map,
                Some(format!("{path}{at}: {e}; using the default keys")),
            );
        }
    };
    for (name, keys) in file.keys {
        let Some(b) = map.bindings.iter_mut().find(|b| b.name == name) else {
            let known: Vec<&str> = Keymap::default().bindings.iter().map(|b| b.name).collect();
            return (
                Keymap::default(),
                Some(format!(
                    "{path}: unknown command {name:?} in keys (known: {}); using the default keys",
                    known.join(", ")
                )),
            );
        };
        let mut parsed = Vec::new();
        for k in keys {
            let seq: Result<Vec<Key>, String> = k.split(' ').map(Key::parse).collect();
            match seq {
                Ok(s) if !s.is_empty() => parsed.push(s),
                Ok(_) => {}
                Err(e) => {
                    return (
                        Keymap::default(),
                        Some(format!("{path}: keys.{name}: {e}; using the default keys")),
                    );
                }
            }
        }
        b.keys = parsed;
    }
    (map, None)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Key {
        Key::parse(s).unwrap()
    }

    #[test]
    fn sequences_and_overrides() {
        let map = Keymap::default();
        assert_eq!(map.lookup(&[], key("j")), Lookup::Command(Command::Down));
        assert_eq!(map.lookup(&[], key("g")), Lookup::Pending);
        assert_eq!(
            map.lookup(&[key("g")], key("g")),
            Lookup::Command(Command::Top)
        );
        assert_eq!(
            map.lookup(&[], key("ctrl-d")),
            Lookup::Command(Command::HalfPageDown)
        );
        let (map, warning) = with_overrides("keys:\n  down: [s]\n", "c.yaml");
        assert_eq!(warning, None);
        assert_eq!(map.lookup(&[], key("s")), Lookup::Command(Command::Down));
        assert_eq!(map.lookup(&[], key("j")), Lookup::None);
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
    }
}
