//! Numeric index of one NUMERIC field: an ordered map from value to bitmap of doc ids;
//! a range query is the union of the bitmaps of the keys in range.

use std::collections::BTreeMap;
use std::ops::Bound;

use roaring::{MultiOps, RoaringBitmap};

/// Maps an f64 to a u64 with the same order (−0.0 and 0.0 collapse).
pub fn order_key(v: f64) -> u64 {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// One NUMERIC field's index.
#[derive(Default)]
pub struct NumericIndex {
    buckets: BTreeMap<u64, RoaringBitmap>,
    /// Number of (doc, value) records.
    pub records: u64,
}

impl NumericIndex {
    /// Adds `doc` with value `v`.
    pub fn add(&mut self, v: f64, doc: u32) {
        if self.buckets.entry(order_key(v)).or_default().insert(doc) {
            self.records += 1;
        }
    }

    /// Removes `doc` with value `v`.
    pub fn remove(&mut self, v: f64, doc: u32) {
        let k = order_key(v);
        if let Some(bm) = self.buckets.get_mut(&k) {
            if bm.remove(doc) {
                self.records = self.records.saturating_sub(1);
            }
            if bm.is_empty() {
                self.buckets.remove(&k);
            }
        }
    }

    /// Docs with a value in the range.
    pub fn range(&self, min: f64, min_incl: bool, max: f64, max_incl: bool) -> RoaringBitmap {
        if min.is_nan() || max.is_nan() || min > max {
            return RoaringBitmap::new();
        }
        let lo = if min_incl { Bound::Included(order_key(min)) } else { Bound::Excluded(order_key(min)) };
        let hi = if max_incl { Bound::Included(order_key(max)) } else { Bound::Excluded(order_key(max)) };
        if order_key(min) == order_key(max) && !(min_incl && max_incl) {
            return RoaringBitmap::new();
        }
        self.buckets.range((lo, hi)).map(|(_, b)| b).union()
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.buckets.values().map(|b| b.serialized_size() + 48).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_key_preserves_order() {
        let v = [f64::NEG_INFINITY, -1e10, -1.5, -0.0, 0.0, 1e-9, 2.0, 1e300, f64::INFINITY];
        for w in v.windows(2) {
            assert!(order_key(w[0]) <= order_key(w[1]), "{w:?}");
        }
    }

    #[test]
    fn ranges_respect_exclusive_bounds() {
        let mut n = NumericIndex::default();
        for (i, v) in [1.0, 2.0, 3.0, -4.0].iter().enumerate() {
            n.add(*v, i as u32);
        }
        assert_eq!(n.range(1.0, true, 3.0, true).len(), 3);
        assert_eq!(n.range(1.0, false, 3.0, false).iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!(n.range(f64::NEG_INFINITY, true, 0.0, true).len(), 1);
        n.remove(2.0, 1);
        assert_eq!(n.range(1.0, false, 3.0, false).len(), 0);
    }
}
