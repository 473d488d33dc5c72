//! [`Value`]'s array API, over either storage: general ([`Array`]: a block of values) or
//! packed ([`Packed`]: bare numbers). Reads hand out [`Node`]s; element-wise writes of numbers
//! keep a packed array packed; anything that needs `&mut Value` of an element (or the whole
//! block as values) turns a packed array into a general one first.

use super::packed::{Packed, PACK_MIN_LEN};
use super::{Array, ArrayRef, Elems, Node, Num, Repr, Value};

impl Value {
    /// The array, if this is one, in either storage.
    #[inline]
    pub fn as_array(&self) -> Option<ArrayRef<'_>> {
        match &self.0 {
            Repr::Array(a) => Some(ArrayRef::Values(a)),
            Repr::Packed(p) => Some(ArrayRef::Packed(p)),
            _ => None,
        }
    }

    /// The array mutably, if this is one, in general storage: a packed array is unpacked
    /// first (O(len); the element-wise writers below keep packed arrays packed).
    pub fn as_array_mut(&mut self) -> Option<&mut Array> {
        self.unpack();
        match &mut self.0 {
            Repr::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The packed storage, if this is a packed array.
    #[inline]
    pub fn as_packed(&self) -> Option<&Packed> {
        match &self.0 {
            Repr::Packed(p) => Some(p),
            _ => None,
        }
    }

    /// True for an array in packed storage.
    #[inline]
    pub fn is_packed(&self) -> bool {
        matches!(self.0, Repr::Packed(_))
    }

    /// Turns a packed array into general storage (no-op otherwise).
    pub fn unpack(&mut self) {
        if let Repr::Packed(p) = &self.0 {
            *self = Value(Repr::Array(Array::from_vec(p.to_values())));
        }
    }

    /// Packs a general array of at least [`PACK_MIN_LEN`] numbers that packed storage
    /// holds exactly (no-op otherwise). O(len).
    pub fn pack(&mut self) {
        if let Repr::Array(a) = &self.0 {
            if a.len() >= PACK_MIN_LEN {
                if let Some(p) = Packed::from_values(a.as_slice()) {
                    *self = Value(Repr::Packed(p));
                }
            }
        }
    }

    /// Array length, if this is an array.
    #[inline]
    #[allow(clippy::len_without_is_empty)] // `len` is `Option`: "not an array" differs from "empty"
    pub fn len(&self) -> Option<usize> {
        self.as_array().map(ArrayRef::len)
    }

    /// Array item `i` (None if not an array or out of range).
    #[inline]
    pub fn get(&self, i: usize) -> Option<Node<'_>> {
        self.as_array()?.get(i)
    }

    /// Array item `i`, mutably (a packed array is unpacked first; to keep it packed, write
    /// numbers with [`Value::set_num`]).
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Value> {
        self.as_array_mut()?.get_mut(i)
    }

    /// Sets array item `i` to number `n`, keeping a packed array packed when its storage
    /// holds `n`. Returns false (and does nothing) if this is not an array or `i` is out of range.
    pub fn set_num(&mut self, i: usize, n: Num) -> bool {
        if let Repr::Packed(p) = &mut self.0 {
            if p.set(i, n).is_ok() {
                return true;
            }
        }
        match self.get_mut(i) {
            Some(slot) => {
                *slot = Value::from(n);
                true
            }
            None => false,
        }
    }

    /// Appends to an array; gives `v` back if this is not an array.
    pub fn push(&mut self, v: Value) -> Result<(), Value> {
        if let (Repr::Packed(p), Some(n)) = (&mut self.0, v.as_num()) {
            if p.push(n).is_ok() {
                return Ok(());
            }
        }
        match self.as_array_mut() {
            Some(a) => {
                a.push(v);
                Ok(())
            }
            None => Err(v),
        }
    }

    /// Inserts into an array at `i <= len`; gives `v` back if not an array or `i > len`.
    pub fn insert(&mut self, i: usize, v: Value) -> Result<(), Value> {
        if let (Repr::Packed(p), Some(n)) = (&mut self.0, v.as_num()) {
            if i <= p.len() && p.insert(i, n).is_ok() {
                return Ok(());
            }
        }
        match self.as_array_mut() {
            Some(a) => a.insert(i, v),
            None => Err(v),
        }
    }

    /// Removes array item `i`.
    pub fn remove(&mut self, i: usize) -> Option<Value> {
        if let Repr::Packed(p) = &mut self.0 {
            return p.remove(i);
        }
        self.as_array_mut()?.remove(i)
    }

    /// Removes and returns the last array item.
    pub fn pop(&mut self) -> Option<Value> {
        let n = self.len()?;
        self.remove(n.checked_sub(1)?)
    }

    /// Drops array items from `n` on (no-op for non-arrays).
    pub fn truncate(&mut self, n: usize) {
        self.retain_range(0, n);
    }

    /// Keeps only array items `start..end` (clamped), like `JSON.ARRTRIM` (no-op for non-arrays).
    pub fn retain_range(&mut self, start: usize, end: usize) {
        match &mut self.0 {
            Repr::Packed(p) => p.retain_range(start, end),
            Repr::Array(a) => a.retain_range(start, end),
            _ => {}
        }
    }

    /// Iterates over array items (empty for non-arrays).
    #[inline]
    pub fn iter(&self) -> Elems<'_> {
        match self.as_array() {
            Some(a) => a.iter(),
            None => Elems::empty(),
        }
    }

    /// Iterates mutably over array items (empty for non-arrays; a packed array is unpacked first).
    #[inline]
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Value> {
        match self.as_array_mut() {
            Some(a) => a.iter_mut(),
            None => [].iter_mut(),
        }
    }
}
