//! `fbc-edit lsp` over standard input and output: a message's claimed size is checked against a
//! cap before anything is read or allocated, and a normal session is served as before.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

fn frame(msg: &Value) -> Vec<u8> {
    let body = msg.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn session(folder: &std::path::Path) -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "capabilities": {},
            "rootUri": format!("file://{}", folder.display()),
        }}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
    ]
}

/// Runs `fbc-edit lsp ARGS` on `input`, then (as an editor does) sends `exit` once the answer to
/// `shutdown` (id 2) has come: exit code, standard output, standard error.
fn serve(args: &[&str], input: &[u8]) -> (Option<i32>, String, String) {
    let mut child = Command::new(crate::bounded::binary())
        .arg("lsp")
        .args(args)
        .env_remove("FBC_EDIT_LIMITS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let input = input.to_vec();
    // Written beside the server: it may stop reading before the input ends.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
        stdin
    });
    let mut out = String::new();
    while let Some(msg) = fbc_lsp::read_message(&mut stdout, 1 << 30).unwrap() {
        let msg = serde_json::to_value(&msg).unwrap();
        out.push_str(&msg.to_string());
        out.push('\n');
        if msg["id"] == 2 && msg.get("method").is_none() {
            let mut stdin = writer.join().unwrap();
            stdin
                .write_all(&frame(&json!({"jsonrpc": "2.0", "method": "exit"})))
                .unwrap();
            break;
        }
    }
    let done = child.wait_with_output().unwrap();
    (
        done.status.code(),
        out,
        String::from_utf8_lossy(&done.stderr).into_owned(),
    )
}

#[test]
fn a_session_over_stdio_is_served() {
    let tmp = tempfile::tempdir().unwrap();
    let input: Vec<u8> = session(tmp.path()).iter().flat_map(frame).collect();
    let (code, out, err) = serve(&["--stdio"], &input);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("\"definitionProvider\":true") && out.contains("{\"id\":2}"),
        "{out}"
    );
}

#[test]
fn shutdown_and_exit_sent_together_end_the_server_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let mut msgs = session(tmp.path());
    msgs.push(json!({"jsonrpc": "2.0", "method": "exit"}));
    let input: Vec<u8> = msgs.iter().flat_map(frame).collect();
    let done = Command::new(crate::bounded::binary())
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(&input)?;
            child.wait_with_output()
        })
        .unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    assert!(
        String::from_utf8_lossy(&done.stdout).contains("\"id\":2,\"result\":null"),
        "{}",
        String::from_utf8_lossy(&done.stdout)
    );
}

#[test]
fn a_message_claiming_100_gb_is_refused_unread_and_the_server_exits() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("input");
    let mut bytes: Vec<u8> = session(tmp.path())[..2].iter().flat_map(frame).collect();
    // The editor's claim: 100 GB to follow.
    bytes.extend(b"Content-Length: 100000000000\r\n\r\n{\"jsonrpc\":\"2.0\"");
    std::fs::write(&input, &bytes).unwrap();
    // Standard input from the file, through the shell, so GNU time measures the server itself.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("exec \"$0\" lsp < \"$1\"")
        .arg(crate::bounded::binary())
        .arg(&input)
        .env_remove("FBC_EDIT_LIMITS");
    let run = crate::bounded::run(cmd, Duration::from_secs(120));
    run.expect(2, 100, 100);
    assert_eq!(
        run.stderr.trim(),
        "fbc-edit lsp: a message of 100000000000 bytes (its Content-Length), more than the 8 GiB allowed; not read (raise the cap with --max-message SIZE)"
    );
    // The messages before it were answered.
    assert!(run.stdout.contains("\"id\":1"), "{}", run.stdout);
}

#[test]
fn the_cap_is_set_on_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("catalog.yaml");
    let open = |text: String| {
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": format!("file://{}", file.display()), "languageId": "yaml", "version": 1,
            "text": text,
        }}})
    };
    let mut msgs = session(tmp.path());
    msgs.insert(2, open("schema: olm.package\nname: a\n".into()));
    let small: Vec<u8> = msgs.iter().flat_map(frame).collect();
    assert_eq!(serve(&["--max-message", "4KiB"], &small).0, Some(0));
    msgs.insert(3, open("#".repeat(8 << 10)));
    let large: Vec<u8> = msgs.iter().flat_map(frame).collect();
    let (code, _, err) = serve(&["--max-message", "4KiB"], &large);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("more than the 4 KiB allowed; not read"),
        "{err}"
    );
    assert_eq!(serve(&["--max-message", "16KiB"], &large).0, Some(0));
    let (code, _, err) = serve(&["--max-message", "lots"], &small);
    assert_eq!(code, Some(2));
    assert!(err.contains("--max-message"), "{err}");
}
