//! SORTBY over a SORTABLE NUMERIC field that every match holds (the common `SORTBY price`):
//! each match's number read from the sort columns once and ordered as an integer, where the
//! general path builds a [`Key`](super::sort_keys::Key) per match and compares them as enums.
//! The order is the general path's to the bit: RediSearch's number order
//! ([`score_order`](crate::query::score::score_order): NaN as +infinity, -0 equal to 0), ties
//! in RediSearch document order, the whole reversed for DESC.

use crate::index::Index;

/// A match and where it sorts.
pub(super) struct NumRow {
    /// The number's place in the order (ascending; DESC inverted).
    place: u64,
    /// The tie-break: the RediSearch document id (DESC inverted).
    tie: u64,
    /// The document.
    pub(super) doc: u32,
    /// Its number.
    pub(super) number: f64,
}

/// The place of `n` among numbers: an integer whose order is `score_order`'s.
fn place(n: f64) -> u64 {
    let n = if n.is_nan() {
        f64::INFINITY
    } else if n == 0.0 {
        0.0
    } else {
        n
    };
    let bits = n.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The rows of `docs` for the sort column `field`, or None when a match has no number there
/// (the general path then decides, as it decides strings and missing values). `stop(n)` is
/// asked before the n-th match: when it says so, the rows so far come back with `true`.
pub(super) fn rows(
    idx: &Index,
    docs: impl Iterator<Item = u32>,
    field: u16,
    asc: bool,
    mut stop: impl FnMut(usize) -> bool,
) -> Option<(Vec<NumRow>, bool)> {
    let flip = if asc { 0 } else { u64::MAX };
    let mut out = Vec::with_capacity(docs.size_hint().0);
    for (n, doc) in docs.enumerate() {
        if stop(n) {
            return Some((out, true));
        }
        let number = idx.docs.sort_number(doc, field)?;
        out.push(NumRow {
            place: place(number) ^ flip,
            tie: idx.docs.redisearch_id(doc) ^ flip,
            doc,
            number,
        });
    }
    Some((out, false))
}

/// Keeps the first `want` rows, in order.
pub(super) fn first(rows: &mut Vec<NumRow>, want: usize) {
    let key = |r: &NumRow| (r.place, r.tie);
    if rows.len() > want && want > 0 {
        rows.select_nth_unstable_by_key(want - 1, key);
    }
    rows.truncate(want);
    rows.sort_unstable_by_key(key);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::score::score_order;

    #[test]
    fn places_order_as_score_order() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            2.5,
            1e300,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(place(a).cmp(&place(b)), score_order(a, b), "{a} {b}");
            }
        }
    }
}
