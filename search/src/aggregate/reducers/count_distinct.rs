//! `COUNT_DISTINCT 1 @p`: exact number of distinct non-null values.

use crate::aggregate::hash::FxHashSet;

use super::{items, single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::{Value, ValueKey};

struct CountDistinct {
    slot: usize,
    seen: FxHashSet<ValueKey>,
}

impl Accumulator for CountDistinct {
    fn add(&mut self, row: &Row) {
        match row.get(self.slot) {
            None | Some(Value::Null) => {}
            Some(v) => {
                self.seen.insert(ValueKey(v.clone()));
            }
        }
    }
    fn finish(&mut self) -> Value {
        Value::Number(self.seen.len() as f64)
    }
    /// The distinct values.
    fn partial(&mut self) -> Value {
        Value::array(self.seen.drain().map(|k| k.0).collect())
    }
    fn merge(&mut self, partial: &Value) {
        for v in items(partial) {
            self.seen.insert(ValueKey(v.clone()));
        }
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| CountDistinct { slot, seen: FxHashSet::default() })
}
