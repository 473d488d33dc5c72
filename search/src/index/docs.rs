//! The document table: key ↔ dense `u32` doc id, with id reuse (an update keeps its id,
//! a delete frees it), and per-document forward information so removal and scoring
//! never scan postings.

use std::collections::HashMap;

use roaring::RoaringBitmap;

/// One (term, field) occurrence group of a document (8 bytes; positions live in
/// [`DocRecord::positions`], in occurrence order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermOcc {
    /// Term id in the text dictionary.
    pub term: u32,
    /// Text field ordinal.
    pub field: u16,
    /// Occurrences in that field (saturating; that many positions are stored).
    pub freq: u16,
}

/// A sortable value.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// Number.
    Num(f64),
    /// String (normalized unless UNF).
    Str(String),
}

/// Everything the index knows about one document.
#[derive(Debug, Clone, Default)]
pub struct DocRecord {
    /// The Redis key.
    pub key: Box<[u8]>,
    /// Document score (SCORE / SCORE_FIELD).
    pub score: f32,
    /// Term occurrences sorted by (term, field).
    pub occs: Box<[TermOcc]>,
    /// Varint-encoded position deltas of all occurrences, one run of `freq` values per
    /// occurrence group in `occs` order (empty under NOOFFSETS).
    pub positions: Box<[u8]>,
    /// Largest term frequency (TFIDF norm).
    pub max_freq: u32,
    /// Number of tokens (TFIDF.DOCNORM / BM25 length).
    pub len: u32,
    /// (tag field index, tag id) pairs.
    pub tags: Box<[(u16, u32)]>,
    /// (numeric field index, value) pairs.
    pub numerics: Box<[(u16, f64)]>,
    /// (geo field index, lon, lat).
    pub geos: Box<[(u16, f64, f64)]>,
    /// (field index, value) for SORTABLE fields.
    pub sortables: Box<[(u16, SortValue)]>,
    /// Field indexes with no value (INDEXMISSING fields only).
    pub missing: Box<[u16]>,
}

impl DocRecord {
    /// All occurrences of `term`, any field.
    pub fn occs_of(&self, term: u32) -> &[TermOcc] {
        let start = self.occs.partition_point(|o| o.term < term);
        let rest = self.occs.get(start..).unwrap_or(&[]);
        let len = rest.iter().take_while(|o| o.term == term).count();
        rest.get(..len).unwrap_or(&[])
    }

    /// One pass over all occurrences: calls `out(occ, position)` for every position of
    /// the occurrences `want` selects (the others are skipped without decoding).
    pub fn scan_positions(&self, mut want: impl FnMut(&TermOcc) -> bool, mut out: impl FnMut(&TermOcc, u32)) {
        let mut bytes = self.positions.iter();
        for o in self.occs.iter() {
            let wanted = want(o);
            let mut last = 0u32;
            for _ in 0..o.freq {
                let mut v = 0u32;
                let mut shift = 0u32;
                let mut complete = false;
                for &b in bytes.by_ref() {
                    v |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
                    shift += 7;
                    if b & 0x80 == 0 {
                        complete = true;
                        break;
                    }
                }
                if !complete {
                    return;
                }
                if wanted {
                    last = last.wrapping_add(v);
                    out(o, last);
                }
            }
        }
    }

    /// Indexes into `occs` of the groups of `terms` (sorted, deduplicated term ids), each
    /// paired with the tag `terms` gives it, ordered by group.
    pub fn groups_of(&self, terms: &[(u32, usize)]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        if terms.len() * 8 < self.occs.len() {
            for &(term, tag) in terms {
                let start = self.occs.partition_point(|o| o.term < term);
                let n = self.occs.get(start..).unwrap_or(&[]).iter().take_while(|o| o.term == term).count();
                out.extend((start..start + n).map(|i| (i, tag)));
            }
            out.sort_unstable();
        } else {
            let mut j = 0;
            for (i, o) in self.occs.iter().enumerate() {
                while terms.get(j).is_some_and(|t| t.0 < o.term) {
                    j += 1;
                }
                out.extend(
                    terms.get(j..).unwrap_or(&[]).iter().take_while(|t| t.0 == o.term).map(|t| (i, t.1)),
                );
            }
        }
        out
    }

    /// The positions of the occurrence groups `groups` ([`DocRecord::groups_of`]: indexes
    /// into `occs` with a tag, ordered by index): calls `out(tag, occ, position)` for each;
    /// the positions of other groups are skipped, not decoded.
    pub fn positions_of(&self, groups: &[(usize, usize)], mut out: impl FnMut(usize, &TermOcc, u32)) {
        let mut bytes = self.positions.iter();
        let mut next = 0usize;
        let mut buf: Vec<u32> = Vec::new();
        for run in groups.chunk_by(|a, b| a.0 == b.0) {
            let Some(&(gi, _)) = run.first() else { continue };
            let Some(o) = self.occs.get(gi) else { return };
            // Skip the groups before this one: count their varints' last bytes.
            let mut skip: usize =
                self.occs.get(next..gi).unwrap_or(&[]).iter().map(|o| usize::from(o.freq)).sum();
            while skip > 0 {
                match bytes.next() {
                    Some(b) if b & 0x80 == 0 => skip -= 1,
                    Some(_) => {}
                    None => return,
                }
            }
            buf.clear();
            let mut last = 0u32;
            for _ in 0..o.freq {
                let mut v = 0u32;
                let mut shift = 0u32;
                let mut complete = false;
                for &b in bytes.by_ref() {
                    v |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
                    shift += 7;
                    if b & 0x80 == 0 {
                        complete = true;
                        break;
                    }
                }
                if !complete {
                    return;
                }
                last = last.wrapping_add(v);
                buf.push(last);
            }
            for &(_, tag) in run {
                for &p in &buf {
                    out(tag, o, p);
                }
            }
            next = gi + 1;
        }
    }

    /// The sortable value of a field.
    pub fn sortable(&self, field: u16) -> Option<&SortValue> {
        self.sortables.iter().find(|(f, _)| *f == field).map(|(_, v)| v)
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.key.len()
            + std::mem::size_of_val(&*self.occs)
            + self.positions.len()
            + self.tags.len() * 8
            + self.numerics.len() * 16
            + self.geos.len() * 24
            + self.sortables.len() * 40
            + std::mem::size_of::<DocRecord>()
    }
}

/// Appends sorted positions as varint deltas.
pub fn encode_positions(out: &mut Vec<u8>, positions: &[u32]) {
    let mut last = 0u32;
    for &p in positions {
        let mut d = p.wrapping_sub(last);
        last = p;
        loop {
            let b = (d & 0x7f) as u8;
            d >>= 7;
            if d == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        }
    }
}

/// Keys ↔ ids and the records.
#[derive(Default)]
pub struct DocTable {
    ids: HashMap<Box<[u8]>, u32>,
    records: Vec<Option<DocRecord>>,
    free: Vec<u32>,
    /// Ids of live documents.
    pub live: RoaringBitmap,
}

impl DocTable {
    /// The id of `key`.
    pub fn id_of(&self, key: &[u8]) -> Option<u32> {
        self.ids.get(key).copied()
    }

    /// The record of a live id.
    pub fn get(&self, id: u32) -> Option<&DocRecord> {
        self.records.get(id as usize).and_then(|r| r.as_ref())
    }

    /// Stores `rec` under its key: keeps the key's id, else reuses a freed id.
    /// Returns the id and the previous record (to unindex).
    pub fn put(&mut self, rec: DocRecord) -> (u32, Option<DocRecord>) {
        if let Some(&id) = self.ids.get(&rec.key) {
            let old = self.records.get_mut(id as usize).and_then(|slot| slot.replace(rec));
            return (id, old);
        }
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.records.push(None);
                (self.records.len() - 1) as u32
            }
        };
        self.ids.insert(rec.key.clone(), id);
        if let Some(slot) = self.records.get_mut(id as usize) {
            *slot = Some(rec);
        }
        self.live.insert(id);
        (id, None)
    }

    /// Removes `key`; returns its id and record.
    pub fn remove(&mut self, key: &[u8]) -> Option<(u32, DocRecord)> {
        let id = self.ids.remove(key)?;
        let rec = self.records.get_mut(id as usize).and_then(|s| s.take())?;
        self.live.remove(id);
        self.free.push(id);
        Some((id, rec))
    }

    /// Number of live documents.
    pub fn len(&self) -> u64 {
        self.live.len()
    }

    /// True when no document is indexed.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// One past the highest id ever handed out.
    pub fn max_id(&self) -> u32 {
        self.records.len() as u32
    }

    /// All live keys.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.ids.keys().map(|k| &**k)
    }

    /// Approximate heap bytes of the table (records excluded).
    pub fn table_bytes(&self) -> usize {
        self.ids.keys().map(|k| k.len() + 32).sum::<usize>()
            + self.records.capacity() * std::mem::size_of::<Option<DocRecord>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: &str) -> DocRecord {
        DocRecord { key: key.as_bytes().into(), ..Default::default() }
    }

    #[test]
    fn ids_are_kept_on_update_and_reused_after_delete() {
        let mut t = DocTable::default();
        let (a, _) = t.put(rec("a"));
        let (b, _) = t.put(rec("b"));
        let (a2, old) = t.put(rec("a"));
        assert_eq!(a, a2);
        assert!(old.is_some());
        t.remove(b"a");
        let (c, _) = t.put(rec("c"));
        assert_eq!(c, a);
        assert_eq!(t.max_id(), 2);
        assert_eq!(t.len(), 2);
        assert_ne!(b, c);
    }

    #[test]
    fn positions_round_trip() {
        let mut buf = Vec::new();
        encode_positions(&mut buf, &[2, 9]);
        encode_positions(&mut buf, &[1, 5, 300, 70000]);
        let r = DocRecord {
            occs: vec![TermOcc { term: 3, field: 0, freq: 2 }, TermOcc { term: 7, field: 1, freq: 4 }].into(),
            positions: buf.into(),
            ..Default::default()
        };
        let collect = |term: u32| {
            let mut v = Vec::new();
            r.scan_positions(|o| o.term == term, |_, p| v.push(p));
            v
        };
        assert_eq!(collect(7), vec![1, 5, 300, 70000]);
        assert_eq!(collect(3), vec![2, 9]);
        assert!(collect(8).is_empty());
    }
}
