//! `FIRST_VALUE n @p [BY @q [ASC|DESC]]`: the first value of `@p` in the
//! group, or the one whose `@q` sorts first (ASC by default); a row with a
//! `@q` value beats one without, ties keep the earlier row; NULL if none.

use std::cmp::Ordering;

use super::{Accumulator, FnReducer, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct FirstValue {
    slot: usize,
    by: Option<(usize, bool)>,
    best: Option<(Value, Value)>,
}

impl Accumulator for FirstValue {
    fn add(&mut self, row: &Row) {
        let Some(v) = row.get(self.slot) else { return };
        let Some((by, asc)) = self.by else {
            if self.best.is_none() {
                self.best = Some((v.clone(), Value::Null));
            }
            return;
        };
        let key = row.get(by).cloned().unwrap_or(Value::Null);
        let better = match &self.best {
            None => true,
            Some((_, cur)) => match (cur.is_null(), key.is_null()) {
                (_, true) => false,
                (true, false) => true,
                (false, false) => {
                    let ord = key.sort_cmp(cur);
                    if asc {
                        ord == Ordering::Less
                    } else {
                        ord == Ordering::Greater
                    }
                }
            },
        };
        if better {
            self.best = Some((v.clone(), key));
        }
    }
    fn finish(&mut self) -> Value {
        self.best.take().map_or(Value::Null, |(v, _)| v)
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    let slot = a.key(resolve)?;
    let mut by = None;
    if a.advance_if("BY") {
        let key = a.key(resolve)?;
        let asc = if a.advance_if("ASC") { true } else { !a.advance_if("DESC") };
        by = Some((key, asc));
    }
    a.ensure_consumed()?;
    Ok(Box::new(FnReducer(move || Box::new(FirstValue { slot, by, best: None }) as Box<dyn Accumulator>)))
}
