//! The codes of bundle-directory checks (`FBC2xx`), defined with their severities and summaries in
//! the registry [`crate::catalog::codes`].

pub use crate::catalog::codes::bundle::*;
