//! `upgrade_path`'s answer, as `fbc-edit path -o json` prints it: OLM v0's way through one channel,
//! or OLM v1's through one channel or all (with OLM v0's beside it for one).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// OLM v0's answer, or OLM v1's (`olm: "v1"`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum UpgradePathResult {
    V1(Box<V1Answer>),
    V0(V0Answer),
}

impl UpgradePathResult {
    /// Whether the head (OLM v0) or the target (OLM v1) is reached.
    pub fn set_reached(&mut self, reached: bool) {
        match self {
            UpgradePathResult::V0(a) => a.reached = Some(reached),
            UpgradePathResult::V1(a) => a.reached = reached,
        }
    }
}

/// OLM v0: the hops from the installed bundle to the channel head, and what OLM offers next.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct V0Answer {
    pub package: String,
    pub channel: String,
    /// The installed bundle, as the question named it.
    pub from: String,
    pub head: Option<String>,
    /// What OLM v0 offers from the installed bundle.
    pub next: Vec<Offer>,
    /// The hops to the head; null when there is no way (`error` says why).
    pub path: Option<Vec<V0Hop>>,
    pub error: Option<String>,
    /// Whether the head is reached (absent in the OLM v0 answer inside an OLM v1 one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Offer {
    pub entry: String,
    /// The edge kinds that offer it: `replaces`, `skips`, `skipRange`.
    pub via: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct V0Hop {
    pub from: String,
    pub to: String,
    pub via: Vec<String>,
}

/// OLM v1: each upgrade to the highest successor in the channels in scope, until there is none.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct V1Answer {
    /// The channels in scope.
    pub channels: Vec<String>,
    /// The entry hoped for: the channel head, or the highest version in scope.
    pub target: Option<String>,
    /// Where the upgrades stop.
    pub end: String,
    pub reached: bool,
    pub path: Vec<V1Hop>,
    /// `v1`.
    pub olm: String,
    pub package: String,
    pub from: String,
    /// With one channel named: OLM v0's answer in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v0: Option<V0Answer>,
    /// With one channel named: whether OLM v0 takes another way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v0_differs: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct V1Hop {
    pub from: String,
    pub to: String,
    pub version: Option<String>,
    pub release: Option<String>,
    pub via: Vec<V1Via>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct V1Via {
    pub channel: String,
    pub kind: String,
}
