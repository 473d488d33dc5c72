//! The byte sizes RediSearch 2.10's numeric inverted index gives its entries and buffers
//! (`inverted_index.c` `encodeNumeric`, `buffer.c` `Buffer_Grow`), so that the model's
//! `invertedIndexSize` reads as RediSearch's: what matters is how much a buffer *grows*,
//! which is what RediSearch adds up.

/// `sizeof(InvertedIndex)` on 64-bit builds (its `t_fieldMask` union member is 128 bits).
pub const INVERTED_INDEX_BYTES: usize = 48;
/// `sizeof(IndexBlock)`.
pub const BLOCK_BYTES: usize = 48;
/// `INDEX_BLOCK_INITIAL_CAP`: a new block's buffer capacity.
pub const BLOCK_INITIAL_CAP: usize = 6;
/// `INDEX_BLOCK_SIZE`: entries after which a new block is started (a document's entries
/// never span a block boundary they would start).
pub const BLOCK_ENTRIES: usize = 100;

/// Bytes `encodeNumeric` writes for an entry `delta` ids after the previous one in its block:
/// a header byte, the delta's significant bytes, then the value: nothing for 0..=7 (kept in
/// the header) or an infinity, the significant bytes of another whole number below 2^64,
/// else a float when it is one (or, with `_NUMERIC_COMPRESS`, within 0.01 of one), else a
/// double.
pub fn entry_bytes(delta: u64, value: f64, compress: bool) -> usize {
    let delta_bytes = (u64::BITS - delta.leading_zeros()).div_ceil(8) as usize;
    let abs = value.abs();
    let value_bytes = if abs == 0.0 || (value.fract() == 0.0 && (1.0..=7.0).contains(&value)) {
        0
    } else if abs.fract() == 0.0 && abs < 18_446_744_073_709_551_616.0 {
        let whole = abs as u64;
        ((u64::BITS - whole.leading_zeros()).div_ceil(8) as usize).max(1)
    } else if !value.is_finite() {
        0
    } else {
        let single = abs as f32;
        if f64::from(single) == abs || (compress && (abs - f64::from(single)).abs() < 0.01) {
            4
        } else {
            8
        }
    };
    1 + delta_bytes + value_bytes
}

/// The capacity a buffer of capacity `cap` grows to so that `needed` bytes fit: RediSearch
/// adds `min(1 + cap / 5, 1 MiB)` at a time (several writes or one, the result is the same).
pub fn grown(mut cap: usize, needed: usize) -> usize {
    while needed > cap {
        cap += (1 + cap / 5).min(1 << 20);
    }
    cap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_sizes_follow_encode_numeric() {
        assert_eq!(entry_bytes(0, 3.0, false), 1, "tiny, in the header");
        assert_eq!(entry_bytes(1, 3.0, false), 2);
        assert_eq!(entry_bytes(300, 0.0, false), 3);
        assert_eq!(entry_bytes(0, 8.0, false), 2, "whole, one byte");
        assert_eq!(entry_bytes(0, -3.0, false), 2, "a negative whole number is not tiny");
        assert_eq!(entry_bytes(0, 100_000.0, false), 4);
        assert_eq!(entry_bytes(0, 0.5, false), 5, "a float");
        assert_eq!(entry_bytes(0, 0.1, false), 9, "a double");
        assert_eq!(entry_bytes(0, 0.1, true), 5, "compressed to a float");
        assert_eq!(entry_bytes(0, f64::NEG_INFINITY, false), 1);
        assert_eq!(entry_bytes(0, 1e300, false), 9);
    }

    #[test]
    fn buffers_grow_by_a_fifth() {
        assert_eq!(grown(6, 6), 6);
        assert_eq!(grown(6, 7), 8);
        assert_eq!(grown(6, 11), 13);
        assert_eq!(grown(0, 1), 1);
        assert_eq!(grown(0, 6), 7, "0, 1, 2, 3, 4, 5, 7");
    }
}
