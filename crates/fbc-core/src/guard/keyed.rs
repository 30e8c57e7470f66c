//! Hash maps and sets of what catalogs name (packages, channels, bundles, versions), hashed fast
//! and keyed by a secret the process draws from the system's randomness.
//!
//! A validation looks names up many thousand times; the standard library's SipHash was 3% of its
//! instructions, foldhash under half as many. foldhash's own seed comes from addresses only, so here
//! the seed every map shares is drawn from the standard library's random keys (the system's
//! randomness): no file can be written to make many names hash alike without knowing that seed,
//! and no output shows a hash (what is listed is sorted). foldhash does not claim to resist one
//! who can watch its hashes and time them; nothing here lets input do that.

use std::hash::BuildHasher;
use std::sync::OnceLock;

use foldhash::SharedSeed;
use foldhash::fast::{FoldHasher, SeedableRandomState};

/// A hash map keyed by catalog text; made with `Map::default()`.
pub type Map<K, V> = std::collections::HashMap<K, V, Keyed>;

/// A hash set of catalog text; made with `Set::default()`.
pub type Set<T> = std::collections::HashSet<T, Keyed>;

/// The hasher of [`Map`] and [`Set`]: foldhash with a secret seed shared by the process and one of
/// each map's own.
#[derive(Clone, Debug)]
pub struct Keyed(SeedableRandomState);

impl Default for Keyed {
    fn default() -> Self {
        Keyed(SeedableRandomState::with_seed(random(), shared()))
    }
}

impl BuildHasher for Keyed {
    type Hasher = FoldHasher<'static>;

    #[inline]
    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }
}

/// A map with room for `n` entries.
pub fn map_with_capacity<K, V>(n: usize) -> Map<K, V> {
    Map::with_capacity_and_hasher(n, Keyed::default())
}

/// A set with room for `n` items.
pub fn set_with_capacity<T>(n: usize) -> Set<T> {
    Set::with_capacity_and_hasher(n, Keyed::default())
}

/// The seed every map of the process shares, drawn once.
fn shared() -> &'static SharedSeed {
    static SEED: OnceLock<SharedSeed> = OnceLock::new();
    SEED.get_or_init(|| SharedSeed::from_u64(random()))
}

/// 64 random bits: SipHash of nothing under the standard library's random keys (drawn from the
/// system once a thread; each new one differs from the last in one key).
pub(crate) fn random() -> u64 {
    std::collections::hash_map::RandomState::new().hash_one(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_find_what_they_hold_and_hash_apart() {
        let mut m: Map<&str, usize> = Map::default();
        let names: Vec<String> = (0..2000).map(|i| format!("demo.v{i}.0.0")).collect();
        for (i, n) in names.iter().enumerate() {
            m.insert(n, i);
        }
        assert!(names.iter().enumerate().all(|(i, n)| m[n.as_str()] == i));
        assert_eq!(m.get("demo.v2000.0.0"), None);
        // Two maps hash the same name differently: each has its own seed.
        let (a, b) = (Keyed::default(), Keyed::default());
        assert_ne!(a.hash_one("demo.v1.0.0"), b.hash_one("demo.v1.0.0"));
        // The seed every map shares is the process's own, not foldhash's fixed one.
        let fixed = SeedableRandomState::with_seed(7, SharedSeed::global_fixed());
        let drawn = SeedableRandomState::with_seed(7, shared());
        assert_ne!(fixed.hash_one("demo.v1.0.0"), drawn.hash_one("demo.v1.0.0"));
        let s: Set<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(s.len(), 2000);
        assert!(set_with_capacity::<u32>(10).capacity() >= 10);
        assert!(map_with_capacity::<u32, u32>(10).capacity() >= 10);
    }
}
