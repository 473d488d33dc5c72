//! The full-text index: the term dictionary and, per term id, its postings
//! ([`super::postings`]); a term's documents are read from them (see [`super::terms`]).

use std::collections::HashMap;

use roaring::RoaringBitmap;

use super::postings::{DocNorm, Posting, PostingList};
use super::termdict::TermDict;

/// A set of text field ordinals (at most 128 TEXT fields).
pub type FieldMask = u128;

/// Every field.
pub const ALL_FIELDS: FieldMask = u128::MAX;

/// The text inverted index.
#[derive(Default)]
pub struct TextIndex {
    /// Term strings → ids.
    pub dict: TermDict,
    /// Ids of stem terms (`+stem`): their occurrences weigh less in frequencies.
    stems: RoaringBitmap,
    /// Number of (term, doc) records (kept by [`super::Index`]).
    pub records: u64,
    /// Per term id: its documents with frequencies and positions (see [`super::postings`]).
    lists: Vec<PostingList>,
    /// The documents of the terms that are in many of them ([`DENSE_SHARE`]), as bitmaps:
    /// a query matching such a term takes its documents without reading every posting,
    /// and the bitmaps are small (mostly one bit per document id).
    dense: HashMap<u32, RoaringBitmap>,
    /// Terms whose last document went since the last garbage collection: RediSearch keeps an
    /// emptied term (FT.INFO `num_terms`, FT.DEBUG DUMP_TERMS) until its GC runs. Their lists
    /// are empty (a posting set takes the term out).
    uncollected: RoaringBitmap,
    /// Per term: its postings in versions of documents that left the index (deleted, or
    /// re-indexed by an update) since the last garbage collection. RediSearch leaves those
    /// entries in its inverted index until its GC runs, and its IDF reads the index's entry
    /// count (`numDocs`), so until then they weigh in every score ([`Self::counted_doc_freq`]).
    /// The counts are in the lists ([`PostingList::retired`]); this is their sum (RediSearch's
    /// FT.INFO `num_records` counts them too).
    pub retired_entries: u64,
}

/// A term is kept as a bitmap too while at least one document in this many holds it
/// (and [`DENSE_MIN`] documents do).
pub const DENSE_SHARE: u64 = 16;

/// The fewest documents of a term kept as a bitmap too.
pub const DENSE_MIN: u32 = 1024;

impl TextIndex {
    /// Id of a term, inserting it.
    pub fn term_id(&mut self, term: &str) -> u32 {
        let id = self.dict.get_or_insert(term);
        if term.starts_with(crate::analysis::STEM_PREFIX) {
            self.stems.insert(id);
        }
        if self.lists.len() <= id as usize {
            // A list (with its last block inline) is 104 bytes a term.
            super::growth::reserve_eighth(&mut self.lists, id as usize + 1);
            self.lists.resize_with(id as usize + 1, PostingList::default);
        }
        id
    }

    /// Sets the posting of `term` in document `p.doc`, with the term's positions there;
    /// `live` is the index's number of documents.
    pub fn set_posting(&mut self, term: u32, p: Posting, positions: &[u32], norm: DocNorm, live: u64) {
        let Some(l) = self.lists.get_mut(term as usize) else { return };
        // Only an empty list can be uncollected.
        let was_empty = l.is_empty();
        l.set(p, positions, norm);
        if was_empty && !self.uncollected.is_empty() {
            self.uncollected.remove(term);
        }
        match self.dense.get_mut(&term) {
            Some(bm) => {
                bm.insert(p.doc);
            }
            None if l.len() >= DENSE_MIN && u64::from(l.len()) * DENSE_SHARE >= live => {
                let docs = RoaringBitmap::from_sorted_iter(l.iter().map(|p| p.doc)).unwrap_or_default();
                self.dense.insert(term, docs);
            }
            None => {}
        }
    }

    /// Starts loading the lists of `terms`, then the ends of their last blocks: a document's
    /// postings are set one term after another, each list a cache miss or two, which
    /// overlap when asked for together first.
    pub fn prefetch_tails(&self, terms: impl Iterator<Item = u32> + Clone) {
        for t in terms.clone() {
            if let Some(l) = self.lists.get(t as usize) {
                super::hnsw::prefetch_line((l as *const PostingList).cast());
            }
        }
        for t in terms {
            if let Some(l) = self.lists.get(t as usize) {
                l.prefetch_tail();
            }
        }
    }

    /// Starts loading what setting or removing `doc`'s postings of `terms` reads, a level
    /// at a time over all of them ([`PostingList::prefetch_for`]): an update changes a
    /// posting in the middle of each of a hundred lists, each a chain of a few misses.
    pub fn prefetch_lists(&self, terms: &[u32], doc: u32) {
        for stage in 0..super::postings::PREFETCH_STAGES {
            for &t in terms {
                if let Some(l) = self.lists.get(t as usize) {
                    l.prefetch_for(doc, stage);
                }
            }
        }
    }

    /// Removes the posting of `term` in `doc`.
    pub fn remove_posting(&mut self, term: u32, doc: u32) {
        if let Some(l) = self.lists.get_mut(term as usize) {
            l.remove(doc);
            if l.is_empty() {
                self.uncollected.insert(term);
            }
            if let Some(bm) = self.dense.get_mut(&term) {
                bm.remove(doc);
                if l.len() < DENSE_MIN / 2 {
                    self.dense.remove(&term);
                }
            }
        }
    }

    /// All documents of `term` when it is kept as a bitmap too ([`DENSE_SHARE`]).
    pub fn dense_docs(&self, term: u32) -> Option<&RoaringBitmap> {
        self.dense.get(&term)
    }

    /// The postings of `term`.
    pub fn list(&self, term: u32) -> Option<&PostingList> {
        self.lists.get(term as usize)
    }

    /// Whether `term` is a stem (`+stem`) term.
    pub fn is_stem(&self, term: u32) -> bool {
        self.stems.contains(term)
    }

    /// True when the term has at least one document.
    pub fn is_live(&self, term: u32) -> bool {
        self.list(term).is_some_and(|l| !l.is_empty())
    }

    /// Number of documents containing `term` (any field).
    pub fn doc_freq(&self, term: u32) -> u64 {
        // A term's list has each document holding it once, whatever its fields.
        self.list(term).map_or(0, |l| u64::from(l.len()))
    }

    /// Number of documents containing `term` as RediSearch counts them for its IDF (its
    /// inverted index's `numDocs`): the live ones and the versions its GC has not collected.
    pub fn counted_doc_freq(&self, term: u32) -> u64 {
        self.list(term).map_or(0, |l| u64::from(l.len()) + u64::from(l.retired()))
    }

    /// A version of a document holding `terms` (each once) left the index: RediSearch keeps
    /// its entries until its GC runs.
    pub fn retire(&mut self, terms: impl Iterator<Item = u32>) {
        for t in terms {
            if let Some(l) = self.lists.get_mut(t as usize) {
                l.retire();
                self.retired_entries += 1;
            }
        }
    }

    /// Number of live terms.
    pub fn live_terms(&self) -> u64 {
        self.lists.iter().filter(|l| !l.is_empty()).count() as u64
    }

    /// True when `term` lost its last document since the last garbage collection.
    pub fn is_uncollected(&self, term: u32) -> bool {
        self.uncollected.contains(term)
    }

    /// The terms RediSearch would count: the live ones and those its GC has not dropped yet.
    pub fn counted_terms(&self) -> u64 {
        self.live_terms() + self.uncollected.len()
    }

    /// RediSearch's garbage collection of the term index: emptied terms stop being counted.
    pub fn collect_garbage(&mut self) {
        self.uncollected.clear();
        if std::mem::take(&mut self.retired_entries) != 0 {
            self.lists.iter_mut().for_each(PostingList::forget_retired);
        }
    }

    /// Approximate heap bytes of the term-major postings.
    pub fn list_bytes(&self) -> usize {
        self.lists.capacity() * std::mem::size_of::<PostingList>()
            + self.lists.iter().map(PostingList::mem_bytes).sum::<usize>()
    }

    /// Bytes of the postings' position deltas ([`PostingList::position_bytes`]).
    pub fn position_bytes(&self) -> usize {
        self.lists.iter().map(PostingList::position_bytes).sum()
    }

    /// Approximate heap bytes of the bitmaps of frequent terms.
    pub fn dense_bytes(&self) -> usize {
        self.dense.values().map(|bm| bm.serialized_size() + 32).sum()
    }

    /// Approximate heap bytes of the postings.
    pub fn mem_bytes(&self) -> usize {
        self.list_bytes() + self.dense_bytes()
    }

    /// Bytes of the terms some document has (their lists and bitmaps): what RediSearch's
    /// `inverted_sz_mb` counts of the text index (0 once every document went).
    pub fn live_bytes(&self) -> usize {
        self.lists
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| std::mem::size_of::<PostingList>() + l.mem_bytes())
            .sum::<usize>()
            + self.dense_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmaps_of_frequent_terms_follow_their_postings() {
        let mut t = TextIndex::default();
        let (a, b) = (t.term_id("a"), t.term_id("b"));
        let norm = DocNorm { max_freq: 1, low_score: true };
        let mut x: u64 = 11;
        let mut live = std::collections::BTreeSet::new();
        for _ in 0..40_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let doc = (x % 6_000) as u32;
            if x % 7 < 2 {
                t.remove_posting(a, doc);
                t.remove_posting(b, doc);
                live.remove(&doc);
            } else {
                live.insert(doc);
                t.set_posting(a, Posting { doc, freq: 1, fields: 1 }, &[], norm, live.len() as u64);
                if doc.is_multiple_of(50) {
                    t.set_posting(b, Posting { doc, freq: 1, fields: 1 }, &[], norm, live.len() as u64);
                }
            }
            for term in [a, b] {
                if let Some(bm) = t.dense_docs(term) {
                    let docs: Vec<u32> =
                        t.list(term).map(|l| l.iter().map(|p| p.doc).collect()).unwrap_or_default();
                    assert_eq!(bm.iter().collect::<Vec<_>>(), docs);
                }
            }
        }
        // "a" is in most documents, "b" in one in fifty: only "a" is kept as a bitmap.
        assert!(t.dense_docs(a).is_some());
        assert!(t.dense_docs(b).is_none());
        for doc in 0..6_000 {
            t.remove_posting(a, doc);
        }
        assert!(t.dense_docs(a).is_none());
    }
}
