//! Everything JSON: reading a stream of values with the position of each ([`read`]), writing nodes
//! in a file's own layout ([`write`]), and patching an edited value into the text it was read from
//! ([`patch`]).

pub mod patch;
pub mod read;
pub mod write;

pub use read::{JsonError, JsonReader};
pub use write::{JsonStyle, write_json};
