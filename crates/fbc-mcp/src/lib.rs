//! `fbc-edit mcp`: a Model Context Protocol server over stdio, on the engine in [`fbc_core`].
//!
//! Tools: `list`, `upgrade_path`, `validate`, `diff`, `render`, `repo_check` (reading only) and
//! `edit` (one guided edit, written through the workspace's save path). Their names and argument
//! names are stable; docs/agents.md documents them. The server reads only below the directories it
//! is started on ([`Roots`]) and reads nothing from registries.

pub mod args;
mod edit;
pub mod error;
pub mod output;
mod problem;
mod read;
mod release;
pub mod roots;
mod server;
mod verbs;

pub use roots::{PathError, RootError, Roots};
pub use server::Server;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the connection failed: {0}")]
    Connection(String),
}

/// The names of the tools, in the order `tools/list` gives them (by name).
pub const TOOLS: [&str; 7] = [
    "diff",
    "edit",
    "list",
    "render",
    "repo_check",
    "upgrade_path",
    "validate",
];

/// Serves MCP on standard input and output until the client closes the connection.
pub fn serve(roots: Roots) -> Result<(), ServeError> {
    use rmcp::ServiceExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let service = Server::new(roots)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Connection(e.to_string()))?;
        service
            .waiting()
            .await
            .map_err(|e| ServeError::Connection(e.to_string()))?;
        Ok(())
    })
}
