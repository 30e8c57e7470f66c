//! Byte searches of the quick reader, a word or a vector at a time where lines are long enough
//! for it to pay.

/// The end of the line of `b` that byte `from` is on: its `\n`, or `end`.
pub(super) fn line_end(b: &[u8], from: usize, end: usize) -> usize {
    memchr::memchr(b'\n', &b[from..end]).map_or(end, |p| from + p)
}

/// The first byte of `b` from `from` on that is not a space, or `end` (at most `b.len()`). Lines
/// of catalogs are mostly indentation: it is read eight bytes at a time.
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

/// The first `:` or `#` of `hay`. Most keys and values are short: their bytes are read a word at a
/// time, and only a long rest goes to the vector search, whose start-up costs more than a short
/// search.
pub(super) fn colon_or_hash(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    const COLONS: u64 = u64::from_ne_bytes([b':'; 8]);
    const HASHES: u64 = u64::from_ne_bytes([b'#'; 8]);
    // The lowest byte with its high bit set is the first zero byte (bits above it may be wrong).
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let mut i = 0;
    while i < 32 {
        let Some(word) = hay.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) else {
            break;
        };
        let w = u64::from_le_bytes(word);
        let found = zero_bytes(w ^ COLONS) | zero_bytes(w ^ HASHES);
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let rest = &hay[i..];
    let p = if rest.len() < 16 {
        rest.iter().position(|&b| b == b':' || b == b'#')
    } else {
        memchr::memchr2(b':', b'#', rest)
    };
    p.map(|p| i + p)
}

/// Where the plain scalar that `line` (the rest of a line) starts with ends, looking from its
/// second byte: at the first `:` followed by a space or the line's end, which makes it a key
/// (`true`); else before the first ` #` or the line's end, trailing spaces left out.
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
    let mut chunks = src.chunks_exact(64);
    // Each byte is tested without branches, so that a chunk is tested a vector at a time.
    let odd =
        |b: u8| u8::from((b < 0x20) & (b != b'\n')) | u8::from(b == 0x7f) | u8::from(b == 0xef);
    let mut high = 0u8;
    for c in &mut chunks {
        let (mut bad, mut or) = (0u8, 0u8);
        for &b in c {
            bad |= odd(b);
            or |= b;
        }
        if bad != 0 {
            return (true, false);
        }
        high |= or;
    }
    let rest = chunks.remainder();
    high |= rest.iter().fold(0, |acc, &b| acc | b);
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
