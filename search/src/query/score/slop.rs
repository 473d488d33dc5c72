//! RediSearch's slop divisor (`IndexResult_MinOffsetDelta`): TFIDF and BM25 scores are
//! divided by the integer square root of the summed squared minimal distances between the
//! positions of the query root's consecutive children, read from the postings.

use std::ops::Range;

use super::{Doc, ScoreContext};
use crate::index::docs::DocRecord;
use crate::index::postings::PosCursor;
use crate::query::exec::SlopShape;

/// The slop divisor's buffers: matched children, positions read, (slop term, range of its
/// positions), (child, position) pairs, the expansion chosen per child, (expansion, child)
/// pairs of a root's expansions.
#[derive(Default)]
pub(super) struct Scratch {
    chosen: Vec<Option<u32>>,
    order: Vec<(u32, usize)>,
    matched: Vec<bool>,
    buf: Vec<u32>,
    found: Vec<(usize, Range<usize>)>,
    pairs: Vec<(usize, u32)>,
}

/// Up to this many slop terms, each one's postings are probed for a document; above, the
/// document's own terms say which to read.
const SLOP_PROBE_MAX: usize = 32;

impl ScoreContext<'_> {
    /// RediSearch's `IndexResult_MinOffsetDelta` for this document: over consecutive root
    /// children that have positions, the minimal distance between their positions, squared
    /// and summed; the integer square root of the sum, or (when it is 0) the number of
    /// children minus one; 1 for a single term. A union counts the children the document
    /// matched.
    pub(super) fn slop_divisor(&self, d: &Doc) -> f64 {
        let doc = d.id;
        let (children, union) = match self.slop {
            SlopShape::Single => return 1.0,
            // n - 1 distances of 1 each: the integer square root of n - 1.
            SlopShape::Phrase(n) => return ((n.saturating_sub(1) as f64).sqrt() as i64).max(1) as f64,
            SlopShape::Intersect(c) => (c, false),
            SlopShape::Union(c) | SlopShape::Expansions { children: c, .. } => (c, true),
        };
        if children.len() <= 1 {
            return 1.0;
        }
        // Which children the document matched (unions only; an intersection matched all):
        // from their documents where known, else from the document's terms.
        let mut scratch = self.scratch.borrow_mut();
        let Scratch { chosen, matched, buf, found, pairs, .. } = &mut *scratch;
        matched.clear();
        if union {
            matched.extend(children.iter().map(|c| c.docids.as_ref().is_some_and(|bm| bm.contains(doc))));
        } else {
            matched.resize(children.len(), true);
        }
        let by_terms = union && children.iter().any(|c| c.docids.is_none());
        let count_now = matched.iter().filter(|m| **m).count();
        if !by_terms {
            if count_now <= 1 {
                return 1.0;
            }
            // Fewer than two matched children with positions: no distance to measure.
            let positioned =
                children.iter().zip(matched.iter()).filter(|(c, m)| **m && c.ids.is_some()).count();
            if positioned < 2 {
                return count_now.saturating_sub(1).max(1) as f64;
            }
        }
        // The children's terms the document holds (index into `slop_terms`) and their
        // positions, from the postings.
        buf.clear();
        found.clear();
        let mut read = |j: usize, found: &mut Vec<(usize, Range<usize>)>| {
            let (Some(&(id, _)), Some(at)) = (self.slop_terms.get(j), self.slop_cursors.get(j)) else {
                return;
            };
            let start = buf.len();
            if self.idx.text.list(id).and_then(|l| l.positions(doc, at, buf)).is_some() {
                found.push((j, start..buf.len()));
            }
        };
        if self.slop_terms.len() <= SLOP_PROBE_MAX {
            for j in 0..self.slop_terms.len() {
                read(j, found);
            }
        } else {
            // Many terms (expansions): the document's own terms say which to read.
            let mut j = 0;
            for term in d.rec().into_iter().flat_map(DocRecord::terms) {
                while self.slop_terms.get(j).is_some_and(|x| x.0 < term) {
                    j += 1;
                }
                let mut k = j;
                while self.slop_terms.get(k).is_some_and(|x| x.0 == term) {
                    read(k, found);
                    k += 1;
                }
            }
        }
        let child_of = |j: usize| self.slop_terms.get(j).map_or((0, usize::MAX), |x| (x.0, x.1));
        if by_terms {
            for &(j, _) in found.iter() {
                let (_, k) = child_of(j);
                if let (Some(slot), Some(c)) = (matched.get_mut(k), children.get(k)) {
                    *slot |= c.docids.is_none();
                }
            }
        }
        let count = matched.iter().filter(|m| **m).count();
        if count <= 1 {
            return 1.0;
        }
        // A quick-exit child (prefix, fuzzy) gives the positions of its first expansion the
        // document has, only.
        chosen.clear();
        chosen.extend(children.iter().enumerate().map(|(k, c)| {
            let first_only = c.first_only || c.first_only_in.as_ref().is_some_and(|b| b.contains(doc));
            match (&c.ids, first_only) {
                (Some(ids), true) => found
                    .iter()
                    .map(|&(j, _)| child_of(j))
                    .filter(|&(_, ck)| ck == k)
                    .filter_map(|(id, _)| ids.iter().position(|&x| x == id).map(|r| (r, id)))
                    .min()
                    .map(|(_, id)| id),
                _ => None,
            }
        }));
        pairs.clear();
        for (j, range) in found.drain(..) {
            let (id, k) = child_of(j);
            let takes = chosen.get(k).copied().flatten().is_none_or(|c| c == id);
            if takes && matched.get(k).copied().unwrap_or(false) {
                pairs.extend(buf.get(range).unwrap_or(&[]).iter().map(|&p| (k, p)));
            }
        }
        // A child whose offsets end at once (a union of tag values): RediSearch's walk meets
        // its end first.
        for (k, c) in children.iter().enumerate() {
            if c.ids.as_ref().is_some_and(Vec::is_empty) && matched.get(k).copied().unwrap_or(false) {
                pairs.push((k, EOF));
            }
        }
        divisor(pairs, count)
    }

    /// [`Self::slop_divisor`] for a root that is one term's expansions, knowing which of them
    /// the document matched (`matched`, from the scoring pass).
    pub(super) fn expansions_divisor(&self, doc: u32, matched: &[u32], term: usize) -> f64 {
        let Some(t) = self.terms.get(term) else { return 1.0 };
        let mut scratch = self.scratch.borrow_mut();
        let Scratch { order, buf, pairs, .. } = &mut *scratch;
        // (id, child index in expansion order), sorted by id.
        order.clear();
        order.extend(matched.iter().filter_map(|id| t.ids.iter().position(|x| x == id).map(|k| (*id, k))));
        order.sort_unstable();
        order.dedup_by_key(|x| x.0);
        pairs.clear();
        for &(id, k) in order.iter() {
            buf.clear();
            if let Some(l) = self.idx.text.list(id) {
                l.positions(doc, &PosCursor::default(), buf);
            }
            pairs.extend(buf.iter().map(|&p| (k, p)));
        }
        divisor(pairs, matched.len())
    }
}

/// RediSearch's end of offsets (`RS_OFFSETVECTOR_EOF`), as a position.
const EOF: u32 = u32::MAX;

/// The divisor from (child, position) pairs of `count` matched children: consecutive
/// children's minimal distances, squared and summed, integer square root; `count - 1` when
/// the sum is 0.
fn divisor(pairs: &mut [(usize, u32)], count: usize) -> f64 {
    pairs.sort_unstable();
    let mut dist: u64 = 0;
    let mut prev: Option<&[(usize, u32)]> = None;
    for group in pairs.chunk_by(|a, b| a.0 == b.0) {
        if let Some(p) = prev {
            let cd = u64::from(min_delta(p, group));
            dist = dist.saturating_add(cd.saturating_mul(cd));
        }
        prev = Some(group);
    }
    if dist == 0 {
        count.saturating_sub(1).max(1) as f64
    } else {
        ((dist as f64).sqrt() as i64).max(1) as f64
    }
}

/// The distance RediSearch finds between two position lists: it walks both in order from
/// their first positions and stops as soon as a distance of at most 1 is seen. A list that
/// ends at once ([`EOF`]) stops the walk: the distance is then taken from the end marker in
/// 32 bits and read as a C `int`, so it comes out as the other list's first position plus 1
/// (0 between two such lists).
fn min_delta(a: &[(usize, u32)], b: &[(usize, u32)]) -> u32 {
    let (mut i, mut j) = (0, 0);
    let (Some(&(_, p1)), Some(&(_, p2))) = (a.first(), b.first()) else { return 0 };
    if p1 == EOF || p2 == EOF {
        return (p1.abs_diff(p2) as i32).unsigned_abs();
    }
    let (mut p1, mut p2) = (p1, p2);
    let mut cd = p1.abs_diff(p2);
    while cd > 1 {
        cd = cd.min(p1.abs_diff(p2));
        if p2 > p1 {
            i += 1;
            match a.get(i) {
                Some(&(_, x)) => p1 = x,
                None => break,
            }
        } else {
            j += 1;
            match b.get(j) {
                Some(&(_, x)) => p2 = x,
                None => break,
            }
        }
    }
    cd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_delta_follows_the_redisearch_walk() {
        let l = |v: &[u32]| v.iter().map(|&p| (0usize, p)).collect::<Vec<_>>();
        assert_eq!(min_delta(&l(&[1]), &l(&[2])), 1);
        assert_eq!(min_delta(&l(&[1]), &l(&[4])), 3);
        assert_eq!(min_delta(&l(&[1, 20]), &l(&[10, 22])), 2);
        assert_eq!(min_delta(&l(&[5]), &l(&[5])), 0);
        // The walk stops at the first distance <= 1, even if 0 comes later.
        assert_eq!(min_delta(&l(&[3, 9]), &l(&[4, 9])), 1);
        // Offsets that end at once: the other's first position plus 1, either way round.
        assert_eq!(min_delta(&l(&[7, 9]), &l(&[EOF])), 8);
        assert_eq!(min_delta(&l(&[EOF]), &l(&[4])), 5);
        assert_eq!(min_delta(&l(&[EOF]), &l(&[EOF])), 0);
    }
}
