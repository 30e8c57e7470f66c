//! Content digests (`sha256:…`, `sha384:…`, `sha512:…`): checked for form before they go into a
//! URL or a file name, and computed over what is read.

use sha2::{Digest as _, Sha256, Sha384, Sha512};

/// A well-formed digest: a known algorithm and lower-case hex of its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Digest {
    text: String,
}

/// A running hash for one digest's algorithm.
pub(crate) enum Hasher {
    Sha256(Sha256),
    Sha384(Sha384),
    Sha512(Sha512),
}

impl Hasher {
    /// A SHA-256 hash.
    pub fn sha256() -> Hasher {
        Hasher::Sha256(Sha256::new())
    }

    pub fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Sha384(h) => h.update(bytes),
            Hasher::Sha512(h) => h.update(bytes),
        }
    }

    /// The digest of what was hashed, as `alg:hex`.
    pub fn finish(self) -> String {
        match self {
            Hasher::Sha256(h) => format!("sha256:{:x}", h.finalize()),
            Hasher::Sha384(h) => format!("sha384:{:x}", h.finalize()),
            Hasher::Sha512(h) => format!("sha512:{:x}", h.finalize()),
        }
    }
}

impl Digest {
    /// `text` when it is a digest of a known algorithm, else `None`.
    pub fn parse(text: &str) -> Option<Digest> {
        let (alg, hex) = text.split_once(':')?;
        let len = match alg {
            "sha256" => 64,
            "sha384" => 96,
            "sha512" => 128,
            _ => return None,
        };
        let ok = hex.len() == len && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        ok.then(|| Digest {
            text: text.to_string(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn hasher(&self) -> Hasher {
        if self.text.starts_with("sha384:") {
            Hasher::Sha384(Sha384::new())
        } else if self.text.starts_with("sha512:") {
            Hasher::Sha512(Sha512::new())
        } else {
            Hasher::Sha256(Sha256::new())
        }
    }

    /// Whether `bytes` hash to this digest.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        let mut h = self.hasher();
        h.update(bytes);
        h.finish() == self.text
    }

    /// The SHA-256 digest of `bytes`.
    pub fn sha256_of(bytes: &[u8]) -> String {
        format!("sha256:{:x}", Sha256::digest(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_formed_digests_are_taken() {
        let d = Digest::sha256_of(b"x");
        assert!(Digest::parse(&d).unwrap().matches(b"x"));
        assert!(!Digest::parse(&d).unwrap().matches(b"y"));
        assert!(Digest::parse("sha256:../../x").is_none());
        assert!(Digest::parse(&d.to_uppercase()).is_none());
        assert!(Digest::parse("md5:00").is_none());
        assert!(Digest::parse(&format!("sha512:{}", "a".repeat(128))).is_some());
    }
}
