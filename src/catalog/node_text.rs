//! The text of a string held in memory, in as few bytes as a catalog's millions of strings allow.
//!
//! Most strings of a catalog are short (keys, names, versions): they sit inside the value itself,
//! with no allocation. Longer ones are shared: the same description, image or name written many
//! times in one file is held once ([`Sharing`]), and copying a node copies a pointer.

use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use compact_str::CompactString;
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

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
    seen: HashSet<Arc<str>, Xxh3DefaultBuilder>,
}

impl Sharing {
    /// `s` as a [`Text`], sharing the allocation of an equal long string made before.
    pub fn text(&mut self, s: &str) -> Text {
        if s.len() <= INLINE {
            return Text(Repr::Short(CompactString::new(s)));
        }
        if let Some(first) = self.seen.get(s) {
            return Text(Repr::Long(first.clone()));
        }
        let long: Arc<str> = Arc::from(s);
        self.seen.insert(long.clone());
        Text(Repr::Long(long))
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
        let (Repr::Long(a), Repr::Long(b)) = (&a.0, &b.0) else {
            panic!("long strings are not inline")
        };
        assert!(Arc::ptr_eq(a, b));
    }
}
