//! Pulling from a registry over the OCI distribution API with the `oci-client` crate (the ORAS
//! project's client: token, basic and anonymous auth, manifest lists, digest-checked blob streams).
//! Its async runtime (tokio, one thread) lives here only: each call blocks on it, and a layer's
//! byte stream is turned into a plain [`Read`] that the extractor pulls from, a chunk at a time.

use std::io::{self, Read};
use std::sync::Once;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt as _;
use oci_client::client::{ClientConfig, ClientProtocol, SizedStream};
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::manifest::ImageIndexEntry;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};
use tokio::runtime::Runtime;

use super::auth::{self, Credentials};
use super::error::ImageError;
use super::{Layer, Loaded, Options, pick_platform};

pub(crate) struct Remote {
    rt: Runtime,
    client: Client,
    auth: RegistryAuth,
    creds: Credentials,
    /// As the user wrote it.
    reference: String,
    pub parsed: Reference,
    plain_http: bool,
}

fn resolver(entries: &[ImageIndexEntry]) -> Option<String> {
    let values: Vec<serde_json::Value> = entries
        .iter()
        .filter_map(|e| serde_json::to_value(e).ok())
        .collect();
    pick_platform(&values)
}

impl Remote {
    pub fn new(reference: &str, name: &str, options: &Options) -> Result<Remote, ImageError> {
        static PROVIDER: Once = Once::new();
        PROVIDER.call_once(|| {
            // Another part of the process may have installed one already; either will do.
            let _ = rustls::crypto::ring::default_provider().install_default();
        });
        let parsed = Reference::try_from(name).map_err(|e| ImageError::BadReference {
            reference: reference.to_string(),
            why: e.to_string(),
        })?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                ImageError::invalid(reference, format!("cannot start the network runtime: {e}"))
            })?;
        let config = ClientConfig {
            protocol: if options.plain_http {
                ClientProtocol::Http
            } else {
                ClientProtocol::Https
            },
            accept_invalid_certificates: options.insecure,
            platform_resolver: Some(Box::new(resolver)),
            connect_timeout: Some(Duration::from_secs(15)),
            read_timeout: Some(Duration::from_secs(120)),
            ..Default::default()
        };
        let client = Client::try_from(config).map_err(|e| {
            ImageError::invalid(reference, format!("cannot set up the registry client: {e}"))
        })?;
        let creds = auth::lookup(parsed.resolve_registry(), parsed.repository());
        let auth = match &creds.basic {
            Some((u, p)) => RegistryAuth::Basic(u.clone(), p.clone()),
            None => RegistryAuth::Anonymous,
        };
        Ok(Remote {
            rt,
            client,
            auth,
            creds,
            reference: reference.to_string(),
            parsed,
            plain_http: options.plain_http,
        })
    }

    /// The key the reference is remembered under in the cache.
    pub fn key(&self) -> String {
        self.parsed.whole()
    }

    /// The digest the reference names now (a HEAD request; a digest reference is checked too).
    pub fn resolve(&self) -> Result<String, ImageError> {
        self.rt
            .block_on(self.client.fetch_manifest_digest(&self.parsed, &self.auth))
            .map_err(|e| self.error(e))
    }

    /// The manifest (one platform's, for an index), the config and the layer list of `digest`.
    pub fn load(&self, digest: &str) -> Result<Loaded, ImageError> {
        let at = self.parsed.clone_with_digest(digest.to_string());
        let (manifest, _, _) = self
            .rt
            .block_on(
                self.client
                    .pull_image_manifest_and_list_digest(&at, &self.auth),
            )
            .map_err(|e| self.error(e))?;
        let mut config = Vec::new();
        self.rt
            .block_on(self.client.pull_blob(&at, &manifest.config, &mut config))
            .map_err(|e| self.error(e))?;
        Ok(Loaded {
            digest: digest.to_string(),
            config,
            layers: manifest
                .layers
                .iter()
                .map(|l| Layer {
                    digest: l.digest.clone(),
                    size: u64::try_from(l.size).unwrap_or(0),
                })
                .collect(),
        })
    }

    /// A reader over one layer blob, digest-checked when read to the end.
    pub fn open_layer(&self, layer: &Layer) -> Result<Box<dyn Read + '_>, ImageError> {
        let desc = oci_client::manifest::OciDescriptor {
            digest: layer.digest.clone(),
            ..Default::default()
        };
        let stream = self
            .rt
            .block_on(self.client.pull_blob_stream(&self.parsed, &desc))
            .map_err(|e| self.error(e))?;
        Ok(Box::new(StreamReader {
            rt: &self.rt,
            stream,
            chunk: Bytes::new(),
        }))
    }

    /// Whether `e` means the registry could not be reached at all (so a cached copy may stand in).
    pub fn is_offline(e: &ImageError) -> bool {
        matches!(
            e,
            ImageError::UnknownHost { .. } | ImageError::Unreachable { .. }
        )
    }

    fn error(&self, e: OciDistributionError) -> ImageError {
        let reference = self.reference.clone();
        let host = self.parsed.resolve_registry().to_string();
        let unauthorized = || ImageError::Unauthorized {
            reference: reference.clone(),
            host: host.clone(),
            what: self.creds.describe(),
        };
        let unknown = || ImageError::ManifestUnknown {
            reference: reference.clone(),
            wanted: format!(
                "{}{}",
                self.parsed.repository(),
                match (self.parsed.tag(), self.parsed.digest()) {
                    (_, Some(d)) => format!("@{d}"),
                    (Some(t), None) => format!(":{t}"),
                    (None, None) => String::new(),
                }
            ),
        };
        match e {
            OciDistributionError::UnauthorizedError { .. }
            | OciDistributionError::AuthenticationFailure(_) => unauthorized(),
            OciDistributionError::RegistryError { envelope, .. } => {
                if envelope
                    .errors
                    .iter()
                    .any(|x| matches!(x.code, OciErrorCode::Unauthorized | OciErrorCode::Denied))
                {
                    unauthorized()
                } else if envelope.errors.iter().any(|x| {
                    matches!(
                        x.code,
                        OciErrorCode::ManifestUnknown
                            | OciErrorCode::NameUnknown
                            | OciErrorCode::NotFound
                    )
                }) {
                    unknown()
                } else {
                    ImageError::Registry {
                        reference,
                        message: envelope
                            .errors
                            .iter()
                            .map(|x| format!("{:?}: {}", x.code, x.message))
                            .collect::<Vec<_>>()
                            .join("; "),
                    }
                }
            }
            OciDistributionError::ServerError { code: 404, .. }
            | OciDistributionError::ImageManifestNotFoundError(_) => unknown(),
            OciDistributionError::ServerError {
                code: 401 | 403, ..
            } => unauthorized(),
            OciDistributionError::ServerError { code, message, .. } => ImageError::Registry {
                reference,
                message: format!("HTTP {code}: {}", message.trim()),
            },
            OciDistributionError::RequestError(r) => self.request_error(&r),
            other => ImageError::Registry {
                reference,
                message: other.to_string(),
            },
        }
    }

    fn request_error(&self, r: &dyn std::error::Error) -> ImageError {
        let host = self.parsed.resolve_registry().to_string();
        let chain = error_chain(r);
        let lower = chain.to_lowercase();
        if lower.contains("dns error")
            || lower.contains("failed to lookup address")
            || lower.contains("name or service not known")
            || lower.contains("no address associated")
        {
            return ImageError::UnknownHost {
                reference: self.reference.clone(),
                host: host.split(':').next().unwrap_or(&host).to_string(),
            };
        }
        // The innermost cause says what happened; the outer ones repeat the URL.
        let cause = root_cause(r);
        let tls = lower.contains("certificate")
            || lower.contains("corrupt message")
            || lower.contains("invalidcontenttype")
            || lower.contains("handshake");
        if tls && !self.plain_http {
            return ImageError::Tls {
                reference: self.reference.clone(),
                host,
                why: cause,
            };
        }
        let why = if lower.contains("connection refused") {
            "connection refused".to_string()
        } else if lower.contains("timed out") {
            "timed out".to_string()
        } else {
            cause
        };
        ImageError::Unreachable {
            reference: self.reference.clone(),
            host,
            why,
        }
    }
}

/// The innermost error's message.
fn root_cause(e: &dyn std::error::Error) -> String {
    let mut last = e;
    while let Some(s) = last.source() {
        last = s;
    }
    last.to_string()
}

/// Every message in an error's source chain, joined.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut s = e.source();
    while let Some(x) = s {
        let m = x.to_string();
        if !parts.iter().any(|p| p.contains(&m)) {
            parts.push(m);
        }
        s = x.source();
    }
    parts.join(": ")
}

/// A layer's byte stream as a [`Read`], driven by the runtime one chunk at a time.
struct StreamReader<'a> {
    rt: &'a Runtime,
    stream: SizedStream,
    chunk: Bytes,
}

impl Read for StreamReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.chunk.is_empty() {
            match self.rt.block_on(self.stream.next()) {
                Some(Ok(b)) => self.chunk = b,
                Some(Err(e)) => return Err(e),
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk[..n]);
        let _ = self.chunk.split_to(n);
        Ok(n)
    }
}
