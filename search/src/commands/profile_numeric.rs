//! FT.PROFILE's numeric filters as RediSearch 2.10 shows them: a filter reads the ranges of
//! the field's range tree it reaches (`NumericRangeTree_Find`), one range as a `NUMERIC`
//! reader whose `Term` is the range's bounds and `Size` its documents, several as a `UNION`
//! of `Query type` `NUMERIC` of such readers, none as `EMPTY`. The ranges come from the tree
//! model ([`crate::index::numeric_tree`], built on first use); the filter's own counter stays
//! folio's, a range's is what its reader would return read through: the documents whose
//! entries in it pass the filter (all of them when the range lies inside the filter).

use std::time::Duration;

use super::debug_numeric::with_tree;
use crate::index::numeric_tree::range::Range;
use crate::index::{FieldIndex, Index};
use crate::query::profile::{g, ProfileNode};
use crate::query::syntax::NumBound;

/// Rewrites the numeric filters under `node` as the ranges they read.
pub(crate) fn expand(node: &mut ProfileNode, idx: &Index) {
    for c in &mut node.children {
        expand(c, idx);
    }
    let Some(probe) = node.numeric.take() else { return };
    let (field, lo, hi) = *probe;
    if !matches!(node.kind, "NUMERIC" | "EMPTY") {
        return;
    }
    let Some((pos, _)) = idx.spec.field(&field) else { return };
    if !matches!(idx.fields.get(pos), Some(FieldIndex::Numeric(_))) {
        return;
    }
    let ranges: Vec<(String, u64, u64)> = with_tree(idx, pos, |t| {
        t.find(lo.value, hi.value)
            .into_iter()
            .map(|r| (term(r), matching_docs(r, lo, hi), u64::from(r.entries.num_docs)))
            .collect()
    });
    match ranges.as_slice() {
        [] => {
            node.kind = "EMPTY";
            node.label = None;
        }
        [(label, _, size)] => {
            node.kind = "NUMERIC";
            node.label = Some(label.clone());
            node.size = Some(*size);
        }
        _ => {
            node.kind = "UNION";
            node.label = Some("NUMERIC".into());
            node.children = ranges
                .into_iter()
                .map(|(label, counter, size)| ProfileNode {
                    kind: "NUMERIC",
                    label: Some(label),
                    counter,
                    time: Duration::ZERO,
                    children: Vec::new(),
                    size: Some(size),
                    numeric: None,
                })
                .collect();
        }
    }
}

/// A range's `Term`: its bounds as `%g - %g`.
fn term(r: &Range) -> String {
    format!("{} - {}", g(r.min), g(r.max))
}

/// `NumericFilter_Match`.
fn matches(v: f64, lo: NumBound, hi: NumBound) -> bool {
    (if lo.inclusive { v >= lo.value } else { v > lo.value })
        && (if hi.inclusive { v <= hi.value } else { v < hi.value })
}

/// The documents a reader of `r` returns for the filter: a document once, on its first
/// entry that passes (every entry passes when both of the range's bounds do).
fn matching_docs(r: &Range, lo: NumBound, hi: NumBound) -> u64 {
    let all = matches(r.min, lo, hi) && matches(r.max, lo, hi);
    let mut last = None;
    let mut n = 0;
    for &(doc, v) in r.entries.entries() {
        if (all || matches(v, lo, hi)) && last != Some(doc) {
            last = Some(doc);
            n += 1;
        }
    }
    n
}

/// `_PRIORITIZE_INTERSECT_UNION_CHILDREN`: an intersection reads a union child as if it had
/// its estimate times its number of children (RediSearch's `cmpIter`).
pub(crate) fn prioritize_unions(node: &mut ProfileNode) {
    for c in &mut node.children {
        prioritize_unions(c);
    }
    if node.kind == "INTERSECT" {
        let weight = |n: &ProfileNode| {
            let e = crate::query::profile::estimate(n);
            if n.kind == "UNION" {
                e.saturating_mul(n.children.len().max(1) as u64)
            } else {
                e
            }
        };
        node.children.sort_by_key(weight);
    }
}
