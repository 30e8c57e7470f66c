//! One key and sequences of keys as the config file writes them (`ctrl-d`, `g g`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
    /// `backspace`, `delete`, `f1`.
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
            "delete" => KeyCode::Delete,
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
            KeyCode::Delete => "delete".into(),
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
            KeyCode::Char(' ') => "Space".into(),
            _ => self.name(),
        }
    }
}

pub(super) fn sequence(s: &str) -> Result<Vec<Key>, String> {
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
