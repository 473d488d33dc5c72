//! One VECTOR field's data: every vector of every document in one contiguous slab (rows
//! of DIM elements, `f32` for FLOAT32 and the 16-bit types, `f64` for FLOAT64, `i8`/`u8`
//! for INT8/UINT8, whose COSINE rows also hold their norm: `distance_int.rs`), the owner of each row, and
//! exact KNN and range search over it. A document may own several rows (JSON
//! multi-vectors); its distance is then the minimum over them. Removal swaps the last row
//! into the hole, so the slab stays dense.
//!
//! An HNSW field also keeps a [`Graph`] over the rows (`vector_graph.rs` searches it).
//! There a removed row becomes a tombstone (owner [`DEAD`]) that the graph still
//! traverses; once [`TOMBSTONE_BATCH`] of them (or as many as live rows) pile up, the
//! graph relinks their in-neighbours and the slab is compacted by the same swap-removes,
//! the graph following every move.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use roaring::RoaringBitmap;

use crate::index::distance::int::NORM_BYTES;
use crate::index::distance::{distance, normalize, Element};
use crate::index::hnsw::{Graph, Space, DEAD};
use crate::index::rows::Rows;
pub use crate::index::vector_graph::{KnnParams, Policy};
use crate::index::vector_mode::{LastMode, SearchMode};
use crate::vector_spec::{Metric, VectorAlgo, VectorSpec, VectorType};

/// Tombstones that trigger a repair of the graph and a compaction of the slab (bounds the
/// pause of the write that triggers it: one pass over the graph plus the relinking).
pub const TOMBSTONE_BATCH: usize = 256;

/// Rows of one element type.
#[derive(Debug, Clone)]
pub(super) enum Slab {
    F32(Rows<f32>),
    F64(Rows<f64>),
    /// INT8 (Redis 8): rows of DIM bytes, and the norm after them under COSINE.
    I8(Rows<i8>),
    /// UINT8 (Redis 8), as INT8.
    U8(Rows<u8>),
}

/// `$body` with `$s` bound to the slab's vector, whatever its element type.
macro_rules! on_slab {
    ($slab:expr, $s:ident => $body:expr) => {
        match $slab {
            Slab::F32($s) => $body,
            Slab::F64($s) => $body,
            Slab::I8($s) => $body,
            Slab::U8($s) => $body,
        }
    };
}
pub(super) use on_slab;

/// A VECTOR field index.
#[derive(Debug, Clone)]
pub struct VectorIndex {
    pub(super) dim: usize,
    pub(super) metric: Metric,
    /// The element type (16-bit types are kept as `f32` after rounding to their precision).
    ty: VectorType,
    pub(super) slab: Slab,
    /// Row → document id ([`DEAD`]: a tombstone of the graph).
    pub(super) owners: Vec<u32>,
    /// Document id → its first row ([`NO_ROW`]: none); doc ids are dense.
    first: Vec<u32>,
    /// Document id → its further rows (multi-vector documents only).
    pub(super) more: HashMap<u32, Vec<u32>>,
    /// Documents holding a vector.
    docs: usize,
    /// A vector was ever stored (RediSearch creates a field's vector index with its first
    /// vector; queries before that match nothing and check nothing).
    created: bool,
    /// The HNSW graph (HNSW fields only).
    pub(super) graph: Option<Graph>,
    /// Tombstone rows (HNSW fields only).
    pub(super) dead: usize,
    /// HNSW: M, the default EF_RUNTIME and EPSILON.
    pub(super) m: usize,
    pub(super) ef_runtime: usize,
    pub(super) epsilon: f64,
    /// The kind of the last search (VECSIM_INFO's LAST_SEARCH_MODE).
    pub(super) last_mode: LastMode,
}

/// No row (in [`VectorIndex::first`]).
const NO_ROW: u32 = u32::MAX;

/// A (document, distance) hit, ordered by distance then document id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Document id.
    pub doc: u32,
    /// Distance to the query.
    pub dist: f64,
}

impl Eq for Hit {}

impl Ord for Hit {
    /// Nearest first; NaN distances (a zero vector under COSINE), whatever their sign, last.
    fn cmp(&self, o: &Self) -> Ordering {
        self.dist
            .is_nan()
            .cmp(&o.dist.is_nan())
            .then_with(|| self.dist.total_cmp(&o.dist))
            .then(self.doc.cmp(&o.doc))
    }
}

impl PartialOrd for Hit {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl VectorIndex {
    /// An empty index for a field defined by `spec`.
    pub fn new(spec: &VectorSpec) -> VectorIndex {
        let int_cosine = spec.ty.is_integer() && spec.metric == Metric::Cosine;
        // Elements of a stored row: DIM, and the norm's four bytes for INT8/UINT8 COSINE.
        let width = spec.dim + if int_cosine { NORM_BYTES } else { 0 };
        VectorIndex {
            dim: spec.dim,
            metric: spec.metric,
            ty: spec.ty,
            slab: match spec.ty {
                VectorType::Float64 => Slab::F64(Rows::new(width)),
                VectorType::Float32 | VectorType::Float16 | VectorType::BFloat16 => {
                    Slab::F32(Rows::new(width))
                }
                VectorType::Int8 => Slab::I8(Rows::new(width)),
                VectorType::UInt8 => Slab::U8(Rows::new(width)),
            },
            owners: Vec::new(),
            first: Vec::new(),
            more: HashMap::new(),
            docs: 0,
            created: false,
            graph: (spec.algo == VectorAlgo::Hnsw).then(|| {
                Graph::new(
                    usize::try_from(spec.m).unwrap_or(16),
                    usize::try_from(spec.ef_construction).unwrap_or(200),
                )
            }),
            dead: 0,
            m: usize::try_from(spec.m).unwrap_or(16),
            ef_runtime: usize::try_from(spec.ef_runtime).unwrap_or(10),
            epsilon: spec.epsilon,
            last_mode: LastMode::default(),
        }
    }

    /// Number of vectors stored.
    pub fn len(&self) -> usize {
        self.owners.len() - self.dead
    }

    /// Live vectors reachable in the HNSW graph from its entry point (`len()` when the graph
    /// is connected; FLAT: `len()`).
    pub fn graph_reachable(&self) -> usize {
        let Some(g) = self.graph.as_ref() else { return self.len() };
        on_slab!(&self.slab, s => g.reachable(&space(s, self.metric, &self.owners)))
    }

    /// The HNSW graph's first inconsistency, if any (see `Graph::check`).
    pub fn graph_check(&self) -> Option<String> {
        self.graph.as_ref().and_then(|g| g.check())
    }

    /// Number of documents holding a vector.
    pub fn doc_count(&self) -> usize {
        self.docs
    }

    /// True once a vector has been stored (even if removed since).
    pub fn created(&self) -> bool {
        self.created
    }

    /// True when no vector is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tombstones of the HNSW graph: deleted vectors still linked in it (VecSim's marked
    /// deleted); 0 for FLAT.
    pub fn marked_deleted(&self) -> usize {
        self.dead
    }

    /// The HNSW graph's top level and its entry point's document (None when the entry is a
    /// deleted vector still linked in); None while the graph is empty (or for FLAT).
    pub fn entry_point(&self) -> Option<(usize, Option<u32>)> {
        let g = self.graph.as_ref()?;
        let row = g.entry?;
        let doc = self.owners.get(row as usize).copied().filter(|d| *d != DEAD);
        Some((g.top, doc))
    }

    /// The kind of the last KNN or range search.
    pub fn last_search_mode(&self) -> SearchMode {
        self.last_mode.get()
    }

    /// Approximate heap bytes (FT.INFO `vector_index_sz_mb`).
    pub fn memory(&self) -> usize {
        let slab = on_slab!(&self.slab, v => v.bytes());
        let graph = self.graph.as_ref().map_or(0, |g| g.memory());
        slab + self.owners.capacity() * 4 + self.first.capacity() * 4 + self.more.capacity() * 40 + graph
    }

    /// The rows of `doc`: its first row, then any further ones.
    pub(super) fn rows_of(&self, doc: u32) -> impl Iterator<Item = u32> + '_ {
        let first = self.first.get(doc as usize).copied().filter(|r| *r != NO_ROW);
        let more = first
            .filter(|_| !self.more.is_empty())
            .and_then(|_| self.more.get(&doc))
            .into_iter()
            .flatten()
            .copied();
        first.into_iter().chain(more)
    }

    /// Points the entry of row `from` of `doc` at row `to`.
    fn move_row(&mut self, doc: u32, from: u32, to: u32) {
        if let Some(f) = self.first.get_mut(doc as usize).filter(|f| **f == from) {
            *f = to;
            return;
        }
        if let Some(rs) = self.more.get_mut(&doc) {
            for r in rs.iter_mut().filter(|r| **r == from) {
                *r = to;
            }
        }
    }

    /// Prepares a vector for storage or search: values at the type's precision, COSINE
    /// vectors normalized (then rounded again, as VecSim stores them).
    fn prepared(&self, mut v: Vec<f64>) -> Vec<f64> {
        self.ty.round_all(&mut v);
        // INT8/UINT8 COSINE rows keep their integers, their norm beside them.
        if self.metric == Metric::Cosine && !self.ty.is_integer() {
            normalize(&mut v, self.ty);
            self.ty.round_all(&mut v);
        }
        v
    }

    /// Replaces the vectors of `doc` (each must have DIM elements; others are skipped).
    pub fn set(&mut self, doc: u32, vectors: &[Vec<f64>]) {
        let prepared: Vec<Vec<f64>> =
            vectors.iter().filter(|v| v.len() == self.dim).map(|v| self.prepared(v.clone())).collect();
        if self.graph.is_some() && self.holds(doc, &prepared) {
            // An update that leaves the vectors as they were keeps the graph untouched.
            return;
        }
        self.remove(doc);
        let mut mine = Vec::with_capacity(prepared.len());
        let metric = self.metric;
        for v in &prepared {
            on_slab!(&mut self.slab, s => s.push(&Element::encode(v, metric)));
            let row = self.owners.len() as u32;
            mine.push(row);
            super::growth::reserve_eighth(&mut self.owners, row as usize + 1);
            self.owners.push(doc);
            if let Some(g) = self.graph.as_mut() {
                on_slab!(&self.slab, s => g.insert(&space(s, metric, &self.owners), row));
            }
        }
        let Some((&head, rest)) = mine.split_first() else { return };
        self.created = true;
        if self.first.len() <= doc as usize {
            self.first.resize(doc as usize + 1, NO_ROW);
        }
        if let Some(f) = self.first.get_mut(doc as usize) {
            *f = head;
        }
        if !rest.is_empty() {
            self.more.insert(doc, rest.to_vec());
        }
        self.docs += 1;
    }

    /// True when `doc` holds exactly `prepared` (in order).
    fn holds(&self, doc: u32, prepared: &[Vec<f64>]) -> bool {
        let rows: Vec<u32> = self.rows_of(doc).collect();
        rows.len() == prepared.len()
            && !rows.is_empty()
            && rows.iter().zip(prepared).all(|(r, v)| {
                on_slab!(&self.slab, s => {
                    let x = s.row(*r);
                    !x.is_empty() && x == Element::encode(v, self.metric).as_slice()
                })
            })
    }

    /// Removes every vector of `doc`.
    pub fn remove(&mut self, doc: u32) {
        let mut mine: Vec<u32> = self.rows_of(doc).collect();
        if mine.is_empty() {
            return;
        }
        self.docs -= 1;
        if let Some(f) = self.first.get_mut(doc as usize) {
            *f = NO_ROW;
        }
        self.more.remove(&doc);
        if self.graph.is_some() {
            for row in &mine {
                if let Some(o) = self.owners.get_mut(*row as usize) {
                    *o = DEAD;
                }
            }
            self.dead += mine.len();
            if self.dead >= TOMBSTONE_BATCH || self.dead >= self.len() {
                self.compact();
            }
            return;
        }
        // Highest rows first, so a row moved into a hole is never one still to remove.
        mine.sort_unstable_by(|a, b| b.cmp(a));
        for row in mine {
            self.swap_remove(row as usize);
        }
    }

    /// Relinks the graph around its tombstones, then swap-removes their rows.
    fn compact(&mut self) {
        let Some(mut g) = self.graph.take() else { return };
        on_slab!(&self.slab, s => g.repair(&space(s, self.metric, &self.owners)));
        let dead: Vec<u32> = (0..self.owners.len() as u32)
            .rev()
            .filter(|r| self.owners.get(*r as usize) == Some(&DEAD))
            .collect();
        let new_len = self.owners.len() - dead.len();
        let mut moved = vec![0u32; dead.len()];
        for row in dead {
            let last = self.owners.len() as u32 - 1;
            self.swap_remove(row as usize);
            g.move_node(row, last);
            if let Some(m) = (last as usize).checked_sub(new_len).and_then(|i| moved.get_mut(i)) {
                *m = row;
            }
        }
        g.finish_moves(&moved);
        self.dead = 0;
        self.graph = Some(g);
    }

    fn swap_remove(&mut self, row: usize) {
        let last = self.owners.len().saturating_sub(1);
        if row > last {
            return;
        }
        on_slab!(&mut self.slab, s => s.swap_remove(row));
        self.owners.swap_remove(row);
        if row != last {
            if let Some(moved) = self.owners.get(row).copied() {
                self.move_row(moved, last as u32, row as u32);
            }
        }
    }

    /// The `k` nearest documents to `query` among `filter` (all when `None`), nearest first:
    /// exact for FLAT, from the graph for HNSW with the index's EF_RUNTIME.
    pub fn knn(&self, query: Vec<f64>, k: usize, filter: Option<&RoaringBitmap>) -> Vec<Hit> {
        self.knn_with(query, k, filter, &KnnParams::default())
    }

    /// [`VectorIndex::knn`] with a query's runtime parameters.
    pub fn knn_with(
        &self,
        query: Vec<f64>,
        k: usize,
        filter: Option<&RoaringBitmap>,
        p: &KnnParams,
    ) -> Vec<Hit> {
        if k == 0 || query.len() != self.dim {
            return Vec::new();
        }
        let query = self.prepared(query);
        if self.graph.is_some() {
            return self.graph_knn(&query, k, filter, p);
        }
        self.last_mode.set(if filter.is_some() {
            SearchMode::HybridAdhocBf
        } else {
            SearchMode::StandardKnn
        });
        self.exact_knn(&query, k, filter)
    }

    /// The exact `k` nearest documents among `filter` (query prepared).
    pub(super) fn exact_knn(&self, query: &[f64], k: usize, filter: Option<&RoaringBitmap>) -> Vec<Hit> {
        let mut heap: BinaryHeap<Hit> = BinaryHeap::with_capacity(k.min(self.len()) + 1);
        let mut offer = |h: Hit| {
            if heap.len() < k {
                heap.push(h);
            } else if heap.peek().is_some_and(|top| h < *top) {
                heap.pop();
                heap.push(h);
            }
        };
        self.for_each_doc(query, filter, &mut offer);
        heap.into_sorted_vec()
    }

    /// Every document among `filter` within `radius` of `query`, nearest first (exact for
    /// FLAT; HNSW walks its graph with the index's EPSILON).
    pub fn range(&self, query: Vec<f64>, radius: f64, filter: Option<&RoaringBitmap>) -> Vec<Hit> {
        self.range_with(query, radius, filter, None)
    }

    /// [`VectorIndex::range`] with a query's EPSILON (HNSW).
    pub fn range_with(
        &self,
        query: Vec<f64>,
        radius: f64,
        filter: Option<&RoaringBitmap>,
        epsilon: Option<f64>,
    ) -> Vec<Hit> {
        if query.len() != self.dim {
            return Vec::new();
        }
        let query = self.prepared(query);
        self.last_mode.set(SearchMode::RangeQuery);
        if self.graph.is_some() {
            return self.graph_range(&query, radius, filter, epsilon.unwrap_or(self.epsilon));
        }
        let mut out = Vec::new();
        self.for_each_doc(&query, filter, &mut |h: Hit| {
            if h.dist <= radius {
                out.push(h);
            }
        });
        out.sort_unstable();
        out
    }

    /// Calls `f` once per document (among `filter`) with its minimum distance to `query`.
    pub(super) fn for_each_doc(&self, query: &[f64], filter: Option<&RoaringBitmap>, f: &mut dyn FnMut(Hit)) {
        on_slab!(&self.slab, s => self.scan(s, &Element::encode(query, self.metric), filter, f))
    }

    fn scan<T: Element>(
        &self,
        slab: &Rows<T>,
        q: &[T],
        filter: Option<&RoaringBitmap>,
        f: &mut dyn FnMut(Hit),
    ) {
        let row_dist = |row: u32| -> f64 {
            let r = slab.row(row);
            if r.is_empty() {
                f64::NAN
            } else {
                distance(self.metric, r, q)
            }
        };
        let multi = !self.more.is_empty();
        // A filter smaller than the field, or multi-vectors: visit documents. Otherwise scan
        // the slab in row order.
        let by_doc = multi || filter.is_some_and(|fb| (fb.len() as usize) < self.docs);
        if by_doc {
            let mut visit = |doc: u32| {
                let d = self.rows_of(doc).map(row_dist).min_by(|a, b| a.total_cmp(b));
                if let Some(dist) = d {
                    f(Hit { doc, dist });
                }
            };
            match filter {
                Some(fb) => fb.iter().for_each(&mut visit),
                None => (0..self.first.len() as u32).for_each(&mut visit),
            }
            return;
        }
        for (doc, r) in self.owners.iter().zip(slab.iter()) {
            if *doc != DEAD && filter.is_none_or(|fb| fb.contains(*doc)) {
                f(Hit { doc: *doc, dist: distance(self.metric, r, q) });
            }
        }
    }
}

/// A graph's view of one slab.
pub(super) fn space<'a, T>(slab: &'a Rows<T>, metric: Metric, owners: &'a [u32]) -> Space<'a, T> {
    Space { slab, metric, owners }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector_spec::VectorAlgo;

    fn spec(metric: Metric) -> VectorSpec {
        VectorSpec { algo: VectorAlgo::Flat, dim: 2, metric, ..VectorSpec::default() }
    }

    #[test]
    fn set_remove_and_search() {
        let mut vi = VectorIndex::new(&spec(Metric::L2));
        vi.set(1, &[vec![0.0, 0.0]]);
        vi.set(2, &[vec![3.0, 4.0], vec![1.0, 0.0]]);
        vi.set(3, &[vec![10.0, 10.0]]);
        let hits = vi.knn(vec![0.0, 1.0], 2, None);
        assert_eq!(hits, vec![Hit { doc: 1, dist: 1.0 }, Hit { doc: 2, dist: 2.0 }]);
        vi.remove(1);
        assert_eq!(vi.len(), 3);
        let hits = vi.range(vec![0.0, 1.0], 200.0, None);
        assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>(), vec![2, 3]);
        vi.set(2, &[vec![10.0, 10.0]]);
        let hits = vi.knn(vec![10.0, 10.0], 5, None);
        assert_eq!(hits, vec![Hit { doc: 2, dist: 0.0 }, Hit { doc: 3, dist: 0.0 }]);
        let only3: RoaringBitmap = [3u32].into_iter().collect();
        assert_eq!(vi.knn(vec![0.0, 0.0], 5, Some(&only3)).len(), 1);
        assert!(vi.knn(vec![0.0], 5, None).is_empty());
        let nan = Hit { doc: 0, dist: -f64::NAN };
        assert!(nan > Hit { doc: 9, dist: f64::INFINITY });
    }
}
