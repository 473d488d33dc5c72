//! What RediSearch's iterators estimate of their results: it decides the reading order of an
//! intersection's children, and with it which unions are skipped onto a document ([`super::skips`]).

use roaring::RoaringBitmap;

use super::{skips, Exec};
use crate::query::syntax::QueryAst;

impl<'a> Exec<'a> {
    /// RediSearch's estimate of an intersection child's number of results (its iterator's
    /// `NumEstimated`): a word, the documents of each of its expansions summed; a nested
    /// intersection 0 (RediSearch divides its estimate by its child count in integers); a
    /// negated or optional clause every document; anything else the documents it matched.
    pub(super) fn estimate(
        &self,
        it: &QueryAst,
        terms: std::ops::Range<usize>,
        result: Option<&RoaringBitmap>,
    ) -> u64 {
        match it {
            // A field restriction or attributes do not change the iterator: a word's reader
            // under `@f:` still estimates its term's documents in every field.
            QueryAst::Field(_, inner) | QueryAst::Attrs { inner, .. } => self.estimate(inner, terms, result),
            QueryAst::Not(_) | QueryAst::Optional(_) => self.idx.docs.live.len(),
            QueryAst::And(_) => 0,
            QueryAst::Word(_) | QueryAst::Verbatim(_) => match self.text_ids_in(terms) {
                Some(ids) => ids.iter().map(|&id| self.idx.text.doc_freq(id)).sum(),
                None => result.map_or(0, RoaringBitmap::len),
            },
            QueryAst::Tag(..) => self.tag_estimate(terms),
            // A union: its children's estimates summed (`nexpected`); for an OR of words,
            // every expansion of every word (one shared by two words counts twice).
            QueryAst::Or(items) if items.iter().all(skips::is_word) => {
                let ts = self.out.terms.get(terms).unwrap_or(&[]);
                ts.iter().flat_map(|t| t.ids.iter()).map(|&id| self.idx.text.doc_freq(id)).sum()
            }
            QueryAst::Numeric(..) | QueryAst::Geo { .. }
                if self.opts.range_unions || self.opts.term_scores =>
            {
                self.range_estimate(it).unwrap_or_else(|| result.map_or(0, RoaringBitmap::len))
            }
            _ => result.map_or(0, RoaringBitmap::len),
        }
    }

    /// A numeric or geo filter's estimate as RediSearch's range readers give it: the
    /// documents of the tree's ranges it reaches, not the ones it matched (a range partly
    /// inside the filter counts whole), read off the model of the trees. It decides where
    /// the filter stands in an intersection's reading order, so which word unions that
    /// intersection skips onto a document ([`skips`]). `None` for a field without a tree.
    pub(super) fn range_estimate(&self, it: &QueryAst) -> Option<u64> {
        let idx = self.idx;
        match it {
            QueryAst::Numeric(field, lo, hi) => {
                let (pos, _) = idx.spec.field(field)?;
                Some(idx.numeric_filter_reading(pos, lo.value, hi.value).map_or(0, |r| r.estimate))
            }
            QueryAst::Geo { field, lon, lat, radius, unit } => {
                let (pos, _) = idx.spec.field(field)?;
                let metres = radius * crate::index::geo::unit_factor(unit)?;
                Some(idx.geo_filter_reading(pos, *lon, *lat, metres).map_or(0, |r| r.estimate))
            }
            _ => None,
        }
    }
}
