//! Compact storage of string values.
//!
//! Strings of up to [`INLINE_CAP`] bytes live inline (no heap); longer ones
//! are a thin pointer to one heap block `{len: u32, bytes…}` (4 GiB at most:
//! far above Redis's 512 MB argument limit; beyond it we abort like an
//! allocation failure). The contract:
//! every constructor takes a `&str`, so the bytes are always valid UTF-8.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

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
        Some(InlineStr {
            len: bytes.len() as u8,
            buf,
        })
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

/// Size of the `u32` length header in front of the bytes of a [`HeapStr`].
const HEADER: usize = std::mem::size_of::<u32>();

/// A string on the heap behind a thin pointer to `{len: u32, bytes[len]}`.
pub(crate) struct HeapStr {
    ptr: NonNull<u8>,
}

// SAFETY: 1. `HeapStr` uniquely owns its allocation, like `Box<str>`; it has no
// interior mutability, so moving it to or sharing it with another thread is sound.
unsafe impl Send for HeapStr {}
// SAFETY: 1. see `Send` above: `&HeapStr` only gives read access to owned bytes.
unsafe impl Sync for HeapStr {}

impl HeapStr {
    fn layout(len: usize) -> Layout {
        if len > u32::MAX as usize {
            capacity_overflow();
        }
        match Layout::from_size_align(HEADER + len, HEADER) {
            Ok(l) => l,
            Err(_) => capacity_overflow(),
        }
    }

    /// Copies `s` into a new heap block.
    pub(crate) fn new(s: &str) -> Self {
        let len = s.len();
        let layout = Self::layout(len);
        // SAFETY: 1. `layout` has a non-zero size (at least HEADER bytes).
        let raw = unsafe { alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            alloc::handle_alloc_error(layout)
        };
        // SAFETY: 1. the block is HEADER + len bytes, aligned for u32: the
        // header write and the copy of `len` bytes after it stay in bounds.
        // 2. `s` cannot overlap a block we just allocated.
        // 3. `layout` checked that `len` fits in u32.
        unsafe {
            ptr.as_ptr().cast::<u32>().write(len as u32);
            std::ptr::copy_nonoverlapping(s.as_ptr(), ptr.as_ptr().add(HEADER), len);
        }
        HeapStr { ptr }
    }

    /// Length in bytes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        // SAFETY: 1. `ptr` always points at a live block whose first word is the length.
        unsafe { self.ptr.as_ptr().cast::<u32>().read() as usize }
    }

    /// The stored text.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        let len = self.len();
        // SAFETY: 1. the block holds `len` initialised bytes after the header,
        // copied from `&str`s only (see `new` and `append`), hence valid UTF-8.
        // 2. the bytes live as long as `self`.
        unsafe {
            let bytes = std::slice::from_raw_parts(self.ptr.as_ptr().add(HEADER), len);
            std::str::from_utf8_unchecked(bytes)
        }
    }

    /// Appends `s` in place (one reallocation).
    pub(crate) fn append(&mut self, s: &str) {
        let old_len = self.len();
        let Some(new_len) = old_len.checked_add(s.len()) else {
            capacity_overflow()
        };
        let new_layout = Self::layout(new_len);
        // SAFETY: 1. `ptr` was allocated with `layout(old_len)` (same alignment),
        // and the new size is non-zero and was validated by `layout`.
        let raw =
            unsafe { alloc::realloc(self.ptr.as_ptr(), Self::layout(old_len), new_layout.size()) };
        let Some(ptr) = NonNull::new(raw) else {
            alloc::handle_alloc_error(new_layout)
        };
        // SAFETY: 1. the block now has room for HEADER + new_len bytes.
        // 2. `s` is borrowed from elsewhere, never from this block (we hold `&mut self`).
        // 3. `layout` checked that `new_len` fits in u32.
        unsafe {
            ptr.as_ptr().cast::<u32>().write(new_len as u32);
            std::ptr::copy_nonoverlapping(s.as_ptr(), ptr.as_ptr().add(HEADER + old_len), s.len());
        }
        self.ptr = ptr;
    }

    /// Bytes of the heap block.
    #[inline]
    pub(crate) fn heap_size(&self) -> usize {
        HEADER + self.len()
    }
}

impl Clone for HeapStr {
    fn clone(&self) -> Self {
        HeapStr::new(self.as_str())
    }
}

impl Drop for HeapStr {
    fn drop(&mut self) {
        let layout = Self::layout(self.len());
        // SAFETY: 1. `ptr` was allocated with exactly this layout and is freed once.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) }
    }
}

/// Aborts like `Vec` does when a size computation overflows.
#[cold]
pub(crate) fn capacity_overflow() -> ! {
    // A size this large can never be allocated; treat it like allocation failure
    // (abort) rather than unwinding through Redis.
    alloc::handle_alloc_error(Layout::new::<u8>())
}
