//! The server: its tools, each a thin call into [`crate::read`] or [`crate::edit`] run on tokio's
//! blocking pool, and what it tells a client when it connects.

use std::sync::{Arc, RwLock};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Serialize;

use crate::args::{
    DiffArgs, EditArgs, ListArgs, RenderArgs, RepoCheckArgs, UpgradePathArgs, ValidateArgs,
};
use crate::error::ToolError;
use crate::output::{
    self, DiffResult, EditResult, ListResult, RenderResult, RepoCheckResult, UpgradePathResult,
    ValidateResult,
};
use crate::roots::Roots;
use crate::{edit, read};

/// The server on a set of directories.
#[derive(Clone)]
pub struct Server {
    roots: Arc<Roots>,
    /// Calls arrive concurrently: reading tools share it, an edit holds it alone, so no read sees
    /// a save half made and no two edits of one file race.
    turn: Arc<RwLock<()>>,
    tool_router: ToolRouter<Server>,
}

/// Whether a tool only reads, or may write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
}

/// A tool's answer: its result serialised as structured content (and as text), or its refusal as
/// a tool error.
fn reply<R: Serialize>(result: Result<R, ToolError>) -> CallToolResult {
    match result.and_then(|r| output::value(&r)) {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => {
            let mut r = CallToolResult::error(vec![ContentBlock::text(e.to_string())]);
            r.structured_content = Some(e.value());
            r
        }
    }
}

impl Server {
    /// Runs `work` on the blocking pool (the engine reads files and uses every core).
    async fn run<A: Send + 'static, R: Serialize + Send + 'static>(
        &self,
        access: Access,
        args: A,
        work: fn(&Roots, A) -> Result<R, ToolError>,
    ) -> CallToolResult {
        let roots = Arc::clone(&self.roots);
        let turn = Arc::clone(&self.turn);
        let task = move || {
            // The lock guards no data, only turns: one poisoned by a panicking tool is taken as
            // it is.
            if access == Access::Write {
                let _alone = turn.write().unwrap_or_else(|p| p.into_inner());
                work(&roots, args)
            } else {
                let _shared = turn.read().unwrap_or_else(|p| p.into_inner());
                work(&roots, args)
            }
        };
        match tokio::task::spawn_blocking(task).await {
            Ok(result) => reply(result),
            Err(e) => reply::<R>(Err(ToolError::refused(format!("the tool stopped: {e}")))),
        }
    }
}

#[tool_router]
impl Server {
    pub fn new(roots: Roots) -> Server {
        Server {
            roots: Arc::new(roots),
            turn: Arc::new(RwLock::new(())),
            tool_router: Self::tool_router(),
        }
    }

    /// The packages of a catalog; with `package`, its channels (default, head, entries); with
    /// `package` and `channel`, the channel's entries (version, replaces, skips, skipRange).
    #[tool(
        name = "list",
        annotations(read_only_hint = true),
        output_schema = output::schema::<ListResult>()
    )]
    async fn list(&self, Parameters(args): Parameters<ListArgs>) -> CallToolResult {
        self.run(Access::Read, args, read::list).await
    }

    /// How a cluster running `from` (a bundle name or version) reaches the channel head under
    /// OLM v0, hop by hop, or why not; or where OLM v1's upgrades lead (`olm: "v1"`).
    #[tool(
        name = "upgrade_path",
        annotations(read_only_hint = true),
        output_schema = output::schema::<UpgradePathResult>()
    )]
    async fn upgrade_path(&self, Parameters(args): Parameters<UpgradePathArgs>) -> CallToolResult {
        self.run(Access::Read, args, read::upgrade_path).await
    }

    /// Check a catalog with opm's rules (the same verdict) and the lints opm lacks, optionally a
    /// CI's profile too: every problem with code, severity, file, line, message and hint.
    #[tool(
        name = "validate",
        annotations(read_only_hint = true),
        output_schema = output::schema::<ValidateResult>()
    )]
    async fn validate(&self, Parameters(args): Parameters<ValidateArgs>) -> CallToolResult {
        self.run(Access::Read, args, read::validate).await
    }

    /// What changed between two catalogs by meaning (`old` and `new`), or between a catalog
    /// directory at a git revision and now (`old` and `git`).
    #[tool(
        name = "diff",
        annotations(read_only_hint = true),
        output_schema = output::schema::<DiffResult>()
    )]
    async fn diff(&self, Parameters(args): Parameters<DiffArgs>) -> CallToolResult {
        self.run(Access::Read, args, read::diff).await
    }

    /// Render an olm.template.basic or olm.semver template into a catalog offline, its bundles
    /// taken from catalogs and bundle directories under the served directories.
    #[tool(
        name = "render",
        annotations(read_only_hint = true),
        output_schema = output::schema::<RenderResult>()
    )]
    async fn render(&self, Parameters(args): Parameters<RenderArgs>) -> CallToolResult {
        self.run(Access::Read, args, read::render).await
    }

    /// Check a whole operator repository (community-operators-prod, certified-operators,
    /// marketplace) as its CI does: ci.yaml, the template mapping, every catalog re-rendered and
    /// validated; with `git`, the pull-request rules.
    #[tool(
        name = "repo_check",
        annotations(read_only_hint = true),
        output_schema = output::schema::<RepoCheckResult>()
    )]
    async fn repo_check(&self, Parameters(args): Parameters<RepoCheckArgs>) -> CallToolResult {
        self.run(Access::Read, args, read::repo_check).await
    }

    /// One guided edit of a catalog or of templates, or a bundle's release into its operator's
    /// templates (`release`: its release-config.yaml applied, as the release pipeline applies it);
    /// verbs and argument names as `fbc-edit edit`'s subcommands and flags. Returns the diff and the problems it would add; writes only when
    /// `dry_run` is false and the result validates (or `force`). A refusal is a tool error with
    /// the reason.
    #[tool(
        name = "edit",
        output_schema = output::schema::<EditResult>(),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false
        )
    )]
    async fn edit(&self, Parameters(args): Parameters<EditArgs>) -> CallToolResult {
        self.run(Access::Write, args, edit::edit).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("fbc-edit", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "fbc-edit: browse, check and edit OLM file-based catalogs and their templates. \
                 Paths are relative to {} (or absolute inside the directories served: {}). \
                 Make catalog changes with the edit tool (dry_run first), never by editing YAML.",
                self.roots.dirs()[0].display(),
                self.roots.describe()
            ))
    }
}
