//! An HNSW graph (Malkov & Yashunin, "Efficient and robust approximate nearest neighbor
//! search using Hierarchical Navigable Small World graphs") over the rows of a
//! [`VectorIndex`](super::vector::VectorIndex) slab. The graph holds row ids only; the
//! vectors stay in the slab, read through a [`Space`].
//!
//! Levels are drawn with `mL = 1/ln(M)`; level 0 keeps up to `M0 = 2M` neighbours, the
//! upper levels `M`; neighbours are chosen with the paper's heuristic (a candidate is kept
//! only when it is nearer to the node than to every neighbour kept so far). Deleted rows
//! stay in the graph as tombstones (traversed, never returned) until
//! [`Graph::repair`] relinks their in-neighbours and the owner compacts the slab
//! ([`Graph::move_node`], [`Graph::finish_moves`]); those live in `hnsw_repair.rs`.

use crate::index::rows::Rows;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use crate::index::distance::{distance, Element};
use crate::index::hnsw_visited::{Seen, VisitedPool};
use crate::vector_spec::Metric;

/// The highest level a node may get (with M >= 2 level 16 is practically never drawn).
const MAX_LEVEL: usize = 16;

/// The vectors a graph is built over: the slab, its row width, the metric, and which rows
/// are live (a row whose owner is [`DEAD`] is a tombstone).
pub struct Space<'a, T> {
    /// The rows.
    pub slab: &'a Rows<T>,
    /// The distance metric.
    pub metric: Metric,
    /// Row → owning document ([`DEAD`]: a tombstone).
    pub owners: &'a [u32],
}

/// The owner of a deleted row waiting for [`Graph::repair`].
pub const DEAD: u32 = u32::MAX;

impl<T: Element> Space<'_, T> {
    /// The vector of `row`.
    #[inline]
    pub fn row(&self, row: u32) -> &[T] {
        self.slab.row(row)
    }

    /// Distance between `row` and the query `q` (a NaN, from a zero vector under COSINE,
    /// always the positive one, so that [`Near`] can order by `total_cmp` alone).
    #[inline]
    pub fn to(&self, row: u32, q: &[T]) -> f64 {
        positive_nan(distance(self.metric, self.row(row), q))
    }

    /// [`Space::to`] of each of `rows`, appended to `out` in order (four at a time where
    /// the element type computes them side by side: the same values).
    #[inline]
    pub fn to_each(&self, rows: &[u32], q: &[T], out: &mut Vec<f64>) {
        let (fours, rest) = rows.as_chunks::<4>();
        for four in fours {
            let ds = T::metric_distances(self.metric, four.map(|r| self.row(r)), q);
            out.extend(ds.map(positive_nan));
        }
        out.extend(rest.iter().map(|&r| self.to(r, q)));
    }

    /// Asks the CPU to start loading the vector of `row`, every cache line of it (a hint:
    /// no effect elsewhere). Measured at 100,000 x 128 FLOAT32: ef 80 searches take 16 %
    /// less time than with the first two lines only.
    #[inline]
    pub fn prefetch(&self, row: u32) {
        if let Some(v) = self.slab.row(row).first() {
            let p = (v as *const T).cast::<i8>();
            let bytes = self.slab.width() * std::mem::size_of::<T>();
            let mut off = 0;
            while off < bytes {
                prefetch_line(p.wrapping_add(off));
                off += 64;
            }
        }
    }

    /// True when `row` belongs to a document.
    #[inline]
    pub fn live(&self, row: u32) -> bool {
        self.owners.get(row as usize).is_some_and(|o| *o != DEAD)
    }
}

/// `d`, or the positive NaN when it is a NaN (see [`Space::to`]).
#[inline]
fn positive_nan(d: f64) -> f64 {
    if d.is_nan() {
        f64::NAN
    } else {
        d
    }
}

/// Asks the CPU to start loading the cache line of `p` (a hint; nothing elsewhere).
#[inline(always)]
pub(crate) fn prefetch_line(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetching is a hint that never faults, whatever the address (callers
        // pass addresses inside their own buffers). SSE is part of every x86_64 CPU.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A row and its distance, ordered by distance (NaN last), then row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Near {
    /// Distance to the query.
    pub d: f64,
    /// Row id.
    pub id: u32,
}

impl Eq for Near {}

impl Ord for Near {
    fn cmp(&self, o: &Self) -> Ordering {
        // Distances come from [`Space::to`]: a NaN is the positive one, ordered last.
        self.d.total_cmp(&o.d).then(self.id.cmp(&o.id))
    }
}

impl PartialOrd for Near {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The graph: per node its level and its neighbour lists.
#[derive(Debug, Clone)]
pub struct Graph {
    pub(super) m: usize,
    pub(super) m0: usize,
    pub(super) ef_construction: usize,
    ml: f64,
    /// Level 0 lists, `m0 + 1` words per node: the count, then the neighbours.
    pub(super) base: Rows<u32>,
    /// Node → its top level.
    pub(super) levels: Vec<u8>,
    /// Node (top level >= 1) → its lists of levels 1..=top, `m + 1` words each (foldhash:
    /// every step of a descent looks one up).
    pub(super) upper: HashMap<u32, Vec<u32>, foldhash::fast::RandomState>,
    /// The entry point: a node of the top level.
    pub(super) entry: Option<u32>,
    pub(super) top: usize,
    rng: u64,
    pub(super) visited: VisitedPool,
}

impl Graph {
    /// An empty graph with `M` = `m` and `EF_CONSTRUCTION` = `ef_construction`.
    pub fn new(m: usize, ef_construction: usize) -> Graph {
        let m = m.clamp(2, 4096);
        Graph {
            m,
            m0: 2 * m,
            ef_construction: ef_construction.max(1),
            ml: 1.0 / (m as f64).ln(),
            base: Rows::new(2 * m + 1),
            levels: Vec::new(),
            upper: HashMap::default(),
            entry: None,
            top: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
            visited: VisitedPool::default(),
        }
    }

    /// Number of nodes (tombstones included).
    pub fn len(&self) -> usize {
        self.levels.len()
    }

    /// True when the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Approximate heap bytes.
    pub fn memory(&self) -> usize {
        let upper: usize = self.upper.values().map(|v| v.capacity() * 4 + 32).sum();
        self.base.bytes() + self.levels.capacity() + upper + self.visited.bytes()
    }

    pub(super) fn cap(&self, level: usize) -> usize {
        if level == 0 {
            self.m0
        } else {
            self.m
        }
    }

    /// The neighbours of `node` at `level`.
    #[inline]
    pub(super) fn links(&self, node: u32, level: usize) -> &[u32] {
        let list = if level == 0 {
            Some(self.base.row(node))
        } else {
            let at = (level - 1) * (self.m + 1);
            self.upper.get(&node).and_then(|u| u.get(at..at + self.m + 1))
        };
        match list {
            Some(l) => {
                let n = l.first().map_or(0, |c| *c as usize);
                l.get(1..1 + n).unwrap_or(&[])
            }
            None => &[],
        }
    }

    /// Asks the CPU to start loading the level-0 list of `node`.
    #[inline]
    fn prefetch_links(&self, node: u32) {
        if let Some(w) = self.base.row(node).first() {
            let p = (w as *const u32).cast::<i8>();
            prefetch_line(p);
            prefetch_line(p.wrapping_add(64));
        }
    }

    /// Replaces the neighbours of `node` at `level` (cut to the level's capacity).
    pub(super) fn set_links(&mut self, node: u32, level: usize, ids: &[u32]) {
        let cap = self.cap(level);
        let list = if level == 0 {
            self.base.row_mut(node)
        } else {
            let at = (level - 1) * (self.m + 1);
            self.upper.get_mut(&node).and_then(|u| u.get_mut(at..at + self.m + 1))
        };
        if let Some(l) = list {
            let n = ids.len().min(cap);
            if let Some(c) = l.first_mut() {
                *c = n as u32;
            }
            if let (Some(dst), Some(src)) = (l.get_mut(1..1 + n), ids.get(..n)) {
                dst.copy_from_slice(src);
            }
        }
    }

    fn random_level(&mut self) -> usize {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let u = ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        ((-u.ln() * self.ml) as usize).min(MAX_LEVEL)
    }

    /// Greedy descent from `ep` through the levels above `level`. A node measured once is
    /// not measured again ([`Seen`]: about 15 % of the descent's distances at 50,000 x 128;
    /// the node it ends at is the same), and each node's unmeasured neighbours load together.
    pub(super) fn descend<T: Element>(&self, sp: &Space<T>, q: &[T], mut ep: Near, level: usize) -> Near {
        let mut seen = Seen::new();
        seen.insert(ep.id);
        let mut fresh: Vec<u32> = Vec::with_capacity(self.m);
        let mut dists: Vec<f64> = Vec::with_capacity(self.m);
        for l in (level + 1..=self.top).rev() {
            let mut changed = true;
            while changed {
                changed = false;
                fresh.clear();
                for &n in self.links(ep.id, l) {
                    if seen.insert(n) {
                        sp.prefetch(n);
                        fresh.push(n);
                    }
                }
                dists.clear();
                sp.to_each(&fresh, q, &mut dists);
                for (&n, &d) in fresh.iter().zip(&dists) {
                    if d < ep.d {
                        ep = Near { d, id: n };
                        changed = true;
                    }
                }
            }
        }
        ep
    }

    /// The beam search of one level: up to `ef` accepted nodes nearest to `q`, nearest first.
    /// Rejected nodes (tombstones, filtered out) are traversed but not returned.
    pub(super) fn search_layer<T: Element, A: Fn(u32) -> bool>(
        &self,
        sp: &Space<T>,
        q: &[T],
        eps: &[Near],
        ef: usize,
        level: usize,
        accept: &A,
    ) -> Vec<Near> {
        let mut vis = self.visited.take(self.len());
        let mut fresh: Vec<u32> = Vec::with_capacity(self.m0);
        let mut dists: Vec<f64> = Vec::with_capacity(self.m0);
        // EF_RUNTIME comes from the query: room for what the graph can hold, not for `ef`.
        let room = ef.min(self.len()) + 1;
        let mut cands: BinaryHeap<std::cmp::Reverse<Near>> = BinaryHeap::with_capacity(2 * room);
        let mut res: BinaryHeap<Near> = BinaryHeap::with_capacity(room);
        for &ep in eps {
            if level == 0 {
                self.prefetch_links(ep.id);
            }
            if vis.insert(ep.id) {
                if accept(ep.id) {
                    res.push(ep);
                }
                cands.push(std::cmp::Reverse(ep));
            }
        }
        while res.len() > ef {
            res.pop();
        }
        let mut bound =
            if res.len() >= ef { res.peek().map_or(f64::INFINITY, |t| t.d) } else { f64::INFINITY };
        while let Some(std::cmp::Reverse(c)) = cands.pop() {
            if c.d > bound && res.len() >= ef {
                break;
            }
            // The unseen neighbours first, their vectors prefetched, then their distances
            // (four side by side where the type can): the memory loads overlap instead of
            // stalling one by one.
            fresh.clear();
            for &n in self.links(c.id, level) {
                if vis.insert(n) {
                    sp.prefetch(n);
                    fresh.push(n);
                }
            }
            // The list of the likely next candidate loads while these distances are computed.
            if level == 0 {
                if let Some(std::cmp::Reverse(nx)) = cands.peek() {
                    self.prefetch_links(nx.id);
                }
            }
            dists.clear();
            sp.to_each(&fresh, q, &mut dists);
            let mut offer = |d: f64, n: u32| {
                if res.len() < ef || d < bound {
                    // A candidate may be expanded next: its list loads now rather than when
                    // it is popped (the peek above only covers the best candidate before
                    // these offers).
                    if level == 0 {
                        self.prefetch_links(n);
                    }
                    cands.push(std::cmp::Reverse(Near { d, id: n }));
                    if accept(n) {
                        res.push(Near { d, id: n });
                        if res.len() > ef {
                            res.pop();
                        }
                    }
                    if res.len() >= ef {
                        bound = res.peek().map_or(f64::INFINITY, |t| t.d);
                    }
                }
            };
            for (&n, &d) in fresh.iter().zip(&dists) {
                offer(d, n);
            }
        }
        self.visited.give(vis);
        res.into_sorted_vec()
    }

    /// The paper's neighbour-selection heuristic over `cands` (nearest first, distances to
    /// the node): at most `m` of them.
    pub(super) fn select<T: Element>(sp: &Space<T>, cands: &[Near], m: usize) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(m);
        for c in cands {
            if out.len() >= m {
                break;
            }
            let v = sp.row(c.id);
            if out.iter().all(|o| sp.to(*o, v).partial_cmp(&c.d) != Some(Ordering::Less)) {
                out.push(c.id);
            }
        }
        out
    }

    /// Adds the node of `row` (its vector already in the slab; rows are added in order).
    pub fn insert<T: Element>(&mut self, sp: &Space<T>, row: u32) {
        let level = self.random_level();
        let n = row as usize + 1;
        if self.levels.len() < n {
            crate::index::growth::reserve_eighth(&mut self.levels, n);
            self.levels.resize(n, 0);
            while self.base.len() < n {
                self.base.push(&[]);
            }
        }
        if let Some(l) = self.levels.get_mut(row as usize) {
            *l = level as u8;
        }
        if level > 0 {
            self.upper.insert(row, vec![0; level * (self.m + 1)]);
        }
        let Some(entry) = self.entry else {
            self.entry = Some(row);
            self.top = level;
            return;
        };
        let q = sp.row(row).to_vec();
        let mut ep = Near { d: sp.to(entry, &q), id: entry };
        ep = self.descend(sp, &q, ep, level);
        let mut eps = vec![ep];
        let live = |r: u32| r != row && sp.live(r);
        for l in (0..=level.min(self.top)).rev() {
            let found = self.search_layer(sp, &q, &eps, self.ef_construction, l, &live);
            // M links at every level (level 0 grows to M0 through the links back).
            let chosen = Self::select(sp, &found, self.m);
            self.set_links(row, l, &chosen);
            for &nb in &chosen {
                self.link_back(sp, nb, row, l);
            }
            if !found.is_empty() {
                eps = found;
            }
        }
        if level > self.top {
            self.entry = Some(row);
            self.top = level;
        }
    }

    /// Adds `new` to the list of `node` at `level`, pruning with the heuristic when full.
    pub(super) fn link_back<T: Element>(&mut self, sp: &Space<T>, node: u32, new: u32, level: usize) {
        let cur = self.links(node, level);
        if cur.contains(&new) {
            return;
        }
        if cur.len() < self.cap(level) {
            let mut ids = cur.to_vec();
            ids.push(new);
            self.set_links(node, level, &ids);
            return;
        }
        let v = sp.row(node);
        let mut cands: Vec<Near> = cur
            .iter()
            .chain(std::iter::once(&new))
            .filter(|r| sp.live(**r))
            .map(|&id| Near { d: sp.to(id, v), id })
            .collect();
        cands.sort_unstable();
        let chosen = Self::select(sp, &cands, self.cap(level));
        self.set_links(node, level, &chosen);
    }

    /// The `ef` accepted rows nearest to `q` (the query prepared like the rows).
    pub fn search<T: Element, A: Fn(u32) -> bool>(
        &self,
        sp: &Space<T>,
        q: &[T],
        ef: usize,
        accept: &A,
    ) -> Vec<Near> {
        let Some(entry) = self.entry else { return Vec::new() };
        let ep = self.descend(sp, q, Near { d: sp.to(entry, q), id: entry }, 0);
        self.search_layer(sp, q, &[ep], ef.max(1), 0, accept)
    }

    /// Live rows within `radius` of `q`. The walk first finds the `ef` nodes nearest to
    /// `q` (the beam search of a KNN query, so that it starts from the nearest region of
    /// the graph rather than from wherever a greedy descent stops), then continues as
    /// VecSim's range search does: best first over level 0 from those nodes, expanding the
    /// candidates within the nearest distance seen so far (but at least `radius`) times
    /// `1 + epsilon`. Every row returned is within the radius; the epsilon widens the walk,
    /// so a larger one misses fewer.
    pub fn range<T: Element>(
        &self,
        sp: &Space<T>,
        q: &[T],
        radius: f64,
        epsilon: f64,
        ef: usize,
    ) -> Vec<Near> {
        let Some(entry) = self.entry else { return Vec::new() };
        let ep = self.descend(sp, q, Near { d: sp.to(entry, q), id: entry }, 0);
        let seeds = self.search_layer(sp, q, &[ep], ef.max(1), 0, &|_| true);
        let mut vis = self.visited.take(self.len());
        let mut out = Vec::new();
        let widen = |r: f64| if r >= 0.0 { r * (1.0 + epsilon) } else { r * (1.0 - epsilon) };
        let nearest = seeds.first().map_or(f64::INFINITY, |s| s.d);
        let mut dynamic = nearest.max(radius);
        let mut boundary = widen(dynamic);
        let mut cands: BinaryHeap<std::cmp::Reverse<Near>> = BinaryHeap::with_capacity(seeds.len() * 2);
        for s in seeds {
            vis.insert(s.id);
            if s.d <= radius && sp.live(s.id) {
                out.push(s);
            }
            cands.push(std::cmp::Reverse(s));
        }
        let mut fresh: Vec<u32> = Vec::with_capacity(self.m0);
        while let Some(std::cmp::Reverse(c)) = cands.pop() {
            if c.d > boundary {
                break;
            }
            fresh.clear();
            for &n in self.links(c.id, 0) {
                if vis.insert(n) {
                    sp.prefetch(n);
                    fresh.push(n);
                }
            }
            for &n in &fresh {
                let d = sp.to(n, q);
                if d <= boundary {
                    cands.push(std::cmp::Reverse(Near { d, id: n }));
                    if d <= radius && sp.live(n) {
                        out.push(Near { d, id: n });
                    }
                    if d < dynamic {
                        dynamic = d.max(radius);
                        boundary = widen(dynamic);
                    }
                }
            }
        }
        self.visited.give(vis);
        out
    }

    /// Empties the graph.
    pub fn clear(&mut self) {
        *self = Graph::new(self.m, self.ef_construction);
    }
}
