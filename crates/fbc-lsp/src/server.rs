//! The message loop: requests answered in order, notifications taken in, and the documents
//! changed by a burst of notifications checked once the burst is read (a keystroke's changes
//! coalesce; a request is always answered on the documents as they now are).

use lsp_server::{Connection, ExtractError, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    InitializeParams, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
    notification as n, request as r,
};

use crate::settings::Settings;
use crate::state::Server;
use crate::worker::{Done, Worker};
use crate::{Error, uri};

/// What the server offers.
pub fn capabilities() -> ServerCapabilities {
    use lsp_types::{
        CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
        HoverProviderCapability, OneOf,
    };
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            lsp_types::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                // Saving re-renders an operator's catalogs and reads the file into the index.
                save: Some(lsp_types::TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), "\"".into()]),
            ..Default::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::REFACTOR_REWRITE,
            ]),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// Runs the server on a connection until the client shuts it down (or goes away).
pub fn run(conn: &Connection) -> Result<(), Error> {
    let (id, params) = conn.initialize_start()?;
    let init: InitializeParams = serde_json::from_value(params).map_err(Error::Json)?;
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "fbc-edit", "version": env!("CARGO_PKG_VERSION") },
    });
    conn.initialize_finish(id, result)?;
    let watch = watches_files(&init);
    let mut folders: Vec<_> = init
        .workspace_folders
        .unwrap_or_default()
        .iter()
        .filter_map(|f| uri::to_path(&f.uri))
        .collect();
    #[allow(deprecated)]
    if folders.is_empty()
        && let Some(p) = init.root_uri.as_ref().and_then(uri::to_path)
    {
        folders.push(p);
    }
    let mut server = Server::new(Settings::default(), folders);
    if let Some(opts) = &init.initialization_options {
        match Settings::from_json(opts) {
            Ok(s) => server.settings = s,
            Err(e) => server.log(lsp_types::MessageType::ERROR, e.to_string()),
        }
    }
    if watch {
        conn.sender
            .send(Message::Request(watch_request()))
            .map_err(|_| Error::Gone)?;
    }
    main_loop(conn, &mut server)
}

/// Whether the client lets the server ask to be told of changed files.
fn watches_files(init: &InitializeParams) -> bool {
    init.capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|c| c.dynamic_registration)
        .unwrap_or(false)
}

/// Asks the client to report changes of the YAML and JSON files of the workspace (the index
/// follows them).
fn watch_request() -> Request {
    use lsp_types::{
        DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, Registration,
        RegistrationParams,
    };
    let watchers = ["**/*.yaml", "**/*.yml", "**/*.json"]
        .iter()
        .map(|g| FileSystemWatcher {
            glob_pattern: GlobPattern::String((*g).to_string()),
            kind: None,
        })
        .collect();
    let options = DidChangeWatchedFilesRegistrationOptions { watchers };
    Request::new(
        RequestId::from("fbc-edit/watch".to_string()),
        lsp_types::request::RegisterCapability::METHOD.into(),
        RegistrationParams {
            registrations: vec![Registration {
                id: "fbc-edit/watch".into(),
                method: n::DidChangeWatchedFiles::METHOD.into(),
                register_options: serde_json::to_value(options).ok(),
            }],
        },
    )
}

fn main_loop(conn: &Connection, server: &mut Server) -> Result<(), Error> {
    let worker = Worker::start();
    // Once `shutdown` is answered the server only waits for `exit`, which may already sit in the
    // same burst of messages: it is looked for there, not waited for on the channel.
    let mut shut_down = false;
    loop {
        let mut batch = Vec::new();
        crossbeam_channel::select! {
            recv(conn.receiver) -> m => match m {
                Ok(m) => batch.push(m),
                Err(_) => return Ok(()),
            },
            recv(worker.results) -> d => {
                if let Ok(d) = d {
                    server.done(d);
                }
            },
        }
        while let Ok(m) = conn.receiver.try_recv() {
            batch.push(m);
        }
        while let Ok(d) = worker.results.try_recv() {
            server.done(d);
        }
        for msg in batch {
            match msg {
                Message::Request(req) => {
                    if req.method == r::Shutdown::METHOD || shut_down {
                        let resp = if shut_down {
                            Response::new_err(
                                req.id,
                                lsp_server::ErrorCode::InvalidRequest as i32,
                                "the server is shutting down".into(),
                            )
                        } else {
                            Response::new_ok(req.id, ())
                        };
                        shut_down = true;
                        conn.sender
                            .send(Message::Response(resp))
                            .map_err(|_| Error::Gone)?;
                        continue;
                    }
                    server.flush();
                    if req.method == r::WorkspaceSymbolRequest::METHOD
                        && server.wait_for_index(&req)
                    {
                        send_all(conn, server, &worker)?;
                        continue;
                    }
                    let resp = server.request(req);
                    send_all(conn, server, &worker)?;
                    conn.sender
                        .send(Message::Response(resp))
                        .map_err(|_| Error::Gone)?;
                }
                Message::Notification(note) => {
                    if note.method == n::Exit::METHOD {
                        return Ok(());
                    }
                    if shut_down {
                        continue;
                    }
                    server.notify(note);
                }
                Message::Response(_) => {}
            }
        }
        server.flush();
        send_all(conn, server, &worker)?;
    }
}

/// Sends the client what the server has for it, and the worker its jobs.
fn send_all(conn: &Connection, server: &mut Server, worker: &Worker) -> Result<(), Error> {
    for job in server.jobs.drain(..) {
        worker.send(job);
    }
    for m in server.out.drain(..) {
        conn.sender.send(m).map_err(|_| Error::Gone)?;
    }
    Ok(())
}

fn params<P: serde::de::DeserializeOwned>(note: Notification, method: &str) -> Option<P> {
    match note.extract::<P>(method) {
        Ok(p) => Some(p),
        Err(ExtractError::MethodMismatch(_)) | Err(ExtractError::JsonError { .. }) => None,
    }
}

impl Server {
    pub(crate) fn notify(&mut self, note: Notification) {
        match note.method.as_str() {
            n::DidOpenTextDocument::METHOD => {
                if let Some(p) = params::<lsp_types::DidOpenTextDocumentParams>(
                    note,
                    n::DidOpenTextDocument::METHOD,
                ) {
                    let d = p.text_document;
                    self.open(d.uri, d.version, d.text);
                }
            }
            n::DidChangeTextDocument::METHOD => {
                if let Some(p) = params::<lsp_types::DidChangeTextDocumentParams>(
                    note,
                    n::DidChangeTextDocument::METHOD,
                ) {
                    self.change(
                        &p.text_document.uri,
                        p.text_document.version,
                        p.content_changes,
                    );
                }
            }
            n::DidSaveTextDocument::METHOD => {
                if let Some(p) = params::<lsp_types::DidSaveTextDocumentParams>(
                    note,
                    n::DidSaveTextDocument::METHOD,
                ) && let Some(path) = uri::to_path(&p.text_document.uri)
                {
                    self.saved(&path);
                }
            }
            n::DidChangeWatchedFiles::METHOD => {
                if let Some(p) = params::<lsp_types::DidChangeWatchedFilesParams>(
                    note,
                    n::DidChangeWatchedFiles::METHOD,
                ) {
                    let paths = p
                        .changes
                        .iter()
                        .filter_map(|c| uri::to_path(&c.uri))
                        .collect();
                    self.reindex(paths);
                }
            }
            n::DidCloseTextDocument::METHOD => {
                if let Some(p) = params::<lsp_types::DidCloseTextDocumentParams>(
                    note,
                    n::DidCloseTextDocument::METHOD,
                ) {
                    self.close(&p.text_document.uri);
                }
            }
            n::DidChangeConfiguration::METHOD => {
                if let Some(p) = params::<lsp_types::DidChangeConfigurationParams>(
                    note,
                    n::DidChangeConfiguration::METHOD,
                ) {
                    // Clients that keep no settings for the server send null or `{}` (Neovim
                    // does, right after starting it): the initialization options stay.
                    let ours = p.settings.get("fbcEdit").unwrap_or(&p.settings);
                    if ours.is_null() || ours.as_object().is_some_and(|o| o.is_empty()) {
                        return;
                    }
                    match Settings::from_json(&p.settings) {
                        Ok(s) => self.configure(s),
                        Err(e) => self.log(lsp_types::MessageType::ERROR, e.to_string()),
                    }
                }
            }
            _ => {}
        }
    }

    /// A worker's result taken in.
    pub(crate) fn done(&mut self, done: Done) {
        match done {
            Done::Images { template, found } => self.images_done(template, found),
            Done::Rendered {
                repo,
                operator,
                generation,
                files,
            } => self.rendered(repo, operator, generation, files),
            Done::Indexed { full, files, note } => self.indexed(full, files, note),
            Done::Failed(why) => self.log(lsp_types::MessageType::ERROR, why),
        }
    }

    pub(crate) fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            r::GotoDefinition::METHOD => answer(req, |p| self.definition(p)),
            r::References::METHOD => answer(req, |p| self.references(p)),
            r::DocumentSymbolRequest::METHOD => answer(req, |p| self.document_symbols(p)),
            r::WorkspaceSymbolRequest::METHOD => answer(req, |p| self.workspace_symbols(p)),
            r::HoverRequest::METHOD => answer(req, |p| self.hover(p)),
            r::Completion::METHOD => answer(req, |p| self.completion(p)),
            r::CodeActionRequest::METHOD => answer(req, |p| self.code_actions(p)),
            _ => Err((
                lsp_server::ErrorCode::MethodNotFound as i32,
                format!("unknown request {}", req.method),
            )),
        };
        respond(id, result)
    }
}

type Answer = Result<serde_json::Value, (i32, String)>;

fn answer<P, R>(req: Request, f: impl FnOnce(P) -> R) -> Answer
where
    P: serde::de::DeserializeOwned,
    R: serde::Serialize,
{
    let p: P = serde_json::from_value(req.params).map_err(|e| {
        (
            lsp_server::ErrorCode::InvalidParams as i32,
            format!("{}: {e}", req.method),
        )
    })?;
    serde_json::to_value(f(p))
        .map_err(|e| (lsp_server::ErrorCode::InternalError as i32, e.to_string()))
}

fn respond(id: RequestId, result: Answer) -> Response {
    match result {
        Ok(v) => Response {
            id,
            result: Some(v),
            error: None,
        },
        Err((code, message)) => Response::new_err(id, code, message),
    }
}
