//! A language server for OLM file-based catalogs, their opm templates and the release pipeline's
//! files (`ci.yaml`, `release-config.yaml`), on the engine of `fbc-core`: diagnostics as the
//! documents are typed (their unsaved text laid over the files on disk, only the packages a
//! change touches checked again), navigation, hover, completion and code actions that make the
//! same minimal edits `fbc-edit edit` writes.
//!
//! The protocol is spoken with `lsp-server` and `lsp-types`: messages over stdio on plain threads,
//! with no async runtime; the server answers one message at a time, in order. Messages are read by
//! `transport`, each within a size cap (`--max-message`). What would make it wait (images from the
//! cache or a registry, an operator's catalogs re-rendered, the workspace's index) runs on worker
//! threads whose results come back as messages.

mod actions;
mod complete;
mod convert;
mod hover;
mod images;
mod index;
mod layout;
mod locate;
mod navigate;
mod rerender;
mod server;
mod settings;
mod state;
mod text;
mod transport;
mod uri;
mod worker;

pub use layout::{FileKind, catalog_root, classify};
pub use server::{capabilities, run};
pub use settings::{Settings, SettingsError};
pub use state::Server;
pub use transport::{DEFAULT_MAX_MESSAGE, TransportError, read_message, run_stdio};
pub use uri::{from_path, to_path};

/// Why the server stopped before the client shut it down.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("protocol: {0}")]
    Protocol(#[from] lsp_server::ProtocolError),
    #[error("malformed message: {0}")]
    Json(#[source] serde_json::Error),
    #[error("the client went away")]
    Gone,
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A message that could not be read (over the size cap, or malformed).
    #[error("{0}")]
    Transport(#[source] TransportError),
}
