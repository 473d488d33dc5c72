//! Compact storage of string values.
//!
//! Strings of up to [`INLINE_CAP`] bytes live inline (no heap); longer ones
//! are a thin pointer to a process-wide interned, refcounted block
//! `{count: u32, len_flags: u32, bytes…}` (see [`intern`]): every copy of a
//! document shares the text of its long strings, as RedisJSON's interning
//! does. Lengths are limited to 2 GiB (far above Redis's 512 MB argument
//! limit; beyond it we abort like an allocation failure). The contract:
//! every constructor takes a `&str`, so the bytes are always valid UTF-8.
//!
//! [`intern`]: super::intern

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use super::intern::{retain, BlockKind, Counted, Table};
use super::scan::skip_plain;

/// Longest string (in bytes) stored without a heap allocation.
pub(crate) const INLINE_CAP: usize = 14;

/// A short string stored in place: 15 bytes, alignment 1.
#[derive(Clone, Copy)]
pub(crate) struct InlineStr {
    len: u8,
    buf: [u8; INLINE_CAP],
}

impl InlineStr {
    /// Stores `s` inline, or returns `None` when it is longer than [`INLINE_CAP`].
    #[inline]
    pub(crate) fn new(s: &str) -> Option<Self> {
        let bytes = s.as_bytes();
        if bytes.len() > INLINE_CAP {
            return None;
        }
        let mut buf = [0u8; INLINE_CAP];
        buf[..bytes.len()].copy_from_slice(bytes);
        Some(InlineStr { len: bytes.len() as u8, buf })
    }

    /// The stored text.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        let bytes = &self.buf[..self.len as usize];
        // SAFETY: 1. `buf[..len]` was copied from a `&str` in `new` and is
        // never modified afterwards, so it is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }
}

/// Bytes in front of a [`HeapStr`]'s text: the reference count and the length word.
const HEADER: usize = 2 * std::mem::size_of::<u32>();

/// Flag in the length word: no byte of the text needs escaping in JSON output.
const PLAIN: u32 = 1 << 31;

/// Longest heap string: the length word keeps one bit for [`PLAIN`]
/// (2 GiB, far above Redis's 512 MB argument limit).
const MAX_LEN: usize = (PLAIN - 1) as usize;

/// The block behind a [`HeapStr`]: `{count: AtomicU32, len_flags: u32, bytes[len]}`.
#[repr(C)]
struct Header {
    count: std::sync::atomic::AtomicU32,
    len_flags: u32,
}

/// Interned string blocks (see [`intern`]).
struct Strings;

impl BlockKind for Strings {
    unsafe fn content<'a>(p: NonNull<u8>) -> &'a [u8] {
        // SAFETY: 1. `p` is a live string block (caller's guarantee): the header
        // is initialised and `len` bytes follow it.
        unsafe {
            let len = ((*p.as_ptr().cast::<Header>()).len_flags & !PLAIN) as usize;
            std::slice::from_raw_parts(p.as_ptr().add(HEADER), len)
        }
    }

    unsafe fn free(p: NonNull<u8>) {
        // SAFETY: 1. `p` is a live string block nobody references: its layout is
        // `layout(len)` as allocated in `HeapStr::alloc`; freed once.
        unsafe {
            let len = Self::content(p).len();
            alloc::dealloc(p.as_ptr(), HeapStr::layout(len));
        }
    }
}

/// Every [`HeapStr`] block of the process, by content.
static STRINGS: Table<Strings> = Table::new();

/// Number of distinct interned heap strings and the bytes of their table.
pub(crate) fn table_stats() -> (usize, usize) {
    STRINGS.stats()
}

/// A string of more than [`INLINE_CAP`] bytes: a thin pointer to a
/// process-wide interned, refcounted block (see [`intern`]). Equal texts share
/// one block; a clone is a reference count increment. The text never changes
/// (appending builds a new string).
pub(crate) struct HeapStr {
    ptr: NonNull<u8>,
}

// SAFETY: 1. the block is immutable once interned and its count is atomic;
// releasing follows the rule of the `intern` module, sound from any thread.
unsafe impl Send for HeapStr {}
// SAFETY: 1. see `Send` above: `&HeapStr` only reads immutable bytes.
unsafe impl Sync for HeapStr {}

impl HeapStr {
    /// The address of the block (its header, then the text), for cache hints.
    #[inline]
    pub(crate) fn addr(&self) -> *const u8 {
        self.ptr.as_ptr().cast_const()
    }

    fn layout(len: usize) -> Layout {
        if len > MAX_LEN {
            capacity_overflow();
        }
        match Layout::from_size_align(HEADER + len, std::mem::align_of::<Header>()) {
            Ok(l) => l,
            Err(_) => capacity_overflow(),
        }
    }

    /// A new block holding `s`, with count 1; `plain` if known, else scanned.
    fn alloc(s: &str, plain: Option<bool>) -> NonNull<u8> {
        let len = s.len();
        let layout = Self::layout(len);
        // SAFETY: 1. `layout` has a non-zero size (at least HEADER bytes).
        let raw = unsafe { alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw) else { alloc::handle_alloc_error(layout) };
        let plain = match plain.unwrap_or_else(|| skip_plain(s.as_bytes(), 0) == len) {
            true => PLAIN,
            false => 0,
        };
        // SAFETY: 1. the block is HEADER + len bytes, aligned for the header:
        // the header write and the copy of `len` bytes after it stay in bounds.
        // 2. `s` cannot overlap a block we just allocated.
        // 3. `layout` checked that `len` fits below the PLAIN bit.
        unsafe {
            ptr.as_ptr()
                .cast::<Header>()
                .write(Header { count: std::sync::atomic::AtomicU32::new(1), len_flags: len as u32 | plain });
            std::ptr::copy_nonoverlapping(s.as_ptr(), ptr.as_ptr().add(HEADER), len);
        }
        ptr
    }

    /// The shared block holding `s` (interned).
    pub(crate) fn new(s: &str) -> Self {
        Self::with_plain(s, None)
    }

    /// As [`HeapStr::new`], for a caller that knows whether `s` is plain
    /// (no byte needs escaping): `Some(answer)` saves the scan. A wrong
    /// answer would make the serializer write invalid JSON.
    pub(crate) fn with_plain(s: &str, plain: Option<bool>) -> Self {
        HeapStr { ptr: STRINGS.intern(s.as_bytes(), || Self::alloc(s, plain)) }
    }

    #[inline]
    fn len_flags(&self) -> u32 {
        // SAFETY: 1. `ptr` always points at a live block with an initialised header.
        unsafe { (*self.ptr.as_ptr().cast::<Header>()).len_flags }
    }

    /// Length in bytes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        (self.len_flags() & !PLAIN) as usize
    }

    /// True when no byte needs escaping in JSON output (computed once, when interned).
    #[inline]
    pub(crate) fn is_plain(&self) -> bool {
        self.len_flags() & PLAIN != 0
    }

    /// The stored text.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        // SAFETY: 1. the block is live while `self` is; its bytes were copied
        // from a `&str` in `alloc` and never change, hence valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(Strings::content(self.ptr)) }
    }

    /// Appends `s` (copy on write: the shared block stays as it is).
    pub(crate) fn append(&mut self, s: &str) {
        let mut joined = String::with_capacity(self.len().saturating_add(s.len()));
        joined.push_str(self.as_str());
        joined.push_str(s);
        *self = HeapStr::new(&joined);
    }

    /// Bytes of the heap block the first time `counted` sees it, else 0.
    #[inline]
    pub(crate) fn heap_size(&self, counted: &mut Counted) -> usize {
        if counted.first(self.ptr) {
            HEADER + self.len()
        } else {
            0
        }
    }
}

impl Clone for HeapStr {
    #[inline]
    fn clone(&self) -> Self {
        // SAFETY: 1. `self` holds a reference to the live block.
        unsafe { retain(self.ptr) };
        HeapStr { ptr: self.ptr }
    }
}

impl Drop for HeapStr {
    fn drop(&mut self) {
        // SAFETY: 1. `ptr` came from `STRINGS.intern` (or a clone of such), and
        // this value gives its reference up exactly once.
        unsafe { STRINGS.release(self.ptr) }
    }
}

/// Aborts like `Vec` does when a size computation overflows.
#[cold]
pub(crate) fn capacity_overflow() -> ! {
    // A size this large can never be allocated; treat it like allocation failure
    // (abort) rather than unwinding through Redis.
    alloc::handle_alloc_error(Layout::new::<u8>())
}
