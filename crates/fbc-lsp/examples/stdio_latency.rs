//! The latency of diagnostics after a keystroke, measured on the whole server process as an
//! editor drives it: `fbc-edit lsp` started, spoken to over its standard input and output, a
//! catalog file opened, then keystrokes typed into a channel's name (a character added, then taken
//! back), each `textDocument/didChange` timed until the `textDocument/publishDiagnostics` of its
//! version arrives. The server's CPU time (user and system, from /proc) is taken over the open and
//! over all the keystrokes, and its peak resident memory at the end.
//!
//! `cargo build --release && cargo run --release -p fbc-lsp --example stdio_latency --
//!  target/release/fbc-edit CATALOG_DIR [PACKAGE] [KEYSTROKES]`
//! (the package with the most bundles when none is named or it is `-`; 100 keystrokes).
//!
//! Wall times depend on the machine's load; the CPU time per keystroke is the figure to compare
//! on a shared machine.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The process's user and system CPU time, in milliseconds.
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After the command: state is field 0, utime 11, stime 12.
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (ticks(11) + ticks(12)) * 1e3 / hz
}

/// The process's peak resident memory, in MiB.
fn peak_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

struct Lsp {
    stdin: ChildStdin,
    messages: Receiver<Value>,
}

impl Lsp {
    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(600))
            .expect("the server answers")
    }

    /// Waits for the diagnostics of `uri` at `version`.
    fn diagnostics(&self, uri: &str, version: i64) -> usize {
        loop {
            let m = self.recv();
            if m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
            {
                return m["params"]["diagnostics"].as_array().map_or(0, Vec::len);
            }
        }
    }
}

/// The byte offset of the end of the first channel's name in `text` (YAML or JSON).
fn channel_name_end(text: &str) -> usize {
    let (schema, key) = if text.trim_start().starts_with('{') {
        ("\"schema\": \"olm.channel\"", "\"name\": \"")
    } else {
        ("schema: olm.channel", "\nname: ")
    };
    let at = text.find(schema).expect("a channel in the file");
    let start = text[..at]
        .rfind("\n---\n")
        .or_else(|| text[..at].rfind("\n{"))
        .unwrap_or(0);
    let name = start + text[start..].find(key).expect("the channel's name") + key.len();
    name + text[name..].find(['"', '\n']).expect("the end of the name")
}

fn position(text: &str, at: usize) -> Value {
    let before = &text[..at];
    let line = before.matches('\n').count();
    let col = before
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .encode_utf16()
        .count();
    json!({"line": line, "character": col})
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(bin), Some(root)) = (args.first(), args.get(1)) else {
        eprintln!("usage: stdio_latency FBC_EDIT_BINARY CATALOG_DIR [PACKAGE|-] [KEYSTROKES]");
        std::process::exit(2);
    };
    let root = PathBuf::from(root)
        .canonicalize()
        .expect("the catalog directory");
    let keystrokes: i64 = args.get(3).and_then(|k| k.parse().ok()).unwrap_or(100);
    let catalog = fbc_core::catalog::load(&root).expect("a catalog");
    let package = match args.get(2).filter(|p| *p != "-") {
        Some(p) => p.clone(),
        None => catalog
            .index()
            .packages()
            .max_by_key(|p| p.bundles.len())
            .map(|p| p.name.clone())
            .expect("a package"),
    };
    let idx = catalog.index().package(&package).expect("the package");
    let first_channel = *idx.channels.first().expect("a channel");
    let file = catalog.file_of(first_channel).path.clone();
    let bundles = idx.bundles.len();
    drop(catalog);
    let path = root.join(&file);
    let text = std::fs::read_to_string(&path).expect("the file");
    let uri = fbc_lsp::from_path(&path).as_str().to_string();

    let mut child = Command::new(bin)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let pid = child.id();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, messages) = channel();
    std::thread::spawn(move || {
        loop {
            let mut length = 0;
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
                    length = n.parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            if stdout.read_exact(&mut body).is_err() {
                return;
            }
            let Ok(v) = serde_json::from_slice(&body) else {
                return;
            };
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    let mut lsp = Lsp {
        stdin: child.stdin.take().unwrap(),
        messages,
    };
    let root_uri = fbc_lsp::from_path(&root).as_str().to_string();
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "capabilities": {}, "workspaceFolders": [{"uri": root_uri, "name": "catalog"}]}}),
    );
    while lsp.recv()["id"] != 1 {}
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let started = cpu_ms(pid);
    let wall = Instant::now();
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    let first = lsp.diagnostics(&uri, 1);
    let open_wall = wall.elapsed();
    let open_cpu = cpu_ms(pid) - started;

    let at = channel_name_end(&text);
    let here = position(&text, at);
    let mut next = here.clone();
    next["character"] = json!(here["character"].as_u64().unwrap() + 1);
    let mut walls = Vec::new();
    let before = cpu_ms(pid);
    for k in 0..keystrokes {
        let version = k + 2;
        let (range, new) = if k % 2 == 0 {
            (json!({"start": here, "end": here}), "x")
        } else {
            (json!({"start": here, "end": next}), "")
        };
        let t = Instant::now();
        lsp.send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": range, "text": new}]}}),
        );
        lsp.diagnostics(&uri, version);
        walls.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let per_key = (cpu_ms(pid) - before) / keystrokes as f64;
    let peak = peak_mib(pid);
    lsp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}));
    while lsp.recv()["id"] != 2 {}
    lsp.send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let _ = child.wait();

    walls.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| walls[((walls.len() - 1) as f64 * p).round() as usize];
    println!("catalog {}", root.display());
    println!(
        "package {package} ({bundles} bundles), file {file} ({} bytes), typing at line {}",
        text.len(),
        here["line"].as_u64().unwrap_or(0) + 1
    );
    println!(
        "open: {open_cpu:.0} ms server CPU, {:.0} ms wall, {first} diagnostics",
        open_wall.as_secs_f64() * 1e3
    );
    println!(
        "keystroke, {keystrokes} of them: {per_key:.2} ms server CPU each (mean); wall median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        pct(0.5),
        pct(0.9),
        pct(1.0)
    );
    println!("server peak resident memory: {peak:.0} MiB");
}
