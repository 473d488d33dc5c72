//! Tables of a quick-exit term's expansions (prefix, suffix, fuzzy): which one counts in a
//! document is the first, in the term's `ids` order, the document holds.

use crate::index::Index;
use crate::query::exec::ScoreTerm;

/// The rank of each of a term's expansions in its `ids` (its order), for looking up the
/// terms of a document: a bit set of the ids first, then a binary search.
pub(super) struct Ranks {
    bits: Vec<u64>,
    sorted: Vec<(u32, usize)>,
}

impl Ranks {
    pub(super) fn new(ids: &[u32]) -> Ranks {
        let top = ids.iter().copied().max().unwrap_or(0) as usize;
        let mut bits = vec![0u64; top / 64 + 1];
        for &id in ids {
            if let Some(w) = bits.get_mut(id as usize / 64) {
                *w |= 1 << (id % 64);
            }
        }
        let mut sorted: Vec<(u32, usize)> = ids.iter().enumerate().map(|(r, &id)| (id, r)).collect();
        sorted.sort_unstable();
        Ranks { bits, sorted }
    }

    pub(super) fn rank(&self, id: u32) -> Option<usize> {
        let w = self.bits.get(id as usize / 64)?;
        if w & (1 << (id % 64)) == 0 {
            return None;
        }
        let i = self.sorted.binary_search_by_key(&id, |x| x.0).ok()?;
        self.sorted.get(i).map(|x| x.1)
    }
}

/// For each document, the first of a quick-exit term's expansions (in `ids` order) it holds
/// in a searched field, and the frequency there: built by reading each expansion's postings
/// once, in order, keeping the first expansion that reaches a document.
pub(super) struct FirstHits {
    /// Per document id: expansion rank + 1 (0: none) and frequency.
    by_doc: Vec<(u32, u16)>,
}

impl FirstHits {
    pub(super) fn new(idx: &Index, t: &ScoreTerm) -> Option<FirstHits> {
        let mut by_doc = vec![(0u32, 0u16); idx.docs.max_id() as usize];
        for (rank, &id) in t.ids.iter().enumerate() {
            let list = idx.text.list(id)?;
            for p in list.iter() {
                if !idx.posting_in(&p, id, t.mask) {
                    continue;
                }
                if let Some(slot) = by_doc.get_mut(p.doc as usize) {
                    if slot.0 == 0 {
                        *slot = (rank as u32 + 1, p.freq);
                    }
                }
            }
        }
        Some(FirstHits { by_doc })
    }

    pub(super) fn get(&self, doc: u32) -> Option<(usize, u16)> {
        match self.by_doc.get(doc as usize) {
            Some(&(r, f)) if r > 0 => Some((r as usize - 1, f)),
            _ => None,
        }
    }
}
