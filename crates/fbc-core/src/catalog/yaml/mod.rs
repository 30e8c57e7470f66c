//! Everything YAML, so a parser can be swapped in one place: splitting a file into documents the
//! way opm does ([`split`]), reading a document into a [`Node`](crate::catalog::Node) tree with
//! positions ([`read`]), YAML 1.1 scalar rules as opm applies them ([`yaml11`]), opm's own YAML output
//! byte for byte ([`goyaml`]), writing nodes in a
//! document's own style ([`emit`]), patching an edited document into its text ([`patch`]), and
//! small files such as `ci.yaml` read into typed values within the reader's budgets ([`typed`]).

mod alias;
pub mod emit;
mod fast;
pub mod goscalar;
pub mod goyaml;
mod lenient;
pub mod patch;
mod positions;
pub mod read;
pub mod split;
pub mod typed;
pub mod yaml11;

pub use emit::{
    YamlStyle, write_block, write_document, write_inline, write_map_entry, write_seq_item,
    write_value_after_key,
};
pub use read::{
    Keep, OUTLINE_DROPS, ParsedDoc, YamlError, parse_chunk, parse_chunk_full, parse_chunk_kept,
    parse_chunk_shared,
};
pub use split::{Chunk, SeparatorError, dash_before, split_documents, split_documents_to_end};

/// The first document of `text`, for tests.
#[cfg(test)]
pub(crate) fn parse_one(text: &str) -> crate::catalog::Node {
    let (chunks, errs) = split_documents(text, 0, 1);
    assert!(errs.is_empty());
    parse_chunk(text, chunks[0], 0).unwrap().node
}
