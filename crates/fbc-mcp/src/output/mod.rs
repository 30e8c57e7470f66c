//! The tools' results as Rust types: each tool's `structuredContent` is one of these serialised,
//! and its `outputSchema` is derived from the same type ([`schema`]), so the two cannot drift.
//! What the engine answers as JSON (a listing, an upgrade path, a repository summary) is read into
//! these types field by field, unknown fields refused, so a change of the engine's shape fails a
//! call rather than passing unannounced.

mod listing;
mod path;

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ToolError;

pub use listing::ListResult;
pub use path::UpgradePathResult;

/// The output schema of `T`, as rmcp derives it for what `T` serialises to, its root an object
/// (a result that is one of several shapes is an object in every one).
pub fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let derived = rmcp::handler::server::tool::schema_for_output::<T>();
    if derived.get("type").is_some() {
        return derived;
    }
    let mut object = derived.as_ref().clone();
    object.insert("type".into(), Value::from("object"));
    Arc::new(object)
}

/// Reads an answer of the engine given as JSON into its result type.
pub fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ToolError> {
    serde_json::from_value(value).map_err(|e| {
        ToolError::refused(format!(
            "the answer does not have its documented shape: {e}"
        ))
    })
}

/// A problem found: its code, severity, place and words.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// The diagnostic code (`FBC028`).
    pub code: String,
    /// `error`, `warning` or `info`.
    pub severity: String,
    /// The file, relative to the served directory that holds it.
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
    /// How to fix it, when that is known.
    pub hint: Option<String>,
    pub package: Option<String>,
    pub channel: Option<String>,
    pub bundle: Option<String>,
}

/// `validate`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ValidateResult {
    /// The catalog directory, as served.
    pub path: String,
    /// Whether there is no error.
    pub valid: bool,
    pub errors: usize,
    pub warnings: usize,
    /// How many problems are notes (severity `info`).
    pub notes: usize,
    pub problems: Vec<Problem>,
    /// What the check could not do (an OpenShift version it could not tell).
    pub messages: Vec<String>,
}

/// `diff`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DiffResult {
    pub changed: bool,
    /// What changed, package by package, as `fbc-edit diff -o json` prints it.
    pub changes: fbc_core::diff::CatalogDiff,
    /// The same in words, as `fbc-edit diff` prints it.
    pub text: String,
}

/// `render`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RenderResult {
    /// The template, as served.
    pub template: String,
    /// The opm release the rendering follows (`v1.71.0`).
    pub opm_version: String,
    /// The rendered catalog, YAML or JSON.
    pub catalog: String,
    pub notes: Vec<String>,
}

/// One operator of a repository check.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OperatorProblems {
    pub name: String,
    pub problems: Vec<Problem>,
}

/// The counts a repository check ends in.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoSummary {
    pub operators: usize,
    /// Operators that deliver through file-based catalogs.
    pub fbc_operators: usize,
    pub catalogs: usize,
    pub operators_with_problems: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// How many problems of each code.
    pub by_code: BTreeMap<String, usize>,
}

/// `repo_check`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RepoCheckResult {
    pub operators: Vec<OperatorProblems>,
    /// Problems of the repository as a whole (the pull-request rules).
    pub repository: Vec<Problem>,
    pub summary: RepoSummary,
}

/// One template a template edit changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TemplateChange {
    pub template: String,
    pub diff: String,
    /// The errors the edit adds to its rendering.
    pub introduced: Vec<Problem>,
}

/// A template an edit does not apply to, and why.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NotApplied {
    pub template: String,
    pub reason: String,
}

/// `edit`'s answer: for a catalog, a set of templates, or a release.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct EditResult {
    /// What the edit does, in a sentence.
    pub edit: String,
    /// The catalog, template or operator directory, as served.
    pub path: String,
    pub dry_run: bool,
    /// The files written (none for a dry run), as served.
    pub written: Vec<String>,
    /// The unified diff of every file the edit changes or creates (catalogs re-rendered from
    /// templates are listed in `rerendered`, not shown).
    pub diff: String,
    /// The problems the edit adds.
    pub introduced: Vec<Problem>,
    /// The problems it removes (catalog edits).
    pub fixed: Vec<Problem>,
    pub notes: Vec<String>,
    /// Templates and releases: every file the save writes or would write, as served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    /// Template edits: each template changed, with its diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub templates: Option<Vec<TemplateChange>>,
    /// Template edits: the templates it does not apply to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_applied: Option<Vec<NotApplied>>,
    /// Templates and releases: the catalogs re-rendered from the changed templates, as served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerendered: Option<Vec<String>>,
    /// Releases: the templates it creates, as served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<Vec<String>>,
    /// Releases: every problem opm's rules find in the re-rendered catalogs (an error among them
    /// stops the write unless `force`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<Problem>>,
}

/// A result as the client receives it.
pub fn value<T: Serialize>(result: &T) -> Result<Value, ToolError> {
    serde_json::to_value(result)
        .map_err(|e| ToolError::refused(format!("cannot describe the answer: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_an_object_and_says_what_is_always_there() {
        let edit = schema::<EditResult>();
        assert_eq!(edit["type"], "object");
        let required = edit["required"].as_array().unwrap();
        assert!(required.contains(&Value::from("diff")), "{edit:?}");
        assert!(!required.contains(&Value::from("templates")), "{edit:?}");
        // A result of several shapes is still an object.
        assert_eq!(schema::<ListResult>()["type"], "object");
        assert_eq!(schema::<UpgradePathResult>()["type"], "object");
    }

    #[test]
    fn an_answer_of_another_shape_is_refused_not_passed_on() {
        let summary = serde_json::json!({"operators": 1, "fbc_operators": 1, "catalogs": 2,
            "operators_with_problems": 0, "errors": 0, "warnings": 0, "notes": 0, "by_code": {},
            "surprise": true});
        let e = typed::<RepoSummary>(summary).unwrap_err().to_string();
        assert!(e.contains("unknown field `surprise`"), "{e}");
    }
}
