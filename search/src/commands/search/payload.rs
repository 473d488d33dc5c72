//! HAMMING's inputs: the documents' payloads (FT.ADD PAYLOAD) compared with the query's.

use crate::document::{DocumentSource, FieldValue};
use crate::index::Index;

/// HAMMING's score of each matched document that has a payload (read from the index's
/// payload field, where FT.ADD PAYLOAD puts it) as long as the query's.
pub(super) fn hamming_scores(
    idx: &Index,
    ids: &roaring::RoaringBitmap,
    query: Option<&[u8]>,
    docs: &dyn DocumentSource,
) -> std::collections::HashMap<u32, f64> {
    let mut out = std::collections::HashMap::new();
    let Some(q) = query.filter(|q| !q.is_empty()) else { return out };
    if idx.spec.payload_field.is_empty() {
        return out;
    }
    for d in ids {
        let Some(key) = idx.docs.get(d).map(|r| r.key()) else { continue };
        if let Some(p) = payload_of(docs, key, &idx.spec.payload_field) {
            let s = crate::query::score::hamming(q, &p);
            if s > 0.0 {
                out.insert(d, s);
            }
        }
    }
    out
}

/// A document's payload: the PAYLOAD_FIELD's bytes as stored (binary-safe on hashes).
pub(super) fn payload_of(docs: &dyn DocumentSource, key: &[u8], field: &str) -> Option<Vec<u8>> {
    docs.hash_bytes(key, field).or_else(|| match docs.values(key, field).ok()?.into_iter().next()? {
        FieldValue::String(s) => Some(s.into_bytes()),
        _ => None,
    })
}
