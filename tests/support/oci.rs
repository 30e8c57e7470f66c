//! Test support for images: OCI image layouts built from directories (tar + gzip + sha256, entries
//! in a fixed order with fixed times, so the same input gives the same digests), a CNCF distribution
//! registry (`docker-registry`) on a free loopback port, and `skopeo` to copy images between them.
//! `.ci/test-setup` installs both programs; a test that cannot run them fails.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const OCI_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
pub const OCI_LAYER_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";

/// One entry of a layer: a file with its content, a directory, or a whiteout (an empty file).
pub enum Item {
    File(String, Vec<u8>),
    Dir(String),
}

/// Every file and directory below `src`, placed under `under` in the image (sorted).
pub fn items_from_dir(src: &Path, under: &str) -> Vec<Item> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<Item>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = format!("{rel}/{}", e.file_name().to_string_lossy());
            if e.file_type().unwrap().is_dir() {
                out.push(Item::Dir(name.clone()));
                walk(&e.path(), &name, out);
            } else {
                out.push(Item::File(name, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    let mut out = vec![Item::Dir(under.to_string())];
    walk(src, under, &mut out);
    out
}

/// A tar of `items`.
pub fn tar(items: &[Item]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for item in items {
        let mut h = tar::Header::new_gnu();
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        match item {
            Item::File(path, data) => {
                h.set_entry_type(tar::EntryType::Regular);
                h.set_mode(0o644);
                h.set_size(data.len() as u64);
                b.append_data(&mut h, path, &data[..]).unwrap();
            }
            Item::Dir(path) => {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_mode(0o755);
                h.set_size(0);
                b.append_data(&mut h, format!("{path}/"), &b""[..]).unwrap();
            }
        }
    }
    b.into_inner().unwrap()
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn sha256(data: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(data))
}

/// An OCI image layout being written.
pub struct Layout {
    pub dir: PathBuf,
    tags: Vec<Value>,
}

impl Layout {
    pub fn new(dir: &Path) -> Layout {
        std::fs::create_dir_all(dir.join("blobs/sha256")).unwrap();
        std::fs::write(dir.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#).unwrap();
        let l = Layout {
            dir: dir.to_path_buf(),
            tags: Vec::new(),
        };
        l.write_index();
        l
    }

    /// Stores a blob; returns its descriptor.
    pub fn blob(&self, media_type: &str, data: &[u8]) -> Value {
        let digest = sha256(data);
        let hex = digest.trim_start_matches("sha256:");
        std::fs::write(self.dir.join("blobs/sha256").join(hex), data).unwrap();
        json!({"mediaType": media_type, "digest": digest, "size": data.len()})
    }

    /// Stores an image (config with `labels`, gzip-compressed `layers` given as plain tars); returns
    /// its manifest descriptor.
    pub fn image(&self, labels: &[(&str, &str)], layers: &[Vec<u8>], arch: &str) -> Value {
        let diff_ids: Vec<String> = layers.iter().map(|l| sha256(l)).collect();
        let labels: serde_json::Map<String, Value> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), Value::from(*v)))
            .collect();
        let config = json!({
            "architecture": arch,
            "os": "linux",
            "config": {"Labels": labels},
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
        });
        let config = self.blob(OCI_CONFIG, config.to_string().as_bytes());
        let layers: Vec<Value> = layers
            .iter()
            .map(|l| self.blob(OCI_LAYER_GZIP, &gzip(l)))
            .collect();
        let manifest = json!({
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": config,
            "layers": layers,
        });
        let mut d = self.blob(OCI_MANIFEST, manifest.to_string().as_bytes());
        d["platform"] = json!({"os": "linux", "architecture": arch});
        d
    }

    /// Stores an image index of `manifests` (descriptors with their platform).
    pub fn index(&self, manifests: &[Value]) -> Value {
        let index = json!({
            "schemaVersion": 2,
            "mediaType": OCI_INDEX,
            "manifests": manifests,
        });
        self.blob(OCI_INDEX, index.to_string().as_bytes())
    }

    /// Names a manifest (or index) in `index.json`.
    pub fn tag(&mut self, descriptor: &Value, name: &str) {
        let mut d = descriptor.clone();
        if let Some(o) = d.as_object_mut() {
            o.remove("platform");
        }
        d["annotations"] = json!({"org.opencontainers.image.ref.name": name});
        self.tags.push(d);
        self.write_index();
    }

    fn write_index(&self) {
        let index = json!({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": self.tags});
        std::fs::write(self.dir.join("index.json"), index.to_string()).unwrap();
    }
}

/// Runs `skopeo copy` with `args` (failing the test when it fails).
pub fn skopeo_copy(args: &[&str]) {
    let out = Command::new("skopeo")
        .arg("--insecure-policy")
        .arg("copy")
        .arg("--quiet")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run skopeo ({e}); .ci/test-setup installs it"));
    assert!(
        out.status.success(),
        "skopeo copy {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CNCF distribution registry on a free loopback port, stopped when dropped.
pub struct Registry {
    pub addr: String,
    child: Option<Child>,
    root: tempfile::TempDir,
    /// The `auth:` section of the registry's configuration (empty: anonymous).
    auth: String,
    tls: bool,
}

impl Registry {
    /// Starts a registry; with `htpasswd`, it asks for HTTP basic auth.
    pub fn start(htpasswd: Option<&Path>) -> Registry {
        let auth = htpasswd.map_or_else(String::new, |p| {
            format!(
                "auth:\n  htpasswd:\n    realm: fbc-edit-test\n    path: {}\n",
                p.display()
            )
        });
        Registry::start_with(auth, false)
    }

    /// Starts a registry that wants bearer tokens from `realm` (a token server for `service`,
    /// signing as `issuer` with the key of the certificate `cert`).
    pub fn start_token(realm: &str, service: &str, issuer: &str, cert: &Path) -> Registry {
        let auth = format!(
            "auth:\n  token:\n    realm: {realm}\n    service: {service}\n    issuer: {issuer}\n    rootcertbundle: {}\n",
            cert.display()
        );
        Registry::start_with(auth, false)
    }

    /// Starts a registry serving HTTPS with a self-signed certificate for 127.0.0.1 (made with the
    /// openssl command).
    pub fn start_tls() -> Registry {
        Registry::start_with(String::new(), true)
    }

    fn start_with(auth: String, tls: bool) -> Registry {
        let root = tempfile::tempdir().unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut r = Registry {
            addr: format!("127.0.0.1:{port}"),
            child: None,
            root,
            auth,
            tls,
        };
        if tls {
            let dir = r.root.path();
            let out = Command::new("openssl")
                .args([
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                ])
                .args([
                    "-subj",
                    "/CN=127.0.0.1",
                    "-addext",
                    "subjectAltName=IP:127.0.0.1",
                ])
                .arg("-keyout")
                .arg(dir.join("key.pem"))
                .arg("-out")
                .arg(dir.join("cert.pem"))
                .output()
                .unwrap_or_else(|e| panic!("cannot run openssl ({e}); .ci/test-setup installs it"));
            assert!(
                out.status.success(),
                "openssl: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        r.run();
        r
    }

    fn run(&mut self) {
        let auth = &self.auth;
        let tls = if self.tls {
            format!(
                "  tls:\n    certificate: {}\n    key: {}\n",
                self.root.path().join("cert.pem").display(),
                self.root.path().join("key.pem").display()
            )
        } else {
            String::new()
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: {}\n  secret: fbc-edit-test\n{tls}{auth}",
            self.root.path().join("data").display(),
            self.addr
        );
        let file = self.root.path().join("config.yml");
        std::fs::write(&file, config).unwrap();
        let log = std::fs::File::create(self.root.path().join("registry.log")).unwrap();
        let child = Command::new("docker-registry")
            .arg("serve")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run docker-registry ({e}); .ci/test-setup installs it")
            });
        self.child = Some(child);
        let start = Instant::now();
        loop {
            if let Ok(mut s) = TcpStream::connect(&self.addr) {
                let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
                if s.write_all(
                    format!("GET /v2/ HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).as_bytes(),
                )
                .is_ok()
                {
                    let mut buf = [0u8; 12];
                    if s.read_exact(&mut buf).is_ok() && buf.starts_with(b"HTTP/1.") {
                        return;
                    }
                }
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(|c| c.try_wait()) {
                panic!(
                    "docker-registry exited ({status}): {}",
                    std::fs::read_to_string(self.root.path().join("registry.log"))
                        .unwrap_or_default()
                );
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "docker-registry did not answer on {} within 20 s: {}",
                self.addr,
                std::fs::read_to_string(self.root.path().join("registry.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the registry (its storage stays, so it can be started again).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub fn restart(&mut self) {
        self.stop();
        self.run();
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}
