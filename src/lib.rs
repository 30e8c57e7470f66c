//! fbc-edit, the program: its command line (`cli`) and terminal UI (`tui`) over the engine in
//! [`fbc_core`] and the image reader in [`fbc_image`]. Dependencies point down: the faces call the
//! engine, never the other way round.

pub mod alloc;
pub mod cli;
pub mod theme;
pub mod tui;
