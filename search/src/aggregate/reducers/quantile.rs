//! `QUANTILE 2 @p q [resolution]`: the value at rank ⌈q·n⌉ (1-based,
//! at least 1) of the numeric values, each array element counting; 0 when
//! there is none. RediSearch answers from an approximate stream; this is
//! exact (the rank rule is the one its stream applies when it is exact).

use super::{for_each_number, items, num, Accumulator, FnReducer, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::limits::MAX_SAMPLE_SIZE;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct Quantile {
    slot: usize,
    q: f64,
    values: Vec<f64>,
}

impl Accumulator for Quantile {
    fn add(&mut self, row: &Row) {
        if let Some(v) = row.get(self.slot) {
            for_each_number(v, |d| self.values.push(d));
        }
    }
    fn finish(&mut self) -> Value {
        if self.values.is_empty() {
            return Value::Number(0.0);
        }
        self.values.sort_by(f64::total_cmp);
        let n = self.values.len();
        let rank = ((self.q * n as f64).ceil() as usize).clamp(1, n);
        Value::Number(self.values[rank - 1])
    }
    /// Every value.
    fn partial(&mut self) -> Value {
        Value::array(std::mem::take(&mut self.values).into_iter().map(Value::Number).collect())
    }
    fn merge(&mut self, partial: &Value) {
        self.values.extend(items(partial).iter().map(num));
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    let slot = a.key(resolve)?;
    let name = a.name.to_string();
    let q = a.double(&name)?;
    if !(0.0..=1.0).contains(&q) {
        return Err(AggError::new("Percentage must be between 0.0 and 1.0"));
    }
    if !a.at_end() {
        let res = a.unsigned("<resolution>")?;
        if !(1..=MAX_SAMPLE_SIZE).contains(&res) {
            return Err(AggError::new("Invalid resolution"));
        }
    }
    a.ensure_consumed()?;
    Ok(Box::new(FnReducer(move || {
        Box::new(Quantile { slot, q, values: Vec::new() }) as Box<dyn Accumulator>
    })))
}
