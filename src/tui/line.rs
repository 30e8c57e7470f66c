//! The one line of text every input types into: the filter and the palette, dialogs' questions,
//! pickers' filters, the diff viewer's search and the repository list's filter. A cursor that moves,
//! and the readline keys shells have: Ctrl-A / Ctrl-E to the start and end, Ctrl-U / Ctrl-K delete
//! to the start and to the end, Ctrl-W the word before the cursor (up to a space), Alt-B / Alt-F a
//! word back and forward, arrows, Backspace and Delete. An input may carry a hint: a value offered,
//! not typed, that [`LineInput::take_hint`] (Tab) makes the text.

use crate::tui::input::Input;
use crate::tui::keymap::Command;

/// A line being typed, with its cursor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineInput {
    text: String,
    /// A byte offset into `text`, always at a character boundary.
    cursor: usize,
    /// Offered, not typed: shown while the text is empty, taken with [`LineInput::take_hint`].
    hint: Option<String>,
}

impl LineInput {
    /// A line holding `text`, the cursor at its end.
    pub fn new(text: impl Into<String>) -> LineInput {
        let text = text.into();
        LineInput {
            cursor: text.len(),
            text,
            hint: None,
        }
    }

    /// The same line offering `hint` (nothing when it is `None` or empty).
    pub fn with_hint(mut self, hint: Option<String>) -> LineInput {
        self.hint = hint.filter(|h| !h.is_empty());
        self
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value offered, when there is one.
    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    /// Replaces the text; the cursor goes to its end.
    pub fn set(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.cursor = self.text.len();
    }

    /// The hint becomes the text (the cursor at its end); false when there is no hint.
    pub fn take_hint(&mut self) -> bool {
        match self.hint.clone() {
            Some(h) => {
                self.set(h);
                true
            }
            None => false,
        }
    }

    /// The text before and after the cursor.
    pub fn split(&self) -> (&str, &str) {
        self.text.split_at(self.cursor)
    }

    /// Characters before the cursor (where it is drawn).
    pub fn cursor_chars(&self) -> usize {
        self.text[..self.cursor].chars().count()
    }

    /// Applies a key that types or edits; false when the key is not an editing key (the input's
    /// owner answers it: Enter, Esc, Tab…).
    pub fn edit(&mut self, input: Input) -> bool {
        let command = match input {
            Input::Text(c) => {
                self.text.insert(self.cursor, c);
                self.cursor += c.len_utf8();
                return true;
            }
            Input::Command(c) => c,
            _ => return false,
        };
        let (before, after) = self.split();
        match command {
            Command::DeleteBack => {
                if let Some(c) = before.chars().next_back() {
                    self.cursor -= c.len_utf8();
                    self.text.remove(self.cursor);
                }
            }
            Command::DeleteForward => {
                if !after.is_empty() {
                    self.text.remove(self.cursor);
                }
            }
            Command::CursorLeft => {
                if let Some(c) = before.chars().next_back() {
                    self.cursor -= c.len_utf8();
                }
            }
            Command::CursorRight => {
                if let Some(c) = after.chars().next() {
                    self.cursor += c.len_utf8();
                }
            }
            Command::LineStart => self.cursor = 0,
            Command::LineEnd => self.cursor = self.text.len(),
            Command::KillToStart => {
                self.text.drain(..self.cursor);
                self.cursor = 0;
            }
            Command::KillToEnd => self.text.truncate(self.cursor),
            Command::KillWordBack => {
                let start = word_back(before, char::is_whitespace);
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            Command::WordBack => self.cursor = word_back(before, |c| !c.is_alphanumeric()),
            Command::WordForward => {
                self.cursor += word_forward(after, |c| !c.is_alphanumeric());
            }
            _ => return false,
        }
        true
    }
}

/// Where the word before the end of `s` starts: separators (`sep`) right before the end are
/// skipped, then the word's characters.
fn word_back(s: &str, sep: impl Fn(char) -> bool) -> usize {
    let trimmed = s.trim_end_matches(&sep);
    trimmed
        .char_indices()
        .rev()
        .find(|&(_, c)| sep(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// How far the end of the next word of `s` is: separators first, then the word's characters.
fn word_forward(s: &str, sep: impl Fn(char) -> bool) -> usize {
    let lead = s.len() - s.trim_start_matches(&sep).len();
    s[lead..]
        .char_indices()
        .find(|&(_, c)| sep(c))
        .map_or(s.len(), |(i, _)| lead + i)
}

impl std::ops::Deref for LineInput {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for LineInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Compared by its text (tests and callers ask what was typed).
impl PartialEq<str> for LineInput {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for LineInput {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl PartialEq<String> for LineInput {
    fn eq(&self, other: &String) -> bool {
        &self.text == other
    }
}

impl From<&str> for LineInput {
    fn from(s: &str) -> LineInput {
        LineInput::new(s)
    }
}

impl From<String> for LineInput {
    fn from(s: String) -> LineInput {
        LineInput::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(l: &mut LineInput, c: Command) {
        assert!(l.edit(Input::Command(c)), "{c:?} is an editing key");
    }

    fn typed(l: &mut LineInput, s: &str) {
        for c in s.chars() {
            l.edit(Input::Text(c));
        }
    }

    #[test]
    fn ctrl_u_clears_to_the_start_of_the_line_and_typing_replaces_it() {
        let mut l = LineInput::new(">=1.0.3 <1.2.7");
        cmd(&mut l, Command::KillToStart);
        assert_eq!(l.text(), "");
        typed(&mut l, ">=1.2.0 <1.2.7");
        assert_eq!(l.text(), ">=1.2.0 <1.2.7");
        // From the middle: only what is before the cursor goes.
        for _ in 0..7 {
            cmd(&mut l, Command::CursorLeft);
        }
        cmd(&mut l, Command::KillToStart);
        assert_eq!((l.text(), l.cursor_chars()), (" <1.2.7", 0));
    }

    #[test]
    fn ctrl_w_deletes_the_word_before_the_cursor_up_to_a_space() {
        let mut l = LineInput::new(">=1.0.3 <1.2.7  ");
        cmd(&mut l, Command::KillWordBack);
        assert_eq!(l.text(), ">=1.0.3 ");
        cmd(&mut l, Command::KillWordBack);
        assert_eq!(l.text(), "");
        cmd(&mut l, Command::KillWordBack);
        assert_eq!(l.text(), "");
    }

    #[test]
    fn the_cursor_moves_and_text_goes_in_where_it_is() {
        let mut l = LineInput::new("1.2.7");
        cmd(&mut l, Command::LineStart);
        typed(&mut l, "<");
        assert_eq!(l.split(), ("<", "1.2.7"));
        cmd(&mut l, Command::LineEnd);
        cmd(&mut l, Command::WordBack);
        assert_eq!(l.split(), ("<1.2.", "7"));
        cmd(&mut l, Command::WordBack);
        assert_eq!(l.split(), ("<1.", "2.7"));
        cmd(&mut l, Command::WordForward);
        assert_eq!(l.split(), ("<1.2", ".7"));
        cmd(&mut l, Command::KillToEnd);
        assert_eq!(l.text(), "<1.2");
        cmd(&mut l, Command::LineStart);
        cmd(&mut l, Command::DeleteForward);
        cmd(&mut l, Command::CursorRight);
        cmd(&mut l, Command::DeleteBack);
        assert_eq!(l.split(), ("", ".2"));
        // Nothing before the cursor: nothing to delete, and no panic.
        cmd(&mut l, Command::DeleteBack);
        cmd(&mut l, Command::CursorLeft);
        assert_eq!(l.split(), ("", ".2"));
    }

    #[test]
    fn multibyte_characters_are_edited_whole() {
        let mut l = LineInput::new("é→ü");
        cmd(&mut l, Command::CursorLeft);
        cmd(&mut l, Command::DeleteBack);
        assert_eq!((l.text(), l.cursor_chars()), ("éü", 1));
        cmd(&mut l, Command::WordForward);
        assert_eq!(l.cursor_chars(), 2);
    }

    #[test]
    fn a_hint_is_offered_not_typed_until_taken() {
        let mut l = LineInput::default().with_hint(Some(">=1.0.3 <1.2.7".into()));
        assert_eq!((l.text(), l.hint()), ("", Some(">=1.0.3 <1.2.7")));
        assert!(l.take_hint());
        assert_eq!(l.split(), (">=1.0.3 <1.2.7", ""));
        assert!(!LineInput::default().take_hint());
        // Keys that are not editing keys are left to the input's owner.
        assert!(!l.edit(Input::Command(Command::Accept)));
        assert!(!l.edit(Input::Other));
    }
}
