//! A document's forward list: its (term, field, frequency) entries in (term, field) order,
//! delta-coded. The list starts with the two fields most of its entries are in (`F0`, `F1`,
//! varints); then per entry one varint of `term increase x 4 + code`, the code saying what
//! follows: 0 nothing (field `F0`, frequency 1), 1 nothing (`F1`, frequency 1), 2 a varint
//! frequency (field `F0`), 3 a varint field and a varint frequency. About 2 bytes an entry
//! where a plain array takes 8. Removing or updating a document reads it to know which
//! postings to touch; it lives inside the document's record ([`super::record`]).

use super::docs::TermOcc;
use super::varint::{get_varint, get_varint64, put_varint, put_varint64};

/// The two fields most entries of `occs` are in (the first the most).
fn common_fields(occs: &[TermOcc]) -> (u16, u16) {
    let mut counts: Vec<(u16, u32)> = Vec::new();
    for o in occs {
        match counts.iter_mut().find(|c| c.0 == o.field) {
            Some(c) => c.1 += 1,
            None => counts.push((o.field, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let f0 = counts.first().map_or(0, |c| c.0);
    let f1 = counts.get(1).map_or(f0, |c| c.0);
    (f0, f1)
}

/// Appends the encoding of `occs` (sorted by (term, field)) to `out`.
pub fn encode_into(out: &mut Vec<u8>, occs: &[TermOcc]) {
    if occs.is_empty() {
        return;
    }
    let (f0, f1) = common_fields(occs);
    put_varint(out, u32::from(f0));
    put_varint(out, u32::from(f1));
    let mut last = 0u32;
    for o in occs {
        let delta = u64::from(o.term.wrapping_sub(last)) << 2;
        last = o.term;
        match (o.field, o.freq) {
            (f, 1) if f == f0 => put_varint64(out, delta),
            (f, 1) if f == f1 => put_varint64(out, delta | 1),
            (f, freq) if f == f0 => {
                put_varint64(out, delta | 2);
                put_varint(out, u32::from(freq));
            }
            (f, freq) => {
                put_varint64(out, delta | 3);
                put_varint(out, u32::from(f));
                put_varint(out, u32::from(freq));
            }
        }
    }
}

/// An encoded forward list, borrowed from its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forward<'a>(pub(super) &'a [u8]);

impl<'a> Forward<'a> {
    /// The entries, in (term, field) order.
    pub fn iter(&self) -> Entries<'a> {
        let mut at = 0;
        let f0 = get_varint(self.0, &mut at).unwrap_or(0) as u16;
        let f1 = get_varint(self.0, &mut at).unwrap_or(0) as u16;
        Entries { bytes: self.0, at, term: 0, f0, f1 }
    }

    /// The entries decoded.
    pub fn to_vec(&self) -> Vec<TermOcc> {
        self.iter().collect()
    }

    /// Encoded bytes.
    pub fn bytes(&self) -> usize {
        self.0.len()
    }
}

/// Iterator over a [`Forward`] list.
#[derive(Clone)]
pub struct Entries<'a> {
    bytes: &'a [u8],
    at: usize,
    term: u32,
    f0: u16,
    f1: u16,
}

impl Iterator for Entries<'_> {
    type Item = TermOcc;

    fn next(&mut self) -> Option<TermOcc> {
        let v = get_varint64(self.bytes, &mut self.at)?;
        self.term = self.term.wrapping_add((v >> 2) as u32);
        let (field, freq) = match v & 3 {
            0 => (self.f0, 1),
            1 => (self.f1, 1),
            2 => (self.f0, get_varint(self.bytes, &mut self.at)? as u16),
            _ => (get_varint(self.bytes, &mut self.at)? as u16, get_varint(self.bytes, &mut self.at)? as u16),
        };
        Some(TermOcc { term: self.term, field, freq })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(occs: &[TermOcc]) -> usize {
        let mut out = Vec::new();
        encode_into(&mut out, occs);
        let f = Forward(&out);
        assert_eq!(f.to_vec(), occs);
        f.bytes()
    }

    #[test]
    fn entries_round_trip() {
        let occs = vec![
            TermOcc { term: 0, field: 0, freq: 1 },
            TermOcc { term: 0, field: 3, freq: 2 },
            TermOcc { term: 5, field: 3, freq: 1 },
            TermOcc { term: 6, field: 15, freq: 1 },
            TermOcc { term: 7, field: 3, freq: 16 },
            TermOcc { term: 8, field: 1, freq: 0 },
            TermOcc { term: 200, field: 3, freq: u16::MAX },
            TermOcc { term: u32::MAX, field: u16::MAX, freq: 300 },
        ];
        // Fields 3 (four entries) and 0 are F0 and F1.
        let n = round_trip(&occs);
        // Header 2; then 1, 1 + 1, 1, 1 + 1 + 1, 1 + 1, 1 + 1 + 1, 2 + 3, 5 + 3 + 2.
        assert_eq!(n, 2 + 1 + 2 + 1 + 3 + 2 + 3 + 5 + 10);
        assert_eq!(round_trip(&[]), 0);
        assert_eq!(round_trip(&[TermOcc { term: 9, field: 7, freq: 1 }]), 3);
    }

    #[test]
    fn random_lists_round_trip() {
        let mut x: u64 = 5;
        for _ in 0..2_000 {
            let mut occs = Vec::new();
            let mut term = 0u32;
            for _ in 0..(x % 40) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                term = term.saturating_add((x % 3) as u32 * (1 + (x >> 40) as u32 % 50_000));
                let field = [0u16, 1, 1, 2, 20][(x >> 8) as usize % 5];
                let freq = [1u16, 1, 1, 2, 7, 900][(x >> 12) as usize % 6];
                occs.push(TermOcc { term, field, freq });
            }
            occs.sort_by_key(|o| (o.term, o.field));
            occs.dedup_by_key(|o| (o.term, o.field));
            round_trip(&occs);
        }
    }
}
