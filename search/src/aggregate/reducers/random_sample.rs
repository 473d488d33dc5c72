//! `RANDOM_SAMPLE 2 @p n`: up to `n` values of the group by reservoir
//! sampling, with a generator seeded per query so results are reproducible.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::limits::MAX_SAMPLE_SIZE;
use crate::aggregate::rng::SplitMix64;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct RandomSample {
    slot: usize,
    size: usize,
    seed: u64,
    groups: AtomicU64,
}

impl Reducer for RandomSample {
    fn accumulator(&self) -> Box<dyn Accumulator> {
        let n = self.groups.fetch_add(1, Ordering::Relaxed);
        Box::new(Sample {
            slot: self.slot,
            size: self.size,
            seen: 0,
            rng: SplitMix64::new(self.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            samples: Vec::new(),
        })
    }
}

struct Sample {
    slot: usize,
    size: usize,
    seen: u64,
    rng: SplitMix64,
    samples: Vec<Value>,
}

impl Accumulator for Sample {
    fn add(&mut self, row: &Row) {
        let Some(v) = row.get(self.slot) else { return };
        if self.samples.len() < self.size {
            self.samples.push(v.clone());
        } else {
            let i = self.rng.below(self.seen + 1) as usize;
            if let Some(s) = self.samples.get_mut(i) {
                *s = v.clone();
            }
        }
        self.seen += 1;
    }
    fn finish(&mut self) -> Value {
        Value::array(std::mem::take(&mut self.samples))
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
    seed: u64,
) -> Result<Box<dyn Reducer>, AggError> {
    let slot = a.key(resolve)?;
    let size = a.unsigned("<sample size>")?;
    if size > MAX_SAMPLE_SIZE {
        return Err(AggError::new("Sample size too large"));
    }
    a.ensure_consumed()?;
    Ok(Box::new(RandomSample { slot, size: size as usize, seed, groups: AtomicU64::new(0) }))
}
