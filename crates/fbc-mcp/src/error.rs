//! Why a tool call is refused: returned to the client as a tool error (`isError`), its text the
//! plain reason the command line gives, with the problems behind it as structured content.

use serde_json::{Value, json};

use crate::output::Problem;
use crate::roots::PathError;

/// A tool call that cannot be carried out.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A path outside the served directories, or one the path policy refuses.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The engine's reason, as the command line prints it (without `fbc-edit: `).
    #[error("{0}")]
    Refused(String),
    /// The edit would leave the catalog or a template's rendering invalid; `problems` are the
    /// errors it would add.
    #[error("{message}")]
    Invalid {
        message: String,
        problems: Vec<Problem>,
    },
}

impl ToolError {
    pub fn refused(message: impl Into<String>) -> ToolError {
        ToolError::Refused(message.into())
    }

    /// The structured content of the error result.
    pub fn value(&self) -> Value {
        match self {
            ToolError::Invalid { message, problems } => {
                json!({ "error": message, "problems": problems })
            }
            other => json!({ "error": other.to_string() }),
        }
    }
}
