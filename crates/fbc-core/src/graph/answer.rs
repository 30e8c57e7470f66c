//! An upgrade question's answers as JSON, the form `fbc-edit path --output json` prints and the
//! MCP server's `upgrade_path` tool returns.

use serde_json::{Value, json};

use super::channel::{ChannelGraph, EdgeKind};
use super::query::{Installed, NoPath, V1Path};
use super::upgrade::{UpgradeQuery, V0Answer};

fn kinds(via: &[EdgeKind]) -> Vec<&'static str> {
    via.iter().map(|k| k.as_str()).collect()
}

/// OLM v0's answer for one channel (`g`, the channel it was asked in).
pub fn v0_value(g: &ChannelGraph, from: &Installed, answer: &V0Answer) -> Value {
    let V0Answer { path, offers } = answer;
    let head = g.chain.head().unwrap_or_default();
    json!({
        "package": g.package,
        "channel": g.channel,
        "from": from.describe(),
        "head": if head.is_empty() { Value::Null } else { head.into() },
        "next": offers.iter().map(|o| json!({
            "entry": g.graph[o.entry].name,
            "via": kinds(&o.via),
        })).collect::<Vec<_>>(),
        "path": match path {
            Ok(hops) => hops.iter().map(|h| json!({
                "from": h.from,
                "to": g.graph[h.to].name,
                "via": kinds(&h.via),
            })).collect::<Vec<_>>().into(),
            Err(_) => Value::Null,
        },
        "error": path.as_ref().err().map(NoPath::to_string),
    })
}

/// OLM v1's way through the channels in `scope`.
pub fn v1_value(p: &V1Path, scope: &[String]) -> Value {
    json!({
        "channels": scope,
        "target": p.target,
        "end": p.end,
        "reached": p.reached,
        "path": p.hops.iter().map(|h| json!({
            "from": h.from,
            "to": h.to,
            "version": h.version.as_ref().map(|v| v.version.to_string()),
            "release": h.version.as_ref().filter(|v| v.has_release()).map(|v| v.release_text()),
            "via": h.via.iter().map(|(c, k)| json!({"channel": c, "kind": k.as_str()})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

impl UpgradeQuery {
    /// OLM v0's answer as JSON, and whether the head is reached.
    pub fn v0_json(&self) -> (Value, bool) {
        let answer = self.v0();
        (
            v0_value(self.first(), self.from(), &answer),
            answer.path.is_ok(),
        )
    }

    /// OLM v1's answer as JSON (with OLM v0's beside it when one channel was named: `v0`, and
    /// `v0_differs`), and whether the target is reached.
    pub fn v1_json(&self, package: &str, channel: Option<&str>) -> (Value, bool) {
        let p = self.v1();
        let scope: Vec<String> = self.graphs().iter().map(|g| g.channel.clone()).collect();
        let mut value = v1_value(&p, &scope);
        value["olm"] = "v1".into();
        value["package"] = package.into();
        value["from"] = self.from().describe().into();
        if channel.is_some() {
            let v0 = self.v0();
            value["v0"] = v0_value(self.first(), self.from(), &v0);
            value["v0_differs"] = (!v0.same_way_as(self.first(), &p)).into();
        }
        (value, p.reached)
    }
}
