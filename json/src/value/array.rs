//! [`Array`]: a JSON array as one thin heap block `{len: u32, cap: u32, items[cap]}`.
//!
//! An empty array with no capacity owns no memory (null pointer). The parser
//! builds arrays with exact capacity; pushes grow by doubling.

use std::alloc::{self, Layout};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use super::intern::Counted;
use super::string::capacity_overflow;
use super::Value;

#[repr(C)]
struct Header {
    len: u32,
    cap: u32,
}

/// A JSON array (ordered list of [`Value`]s) behind a single thin pointer.
pub struct Array {
    ptr: Option<NonNull<Header>>,
    _owns: PhantomData<Value>,
}

// SAFETY: 1. `Array` uniquely owns its block and items, like `Vec<Value>`, and
// `Value` is `Send`; no interior mutability.
unsafe impl Send for Array {}
// SAFETY: 1. as for `Send`: shared access is read-only.
unsafe impl Sync for Array {}

/// Layout of a block with room for `cap` items, and the byte offset of the items.
fn layout(cap: usize) -> (Layout, usize) {
    let items = match Layout::array::<Value>(cap) {
        Ok(l) => l,
        Err(_) => capacity_overflow(),
    };
    match Layout::new::<Header>().extend(items) {
        Ok((l, off)) => (l.pad_to_align(), off),
        Err(_) => capacity_overflow(),
    }
}

const ITEMS_OFFSET: usize = {
    // Header is 8 bytes and Value's alignment is 8: items start right after it.
    assert!(std::mem::size_of::<Header>() == 8 && std::mem::align_of::<Value>() <= 8);
    8
};

impl Array {
    /// The address of the block (null for an empty array), for cache hints.
    #[inline]
    pub(crate) fn addr(&self) -> *const u8 {
        self.ptr.map_or(std::ptr::null(), |p| p.as_ptr().cast::<u8>().cast_const())
    }

    /// An empty array (no allocation).
    #[inline]
    pub const fn new() -> Self {
        Array { ptr: None, _owns: PhantomData }
    }

    /// An empty array with room for exactly `cap` items.
    pub fn with_capacity(cap: usize) -> Self {
        let mut a = Array::new();
        if cap > 0 {
            a.set_capacity(cap);
        }
        a
    }

    /// Moves all items out of `items` into a new array of exact capacity.
    pub fn from_vec(mut items: Vec<Value>) -> Self {
        let mut a = Array::with_capacity(items.len());
        a.append_from_vec(&mut items, 0);
        a
    }

    /// Moves `src[start..]` to the end of this array (growing it as needed), leaving `src` with `start` items.
    pub(crate) fn append_from_vec(&mut self, src: &mut Vec<Value>, start: usize) {
        let start = start.min(src.len());
        let n = src.len() - start;
        if n == 0 {
            return;
        }
        self.reserve_exact(n);
        let len = self.len();
        // SAFETY: 1. `reserve_exact` left room for `n` more items after `len`.
        // 2. `set_len(start)` first makes `src` forget the moved items, so each
        // is owned exactly once (by us after the copy).
        unsafe {
            src.set_len(start);
            ptr::copy_nonoverlapping(src.as_ptr().add(start), self.items_ptr().add(len), n);
            self.set_len(len + n);
        }
    }

    /// Number of items.
    #[inline]
    pub fn len(&self) -> usize {
        match self.ptr {
            // SAFETY: 1. a non-null `ptr` points at a live header.
            Some(p) => unsafe { (*p.as_ptr()).len as usize },
            None => 0,
        }
    }

    /// True when the array has no items.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of items the block has room for.
    #[inline]
    pub fn capacity(&self) -> usize {
        match self.ptr {
            // SAFETY: 1. a non-null `ptr` points at a live header.
            Some(p) => unsafe { (*p.as_ptr()).cap as usize },
            None => 0,
        }
    }

    #[inline]
    fn items_ptr(&self) -> *mut Value {
        match self.ptr {
            // SAFETY: 1. the items start ITEMS_OFFSET bytes into the block (see `layout`).
            Some(p) => unsafe { p.as_ptr().cast::<u8>().add(ITEMS_OFFSET).cast::<Value>() },
            None => NonNull::dangling().as_ptr(),
        }
    }

    /// # Safety
    /// `len <= capacity()`, items `0..len` initialised; a non-zero `len` needs a block.
    #[inline]
    unsafe fn set_len(&mut self, len: usize) {
        if let Some(p) = self.ptr {
            // SAFETY: 1. `p` points at a live header; `len <= cap <= u32::MAX`.
            unsafe { (*p.as_ptr()).len = len as u32 };
        }
    }

    /// The items as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Value] {
        // SAFETY: 1. items `0..len` are initialised and owned by `self`;
        // for an empty array the pointer is dangling but aligned, which is allowed.
        unsafe { std::slice::from_raw_parts(self.items_ptr(), self.len()) }
    }

    /// The items as a mutable slice.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Value] {
        // SAFETY: 1. as in `as_slice`, and `&mut self` guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.items_ptr(), self.len()) }
    }

    /// Iterates over the items.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Value> {
        self.as_slice().iter()
    }

    /// Iterates mutably over the items.
    #[inline]
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Value> {
        self.as_mut_slice().iter_mut()
    }

    /// The item at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Value> {
        self.as_slice().get(i)
    }

    /// The item at `i`, mutably.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Value> {
        self.as_mut_slice().get_mut(i)
    }

    /// Reallocates the block to exactly `cap` items (`cap >= len`, `cap > 0`).
    fn set_capacity(&mut self, cap: usize) {
        debug_assert!(cap >= self.len() && cap > 0);
        if cap > u32::MAX as usize {
            capacity_overflow();
        }
        let (new_layout, _) = layout(cap);
        // Read before the old block is reallocated (and possibly freed).
        let len = self.len() as u32;
        let raw = match self.ptr {
            // SAFETY: 1. `new_layout` has non-zero size (header included).
            None => unsafe { alloc::alloc(new_layout) },
            Some(p) => {
                let (old_layout, _) = layout(self.capacity());
                // SAFETY: 1. `p` was allocated with `old_layout`; same alignment; non-zero size.
                unsafe { alloc::realloc(p.as_ptr().cast(), old_layout, new_layout.size()) }
            }
        };
        let Some(p) = NonNull::new(raw.cast::<Header>()) else { alloc::handle_alloc_error(new_layout) };
        // SAFETY: 1. `p` is a live block of `new_layout`, large enough for a header.
        unsafe { p.as_ptr().write(Header { len, cap: cap as u32 }) };
        self.ptr = Some(p);
    }

    /// Makes room for at least `additional` more items (growing by doubling).
    pub fn reserve(&mut self, additional: usize) {
        let len = self.len();
        let Some(needed) = len.checked_add(additional) else { capacity_overflow() };
        let cap = self.capacity();
        if needed > cap {
            self.set_capacity(needed.max(cap.saturating_mul(2)).max(4));
        }
    }

    /// Makes room for exactly `additional` more items.
    pub fn reserve_exact(&mut self, additional: usize) {
        let Some(needed) = self.len().checked_add(additional) else { capacity_overflow() };
        if needed > self.capacity() {
            self.set_capacity(needed);
        }
    }

    /// Frees unused capacity.
    pub fn shrink_to_fit(&mut self) {
        let len = self.len();
        if len == self.capacity() {
            return;
        }
        if len == 0 {
            *self = Array::new();
        } else {
            self.set_capacity(len);
        }
    }

    /// Appends `v`.
    pub fn push(&mut self, v: Value) {
        self.reserve(1);
        let len = self.len();
        // SAFETY: 1. `reserve(1)` guarantees room for item `len`.
        unsafe {
            self.items_ptr().add(len).write(v);
            self.set_len(len + 1);
        }
    }

    /// Removes and returns the last item.
    pub fn pop(&mut self) -> Option<Value> {
        let len = self.len();
        if len == 0 {
            return None;
        }
        // SAFETY: 1. item `len - 1` is initialised; lowering `len` first hands its
        // ownership to the returned value.
        unsafe {
            self.set_len(len - 1);
            Some(self.items_ptr().add(len - 1).read())
        }
    }

    /// Inserts `v` at `i` (`i <= len`), shifting later items right. Gives `v` back if `i > len`.
    pub fn insert(&mut self, i: usize, v: Value) -> Result<(), Value> {
        let len = self.len();
        if i > len {
            return Err(v);
        }
        self.reserve(1);
        // SAFETY: 1. room for `len + 1` items; `copy` handles the overlap of the shift.
        // 2. slot `i` is then overwritten without dropping (its old item moved to `i + 1`).
        unsafe {
            let p = self.items_ptr().add(i);
            ptr::copy(p, p.add(1), len - i);
            p.write(v);
            self.set_len(len + 1);
        }
        Ok(())
    }

    /// Removes and returns the item at `i`, shifting later items left.
    pub fn remove(&mut self, i: usize) -> Option<Value> {
        let len = self.len();
        if i >= len {
            return None;
        }
        // SAFETY: 1. item `i` is initialised; after reading it out, the tail is
        // shifted over its slot and `len` lowered, so every item is owned once.
        unsafe {
            let p = self.items_ptr().add(i);
            let v = p.read();
            ptr::copy(p.add(1), p, len - i - 1);
            self.set_len(len - 1);
            Some(v)
        }
    }

    /// Drops items from `n` on (no-op when `n >= len`). Capacity is kept.
    pub fn truncate(&mut self, n: usize) {
        let len = self.len();
        if n >= len {
            return;
        }
        // SAFETY: 1. items `n..len` are initialised; `len` is lowered before dropping
        // them so a panicking drop can't cause a double drop.
        unsafe {
            self.set_len(n);
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.items_ptr().add(n), len - n));
        }
    }

    /// Keeps only the items in `start..end` (clamped to the array), dropping the others.
    pub fn retain_range(&mut self, start: usize, end: usize) {
        let len = self.len();
        let end = end.min(len);
        let start = start.min(end);
        self.truncate(end);
        if start == 0 {
            return;
        }
        // SAFETY: 1. items `0..start` are initialised and dropped exactly once;
        // `len` is set to 0 first so a panicking drop leaks rather than double-drops.
        // 2. then the `end - start` kept items are moved to the front.
        unsafe {
            self.set_len(0);
            let p = self.items_ptr();
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(p, start));
            ptr::copy(p.add(start), p, end - start);
            self.set_len(end - start);
        }
    }

    /// Removes every item. Capacity is kept.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Heap bytes owned by this array and its items (the block, then each item's heap).
    pub(crate) fn heap_size(&self, counted: &mut Counted) -> usize {
        match self.ptr {
            None => 0,
            Some(_) => {
                layout(self.capacity()).0.size() + self.iter().map(|v| v.heap_size(counted)).sum::<usize>()
            }
        }
    }
}

impl Default for Array {
    fn default() -> Self {
        Array::new()
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        if let Some(p) = self.ptr {
            let (l, _) = layout(self.capacity());
            // SAFETY: 1. items `0..len` are initialised and dropped once.
            // 2. the block was allocated with layout(cap) and is freed once.
            unsafe {
                ptr::drop_in_place(self.as_mut_slice());
                alloc::dealloc(p.as_ptr().cast(), l);
            }
        }
    }
}

impl Clone for Array {
    /// A deep copy with the same capacity (so `mem_usage` is the same).
    fn clone(&self) -> Self {
        let mut a = Array::new();
        if self.ptr.is_some() {
            a.set_capacity(self.capacity());
            for v in self.iter() {
                a.push(v.clone());
            }
        }
        a
    }
}

impl<'a> IntoIterator for &'a Array {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Array {
    type Item = &'a mut Value;
    type IntoIter = std::slice::IterMut<'a, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl FromIterator<Value> for Array {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Self {
        Array::from_vec(iter.into_iter().collect())
    }
}
