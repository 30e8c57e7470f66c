//! OCP catalog versions and the promotion strategies operators choose.

use std::cmp::Ordering;
use std::fmt;

/// An OCP catalog version, `vX.Y`, ordered by number (v4.9 < v4.22 < v5.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OcpVersion {
    pub major: u32,
    pub minor: u32,
}

impl OcpVersion {
    /// Reads `vX.Y` (digits only, as the pipeline's `^v\d+\.\d+$`).
    pub fn parse(name: &str) -> Option<OcpVersion> {
        let (x, y) = name.strip_prefix('v')?.split_once('.')?;
        let number = |s: &str| {
            (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
        };
        let v = OcpVersion {
            major: number(x)?,
            minor: number(y)?,
        };
        // One spelling per version: `v04.22` would name a directory other than `v4.22`.
        (v.to_string() == name).then_some(v)
    }

    /// Whether its catalogs are rendered with the migration to `olm.csv.metadata`.
    pub fn migrates(self) -> bool {
        self.major > 4 || (self.major == 4 && self.minor >= 17)
    }
}

impl Ord for OcpVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor).cmp(&(other.major, other.minor))
    }
}

impl PartialOrd for OcpVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for OcpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}", self.major, self.minor)
    }
}

/// An operator's `fbc.version_promotion_strategy`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Strategy {
    ReviewNeeded,
    Always,
    Never,
    /// A value the script does not know: taken as `never`.
    Unknown(String),
}

impl Strategy {
    pub(super) fn of(value: Option<&str>) -> Strategy {
        match value {
            None | Some("review-needed") => Strategy::ReviewNeeded,
            Some("always") => Strategy::Always,
            Some("never") => Strategy::Never,
            Some(other) => Strategy::Unknown(other.to_string()),
        }
    }

    /// Whether the operator is promoted.
    pub fn promotes(&self) -> bool {
        matches!(self, Strategy::ReviewNeeded | Strategy::Always)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::ReviewNeeded => f.write_str("review-needed"),
            Strategy::Always => f.write_str("always"),
            Strategy::Never => f.write_str("never"),
            Strategy::Unknown(s) => write!(f, "{s:?} (unknown: taken as never)"),
        }
    }
}
