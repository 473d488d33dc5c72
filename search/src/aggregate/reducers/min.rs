//! `MIN 1 @p`: the smallest numeric value; 0 when there is none (an
//! infinite result also prints as 0, as RediSearch's `minmax.c` does).

use super::{single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct Min {
    slot: usize,
    best: f64,
}

impl Accumulator for Min {
    fn add(&mut self, row: &Row) {
        if let Some(n) = row.get(self.slot).and_then(Value::to_number) {
            self.best = self.best.min(n);
        }
    }
    fn finish(&mut self) -> Value {
        Value::Number(if self.best.is_infinite() {
            0.0
        } else {
            self.best
        })
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| Min {
        slot,
        best: f64::INFINITY,
    })
}
