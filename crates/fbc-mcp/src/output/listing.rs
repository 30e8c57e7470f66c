//! `list`'s answer: a catalog's packages, a package's channels, or a channel's entries, as
//! `fbc-edit list -o json` prints them, with the problems met loading the catalog.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Problem;

/// One of three shapes, by what was asked: no `package`, a `package`, a `package` and `channel`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ListResult {
    Packages(Packages),
    Channels(Channels),
    Entries(Entries),
}

impl ListResult {
    /// The problems loading the catalog met (errors and warnings).
    pub fn set_load_problems(&mut self, problems: Vec<Problem>) {
        match self {
            ListResult::Packages(p) => p.load_problems = problems,
            ListResult::Channels(c) => c.load_problems = problems,
            ListResult::Entries(e) => e.load_problems = problems,
        }
    }
}

/// Every package of the catalog.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Packages {
    pub packages: Vec<PackageLine>,
    #[serde(default)]
    pub load_problems: Vec<Problem>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PackageLine {
    pub name: String,
    /// Empty when the package has no readable `olm.package` object.
    pub default_channel: String,
    /// How many channels.
    pub channels: usize,
    /// How many bundles.
    pub bundles: usize,
}

/// A package's channels, by name.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Channels {
    pub package: String,
    pub default_channel: String,
    pub channels: Vec<ChannelLine>,
    /// The package's OpenShift lifecycle (empty without one).
    pub lifecycle: Vec<LifecycleVersion>,
    #[serde(default, rename = "load_problems")]
    pub load_problems: Vec<Problem>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChannelLine {
    pub name: String,
    /// Whether it is the package's default channel.
    pub default: bool,
    /// The head, when there is exactly one.
    pub head: Option<String>,
    pub heads: Vec<String>,
    /// How many entries.
    pub entries: usize,
}

/// A version of the operator in its OpenShift lifecycle.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LifecycleVersion {
    pub name: String,
    pub phases: Vec<LifecyclePhase>,
    pub platform_compatibility: Vec<LifecyclePlatform>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LifecyclePhase {
    pub name: String,
    pub start_date: String,
    pub end_date: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LifecyclePlatform {
    pub name: String,
    pub versions: Vec<String>,
}

/// A channel's entries, in file order.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entries {
    pub package: String,
    pub channel: String,
    pub heads: Vec<String>,
    pub entries: Vec<EntryLine>,
    #[serde(default)]
    pub load_problems: Vec<Problem>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EntryLine {
    pub name: String,
    /// The bundle's version (none when the bundle is missing or has no `olm.package` property).
    pub version: Option<String>,
    /// Its release, when it has one.
    pub release: Option<String>,
    pub replaces: Option<String>,
    pub skips: Vec<String>,
    pub skip_range: Option<String>,
}
