//! A document's forward list: its (term, field, frequency) entries in (term, field) order,
//! delta-coded (per entry three varints: the term id's increase, the field ordinal, the
//! frequency), about 3 bytes an entry where a plain array takes 8. Removing or updating a
//! document reads it to know which postings to touch.

use super::docs::TermOcc;
use super::varint::{get_varint, put_varint};

/// The encoded entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForwardList(Box<[u8]>);

impl ForwardList {
    /// Encodes `occs`, sorted by (term, field).
    pub fn encode(occs: &[TermOcc]) -> ForwardList {
        let mut out = Vec::with_capacity(occs.len() * 3);
        let mut last = 0u32;
        for o in occs {
            put_varint(&mut out, o.term.wrapping_sub(last));
            put_varint(&mut out, u32::from(o.field));
            put_varint(&mut out, u32::from(o.freq));
            last = o.term;
        }
        ForwardList(out.into_boxed_slice())
    }

    /// The entries, in (term, field) order.
    pub fn iter(&self) -> Entries<'_> {
        Entries { bytes: &self.0, at: 0, term: 0 }
    }

    /// The entries decoded.
    pub fn to_vec(&self) -> Vec<TermOcc> {
        self.iter().collect()
    }

    /// Heap bytes.
    pub fn bytes(&self) -> usize {
        self.0.len()
    }
}

/// Iterator over a [`ForwardList`].
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
        let field = get_varint(self.bytes, &mut self.at)?;
        let freq = get_varint(self.bytes, &mut self.at)?;
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
            TermOcc { term: 200, field: 1, freq: u16::MAX },
            TermOcc { term: 1 << 30, field: 127, freq: 300 },
        ];
        let f = ForwardList::encode(&occs);
        assert_eq!(f.to_vec(), occs);
        assert_eq!(f.bytes(), 3 + 3 + (2 + 1 + 3) + (5 + 1 + 2));
        assert_eq!(ForwardList::encode(&[]).to_vec(), vec![]);
    }
}
