//! [`Packed`]: an array of numbers stored as bare numbers (8 bytes an element or less)
//! instead of 16-byte [`Value`]s.
//!
//! Exact storage (no hint) keeps every number as written: all integers -> `i64` slots, all
//! floats -> `f64` slots, both -> 8-byte slots plus a bitmap saying which slots are integers
//! (1 bit an element). Integers above `i64::MAX` are not packed (the array stays general).
//! `FPHA` storage ([`FpType`]) keeps every element as that float type (`f32`: 4 bytes, `f16` and
//! `bf16`: 2); `FPHA FP64` is the all-float storage.
//!
//! A write that the storage cannot hold (a non-number, a `u64`, an `FPHA` element out of its
//! type's range) is refused here (`Err`), and the owner ([`Value`]) turns the array back into
//! the general form first. The block is one boxed [`Store`] holding `Vec`s, so there is no
//! unsafe code here; its fixed cost (56 bytes) is why short arrays stay general
//! ([`PACK_MIN_LEN`]).

use std::mem::ManuallyDrop;

use super::fpha::{f32_shortest, FpType, Half};
use super::{Num, Value};

/// Arrays of at least this many numbers are packed (exact storage). The boxed store costs 56
/// bytes besides the slots, so packing n numbers takes 56 + 8n heap bytes against 8 + 16n:
/// it saves from 7 elements on; at 8 it saves 8 bytes and more with every element. Shorter
/// arrays, whose saving would be a few bytes, stay general, so small arrays that often change
/// type under writes (`[1,"a"]`) never convert back and forth. `FPHA` packs every non-empty
/// array of numbers (its values are rounded whatever the length).
pub const PACK_MIN_LEN: usize = 8;

/// A packed array of numbers. `size_of::<Packed>() == 8`.
///
/// The box is dropped by hand, out of line ([`Drop`] below), so that the drop glue of every
/// `Value` (one of whose variants is a `Packed`) stays as small as without packed arrays.
pub struct Packed(ManuallyDrop<Box<Store>>);

impl Drop for Packed {
    #[inline(never)]
    fn drop(&mut self) {
        // SAFETY: 1. the box is dropped exactly once, here; `self` is never used again.
        unsafe { ManuallyDrop::drop(&mut self.0) }
    }
}

/// The slots of a packed array.
enum Store {
    /// All integers.
    I64(Vec<i64>),
    /// All floats (also `FPHA FP64`).
    F64(Vec<f64>),
    /// Integers and floats: the bits of each (`i64` or `f64`), and bit `i % 64` of word `i / 64`
    /// of `ints` set when slot `i` is an integer.
    Mixed { slots: Vec<u64>, ints: Vec<u64> },
    /// `FPHA FP32`.
    F32(Vec<f32>),
    /// `FPHA FP16`.
    F16(Vec<u16>),
    /// `FPHA BF16`.
    Bf16(Vec<u16>),
}

/// `v` with the same capacity as `src` (so a clone reports the same memory).
fn clone_vec<T: Copy>(src: &Vec<T>) -> Vec<T> {
    let mut v = Vec::with_capacity(src.capacity());
    v.extend_from_slice(src);
    v
}

fn bit(ints: &[u64], i: usize) -> bool {
    ints.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

fn set_bit(ints: &mut Vec<u64>, i: usize, on: bool) {
    if ints.len() <= i / 64 {
        ints.resize(i / 64 + 1, 0);
    }
    let w = &mut ints[i / 64];
    if on {
        *w |= 1 << (i % 64);
    } else {
        *w &= !(1 << (i % 64));
    }
}

/// One slot of a mixed array: its bits and whether it is an integer.
fn mixed_slot(n: Num) -> Option<(u64, bool)> {
    match n {
        Num::I64(i) => Some((i as u64, true)),
        Num::F64(f) => Some((f.to_bits(), false)),
        Num::U64(_) => None,
    }
}

/// Rounds `x` to an `FPHA` 16-bit format: its bits, or `None` when out of range.
fn half_bits(h: Half, x: f64) -> Option<u16> {
    h.round(x).map(|r| h.encode(r))
}

impl Packed {
    #[inline]
    fn store(&self) -> &Store {
        &self.0
    }

    #[inline]
    fn store_mut(&mut self) -> &mut Store {
        &mut self.0
    }

    /// `items` packed exactly, if they are all numbers storable that way (no `u64` above
    /// `i64::MAX`). Exact capacity.
    pub(crate) fn from_values(items: &[Value]) -> Option<Packed> {
        // Most arrays that are not numbers show it at once: no allocation for them.
        if !items.first().is_some_and(Value::is_number) {
            return None;
        }
        // One pass: every number's bits in its slot, which slots are integers, and whether
        // there are integers and floats. Exact capacities.
        let n = items.len();
        let mut slots: Vec<u64> = Vec::with_capacity(n);
        let mut int_bits = vec![0u64; n.div_ceil(64)];
        let (mut ints, mut floats) = (false, false);
        for (i, v) in items.iter().enumerate() {
            match v.as_num()? {
                Num::I64(k) => {
                    ints = true;
                    int_bits[i / 64] |= 1 << (i % 64);
                    slots.push(k as u64);
                }
                Num::F64(f) => {
                    floats = true;
                    slots.push(f.to_bits());
                }
                Num::U64(_) => return None,
            }
        }
        // (`into_iter().map().collect()` between same-size types reuses the buffer.)
        let store = match (ints, floats) {
            (true, false) => Store::I64(slots.into_iter().map(|b| b as i64).collect()),
            (false, _) => Store::F64(slots.into_iter().map(f64::from_bits).collect()),
            (true, true) => Store::Mixed { slots, ints: int_bits },
        };
        Some(Packed(ManuallyDrop::new(Box::new(store))))
    }

    /// `items` as `FPHA` type `ty` if they are all numbers (`Ok(None)` if not); `Err(i)` when
    /// item `i` is out of the type's range.
    pub(crate) fn from_values_as(items: &[Value], ty: FpType) -> Result<Option<Packed>, usize> {
        if !items.iter().all(Value::is_number) {
            return Ok(None);
        }
        let n = items.len();
        let floats = items.iter().filter_map(Value::as_f64);
        let xs = floats.clone().enumerate();
        let store = match ty {
            FpType::Fp64 => {
                let mut v = Vec::with_capacity(n);
                v.extend(floats);
                Store::F64(v)
            }
            FpType::Fp32 => {
                let mut v = Vec::with_capacity(n);
                for (i, x) in xs {
                    let f = x as f32;
                    if !f.is_finite() {
                        return Err(i);
                    }
                    v.push(f);
                }
                Store::F32(v)
            }
            FpType::Fp16 | FpType::Bf16 => {
                let h = if ty == FpType::Fp16 { Half::FP16 } else { Half::BF16 };
                let mut bits = Vec::with_capacity(n);
                for (i, x) in xs {
                    bits.push(half_bits(h, x).ok_or(i)?);
                }
                if ty == FpType::Fp16 {
                    Store::F16(bits)
                } else {
                    Store::Bf16(bits)
                }
            }
        };
        Ok(Some(Packed(ManuallyDrop::new(Box::new(store)))))
    }

    /// The `FPHA` type of the elements, `None` for exact storage.
    pub fn fp_type(&self) -> Option<FpType> {
        match *self.store() {
            Store::F32(_) => Some(FpType::Fp32),
            Store::F16(_) => Some(FpType::Fp16),
            Store::Bf16(_) => Some(FpType::Bf16),
            _ => None,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self.store() {
            Store::I64(v) => v.len(),
            Store::F64(v) => v.len(),
            Store::Mixed { slots, .. } => slots.len(),
            Store::F32(v) => v.len(),
            Store::F16(v) | Store::Bf16(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as the number it reads as.
    #[inline]
    pub fn num(&self, i: usize) -> Option<Num> {
        Some(match self.store() {
            Store::I64(v) => Num::I64(*v.get(i)?),
            Store::F64(v) => Num::F64(*v.get(i)?),
            Store::Mixed { slots, ints } => {
                let b = *slots.get(i)?;
                if bit(ints, i) {
                    Num::I64(b as i64)
                } else {
                    Num::F64(f64::from_bits(b))
                }
            }
            Store::F32(v) => Num::F64(f32_shortest(*v.get(i)?)),
            Store::F16(v) => Num::F64(Half::FP16.shortest(Half::FP16.decode(*v.get(i)?))),
            Store::Bf16(v) => Num::F64(Half::BF16.shortest(Half::BF16.decode(*v.get(i)?))),
        })
    }

    /// Element `i` as the stored float, without the shortest-decimal step (for vector
    /// indexing, which converts to its own element type anyway): exact for exact storage,
    /// the stored `f32`/`f16`/`bf16` widened otherwise.
    #[inline]
    pub fn raw_f64(&self, i: usize) -> Option<f64> {
        match self.store() {
            Store::F32(v) => v.get(i).map(|&f| f64::from(f)),
            Store::F16(v) => v.get(i).map(|&b| Half::FP16.decode(b)),
            Store::Bf16(v) => v.get(i).map(|&b| Half::BF16.decode(b)),
            _ => self.num(i).map(Num::as_f64),
        }
    }

    /// Whether every element is an integer.
    pub fn all_integers(&self) -> bool {
        matches!(*self.store(), Store::I64(_))
    }

    /// The elements in order.
    pub fn nums(&self) -> impl ExactSizeIterator<Item = Num> + '_ {
        (0..self.len()).map(|i| self.num(i).unwrap_or(Num::I64(0)))
    }

    /// Calls `f` with each element in order: one loop per storage, no per-element dispatch
    /// (the serializer's and the vector reader's way through a packed array).
    #[inline]
    pub fn for_each_num(&self, mut f: impl FnMut(Num)) {
        match self.store() {
            Store::I64(v) => v.iter().for_each(|&i| f(Num::I64(i))),
            Store::F64(v) => v.iter().for_each(|&x| f(Num::F64(x))),
            Store::Mixed { slots, ints } => {
                for (i, &b) in slots.iter().enumerate() {
                    f(if bit(ints, i) { Num::I64(b as i64) } else { Num::F64(f64::from_bits(b)) });
                }
            }
            Store::F32(v) => v.iter().for_each(|&x| f(Num::F64(f32_shortest(x)))),
            Store::F16(v) => v.iter().for_each(|&b| f(Num::F64(Half::FP16.shortest(Half::FP16.decode(b))))),
            Store::Bf16(v) => v.iter().for_each(|&b| f(Num::F64(Half::BF16.shortest(Half::BF16.decode(b))))),
        }
    }

    /// The elements as general values.
    pub(crate) fn to_values(&self) -> Vec<Value> {
        let mut out = Vec::with_capacity(self.len());
        self.for_each_num(|n| out.push(Value::from(n)));
        out
    }

    /// Switches exact all-integer or all-float storage to mixed storage.
    fn make_mixed(&mut self) {
        let (slots, ints) = match self.store() {
            Store::I64(v) => (v.iter().map(|&i| i as u64).collect::<Vec<_>>(), true),
            Store::F64(v) => (v.iter().map(|f| f.to_bits()).collect(), false),
            _ => return,
        };
        let words = slots.len().div_ceil(64);
        let ints = vec![if ints { u64::MAX } else { 0 }; words];
        *self.store_mut() = Store::Mixed { slots, ints };
    }

    /// Makes sure `n` can be stored as is (switching to mixed storage when needed);
    /// false when it cannot be stored here at all.
    fn admit(&mut self, n: Num) -> bool {
        match (self.store(), n) {
            (_, Num::U64(_)) if self.fp_type().is_none() => false,
            (Store::I64(_), Num::F64(_)) | (Store::F64(_), Num::I64(_)) => {
                self.make_mixed();
                true
            }
            (Store::F32(_), n) => (n.as_f64() as f32).is_finite(),
            (Store::F16(_), n) => Half::FP16.round(n.as_f64()).is_some(),
            (Store::Bf16(_), n) => Half::BF16.round(n.as_f64()).is_some(),
            _ => true,
        }
    }

    /// Sets element `i` to `n`; `Err(n)` when `n` cannot be stored here (or `i` is out of
    /// range): the caller unpacks.
    pub(crate) fn set(&mut self, i: usize, n: Num) -> Result<(), Num> {
        if i >= self.len() || !self.admit(n) {
            return Err(n);
        }
        let x = n.as_f64();
        match (self.store_mut(), n) {
            (Store::I64(v), Num::I64(k)) => v[i] = k,
            (Store::F64(v), Num::F64(f)) => v[i] = f,
            (Store::Mixed { slots, ints }, n) => {
                let (b, int) = mixed_slot(n).ok_or(n)?;
                slots[i] = b;
                set_bit(ints, i, int);
            }
            (Store::F32(v), _) => v[i] = x as f32,
            (Store::F16(v), _) => v[i] = half_bits(Half::FP16, x).ok_or(n)?,
            (Store::Bf16(v), _) => v[i] = half_bits(Half::BF16, x).ok_or(n)?,
            _ => return Err(n),
        }
        Ok(())
    }

    /// Inserts `n` at `i <= len`; `Err(n)` when it cannot be stored here.
    pub(crate) fn insert(&mut self, i: usize, n: Num) -> Result<(), Num> {
        let len = self.len();
        if i > len || !self.admit(n) {
            return Err(n);
        }
        let x = n.as_f64();
        match (self.store_mut(), n) {
            (Store::I64(v), Num::I64(k)) => v.insert(i, k),
            (Store::F64(v), Num::F64(f)) => v.insert(i, f),
            (Store::Mixed { slots, ints }, n) => {
                let (b, int) = mixed_slot(n).ok_or(n)?;
                slots.insert(i, b);
                for j in (i..len).rev() {
                    let moved = bit(ints, j);
                    set_bit(ints, j + 1, moved);
                }
                set_bit(ints, i, int);
            }
            (Store::F32(v), _) => v.insert(i, x as f32),
            (Store::F16(v), _) => v.insert(i, half_bits(Half::FP16, x).ok_or(n)?),
            (Store::Bf16(v), _) => v.insert(i, half_bits(Half::BF16, x).ok_or(n)?),
            _ => return Err(n),
        }
        Ok(())
    }

    /// Appends `n`; `Err(n)` when it cannot be stored here.
    pub(crate) fn push(&mut self, n: Num) -> Result<(), Num> {
        self.insert(self.len(), n)
    }

    /// Removes element `i`.
    pub(crate) fn remove(&mut self, i: usize) -> Option<Value> {
        let v = Value::from(self.num(i)?);
        let len = self.len();
        match self.store_mut() {
            Store::I64(s) => drop(s.remove(i)),
            Store::F64(s) => drop(s.remove(i)),
            Store::Mixed { slots, ints } => {
                slots.remove(i);
                for j in i..len - 1 {
                    let moved = bit(ints, j + 1);
                    set_bit(ints, j, moved);
                }
            }
            Store::F32(s) => drop(s.remove(i)),
            Store::F16(s) | Store::Bf16(s) => drop(s.remove(i)),
        }
        Some(v)
    }

    /// Keeps only elements `start..end` (clamped). Capacity is kept.
    pub(crate) fn retain_range(&mut self, start: usize, end: usize) {
        let end = end.min(self.len());
        let start = start.min(end);
        fn keep<T>(v: &mut Vec<T>, start: usize, end: usize) {
            v.truncate(end);
            v.drain(..start);
        }
        match self.store_mut() {
            Store::I64(s) => keep(s, start, end),
            Store::F64(s) => keep(s, start, end),
            Store::Mixed { slots, ints } => {
                for j in start..end {
                    let moved = bit(ints, j);
                    set_bit(ints, j - start, moved);
                }
                keep(slots, start, end);
            }
            Store::F32(s) => keep(s, start, end),
            Store::F16(s) | Store::Bf16(s) => keep(s, start, end),
        }
    }

    /// Heap bytes: the boxed store and its buffers (exact allocation sizes).
    pub(crate) fn heap_size(&self) -> usize {
        std::mem::size_of::<Store>()
            + match self.store() {
                Store::I64(v) => v.capacity() * 8,
                Store::F64(v) => v.capacity() * 8,
                Store::Mixed { slots, ints } => slots.capacity() * 8 + ints.capacity() * 8,
                Store::F32(v) => v.capacity() * 4,
                Store::F16(v) | Store::Bf16(v) => v.capacity() * 2,
            }
    }
}

impl Clone for Packed {
    /// A copy with the same capacities (so `mem_usage` is the same).
    fn clone(&self) -> Self {
        Packed(ManuallyDrop::new(Box::new(match self.store() {
            Store::I64(v) => Store::I64(clone_vec(v)),
            Store::F64(v) => Store::F64(clone_vec(v)),
            Store::Mixed { slots, ints } => Store::Mixed { slots: clone_vec(slots), ints: clone_vec(ints) },
            Store::F32(v) => Store::F32(clone_vec(v)),
            Store::F16(v) => Store::F16(clone_vec(v)),
            Store::Bf16(v) => Store::Bf16(clone_vec(v)),
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(p: &Packed) -> Vec<Num> {
        p.nums().collect()
    }

    #[test]
    fn exact_storage_keeps_each_number_and_kind() {
        let items: Vec<Value> =
            (0..70).map(|i| if i % 3 == 0 { Value::from(i as f64) } else { Value::from(i as i64) }).collect();
        let mut p = Packed::from_values(&items).unwrap();
        assert_eq!(nums(&p), items.iter().filter_map(Value::as_num).collect::<Vec<_>>());
        p.insert(5, Num::F64(-0.0)).unwrap();
        assert!(matches!(p.num(5), Some(Num::F64(f)) if f.to_bits() == (-0.0f64).to_bits()));
        assert_eq!(p.num(6), Some(Num::I64(5)));
        assert_eq!(p.remove(5).and_then(|v| v.as_num()), Some(Num::F64(-0.0)));
        assert_eq!(p.num(69), Some(Num::F64(69.0)));
        p.retain_range(3, 68);
        assert_eq!(p.num(0), Some(Num::F64(3.0)));
        assert_eq!(p.num(1), Some(Num::I64(4)));
        assert_eq!(p.len(), 65);
        assert!(p.push(Num::U64(u64::MAX)).is_err());
        assert!(Packed::from_values(&[Value::from(u64::MAX)]).is_none());
    }

    #[test]
    fn ints_become_mixed_on_a_float() {
        let mut p = Packed::from_values(&[Value::from(1i64), Value::from(2i64)]).unwrap();
        p.set(1, Num::F64(2.5)).unwrap();
        assert_eq!(nums(&p), vec![Num::I64(1), Num::F64(2.5)]);
    }
}
