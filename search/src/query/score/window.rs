//! Term-at-a-time scoring of a union inside a window of document ids: each term's postings
//! in the window are read in one sequential pass and their contributions summed per
//! document, instead of one lookup per term for every document scored. The top k asks for
//! scores in document order ([`ScoreContext::score_in_order`]); a window of [`SPAN`] ids
//! is filled when a document past the current one is asked for.
//!
//! Same scores as [`ScoreContext::score`]: per document the contributions are added in the
//! same order (term by term, expansion by expansion, from 0.0), with the same arithmetic,
//! and the slop divisor and the final formula are the general path's. A document whose
//! posting cannot tell its frequency or fields (an escaped frequency, a field sharing the
//! mask's last bit) is left to the general path, and so are documents asked for out of
//! order.

use std::cell::RefCell;

use super::{Doc, ScoreContext, Scorer, MERGE_JOIN_THRESHOLD};
use crate::index::postings::FREQ_ESCAPE;
use crate::index::text::ALL_FIELDS;
use crate::query::exec::SlopShape;

/// Width of a window, in document ids.
const SPAN: u32 = 2048;

/// Whether the documents `ids` are too far apart for windows to pay: fewer than
/// [`MIN_PER_WINDOW`] of them a window they fall in, on average (filling a window clears
/// [`SPAN`] sums and reads its range of every term's postings; scoring a document without
/// one looks its postings up).
pub(super) fn too_sparse(ids: &roaring::RoaringBitmap) -> bool {
    let (Some(lo), Some(hi)) = (ids.min(), ids.max()) else { return true };
    let windows = (u64::from(hi - lo) / u64::from(SPAN) + 1).min(ids.len());
    ids.len() < MIN_PER_WINDOW * windows
}

/// The fewest documents a window should score, on average, for windows to be used.
const MIN_PER_WINDOW: u64 = 16;

/// A window's sums.
#[derive(Default)]
pub(super) struct Window {
    lo: u32,
    hi: u32,
    /// Per document of the window: the summed `weight x freq x idf`.
    raw: Vec<f64>,
    /// Per document: the general path must score it.
    general: Vec<bool>,
}

/// The windowed scorer's state, when the query is one it can score.
pub(super) type Windowed = Option<RefCell<Window>>;

impl ScoreContext<'_> {
    /// Whether this query's scores can be summed term at a time: a union of plain text
    /// terms, or one such term alone, under TFIDF or TFIDF.DOCNORM, with frequencies, few
    /// expansions.
    pub(super) fn windowed(&self) -> bool {
        match self.slop {
            SlopShape::Union(_) => self.windowed_terms(),
            SlopShape::Single => self.terms.len() == 1 && self.windowed_terms(),
            _ => false,
        }
    }

    /// Whether an intersection or exact phrase scoring `ids` is better summed term at a
    /// time: its terms as [`Self::windowed`] asks, and its matches at least half of their
    /// postings (a window reads every posting of its terms in its range; lookups cost per
    /// match).
    pub(super) fn windowed_dense(&self, ids: &roaring::RoaringBitmap) -> bool {
        if !matches!(self.slop, SlopShape::Phrase(_) | SlopShape::Intersect(_)) || !self.windowed_terms() {
            return false;
        }
        // A split word's first-only copy reads the same postings as its whole term.
        let terms =
            || (0..self.terms.len()).filter(|&i| !self.is_split_copy(i)).filter_map(|i| self.terms.get(i));
        let postings: u64 = terms().flat_map(|t| &t.ids).map(|&id| self.idx.text.doc_freq(id)).sum();
        ids.len().saturating_mul(2 * terms().count() as u64) >= postings
    }

    /// The terms' side of [`Self::windowed`].
    fn windowed_terms(&self) -> bool {
        matches!(self.scorer, Scorer::TfIdf | Scorer::TfIdfDocNorm)
            && !self.idx.spec.no_freqs
            && self.lookup.len() <= MERGE_JOIN_THRESHOLD
            && self.terms.iter().zip(&self.cursors).enumerate().all(|(i, (t, c))| {
                // A split word's first-only copy (`exec::skips`) sums in the window too; a
                // quick-exit union does not.
                t.tag_field.is_none()
                    && t.leaf.is_none()
                    && (!t.first_only || self.is_split_copy(i))
                    && c.len() == t.ids.len()
            })
    }

    /// The score of `doc`, like [`ScoreContext::score`], for callers asking in increasing
    /// document order (the top k). When the score cannot be above `floor` (the k-th best so
    /// far), some value at most `floor` may be returned instead, without reading positions
    /// for the slop divisor: the score before it divides by the divisor (at least 1) bounds
    /// the score, as rounding is monotonic.
    #[inline]
    pub fn score_in_order(&self, doc: u32, floor: f64) -> f64 {
        if self.given.is_some() {
            return self.score(doc);
        }
        match &self.window {
            None => self.score_above(doc, floor),
            Some(cell) => self.window_score(cell, doc, floor),
        }
    }

    /// [`Self::score_in_order`] with the window.
    fn window_score(&self, cell: &RefCell<Window>, doc: u32, floor: f64) -> f64 {
        let Some(hot) = self.idx.docs.hot(doc) else { return 0.0 };
        if hot.score == 0.0 {
            return 0.0;
        }
        let raw = {
            let mut w = cell.borrow_mut();
            if doc < w.lo {
                return self.score(doc);
            }
            if doc >= w.hi {
                self.fill(&mut w, doc);
            }
            let i = (doc - w.lo) as usize;
            match (w.general.get(i), w.raw.get(i)) {
                (Some(false), Some(&raw)) => raw,
                _ => return self.score_above(doc, floor),
            }
        };
        let norm = if self.scorer == Scorer::TfIdf { hot.max_freq } else { hot.len };
        let undivided = super::tfidf_undivided(f64::from(hot.score), raw, norm);
        let d = Doc { id: doc, idx: self.idx, rec: std::cell::OnceCell::new() };
        super::divided_above(undivided, floor, || self.slop_divisor(&d))
    }

    /// Sums the window `from..from + SPAN`.
    fn fill(&self, w: &mut Window, from: u32) {
        let to = from.saturating_add(SPAN);
        let n = (to - from) as usize;
        w.lo = from;
        w.hi = to;
        w.raw.clear();
        w.raw.resize(n, 0.0);
        w.general.clear();
        w.general.resize(n, false);
        for (t, idfs) in self.terms.iter().zip(&self.idfs) {
            // A first-only term: per document, the first of its ids (in order) found there.
            let mut taken = if t.first_only { vec![false; n] } else { Vec::new() };
            for (&id, &idf) in t.ids.iter().zip(idfs) {
                let Some(list) = self.idx.text.list(id) else { continue };
                for p in list.range(from, to) {
                    if !t.counts_in(p.doc) {
                        continue;
                    }
                    let i = (p.doc - from) as usize;
                    if taken.get(i).copied().unwrap_or(false) {
                        continue;
                    }
                    let inside = if t.mask == ALL_FIELDS { Some(true) } else { p.in_fields(t.mask) };
                    if inside != Some(false) {
                        if let Some(k) = taken.get_mut(i) {
                            *k = true;
                        }
                    }
                    match inside {
                        Some(false) => {}
                        Some(true) if p.freq != FREQ_ESCAPE => {
                            if let Some(r) = w.raw.get_mut(i) {
                                *r += t.weight_of(id, self.scorer) * (f64::from(p.freq) * idf);
                            }
                        }
                        _ => {
                            if let Some(g) = w.general.get_mut(i) {
                                *g = true;
                            }
                        }
                    }
                }
            }
        }
    }
}
