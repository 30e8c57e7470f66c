//! Messages over standard input and output, read within bounds. The editor is input like any
//! other: a message's `Content-Length` is the peer's claim, so it is checked against a cap before
//! anything is read, and the body's buffer grows only as its bytes arrive (a header claiming
//! 100 GB and sending nothing costs nothing). Header lines are bounded in length and count.
//!
//! A message over the cap ends the server: the reader stops, the server's loop ends when its
//! input does, and [`Stdio::join`] returns the reason, which `fbc-edit lsp` prints before it
//! exits non-zero.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use crossbeam_channel::bounded;
use lsp_server::{Connection, Message};

/// The default cap on one message: twice the largest catalog file the engine reads
/// ([`fbc_core::catalog::load::MAX_FILE`], 4 GiB), room for JSON's escaping of a whole file's
/// text sent in `didOpen` or `didChange`.
pub const DEFAULT_MAX_MESSAGE: u64 = 2 * (fbc_core::catalog::load::MAX_FILE + 1);

/// The longest header line read (`Content-Length: …`, `Content-Type: …`).
pub const MAX_HEADER_LINE: u64 = 1024;

/// The most header lines one message may have.
pub const MAX_HEADERS: usize = 16;

/// The largest buffer set aside for a body before its bytes arrive.
const FIRST_BUFFER: u64 = 1 << 20;

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error(
        "a message of {len} bytes (its Content-Length), more than the {} allowed; not read (raise the cap with --max-message SIZE)",
        fbc_core::guard::limits::show_size(*max)
    )]
    TooLarge { len: u64, max: u64 },
    #[error("a header line longer than {MAX_HEADER_LINE} bytes")]
    LongHeader,
    #[error("more than {MAX_HEADERS} header lines in one message")]
    ManyHeaders,
    #[error("malformed header {0:?}")]
    Header(String),
    #[error("a message without a Content-Length header")]
    NoLength,
    #[error("the input ended inside a message")]
    Truncated,
    #[error("malformed message: {0}")]
    Json(#[source] serde_json::Error),
    #[error("reading the input: {0}")]
    Io(#[from] io::Error),
}

/// Reads one message of at most `max` bytes; `None` when the input ends between messages.
pub fn read_message(input: &mut impl BufRead, max: u64) -> Result<Option<Message>, TransportError> {
    let Some(len) = read_headers(input)? else {
        return Ok(None);
    };
    if len > max {
        return Err(TransportError::TooLarge { len, max });
    }
    let mut body = Vec::with_capacity(usize::try_from(len.min(FIRST_BUFFER)).unwrap_or(0));
    input.take(len).read_to_end(&mut body)?;
    if (body.len() as u64) < len {
        return Err(TransportError::Truncated);
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(TransportError::Json)
}

/// The headers of one message, up to the empty line: its `Content-Length` (`None`: the input
/// ended before the message began).
fn read_headers(input: &mut impl BufRead) -> Result<Option<u64>, TransportError> {
    let mut len = None;
    let mut line = Vec::new();
    for count in 0.. {
        if count > MAX_HEADERS {
            return Err(TransportError::ManyHeaders);
        }
        line.clear();
        input
            .take(MAX_HEADER_LINE + 1)
            .read_until(b'\n', &mut line)?;
        if line.is_empty() {
            return if count == 0 {
                Ok(None)
            } else {
                Err(TransportError::Truncated)
            };
        }
        if line.len() as u64 > MAX_HEADER_LINE {
            return Err(TransportError::LongHeader);
        }
        let text = String::from_utf8_lossy(&line);
        let Some(text) = text.strip_suffix("\r\n") else {
            return Err(if line.ends_with(b"\n") {
                TransportError::Header(text.into_owned())
            } else {
                TransportError::Truncated
            });
        };
        if text.is_empty() {
            break;
        }
        let (name, value) = text
            .split_once(':')
            .ok_or_else(|| TransportError::Header(text.to_string()))?;
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            let value = value.trim();
            let n = value.parse::<u64>().map_err(|_| {
                if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
                    // More digits than any length: over every cap.
                    TransportError::TooLarge {
                        len: u64::MAX,
                        max: 0,
                    }
                } else {
                    TransportError::Header(text.to_string())
                }
            })?;
            len = Some(n);
        }
    }
    len.map(Some).ok_or(TransportError::NoLength)
}

/// The threads that move messages between the connection and standard input and output.
pub struct Stdio {
    failure: Arc<Mutex<Option<TransportError>>>,
    writer: JoinHandle<io::Result<()>>,
}

/// A connection over standard input and output, each message read within `max` bytes.
pub fn stdio(max: u64) -> io::Result<(Connection, Stdio)> {
    let (to_server, from_client) = bounded::<Message>(0);
    let (to_client, from_server) = bounded::<Message>(0);
    let failure = Arc::new(Mutex::new(None));
    let failed = Arc::clone(&failure);
    std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || {
            let mut input = BufReader::new(io::stdin().lock());
            loop {
                match read_message(&mut input, max) {
                    Ok(Some(msg)) => {
                        let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                        if to_server.send(msg).is_err() || exit {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        // Kept before the channel closes, so the server learns why it ended.
                        *failed.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                        break;
                    }
                }
            }
            drop(to_server);
        })?;
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || {
            let mut out = io::stdout().lock();
            for msg in from_server {
                msg.write(&mut out)?;
            }
            out.flush()
        })?;
    let conn = Connection {
        sender: to_client,
        receiver: from_client,
    };
    Ok((conn, Stdio { failure, writer }))
}

impl Stdio {
    /// Waits for the messages written to be flushed (the connection must be dropped first). A
    /// message that could not be read is the reason the server stopped, before `served`'s (which
    /// follows from it). A reader still waiting for input is left to the process's exit.
    pub fn join(self, served: Result<(), crate::Error>) -> Result<(), crate::Error> {
        let written = self.writer.join().unwrap_or(Ok(()));
        if let Some(e) = self
            .failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Err(crate::Error::Transport(e));
        }
        served?;
        Ok(written?)
    }
}

/// Serves on standard input and output until the client shuts the server down; each message is
/// read within `max_message` bytes.
pub fn run_stdio(max_message: u64) -> Result<(), crate::Error> {
    let (conn, io) = stdio(max_message)?;
    let served = crate::run(&conn);
    drop(conn);
    io.join(served)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    fn read(input: &[u8], max: u64) -> Result<Option<Message>, TransportError> {
        read_message(&mut &input[..], max)
    }

    #[test]
    fn messages_are_read_one_after_another() {
        let one = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let two = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let mut input = framed(one);
        input
            .extend(b"content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: ");
        input.extend(format!("{}\r\n\r\n{two}", two.len()).bytes());
        let mut r = &input[..];
        let first = read_message(&mut r, 1 << 20).unwrap().unwrap();
        assert!(matches!(first, Message::Request(q) if q.method == "initialize"));
        let second = read_message(&mut r, 1 << 20).unwrap().unwrap();
        assert!(matches!(second, Message::Notification(n) if n.method == "exit"));
        assert!(read_message(&mut r, 1 << 20).unwrap().is_none());
    }

    #[test]
    fn a_length_over_the_cap_is_refused_before_anything_is_read() {
        let e = read(b"Content-Length: 100000000000\r\n\r\n{", 8 << 30).unwrap_err();
        assert!(
            matches!(
                e,
                TransportError::TooLarge {
                    len: 100_000_000_000,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "a message of 100000000000 bytes (its Content-Length), more than the 8 GiB allowed; not read (raise the cap with --max-message SIZE)"
        );
        let e = read(
            b"Content-Length: 99999999999999999999999999\r\n\r\n",
            1 << 20,
        )
        .unwrap_err();
        assert!(matches!(e, TransportError::TooLarge { .. }), "{e}");
        let body = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        assert!(read(&framed(body), body.len() as u64).unwrap().is_some());
        assert!(matches!(
            read(&framed(body), body.len() as u64 - 1).unwrap_err(),
            TransportError::TooLarge { .. }
        ));
    }

    #[test]
    fn headers_are_bounded_in_length_and_count() {
        let mut long = b"X-Pad: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', 1 << 20));
        assert!(matches!(
            read(&long, 1 << 20).unwrap_err(),
            TransportError::LongHeader
        ));
        let many = "X-Pad: a\r\n".repeat(1000);
        assert!(matches!(
            read(many.as_bytes(), 1 << 20).unwrap_err(),
            TransportError::ManyHeaders
        ));
        assert!(matches!(
            read(b"X-Pad: a\r\n\r\n{}", 1 << 20).unwrap_err(),
            TransportError::NoLength
        ));
        assert!(matches!(
            read(b"Content-Length 5\r\n\r\n", 1 << 20).unwrap_err(),
            TransportError::Header(_)
        ));
        assert!(matches!(
            read(b"Content-Length: 5\n\n", 1 << 20).unwrap_err(),
            TransportError::Header(_)
        ));
    }

    #[test]
    fn a_short_or_broken_body_is_an_error() {
        assert!(matches!(
            read(b"Content-Length: 50\r\n\r\n{\"a\":", 1 << 20).unwrap_err(),
            TransportError::Truncated
        ));
        assert!(matches!(
            read(b"Content-Length: 3\r\n", 1 << 20).unwrap_err(),
            TransportError::Truncated
        ));
        assert!(matches!(
            read(&framed("[1,"), 1 << 20).unwrap_err(),
            TransportError::Json(_)
        ));
        assert!(read(b"", 1 << 20).unwrap().is_none());
    }
}
