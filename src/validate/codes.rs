//! The codes of catalog checks: `FBC00x` reading files, `FBC010`–`FBC099` everything opm rejects,
//! `FBC1xx` checks opm does not make (warnings and notes; they never change the verdict), `FBC3xx`
//! profile rules. They are defined, with severities and summaries, in the registry
//! [`crate::catalog::codes`]; [`RULES`] lists them (printed by `fbc-edit validate --list-rules`).

pub use crate::catalog::codes::catalog::*;
