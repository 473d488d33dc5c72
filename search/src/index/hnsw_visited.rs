//! The sets of nodes an HNSW walk has met: [`Visited`] for the beam search of a level (one bit
//! per node, pooled between searches), [`Seen`] for the greedy descent through the levels
//! above (a small open table: the descent meets few nodes).

use std::sync::Mutex;

/// Nodes seen by one search: one bit per node, cleared at the start of each search. A bit
/// set stays in the first cache levels where tags of one or two bytes per node do not
/// (25 KB for 200,000 nodes, and clearing it costs well under a microsecond); in a profile
/// at 200,000 x 128 the lookups of two-byte tags took about a quarter of the walk's samples.
#[derive(Debug, Default)]
pub struct Visited {
    bits: Vec<u64>,
}

impl Visited {
    /// Starts a search over `n` nodes.
    pub(super) fn reset(&mut self, n: usize) {
        self.bits.clear();
        self.bits.resize(n.div_ceil(64), 0);
    }

    /// Marks `id`; true when it was not seen before.
    #[inline]
    pub(super) fn insert(&mut self, id: u32) -> bool {
        let bit = 1u64 << (id & 63);
        match self.bits.get_mut((id >> 6) as usize) {
            Some(w) if *w & bit == 0 => {
                *w |= bit;
                true
            }
            _ => false,
        }
    }
}

/// The nodes a greedy descent has measured. A node measured once is not measured again, at
/// its level or below: it was no nearer than the entry point then, and the entry point only
/// comes nearer, so skipping it changes nothing (the descent evaluates few nodes: an open
/// table of 512 slots, full only past 256, after which it stops skipping).
pub(super) struct Seen {
    slots: [u32; 512],
    len: usize,
}

impl Seen {
    pub(super) fn new() -> Seen {
        Seen { slots: [u32::MAX; 512], len: 0 }
    }

    /// Marks `id`; true when it was not marked before (or the table is half full).
    #[inline]
    pub(super) fn insert(&mut self, id: u32) -> bool {
        if self.len >= 256 || id == u32::MAX {
            return true;
        }
        let mut at = (id.wrapping_mul(0x9E37_79B1) >> 23) as usize;
        loop {
            match self.slots.get_mut(at) {
                Some(s) if *s == id => return false,
                Some(s) if *s == u32::MAX => {
                    *s = id;
                    self.len += 1;
                    return true;
                }
                _ => at = (at + 1) & 511,
            }
        }
    }
}

/// Visited sets kept between searches (searches take `&self`).
#[derive(Default)]
pub(super) struct VisitedPool(Mutex<Vec<Visited>>);

impl VisitedPool {
    pub(super) fn take(&self, n: usize) -> Visited {
        let mut v = self.0.lock().ok().and_then(|mut p| p.pop()).unwrap_or_default();
        v.reset(n);
        v
    }

    pub(super) fn give(&self, v: Visited) {
        if let Ok(mut p) = self.0.lock() {
            if p.len() < 4 {
                p.push(v);
            }
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.0.lock().map(|p| p.iter().map(|v| v.bits.capacity() * 8).sum()).unwrap_or(0)
    }
}

impl Clone for VisitedPool {
    fn clone(&self) -> Self {
        VisitedPool::default()
    }
}

impl std::fmt::Debug for VisitedPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VisitedPool")
    }
}

#[cfg(test)]
mod tests {
    use super::Seen;
    use crate::index::hnsw::{Graph, Near, Space};
    use crate::index::rows::Rows;
    use crate::vector_spec::Metric;

    fn rng(x: &mut u64) -> f32 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        (*x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }

    #[test]
    fn seen_marks_once_and_stops_skipping_when_half_full() {
        let mut s = Seen::new();
        assert!(s.insert(7));
        assert!(!s.insert(7));
        for id in 0..300u32 {
            s.insert(id * 512);
        }
        // Past 256 entries every node counts as new (measured again: never wrong, only slower).
        assert!(s.insert(0));
        assert!(s.insert(7));
    }

    /// The descent without a seen set: every neighbour measured each time it is met.
    fn naive_descend(g: &Graph, sp: &Space<f32>, q: &[f32], mut ep: Near) -> Near {
        for l in (1..=g.top).rev() {
            let mut changed = true;
            while changed {
                changed = false;
                for &n in g.links(ep.id, l) {
                    let d = sp.to(n, q);
                    if d < ep.d {
                        ep = Near { d, id: n };
                        changed = true;
                    }
                }
            }
        }
        ep
    }

    #[test]
    fn the_descent_skipping_measured_nodes_ends_where_measuring_all_does() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for (dim, metric) in [(16, Metric::L2), (5, Metric::Ip), (40, Metric::L2)] {
            let mut slab: Rows<f32> = Rows::new(dim);
            let mut owners = Vec::new();
            // M = 3: many levels, so the descent has levels to share nodes across.
            let mut g = Graph::new(3, 20);
            for row in 0..2000u32 {
                let v: Vec<f32> = (0..dim).map(|_| rng(&mut x)).collect();
                slab.push(&v);
                owners.push(row);
                g.insert(&Space { slab: &slab, metric, owners: &owners }, row);
            }
            assert!(g.top >= 3, "levels: {}", g.top);
            let sp = Space { slab: &slab, metric, owners: &owners };
            let entry = g.entry.unwrap_or(0);
            for _ in 0..300 {
                let q: Vec<f32> = (0..dim).map(|_| rng(&mut x)).collect();
                let start = Near { d: sp.to(entry, &q), id: entry };
                let got = g.descend(&sp, &q, start, 0);
                let want = naive_descend(&g, &sp, &q, start);
                assert_eq!((got.id, got.d.to_bits()), (want.id, want.d.to_bits()));
            }
        }
    }
}
