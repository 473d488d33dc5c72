//! Vector clauses of the query language: KNN (`filter=>[KNN k @v $blob …]`) and range
//! (`@v:[VECTOR_RANGE r $blob]`), parsed by [`crate::query::syntax`] into [`KnnClause`] and
//! [`RangeClause`] (re-exported here), their attributes checked and evaluated against a
//! field's [`VectorIndex`]. The query blob is read raw from PARAMS (it is binary) and must
//! be exactly DIM × element-size bytes.

use std::collections::HashMap;

use roaring::RoaringBitmap;

use crate::aggregate::value::{format_g, format_number};
use crate::error::{Error, Result};
use crate::index::vector::{Hit, KnnParams, Policy, VectorIndex};
use crate::index::{FieldIndex, Index};
pub use crate::query::syntax::{KnnClause, RangeClause};
use crate::vector_spec::{VectorAlgo, VectorSpec};

/// RediSearch's `Error parsing vector similarity parameters: …`.
fn param_error(what: &str) -> Error {
    Error::new(format!("Error parsing vector similarity parameters: {what}"))
}

const INVALID_OPTION: &str = "Invalid option";
const INVALID_VALUE: &str = "Invalid value was given";

/// Checks options against the field's algorithm, in RediSearch's order: an option the
/// algorithm does not have is `Invalid option`, a bad value `Invalid value was given`,
/// then the query-kind checks (range options on KNN, hybrid options without a filter).
fn check_options(options: &[(String, String)], vs: &VectorSpec, range: bool, hybrid: bool) -> Result<()> {
    let hnsw = vs.algo == VectorAlgo::Hnsw;
    let (mut range_attr, mut hybrid_attr, mut adhoc, mut batch) = (false, false, false, false);
    for (name, value) in options {
        let positive_int = || value.parse::<u64>().ok().filter(|n| *n > 0).is_some();
        match name.as_str() {
            "EF_RUNTIME" if hnsw && !range => {
                if !positive_int() {
                    return Err(param_error(INVALID_VALUE));
                }
            }
            "EPSILON" if hnsw => {
                if !value.parse::<f64>().is_ok_and(|e| e > 0.0 && e.is_finite()) {
                    return Err(param_error(INVALID_VALUE));
                }
                range_attr = true;
            }
            "HYBRID_POLICY" if !range => {
                hybrid_attr = true;
                if value.eq_ignore_ascii_case("ADHOC_BF") {
                    adhoc = true;
                } else if !value.eq_ignore_ascii_case("BATCHES") && hybrid {
                    return Err(param_error(INVALID_VALUE));
                }
            }
            "BATCH_SIZE" if !range => {
                hybrid_attr = true;
                batch = true;
                if !positive_int() && hybrid {
                    return Err(param_error(INVALID_VALUE));
                }
            }
            _ => return Err(param_error(INVALID_OPTION)),
        }
    }
    if !range && range_attr {
        return Err(param_error("range query attributes were sent for a non-range query"));
    }
    if !range && hybrid_attr && !hybrid {
        return Err(param_error("hybrid query attributes were sent for a non-hybrid query"));
    }
    if adhoc && batch {
        return Err(param_error("'batch size' is irrelevant for 'ADHOC_BF' policy"));
    }
    Ok(())
}

/// The distances a query yields: one named field per KNN or YIELD_DISTANCE_AS clause.
#[derive(Debug, Default, Clone)]
pub struct Distances {
    /// (field name, document → distance).
    pub fields: Vec<(String, HashMap<u32, f64>)>,
    /// The KNN result, nearest first (the default order of the query's results).
    pub knn: Option<Vec<Hit>>,
}

impl Distances {
    /// The distance named `name` of `doc`.
    pub fn get(&self, name: &str, doc: u32) -> Option<f64> {
        self.fields.iter().find(|(n, _)| n == name).and_then(|(_, m)| m.get(&doc).copied())
    }

    /// True when `name` is a distance field of this query.
    pub fn has(&self, name: &str) -> bool {
        self.fields.iter().any(|(n, _)| n == name)
    }

    /// Records hits under `name`.
    pub fn add(&mut self, name: String, hits: &[Hit]) {
        let m = hits.iter().map(|h| (h.doc, h.dist)).collect();
        self.fields.push((name, m));
    }
}

/// The VECTOR index and definition of attribute `field` (`None`: not a VECTOR field, or
/// one that never held a vector; either matches nothing without checks, as in RediSearch).
fn target<'a>(idx: &'a Index, field: &str) -> Option<(&'a VectorIndex, &'a VectorSpec)> {
    let (i, spec) = idx.spec.field(field)?;
    match (idx.fields.get(i), spec.vector.as_ref()) {
        (Some(FieldIndex::Vector(vi)), Some(vs)) if vi.created() => Some((vi, vs)),
        _ => None,
    }
}

/// The query blob named `name`, decoded for the field.
fn query_vector(vs: &VectorSpec, name: &str, blobs: &HashMap<String, Vec<u8>>) -> Result<Vec<f64>> {
    let blob = blobs.get(name).ok_or_else(|| Error::new(format!("No such parameter `{name}`")))?;
    vs.decode_blob(blob).ok_or_else(|| {
        Error::new(format!(
            "Error parsing vector similarity query: query vector blob size ({}) does not match index's expected size ({}).",
            blob.len(),
            vs.blob_size()
        ))
    })
}

/// Runs a KNN clause over the documents of `filter` (`None`: every document).
pub fn knn(
    idx: &Index,
    c: &KnnClause,
    filter: Option<&RoaringBitmap>,
    blobs: &HashMap<String, Vec<u8>>,
) -> Result<Vec<Hit>> {
    let Some((vi, vs)) = target(idx, &c.field) else { return Ok(Vec::new()) };
    check_options(&c.options, vs, false, filter.is_some())?;
    let q = query_vector(vs, &c.blob, blobs)?;
    Ok(vi.knn_with(q, c.k, filter, &knn_params(&c.options)))
}

/// The runtime parameters of checked KNN options.
fn knn_params(options: &[(String, String)]) -> KnnParams {
    let mut p = KnnParams::default();
    for (name, value) in options {
        match name.as_str() {
            "EF_RUNTIME" => p.ef_runtime = value.parse().ok(),
            "BATCH_SIZE" => p.batch_size = value.parse().ok().filter(|n| *n > 0),
            "HYBRID_POLICY" if value.eq_ignore_ascii_case("ADHOC_BF") => p.policy = Some(Policy::AdhocBf),
            "HYBRID_POLICY" if value.eq_ignore_ascii_case("BATCHES") => p.policy = Some(Policy::Batches),
            _ => {}
        }
    }
    p
}

/// Runs a range clause.
pub fn range(idx: &Index, c: &RangeClause, blobs: &HashMap<String, Vec<u8>>) -> Result<Vec<Hit>> {
    let Some((vi, vs)) = target(idx, &c.field) else { return Ok(Vec::new()) };
    check_options(&c.options, vs, true, false)?;
    let q = query_vector(vs, &c.blob, blobs)?;
    if c.radius < 0.0 {
        return Err(Error::new(format!(
            "Error parsing vector similarity query: negative radius ({}) given in a range query",
            format_g(c.radius, 6)
        )));
    }
    let epsilon =
        c.options.iter().rev().find(|(n, _)| n == "EPSILON").and_then(|(_, v)| v.parse::<f64>().ok());
    Ok(vi.range_with(q, c.radius, None, epsilon))
}

/// How distances print (RediSearch's `%.12g`, and `-nan` for the NaN of a zero vector
/// under COSINE).
pub fn format_distance(d: f64) -> String {
    if d.is_nan() {
        "-nan".to_string()
    } else {
        format_number(d)
    }
}
