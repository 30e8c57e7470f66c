//! Byte searches of the quick reader, a vector or a word at a time where lines are long enough for
//! it to pay.

/// Bit `k` set where byte `k` of `chunk` is `a` or `b`: with SSE2, which every x86-64 processor
/// has.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes(chunk: &[u8; 16], a: u8, b: u8) -> u32 {
    let (ma, mb) = lanes_each(chunk, a, b);
    ma | mb
}

/// Bit `k` set where byte `k` of `chunk` is `a` or `b`: elsewhere, eight bytes at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn lanes(chunk: &[u8; 16], a: u8, b: u8) -> u32 {
    words(chunk, a, b)
}

/// Bit `k` set where byte `k` of `chunk` is `a` or `b`, eight bytes at a time with word
/// arithmetic.
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn words(chunk: &[u8; 16], a: u8, b: u8) -> u32 {
    const LOW: u64 = u64::from_ne_bytes([0x7f; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // The high bit of each byte of `x` that is zero, exactly (no carry crosses bytes).
    let zeros = |x: u64| !(((x & LOW) + LOW) | x) & HIGH;
    // Those eight bits gathered into the low byte, byte 0's lowest.
    let gather = |m: u64| ((m >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
    let half = |w: [u8; 8]| {
        let w = u64::from_le_bytes(w);
        gather(zeros(w ^ u64::from_ne_bytes([a; 8])) | zeros(w ^ u64::from_ne_bytes([b; 8])))
    };
    let (lo, hi) = chunk.split_at(8);
    let lo = half(lo.try_into().unwrap_or_default());
    let hi = half(hi.try_into().unwrap_or_default());
    lo | hi << 8
}

/// Bit `k` of the first mask set where byte `k` of `chunk` is `a`, of the second where it is `b`:
/// with SSE2, which every x86-64 processor has.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes_each(chunk: &[u8; 16], a: u8, b: u8) -> (u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline, and the load reads the sixteen bytes of
    // `chunk`, with no alignment asked.
    let (ma, mb) = unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
        (
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(a as i8))),
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))),
        )
    };
    (ma as u32, mb as u32)
}

/// Bit `k` of the first mask set where byte `k` of `chunk` is `a`, of the second where it is `b`:
/// elsewhere, eight bytes at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn lanes_each(chunk: &[u8; 16], a: u8, b: u8) -> (u32, u32) {
    (words(chunk, a, a), words(chunk, b, b))
}

/// The 64 bytes of `b` from `at` on, when there are as many.
#[inline(always)]
fn block(b: &[u8], at: usize) -> Option<&[u8; 64]> {
    <&[u8; 64]>::try_from(b.get(at..at.checked_add(64)?)?).ok()
}

/// Bit `k` of the first mask set where byte `k` of `block` is `x`, of the second where it is `y`.
#[inline(always)]
fn pair_masks(block: &[u8; 64], x: u8, y: u8) -> (u64, u64) {
    let (mut mx, mut my) = (0u64, 0u64);
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        if let Ok(chunk) = <&[u8; 16]>::try_from(chunk) {
            let (a, b) = lanes_each(chunk, x, y);
            mx |= u64::from(a) << (16 * k);
            my |= u64::from(b) << (16 * k);
        }
    }
    (mx, my)
}

/// The 64 bytes of `b` from `at` on, when there are as many: bit `k` of the first mask set where
/// byte `at + k` is a line break, of the second where it is a space. One look tells where a line
/// starting at `at` ends and how far it is indented, when it is shorter than that.
#[inline(always)]
pub(super) fn breaks_and_spaces(b: &[u8], at: usize) -> Option<(u64, u64)> {
    Some(pair_masks(block(b, at)?, b'\n', b' '))
}

/// The 64 bytes of `b` from `at` on, a bit each (bit `k` for byte `at + k`): which are line
/// breaks, spaces, colons and hashes.
#[derive(Clone, Copy, Default)]
pub(super) struct Look {
    pub(super) breaks: u64,
    pub(super) spaces: u64,
    pub(super) colons: u64,
    pub(super) hashes: u64,
}

/// [`Look`] at the 64 bytes of `b` from `at` on, when there are as many. One look tells where a
/// short line starting at `at` ends, how far it is indented, and where its key and value end.
#[inline(always)]
pub(super) fn look(b: &[u8], at: usize) -> Option<Look> {
    let block = block(b, at)?;
    let (breaks, spaces) = pair_masks(block, b'\n', b' ');
    let (colons, hashes) = pair_masks(block, b':', b'#');
    Some(Look {
        breaks,
        spaces,
        colons,
        hashes,
    })
}

/// The bytes looked at sixteen at a time before a search hands over to `memchr`, whose start-up
/// costs more than a short search but which is faster over a long one.
const SHORT: usize = 64;

/// Looks at the first bytes of `hay`, up to [`SHORT`] of them, sixteen at a time for an `x` or a
/// `y` (neither of them zero): where the first is, or how many bytes were looked at.
#[inline(always)]
fn first_of(hay: &[u8], x: u8, y: u8) -> Result<usize, usize> {
    debug_assert!(x != 0 && y != 0, "a short hay is padded with zeros");
    let mut i = 0;
    while i < SHORT {
        let mask = match hay
            .get(i..i + 16)
            .and_then(|c| <&[u8; 16]>::try_from(c).ok())
        {
            Some(chunk) => lanes(chunk, x, y),
            None => {
                // The last few bytes: the sixteen that end `hay`, those already looked at left
                // out; or in a shorter `hay`, its bytes and then zeros (never searched for).
                let mask = match hay.len().checked_sub(16) {
                    Some(back) => {
                        let chunk = <&[u8; 16]>::try_from(&hay[back..]).unwrap_or(&[0; 16]);
                        lanes(chunk, x, y) >> (i - back)
                    }
                    None => {
                        let mut last = [0; 16];
                        last[..hay.len()].copy_from_slice(hay);
                        lanes(&last, x, y)
                    }
                };
                return match mask {
                    0 => Err(hay.len()),
                    m => Ok(i + m.trailing_zeros() as usize),
                };
            }
        };
        if mask != 0 {
            return Ok(i + mask.trailing_zeros() as usize);
        }
        i += 16;
    }
    Err(i)
}

/// The end of the line of `b` that byte `from` is on: its `\n`, or `end`. Most lines of a catalog
/// are short: their first bytes are looked at sixteen at a time, and only a long rest goes to
/// `memchr`.
#[inline]
pub(super) fn line_end(b: &[u8], from: usize, end: usize) -> usize {
    let hay = &b[from..end];
    match first_of(hay, b'\n', b'\n') {
        Ok(p) => from + p,
        // Only a rest longer than the bytes looked at: a call to search nothing costs as much as
        // the look.
        Err(i) if i < hay.len() => memchr::memchr(b'\n', &hay[i..]).map_or(end, |p| from + i + p),
        Err(_) => end,
    }
}

/// The first byte of `b` from `from` on that is not a space, or `end` (at most `b.len()`). Lines
/// of catalogs are mostly indentation: it is read eight bytes at a time.
#[inline]
pub(super) fn spaces_end(b: &[u8], from: usize, end: usize) -> usize {
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    let mut i = from;
    while i + 8 <= end {
        let Some(word) = b.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) else {
            break;
        };
        let other = u64::from_le_bytes(word) ^ SPACES;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < end && b[i] == b' ' {
        i += 1;
    }
    i
}

/// The first `:` or `#` of `hay`. Most keys and values are short: their bytes are looked at sixteen
/// at a time, and only a long rest goes to `memchr2`.
#[inline]
pub(super) fn colon_or_hash(hay: &[u8]) -> Option<usize> {
    match first_of(hay, b':', b'#') {
        Ok(p) => Some(p),
        Err(i) if i < hay.len() => memchr::memchr2(b':', b'#', &hay[i..]).map(|p| i + p),
        Err(_) => None,
    }
}

/// Where the plain scalar that `line` (the rest of a line) starts with ends, looking from its
/// second byte: at the first `:` followed by a space or the line's end, which makes it a key
/// (`true`); else before the first ` #` or the line's end, trailing spaces left out.
#[inline]
pub(super) fn plain_end(line: &[u8]) -> (usize, bool) {
    let mut from = 1;
    let stop = loop {
        let Some(p) = line.get(from..).and_then(colon_or_hash) else {
            break line.len();
        };
        let p = from + p;
        if line[p] == b':' && line.get(p + 1).is_none_or(|&b| b == b' ') {
            return (p, true);
        }
        if line[p] == b'#' && line[p - 1] == b' ' {
            break p;
        }
        from = p + 1;
    };
    let trimmed = line[..stop]
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(0, |p| p + 1);
    (trimmed, false)
}

/// Whether the document has control characters (tabs and carriage returns included) or byte order
/// marks, which the full reader treats specially; and whether it is all ASCII, so that a column is
/// a count of bytes.
pub(super) fn unusual_and_ascii(src: &[u8]) -> (bool, bool) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, as just asked.
        return unsafe { unusual_and_ascii_avx2(src) };
    }
    unusual_and_ascii_in(src)
}

/// [`unusual_and_ascii`] with AVX2's vectors, twice as wide as the baseline's: it reads every byte
/// of every document.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn unusual_and_ascii_avx2(src: &[u8]) -> (bool, bool) {
    unusual_and_ascii_in(src)
}

#[inline(always)]
pub(super) fn unusual_and_ascii_in(src: &[u8]) -> (bool, bool) {
    let mut chunks = src.chunks_exact(64);
    // Each byte is tested without branches, so that a chunk is tested a vector at a time.
    let odd =
        |b: u8| u8::from((b < 0x20) & (b != b'\n')) | u8::from(b == 0x7f) | u8::from(b == 0xef);
    // The bytes of every chunk or-ed together, lane by lane: folded into one once, at the end.
    let mut lanes = [0u8; 64];
    for c in &mut chunks {
        let mut bad = 0u8;
        for (lane, &b) in lanes.iter_mut().zip(c) {
            bad |= odd(b);
            *lane |= b;
        }
        if bad != 0 {
            return (true, false);
        }
    }
    let rest = chunks.remainder();
    let high = lanes.iter().chain(rest).fold(0, |acc, &b| acc | b);
    (rest.iter().any(|&b| odd(b) != 0), high < 0x80)
}

/// Whether `src` holds a line break of Unicode's that YAML 1.1 takes for one (NEL, LS, PS), which
/// the full reader leaves out of a literal block's range where the quick one would not.
pub(super) fn unicode_line_break(src: &[u8]) -> bool {
    memchr::memchr2_iter(0xc2, 0xe2, src).any(|i| match src[i] {
        0xc2 => src.get(i + 1) == Some(&0x85),
        _ => src.get(i + 1) == Some(&0x80) && matches!(src.get(i + 2), Some(0xa8 | 0xa9)),
    })
}
