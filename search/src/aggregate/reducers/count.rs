//! `COUNT 0`: rows in the group.

use super::{num, Accumulator, FnReducer, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct Count(u64);

impl Accumulator for Count {
    fn add(&mut self, _row: &Row) {
        self.0 += 1;
    }
    fn finish(&mut self) -> Value {
        Value::Number(self.0 as f64)
    }
    fn partial(&mut self) -> Value {
        Value::Number(self.0 as f64)
    }
    fn merge(&mut self, partial: &Value) {
        self.0 += num(partial) as u64;
    }
}

pub(super) fn build(a: &mut ReducerArgs<'_>) -> Result<Box<dyn Reducer>, AggError> {
    if !a.at_end() {
        return Err(AggError::new("Count accepts 0 values only"));
    }
    Ok(Box::new(FnReducer(|| Box::new(Count(0)) as Box<dyn Accumulator>)))
}
