//! One layered keymap drives key handling, the footer hints, the `?` help, the palette and
//! `fbc-edit info`. Each layer (the four panes, dialogs, pickers, prompts and the help) is a list of
//! bindings `{on, run, desc}`, looked up in order. Users prepend or append bindings per layer, or
//! give a command other keys, in `config.yaml` under the config directory.

mod command;
mod config;
mod key;
mod verb;

pub use command::Command;
pub use config::{config_path, config_text, load, with_overrides};
pub use key::Key;
use key::sequence;
pub use verb::{Verb, palette_desc, palette_hint, palette_names};

/// Where keys are looked up: the focused pane, or what is open over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    Tree,
    Graph,
    Details,
    Problems,
    /// Questions answered with a key (confirm, a save's questions).
    Dialog,
    /// The write preview's diff viewer.
    Diff,
    /// Lists to choose from, filtered by typing.
    Picker,
    /// Text typed at the bottom line or in an input dialog.
    Prompt,
    Help,
    /// A repository's list of operators.
    Repo,
}

impl Layer {
    pub const ALL: [Layer; 10] = [
        Layer::Tree,
        Layer::Graph,
        Layer::Details,
        Layer::Problems,
        Layer::Dialog,
        Layer::Diff,
        Layer::Picker,
        Layer::Prompt,
        Layer::Help,
        Layer::Repo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Layer::Tree => "tree",
            Layer::Graph => "graph",
            Layer::Details => "details",
            Layer::Problems => "problems",
            Layer::Dialog => "dialog",
            Layer::Diff => "diff",
            Layer::Picker => "picker",
            Layer::Prompt => "prompt",
            Layer::Help => "help",
            Layer::Repo => "repo",
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
    ("l", Command::Select, Some(Layer::Graph)),
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
    ("S", Command::RemoveSkips, None),
    ("r", Command::SkipRange, None),
    ("R", Command::SetReplaces, None),
    ("x", Command::Deprecate, None),
    ("X", Command::Undeprecate, None),
    ("D", Command::RemoveEntry, None),
    ("B", Command::RemoveBundle, None),
    ("c", Command::CreateChannel, None),
    ("C", Command::DeleteChannel, None),
    ("a", Command::AddBundle, None),
    ("u", Command::Undo, None),
    ("ctrl-r", Command::Redo, None),
    ("w", Command::Write, None),
    ("v", Command::OlmRules, None),
    ("T", Command::NextTemplate, None),
    ("z", Command::Enlarge, Some(Layer::Problems)),
    ("e", Command::Severity, None),
    ("f", Command::OnlySelection, None),
    ("m", Command::Message, None),
];

const DIALOG: &[(&str, Command)] = &[
    ("y", Command::Confirm),
    ("w", Command::Write),
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

/// The diff viewer: writes, closes and moves; any other key does nothing.
const DIFF: &[(&str, Command)] = &[
    ("y", Command::Confirm),
    ("esc", Command::Cancel),
    ("q", Command::Cancel),
    ("ctrl-c", Command::Cancel),
    ("?", Command::Help),
    ("j", Command::Down),
    ("down", Command::Down),
    ("k", Command::Up),
    ("up", Command::Up),
    ("]", Command::NextHunk),
    ("[", Command::PrevHunk),
    ("J", Command::NextFile),
    ("K", Command::PrevFile),
    ("/", Command::Search),
    ("n", Command::NextMatch),
    ("N", Command::PrevMatch),
    ("enter", Command::WholeLine),
    ("v", Command::WholeLine),
    ("pagedown", Command::PageDown),
    ("space", Command::PageDown),
    ("pageup", Command::PageUp),
    ("ctrl-d", Command::HalfPageDown),
    ("ctrl-u", Command::HalfPageUp),
    ("g", Command::Top),
    ("home", Command::Top),
    ("G", Command::Bottom),
    ("end", Command::Bottom),
];

const PICKER: &[(&str, Command)] = &[
    ("down", Command::Down),
    ("ctrl-n", Command::Down),
    ("up", Command::Up),
    ("ctrl-p", Command::Up),
    ("enter", Command::Accept),
    ("space", Command::Toggle),
    ("esc", Command::Cancel),
    ("ctrl-c", Command::Cancel),
    ("backspace", Command::DeleteBack),
    ("delete", Command::DeleteForward),
    ("left", Command::CursorLeft),
    ("right", Command::CursorRight),
    ("ctrl-a", Command::LineStart),
    ("home", Command::LineStart),
    ("ctrl-e", Command::LineEnd),
    ("end", Command::LineEnd),
    ("ctrl-u", Command::KillToStart),
    ("ctrl-k", Command::KillToEnd),
    ("ctrl-w", Command::KillWordBack),
    ("alt-backspace", Command::KillWordBack),
    ("alt-b", Command::WordBack),
    ("alt-f", Command::WordForward),
];

const PROMPT: &[(&str, Command)] = &[
    ("enter", Command::Accept),
    ("esc", Command::Cancel),
    ("ctrl-c", Command::Cancel),
    ("backspace", Command::DeleteBack),
    ("tab", Command::Complete),
    ("delete", Command::DeleteForward),
    ("left", Command::CursorLeft),
    ("right", Command::CursorRight),
    ("ctrl-a", Command::LineStart),
    ("home", Command::LineStart),
    ("ctrl-e", Command::LineEnd),
    ("end", Command::LineEnd),
    ("ctrl-u", Command::KillToStart),
    ("ctrl-k", Command::KillToEnd),
    ("ctrl-w", Command::KillWordBack),
    ("alt-backspace", Command::KillWordBack),
    ("alt-b", Command::WordBack),
    ("alt-f", Command::WordForward),
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

/// A repository's list of operators.
const REPO: &[(&str, Command)] = &[
    ("j", Command::Down),
    ("down", Command::Down),
    ("k", Command::Up),
    ("up", Command::Up),
    ("g g", Command::Top),
    ("home", Command::Top),
    ("G", Command::Bottom),
    ("end", Command::Bottom),
    ("ctrl-d", Command::HalfPageDown),
    ("pagedown", Command::HalfPageDown),
    ("ctrl-u", Command::HalfPageUp),
    ("pageup", Command::HalfPageUp),
    ("enter", Command::Select),
    ("/", Command::Filter),
    ("r", Command::Recheck),
    ("?", Command::Help),
    ("esc", Command::Back),
    ("q", Command::Quit),
    ("ctrl-c", Command::Quit),
];

/// The effective bindings, per layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    layers: [Vec<Binding>; 10],
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
            Layer::Diff => bindings(DIFF),
            Layer::Picker => bindings(PICKER),
            Layer::Prompt => bindings(PROMPT),
            Layer::Help => bindings(HELP),
            Layer::Repo => bindings(REPO),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
        // The graph pane's `l` selects the cursor's entry in the tree; the details have none.
        assert_eq!(
            map.lookup(Layer::Graph, &[], key("l")),
            Lookup::Command(Command::Select)
        );
        assert_eq!(map.lookup(Layer::Details, &[], key("l")), Lookup::None);
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
