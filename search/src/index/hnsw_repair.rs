//! Deletion support of the HNSW [`Graph`]: relinking the in-neighbours of tombstones
//! ([`Graph::repair`]), re-attaching nodes left without in-links, following the slab's
//! swap-removes ([`Graph::move_node`], [`Graph::finish_moves`]), and consistency checks.

use crate::index::distance::Element;
use crate::index::hnsw::{Graph, Near, Space};

impl Graph {
    /// Relinks every live node that points at a tombstone: its live neighbours stay, the
    /// tombstone's live neighbours are the candidates of the heuristic for the freed slots,
    /// and the list is filled up with the nearest candidates left over. Picks a live entry
    /// point if the entry is a tombstone. Tombstones keep their rows until the owner moves
    /// them away.
    pub fn repair<T: Element>(&mut self, sp: &Space<T>) {
        // In-degrees at level 0 after the relinking, counted in the same pass (a node's
        // list changes only while that node is visited).
        let mut indeg = vec![0u8; self.len()];
        for node in 0..self.len() as u32 {
            if !sp.live(node) {
                continue;
            }
            let top = self.levels.get(node as usize).map_or(0, |l| *l as usize);
            for l in 0..=top {
                self.relink(sp, node, l);
            }
            for &n in self.links(node, 0) {
                if let Some(d) = indeg.get_mut(n as usize) {
                    *d = d.saturating_add(1);
                }
            }
        }
        self.pick_entry(sp);
        // Nodes no list points at any more (their only in-links came from tombstones, or
        // were pruned) would be unreachable: link them back from their nearest nodes.
        for node in 0..self.len() as u32 {
            if indeg.get(node as usize) == Some(&0) && sp.live(node) && self.entry != Some(node) {
                self.reconnect(sp, node);
            }
        }
    }

    /// Replaces the tombstones in the list of `node` at `l` (nothing when it has none).
    fn relink<T: Element>(&mut self, sp: &Space<T>, node: u32, l: usize) {
        let cur = self.links(node, l);
        if cur.iter().all(|r| sp.live(*r)) {
            return;
        }
        // The live neighbours stay (the heuristic chose them); the tombstones' live
        // neighbours are the candidates for the freed slots.
        let mut chosen: Vec<u32> = cur.iter().copied().filter(|r| sp.live(*r)).collect();
        let mut ids: Vec<u32> = Vec::with_capacity(cur.len() * 2);
        for &r in cur {
            if !sp.live(r) && self.levels.get(r as usize).is_some_and(|t| *t as usize >= l) {
                ids.extend(self.links(r, l).iter().filter(|x| **x != node && sp.live(**x)));
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids.retain(|x| !chosen.contains(x));
        let v = sp.row(node);
        let mut cands: Vec<Near> = ids.iter().map(|&id| Near { d: sp.to(id, v), id }).collect();
        cands.sort_unstable();
        let cap = self.cap(l);
        // The paper's heuristic against the neighbours kept so far...
        let mut passed = Vec::new();
        for c in &cands {
            if chosen.len() >= cap {
                break;
            }
            let u = sp.row(c.id);
            if chosen.iter().all(|o| sp.to(*o, u).partial_cmp(&c.d) != Some(std::cmp::Ordering::Less)) {
                chosen.push(c.id);
            } else {
                passed.push(c.id);
            }
        }
        // ...then the nearest of those it passed over, up to the level's capacity: a list
        // that lost neighbours is left denser, not sparser (recall after deletions stays
        // at, or above, a fresh build's).
        for id in passed {
            if chosen.len() >= cap {
                break;
            }
            chosen.push(id);
        }
        self.set_links(node, l, &chosen);
    }

    /// Links `node` back from its nearest live nodes at level 0 (found by a search as an
    /// insertion makes), and gives it links of its own if it has none.
    fn reconnect<T: Element>(&mut self, sp: &Space<T>, node: u32) {
        let Some(entry) = self.entry else { return };
        let q = sp.row(node).to_vec();
        let ep = self.descend(sp, &q, Near { d: sp.to(entry, &q), id: entry }, 0);
        let live = |r: u32| r != node && sp.live(r);
        let found = self.search_layer(sp, &q, &[ep], self.ef_construction, 0, &live);
        let chosen = Self::select(sp, &found, self.m);
        if self.links(node, 0).is_empty() {
            self.set_links(node, 0, &chosen);
        }
        for (i, &nb) in chosen.iter().enumerate() {
            self.link_back(sp, nb, node, 0);
            if i == 0 && !self.links(nb, 0).contains(&node) {
                // The heuristic dropped it: the nearest neighbour keeps it anyway, in place of
                // its farthest link.
                let mut ids = self.links(nb, 0).to_vec();
                ids.pop();
                ids.push(node);
                self.set_links(nb, 0, &ids);
            }
        }
    }

    /// A live entry point of the highest level, if the entry is a tombstone.
    fn pick_entry<T: Element>(&mut self, sp: &Space<T>) {
        if self.entry.is_some_and(|e| !sp.live(e)) {
            let best = (0..self.len() as u32)
                .filter(|r| sp.live(*r))
                .max_by_key(|r| (self.levels.get(*r as usize).copied().unwrap_or(0), std::cmp::Reverse(*r)));
            self.entry = best;
            self.top = best.and_then(|b| self.levels.get(b as usize)).map_or(0, |l| *l as usize);
        }
    }

    /// Moves node `from` (the last node) into `to` and drops the last node. The caller
    /// records the move and calls [`Graph::finish_moves`] once all are done.
    pub fn move_node(&mut self, to: u32, from: u32) {
        if to != from {
            self.base.copy_row(from, to);
            let lf = self.levels.get(from as usize).copied().unwrap_or(0);
            if let Some(l) = self.levels.get_mut(to as usize) {
                *l = lf;
            }
            self.upper.remove(&to);
            if let Some(u) = self.upper.remove(&from) {
                self.upper.insert(to, u);
            }
            if self.entry == Some(from) {
                self.entry = Some(to);
            }
        } else {
            self.upper.remove(&to);
        }
        self.levels.truncate(from as usize);
        self.base.truncate(from as usize);
    }

    /// Rewrites the links to moved nodes: `moved[i]` is where node `len + i` went (`len`:
    /// the node count after the moves).
    pub fn finish_moves(&mut self, moved: &[u32]) {
        let len = self.len() as u32;
        // A node moved into a hole that itself lay past the end moved again later: follow
        // the chain to where it ended (each step goes to a lower position).
        let resolved: Vec<u32> = (0..moved.len())
            .map(|i| {
                let mut t = moved.get(i).copied().unwrap_or(0);
                for _ in 0..moved.len() {
                    if t < len {
                        break;
                    }
                    t = moved.get((t - len) as usize).copied().unwrap_or(0);
                }
                t
            })
            .collect();
        let moved = &resolved;
        let fix = |ids: &mut [u32]| {
            for id in ids {
                if *id >= len {
                    *id = moved.get((*id - len) as usize).copied().unwrap_or(0);
                }
            }
        };
        for list in self.base.iter_mut() {
            let n = list[0] as usize;
            if let Some(ids) = list.get_mut(1..1 + n) {
                fix(ids);
            }
        }
        let wu = self.m + 1;
        for u in self.upper.values_mut() {
            for list in u.chunks_exact_mut(wu) {
                let n = list[0] as usize;
                if let Some(ids) = list.get_mut(1..1 + n) {
                    fix(ids);
                }
            }
        }
        if self.entry.is_some_and(|e| e >= len) {
            self.entry = None;
        }
        if len == 0 {
            self.entry = None;
            self.top = 0;
            self.upper.clear();
        }
    }

    /// The first inconsistency found (links out of range or above a node's level, a
    /// missing upper list, an entry point off the top level), if any.
    pub fn check(&self) -> Option<String> {
        let n = self.len() as u32;
        if let Some(e) = self.entry {
            if e >= n || self.levels.get(e as usize).map(|l| *l as usize) != Some(self.top) {
                return Some(format!("entry {e} of {n}, top {}", self.top));
            }
        }
        for node in 0..n {
            let top = self.levels.get(node as usize).map_or(0, |l| *l as usize);
            if (top > 0) != self.upper.contains_key(&node) {
                return Some(format!("node {node} level {top} upper lists"));
            }
            for l in 0..=top {
                for &x in self.links(node, l) {
                    if x >= n || self.levels.get(x as usize).is_none_or(|t| (*t as usize) < l) {
                        return Some(format!("node {node} level {l} links {x}"));
                    }
                }
            }
        }
        None
    }

    /// Live nodes reachable from the entry point at level 0 (a consistency check).
    pub fn reachable<T: Element>(&self, sp: &Space<T>) -> usize {
        let Some(entry) = self.entry else { return 0 };
        let mut seen = vec![false; self.len()];
        let mut stack = vec![entry];
        let mut count = 0;
        while let Some(n) = stack.pop() {
            match seen.get_mut(n as usize) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            count += usize::from(sp.live(n));
            stack.extend(self.links(n, 0).iter().copied());
        }
        count
    }
}
