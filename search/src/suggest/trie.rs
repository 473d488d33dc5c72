//! The suggestion trie: RediSearch's score-sorted radix trie over 16-bit runes, node for node.
//!
//! A node (40 bytes and one allocation) holds a run of runes, a score (0 unless terminal), the
//! highest score below it (`max_child_score`, as RediSearch maintains it, which is not always
//! exact: a split node made terminal keeps its old maximum, an INCR raises it by the increment
//! only) and its children, kept in descending `max_child_score` order when RediSearch re-sorts
//! them. Deleting marks a node and compacts the path (RediSearch's `__trieNode_optimizeChildren`).
//! The structure and the walk are the reference's because FT.SUGGET's ties and pruning depend on
//! both: results with equal scores come out in the reference's order only if the trie is shaped
//! the same.

use std::cmp::Ordering;

use super::filter::{PrefixFilter, Step};
use super::runes::Rune;
use crate::limits::{SUGGEST_ITER_DEPTH, SUGGEST_MAX_RUNES};

/// One trie node: 40 bytes plus one allocation for its header, runes and payload (RediSearch's
/// node is one allocation too).
#[derive(Clone, Debug, Default)]
pub(super) struct Node {
    /// A 2-byte little-endian header (the rune count in the low 9 bits, then [`TERMINAL`] and
    /// [`DELETED`]), this node's runes (two bytes each, little-endian), then the entry's payload,
    /// if any (never empty). Empty only for a default node: no runes, no flags.
    data: Box<[u8]>,
    /// Children; each one's first rune is its key. Resized on every insert and removal, like
    /// RediSearch's `realloc`, so no spare capacity is held.
    children: Box<[Node]>,
    /// The entry's score when terminal, else 0.
    score: f32,
    /// RediSearch's `maxChildScore`.
    max_child_score: f32,
}

/// Header bits of the rune count (nodes hold fewer than 512 runes: strings fewer than 256).
const RUNE_COUNT: u16 = 0x1FF;
/// Header flag: an entry ends here.
const TERMINAL: u16 = 0x200;
/// Header flag: an entry ended here and was deleted (kept until the path is compacted).
const DELETED: u16 = 0x400;
/// Bytes of the header.
const HEADER: usize = 2;

/// Header, runes and payload as one buffer (see [`Node::data`]).
fn pack(runes: &[Rune], payload: Option<&[u8]>, flags: u16) -> Box<[u8]> {
    let payload = payload.unwrap_or_default();
    let mut data = Vec::with_capacity(HEADER + runes.len() * 2 + payload.len());
    let count = u16::try_from(runes.len()).unwrap_or(RUNE_COUNT).min(RUNE_COUNT);
    data.extend_from_slice(&(count | (flags & (TERMINAL | DELETED))).to_le_bytes());
    for r in runes.iter().take(usize::from(count)) {
        data.extend_from_slice(&r.to_le_bytes());
    }
    data.extend_from_slice(payload);
    data.into_boxed_slice()
}

/// RediSearch's `__trieNode_Cmp_Score`: higher `max_child_score` first, then by runes
/// (`runecmp`: rune by rune, then the shorter first).
fn cmp_score(a: &Node, b: &Node) -> Ordering {
    if a.max_child_score < b.max_child_score {
        Ordering::Greater
    } else if a.max_child_score > b.max_child_score {
        Ordering::Less
    } else {
        a.runes().cmp(b.runes())
    }
}

impl Node {
    /// The root: no runes, score 0.
    pub(super) fn root() -> Node {
        Node::default()
    }

    fn leaf(runes: &[Rune], score: f32, payload: Option<&[u8]>) -> Node {
        Node {
            data: pack(runes, payload.filter(|p| !p.is_empty()), TERMINAL),
            children: Box::default(),
            score,
            max_child_score: score,
        }
    }

    fn header(&self) -> u16 {
        match self.data.get(..HEADER) {
            Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]),
            _ => 0,
        }
    }

    fn flags(&self) -> u16 {
        self.header() & (TERMINAL | DELETED)
    }

    /// An entry ends here.
    fn terminal(&self) -> bool {
        self.header() & TERMINAL != 0
    }

    /// An entry ended here and was deleted.
    fn deleted(&self) -> bool {
        self.header() & DELETED != 0
    }

    /// Sets the TERMINAL and DELETED flags.
    fn set_flags(&mut self, terminal: bool, deleted: bool) {
        let flags = if terminal { TERMINAL } else { 0 } | if deleted { DELETED } else { 0 };
        if self.data.len() < HEADER {
            self.data = pack(&[], None, flags);
            return;
        }
        let header = (self.header() & RUNE_COUNT) | flags;
        if let Some(h) = self.data.get_mut(..HEADER) {
            h.copy_from_slice(&header.to_le_bytes());
        }
    }

    /// The number of runes of this node.
    fn rune_count(&self) -> usize {
        usize::from(self.header() & RUNE_COUNT)
    }

    /// Rune `i` of this node.
    fn rune(&self, i: usize) -> Option<Rune> {
        if i >= self.rune_count() {
            return None;
        }
        match self.data.get(HEADER + i * 2..HEADER + i * 2 + 2) {
            Some(&[lo, hi]) => Some(Rune::from_le_bytes([lo, hi])),
            _ => None,
        }
    }

    /// This node's runes.
    fn runes(&self) -> impl Iterator<Item = Rune> + '_ {
        let bytes = self.data.get(HEADER..HEADER + self.rune_count() * 2).unwrap_or_default();
        bytes.chunks_exact(2).map(|b| Rune::from_le_bytes([b[0], b[1]]))
    }

    fn first_rune(&self) -> Option<Rune> {
        self.rune(0)
    }

    /// The entry's payload.
    fn payload(&self) -> Option<&[u8]> {
        self.data.get(HEADER + self.rune_count() * 2..).filter(|p| !p.is_empty())
    }

    /// Replaces the payload, runes kept.
    fn set_payload(&mut self, payload: Option<&[u8]>) {
        let runes: Vec<Rune> = self.runes().collect();
        self.data = pack(&runes, payload, self.flags());
    }

    fn insert_child(&mut self, idx: usize, child: Node) {
        let mut v = std::mem::take(&mut self.children).into_vec();
        v.insert(idx.min(v.len()), child);
        self.children = v.into_boxed_slice();
    }

    fn remove_child(&mut self, idx: usize) {
        let mut v = std::mem::take(&mut self.children).into_vec();
        if idx < v.len() {
            v.remove(idx);
        }
        self.children = v.into_boxed_slice();
    }

    /// `updateScore`.
    fn raise_max(&mut self, value: f32) {
        // C's MAX(a, b) is `a > b ? a : b`.
        self.max_child_score = if self.max_child_score > value { self.max_child_score } else { value };
    }

    /// `__trieNode_sortChildren`. An insertion sort: the comparator may be inconsistent with
    /// NaN scores (never a panic), and children are nearly sorted whenever this runs.
    fn sort_children(&mut self) {
        let c = &mut self.children;
        for i in 1..c.len() {
            let mut j = i;
            while j > 0 && cmp_score(&c[j - 1], &c[j]) == Ordering::Greater {
                c.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    /// `__trie_SplitNode`: this node keeps its first `offset` runes; the rest moves to its one
    /// child.
    fn split(&mut self, offset: usize) {
        let runes: Vec<Rune> = self.runes().collect();
        let (head, tail) = runes.split_at(offset.min(runes.len()));
        let child = Node {
            data: pack(tail, self.payload(), self.flags()),
            children: std::mem::take(&mut self.children),
            score: self.score,
            max_child_score: self.max_child_score,
        };
        self.data = pack(head, None, 0);
        self.score = 0.0;
        self.raise_max(child.score);
        self.children = vec![child].into_boxed_slice();
    }

    /// `TrieNode_Add`: true when the entry is new (or revived after a delete).
    pub(super) fn add(&mut self, s: &[Rune], payload: Option<&[u8]>, score: f32, incr: bool) -> bool {
        if score == 0.0 || s.is_empty() {
            return false;
        }
        let payload = payload.filter(|p| !p.is_empty());
        let offset = self.runes().zip(s).take_while(|(a, b)| a == *b).count();
        if offset < self.rune_count() {
            self.split(offset);
            if offset == s.len() {
                // The split node is the entry; its maximum is left as it was (RediSearch's).
                self.score = score;
                self.set_flags(true, false);
                if payload.is_some() {
                    self.set_payload(payload);
                }
            } else {
                let rest = s.get(offset..).unwrap_or_default();
                let key = rest.first().copied().unwrap_or_default();
                let idx =
                    usize::from(self.children.first().and_then(Node::first_rune).is_some_and(|k| key > k));
                self.insert_child(idx, Node::leaf(rest, score, payload));
                self.raise_max(score);
            }
            return true;
        }
        self.raise_max(score);
        if offset == s.len() {
            let existed = self.terminal() && !self.deleted();
            if incr {
                self.score += score;
            } else {
                self.score = score;
            }
            if payload.is_some() {
                self.set_payload(payload);
            }
            self.set_flags(true, false);
            return !existed;
        }
        let rest = s.get(offset..).unwrap_or_default();
        let key = rest.first().copied();
        let mut score_idx = None;
        let n = self.children.len();
        for idx in 0..n {
            if self.children.get(idx).and_then(Node::first_rune) == key {
                let Some(child) = self.children.get_mut(idx) else { break };
                let added = child.add(rest, payload, score, incr);
                let max = child.max_child_score;
                if n > 1 {
                    let above =
                        idx > 0 && self.children.get(idx - 1).is_some_and(|c| max > c.max_child_score);
                    // RediSearch compares with `numChildren - 2` (sic).
                    let below = (idx as i64) < n as i64 - 2
                        && self.children.get(idx + 1).is_some_and(|c| max < c.max_child_score);
                    if above || below {
                        self.sort_children();
                    }
                }
                return added;
            }
            if score_idx.is_none() && self.children.get(idx).is_some_and(|c| c.max_child_score < score) {
                score_idx = Some(idx);
            }
        }
        self.insert_child(score_idx.unwrap_or(n), Node::leaf(rest, score, payload));
        true
    }

    /// `__trieNode_MergeWithSingleChild`.
    fn merge_with_single_child(&mut self) {
        if self.terminal() || self.children.len() != 1 {
            return;
        }
        let Some(child) = std::mem::take(&mut self.children).into_vec().pop() else { return };
        let runes: Vec<Rune> = self.runes().chain(child.runes()).collect();
        let data = pack(&runes, child.payload(), child.flags());
        *self = Node { data, ..child };
    }

    /// `__trieNode_optimizeChildren`: drops a deleted leaf child, merges single-child chains,
    /// recomputes the maximum and re-sorts.
    fn optimize_children(&mut self) {
        self.max_child_score = self.score;
        let mut i = 0;
        while i < self.children.len() {
            let Some(child) = self.children.get_mut(i) else { break };
            if child.children.is_empty() && child.deleted() {
                self.remove_child(i);
                // RediSearch updates the maximum with the shifted children, then leaves the loop.
                let maxes: Vec<f32> = self.children.iter().skip(i).map(|c| c.max_child_score).collect();
                for m in maxes {
                    self.raise_max(m);
                }
                break;
            }
            if child.children.len() == 1 {
                child.merge_with_single_child();
            }
            let m = child.max_child_score;
            self.raise_max(m);
            i += 1;
        }
        self.sort_children();
    }

    /// `TrieNode_Delete` from this node (the root), `s` matched from `offset`.
    pub(super) fn delete(&mut self, s: &[Rune], offset: usize, depth: usize) -> bool {
        let rest = s.get(offset..).unwrap_or_default();
        let local = self.runes().zip(rest).take_while(|(a, b)| a == *b).count();
        let offset = offset + local;
        let mut deleted = false;
        if offset == s.len() {
            if local == self.rune_count() && !self.deleted() && self.terminal() {
                self.set_flags(false, true);
                self.score = 0.0;
                deleted = true;
            }
        } else if local == self.rune_count() && depth <= SUGGEST_MAX_RUNES {
            let key = s.get(offset).copied();
            if let Some(child) = self.children.iter_mut().find(|c| c.first_rune() == key) {
                deleted = child.delete(s, offset, depth + 1);
            }
        }
        self.optimize_children();
        deleted
    }

    /// Walks the trie like RediSearch's `TrieIterator` (depth first, children in their order,
    /// runes fed to `filter`), calling `visit(runes, score, payload, distance)` for each match;
    /// `visit` returns the minimum score a child must reach to be entered (`minScore`).
    /// Without `prune` every node is entered whatever `visit` returns. `dist` starts at
    /// `initial_dist` and keeps the last distance the filter wrote (RediSearch's `matchCtx`).
    pub(super) fn walk<F>(
        &self,
        mut filter: Option<&mut PrefixFilter>,
        prune: bool,
        initial_dist: u32,
        mut visit: F,
    ) where
        F: FnMut(&[Rune], f32, Option<&[u8]>, u32) -> f32,
    {
        #[derive(PartialEq)]
        enum State {
            Runes,
            Children,
        }
        struct Frame<'a> {
            node: &'a Node,
            state: State,
            string_offset: usize,
            child_offset: usize,
        }
        let mut frames = vec![Frame { node: self, state: State::Runes, string_offset: 0, child_offset: 0 }];
        let mut buf: Vec<Rune> = Vec::new();
        let mut min_score = i32::MIN as f32;
        let mut dist = initial_dist;
        while let Some(cur) = frames.last_mut() {
            if cur.state == State::Runes {
                if let Some(b) = cur.node.rune(cur.string_offset) {
                    let mut matched = false;
                    if let Some(f) = filter.as_deref_mut() {
                        match f.step(b, &mut dist) {
                            Step::Continue { matched: m } => matched = m,
                            Step::Stop => {
                                let n = cur.string_offset;
                                f.pop(n);
                                buf.truncate(buf.len().saturating_sub(n));
                                frames.pop();
                                continue;
                            }
                        }
                    }
                    buf.push(b);
                    cur.string_offset += 1;
                    let node = cur.node;
                    let at_end = cur.string_offset == node.rune_count();
                    if filter.is_none() {
                        matched = at_end && node.terminal() && !node.deleted();
                    }
                    if matched && at_end && node.terminal() && !node.deleted() {
                        let m = visit(&buf, node.score, node.payload(), dist);
                        if prune {
                            min_score = m;
                        }
                    }
                    continue;
                }
                cur.state = State::Children;
            }
            if let Some(ch) = cur.node.children.get(cur.child_offset) {
                cur.child_offset += 1;
                let enter = !prune || ch.max_child_score >= min_score || ch.score >= min_score;
                if enter && frames.len() < SUGGEST_ITER_DEPTH {
                    frames.push(Frame { node: ch, state: State::Runes, string_offset: 0, child_offset: 0 });
                }
            } else {
                let n = cur.string_offset;
                if let Some(f) = filter.as_deref_mut() {
                    f.pop(n);
                }
                buf.truncate(buf.len().saturating_sub(n));
                frames.pop();
            }
        }
    }

    /// Bytes held by this subtree, for MEMORY USAGE.
    pub(super) fn mem_usage(&self) -> usize {
        std::mem::size_of::<Node>()
            + self.data.len()
            + self.children.iter().map(Node::mem_usage).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_stays_small() {
        assert!(std::mem::size_of::<Node>() <= 40, "{}", std::mem::size_of::<Node>());
    }

    #[test]
    fn runes_and_payload_share_one_buffer() {
        let mut n = Node::leaf(&[1, 0x1234, 3], 1.0, Some(b"pay"));
        assert_eq!(n.runes().collect::<Vec<_>>(), vec![1, 0x1234, 3]);
        assert_eq!(n.payload(), Some(&b"pay"[..]));
        n.set_payload(Some(b"x"));
        assert_eq!((n.rune(1), n.rune(3), n.payload()), (Some(0x1234), None, Some(&b"x"[..])));
        n.split(1);
        assert_eq!((n.rune_count(), n.payload(), n.children[0].payload()), (1, None, Some(&b"x"[..])));
    }
}
