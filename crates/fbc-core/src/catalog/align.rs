//! How the elements of an edited collection line up with the loaded ones, so that a write-back
//! touches only what changed: map entries align by key, sequence items by equality (longest common
//! subsequence). Both patchers (YAML and JSON) splice their text by this alignment.

use super::node::{Entry, Node};

/// How the kept elements of a collection line up with the new ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Old element `i` is new element `j` (possibly changed inside).
    Keep(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// Aligns old and new elements. Map entries align by key; sequence items by equality (longest common
/// subsequence), with leftover deletions and insertions in the same gap paired up as changes.
pub fn align_seq(old: &[Node], new: &[Node]) -> Vec<Op> {
    let (n, m) = (old.len(), new.len());
    // Common prefix and suffix first: most edits touch one end.
    let mut pre = 0;
    while pre < n && pre < m && old[pre] == new[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < n - pre && suf < m - pre && old[n - 1 - suf] == new[m - 1 - suf] {
        suf += 1;
    }
    let (o, w) = (&old[pre..n - suf], &new[pre..m - suf]);
    let mut ops: Vec<Op> = (0..pre).map(|i| Op::Keep(i, i)).collect();
    let mid = if o.len() * w.len() > 4_000_000 {
        // Too big to align precisely: treat as replaced wholesale.
        let mut v: Vec<Op> = (0..o.len()).map(Op::Delete).collect();
        v.extend((0..w.len()).map(Op::Insert));
        v
    } else {
        lcs(o, w)
    };
    let mid = pair_changes(mid);
    ops.extend(mid.into_iter().map(|op| match op {
        Op::Keep(i, j) => Op::Keep(i + pre, j + pre),
        Op::Delete(i) => Op::Delete(i + pre),
        Op::Insert(j) => Op::Insert(j + pre),
    }));
    ops.extend((0..suf).map(|k| Op::Keep(n - suf + k, m - suf + k)));
    ops
}

fn lcs(o: &[Node], w: &[Node]) -> Vec<Op> {
    let (n, m) = (o.len(), w.len());
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if o[i] == w[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < n || j < m {
        if i < n && j < m && o[i] == w[j] {
            ops.push(Op::Keep(i, j));
            i += 1;
            j += 1;
        } else if j < m && (i == n || t[i * (m + 1) + j + 1] >= t[(i + 1) * (m + 1) + j]) {
            ops.push(Op::Insert(j));
            j += 1;
        } else {
            ops.push(Op::Delete(i));
            i += 1;
        }
    }
    ops
}

/// Within each run between kept elements, pairs deletions with insertions as in-place changes.
fn pair_changes(ops: Vec<Op>) -> Vec<Op> {
    let mut out = Vec::with_capacity(ops.len());
    let mut k = 0;
    while k < ops.len() {
        if let Op::Keep(..) = ops[k] {
            out.push(ops[k]);
            k += 1;
            continue;
        }
        let start = k;
        while k < ops.len() && !matches!(ops[k], Op::Keep(..)) {
            k += 1;
        }
        let run = &ops[start..k];
        let dels: Vec<usize> = run
            .iter()
            .filter_map(|o| {
                if let Op::Delete(i) = o {
                    Some(*i)
                } else {
                    None
                }
            })
            .collect();
        let ins: Vec<usize> = run
            .iter()
            .filter_map(|o| {
                if let Op::Insert(j) = o {
                    Some(*j)
                } else {
                    None
                }
            })
            .collect();
        let pairs = dels.len().min(ins.len());
        for p in 0..pairs {
            out.push(Op::Keep(dels[p], ins[p]));
        }
        out.extend(dels[pairs..].iter().map(|&i| Op::Delete(i)));
        out.extend(ins[pairs..].iter().map(|&j| Op::Insert(j)));
    }
    out
}

/// Aligns map entries by key, or `None` when kept keys changed order (then the map is rewritten).
pub fn align_map(old: &[Entry], new: &[Entry]) -> Option<Vec<Op>> {
    let find = |k: &str| old.iter().position(|e| e.key_str() == k);
    let mut ops = Vec::new();
    let mut last_old: Option<usize> = None;
    let mut used = vec![false; old.len()];
    for (j, e) in new.iter().enumerate() {
        match find(e.key_str()) {
            Some(i) => {
                if last_old.is_some_and(|l| i <= l) || used[i] {
                    return None;
                }
                // Deleted keys that came before this one in the old map.
                for (d, u) in used.iter_mut().enumerate().take(i) {
                    if !*u && last_old.is_none_or(|l| d > l) {
                        ops.push(Op::Delete(d));
                        *u = true;
                    }
                }
                ops.push(Op::Keep(i, j));
                used[i] = true;
                last_old = Some(i);
            }
            None => ops.push(Op::Insert(j)),
        }
    }
    for (d, u) in used.iter().enumerate() {
        if !*u {
            ops.push(Op::Delete(d));
        }
    }
    // Deletions pushed at the end must stay after every kept element for insertion anchors to work.
    Some(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(names: &[&str]) -> Vec<Node> {
        names.iter().map(|n| Node::string(*n)).collect()
    }

    #[test]
    fn sequences_keep_common_items_and_pair_changes() {
        let ops = align_seq(&items(&["a", "b", "c"]), &items(&["a", "x", "c", "d"]));
        assert_eq!(
            ops,
            [
                Op::Keep(0, 0),
                Op::Keep(1, 1),
                Op::Keep(2, 2),
                Op::Insert(3)
            ]
        );
    }

    #[test]
    fn maps_align_by_key_unless_reordered() {
        let map =
            |keys: &[&str]| match Node::map(keys.iter().map(|k| (*k, Node::string("v"))).collect())
                .kind
            {
                crate::catalog::node::Kind::Map(e) => e,
                _ => unreachable!(),
            };
        assert_eq!(
            align_map(&map(&["a", "b"]), &map(&["a", "c", "b"])),
            Some(vec![Op::Keep(0, 0), Op::Insert(1), Op::Keep(1, 2)])
        );
        assert_eq!(align_map(&map(&["a", "b"]), &map(&["b", "a"])), None);
    }
}
