//! One numeric range's inverted index as RediSearch 2.10 keeps it (`inverted_index.c`): its
//! (doc id, value) entries in blocks of about [`BLOCK_ENTRIES`], with the figures FT.DEBUG
//! shows (`numDocs`, `numEntries`, `lastId`, `size`) and the buffer capacities its memory
//! accounting follows. The entries are kept as they are, not encoded: only their encoded
//! sizes are computed ([`super::encode`]).

use super::encode::{
    entry_bytes, grown, BLOCK_BYTES, BLOCK_ENTRIES, BLOCK_INITIAL_CAP, INVERTED_INDEX_BYTES,
};

/// One block: its entries and its buffer's length and capacity.
#[derive(Debug, Clone)]
pub struct Block {
    /// (doc id, value), in the order written.
    pub entries: Vec<(u64, f64)>,
    /// The block's last doc id (deltas are taken from it).
    last_id: u64,
    /// Bytes written.
    offset: usize,
    /// Buffer capacity.
    cap: usize,
}

impl Block {
    fn new(first: u64) -> Block {
        Block { entries: Vec::new(), last_id: first, offset: 0, cap: BLOCK_INITIAL_CAP }
    }
}

/// A range's inverted index.
#[derive(Debug, Clone)]
pub struct InvIdx {
    /// Never empty: a new index has one empty block, as does one the GC emptied.
    pub blocks: Vec<Block>,
    /// The last doc id written (not lowered by the GC).
    pub last_id: u64,
    /// Documents, counted when an entry's doc differs from the previous entry's
    /// (RediSearch's `numDocs`, a 32-bit count).
    pub num_docs: u32,
    /// Entries.
    pub num_entries: u64,
}

/// What a GC pass removed from an index ([`InvIdx::repair`]).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Repaired {
    /// Entries removed.
    pub entries: u64,
    /// Documents removed, counted per block as RediSearch's `frags` are.
    pub docs: u32,
    /// Bytes freed (capacities lost, plus a block header per block dropped).
    pub bytes_collected: usize,
    /// Bytes allocated (a fresh block when every block went).
    pub bytes_added: usize,
}

impl InvIdx {
    /// A new index with one empty block, and the bytes it takes (RediSearch's
    /// `NewInvertedIndex(Index_StoreNumeric, 1, &size)`).
    pub fn new() -> (InvIdx, usize) {
        let idx = InvIdx { blocks: vec![Block::new(0)], last_id: 0, num_docs: 0, num_entries: 0 };
        (idx, INVERTED_INDEX_BYTES + BLOCK_BYTES + BLOCK_INITIAL_CAP)
    }

    /// Writes an entry; returns the bytes the index grew by
    /// (`InvertedIndex_WriteEntryGeneric` with the numeric encoder).
    pub fn write(&mut self, doc: u64, value: f64, compress: bool) -> usize {
        let same_doc = self.last_id != 0 && self.last_id == doc;
        let mut grew = 0;
        let needs_block = self.blocks.last().is_none_or(|b| b.entries.len() >= BLOCK_ENTRIES && !same_doc);
        if needs_block {
            self.blocks.push(Block::new(doc));
            grew += BLOCK_BYTES + BLOCK_INITIAL_CAP;
        }
        let Some(blk) = self.blocks.last_mut() else { return grew };
        if blk.entries.is_empty() {
            blk.last_id = doc;
        }
        let delta = doc.saturating_sub(blk.last_id);
        blk.offset += entry_bytes(delta, value, compress);
        let cap = grown(blk.cap, blk.offset);
        grew += cap - blk.cap;
        blk.cap = cap;
        blk.entries.push((doc, value));
        blk.last_id = doc;
        self.last_id = doc;
        if !same_doc {
            self.num_docs = self.num_docs.wrapping_add(1);
        }
        self.num_entries += 1;
        grew
    }

    /// Every entry, block after block.
    pub fn entries(&self) -> impl Iterator<Item = &(u64, f64)> + '_ {
        self.blocks.iter().flat_map(|b| b.entries.iter())
    }

    /// RediSearch's `InvertedIndexGetEfficiency`: entries per block.
    pub fn efficiency(&self) -> f64 {
        self.num_entries as f64 / self.blocks.len() as f64
    }

    /// Removes the entries of documents `dead` says are gone, as the fork GC repairs blocks
    /// (`IndexBlock_Repair`, `FGC_applyInvertedIndex`): a block that lost entries is
    /// re-encoded into a buffer shrunk to its size, one that lost them all is dropped, and
    /// when every block goes a fresh one takes their place. `on_kept` sees each remaining
    /// entry (RediSearch's repair callback, which recounts the range's cardinality).
    /// Returns `None` when no block changed (RediSearch then sends nothing for the range).
    pub fn repair(
        &mut self,
        dead: &dyn Fn(u64) -> bool,
        compress: bool,
        on_kept: &mut dyn FnMut(f64),
    ) -> Option<Repaired> {
        let mut out = Repaired::default();
        let mut changed = false;
        let mut kept_blocks = Vec::with_capacity(self.blocks.len());
        for mut blk in std::mem::take(&mut self.blocks) {
            let mut frags = 0u32;
            let mut last_doc = None;
            let mut kept = Vec::with_capacity(blk.entries.len());
            for &(doc, value) in &blk.entries {
                let new_doc = last_doc != Some(doc);
                last_doc = Some(doc);
                if dead(doc) {
                    frags += u32::from(new_doc);
                    out.entries += 1;
                } else {
                    on_kept(value);
                    kept.push((doc, value));
                }
            }
            if frags == 0 {
                kept_blocks.push(blk);
                continue;
            }
            changed = true;
            out.docs += frags;
            let before = blk.cap;
            let mut offset = 0;
            let mut prev = None;
            for &(doc, value) in &kept {
                offset += entry_bytes(doc - prev.unwrap_or(doc), value, compress);
                prev = Some(doc);
            }
            if kept.is_empty() {
                out.bytes_collected += before + BLOCK_BYTES;
                continue;
            }
            out.bytes_collected += before.saturating_sub(offset);
            blk.last_id = prev.unwrap_or(blk.last_id);
            blk.entries = kept;
            blk.offset = offset;
            blk.cap = offset;
            kept_blocks.push(blk);
        }
        if kept_blocks.is_empty() {
            kept_blocks.push(Block::new(0));
            out.bytes_added += BLOCK_BYTES + BLOCK_INITIAL_CAP;
        }
        self.blocks = kept_blocks;
        if !changed {
            return None;
        }
        self.num_entries -= out.entries;
        self.num_docs = self.num_docs.wrapping_sub(out.docs);
        Some(out)
    }

    /// What RediSearch's `InvertedIndex_MemUsage` counts (the GC frees it from a range left
    /// without documents).
    pub fn mem_usage(&self) -> usize {
        INVERTED_INDEX_BYTES + self.blocks.iter().map(|b| BLOCK_BYTES + b.cap).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_documents_of_three_values_take_109_bytes() {
        // RediSearch 2.10.5: JSON arrays [1,2,3], [1,2,3], [3,4,5] in one range.
        let (mut idx, mut size) = InvIdx::new();
        for (doc, vals) in [(1, [1.0, 2.0, 3.0]), (2, [1.0, 2.0, 3.0]), (3, [3.0, 4.0, 5.0])] {
            for v in vals {
                size += idx.write(doc, v, false);
            }
        }
        assert_eq!((size, idx.num_docs, idx.num_entries, idx.blocks.len()), (109, 3, 9, 1));
    }

    #[test]
    fn blocks_hold_a_hundred_entries_but_never_split_a_document() {
        let (mut idx, _) = InvIdx::new();
        for doc in 1..=100 {
            idx.write(doc, 1.0, false);
        }
        idx.write(100, 2.0, false);
        assert_eq!(idx.blocks.len(), 1, "the same document stays in its block");
        idx.write(101, 2.0, false);
        assert_eq!((idx.blocks.len(), idx.num_docs, idx.num_entries), (2, 101, 102));
    }

    #[test]
    fn repair_drops_dead_entries_and_empty_blocks() {
        let (mut idx, _) = InvIdx::new();
        for doc in 1..=150 {
            idx.write(doc, doc as f64, false);
        }
        let mut seen = 0;
        let r = idx.repair(&|d| d <= 100 || d % 2 == 0, false, &mut |_| seen += 1).unwrap();
        assert_eq!((r.entries, r.docs, seen), (125, 125, 25));
        assert_eq!((idx.blocks.len(), idx.num_docs, idx.num_entries), (1, 25, 25));
        assert!(idx.repair(&|_| false, false, &mut |_| {}).is_none(), "nothing to collect");
        let r = idx.repair(&|_| true, false, &mut |_| {}).unwrap();
        assert_eq!((idx.blocks.len(), idx.num_docs, r.bytes_added), (1, 0, BLOCK_BYTES + BLOCK_INITIAL_CAP));
        assert_eq!(idx.last_id, 150, "the last id written stays");
    }
}
