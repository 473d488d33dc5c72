//! Term-major frequencies: for each text term, the documents holding it in id order, each
//! with the term's weighted frequency there (over all fields, in the units of
//! [`super::freq_weight`]; [`FREQ_ESCAPE`] when it does not fit 16 bits, and the record
//! then has it) and the fields it occurs in, in blocks of at most [`SPLIT_AT`] postings.
//!
//! The scorer reads these instead of each document's record: scoring the matches of a term
//! walks its postings in id order (sequential reads) rather than looking the term up in
//! every matching document. Each block also keeps the largest frequency-to-norm ratio of
//! the postings it received (`freq / max_freq` of their documents) and whether all their
//! documents had score 1, so a top-k query can tell that no document of a block can enter
//! the current top k without reading it ([`crate::query::topk`]). Removals leave both as
//! they are: they stay upper bounds.

use std::cell::Cell;

/// A block is split in two when it reaches this many postings.
pub const SPLIT_AT: usize = 256;

/// A frequency of this value or more is not stored: the document's record has it.
pub const FREQ_ESCAPE: u16 = u16::MAX;

/// One document's entry in a term's list (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// Document id.
    pub doc: u32,
    /// Weighted frequency of the term in the document, all fields (or [`FREQ_ESCAPE`]).
    pub freq: u16,
    /// Text field ordinals (below 16) the term occurs in.
    pub fields: u16,
}

/// What a document contributes to a block's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocNorm {
    /// The document's norm (largest weighted term frequency, at least 1).
    pub max_freq: u32,
    /// The document's score is exactly 1.
    pub unit_score: bool,
}

/// The bound a block (or a range of blocks) gives: the largest `freq / max_freq` of its
/// postings as an exact fraction, and whether every document had score 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// Numerator (a frequency).
    pub freq: u32,
    /// Denominator (a norm, at least 1).
    pub norm: u32,
    /// Every document had score 1.
    pub unit_score: bool,
}

impl Bound {
    /// The larger of two bounds (the fractions compared exactly).
    fn max(self, o: Bound) -> Bound {
        let bigger = u64::from(o.freq) * u64::from(self.norm) > u64::from(self.freq) * u64::from(o.norm);
        let (freq, norm) = if bigger { (o.freq, o.norm) } else { (self.freq, self.norm) };
        Bound { freq, norm, unit_score: self.unit_score && o.unit_score }
    }
}

#[derive(Debug, Clone)]
struct Block {
    postings: Vec<Posting>,
    bound: Bound,
}

/// A lookup position kept between calls ([`FreqList::get`]): documents asked for in
/// increasing order are found by a short forward walk.
#[derive(Debug, Default, Clone)]
pub struct Cursor(Cell<(u32, u32)>);

/// One term's postings.
#[derive(Debug, Clone, Default)]
pub struct FreqList {
    /// First document id of each block.
    firsts: Vec<u32>,
    blocks: Vec<Block>,
    len: u32,
}

impl FreqList {
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

    /// Sets `doc`'s posting (inserting it or replacing its frequency and fields).
    pub fn set(&mut self, p: Posting, norm: DocNorm) {
        // An escaped frequency is at most the norm: bound it by the norm itself.
        let freq = if p.freq == FREQ_ESCAPE { norm.max_freq.max(1) } else { u32::from(p.freq) };
        let b = Bound { freq, norm: norm.max_freq.max(1), unit_score: norm.unit_score };
        if self.blocks.is_empty() {
            self.firsts.push(p.doc);
            self.blocks.push(Block { postings: vec![p], bound: b });
            self.len = 1;
            return;
        }
        let bi = self.block_of(p.doc);
        let Some(block) = self.blocks.get_mut(bi) else { return };
        match block.postings.binary_search_by_key(&p.doc, |x| x.doc) {
            Ok(i) => {
                if let Some(slot) = block.postings.get_mut(i) {
                    *slot = p;
                }
            }
            Err(i) => {
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
            let tail = block.postings.split_off(SPLIT_AT / 2);
            block.postings.shrink_to_fit();
            let bound = block.bound;
            if let Some(first) = tail.first().map(|x| x.doc) {
                self.firsts.insert(bi + 1, first);
                self.blocks.insert(bi + 1, Block { postings: tail, bound });
            }
        }
    }

    /// Removes `doc`'s posting; true when it was there.
    pub fn remove(&mut self, doc: u32) -> bool {
        let bi = self.block_of(doc);
        let Some(block) = self.blocks.get_mut(bi) else { return false };
        let Ok(i) = block.postings.binary_search_by_key(&doc, |x| x.doc) else { return false };
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

    /// `doc`'s posting; `at` remembers where the last lookup ended, so that increasing
    /// documents are found by walking forward.
    pub fn get(&self, doc: u32, at: &Cursor) -> Option<Posting> {
        let (mut bi, mut i) = at.0.get();
        let (mut bi_u, mut i_u) = (bi as usize, i as usize);
        let in_block = |bi: usize| {
            self.firsts.get(bi).is_some_and(|&f| f <= doc) && self.firsts.get(bi + 1).is_none_or(|&n| doc < n)
        };
        if !in_block(bi_u) {
            // A short walk over the next blocks, else a binary search.
            let near = (bi_u + 1..bi_u + 4).find(|&b| in_block(b));
            bi_u = near.unwrap_or_else(|| self.block_of(doc));
            i_u = 0;
        }
        let block = self.blocks.get(bi_u)?;
        let ps = &block.postings;
        if ps.get(i_u).is_none_or(|p| p.doc > doc) {
            i_u = 0;
        }
        // Gallop from the last position.
        let mut step = 1;
        let mut lo = i_u;
        let mut hi = i_u;
        while ps.get(hi).is_some_and(|p| p.doc < doc) {
            lo = hi;
            hi += step;
            step *= 2;
        }
        let hi = (hi + 1).min(ps.len());
        let found = match ps.get(lo..hi).map(|s| s.binary_search_by_key(&doc, |p| p.doc)) {
            Some(Ok(k)) => Some(lo + k),
            Some(Err(k)) => {
                i_u = lo + k;
                None
            }
            None => None,
        };
        if let Some(k) = found {
            i_u = k;
        }
        bi = bi_u as u32;
        i = i_u as u32;
        at.0.set((bi, i));
        found.and_then(|k| ps.get(k).copied())
    }

    /// The bound over the blocks that may hold documents in `from..to`, or `None` when no
    /// block does; `at` walks forward like [`FreqList::get`]'s.
    pub fn bound_in(&self, from: u32, to: u32, at: &Cursor) -> Option<Bound> {
        let (mut bi, _) = at.0.get();
        if self.firsts.get(bi as usize).is_none_or(|&f| f > from) {
            bi = self.block_of(from) as u32;
        }
        // Skip blocks that end before `from`.
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

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.firsts.capacity() * 4
            + self.blocks.capacity() * std::mem::size_of::<Block>()
            + self
                .blocks
                .iter()
                .map(|b| b.postings.capacity() * std::mem::size_of::<Posting>())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: DocNorm = DocNorm { max_freq: 1, unit_score: true };

    fn p(doc: u32, freq: u16) -> Posting {
        Posting { doc, freq, fields: 1 }
    }

    #[test]
    fn set_get_remove_agree_with_a_map() {
        let mut l = FreqList::default();
        let mut m = std::collections::BTreeMap::new();
        let mut x: u64 = 7;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let doc = (x % 3_000) as u32;
            if x % 5 == 0 {
                assert_eq!(l.remove(doc), m.remove(&doc).is_some());
            } else {
                let f = (x >> 20) as u16 % 9 + 1;
                l.set(p(doc, f), N);
                m.insert(doc, f);
            }
        }
        assert_eq!(l.len() as usize, m.len());
        assert_eq!(
            l.iter().map(|q| (q.doc, q.freq)).collect::<Vec<_>>(),
            m.iter().map(|(a, b)| (*a, *b)).collect::<Vec<_>>()
        );
        let at = Cursor::default();
        for doc in 0..3_000 {
            assert_eq!(l.get(doc, &at).map(|q| q.freq), m.get(&doc).copied(), "doc {doc}");
        }
        // Out of order lookups restart the walk.
        let at = Cursor::default();
        for doc in (0..3_000).rev().step_by(7) {
            assert_eq!(l.get(doc, &at).map(|q| q.freq), m.get(&doc).copied(), "doc {doc}");
        }
        assert!(l.blocks.iter().all(|b| !b.postings.is_empty() && b.postings.len() < SPLIT_AT));
    }

    #[test]
    fn bounds_cover_every_posting_of_a_range() {
        let mut l = FreqList::default();
        for doc in 0..2_000u32 {
            let norm = DocNorm { max_freq: doc % 7 + 3, unit_score: doc != 1_500 };
            l.set(p(doc * 2, (doc % 5 + 1) as u16), norm);
        }
        let at = Cursor::default();
        for from in (0..4_000).step_by(333) {
            let to = from + 333;
            let b = l.bound_in(from, to, &at).expect("postings in range");
            for doc in (from..to).filter(|d| d % 2 == 0).map(|d| d / 2) {
                let (f, n) = (doc % 5 + 1, doc % 7 + 3);
                assert!(u64::from(f) * u64::from(b.norm) <= u64::from(b.freq) * u64::from(n));
                if doc == 1_500 {
                    assert!(!b.unit_score);
                }
            }
        }
        assert_eq!(l.bound_in(5_000, 6_000, &Cursor::default()), None);
    }
}
