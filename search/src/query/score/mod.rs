//! Scorers (TFIDF, TFIDF.DOCNORM, BM25, BM25STD, BM25STD.NORM, BM25STD.TANH, DISMAX,
//! DOCSCORE) computed for candidate documents only, following RediSearch's formulas (`logb`
//! IDF, max-frequency normalization). BM25STD.NORM's division by the largest score of the
//! result set is the caller's ([`max_score`], [`normalized`]), since it needs every result.

pub use bm25std::{
    max_score, normalized, parse_tanh_factor, tanh_factor_error, DEFAULT_TANH_FACTOR, TANH_FACTOR_RANGE,
};
pub use explain::Explanation;

use roaring::RoaringBitmap;

use crate::index::docs::TermOcc;
use crate::index::postings::{Cursor, PosCursor};
use crate::index::{freq_weight, FieldIndex, Index};
use crate::query::exec::{ScoreTerm, SlopShape};
use crate::query::topk::{BoundTerm, SkipPlan};

mod bm25std;
mod document;
mod expansions;
mod explain;
mod formulas;
mod slop;
mod window;

use document::{Doc, ExpansionHits};
use expansions::{FirstHits, Ranks};
use formulas::{bm25, bm25std, divided_above, tfidf_undivided};
pub use formulas::{bm25_idf, hamming, idf, score_order, Scorer};
use slop::Scratch;

/// Precomputed per-term data for one query.
pub struct ScoreContext<'a> {
    idx: &'a Index,
    terms: &'a [ScoreTerm],
    idfs: Vec<Vec<f64>>,
    weights: Vec<(f64, f64)>,
    scorer: Scorer,
    avg_len: f64,
    /// Text (term id, term index, idf) sorted by id, for merge-joining with a document's
    /// occurrences when a query has many expansions.
    lookup: Vec<(u32, usize, f64)>,
    /// (term index, expansion id) → rank among the term's ids, for first-only terms with
    /// many expansions.
    first_rank: Vec<Option<Ranks>>,
    /// Per term: for a quick-exit term with many expansions, each document's first
    /// expansion, read term by term from the postings ([`FirstHits`]).
    first_hits: Vec<Option<FirstHits>>,
    /// The root's children for the slop divisor.
    slop: &'a SlopShape,
    /// (term id, child index) of the slop children's text terms, sorted.
    slop_terms: Vec<(u32, usize)>,
    /// A positions cursor per entry of `slop_terms`.
    slop_cursors: Vec<PosCursor>,
    /// Buffers of the slop divisor, reused from one document to the next.
    scratch: std::cell::RefCell<Scratch>,
    /// The record's forward entries of the document being scored (merge-join path).
    occs_buf: std::cell::RefCell<Vec<TermOcc>>,
    /// Per term, per expansion id: where the last frequency lookup ended (documents are
    /// mostly scored in id order, so lookups walk each term's postings forward).
    cursors: Vec<Vec<Cursor>>,
    /// Term-at-a-time sums of a window, for unions scored in document order ([`window`]).
    window: window::Windowed,
    /// Per term: every document that will be scored holds it (see [`Self::matching`]), so a
    /// tag or leaf term's frequency is 1 without looking the document up.
    held_by_all: Vec<bool>,
    /// TFIDF and TFIDF.DOCNORM when every term is held by all the documents and none has
    /// positions (a filter query: tags, ranges): the weighted sum and the slop divisor are
    /// the same for every document, and only its score and norm vary.
    constant: Option<(f64, f64)>,
    /// HAMMING's scores, computed by the caller from the payloads (absent documents: 0).
    given: Option<std::collections::HashMap<u32, f64>>,
    /// HAMMING: the length of the query's payload (for EXPLAINSCORE).
    payload_len: usize,
}

/// Above this many text expansions, scoring merge-joins instead of binary-searching.
const MERGE_JOIN_THRESHOLD: usize = 8;

impl<'a> ScoreContext<'a> {
    /// Redis 8's tag terms: RediSearch 8 opens a tag's reader with a query term of IDF 0
    /// (`TagIndex_GetReader`, `NewQueryTerm(&tok, 0)`), so a tag match adds nothing to a
    /// TFIDF, BM25 or BM25STD score (RediSearch 2.10 gave tags their IDF).
    pub fn without_tag_idf(mut self) -> Self {
        for (t, idfs) in self.terms.iter().zip(self.idfs.iter_mut()) {
            if t.tag_field.is_some() {
                idfs.iter_mut().for_each(|x| *x = 0.0);
            }
        }
        self
    }

    /// Prepares scoring of `terms` with `scorer`; `slop` is the query root's shape (see
    /// [`SlopShape`]).
    pub fn new(
        idx: &'a Index,
        terms: &'a [ScoreTerm],
        slop: &'a SlopShape,
        scorer: Scorer,
    ) -> ScoreContext<'a> {
        // Cluster hook (distributed::stats): global figures on a shard, else the local ones.
        let n = crate::distributed::stats::total_docs(idx.docs.len());
        let idfs = terms
            .iter()
            .map(|t| {
                t.ids
                    .iter()
                    .map(|&id| {
                        let df = match t.tag_field.and_then(|f| idx.fields.get(f as usize)) {
                            Some(FieldIndex::Tag(ti)) => ti.counted_docs(id),
                            _ => idx.text.counted_doc_freq(id),
                        };
                        let df = crate::distributed::stats::doc_freq(t.tag_field, id, df);
                        if scorer.is_bm25std() {
                            bm25_idf(n, df)
                        } else {
                            // RediSearch passes its doc table's size, one more than the
                            // number of documents (`CalculateIDF(sp->docs.size, …)`).
                            idf(n + 1, df)
                        }
                    })
                    .collect()
            })
            .collect();
        // Per text field ordinal: what an occurrence adds to a frequency (word, stem); an
        // ordinal past the end adds (1, 1).
        let mut weights: Vec<(f64, f64)> = Vec::new();
        for (i, f) in idx.spec.fields.iter().enumerate() {
            let Some(o) = idx.text_ord(i).map(usize::from).filter(|o| *o < 128) else { continue };
            if weights.len() <= o {
                weights.resize(o + 1, (1.0, 1.0));
            }
            if let Some(slot) = weights.get_mut(o) {
                *slot = (f64::from(freq_weight(f.weight, false)), f64::from(freq_weight(f.weight, true)));
            }
        }
        let mut lookup: Vec<(u32, usize, f64)> = terms
            .iter()
            .zip(&idfs)
            .enumerate()
            .filter(|(_, (t, _))| t.tag_field.is_none() && !t.first_only && t.leaf.is_none())
            .flat_map(|(ti, (t, idfs)): (usize, (&ScoreTerm, &Vec<f64>))| {
                t.ids.iter().zip(idfs.iter()).map(move |(&id, &idf)| (id, ti, idf)).collect::<Vec<_>>()
            })
            .collect();
        lookup.sort_by_key(|x| (x.0, x.1));
        let mut slop_terms: Vec<(u32, usize)> = match slop {
            SlopShape::Single | SlopShape::Phrase(_) => Vec::new(),
            SlopShape::Intersect(c) | SlopShape::Union(c) | SlopShape::Expansions { children: c, .. } => c
                .iter()
                .enumerate()
                .flat_map(|(k, c)| c.ids.iter().flatten().map(move |&id| (id, k)))
                .collect(),
        };
        slop_terms.sort_unstable();
        slop_terms.dedup();
        let first_rank = terms
            .iter()
            .map(|t| (t.first_only && t.ids.len() > MERGE_JOIN_THRESHOLD).then(|| Ranks::new(&t.ids)))
            .collect();
        let cursors = terms.iter().map(|t| vec![Cursor::default(); t.ids.len()]).collect();
        let first_hits = terms
            .iter()
            .map(|t| {
                let many = t.first_only && t.ids.len() > MERGE_JOIN_THRESHOLD && t.tag_field.is_none();
                if many {
                    FirstHits::new(idx, t)
                } else {
                    None
                }
            })
            .collect();
        let mut ctx = ScoreContext {
            window: None,
            scratch: Default::default(),
            occs_buf: Default::default(),
            slop_cursors: slop_terms.iter().map(|_| PosCursor::default()).collect(),
            first_hits,
            cursors,
            idx,
            first_rank,
            terms,
            idfs,
            weights,
            scorer,
            avg_len: crate::distributed::stats::avg_doc_len(idx.avg_doc_len()),
            lookup,
            slop,
            slop_terms,
            held_by_all: vec![false; terms.len()],
            constant: None,
            given: None,
            payload_len: 0,
        };
        if ctx.windowed() {
            ctx.window = Some(std::cell::RefCell::default());
        }
        ctx
    }

    /// Scores given by the caller (HAMMING's, from the payloads of `payload_len` bytes), 0 for
    /// documents not listed.
    pub fn with_scores(mut self, scores: std::collections::HashMap<u32, f64>, payload_len: usize) -> Self {
        self.given = Some(scores);
        self.payload_len = payload_len;
        self
    }

    /// Declares the documents that will be scored, `ids` (the query's matches, or a subset):
    /// a tag term of one value, or a leaf term (a numeric or geo range, `*`), that holds every
    /// one of them then counts frequency 1 in each without a lookup per document (the
    /// common case of a filter at the root or inside an intersection). Scoring a document
    /// outside `ids` afterwards would be wrong.
    pub fn matching(mut self, ids: &RoaringBitmap) -> Self {
        for (held, t) in self.held_by_all.iter_mut().zip(self.terms) {
            *held = match (&t.leaf, t.tag_field, t.ids.as_slice()) {
                (Some((_, docs)), _, _) => ids.is_subset(docs),
                (None, Some(f), [id]) => match self.idx.fields.get(usize::from(f)) {
                    Some(FieldIndex::Tag(ti)) => ti.docs(*id).is_some_and(|b| ids.is_subset(b)),
                    _ => false,
                },
                _ => false,
            };
        }
        self.constant = self.constant_parts();
        if self.window.is_none() && self.windowed_dense(ids) {
            self.window = Some(std::cell::RefCell::default());
        }
        if self.window.is_some() && window::too_sparse(ids) {
            // A few documents far apart: one lookup each is cheaper than a window each.
            self.window = None;
        }
        self
    }

    /// The weighted sum and the slop divisor of [`Self::constant`], computed as
    /// [`Self::score`] computes them for any one document (same terms, same order).
    fn constant_parts(&self) -> Option<(f64, f64)> {
        if !matches!(self.scorer, Scorer::TfIdf | Scorer::TfIdfDocNorm)
            || self.terms.is_empty()
            || self.terms.iter().any(|t| t.gate.is_some())
        {
            return None;
        }
        let slop = match self.slop {
            SlopShape::Single => 1.0,
            // No child with positions: `slop_divisor`'s count of children minus one.
            SlopShape::Intersect(c) if c.iter().all(|c| c.ids.is_none()) => {
                c.len().saturating_sub(1).max(1) as f64
            }
            _ => return None,
        };
        let mut raw = 0.0;
        for ((t, idfs), held) in self.terms.iter().zip(&self.idfs).zip(&self.held_by_all) {
            if !held {
                return None;
            }
            let (f, idf) = if t.leaf.is_some() { (1.0, 1.0) } else { (1.0, *idfs.first()?) };
            let w = t.ids.first().map_or(t.weight, |&id| t.weight_of(id, self.scorer));
            raw += w * (f * idf);
        }
        Some((raw, slop))
    }

    /// What [`crate::query::topk`] may skip with: the query's terms with their postings and
    /// `weight x idf`, when the scorer is TFIDF over text terms of whole-number weights
    /// (the conditions under which its bounds are exact); `None` otherwise.
    pub fn skip_plan(&self) -> Option<SkipPlan<'a>> {
        // Under an intersection a gate only lowers what a term adds: its postings still bound
        // it. A word split where a union was skipped onto documents (`exec::skips`) keeps its
        // whole term, which bounds the first-only copy too: the copy adds no bound.
        let gates_bound = matches!(self.slop, SlopShape::Intersect(_) | SlopShape::Phrase(_));
        if self.scorer != Scorer::TfIdf
            || self.idx.spec.no_freqs
            || self.terms.is_empty()
            || (!gates_bound && self.terms.iter().any(|t| t.gate.is_some()))
        {
            return None;
        }
        let mut out = Vec::with_capacity(self.terms.len());
        for (i, (t, idfs)) in self.terms.iter().zip(&self.idfs).enumerate() {
            if self.is_split_copy(i) {
                continue;
            }
            let whole = t.weight.fract() == 0.0 && (0.0..=1e6).contains(&t.weight);
            if t.tag_field.is_some() || t.leaf.is_some() || !whole {
                return None;
            }
            let mut lists = Vec::with_capacity(t.ids.len());
            for (&id, &idf) in t.ids.iter().zip(idfs) {
                let w = t.weight_of(id, Scorer::TfIdf);
                let whole = w.fract() == 0.0 && (0.0..=1e6).contains(&w);
                if !whole || idf.fract() != 0.0 || !(0.0..=1e6).contains(&idf) {
                    return None;
                }
                let idx: &'a Index = self.idx;
                if let Some(list) = idx.text.list(id) {
                    lists.push((list, w as u64 * idf as u64));
                }
            }
            // A union's documents hold some of its terms only: which ones, for MaxScore.
            let docs = matches!(self.slop, SlopShape::Union(_)).then(|| {
                let mut bm = RoaringBitmap::new();
                for &id in &t.ids {
                    bm |= self.idx.term_docs(id, t.mask);
                }
                bm
            });
            out.push(BoundTerm { lists, first_only: t.first_only, docs });
        }
        Some(SkipPlan::new(out))
    }

    /// Whether term `i` is the first-only copy of a word split where the root intersection
    /// skipped its union onto documents (`exec::skips`): the whole term before it has the same
    /// ids, and bounds it.
    pub(super) fn is_split_copy(&self, i: usize) -> bool {
        let Some(t) = self.terms.get(i) else { return false };
        t.first_only
            && t.gate.is_some()
            && self.terms[..i].iter().any(|o| !o.first_only && Self::same_word(o, t))
    }

    /// The first-only copy of term `i`, when it is a word split so (see [`Self::is_split_copy`]).
    fn split_copy_of(&self, i: usize) -> Option<usize> {
        let t = self.terms.get(i).filter(|t| !t.first_only)?;
        (i + 1..self.terms.len()).find(|&j| self.is_split_copy(j) && Self::same_word(&self.terms[j], t))
    }

    fn same_word(a: &ScoreTerm, b: &ScoreTerm) -> bool {
        a.ids == b.ids && a.mask == b.mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idf_is_floor_log2() {
        assert_eq!(idf(1, 1), 1.0);
        assert_eq!(idf(10, 1), 3.0);
        assert_eq!(idf(100, 50), 1.0);
        assert!(Scorer::parse("bm25").is_ok());
        assert_eq!(Scorer::parse("x").unwrap_err().0, "Invalid scorer name");
        assert_eq!(Scorer::parse("bm25std.norm").unwrap(), Scorer::Bm25StdNorm);
        assert_eq!(Scorer::parse("BM25STD.TANH").unwrap().with_tanh_factor(9), Scorer::Bm25StdTanh(9));
        assert_eq!(Scorer::TfIdf.with_tanh_factor(9), Scorer::TfIdf);
    }

    #[test]
    fn max_normalization() {
        let max = max_score([1.0, 4.0, 2.0]);
        assert_eq!((max, normalized(1.0, max)), (4.0, 0.25));
        assert_eq!(max_score([]), 0.0);
        assert_eq!(normalized(0.0, 0.0), 0.0);
    }
}
