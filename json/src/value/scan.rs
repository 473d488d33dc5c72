//! Fast scanning of string bytes shared by the parser and the serializer.

/// Index of the first byte at or after `i` that is `"`, `\` or a control
/// character (or `input.len()`). Scans 8 bytes at a time.
#[inline]
pub(crate) fn skip_plain(input: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    while let Some(chunk) = input.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // A byte is "special" when < 0x20, == '"' or == '\\' (exact zero-byte tests).
        let ctrl = x.wrapping_sub(ONES * 0x20) & !x;
        let q = x ^ (ONES * b'"' as u64);
        let quote = q.wrapping_sub(ONES) & !q;
        let b = x ^ (ONES * b'\\' as u64);
        let backslash = b.wrapping_sub(ONES) & !b;
        let hits = (ctrl | quote | backslash) & HIGH;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = input.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}
