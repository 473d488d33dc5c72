//! The positions stream of a block ([`super`]): per posting, the varint deltas of its
//! positions; skipping a count of varints from either end, eight bytes at a time.

use super::reserve;
use crate::index::varint::put_varint;

/// Bytes of `v` as a varint.
pub(super) fn varint_len(v: u32) -> usize {
    (32 - v.leading_zeros()).max(1).div_ceil(7) as usize
}

/// Appends the deltas of sorted `positions` to `out`.
pub(super) fn encode_into(out: &mut Vec<u8>, positions: &[u32]) {
    let mut last = 0u32;
    let len: usize = positions
        .iter()
        .map(|&p| {
            let d = p.wrapping_sub(last);
            last = p;
            varint_len(d)
        })
        .sum();
    reserve(out, len);
    let mut last = 0;
    for &p in positions {
        put_varint(out, p.wrapping_sub(last));
        last = p;
    }
}

/// The byte length of `count` varints from `at`.
pub(super) fn entry_len(bytes: &[u8], at: usize, count: u32) -> usize {
    skip(bytes, at, count as usize)
}

/// How many varints end in the eight bytes from `at` (bytes with the high bit clear end one),
/// or `None` past the end of `bytes`.
fn ends_in(bytes: &[u8], at: usize) -> Option<usize> {
    let w = u64::from_le_bytes(*bytes.get(at..)?.first_chunk::<8>()?);
    Some((!w & 0x8080_8080_8080_8080).count_ones() as usize)
}

/// Where the last `count` varints of `bytes` start (eight bytes at a time while they do not
/// hold the varint before them).
pub(super) fn skip_back(bytes: &[u8], count: usize) -> usize {
    // The start follows the end byte (high bit clear) of the varint before them: the
    // `count + 1`-th end byte from the back.
    let mut i = bytes.len();
    let mut left = count + 1;
    while i >= 8 {
        let Some(ends) = ends_in(bytes, i - 8) else { break };
        if ends >= left {
            break;
        }
        left -= ends;
        i -= 8;
    }
    while i > 0 {
        i -= 1;
        if bytes.get(i).is_some_and(|b| b & 0x80 == 0) {
            left -= 1;
            if left == 0 {
                return i + 1;
            }
        }
    }
    0
}

/// The byte length of `count` varints from `at` (eight bytes at a time while they do not
/// hold the last one).
pub(super) fn skip(bytes: &[u8], at: usize, count: usize) -> usize {
    let mut i = at;
    let mut left = count;
    while left >= 8 {
        let Some(ends) = ends_in(bytes, i) else { break };
        if ends >= left {
            break;
        }
        left -= ends;
        i += 8;
    }
    while left > 0 {
        match bytes.get(i) {
            Some(b) => {
                i += 1;
                if b & 0x80 == 0 {
                    left -= 1;
                }
            }
            None => break,
        }
    }
    i - at
}
