//! What a registry's answers and failures mean, in the errors a user reads: unreachable only
//! when no connection could be made, a budget named when one was hit.

use std::io::{self, Read};

use ureq::Body;

use super::http::{error_codes, is_lookup_failure, is_tls};
use super::{Purpose, Remote};
use crate::error::ImageError;
use fbc_core::guard::limits::Limit;

impl Remote {
    /// Whether `e` means the registry could not be reached at all (so a cached copy may stand in).
    pub fn is_offline(e: &ImageError) -> bool {
        matches!(
            e,
            ImageError::UnknownHost { .. } | ImageError::Unreachable { .. }
        )
    }

    pub(super) fn invalid(&self, why: String) -> ImageError {
        ImageError::invalid(&self.reference, why)
    }

    pub(super) fn unauthorized(&self) -> ImageError {
        ImageError::Unauthorized {
            reference: self.reference.clone(),
            host: self.registry.clone(),
            what: self.creds.describe(),
        }
    }

    /// The error for an answer that is not a success: its status, and the start of its body.
    pub(super) fn status_error(
        &self,
        resp: &mut ureq::http::Response<Body>,
        purpose: Purpose,
    ) -> ImageError {
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
    pub(super) fn body_error(&self, e: io::Error, purpose: Purpose) -> ImageError {
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
    pub(super) fn transport_error(&self, e: ureq::Error, budget: Limit) -> ImageError {
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
    pub(super) fn answer_error(&self, e: ureq::Error, budget: Limit) -> ImageError {
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
