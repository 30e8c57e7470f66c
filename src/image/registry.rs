//! Pulling from a registry over the OCI distribution API, with `ureq` (a small blocking HTTP/1.1
//! client on rustls). A registry's answers are untrusted input, so every one is bounded:
//!
//! - bodies: a manifest or index by `manifest-size`, a config by `config-size`, a token by
//!   `token-size`; of an error answer only `error-size` bytes are read;
//! - time: each request for a manifest, config or token by `request-time`, the whole pull by
//!   `pull-time`, and a transfer slower than `slow-speed` for `slow-time` is given up;
//! - redirects: at most `redirects`, and credentials are never sent to another host;
//! - content: a manifest is checked against the digest it was asked for (or the one the registry
//!   named for a tag), a config against its descriptor; layers are read up to their declared size
//!   and checked against their digest by the caller.
//!
//! Only a connection that could not be made (the name does not resolve, the connection is refused
//! or times out before any answer) counts as the registry being unreachable, which lets a cached
//! copy stand in; any answer that is wrong is an error.

use std::cell::RefCell;
use std::io::{self, Read};
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::{HeaderMap, StatusCode};
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
use ureq::{Agent, Body};

use super::auth::{self, Credentials};
use super::digest::Digest;
use super::error::ImageError;
use super::{Layer, Loaded, Options, pick_platform};
use crate::catalog::image_ref::ImageRef;
use crate::guard::limits::{Limit, Limits};

/// The manifest media types asked for, most wanted first.
const ACCEPT: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json";

pub(crate) struct Remote {
    agent: Agent,
    /// As the user wrote it.
    reference: String,
    /// `host[:port]` as written, and the host the API is asked at (Docker Hub's differs).
    registry: String,
    api_host: String,
    repository: String,
    tag: Option<String>,
    digest: Option<String>,
    scheme: &'static str,
    creds: Credentials,
    /// What to send with each request once a challenge asked for it.
    authorization: RefCell<Option<String>>,
    limits: Limits,
    /// When the pull must be over.
    deadline: Instant,
}

/// What a request is for: which budgets bound it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Manifest,
    Config,
    Token,
    /// A layer of the declared size.
    Layer(u64),
}

/// The scheme, host and port of a URL: where a request goes.
fn origin(url: &str) -> Option<(String, String, u16)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let port = uri
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Some((scheme, uri.host()?.to_ascii_lowercase(), port))
}

/// Where a redirect's `Location` leads from `from`: an absolute URL, or a path on the same origin.
fn redirected(from: &str, location: &str) -> Option<String> {
    if location.starts_with("https://") || location.starts_with("http://") {
        return Some(location.to_string());
    }
    let uri: ureq::http::Uri = from.parse().ok()?;
    let scheme = uri.scheme_str()?;
    if let Some(rest) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{rest}"));
    }
    let authority = uri.authority()?;
    if location.starts_with('/') {
        return Some(format!("{scheme}://{authority}{location}"));
    }
    let path = uri.path();
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    Some(format!("{scheme}://{authority}{dir}{location}"))
}

/// Credentials for one origin: sent to it and to nothing else.
struct Auth<'a> {
    origin: Option<(String, String, u16)>,
    header: &'a str,
}

/// A WWW-Authenticate challenge.
#[derive(Debug, Default, PartialEq, Eq)]
struct Challenge {
    scheme: String,
    params: Vec<(String, String)>,
}

impl Challenge {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `Scheme k="v", k2=v2` (the first challenge of the header).
fn parse_challenge(header: &str) -> Challenge {
    let header = header.trim();
    let (scheme, mut rest) = header.split_once(' ').unwrap_or((header, ""));
    let mut params = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        let Some(eq) = rest.find('=') else { break };
        let key = rest[..eq].trim().to_string();
        rest = &rest[eq + 1..];
        let value;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut v = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            v.push(n);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => v.push(c),
                }
            }
            value = v;
            rest = &quoted[end.min(quoted.len())..];
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_string();
            rest = &rest[end..];
        }
        params.push((key, value));
    }
    Challenge {
        scheme: scheme.to_ascii_lowercase(),
        params,
    }
}

/// The errors of a registry's error answer (`{"errors": [{"code", "message"}]}`).
fn error_codes(body: &[u8]) -> Vec<(String, String)> {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    v["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["code"].as_str().unwrap_or_default().to_string(),
                e["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// A header's value as text.
fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

impl Remote {
    pub fn new(reference: &str, name: &str, options: &Options) -> Result<Remote, ImageError> {
        let bad = |why: String| ImageError::BadReference {
            reference: reference.to_string(),
            why,
        };
        let parsed = ImageRef::parse(name).map_err(|e| bad(e.to_string()))?;
        let api_host = if parsed.domain == "docker.io" {
            "registry-1.docker.io".to_string()
        } else {
            parsed.domain.clone()
        };
        let limits = options.limits;
        let tls = TlsConfig::builder()
            .provider(TlsProvider::Rustls)
            .root_certs(RootCerts::PlatformVerifier)
            .disable_verification(options.insecure)
            .build();
        let agent: Agent = Agent::config_builder()
            .http_status_as_error(false)
            .tls_config(tls)
            // Redirects are followed here, not by ureq: it reads a redirect's body to its end,
            // which a registry can make endless, and only the first connection may count as
            // the registry being unreachable.
            .max_redirects(0)
            .max_redirects_will_error(false)
            .user_agent(concat!("fbc-edit/", env!("CARGO_PKG_VERSION")))
            .accept_encoding("identity")
            .max_response_header_size(64 * 1024)
            .timeout_connect(Some(Duration::from_secs(15)))
            .timeout_resolve(Some(Duration::from_secs(15)))
            .build()
            .into();
        let creds = auth::lookup(&parsed.domain, &parsed.path);
        Ok(Remote {
            agent,
            reference: reference.to_string(),
            registry: parsed.domain.clone(),
            api_host,
            repository: parsed.path.clone(),
            tag: parsed.tag.clone(),
            digest: parsed.digest.clone(),
            scheme: if options.plain_http { "http" } else { "https" },
            creds,
            authorization: RefCell::new(None),
            limits,
            deadline: Instant::now() + limits.time(Limit::PullTime),
        })
    }

    /// The digest the reference names, when it names one.
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// The key the reference is remembered under in the cache.
    pub fn key(&self) -> String {
        let mut k = format!("{}/{}", self.registry, self.repository);
        if let Some(t) = &self.tag {
            k.push(':');
            k.push_str(t);
        }
        if let Some(d) = &self.digest {
            k.push('@');
            k.push_str(d);
        }
        k
    }

    fn url(&self, kind: &str, what: &str) -> String {
        format!(
            "{}://{}/v2/{}/{kind}/{what}",
            self.scheme, self.api_host, self.repository
        )
    }

    /// The tag or digest to ask for.
    fn wanted(&self) -> &str {
        self.digest
            .as_deref()
            .or(self.tag.as_deref())
            .unwrap_or("latest")
    }

    fn shown_wanted(&self) -> String {
        match (&self.tag, &self.digest) {
            (_, Some(d)) => format!("{}@{d}", self.repository),
            (Some(t), None) => format!("{}:{t}", self.repository),
            (None, None) => format!("{}:latest", self.repository),
        }
    }

    /// How long a request for `purpose` may take from now, and the budget that sets it. A layer
    /// has what is left of the pull, but no more than it takes at `slow-speed` with `slow-time`
    /// to spare: a transfer held up below that speed (even in ways no read sees, such as chunk
    /// framing sent a byte at a time) ends at that time.
    fn time_for(&self, purpose: Purpose) -> (Duration, Limit) {
        let left = self.deadline.saturating_duration_since(Instant::now());
        let own = match purpose {
            Purpose::Layer(size) => {
                let slow = self.limits.time(Limit::SlowTime);
                match size.checked_div(self.limits.get(Limit::SlowSpeed)) {
                    Some(secs) => slow.saturating_add(Duration::from_secs(secs + 1)),
                    None => left,
                }
            }
            _ => self.limits.time(Limit::RequestTime),
        };
        match purpose {
            _ if left <= own => (left, Limit::PullTime),
            Purpose::Layer(_) => (own, Limit::SlowSpeed),
            _ => (own, Limit::RequestTime),
        }
    }

    /// The digest the reference names now (a HEAD request; a digest reference is checked too).
    pub fn resolve(&self) -> Result<String, ImageError> {
        let url = self.url("manifests", self.wanted());
        let mut resp = self.send("HEAD", &url, Purpose::Manifest)?;
        let status = resp.status();
        if status.is_success() {
            if let Some(d) = &self.digest {
                return Ok(d.clone());
            }
            if let Some(d) = header(resp.headers(), "docker-content-digest")
                .filter(|d| Digest::parse(d).is_some())
            {
                return Ok(d);
            }
            // No digest in the answer: read the manifest and take its digest.
            let mut resp = self.send("GET", &url, Purpose::Manifest)?;
            if !resp.status().is_success() {
                return Err(self.status_error(&mut resp, Purpose::Manifest));
            }
            let body = self.body(&mut resp, Purpose::Manifest)?;
            return Ok(Digest::sha256_of(&body));
        }
        Err(self.status_error(&mut resp, Purpose::Manifest))
    }

    /// The manifest (one platform's, for an index), the config and the layer list of `digest`,
    /// each checked against its digest.
    pub fn load(&self, digest: &str) -> Result<Loaded, ImageError> {
        let mut manifest = self.manifest(digest)?;
        if manifest.get("manifests").is_some() {
            let entries = manifest["manifests"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let chosen = pick_platform(&entries)
                .ok_or_else(|| self.invalid("the image index lists no manifests".into()))?;
            manifest = self.manifest(&chosen)?;
        }
        if manifest["schemaVersion"].as_u64() == Some(1) {
            return Err(self.invalid(
                "the registry has only a schema 1 manifest for it, which fbc-edit does not read"
                    .into(),
            ));
        }
        let config_desc = super::descriptor(&manifest["config"])
            .map_err(|why| self.invalid(format!("the manifest's config: {why}")))?;
        let limit = self.limits.get(Limit::ConfigSize);
        if config_desc.size > limit {
            return Err(self.invalid(self.limits.exceeded(
                Limit::ConfigSize,
                &format!("the image config is {} bytes", config_desc.size),
            )));
        }
        let config = self.blob_small(&config_desc.digest)?;
        let layers = super::layers_of(&manifest).map_err(|why| self.invalid(why))?;
        Ok(Loaded {
            digest: digest.to_string(),
            config,
            layers,
        })
    }

    /// The manifest with `digest`, checked.
    fn manifest(&self, digest: &str) -> Result<Value, ImageError> {
        let want = Digest::parse(digest)
            .ok_or_else(|| self.invalid(format!("unusable manifest digest {digest:?}")))?;
        let mut resp = self.send("GET", &self.url("manifests", digest), Purpose::Manifest)?;
        if !resp.status().is_success() {
            return Err(self.status_error(&mut resp, Purpose::Manifest));
        }
        let body = self.body(&mut resp, Purpose::Manifest)?;
        if !want.matches(&body) {
            return Err(self.invalid(format!(
                "the registry's manifest does not match its digest {digest} (it hashes to {})",
                Digest::sha256_of(&body)
            )));
        }
        serde_json::from_slice(&body)
            .map_err(|e| self.invalid(format!("the manifest {digest} is not JSON: {e}")))
    }

    /// A config blob, checked against its digest.
    fn blob_small(&self, digest: &str) -> Result<Vec<u8>, ImageError> {
        let want = Digest::parse(digest)
            .ok_or_else(|| self.invalid(format!("unusable config digest {digest:?}")))?;
        let mut resp = self.send("GET", &self.url("blobs", digest), Purpose::Config)?;
        if !resp.status().is_success() {
            return Err(self.status_error(&mut resp, Purpose::Config));
        }
        let body = self.body(&mut resp, Purpose::Config)?;
        if !want.matches(&body) {
            return Err(self.invalid(format!(
                "the image config does not match its digest {digest}"
            )));
        }
        Ok(body)
    }

    /// A reader over one layer blob; the caller reads it up to its declared size and checks its
    /// digest.
    pub fn open_layer(&self, layer: &Layer) -> Result<Box<dyn Read>, ImageError> {
        let purpose = Purpose::Layer(layer.size);
        let mut resp = self.send("GET", &self.url("blobs", &layer.digest), purpose)?;
        if !resp.status().is_success() {
            return Err(self.status_error(&mut resp, purpose));
        }
        let reader = resp.into_body().into_reader();
        Ok(Box::new(Paced::new(
            reader,
            &self.limits,
            self.time_for(purpose).1,
        )))
    }

    /// Reads a body within its purpose's budget.
    fn body(
        &self,
        resp: &mut ureq::http::Response<Body>,
        purpose: Purpose,
    ) -> Result<Vec<u8>, ImageError> {
        let (limit, what) = match purpose {
            Purpose::Manifest => (Limit::ManifestSize, "the manifest"),
            Purpose::Config => (Limit::ConfigSize, "the image config"),
            Purpose::Token | Purpose::Layer(_) => (Limit::TokenSize, "the token answer"),
        };
        let max = self.limits.get(limit);
        if let Some(len) = resp.body().content_length()
            && len > max
        {
            return Err(self.invalid(self.limits.exceeded(
                limit,
                &format!("{what} is {len} bytes, larger than allowed"),
            )));
        }
        let mut out = Vec::new();
        let read = resp
            .body_mut()
            .as_reader()
            .take(max + 1)
            .read_to_end(&mut out);
        match read {
            Ok(_) if out.len() as u64 > max => Err(self.invalid(
                self.limits
                    .exceeded(limit, &format!("{what} is larger than allowed")),
            )),
            Ok(_) => Ok(out),
            Err(e) => Err(self.body_error(e, purpose)),
        }
    }

    /// Sends a request to the registry, following redirects and answering an authentication
    /// challenge once.
    fn send(
        &self,
        method: &str,
        url: &str,
        purpose: Purpose,
    ) -> Result<ureq::http::Response<Body>, ImageError> {
        let resp = self.send_once(method, url, purpose)?;
        if resp.status() != StatusCode::UNAUTHORIZED {
            return Ok(resp);
        }
        let Some(challenge) =
            header(resp.headers(), "www-authenticate").map(|h| parse_challenge(&h))
        else {
            return Ok(resp);
        };
        let answered = match challenge.scheme.as_str() {
            "bearer" => self.token(&challenge)?.map(|t| format!("Bearer {t}")),
            "basic" => self.creds.basic.as_ref().map(|(u, p)| basic(u, p)),
            _ => None,
        };
        let Some(authorization) = answered else {
            return Ok(resp);
        };
        if self.authorization.borrow().as_deref() == Some(authorization.as_str()) {
            return Ok(resp);
        }
        self.authorization.replace(Some(authorization));
        self.send_once(method, url, purpose)
    }

    /// One request to the registry (and the redirects it answers with), with what a challenge
    /// asked for sent to the registry's own origin only.
    fn send_once(
        &self,
        method: &str,
        url: &str,
        purpose: Purpose,
    ) -> Result<ureq::http::Response<Body>, ImageError> {
        let authorization = self.authorization.borrow().clone();
        let auth = authorization.as_deref().map(|header| Auth {
            origin: origin(url),
            header,
        });
        self.follow(method, url, purpose, auth, true)
    }

    /// Sends `method` to `url` and follows the redirects it answers with, up to the `redirects`
    /// budget, dropping each redirect's body unread. `auth` goes only to its own origin. Only when
    /// `first_is_registry` can the first connection's failure count as the registry being
    /// unreachable; any failure after an answer (a redirect's target, say) is an error.
    fn follow(
        &self,
        method: &str,
        url: &str,
        purpose: Purpose,
        auth: Option<Auth<'_>>,
        first_is_registry: bool,
    ) -> Result<ureq::http::Response<Body>, ImageError> {
        let most = self.limits.get(Limit::Redirects);
        let mut url = url.to_string();
        let mut hops: u64 = 0;
        loop {
            let sent = auth
                .as_ref()
                .filter(|a| a.origin.is_some() && origin(&url) == a.origin)
                .map(|a| a.header);
            let resp =
                self.exchange(method, &url, purpose, sent, first_is_registry && hops == 0)?;
            let status = resp.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) {
                return Ok(resp);
            }
            let Some(next) = header(resp.headers(), "location").and_then(|l| redirected(&url, &l))
            else {
                return Ok(resp);
            };
            drop(resp);
            hops += 1;
            if hops > most {
                return Err(self.invalid(self.limits.exceeded(
                    Limit::Redirects,
                    &format!(
                        "the registry at {} redirected the request too many times",
                        self.api_host
                    ),
                )));
            }
            if url.starts_with("https://") && next.starts_with("http://") && self.scheme == "https"
            {
                return Err(self.invalid(format!(
                    "the registry at {} redirected a request from HTTPS to plain HTTP ({next}); refused",
                    self.api_host
                )));
            }
            url = next;
        }
    }

    /// One HTTP exchange, within its time budgets.
    fn exchange(
        &self,
        method: &str,
        url: &str,
        purpose: Purpose,
        authorization: Option<&str>,
        may_be_unreachable: bool,
    ) -> Result<ureq::http::Response<Body>, ImageError> {
        let (time, budget) = self.time_for(purpose);
        if time.is_zero() {
            return Err(self.invalid(
                self.limits
                    .exceeded(Limit::PullTime, "the pull took longer than allowed"),
            ));
        }
        let per_read = self.limits.time(Limit::SlowTime);
        let mut builder = ureq::http::Request::builder()
            .method(method)
            .uri(url)
            .header("Accept", ACCEPT);
        if let Some(a) = authorization {
            builder = builder.header("Authorization", a);
        }
        let request = builder
            .body(())
            .map_err(|e| self.invalid(format!("cannot make a request for {url}: {e}")))?;
        // The answer's headers come within a request's time, whatever the request is for.
        let headers_within = self.limits.time(Limit::RequestTime).min(time);
        let request = self
            .agent
            .configure_request(request)
            .timeout_global(Some(time))
            .timeout_recv_response(Some(headers_within))
            .timeout_per_read(Some(per_read))
            .build();
        self.agent.run(request).map_err(|e| {
            if may_be_unreachable {
                self.transport_error(e, budget)
            } else {
                self.answer_error(e, budget)
            }
        })
    }

    /// A token for the challenge's realm, service and scope (with the credentials, when there are
    /// any). `None` when the realm cannot be asked.
    fn token(&self, challenge: &Challenge) -> Result<Option<String>, ImageError> {
        let Some(realm) = challenge.param("realm") else {
            return Ok(None);
        };
        if !(realm.starts_with("https://") || realm.starts_with("http://")) {
            return Err(self.invalid(format!(
                "the registry names a token realm that is not a web address: {realm:?}"
            )));
        }
        let mut url = realm.to_string();
        let mut sep = if url.contains('?') { '&' } else { '?' };
        let scope = challenge
            .param("scope")
            .map(str::to_string)
            .unwrap_or_else(|| format!("repository:{}:pull", self.repository));
        for (k, v) in [
            ("service", challenge.param("service")),
            ("scope", Some(&scope)),
        ] {
            if let Some(v) = v {
                url.push(sep);
                url.push_str(k);
                url.push('=');
                url.push_str(&encode(v));
                sep = '&';
            }
        }
        let credentials = self.creds.basic.as_ref().map(|(u, p)| basic(u, p));
        if credentials.is_some() && self.scheme == "https" && url.starts_with("http://") {
            return Err(self.invalid(format!(
                "the registry names a token realm over plain HTTP ({realm}); its credentials are not sent there"
            )));
        }
        let auth = credentials.as_deref().map(|header| Auth {
            origin: origin(&url),
            header,
        });
        // The realm is another service: a failure to reach it is an error, never "offline".
        let mut resp = self.follow("GET", &url, Purpose::Token, auth, false)?;
        if resp.status() == StatusCode::UNAUTHORIZED || resp.status() == StatusCode::FORBIDDEN {
            return Err(self.unauthorized());
        }
        if !resp.status().is_success() {
            return Err(self.status_error(&mut resp, Purpose::Token));
        }
        let body = self.body(&mut resp, Purpose::Token)?;
        let v: Value = serde_json::from_slice(&body)
            .map_err(|e| self.invalid(format!("the token realm's answer is not JSON: {e}")))?;
        let token = v["token"]
            .as_str()
            .or_else(|| v["access_token"].as_str())
            .ok_or_else(|| self.invalid("the token realm's answer holds no token".into()))?;
        Ok(Some(token.to_string()))
    }

    /// Whether `e` means the registry could not be reached at all (so a cached copy may stand in).
    pub fn is_offline(e: &ImageError) -> bool {
        matches!(
            e,
            ImageError::UnknownHost { .. } | ImageError::Unreachable { .. }
        )
    }

    fn invalid(&self, why: String) -> ImageError {
        ImageError::invalid(&self.reference, why)
    }

    fn unauthorized(&self) -> ImageError {
        ImageError::Unauthorized {
            reference: self.reference.clone(),
            host: self.registry.clone(),
            what: self.creds.describe(),
        }
    }

    /// The error for an answer that is not a success: its status, and the start of its body.
    fn status_error(&self, resp: &mut ureq::http::Response<Body>, purpose: Purpose) -> ImageError {
        let status = resp.status().as_u16();
        let mut body = Vec::new();
        // Only the start of an error answer is read, and only for so long.
        let _ = resp
            .body_mut()
            .as_reader()
            .take(self.limits.get(Limit::ErrorSize))
            .read_to_end(&mut body);
        let codes = error_codes(&body);
        let has = |names: &[&str]| codes.iter().any(|(c, _)| names.contains(&c.as_str()));
        if status == 401 || status == 403 || has(&["UNAUTHORIZED", "DENIED"]) {
            return self.unauthorized();
        }
        let unknown = status == 404 || has(&["MANIFEST_UNKNOWN", "NAME_UNKNOWN", "NOT_FOUND"]);
        if unknown && purpose == Purpose::Manifest {
            return ImageError::ManifestUnknown {
                reference: self.reference.clone(),
                wanted: self.shown_wanted(),
            };
        }
        let message = if codes.is_empty() {
            let text = String::from_utf8_lossy(&body);
            let text: String = text.trim().chars().take(200).collect();
            if text.is_empty() {
                format!("HTTP {status}")
            } else {
                format!("HTTP {status}: {text}")
            }
        } else {
            codes
                .iter()
                .map(|(c, m)| format!("{c}: {}", m.chars().take(200).collect::<String>()))
                .collect::<Vec<_>>()
                .join("; ")
        };
        ImageError::Registry {
            reference: self.reference.clone(),
            message,
        }
    }

    /// An error while reading a body: a timeout names its budget.
    fn body_error(&self, e: io::Error, purpose: Purpose) -> ImageError {
        let budget = self.time_for(purpose).1;
        match e.into_inner() {
            Some(inner) => match inner.downcast::<ureq::Error>() {
                Ok(u) => self.answer_error(*u, budget),
                Err(other) => self.invalid(format!("reading the registry's answer: {other}")),
            },
            None => self.invalid("reading the registry's answer failed".into()),
        }
    }

    /// An error from sending a request: unreachable only when no connection could be made.
    fn transport_error(&self, e: ureq::Error, budget: Limit) -> ImageError {
        let host = self.api_host.clone();
        let unreachable = |why: &str| ImageError::Unreachable {
            reference: self.reference.clone(),
            host: host.clone(),
            why: why.to_string(),
        };
        let unknown_host = || ImageError::UnknownHost {
            reference: self.reference.clone(),
            host: host.split(':').next().unwrap_or(&host).to_string(),
        };
        match e {
            ureq::Error::HostNotFound => unknown_host(),
            ureq::Error::Io(io) if is_lookup_failure(&io) => unknown_host(),
            ureq::Error::Io(io) if io.kind() == io::ErrorKind::ConnectionRefused => {
                unreachable("connection refused")
            }
            ureq::Error::Io(io)
                if matches!(
                    io.kind(),
                    io::ErrorKind::NetworkUnreachable | io::ErrorKind::HostUnreachable
                ) =>
            {
                unreachable(&io.to_string())
            }
            ureq::Error::ConnectionFailed => unreachable("the connection failed"),
            ureq::Error::Timeout(
                ureq::Timeout::Resolve | ureq::Timeout::Connect | ureq::Timeout::SendRequest,
            ) => unreachable("timed out"),
            other => self.answer_error(other, budget),
        }
    }

    /// An error once the registry has answered (or started to): never "unreachable".
    fn answer_error(&self, e: ureq::Error, budget: Limit) -> ImageError {
        let host = self.api_host.clone();
        match e {
            ureq::Error::Timeout(ureq::Timeout::PerRead) => self.invalid(
                self.limits
                    .exceeded(Limit::SlowTime, "the registry sent nothing for too long"),
            ),
            ureq::Error::Timeout(ureq::Timeout::RecvResponse) => {
                self.invalid(self.limits.exceeded(
                    Limit::RequestTime,
                    &format!("the registry at {host} did not finish answering in time"),
                ))
            }
            ureq::Error::Timeout(_) => self.invalid(self.limits.exceeded(
                budget,
                &format!("the registry at {host} did not finish answering in time"),
            )),
            ureq::Error::TooManyRedirects => self.invalid(self.limits.exceeded(
                Limit::Redirects,
                &format!("the registry at {host} redirected the request too many times"),
            )),
            ureq::Error::LargeResponseHeader(..) => self.invalid(format!(
                "the registry at {host} answered with headers over 64 KiB"
            )),
            ureq::Error::Tls(_) | ureq::Error::Rustls(_) => ImageError::Tls {
                reference: self.reference.clone(),
                host,
                why: e.to_string(),
            },
            ureq::Error::Io(io) if is_tls(&io) => ImageError::Tls {
                reference: self.reference.clone(),
                host,
                why: io.to_string(),
            },
            ureq::Error::Protocol(p) => self.invalid(format!(
                "the registry at {host} answered with something that is not HTTP: {p}"
            )),
            other => self.invalid(format!("the registry at {host}: {other}")),
        }
    }
}

/// Whether an I/O error is the system's name lookup failing (it has no kind of its own).
fn is_lookup_failure(e: &io::Error) -> bool {
    let text = e.to_string().to_lowercase();
    [
        "failed to lookup address",
        "name or service not known",
        "no address associated",
        "name resolution",
        "nodename nor servname",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Whether an I/O error comes from the TLS handshake (a certificate that does not verify, a plain
/// HTTP server spoken to in TLS).
fn is_tls(e: &io::Error) -> bool {
    let text = e.to_string().to_lowercase();
    text.contains("certificate")
        || text.contains("corrupt message")
        || text.contains("invalidcontenttype")
        || text.contains("handshake")
        || e.get_ref().is_some_and(|i| i.is::<rustls::Error>())
}

fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

/// Percent-encodes a query value.
fn encode(v: &str) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A layer's bytes, given up when they come slower than `slow-speed` for `slow-time`.
struct Paced<R> {
    inner: R,
    window_start: Instant,
    window_bytes: u64,
    window: Duration,
    min_bytes: u64,
    limits: Limits,
    /// The budget that set the request's deadline.
    budget: Limit,
}

impl<R: Read> Paced<R> {
    fn new(inner: R, limits: &Limits, budget: Limit) -> Paced<R> {
        let window = limits.time(Limit::SlowTime);
        Paced {
            inner,
            window_start: Instant::now(),
            window_bytes: 0,
            window,
            min_bytes: limits
                .get(Limit::SlowSpeed)
                .saturating_mul(u64::try_from(window.as_millis()).unwrap_or(u64::MAX))
                / 1000,
            limits: *limits,
            budget,
        }
    }
}

impl<R: Read> Read for Paced<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).map_err(|e| {
            match e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
                Some(ureq::Error::Timeout(ureq::Timeout::PerRead)) => io::Error::new(
                    io::ErrorKind::TimedOut,
                    self.limits
                        .exceeded(Limit::SlowTime, "the registry sent nothing for too long"),
                ),
                Some(ureq::Error::Timeout(_)) => io::Error::new(
                    io::ErrorKind::TimedOut,
                    self.limits
                        .exceeded(self.budget, "the layer did not arrive in time"),
                ),
                _ => e,
            }
        })?;
        self.window_bytes += n as u64;
        if self.window_start.elapsed() >= self.window {
            if self.window_bytes < self.min_bytes {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    self.limits.exceeded(
                        Limit::SlowSpeed,
                        &format!(
                            "the registry sent {} bytes in {}, slower than allowed",
                            self.window_bytes,
                            Limit::SlowTime.show(self.window.as_millis() as u64)
                        ),
                    ),
                ));
            }
            self.window_start = Instant::now();
            self.window_bytes = 0;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_with_quoted_and_bare_values() {
        let c = parse_challenge(
            r#"Bearer realm="https://auth.example/token",service="reg",scope="repository:a/b:pull,push""#,
        );
        assert_eq!(c.scheme, "bearer");
        assert_eq!(c.param("realm"), Some("https://auth.example/token"));
        assert_eq!(c.param("service"), Some("reg"));
        assert_eq!(c.param("scope"), Some("repository:a/b:pull,push"));
        let c = parse_challenge(r#"Basic realm=registry, charset="UTF-8""#);
        assert_eq!(c.scheme, "basic");
        assert_eq!(c.param("realm"), Some("registry"));
        assert_eq!(c.param("charset"), Some("UTF-8"));
        let c = parse_challenge(r#"Bearer realm="a\"b"#);
        assert_eq!(c.param("realm"), Some("a\"b"));
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode("repository:a/b:pull"), "repository%3Aa%2Fb%3Apull");
    }
}
