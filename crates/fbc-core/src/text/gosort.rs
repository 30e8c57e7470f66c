//! Go's unstable sort, step for step: `sort.Slice`, `sort.Sort` and `slices.SortFunc` order a slice
//! with pattern-defeating quicksort, and when two elements compare equal the order they end in
//! depends on every comparison and swap made before. opm sorts several of its outputs this way,
//! so reproducing its order means running the same algorithm with the same `less`.
//!
//! The algorithm, as Go describes and implements it since Go 1.19:
//! - a range of at most 12 elements is insertion-sorted;
//! - each range may pick `bits.Len(n)` unbalanced pivots (a side shorter than an eighth) before it
//!   is heap-sorted instead;
//! - after an unbalanced partition, three elements in the middle are swapped with elements chosen
//!   by an xorshift generator seeded with the range's length (`break_patterns`);
//! - the pivot is the element at a quarter of the range for fewer than 8 elements, the median of
//!   the elements at one, two and three quarters for fewer than 50, and Tukey's ninther (the median
//!   of the medians of each of those and its neighbours) from 50 on; the comparisons that found
//!   the elements out of order are counted, and when all 12 of them were (a range that looks
//!   descending) the range is reversed first;
//! - a range that looks ascending, after a balanced partition that moved nothing, is tried with a
//!   bounded insertion sort (at most 5 elements out of place, none moved below 50 elements);
//! - when the pivot is not greater than the element just before the range, the range is split
//!   into the elements equal to the pivot and those greater, and only the latter are sorted on;
//! - otherwise one Hoare partition around the pivot, recursing into the shorter side.
//!
//! Go 1.24 changed the shifts of the xorshift generator (13, 7, 17 where 1.19 to 1.23 used 13, 17,
//! 5), which changes the order of equal elements in ranges that get `break_patterns`; [`GoRelease`]
//! names which one to follow.

/// The Go releases whose unstable sort differs: which shifts the pattern breaker's xorshift uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GoRelease {
    /// Go 1.19 to 1.23 (opm v1.46.0 is built with Go 1.22): xorshift shifts 13, 17, 5.
    Go1_19To1_23,
    /// Go 1.24 and later (opm v1.71.0 is built with Go 1.26): xorshift shifts 13, 7, 17.
    #[default]
    Go1_24On,
}

impl GoRelease {
    /// Every variant, oldest first.
    pub const ALL: [GoRelease; 2] = [GoRelease::Go1_19To1_23, GoRelease::Go1_24On];

    /// The variant a Go toolchain `1.MINOR` sorts with, from a `go.mod` `go` or `toolchain` line
    /// such as `1.22.5` or `go1.26.3`. `None` for Go 1.18 and earlier, whose sort was a different
    /// algorithm, and for text that is no Go version.
    pub fn of_go_version(version: &str) -> Option<GoRelease> {
        let v = version.trim();
        let v = v.strip_prefix("go").unwrap_or(v);
        let mut parts = v.split('.');
        let major: u32 = parts.next()?.parse().ok()?;
        let minor: u32 = parts
            .next()?
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?;
        match (major, minor) {
            (1, 0..=18) | (0, _) => None,
            (1, 19..=23) => Some(GoRelease::Go1_19To1_23),
            _ => Some(GoRelease::Go1_24On),
        }
    }

    fn shifts(self) -> (u32, u32, u32) {
        match self {
            GoRelease::Go1_19To1_23 => (13, 17, 5),
            GoRelease::Go1_24On => (13, 7, 17),
        }
    }
}

/// Sorts `v` as Go's `sort.Slice(v, less)` does (and `sort.Sort` with the same `Less`): not stable,
/// but the same order as Go's for the same input and `less`. `less` must be a strict weak order,
/// as Go requires; any other closure still terminates and leaves a permutation of `v`.
pub fn slice<T>(v: &mut [T], release: GoRelease, less: impl FnMut(&T, &T) -> bool) {
    let n = v.len();
    let mut s = Pdq {
        v,
        less,
        shifts: release.shifts(),
    };
    s.pdqsort(0, n, bits_len(n));
}

/// Go's `bits.Len`: the number of bits needed to write `n`.
fn bits_len(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

const MAX_INSERTION: usize = 12;
const SHORTEST_NINTHER: usize = 50;
const MAX_SWAPS: u32 = 4 * 3;
const MAX_STEPS: usize = 5;
const SHORTEST_SHIFTING: usize = 50;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

struct Pdq<'a, T, F> {
    v: &'a mut [T],
    less: F,
    shifts: (u32, u32, u32),
}

impl<T, F: FnMut(&T, &T) -> bool> Pdq<'_, T, F> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        (self.less)(&self.v[i], &self.v[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.v.swap(i, j);
    }

    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: usize) {
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                // The pivot sat `pivot - a` after the start; it now sits as far before the end.
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == Hint::Increasing
                && self.partial_insertion_sort(a, b)
            {
                return;
            }
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already) = self.partition(a, b, pivot);
            was_partitioned = already;
            let (left, right) = (mid - a, b - mid);
            let threshold = length / 8;
            if left < right {
                was_balanced = left >= threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    /// Restores the max-heap below `lo` in the heap `first..first + hi`.
    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let first = a;
        let hi = b - a;
        for i in (0..=(hi - 1) / 2).rev() {
            self.sift_down(i, hi, first);
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    /// One Hoare partition of `a..b` around the element at `pivot`: returns where the pivot ends,
    /// with only smaller elements before it, and whether nothing had to move.
    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        while i <= j && self.less(i, a) {
            i += 1;
        }
        while i <= j && !self.less(j, a) {
            j -= 1;
        }
        if i > j {
            self.swap(j, a);
            return (j, true);
        }
        self.swap(i, j);
        i += 1;
        j -= 1;
        loop {
            while i <= j && self.less(i, a) {
                i += 1;
            }
            while i <= j && !self.less(j, a) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        self.swap(j, a);
        (j, false)
    }

    /// Splits `a..b`, which holds nothing smaller than the pivot, into the elements equal to it
    /// and those greater; returns where the greater ones start.
    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        loop {
            while i <= j && !self.less(a, i) {
                i += 1;
            }
            while i <= j && self.less(a, j) {
                j -= 1;
            }
            if i > j {
                return i;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }

    /// Moves a few out-of-place elements into place; true when `a..b` ends sorted.
    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            // The smaller one goes left. Go bounds this walk by the slice's start, not the
            // range's; the elements before the range are never greater, so it stops there.
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            // The greater one goes right.
            if b - i >= 2 {
                let mut j = i + 1;
                while j < b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j += 1;
                }
            }
        }
        false
    }

    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length < 8 {
            return;
        }
        let (s1, s2, s3) = self.shifts;
        let mut random = length as u64;
        let modulus = 1u64 << bits_len(length);
        let middle = a + (length / 4) * 2;
        for idx in middle - 1..=middle + 1 {
            random ^= random << s1;
            random ^= random >> s2;
            random ^= random << s3;
            let mut other = (random & (modulus - 1)) as usize;
            if other >= length {
                other -= length;
            }
            self.swap(idx, a + other);
        }
    }

    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        let l = b - a;
        let mut swaps = 0;
        let mut i = a + l / 4;
        let mut j = a + l / 4 * 2;
        let mut k = a + l / 4 * 3;
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        let hint = match swaps {
            0 => Hint::Increasing,
            MAX_SWAPS => Hint::Decreasing,
            _ => Hint::Unknown,
        };
        (j, hint)
    }

    /// The two indices with the smaller element first, counting a swap when they were not.
    fn order2(&mut self, a: usize, b: usize, swaps: &mut u32) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    fn median(&mut self, a: usize, b: usize, c: usize, swaps: &mut u32) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, _c) = self.order2(b, c, swaps);
        let (_a, b) = self.order2(a, b, swaps);
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions 0..n sorted by `keys` alone, and how many times `less` ran.
    fn order(keys: &[i64], release: GoRelease) -> (Vec<usize>, usize) {
        let mut v: Vec<usize> = (0..keys.len()).collect();
        let mut calls = 0;
        slice(&mut v, release, |&x, &y| {
            calls += 1;
            keys[x] < keys[y]
        });
        (v, calls)
    }

    #[test]
    fn short_slices_keep_equal_elements_in_place() {
        // Up to 12 elements Go insertion-sorts, which is stable.
        let keys = [3, 1, 3, 1, 2, 2, 0, 3, 1, 2, 0, 3];
        let (v, _) = order(&keys, GoRelease::default());
        assert_eq!(v, [6, 10, 1, 3, 8, 4, 5, 9, 0, 2, 7, 11]);
    }

    #[test]
    fn sorts_by_the_key_and_permutes_the_input() {
        for n in [0, 1, 2, 13, 49, 50, 51, 200, 1000] {
            let keys: Vec<i64> = (0..n).map(|i| (i * 7919 % 13) as i64).collect();
            for release in [GoRelease::Go1_19To1_23, GoRelease::Go1_24On] {
                let (v, _) = order(&keys, release);
                assert!(v.windows(2).all(|w| keys[w[0]] <= keys[w[1]]), "n={n}");
                let mut seen = v.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn go_versions_map_to_their_pattern_breaker() {
        assert_eq!(
            GoRelease::of_go_version("1.22.5"),
            Some(GoRelease::Go1_19To1_23)
        );
        assert_eq!(
            GoRelease::of_go_version("go1.23"),
            Some(GoRelease::Go1_19To1_23)
        );
        assert_eq!(
            GoRelease::of_go_version("1.24rc1"),
            Some(GoRelease::Go1_24On)
        );
        assert_eq!(
            GoRelease::of_go_version("1.26.3"),
            Some(GoRelease::Go1_24On)
        );
        assert_eq!(GoRelease::of_go_version("1.18"), None);
        assert_eq!(GoRelease::of_go_version("stable"), None);
        assert_eq!(GoRelease::default(), GoRelease::Go1_24On);
    }

    #[test]
    fn an_inconsistent_less_still_ends() {
        // A closure that is no order must not hang or index out of range.
        let mut v: Vec<u32> = (0..500).collect();
        let mut state = 1u32;
        slice(&mut v, GoRelease::default(), |_, _| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            state & 0x100 != 0
        });
        let mut seen = v.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..500).collect::<Vec<_>>());
    }
}

#[cfg(test)]
mod recorded {
    //! Orders Go itself produced (testdata/gosort: the generator and how it was run).
    use super::*;

    #[derive(serde::Deserialize)]
    struct Recording {
        go: String,
        cases: Vec<Case>,
    }

    #[derive(serde::Deserialize)]
    struct Case {
        pattern: String,
        keys: Vec<i64>,
        order: Vec<usize>,
        less: usize,
    }

    fn replay(file: &str, release: GoRelease) -> usize {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("testdata/gosort")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("recording is readable");
        let rec: Recording = serde_json::from_str(&text).expect("recording is JSON");
        assert!(rec.cases.len() > 500, "{} holds too few cases", rec.go);
        for (n, case) in rec.cases.iter().enumerate() {
            let mut v: Vec<usize> = (0..case.keys.len()).collect();
            let mut calls = 0;
            slice(&mut v, release, |&x, &y| {
                calls += 1;
                case.keys[x] < case.keys[y]
            });
            assert_eq!(
                v,
                case.order,
                "{} case {n} ({}, {} keys)",
                rec.go,
                case.pattern,
                case.keys.len()
            );
            assert_eq!(calls, case.less, "{} case {n}: calls to less", rec.go);
        }
        rec.cases.len()
    }

    #[test]
    fn orders_match_go_1_19() {
        replay("go1.19.json", GoRelease::Go1_19To1_23);
    }

    #[test]
    fn orders_match_go_1_24() {
        replay("go1.24.json", GoRelease::Go1_24On);
    }

    #[test]
    fn the_two_releases_differ_where_patterns_are_broken() {
        // Replaying one release's recording with the other's generator must fail somewhere,
        // or the recordings could not tell the variants apart.
        let other = std::panic::catch_unwind(|| replay("go1.19.json", GoRelease::Go1_24On));
        assert!(other.is_err());
    }
}
