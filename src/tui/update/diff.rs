//! Keys in the write preview's diff viewer: the line cursor, pages, hunk and file jumps, search,
//! the whole line under the cursor, `y` to write and Esc to close. Any other key does nothing.

use crate::tui::diffview::{self, DiffView};
use crate::tui::input::Input;
use crate::tui::keymap::Command;
use crate::tui::line::LineInput;
use crate::tui::model::{Dialog, Effect, Model, Overlay};
use crate::tui::update::results::save;
use ratatui::layout::Rect;

/// A key while the diff viewer is open; it stays open unless the key writes or closes.
pub(crate) fn diff_input(m: &mut Model, mut view: Box<DiffView>, input: Input) -> Vec<Effect> {
    let page = diffview::page(m.size);
    view.note = None;
    if let Some(text) = view.typing.take() {
        search_input(&mut view, text, input, page);
    } else if let Input::Command(command) = input {
        match command {
            Command::Confirm => {
                let options = m.save_options.clone();
                return save(m, options);
            }
            Command::Cancel if view.whole.is_some() => view.whole = None,
            Command::Cancel => {
                m.status = Some("nothing written".into());
                return Vec::new();
            }
            Command::Help => m.overlay = Some(Overlay::Help),
            c if view.whole.is_some() => whole_line_command(&mut view, c, m.size),
            c => diff_command(&mut view, c, m.size),
        }
    }
    m.dialog = Some(Dialog::Write { view });
    Vec::new()
}

/// Moves in the diff, jumps, searches, or opens the whole line under the cursor.
fn diff_command(view: &mut DiffView, command: Command, size: Rect) {
    let page = diffview::page(size);
    let half = (page / 2).max(1) as isize;
    match command {
        Command::Down => view.move_by(1, page),
        Command::Up => view.move_by(-1, page),
        Command::PageDown => view.scroll_by(page as isize, page),
        Command::PageUp => view.scroll_by(-(page as isize), page),
        Command::HalfPageDown => view.scroll_by(half, page),
        Command::HalfPageUp => view.scroll_by(-half, page),
        Command::Top => view.to_end(false, page),
        Command::Bottom => view.to_end(true, page),
        Command::NextHunk | Command::PrevHunk => {
            let forward = command == Command::NextHunk;
            view.note = (!view.jump_hunk(forward, page)).then(|| no_more("hunk", forward));
        }
        Command::NextFile | Command::PrevFile => {
            let forward = command == Command::NextFile;
            view.note = (!view.jump_file(forward, page)).then(|| no_more("file", forward));
        }
        Command::Search => view.typing = Some(Default::default()),
        Command::NextMatch | Command::PrevMatch => {
            view.note = Some(match view.next_match(command == Command::NextMatch, page) {
                Some((i, n)) => format!("match {i} of {n}"),
                None if view.query.is_some() => "no match".into(),
                None => "nothing searched yet".into(),
            });
        }
        Command::WholeLine => view.open_whole(diffview::whole_size(size).0),
        _ => {}
    }
}

fn no_more(what: &str, forward: bool) -> String {
    format!("no {} {what}", if forward { "next" } else { "previous" })
}

/// The whole-line view: scrolls; the whole-line key closes it again.
fn whole_line_command(view: &mut DiffView, command: Command, size: Rect) {
    let rows = diffview::whole_size(size).1;
    let step = match command {
        Command::Down => 1,
        Command::Up => -1,
        Command::PageDown => rows as isize,
        Command::PageUp => -(rows as isize),
        Command::HalfPageDown => (rows / 2).max(1) as isize,
        Command::HalfPageUp => -((rows / 2).max(1) as isize),
        Command::Top => isize::MIN / 2,
        Command::Bottom => isize::MAX / 2,
        Command::WholeLine => {
            view.whole = None;
            return;
        }
        _ => return,
    };
    view.scroll_whole(step, rows);
}

/// A key while a search is typed: Enter searches, Esc gives up, anything else edits the text.
fn search_input(view: &mut DiffView, mut text: LineInput, input: Input, page: usize) {
    match input {
        Input::Command(Command::Accept) if text.is_empty() => {}
        Input::Command(Command::Accept) => {
            let text = text.text().to_string();
            let n = view.search(text.clone(), page);
            view.note = Some(match n {
                0 => format!("{text:?} is not in the diff"),
                n => format!("{text:?}: {}", fbc_core::text::plural(n, "line", "lines")),
            });
        }
        Input::Command(Command::Cancel) => {}
        other => {
            text.edit(other);
            view.typing = Some(text);
        }
    }
}

/// The wheel over the diff viewer scrolls it (or the whole line, when shown).
pub(crate) fn diff_wheel(view: &mut DiffView, step: isize, size: Rect) {
    if view.whole.is_some() {
        view.scroll_whole(step, diffview::whole_size(size).1);
    } else {
        view.scroll_by(step, diffview::page(size));
    }
}

/// The terminal changed size: the cursor stays on screen and the whole line is wrapped anew.
pub(crate) fn diff_resized(view: &mut DiffView, size: Rect) {
    view.follow(diffview::page(size));
    let (width, rows) = diffview::whole_size(size);
    view.rewrap(width);
    view.scroll_whole(0, rows);
}
