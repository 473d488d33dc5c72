//! Term-major postings: for each text term, the documents holding it in id order, each
//! with the term's weighted frequency there (over all fields, in the units of
//! [`super::freq_weight`]; [`FREQ_ESCAPE`] when it does not fit 16 bits, and the record
//! then has it), the fields it occurs in, and its positions, in blocks of at most
//! [`SPLIT_AT`] postings.
//!
//! The scorer and the proximity checks read these instead of each document's record:
//! scoring the matches of a term walks its postings in id order (sequential reads) rather
//! than looking the term up in every matching document. A block keeps its postings' fixed
//! part (8 bytes each) apart from their positions (a byte stream, varints: per posting its
//! count of positions, then their deltas), so frequencies are read without touching
//! positions. Each block also keeps the largest frequency-to-norm ratio of the postings it
//! received (`freq / max_freq` of their documents) and whether all their documents had a
//! score between 0 and 1, so a top-k query can tell that no document of a block can enter the current
//! top k without reading it. Removals leave both as they are: they stay upper bounds.

use std::cell::Cell;

use super::varint::{get_varint, put_varint};

/// A block is split in two when it reaches this many postings.
pub const SPLIT_AT: usize = 256;

/// A frequency of this value or more is not stored: the document's record has it.
pub const FREQ_ESCAPE: u16 = u16::MAX;

/// Field ordinals from this one on share the last bit of a posting's field mask.
pub const SHARED_FIELD_BIT: u32 = 15;

/// The bit of text field ordinal `ord` in a posting's field mask.
pub fn field_bit(ord: u16) -> u16 {
    1 << u32::from(ord).min(SHARED_FIELD_BIT)
}

/// A query's text field mask (128 bits) as a posting's (16): ordinals from
/// [`SHARED_FIELD_BIT`] on map to its last bit.
pub fn posting_mask(mask: u128) -> u16 {
    let low = (mask & ((1 << SHARED_FIELD_BIT) - 1)) as u16;
    if mask >> SHARED_FIELD_BIT != 0 {
        low | 1 << SHARED_FIELD_BIT
    } else {
        low
    }
}

/// One document's entry in a term's list (8 bytes; its positions are in the block's stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// Document id.
    pub doc: u32,
    /// Weighted frequency of the term in the document, all fields (or [`FREQ_ESCAPE`]).
    pub freq: u16,
    /// The fields the term occurs in ([`field_bit`]).
    pub fields: u16,
}

impl Posting {
    /// Whether the term occurs in a field of `mask` (a query's mask): `Some(true)` or
    /// `Some(false)` when the posting tells, `None` when only fields sharing the last bit
    /// could match (the record then tells).
    pub fn in_fields(&self, mask: u128) -> Option<bool> {
        let hit = self.fields & posting_mask(mask);
        if hit & !(1 << SHARED_FIELD_BIT) != 0 {
            Some(true)
        } else if hit == 0 {
            Some(false)
        } else {
            None
        }
    }
}

/// What a document contributes to a block's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocNorm {
    /// The document's norm (largest weighted term frequency, at least 1).
    pub max_freq: u32,
    /// The document's score is between 0 and 1 (it can only lower a score).
    pub low_score: bool,
}

/// The bound a block (or a range of blocks) gives: the largest `freq / max_freq` of its
/// postings as an exact fraction, and whether every document had a score between 0 and 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// Numerator (a frequency).
    pub freq: u32,
    /// Denominator (a norm, at least 1).
    pub norm: u32,
    /// Every document had a score between 0 and 1.
    pub low_score: bool,
}

impl Bound {
    /// The larger of two bounds (the fractions compared exactly).
    pub fn max(self, o: Bound) -> Bound {
        let bigger = u64::from(o.freq) * u64::from(self.norm) > u64::from(self.freq) * u64::from(o.norm);
        let (freq, norm) = if bigger { (o.freq, o.norm) } else { (self.freq, self.norm) };
        Bound { freq, norm, low_score: self.low_score && o.low_score }
    }
}

#[derive(Debug, Clone)]
struct Block {
    postings: Vec<Posting>,
    /// Per posting, in order: varint count, then that many varint position deltas.
    positions: Vec<u8>,
    bound: Bound,
}

/// The byte length of the posting whose positions start at `at`.
fn entry_len(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    let Some(n) = get_varint(bytes, &mut i) else { return bytes.len().saturating_sub(at) };
    let mut left = n;
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

/// The encoding of sorted `positions`.
fn encode(positions: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(positions.len() + 1);
    encode_into(&mut out, positions);
    out
}

/// Appends one posting's positions (count, then deltas) to `out`.
fn encode_into(out: &mut Vec<u8>, positions: &[u32]) {
    put_varint(out, positions.len() as u32);
    let mut last = 0;
    for &p in positions {
        put_varint(out, p.wrapping_sub(last));
        last = p;
    }
}

impl Block {
    /// Byte offset of posting `i`'s positions.
    fn offset_of(&self, i: usize) -> usize {
        if i >= self.postings.len() {
            return self.positions.len();
        }
        (0..i).fold(0, |at, _| at + entry_len(&self.positions, at))
    }
}

/// A lookup position kept between calls ([`PostingList::get`]): documents asked for in
/// increasing order are found by a short forward walk.
#[derive(Debug, Default, Clone)]
pub struct Cursor(Cell<(u32, u32)>);

/// Like [`Cursor`], also keeping the byte offset of the posting's positions.
#[derive(Debug, Default, Clone)]
pub struct PosCursor {
    at: Cursor,
    /// (block, posting, byte offset) of the last positions read.
    bytes: Cell<(u32, u32, u32)>,
}

/// One term's postings.
#[derive(Debug, Clone, Default)]
pub struct PostingList {
    /// First document id of each block.
    firsts: Vec<u32>,
    blocks: Vec<Block>,
    len: u32,
}

impl PostingList {
    /// Number of documents.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// True when no document holds the term.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The block that holds (or would hold) `doc`.
    fn block_of(&self, doc: u32) -> usize {
        self.firsts.partition_point(|&f| f <= doc).saturating_sub(1)
    }

    /// Sets `doc`'s posting and positions (inserting it or replacing it).
    pub fn set(&mut self, p: Posting, positions: &[u32], norm: DocNorm) {
        // An escaped frequency is at most the norm: bound it by the norm itself.
        let freq = if p.freq == FREQ_ESCAPE { norm.max_freq.max(1) } else { u32::from(p.freq) };
        let b = Bound { freq, norm: norm.max_freq.max(1), low_score: norm.low_score };
        // After the last posting (a new document): onto the last block, or a new one when
        // that is full, so that documents written in id order fill their blocks.
        let last = self.blocks.last().and_then(|b| b.postings.last()).map(|l| l.doc);
        if last.is_none_or(|l| l < p.doc) {
            match self.blocks.last_mut() {
                Some(block) if block.postings.len() < SPLIT_AT - 1 => {
                    block.postings.push(p);
                    encode_into(&mut block.positions, positions);
                    block.bound = block.bound.max(b);
                    if block.postings.len() == SPLIT_AT - 1 {
                        // Full: it only changes by updates and deletes from now on.
                        block.postings.shrink_to_fit();
                        block.positions.shrink_to_fit();
                    }
                }
                _ => {
                    let mut bytes = Vec::new();
                    encode_into(&mut bytes, positions);
                    self.firsts.push(p.doc);
                    self.blocks.push(Block { postings: vec![p], positions: bytes, bound: b });
                }
            }
            self.len += 1;
            return;
        }
        let bytes = encode(positions);
        let bi = self.block_of(p.doc);
        let Some(block) = self.blocks.get_mut(bi) else { return };
        let appending = block.postings.last().is_some_and(|l| l.doc < p.doc);
        let found = if appending {
            Err(block.postings.len())
        } else {
            block.postings.binary_search_by_key(&p.doc, |x| x.doc)
        };
        match found {
            Ok(i) => {
                let at = block.offset_of(i);
                let old = entry_len(&block.positions, at);
                if block.positions.get(at..at + old) != Some(&bytes[..]) {
                    block.positions.splice(at..at + old, bytes);
                }
                if let Some(slot) = block.postings.get_mut(i) {
                    *slot = p;
                }
            }
            Err(i) => {
                let at = block.offset_of(i);
                block.positions.splice(at..at, bytes);
                block.postings.insert(i, p);
                self.len += 1;
                if i == 0 {
                    if let Some(f) = self.firsts.get_mut(bi) {
                        *f = p.doc;
                    }
                }
            }
        }
        block.bound = block.bound.max(b);
        if block.postings.len() >= SPLIT_AT {
            let half = SPLIT_AT / 2;
            let at = block.offset_of(half);
            let tail = block.postings.split_off(half);
            let tail_pos = block.positions.split_off(at);
            block.postings.shrink_to_fit();
            block.positions.shrink_to_fit();
            let bound = block.bound;
            if let Some(first) = tail.first().map(|x| x.doc) {
                self.firsts.insert(bi + 1, first);
                self.blocks.insert(bi + 1, Block { postings: tail, positions: tail_pos, bound });
            }
        }
    }

    /// Removes `doc`'s posting; true when it was there.
    pub fn remove(&mut self, doc: u32) -> bool {
        let bi = self.block_of(doc);
        let Some(block) = self.blocks.get_mut(bi) else { return false };
        let Ok(i) = block.postings.binary_search_by_key(&doc, |x| x.doc) else { return false };
        let at = block.offset_of(i);
        let n = entry_len(&block.positions, at);
        block.positions.drain(at..at + n);
        block.postings.remove(i);
        self.len -= 1;
        match block.postings.first().map(|x| x.doc) {
            None => {
                self.blocks.remove(bi);
                self.firsts.remove(bi);
            }
            Some(first) => {
                if let Some(f) = self.firsts.get_mut(bi) {
                    *f = first;
                }
            }
        }
        true
    }

    /// (block, index) of `doc`'s posting if present; `at` remembers where the last lookup
    /// ended, so that increasing documents are found by walking forward.
    fn find(&self, doc: u32, at: &Cursor) -> Option<(usize, usize)> {
        let (bi, i) = at.0.get();
        let (mut bi, mut i) = (bi as usize, i as usize);
        let in_block = |b: usize| {
            self.firsts.get(b).is_some_and(|&f| f <= doc) && self.firsts.get(b + 1).is_none_or(|&n| doc < n)
        };
        if !in_block(bi) {
            // A short walk over the next blocks, else a binary search.
            bi = (bi + 1..bi + 4).find(|&b| in_block(b)).unwrap_or_else(|| self.block_of(doc));
            i = 0;
        }
        let ps = &self.blocks.get(bi)?.postings;
        match ps.get(i) {
            // Between the last posting looked at and the one before it: not in the list
            // (lookups of documents the term does not have, in order, stay here).
            Some(p) if p.doc > doc => {
                if i == 0 || ps.get(i - 1).is_some_and(|q| q.doc < doc) {
                    return None;
                }
                i = 0;
            }
            None => i = 0,
            Some(_) => {}
        }
        // The next few postings first (lookups in document order mostly move a little).
        for k in i..(i + 4).min(ps.len()) {
            match ps.get(k).map(|p| p.doc.cmp(&doc)) {
                Some(std::cmp::Ordering::Less) => {}
                Some(std::cmp::Ordering::Equal) => {
                    at.0.set((bi as u32, k as u32));
                    return Some((bi, k));
                }
                _ => {
                    at.0.set((bi as u32, k as u32));
                    return None;
                }
            }
        }
        // Gallop from the last position.
        let (mut lo, mut hi, mut step) = (i, i, 1);
        while ps.get(hi).is_some_and(|p| p.doc < doc) {
            lo = hi;
            hi += step;
            step *= 2;
        }
        let hi = (hi + 1).min(ps.len());
        let (found, end) = match ps.get(lo..hi).map(|s| s.binary_search_by_key(&doc, |p| p.doc)) {
            Some(Ok(k)) => (true, lo + k),
            Some(Err(k)) => (false, lo + k),
            None => (false, lo),
        };
        at.0.set((bi as u32, end as u32));
        found.then_some((bi, end))
    }

    /// `doc`'s posting (see [`PostingList::find`] for `at`).
    pub fn get(&self, doc: u32, at: &Cursor) -> Option<Posting> {
        let (bi, i) = self.find(doc, at)?;
        self.blocks.get(bi)?.postings.get(i).copied()
    }

    /// `doc`'s posting, its positions appended to `out` (absolute, ascending).
    pub fn positions(&self, doc: u32, at: &PosCursor, out: &mut Vec<u32>) -> Option<Posting> {
        let (bi, i) = self.find(doc, &at.at)?;
        let block = self.blocks.get(bi)?;
        // The byte offset: from the last one read when it is in this block and not after.
        let (lb, li, lo) = at.bytes.get();
        let mut off = if lb as usize == bi && li as usize <= i { lo as usize } else { 0 };
        let from = if lb as usize == bi && li as usize <= i { li as usize } else { 0 };
        for _ in from..i {
            off += entry_len(&block.positions, off);
        }
        at.bytes.set((bi as u32, i as u32, off as u32));
        let mut k = off;
        let n = get_varint(&block.positions, &mut k)?;
        let mut last = 0u32;
        for _ in 0..n {
            last = last.wrapping_add(get_varint(&block.positions, &mut k)?);
            out.push(last);
        }
        block.postings.get(i).copied()
    }

    /// The bound over the blocks that may hold documents in `from..to`, or `None` when no
    /// block does; `at` walks forward like [`PostingList::get`]'s.
    pub fn bound_in(&self, from: u32, to: u32, at: &Cursor) -> Option<Bound> {
        let (mut bi, _) = at.0.get();
        if self.firsts.get(bi as usize).is_none_or(|&f| f > from) {
            bi = self.block_of(from) as u32;
        }
        while self.firsts.get(bi as usize + 1).is_some_and(|&n| n <= from) {
            bi += 1;
        }
        at.0.set((bi, 0));
        let mut out: Option<Bound> = None;
        let mut b = bi as usize;
        while let (Some(&first), Some(block)) = (self.firsts.get(b), self.blocks.get(b)) {
            if first >= to {
                break;
            }
            let last = block.postings.last().map_or(first, |p| p.doc);
            if last >= from {
                out = Some(out.map_or(block.bound, |o| o.max(block.bound)));
            }
            b += 1;
        }
        out
    }

    /// Iterates the postings in document order.
    pub fn iter(&self) -> impl Iterator<Item = &Posting> {
        self.blocks.iter().flat_map(|b| b.postings.iter())
    }

    /// Bytes of the position deltas (the streams less each posting's count, one byte below
    /// 128 positions): RediSearch's "offset vectors" size.
    pub fn position_bytes(&self) -> usize {
        self.blocks.iter().map(|b| b.positions.len().saturating_sub(b.postings.len())).sum()
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.firsts.capacity() * 4
            + self.blocks.capacity() * std::mem::size_of::<Block>()
            + self
                .blocks
                .iter()
                .map(|b| b.postings.capacity() * std::mem::size_of::<Posting>() + b.positions.capacity())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: DocNorm = DocNorm { max_freq: 1, low_score: true };

    fn p(doc: u32, freq: u16) -> Posting {
        Posting { doc, freq, fields: 1 }
    }

    fn positions_for(doc: u32, freq: u16) -> Vec<u32> {
        (0..u32::from(freq)).map(|k| doc * 3 + k * 200).collect()
    }

    #[test]
    fn set_get_remove_agree_with_a_map() {
        let mut l = PostingList::default();
        let mut m = std::collections::BTreeMap::new();
        let mut x: u64 = 7;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let doc = (x % 3_000) as u32;
            if x.is_multiple_of(5) {
                assert_eq!(l.remove(doc), m.remove(&doc).is_some());
            } else {
                let f = (x >> 20) as u16 % 9 + 1;
                l.set(p(doc, f), &positions_for(doc, f), N);
                m.insert(doc, f);
            }
        }
        assert_eq!(l.len() as usize, m.len());
        let listed: Vec<(u32, u16)> = l.iter().map(|q| (q.doc, q.freq)).collect();
        assert_eq!(listed, m.iter().map(|(a, b)| (*a, *b)).collect::<Vec<_>>());
        let (at, pat) = (Cursor::default(), PosCursor::default());
        for doc in 0..3_000 {
            assert_eq!(l.get(doc, &at).map(|q| q.freq), m.get(&doc).copied(), "doc {doc}");
            let mut v = Vec::new();
            let got = l.positions(doc, &pat, &mut v).map(|q| q.freq);
            assert_eq!(got, m.get(&doc).copied(), "doc {doc}");
            assert_eq!(v, m.get(&doc).map_or(Vec::new(), |&f| positions_for(doc, f)), "doc {doc}");
        }
        // Out of order lookups restart the walk.
        let (at, pat) = (Cursor::default(), PosCursor::default());
        for doc in (0..3_000).rev().step_by(7) {
            assert_eq!(l.get(doc, &at).map(|q| q.freq), m.get(&doc).copied(), "doc {doc}");
            let mut v = Vec::new();
            l.positions(doc, &pat, &mut v);
            assert_eq!(v, m.get(&doc).map_or(Vec::new(), |&f| positions_for(doc, f)), "doc {doc}");
        }
        assert!(l.blocks.iter().all(|b| !b.postings.is_empty() && b.postings.len() < SPLIT_AT));
    }

    #[test]
    fn bounds_cover_every_posting_of_a_range() {
        let mut l = PostingList::default();
        for doc in 0..2_000u32 {
            let norm = DocNorm { max_freq: doc % 7 + 3, low_score: doc != 1_500 };
            l.set(p(doc * 2, (doc % 5 + 1) as u16), &[], norm);
        }
        let at = Cursor::default();
        for from in (0..4_000).step_by(333) {
            let to = from + 333;
            let b = l.bound_in(from, to, &at).expect("postings in range");
            for doc in (from..to).filter(|d| d % 2 == 0).map(|d| d / 2) {
                let (f, n) = (doc % 5 + 1, doc % 7 + 3);
                assert!(u64::from(f) * u64::from(b.norm) <= u64::from(b.freq) * u64::from(n));
                if doc == 1_500 {
                    assert!(!b.low_score);
                }
            }
        }
        assert_eq!(l.bound_in(5_000, 6_000, &Cursor::default()), None);
    }

    #[test]
    fn field_masks_share_their_last_bit() {
        assert_eq!(field_bit(3), 8);
        assert_eq!(field_bit(15), 1 << 15);
        assert_eq!(field_bit(40), 1 << 15);
        let q = Posting { doc: 0, freq: 1, fields: field_bit(2) | field_bit(20) };
        assert_eq!(q.in_fields(1 << 2), Some(true));
        assert_eq!(q.in_fields(1 << 3), Some(false));
        assert_eq!(q.in_fields(1 << 20), None);
        assert_eq!(q.in_fields(1 << 99), None);
        assert_eq!(Posting { fields: field_bit(1), ..q }.in_fields(1 << 99), Some(false));
    }
}
