//! Term-major postings: for each text term, the documents holding it in id order, each
//! with the term's weighted frequency there (over all fields, in the units of
//! [`super::freq_weight`]; [`FREQ_ESCAPE`] when it does not fit 16 bits, and the record
//! then has it), the fields it occurs in, and its positions, in blocks of at most
//! [`SPLIT_AT`] postings.
//!
//! The scorer and the proximity checks read these instead of each document's record:
//! scoring the matches of a term walks its postings in id order (sequential reads) rather
//! than looking the term up in every matching document. A block keeps its postings' fixed
//! part bit-packed (document, frequency, fields and count of positions, each column in the
//! bits its range in the block needs: a few bits a posting, see [`block`]) apart from their
//! positions (a byte stream of varint deltas), so frequencies are read without touching
//! positions. Each block also keeps the largest frequency-to-norm ratio of the postings it
//! received (`freq / max_freq` of their documents) and whether all their documents had a
//! score between 0 and 1, so a top-k query can tell that no document of a block can enter the current
//! top k without reading it. Removals leave both as they are: they stay upper bounds.

use roaring::RoaringBitmap;

mod block;
mod lookup;
mod walk;

use block::Block;
pub use lookup::{Cursor, PosCursor};
pub use walk::Walk;

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

/// One document's entry in a term's list, decoded (blocks keep it packed, its positions in
/// the block's stream).
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

/// The stages of [`PostingList::prefetch_for`].
pub const PREFETCH_STAGES: u8 = 5;

/// The most cache lines of a block's rows, and of its positions, asked for ahead of a change.
const PREFETCH_LINES: usize = 16;

/// Makes room for one more element, growing by half (most lists have a block or two).
fn reserve_one<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 2).max(1));
    }
}

/// One term's postings.
#[derive(Debug, Clone)]
pub struct PostingList {
    /// The blocks but the last, and the first document of each block: `None` while the
    /// list has one block, as most terms' lists do (they then hold no vector at all: 40
    /// bytes less a term).
    heads: Option<Box<Heads>>,
    /// The last block (empty when the list is): kept in the list itself, so that appending
    /// a document (what ingest does) reads no block header from elsewhere in memory, and a
    /// term of one block allocates no vector of blocks.
    tail: Block,
    len: u32,
    /// Postings of versions of documents that left the index since RediSearch's last garbage
    /// collection (see `TextIndex::counted_doc_freq`): in the list's padding, and read and
    /// written where an update touches the list anyway.
    retired: u32,
}

/// The blocks of a list of several ([`PostingList::heads`]).
#[derive(Debug, Clone, Default)]
struct Heads {
    /// First document id of each block, the last one's included.
    firsts: Vec<u32>,
    /// The blocks but the last.
    blocks: Vec<Block>,
}

impl Default for PostingList {
    fn default() -> Self {
        PostingList { heads: None, tail: Block::empty(), len: 0, retired: 0 }
    }
}

impl PostingList {
    /// A version of a document holding the term left the index.
    pub fn retire(&mut self) {
        self.retired = self.retired.saturating_add(1);
    }

    /// Postings of versions that left the index since the last collection.
    pub fn retired(&self) -> u32 {
        self.retired
    }

    /// RediSearch's GC ran: the versions that left are no longer counted.
    pub fn forget_retired(&mut self) {
        self.retired = 0;
    }

    /// The blocks but the last.
    fn blocks(&self) -> &[Block] {
        self.heads.as_ref().map_or(&[], |h| &h.blocks)
    }

    /// The first document of block `b`.
    #[inline]
    fn first(&self, b: usize) -> Option<u32> {
        match &self.heads {
            Some(h) => h.firsts.get(b).copied(),
            None => (b == 0 && self.tail.len() > 0).then(|| self.tail.doc(0)),
        }
    }

    /// The heads, made when the list grows a second block.
    fn heads_mut(&mut self) -> &mut Heads {
        let tail = &self.tail;
        self.heads.get_or_insert_with(|| {
            let firsts = if tail.len() > 0 { vec![tail.doc(0)] } else { Vec::new() };
            Box::new(Heads { firsts, blocks: Vec::new() })
        })
    }

    /// Number of documents.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// True when no document holds the term.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Block `bi`.
    fn block(&self, bi: usize) -> Option<&Block> {
        let blocks = self.blocks();
        match blocks.get(bi) {
            Some(b) => Some(b),
            None if bi == blocks.len() && self.tail.len() > 0 => Some(&self.tail),
            None => None,
        }
    }

    /// Block `bi`, to change.
    fn block_mut(&mut self, bi: usize) -> Option<&mut Block> {
        let n = self.blocks().len();
        match self.heads.as_mut().and_then(|h| h.blocks.get_mut(bi)) {
            Some(b) => Some(b),
            None if bi == n && self.tail.len() > 0 => Some(&mut self.tail),
            None => None,
        }
    }

    /// Starts loading the end of the last block (what appending a posting reads first).
    pub fn prefetch_tail(&self) {
        self.tail.prefetch_end();
    }

    /// Starts loading, at `stage` (0 to [`PREFETCH_STAGES`] - 1), the next level of what
    /// setting or removing `doc`'s posting reads: the list, its heads, their first documents,
    /// the block holding `doc`, that block's rows and positions. Each level's address is in
    /// the one before, so a caller touching many lists runs each stage over all of them
    /// before the next: the misses of a stage overlap instead of following one another.
    pub fn prefetch_for(&self, doc: u32, stage: u8) {
        let line = |p: *const u8| crate::index::hnsw::prefetch_line(p.cast());
        let both_ends = |p: *const u8, len: usize| {
            line(p);
            line(p.wrapping_add(len.saturating_sub(1)));
        };
        match (stage, &self.heads) {
            (0, _) => {
                let p = (self as *const PostingList).cast::<u8>();
                both_ends(p, std::mem::size_of::<PostingList>());
                line(p.wrapping_add(64));
            }
            (1, Some(h)) => both_ends((&**h as *const Heads).cast(), std::mem::size_of::<Heads>()),
            (2, Some(h)) => both_ends(h.firsts.as_ptr().cast(), h.firsts.len() * 4),
            (3, Some(h)) => {
                if let Some(b) = h.blocks.get(self.block_of(doc)) {
                    both_ends((b as *const Block).cast(), std::mem::size_of::<Block>());
                }
            }
            (4, _) => {
                if let Some(b) = self.block(self.block_of(doc)) {
                    b.prefetch_all(PREFETCH_LINES);
                }
            }
            _ => {}
        }
    }

    /// The blocks in order.
    fn all_blocks(&self) -> impl Iterator<Item = &Block> {
        self.blocks().iter().chain(std::iter::once(&self.tail).filter(|t| t.len() > 0))
    }

    /// The block that holds (or would hold) `doc`.
    fn block_of(&self, doc: u32) -> usize {
        self.heads.as_ref().map_or(0, |h| h.firsts.partition_point(|&f| f <= doc).saturating_sub(1))
    }

    /// Sets `doc`'s posting and positions (inserting it or replacing it).
    pub fn set(&mut self, p: Posting, positions: &[u32], norm: DocNorm) {
        // An escaped frequency is at most the norm: bound it by the norm itself.
        let freq = if p.freq == FREQ_ESCAPE { norm.max_freq.max(1) } else { u32::from(p.freq) };
        let b = Bound { freq, norm: norm.max_freq.max(1), low_score: norm.low_score };
        // After the last posting (a new document): onto the last block, or a new one when
        // that is full, so that documents written in id order fill their blocks.
        let tail = &mut self.tail;
        if tail.last_doc().is_none_or(|l| l < p.doc) {
            if tail.len() == 0 {
                *tail = Block::new(p, positions, b);
                if let Some(h) = &mut self.heads {
                    reserve_one(&mut h.firsts);
                    h.firsts.push(p.doc);
                }
            } else if tail.len() < SPLIT_AT - 1 {
                tail.push(p, positions);
                tail.bound = tail.bound.max(b);
                if tail.len() == SPLIT_AT - 1 {
                    // Full: it only changes by updates and deletes from now on.
                    tail.shrink();
                }
            } else {
                let full = std::mem::replace(tail, Block::new(p, positions, b));
                let first = full.doc(0);
                let h = self
                    .heads
                    .get_or_insert_with(|| Box::new(Heads { firsts: vec![first], blocks: Vec::new() }));
                reserve_one(&mut h.firsts);
                reserve_one(&mut h.blocks);
                h.firsts.push(p.doc);
                h.blocks.push(full);
            }
            self.len += 1;
            return;
        }
        let bi = self.block_of(p.doc);
        let Some(block) = self.block_mut(bi) else { return };
        let n = block.len();
        let appending = block.last_doc().is_some_and(|l| l < p.doc);
        let found = if appending { Err(n) } else { block.search(0, n, p.doc) };
        let first = match found {
            Ok(i) => {
                block.replace(i, p, positions);
                None
            }
            Err(i) => {
                block.insert(i, p, positions);
                (i == 0).then_some(p.doc)
            }
        };
        block.bound = block.bound.max(b);
        let split = (block.len() >= SPLIT_AT).then(|| block.split_off(SPLIT_AT / 2));
        if found.is_err() {
            self.len += 1;
        }
        if let (Some(f), Some(slot)) = (first, self.heads.as_mut().and_then(|h| h.firsts.get_mut(bi))) {
            *slot = f;
        }
        if let Some(second) = split.filter(|t| t.len() > 0) {
            let h = self.heads_mut();
            reserve_one(&mut h.firsts);
            reserve_one(&mut h.blocks);
            h.firsts.insert(bi + 1, second.doc(0));
            if bi == h.blocks.len() {
                // The tail split: its first half joins the others.
                let head = std::mem::replace(&mut self.tail, second);
                if let Some(h) = &mut self.heads {
                    h.blocks.push(head);
                }
            } else {
                h.blocks.insert(bi + 1, second);
            }
        }
    }

    /// Removes `doc`'s posting; true when it was there.
    pub fn remove(&mut self, doc: u32) -> bool {
        let bi = self.block_of(doc);
        let Some(block) = self.block_mut(bi) else { return false };
        let Ok(i) = block.search(0, block.len(), doc) else { return false };
        block.remove(i);
        let first = (block.len() > 0).then(|| block.doc(0));
        self.len -= 1;
        match (first, &mut self.heads) {
            // The only block emptied: the list is.
            (None, None) => {}
            (None, Some(h)) => {
                h.firsts.remove(bi);
                if bi == h.blocks.len() {
                    self.tail = h.blocks.pop().unwrap_or_else(Block::empty);
                } else {
                    h.blocks.remove(bi);
                }
                if h.blocks.is_empty() {
                    // One block left: its first is its own.
                    self.heads = None;
                }
            }
            (Some(first), Some(h)) => {
                if let Some(f) = h.firsts.get_mut(bi) {
                    *f = first;
                }
            }
            (Some(_), None) => {}
        }
        true
    }

    /// The postings of the documents in `from..to`, in document order.
    pub fn range(&self, from: u32, to: u32) -> impl Iterator<Item = Posting> + '_ {
        (self.block_of(from)..=self.blocks().len())
            .map_while(move |bi| self.block(bi).filter(|b| b.len() > 0 && b.doc(0) < to))
            .flat_map(move |b| {
                let (Ok(start) | Err(start)) = b.search(0, b.len(), from);
                (start..b.len()).map(move |i| b.posting(i)).take_while(move |p| p.doc < to)
            })
    }

    /// The documents of `within` whose posting `keep` accepts, in order: a merge of the
    /// candidates with each block's document column, searching a block for the next
    /// candidate when candidates are few, stepping through it when they are many; blocks
    /// before the next candidate are skipped whole.
    pub fn docs_among(&self, within: &RoaringBitmap, mut keep: impl FnMut(&Posting) -> bool) -> Vec<u32> {
        let mut out = Vec::new();
        let mut cands = within.iter().peekable();
        let sparse = within.len().saturating_mul(4) < u64::from(self.len());
        for b in self.all_blocks() {
            let n = b.len();
            let Some(&first) = cands.peek() else { break };
            if n == 0 || b.doc(n - 1) < first {
                continue;
            }
            let mut i = 0;
            while i < n {
                let Some(&c) = cands.peek() else { break };
                let d = b.doc(i);
                if d < c {
                    i = match sparse {
                        true => b.search(i + 1, n, c).unwrap_or_else(|k| k),
                        false => i + 1,
                    };
                } else if d > c {
                    cands.next();
                } else {
                    let p = b.posting(i);
                    if keep(&p) {
                        out.push(d);
                    }
                    cands.next();
                    i += 1;
                }
            }
        }
        out
    }

    /// A forward walk over the postings and their positions ([`Walk`]).
    pub fn walk(&self) -> Walk<'_> {
        Walk::new(self)
    }

    /// The documents, as a bitmap built block by block without a list of ids in between:
    /// pushed in order into roaring's sorted containers, or set in a bit set read into
    /// bitmap containers at once when there are more than 4096 per container's 65,536 ids
    /// (pushing would fill an array container and convert it).
    pub fn doc_bitmap(&self) -> RoaringBitmap {
        let (Some(lo), Some(hi)) = (self.first(0), self.tail.last_doc()) else { return RoaringBitmap::new() };
        let chunks = u64::from((hi >> 16) - (lo >> 16)) + 1;
        if u64::from(self.len) <= 4096 * chunks {
            // Blocks hold increasing documents, each after the previous block's.
            let mut ids = Vec::with_capacity(self.len as usize);
            for b in self.all_blocks() {
                ids.extend((0..b.len()).map(|i| b.doc(i)));
            }
            return super::idset::bitmap_of_increasing(&ids);
        }
        super::idset::bitmap_of_span(lo, hi, self.all_blocks().flat_map(|b| (0..b.len()).map(|i| b.doc(i))))
    }

    /// Iterates the postings in document order.
    pub fn iter(&self) -> impl Iterator<Item = Posting> + '_ {
        self.all_blocks().flat_map(|b| (0..b.len()).map(|i| b.posting(i)))
    }

    /// Bytes of the position deltas: RediSearch's "offset vectors" size.
    pub fn position_bytes(&self) -> usize {
        self.all_blocks().map(Block::position_bytes).sum()
    }

    /// Heap bytes (the capacities of the vectors; the list itself, with its last block, is
    /// counted by its owner).
    pub fn mem_bytes(&self) -> usize {
        let heads = self.heads.as_ref().map_or(0, |h| {
            std::mem::size_of::<Heads>()
                + h.firsts.capacity() * 4
                + h.blocks.capacity() * std::mem::size_of::<Block>()
        });
        heads + self.blocks().iter().chain(std::iter::once(&self.tail)).map(Block::mem_bytes).sum::<usize>()
    }
}

#[cfg(test)]
mod tests;
