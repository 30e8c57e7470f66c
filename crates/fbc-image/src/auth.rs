//! Registry credentials from the files container tools write (`podman login`, `skopeo login`,
//! `docker login`), looked up in the order containers/image uses: `$REGISTRY_AUTH_FILE`,
//! `${XDG_RUNTIME_DIR}/containers/auth.json`, `~/.config/containers/auth.json`, then
//! `$DOCKER_CONFIG/config.json` or `~/.docker/config.json`. The first file with an entry for the
//! registry (or for the repository, the most specific key first) wins. Entries hold
//! `auth: base64(user:password)` or `username`/`password`.

use std::path::PathBuf;

use base64::Engine as _;
use serde_json::Value;
use thiserror::Error;

/// Credentials for one registry, and where they came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// `(user, password)`, or `None` for anonymous access.
    pub basic: Option<(String, String)>,
    /// The file the credentials came from.
    pub from: Option<PathBuf>,
    /// Every file looked at, in order, and whether it exists.
    pub looked_at: Vec<(PathBuf, bool)>,
    /// Entries that were found but could not be used, and why.
    pub problems: Vec<String>,
}

impl Credentials {
    /// "the credentials from FILE" or "no credentials (looked in A, B (absent), …)", for messages.
    pub fn describe(&self) -> String {
        match &self.from {
            Some(f) => format!("refused the credentials for it in {}", f.display()),
            None => {
                let files: Vec<String> = self
                    .looked_at
                    .iter()
                    .map(|(p, exists)| {
                        if *exists {
                            p.display().to_string()
                        } else {
                            format!("{} (absent)", p.display())
                        }
                    })
                    .collect();
                let mut s = format!(
                    "requires credentials, and none were found for it in {}; log in with `podman login`, `skopeo login` or `docker login`, or set REGISTRY_AUTH_FILE",
                    if files.is_empty() {
                        "no file (no HOME)".into()
                    } else {
                        files.join(", ")
                    }
                );
                for p in &self.problems {
                    s.push_str("; ");
                    s.push_str(p);
                }
                s
            }
        }
    }
}

/// The auth files to read, in order.
pub fn files() -> Vec<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let mut out = Vec::new();
    if let Some(f) = env("REGISTRY_AUTH_FILE") {
        out.push(PathBuf::from(f));
    }
    if let Some(d) = env("XDG_RUNTIME_DIR") {
        out.push(PathBuf::from(d).join("containers/auth.json"));
    }
    let home = env("HOME").map(PathBuf::from);
    if let Some(h) = &home {
        out.push(h.join(".config/containers/auth.json"));
    }
    match env("DOCKER_CONFIG") {
        Some(d) => out.push(PathBuf::from(d).join("config.json")),
        None => {
            if let Some(h) = &home {
                out.push(h.join(".docker/config.json"));
            }
        }
    }
    out
}

/// The keys an `auths` entry may have for `registry` and `repository`, most specific first.
fn keys(registry: &str, repository: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = format!("{registry}/{repository}");
    loop {
        out.push(path.clone());
        match path.rsplit_once('/') {
            Some((head, _)) => path = head.to_string(),
            None => break,
        }
    }
    if registry == "docker.io" || registry == "index.docker.io" {
        out.push("index.docker.io".into());
        out.push("docker.io".into());
    }
    out
}

/// An `auths` key without scheme and API suffix (`https://index.docker.io/v1/` → `index.docker.io`).
fn normalise(key: &str) -> String {
    let k = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    let k = k.trim_end_matches('/');
    k.strip_suffix("/v1")
        .or_else(|| k.strip_suffix("/v2"))
        .unwrap_or(k)
        .to_string()
}

/// Why an entry of a credentials file cannot be used.
#[derive(Debug, Error)]
enum EntryError {
    #[error("its \"auth\" is not base64: {0}")]
    NotBase64(base64::DecodeError),
    #[error("its \"auth\" is not UTF-8")]
    NotUtf8,
    #[error("its \"auth\" is not user:password")]
    NotUserPassword,
    #[error("it holds only an identity token, which fbc-edit cannot use")]
    OnlyIdentityToken,
}

fn decode(entry: &Value) -> Result<Option<(String, String)>, EntryError> {
    if let Some(auth) = entry
        .get("auth")
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty())
    {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(auth.trim())
            .map_err(EntryError::NotBase64)?;
        let text = String::from_utf8(bytes).map_err(|_| EntryError::NotUtf8)?;
        let (user, password) = text.split_once(':').ok_or(EntryError::NotUserPassword)?;
        return Ok(Some((user.to_string(), password.to_string())));
    }
    match (
        entry.get("username").and_then(Value::as_str),
        entry.get("password").and_then(Value::as_str),
    ) {
        (Some(u), Some(p)) => Ok(Some((u.to_string(), p.to_string()))),
        _ if entry.get("identitytoken").is_some() => Err(EntryError::OnlyIdentityToken),
        _ => Ok(None),
    }
}

/// Credentials for `registry` (`host[:port]`) and `repository`.
pub fn lookup(registry: &str, repository: &str) -> Credentials {
    let wanted = keys(registry, repository);
    let mut found = Credentials::default();
    for file in files() {
        // A credentials file is read only when it is a regular file of at most 16 MiB.
        let text = fbc_core::guard::file::read_text_limited(&file, 16 << 20);
        found.looked_at.push((file.clone(), text.is_ok()));
        let text = match text {
            Ok(text) => text,
            Err(e) if e.is_not_found() => continue,
            Err(e) => {
                found.problems.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let Ok(doc) = serde_json::from_str::<Value>(&text) else {
            found
                .problems
                .push(format!("{} is not valid JSON", file.display()));
            continue;
        };
        let Some(auths) = doc.get("auths").and_then(Value::as_object) else {
            continue;
        };
        for key in &wanted {
            let Some((_, entry)) = auths.iter().find(|(k, _)| normalise(k) == *key) else {
                continue;
            };
            match decode(entry) {
                Ok(Some(basic)) => {
                    found.basic = Some(basic);
                    found.from = Some(file);
                    return found;
                }
                Ok(None) => {}
                Err(why) => found.problems.push(format!(
                    "the entry for {key} in {} is unusable: {why}",
                    file.display()
                )),
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_go_from_the_repository_to_the_registry() {
        assert_eq!(
            keys("quay.io", "org/cat"),
            ["quay.io/org/cat", "quay.io/org", "quay.io"]
        );
        assert_eq!(normalise("https://index.docker.io/v1/"), "index.docker.io");
        assert_eq!(normalise("127.0.0.1:5000"), "127.0.0.1:5000");
    }

    #[test]
    fn entries_decode_from_auth_or_username_and_password() {
        let e = serde_json::json!({"auth": "dXNlcjpwYTpzcw=="});
        assert_eq!(decode(&e).unwrap(), Some(("user".into(), "pa:ss".into())));
        let e = serde_json::json!({"username": "u", "password": "p"});
        assert_eq!(decode(&e).unwrap(), Some(("u".into(), "p".into())));
        assert!(decode(&serde_json::json!({"auth": "!!"})).is_err());
        assert!(decode(&serde_json::json!({"identitytoken": "t"})).is_err());
        assert_eq!(decode(&serde_json::json!({})).unwrap(), None);
    }
}
