//! `MIN 1 @p` and `MAX 1 @p`: the smallest or largest numeric value; 0 when there is none (an
//! infinite result also prints as 0, as RediSearch's `minmax.c` does).

use super::{single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

/// The extreme value seen so far, by `pick` (`f64::min` or `f64::max`).
struct Extreme {
    slot: usize,
    best: f64,
    pick: fn(f64, f64) -> f64,
}

impl Accumulator for Extreme {
    fn add(&mut self, row: &Row) {
        if let Some(n) = row.get(self.slot).and_then(Value::to_number) {
            self.best = (self.pick)(self.best, n);
        }
    }
    fn finish(&mut self) -> Value {
        Value::Number(if self.best.is_infinite() { 0.0 } else { self.best })
    }
    /// The extreme itself, infinite when there was none (the wire keeps a double's bits).
    fn partial(&mut self) -> Value {
        Value::Number(self.best)
    }
    fn merge(&mut self, partial: &Value) {
        if let Value::Number(n) = partial {
            self.best = (self.pick)(self.best, *n);
        }
    }
}

/// `MIN`.
pub(super) fn build_min(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| Extreme { slot, best: f64::INFINITY, pick: f64::min })
}

/// `MAX`.
pub(super) fn build_max(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| Extreme { slot, best: f64::NEG_INFINITY, pick: f64::max })
}
