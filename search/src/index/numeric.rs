//! Numeric index of one NUMERIC field: an ordered map from value to its doc ids (one id
//! inline, several in a bitmap: most values of a field like a price belong to one
//! document, and an inline id costs no allocation); a range query is the union of the
//! ids of the keys in range.

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

/// The value RediSearch's numeric index stores for `v` under `_NUMERIC_COMPRESS` (its legacy
/// compression): a double within 0.01 of a float becomes that float (whole numbers and
/// exact floats are stored as they are). A query then matches the stored value.
pub fn compressed(v: f64) -> f64 {
    let abs = v.abs();
    if !v.is_finite() || abs.fract() == 0.0 {
        return v;
    }
    let single = abs as f32;
    if (abs - f64::from(single)).abs() < 0.01 {
        f64::from(single).copysign(v)
    } else {
        v
    }
}

/// Buckets of at most this many documents are read into a range's list of ids rather than
/// unioned as bitmaps.
const SMALL_BUCKET: u64 = 64;

/// The documents of one value.
enum Bucket {
    One(u32),
    /// 2 to [`SMALL_BUCKET`] documents, sorted: read by a range without a bitmap's iterator.
    Few(Vec<u32>),
    Many(RoaringBitmap),
}

/// One NUMERIC field's index.
#[derive(Default)]
pub struct NumericIndex {
    buckets: BTreeMap<u64, Bucket>,
    /// Number of (doc, value) records.
    pub records: u64,
}

impl NumericIndex {
    /// Adds `doc` with value `v`.
    pub fn add(&mut self, v: f64, doc: u32) {
        let added = match self.buckets.entry(order_key(v)) {
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(Bucket::One(doc));
                true
            }
            std::collections::btree_map::Entry::Occupied(mut e) => match e.get_mut() {
                Bucket::One(d) if *d == doc => false,
                Bucket::One(d) => {
                    let pair = if *d < doc { vec![*d, doc] } else { vec![doc, *d] };
                    e.insert(Bucket::Few(pair));
                    true
                }
                Bucket::Few(ids) => match ids.binary_search(&doc) {
                    Ok(_) => false,
                    Err(at) if ids.len() < SMALL_BUCKET as usize => {
                        ids.insert(at, doc);
                        true
                    }
                    Err(_) => {
                        let mut bm: RoaringBitmap = ids.iter().copied().collect();
                        bm.insert(doc);
                        e.insert(Bucket::Many(bm));
                        true
                    }
                },
                Bucket::Many(bm) => bm.insert(doc),
            },
        };
        if added {
            self.records += 1;
        }
    }

    /// Removes `doc` with value `v`.
    pub fn remove(&mut self, v: f64, doc: u32) {
        let k = order_key(v);
        let (removed, empty) = match self.buckets.get_mut(&k) {
            Some(Bucket::One(d)) => (*d == doc, *d == doc),
            Some(Bucket::Few(ids)) => {
                let Ok(at) = ids.binary_search(&doc) else { return };
                ids.remove(at);
                if let [last] = ids.as_slice() {
                    let last = *last;
                    self.buckets.insert(k, Bucket::One(last));
                }
                (true, false)
            }
            Some(Bucket::Many(bm)) => {
                let removed = bm.remove(doc);
                // Back to a list at half the list's size (no flapping at the limit).
                if bm.len() <= SMALL_BUCKET / 2 {
                    let few: Vec<u32> = bm.iter().collect();
                    let bucket =
                        if let [one] = few.as_slice() { Bucket::One(*one) } else { Bucket::Few(few) };
                    self.buckets.insert(k, bucket);
                }
                (removed, false)
            }
            None => (false, false),
        };
        if removed {
            self.records = self.records.saturating_sub(1);
        }
        if empty {
            self.buckets.remove(&k);
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
        // Single ids and small buckets gathered, sorted and made unique (a document with
        // several values in the range is in several buckets); large buckets unioned.
        let mut ones = Vec::new();
        let mut many = Vec::new();
        for (_, b) in self.buckets.range((lo, hi)) {
            match b {
                Bucket::One(d) => ones.push(*d),
                Bucket::Few(ids) => ones.extend_from_slice(ids),
                Bucket::Many(bm) if bm.len() <= SMALL_BUCKET => ones.extend(bm),
                Bucket::Many(bm) => many.push(bm),
            }
        }
        let ones = super::idset::bitmap_of(ones);
        if many.is_empty() {
            return ones;
        }
        let mut out = many.into_iter().union();
        out |= ones;
        out
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.buckets
            .values()
            .map(|b| match b {
                Bucket::One(_) => 40,
                Bucket::Few(ids) => 4 * ids.capacity() + 40,
                Bucket::Many(bm) => bm.serialized_size() + 40,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_keeps_whole_numbers_and_rounds_to_floats() {
        assert_eq!(compressed(1.01), f64::from(1.01f32));
        assert_eq!(compressed(-1.01), -f64::from(1.01f32));
        assert_eq!((compressed(1.25), compressed(3.0), compressed(1e300)), (1.25, 3.0, 1e300));
        assert_eq!(compressed(f64::INFINITY), f64::INFINITY);
        assert_ne!(compressed(1.01), 1.01);
    }

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

    #[test]
    fn ranges_agree_with_a_scan() {
        // Few values (buckets of many documents), then many values (mostly one document a
        // value, each document with several values in a range).
        for (values, docs, scale) in [(40, 300, 4.0), (100_000, 500, 10_000.0), (2_000, 5_000, 200.0)] {
            ranges_agree_with_a_scan_on(values, docs, scale);
        }
    }

    fn ranges_agree_with_a_scan_on(values: u64, docs: u32, scale: f64) {
        let mut n = NumericIndex::default();
        let mut pairs = std::collections::BTreeSet::new();
        let mut x: u64 = 11;
        for _ in 0..30_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (v, doc) = ((x % values) as f64 / scale, (x >> 8) as u32 % docs);
            if x.is_multiple_of(3) {
                n.remove(v, doc);
                pairs.remove(&(order_key(v), doc));
            } else {
                n.add(v, doc);
                pairs.insert((order_key(v), doc));
            }
            assert_eq!(n.records as usize, pairs.len());
        }
        for lo in 0..12 {
            for hi in lo..12 {
                let (a, b) = (lo as f64, hi as f64);
                let want: RoaringBitmap = pairs
                    .iter()
                    .filter(|(k, _)| *k >= order_key(a) && *k < order_key(b))
                    .map(|(_, d)| *d)
                    .collect();
                assert_eq!(n.range(a, true, b, false), want, "[{a} {b})");
            }
        }
    }
}
