//! Looking up documents' postings with a cursor ([`Cursor`], [`PosCursor`]): documents asked
//! for in increasing order, as the scorer and the proximity checks ask, are found by a short
//! forward walk from where the last lookup ended.

use std::cell::Cell;

use super::{Bound, Posting, PostingList};

/// A lookup position kept between calls ([`PostingList::get`]): documents asked for in
/// increasing order are found by a short forward walk.
#[derive(Debug, Clone)]
pub struct Cursor {
    /// (block, posting) where the last lookup ended.
    at: Cell<(u32, u32)>,
    /// What the last lookup learnt: no posting of a document in `lo..hi`, and when `hit`,
    /// `hi`'s posting is at `at` (so lookups of documents the term does not have, in order,
    /// mostly decode nothing).
    known: Cell<(u32, u32, bool)>,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor { at: Cell::new((0, 0)), known: Cell::new((1, 0, false)) }
    }
}

impl Cursor {
    /// Leaves the cursor at `(bi, i)` knowing `lo..hi` (see the fields); the posting when `hit`.
    fn settle(&self, bi: usize, i: usize, (lo, hi): (u32, u32), hit: bool) -> Option<(usize, usize)> {
        self.at.set((bi as u32, i as u32));
        self.known.set((lo, hi, hit));
        hit.then_some((bi, i))
    }
}

/// Like [`Cursor`], also keeping the byte offset of the posting's positions.
#[derive(Debug, Clone)]
pub struct PosCursor {
    at: Cursor,
    /// (block, posting, byte offset of its positions, byte offset after them) of the last
    /// positions read.
    bytes: Cell<(u32, u32, u32, u32)>,
}

impl Default for PosCursor {
    fn default() -> Self {
        PosCursor { at: Cursor::default(), bytes: Cell::new((u32::MAX, 0, 0, 0)) }
    }
}

impl PostingList {
    /// (block, index) of `doc`'s posting if present; `at` remembers where the last lookup
    /// ended, so that increasing documents are found by walking forward.
    fn find(&self, doc: u32, at: &Cursor) -> Option<(usize, usize)> {
        let (lo, hi, hit) = at.known.get();
        if lo <= doc && doc <= hi {
            if doc < hi {
                return None;
            }
            if hit {
                let (bi, i) = at.at.get();
                return Some((bi as usize, i as usize));
            }
        }
        let (bi, i) = at.at.get();
        let (mut bi, mut i) = (bi as usize, i as usize);
        if hit && doc > hi {
            // After the posting at the cursor: the next few of its block, if they reach it.
            if let Some(block) = self.block(bi) {
                let end = (i + 5).min(block.len());
                for k in i + 1..end {
                    let d = block.doc(k);
                    match d.cmp(&doc) {
                        std::cmp::Ordering::Less => {}
                        std::cmp::Ordering::Equal => return at.settle(bi, k, (doc, doc), true),
                        std::cmp::Ordering::Greater => return at.settle(bi, k, (doc, d), true).and(None),
                    }
                }
                // All before it: go on from the last one looked at.
                i = end.saturating_sub(1).max(i);
            }
        }
        let in_block =
            |b: usize| self.first(b).is_some_and(|f| f <= doc) && self.first(b + 1).is_none_or(|n| doc < n);
        if !in_block(bi) {
            // A short walk over the next blocks, else a binary search.
            bi = (bi + 1..bi + 4).find(|&b| in_block(b)).unwrap_or_else(|| self.block_of(doc));
            i = 0;
        }
        let block = self.block(bi)?;
        let n = block.len();
        if i < n {
            // Between the last posting looked at and the one before it: not in the list.
            let here = block.doc(i);
            if here > doc {
                if i == 0 || block.doc(i - 1) < doc {
                    return at.settle(bi, i, (doc, here), true).and(None);
                }
                i = 0;
            }
        } else {
            i = 0;
        }
        // The next few postings first (lookups in document order mostly move a little).
        for k in i..(i + 4).min(n) {
            let d = block.doc(k);
            match d.cmp(&doc) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => return at.settle(bi, k, (doc, doc), true),
                std::cmp::Ordering::Greater => return at.settle(bi, k, (doc, d), true).and(None),
            }
        }
        // Gallop from the last position.
        let (mut lo, mut hi, mut step) = (i, i, 1);
        while hi < n && block.doc(hi) < doc {
            lo = hi;
            hi += step;
            step *= 2;
        }
        let hi = (hi + 1).min(n);
        match block.search(lo, hi, doc) {
            Ok(k) => at.settle(bi, k, (doc, doc), true),
            Err(k) if k < n => at.settle(bi, k, (doc, block.doc(k)), true).and(None),
            // After the block's last posting: none before the next block's first.
            Err(k) => {
                let next = self.first(bi + 1).unwrap_or(u32::MAX);
                at.settle(bi, k, (doc, next), false)
            }
        }
    }

    /// `doc`'s posting (see [`PostingList::find`] for `at`).
    #[inline]
    pub fn get(&self, doc: u32, at: &Cursor) -> Option<Posting> {
        // The commonest cases inline: a document known absent, or the next posting.
        let (lo, hi, hit) = at.known.get();
        if lo <= doc && doc < hi {
            return None;
        }
        if hit && doc > hi {
            let (bi, i) = at.at.get();
            let (bi, k) = (bi as usize, i as usize + 1);
            if let Some(block) = self.block(bi).filter(|b| k < b.len()) {
                let p = block.posting(k);
                if p.doc >= doc {
                    return at.settle(bi, k, (doc, p.doc), true).and((p.doc == doc).then_some(p));
                }
            }
        }
        let (bi, i) = self.find(doc, at)?;
        Some(self.block(bi)?.posting(i))
    }

    /// `doc`'s posting, its positions appended to `out` (absolute, ascending).
    pub fn positions(&self, doc: u32, at: &PosCursor, out: &mut Vec<u32>) -> Option<Posting> {
        let (bi, i) = self.find(doc, &at.at)?;
        let block = self.block(bi)?;
        // The byte offset: from the last one read when it is in this block and not after.
        let (lb, li, lo, le) = at.bytes.get();
        let (li, lo, le) = (li as usize, lo as usize, le as usize);
        let off = match () {
            _ if lb as usize != bi || li > i => block.offset_from(0, 0, i),
            _ if li == i => lo,
            _ if li + 1 == i => le,
            // From the posting after it (lookups in order mostly want that one).
            _ => block.offset_from(li + 1, le, i),
        };
        let (posting, n) = block.posting_and_count(i);
        let end = block.read_n_positions(n, off, out)?;
        at.bytes.set((bi as u32, i as u32, off as u32, end as u32));
        Some(posting)
    }

    /// The bound over the blocks that may hold documents in `from..to`, or `None` when no
    /// block does; `at` walks forward like [`PostingList::get`]'s.
    pub fn bound_in(&self, from: u32, to: u32, at: &Cursor) -> Option<Bound> {
        let (mut bi, _) = at.at.get();
        if self.first(bi as usize).is_none_or(|f| f > from) {
            bi = self.block_of(from) as u32;
        }
        while self.first(bi as usize + 1).is_some_and(|n| n <= from) {
            bi += 1;
        }
        at.at.set((bi, 0));
        at.known.set((1, 0, false));
        let mut out: Option<Bound> = None;
        let mut b = bi as usize;
        while let (Some(first), Some(block)) = (self.first(b), self.block(b)) {
            if first >= to {
                break;
            }
            let last = block.last_doc().unwrap_or(first);
            if last >= from {
                out = Some(out.map_or(block.bound, |o| o.max(block.bound)));
            }
            b += 1;
        }
        out
    }
}
