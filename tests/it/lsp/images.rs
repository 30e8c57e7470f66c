//! `fbc-edit lsp` over stdio resolving a template's bundle image that no local source holds: not
//! at all while pulling is off and the cache is empty, from the registry once `pullImages` is set,
//! and from the cache (the registry stopped) once it is unset again.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::image::oci::{Layout, Registry, items_from_dir, skopeo_copy, tar};

/// The language server as a process, spoken to over its standard input and output.
struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next: i64,
    _cache: tempfile::TempDir,
    _home: tempfile::TempDir,
}

impl Server {
    fn start(folder: &Path, options: Value) -> Server {
        let cache = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("fbc-edit"))
            .arg("lsp")
            .env("FBC_EDIT_CACHE_DIR", cache.path())
            .env("HOME", home.path())
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("DOCKER_CONFIG")
            .env("REGISTRY_AUTH_FILE", home.path().join("auth.json"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length")];
                if stdout.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut s = Server {
            child,
            stdin,
            messages,
            next: 0,
            _cache: cache,
            _home: home,
        };
        s.request(
            "initialize",
            json!({
                "capabilities": {},
                "workspaceFolders": [{"uri": fbc_lsp::from_path(folder).as_str(), "name": "ws"}],
                "initializationOptions": options,
            }),
        );
        s.notify("initialized", json!({}));
        s
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.next_message();
            if m["id"] == id && m.get("method").is_none() {
                return m["result"].clone();
            }
        }
    }

    fn next_message(&self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(120))
            .expect("a message from the server in time")
    }

    /// Diagnostics published for `uri` until one list satisfies `ok` (within two minutes).
    fn diagnostics_until(&self, uri: &str, ok: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let started = Instant::now();
        let mut seen = Vec::new();
        while started.elapsed() < Duration::from_secs(120) {
            let m = self.next_message();
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                let list = m["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                if ok(&list) {
                    return list;
                }
                seen.push(list);
            }
        }
        panic!("no diagnostics as expected for {uri}; seen {seen:?}");
    }

    fn stop(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

fn testdata(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(p)
}

/// Pushes the foo bundle (testdata/bundles/foo-v0.2.0) as `bundle:v1`.
fn push_bundle(dir: &Path, registry: &Registry) {
    let mut l = Layout::new(dir);
    let manifests = tar(&items_from_dir(
        &testdata("bundles/foo-v0.2.0/manifests"),
        "manifests",
    ));
    let metadata = tar(&items_from_dir(
        &testdata("bundles/foo-v0.2.0/metadata"),
        "metadata",
    ));
    let b = l.image(
        &[
            ("operators.operatorframework.io.bundle.package.v1", "foo"),
            (
                "operators.operatorframework.io.bundle.mediatype.v1",
                "registry+v1",
            ),
        ],
        &[manifests, metadata],
        "amd64",
    );
    l.tag(&b, "bundle:v1");
    let from = format!("oci:{}:bundle:v1", l.dir.display());
    let to = format!("docker://{}/bundle:v1", registry.addr);
    skopeo_copy(&["--all", "--dest-tls-verify=false", &from, &to]);
}

fn unresolved(list: &[Value]) -> bool {
    list.iter().any(|d| {
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot resolve bundle image"))
    })
}

fn mentions_image(list: &[Value]) -> bool {
    list.iter().any(|d| {
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("bundle:v1"))
    })
}

#[test]
fn template_images_come_from_the_registry_when_pulling_and_from_the_cache_after() {
    let mut registry = Registry::start(None);
    let tmp = tempfile::tempdir().unwrap();
    push_bundle(&tmp.path().join("layout"), &registry);
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let template = ws.join("foo-template.yaml");
    let text = format!(
        "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: foo\n    defaultChannel: beta\n  - schema: olm.channel\n    package: foo\n    name: beta\n    entries:\n      - name: foo.v0.2.0\n  - schema: olm.bundle\n    image: {}/bundle:v1\n",
        registry.addr
    );
    std::fs::write(&template, &text).unwrap();
    let uri = fbc_lsp::from_path(&template);
    let uri = uri.as_str();
    let mut s = Server::start(&ws, json!({"plainHttp": true}));
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
    );
    // Pulling off, the cache empty: the image is unresolved, at its line.
    let first = s.diagnostics_until(uri, unresolved);
    let at = first
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("cannot resolve"))
        .unwrap();
    assert_eq!(at["range"]["start"]["line"], 10, "{first:?}");
    // Pulling on: the worker opens it from the registry and the template is checked again.
    s.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"fbcEdit": {"pullImages": true, "plainHttp": true}}}),
    );
    let pulled = s.diagnostics_until(uri, |l| !mentions_image(l));
    assert!(!unresolved(&pulled), "{pulled:?}");
    // Pulling off again, the registry gone: the verified copy in the cache still serves.
    registry.stop();
    s.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"fbcEdit": {"pullImages": false, "plainHttp": true}}}),
    );
    let cached = s.diagnostics_until(uri, |l| !mentions_image(l));
    assert!(!unresolved(&cached), "{cached:?}");
    s.stop();
}
