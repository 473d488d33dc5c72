//! `RANDOM_SAMPLE 2 @p n`: up to `n` values of the group by reservoir
//! sampling, with a generator seeded per query so results are reproducible.
//!
//! Split over shards, a shard's partial is `[values seen, its sample]`; the node draws its
//! sample from the shards' samples, each draw from a shard with probability proportional to
//! the values that shard saw and has not given yet, so every value of the group is equally
//! likely to be drawn (a single server's distribution; not its draws).

use std::sync::atomic::{AtomicU64, Ordering};

use super::{items, num, Accumulator, KeyResolver, Reducer, ReducerArgs};
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
            parts: Vec::new(),
        })
    }
}

struct Sample {
    slot: usize,
    size: usize,
    seen: u64,
    rng: SplitMix64,
    samples: Vec<Value>,
    /// Shards' partials to draw from: (values seen and not given yet, sample).
    parts: Vec<(u64, Vec<Value>)>,
}

impl Sample {
    /// Draws the sample from the merged partials.
    fn draw(&mut self) {
        let mut parts = std::mem::take(&mut self.parts);
        parts.push((self.seen, std::mem::take(&mut self.samples)));
        loop {
            let left: u64 = parts.iter().filter(|(_, s)| !s.is_empty()).map(|(n, _)| *n).sum();
            if self.samples.len() >= self.size || left == 0 {
                break;
            }
            let mut r = self.rng.below(left);
            let Some((n, s)) = parts.iter_mut().filter(|(_, s)| !s.is_empty()).find(|(n, _)| {
                let hit = r < *n;
                r = r.saturating_sub(*n);
                hit
            }) else {
                break;
            };
            let i = self.rng.below(s.len() as u64) as usize;
            self.samples.push(s.swap_remove(i));
            *n = n.saturating_sub(1);
            if *n == 0 {
                s.clear();
            }
        }
    }
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
        if !self.parts.is_empty() {
            self.draw();
        }
        Value::array(std::mem::take(&mut self.samples))
    }
    fn partial(&mut self) -> Value {
        let samples = Value::array(std::mem::take(&mut self.samples));
        Value::array(vec![Value::Number(self.seen as f64), samples])
    }
    fn merge(&mut self, partial: &Value) {
        if let [seen, samples] = items(partial) {
            self.parts.push((num(seen) as u64, items(samples).to_vec()));
        }
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
