//! A document's forward list: its (term, field, frequency) entries in (term, field) order,
//! delta-coded: per entry a varint of the term id's increase, then one byte holding the
//! field ordinal (high nibble) and the frequency (low nibble) when the field is below 15
//! and the frequency 1-15, else an escape byte ([`ESCAPE`]) and two varints. About 3 bytes
//! an entry where a plain array takes 8. Removing or updating a document reads it to know
//! which postings to touch; it lives inside the document's record ([`super::record`]).

use super::docs::TermOcc;
use super::varint::{get_varint, put_varint};

/// The byte that announces a field and a frequency as two varints.
const ESCAPE: u8 = 0xF0;

/// Appends the encoding of `occs` (sorted by (term, field)) to `out`.
pub fn encode_into(out: &mut Vec<u8>, occs: &[TermOcc]) {
    let mut last = 0u32;
    for o in occs {
        put_varint(out, o.term.wrapping_sub(last));
        if o.field < 15 && (1..=15).contains(&o.freq) {
            out.push((o.field as u8) << 4 | o.freq as u8);
        } else {
            out.push(ESCAPE);
            put_varint(out, u32::from(o.field));
            put_varint(out, u32::from(o.freq));
        }
        last = o.term;
    }
}

/// An encoded forward list, borrowed from its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forward<'a>(pub(super) &'a [u8]);

impl<'a> Forward<'a> {
    /// The entries, in (term, field) order.
    pub fn iter(&self) -> Entries<'a> {
        Entries { bytes: self.0, at: 0, term: 0 }
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
}

impl Iterator for Entries<'_> {
    type Item = TermOcc;

    fn next(&mut self) -> Option<TermOcc> {
        let delta = get_varint(self.bytes, &mut self.at)?;
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        let (field, freq) = if b == ESCAPE {
            (get_varint(self.bytes, &mut self.at)?, get_varint(self.bytes, &mut self.at)?)
        } else {
            (u32::from(b >> 4), u32::from(b & 15))
        };
        self.term = self.term.wrapping_add(delta);
        Some(TermOcc { term: self.term, field: field as u16, freq: freq as u16 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let occs = vec![
            TermOcc { term: 0, field: 0, freq: 1 },
            TermOcc { term: 0, field: 3, freq: 2 },
            TermOcc { term: 5, field: 14, freq: 15 },
            TermOcc { term: 6, field: 15, freq: 1 },
            TermOcc { term: 7, field: 1, freq: 16 },
            TermOcc { term: 8, field: 1, freq: 0 },
            TermOcc { term: 200, field: 1, freq: u16::MAX },
            TermOcc { term: 1 << 30, field: 127, freq: 300 },
        ];
        let mut out = Vec::new();
        encode_into(&mut out, &occs);
        let f = Forward(&out);
        assert_eq!(f.to_vec(), occs);
        assert_eq!(f.bytes(), 2 + 2 + 2 + 4 + 4 + 4 + (2 + 1 + 1 + 3) + (5 + 1 + 1 + 2));
        assert_eq!(Forward(&[]).to_vec(), vec![]);
    }
}
