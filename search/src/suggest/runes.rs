//! Strings as RediSearch's trie sees them: 16-bit "runes".
//!
//! RediSearch decodes UTF-8 with libnu's unchecked reader (the lead byte alone decides the length,
//! continuation bits are taken as they come), truncates every code point to 16 bits, stops at the
//! first NUL, and writes runes back as UTF-8 (a rune that is a lone surrogate becomes its 3-byte
//! form). These functions reproduce that byte for byte, so suggestions read back, sort and
//! persist exactly as the reference's do (a character beyond the BMP comes back as another
//! character, as it does there).

use super::fold_table::FOLD_EXCEPTIONS;

/// One trie character: a code point truncated to 16 bits (RediSearch's default `rune`).
pub type Rune = u16;

/// The byte at `i`, or NUL past the end (a Redis string is NUL-terminated; the reader may look
/// one or more bytes beyond a truncated sequence).
fn byte(s: &[u8], i: usize) -> u32 {
    s.get(i).copied().map_or(0, u32::from)
}

/// libnu's `nu_utf8_read`: the code point at `i` and the length it claims.
fn read(s: &[u8], i: usize) -> (u32, usize) {
    let c = byte(s, i);
    if c < 0x80 {
        (c, 1)
    } else if c < 0xE0 {
        (((c & 0x1F) << 6) | (byte(s, i + 1) & 0x3F), 2)
    } else if c < 0xF0 {
        (((c & 0x0F) << 12) | ((byte(s, i + 1) & 0x3F) << 6) | (byte(s, i + 2) & 0x3F), 3)
    } else {
        let cp = ((c & 0x07) << 18)
            | ((byte(s, i + 1) & 0x3F) << 12)
            | ((byte(s, i + 2) & 0x3F) << 6)
            | (byte(s, i + 3) & 0x3F);
        (cp, 4)
    }
}

/// Decodes `s` to code points (untruncated), stopping at the end or at a NUL.
fn code_points(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= s.len() {
            return None;
        }
        let (cp, n) = read(s, i);
        i += n;
        (cp != 0).then_some(cp)
    })
}

/// RediSearch's `strToRunesN`: the string as runes, case kept (what the trie stores).
pub fn to_runes(s: &[u8]) -> Vec<Rune> {
    code_points(s).map(|cp| cp as Rune).collect()
}

/// RediSearch's `strToFoldedRunes`: the string case-folded, as runes (a query prefix).
pub fn to_folded_runes(s: &[u8]) -> Vec<Rune> {
    code_points(s).map(|cp| fold(cp) as Rune).collect()
}

/// The number of code points RediSearch counts in `s` before a NUL.
pub fn count(s: &[u8]) -> usize {
    code_points(s).count()
}

/// RediSearch's `runesToStr`: runes back to (possibly surrogate-bearing) UTF-8, up to a 0 rune.
pub fn to_bytes(runes: &[Rune]) -> Vec<u8> {
    let mut out = Vec::with_capacity(runes.len());
    for &r in runes.iter().take_while(|&&r| r != 0) {
        let r = u32::from(r);
        if r < 0x80 {
            out.push(r as u8);
        } else if r < 0x800 {
            out.extend([0xC0 | (r >> 6) as u8, 0x80 | (r & 0x3F) as u8]);
        } else {
            out.extend([0xE0 | (r >> 12) as u8, 0x80 | ((r >> 6) & 0x3F) as u8, 0x80 | (r & 0x3F) as u8]);
        }
    }
    out
}

/// libnu's `nu_tofold` as RediSearch reads it: the first code point of the character's full
/// case folding, or the character itself.
pub fn fold(cp: u32) -> u32 {
    if cp < 0x80 {
        return u32::from((cp as u8).to_ascii_lowercase());
    }
    if let Ok(i) = FOLD_EXCEPTIONS.binary_search_by_key(&cp, |&(from, _)| from) {
        return FOLD_EXCEPTIONS.get(i).map_or(cp, |&(_, to)| to);
    }
    char::from_u32(cp).and_then(|c| c.to_lowercase().next()).map_or(cp, u32::from)
}

/// [`fold`] of a trie rune.
pub fn fold_rune(r: Rune) -> Rune {
    fold(u32::from(r)) as Rune
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_round_trips_within_the_bmp() {
        let s = "héllo wörld ☃ Ω";
        assert_eq!(to_bytes(&to_runes(s.as_bytes())), s.as_bytes());
        assert_eq!(count(s.as_bytes()), s.chars().count());
    }

    #[test]
    fn beyond_the_bmp_truncates_like_redisearch() {
        // U+1F600 keeps its low 16 bits: U+F600, written back as 3 bytes.
        assert_eq!(to_runes("😀".as_bytes()), vec![0xF600]);
        assert_eq!(to_bytes(&[0xF600]), "\u{F600}".as_bytes());
    }

    #[test]
    fn nul_ends_the_string_and_bad_bytes_never_panic() {
        assert_eq!(to_runes(b"ab\0cd"), vec![u16::from(b'a'), u16::from(b'b')]);
        for s in [&b"\xff"[..], b"\xe0", b"\xc3", b"\x80\x80", b"a\xf0\x9f"] {
            let _ = to_bytes(&to_folded_runes(s));
        }
    }

    #[test]
    fn folding_follows_case_folding_not_lower_case() {
        assert_eq!(fold(u32::from('A')), u32::from('a'));
        assert_eq!(fold(u32::from('ß')), u32::from('s'));
        assert_eq!(fold(u32::from('ς')), u32::from('σ'));
        assert_eq!(fold(u32::from('Ä')), u32::from('ä'));
        assert_eq!(fold(u32::from('1')), u32::from('1'));
    }
}
