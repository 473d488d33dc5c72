//! [`Shape`]: the ordered key list of an object, shared by every object with
//! the same keys in the same order (a "hidden class").
//!
//! Block layout: `Header` (32 bytes) then the key arena: each key as a LEB128
//! length followed by its UTF-8 bytes, in entry order. A key costs its length
//! plus one byte (for keys under 128 bytes). Shapes of more than
//! [`INDEX_MIN_LEN`] keys also own an index block: a hash table (open
//! addressing, linear probing, slots hold entry position + 1) followed by each
//! entry's key offset, so lookup and positional access stay O(1).
//!
//! Shapes are interned process-wide by content (see [`super::intern`]) when
//! an object is parsed or built whole, so further copies of a document, and
//! objects of one schema, share their keys. Interned shapes never change:
//! adding or removing a key makes (and interns) the new key list, which is
//! O(keys) and fine for small objects. Removing a key moves the last key into its place, as
//! RedisJSON's store does. A shape that would have more than
//! [`SHARED_MAX`] keys after an insert becomes *owned*: not in the table, it
//! grows in place (amortised doubling) while its object is its only holder,
//! so building a large map key by key stays O(1) amortised per insert.

use std::alloc::{self, Layout};
use std::hash::BuildHasher;
use std::ptr::{self, NonNull};
use std::sync::atomic::AtomicU32;
use std::sync::OnceLock;

use super::intern::{self, BlockKind, Counted, Table};
use super::scan::skip_plain;
use super::string::capacity_overflow;

/// Shapes with more keys than this get a hash index.
pub(crate) const INDEX_MIN_LEN: usize = 32;

/// Inserting into a shape of this many keys or more makes it owned (not interned).
pub(crate) const SHARED_MAX: usize = 64;

/// Flag: every key is plain (no byte needs escaping in JSON output).
const PLAIN_KEYS: u32 = 1;
/// Flag: the shape is in the intern table (so it never changes).
const INTERNED: u32 = 2;

#[repr(C)]
struct Header {
    count: AtomicU32,
    len: u32,
    keys_len: u32,
    keys_cap: u32,
    flags: u32,
    /// Entries the index has room for (0 when there is no index).
    index_cap: u32,
    /// See [`index_layout`].
    index: Option<NonNull<u32>>,
}

const ARENA_OFFSET: usize = {
    assert!(std::mem::size_of::<Header>() == 32);
    32
};

/// Layout of a shape block with `keys_cap` arena bytes.
fn layout(keys_cap: usize) -> Layout {
    match keys_cap.checked_add(ARENA_OFFSET).map(|s| Layout::from_size_align(s, 8)) {
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
    let Some(slots) = cap.checked_mul(2).and_then(usize::checked_next_power_of_two) else {
        capacity_overflow()
    };
    match slots.checked_add(cap).map(Layout::array::<u32>) {
        Some(Ok(layout)) => IndexLayout { slots, layout },
        _ => capacity_overflow(),
    }
}

fn hash_key(key: &str) -> usize {
    static STATE: OnceLock<foldhash::fast::RandomState> = OnceLock::new();
    STATE.get_or_init(foldhash::fast::RandomState::default).hash_one(key) as usize
}

/// Bytes needed to store `key` in an arena.
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

/// Appends `key` to an arena under construction.
#[inline]
pub(crate) fn push_encoded(arena: &mut Vec<u8>, key: &str) {
    let mut n = key.len();
    while n >= 0x80 {
        arena.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    arena.push(n as u8);
    arena.extend_from_slice(key.as_bytes());
}

/// Decodes the key starting at `arena[0]`: returns it and the bytes it occupies.
#[inline]
pub(crate) fn decode_key(arena: &[u8]) -> (&str, usize) {
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
    // SAFETY: 1. arenas are written only by `push_encoded`/`encode_key`, which copy
    // a `&str` whole after its length; decoding starts at key boundaries only.
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

/// Interned shape blocks.
struct Shapes;

impl BlockKind for Shapes {
    unsafe fn content<'a>(p: NonNull<u8>) -> &'a [u8] {
        // SAFETY: 1. `p` is a live shape block (caller's guarantee): `keys_len`
        // arena bytes after the header are initialised.
        unsafe {
            let h = &*p.as_ptr().cast::<Header>();
            std::slice::from_raw_parts(p.as_ptr().add(ARENA_OFFSET), h.keys_len as usize)
        }
    }

    unsafe fn free(p: NonNull<u8>) {
        // SAFETY: 1. `p` is a live shape block nobody references (caller's
        // guarantee); `free_block` frees its index and the block once.
        unsafe { free_block(p.cast()) }
    }
}

/// Frees a shape block and its index.
///
/// # Safety
/// `p` must be a live shape block that nothing references any more.
unsafe fn free_block(p: NonNull<Header>) {
    // SAFETY: 1. the header is live; the index was allocated with
    // `index_layout(index_cap)` and the block with `layout(keys_cap)`; each is freed once.
    unsafe {
        let h = &*p.as_ptr();
        if let Some(idx) = h.index {
            alloc::dealloc(idx.as_ptr().cast(), index_layout(h.index_cap as usize).layout);
        }
        alloc::dealloc(p.as_ptr().cast(), layout(h.keys_cap as usize));
    }
}

/// Every interned shape of the process, by content.
static SHAPES: Table<Shapes> = Table::new();

/// Shape blocks allocated or reallocated so far (for tests: growth must be amortised).
static BLOCK_ALLOCS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// See [`BLOCK_ALLOCS`].
pub(crate) fn block_allocs() -> usize {
    BLOCK_ALLOCS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Number of distinct interned shapes and the bytes of their table.
pub(crate) fn table_stats() -> (usize, usize) {
    SHAPES.stats()
}

/// A reference to a non-empty key list (see the module doc).
pub(crate) struct Shape {
    ptr: NonNull<Header>,
}

// SAFETY: 1. interned shapes are immutable and refcounted atomically; an owned
// shape is changed only through `&mut Shape` while its count is 1 (no other
// holder exists on any thread). Releasing follows the `intern` module's rule.
unsafe impl Send for Shape {}
// SAFETY: 1. see `Send`: `&Shape` only reads.
unsafe impl Sync for Shape {}

impl Shape {
    /// The address of the block, for cache hints.
    #[inline]
    pub(crate) fn addr(&self) -> *const u8 {
        self.ptr.as_ptr().cast::<u8>().cast_const()
    }

    #[inline]
    fn header(&self) -> &Header {
        // SAFETY: 1. `ptr` always points at a live, initialised shape block.
        unsafe { &*self.ptr.as_ptr() }
    }

    /// Number of keys.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.header().len as usize
    }

    /// True when no key needs escaping in JSON output.
    #[inline]
    pub(crate) fn keys_plain(&self) -> bool {
        self.header().flags & PLAIN_KEYS != 0
    }

    /// The encoded keys, in entry order.
    #[inline]
    pub(crate) fn arena(&self) -> &[u8] {
        // SAFETY: 1. the block is live while `self` is; `Shapes::content` reads
        // the initialised part of its arena.
        unsafe { Shapes::content(self.ptr.cast()) }
    }

    #[inline]
    fn arena_ptr(&self) -> *mut u8 {
        // SAFETY: 1. the arena follows the header in the same block.
        unsafe { self.ptr.as_ptr().cast::<u8>().add(ARENA_OFFSET) }
    }

    fn index(&self) -> Option<(NonNull<u32>, IndexLayout)> {
        let h = self.header();
        h.index.map(|p| (p, index_layout(h.index_cap as usize)))
    }

    /// Bytes of the block and its index the first time `counted` sees them, else 0.
    pub(crate) fn heap_size(&self, counted: &mut Counted) -> usize {
        if !counted.first(self.ptr.cast()) {
            return 0;
        }
        let h = self.header();
        layout(h.keys_cap as usize).size() + self.index().map_or(0, |(_, il)| il.layout.size())
    }

    /// A new block holding `arena` (`len` distinct keys) with room for `keys_cap`
    /// arena bytes and an index for `index_cap` entries (when `len` calls for one).
    /// Count 1, not interned.
    fn alloc(arena: &[u8], len: usize, keys_cap: usize, index_cap: usize) -> NonNull<Header> {
        if keys_cap > u32::MAX as usize || index_cap > u32::MAX as usize {
            capacity_overflow();
        }
        let l = layout(keys_cap);
        BLOCK_ALLOCS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: 1. `l` has non-zero size (the header).
        let raw = unsafe { alloc::alloc(l) };
        let Some(p) = NonNull::new(raw.cast::<Header>()) else { alloc::handle_alloc_error(l) };
        let mut plain = true;
        let mut off = 0;
        while off < arena.len() && plain {
            let (k, used) = decode_key(arena.get(off..).unwrap_or_default());
            plain = skip_plain(k.as_bytes(), 0) == k.len();
            off += used;
        }
        // SAFETY: 1. the block has room for the header and `keys_cap >= arena.len()`
        // bytes after it; `arena` is borrowed from elsewhere (no overlap).
        unsafe {
            p.as_ptr().write(Header {
                count: AtomicU32::new(1),
                len: len as u32,
                keys_len: arena.len() as u32,
                keys_cap: keys_cap as u32,
                flags: if plain { PLAIN_KEYS } else { 0 },
                index_cap: 0,
                index: None,
            });
            ptr::copy_nonoverlapping(arena.as_ptr(), p.as_ptr().cast::<u8>().add(ARENA_OFFSET), arena.len());
        }
        if len > INDEX_MIN_LEN {
            // Not yet a handle anyone holds: build the index through a
            // temporary one that must not release the block.
            let mut s = std::mem::ManuallyDrop::new(Shape { ptr: p });
            s.build_index(index_cap.max(len));
        }
        p
    }

    /// The interned shape of `arena`, which holds `len` distinct encoded keys (`len >= 1`).
    pub(crate) fn intern(arena: &[u8], len: usize) -> Shape {
        let p = SHAPES.intern(arena, || {
            let p = Self::alloc(arena, len, arena.len(), len);
            // SAFETY: 1. the block is new and not yet shared: setting a flag is exclusive.
            unsafe { (*p.as_ptr()).flags |= INTERNED };
            p.cast()
        });
        Shape { ptr: p.cast() }
    }

    /// An owned copy of `self` with room for `extra_keys` more arena bytes and one more entry.
    fn owned_copy(&self, extra_keys: usize) -> Shape {
        let h = self.header();
        let keys_cap =
            (h.keys_len as usize).saturating_add(extra_keys).max((h.keys_len as usize).saturating_mul(2));
        let index_cap = (self.len() + 1).max(self.len().saturating_mul(2));
        Shape { ptr: Self::alloc(self.arena(), self.len(), keys_cap, index_cap) }
    }

    /// True when this shape may be changed in place: owned, and held only by the caller.
    fn is_mutable(&self) -> bool {
        // SAFETY: 1. `self` holds a reference to the live block.
        self.header().flags & INTERNED == 0 && unsafe { intern::is_unique(self.ptr.cast()) }
    }

    /// (Re)builds the index for `cap >= len` entries.
    fn build_index(&mut self, cap: usize) {
        let p = self.ptr;
        // SAFETY: 1. only called on blocks nobody else can observe changing: new
        // ones, or mutable ones (`is_mutable`).
        let h = unsafe { &mut *p.as_ptr() };
        if let Some(idx) = h.index.take() {
            // SAFETY: 1. allocated with `index_layout(index_cap)`; freed once.
            unsafe { alloc::dealloc(idx.as_ptr().cast(), index_layout(h.index_cap as usize).layout) };
        }
        if cap > u32::MAX as usize {
            capacity_overflow();
        }
        let il = index_layout(cap);
        // SAFETY: 1. the layout has non-zero size (cap > INDEX_MIN_LEN).
        let raw = unsafe { alloc::alloc_zeroed(il.layout) };
        let Some(idx) = NonNull::new(raw.cast::<u32>()) else { alloc::handle_alloc_error(il.layout) };
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
        // SAFETY: 1. exclusive access (see above).
        unsafe {
            (*p.as_ptr()).index = Some(idx);
            (*p.as_ptr()).index_cap = cap as u32;
        }
    }

    /// Arena offset of key `i` (requires `i < len`).
    pub(crate) fn key_offset(&self, i: usize) -> usize {
        match self.index() {
            // SAFETY: 1. the index holds `index_cap >= len > i` offsets after its slots.
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

    /// Key `i` (requires `i < len`).
    #[inline]
    pub(crate) fn key_at(&self, i: usize) -> &str {
        let off = self.key_offset(i);
        decode_key(self.arena().get(off..).unwrap_or_default()).0
    }

    /// Position of `key`.
    pub(crate) fn position(&self, key: &str) -> Option<usize> {
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
                    // SAFETY: 1. slots hold positions < len <= index_cap, and offsets follow the slots.
                    let off = unsafe { *idx.as_ptr().add(il.slots + slot - 1) } as usize;
                    if decode_key(arena.get(off..)?).0 == key {
                        return Some(slot - 1);
                    }
                    s = (s + 1) & mask;
                }
            }
        }
    }

    /// Appends `key` (known absent) to the key list `shape` (`None` = no keys).
    pub(crate) fn push(shape: &mut Option<Shape>, key: &str) {
        let need = encoded_len(key);
        let Some(s) = shape.as_mut() else {
            let mut arena = Vec::with_capacity(need);
            push_encoded(&mut arena, key);
            *shape = Some(Shape::intern(&arena, 1));
            return;
        };
        if !s.is_mutable() {
            if s.len() < SHARED_MAX && s.header().flags & INTERNED != 0 {
                let mut arena = Vec::with_capacity(s.arena().len() + need);
                arena.extend_from_slice(s.arena());
                push_encoded(&mut arena, key);
                *s = Shape::intern(&arena, s.len() + 1);
                return;
            }
            *s = s.owned_copy(need);
        }
        s.push_in_place(key, need);
    }

    /// Appends `key` to a mutable shape, growing it by doubling.
    fn push_in_place(&mut self, key: &str, need: usize) {
        let (len, keys_len, keys_cap) = {
            let h = self.header();
            (h.len as usize, h.keys_len as usize, h.keys_cap as usize)
        };
        let Some(keys_needed) = keys_len.checked_add(need) else { capacity_overflow() };
        if keys_needed > u32::MAX as usize {
            capacity_overflow();
        }
        if keys_needed > keys_cap {
            let new_cap = keys_needed.max(keys_cap.saturating_mul(2));
            let old = layout(keys_cap);
            let new = layout(new_cap);
            BLOCK_ALLOCS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            // SAFETY: 1. the block was allocated with `old`; same alignment; the
            // new size is non-zero. The shape is mutable (only we hold it).
            let raw = unsafe { alloc::realloc(self.ptr.as_ptr().cast(), old, new.size()) };
            let Some(p) = NonNull::new(raw.cast::<Header>()) else { alloc::handle_alloc_error(new) };
            self.ptr = p;
            // SAFETY: 1. exclusive access; the block now has `new_cap` arena bytes.
            unsafe { (*p.as_ptr()).keys_cap = new_cap as u32 };
        }
        // SAFETY: 1. room for `need` more arena bytes (grown above); `key` is
        // borrowed from elsewhere. 2. exclusive access (mutable shape).
        unsafe {
            encode_key(self.arena_ptr().add(keys_len), key);
            let h = &mut *self.ptr.as_ptr();
            h.len = len as u32 + 1;
            h.keys_len = keys_needed as u32;
        }
        let index_cap = self.header().index_cap as usize;
        match self.index() {
            Some((idx, il)) if len < index_cap => {
                let mask = il.slots - 1;
                // SAFETY: 1. `s <= mask`; `slots + len < slots + index_cap`; load <= 1/2.
                unsafe {
                    let mut s = hash_key(key) & mask;
                    while *idx.as_ptr().add(s) != 0 {
                        s = (s + 1) & mask;
                    }
                    *idx.as_ptr().add(s) = len as u32 + 1;
                    *idx.as_ptr().add(il.slots + len) = keys_len as u32;
                }
            }
            _ if len + 1 > INDEX_MIN_LEN => {
                self.build_index((len + 1).max(index_cap.saturating_mul(2)));
            }
            _ => {}
        }
    }

    /// Removes key `i` (requires `i < len`) from the key list `shape`, moving the last key into
    /// its place (RedisJSON's swap-remove: see [`super::Object::remove_index`]).
    pub(crate) fn swap_remove(shape: &mut Option<Shape>, i: usize) {
        let Some(s) = shape.as_mut() else { return };
        let len = s.len();
        if len <= 1 {
            *shape = None;
            return;
        }
        let keys_len = s.header().keys_len as usize;
        let off = s.key_offset(i);
        let used = decode_key(s.arena().get(off..).unwrap_or_default()).1;
        // The arena is `head | key i | middle | last`; it becomes `head | last | middle`
        // (just `head | middle` when `i` is the last key, with an empty `last`).
        let last_off = if i + 1 == len { off } else { s.key_offset(len - 1) };
        let last: Vec<u8> = if i + 1 == len {
            Vec::new()
        } else {
            s.arena().get(last_off..keys_len).unwrap_or_default().to_vec()
        };
        let middle = (off + used)..last_off.max(off + used);
        if s.is_mutable() {
            // SAFETY: 1. `middle` moves to just after where `last` goes (`copy` allows
            // overlap), then `last` (a copy, no overlap) fills the gap; everything stays inside
            // the initialised arena, which shrinks by `used`. 2. exclusive access (mutable).
            unsafe {
                let a = s.arena_ptr();
                ptr::copy(a.add(middle.start), a.add(off + last.len()), middle.len());
                ptr::copy_nonoverlapping(last.as_ptr(), a.add(off), last.len());
                let h = &mut *s.ptr.as_ptr();
                h.len -= 1;
                h.keys_len = (keys_len - used) as u32;
            }
            if s.index().is_some() {
                let cap = s.header().index_cap as usize;
                s.build_index(cap);
            }
            return;
        }
        let arena = s.arena();
        let mut rest = Vec::with_capacity(keys_len - used);
        rest.extend_from_slice(arena.get(..off).unwrap_or_default());
        rest.extend_from_slice(&last);
        rest.extend_from_slice(arena.get(middle).unwrap_or_default());
        *s = if s.header().flags & INTERNED != 0 {
            Shape::intern(&rest, len - 1)
        } else {
            Shape { ptr: Self::alloc(&rest, len - 1, rest.len(), len - 1) }
        };
    }
}

impl Clone for Shape {
    #[inline]
    fn clone(&self) -> Self {
        // SAFETY: 1. `self` holds a reference to the live block.
        unsafe { intern::retain(self.ptr.cast()) };
        Shape { ptr: self.ptr }
    }
}

impl Drop for Shape {
    fn drop(&mut self) {
        let p = self.ptr.cast::<u8>();
        if self.header().flags & INTERNED != 0 {
            // SAFETY: 1. an interned shape came from `SHAPES.intern`; this handle
            // gives up its reference once.
            unsafe { SHAPES.release(p) }
        } else {
            // SAFETY: 1. an owned shape is in no table; the last holder frees it
            // (Arc-like release), once.
            unsafe {
                if intern::release_unlisted(p) {
                    free_block(self.ptr);
                }
            }
        }
    }
}
