//! [`Object`]: a JSON object in insertion order, as one thin heap block.
//!
//! Block layout: `Header {len, cap, keys_len, keys_cap, index}` (24 bytes),
//! then `values[cap]` (16 bytes each), then the key arena: each key as a
//! LEB128 length followed by its UTF-8 bytes, in entry order. A key costs its
//! length plus one byte (for keys under 128 bytes), with no allocation of its own.
//!
//! Small objects are searched by walking the arena. Once an object has more
//! than [`INDEX_MIN_LEN`] entries it also owns an index block: a hash table
//! (open addressing, linear probing, slots hold entry position + 1) followed by
//! each entry's key offset, so lookup and positional access stay O(1).
//! Keys are unique: inserting an existing key replaces its value in place.

use std::alloc::{self, Layout};
use std::hash::{BuildHasher, RandomState};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

use super::string::capacity_overflow;
use super::Value;

/// Objects with more entries than this get a hash index.
pub(crate) const INDEX_MIN_LEN: usize = 32;

#[repr(C)]
struct Header {
    len: u32,
    cap: u32,
    keys_len: u32,
    keys_cap: u32,
    /// See [`IndexLayout`]; rebuilt whenever `cap` changes or keys move.
    index: Option<NonNull<u32>>,
}

const VALUES_OFFSET: usize = {
    assert!(std::mem::size_of::<Header>() == 24);
    assert!(std::mem::align_of::<Value>() == 8 && std::mem::size_of::<Value>() == 16);
    24
};

/// A JSON object (unique keys in insertion order) behind a single thin pointer.
pub struct Object {
    ptr: Option<NonNull<Header>>,
    _owns: PhantomData<Value>,
}

// SAFETY: 1. `Object` uniquely owns its block, index and values (like a `Vec`);
// `Value` is `Send`; no interior mutability.
unsafe impl Send for Object {}
// SAFETY: 1. as for `Send`: shared access is read-only.
unsafe impl Sync for Object {}

/// Layout of a block for `cap` values and `keys_cap` arena bytes.
fn layout(cap: usize, keys_cap: usize) -> Layout {
    let size = cap
        .checked_mul(16)
        .and_then(|v| v.checked_add(VALUES_OFFSET))
        .and_then(|v| v.checked_add(keys_cap));
    match size.map(|s| Layout::from_size_align(s, 8)) {
        Some(Ok(l)) => l.pad_to_align(),
        _ => capacity_overflow(),
    }
}

/// The index block: `slots` u32 hash slots, then `cap` u32 key offsets.
struct IndexLayout {
    slots: usize,
    layout: Layout,
}

fn index_layout(cap: usize) -> IndexLayout {
    let Some(slots) = cap
        .checked_mul(2)
        .and_then(usize::checked_next_power_of_two)
    else {
        capacity_overflow()
    };
    match slots.checked_add(cap).map(Layout::array::<u32>) {
        Some(Ok(layout)) => IndexLayout { slots, layout },
        _ => capacity_overflow(),
    }
}

fn hash_key(key: &str) -> usize {
    static STATE: OnceLock<RandomState> = OnceLock::new();
    STATE.get_or_init(RandomState::new).hash_one(key) as usize
}

/// Bytes needed to store `key` in the arena.
#[inline]
pub(crate) fn encoded_len(key: &str) -> usize {
    let mut n = key.len();
    let mut prefix = 1;
    while n >= 0x80 {
        n >>= 7;
        prefix += 1;
    }
    prefix + key.len()
}

/// Decodes the key starting at `arena[0]`: returns it and the bytes it occupies.
#[inline]
fn decode_key(arena: &[u8]) -> (&str, usize) {
    let mut len = 0usize;
    let mut shift = 0;
    let mut i = 0;
    while let Some(&b) = arena.get(i) {
        i += 1;
        len |= ((b & 0x7f) as usize) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    let bytes = arena.get(i..i + len).unwrap_or_default();
    // SAFETY: 1. the arena is written only by `encode_key`, which copies a
    // `&str` whole after its length; decoding starts at key boundaries only.
    (unsafe { std::str::from_utf8_unchecked(bytes) }, i + len)
}

/// Writes `key` at `dst` (room for `encoded_len(key)` bytes).
///
/// # Safety
/// `dst` must be valid for `encoded_len(key)` byte writes and not overlap `key`.
#[inline]
unsafe fn encode_key(dst: *mut u8, key: &str) {
    let mut n = key.len();
    let mut i = 0;
    // SAFETY: 1. the varint takes `encoded_len(key) - key.len()` bytes and the
    // copy the rest, all within the caller's guarantee.
    unsafe {
        while n >= 0x80 {
            *dst.add(i) = (n as u8 & 0x7f) | 0x80;
            n >>= 7;
            i += 1;
        }
        *dst.add(i) = n as u8;
        ptr::copy_nonoverlapping(key.as_ptr(), dst.add(i + 1), key.len());
    }
}

impl Object {
    /// An empty object (no allocation).
    #[inline]
    pub const fn new() -> Self {
        Object {
            ptr: None,
            _owns: PhantomData,
        }
    }

    /// An empty object with room for `cap` entries and `key_bytes` bytes of keys
    /// (each key takes its length plus one byte).
    pub fn with_capacity(cap: usize, key_bytes: usize) -> Self {
        let mut o = Object::new();
        if cap > 0 || key_bytes > 0 {
            o.realloc(cap, key_bytes);
        }
        o
    }

    #[inline]
    fn header(&self) -> Option<&Header> {
        // SAFETY: 1. a non-null `ptr` points at a live, initialised header.
        self.ptr.map(|p| unsafe { &*p.as_ptr() })
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.header().map_or(0, |h| h.len as usize)
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

    fn keys_len(&self) -> usize {
        self.header().map_or(0, |h| h.keys_len as usize)
    }

    fn keys_cap(&self) -> usize {
        self.header().map_or(0, |h| h.keys_cap as usize)
    }

    #[inline]
    fn values_ptr(&self) -> *mut Value {
        match self.ptr {
            // SAFETY: 1. values start VALUES_OFFSET bytes into the block (see `layout`).
            Some(p) => unsafe { p.as_ptr().cast::<u8>().add(VALUES_OFFSET).cast::<Value>() },
            None => NonNull::dangling().as_ptr(),
        }
    }

    #[inline]
    fn arena_ptr(&self) -> *mut u8 {
        match self.ptr {
            // SAFETY: 1. the arena follows the `cap` values (see `layout`).
            Some(_) => unsafe { self.values_ptr().add(self.capacity()).cast::<u8>() },
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

    /// The used part of the key arena.
    #[inline]
    fn arena(&self) -> &[u8] {
        // SAFETY: 1. bytes `0..keys_len` of the arena are initialised.
        unsafe { std::slice::from_raw_parts(self.arena_ptr(), self.keys_len()) }
    }

    /// The arena (shared) and the values (mutable) at once; they never overlap.
    #[inline]
    fn split_mut(&mut self) -> (&[u8], &mut [Value]) {
        // SAFETY: 1. the arena and the values are disjoint parts of the block,
        // both initialised up to their lengths; `&mut self` makes the values exclusive.
        unsafe {
            (
                std::slice::from_raw_parts(self.arena_ptr(), self.keys_len()),
                std::slice::from_raw_parts_mut(self.values_ptr(), self.len()),
            )
        }
    }

    fn index(&self) -> Option<(NonNull<u32>, IndexLayout)> {
        let h = self.header()?;
        h.index.map(|p| (p, index_layout(h.cap as usize)))
    }

    /// Arena offset of key `i` (requires `i < len`).
    fn key_offset(&self, i: usize) -> usize {
        match self.index() {
            // SAFETY: 1. the index holds `cap >= len > i` offsets after its slots.
            Some((idx, il)) => unsafe { *idx.as_ptr().add(il.slots + i) as usize },
            None => {
                let arena = self.arena();
                let mut off = 0;
                for _ in 0..i {
                    off += decode_key(arena.get(off..).unwrap_or_default()).1;
                }
                off
            }
        }
    }

    /// Reallocates to exactly `cap` values and `keys_cap` arena bytes (both >= used),
    /// then rebuilds the index if the object is large.
    fn realloc(&mut self, cap: usize, keys_cap: usize) {
        let (len, old_cap, keys_len, old_keys_cap) = (
            self.len(),
            self.capacity(),
            self.keys_len(),
            self.keys_cap(),
        );
        debug_assert!(cap >= len && keys_cap >= keys_len);
        if cap > u32::MAX as usize || keys_cap > u32::MAX as usize {
            capacity_overflow();
        }
        self.drop_index();
        let new_layout = layout(cap, keys_cap);
        let raw = match self.ptr {
            // SAFETY: 1. `new_layout` has non-zero size (the header).
            None => unsafe { alloc::alloc(new_layout) },
            Some(p) => {
                let old = layout(old_cap, old_keys_cap);
                if cap < old_cap {
                    // Shrinking the values: move the arena down before the block shrinks.
                    // SAFETY: 1. both ranges lie in the old block; `copy` allows overlap.
                    unsafe {
                        let base = p.as_ptr().cast::<u8>().add(VALUES_OFFSET);
                        ptr::copy(base.add(old_cap * 16), base.add(cap * 16), keys_len);
                    }
                }
                // SAFETY: 1. `p` was allocated with `old`; same alignment; non-zero size.
                unsafe { alloc::realloc(p.as_ptr().cast(), old, new_layout.size()) }
            }
        };
        let Some(p) = NonNull::new(raw.cast::<Header>()) else {
            alloc::handle_alloc_error(new_layout)
        };
        if self.ptr.is_some() && cap > old_cap {
            // Growing the values: move the arena up into the enlarged block.
            // SAFETY: 1. the new block holds `cap` values plus `keys_cap >= keys_len` bytes.
            unsafe {
                let base = p.as_ptr().cast::<u8>().add(VALUES_OFFSET);
                ptr::copy(base.add(old_cap * 16), base.add(cap * 16), keys_len);
            }
        }
        // SAFETY: 1. `p` is a live block large enough for the header.
        unsafe {
            p.as_ptr().write(Header {
                len: len as u32,
                cap: cap as u32,
                keys_len: keys_len as u32,
                keys_cap: keys_cap as u32,
                index: None,
            })
        };
        self.ptr = Some(p);
        if len > INDEX_MIN_LEN {
            self.build_index();
        }
    }

    fn drop_index(&mut self) {
        if let (Some(p), Some((idx, il))) = (self.ptr, self.index()) {
            // SAFETY: 1. the index was allocated with `index_layout(cap)` for the
            // current capacity (it is dropped before every capacity change).
            unsafe {
                alloc::dealloc(idx.as_ptr().cast(), il.layout);
                (*p.as_ptr()).index = None;
            }
        }
    }

    /// (Re)builds the index from the arena.
    fn build_index(&mut self) {
        let Some(p) = self.ptr else { return };
        self.drop_index();
        let il = index_layout(self.capacity());
        // SAFETY: 1. the layout has non-zero size (cap > INDEX_MIN_LEN here or at least 1 slot).
        let raw = unsafe { alloc::alloc_zeroed(il.layout) };
        let Some(idx) = NonNull::new(raw.cast::<u32>()) else {
            alloc::handle_alloc_error(il.layout)
        };
        let mask = il.slots - 1;
        let arena = self.arena();
        let mut off = 0;
        for i in 0..self.len() {
            let (key, used) = decode_key(arena.get(off..).unwrap_or_default());
            // SAFETY: 1. `s <= mask < slots` and `slots + i < slots + cap`: in bounds.
            // 2. load <= 1/2 guarantees a free slot.
            unsafe {
                let mut s = hash_key(key) & mask;
                while *idx.as_ptr().add(s) != 0 {
                    s = (s + 1) & mask;
                }
                *idx.as_ptr().add(s) = i as u32 + 1;
                *idx.as_ptr().add(il.slots + i) = off as u32;
            }
            off += used;
        }
        // SAFETY: 1. `p` is the live header; the index matches the current capacity.
        unsafe { (*p.as_ptr()).index = Some(idx) };
    }

    /// Position of `key` among the entries.
    pub fn position(&self, key: &str) -> Option<usize> {
        match self.index() {
            None => {
                let arena = self.arena();
                let wanted = key.as_bytes();
                let mut off = 0;
                for i in 0..self.len() {
                    let prefix = *arena.get(off)?;
                    if prefix < 0x80 {
                        // One length byte (keys under 128 bytes): compare lengths first.
                        let len = prefix as usize;
                        if len == wanted.len() && arena.get(off + 1..off + 1 + len)? == wanted {
                            return Some(i);
                        }
                        off += 1 + len;
                    } else {
                        let (k, used) = decode_key(arena.get(off..)?);
                        if k == key {
                            return Some(i);
                        }
                        off += used;
                    }
                }
                None
            }
            Some((idx, il)) => {
                let mask = il.slots - 1;
                let arena = self.arena();
                let mut s = hash_key(key) & mask;
                loop {
                    // SAFETY: 1. `s <= mask`, inside the slots.
                    let slot = unsafe { *idx.as_ptr().add(s) } as usize;
                    if slot == 0 {
                        return None;
                    }
                    // SAFETY: 1. slots hold positions < len <= cap, and offsets follow the slots.
                    let off = unsafe { *idx.as_ptr().add(il.slots + slot - 1) } as usize;
                    if decode_key(arena.get(off..)?).0 == key {
                        return Some(slot - 1);
                    }
                    s = (s + 1) & mask;
                }
            }
        }
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
    /// than [`INDEX_MIN_LEN`] entries, else a walk over the keys.
    pub fn get_index(&self, i: usize) -> Option<(&str, &Value)> {
        let v = self.values_slice().get(i)?;
        let off = self.key_offset(i);
        Some((decode_key(self.arena().get(off..)?).0, v))
    }

    /// The entry at position `i`, with its value mutable.
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&str, &mut Value)> {
        if i >= self.len() {
            return None;
        }
        let off = self.key_offset(i);
        let (arena, values) = self.split_mut();
        Some((decode_key(arena.get(off..)?).0, values.get_mut(i)?))
    }

    /// Sets `key` to `value`: replaces the value in place (returning the old one)
    /// or appends a new entry.
    pub fn insert(&mut self, key: &str, value: Value) -> Option<Value> {
        if let Some(i) = self.position(key) {
            return self
                .split_mut()
                .1
                .get_mut(i)
                .map(|v| std::mem::replace(v, value));
        }
        self.push_new(key, value);
        None
    }

    /// Appends an entry whose key the caller knows to be absent.
    pub(crate) fn push_new(&mut self, key: &str, value: Value) {
        let (len, cap, keys_len, keys_cap) = (
            self.len(),
            self.capacity(),
            self.keys_len(),
            self.keys_cap(),
        );
        let need = encoded_len(key);
        let Some(keys_needed) = keys_len.checked_add(need) else {
            capacity_overflow()
        };
        if len == cap || keys_needed > keys_cap {
            let new_cap = if len == cap {
                (len + 1).max(cap.saturating_mul(2)).max(4)
            } else {
                cap
            };
            let new_keys = if keys_needed > keys_cap {
                keys_needed.max(keys_cap.saturating_mul(2))
            } else {
                keys_cap
            };
            self.realloc(new_cap, new_keys);
        }
        let Some(p) = self.ptr else { return };
        // SAFETY: 1. room for value `len` and `need` more arena bytes (grown above).
        // 2. `key` is borrowed from elsewhere (we hold `&mut self`), so no overlap.
        unsafe {
            self.values_ptr().add(len).write(value);
            encode_key(self.arena_ptr().add(keys_len), key);
            let h = &mut *p.as_ptr();
            h.len = len as u32 + 1;
            h.keys_len = keys_needed as u32;
        }
        match self.index() {
            Some((idx, il)) => {
                let mask = il.slots - 1;
                // SAFETY: 1. `s <= mask`; `slots + len < slots + cap`; load <= 1/2.
                unsafe {
                    let mut s = hash_key(key) & mask;
                    while *idx.as_ptr().add(s) != 0 {
                        s = (s + 1) & mask;
                    }
                    *idx.as_ptr().add(s) = len as u32 + 1;
                    *idx.as_ptr().add(il.slots + len) = keys_len as u32;
                }
            }
            None if len + 1 > INDEX_MIN_LEN => self.build_index(),
            None => {}
        }
    }

    /// Removes `key`, keeping the order of the other entries; returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.position(key)?;
        self.remove_index(i).map(|(_, v)| v)
    }

    /// Removes the entry at position `i`, keeping the order of the others.
    pub fn remove_index(&mut self, i: usize) -> Option<(String, Value)> {
        let len = self.len();
        let p = self.ptr?;
        if i >= len {
            return None;
        }
        let off = self.key_offset(i);
        let (key, used) = decode_key(self.arena().get(off..)?);
        let key = key.to_owned();
        let keys_len = self.keys_len();
        // SAFETY: 1. value `i` is initialised; it is read out, then the tail is
        // shifted over its slot and `len` lowered, so every value is owned once.
        // 2. the arena tail after the key moves down over it (`copy` allows overlap).
        let v = unsafe {
            let vp = self.values_ptr().add(i);
            let v = vp.read();
            ptr::copy(vp.add(1), vp, len - i - 1);
            let a = self.arena_ptr();
            ptr::copy(a.add(off + used), a.add(off), keys_len - off - used);
            let h = &mut *p.as_ptr();
            h.len = len as u32 - 1;
            h.keys_len = (keys_len - used) as u32;
            v
        };
        if self.index().is_some() {
            self.build_index();
        }
        Some((key, v))
    }

    /// Removes every entry (capacity is kept).
    pub fn clear(&mut self) {
        let Some(p) = self.ptr else { return };
        let len = self.len();
        // SAFETY: 1. values `0..len` are initialised; lengths are zeroed first so a
        // panicking drop leaks rather than double-drops.
        unsafe {
            let h = &mut *p.as_ptr();
            h.len = 0;
            h.keys_len = 0;
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.values_ptr(), len));
        }
        self.drop_index();
    }

    /// Iterates over `(key, value)` in insertion order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            arena: self.arena(),
            values: self.values_slice().iter(),
        }
    }

    /// Iterates over `(key, mutable value)` in insertion order.
    #[inline]
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        let (arena, values) = self.split_mut();
        IterMut {
            arena,
            values: values.iter_mut(),
        }
    }

    /// The keys in insertion order.
    #[inline]
    pub fn keys(&self) -> Keys<'_> {
        Keys {
            arena: self.arena(),
            left: self.len(),
        }
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
        let (len, keys_len) = (self.len(), self.keys_len());
        if len == self.capacity() && keys_len == self.keys_cap() {
            return;
        }
        if len == 0 {
            *self = Object::new();
        } else {
            self.realloc(len, keys_len);
        }
    }

    /// Heap bytes owned by this object: block, index and the values' own heap.
    pub(crate) fn heap_size(&self) -> usize {
        if self.ptr.is_none() {
            return 0;
        }
        let index = self.index().map_or(0, |(_, il)| il.layout.size());
        layout(self.capacity(), self.keys_cap()).size()
            + index
            + self
                .values_slice()
                .iter()
                .map(Value::heap_size)
                .sum::<usize>()
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
            self.drop_index();
            let l = layout(self.capacity(), self.keys_cap());
            // SAFETY: 1. values `0..len` are initialised and dropped once.
            // 2. the block was allocated with this layout and is freed once.
            unsafe {
                ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.values_ptr(), self.len()));
                alloc::dealloc(p.as_ptr().cast(), l);
            }
        }
    }
}

impl Clone for Object {
    /// A deep copy with the same capacities and index (so `mem_usage` is the same).
    fn clone(&self) -> Self {
        let mut o = Object::new();
        let Some(_) = self.ptr else { return o };
        o.realloc(self.capacity(), self.keys_cap());
        let Some(p) = o.ptr else { return o };
        let keys_len = self.keys_len();
        // SAFETY: 1. same capacities as `self`: the arena copy fits, and values
        // are written one by one, `len` raised after each so a panic drops only
        // initialised values.
        unsafe {
            ptr::copy_nonoverlapping(self.arena_ptr(), o.arena_ptr(), keys_len);
            (*p.as_ptr()).keys_len = keys_len as u32;
            for (i, v) in self.values_slice().iter().enumerate() {
                o.values_ptr().add(i).write(v.clone());
                (*p.as_ptr()).len = i as u32 + 1;
            }
        }
        if self.index().is_some() {
            o.build_index();
        }
        o
    }
}

impl<'a> FromIterator<(&'a str, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (&'a str, Value)>>(iter: I) -> Self {
        let mut o = Object::new();
        for (k, v) in iter {
            o.insert(k, v);
        }
        o
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
        Iter {
            arena: &[],
            values: [].iter(),
        }
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
        IterMut {
            arena: &[],
            values: [].iter_mut(),
        }
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
        Keys {
            arena: &[],
            left: 0,
        }
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
