//! The budgets every read of untrusted input stays within. Each has a name, a default and a unit;
//! a user raises (or lowers) one with `--limit NAME=VALUE` on any command that opens images, or for
//! every command with `FBC_EDIT_LIMITS="NAME=VALUE,NAME=VALUE"`. A budget that is hit stops the
//! read with a message naming the budget, its value and how to raise it ([`Limits::exceeded`]).

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

/// The environment variable that sets budgets for every command.
pub const ENV: &str = "FBC_EDIT_LIMITS";

/// What a budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Count,
    /// Milliseconds, written with `ms`, `s`, `m` or `h`.
    Time,
    /// Bytes per second.
    Speed,
}

/// One budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    ManifestSize,
    ConfigSize,
    TokenSize,
    ErrorSize,
    Layers,
    ImageSize,
    Redirects,
    RequestTime,
    PullTime,
    SlowSpeed,
    SlowTime,
    TarHeader,
    ExtractBytes,
    ExtractFiles,
    ArchiveEntries,
    Notes,
    YamlFile,
}

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

impl Limit {
    pub const ALL: [Limit; 17] = [
        Limit::ManifestSize,
        Limit::ConfigSize,
        Limit::TokenSize,
        Limit::ErrorSize,
        Limit::Layers,
        Limit::ImageSize,
        Limit::Redirects,
        Limit::RequestTime,
        Limit::PullTime,
        Limit::SlowSpeed,
        Limit::SlowTime,
        Limit::TarHeader,
        Limit::ExtractBytes,
        Limit::ExtractFiles,
        Limit::ArchiveEntries,
        Limit::Notes,
        Limit::YamlFile,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Limit::ManifestSize => "manifest-size",
            Limit::ConfigSize => "config-size",
            Limit::TokenSize => "token-size",
            Limit::ErrorSize => "error-size",
            Limit::Layers => "layers",
            Limit::ImageSize => "image-size",
            Limit::Redirects => "redirects",
            Limit::RequestTime => "request-time",
            Limit::PullTime => "pull-time",
            Limit::SlowSpeed => "slow-speed",
            Limit::SlowTime => "slow-time",
            Limit::TarHeader => "tar-header",
            Limit::ExtractBytes => "extract-bytes",
            Limit::ExtractFiles => "extract-files",
            Limit::ArchiveEntries => "archive-entries",
            Limit::Notes => "notes",
            Limit::YamlFile => "yaml-file",
        }
    }

    pub fn unit(self) -> Unit {
        match self {
            Limit::Layers
            | Limit::Redirects
            | Limit::ExtractFiles
            | Limit::ArchiveEntries
            | Limit::Notes => Unit::Count,
            Limit::RequestTime | Limit::PullTime | Limit::SlowTime => Unit::Time,
            Limit::SlowSpeed => Unit::Speed,
            _ => Unit::Bytes,
        }
    }

    /// The default value (bytes, a count, milliseconds, or bytes per second).
    pub fn default_value(self) -> u64 {
        match self {
            Limit::ManifestSize => 16 * MIB,
            Limit::ConfigSize => 16 * MIB,
            Limit::TokenSize => MIB,
            Limit::ErrorSize => 64 * KIB,
            Limit::Layers => 500,
            Limit::ImageSize => 16 * GIB,
            Limit::Redirects => 5,
            Limit::RequestTime => 60_000,
            Limit::PullTime => 30 * 60_000,
            Limit::SlowSpeed => KIB,
            Limit::SlowTime => 30_000,
            Limit::TarHeader => MIB,
            Limit::ExtractBytes => 4 * GIB,
            Limit::ExtractFiles => 200_000,
            Limit::ArchiveEntries => 100_000,
            Limit::Notes => 100,
            Limit::YamlFile => MIB,
        }
    }

    /// What the budget bounds, in a few words.
    pub fn doc(self) -> &'static str {
        match self {
            Limit::ManifestSize => "an image manifest or index (registry, layout or archive)",
            Limit::ConfigSize => "an image config",
            Limit::TokenSize => "a registry's token answer",
            Limit::ErrorSize => "the part of a registry's error answer that is read",
            Limit::Layers => "layers of one image",
            Limit::ImageSize => {
                "the layers of one image, as their manifest declares them (compressed)"
            }
            Limit::Redirects => "redirects followed for one request",
            Limit::RequestTime => {
                "one request for a manifest, config or token, from connecting to the answer's last byte"
            }
            Limit::PullTime => "one pull or read of an image, every request and layer included",
            Limit::SlowSpeed => "the slowest transfer kept going for slow-time",
            Limit::SlowTime => "how long a transfer may stay under slow-speed",
            Limit::TarHeader => "one tar header's data (a GNU long name or link, a PAX header)",
            Limit::ExtractBytes => {
                "bytes written out of one image or git revision (or copied by an export)"
            }
            Limit::ExtractFiles => "files and directories written out of one image or git revision",
            Limit::ArchiveEntries => "entries of an oci-archive or docker-archive file",
            Limit::Notes => "'not extracted' notes kept for one image (the rest are counted)",
            Limit::YamlFile => {
                "a small YAML file read whole (ci.yaml, release-config.yaml, config.yaml)"
            }
        }
    }

    fn by_name(name: &str) -> Option<Limit> {
        Limit::ALL.into_iter().find(|l| l.name() == name)
    }

    /// `value` in this budget's unit, as a user writes it.
    pub fn show(self, value: u64) -> String {
        match self.unit() {
            Unit::Count => value.to_string(),
            Unit::Bytes => show_bytes(value),
            Unit::Speed => format!("{}/s", show_bytes(value)),
            Unit::Time => show_time(value),
        }
    }
}

fn show_bytes(v: u64) -> String {
    for (unit, size) in [("GiB", GIB), ("MiB", MIB), ("KiB", KIB)] {
        if v >= size && v.is_multiple_of(size) {
            return format!("{} {unit}", v / size);
        }
    }
    format!("{v} bytes")
}

/// A size as budgets show it (`8 GiB`, `1500 bytes`).
pub fn show_size(bytes: u64) -> String {
    show_bytes(bytes)
}

/// A size as a user writes one for a budget (`512KiB`, `64MiB`, `8GiB`, a plain number of
/// bytes), for a command-line option that takes a size of its own.
pub fn parse_size(text: &str) -> Result<u64, LimitError> {
    parse_value(Unit::Bytes, text.trim()).map_err(|e| LimitError {
        setting: text.to_string(),
        why: e.to_string(),
    })
}

fn show_time(ms: u64) -> String {
    if ms.is_multiple_of(3_600_000) && ms > 0 {
        format!("{} h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) && ms > 0 {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// Why a budget setting is not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting:?}: {why}")]
pub struct LimitError {
    pub setting: String,
    pub why: String,
}

/// Every budget's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    values: [u64; Limit::ALL.len()],
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            values: Limit::ALL.map(Limit::default_value),
        }
    }
}

fn index(limit: Limit) -> usize {
    Limit::ALL
        .iter()
        .position(|l| *l == limit)
        .unwrap_or_default()
}

impl Limits {
    /// The defaults with `FBC_EDIT_LIMITS` applied.
    pub fn from_env() -> Result<Limits, LimitError> {
        let mut l = Limits::default();
        if let Ok(v) = std::env::var(ENV) {
            for setting in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                l.set(setting)?;
            }
        }
        Ok(l)
    }

    pub fn get(&self, limit: Limit) -> u64 {
        self.values[index(limit)]
    }

    /// A time budget as a duration.
    pub fn time(&self, limit: Limit) -> Duration {
        Duration::from_millis(self.get(limit))
    }

    /// A budget as a `usize` count (saturating).
    pub fn count(&self, limit: Limit) -> usize {
        usize::try_from(self.get(limit)).unwrap_or(usize::MAX)
    }

    pub fn with(mut self, limit: Limit, value: u64) -> Limits {
        self.values[index(limit)] = value;
        self
    }

    /// Applies one `NAME=VALUE` setting (`extract-bytes=8GiB`, `pull-time=2h`, `layers=1000`).
    pub fn set(&mut self, setting: &str) -> Result<(), LimitError> {
        let err = |why: String| LimitError {
            setting: setting.to_string(),
            why,
        };
        let (name, value) = setting
            .split_once('=')
            .ok_or_else(|| err("expected NAME=VALUE".into()))?;
        let limit = Limit::by_name(name.trim()).ok_or_else(|| {
            err(format!(
                "no budget of that name (budgets: {})",
                Limit::ALL.map(Limit::name).join(", ")
            ))
        })?;
        let v = parse_value(limit.unit(), value.trim()).map_err(|e| err(e.to_string()))?;
        self.values[index(limit)] = v;
        Ok(())
    }

    /// The message for budget `limit` being hit while doing `what` ("the image writes more than
    /// 4 GiB").
    pub fn exceeded(&self, limit: Limit, what: &str) -> String {
        let name = limit.name();
        format!(
            "{what} (the {name} budget, {}); if the input is trusted, raise it with --limit {name}=VALUE or {ENV}",
            limit.show(self.get(limit)),
        )
    }

    /// One line per budget: name, value, what it bounds.
    pub fn describe(&self) -> Vec<String> {
        Limit::ALL
            .iter()
            .map(|l| format!("{:<16} {:>10}  {}", l.name(), l.show(self.get(*l)), l.doc()))
            .collect()
    }
}

fn parse_value(unit: Unit, text: &str) -> Result<u64, ValueError> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, suffix) = text.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| ValueError::NotANumber(text.to_string()))?;
    let suffix = suffix.trim().to_ascii_lowercase();
    let suffix = match (unit, suffix.strip_suffix("/s")) {
        (Unit::Speed, Some(s)) => s.to_string(),
        _ => suffix,
    };
    let factor = match (unit, suffix.as_str()) {
        (Unit::Count, "") => 1,
        (Unit::Bytes | Unit::Speed, "" | "b") => 1,
        (Unit::Bytes | Unit::Speed, "k" | "kib" | "kb") => KIB,
        (Unit::Bytes | Unit::Speed, "m" | "mib" | "mb") => MIB,
        (Unit::Bytes | Unit::Speed, "g" | "gib" | "gb") => GIB,
        (Unit::Bytes | Unit::Speed, "t" | "tib" | "tb") => 1 << 40,
        (Unit::Time, "ms") => 1,
        (Unit::Time, "" | "s") => 1000,
        (Unit::Time, "m" | "min") => 60_000,
        (Unit::Time, "h") => 3_600_000,
        (u, s) => {
            let expected = match u {
                Unit::Count => "a plain number",
                Unit::Bytes | Unit::Speed => "a size such as 512KiB, 64MiB or 8GiB",
                Unit::Time => "a time such as 500ms, 90s, 30m or 2h",
            };
            return Err(ValueError::UnknownUnit {
                unit: s.to_string(),
                expected,
            });
        }
    };
    let value = n
        .checked_mul(factor)
        .ok_or_else(|| ValueError::TooLarge(text.to_string()))?;
    if unit == Unit::Time && value == 0 {
        return Err(ValueError::ZeroTime);
    }
    Ok(value)
}

/// Why a budget's value is not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ValueError {
    #[error("{0:?} does not start with a number")]
    NotANumber(String),
    #[error("unknown unit {unit:?}: expected {expected}")]
    UnknownUnit {
        unit: String,
        expected: &'static str,
    },
    #[error("{0:?} is too large")]
    TooLarge(String),
    #[error("a time must be more than 0")]
    ZeroTime,
}

static CURRENT: OnceLock<Limits> = OnceLock::new();

/// The budgets of this process: those [`install`]ed, else the defaults with `FBC_EDIT_LIMITS`
/// applied (a setting that is not understood is left at its default; the command line reports
/// it before anything is read).
pub fn current() -> Limits {
    *CURRENT.get_or_init(|| Limits::from_env().unwrap_or_default())
}

/// Sets the budgets of this process (once; later calls change nothing).
pub fn install(limits: Limits) {
    let _ = CURRENT.set(limits);
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_read_in_their_units() {
        let mut l = Limits::default();
        l.set("extract-bytes=8GiB").unwrap();
        l.set("pull-time = 2h").unwrap();
        l.set("layers=1000").unwrap();
        l.set("slow-speed=10KiB/s").unwrap();
        l.set("request-time=500ms").unwrap();
        assert_eq!(l.get(Limit::ExtractBytes), 8 << 30);
        assert_eq!(l.time(Limit::PullTime), Duration::from_secs(7200));
        assert_eq!(l.get(Limit::Layers), 1000);
        assert_eq!(l.get(Limit::SlowSpeed), 10 << 10);
        assert_eq!(l.time(Limit::RequestTime), Duration::from_millis(500));
        assert!(
            l.set("layers=10MiB")
                .unwrap_err()
                .why
                .contains("a plain number")
        );
        assert!(
            l.set("nonsense=1")
                .unwrap_err()
                .why
                .contains("extract-bytes")
        );
        assert!(l.set("layers").is_err());
        assert!(l.set("extract-bytes=99999999999T").is_err());
        assert!(l.set("layers=5/s").is_err());
        assert!(l.set("request-time=10/s").is_err());
        assert!(
            l.set("slow-time=0")
                .unwrap_err()
                .why
                .contains("more than 0")
        );
        assert!(l.set("slow-speed=0").is_ok());
    }

    #[test]
    fn a_hit_budget_says_how_to_raise_it() {
        let l = Limits::default();
        assert_eq!(
            l.exceeded(Limit::ExtractBytes, "the image writes more"),
            "the image writes more (the extract-bytes budget, 4 GiB); if the input is trusted, raise it with --limit extract-bytes=VALUE or FBC_EDIT_LIMITS"
        );
        assert_eq!(Limit::PullTime.show(l.get(Limit::PullTime)), "30 min");
        assert_eq!(Limit::Layers.show(500), "500");
    }
}
