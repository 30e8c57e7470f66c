//! Base64 decoding exactly as Go's `base64.StdEncoding` does it, so that data opm accepts (or
//! rejects, and where) is accepted (or rejected, at the same byte) here.

/// Decodes base64 the way Go's `base64.StdEncoding` does: standard alphabet, `=` padding required,
/// `\r` and `\n` ignored anywhere, unused trailing bits allowed. On failure, the byte offset Go reports.
pub fn decode(text: &str) -> Result<Vec<u8>, usize> {
    let mut out = Vec::new();
    decode_into(text.as_bytes(), &mut out).map(|()| out)
}

/// [`decode`] into a reused buffer (cleared first).
pub fn decode_into(bytes: &[u8], out: &mut Vec<u8>) -> Result<(), usize> {
    // Most data is canonical base64 on one line, which the SIMD decoder takes; it refuses
    // everything else (line breaks, unused bits set), which the rules below then decide.
    out.clear();
    if base64_simd::STANDARD.decode_append(bytes, out).is_ok() {
        return Ok(());
    }
    decode_lenient(bytes, out)
}

/// Go's rules, one byte at a time.
fn decode_lenient(bytes: &[u8], out: &mut Vec<u8>) -> Result<(), usize> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const ENGINE: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    out.clear();
    if ENGINE.decode_vec(bytes, out).is_ok() {
        return Ok(());
    }
    // Line breaks are rare: only look for them once the plain decode failed.
    if bytes.iter().any(|&b| b == b'\n' || b == b'\r') {
        let compact: Vec<u8> = bytes
            .iter()
            .copied()
            .filter(|&b| b != b'\n' && b != b'\r')
            .collect();
        out.clear();
        if ENGINE.decode_vec(compact, out).is_ok() {
            return Ok(());
        }
    }
    Err(go_base64_error_offset(bytes))
}

/// Where Go's decoder gives up: the first byte outside the alphabet, or a misplaced or missing `=`.
fn go_base64_error_offset(bytes: &[u8]) -> usize {
    let is_alpha = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let mut quantum = 0usize;
    let mut last = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' || b == b'\r' {
            i += 1;
            continue;
        }
        if is_alpha(b) {
            quantum = (quantum + 1) % 4;
            last = i;
            i += 1;
            continue;
        }
        if b == b'=' {
            // Padding is valid only as the third and/or fourth symbol of the last quantum.
            if quantum < 2 {
                return i;
            }
            let need = 4 - quantum;
            let mut j = i;
            let mut seen = 0;
            while j < bytes.len() && seen < need {
                match bytes[j] {
                    b'=' => seen += 1,
                    b'\n' | b'\r' => {}
                    _ => return j,
                }
                j += 1;
            }
            if seen < need {
                return bytes.len();
            }
            // Anything but line breaks after the padding is an error.
            return bytes[j..]
                .iter()
                .position(|&b| b != b'\n' && b != b'\r')
                .map_or(last, |p| j + p);
        }
        return i;
    }
    if quantum == 0 { last } else { bytes.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_follows_go() {
        assert_eq!(decode("aGk="), Ok(b"hi".to_vec()));
        assert_eq!(
            decode("aG\nk=".replace("\\n", "\n").as_str()),
            Ok(b"hi".to_vec())
        );
        assert_eq!(
            decode("aGl="),
            Ok(b"hi".to_vec()),
            "trailing bits are allowed"
        );
        assert_eq!(decode("aG\nk=\r\n"), Ok(b"hi".to_vec()));
        assert_eq!(decode("aGk"), Err(3), "padding is required");
        assert_eq!(decode("a*k="), Err(1));
        assert_eq!(decode("aGk=aGk="), Err(4));
    }

    /// What the SIMD decoder accepts, Go's rules accept with the same bytes; what it refuses
    /// they decide alone.
    #[test]
    fn the_simd_decoder_agrees_with_go_s_rules() {
        use base64::Engine as _;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        for case in 0..4000 {
            let len = (next() % 200) as usize;
            let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let mut text = base64::engine::general_purpose::STANDARD
                .encode(&data)
                .into_bytes();
            // Mutations: a character from the alphabet and around it, a line break, padding.
            if case % 2 == 1 && !text.is_empty() {
                let at = (next() as usize) % text.len();
                let pick = b"A/+=\n\r *-_\x00\xc3";
                text[at] = pick[(next() as usize) % pick.len()];
            }
            if case % 7 == 0 {
                text.insert((next() as usize) % (text.len() + 1), b'\n');
            }
            let a = decode_into(&text, &mut fast);
            let b = decode_lenient(&text, &mut slow);
            assert_eq!(a, b, "{:?}", String::from_utf8_lossy(&text));
            if a.is_ok() {
                assert_eq!(fast, slow, "{:?}", String::from_utf8_lossy(&text));
            }
        }
    }
}
