//! fbc-edit: load, check and edit OLM file-based catalogs while keeping their files byte-for-byte where
//! nothing changed.

pub mod catalog;
pub mod cli;
