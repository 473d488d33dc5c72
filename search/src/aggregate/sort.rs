//! SORTBY: ordering rows by several properties.
//!
//! Contract: missing values sort last whatever the direction; values compare
//! by RediSearch's `RSValue_Cmp` rules (`Value::sort_cmp`); ties between
//! documents go by document order (the order they were read in, RediSearch's
//! ids), reversed when the last key is descending, as RediSearch's sorter
//! (`cmpByFields`); other ties keep input order; only the first `limit` rows
//! are kept.

use std::cmp::Ordering;

use super::row::Row;

/// SORTBY: missing values last whatever the direction; ties between documents
/// in document order (reversed when the last key is descending), others in
/// input order. Only the first `limit` rows are kept, so a small limit
/// selects them in linear time before sorting just those.
pub(super) fn sort_rows(rows: Vec<Row>, keys: &[(usize, bool)], limit: u64) -> Vec<Row> {
    let cmp_rows = |a: &Row, b: &Row| {
        for &(slot, asc) in keys {
            let ord = match (a.get(slot), b.get(slot)) {
                (None, None) => Ordering::Equal,
                (Some(_), None) => return Ordering::Less,
                (None, Some(_)) => return Ordering::Greater,
                (Some(x), Some(y)) => {
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
        return Vec::new();
    }
    if limit < indexed.len() {
        indexed.select_nth_unstable_by(limit - 1, cmp);
        indexed.truncate(limit);
    }
    indexed.sort_unstable_by(cmp);
    indexed.into_iter().map(|(_, r)| r).collect()
}
