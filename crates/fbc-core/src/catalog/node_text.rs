//! The text of a string held in memory, in as few bytes as a catalog's millions of strings allow.
//!
//! Most strings of a catalog are short (keys, names, versions): they sit inside the value itself,
//! with no allocation. Longer ones are shared: the same description, image or name written many
//! times in one file is held once ([`Sharing`]), and copying a node copies a pointer.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use compact_str::CompactString;

/// Strings up to this many bytes are held inline.
const INLINE: usize = std::mem::size_of::<String>();

/// An immutable string: inline when short, else shared.
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    /// At most [`INLINE`] bytes, so never on the heap.
    Short(CompactString),
    Long(Arc<str>),
}

impl Text {
    pub fn new(s: &str) -> Text {
        if s.len() <= INLINE {
            Text(Repr::Short(CompactString::new(s)))
        } else {
            Text(Repr::Long(Arc::from(s)))
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Short(s) => s.as_str(),
            Repr::Long(s) => s,
        }
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::new(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::new(&s)
    }
}

impl From<Box<str>> for Text {
    fn from(s: Box<str>) -> Text {
        Text::new(&s)
    }
}

impl From<std::borrow::Cow<'_, str>> for Text {
    fn from(s: std::borrow::Cow<'_, str>) -> Text {
        Text::new(&s)
    }
}

/// Makes equal long strings read from one file share one allocation.
#[derive(Default)]
pub struct Sharing {
    /// The long strings made so far, by their hash (the first one of a hash).
    seen: HashMap<u64, Arc<str>, BuildHasherDefault<Hashed>>,
}

impl Sharing {
    /// `s` as a [`Text`], sharing the allocation of an equal long string made before.
    pub fn text(&mut self, s: &str) -> Text {
        if s.len() <= INLINE {
            return Text(Repr::Short(CompactString::new(s)));
        }
        let hash = xxhash_rust::xxh3::xxh3_64_with_secret(s.as_bytes(), secret());
        match self.seen.get(&hash) {
            Some(first) if **first == *s => Text(Repr::Long(first.clone())),
            // Two strings with one hash: the second is simply not shared.
            Some(_) => Text(Repr::Long(Arc::from(s))),
            None => {
                let long: Arc<str> = Arc::from(s);
                self.seen.insert(hash, long.clone());
                Text(Repr::Long(long))
            }
        }
    }
}

/// The process's own key for hashing strings, so that no file can be written to make many of its
/// strings hash alike and slow the reading down.
fn secret() -> &'static [u8] {
    static SECRET: OnceLock<Vec<u8>> = OnceLock::new();
    SECRET.get_or_init(|| {
        (0..24)
            .flat_map(|_| crate::guard::keyed::random().to_le_bytes())
            .collect()
    })
}

/// The hasher of keys that are hashes already.
#[derive(Default)]
struct Hashed(u64);

impl Hasher for Hashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_strings_read_back_as_written() {
        for s in [
            "",
            "name",
            "x".repeat(INLINE).as_str(),
            "é".repeat(40).as_str(),
        ] {
            let t = Text::new(s);
            assert_eq!(&*t, s);
            assert_eq!(t, Text::from(s.to_string()));
            assert_eq!(format!("{t:?}"), format!("{s:?}"));
        }
    }

    #[test]
    fn equal_long_strings_are_held_once_after_sharing() {
        let long = "a description longer than an inline string";
        let mut sharing = Sharing::default();
        let (a, b) = (sharing.text(long), sharing.text(long));
        assert_eq!((&*a, &*b), (long, long));
        assert_eq!(&*sharing.text("short"), "short");
        let other = "another description longer than an inline string";
        assert_eq!(&*sharing.text(other), other);
        let (Repr::Long(a), Repr::Long(b)) = (&a.0, &b.0) else {
            panic!("long strings are not inline")
        };
        assert!(Arc::ptr_eq(a, b));
    }
}
