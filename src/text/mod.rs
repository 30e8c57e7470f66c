//! Plain-text helpers that know nothing about catalogs: writing strings quoted in the dialects the
//! catalog tools speak (Go's JSON and `%q`, YAML, Graphviz DOT), Go's base64 decoding, the
//! Kubernetes name rule, finding lines by byte offset, and changing a text by byte ranges. Every
//! other module may use this one; it uses none of them.

pub mod dns1123;
pub mod escape;
pub mod go_base64;
pub mod lines;
pub mod splice;
