//! Versions and ranges with the grammar and quirks of blang/semver v4, the library opm and OLM use for
//! `olm.package` versions and `skipRange` (not Cargo's or npm's semantics).
//!
//! Ranges, in short: tokens are separated by single spaces, except that a space right after `>`, `<`
//! or `=` does not split (`>= 1.0.0` is one token); one-character tokens are silently dropped;
//! `||` separates alternatives; tokens of one alternative are ANDed. A token containing `x` is a
//! wildcard (`1.x`, `1.0.x`; `1.x.x` behaves like `1.0.x`, and `!=1.0.x` matches nothing). Operators
//! are `=`, `==`, `!`, `!=`, `>`, `>=`, `<`, `<=` or none; `~` and `^` are errors. Pre-releases are
//! compared like any version, so `<2.0.0` admits `2.0.0-rc.1`.

use std::cmp::Ordering;
use std::fmt;

use thiserror::Error;

/// A number that does not fit, in the words of Go's `strconv.ParseUint`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NumberError {
    #[error("strconv.ParseUint: parsing {0:?}: invalid syntax")]
    Syntax(String),
    #[error("strconv.ParseUint: parsing {0:?}: value out of range")]
    OutOfRange(String),
}

/// Why a pre-release identifier is not one, in blang's words.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PreError {
    #[error("Prerelease is empty")]
    Empty,
    #[error("Numeric PreRelease version must not contain leading zeroes {0:?}")]
    LeadingZero(String),
    #[error(transparent)]
    Number(#[from] NumberError),
    #[error("Invalid character(s) found in prerelease {0:?}")]
    Characters(String),
}

/// The three numbers of a version, named in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Major,
    Minor,
    Patch,
}

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Major => "major",
            Part::Minor => "minor",
            Part::Patch => "patch",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Part::Major => "Major",
            Part::Minor => "Minor",
            Part::Patch => "Patch",
        }
    }
}

/// Why a text is not a version, in blang's words.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VersionError {
    #[error("Version string empty")]
    Empty,
    #[error("No Major.Minor.Patch elements found")]
    NotThreeParts,
    #[error("Invalid character(s) found in {} number {text:?}", part.name())]
    Characters { part: Part, text: String },
    #[error("{} number must not contain leading zeroes {text:?}", part.title())]
    LeadingZero { part: Part, text: String },
    #[error(transparent)]
    Number(#[from] NumberError),
    #[error(transparent)]
    Pre(#[from] PreError),
    #[error("Build meta data is empty")]
    EmptyBuild,
    #[error("Invalid character(s) found in build meta data {0:?}")]
    BuildCharacters(String),
}

/// Why an `olm.package` `release` is not one, in opm's words (every bad segment on its own line).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReleaseError {
    #[error(
        "invalid release {release:?}: exceeds maximum length of {RELEASE_MAX_LENGTH} characters"
    )]
    TooLong { release: String },
    #[error("invalid release {release:?}: {}", segment_lines(segments))]
    Segments {
        release: String,
        /// Each bad segment's position and what is wrong with it.
        segments: Vec<(usize, PreError)>,
    },
}

impl ReleaseError {
    /// The message on one line: the bad segments separated by `; `.
    pub fn one_line(&self) -> String {
        self.to_string().replace('\n', "; ")
    }
}

fn segment_lines(segments: &[(usize, PreError)]) -> String {
    segments
        .iter()
        .map(|(i, e)| format!("segment {i}: {e}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a text is not a range, in blang's words.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RangeError {
    #[error("First element in range is '||'")]
    LeadingOr,
    #[error("Last element in range is '||'")]
    TrailingOr,
    #[error("Could not get version from string: {0:?}")]
    NoVersion(String),
    #[error(
        "Could not parse Range {token:?}: Could not parse comparator {op:?} in {:?}",
        format!("{op}{version}")
    )]
    Comparator {
        token: String,
        op: String,
        version: String,
    },
    #[error(
        "Could not parse Range {token:?}: Could not parse version {version:?} in {token:?}: {why}"
    )]
    Version {
        token: String,
        version: String,
        why: VersionError,
    },
}

/// One pre-release identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pre {
    Num(u64),
    Alpha(String),
}

impl Pre {
    /// Parses one pre-release identifier, with blang's messages.
    pub fn parse(p: &str) -> Result<Pre, PreError> {
        if p.is_empty() {
            return Err(PreError::Empty);
        }
        if only(p, false) {
            if leading_zero(p) {
                return Err(PreError::LeadingZero(p.to_string()));
            }
            Ok(Pre::Num(parse_u64(p)?))
        } else if only(p, true) {
            Ok(Pre::Alpha(p.to_string()))
        } else {
            Err(PreError::Characters(p.to_string()))
        }
    }

    fn cmp(&self, o: &Pre) -> Ordering {
        match (self, o) {
            (Pre::Num(a), Pre::Num(b)) => a.cmp(b),
            (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
            (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
            (Pre::Alpha(a), Pre::Alpha(b)) => a.as_bytes().cmp(b.as_bytes()),
        }
    }
}

impl fmt::Display for Pre {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pre::Num(n) => write!(f, "{n}"),
            Pre::Alpha(s) => f.write_str(s),
        }
    }
}

/// A strict SemVer 2.0 version as blang/semver parses it.
#[derive(Debug, Clone)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<Pre>,
    pub build: Vec<String>,
}

impl PartialEq for Version {
    /// Build metadata is ignored, as in blang's `Compare`.
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Version {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    for (a, b) in self.pre.iter().zip(&o.pre) {
                        let c = a.cmp(b);
                        if c != Ordering::Equal {
                            return c;
                        }
                    }
                    self.pre.len().cmp(&o.pre.len())
                }
            })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            write!(f, "{p}")?;
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build.join("."))?;
        }
        Ok(())
    }
}

fn only(s: &str, extra_alpha: bool) -> bool {
    s.chars()
        .all(|c| c.is_ascii_digit() || (extra_alpha && (c.is_ascii_alphabetic() || c == '-')))
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

fn parse_u64(s: &str) -> Result<u64, NumberError> {
    if s.is_empty() {
        return Err(NumberError::Syntax(s.to_string()));
    }
    s.parse::<u64>()
        .map_err(|_| NumberError::OutOfRange(s.to_string()))
}

impl Version {
    /// Parses a version, with blang's error messages.
    pub fn parse(s: &str) -> Result<Version, VersionError> {
        if s.is_empty() {
            return Err(VersionError::Empty);
        }
        let parts: Vec<&str> = s.splitn(3, '.').collect();
        if parts.len() != 3 {
            return Err(VersionError::NotThreeParts);
        }
        let number = |p: &str, part: Part| -> Result<u64, VersionError> {
            if !only(p, false) {
                return Err(VersionError::Characters {
                    part,
                    text: p.to_string(),
                });
            }
            if leading_zero(p) {
                return Err(VersionError::LeadingZero {
                    part,
                    text: p.to_string(),
                });
            }
            Ok(parse_u64(p)?)
        };
        let major = number(parts[0], Part::Major)?;
        let minor = number(parts[1], Part::Minor)?;
        let mut patch_str = parts[2];
        let mut build: Vec<&str> = Vec::new();
        let mut pre: Vec<&str> = Vec::new();
        if let Some(i) = patch_str.find('+') {
            build = patch_str[i + 1..].split('.').collect();
            patch_str = &patch_str[..i];
        }
        if let Some(i) = patch_str.find('-') {
            pre = patch_str[i + 1..].split('.').collect();
            patch_str = &patch_str[..i];
        }
        let patch = number(patch_str, Part::Patch)?;
        let mut v = Version {
            major,
            minor,
            patch,
            pre: Vec::new(),
            build: Vec::new(),
        };
        for p in pre {
            v.pre.push(Pre::parse(p)?);
        }
        for b in build {
            if b.is_empty() {
                return Err(VersionError::EmptyBuild);
            }
            if !only(b, true) {
                return Err(VersionError::BuildCharacters(b.to_string()));
            }
            v.build.push(b.to_string());
        }
        Ok(v)
    }
}

/// Longest `olm.package` `release` opm accepts (the CSV's own limit).
pub const RELEASE_MAX_LENGTH: usize = 20;

/// Parses an `olm.package` `release` (opm v1.62+): at most 20 characters of dot-separated
/// pre-release identifiers. The error is opm's text, every bad segment listed on its own line.
pub fn parse_release(r: &str) -> Result<Vec<Pre>, ReleaseError> {
    if r.is_empty() {
        return Ok(Vec::new());
    }
    if r.len() > RELEASE_MAX_LENGTH {
        return Err(ReleaseError::TooLong {
            release: r.to_string(),
        });
    }
    let mut out = Vec::new();
    let mut segments = Vec::new();
    for (i, segment) in r.split('.').enumerate() {
        match Pre::parse(segment) {
            Ok(p) => out.push(p),
            Err(e) => segments.push((i, e)),
        }
    }
    if segments.is_empty() {
        Ok(out)
    } else {
        Err(ReleaseError::Segments {
            release: r.to_string(),
            segments,
        })
    }
}

/// A comparison operator of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "" | "=" | "==" => Op::Eq,
            "!" | "!=" => Op::Ne,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "<" => Op::Lt,
            "<=" => Op::Le,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }
}

/// One `op version` test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparator {
    pub op: Op,
    pub version: Version,
}

impl Comparator {
    pub fn matches(&self, v: &Version) -> bool {
        let c = v.cmp(&self.version);
        match self.op {
            Op::Eq => c == Ordering::Equal,
            Op::Ne => c != Ordering::Equal,
            Op::Gt => c == Ordering::Greater,
            Op::Ge => c != Ordering::Less,
            Op::Lt => c == Ordering::Less,
            Op::Le => c != Ordering::Greater,
        }
    }
}

/// A parsed range: alternatives (ORed) of comparators (ANDed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    pub alternatives: Vec<Vec<Comparator>>,
    /// One-character tokens that were dropped while reading (blang ignores them silently).
    pub dropped: Vec<String>,
}

/// blang's `splitAndTrim`: a space splits unless the last non-space byte was `>`, `<` or `=`; pieces
/// shorter than two bytes are dropped, and spaces inside a piece are removed.
fn split_and_trim(s: &str) -> (Vec<String>, Vec<String>) {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut dropped = Vec::new();
    let mut last = 0usize;
    let mut last_char = 0u8;
    let piece = |from: usize, to: usize, out: &mut Vec<String>, dropped: &mut Vec<String>| {
        if to > from + 1 {
            out.push(s[from..to].replace(' ', ""));
        } else if to == from + 1 && b[from] != b' ' {
            dropped.push(s[from..to].to_string());
        }
    };
    for (i, &c) in b.iter().enumerate() {
        if c == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            piece(last, i, &mut out, &mut dropped);
            last = i + 1;
        } else if c != b' ' {
            last_char = c;
        }
    }
    piece(last, b.len(), &mut out, &mut dropped);
    (out, dropped)
}

/// Splits `op` from `version` at the first digit.
fn split_op(token: &str) -> Result<(&str, &str), RangeError> {
    match token.find(|c: char| c.is_numeric()) {
        Some(i) => Ok((token[..i].trim(), &token[i..])),
        None => Err(RangeError::NoVersion(token.to_string())),
    }
}

fn bump(version: &str, index: usize) -> String {
    let mut parts: Vec<String> = version.split('.').map(str::to_string).collect();
    match parts.get(index).and_then(|p| p.parse::<i64>().ok()) {
        Some(n) => {
            parts[index] = (n + 1).to_string();
            parts.join(".")
        }
        None => String::new(),
    }
}

/// Rewrites wildcard tokens (`1.x`, `>1.0.x`) into plain comparators, exactly as blang does.
fn expand_wildcard(token: &str, out: &mut Vec<String>) -> Result<(), RangeError> {
    let (op, v) = split_op(token)?;
    let parts: Vec<&str> = v.split('.').collect();
    // 3 parts ending in `x`: patch wildcard (bump minor); 2 parts: minor wildcard (bump major).
    let bump_index = match (parts.len(), parts.last()) {
        (3, Some(&"x")) => Some(1),
        (2, Some(&"x")) => Some(0),
        _ => None,
    };
    let flat = v.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
    let flat = if flat.split('.').count() == 2 {
        format!("{flat}.0")
    } else {
        flat
    };
    let bumped = || bump_index.map_or(String::new(), |i| bump(&flat, i));
    let (result_op, result_version) = match op {
        ">" => (">=", bumped()),
        ">=" => (">=", flat.clone()),
        "<" => ("<", flat.clone()),
        "<=" => ("<", bumped()),
        "" | "=" | "==" => {
            out.push(format!(">={flat}"));
            ("<", bumped())
        }
        "!=" | "!" => {
            out.push(format!("<{flat}"));
            (">=", bumped())
        }
        // Any other operator is kept and rejected when the token is read.
        other => {
            out.push(format!("{other}{flat}"));
            return Ok(());
        }
    };
    out.push(format!("{result_op}{result_version}"));
    Ok(())
}

impl Range {
    /// Parses a range with blang's grammar and error messages.
    pub fn parse(s: &str) -> Result<Range, RangeError> {
        let (tokens, dropped) = split_and_trim(s);
        let mut alternatives_text: Vec<Vec<String>> = Vec::new();
        let mut current = Vec::new();
        for (i, t) in tokens.iter().enumerate() {
            if t == "||" {
                if i == 0 {
                    return Err(RangeError::LeadingOr);
                }
                alternatives_text.push(std::mem::take(&mut current));
            } else {
                current.push(t.clone());
            }
        }
        if tokens.last().is_none_or(|t| t == "||") {
            return Err(RangeError::TrailingOr);
        }
        alternatives_text.push(current);
        let mut alternatives = Vec::new();
        for alt in alternatives_text {
            let mut expanded = Vec::new();
            for t in alt {
                if t.contains('x') {
                    expand_wildcard(&t, &mut expanded)?;
                } else {
                    expanded.push(t);
                }
            }
            let mut comparators = Vec::new();
            for t in expanded {
                let (op, v) = split_op(&t)?;
                let op = Op::parse(op).ok_or_else(|| RangeError::Comparator {
                    token: t.clone(),
                    op: op.to_string(),
                    version: v.to_string(),
                })?;
                let version = Version::parse(v).map_err(|why| RangeError::Version {
                    token: t.clone(),
                    version: v.to_string(),
                    why,
                })?;
                comparators.push(Comparator { op, version });
            }
            alternatives.push(comparators);
        }
        Ok(Range {
            alternatives,
            dropped,
        })
    }

    /// Whether `v` is in the range.
    pub fn matches(&self, v: &Version) -> bool {
        self.alternatives
            .iter()
            .any(|alt| alt.iter().all(|c| c.matches(v)))
    }
}

#[cfg(test)]
#[path = "semver_range_tests.rs"]
mod tests;
