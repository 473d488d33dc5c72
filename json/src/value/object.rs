//! [`Object`]: a JSON object in insertion order, as one thin heap block
//! `{len: u32, cap: u32, index, entries[cap]}` where each entry is `(key, value)`.
//!
//! Small objects are searched linearly. Once an object has more than
//! [`INDEX_MIN_LEN`] entries it also owns a hash index (open addressing,
//! linear probing over `u32` entry positions) so key lookup stays O(1).
//! Keys are unique: inserting an existing key replaces its value in place.

use std::alloc::{self, Layout};
use std::hash::{BuildHasher, RandomState};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

use super::string::{capacity_overflow, Key};
use super::Value;

/// Objects with more entries than this get a hash index.
pub(crate) const INDEX_MIN_LEN: usize = 32;

#[repr(C)]
struct Header {
    len: u32,
    cap: u32,
    /// `index_slots(cap)` slots; each is 0 (empty) or entry position + 1.
    index: Option<NonNull<u32>>,
}

/// One key/value pair (32 bytes).
pub(crate) struct Entry {
    pub(crate) key: Key,
    pub(crate) value: Value,
}

/// A JSON object (unique keys in insertion order) behind a single thin pointer.
pub struct Object {
    ptr: Option<NonNull<Header>>,
    _owns: PhantomData<Entry>,
}

// SAFETY: 1. `Object` uniquely owns its block, index and entries (like a `Vec`);
// `Key` and `Value` are `Send`; no interior mutability.
unsafe impl Send for Object {}
// SAFETY: 1. as for `Send`: shared access is read-only.
unsafe impl Sync for Object {}

fn layout(cap: usize) -> Layout {
    let entries = match Layout::array::<Entry>(cap) {
        Ok(l) => l,
        Err(_) => capacity_overflow(),
    };
    match Layout::new::<Header>().extend(entries) {
        Ok((l, off)) => {
            debug_assert_eq!(off, ENTRIES_OFFSET);
            l.pad_to_align()
        }
        Err(_) => capacity_overflow(),
    }
}

const ENTRIES_OFFSET: usize = {
    assert!(std::mem::size_of::<Header>() == 16 && std::mem::align_of::<Entry>() <= 8);
    16
};

/// Number of index slots for a block of capacity `cap` (a power of two, load <= 1/2).
fn index_slots(cap: usize) -> usize {
    match cap
        .checked_mul(2)
        .and_then(usize::checked_next_power_of_two)
    {
        Some(n) => n,
        None => capacity_overflow(),
    }
}

fn index_layout(cap: usize) -> Layout {
    match Layout::array::<u32>(index_slots(cap)) {
        Ok(l) => l,
        Err(_) => capacity_overflow(),
    }
}

fn hash_key(key: &str) -> usize {
    static STATE: OnceLock<RandomState> = OnceLock::new();
    STATE.get_or_init(RandomState::new).hash_one(key) as usize
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

    /// An empty object with room for exactly `cap` entries.
    pub fn with_capacity(cap: usize) -> Self {
        let mut o = Object::new();
        if cap > 0 {
            o.set_capacity(cap);
        }
        o
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        match self.ptr {
            // SAFETY: 1. a non-null `ptr` points at a live header.
            Some(p) => unsafe { (*p.as_ptr()).len as usize },
            None => 0,
        }
    }

    /// True when the object has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of entries the block has room for.
    #[inline]
    pub fn capacity(&self) -> usize {
        match self.ptr {
            // SAFETY: 1. a non-null `ptr` points at a live header.
            Some(p) => unsafe { (*p.as_ptr()).cap as usize },
            None => 0,
        }
    }

    #[inline]
    fn index_ptr(&self) -> Option<NonNull<u32>> {
        // SAFETY: 1. a non-null `ptr` points at a live header.
        self.ptr.and_then(|p| unsafe { (*p.as_ptr()).index })
    }

    #[inline]
    fn entries_ptr(&self) -> *mut Entry {
        match self.ptr {
            // SAFETY: 1. entries start ENTRIES_OFFSET bytes into the block (see `layout`).
            Some(p) => unsafe { p.as_ptr().cast::<u8>().add(ENTRIES_OFFSET).cast::<Entry>() },
            None => NonNull::dangling().as_ptr(),
        }
    }

    #[inline]
    pub(crate) fn entries(&self) -> &[Entry] {
        // SAFETY: 1. entries `0..len` are initialised and owned by `self`; the
        // dangling pointer of an empty object is aligned, which is allowed.
        unsafe { std::slice::from_raw_parts(self.entries_ptr(), self.len()) }
    }

    #[inline]
    fn entries_mut(&mut self) -> &mut [Entry] {
        // SAFETY: 1. as in `entries`, with exclusive access through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.entries_ptr(), self.len()) }
    }

    /// # Safety
    /// `len <= capacity()` and entries `0..len` initialised; the index is NOT updated.
    #[inline]
    unsafe fn set_len(&mut self, len: usize) {
        if let Some(p) = self.ptr {
            // SAFETY: 1. `p` points at a live header; `len <= cap <= u32::MAX`.
            unsafe { (*p.as_ptr()).len = len as u32 };
        }
    }

    /// Reallocates to exactly `cap` entries (`cap >= len`, `cap > 0`) and rebuilds the index.
    fn set_capacity(&mut self, cap: usize) {
        debug_assert!(cap >= self.len() && cap > 0);
        if cap > u32::MAX as usize {
            capacity_overflow();
        }
        self.drop_index();
        let new_layout = layout(cap);
        // Read before the old block is reallocated (and possibly freed).
        let len = self.len() as u32;
        let raw = match self.ptr {
            // SAFETY: 1. `new_layout` has non-zero size.
            None => unsafe { alloc::alloc(new_layout) },
            Some(p) => {
                // SAFETY: 1. `p` was allocated with layout(capacity()); same alignment.
                unsafe {
                    alloc::realloc(
                        p.as_ptr().cast(),
                        layout(self.capacity()),
                        new_layout.size(),
                    )
                }
            }
        };
        let Some(p) = NonNull::new(raw.cast::<Header>()) else {
            alloc::handle_alloc_error(new_layout)
        };
        // SAFETY: 1. `p` is a live block large enough for the header.
        unsafe {
            p.as_ptr().write(Header {
                len,
                cap: cap as u32,
                index: None,
            })
        };
        self.ptr = Some(p);
        if self.len() > INDEX_MIN_LEN {
            self.build_index();
        }
    }

    fn drop_index(&mut self) {
        if let (Some(p), Some(idx)) = (self.ptr, self.index_ptr()) {
            // SAFETY: 1. the index was allocated with index_layout(cap) for the
            // current capacity (it is rebuilt whenever the capacity changes).
            unsafe {
                alloc::dealloc(idx.as_ptr().cast(), index_layout(self.capacity()));
                (*p.as_ptr()).index = None;
            }
        }
    }

    /// (Re)builds the hash index from the entries.
    fn build_index(&mut self) {
        let Some(p) = self.ptr else { return };
        self.drop_index();
        let cap = self.capacity();
        let il = index_layout(cap);
        // SAFETY: 1. `il` has non-zero size (cap > 0 when a block exists).
        let raw = unsafe { alloc::alloc_zeroed(il) };
        let Some(idx) = NonNull::new(raw.cast::<u32>()) else {
            alloc::handle_alloc_error(il)
        };
        // SAFETY: 1. `p` is the live header; the index belongs to this capacity.
        unsafe { (*p.as_ptr()).index = Some(idx) };
        let mask = index_slots(cap) - 1;
        for (i, e) in self.entries().iter().enumerate() {
            let mut s = hash_key(e.key.as_str()) & mask;
            // SAFETY: 1. `s <= mask < slots`: reads and writes stay in the index;
            // load <= 1/2 guarantees a free slot is found.
            unsafe {
                while *idx.as_ptr().add(s) != 0 {
                    s = (s + 1) & mask;
                }
                *idx.as_ptr().add(s) = i as u32 + 1;
            }
        }
    }

    /// Position of `key` among the entries.
    pub fn position(&self, key: &str) -> Option<usize> {
        match self.index_ptr() {
            None => self.entries().iter().position(|e| e.key.as_str() == key),
            Some(idx) => {
                let mask = index_slots(self.capacity()) - 1;
                let entries = self.entries();
                let mut s = hash_key(key) & mask;
                loop {
                    // SAFETY: 1. `s <= mask`, inside the index.
                    let slot = unsafe { *idx.as_ptr().add(s) } as usize;
                    if slot == 0 {
                        return None;
                    }
                    if entries.get(slot - 1).is_some_and(|e| e.key.as_str() == key) {
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
        self.entries().get(i).map(|e| &e.value)
    }

    /// The value for `key`, mutably.
    #[inline]
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        let i = self.position(key)?;
        self.entries_mut().get_mut(i).map(|e| &mut e.value)
    }

    /// True when `key` is present.
    #[inline]
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// The entry at position `i` (insertion order).
    #[inline]
    pub fn get_index(&self, i: usize) -> Option<(&str, &Value)> {
        self.entries().get(i).map(|e| (e.key.as_str(), &e.value))
    }

    /// The entry at position `i`, with its value mutable.
    #[inline]
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&str, &mut Value)> {
        self.entries_mut()
            .get_mut(i)
            .map(|e| (e.key.as_str(), &mut e.value))
    }

    /// Sets `key` to `value`: replaces the value in place (returning the old one)
    /// or appends a new entry.
    pub fn insert(&mut self, key: &str, value: Value) -> Option<Value> {
        if let Some(i) = self.position(key) {
            return self
                .entries_mut()
                .get_mut(i)
                .map(|e| std::mem::replace(&mut e.value, value));
        }
        self.push_new(Key::new(key), value);
        None
    }

    /// Like [`Object::insert`] for an already built key (used by the parser).
    pub(crate) fn insert_key(&mut self, key: Key, value: Value) {
        match self.position(key.as_str()) {
            Some(i) => {
                if let Some(e) = self.entries_mut().get_mut(i) {
                    e.value = value;
                }
            }
            None => self.push_new(key, value),
        }
    }

    /// Appends an entry whose key is known to be absent.
    fn push_new(&mut self, key: Key, value: Value) {
        let len = self.len();
        let cap = self.capacity();
        if len == cap {
            let new_cap = (len + 1).max(cap.saturating_mul(2)).max(4);
            self.set_capacity(new_cap);
        }
        // SAFETY: 1. there is room for entry `len` (capacity grown above).
        unsafe {
            self.entries_ptr().add(len).write(Entry { key, value });
            self.set_len(len + 1);
        }
        match self.index_ptr() {
            Some(idx) => {
                let mask = index_slots(self.capacity()) - 1;
                let mut s = hash_key(self.entries()[len].key.as_str()) & mask;
                // SAFETY: 1. `s <= mask`; load stays <= 1/2 so a free slot exists.
                unsafe {
                    while *idx.as_ptr().add(s) != 0 {
                        s = (s + 1) & mask;
                    }
                    *idx.as_ptr().add(s) = len as u32 + 1;
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
        if i >= len {
            return None;
        }
        // SAFETY: 1. entry `i` is initialised; it is read out, then the tail is
        // shifted over its slot and `len` lowered, so every entry is owned once.
        let e = unsafe {
            let p = self.entries_ptr().add(i);
            let e = p.read();
            ptr::copy(p.add(1), p, len - i - 1);
            self.set_len(len - 1);
            e
        };
        if self.index_ptr().is_some() {
            self.build_index();
        }
        Some((e.key.as_str().to_owned(), e.value))
    }

    /// Removes every entry (capacity is kept).
    pub fn clear(&mut self) {
        let len = self.len();
        // SAFETY: 1. entries `0..len` are initialised; `len` is zeroed first.
        unsafe {
            self.set_len(0);
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.entries_ptr(), len));
        }
        self.drop_index();
    }

    /// Iterates over `(key, value)` in insertion order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries().iter())
    }

    /// Iterates over `(key, mutable value)` in insertion order.
    #[inline]
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.entries_mut().iter_mut())
    }

    /// The keys in insertion order.
    #[inline]
    pub fn keys(&self) -> Keys<'_> {
        Keys(self.entries().iter())
    }

    /// The values in insertion order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries().iter().map(|e| &e.value)
    }

    /// The values in insertion order, mutably.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.entries_mut().iter_mut().map(|e| &mut e.value)
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

    /// Heap bytes owned by this object: block, index, keys and values.
    pub(crate) fn heap_size(&self) -> usize {
        if self.ptr.is_none() {
            return 0;
        }
        let cap = self.capacity();
        let index = if self.index_ptr().is_some() {
            index_layout(cap).size()
        } else {
            0
        };
        layout(cap).size()
            + index
            + self
                .entries()
                .iter()
                .map(|e| e.key.heap_size() + e.value.heap_size())
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
            let l = layout(self.capacity());
            // SAFETY: 1. entries `0..len` are initialised and dropped once.
            // 2. the block was allocated with layout(cap) and is freed once.
            unsafe {
                ptr::drop_in_place(self.entries_mut());
                alloc::dealloc(p.as_ptr().cast(), l);
            }
        }
    }
}

impl Clone for Object {
    /// A deep copy with the same capacity and index (so `mem_usage` is the same).
    fn clone(&self) -> Self {
        let mut o = Object::new();
        if self.ptr.is_some() {
            o.set_capacity(self.capacity());
            for e in self.entries() {
                // Keys are unique already: append without lookups.
                let len = o.len();
                // SAFETY: 1. same capacity as `self`, so entry `len` < cap is free.
                unsafe {
                    o.entries_ptr().add(len).write(Entry {
                        key: e.key.clone(),
                        value: e.value.clone(),
                    });
                    o.set_len(len + 1);
                }
            }
            if self.index_ptr().is_some() {
                o.build_index();
            }
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
pub struct Iter<'a>(std::slice::Iter<'a, Entry>);

impl<'a> Iter<'a> {
    /// An iterator over nothing.
    pub(crate) fn empty() -> Self {
        Iter([].iter())
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|e| (e.key.as_str(), &e.value))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|e| (e.key.as_str(), &e.value))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Iterator over `(key, mutable value)` of an [`Object`] in insertion order.
pub struct IterMut<'a>(std::slice::IterMut<'a, Entry>);

impl<'a> IterMut<'a> {
    /// An iterator over nothing.
    pub(crate) fn empty() -> Self {
        IterMut([].iter_mut())
    }
}

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a str, &'a mut Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|e| (e.key.as_str(), &mut e.value))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IterMut<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|e| (e.key.as_str(), &mut e.value))
    }
}

impl ExactSizeIterator for IterMut<'_> {}

/// Iterator over the keys of an [`Object`] in insertion order.
#[derive(Clone)]
pub struct Keys<'a>(std::slice::Iter<'a, Entry>);

impl<'a> Keys<'a> {
    /// An iterator over nothing.
    pub(crate) fn empty() -> Self {
        Keys([].iter())
    }
}

impl<'a> Iterator for Keys<'a> {
    type Item = &'a str;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|e| e.key.as_str())
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Keys<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|e| e.key.as_str())
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
