//! What a checked skip proves besides what every skip does: that each value is of the type opm's
//! struct gives its key, that no plain scalar is retyped, and that no key is `olm.substitutesFor`.

use super::super::yaml11::{self, Plain};
use super::{ANY, Doubt, Skip};
use crate::catalog::gotypes::{Ty, field, named_field};
use crate::catalog::node::bool_written_otherwise;
use crate::catalog::version_release::SUBSTITUTES_FOR;

/// What a value is, as far as the type it is checked against cares (a number is a doubt).
#[derive(Clone, Copy)]
pub(super) enum Found {
    Null,
    Str,
    Bool,
    Seq,
    Map,
}

impl Skip<'_, '_> {
    /// A value read is `f`: a doubt when it is not of the type wanted, as
    /// [`validate::shape`](crate::validate::shape) checks a value against a type.
    pub(super) fn found(&self, f: Found) -> Result<(), Doubt> {
        let fits = !self.checked
            || matches!(
                (self.want, f),
                (_, Found::Null)
                    | (Ty::Raw, _)
                    | (Ty::Str | Ty::NamedStr(_), Found::Str)
                    | (Ty::Bool, Found::Bool)
                    | (Ty::Slice(_), Found::Seq)
                    | (Ty::Map(_) | Ty::Struct(_), Found::Map)
            );
        if fits { Ok(()) } else { Err(Doubt) }
    }

    /// The value of the key at bytes `p..colon`, in the innermost (a mapping), is read next: the
    /// type its field or the map gives it. A key YAML 1.1 reads as no string (which the scanner
    /// turns into one) and `olm.substitutesFor` (which a validation reads) are doubts.
    pub(super) fn key_type(&mut self, p: usize, colon: usize) -> Result<(), Doubt> {
        if !self.checked {
            return Ok(());
        }
        let key = &self.s.text[p..colon];
        // Most keys name a field of their struct exactly: YAML 1.1 reads no field's name as other
        // than a string, and none is `olm.substitutesFor`.
        if let Ty::Struct(st) = self.types[self.open - 1]
            && let Some((_, t)) = named_field(st, key)
        {
            self.want = t;
            return Ok(());
        }
        if !matches!(yaml11::resolve_plain(key), Plain::Str)
            || key.eq_ignore_ascii_case(SUBSTITUTES_FOR)
        {
            return Err(Doubt);
        }
        self.want = match self.types[self.open - 1] {
            Ty::Struct(st) => field(st, key).map_or(&ANY, |(_, t)| t),
            Ty::Map(t) => t,
            _ => &ANY,
        };
        Ok(())
    }

    /// An item of the innermost (a sequence) is read next: of the type its elements have.
    pub(super) fn item_type(&mut self) {
        if self.checked {
            self.want = match self.types[self.open - 1] {
                Ty::Slice(t) => t,
                _ => &ANY,
            };
        }
    }

    /// The plain scalar `text`, on one line, is read: what YAML 1.1 reads it as. A number, and a
    /// boolean written otherwise than `true`/`false` in some case (`yes`, `on`), are doubts.
    pub(super) fn found_plain(&self, text: &str) -> Result<(), Doubt> {
        if !self.checked {
            return Ok(());
        }
        match yaml11::resolve_plain(text) {
            Plain::Null => self.found(Found::Null),
            Plain::Str => self.found(Found::Str),
            Plain::Bool(b) if !bool_written_otherwise(b, text.len()) => self.found(Found::Bool),
            _ => Err(Doubt),
        }
    }
}
