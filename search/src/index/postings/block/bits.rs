//! Bit-level reads and writes of a block's packed rows ([`super`]): values of up to 32 bits
//! at any bit, read with one unaligned u64 load, and moves of bit ranges in place.

/// The low `w` bits (`w` at most 32).
pub(super) fn mask(w: u8) -> u64 {
    (1u64 << w) - 1
}

/// The `w`-bit value at bit `at` of `bytes`.
#[inline(always)]
pub(super) fn load(bytes: &[u8], at: usize, w: u8) -> u32 {
    let b = at / 8;
    let word = bytes.get(b..b + 8).and_then(|s| <[u8; 8]>::try_from(s).ok()).map_or(0, u64::from_le_bytes);
    ((word >> (at % 8)) & mask(w)) as u32
}

/// The 57 or more bits from bit `at` of `bytes` (0 past their end).
#[inline(always)]
pub(super) fn load64(bytes: &[u8], at: usize) -> u64 {
    let b = at / 8;
    let word = bytes.get(b..b + 8).and_then(|s| <[u8; 8]>::try_from(s).ok()).map_or(0, u64::from_le_bytes);
    word >> (at % 8)
}

/// Writes the low `w` bits of `v` at bit `at` of `bytes` (`w` at most 56).
pub(super) fn store(bytes: &mut [u8], at: usize, w: u8, v: u64) {
    if w == 0 {
        return;
    }
    let b = at / 8;
    let Some(word) = bytes.get_mut(b..b + 8).and_then(|s| <&mut [u8; 8]>::try_from(s).ok()) else { return };
    let sh = at % 8;
    let m = mask(w) << sh;
    let v = (u64::from_le_bytes(*word) & !m) | ((v << sh) & m);
    *word = v.to_le_bytes();
}

/// The 64 bits from bit `at` of `bytes` (0 past their end): the eight bytes from its byte and,
/// when it is not on a byte boundary, the one after them.
#[inline(always)]
pub(super) fn load_word(bytes: &[u8], at: usize) -> u64 {
    let (b, sh) = (at / 8, at % 8);
    if let Some((lo, &[hi])) = bytes.get(b..b + 9).and_then(|s| s.split_first_chunk::<8>()) {
        let lo = u64::from_le_bytes(*lo);
        return if sh == 0 { lo } else { lo >> sh | u64::from(hi) << (64 - sh) };
    }
    let lo = match bytes.get(b..b + 8) {
        Some(s) => <[u8; 8]>::try_from(s).map_or(0, u64::from_le_bytes),
        None => bytes.get(b..).unwrap_or(&[]).iter().rev().fold(0, |w, &x| w << 8 | u64::from(x)),
    };
    if sh == 0 {
        return lo;
    }
    let hi = u64::from(bytes.get(b + 8).copied().unwrap_or(0));
    lo >> sh | hi << (64 - sh)
}

/// Moves the `len` bits at bit `src` of `bytes` to bit `dst` (the two ranges may overlap).
/// The destination's whole bytes are written a u64 at a time, each from one shifted load
/// of the source; its partial bytes at either end through [`store`]. Moving down goes front
/// to back and moving up back to front, so a source bit is read before anything is
/// written over it.
pub(super) fn move_bits(bytes: &mut [u8], src: usize, dst: usize, len: usize) {
    if len == 0 || src == dst {
        return;
    }
    // The destination: `head` bits up to a byte boundary, `words` whole u64s, `rest` whole
    // bytes (fewer than 8), then `tail` bits.
    let head = ((8 - dst % 8) % 8).min(len);
    let words = (len - head) / 64;
    let rest = (len - head - words * 64) / 8;
    let tail = len - head - words * 64 - rest * 8;
    // Bits `k..k + w` of the moved range (`w` at most 56).
    let part = |bytes: &mut [u8], k: usize, w: usize| {
        if w > 0 {
            let v = load_word(bytes, src + k) & mask(w as u8);
            store(bytes, dst + k, w as u8, v);
        }
    };
    let body = head + words * 64;
    // Whole word `j` of the moved range (its destination on a byte boundary).
    let word = |bytes: &mut [u8], j: usize| {
        let v = load_word(bytes, src + head + j * 64);
        let b = (dst + head) / 8 + j * 8;
        if let Some(out) = bytes.get_mut(b..b + 8) {
            out.copy_from_slice(&v.to_le_bytes());
        }
    };
    if dst < src {
        part(bytes, 0, head);
        for j in 0..words {
            word(bytes, j);
        }
        part(bytes, body, rest * 8);
        part(bytes, body + rest * 8, tail);
    } else {
        part(bytes, body + rest * 8, tail);
        part(bytes, body, rest * 8);
        for j in (0..words).rev() {
            word(bytes, j);
        }
        part(bytes, 0, head);
    }
}
