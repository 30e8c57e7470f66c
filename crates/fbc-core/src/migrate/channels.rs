//! Channels of a package-manifest package: the chain of `spec.replaces` from each currentCSV, with
//! the skips and skipRanges OLM follows, and the CSVs it would strand.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::read::Csv;

/// A channel built from its head.
pub(super) struct BuiltChannel {
    pub(super) entries: Vec<Value>,
    pub(super) names: Vec<String>,
    /// CSVs reached but left out, with the skipped CSV where the chain stopped.
    pub(super) dropped: Vec<(String, Option<String>)>,
}

/// Walks from the head along `spec.replaces`, adds the CSVs the chain skips, then leaves out what
/// OLM would strand (reached only through the replaces of a skipped CSV), until nothing is stranded.
pub(super) fn build_channel(head: &str, csvs: &BTreeMap<String, Csv>) -> BuiltChannel {
    let chain = replaces_chain(head, csvs);
    let on_chain: BTreeSet<String> = chain.iter().cloned().collect();
    let skipped_only = skipped_only(&chain, &on_chain, csvs);
    let links = Links {
        csvs,
        on_chain: &on_chain,
    };
    let mut kept: BTreeSet<String> = chain.iter().chain(&skipped_only).cloned().collect();
    let dropped = drop_stranded(head, &links, &mut kept);
    let names = oldest_first(&chain, &skipped_only, &kept, csvs);
    let entries = names.iter().map(|n| entry(n, &links)).collect();
    BuiltChannel {
        entries,
        names,
        dropped,
    }
}

/// The CSVs of the package that chain members skip but that are not on the chain themselves, in
/// the order the chain meets them.
fn skipped_only(
    chain: &[String],
    on_chain: &BTreeSet<String>,
    csvs: &BTreeMap<String, Csv>,
) -> Vec<String> {
    let mut skipped_only: Vec<String> = Vec::new();
    for m in chain {
        for s in &csvs[m].skips {
            if csvs.contains_key(s) && !on_chain.contains(s) && !skipped_only.contains(s) {
                skipped_only.push(s.clone());
            }
        }
    }
    skipped_only
}

/// The links a channel keeps: only CSVs on the replaces chain keep their `replaces` and `skips`.
struct Links<'a> {
    csvs: &'a BTreeMap<String, Csv>,
    on_chain: &'a BTreeSet<String>,
}

impl<'a> Links<'a> {
    fn skips(&self, n: &str) -> &'a [String] {
        if self.on_chain.contains(n) {
            &self.csvs[n].skips
        } else {
            &[]
        }
    }

    fn replaces(&self, n: &str) -> Option<&'a str> {
        if self.on_chain.contains(n) {
            self.csvs[n].replaces.as_deref()
        } else {
            None
        }
    }
}

/// Leaves out of `kept`, round after round, the CSVs neither reached from the head nor skipped by a
/// kept CSV; returns them, each with the skipped CSV where the walk from the head stopped.
fn drop_stranded(
    head: &str,
    links: &Links<'_>,
    kept: &mut BTreeSet<String>,
) -> Vec<(String, Option<String>)> {
    let mut dropped = Vec::new();
    loop {
        let skipped: BTreeSet<&str> = kept
            .iter()
            .flat_map(|n| links.skips(n).iter().map(String::as_str))
            .collect();
        let (walked, stop) = walk_from_head(head, links, kept, &skipped);
        let stranded: Vec<String> = kept
            .iter()
            .filter(|n| !walked.contains(n.as_str()) && !skipped.contains(n.as_str()))
            .cloned()
            .collect();
        if stranded.is_empty() {
            return dropped;
        }
        for s in stranded {
            kept.remove(&s);
            dropped.push((s, stop.clone()));
        }
    }
}

/// The kept CSVs met walking `replaces` from the head, and the skipped CSV the walk stopped at, if
/// it stopped at one.
fn walk_from_head<'w>(
    head: &'w str,
    links: &Links<'w>,
    kept: &BTreeSet<String>,
    skipped: &BTreeSet<&str>,
) -> (BTreeSet<&'w str>, Option<String>) {
    let mut walked: BTreeSet<&str> = BTreeSet::from([head]);
    let mut cur = head;
    while let Some(r) = links.replaces(cur) {
        if skipped.contains(r) {
            return (walked, Some(r.to_string()));
        }
        if walked.contains(r) || !kept.contains(r) {
            break;
        }
        walked.insert(r);
        cur = r;
    }
    (walked, None)
}

/// Oldest first: the chain from its tail to the head, each CSV a chain member skips just before it.
fn oldest_first(
    chain: &[String],
    skipped_only: &[String],
    kept: &BTreeSet<String>,
    csvs: &BTreeMap<String, Csv>,
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for m in chain.iter().rev() {
        if !kept.contains(m) {
            continue;
        }
        for s in &csvs[m].skips {
            if skipped_only.contains(s) && kept.contains(s) && !names.contains(s) {
                names.push(s.clone());
            }
        }
        names.push(m.clone());
    }
    names
}

/// The channel entry of CSV `n`: its name, its links when it is on the chain, its skipRange.
fn entry(n: &str, links: &Links<'_>) -> Value {
    let c = &links.csvs[n];
    let mut e = Map::new();
    e.insert("name".into(), Value::String(n.to_string()));
    if links.on_chain.contains(n) {
        if let Some(r) = &c.replaces {
            e.insert("replaces".into(), Value::String(r.clone()));
        }
        if !c.skips.is_empty() {
            e.insert(
                "skips".into(),
                Value::Array(c.skips.iter().cloned().map(Value::String).collect()),
            );
        }
    }
    if let Some(r) = &c.skip_range {
        e.insert("skipRange".into(), Value::String(r.clone()));
    }
    Value::Object(e)
}

/// The CSVs met walking `spec.replaces` from `head` (none when `head` is no CSV of the package),
/// stopping at a name that is no CSV or already met.
pub(super) fn replaces_chain(head: &str, csvs: &BTreeMap<String, Csv>) -> Vec<String> {
    let mut chain: Vec<String> = Vec::new();
    let mut cur = csvs.get(head);
    while let Some(c) = cur {
        if chain.contains(&c.name) {
            break;
        }
        chain.push(c.name.clone());
        cur = c.replaces.as_deref().and_then(|r| csvs.get(r));
    }
    chain
}

/// Every cycle of `spec.replaces` among the package's CSVs, each once, starting at its smallest name.
pub(super) fn replaces_cycles(csvs: &BTreeMap<String, Csv>) -> Vec<Vec<String>> {
    let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
    for start in csvs.keys() {
        let mut path: Vec<&str> = vec![start];
        let mut cur: &str = start;
        while let Some(next) = csvs.get(cur).and_then(|c| c.replaces.as_deref()) {
            if !csvs.contains_key(next) {
                break;
            }
            if let Some(i) = path.iter().position(|p| *p == next) {
                let mut cycle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
                let min = cycle
                    .iter()
                    .enumerate()
                    .min_by(|a, b| a.1.cmp(b.1))
                    .map(|(i, _)| i)
                    .unwrap_or(0);
                cycle.rotate_left(min);
                found.insert(cycle);
                break;
            }
            path.push(next);
            cur = next;
        }
    }
    found.into_iter().collect()
}
