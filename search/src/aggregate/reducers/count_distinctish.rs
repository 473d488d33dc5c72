//! `COUNT_DISTINCTISH 1 @p`: approximate distinct count.
//!
//! Exact (a set of 64-bit hashes) up to `HLL_EXACT_THRESHOLD` distinct
//! values, then a HyperLogLog with 2^`HLL_PRECISION` registers (about 1.6%
//! standard error) using the bias-free small-range correction.
//!
//! Split over shards, a shard sends its exact hashes, or its registers once it switched: the
//! node's union is then the sketch a single server builds from the same values (a register
//! is the maximum over its hashes, whatever their order), so the estimate is the same.

use std::collections::HashSet;
use std::hash::BuildHasher;

use super::{items, num, single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::limits::{HLL_EXACT_THRESHOLD, HLL_PRECISION};
use crate::aggregate::row::Row;
use crate::aggregate::value::{Value, ValueKey};

/// Fixed-key hasher so estimates are reproducible.
#[derive(Clone, Copy)]
struct FixedState;

impl BuildHasher for FixedState {
    type Hasher = std::collections::hash_map::DefaultHasher;
    fn build_hasher(&self) -> Self::Hasher {
        std::collections::hash_map::DefaultHasher::new()
    }
}

/// A HyperLogLog sketch with exact small-set mode.
#[derive(Debug, Clone, Default)]
pub struct Hll {
    exact: HashSet<u64>,
    registers: Vec<u8>,
}

impl Hll {
    /// Adds a 64-bit hash.
    pub fn insert(&mut self, hash: u64) {
        if self.registers.is_empty() {
            self.exact.insert(hash);
            if self.exact.len() > HLL_EXACT_THRESHOLD {
                self.registers = vec![0; 1 << HLL_PRECISION];
                for h in std::mem::take(&mut self.exact) {
                    self.insert_register(h);
                }
            }
        } else {
            self.insert_register(hash);
        }
    }

    fn insert_register(&mut self, hash: u64) {
        let idx = (hash >> (64 - HLL_PRECISION)) as usize;
        let rest = (hash << HLL_PRECISION) | (1 << (HLL_PRECISION - 1));
        let rank = rest.leading_zeros() as u8 + 1;
        if let Some(r) = self.registers.get_mut(idx) {
            *r = (*r).max(rank);
        }
    }

    /// `[0, hashes]` (8 bytes each, little-endian) while exact, `[1, registers]` after.
    pub fn partial(&self) -> Value {
        if self.registers.is_empty() {
            let bytes: Vec<u8> = self.exact.iter().flat_map(|h| h.to_le_bytes()).collect();
            Value::array(vec![Value::Number(0.0), Value::bytes(&bytes)])
        } else {
            Value::array(vec![Value::Number(1.0), Value::bytes(&self.registers)])
        }
    }

    /// Folds in another sketch's [`Hll::partial`].
    pub fn merge(&mut self, partial: &Value) {
        let [mode, Value::String(bytes)] = items(partial) else { return };
        if num(mode) == 0.0 {
            for c in bytes.chunks_exact(8) {
                self.insert(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
            }
            return;
        }
        if self.registers.is_empty() {
            self.registers = vec![0; 1 << HLL_PRECISION];
            for h in std::mem::take(&mut self.exact) {
                self.insert_register(h);
            }
        }
        for (r, o) in self.registers.iter_mut().zip(bytes.iter()) {
            *r = (*r).max(*o);
        }
    }

    /// The estimated number of distinct hashes.
    pub fn count(&self) -> u64 {
        if self.registers.is_empty() {
            return self.exact.len() as u64;
        }
        let m = self.registers.len() as f64;
        let sum: f64 = self.registers.iter().map(|&r| 2f64.powi(-i32::from(r))).sum();
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let est = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        if est <= 2.5 * m && zeros > 0 {
            (m * (m / zeros as f64).ln()).round() as u64
        } else {
            est.round() as u64
        }
    }
}

struct CountDistinctish {
    slot: usize,
    hll: Hll,
}

impl Accumulator for CountDistinctish {
    fn add(&mut self, row: &Row) {
        match row.get(self.slot) {
            None | Some(Value::Null) => {}
            Some(v) => {
                self.hll.insert(FixedState.hash_one(ValueKey(v.clone())));
            }
        }
    }
    fn finish(&mut self) -> Value {
        Value::Number(self.hll.count() as f64)
    }
    fn partial(&mut self) -> Value {
        self.hll.partial()
    }
    fn merge(&mut self, partial: &Value) {
        self.hll.merge(partial)
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| CountDistinctish { slot, hll: Hll::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_then_approximate() {
        let mix = |i: u64| FixedState.hash_one(i);
        let mut hll = Hll::default();
        for i in 0..500 {
            hll.insert(mix(i));
            hll.insert(mix(i));
        }
        assert_eq!(hll.count(), 500);
        for i in 500..100_000 {
            hll.insert(mix(i));
        }
        let c = hll.count() as f64;
        assert!((c - 100_000.0).abs() / 100_000.0 < 0.05, "estimate {c}");
    }

    #[test]
    fn merged_partials_equal_one_sketch() {
        let mix = |i: u64| FixedState.hash_one(i);
        for (a, b) in [(300, 400), (300, 2000), (5000, 200), (3000, 9000)] {
            let (mut one, mut left, mut right) = (Hll::default(), Hll::default(), Hll::default());
            for i in 0..a {
                one.insert(mix(i));
                left.insert(mix(i));
            }
            for i in a / 2..a / 2 + b {
                one.insert(mix(i));
                right.insert(mix(i));
            }
            let mut node = Hll::default();
            node.merge(&left.partial());
            node.merge(&right.partial());
            assert_eq!(node.count(), one.count(), "{a} + {b}");
        }
    }
}
