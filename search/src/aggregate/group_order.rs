//! The order GROUPBY's groups come out in: RediSearch's.
//!
//! RediSearch keeps its groups in a khash table (klib's `khash.h`, `KHASH_MAP_INIT_INT64`)
//! keyed by a 64-bit FNV-1a hash of the group's key values (`RSValue_Hash`, chained over the
//! keys from 0) and yields them in the table's bucket order. Applications and test suites
//! that send a GROUPBY without SORTBY see that order, so folio computes the same hashes and
//! replays the same table: insertions in first-seen order, open addressing with quadratic
//! probing, and the in-place rehash (with its kick-outs) that doubles the table when it is
//! 77% full.

use super::value::{Value, ValueKey};

/// `RSValue_Hash` of a group's key values, chained from 0.
pub(super) fn group_hash(keys: &[ValueKey]) -> u64 {
    keys.iter().fold(0, |h, k| value_hash(&k.0, h))
}

pub(super) fn value_hash(v: &Value, hval: u64) -> u64 {
    match v {
        Value::String(s) => fnv_64a(s, hval),
        Value::Number(n) => fnv_64a(&n.to_le_bytes(), hval),
        Value::Null => hval.wrapping_add(1),
        Value::Array(items) => items.iter().fold(hval, |h, x| value_hash(x, h)),
        Value::Duo(d) => value_hash(&d.0, hval),
    }
}

/// FNV-1a over `buf` from `hval` (RediSearch's `fnv_64a_buf`).
fn fnv_64a(buf: &[u8], hval: u64) -> u64 {
    buf.iter().fold(hval, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The positions of `hashes` (distinct, in insertion order) in khash's iteration order.
pub(super) fn khash_order(hashes: &[u64]) -> Vec<usize> {
    let mut table = Table::default();
    for (i, &h) in hashes.iter().enumerate() {
        table.put(h, i);
    }
    (0..table.keys.len()).filter(|&j| table.flags[j] == LIVE).map(|j| table.vals[j]).collect()
}

const LIVE: u8 = 0;
const DELETED: u8 = 1;
const EMPTY: u8 = 2;

#[derive(Default)]
struct Table {
    keys: Vec<u64>,
    vals: Vec<usize>,
    /// Per bucket: [`LIVE`], [`DELETED`] or [`EMPTY`]; `keys.len()` buckets.
    flags: Vec<u8>,
    size: usize,
    occupied: usize,
    upper_bound: usize,
}

/// `kh_int64_hash_func`.
fn bucket_hash(key: u64) -> usize {
    ((key >> 33) ^ key ^ (key << 11)) as u32 as usize
}

fn upper_bound(buckets: usize) -> usize {
    (buckets as f64 * 0.77 + 0.5) as usize
}

impl Table {
    /// `kh_put` of a key not yet in the table.
    fn put(&mut self, key: u64, val: usize) {
        if self.occupied >= self.upper_bound {
            let n = self.keys.len();
            self.resize(if n > self.size << 1 { n - 1 } else { n + 1 });
        }
        let mask = self.keys.len() - 1;
        let mut i = bucket_hash(key) & mask;
        let mut step = 0;
        while self.flags[i] != EMPTY {
            step += 1;
            i = (i + step) & mask;
        }
        self.keys[i] = key;
        self.vals[i] = val;
        self.flags[i] = LIVE;
        self.size += 1;
        self.occupied += 1;
    }

    /// `kh_resize`: a power of two of at least 4 buckets, rehashed in place.
    fn resize(&mut self, wanted: usize) {
        let new_n = wanted.max(1).next_power_of_two().max(4);
        if self.size >= upper_bound(new_n) {
            return;
        }
        let old_n = self.keys.len();
        let mut new_flags = vec![EMPTY; new_n];
        if old_n < new_n {
            self.keys.resize(new_n, 0);
            self.vals.resize(new_n, 0);
        }
        let mask = new_n - 1;
        for j in 0..old_n {
            if self.flags[j] != LIVE {
                continue;
            }
            let (mut key, mut val) = (self.keys[j], self.vals[j]);
            self.flags[j] = DELETED;
            loop {
                let mut i = bucket_hash(key) & mask;
                let mut step = 0;
                while new_flags[i] != EMPTY {
                    step += 1;
                    i = (i + step) & mask;
                }
                new_flags[i] = LIVE;
                if i < old_n && self.flags[i] == LIVE {
                    // Kick out the element there, which goes on to its own place.
                    std::mem::swap(&mut key, &mut self.keys[i]);
                    std::mem::swap(&mut val, &mut self.vals[i]);
                    self.flags[i] = DELETED;
                } else {
                    self.keys[i] = key;
                    self.vals[i] = val;
                    break;
                }
            }
        }
        self.keys.truncate(new_n);
        self.vals.truncate(new_n);
        self.flags = new_flags;
        self.occupied = self.size;
        self.upper_bound = upper_bound(new_n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_reference_function() {
        // FNV-1a from an initial value of 0 (not the offset basis), as RediSearch calls it.
        assert_eq!(fnv_64a(b"", 0), 0);
        assert_eq!(fnv_64a(b"a", 0), 0x61u64.wrapping_mul(0x0100_0000_01b3));
        let shifted =
            |h: u64| h.wrapping_add((h << 1) + (h << 4) + (h << 5) + (h << 7) + (h << 8) + (h << 40));
        assert_eq!(fnv_64a(b"ab", 7), shifted(shifted(7 ^ 0x61) ^ 0x62));
    }

    #[test]
    fn every_group_comes_out_once() {
        for n in [0usize, 1, 3, 4, 7, 100, 1000] {
            let hashes: Vec<u64> =
                (0..n as u64).map(|i| fnv_64a(&i.to_le_bytes(), 0x9e37_79b9_7f4a_7c15)).collect();
            let mut order = khash_order(&hashes);
            assert_eq!(order.len(), n);
            order.sort_unstable();
            assert_eq!(order, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn small_tables_iterate_by_bucket() {
        // Four buckets hold three keys: the order is the keys' buckets, not insertion.
        let (a, b) = (2u64, 1u64);
        assert_eq!(bucket_hash(a) & 3, 2);
        assert_eq!(bucket_hash(b) & 3, 1);
        assert_eq!(khash_order(&[a, b]), vec![1, 0]);
    }
}
