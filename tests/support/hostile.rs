#![allow(dead_code)]
//! A hostile OCI registry for integration tests of the registry client.
//!
//! `Hostile::start` serves one image over plain HTTP/1.1 on 127.0.0.1 (a port picked by the
//! system) and speaks enough of the OCI distribution API for a client to pull it: `GET /v2/`,
//! `HEAD`/`GET /v2/<repo>/manifests/<tag or digest>` and `HEAD`/`GET /v2/<repo>/blobs/<digest>`.
//! An [`Attack`] picks one way in which the server misbehaves; every route the attack does not
//! name behaves like an honest registry. Each attack's documentation says what a correct client
//! does about it.
//!
//! Every request is logged (`requests`, `count`) and every byte written to a client is counted
//! (`bytes_sent`), so a test can assert that the client gave up early instead of reading forever.
//! `bytes_sent` counts what the kernel accepted, so it runs ahead of what the client read by the
//! socket buffers: the server's is kept at 64 KiB, but the client's receive buffer may hold
//! several MB on loopback (about 0.5 MB past a 1 MB limit was seen with ureq). Compare it with
//! budgets well above that, e.g. "under 64 MB" for a client whose manifest budget is 4 MB.
//!
//! The server is bounded on its own side too: an endless body ends when a write fails (the client
//! closed the connection), when the `Hostile` is dropped, or at the caps of one connection
//! ([`CONNECTION_TIME_CAP`], [`CONNECTION_BYTE_CAP`]), so a failing test leaves no thread
//! spinning. Write errors never panic: they end the connection's thread.
//!
//! Only std, `sha2`, `serde_json`, `flate2` and `libc` may be used here: the file is included
//! into integration tests with `#[path = "../support/hostile.rs"] mod hostile;`.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

/// Media type of the manifests served.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// Media type of the config descriptor.
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.image.config.v1+json";
/// Media type of every layer descriptor.
pub const LAYER_MEDIA_TYPE: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
/// The size the huge attacks declare: 10 GB.
pub const HUGE_SIZE: u64 = 10_000_000_000;
/// The bearer token the token endpoint hands out (`CrossHostRedirect`) and the registry accepts.
pub const TOKEN: &str = "hostile-token";
/// The service named in the bearer challenge.
pub const SERVICE: &str = "hostile";
/// The label that points at the catalog inside an image (set by `Image::with_files`).
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";

/// No connection is served for longer than this, whatever the client does.
pub const CONNECTION_TIME_CAP: Duration = Duration::from_secs(60);
/// No connection is sent more than this many bytes.
pub const CONNECTION_BYTE_CAP: u64 = 20_000_000_000;
/// A keep-alive connection with no new request for this long is closed.
const IDLE_LIMIT: Duration = Duration::from_secs(10);
/// How often a blocked read or write looks at the stop flag and the caps.
const POLL: Duration = Duration::from_millis(100);
/// The largest request head read; a longer one closes the connection.
const MAX_HEAD: usize = 64 * 1024;
/// The largest request body read (and thrown away).
const MAX_REQUEST_BODY: u64 = 1 << 20;
/// The kernel send buffer asked for on each connection.
const SEND_BUFFER: i32 = 64 * 1024;
/// How much an endless body writes at a time.
const FILL_CHUNK: usize = 64 * 1024;

/// `sha256:<hex>` of `data`.
pub fn sha256_digest(data: &[u8]) -> String {
    let hash = Sha256::digest(data);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// A ustar archive of regular files (`(path, content)`); a path ending in `/` is a directory.
/// Paths are at most 100 bytes (no long-name extensions here).
pub fn tar(files: &[(&str, &[u8])]) -> Vec<u8> {
    fn octal(field: &mut [u8], value: u64) {
        // Zero-padded octal, NUL-terminated, filling the field.
        let digits = format!("{:0width$o}", value, width = field.len() - 1);
        field[..digits.len()].copy_from_slice(digits.as_bytes());
        field[digits.len()] = 0;
    }
    let mut out = Vec::new();
    for (path, content) in files {
        assert!(path.len() <= 100, "tar path longer than 100 bytes: {path}");
        let dir = path.ends_with('/');
        let mut header = [0u8; 512];
        header[..path.len()].copy_from_slice(path.as_bytes());
        octal(&mut header[100..108], if dir { 0o755 } else { 0o644 });
        octal(&mut header[108..116], 0);
        octal(&mut header[116..124], 0);
        octal(
            &mut header[124..136],
            if dir { 0 } else { content.len() as u64 },
        );
        octal(&mut header[136..148], 0);
        header[156] = if dir { b'5' } else { b'0' };
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        // The checksum is taken with its own field read as spaces.
        header[148..156].copy_from_slice(b"        ");
        let sum: u64 = header.iter().map(|&b| b as u64).sum();
        let digits = format!("{sum:06o}\0 ");
        header[148..156].copy_from_slice(digits.as_bytes());
        out.extend_from_slice(&header);
        if !dir {
            out.extend_from_slice(content);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
    }
    // Two zero blocks end the archive.
    out.resize(out.len() + 1024, 0);
    out
}

/// `data` gzip-compressed (modification time 0, so the output is reproducible).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

/// The image a `Hostile` serves: its config blob and its layer blobs, as served (a layer is
/// normally a gzip-compressed tar).
#[derive(Clone, Debug)]
pub struct Image {
    pub config: Vec<u8>,
    pub layers: Vec<Vec<u8>>,
}

impl Image {
    /// An image of one gzip tar layer holding `files` (see [`tar`]), with a config whose
    /// `CONFIGS_LABEL` label is `/configs`.
    pub fn with_files(files: &[(&str, &[u8])]) -> Image {
        let archive = tar(files);
        let config = format!(
            concat!(
                r#"{{"architecture":"amd64","os":"linux","#,
                r#""config":{{"Labels":{{"{}":"/configs"}}}},"#,
                r#""rootfs":{{"type":"layers","diff_ids":["{}"]}}}}"#
            ),
            CONFIGS_LABEL,
            sha256_digest(&archive)
        );
        Image {
            config: config.into_bytes(),
            layers: vec![gzip(&archive)],
        }
    }

    /// The honest OCI image manifest of this image (compact JSON, keys in a fixed order).
    pub fn manifest(&self) -> Vec<u8> {
        let layers: Vec<(String, u64)> = self
            .layers
            .iter()
            .map(|l| (sha256_digest(l), l.len() as u64))
            .collect();
        manifest_json(
            &self.config_digest(),
            self.config.len() as u64,
            &layers,
            false,
        )
    }

    /// `sha256:<hex>` of [`Image::manifest`].
    pub fn manifest_digest(&self) -> String {
        sha256_digest(&self.manifest())
    }

    /// `sha256:<hex>` of the config blob.
    pub fn config_digest(&self) -> String {
        sha256_digest(&self.config)
    }

    /// `sha256:<hex>` of each layer blob, in order.
    pub fn layer_digests(&self) -> Vec<String> {
        self.layers.iter().map(|l| sha256_digest(l)).collect()
    }
}

/// A manifest's JSON, written by hand so its bytes (and so its digest) do not depend on how
/// serde_json is built. `pretty` spreads the same document over indented lines.
fn manifest_json(
    config: &str,
    config_size: u64,
    layers: &[(String, u64)],
    pretty: bool,
) -> Vec<u8> {
    let descriptor = |media: &str, digest: &str, size: u64, indent: &str| {
        if pretty {
            format!(
                "{{\n{indent}  \"mediaType\": \"{media}\",\n{indent}  \"digest\": \"{digest}\",\n\
                 {indent}  \"size\": {size}\n{indent}}}"
            )
        } else {
            format!(r#"{{"mediaType":"{media}","digest":"{digest}","size":{size}}}"#)
        }
    };
    let text = if pretty {
        let layers: Vec<String> = layers
            .iter()
            .map(|(d, s)| format!("    {}", descriptor(LAYER_MEDIA_TYPE, d, *s, "    ")))
            .collect();
        format!(
            "{{\n  \"schemaVersion\": 2,\n  \"mediaType\": \"{}\",\n  \"config\": {},\n  \
             \"layers\": [\n{}\n  ]\n}}\n",
            MANIFEST_MEDIA_TYPE,
            descriptor(CONFIG_MEDIA_TYPE, config, config_size, "  "),
            layers.join(",\n")
        )
    } else {
        let layers: Vec<String> = layers
            .iter()
            .map(|(d, s)| descriptor(LAYER_MEDIA_TYPE, d, *s, ""))
            .collect();
        format!(
            r#"{{"schemaVersion":2,"mediaType":"{}","config":{},"layers":[{}]}}"#,
            MANIFEST_MEDIA_TYPE,
            descriptor(CONFIG_MEDIA_TYPE, config, config_size, ""),
            layers.join(",")
        )
    };
    text.into_bytes()
}

/// How the server misbehaves. Routes an attack does not name behave honestly.
#[derive(Clone, Debug)]
pub enum Attack {
    /// An honest registry.
    None,
    /// `GET` of the manifest answers 200 with no `Content-Length` and a body that never ends
    /// (`{"schemaVersion":2,...,"annotations":{"a":"xxxx...`, close-delimited), as fast as the
    /// client reads. `HEAD` is honest. A client must stop reading at its manifest budget and fail.
    EndlessManifest,
    /// `GET` of the manifest answers 200 with `Content-Length: 10000000000` and then streams that
    /// many JSON-looking bytes. A client must refuse the declared size up front (or stop at its
    /// manifest budget) and fail, never allocate for the declared length.
    HugeManifest,
    /// Every manifest request, `HEAD` and `GET`, answers 500 with a chunked JSON-ish error body
    /// (`{"errors":[{"code":"UNKNOWN","message":"xxxx...`) that never ends. The body follows even
    /// a `HEAD` answer, which HTTP forbids: a client must ignore it there, and for `GET` must read
    /// at most a small error budget before failing with the status.
    EndlessErrorBody,
    /// The registry asks for bearer auth: every `/v2/` route without `Authorization: Bearer
    /// hostile-token` answers 401 with `WWW-Authenticate: Bearer
    /// realm="http://<addr>/token",service="hostile",scope="repository:<repo>:pull"` (no scope for
    /// `/v2/` itself), and `GET /token` answers 200 with a body that never ends
    /// (`{"token":"xxxx...`, close-delimited). A client must stop reading the token at its budget
    /// and fail.
    EndlessTokenBody,
    /// The manifest's config descriptor declares size 10 000 000 000 (with the real config's
    /// digest), and the config blob answers with that `Content-Length`: the real config followed
    /// by spaces, 10 GB in all. A client must refuse a config larger than its budget (from the
    /// descriptor, or at the latest while reading) and fail.
    HugeConfig,
    /// Every response to the matching routes, headers included, is written one byte every
    /// `interval`. `route` is `"manifest"` (the manifest endpoints), `"blob"` (the blob
    /// endpoints), `"layer"` (the blob endpoints of layers only) or `"any"` (every request,
    /// `/v2/` and the token endpoint too). A client must
    /// give up after its own deadline and fail instead of waiting as long as the server trickles.
    Slowloris {
        route: &'static str,
        interval: Duration,
    },
    /// Layer blobs answer `Transfer-Encoding: chunked` and then the first chunk's size line a
    /// byte every `interval`, an extension that never ends (`1;xxxx…`): no byte of the body ever
    /// arrives, yet the connection is never idle. A client must give up by its own clock.
    ChunkedTrickle { interval: Duration },
    /// Layer blobs first answer `307` to themselves (with `?moved`) with a body of 10 GB; the
    /// blob is served where the redirect leads. A client must follow the redirect without reading
    /// the redirect's body.
    RedirectWithBody,
    /// Every manifest request answers `307` to `location` (say, a port where nothing listens).
    /// A client that cannot follow must fail: the registry did answer.
    RedirectTo(String),
    /// Every manifest request answers `401` with a bearer challenge whose realm is `realm` (say,
    /// a port where nothing listens). A client that cannot get a token must fail: the registry
    /// did answer.
    RealmAt(String),
    /// Layer blobs (not the config) answer with their headers at once and then their body one byte every
    /// `interval`. A client must give up once the transfer is slower than its minimum speed,
    /// instead of waiting for the whole blob.
    SlowBody { interval: Duration },
    /// Each layer blob answers 200 with no `Content-Length`: the real layer and then zeros
    /// forever (close-delimited), ignoring the size its descriptor declares. A client must stop
    /// reading at the declared size (or its layer budget) and fail.
    EndlessLayer,
    /// Each layer blob is served with `extra` zero bytes after the real content, and a
    /// `Content-Length` that counts them: a size that disagrees with the descriptor's. A client
    /// must not accept more bytes than the descriptor declares and fail (size or digest mismatch).
    LayerLongerThanDeclared { extra: usize },
    /// The manifest lists the image's first layer `times` times, followed by the image's other
    /// layers (the manifest and its digest change accordingly; the blob is served each time).
    /// A client must fetch and unpack a repeated blob once, or bound the total work by its
    /// budgets.
    RepeatedLayer { times: usize },
    /// Every request on the main listener answers `307 Temporary Redirect`, with a `Location`
    /// that alternates between the same path with `?hop` appended and the bare path, so a client
    /// never reaches a response. A client must stop after a small number of redirects and fail.
    RedirectLoop,
    /// `HEAD` of the manifest claims the honest manifest's digest and length, but `GET` (by tag
    /// or by that digest) returns the same manifest pretty-printed: the same document, other
    /// bytes, so its sha256 differs from the `Docker-Content-Digest` it is sent with. A client
    /// must check the manifest's bytes against the digest it asked for (or was told) and fail.
    WrongManifestDigest,
    /// Each layer blob is served with one byte flipped (same length). For a gzip layer the byte
    /// is in the gzip header's modification time, so the blob still decompresses to the same
    /// tar: only the digest check can catch it. A client must verify blob digests and fail.
    WrongBlobDigest,
    /// Every request on the main listener is answered with bytes that are not HTTP, then the
    /// connection is closed: in turn (by request count) an SSH banner
    /// (`SSH-2.0-OpenSSH_9.6\r\n`) and a malformed status line (`HTTP/1.1 2OO OK`). A client must
    /// fail with an error, not hang or panic.
    Malformed,
    /// The main listener asks for bearer auth (401 challenge as for `EndlessTokenBody`; `GET
    /// /token` hands out `hostile-token`), and answers every blob request with a 307 to a second
    /// listener, named `localhost:<port2>` so the host differs from `127.0.0.1`, which serves the
    /// blobs without auth. The log records (`listener == 1`) whether the `Authorization` header
    /// followed the redirect. A client must not send the main registry's credentials to another
    /// host.
    CrossHostRedirect,
}

/// One request the server read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `HEAD`, ...
    pub method: String,
    /// The request target's path, without the query.
    pub path: String,
    /// Whether the request carried an `Authorization` header.
    pub authorization: bool,
    /// Which listener it arrived on: 0 the main one, 1 the second (`CrossHostRedirect`).
    pub listener: usize,
    /// The request target's query (after `?`), empty if none.
    pub query: String,
}

/// A running hostile registry. Dropping it stops the listeners and ends every connection's
/// endless body at its next write.
pub struct Hostile {
    shared: Arc<Shared>,
    accept_threads: Vec<JoinHandle<()>>,
    /// The addresses the listeners are bound to (connected to on drop to wake `accept`).
    bound: Vec<SocketAddr>,
}

/// What the server serves, worked out once from the image and the attack.
struct Served {
    /// The bytes `GET` of the manifest returns (honest or attacked).
    manifest: Vec<u8>,
    /// The digest claimed in `Docker-Content-Digest` and accepted as a reference.
    manifest_digest: String,
    /// The `Content-Length` claimed by `HEAD` of the manifest.
    head_length: u64,
    config_digest: String,
    config: Vec<u8>,
    /// Layer digests and their honest bytes.
    layers: Vec<(String, Vec<u8>)>,
}

/// State shared by the accept loops and the connections.
struct Shared {
    repo: String,
    tag: String,
    attack: Attack,
    served: Served,
    /// The main listener's address.
    main: SocketAddr,
    /// The second listener's port (`CrossHostRedirect` only).
    second_port: Option<u16>,
    log: Mutex<Vec<Request>>,
    sent: AtomicU64,
    stop: AtomicBool,
    /// Requests answered by an alternating attack so far.
    turns: AtomicUsize,
}

impl Hostile {
    /// Starts serving `image` as repository `repo` (e.g. "cat") with tag `tag` (e.g. "v1") under
    /// `attack`. Panics if a listener cannot be bound or `Slowloris` names an unknown route.
    pub fn start(image: Image, repo: &str, tag: &str, attack: Attack) -> Hostile {
        Hostile::start_on(0, image, repo, tag, attack)
    }

    /// [`Hostile::start`] on a given port of 127.0.0.1 (0: one the system picks), so that a
    /// second server can stand where a first one stood (same reference, another behaviour).
    pub fn start_on(port: u16, image: Image, repo: &str, tag: &str, attack: Attack) -> Hostile {
        if let Attack::Slowloris { route, .. } = &attack {
            assert!(
                matches!(*route, "manifest" | "blob" | "layer" | "any"),
                "Slowloris route must be \"manifest\", \"blob\", \"layer\" or \"any\", not {route:?}"
            );
        }
        let main = TcpListener::bind(("127.0.0.1", port)).expect("bind the hostile registry");
        let main_addr = main.local_addr().expect("hostile registry address");
        let mut listeners = vec![(main, 0)];
        let mut second_port = None;
        if matches!(attack, Attack::CrossHostRedirect) {
            let second = TcpListener::bind("127.0.0.1:0").expect("bind the second listener");
            let port = second.local_addr().expect("second listener address").port();
            listeners.push((second, 1));
            // `localhost` may resolve to ::1 first: serve there too when the port is free.
            if let Ok(v6) = TcpListener::bind(("::1", port)) {
                listeners.push((v6, 1));
            }
            second_port = Some(port);
        }
        let shared = Arc::new(Shared {
            repo: repo.to_string(),
            tag: tag.to_string(),
            served: serve_plan(&image, &attack),
            attack,
            main: main_addr,
            second_port,
            log: Mutex::new(Vec::new()),
            sent: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            turns: AtomicUsize::new(0),
        });
        let mut bound = Vec::new();
        let mut accept_threads = Vec::new();
        for (listener, index) in listeners {
            bound.push(listener.local_addr().expect("listener address"));
            let shared = Arc::clone(&shared);
            let handle = thread::Builder::new()
                .name("hostile-accept".into())
                .spawn(move || accept_loop(listener, index, shared))
                .expect("spawn the accept thread");
            accept_threads.push(handle);
        }
        Hostile {
            shared,
            accept_threads,
            bound,
        }
    }

    /// `127.0.0.1:PORT` of the main listener.
    pub fn addr(&self) -> String {
        self.shared.main.to_string()
    }

    /// The image reference for the client: `127.0.0.1:PORT/<repo>:<tag>`.
    pub fn reference(&self) -> String {
        format!(
            "{}/{}:{}",
            self.shared.main, self.shared.repo, self.shared.tag
        )
    }

    /// `localhost:PORT2` of the second listener (`CrossHostRedirect` only).
    pub fn second_addr(&self) -> Option<String> {
        self.shared
            .second_port
            .map(|port| format!("localhost:{port}"))
    }

    /// The manifest bytes a `GET` of the tag returns under this attack (for the endless and huge
    /// manifest attacks: the honest manifest, which is only announced, never sent whole).
    pub fn manifest(&self) -> Vec<u8> {
        self.shared.served.manifest.clone()
    }

    /// The manifest digest this server claims (`Docker-Content-Digest`) under this attack. It is
    /// the sha256 of [`Hostile::manifest`] except under `WrongManifestDigest`.
    pub fn manifest_digest(&self) -> String {
        self.shared.served.manifest_digest.clone()
    }

    /// Every request read so far, in order of arrival.
    pub fn requests(&self) -> Vec<Request> {
        self.shared
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// How many `GET` requests had a path ending in `path_suffix` (e.g. a blob's digest).
    pub fn count(&self, path_suffix: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == "GET" && r.path.ends_with(path_suffix))
            .count()
    }

    /// Total bytes written to clients so far (accepted by the kernel), on every listener.
    pub fn bytes_sent(&self) -> u64 {
        self.shared.sent.load(Ordering::Relaxed)
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake each accept loop so it sees the flag; then wait for it to drop its listener.
        // A loop that could not be woken is left behind rather than waited for.
        for (addr, handle) in self.bound.iter().zip(self.accept_threads.drain(..)) {
            if TcpStream::connect_timeout(addr, Duration::from_secs(1)).is_ok() {
                let _ = handle.join();
            }
        }
    }
}

/// Works out the manifest, digests and blobs served under `attack`.
fn serve_plan(image: &Image, attack: &Attack) -> Served {
    let config_digest = image.config_digest();
    let layers: Vec<(String, Vec<u8>)> = image
        .layers
        .iter()
        .map(|l| (sha256_digest(l), l.clone()))
        .collect();
    let descriptors: Vec<(String, u64)> = layers
        .iter()
        .map(|(d, l)| (d.clone(), l.len() as u64))
        .collect();
    let honest = image.manifest();
    let (manifest, manifest_digest, head_length) = match attack {
        Attack::HugeConfig => {
            let m = manifest_json(&config_digest, HUGE_SIZE, &descriptors, false);
            let d = sha256_digest(&m);
            let n = m.len() as u64;
            (m, d, n)
        }
        Attack::RepeatedLayer { times } => {
            let mut listed = Vec::new();
            if let Some(first) = descriptors.first() {
                listed.extend(std::iter::repeat_n(first.clone(), *times));
                listed.extend(descriptors[1..].iter().cloned());
            }
            let m = manifest_json(&config_digest, image.config.len() as u64, &listed, false);
            let d = sha256_digest(&m);
            let n = m.len() as u64;
            (m, d, n)
        }
        Attack::WrongManifestDigest => {
            let pretty = manifest_json(
                &config_digest,
                image.config.len() as u64,
                &descriptors,
                true,
            );
            (pretty, sha256_digest(&honest), honest.len() as u64)
        }
        _ => {
            let d = sha256_digest(&honest);
            let n = honest.len() as u64;
            (honest, d, n)
        }
    };
    Served {
        manifest,
        manifest_digest,
        head_length,
        config_digest,
        config: image.config.clone(),
        layers,
    }
}

fn accept_loop(listener: TcpListener, index: usize, shared: Arc<Shared>) {
    for incoming in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let stream = match incoming {
            Ok(stream) => stream,
            Err(_) => {
                // Out of descriptors or an aborted handshake: do not spin.
                thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        let shared = Arc::clone(&shared);
        let _ = thread::Builder::new()
            .name("hostile-conn".into())
            .stack_size(256 * 1024)
            .spawn(move || serve_connection(stream, index, shared));
    }
}

/// A parsed request head.
struct Incoming {
    method: String,
    path: String,
    query: String,
    headers: Vec<(String, String)>,
    /// The client asked to close after this response (or speaks HTTP/1.0 without keep-alive).
    close: bool,
}

impl Incoming {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A response body.
enum Body {
    /// No body (a `HEAD` answer or an empty one).
    None,
    Bytes(Vec<u8>),
    /// `prefix`, then `fill` forever (until a write fails or a cap is hit).
    Endless {
        prefix: Vec<u8>,
        fill: u8,
    },
    /// `prefix`, then `fill` forever, in chunked transfer coding.
    EndlessChunked {
        prefix: Vec<u8>,
        fill: u8,
    },
    /// `prefix`, then `fill` up to `total` bytes in all.
    Sized {
        prefix: Vec<u8>,
        fill: u8,
        total: u64,
    },
}

/// A response: status, headers (framing headers included) and body; or raw bytes that are not
/// HTTP at all.
enum Reply {
    Http {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Body,
        close: bool,
    },
    Raw(Vec<u8>),
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        307 => "Temporary Redirect",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        500 => "Internal Server Error",
        _ => "Unknown",
    }
}

/// An answer with a known body and `headers` before the `Content-Length` added here; for `HEAD`
/// the body is dropped but its length kept.
fn sized(
    status: u16,
    mut headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    head: bool,
) -> Reply {
    headers.push(("Content-Length", body.len().to_string()));
    Reply::Http {
        status,
        headers,
        body: if head { Body::None } else { Body::Bytes(body) },
        close: false,
    }
}

/// A JSON answer with a known body.
fn json(status: u16, body: Vec<u8>, head: bool) -> Reply {
    sized(
        status,
        vec![("Content-Type", "application/json".to_string())],
        body,
        head,
    )
}

/// A registry error (`{"errors":[{"code":..,"message":..}]}`), after `headers`.
fn error_with(
    status: u16,
    code: &str,
    message: &str,
    head: bool,
    mut headers: Vec<(&'static str, String)>,
) -> Reply {
    let body = format!(r#"{{"errors":[{{"code":"{code}","message":"{message}"}}]}}"#);
    headers.push(("Content-Type", "application/json".to_string()));
    sized(status, headers, body.into_bytes(), head)
}

fn error(status: u16, code: &str, message: &str, head: bool) -> Reply {
    error_with(status, code, message, head, Vec::new())
}

/// What a `/v2/` path names.
enum Route<'a> {
    Root,
    Manifest { name: &'a str, reference: &'a str },
    Blob { name: &'a str, digest: &'a str },
    Token,
    Other,
}

fn route(path: &str) -> Route<'_> {
    if path == "/v2/" || path == "/v2" {
        return Route::Root;
    }
    if path == "/token" {
        return Route::Token;
    }
    let Some(rest) = path.strip_prefix("/v2/") else {
        return Route::Other;
    };
    if let Some(at) = rest.rfind("/manifests/") {
        let reference = &rest[at + "/manifests/".len()..];
        if !reference.is_empty() && !reference.contains('/') {
            return Route::Manifest {
                name: &rest[..at],
                reference,
            };
        }
    }
    if let Some(at) = rest.rfind("/blobs/") {
        let digest = &rest[at + "/blobs/".len()..];
        if !digest.is_empty() && !digest.contains('/') {
            return Route::Blob {
                name: &rest[..at],
                digest,
            };
        }
    }
    Route::Other
}

/// One connection: its stream, where it came in, and what was written on it.
struct Conn {
    stream: TcpStream,
    listener: usize,
    shared: Arc<Shared>,
    started: Instant,
    /// Bytes written on this connection.
    sent: u64,
    /// Bytes read but not yet parsed (a pipelined next request).
    pending: Vec<u8>,
    /// Write one byte per this interval (Slowloris on a matching route).
    slow: Option<Duration>,
    /// Write the body (not the headers) one byte per this interval (SlowBody on a blob).
    slow_body: Option<Duration>,
}

fn serve_connection(stream: TcpStream, listener: usize, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    limit_send_buffer(&stream);
    let _ = stream.set_read_timeout(Some(POLL));
    let _ = stream.set_write_timeout(Some(POLL));
    let mut conn = Conn {
        stream,
        listener,
        shared,
        started: Instant::now(),
        sent: 0,
        pending: Vec::new(),
        slow: None,
        slow_body: None,
    };
    while let Some(request) = conn.read_request() {
        conn.shared
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Request {
                method: request.method.clone(),
                path: request.path.clone(),
                authorization: request.header("authorization").is_some(),
                listener,
                query: request.query.clone(),
            });
        let reply = conn.answer(&request);
        conn.slow = match &conn.shared.attack {
            Attack::Slowloris {
                route: wanted,
                interval,
            } if listener == 0 => {
                let is_layer = |d: &str| conn.shared.served.layers.iter().any(|(l, _)| l == d);
                let hit = match (*wanted, route(&request.path)) {
                    ("any", _)
                    | ("manifest", Route::Manifest { .. })
                    | ("blob", Route::Blob { .. }) => true,
                    ("layer", Route::Blob { digest, .. }) => is_layer(digest),
                    _ => false,
                };
                hit.then_some(*interval)
            }
            _ => None,
        };
        conn.slow_body = match &conn.shared.attack {
            Attack::SlowBody { interval } | Attack::ChunkedTrickle { interval }
                if listener == 0 =>
            {
                match route(&request.path) {
                    Route::Blob { digest, .. }
                        if conn.shared.served.layers.iter().any(|(d, _)| d == digest) =>
                    {
                        Some(*interval)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match conn.send_reply(reply, request.close, request.method == "HEAD") {
            Ok(true) => continue,
            _ => break,
        }
    }
    // Close our side cleanly so what was written is not cut off by a reset.
    let _ = conn.stream.shutdown(Shutdown::Write);
}

impl Conn {
    /// Err once the server is stopping or this connection is over its caps.
    fn check(&self) -> io::Result<()> {
        if self.shared.stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("hostile registry stopped"));
        }
        if self.started.elapsed() > CONNECTION_TIME_CAP || self.sent >= CONNECTION_BYTE_CAP {
            return Err(io::Error::other("connection cap reached"));
        }
        Ok(())
    }

    /// Reads the next request head (and throws away any body). None when the client closed, the
    /// connection idled out, or the request was unreadable.
    fn read_request(&mut self) -> Option<Incoming> {
        let idle_since = Instant::now();
        let head_end = loop {
            if let Some(at) = find(&self.pending, b"\r\n\r\n") {
                break at;
            }
            if self.pending.len() > MAX_HEAD
                || self.check().is_err()
                || idle_since.elapsed() > IDLE_LIMIT
            {
                return None;
            }
            let mut buf = [0u8; 4096];
            match self.stream.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e) if is_timeout(&e) => continue,
                Err(_) => return None,
            }
        };
        let head = String::from_utf8_lossy(&self.pending[..head_end]).into_owned();
        self.pending.drain(..head_end + 4);
        let mut lines = head.split("\r\n");
        let mut first = lines.next()?.split_whitespace();
        let method = first.next()?.to_string();
        let target = first.next()?.to_string();
        let version = first.next().unwrap_or("HTTP/1.0").to_string();
        let headers: Vec<(String, String)> = lines
            .filter_map(|line| {
                let (name, value) = line.split_once(':')?;
                Some((name.trim().to_string(), value.trim().to_string()))
            })
            .collect();
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_string(), q.to_string()),
            None => (target.clone(), String::new()),
        };
        let mut request = Incoming {
            method,
            path,
            query,
            headers,
            close: false,
        };
        let connection = request
            .header("connection")
            .unwrap_or("")
            .to_ascii_lowercase();
        request.close = connection.contains("close")
            || (version == "HTTP/1.0" && !connection.contains("keep-alive"));
        // Skip a request body; a chunked one is not expected from a pulling client.
        if request.header("transfer-encoding").is_some() {
            request.close = true;
        }
        let mut body = request
            .header("content-length")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        if body > MAX_REQUEST_BODY {
            return None;
        }
        let buffered = (body as usize).min(self.pending.len());
        self.pending.drain(..buffered);
        body -= buffered as u64;
        while body > 0 {
            self.check().ok()?;
            let mut buf = [0u8; 4096];
            let want = (body as usize).min(buf.len());
            match self.stream.read(&mut buf[..want]) {
                Ok(0) => return None,
                Ok(n) => body -= n as u64,
                Err(e) if is_timeout(&e) => continue,
                Err(_) => return None,
            }
        }
        Some(request)
    }

    /// Decides the answer to `request` under the attack.
    fn answer(&self, request: &Incoming) -> Reply {
        let shared = &*self.shared;
        let head = request.method == "HEAD";
        let main = self.listener == 0;
        // Attacks on every request of the main listener.
        if main {
            match &shared.attack {
                Attack::Malformed => {
                    let turn = shared.turns.fetch_add(1, Ordering::SeqCst);
                    return Reply::Raw(if turn.is_multiple_of(2) {
                        b"SSH-2.0-OpenSSH_9.6\r\n".to_vec()
                    } else {
                        b"HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\n{}".to_vec()
                    });
                }
                Attack::RedirectTo(location)
                    if matches!(route(&request.path), Route::Manifest { .. }) =>
                {
                    return Reply::Http {
                        status: 307,
                        headers: vec![
                            ("Location", location.clone()),
                            ("Content-Length", "0".into()),
                        ],
                        body: Body::None,
                        close: false,
                    };
                }
                Attack::RealmAt(realm)
                    if matches!(route(&request.path), Route::Manifest { .. }) =>
                {
                    let challenge = format!("Bearer realm=\"{realm}\",service=\"{SERVICE}\"");
                    return error_with(
                        401,
                        "UNAUTHORIZED",
                        "authentication required",
                        head,
                        vec![("WWW-Authenticate", challenge)],
                    );
                }
                Attack::RedirectLoop => {
                    let location = if request.query.split('&').any(|p| p == "hop") {
                        format!("http://{}{}", shared.main, request.path)
                    } else {
                        format!("http://{}{}?hop", shared.main, request.path)
                    };
                    return Reply::Http {
                        status: 307,
                        headers: vec![("Location", location), ("Content-Length", "0".into())],
                        body: Body::None,
                        close: false,
                    };
                }
                _ => {}
            }
        }
        if request.method != "GET" && !head {
            return error(405, "UNSUPPORTED", "method not allowed", false);
        }
        let needs_auth = main
            && matches!(
                shared.attack,
                Attack::EndlessTokenBody | Attack::CrossHostRedirect
            );
        let path_route = route(&request.path);
        if let Route::Token = path_route {
            return self.token(head);
        }
        if needs_auth && !authorized(request) {
            let scope = match &path_route {
                Route::Manifest { name, .. } | Route::Blob { name, .. } => {
                    format!(",scope=\"repository:{name}:pull\"")
                }
                _ => String::new(),
            };
            let challenge = format!(
                "Bearer realm=\"http://{}/token\",service=\"{SERVICE}\"{scope}",
                shared.main
            );
            let headers = vec![("WWW-Authenticate", challenge)];
            return error_with(
                401,
                "UNAUTHORIZED",
                "authentication required",
                head,
                headers,
            );
        }
        match path_route {
            Route::Root => json(200, b"{}".to_vec(), head),
            Route::Manifest { name, reference } => {
                if name != shared.repo {
                    return error(
                        404,
                        "NAME_UNKNOWN",
                        "repository name not known to registry",
                        head,
                    );
                }
                self.manifest(reference, head)
            }
            Route::Blob { name, digest } => {
                if name != shared.repo {
                    return error(
                        404,
                        "NAME_UNKNOWN",
                        "repository name not known to registry",
                        head,
                    );
                }
                self.blob(&request.path, &request.query, digest, head)
            }
            Route::Token | Route::Other => error(404, "NOT_FOUND", "not found", head),
        }
    }

    fn token(&self, head: bool) -> Reply {
        match (&self.shared.attack, self.listener) {
            (Attack::EndlessTokenBody, 0) => Reply::Http {
                status: 200,
                headers: vec![("Content-Type", "application/json".into())],
                body: if head {
                    Body::None
                } else {
                    Body::Endless {
                        prefix: br#"{"token":""#.to_vec(),
                        fill: b'x',
                    }
                },
                close: true,
            },
            (Attack::CrossHostRedirect, 0) => {
                let body = format!(
                    r#"{{"token":"{TOKEN}","access_token":"{TOKEN}","expires_in":300,"issued_at":"2024-01-01T00:00:00Z"}}"#
                );
                json(200, body.into_bytes(), head)
            }
            _ => error(404, "NOT_FOUND", "no token service here", head),
        }
    }

    fn manifest(&self, reference: &str, head: bool) -> Reply {
        let shared = &*self.shared;
        let served = &shared.served;
        let main = self.listener == 0;
        if main && matches!(shared.attack, Attack::EndlessErrorBody) {
            // The body is sent after a HEAD answer too (see the attack's documentation).
            return Reply::Http {
                status: 500,
                headers: vec![
                    ("Content-Type", "application/json".into()),
                    ("Transfer-Encoding", "chunked".into()),
                ],
                body: Body::EndlessChunked {
                    prefix: br#"{"errors":[{"code":"UNKNOWN","message":""#.to_vec(),
                    fill: b'x',
                },
                close: true,
            };
        }
        if reference != shared.tag && reference != served.manifest_digest {
            return error(404, "MANIFEST_UNKNOWN", "manifest unknown", head);
        }
        let mut headers = vec![
            ("Content-Type", MANIFEST_MEDIA_TYPE.to_string()),
            ("Docker-Content-Digest", served.manifest_digest.clone()),
        ];
        if head {
            headers.push(("Content-Length", served.head_length.to_string()));
            return Reply::Http {
                status: 200,
                headers,
                body: Body::None,
                close: false,
            };
        }
        let endless_prefix = format!(
            r#"{{"schemaVersion":2,"mediaType":"{MANIFEST_MEDIA_TYPE}","annotations":{{"a":""#
        )
        .into_bytes();
        match (&shared.attack, main) {
            (Attack::EndlessManifest, true) => Reply::Http {
                status: 200,
                headers,
                body: Body::Endless {
                    prefix: endless_prefix,
                    fill: b'x',
                },
                close: true,
            },
            (Attack::HugeManifest, true) => {
                headers.push(("Content-Length", HUGE_SIZE.to_string()));
                Reply::Http {
                    status: 200,
                    headers,
                    body: Body::Sized {
                        prefix: endless_prefix,
                        fill: b'x',
                        total: HUGE_SIZE,
                    },
                    close: true,
                }
            }
            _ => {
                headers.push(("Content-Length", served.manifest.len().to_string()));
                Reply::Http {
                    status: 200,
                    headers,
                    body: Body::Bytes(served.manifest.clone()),
                    close: false,
                }
            }
        }
    }

    fn blob(&self, path: &str, query: &str, digest: &str, head: bool) -> Reply {
        let shared = &*self.shared;
        let served = &shared.served;
        let main = self.listener == 0;
        if main
            && let (Attack::CrossHostRedirect, Some(port)) = (&shared.attack, shared.second_port)
        {
            return Reply::Http {
                status: 307,
                headers: vec![
                    ("Location", format!("http://localhost:{port}{path}")),
                    ("Content-Length", "0".into()),
                ],
                body: Body::None,
                close: false,
            };
        }
        let attack = if main { &shared.attack } else { &Attack::None };
        let mut headers = vec![
            ("Content-Type", "application/octet-stream".to_string()),
            ("Docker-Content-Digest", digest.to_string()),
        ];
        if digest == served.config_digest {
            if let Attack::HugeConfig = attack {
                headers.push(("Content-Length", HUGE_SIZE.to_string()));
                let body = if head {
                    Body::None
                } else {
                    Body::Sized {
                        prefix: served.config.clone(),
                        fill: b' ',
                        total: HUGE_SIZE,
                    }
                };
                return Reply::Http {
                    status: 200,
                    headers,
                    body,
                    close: true,
                };
            }
            return sized(200, headers, served.config.clone(), head);
        }
        let Some((_, layer)) = served.layers.iter().find(|(d, _)| d == digest) else {
            return error(404, "BLOB_UNKNOWN", "blob unknown to registry", head);
        };
        match attack {
            Attack::ChunkedTrickle { .. } if !head => {
                headers.push(("Transfer-Encoding", "chunked".into()));
                Reply::Http {
                    status: 200,
                    headers,
                    body: Body::Endless {
                        prefix: b"1;".to_vec(),
                        fill: b'x',
                    },
                    close: true,
                }
            }
            Attack::RedirectWithBody if !head && !query.split('&').any(|p| p == "moved") => {
                Reply::Http {
                    status: 307,
                    headers: vec![
                        ("Location", format!("{}?moved", path)),
                        ("Content-Length", HUGE_SIZE.to_string()),
                    ],
                    body: Body::Sized {
                        prefix: Vec::new(),
                        fill: b'r',
                        total: HUGE_SIZE,
                    },
                    close: true,
                }
            }
            Attack::EndlessLayer if !head => Reply::Http {
                status: 200,
                headers,
                body: Body::Endless {
                    prefix: layer.clone(),
                    fill: 0,
                },
                close: true,
            },
            Attack::LayerLongerThanDeclared { extra } => {
                let mut longer = layer.clone();
                longer.resize(layer.len() + extra, 0);
                sized(200, headers, longer, head)
            }
            Attack::WrongBlobDigest => sized(200, headers, flip_one_byte(layer), head),
            _ => sized(200, headers, layer.clone(), head),
        }
    }

    /// Writes `reply`. Ok(true) when the connection may serve another request.
    fn send_reply(&mut self, reply: Reply, client_close: bool, head: bool) -> io::Result<bool> {
        let (status, headers, body, close) = match reply {
            Reply::Raw(bytes) => {
                self.send(&bytes)?;
                return Ok(false);
            }
            Reply::Http {
                status,
                headers,
                body,
                close,
            } => (status, headers, body, close),
        };
        let close = close || client_close;
        let mut text = format!("HTTP/1.1 {status} {}\r\n", reason(status));
        text.push_str("Docker-Distribution-API-Version: registry/2.0\r\n");
        for (name, value) in &headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        if close {
            text.push_str("Connection: close\r\n");
        }
        text.push_str("\r\n");
        self.send(text.as_bytes())?;
        if self.slow_body.is_some() {
            self.slow = self.slow_body;
        }
        let fill_chunk = |fill: u8| vec![fill; FILL_CHUNK];
        match body {
            Body::None => {}
            Body::Bytes(bytes) => {
                if !head {
                    self.send(&bytes)?;
                }
            }
            Body::Endless { prefix, fill } => {
                self.send(&prefix)?;
                let chunk = fill_chunk(fill);
                loop {
                    self.send(&chunk)?;
                }
            }
            Body::EndlessChunked { prefix, fill } => {
                self.send(format!("{:x}\r\n", prefix.len()).as_bytes())?;
                self.send(&prefix)?;
                self.send(b"\r\n")?;
                let mut chunk = format!("{:x}\r\n", FILL_CHUNK).into_bytes();
                chunk.extend_from_slice(&fill_chunk(fill));
                chunk.extend_from_slice(b"\r\n");
                loop {
                    self.send(&chunk)?;
                }
            }
            Body::Sized {
                prefix,
                fill,
                total,
            } => {
                let first = (prefix.len() as u64).min(total) as usize;
                self.send(&prefix[..first])?;
                let mut left = total - first as u64;
                let chunk = fill_chunk(fill);
                while left > 0 {
                    let n = (chunk.len() as u64).min(left) as usize;
                    self.send(&chunk[..n])?;
                    left -= n as u64;
                }
            }
        }
        Ok(!close)
    }

    /// Writes `data`: all of it, or one byte per interval under Slowloris.
    fn send(&mut self, data: &[u8]) -> io::Result<()> {
        match self.slow {
            Some(interval) => {
                for byte in data {
                    self.pause(interval)?;
                    self.write_all_checked(std::slice::from_ref(byte))?;
                }
                Ok(())
            }
            None => self.write_all_checked(data),
        }
    }

    /// Sleeps `interval` in short steps, giving up when the server stops or a cap is hit.
    fn pause(&self, interval: Duration) -> io::Result<()> {
        let until = Instant::now() + interval;
        loop {
            self.check()?;
            let now = Instant::now();
            if now >= until {
                return Ok(());
            }
            thread::sleep((until - now).min(POLL));
        }
    }

    /// `write_all` that counts what was written and, while the client is not reading, keeps
    /// looking at the stop flag and the caps instead of blocking for good.
    fn write_all_checked(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            self.check()?;
            match self.stream.write(data) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.sent += n as u64;
                    self.shared.sent.fetch_add(n as u64, Ordering::Relaxed);
                    data = &data[n..];
                }
                Err(e) if is_timeout(&e) || e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Whether the request carries the token this server hands out.
fn authorized(request: &Incoming) -> bool {
    request.header("authorization").is_some_and(|value| {
        value.split_once(' ').is_some_and(|(scheme, token)| {
            scheme.eq_ignore_ascii_case("bearer") && token.trim() == TOKEN
        })
    })
}

/// `blob` with one byte changed: for gzip, a byte of the header's modification time (the
/// decompressed content stays the same); otherwise the middle byte.
fn flip_one_byte(blob: &[u8]) -> Vec<u8> {
    let mut out = blob.to_vec();
    if out.len() >= 18 && out[0] == 0x1f && out[1] == 0x8b {
        out[4] ^= 0x01;
    } else if !out.is_empty() {
        let mid = out.len() / 2;
        out[mid] ^= 0xff;
    }
    out
}

/// Keeps the kernel's send buffer of a connection small, so that `bytes_sent` stays close to
/// what the client actually read (the client's own receive buffer is beyond our reach).
#[cfg(unix)]
fn limit_send_buffer(stream: &TcpStream) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = SEND_BUFFER;
    // SAFETY: the descriptor is open for the life of `stream`, and the option value is a c_int
    // whose size is passed along.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&size as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

#[cfg(not(unix))]
fn limit_send_buffer(_stream: &TcpStream) {}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}
