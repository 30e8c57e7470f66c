//! Why an image could not be opened, in words a user can act on. Every variant names the image (or
//! file) concerned; the command line prints the message and exits with status 2.

use std::path::PathBuf;

use thiserror::Error;

use super::{BUNDLE_PACKAGE_LABEL, CONFIGS_LABEL};

#[derive(Debug, Error)]
pub enum ImageError {
    #[error("{reference}: not an image reference: {why}")]
    BadReference { reference: String, why: String },

    #[error(
        "{reference}: unknown host {host:?}: the name does not resolve (check the spelling, or the network)"
    )]
    UnknownHost { reference: String, host: String },

    #[error("{reference}: cannot reach the registry at {host}: {why}")]
    Unreachable {
        reference: String,
        host: String,
        why: String,
    },

    #[error(
        "{reference}: no secure connection to the registry at {host}: {why} (if the registry serves plain HTTP, add --plain-http; if its certificate is self-signed, --insecure)"
    )]
    Tls {
        reference: String,
        host: String,
        why: String,
    },

    #[error("{reference}: unauthorized: {host} {what}")]
    Unauthorized {
        reference: String,
        host: String,
        /// What was sent, and where credentials were looked for.
        what: String,
    },

    #[error("{reference}: manifest unknown: the registry has no image {wanted}")]
    ManifestUnknown { reference: String, wanted: String },

    #[error("{reference}: the registry answered: {message}")]
    Registry { reference: String, message: String },

    #[error(
        "{reference}: not a catalog image: its config has no label {CONFIGS_LABEL} (labels: {labels}), and it has no /configs directory"
    )]
    NotACatalog { reference: String, labels: String },

    #[error(
        "{reference}: not a catalog image: it is a bundle image (label {BUNDLE_PACKAGE_LABEL}={package}); `fbc-edit render {reference}` renders it"
    )]
    BundleNotCatalog { reference: String, package: String },

    #[error(
        "{reference}: not a bundle image: its config has no label {BUNDLE_PACKAGE_LABEL} (labels: {labels})"
    )]
    NotABundle { reference: String, labels: String },

    #[error(
        "{reference}: its label {CONFIGS_LABEL} names {dir}, but the image has no such directory"
    )]
    NoConfigsDir { reference: String, dir: String },

    #[error(
        "{reference}: no space left on the device while writing into the cache {}: free some space, or point FBC_EDIT_CACHE_DIR somewhere else",
        dir.display()
    )]
    DiskFull { reference: String, dir: PathBuf },

    #[error("{reference}: {what}: {why}")]
    Io {
        reference: String,
        what: String,
        why: std::io::Error,
    },

    #[error("{reference}: {why}")]
    Invalid { reference: String, why: String },
}

impl ImageError {
    /// An I/O failure while doing `what`; a full disk gets its own message.
    pub(crate) fn io(
        reference: &str,
        what: impl Into<String>,
        cache: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> ImageError {
        let reference = reference.to_string();
        let what = what.into();
        let cache = cache.to_path_buf();
        move |why| {
            if is_disk_full(&why) {
                ImageError::DiskFull {
                    reference,
                    dir: cache,
                }
            } else {
                ImageError::Io {
                    reference,
                    what,
                    why,
                }
            }
        }
    }

    pub(crate) fn invalid(reference: &str, why: impl Into<String>) -> ImageError {
        ImageError::Invalid {
            reference: reference.to_string(),
            why: why.into(),
        }
    }
}

/// ENOSPC (or a quota) anywhere in the error, also when wrapped by a decoder.
pub(crate) fn is_disk_full(e: &std::io::Error) -> bool {
    if matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    ) {
        return true;
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
            )
        {
            return true;
        }
        source = s.source();
    }
    false
}
