//! Searches of an HNSW field's graph ([`Graph`]): KNN with EF_RUNTIME, range with
//! EPSILON, and filtered KNN with RediSearch 2.10's hybrid policies: `ADHOC_BF` (exact
//! distances over the filter's documents) or `BATCHES` (successive batches of the graph's
//! nearest vectors, kept when the filter holds their document), chosen, unless the query
//! names one, by VecSim's decision tree over the index size, the filter's share of it, K,
//! DIM and M ([`prefer_adhoc`]), and reviewed after every batch as `hybrid_reader.c` does.
//!
//! Graph results are rows; a document's distance is the minimum over all its rows (JSON
//! multi-vectors), computed exactly once one of its rows is found.

use std::collections::{HashMap, HashSet};

use roaring::RoaringBitmap;

use crate::index::distance::Element;
use crate::index::hnsw::{Near, DEAD};
use crate::index::vector::{on_slab, space, Hit, Slab, VectorIndex};
use crate::index::vector_mode::SearchMode;

/// The least beam of the search that starts a range walk ([`VectorIndex::graph_range`]).
const RANGE_BEAM: usize = 32;

/// HYBRID_POLICY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Brute force over the filter's documents.
    AdhocBf,
    /// Batches from the graph, intersected with the filter.
    Batches,
}

/// A KNN query's runtime parameters (`None`: the index default or RediSearch's choice).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KnnParams {
    /// EF_RUNTIME.
    pub ef_runtime: Option<usize>,
    /// HYBRID_POLICY.
    pub policy: Option<Policy>,
    /// BATCH_SIZE.
    pub batch_size: Option<usize>,
}

/// VecSim's HNSW `preferAdHocSearch` (a decision tree fitted on benchmarks): true when brute
/// force over `subset` of `size` vectors should beat batches for `k` results.
pub fn prefer_adhoc(size: usize, subset: usize, k: usize, dim: usize, m: usize) -> bool {
    let r = if size == 0 { 0.0 } else { subset.min(size) as f32 / size as f32 };
    if size <= 30_000 {
        if size <= 5_500 || r <= 0.17 {
            return true;
        }
        // k > 12, or a large DIM with M > 10
        return k > 12 || (dim > 55 && m > 10);
    }
    if r < 0.07 {
        if size <= 750_000 {
            return true;
        }
        return k > 7 && r <= 0.03;
    }
    if dim <= 75 {
        return false;
    }
    if k <= 12 {
        return r <= 0.21 && (m > 57 || size <= 75_000);
    }
    if m <= 10 {
        return r <= 0.17;
    }
    size <= 300_000 || r <= 0.17
}

impl VectorIndex {
    /// Rows of `q`'s `ef` nearest accepted rows (query prepared, in the slab's type).
    fn rows_near<A: Fn(u32) -> bool>(&self, q: &[f64], ef: usize, accept: &A) -> Vec<Near> {
        let Some(g) = self.graph.as_ref() else { return Vec::new() };
        on_slab!(&self.slab, s => {
            g.search(&space(s, self.metric, &self.owners), &Element::encode(q, self.metric), ef, accept)
        })
    }

    /// The exact distance of `doc` (the minimum over its rows), given one of its rows found
    /// at `found`.
    fn doc_distance(&self, doc: u32, q: &[f64], found: f64) -> f64 {
        if self.more.is_empty() || !self.more.contains_key(&doc) {
            return found;
        }
        let one = |row: u32| -> f64 {
            on_slab!(&self.slab, s => {
                let qe = Element::encode(q, self.metric);
                let r = s.row(row);
                if r.is_empty() {
                    f64::NAN
                } else {
                    crate::index::distance::distance(self.metric, r, &qe)
                }
            })
        };
        self.rows_of(doc).map(one).fold(found, |a, b| if b < a { b } else { a })
    }

    /// Documents of `rows` (first occurrence), with their exact distances.
    fn docs_of(
        &self,
        rows: &[Near],
        q: &[f64],
        keep: &dyn Fn(u32) -> bool,
        out: &mut HashMap<u32, f64>,
    ) -> usize {
        let mut added = 0;
        for r in rows {
            let Some(&doc) = self.owners.get(r.id as usize) else { continue };
            if doc == DEAD || out.contains_key(&doc) || !keep(doc) {
                continue;
            }
            out.insert(doc, self.doc_distance(doc, q, r.d));
            added += 1;
        }
        added
    }

    /// The rows of `rows` (nearest first) that can hold the `k` nearest documents: all of
    /// them for multi-vector documents, else the first `k` and any tied with the last.
    fn enough<'r>(&self, rows: &'r [Near], k: usize) -> &'r [Near] {
        if !self.more.is_empty() || rows.len() <= k {
            return rows;
        }
        let last = rows.get(k - 1).map_or(f64::NAN, |r| r.d);
        let end = k + rows.get(k..).map_or(0, |rest| rest.iter().take_while(|r| r.d == last).count());
        rows.get(..end).unwrap_or(rows)
    }

    /// The `k` nearest documents of `rows` when no document has more than one row (what
    /// [`Self::docs_of`] then [`Self::best`] give, without their map: each live row is its
    /// owner's only one, at the distance the walk found).
    fn single_docs(&self, rows: &[Near], k: usize) -> Vec<Hit> {
        debug_assert!(self.more.is_empty());
        // Each row's owner is a cache miss of its own: asked for together, they overlap.
        for r in rows {
            if let Some(o) = self.owners.get(r.id as usize) {
                crate::index::hnsw::prefetch_line((o as *const u32).cast());
            }
        }
        let mut hits: Vec<Hit> = rows
            .iter()
            .filter_map(|r| match self.owners.get(r.id as usize) {
                Some(&doc) if doc != DEAD => Some(Hit { doc, dist: r.d }),
                _ => None,
            })
            .collect();
        hits.sort_unstable();
        hits.truncate(k);
        hits
    }

    /// The `k` nearest documents of `found`, nearest first.
    fn best(found: HashMap<u32, f64>, k: usize) -> Vec<Hit> {
        let mut hits: Vec<Hit> = found.into_iter().map(|(doc, dist)| Hit { doc, dist }).collect();
        hits.sort_unstable();
        hits.truncate(k);
        hits
    }

    /// KNN from the graph (query prepared).
    pub(super) fn graph_knn(
        &self,
        q: &[f64],
        k: usize,
        filter: Option<&RoaringBitmap>,
        p: &KnnParams,
    ) -> Vec<Hit> {
        let ef = p.ef_runtime.unwrap_or(self.ef_runtime).max(k);
        // Without tombstones every row is live (no lookup of its owner per result).
        let clean = self.dead == 0;
        let live = |r: u32| clean || self.owners.get(r as usize).is_some_and(|o| *o != DEAD);
        let Some(filter) = filter else {
            self.last_mode.set(SearchMode::StandardKnn);
            // Multi-vector documents may take several of the rows found: widen until K
            // documents are found or the graph is exhausted.
            let mut ef = ef;
            loop {
                let rows = self.rows_near(q, ef, &live);
                if self.more.is_empty() {
                    // One row a document: the rows' owners are the hits, no map to merge them.
                    let hits = self.single_docs(self.enough(&rows, k), k);
                    if hits.len() >= k || rows.len() < ef || ef >= self.len() {
                        return hits;
                    }
                    ef = ef.saturating_mul(2);
                    continue;
                }
                let mut found = HashMap::new();
                self.docs_of(self.enough(&rows, k), q, &|_| true, &mut found);
                if found.len() >= k || rows.len() < ef || ef >= self.len() {
                    return Self::best(found, k);
                }
                ef = ef.saturating_mul(2);
            }
        };
        let size = self.len();
        let subset = (filter.len() as usize).min(size);
        if subset == 0 {
            return Vec::new();
        }
        let policy = p.policy.unwrap_or_else(|| {
            if prefer_adhoc(size, subset, k, self.dim, self.m) {
                super::vector_graph::Policy::AdhocBf
            } else {
                Policy::Batches
            }
        });
        if policy == Policy::AdhocBf {
            self.last_mode.set(SearchMode::HybridAdhocBf);
            return self.exact_knn(q, k, Some(filter));
        }
        self.last_mode.set(SearchMode::HybridBatches);
        self.batches(q, k, filter, ef, subset, p)
    }

    /// The BATCHES policy: the graph's next `batch` nearest vectors at a time, each batch
    /// sized to hold the results still missing at the filter's estimated share, until K
    /// documents of the filter are found, the graph is exhausted, or the review of the
    /// estimate (as `hybrid_reader.c` makes it) switches to brute force.
    fn batches(
        &self,
        q: &[f64],
        k: usize,
        filter: &RoaringBitmap,
        ef: usize,
        subset: usize,
        p: &KnnParams,
    ) -> Vec<Hit> {
        let size = self.len();
        let live = |r: u32| self.owners.get(r as usize).is_some_and(|o| *o != DEAD);
        let mut estimate = subset;
        let upper = subset;
        let mut seen: HashSet<u32> = HashSet::new();
        let mut found: HashMap<u32, f64> = HashMap::new();
        let mut want = 0usize;
        loop {
            let left = k - found.len().min(k);
            let batch = p
                .batch_size
                .unwrap_or_else(|| (left as f32 * (size as f32 / estimate.max(1) as f32)) as usize + 1);
            want = want.saturating_add(batch.max(1));
            let rows = self.rows_near(q, ef.max(want), &live);
            let fresh: Vec<Near> = rows.iter().take(want).filter(|r| seen.insert(r.id)).copied().collect();
            let before = found.len();
            self.docs_of(&fresh, q, &|doc| filter.contains(doc), &mut found);
            if found.len() >= k || rows.len() < want || want >= size {
                return Self::best(found, k);
            }
            if p.policy == Some(Policy::Batches) && p.batch_size.is_some() {
                continue;
            }
            // hybrid_reader.c's review: the share of the results still missing that this
            // batch found, scaled to the index, averaged with the estimate so far.
            let new = found.len() - before;
            let ratio = new as f32 / left.max(1) as f32;
            let current = (ratio * size as f32) as usize;
            estimate = ((estimate + current) / 2).min(upper);
            if p.policy == Some(Policy::Batches) {
                continue;
            }
            if prefer_adhoc(size, estimate, k, self.dim, self.m) {
                self.last_mode.set(SearchMode::HybridBatchesToAdhocBf);
                return self.exact_knn(q, k, Some(filter));
            }
        }
    }

    /// Range from the graph (query prepared): documents with a row within `radius` found
    /// by the walk, each with its exact distance, nearest first.
    pub(super) fn graph_range(
        &self,
        q: &[f64],
        radius: f64,
        filter: Option<&RoaringBitmap>,
        epsilon: f64,
    ) -> Vec<Hit> {
        let Some(g) = self.graph.as_ref() else { return Vec::new() };
        // The beam that finds where the walk starts: the index's EF_RUNTIME, at least
        // RANGE_BEAM (range queries take no EF_RUNTIME of their own).
        let ef = self.ef_runtime.max(RANGE_BEAM);
        let rows = on_slab!(&self.slab, s => {
            let qe = Element::encode(q, self.metric);
            g.range(&space(s, self.metric, &self.owners), &qe, radius, epsilon, ef)
        });
        let mut found = HashMap::new();
        self.docs_of(&rows, q, &|doc| filter.is_none_or(|f| f.contains(doc)), &mut found);
        let mut hits: Vec<Hit> = found.into_iter().map(|(doc, dist)| Hit { doc, dist }).collect();
        hits.sort_unstable();
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decision_tree() {
        assert!(prefer_adhoc(5_000, 4_000, 10, 128, 16));
        assert!(prefer_adhoc(200_000, 2_000, 10, 128, 16));
        assert!(!prefer_adhoc(200_000, 20_000, 10, 128, 16));
        assert!(!prefer_adhoc(1_000_000, 100_000, 10, 96, 16));
        assert!(prefer_adhoc(1_000_000, 10_000, 10, 96, 16));
        assert!(!prefer_adhoc(1_000_000, 50_000, 10, 96, 16));
        assert!(!prefer_adhoc(1_000_000, 10_000, 5, 96, 16));
    }
}
