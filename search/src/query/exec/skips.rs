//! A word's expansions skipped onto a document. RediSearch's intersection reads its other
//! children by skipping them to the document it stands on; a union child (a word and its
//! stems, synonyms) that lacks that document answers with the record of its child of the
//! lowest id alone (`UI_SkipTo`'s `minResult`), and when the intersection then agrees on that
//! id it keeps the record: there only the first expansion the document holds counts. This
//! replays the root intersection in RediSearch's id order ([`crate::query::replay`]) to find
//! those documents, and splits the word's score term in two: the whole union where it was
//! read whole, its first expansion only where it was skipped onto.

use std::sync::Arc;

use roaring::RoaringBitmap;

use crate::query::replay::{partial_unions, Child};
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
    /// The score term of child `i` when it is a word read as a union of several
    /// expansions, with each expansion's documents.
    fn expansion_union(&self, c: &Children, i: usize) -> Option<(usize, Vec<RoaringBitmap>)> {
        let mut node = c.items.get(i)?;
        loop {
            match node {
                QueryAst::Field(_, inner) | QueryAst::Attrs { inner, .. } => node = inner,
                QueryAst::Word(_) => break,
                _ => return None,
            }
        }
        let end = c.starts.get(i + 1).copied().unwrap_or(c.end);
        let start = *c.starts.get(i)?;
        if end != start + 1 {
            return None;
        }
        let t = self.out.terms.get(start)?;
        if t.ids.len() < 2 || t.first_only || t.tag_field.is_some() || t.leaf.is_some() || t.gate.is_some() {
            return None;
        }
        let docs: Vec<RoaringBitmap> = t.ids.iter().map(|&id| self.docs_of(&[id], t.mask)).collect();
        // Only a document holding two of them can score otherwise.
        let mut seen = RoaringBitmap::new();
        let mut twice = RoaringBitmap::new();
        for d in &docs {
            twice |= &seen & d;
            seen |= d;
        }
        (!twice.is_empty()).then_some((start, docs))
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
        let unions: Vec<Option<(usize, Vec<RoaringBitmap>)>> =
            (0..c.items.len()).map(|i| self.expansion_union(c, i)).collect();
        if unions.iter().all(Option::is_none) {
            return split;
        }
        let docs = &self.idx.docs;
        let rs = |bm: &RoaringBitmap| -> Vec<u32> {
            let mut v: Vec<u32> = bm.iter().map(|d| docs.redisearch_id(d) as u32).collect();
            v.sort_unstable();
            v
        };
        let mut children = Vec::new();
        let mut which = Vec::new();
        for &i in c.order {
            let child = match (c.slots[i], &unions[i]) {
                (Slot::Pos(_), Some((_, exp))) => Child::Union(exp.iter().map(rs).collect()),
                (Slot::Pos(p), None) => Child::Reader(c.pos.get(p).map(rs).unwrap_or_default()),
                (Slot::Neg(n), _) => Child::Not(c.neg.get(n).map(rs).unwrap_or_default()),
                _ => continue,
            };
            children.push(child);
            which.push(i);
        }
        let max = u32::try_from(docs.last_redisearch_id()).unwrap_or(u32::MAX);
        let partial = partial_unions(children, max);
        for (hits, i) in partial.into_iter().zip(which) {
            let Some((ti, exp)) = &unions[i] else { continue };
            if hits.is_empty() {
                continue;
            }
            let all: RoaringBitmap = exp.iter().fold(RoaringBitmap::new(), |a, b| a | b);
            let skipped: RoaringBitmap = docs
                .in_redisearch_order(all.iter())
                .into_iter()
                .filter(|(r, _)| hits.binary_search(&(*r as u32)).is_ok())
                .map(|(_, id)| id)
                .collect();
            let whole = &all - &skipped;
            let Some(t) = self.out.terms.get_mut(*ti) else { continue };
            let skipped = Arc::new(skipped);
            let first: ScoreTerm = ScoreTerm { first_only: true, gate: Some(skipped.clone()), ..t.clone() };
            t.gate = Some(Arc::new(whole));
            split.push((i, skipped, t.ids.clone()));
            self.out.terms.push(first);
        }
        split
    }
}
