//! What the mutation tests share: an allocator that counts live bytes and the peak since the
//! last reset (refusing allocations past a hard cap, so a case that would exhaust the machine
//! aborts the test process, naming the case), and a small seedable random number generator, so
//! cases are numbered and replayable.
//!
//! Included by `tests/mutation.rs` and `tests/mutation_images.rs` with
//! `#[path = "support/mutation.rs"] mod support;`; each is its own process, measured whole.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

// ------------------------------------------------------------------------------ memory accounting

/// Counts live bytes and the peak since the last reset; refuses allocations past a hard cap so a case
/// that would exhaust the machine aborts this test process instead.
pub struct Counting;

pub static LIVE: AtomicUsize = AtomicUsize::new(0);
pub static PEAK: AtomicUsize = AtomicUsize::new(0);
pub static CASE: AtomicU64 = AtomicU64::new(u64::MAX);
const HARD_CAP: usize = 3 << 30;

// SAFETY: every call is passed on to the system allocator with the caller's own arguments; only
// the counters are kept here, and they never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        if now > HARD_CAP {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            over_cap();
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's layout, under the caller's contract for `alloc`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` through this allocator, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grow = new_size - layout.size();
            let now = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
            if now > HARD_CAP {
                LIVE.fetch_sub(grow, Ordering::Relaxed);
                over_cap();
                return std::ptr::null_mut();
            }
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: `ptr` came from `System` through this allocator, with this layout; the caller's
        // contract for `realloc` covers `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Says which case went over the cap (without allocating), before the process aborts.
fn over_cap() {
    let mut buf = *b"mutation case                      allocated past the hard cap\n";
    let mut n = CASE.load(Ordering::Relaxed);
    let mut i = 33;
    loop {
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || i == 14 {
            break;
        }
        i -= 1;
    }
    // SAFETY: `buf` is a live local array and `buf.len()` its length; descriptor 2 is only written.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), buf.len());
    }
}

// ------------------------------------------------------------------------------ cases

/// splitmix64: small, seedable, the same everywhere.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
