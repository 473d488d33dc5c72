//! `FIRST_VALUE n @p [BY @q [ASC|DESC]]`: the first value of `@p` in the
//! group, or the one whose `@q` sorts first (ASC by default); a row with a
//! `@q` value beats one without, ties keep the earlier row; NULL if none.
//!
//! Split over shards there is no "earlier row" across shards: the split accumulator keeps,
//! among tied candidates (every row without BY), the one of the smallest document key, and
//! its partial is `[value, sort value, key]` (empty when none).

use std::cmp::Ordering;
use std::sync::Arc;

use super::{items, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

/// The reducer: `@p`'s slot and BY's slot and direction.
struct FirstValueReducer {
    slot: usize,
    by: Option<(usize, bool)>,
}

impl Reducer for FirstValueReducer {
    fn accumulator(&self) -> Box<dyn Accumulator> {
        Box::new(FirstValue { slot: self.slot, by: self.by, split: false, best: None })
    }
    fn split_accumulator(&self) -> Box<dyn Accumulator> {
        Box::new(FirstValue { slot: self.slot, by: self.by, split: true, best: None })
    }
}

/// A candidate: the value, its BY value (NULL without one) and its document key.
type Candidate = (Value, Value, Option<Arc<[u8]>>);

struct FirstValue {
    slot: usize,
    by: Option<(usize, bool)>,
    /// Ties go to the smallest document key rather than the earlier row.
    split: bool,
    best: Option<Candidate>,
}

impl FirstValue {
    /// Whether `(key, doc)` beats the current candidate.
    fn better(&self, key: &Value, doc: Option<&[u8]>) -> bool {
        let Some((_, cur, cur_doc)) = &self.best else { return true };
        let ord = match self.by {
            None => Ordering::Equal,
            Some((_, asc)) => match (cur.is_null(), key.is_null()) {
                (_, true) if !cur.is_null() => Ordering::Greater,
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Less,
                _ => {
                    let o = key.sort_cmp(cur);
                    if asc {
                        o
                    } else {
                        o.reverse()
                    }
                }
            },
        };
        match ord {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => self.split && doc < cur_doc.as_deref(),
        }
    }

    fn offer(&mut self, v: &Value, key: Value, doc: Option<Arc<[u8]>>) {
        if self.better(&key, doc.as_deref()) {
            self.best = Some((v.clone(), key, doc));
        }
    }
}

impl Accumulator for FirstValue {
    fn add(&mut self, row: &Row) {
        let Some(v) = row.get(self.slot) else { return };
        let key = match self.by {
            Some((by, _)) => row.get(by).cloned().unwrap_or(Value::Null),
            None => Value::Null,
        };
        self.offer(v, key, row.key.clone());
    }
    fn finish(&mut self) -> Value {
        self.best.take().map_or(Value::Null, |(v, _, _)| v)
    }
    fn partial(&mut self) -> Value {
        match self.best.take() {
            None => Value::array(Vec::new()),
            Some((v, key, doc)) => {
                let doc = doc.map_or(Value::Null, |d| Value::bytes(&d));
                Value::array(vec![v, key, doc])
            }
        }
    }
    fn merge(&mut self, partial: &Value) {
        if let [v, key, doc] = items(partial) {
            let doc = match doc {
                Value::String(d) => Some(d.clone()),
                _ => None,
            };
            self.offer(v, key.clone(), doc);
        }
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
    Ok(Box::new(FirstValueReducer { slot, by }))
}
