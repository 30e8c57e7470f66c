//! A registry token server for tests, as registries like quay.io and Docker Hub run one: it checks
//! HTTP basic credentials and answers with a JWT (ES256) granting the requested scope, signed with a
//! key whose self-signed certificate the registry trusts (`rootcertbundle`). The registry finds the
//! key by its `kid`, the libtrust key id of the certificate's public key. Anonymous requests get a
//! token granting nothing. The key is made with ring, its certificate with the openssl command.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use base64::Engine as _;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use sha2::{Digest as _, Sha256};

pub const SERVICE: &str = "fbc-edit-test";
pub const ISSUER: &str = "fbc-edit-test-issuer";

pub struct TokenServer {
    pub realm: String,
    pub cert: PathBuf,
    addr: String,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

fn openssl(args: &[&str], dir: &Path) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run openssl ({e}); .ci/test-setup installs it"));
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// libtrust's key id: the first 240 bits of the SHA-256 of the DER public key, base32, in groups of
/// four joined by `:`.
fn key_id(spki_der: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let digest = Sha256::digest(spki_der);
    let mut bits = 0u32;
    let mut n = 0;
    let mut b32 = String::new();
    for &byte in &digest[..30] {
        bits = (bits << 8) | u32::from(byte);
        n += 8;
        while n >= 5 {
            b32.push(ALPHABET[((bits >> (n - 5)) & 31) as usize] as char);
            n -= 5;
        }
    }
    b32.as_bytes()
        .chunks(4)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(":")
}

fn b64(data: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(data)
}

impl TokenServer {
    /// Starts a token server accepting `user`:`password`.
    pub fn start(user: &str, password: &str) -> TokenServer {
        let dir = tempfile::tempdir().unwrap();
        // ring makes the key; openssl makes the self-signed certificate for it.
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        std::fs::write(dir.path().join("key.der"), pkcs8.as_ref()).unwrap();
        openssl(
            &[
                "req",
                "-x509",
                "-new",
                "-key",
                "key.der",
                "-keyform",
                "DER",
                "-days",
                "2",
                "-subj",
                "/CN=fbc-edit-test-token",
                "-out",
                "cert.pem",
            ],
            dir.path(),
        );
        openssl(
            &[
                "pkey", "-in", "key.der", "-inform", "DER", "-pubout", "-outform", "DER", "-out",
                "pub.der",
            ],
            dir.path(),
        );
        let kid = key_id(&std::fs::read(dir.path().join("pub.der")).unwrap());
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let stop = Arc::new(AtomicBool::new(false));
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        );
        let user = user.to_string();
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(conn) = conn {
                        serve(conn, &key, &rng, &kid, &expected, &user);
                    }
                }
            })
        };
        TokenServer {
            realm: format!("http://{addr}/token"),
            cert: dir.path().join("cert.pem"),
            addr,
            stop,
            thread: Some(thread),
            _dir: dir,
        }
    }
}

fn serve(
    conn: TcpStream,
    key: &EcdsaKeyPair,
    rng: &ring::rand::SystemRandom,
    kid: &str,
    expected: &str,
    user: &str,
) {
    let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(5)));
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut authorization = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("authorization")
        {
            authorization = Some(v.trim().to_string());
        }
    }
    let (status, body) = match authorization.as_deref() {
        Some(a) if a == expected => {
            let target = request.split_whitespace().nth(1).unwrap_or_default();
            let scope = target
                .split_once('?')
                .map(|(_, q)| q)
                .unwrap_or_default()
                .split('&')
                .find_map(|kv| kv.strip_prefix("scope="))
                .unwrap_or_default()
                .replace("%3A", ":")
                .replace("%2C", ",")
                .replace("%2F", "/");
            let access: Vec<serde_json::Value> = scope
                .split_once(':')
                .and_then(|(kind, rest)| rest.rsplit_once(':').map(|(n, a)| (kind, n, a)))
                .map(|(kind, name, actions)| {
                    vec![serde_json::json!({
                        "type": kind, "name": name, "actions": actions.split(',').collect::<Vec<_>>()
                    })]
                })
                .unwrap_or_default();
            ("200 OK", token(key, rng, kid, user, &access))
        }
        Some(_) => (
            "401 Unauthorized",
            r#"{"details": "wrong credentials"}"#.to_string(),
        ),
        None => ("200 OK", token(key, rng, kid, "", &[])),
    };
    let mut conn = conn;
    let _ = write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn token(
    key: &EcdsaKeyPair,
    rng: &ring::rand::SystemRandom,
    kid: &str,
    user: &str,
    access: &[serde_json::Value],
) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let header = serde_json::json!({"typ": "JWT", "alg": "ES256", "kid": kid});
    let claims = serde_json::json!({
        "iss": ISSUER, "sub": user, "aud": SERVICE,
        "exp": now + 300, "nbf": now - 10, "iat": now - 10,
        "jti": format!("{now}-{user}"), "access": access,
    });
    let signing_input = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let signature = key.sign(rng, signing_input.as_bytes()).unwrap();
    let jwt = format!("{signing_input}.{}", b64(signature.as_ref()));
    serde_json::json!({"token": jwt, "access_token": jwt, "expires_in": 300}).to_string()
}

impl Drop for TokenServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(&self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
