//! `AVG 1 @p`: sum of numeric values divided by the number of rows in the
//! group (rows without a numeric value count, as in RediSearch's `sum.c`).

use super::{items, num, single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct Avg {
    slot: usize,
    total: f64,
    rows: u64,
}

impl Accumulator for Avg {
    fn add(&mut self, row: &Row) {
        self.rows += 1;
        if let Some(n) = row.get(self.slot).and_then(Value::to_number) {
            self.total += n;
        }
    }
    fn finish(&mut self) -> Value {
        Value::Number(if self.rows == 0 { 0.0 } else { self.total / self.rows as f64 })
    }
    /// `[sum, rows]`.
    fn partial(&mut self) -> Value {
        Value::array(vec![Value::Number(self.total), Value::Number(self.rows as f64)])
    }
    fn merge(&mut self, partial: &Value) {
        if let [total, rows] = items(partial) {
            self.total += num(total);
            self.rows += num(rows) as u64;
        }
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| Avg { slot, total: 0.0, rows: 0 })
}
