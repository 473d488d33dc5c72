//! LEB128 varints: 7 bits a byte, low bits first, the high bit set on every byte but the
//! last (positions in [`super::postings`], forward lists in [`super::forward`]).

/// Appends `v` as a varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, v: u32) {
    put_varint64(out, u64::from(v));
}

/// Reads a varint at `*at`, advancing it; `None` at the end of `bytes` (bits past the
/// 32nd are dropped).
#[inline]
pub fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    get_varint64(bytes, at).map(|v| v as u32)
}

/// Appends `v` as a varint (up to 10 bytes).
pub fn put_varint64(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Reads a varint of up to 64 bits at `*at`, advancing it; `None` at the end of `bytes`.
pub fn get_varint64(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0u32;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        shift += 7;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let values = [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX];
        let mut out = Vec::new();
        for v in values {
            put_varint(&mut out, v);
        }
        let mut at = 0;
        for v in values {
            assert_eq!(get_varint(&out, &mut at), Some(v));
        }
        assert_eq!(get_varint(&out, &mut at), None);
        assert_eq!(out.len(), 1 + 1 + 1 + 2 + 2 + 2 + 3 + 5);
    }
}
