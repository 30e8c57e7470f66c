//! The TUI's state and its pure `update`: every change comes in as an [`Action`], and anything that
//! touches the outside world goes out as an [`Effect`], so screens are testable without a terminal.
//! The parts live in rooms of their own (`model`, `tree`, `review`, `details`, `update`); this is
//! the one place the rest of the program names them from.

pub use super::details::details;
pub use super::model::{
    Action, Dialog, Effect, ImageView, InputFor, LineInput, Model, Overlay, Pane, PickFor, Picked,
    Picker, Promotee, Prompt, REPLACES_NOTHING, Reopened, Saved, State, TemplateView, short_digest,
};
pub use super::problems::{ProblemList, Shown};
pub use super::review::{Change, ObjectChange, Tone, changes, review_mark};
pub use super::rules::{edit_hints, range_preview, reason};
pub use super::tree::{Loaded, build_tree};
pub use super::update::{candidates, complete, palette_hint, update};
