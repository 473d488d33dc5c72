//! One row of the aggregation pipeline.
//!
//! Contract: a row is a slot-indexed vector of optional values; what each
//! slot is called is decided once per query by the pipeline's lookup table,
//! so per-row work never touches field names.

use std::sync::Arc;

use super::value::Value;

/// A pipeline row.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// Values by slot; `None` means "no value" (not loaded / missing).
    pub values: Vec<Option<Value>>,
    /// Key of the source document (absent after GROUPBY).
    pub key: Option<Arc<[u8]>>,
    /// The caller's id of the source document ([`DocHit::id`](super::pipeline::DocHit)).
    pub doc_id: u32,
    /// Query score of the source document.
    pub score: f64,
    /// Query terms that matched this document (`matched_terms()`).
    pub matched_terms: Option<Arc<[String]>>,
    /// How many matched documents the pipeline had read when it read this row's (1 for the
    /// first); 0 after GROUPBY. RediSearch's `total_results` of a pipeline that does not
    /// consume its input up front counts the documents read before each page's first row.
    pub seq: u64,
    /// A LOAD found the document gone (expired or deleted after the query matched it): its
    /// fields are sent as nil, as RediSearch's loader flags `Result_ExpiredDoc`.
    pub expired: bool,
}

impl Row {
    /// The value in `slot`, if any.
    #[inline]
    pub fn get(&self, slot: usize) -> Option<&Value> {
        self.values.get(slot).and_then(Option::as_ref)
    }

    /// Stores `v` in `slot`, growing the row when needed.
    #[inline]
    pub fn set(&mut self, slot: usize, v: Value) {
        if slot >= self.values.len() {
            self.values.resize(slot + 1, None);
        }
        self.values[slot] = Some(v);
    }
}
