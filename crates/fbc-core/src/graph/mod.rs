//! Upgrade graphs of channels: which entry is the head, and whether every entry can reach it.
//!
//! These are opm's rules (`Channel.Head`, `validateReplacesChain`), which also decide what OLM v0
//! offers. They are computed here once; validation and the faces use them.

pub mod answer;
pub mod channel;
pub mod export;
pub mod filter;
pub mod layout;
pub mod listing;
pub mod query;
mod upgrade;

use crate::guard::keyed::{self, Map, Set};

use crate::catalog::model::ChannelEntry;

/// The result of checking a channel's replaces chain, as opm does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chain<'a> {
    /// Exactly one head and every entry is on its replaces chain or skipped.
    Valid {
        head: &'a str,
        /// The head, then each entry it replaces in turn, as long as they are in the channel.
        chain: Vec<&'a str>,
    },
    /// The channel has no entries.
    Empty,
    /// Every entry is replaced or skipped by another one.
    NoHead,
    /// Several entries are neither replaced nor skipped (sorted).
    MultipleHeads(Vec<&'a str>),
    /// The replaces chain from the head comes back to an entry: the path from that entry to itself.
    Cycle(Vec<&'a str>),
    /// Entries neither on the head's replaces chain nor skipped by any entry (sorted).
    Stranded {
        head: &'a str,
        chain: Vec<&'a str>,
        stranded: Vec<&'a str>,
    },
}

/// Entries that no entry of the channel replaces or skips, sorted and without repeats. `skipRange`
/// does not count: an entry linked only by a skipRange is a head of its own.
pub fn heads<'a>(entries: &[ChannelEntry<'a>]) -> Vec<&'a str> {
    let referenced = referenced(entries);
    let mut heads: Vec<&str> = entries
        .iter()
        .map(|e| e.name)
        .filter(|n| !referenced.contains(n))
        .collect();
    heads.sort_unstable();
    heads.dedup();
    heads
}

fn referenced<'a>(entries: &[ChannelEntry<'a>]) -> Set<&'a str> {
    let mut referenced = keyed::set_with_capacity(entries.len() * 2);
    for e in entries {
        if let Some(r) = e.replaces {
            referenced.insert(r);
        }
        referenced.extend(e.skips.iter().copied());
    }
    referenced
}

/// Checks a channel's head and replaces chain exactly as opm does:
/// exactly one head; walking `replaces` from it (stopping before a target some entry skips, since
/// OLM v0 ignores a skipped bundle's edges, or at a name not in the channel) must not revisit an
/// entry; and every entry must be on that walk or skipped. When an entry name repeats, its first
/// occurrence counts.
pub fn check_chain<'a>(entries: &[ChannelEntry<'a>]) -> Chain<'a> {
    if entries.is_empty() {
        return Chain::Empty;
    }
    let hs = heads(entries);
    let head = match hs.as_slice() {
        [] => return Chain::NoHead,
        [one] => *one,
        _ => return Chain::MultipleHeads(hs),
    };
    let mut by_name: Map<&str, &ChannelEntry<'a>> = keyed::map_with_capacity(entries.len());
    for e in entries {
        by_name.entry(e.name).or_insert(e);
    }
    let skipped: Set<&str> = entries
        .iter()
        .flat_map(|e| e.skips.iter().copied())
        .collect();
    let mut on_chain: Set<&str> = Set::from_iter([head]);
    let mut chain = vec![head];
    let mut cur = by_name[head];
    loop {
        let target = cur.replaces.unwrap_or("");
        // A missing `replaces` reads as "" in opm's model, and the walk treats it like any name.
        if skipped.contains(target) || (target.is_empty() && !by_name.contains_key("")) {
            break;
        }
        if on_chain.contains(target) {
            let from = chain.iter().position(|&n| n == target).unwrap_or(0);
            let mut cycle = chain[from..].to_vec();
            cycle.push(target);
            return Chain::Cycle(cycle);
        }
        on_chain.insert(target);
        match by_name.get(target) {
            Some(next) => {
                chain.push(target);
                cur = next;
            }
            None => break,
        }
    }
    let mut stranded: Vec<&str> = by_name
        .keys()
        .copied()
        .filter(|n| !on_chain.contains(n) && !skipped.contains(n))
        .collect();
    if stranded.is_empty() {
        Chain::Valid { head, chain }
    } else {
        stranded.sort_unstable();
        Chain::Stranded {
            head,
            chain,
            stranded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::node::{Kind, Node, Pos, Style};

    static NULL: Node = Node::with(Kind::Null, Pos::NONE, Style::Any);

    /// `"v2<v1"` = v2 replaces v1; `"v3!v1,v2"` = v3 skips v1 and v2; both may combine: `"v3<v2!v2"`.
    fn channel(spec: &[&'static str]) -> Vec<ChannelEntry<'static>> {
        spec.iter()
            .map(|s| {
                let (head, skips) = s.split_once('!').unwrap_or((s, ""));
                let (name, replaces) = head.split_once('<').unwrap_or((head, ""));
                ChannelEntry {
                    name,
                    replaces: (!replaces.is_empty()).then_some(replaces),
                    skips: skips.split(',').filter(|s| !s.is_empty()).collect(),
                    skip_range: None,
                    node: &NULL,
                }
            })
            .collect()
    }

    #[test]
    fn follows_opms_examples() {
        use Chain::{Cycle, Empty, MultipleHeads, NoHead, Stranded, Valid};
        let cases: Vec<(Vec<&str>, Chain)> = vec![
            (
                vec!["v1", "v2<v1", "v3!v2"],
                Stranded {
                    head: "v3",
                    chain: vec!["v3"],
                    stranded: vec!["v1"],
                },
            ),
            (
                vec!["v1", "v2<v1", "v3<v2!v2"],
                Stranded {
                    head: "v3",
                    chain: vec!["v3"],
                    stranded: vec!["v1"],
                },
            ),
            (
                vec!["v1", "v2!v1", "v3!v2", "v4<v3"],
                Valid {
                    head: "v4",
                    chain: vec!["v4", "v3"],
                },
            ),
            (
                vec!["v1<v0", "v2<v1", "v3<v2"],
                Valid {
                    head: "v3",
                    chain: vec!["v3", "v2", "v1"],
                },
            ),
            (vec!["a<b", "b<a"], NoHead),
            (vec!["a", "b"], MultipleHeads(vec!["a", "b"])),
            (
                vec!["h<v3", "v3<v2", "v2<v1", "v1<v3"],
                Cycle(vec!["v3", "v2", "v1", "v3"]),
            ),
            (vec!["h<v4", "v4<v4"], Cycle(vec!["v4", "v4"])),
            (vec![], Empty),
        ];
        for (spec, want) in cases {
            assert_eq!(check_chain(&channel(&spec)), want, "{spec:?}");
        }
    }

    #[test]
    fn skip_range_does_not_make_a_head() {
        let mut entries = channel(&["v1", "v2"]);
        entries[1].skip_range = Some("<2.0.0");
        assert_eq!(heads(&entries), vec!["v1", "v2"]);
    }
}
