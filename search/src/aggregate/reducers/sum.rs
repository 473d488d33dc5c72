//! `SUM 1 @p`: sum of the values that convert to numbers.

use super::{num, single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct Sum {
    slot: usize,
    total: f64,
}

impl Accumulator for Sum {
    fn add(&mut self, row: &Row) {
        if let Some(n) = row.get(self.slot).and_then(Value::to_number) {
            self.total += n;
        }
    }
    fn finish(&mut self) -> Value {
        Value::Number(self.total)
    }
    fn partial(&mut self) -> Value {
        Value::Number(self.total)
    }
    fn merge(&mut self, partial: &Value) {
        self.total += num(partial);
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| Sum { slot, total: 0.0 })
}
