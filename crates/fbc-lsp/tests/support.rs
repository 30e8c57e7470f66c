//! An in-process client: the server on a thread, spoken to over an in-memory connection, as an
//! editor would over stdio.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use lsp_types::Uri;
use serde_json::{Value, json};

pub struct Client {
    conn: Connection,
    thread: Option<std::thread::JoinHandle<Result<(), fbc_lsp::Error>>>,
    next: i32,
    /// Notifications received while waiting for something else.
    pub notes: Vec<Notification>,
}

/// How long a test waits for an answer before it fails.
const WAIT: Duration = Duration::from_secs(60);

impl Client {
    pub fn start(folder: &Path, options: Value) -> Client {
        let (server, conn) = Connection::memory();
        let thread = std::thread::spawn(move || fbc_lsp::run(&server));
        let mut c = Client {
            conn,
            thread: Some(thread),
            next: 0,
            notes: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({
                "capabilities": {},
                "workspaceFolders": [{"uri": uri(folder).as_str(), "name": "ws"}],
                "initializationOptions": options,
            }),
        );
        assert!(
            init["capabilities"]["definitionProvider"]
                .as_bool()
                .unwrap_or(false),
            "{init}"
        );
        c.notify("initialized", json!({}));
        c
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .unwrap();
    }

    /// Sends a request and waits for its answer (`result`, or the error object).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.into(),
                params,
            )))
            .unwrap();
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(WAIT)
                .expect("an answer in time")
            {
                Message::Response(r) if r.id == id => {
                    return match r.error {
                        Some(e) => json!({"error": e.message}),
                        None => r.result.unwrap_or(Value::Null),
                    };
                }
                Message::Notification(n) => self.notes.push(n),
                _ => {}
            }
        }
    }

    /// The next diagnostics published for `uri` (those already received first).
    pub fn diagnostics(&mut self, uri: &Uri) -> Vec<Value> {
        let is_for = |n: &Notification| {
            n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri.as_str()
        };
        if let Some(i) = self.notes.iter().position(is_for) {
            let n = self.notes.remove(i);
            return n.params["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
        }
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(WAIT)
                .expect("diagnostics in time")
            {
                Message::Notification(n) if is_for(&n) => {
                    return n.params["diagnostics"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                }
                Message::Notification(n) => self.notes.push(n),
                _ => {}
            }
        }
    }

    pub fn open(&self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path).as_str(), "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    /// Replaces `old` (its first occurrence in `text`) with `new`, as one incremental change.
    pub fn type_over(&self, path: &Path, text: &mut String, version: i32, old: &str, new: &str) {
        let at = text.find(old).expect("the text to change");
        let (sl, sc) = position(text, at);
        let (el, ec) = position(text, at + old.len());
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri(path).as_str(), "version": version},
                "contentChanges": [{"range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}, "text": new}],
            }),
        );
        text.replace_range(at..at + old.len(), new);
    }

    pub fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.is_null(), "{r}");
        self.notify("exit", Value::Null);
        self.thread.take().unwrap().join().unwrap().unwrap();
    }
}

pub fn uri(p: &Path) -> Uri {
    fbc_lsp::from_path(p)
}

/// Line and UTF-16 column of byte `at`.
pub fn position(text: &str, at: usize) -> (u32, u32) {
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].encode_utf16().count() as u32)
}

/// The position of the first occurrence of `what` in `text`, plus `into` bytes.
pub fn at(text: &str, what: &str, into: usize) -> Value {
    let (line, character) = position(text, text.find(what).expect("text to point at") + into);
    json!({"line": line, "character": character})
}

pub fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The demo catalog laid out as a repository's `catalogs/v4.18/`: (temp dir, catalog root).
pub fn demo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("catalogs/v4.18");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo-catalog");
    copy(&src, &root);
    (tmp, root)
}

/// Applies a `WorkspaceEdit`'s edits for `uri` to `text`, last first, as an editor does.
pub fn apply(text: &str, edit: &Value, uri: &Uri) -> String {
    let edits = edit["changes"][uri.as_str()]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut text = text.to_string();
    let mut edits: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let off = |p: &Value| {
                offset(
                    &text,
                    p["line"].as_u64().unwrap() as usize,
                    p["character"].as_u64().unwrap() as usize,
                )
            };
            (
                off(&e["range"]["start"]),
                off(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (a, b, t) in edits {
        text.replace_range(a..b, &t);
    }
    text
}

fn offset(text: &str, line: usize, character: usize) -> usize {
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let l = text[start..].split('\n').next().unwrap_or("");
    let mut units = 0;
    for (i, c) in l.char_indices() {
        if units >= character {
            return start + i;
        }
        units += c.len_utf16();
    }
    start + l.len()
}
