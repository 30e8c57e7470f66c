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
use crate::{Error, uri};

/// What the server offers.
pub fn capabilities() -> ServerCapabilities {
    use lsp_types::{
        CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
        HoverProviderCapability, OneOf,
    };
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
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
    main_loop(conn, &mut server)
}

fn main_loop(conn: &Connection, server: &mut Server) -> Result<(), Error> {
    while let Ok(first) = conn.receiver.recv() {
        let mut batch = vec![first];
        while let Ok(m) = conn.receiver.try_recv() {
            batch.push(m);
        }
        for msg in batch {
            match msg {
                Message::Request(req) => {
                    if conn.handle_shutdown(&req)? {
                        return Ok(());
                    }
                    server.flush();
                    let resp = server.request(req);
                    send_all(conn, server)?;
                    conn.sender
                        .send(Message::Response(resp))
                        .map_err(|_| Error::Gone)?;
                }
                Message::Notification(note) => {
                    if note.method == n::Exit::METHOD {
                        return Ok(());
                    }
                    server.notify(note);
                }
                Message::Response(_) => {}
            }
        }
        server.flush();
        send_all(conn, server)?;
    }
    Ok(())
}

fn send_all(conn: &Connection, server: &mut Server) -> Result<(), Error> {
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
