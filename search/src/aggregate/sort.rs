//! SORTBY: ordering rows by several properties.
//!
//! Contract: missing values sort last whatever the direction; values compare
//! by RediSearch's `RSValue_Cmp` rules (`Value::sort_cmp`); ties between
//! documents go by document order (the order they were read in, RediSearch's
//! ids), reversed when the last key is descending, as RediSearch's sorter
//! (`cmpByFields`); other ties keep input order; only the first `limit` rows
//! are kept. A number compared with a value that is not one fails the sort, as
//! `RSValue_Cmp` fails RediSearch's (`Error converting string 'abc' to number`).

use std::cell::Cell;
use std::cmp::Ordering;

use super::error::AggError;
use super::row::Row;
use super::value::Value;

/// SORTBY: missing values last whatever the direction; ties between documents
/// in document order (reversed when the last key is descending), others in
/// input order. Only the first `limit` rows are kept, so a small limit
/// selects them in linear time before sorting just those.
pub(super) fn sort_rows(rows: Vec<Row>, keys: &[(usize, bool)], limit: u64) -> (Vec<Row>, Option<AggError>) {
    // The first key whose comparison met a number and a value that is not one.
    let failed: Cell<Option<usize>> = Cell::new(None);
    let cmp_rows = |a: &Row, b: &Row| {
        for &(slot, asc) in keys {
            let ord = match (a.get(slot), b.get(slot)) {
                (None, None) => Ordering::Equal,
                (Some(_), None) => return Ordering::Less,
                (None, Some(_)) => return Ordering::Greater,
                (Some(x), Some(y)) => {
                    if failed.get().is_none() && not_a_number_against_one(x, y) {
                        failed.set(Some(slot));
                    }
                    let o = x.sort_cmp(y);
                    if asc {
                        o
                    } else {
                        o.reverse()
                    }
                }
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        Ordering::Equal
    };
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut indexed: Vec<(usize, Row)> = rows.into_iter().enumerate().collect();
    let last_asc = keys.last().is_none_or(|k| k.1);
    // A document row's place in document order (`seq`, from 1); 0 for a group's.
    let tie = |a: &(usize, Row), b: &(usize, Row)| match (a.1.seq, b.1.seq) {
        (x, y) if x > 0 && y > 0 && x != y => {
            if last_asc {
                x.cmp(&y)
            } else {
                y.cmp(&x)
            }
        }
        _ => a.0.cmp(&b.0),
    };
    let cmp = |a: &(usize, Row), b: &(usize, Row)| cmp_rows(&a.1, &b.1).then_with(|| tie(a, b));
    if limit == 0 {
        return (Vec::new(), None);
    }
    if limit < indexed.len() {
        indexed.select_nth_unstable_by(limit - 1, cmp);
    }
    if let Some(slot) = failed.get() {
        return (Vec::new(), conversion_error(&indexed, slot));
    }
    indexed.truncate(limit);
    indexed.sort_unstable_by(cmp);
    if let Some(slot) = failed.get() {
        return (Vec::new(), conversion_error(&indexed, slot));
    }
    (indexed.into_iter().map(|(_, r)| r).collect(), None)
}

/// Whether `RSValue_Cmp` fails on `x` and `y`: one is a number and the other a value that
/// does not convert to one (RediSearch's sorter then stops the query with the error).
fn not_a_number_against_one(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Number(_), Value::Number(_)) => false,
        (Value::Number(_), o) | (o, Value::Number(_)) => !o.is_null() && o.to_number().is_none(),
        _ => false,
    }
}

/// RediSearch's sorter error: `Error converting string '[3,1]' to number`. RediSearch names
/// the value of the first failing comparison its heap made; this names the first such value in
/// input (document) order, which is the same for an ascending sort of a few rows.
fn conversion_error(rows: &[(usize, Row)], slot: usize) -> Option<AggError> {
    let (_, v) = rows
        .iter()
        .filter_map(|(i, r)| Some((*i, r.get(slot)?)))
        .filter(|(_, v)| !v.is_null() && !matches!(v, Value::Number(_)) && v.to_number().is_none())
        .min_by_key(|(i, _)| *i)?;
    Some(AggError::new(format!(
        "Error converting string '{}' to number",
        String::from_utf8_lossy(&v.to_text())
    )))
}
