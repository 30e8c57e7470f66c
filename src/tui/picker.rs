//! A list to choose from: typing filters it, arrows move, Enter chooses, Esc cancels. Options an
//! edit would refuse are greyed out with the reason beside them and cannot be chosen. A picker that
//! takes several marks them with Space.

use crate::tui::input::Input;
use crate::tui::keymap::Command;

/// A list to choose from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picker {
    pub options: Vec<String>,
    /// Options that cannot be chosen, with why (in option order).
    pub greyed: Vec<(String, String)>,
    /// Several can be taken: Space marks them, Enter takes the marked.
    pub multi: bool,
    /// The marked options (multi-select).
    pub marked: Vec<String>,
    /// Enter with nothing marked takes nothing (rather than the highlighted option).
    pub none_ok: bool,
    pub filter: crate::tui::line::LineInput,
    pub selected: usize,
    /// Why the last key chose nothing (a greyed option).
    pub note: Option<String>,
}

/// What a key did to a picker.
pub enum Picked {
    Chosen(String),
    /// A multi-select's marked options, in option order.
    ChosenMany(Vec<String>),
    Cancelled,
    Open,
}

impl Picker {
    pub fn new(options: Vec<String>) -> Picker {
        Picker {
            options,
            greyed: Vec::new(),
            multi: false,
            marked: Vec::new(),
            none_ok: false,
            filter: Default::default(),
            selected: 0,
            note: None,
        }
    }

    /// A picker that takes several; with `none_ok`, Enter with nothing marked takes nothing.
    pub fn multi(options: Vec<String>, none_ok: bool) -> Picker {
        Picker {
            multi: true,
            none_ok,
            ..Picker::new(options)
        }
    }

    /// Greys out the options `why` gives a reason for.
    pub fn greying(mut self, why: impl Fn(&str) -> Option<String>) -> Picker {
        self.greyed = self
            .options
            .iter()
            .filter_map(|o| why(o).map(|w| (o.clone(), w)))
            .collect();
        // The first option that can be chosen is highlighted.
        if let Some(i) = self
            .shown()
            .iter()
            .position(|o| self.why_greyed(o).is_none())
        {
            self.selected = i;
        }
        self
    }

    /// Highlights `option` when it is shown.
    pub fn at(mut self, option: &str) -> Picker {
        if let Some(i) = self.shown().iter().position(|o| *o == option) {
            self.selected = i;
        }
        self
    }

    /// Why an option cannot be chosen, if it cannot.
    pub fn why_greyed(&self, option: &str) -> Option<&str> {
        self.greyed
            .iter()
            .find(|(o, _)| o == option)
            .map(|(_, w)| w.as_str())
    }

    /// Whether every option is greyed out.
    pub fn nothing_to_choose(&self) -> bool {
        self.options.iter().all(|o| self.why_greyed(o).is_some())
    }

    /// The options the filter lets through.
    pub fn shown(&self) -> Vec<&String> {
        self.options
            .iter()
            .filter(|o| o.contains(self.filter.text()))
            .collect()
    }

    fn highlighted(&self) -> Option<String> {
        self.shown().get(self.selected).map(|o| (*o).clone())
    }

    /// A key in the picker: moves, typing filters (with the line-editing keys), Space marks,
    /// Enter chooses, Esc cancels.
    pub fn input(&mut self, input: Input) -> Picked {
        self.note = None;
        match input {
            Input::Command(Command::Cancel) => return Picked::Cancelled,
            Input::Command(Command::Accept) => return self.accept(),
            Input::Command(Command::Toggle) if self.multi => self.toggle(),
            Input::Command(Command::Down) => {
                self.selected = (self.selected + 1).min(self.shown().len().saturating_sub(1))
            }
            Input::Command(Command::Up) => self.selected = self.selected.saturating_sub(1),
            // Typing and line editing in the filter; the list starts over when its text changes.
            other => {
                let before = self.filter.text().to_string();
                if self.filter.edit(other) && self.filter.text() != before {
                    self.selected = 0;
                }
            }
        }
        Picked::Open
    }

    fn toggle(&mut self) {
        let Some(o) = self.highlighted() else {
            return;
        };
        if let Some(why) = self.why_greyed(&o) {
            self.note = Some(format!("{o}: {why}"));
        } else if let Some(i) = self.marked.iter().position(|m| *m == o) {
            self.marked.remove(i);
        } else {
            self.marked.push(o);
        }
    }

    fn accept(&mut self) -> Picked {
        if self.multi && (!self.marked.is_empty() || self.none_ok) {
            let marked = self
                .options
                .iter()
                .filter(|o| self.marked.contains(o))
                .cloned()
                .collect();
            return Picked::ChosenMany(marked);
        }
        let Some(o) = self.highlighted() else {
            return Picked::Open;
        };
        if let Some(why) = self.why_greyed(&o) {
            self.note = Some(format!("{o}: {why}"));
            return Picked::Open;
        }
        if self.multi {
            Picked::ChosenMany(vec![o])
        } else {
            Picked::Chosen(o)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(c: Command) -> Input {
        Input::Command(c)
    }

    #[test]
    fn greyed_options_cannot_be_chosen_and_say_why() {
        let mut p = Picker::new(vec!["a".into(), "b".into()])
            .greying(|o| (o == "a").then(|| "too old".to_string()));
        // The first that can be chosen is highlighted; the greyed one above it is not taken.
        assert_eq!(p.selected, 1);
        p.input(cmd(Command::Up));
        assert!(matches!(p.input(cmd(Command::Accept)), Picked::Open));
        assert_eq!(p.note.as_deref(), Some("a: too old"));
        p.input(cmd(Command::Down));
        assert!(matches!(p.input(cmd(Command::Accept)), Picked::Chosen(o) if o == "b"));
    }

    #[test]
    fn multi_select_marks_filters_and_takes_in_option_order() {
        let mut p = Picker::multi(vec!["x.1".into(), "x.2".into(), "y.3".into()], false);
        p.input(Input::Text('y'));
        p.input(cmd(Command::Toggle));
        p.input(cmd(Command::DeleteBack));
        p.input(cmd(Command::Toggle));
        assert_eq!(p.marked, ["y.3", "x.1"]);
        let Picked::ChosenMany(all) = p.input(cmd(Command::Accept)) else {
            panic!("nothing taken");
        };
        assert_eq!(all, ["x.1", "y.3"]);
        // Nothing marked: the highlighted one, unless taking none is allowed.
        let mut p = Picker::multi(vec!["x.1".into()], false);
        assert!(matches!(p.input(cmd(Command::Accept)), Picked::ChosenMany(v) if v == ["x.1"]));
        let mut p = Picker::multi(vec!["x.1".into()], true);
        assert!(matches!(p.input(cmd(Command::Accept)), Picked::ChosenMany(v) if v.is_empty()));
    }
}
