//! The order TOLIST's values come out in: RediSearch's.
//!
//! RediSearch's TOLIST keeps a group's values in a `dict` (`src/util/dict.c`, Redis's chained
//! hash table with incremental rehashing) keyed by `RSValue_Hash` from 0, and lists them in
//! the dict's iteration order (`tolistFinalize`). That order is a function of the sequence of
//! `dictAdd` calls alone, duplicates included (each call first moves one bucket of a rehash
//! in progress and may start one), so folio replays the same calls on the same tables.

use super::super::group_order::value_hash;
use crate::aggregate::value::Value;

/// One `dictAdd` of a TOLIST: a value new to the group, or one it already holds.
#[derive(Clone, Copy)]
pub(super) enum Add {
    /// The `n`th distinct value.
    New(usize),
    /// A value the group holds already.
    Again,
}

/// `dict`'s two tables of chains (each chain head first) and its rehash position.
struct Dict {
    tables: [Vec<Vec<usize>>; 2],
    used: [usize; 2],
    rehash: Option<usize>,
}

const INITIAL_SIZE: usize = 4;

impl Dict {
    fn rehashing(&self) -> bool {
        self.rehash.is_some()
    }

    /// `dictRehash(d, 1)`: moves one bucket (visiting at most 10 empty ones).
    fn rehash_step(&mut self, hashes: &[u64]) {
        let Some(mut at) = self.rehash else { return };
        let mut empty_visits = 10;
        if self.used[0] != 0 {
            while self.tables[0][at].is_empty() {
                at += 1;
                empty_visits -= 1;
                if empty_visits == 0 {
                    self.rehash = Some(at);
                    return;
                }
            }
            let chain = std::mem::take(&mut self.tables[0][at]);
            let mask = self.tables[1].len() - 1;
            for v in chain {
                self.tables[1][hashes[v] as usize & mask].insert(0, v);
                self.used[0] -= 1;
                self.used[1] += 1;
            }
            at += 1;
        }
        self.rehash = Some(at);
        if self.used[0] == 0 {
            self.tables[0] = std::mem::take(&mut self.tables[1]);
            self.used = [self.used[1], 0];
            self.rehash = None;
        }
    }

    /// `_dictExpandIfNeeded`.
    fn expand_if_needed(&mut self) {
        if self.rehashing() {
            return;
        }
        let (size, used) = (self.tables[0].len(), self.used[0]);
        if size == 0 {
            self.tables[0] = vec![Vec::new(); INITIAL_SIZE];
        } else if used >= size {
            let real = (used * 2).next_power_of_two().max(INITIAL_SIZE);
            if real != size {
                self.tables[1] = vec![Vec::new(); real];
                self.rehash = Some(0);
            }
        }
    }

    fn insert(&mut self, v: usize, hash: u64) {
        let t = usize::from(self.rehashing());
        let mask = self.tables[t].len() - 1;
        self.tables[t][hash as usize & mask].insert(0, v);
        self.used[t] += 1;
    }
}

/// The positions of `values` (distinct) in the order RediSearch's TOLIST lists them, given
/// its `dictAdd` calls in order (`adds`).
pub(super) fn tolist_order(values: &[Value], adds: &[Add]) -> Vec<usize> {
    let hashes: Vec<u64> = values.iter().map(|v| value_hash(v, 0)).collect();
    let mut d = Dict { tables: [Vec::new(), Vec::new()], used: [0, 0], rehash: None };
    for add in adds {
        if d.rehashing() {
            d.rehash_step(&hashes);
        }
        d.expand_if_needed();
        if let Add::New(v) = *add {
            d.insert(v, hashes[v]);
        }
    }
    // `dictNext`: table 0's buckets, then table 1's while rehashing.
    d.tables.iter().flatten().flatten().copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_once() {
        let values: Vec<Value> = (0..100).map(|i| Value::str(&format!("v{i}"))).collect();
        let mut adds: Vec<Add> = (0..100).map(Add::New).collect();
        adds.insert(50, Add::Again);
        let mut order = tolist_order(&values, &adds);
        order.sort_unstable();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }
}
