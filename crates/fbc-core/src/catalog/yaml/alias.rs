//! How much a YAML document may copy through its aliases.

/// go-yaml's guard against alias bombs ("billion laughs"), which opm's YAML reader inherits: every node
/// decoded counts once, every node decoded again through an alias counts as aliased too, and a document
/// whose aliased share is too large for its size is refused. Counting the way go-yaml does keeps the same
/// verdict; checking the anchored node's size before copying it keeps the work and memory bounded.
#[derive(Default)]
pub(super) struct AliasBudget {
    decoded: u64,
    aliased: u64,
    /// Bytes of text the aliases copied, and how many they may copy.
    copied: u64,
    pub(super) copy_limit: u64,
}

impl AliasBudget {
    const RANGE_LOW: u64 = 400_000;
    const RANGE_HIGH: u64 = 4_000_000;

    /// The share of decoded nodes that may come from aliases, for a document of `decoded` nodes.
    fn allowed_ratio(decoded: u64) -> f64 {
        if decoded <= Self::RANGE_LOW {
            0.99
        } else if decoded >= Self::RANGE_HIGH {
            0.10
        } else {
            0.99 - 0.89
                * ((decoded - Self::RANGE_LOW) as f64 / (Self::RANGE_HIGH - Self::RANGE_LOW) as f64)
        }
    }

    /// A budget for a document of `len` bytes: besides go-yaml's count of nodes, the text aliases
    /// copy is held to 16 MiB or four times the document, whichever is more. (go-yaml shares an
    /// aliased string; here each alias is a copy, so a huge string aliased a few hundred times would
    /// otherwise take hundreds of times the document's size in memory.)
    pub(super) fn new(len: usize) -> AliasBudget {
        AliasBudget {
            copy_limit: (16u64 << 20).max(4 * len as u64),
            ..Default::default()
        }
    }

    pub(super) fn node(&mut self) {
        self.decoded = self.decoded.saturating_add(1);
    }

    /// An alias to a node holding `bytes` bytes of text in memory: false when the aliases of the
    /// document now copy too much text.
    pub(super) fn copy(&mut self, bytes: u64) -> bool {
        self.copied = self.copied.saturating_add(bytes);
        self.copied <= self.copy_limit
    }

    /// An alias to a node of `size` nodes: false when the document now aliases too much.
    pub(super) fn alias(&mut self, size: u64) -> bool {
        self.decoded = self.decoded.saturating_add(1).saturating_add(size);
        self.aliased = self.aliased.saturating_add(size);
        !(self.aliased > 100
            && self.decoded > 1000
            && self.aliased as f64 / self.decoded as f64 > Self::allowed_ratio(self.decoded))
    }
}
