//! A forward walk over a term's postings and their positions, for documents asked in
//! increasing order (a phrase's candidates): rows are stepped, and positions are read as
//! the block's byte stream goes, with the walk's state in plain fields rather than the
//! shared lookup cursor's cells.

use super::block::Block;
use super::{Posting, PostingList};

/// Rows looked at one by one before a binary search of the rest of the block.
const LINEAR: usize = 8;

/// A position in a [`PostingList`], moving forward only.
pub struct Walk<'a> {
    list: &'a PostingList,
    /// The current block's index, and the block.
    bi: usize,
    block: Option<&'a Block>,
    /// The current row, and the byte offset of its positions.
    row: usize,
    off: usize,
}

impl<'a> Walk<'a> {
    pub(super) fn new(list: &'a PostingList) -> Walk<'a> {
        Walk { list, bi: 0, block: list.block(0), row: 0, off: 0 }
    }

    /// Moves to the first posting at or after `doc` (every document asked must be above the
    /// ones asked before); `doc`'s posting when the list holds it.
    pub fn seek(&mut self, doc: u32) -> Option<Posting> {
        let list = self.list;
        if list.first(self.bi + 1).is_some_and(|f| f <= doc) {
            // A later block: the next one, else a binary search.
            let bi = if list.first(self.bi + 2).is_none_or(|f| f > doc) {
                self.bi + 1
            } else {
                self.list.block_of(doc)
            };
            self.bi = bi;
            self.block = self.list.block(bi);
            self.row = 0;
            self.off = 0;
        }
        let b = self.block?;
        let n = b.len();
        let mut k = self.row;
        let linear_end = (k + LINEAR).min(n);
        while k < linear_end && b.doc(k) < doc {
            k += 1;
        }
        if k == linear_end && k < n {
            let (Ok(i) | Err(i)) = b.search(k, n, doc);
            k = i;
        }
        if k > self.row {
            self.off = if k < n { b.offset_from(self.row, self.off, k) } else { 0 };
            self.row = k;
        }
        if k >= n {
            return None;
        }
        let p = b.posting(k);
        (p.doc == doc).then_some(p)
    }

    /// Appends the current posting's positions (absolute, ascending) to `out`, and moves past
    /// it.
    pub fn positions(&mut self, out: &mut Vec<u32>) -> Option<()> {
        let b = self.block?;
        if self.row >= b.len() {
            return None;
        }
        let (_, n) = b.posting_and_count(self.row);
        self.off = b.read_n_positions(n, self.off, out)?;
        self.row += 1;
        Some(())
    }
}
