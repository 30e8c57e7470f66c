//! The bytes of strings a load left on disk, kept so a whole-catalog validation reads no file twice
//! (asked for with [`super::LoadOptions::keep_payloads`]).

use super::node::{Kind, Node, Str};

/// The bytes of a file's strings left on disk ([`Str::Deferred`]), kept from the load so checks
/// need not read the file again: the whole file when such strings are most of it (no copy), else
/// only their ranges.
#[derive(Debug)]
pub struct Kept {
    /// `(start in the file, start in bytes)` of each kept range, by start; empty when `bytes` is
    /// the whole file.
    ranges: Vec<(u32, u32)>,
    lens: Vec<u32>,
    bytes: Box<[u8]>,
}

impl Kept {
    /// What to keep of a file's `bytes` for the strings left on disk in `nodes`; `None` when none are.
    pub(super) fn from_load<'n>(
        bytes: Vec<u8>,
        nodes: impl Iterator<Item = &'n Node>,
    ) -> Option<Kept> {
        let mut found = Vec::new();
        for n in nodes {
            deferred_ranges(n, &mut found);
        }
        if found.is_empty() {
            return None;
        }
        let total: u64 = found.iter().map(|&(_, len)| u64::from(len)).sum();
        if total * 2 >= bytes.len() as u64 {
            return Some(Kept {
                ranges: Vec::new(),
                lens: Vec::new(),
                bytes: bytes.into_boxed_slice(),
            });
        }
        found.sort_unstable();
        found.dedup();
        let mut kept = Vec::with_capacity(total as usize);
        let mut ranges = Vec::with_capacity(found.len());
        let mut lens = Vec::with_capacity(found.len());
        for (start, len) in found {
            let piece = bytes.get(start as usize..start as usize + len as usize)?;
            ranges.push((start, kept.len() as u32));
            lens.push(len);
            kept.extend_from_slice(piece);
        }
        Some(Kept {
            ranges,
            lens,
            bytes: kept.into_boxed_slice(),
        })
    }

    /// Bytes `start..start+len` of the file as loaded, when kept.
    pub fn get(&self, start: u32, len: u32) -> Option<&[u8]> {
        let (start, len) = (start as usize, len as usize);
        if self.ranges.is_empty() {
            return self.bytes.get(start..start.checked_add(len)?);
        }
        let i = self
            .ranges
            .partition_point(|&(s, _)| s as usize <= start)
            .checked_sub(1)?;
        let (s, at) = self.ranges[i];
        let offset = start - s as usize;
        if offset + len > self.lens[i] as usize {
            return None;
        }
        let from = at as usize + offset;
        self.bytes.get(from..from + len)
    }
}

/// `(start, len)` of every string of `node` left on disk.
fn deferred_ranges(node: &Node, out: &mut Vec<(u32, u32)>) {
    match &node.kind {
        Kind::String(Str::Deferred { start, len, .. }) => out.push((*start, *len)),
        Kind::Seq(items) => items.iter().for_each(|n| deferred_ranges(n, out)),
        Kind::Map(entries) => entries.iter().for_each(|e| {
            deferred_ranges(&e.key, out);
            deferred_ranges(&e.value, out);
        }),
        _ => {}
    }
}
