//! A boxed byte string behind one pointer: 8 bytes where a `Box<[u8]>` takes 16 (its
//! length), for what is held once per document (the document table's records). The length
//! is kept in front of the bytes, in the same allocation, as a little-endian `u32`.

use std::ptr::NonNull;

/// Bytes of the length in front of the contents.
pub(crate) const HEAD: usize = 4;

/// An owned, immutable byte string of at most `u32::MAX` bytes.
pub struct ThinBytes(NonNull<u8>);

// SAFETY: a ThinBytes owns its allocation alone, as a Box<[u8]> does, and never mutates it
// after construction; sharing or sending it is as safe as sharing or sending a Box<[u8]>.
unsafe impl Send for ThinBytes {}
// SAFETY: as above (`&ThinBytes` only reads).
unsafe impl Sync for ThinBytes {}

impl ThinBytes {
    /// A copy of `bytes` (of its first `u32::MAX` bytes: a document's record is far smaller).
    pub fn new(bytes: &[u8]) -> ThinBytes {
        let bytes = bytes.get(..bytes.len().min(u32::MAX as usize)).unwrap_or(bytes);
        let mut v = Vec::with_capacity(HEAD + bytes.len());
        v.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        v.extend_from_slice(bytes);
        let raw: *mut [u8] = Box::into_raw(v.into_boxed_slice());
        // A Box's pointer is never null; the fallback is unreachable.
        ThinBytes(NonNull::new(raw.cast::<u8>()).unwrap_or(NonNull::dangling()))
    }

    /// Where the allocation starts (the length, then the bytes), without reading it: for a
    /// prefetch.
    pub fn start_ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }

    /// Number of bytes held.
    fn stored_len(&self) -> usize {
        // SAFETY: the allocation starts with HEAD bytes of length, written by `new`, and
        // lives as long as self.
        let head = unsafe { std::slice::from_raw_parts(self.0.as_ptr(), HEAD) };
        let mut b = [0u8; HEAD];
        b.copy_from_slice(head);
        u32::from_le_bytes(b) as usize
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        let len = self.stored_len();
        // SAFETY: `new` allocated HEAD + len initialized bytes; the contents start at HEAD
        // and the borrow cannot outlive self, which owns them and never changes them.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().add(HEAD), len) }
    }
}

impl Drop for ThinBytes {
    fn drop(&mut self) {
        let len = HEAD + self.stored_len();
        // SAFETY: self.0 came from Box::into_raw of a boxed slice of exactly `len` bytes
        // (`new`); it is rebuilt once, here, and freed with the same layout.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.0.as_ptr(), len)) });
    }
}

impl std::ops::Deref for ThinBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl Clone for ThinBytes {
    fn clone(&self) -> ThinBytes {
        ThinBytes::new(self.as_slice())
    }
}

impl PartialEq for ThinBytes {
    fn eq(&self, o: &ThinBytes) -> bool {
        self.as_slice() == o.as_slice()
    }
}

impl Eq for ThinBytes {}

impl std::fmt::Debug for ThinBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_it_was_given_in_one_pointer() {
        assert_eq!(std::mem::size_of::<ThinBytes>(), 8);
        assert_eq!(std::mem::size_of::<Option<ThinBytes>>(), 8);
        for n in [0usize, 1, 3, 4, 5, 15, 16, 17, 255, 256, 70_000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 31 + n) as u8).collect();
            let t = ThinBytes::new(&data);
            assert_eq!(&t[..], data.as_slice());
            let c = t.clone();
            drop(t);
            assert_eq!(c.as_slice(), data.as_slice());
            assert_eq!(c, ThinBytes::new(&data));
        }
        assert_ne!(ThinBytes::new(b"ab"), ThinBytes::new(b"abc"));
        assert_eq!(format!("{:?}", ThinBytes::new(b"\x01")), "[1]");
    }
}
