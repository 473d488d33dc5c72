//! FT.PROFILE's numeric filters as RediSearch 2.10 shows them: a filter reads the ranges of
//! the field's range tree it reaches (`NumericRangeTree_Find`), one range as a `NUMERIC`
//! reader whose `Term` is the range's bounds and `Size` its documents, several as a `UNION`
//! of `Query type` `NUMERIC` of such readers, none as `EMPTY`. The ranges come from the tree
//! model ([`crate::index::numeric_tree`], built on first use); the filter's own counter stays
//! folio's, a range's is what its reader would return read through: the documents whose
//! entries in it pass the filter (all of them when the range lies inside the filter).

use std::time::Duration;

use crate::index::numeric_tree::range::Range;
use crate::index::{FieldIndex, Index};
use crate::query::profile::{g, ProfileNode};
use crate::query::syntax::NumBound;

/// Rewrites the numeric filters under `node` as the ranges they read.
pub(crate) fn expand(node: &mut ProfileNode, idx: &Index) {
    for c in &mut node.children {
        expand(c, idx);
    }
    if let Some(probe) = node.geo.take() {
        expand_geo(node, idx, *probe);
        return;
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
    let readers: Vec<ProfileNode> = idx.with_numeric_tree(pos, |t| {
        t.find(lo.value, hi.value)
            .into_iter()
            .map(|r| leaf("NUMERIC", term(r), matching_docs(r, lo, hi), u64::from(r.entries.num_docs)))
            .collect()
    });
    read_as(node, "NUMERIC", readers);
}

/// Makes `node` (a filter) the readers it reads ([`readers_node`]; none: `EMPTY`). The
/// filter's own counter, time and documents stay.
fn read_as(node: &mut ProfileNode, kind: &str, parts: Vec<ProfileNode>) {
    let Some(part) = readers_node(kind, parts) else {
        node.kind = "EMPTY";
        node.label = None;
        return;
    };
    node.kind = part.kind;
    node.label = part.label;
    node.size = part.size;
    node.ids = part.ids;
    node.children = part.children;
    node.quick = part.quick;
}

/// Readers as RediSearch joins them: none is no iterator, one stands alone, several are a
/// `UNION` of `Query type` `kind`.
fn readers_node(kind: &str, mut parts: Vec<ProfileNode>) -> Option<ProfileNode> {
    match parts.len() {
        0 | 1 => parts.pop(),
        _ => Some(union(kind, parts)),
    }
}

/// A radius filter as RediSearch 2.10 reads it (`NewGeoRangeIterator`): per geohash box, the
/// ranges of the field's tree the box reaches, one as a `GEO` reader (its `Term` the points
/// of the range's bounds, `%g,%g - %g,%g`), several as a `UNION` of `Query type` `GEO`; the
/// boxes that reach any, one alone or several under another such union. A reader returns
/// the documents of its range within the radius (it checks the distance only, not the box).
fn expand_geo(node: &mut ProfileNode, idx: &Index, (field, lon, lat, radius): (String, f64, f64, f64)) {
    use crate::index::numeric_tree::geo_ranges::{decode_point, radius_ranges, within};
    if !matches!(node.kind, "GEO" | "EMPTY")
        || radius <= 0.0
        || !(-180.0..=180.0).contains(&lon)
        || !(-85.05112878..=85.05112878).contains(&lat)
    {
        return;
    }
    let Some((pos, _)) = idx.spec.field(&field) else { return };
    if !matches!(idx.fields.get(pos), Some(FieldIndex::Geo(_))) {
        return;
    }
    let reader = |r: &Range| {
        let (se, nw) = (decode_point(r.min), decode_point(r.max));
        let mut ids: Vec<u32> = Vec::new();
        for &(doc, v) in r.entries.entries() {
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            if within(lon, lat, radius, v) && ids.last() != Some(&doc) {
                ids.push(doc);
            }
        }
        let label = format!("{},{} - {},{}", g(se.0), g(se.1), g(nw.0), g(nw.1));
        leaf("GEO", label, ids, u64::from(r.entries.num_docs))
    };
    let boxes = idx.with_numeric_tree(pos, |t| {
        radius_ranges(lon, lat, radius)
            .into_iter()
            .filter_map(|(min, max)| readers_node("GEO", t.find(min, max).into_iter().map(reader).collect()))
            .collect()
    });
    read_as(node, "GEO", boxes);
}

/// A reader node whose counter the replay takes from `ids`.
fn leaf(kind: &'static str, label: String, ids: Vec<u32>, size: u64) -> ProfileNode {
    ProfileNode {
        kind,
        label: Some(label),
        counter: ids.len() as u64,
        time: Duration::ZERO,
        children: Vec::new(),
        size,
        docs: Default::default(),
        quick: false,
        numeric: None,
        geo: None,
        ids: Some(ids),
    }
}

/// A union of ranges (`Query type` `label`), which stops at the first child holding a
/// document.
fn union(label: &str, children: Vec<ProfileNode>) -> ProfileNode {
    let counter = children.iter().map(|c| c.counter).sum();
    ProfileNode {
        kind: "UNION",
        label: Some(label.into()),
        counter,
        time: Duration::ZERO,
        size: counter,
        children,
        docs: Default::default(),
        quick: true,
        numeric: None,
        geo: None,
        ids: None,
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

/// The documents a reader of `r` returns for the filter, as RediSearch ids in reading order:
/// a document once, on its first entry that passes (every entry passes when both of the
/// range's bounds do).
fn matching_docs(r: &Range, lo: NumBound, hi: NumBound) -> Vec<u32> {
    let all = matches(r.min, lo, hi) && matches(r.max, lo, hi);
    let mut out: Vec<u32> = Vec::new();
    for &(doc, v) in r.entries.entries() {
        let doc = u32::try_from(doc).unwrap_or(u32::MAX);
        if (all || matches(v, lo, hi)) && out.last() != Some(&doc) {
            out.push(doc);
        }
    }
    out
}
