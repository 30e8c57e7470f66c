//! Problems found while reading or checking a catalog, each tied to a place in a file.

use std::fmt;

/// How serious a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A place in a catalog file. `line` and `column` are 1-based; 0 means "the whole file".
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Location {
    /// Path relative to the catalog root, with `/` separators.
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl Location {
    pub fn new(file: impl Into<String>, line: u32, column: u32) -> Self {
        Location {
            file: file.into(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.column.max(1))
        }
    }
}

/// The catalog object a problem is about, by name.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Object {
    pub package: Option<String>,
    pub channel: Option<String>,
    pub bundle: Option<String>,
}

/// Where opm reports a problem: while loading or converting (it stops at the first), or as a leaf of
/// its `invalid index` tree under the package, channel or bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpmStage {
    Load,
    Convert,
    Package,
    Channel,
    /// Under every channel that lists the bundle.
    Bundle,
}

/// How opm words a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpmError {
    pub stage: OpmStage,
    pub text: String,
}

/// One problem. Codes are stable: `FBC00x` are problems found while loading, `FBC0xx` the rest of
/// opm's errors, `FBC1xx` checks opm does not make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub location: Location,
    /// Other places that explain the problem (for example the first of two duplicates).
    pub related: Vec<Location>,
    /// The package, channel and bundle concerned, when known.
    pub object: Object,
    /// How to fix it, when that is known.
    pub hint: Option<String>,
    /// opm's wording, for problems opm reports (`None` for ours, or when another diagnostic carries it).
    pub opm: Option<OpmError>,
}

impl Diagnostic {
    pub fn new(
        code: &'static str,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            location,
            related: Vec::new(),
            object: Object::default(),
            hint: None,
            opm: None,
        }
    }

    pub fn error(code: &'static str, location: Location, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, location, message)
    }

    pub fn warning(code: &'static str, location: Location, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, location, message)
    }

    pub fn info(code: &'static str, location: Location, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Info, location, message)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_related(mut self, related: impl IntoIterator<Item = Location>) -> Self {
        self.related.extend(related);
        self
    }

    pub fn with_opm(mut self, stage: OpmStage, text: impl Into<String>) -> Self {
        self.opm = Some(OpmError {
            stage,
            text: text.into(),
        });
        self
    }

    pub fn in_package(mut self, package: &str) -> Self {
        self.object.package = Some(package.to_string());
        self
    }

    pub fn in_channel(mut self, channel: &str) -> Self {
        self.object.channel = Some(channel.to_string());
        self
    }

    pub fn for_bundle(mut self, bundle: &str) -> Self {
        self.object.bundle = Some(bundle.to_string());
        self
    }

    /// Sort key: file, line, then code, column and message, so output never depends on thread timing.
    pub fn sort_key(&self) -> (&str, u32, &str, u32, &str) {
        (
            &self.location.file,
            self.location.line,
            self.code,
            self.location.column,
            &self.message,
        )
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}[{}]: {}",
            self.location, self.severity, self.code, self.message
        )
    }
}
