//! A word's expansions skipped onto a document. RediSearch's intersection reads its other
//! children by skipping them to the document it stands on; a union child (a word and its
//! stems, synonyms, or an OR of such words) that lacks that document answers with the record
//! of its child of the lowest id alone (`UI_SkipTo`'s `minResult`), and when the intersection
//! then agrees on that id it keeps the record: there only the first reader holding the
//! document counts. This replays the root intersection in RediSearch's id order
//! ([`crate::query::replay`]) to find those documents, and splits each word's score term in
//! two: the whole union where it was read whole, its first expansion only where it was
//! skipped onto and no word before it in the OR holds the document.

use std::sync::Arc;

use roaring::RoaringBitmap;

use crate::query::replay::{group_records, Child, Held};
use crate::query::syntax::QueryAst;

use super::{Exec, ScoreTerm};

/// What one child of an intersection left for the replay.
#[derive(Debug, Clone, Copy)]
pub(super) enum Slot {
    /// Its documents are `pos[i]`.
    Pos(usize),
    /// A NOT whose clause matched `neg[i]`.
    Neg(usize),
    /// No iterator (a stopword, a NOT of nothing).
    Absent,
    /// A clause this replay does not model (OPTIONAL).
    Unmodelled,
}

/// A child read as a union of term readers ([`Exec::expansion_union`]).
struct Union {
    /// Its first score term (its terms are consecutive).
    start: usize,
    /// Per score term: how many readers (expansions) it has.
    counts: Vec<usize>,
    /// Each reader's documents, in the union's order.
    leaves: Vec<RoaringBitmap>,
}

impl Union {
    /// Whether RediSearch nests unions here: an OR of words, one of them with expansions.
    fn nested(&self) -> bool {
        self.counts.len() > 1 && self.counts.iter().any(|&n| n > 1)
    }

    /// Per score term, the documents where it counts its first expansion only and where it
    /// does not count, when the union's record at the documents `skipped` (flat: one level
    /// of readers) holds its first reader there alone: the first term holding the document
    /// counts its first expansion, the later ones nothing.
    fn flat_records(&self, skipped: &RoaringBitmap) -> Vec<(RoaringBitmap, RoaringBitmap)> {
        let mut earlier = RoaringBitmap::new();
        let mut out = Vec::new();
        let mut leaf = 0;
        for &n in &self.counts {
            out.push((skipped - &earlier, skipped & &earlier));
            for d in self.leaves.get(leaf..leaf + n).unwrap_or(&[]) {
                earlier |= d;
            }
            leaf += n;
        }
        out
    }

    /// Each word's readers' documents.
    fn groups(&self) -> Vec<&[RoaringBitmap]> {
        let mut out = Vec::new();
        let mut leaf = 0;
        for &n in &self.counts {
            out.push(self.leaves.get(leaf..leaf + n).unwrap_or(&[]));
            leaf += n;
        }
        out
    }
}

/// What the replay found of a union child's records.
enum Records {
    /// A flat union: the documents skipped onto (its first reader alone there).
    Skipped(RoaringBitmap),
    /// A nested union: per word, where it counts its first expansion only and where it does
    /// not count; then the documents where one reader alone gives the child's positions.
    Groups(Vec<(RoaringBitmap, RoaringBitmap)>, RoaringBitmap),
}

/// RediSearch's `minUnionIterHeap` (default 20): a union of more children reads through a
/// heap, whose record on a skip this does not model.
const MAX_UNION_CHILDREN: usize = 20;

/// A word or verbatim word, under `@field:` or attributes.
pub(super) fn is_word(q: &QueryAst) -> bool {
    match q {
        QueryAst::Field(_, inner) | QueryAst::Attrs { inner, .. } => is_word(inner),
        QueryAst::Word(_) | QueryAst::Verbatim(_) => true,
        _ => false,
    }
}

/// An intersection's children as [`Exec::and`] evaluated them.
pub(super) struct Children<'c> {
    pub items: &'c [QueryAst],
    pub slots: &'c [Slot],
    /// Per child: where its score terms start.
    pub starts: &'c [usize],
    /// Where the last child's score terms end.
    pub end: usize,
    pub pos: &'c [RoaringBitmap],
    pub neg: &'c [RoaringBitmap],
    /// RediSearch's reading order (fewest estimated documents first).
    pub order: &'c [usize],
}

impl Exec<'_> {
    /// The score terms of child `i` when it is read as a union of term readers: a word and
    /// its expansions, or an OR of such words (under `@field:` or attributes), with each
    /// reader's documents in the union's order (words in query order, each word's
    /// expansions in its order). RediSearch nests a word's union in the OR's, which reads as
    /// this flat list: the first reader holding the document at the lowest id gives the
    /// record of a union skipped onto it, at either level.
    fn expansion_union(&self, c: &Children, i: usize) -> Option<Union> {
        let mut node = c.items.get(i)?;
        loop {
            match node {
                QueryAst::Field(_, inner) | QueryAst::Attrs { inner, .. } => node = inner,
                QueryAst::Word(_) | QueryAst::Verbatim(_) => break,
                QueryAst::Or(items) if items.iter().all(is_word) => break,
                _ => return None,
            }
        }
        let end = c.starts.get(i + 1).copied().unwrap_or(c.end);
        let start = *c.starts.get(i)?;
        let terms = self.out.terms.get(start..end)?;
        if terms.is_empty() {
            return None;
        }
        let mut leaves = Vec::new();
        let mut counts = Vec::new();
        for t in terms {
            if t.first_only || t.tag_field.is_some() || t.leaf.is_some() || t.gate.is_some() {
                return None;
            }
            counts.push(t.ids.len());
            leaves.extend(t.ids.iter().map(|&id| self.docs_of(&[id], t.mask)));
        }
        // RediSearch reads a union of more children through a heap (another record).
        if leaves.len() < 2 || leaves.len() > MAX_UNION_CHILDREN {
            return None;
        }
        // Only a document holding two of them can score otherwise.
        let mut seen = RoaringBitmap::new();
        let mut twice = RoaringBitmap::new();
        for d in &leaves {
            twice |= &seen & d;
            seen |= d;
        }
        (!twice.is_empty()).then_some(Union { start, counts, leaves })
    }

    /// Replays the root intersection when a word child's expansions can be skipped onto,
    /// and splits those words' score terms (see the module's docs).
    /// Returns, per child split so, its index, the documents skipped onto and its ids in
    /// the union's order (for the slop measure's child).
    pub(super) fn union_skips(&mut self, c: &Children) -> Vec<(usize, Arc<RoaringBitmap>, Vec<u32>)> {
        let mut split = Vec::new();
        if c.slots.iter().any(|s| matches!(s, Slot::Unmodelled)) {
            return split;
        }
        let unions: Vec<Option<Union>> = (0..c.items.len()).map(|i| self.expansion_union(c, i)).collect();
        if unions.iter().all(Option::is_none) {
            return split;
        }
        for (i, rec) in self.skipped_onto(c, &unions) {
            let Some(u) = &unions[i] else { continue };
            let (per_term, slop_first) = match rec {
                Records::Skipped(skipped) => (u.flat_records(&skipped), skipped),
                Records::Groups(per_term, slop_first) => (per_term, slop_first),
            };
            if per_term.iter().all(|(f, e)| f.is_empty() && e.is_empty()) {
                continue;
            }
            let whole = c.pos_of(i).cloned().unwrap_or_default();
            let mut ids = Vec::new();
            for (k, (first, none)) in per_term.into_iter().enumerate() {
                let Some(t) = self.out.terms.get_mut(u.start + k) else { break };
                ids.extend_from_slice(&t.ids);
                t.gate = Some(Arc::new(&(&whole - &first) - &none));
                let copy = ScoreTerm { first_only: true, gate: Some(Arc::new(first)), ..t.clone() };
                self.out.terms.push(copy);
            }
            split.push((i, Arc::new(slop_first), ids));
        }
        split
    }
}

impl Children<'_> {
    fn pos_of(&self, i: usize) -> Option<&RoaringBitmap> {
        match self.slots.get(i) {
            Some(Slot::Pos(p)) => self.pos.get(*p),
            _ => None,
        }
    }
}

/// The general replay walks every document of every child, a few hundred nanoseconds each:
/// past this many together it is not made (every expansion then counts, as folio's own
/// reading of a union would).
const REPLAY_LIMIT: u64 = 10_000;

impl Exec<'_> {
    /// Per union child (by index): what its records held where the intersection hit.
    fn skipped_onto(&self, c: &Children, unions: &[Option<Union>]) -> Vec<(usize, Records)> {
        let docs = &self.idx.docs;
        // (RediSearch id, folio id), ascending.
        let pairs = |bm: &RoaringBitmap| -> Vec<(u32, u32)> {
            docs.in_redisearch_order(bm.iter()).into_iter().map(|(r, d)| (r as u32, d)).collect()
        };
        let read: Vec<usize> =
            c.order.iter().copied().filter(|&i| !matches!(c.slots[i], Slot::Absent)).collect();
        let nested = unions.iter().flatten().any(Union::nested);
        if let [x, y] = read[..] {
            if let (Some(a), Some(b), false) = (c.pos_of(x), c.pos_of(y), nested) {
                let [sa, sb] = two_children(&pairs(a), &pairs(b));
                return vec![(x, Records::Skipped(sa)), (y, Records::Skipped(sb))];
            }
        }
        let size: u64 = read
            .iter()
            .map(|&i| match c.slots[i] {
                Slot::Pos(p) => c.pos.get(p).map_or(0, RoaringBitmap::len),
                Slot::Neg(n) => c.neg.get(n).map_or(0, RoaringBitmap::len),
                _ => 0,
            })
            .sum();
        if size > REPLAY_LIMIT {
            return Vec::new();
        }
        let rs = |bm: &RoaringBitmap| -> Vec<u32> { pairs(bm).into_iter().map(|p| p.0).collect() };
        let children: Vec<Child> = read
            .iter()
            .map(|&i| match (c.slots[i], &unions[i]) {
                (Slot::Pos(_), Some(u)) if u.nested() => {
                    Child::Groups(u.groups().into_iter().map(|g| g.iter().map(rs).collect()).collect())
                }
                (Slot::Pos(_), Some(u)) => Child::Groups(u.leaves.iter().map(|l| vec![rs(l)]).collect()),
                (Slot::Pos(p), None) => Child::Reader(c.pos.get(p).map(rs).unwrap_or_default()),
                (Slot::Neg(n), _) => Child::Not(c.neg.get(n).map(rs).unwrap_or_default()),
                _ => Child::Reader(Vec::new()),
            })
            .collect();
        let max = u32::try_from(docs.last_redisearch_id()).unwrap_or(u32::MAX);
        let records = group_records(children, max);
        let mut out = Vec::new();
        for (hits, &i) in records.into_iter().zip(&read) {
            let (Some(u), Some(all)) = (&unions[i], c.pos_of(i)) else { continue };
            if hits.is_empty() {
                continue;
            }
            let folio: std::collections::HashMap<u32, u32> = pairs(all).into_iter().collect();
            out.push((i, u.records(hits, |r| folio.get(&r).copied())));
        }
        out
    }
}

impl Union {
    /// [`Records::Groups`] from the replay's records at each hit (RediSearch ids, mapped to
    /// folio's by `id`): per word for a nested union, per reader for a flat one.
    fn records(&self, hits: Vec<(u32, Vec<Held>)>, id: impl Fn(u32) -> Option<u32>) -> Records {
        let n = self.counts.len();
        let mut per_term = vec![(RoaringBitmap::new(), RoaringBitmap::new()); n];
        let mut slop = RoaringBitmap::new();
        // Each reader's term.
        let term_of: Vec<usize> =
            self.counts.iter().enumerate().flat_map(|(k, &c)| std::iter::repeat_n(k, c)).collect();
        for (r, held) in hits {
            let Some(d) = id(r) else { continue };
            let counted: Vec<usize> = (0..held.len()).filter(|&j| held[j] != Held::None).collect();
            if self.nested() {
                for (k, h) in held.iter().enumerate() {
                    match h {
                        Held::First => _ = per_term[k].0.insert(d),
                        Held::None => _ = per_term[k].1.insert(d),
                        Held::Full => {}
                    }
                }
                if let [k] = counted[..] {
                    if held[k] == Held::First || self.counts[k] == 1 {
                        slop.insert(d);
                    }
                }
                continue;
            }
            // A flat union: its record holds one reader where another one also holds the
            // document only when its skip missed.
            let [j] = counted[..] else { continue };
            let others = self.leaves.iter().enumerate().any(|(x, l)| x != j && l.contains(d));
            if !others {
                continue;
            }
            let kj = term_of.get(j).copied().unwrap_or(0);
            for (k, (first, none)) in per_term.iter_mut().enumerate() {
                if k == kj {
                    first.insert(d);
                } else {
                    none.insert(d);
                }
            }
            slop.insert(d);
        }
        Records::Groups(per_term, slop)
    }
}

/// RediSearch's intersection of two children, read in this order, without replaying it:
/// per child, the hits it reached by a skip that missed its target (folio ids). After a hit
/// `h` the first child lands on its first document `p0` past `h` (asked `h + 1`; at the start
/// it reads, which is no skip); from there the two leapfrog, each asked for the other's
/// position, so documents of the second child before `p0` are never visited. The next hit `d`
/// is reached by a missed skip of the child whose documents in `[p0, d)` do not hold the
/// larger one; when `p0` is `d`, by the first child unless `d` is `h + 1` or it read.
/// `a`, `b`: (RediSearch id, folio id), ascending.
fn two_children(a: &[(u32, u32)], b: &[(u32, u32)]) -> [RoaringBitmap; 2] {
    let mut out = [RoaringBitmap::new(), RoaringBitmap::new()];
    let (mut i, mut j) = (0, 0);
    let mut h = 0u32;
    // The largest position of each child visited since the last hit.
    let (mut ma, mut mb): (Option<u32>, Option<u32>) = (None, None);
    while let (Some(&(x, fx)), Some(&(y, fy))) = (a.get(i), b.get(j)) {
        if x < y {
            ma = Some(x);
            i += 1;
        } else if y < x {
            if ma.is_some() {
                mb = Some(y);
            }
            j += 1;
        } else {
            match ma {
                None => {
                    if h > 0 && x > h.saturating_add(1) {
                        out[0].insert(fx);
                    }
                }
                Some(p) if mb.is_none_or(|q| p > q) => {
                    out[1].insert(fy);
                }
                Some(_) => {
                    out[0].insert(fx);
                }
            }
            h = x;
            (ma, mb) = (None, None);
            i += 1;
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::replay::partial_unions;

    /// The general replay and the two-child walk agree on random lists.
    #[test]
    fn two_children_agrees_with_the_replay() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let n = 2 + next() % 60;
            let mut a = Vec::new();
            let mut b1 = Vec::new();
            let mut b2 = Vec::new();
            for d in 1..=n as u32 {
                if next() % 3 == 0 {
                    a.push(d);
                }
                if next() % 3 == 0 {
                    b1.push(d);
                }
                if next() % 4 == 0 {
                    b2.push(d);
                }
            }
            let ub: Vec<u32> = {
                let mut v: Vec<u32> = b1.iter().chain(&b2).copied().collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            let pairs = |v: &[u32]| v.iter().map(|&d| (d, d)).collect::<Vec<_>>();
            for flip in [false, true] {
                let (kids, union_at) = if flip {
                    (vec![Child::Union(vec![b1.clone(), b2.clone()]), Child::Reader(a.clone())], 0)
                } else {
                    (vec![Child::Reader(a.clone()), Child::Union(vec![b1.clone(), b2.clone()])], 1)
                };
                let replayed = partial_unions(kids, n as u32);
                let walked = if flip {
                    two_children(&pairs(&ub), &pairs(&a))
                } else {
                    two_children(&pairs(&a), &pairs(&ub))
                };
                let want: Vec<u32> = replayed[union_at].clone();
                let got: Vec<u32> = walked[union_at].iter().collect();
                assert_eq!(got, want, "a {a:?} b1 {b1:?} b2 {b2:?} flip {flip}");
            }
        }
    }
}
