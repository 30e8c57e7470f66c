//! Heap memory of a load and a validation, per catalog: the peak while loading and checking, and
//! what the loaded catalog holds afterwards, in bytes and as a multiple of the catalog's size on
//! disk. The allocator is the binary's (mimalloc), wrapped to count. Figures are printed, not
//! judged; the resident size a user sees adds the program itself (about 14 MB) and what the
//! allocator keeps around (`/usr/bin/time -v fbc-edit validate DIR`).
//!
//! Catalogs: the slices in testdata/real, the full certified v4.18 and community v4.20 catalogs
//! when `FBC_BENCH_REAL` names a directory holding them, and generated ones named by
//! `FBC_BENCH_CATALOG` (`cargo run --release --example gen_catalog -- DIR`).

mod common;

use std::alloc::{GlobalAlloc, Layout};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use fbc_core::catalog::{LoadOptions, load_with};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// mimalloc, counting the bytes asked for.
struct Counting;

// SAFETY: every call is passed on to mimalloc with the caller's own arguments; only the counters are
// kept here, and they never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's layout, under the caller's contract for `alloc`.
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from mimalloc through this allocator, with this layout.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: `ptr` came from mimalloc through this allocator, with this layout; the caller's
        // contract for `realloc` covers `new_size`.
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// Loads `dir` as `validate` does (payload bytes kept) and checks it: the peak, and what the
/// catalog holds once loaded.
fn measure(name: &str, dir: &Path) {
    let size = common::dir_size(dir).max(1) as f64;
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let options = LoadOptions {
        check_payloads: true,
        ..Default::default()
    };
    let catalog = load_with(dir, &options).expect("load");
    let held = LIVE.load(Ordering::Relaxed) - before;
    let report = fbc_core::validate::validate(&catalog);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    println!(
        "{name:<28} {:>9} on disk  held {:>9} ({:.2}x)  peak {:>9} ({:.2}x)  [{} problems]",
        mb(size as usize),
        mb(held),
        held as f64 / size,
        mb(peak),
        peak as f64 / size,
        report.diagnostics.len(),
    );
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench` absent: nothing to measure then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let targets = common::load_targets();
    for (name, dir) in targets {
        measure(&name, &dir);
    }
}
