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
//! Only a first connection to the registry that could not be made (the name does not resolve, the
//! connection is refused or cannot be made in 15 s) counts as the registry being unreachable, which
//! lets a cached copy stand in; any answer that is wrong is an error (`answers`). Challenges,
//! origins and redirects are in `http`, the pace check of a layer's bytes in `paced`.

use std::cell::RefCell;
use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::StatusCode;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
use ureq::{Agent, Body};

mod answers;
mod http;
mod paced;

use super::auth::{self, Credentials};
use super::digest::Digest;
use super::error::ImageError;
use super::{Layer, Loaded, Options, pick_platform};
use fbc_core::catalog::image_ref::ImageRef;
use fbc_core::guard::limits::{Limit, Limits};
use http::{Challenge, basic, encode, header, origin, parse_challenge, redirected};
use paced::Paced;

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

/// Credentials for one origin: sent to it and to nothing else.
struct Auth<'a> {
    origin: Option<(String, String, u16)>,
    header: &'a str,
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
        let layers = super::layers_of(&manifest).map_err(|why| self.invalid(why.to_string()))?;
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
}
