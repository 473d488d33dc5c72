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
    /// terms under TFIDF or TFIDF.DOCNORM, with frequencies, few expansions.
    pub(super) fn windowed(&self) -> bool {
        matches!(self.slop, SlopShape::Union(_))
            && matches!(self.scorer, Scorer::TfIdf | Scorer::TfIdfDocNorm)
            && !self.idx.spec.no_freqs
            && self.lookup.len() <= MERGE_JOIN_THRESHOLD
            && self.terms.iter().zip(&self.cursors).all(|(t, c)| {
                t.tag_field.is_none() && t.leaf.is_none() && !t.first_only && c.len() == t.ids.len()
            })
    }

    /// The score of `doc`, like [`ScoreContext::score`], for callers asking in increasing
    /// document order (the top k).
    #[inline]
    pub fn score_in_order(&self, doc: u32) -> f64 {
        if self.given.is_some() {
            return self.score(doc);
        }
        match &self.window {
            None => self.score(doc),
            Some(cell) => self.window_score(cell, doc),
        }
    }

    /// [`Self::score_in_order`] with the window.
    fn window_score(&self, cell: &RefCell<Window>, doc: u32) -> f64 {
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
                _ => return self.score(doc),
            }
        };
        let d = Doc { id: doc, idx: self.idx, rec: std::cell::OnceCell::new() };
        let norm = if self.scorer == Scorer::TfIdf { hot.max_freq } else { hot.len };
        f64::from(hot.score) * raw / f64::from(norm.max(1)) / self.slop_divisor(&d)
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
            for (&id, &idf) in t.ids.iter().zip(idfs) {
                let Some(list) = self.idx.text.list(id) else { continue };
                for p in list.range(from, to) {
                    let i = (p.doc - from) as usize;
                    let inside = if t.mask == ALL_FIELDS { Some(true) } else { p.in_fields(t.mask) };
                    match inside {
                        Some(false) => {}
                        Some(true) if p.freq != FREQ_ESCAPE => {
                            if let Some(r) = w.raw.get_mut(i) {
                                *r += t.weight * (f64::from(p.freq) * idf);
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
