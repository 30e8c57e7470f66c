//! The allocator's settings for this program.

/// mimalloc 2's `mi_option_purge_delay` (its place in v2's `mi_option_e`, which the crate's
/// bindings do not name): how many milliseconds freed memory stays committed before it goes back
/// to the system.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc 2's default purge delay, in milliseconds.
const DEFAULT_PURGE_DELAY: std::ffi::c_long = 10;

/// How long freed memory is kept for reuse before it goes back to the system, in milliseconds.
/// A rendering or a load frees and allocates again in bursts; with mimalloc's 10 ms, memory
/// went back and was faulted in again thousands of times a second (`repo check` spent a quarter
/// of its CPU time in the kernel). One second keeps a burst's memory for the next one and still
/// returns what a finished phase left.
pub const KEEP_FREED_MS: std::ffi::c_long = 1000;

/// Sets the allocator's options; call first thing in `main`. Leaves them as they are when the
/// option does not read as mimalloc 2's purge delay (a different mimalloc), rather than set
/// another option.
pub fn tune() {
    // SAFETY: mi_option_get and mi_option_set read and store one option value in mimalloc's
    // option table; any `mi_option_t` below `_mi_option_last` is a valid index, which 15 is in
    // mimalloc 2, and they are safe to call from any thread at any time.
    unsafe {
        if libmimalloc_sys::mi_option_get(PURGE_DELAY) == DEFAULT_PURGE_DELAY {
            libmimalloc_sys::mi_option_set(PURGE_DELAY, KEEP_FREED_MS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_is_set_where_mimalloc_keeps_it() {
        // The option read first is mimalloc's default purge delay: the index names it.
        // SAFETY: as in `tune`.
        let before = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(before, DEFAULT_PURGE_DELAY);
        tune();
        // SAFETY: as in `tune`.
        let after = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(after, KEEP_FREED_MS);
    }
}
