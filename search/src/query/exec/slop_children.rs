//! The children of the query's root the slop divisor reads offsets from: the text terms each
//! recorded, and whether it is a union RediSearch reads offsets from (none).

use roaring::RoaringBitmap;

use super::{Exec, SlopChild};
use crate::query::syntax::QueryAst;

impl<'a> Exec<'a> {
    /// Text term ids recorded since `start` (a child's offsets), `None` when there are none.
    /// The slop child for the score terms recorded since `start`: a lone quick-exit term
    /// keeps its expansions in term order and is marked first-only.
    pub(super) fn slop_child(&self, start: usize, docids: Option<RoaringBitmap>) -> SlopChild {
        match self.out.terms.get(start..).unwrap_or(&[]) {
            [t] if t.first_only => {
                SlopChild { ids: Some(t.ids.clone()), docids, first_only: true, first_only_in: None }
            }
            _ => {
                SlopChild { ids: self.text_ids_since(start), docids, first_only: false, first_only_in: None }
            }
        }
    }

    /// [`Self::slop_child`] of query node `it`: a clause of several tag values, and a
    /// numeric filter RediSearch reads as several ranges of its tree, are unions RediSearch
    /// reads offsets from (none).
    pub(super) fn slop_child_of(
        &self,
        it: &QueryAst,
        start: usize,
        docids: Option<RoaringBitmap>,
    ) -> SlopChild {
        let mut child = self.slop_child(start, docids);
        let mut node = it;
        while let QueryAst::Attrs { inner, .. } = node {
            node = inner;
        }
        let union = match node {
            QueryAst::Tag(_, values) => values.len() > 1,
            QueryAst::Numeric(field, lo, hi) if self.opts.range_unions => self
                .idx
                .spec
                .field(field)
                .and_then(|(pos, _)| self.idx.numeric_filter_reading(pos, lo.value, hi.value))
                .is_some_and(|r| r.union),
            QueryAst::Geo { field, lon, lat, radius, unit } if self.opts.range_unions => {
                let metres = radius * crate::index::geo::unit_factor(unit).unwrap_or(1.0);
                self.idx
                    .spec
                    .field(field)
                    .and_then(|(pos, _)| self.idx.geo_filter_reading(pos, *lon, *lat, metres))
                    .is_some_and(|r| r.union)
            }
            _ => false,
        };
        if child.ids.is_none() && union {
            child.ids = Some(Vec::new());
        }
        child
    }

    pub(super) fn text_ids_since(&self, start: usize) -> Option<Vec<u32>> {
        self.text_ids_in(start..self.out.terms.len())
    }

    /// Text term ids of the score terms in `terms`, sorted, `None` when there are none.
    pub(super) fn text_ids_in(&self, terms: std::ops::Range<usize>) -> Option<Vec<u32>> {
        let mut ids: Vec<u32> = self
            .out
            .terms
            .get(terms)
            .unwrap_or(&[])
            .iter()
            .filter(|t| t.tag_field.is_none())
            .flat_map(|t| t.ids.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        (!ids.is_empty()).then_some(ids)
    }
}
