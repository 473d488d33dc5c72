//! `TOLIST 1 @p`: the distinct values of the group (array elements added
//! one by one), in first-seen order.

use crate::aggregate::hash::FxHashSet;

use super::{items, single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::{Value, ValueKey};

struct ToList {
    slot: usize,
    seen: FxHashSet<ValueKey>,
    order: Vec<Value>,
}

impl ToList {
    fn push(&mut self, v: &Value) {
        if self.seen.insert(ValueKey(v.clone())) {
            self.order.push(v.clone());
        }
    }
}

impl Accumulator for ToList {
    fn add(&mut self, row: &Row) {
        let Some(v) = row.get(self.slot).cloned() else {
            return;
        };
        match &v {
            Value::Array(items) => items.iter().for_each(|x| self.push(x)),
            other => self.push(other),
        }
    }
    fn finish(&mut self) -> Value {
        Value::array(std::mem::take(&mut self.order))
    }
    /// The distinct values, in first-seen order.
    fn partial(&mut self) -> Value {
        self.finish()
    }
    fn merge(&mut self, partial: &Value) {
        items(partial).iter().for_each(|v| self.push(v));
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| ToList { slot, seen: FxHashSet::default(), order: Vec::new() })
}
