//! A text term's documents, read from its postings: the matching side of the text index
//! (the scorer reads the same postings for frequencies and positions).

use roaring::RoaringBitmap;

use super::postings::Posting;
use super::text::{FieldMask, ALL_FIELDS};
use super::Index;

impl Index {
    /// Whether the posting `p` of text term `term` has the term in a field of `mask` (the
    /// document's record tells when the posting's mask cannot).
    pub fn posting_in(&self, p: &Posting, term: u32, mask: FieldMask) -> bool {
        if mask == ALL_FIELDS {
            return true;
        }
        p.in_fields(mask).unwrap_or_else(|| {
            self.docs
                .get(p.doc)
                .is_some_and(|r| r.occs_of(term).any(|o| mask & (1u128 << (u32::from(o.field) % 128)) != 0))
        })
    }

    /// The documents holding text term `term` in a field of `mask`.
    pub fn term_docs(&self, term: u32, mask: FieldMask) -> RoaringBitmap {
        let mask = self.searched(mask);
        if let Some(bm) = self.text.dense_docs(term).filter(|_| mask == ALL_FIELDS) {
            return bm.clone();
        }
        let Some(list) = self.text.list(term) else { return RoaringBitmap::new() };
        if mask == ALL_FIELDS {
            return list.doc_bitmap();
        }
        let docs = list.iter().filter(|p| self.posting_in(p, term, mask)).map(|p| p.doc);
        // Postings are in document order.
        super::idset::bitmap_of_sorted(docs)
    }

    /// The documents of `within` holding text term `term` in a field of `mask`: the
    /// candidates are merged with the term's postings ([`super::postings::PostingList::docs_among`]), so only
    /// their postings are decoded.
    pub fn term_docs_within(&self, term: u32, mask: FieldMask, within: &RoaringBitmap) -> RoaringBitmap {
        let Some(list) = self.text.list(term) else { return RoaringBitmap::new() };
        let mask = self.searched(mask);
        let dense = mask == ALL_FIELDS && self.text.dense_docs(term).is_some();
        if dense || within.len().saturating_mul(4) >= u64::from(list.len()) {
            let mut bm = self.term_docs(term, mask);
            bm &= within;
            return bm;
        }
        let docs = list.docs_among(within, |p| self.posting_in(p, term, mask));
        super::idset::bitmap_of_sorted(docs)
    }

    /// `mask` as the postings are checked against it: [`ALL_FIELDS`] when it has every TEXT
    /// field of the index (every posting is in one of them, so such a mask checks nothing).
    pub fn searched(&self, mask: FieldMask) -> FieldMask {
        let all = self.fields.iter().all(|f| match f {
            super::FieldIndex::Text(o) => mask & (1u128 << (u32::from(*o) % 128)) != 0,
            _ => true,
        });
        if all {
            ALL_FIELDS
        } else {
            mask
        }
    }

    /// Whether some document holds text term `term` in a field of `mask`.
    pub fn term_in(&self, term: u32, mask: FieldMask) -> bool {
        self.text.list(term).is_some_and(|l| l.iter().any(|p| self.posting_in(&p, term, mask)))
    }
}
