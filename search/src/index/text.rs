//! Full-text postings: for each term id, one bitmap of doc ids per text field.

use roaring::{MultiOps, RoaringBitmap};

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
    postings: Vec<Vec<(u16, RoaringBitmap)>>,
    /// Ids of stem terms (`+stem`): their occurrences weigh less in frequencies.
    stems: RoaringBitmap,
    /// Number of (term, field, doc) records.
    pub records: u64,
    /// Per term id: its documents with frequencies and positions (see [`super::postings`]).
    lists: Vec<PostingList>,
}

impl TextIndex {
    /// Id of a term, inserting it.
    pub fn term_id(&mut self, term: &str) -> u32 {
        let id = self.dict.get_or_insert(term);
        if term.starts_with(crate::analysis::STEM_PREFIX) {
            self.stems.insert(id);
        }
        while self.postings.len() <= id as usize {
            self.postings.push(Vec::new());
        }
        if self.lists.len() <= id as usize {
            self.lists.resize_with(id as usize + 1, PostingList::default);
        }
        id
    }

    /// Sets the posting of `term` in document `p.doc`, with the term's positions there.
    pub fn set_posting(&mut self, term: u32, p: Posting, positions: &[u32], norm: DocNorm) {
        if let Some(l) = self.lists.get_mut(term as usize) {
            l.set(p, positions, norm);
        }
    }

    /// Removes the posting of `term` in `doc`.
    pub fn remove_posting(&mut self, term: u32, doc: u32) {
        if let Some(l) = self.lists.get_mut(term as usize) {
            l.remove(doc);
        }
    }

    /// The postings of `term`.
    pub fn list(&self, term: u32) -> Option<&PostingList> {
        self.lists.get(term as usize)
    }

    /// Whether `term` is a stem (`+stem`) term.
    pub fn is_stem(&self, term: u32) -> bool {
        self.stems.contains(term)
    }

    /// Records that `doc` contains `term` in `field`.
    pub fn add(&mut self, term: u32, field: u16, doc: u32) {
        if let Some(p) = self.postings.get_mut(term as usize) {
            let inserted = match p.iter_mut().find(|(f, _)| *f == field) {
                Some((_, bm)) => bm.insert(doc),
                None => {
                    let mut bm = RoaringBitmap::new();
                    bm.insert(doc);
                    p.push((field, bm));
                    true
                }
            };
            if inserted {
                self.records += 1;
            }
        }
    }

    /// Forgets that `doc` contains `term` in `field`.
    pub fn remove(&mut self, term: u32, field: u16, doc: u32) {
        if let Some(p) = self.postings.get_mut(term as usize) {
            if let Some(i) = p.iter().position(|(f, _)| *f == field) {
                if let Some((_, bm)) = p.get_mut(i) {
                    if bm.remove(doc) {
                        self.records = self.records.saturating_sub(1);
                    }
                    if bm.is_empty() {
                        p.swap_remove(i);
                    }
                }
            }
        }
    }

    /// True when the term has at least one document.
    pub fn is_live(&self, term: u32) -> bool {
        self.postings.get(term as usize).is_some_and(|p| !p.is_empty())
    }

    /// Documents containing `term` in any field of `mask`.
    pub fn docs(&self, term: u32, mask: FieldMask) -> RoaringBitmap {
        let Some(p) = self.postings.get(term as usize) else {
            return RoaringBitmap::new();
        };
        let mut it = p.iter().filter(|(f, _)| mask & (1u128 << (*f as u32 % 128)) != 0);
        match (it.next(), it.next()) {
            (None, _) => RoaringBitmap::new(),
            (Some((_, a)), None) => a.clone(),
            (Some((_, a)), Some((_, b))) => {
                let rest = it.map(|(_, bm)| bm);
                [a, b].into_iter().chain(rest).union()
            }
        }
    }

    /// Number of documents containing `term` (any field).
    pub fn doc_freq(&self, term: u32) -> u64 {
        // A term's list has each document holding it once, whatever its fields.
        self.list(term).map_or(0, |l| u64::from(l.len()))
    }

    /// Number of live terms.
    pub fn live_terms(&self) -> u64 {
        self.postings.iter().filter(|p| !p.is_empty()).count() as u64
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

    /// Approximate heap bytes of the postings.
    pub fn mem_bytes(&self) -> usize {
        let bitmaps: usize = self
            .postings
            .iter()
            .map(|p| 24 + p.iter().map(|(_, bm)| bm.serialized_size() + 8).sum::<usize>())
            .sum();
        bitmaps + self.list_bytes()
    }
}
