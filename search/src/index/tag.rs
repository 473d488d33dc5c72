//! Tag index of one TAG field: normalized value → bitmap of doc ids, with the values in a
//! [`TermDict`] for TAGVALS and prefix/pattern expansion.

use roaring::RoaringBitmap;

use super::termdict::TermDict;

/// One TAG field's index.
#[derive(Default)]
pub struct TagIndex {
    /// Values → ids.
    pub dict: TermDict,
    postings: Vec<RoaringBitmap>,
    /// Per value id: the versions of documents holding it that left the index since the last
    /// garbage collection, which RediSearch's tag index still counts for the IDF (as for
    /// text terms, `super::text::TextIndex::counted_doc_freq`).
    retired: std::collections::HashMap<u32, u32>,
    /// Versions of documents with a value here that left since then: RediSearch's FT.INFO
    /// `num_records` counts one record per document and TAG field ([`Self::records`]) until
    /// its GC runs.
    pub retired_records: u64,
}

impl TagIndex {
    /// The id of a value, inserting it.
    pub fn value_id(&mut self, value: &str) -> u32 {
        let id = self.dict.get_or_insert(value);
        while self.postings.len() <= id as usize {
            self.postings.push(RoaringBitmap::new());
        }
        id
    }

    /// Adds `doc` under value id `id`.
    pub fn add(&mut self, id: u32, doc: u32) {
        if let Some(bm) = self.postings.get_mut(id as usize) {
            bm.insert(doc);
        }
    }

    /// Removes `doc` from value id `id`.
    pub fn remove(&mut self, id: u32, doc: u32) {
        if let Some(bm) = self.postings.get_mut(id as usize) {
            bm.remove(doc);
        }
    }

    /// Docs of a value id.
    pub fn docs(&self, id: u32) -> Option<&RoaringBitmap> {
        self.postings.get(id as usize)
    }

    /// Number of documents holding value id `id` as RediSearch counts them for its IDF: the
    /// live ones and the versions its GC has not collected.
    pub fn counted_docs(&self, id: u32) -> u64 {
        self.docs(id).map_or(0, RoaringBitmap::len) + self.retired.get(&id).map_or(0, |&n| u64::from(n))
    }

    /// A version of a document holding value id `id` left the index.
    pub fn retire(&mut self, id: u32) {
        let n = self.retired.entry(id).or_default();
        *n = n.saturating_add(1);
    }

    /// RediSearch's GC ran: the versions that left are no longer counted.
    pub fn collect_garbage(&mut self) {
        self.retired = std::collections::HashMap::new();
        self.retired_records = 0;
    }

    /// True when the value id has documents.
    pub fn is_live(&self, id: u32) -> bool {
        self.postings.get(id as usize).is_some_and(|b| !b.is_empty())
    }

    /// All live values in order.
    pub fn values(&self) -> Vec<String> {
        self.dict.scan(|_, id| self.is_live(id), usize::MAX).into_iter().map(|(v, _)| v).collect()
    }

    /// The live values some document of `docs` has, in order.
    pub fn values_in(&self, docs: &RoaringBitmap) -> Vec<String> {
        let has = |id: u32| self.postings.get(id as usize).is_some_and(|b| !b.is_disjoint(docs));
        self.dict.scan(|_, id| has(id), usize::MAX).into_iter().map(|(v, _)| v).collect()
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.dict_bytes() + self.posting_bytes()
    }

    /// The dictionary's share of the values some document has (RediSearch's tag overhead).
    pub fn dict_bytes(&self) -> usize {
        self.dict.live_bytes(self.postings.iter().filter(|b| !b.is_empty()).count())
    }

    /// Bytes of the values' document sets (RediSearch's tag inverted indexes).
    pub fn posting_bytes(&self) -> usize {
        self.postings.iter().filter(|b| !b.is_empty()).map(|b| b.serialized_size() + 8).sum()
    }

    /// Number of documents with a value: RediSearch counts one record per document and TAG
    /// field, however many values it has (FT.INFO `num_records`).
    pub fn records(&self) -> u64 {
        let mut docs = RoaringBitmap::new();
        for b in &self.postings {
            docs |= b;
        }
        docs.len()
    }
}
