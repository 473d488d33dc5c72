//! `TOLIST 1 @p`: the distinct values of the group (array elements added
//! one by one), in RediSearch's order ([`super::dict_order`]).

use crate::aggregate::hash::FxHashSet;

use super::dict_order::{tolist_order, Add};
use super::{items, single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::{Value, ValueKey};

struct ToList {
    slot: usize,
    seen: FxHashSet<ValueKey>,
    /// The distinct values, in first-seen order.
    order: Vec<Value>,
    /// Every add, in order (RediSearch's `dictAdd` calls, which place its values).
    adds: Vec<Add>,
}

impl ToList {
    fn push(&mut self, v: &Value) {
        if self.seen.insert(ValueKey(v.clone())) {
            self.adds.push(Add::New(self.order.len()));
            self.order.push(v.clone());
        } else {
            self.adds.push(Add::Again);
        }
    }

    /// The distinct values in first-seen order, reset.
    fn take(&mut self) -> Vec<Value> {
        self.adds.clear();
        std::mem::take(&mut self.order)
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
        let at = tolist_order(&self.order, &self.adds);
        let mut values: Vec<Option<Value>> = self.take().into_iter().map(Some).collect();
        Value::array(at.into_iter().filter_map(|i| values.get_mut(i)?.take()).collect())
    }
    /// The distinct values, in first-seen order.
    fn partial(&mut self) -> Value {
        Value::array(self.take())
    }
    fn merge(&mut self, partial: &Value) {
        items(partial).iter().for_each(|v| self.push(v));
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| ToList {
        slot,
        seen: FxHashSet::default(),
        order: Vec::new(),
        adds: Vec::new(),
    })
}
