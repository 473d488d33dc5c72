//! [`Object`]: a JSON object in insertion order, as one thin heap block.
//!
//! Block layout: `Header {shape, cap}` (16 bytes), then `values[cap]` (16
//! bytes each). The keys are not in the block: they are the object's
//! [`Shape`], a refcounted key list shared with every object that has the same
//! keys in the same order (interned process-wide, see [`super::shape`]). The
//! shape's length is the object's length; value `i` belongs to key `i`.
//! Keys are unique: inserting an existing key replaces its value in place.

use std::alloc::{self, Layout};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use super::intern::Counted;
use super::shape::{decode_key, push_encoded, Shape};
use super::string::capacity_overflow;
use super::Value;

#[repr(C)]
struct Header {
    /// The keys; `None` when there are none.
    shape: Option<Shape>,
    cap: u32,
}

const VALUES_OFFSET: usize = {
    assert!(std::mem::size_of::<Header>() == 16);
    assert!(std::mem::align_of::<Value>() == 8 && std::mem::size_of::<Value>() == 16);
    16
};

/// A JSON object (unique keys in insertion order) behind a single thin pointer.
pub struct Object {
    ptr: Option<NonNull<Header>>,
    _owns: PhantomData<Value>,
}

// SAFETY: 1. `Object` uniquely owns its block and values (like a `Vec`);
// `Value` and `Shape` are `Send`; no interior mutability.
unsafe impl Send for Object {}
// SAFETY: 1. as for `Send`: shared access is read-only.
unsafe impl Sync for Object {}

/// Layout of a block for `cap` values.
fn layout(cap: usize) -> Layout {
    let size = cap.checked_mul(16).and_then(|v| v.checked_add(VALUES_OFFSET));
    match size.map(|s| Layout::from_size_align(s, 8)) {
        Some(Ok(l)) => l,
        _ => capacity_overflow(),
    }
}

impl Object {
    /// The address of the block (null for an empty object), for cache hints.
    #[inline]
    pub(crate) fn addr(&self) -> *const u8 {
        self.ptr.map_or(std::ptr::null(), |p| p.as_ptr().cast::<u8>().cast_const())
    }

    /// The address of the key list (null for an empty object), for cache hints. Reads the
    /// block.
    #[inline]
    pub(crate) fn keys_addr(&self) -> *const u8 {
        self.shape().map_or(std::ptr::null(), Shape::addr)
    }

    /// An empty object (no allocation).
    #[inline]
    pub const fn new() -> Self {
        Object { ptr: None, _owns: PhantomData }
    }

    /// An empty object with room for `cap` values. `key_bytes` is accepted for
    /// compatibility and ignored: keys live in shared key lists sized as keys arrive.
    pub fn with_capacity(cap: usize, key_bytes: usize) -> Self {
        let _ = key_bytes;
        let mut o = Object::new();
        if cap > 0 {
            o.set_capacity(cap);
        }
        o
    }

    /// An object of `len` entries: the distinct keys encoded in `arena` and
    /// their values in order (`values` yields exactly `len` items).
    pub(crate) fn from_unique_parts(arena: &[u8], len: usize, values: impl Iterator<Item = Value>) -> Self {
        let mut o = Object::new();
        if len == 0 {
            return o;
        }
        o.set_capacity(len);
        let Some(p) = o.ptr else { return o };
        let mut n = 0;
        for v in values.take(len) {
            // SAFETY: 1. `n < len == cap`: in bounds; the shape is still `None`
            // (length 0), so a panic would leak the written values, never double-drop.
            unsafe { o.values_ptr().add(n).write(v) };
            n += 1;
        }
        if n < len {
            // The caller broke the contract; drop what was written and give an empty object.
            // SAFETY: 1. values `0..n` were written above and are dropped once.
            unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(o.values_ptr(), n)) };
            return o;
        }
        // SAFETY: 1. `p` is the live header; all `len` values are initialised.
        unsafe { (*p.as_ptr()).shape = Some(Shape::intern(arena, len)) };
        o
    }

    /// An object from `pairs` in order; for a duplicate key the later value wins
    /// and keeps the first key's position. The key list is interned once.
    pub(crate) fn from_pairs<'k>(pairs: impl Iterator<Item = (&'k str, Value)>) -> Self {
        let (lower, _) = pairs.size_hint();
        let mut keys: Vec<&'k str> = Vec::with_capacity(lower);
        let mut values: Vec<Value> = Vec::with_capacity(lower);
        let mut seen: hashbrown::HashMap<&'k str, usize, foldhash::fast::RandomState> =
            hashbrown::HashMap::with_capacity_and_hasher(lower, Default::default());
        for (k, v) in pairs {
            match seen.entry(k) {
                hashbrown::hash_map::Entry::Occupied(e) => {
                    if let Some(slot) = values.get_mut(*e.get()) {
                        *slot = v;
                    }
                }
                hashbrown::hash_map::Entry::Vacant(e) => {
                    e.insert(values.len());
                    keys.push(k);
                    values.push(v);
                }
            }
        }
        let mut arena = Vec::with_capacity(keys.iter().map(|k| k.len() + 1).sum());
        for k in &keys {
            push_encoded(&mut arena, k);
        }
        Object::from_unique_parts(&arena, keys.len(), values.into_iter())
    }

    #[inline]
    fn header(&self) -> Option<&Header> {
        // SAFETY: 1. a non-null `ptr` points at a live, initialised header.
        self.ptr.map(|p| unsafe { &*p.as_ptr() })
    }

    #[inline]
    fn shape(&self) -> Option<&Shape> {
        self.header().and_then(|h| h.shape.as_ref())
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.shape().map_or(0, Shape::len)
    }

    /// True when the object has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of entries the block has room for.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.header().map_or(0, |h| h.cap as usize)
    }

    /// True when no key needs escaping in JSON output.
    #[inline]
    pub(crate) fn keys_plain(&self) -> bool {
        self.shape().is_none_or(Shape::keys_plain)
    }

    /// True when both objects hold the same shared key list (same keys, same order).
    #[inline]
    pub(crate) fn same_keys(&self, other: &Object) -> bool {
        match (self.shape(), other.shape()) {
            (Some(a), Some(b)) => ptr::eq(a.arena(), b.arena()),
            _ => false,
        }
    }

    #[inline]
    fn values_ptr(&self) -> *mut Value {
        match self.ptr {
            // SAFETY: 1. values start VALUES_OFFSET bytes into the block (see `layout`).
            Some(p) => unsafe { p.as_ptr().cast::<u8>().add(VALUES_OFFSET).cast::<Value>() },
            None => NonNull::dangling().as_ptr(),
        }
    }

    /// The values in entry order.
    #[inline]
    fn values_slice(&self) -> &[Value] {
        // SAFETY: 1. values `0..len` are initialised and owned by `self`; the
        // dangling pointer of an empty object is aligned, which is allowed.
        unsafe { std::slice::from_raw_parts(self.values_ptr(), self.len()) }
    }

    /// The key arena (shared) and the values (mutable) at once; they never overlap.
    #[inline]
    fn split_mut(&mut self) -> (&[u8], &mut [Value]) {
        let len = self.len();
        let arena: *const [u8] = self.shape().map_or(&[][..], Shape::arena) as *const [u8];
        // SAFETY: 1. the arena is in the shape's block, the values in ours:
        // disjoint; the shape cannot change while `self` is mutably borrowed.
        // 2. values `0..len` are initialised; `&mut self` makes them exclusive.
        unsafe { (&*arena, std::slice::from_raw_parts_mut(self.values_ptr(), len)) }
    }

    /// Reallocates to exactly `cap >= len` values.
    fn set_capacity(&mut self, cap: usize) {
        let (len, old_cap) = (self.len(), self.capacity());
        debug_assert!(cap >= len);
        if cap > u32::MAX as usize {
            capacity_overflow();
        }
        let new_layout = layout(cap);
        let raw = match self.ptr {
            // SAFETY: 1. `new_layout` has non-zero size (the header).
            None => unsafe { alloc::alloc(new_layout) },
            // SAFETY: 1. `p` was allocated with `layout(old_cap)`; same alignment;
            // non-zero size; values `0..len` fit since `cap >= len`.
            Some(p) => unsafe { alloc::realloc(p.as_ptr().cast(), layout(old_cap), new_layout.size()) },
        };
        let Some(p) = NonNull::new(raw.cast::<Header>()) else { alloc::handle_alloc_error(new_layout) };
        if self.ptr.is_none() {
            // SAFETY: 1. fresh block large enough for the header.
            unsafe { p.as_ptr().write(Header { shape: None, cap: 0 }) };
        }
        // SAFETY: 1. `p` is the live header (moved by realloc, or written above).
        unsafe { (*p.as_ptr()).cap = cap as u32 };
        self.ptr = Some(p);
    }

    /// Position of `key` among the entries.
    #[inline]
    pub fn position(&self, key: &str) -> Option<usize> {
        self.shape()?.position(key)
    }

    /// The value for `key`.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&Value> {
        let i = self.position(key)?;
        self.values_slice().get(i)
    }

    /// The value for `key`, mutably.
    #[inline]
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        let i = self.position(key)?;
        self.split_mut().1.get_mut(i)
    }

    /// True when `key` is present.
    #[inline]
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// The entry at position `i` (insertion order). O(1) for objects of more
    /// than 32 entries, else a walk over the keys.
    pub fn get_index(&self, i: usize) -> Option<(&str, &Value)> {
        let v = self.values_slice().get(i)?;
        Some((self.shape()?.key_at(i), v))
    }

    /// The entry at position `i`, with its value mutable.
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&str, &mut Value)> {
        if i >= self.len() {
            return None;
        }
        let off = self.shape()?.key_offset(i);
        let (arena, values) = self.split_mut();
        Some((decode_key(arena.get(off..)?).0, values.get_mut(i)?))
    }

    /// Sets `key` to `value`: replaces the value in place (returning the old one)
    /// or appends a new entry.
    pub fn insert(&mut self, key: &str, value: Value) -> Option<Value> {
        if let Some(i) = self.position(key) {
            return self.split_mut().1.get_mut(i).map(|v| std::mem::replace(v, value));
        }
        self.push_new(key, value);
        None
    }

    /// Appends an entry whose key the caller knows to be absent.
    pub(crate) fn push_new(&mut self, key: &str, value: Value) {
        let (len, cap) = (self.len(), self.capacity());
        if len == cap {
            self.set_capacity((len + 1).max(cap.saturating_mul(2)).max(4));
        }
        let Some(p) = self.ptr else { return };
        // SAFETY: 1. room for value `len` (grown above); the new key then makes it
        // part of the object (the shape's length is the object's).
        // 2. `p` is the live header; `&mut self` makes it exclusive.
        unsafe {
            self.values_ptr().add(len).write(value);
            Shape::push(&mut (*p.as_ptr()).shape, key);
        }
    }

    /// Removes `key` and returns its value; the last entry takes its place (see
    /// [`Object::remove_index`]).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.position(key)?;
        self.remove_index(i).map(|(_, v)| v)
    }

    /// Removes the entry at position `i`, moving the last entry into its place: the order
    /// RedisJSON 2.8.3's objects (ijson's swap-remove) leave after `JSON.DEL` or a `null` in
    /// `JSON.MERGE` (`{"k":1,"a":2,"b":3}` without `k` is `{"b":3,"a":2}`), which replies
    /// and key order checks depend on. O(1) for the values; the key list is rebuilt as for
    /// any change of keys.
    pub fn remove_index(&mut self, i: usize) -> Option<(String, Value)> {
        let len = self.len();
        let p = self.ptr?;
        if i >= len {
            return None;
        }
        let key = self.shape()?.key_at(i).to_owned();
        // SAFETY: 1. value `i` is initialised; it is read out and the last value moved into
        // its slot (nothing when `i` is last), then the key list shortened, so every value is
        // owned once. 2. `p` is the live header; `&mut self` makes it exclusive.
        let v = unsafe {
            let vp = self.values_ptr();
            let v = vp.add(i).read();
            if i + 1 < len {
                ptr::copy_nonoverlapping(vp.add(len - 1), vp.add(i), 1);
            }
            Shape::swap_remove(&mut (*p.as_ptr()).shape, i);
            v
        };
        Some((key, v))
    }

    /// Removes every entry (capacity is kept).
    pub fn clear(&mut self) {
        let Some(p) = self.ptr else { return };
        let len = self.len();
        // SAFETY: 1. values `0..len` are initialised; the shape (the length) is
        // taken first so a panicking drop leaks rather than double-drops.
        unsafe {
            let shape = (*p.as_ptr()).shape.take();
            drop(shape);
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.values_ptr(), len));
        }
    }

    /// Iterates over `(key, value)` in insertion order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter { arena: self.shape().map_or(&[][..], Shape::arena), values: self.values_slice().iter() }
    }

    /// Iterates over `(key, mutable value)` in insertion order.
    #[inline]
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        let (arena, values) = self.split_mut();
        IterMut { arena, values: values.iter_mut() }
    }

    /// The keys in insertion order.
    #[inline]
    pub fn keys(&self) -> Keys<'_> {
        Keys { arena: self.shape().map_or(&[][..], Shape::arena), left: self.len() }
    }

    /// The values in insertion order.
    #[inline]
    pub fn values(&self) -> std::slice::Iter<'_, Value> {
        self.values_slice().iter()
    }

    /// The values in insertion order, mutably.
    #[inline]
    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, Value> {
        self.split_mut().1.iter_mut()
    }

    /// Frees unused capacity.
    pub fn shrink_to_fit(&mut self) {
        let len = self.len();
        if len == self.capacity() {
            return;
        }
        if len == 0 {
            *self = Object::new();
        } else {
            self.set_capacity(len);
        }
    }

    /// Heap bytes of this object: its block, its key list (once per
    /// measurement, see `Value::mem_usage`) and the values' own heap.
    pub(crate) fn heap_size(&self, counted: &mut Counted) -> usize {
        if self.ptr.is_none() {
            return 0;
        }
        layout(self.capacity()).size()
            + self.shape().map_or(0, |s| s.heap_size(counted))
            + self.values_slice().iter().map(|v| v.heap_size(counted)).sum::<usize>()
    }
}

impl Default for Object {
    fn default() -> Self {
        Object::new()
    }
}

impl Drop for Object {
    fn drop(&mut self) {
        if let Some(p) = self.ptr {
            let (len, l) = (self.len(), layout(self.capacity()));
            // SAFETY: 1. values `0..len` are initialised and dropped once, then the
            // shape. 2. the block was allocated with this layout and is freed once.
            unsafe {
                ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.values_ptr(), len));
                ptr::drop_in_place(&mut (*p.as_ptr()).shape);
                alloc::dealloc(p.as_ptr().cast(), l);
            }
        }
    }
}

impl Clone for Object {
    /// A copy with the same capacity, sharing the key list (so `mem_usage` is the same).
    fn clone(&self) -> Self {
        let mut o = Object::new();
        if self.ptr.is_none() {
            return o;
        }
        o.set_capacity(self.capacity());
        let Some(p) = o.ptr else { return o };
        // SAFETY: 1. same capacity as `self`: values `0..len` fit. The shape is
        // set last, so until then the copy has length 0 and a panic while
        // cloning a value would leak the copies, never double-drop.
        unsafe {
            for (i, v) in self.values_slice().iter().enumerate() {
                o.values_ptr().add(i).write(v.clone());
            }
            (*p.as_ptr()).shape = self.shape().cloned();
        }
        o
    }
}

impl<'a> FromIterator<(&'a str, Value)> for Object {
    /// Later values of a duplicate key win, at the first key's position.
    fn from_iter<I: IntoIterator<Item = (&'a str, Value)>>(iter: I) -> Self {
        Object::from_pairs(iter.into_iter())
    }
}

/// Iterator over `(key, value)` of an [`Object`] in insertion order.
#[derive(Clone)]
pub struct Iter<'a> {
    arena: &'a [u8],
    values: std::slice::Iter<'a, Value>,
}

impl Iter<'_> {
    /// An iterator over nothing.
    pub(crate) fn empty() -> Self {
        Iter { arena: &[], values: [].iter() }
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let v = self.values.next()?;
        let (k, used) = decode_key(self.arena);
        self.arena = self.arena.get(used..).unwrap_or_default();
        Some((k, v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Iterator over `(key, mutable value)` of an [`Object`] in insertion order.
pub struct IterMut<'a> {
    arena: &'a [u8],
    values: std::slice::IterMut<'a, Value>,
}

impl IterMut<'_> {
    /// An iterator over nothing.
    pub(crate) fn empty() -> Self {
        IterMut { arena: &[], values: [].iter_mut() }
    }
}

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a str, &'a mut Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let v = self.values.next()?;
        let (k, used) = decode_key(self.arena);
        self.arena = self.arena.get(used..).unwrap_or_default();
        Some((k, v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }
}

impl ExactSizeIterator for IterMut<'_> {}

/// Iterator over the keys of an [`Object`] in insertion order.
#[derive(Clone)]
pub struct Keys<'a> {
    arena: &'a [u8],
    left: usize,
}

impl Keys<'_> {
    /// An iterator over nothing.
    pub(crate) fn empty() -> Self {
        Keys { arena: &[], left: 0 }
    }
}

impl<'a> Iterator for Keys<'a> {
    type Item = &'a str;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let (k, used) = decode_key(self.arena);
        self.arena = self.arena.get(used..).unwrap_or_default();
        Some(k)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Keys<'_> {}

impl<'a> IntoIterator for &'a Object {
    type Item = (&'a str, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Object {
    type Item = (&'a str, &'a mut Value);
    type IntoIter = IterMut<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}
