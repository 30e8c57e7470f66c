//! Scanning JSON text fast: where a run of plain string text ends, and whether bytes are plainly one
//! JSON value.

/// The first byte at or after `from` that ends a run of plain string text: a quote, a backslash or
/// a control character (`bytes.len()` when there is none). The long strings of a catalog
/// (bundle-object payloads) are crossed at memory speed: a SIMD search for the quote or backslash,
/// then a check for control characters before it, 64 bytes at a time.
pub fn special_byte(bytes: &[u8], from: usize) -> usize {
    let rest = bytes.get(from..).unwrap_or_default();
    let stop = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
    let mut at = 0;
    for block in rest[..stop].chunks(64) {
        // No early exit inside a block, so the compiler tests it with vector instructions.
        if block.iter().fold(false, |found, &b| found | (b < 0x20)) {
            let k = block.iter().position(|&b| b < 0x20).unwrap_or(block.len());
            return from + at + k;
        }
        at += block.len();
    }
    from + stop
}

/// Whether `bytes` are one JSON value (with blanks around it) written plainly enough that every
/// strict JSON parser takes it: ASCII only, strings without `\u` escapes, numbers of at most 15
/// digits without an exponent, nesting at most 100 deep. `false` says only that the text is not
/// plain; it may still be JSON. Long strings are crossed at memory speed ([`special_byte`]).
pub fn is_plain_json(bytes: &[u8]) -> bool {
    let mut p = Plain {
        b: bytes,
        i: 0,
        depth: 0,
    };
    p.blanks();
    let ok = p.value();
    p.blanks();
    ok && p.i == bytes.len()
}

struct Plain<'a> {
    b: &'a [u8],
    i: usize,
    depth: u32,
}

impl Plain<'_> {
    fn at(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn blanks(&mut self) {
        while matches!(self.at(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> bool {
        match self.at() {
            Some(b'{') => self.collection(b'}', true),
            Some(b'[') => self.collection(b']', false),
            Some(b'"') => self.string(),
            Some(b't') => self.word(b"true"),
            Some(b'f') => self.word(b"false"),
            Some(b'n') => self.word(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => false,
        }
    }

    fn word(&mut self, word: &[u8]) -> bool {
        let found = self.b[self.i..].starts_with(word);
        self.i += word.len();
        found
    }

    fn string(&mut self) -> bool {
        self.i += 1;
        loop {
            let from = self.i;
            self.i = special_byte(self.b, from);
            if !self.b[from..self.i].is_ascii() {
                return false;
            }
            match (self.at(), self.b.get(self.i + 1)) {
                (Some(b'"'), _) => {
                    self.i += 1;
                    return true;
                }
                (Some(b'\\'), Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')) => {
                    self.i += 2
                }
                // A control character, another escape, or the end of the text.
                _ => return false,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.i;
        while matches!(self.at(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - from
    }

    fn number(&mut self) -> bool {
        if self.at() == Some(b'-') {
            self.i += 1;
        }
        let whole = self.digits();
        if whole == 0 || (whole > 1 && self.b[self.i - whole] == b'0') {
            return false;
        }
        let mut digits = whole;
        if self.at() == Some(b'.') {
            self.i += 1;
            let fraction = self.digits();
            if fraction == 0 {
                return false;
            }
            digits += fraction;
        }
        digits <= 15 && !matches!(self.at(), Some(b'e' | b'E'))
    }

    /// An object (`keyed`) or an array, from its opening bracket to `close`.
    fn collection(&mut self, close: u8, keyed: bool) -> bool {
        self.depth += 1;
        if self.depth > 100 {
            return false;
        }
        self.i += 1;
        self.blanks();
        if self.at() == Some(close) {
            self.i += 1;
            self.depth -= 1;
            return true;
        }
        loop {
            if keyed {
                if self.at() != Some(b'"') || !self.string() {
                    return false;
                }
                self.blanks();
                if self.at() != Some(b':') {
                    return false;
                }
                self.i += 1;
                self.blanks();
            }
            if !self.value() {
                return false;
            }
            self.blanks();
            match self.at() {
                Some(b',') => {
                    self.i += 1;
                    self.blanks();
                }
                Some(c) if c == close => {
                    self.i += 1;
                    self.depth -= 1;
                    return true;
                }
                _ => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_scan_stops_where_a_byte_by_byte_scan_does() {
        let naive = |b: &[u8], from: usize| {
            (from..b.len())
                .find(|&i| b[i] == b'"' || b[i] == b'\\' || b[i] < 0x20)
                .unwrap_or(b.len())
        };
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..40usize {
            for special in 0..=255u8 {
                for at in [0, len / 3, len.saturating_sub(1)] {
                    let mut bytes: Vec<u8> = (0..len)
                        .map(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            // Plain text, with high bytes as in UTF-8 and now and then a special.
                            match seed % 16 {
                                0 => b'"',
                                1 => 0x1f,
                                2 => 0xe2,
                                _ => b'a' + (seed % 26) as u8,
                            }
                        })
                        .collect();
                    if at < len {
                        bytes[at] = special;
                    }
                    for from in [0, 1, 5].into_iter().filter(|&f| f <= len) {
                        assert_eq!(
                            special_byte(&bytes, from),
                            naive(&bytes, from),
                            "{bytes:?} from {from}"
                        );
                    }
                }
            }
        }
    }

    /// Whatever the plain check takes, serde_json takes too; and it takes the plain documents a
    /// manifest is made of.
    #[test]
    fn plain_json_is_json() {
        let doc = br#"{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a-b", "labels": {"x": "y\n\"z\""}}, "spec": {"ports": [{"port": 8443, "ratio": -0.25, "on": true, "off": false, "none": null}], "list": [[], {}, [1, 2]]}}"#;
        assert!(is_plain_json(doc));
        assert!(is_plain_json(b"  [1, \"\\/\"]\n"));
        for not in [
            &b"{\"a\": 1,}"[..],
            b"{\"a\" 1}",
            b"[01]",
            b"[1.]",
            b"[1e5]",
            b"[\"\\u00e9\"]",
            b"[\"\xc3\xa9\"]",
            b"[\"tab\there\"]",
            b"{} {}",
            b"[tru]",
            b"",
        ] {
            assert!(!is_plain_json(not), "{:?}", String::from_utf8_lossy(not));
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as usize
        };
        let pieces: &[&[u8]] = &[
            b"{", b"}", b"[", b"]", b",", b":", b"\"", b"\\", b"0", b"-", b".", b"e", b" ", b"\n",
            b"a", b"true", b"\x01", b"\xc3",
        ];
        let mut plain = 0;
        for _ in 0..20_000 {
            let mut text = doc.to_vec();
            for _ in 0..1 + next() % 3 {
                let at = next() % (text.len() + 1);
                let piece = pieces[next() % pieces.len()];
                if next() % 2 == 0 && at < text.len() {
                    text.remove(at);
                } else {
                    text.splice(at..at, piece.iter().copied());
                }
            }
            if is_plain_json(&text) {
                plain += 1;
                assert!(
                    serde_json::from_slice::<serde::de::IgnoredAny>(&text).is_ok(),
                    "{:?}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
        assert!(
            plain > 1000,
            "the mutations leave many documents plain ({plain})"
        );
    }
}
