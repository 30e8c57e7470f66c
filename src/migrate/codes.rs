//! The codes of package-manifest directory checks (`FBC23x`–`FBC24x`), defined with their severities
//! and summaries in the registry [`crate::catalog::codes`]. Problems inside a version directory's
//! manifests keep their bundle codes (`FBC2xx`, see `crate::bundle::codes`).

pub use crate::catalog::codes::migrate::*;
