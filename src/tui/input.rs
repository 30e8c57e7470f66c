//! Keys become commands before `update` sees them: the layer that is on top (a dialog, a picker, a
//! prompt, the help or the focused pane) is looked up in the keymap, together with the keys of a
//! sequence pressed so far.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::{Key, Keymap, Layer, Lookup};
use super::model::{Action, Dialog, Model, Pane};

/// A key press, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Command(super::keymap::Command),
    /// A character typed into a picker's filter or a prompt.
    Text(char),
    /// The first keys of a sequence (`g` of `g g`): the next key decides.
    Pending(Key),
    /// A key nothing is bound to (dialogs answer it: most close).
    Other,
}

/// The layer a dialog's keys are looked up in.
pub fn layer_of(d: &Dialog) -> Layer {
    match d {
        Dialog::Input { .. } => Layer::Prompt,
        Dialog::Write { view } if view.typing.is_some() => Layer::Prompt,
        Dialog::Write { .. } => Layer::Diff,
        Dialog::PickBundle { .. }
        | Dialog::Pick { .. }
        | Dialog::PickChannel { .. }
        | Dialog::PickChannelForNew { .. } => Layer::Picker,
        _ => Layer::Dialog,
    }
}

/// The layer keys are looked up in: the help on top of all, then a dialog, a prompt, the pane.
pub fn layer(m: &Model) -> Layer {
    // The help and the message viewer take the same keys.
    if m.overlay.is_some() {
        return Layer::Help;
    }
    if let Some(d) = &m.dialog {
        return layer_of(d);
    }
    if m.prompt.is_some() {
        return Layer::Prompt;
    }
    match m.focus {
        Pane::Tree => Layer::Tree,
        Pane::Graph => Layer::Graph,
        Pane::Details => Layer::Details,
        Pane::Problems => Layer::Problems,
    }
}

/// What a key press means on the model as it is.
pub fn resolve(m: &Model, ev: &KeyEvent) -> Input {
    resolve_in(&m.keymap, layer(m), &m.pending, ev)
}

/// What a key press means in `layer`, after the keys of a sequence pressed so far.
pub fn resolve_in(keymap: &Keymap, layer: Layer, pending: &[Key], ev: &KeyEvent) -> Input {
    let key = Key::of(ev);
    match keymap.lookup(layer, pending, key) {
        Lookup::Command(c) => Input::Command(c),
        Lookup::Pending => Input::Pending(key),
        Lookup::None => match ev.code {
            KeyCode::Char(c)
                if layer.takes_text()
                    && pending.is_empty()
                    && !ev
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Input::Text(c)
            }
            _ => Input::Other,
        },
    }
}

/// The action a key press becomes.
pub fn action(m: &Model, ev: &KeyEvent) -> Action {
    Action::Input(resolve(m, ev))
}
