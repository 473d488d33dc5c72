//! Scoring one document: its terms' frequencies read from the postings (or its record's
//! forward entries), weighed by the scorer's formula and divided by the slop measure.

use super::formulas::{bm25, bm25std, divided_above, tfidf, tfidf_undivided};
use super::{ScoreContext, Scorer, MERGE_JOIN_THRESHOLD};
use crate::index::docs::{DocRecord, TermOcc};
use crate::index::postings::{Cursor, FREQ_ESCAPE};
use crate::index::{FieldIndex, Index};
use crate::query::exec::{LeafKind, ScoreTerm, SlopShape};

/// A document being scored: its record (a cache miss of its own; the scoring figures come
/// from [`crate::index::docs::DocHot`]) is read only when a path needs it.
pub(super) struct Doc<'a> {
    pub(super) id: u32,
    pub(super) idx: &'a Index,
    pub(super) rec: std::cell::OnceCell<Option<&'a DocRecord>>,
}

impl<'a> Doc<'a> {
    /// The document's record.
    pub(super) fn rec(&self) -> Option<&'a DocRecord> {
        *self.rec.get_or_init(|| self.idx.docs.get(self.id))
    }
}

/// Expansions of the root term a document matched (see [`SlopShape::Expansions`]).
#[derive(Default)]
pub(super) struct ExpansionHits {
    pub(super) count: u32,
    pub(super) stem: bool,
    last: Option<u32>,
    /// The matched expansion ids.
    pub(super) ids: Vec<u32>,
}

impl ExpansionHits {
    /// Expansion `id` matched (`stem`: the root's `+stem` id); each id counts once.
    pub(super) fn add(&mut self, id: u32, stem: Option<u32>) {
        if self.last != Some(id) && !self.ids.contains(&id) {
            self.last = Some(id);
            self.count += 1;
            self.stem |= stem == Some(id);
            self.ids.push(id);
        }
    }
}

impl<'a> ScoreContext<'a> {
    /// The score of document `doc`.
    #[inline]
    pub fn score(&self, doc: u32) -> f64 {
        self.score_above(doc, f64::NEG_INFINITY)
    }

    /// [`Self::score`], or (when the score cannot be above `floor`) a value at most `floor`,
    /// the slop divisor left unread ([`Self::score_in_order`]; `-inf`: the score itself).
    #[inline]
    pub(super) fn score_above(&self, doc: u32, floor: f64) -> f64 {
        if let Some(given) = &self.given {
            return given.get(&doc).copied().unwrap_or(0.0);
        }
        if let Some((raw, slop)) = self.constant {
            let Some(hot) = self.idx.docs.hot(doc) else { return 0.0 };
            if hot.score == 0.0 {
                return 0.0;
            }
            // As the general path computes it, with this document's score and norm.
            let norm = if self.scorer == Scorer::TfIdf { hot.max_freq } else { hot.len };
            return tfidf(f64::from(hot.score), raw, norm, slop);
        }
        self.score_in_general(doc, floor)
    }

    /// [`Self::score_above`] of any query.
    #[inline(never)]
    pub(super) fn score_in_general(&self, doc: u32, floor: f64) -> f64 {
        let Some(hot) = self.idx.docs.hot(doc) else { return 0.0 };
        if self.scorer == Scorer::DocScore {
            return f64::from(hot.score);
        }
        let d = Doc { id: doc, idx: self.idx, rec: std::cell::OnceCell::new() };
        if self.scorer == Scorer::DisMax {
            // DISMAX: a term's expansions are a union (the largest frequency counts); the
            // terms of the query add up.
            return self
                .terms
                .iter()
                .enumerate()
                .map(|(ti, t)| {
                    if !t.counts_in(doc) {
                        return 0.0;
                    }
                    if self.held_by_all[ti] {
                        return t.weight;
                    }
                    if let Some((_, docs)) = &t.leaf {
                        return if docs.contains(doc) { t.weight } else { 0.0 };
                    }
                    // Each expansion's term result weighs its frequency (the word's own
                    // weight on its exact id).
                    let mut freqs = t
                        .ids
                        .iter()
                        .enumerate()
                        .map(|(k, &id)| t.own_weight(id) * self.freq(&d, t, id, self.cursor(ti, k)));
                    let f = if t.first_only {
                        freqs.find(|&f| f > 0.0).unwrap_or(0.0)
                    } else {
                        freqs.fold(0.0, f64::max)
                    };
                    t.weight * f
                })
                .sum();
        }
        if hot.score == 0.0 {
            return 0.0;
        }
        let mut raw = 0.0;
        // For a root that is one term's expansions: how many distinct expansions matched, and
        // whether the `+stem` one did (gathered while scoring, for the slop divisor).
        let exp = match self.slop {
            SlopShape::Expansions { term, stem, .. } => Some((*term, *stem)),
            _ => None,
        };
        let mut hits = ExpansionHits::default();
        let mut add = |ti: usize, id: u32, f: f64, idf: f64| {
            if f == 0.0 {
                return;
            }
            let Some(t) = self.terms.get(ti) else { return };
            if !t.counts_in(doc) {
                return;
            }
            if let Some((_, stem)) = exp.filter(|&(root, _)| root == ti) {
                hits.add(id, stem);
            }
            raw += t.weight_of(id, self.scorer)
                * match self.scorer {
                    Scorer::TfIdf | Scorer::TfIdfDocNorm => f * idf,
                    Scorer::Bm25 => bm25(idf, f, self.avg_len),
                    Scorer::Bm25Std | Scorer::Bm25StdNorm | Scorer::Bm25StdTanh(_) => {
                        bm25std(idf, f, hot.len, self.avg_len)
                    }
                    Scorer::DisMax | Scorer::DocScore | Scorer::Hamming => f,
                };
        };
        if self.lookup.len() > MERGE_JOIN_THRESHOLD && !self.idx.spec.no_freqs {
            let mut j = 0;
            let mut occs_all = self.occs_buf.borrow_mut();
            occs_all.clear();
            occs_all.extend(d.rec().into_iter().flat_map(|r| r.occs().iter()));
            for occs in occs_all.chunk_by(|a, b| a.term == b.term) {
                let Some(term) = occs.first().map(|o| o.term) else { continue };
                while self.lookup.get(j).is_some_and(|l| l.0 < term) {
                    j += 1;
                }
                let mut k = j;
                while let Some(&(id, ti, idf)) = self.lookup.get(k) {
                    if id != term {
                        break;
                    }
                    if let Some(t) = self.terms.get(ti) {
                        add(ti, id, self.term_freq(occs.iter().copied(), t.mask, id), idf);
                    }
                    k += 1;
                }
            }
            for (ti, (t, idfs)) in self
                .terms
                .iter()
                .zip(&self.idfs)
                .enumerate()
                .filter(|(_, (t, _))| t.tag_field.is_some() || t.first_only || t.leaf.is_some())
            {
                self.add_term(&d, ti, t, idfs, &mut add);
            }
        } else {
            for (ti, (t, idfs)) in self.terms.iter().zip(&self.idfs).enumerate() {
                self.add_term(&d, ti, t, idfs, &mut add);
            }
        }
        let score = f64::from(hot.score);
        let divided = |undivided: f64| divided_above(undivided, floor, || self.slop_of(&d, &hits));
        match self.scorer {
            Scorer::TfIdf => divided(tfidf_undivided(score, raw, hot.max_freq)),
            Scorer::TfIdfDocNorm => divided(tfidf_undivided(score, raw, hot.len)),
            Scorer::Bm25 => divided(score * raw),
            Scorer::Bm25Std | Scorer::Bm25StdNorm => score * raw,
            // `tanhStretched`: tanh((1 / stretch) * x).
            Scorer::Bm25StdTanh(factor) => ((1.0 / factor as f64) * (score * raw)).tanh(),
            Scorer::DisMax | Scorer::DocScore => raw,
            // Its scores come from the payloads ([`Self::with_scores`]); without them, 0.
            Scorer::Hamming => 0.0,
        }
    }

    /// The slop divisor of document `d`, given the expansions of the root term it matched.
    pub(super) fn slop_of(&self, d: &Doc, hits: &ExpansionHits) -> f64 {
        match self.slop {
            // One expansion, or a word and its `+stem` (which sits at each of the word's
            // positions): RediSearch's measure is 1 without looking at positions.
            SlopShape::Expansions { .. } if hits.count <= 1 || (hits.count == 2 && hits.stem) => 1.0,
            SlopShape::Expansions { term, .. } => self.expansions_divisor(d.id, &hits.ids, *term),
            _ => self.slop_divisor(d),
        }
    }

    /// Adds term `ti`'s expansions found in the document: all of them, or for a
    /// [`ScoreTerm::first_only`] term the first one (in `ids` order) the document contains.
    pub(super) fn add_term(
        &self,
        d: &Doc,
        ti: usize,
        t: &ScoreTerm,
        idfs: &[f64],
        add: &mut impl FnMut(usize, u32, f64, f64),
    ) {
        if !t.counts_in(d.id) {
            return;
        }
        if let Some((kind, docs)) = &t.leaf {
            // Frequency 1 without IDF; BM25STD counts `*` only.
            let held = self.held_by_all[ti] || docs.contains(d.id);
            if held && (*kind == LeafKind::Virtual || !self.scorer.is_bm25std()) {
                add(ti, u32::MAX, 1.0, 1.0);
            }
            return;
        }
        if self.held_by_all[ti] {
            if let (Some(&id), Some(&idf)) = (t.ids.first(), idfs.first()) {
                add(ti, id, 1.0, idf);
            }
            return;
        }
        if !t.first_only {
            for (k, (&id, &idf)) in t.ids.iter().zip(idfs).enumerate() {
                add(ti, id, self.freq(d, t, id, self.cursor(ti, k)), idf);
            }
            return;
        }
        if let Some(hits) = self.first_hits.get(ti).and_then(|h| h.as_ref()) {
            if let Some((rank, freq)) = hits.get(d.id) {
                let (id, idf) =
                    (t.ids.get(rank).copied().unwrap_or(0), idfs.get(rank).copied().unwrap_or(0.0));
                let f = if freq == FREQ_ESCAPE { self.occs_freq(d, t, id) } else { f64::from(freq) };
                add(ti, id, if self.idx.spec.no_freqs { 1.0 } else { f }, idf);
            }
            return;
        }
        if t.ids.len() > MERGE_JOIN_THRESHOLD {
            // Many expansions: look up the document's own terms instead (they are few).
            let first = d
                .rec()
                .into_iter()
                .flat_map(DocRecord::terms)
                .filter_map(|id| {
                    let rank = self.first_rank.get(ti)?.as_ref()?.rank(id)?;
                    let f = self.occs_freq(d, t, id);
                    (f > 0.0).then_some((rank, id, f))
                })
                .min_by_key(|x| x.0);
            if let Some((rank, id, f)) = first {
                add(ti, id, f, idfs.get(rank).copied().unwrap_or(0.0));
            }
            return;
        }
        for (k, (&id, &idf)) in t.ids.iter().zip(idfs).enumerate() {
            let f = self.freq(d, t, id, self.cursor(ti, k));
            if f > 0.0 {
                add(ti, id, f, idf);
                return;
            }
        }
    }

    pub(super) fn cursor(&self, ti: usize, k: usize) -> Option<&Cursor> {
        self.cursors.get(ti).and_then(|c| c.get(k))
    }

    /// The frequency of expansion `id` of term `t` in document `doc`: from the term's
    /// postings (walked forward with `at`) when the index keeps them, else from the record.
    pub(super) fn freq(&self, d: &Doc, t: &ScoreTerm, id: u32, at: Option<&Cursor>) -> f64 {
        let doc = d.id;
        if let Some(FieldIndex::Tag(ti)) = t.tag_field.and_then(|f| self.idx.fields.get(usize::from(f))) {
            // The tag's documents, not the record: a tag counts once.
            return if ti.docs(id).is_some_and(|b| b.contains(doc)) { 1.0 } else { 0.0 };
        }
        if t.tag_field.is_none() {
            if let (Some(list), Some(at)) = (self.idx.text.list(id), at) {
                return match list.get(doc, at) {
                    Some(p) if self.idx.posting_in(&p, id, t.mask) => {
                        if self.idx.spec.no_freqs {
                            1.0
                        } else if p.freq == FREQ_ESCAPE {
                            self.occs_freq(d, t, id)
                        } else {
                            f64::from(p.freq)
                        }
                    }
                    _ => 0.0,
                };
            }
        }
        self.occs_freq(d, t, id)
    }

    /// [`Self::freq`] from the document's record.
    pub(super) fn occs_freq(&self, d: &Doc, t: &ScoreTerm, id: u32) -> f64 {
        let Some(rec) = d.rec() else { return 0.0 };
        if let Some(f) = t.tag_field {
            return if rec.has_tag(f, id) { 1.0 } else { 0.0 };
        }
        let occs = rec.occs_of(id);
        if self.idx.spec.no_freqs {
            // NOFREQS: a document either has the term (frequency 1) or not.
            let hit = occs.clone().any(|o| t.mask & (1u128 << (o.field as u32 % 128)) != 0);
            return if hit { 1.0 } else { 0.0 };
        }
        self.term_freq(occs, t.mask, id)
    }

    /// The frequency of term `id` in a document, given its occurrences there (`occs`, one per
    /// field), as RediSearch's index record holds it: the weighted count over ALL fields,
    /// when at least one field is in `mask` (the record matches as a whole), else 0.
    pub(super) fn term_freq(&self, occs: impl Iterator<Item = TermOcc> + Clone, mask: u128, id: u32) -> f64 {
        if !occs.clone().any(|o| mask & (1u128 << (o.field as u32 % 128)) != 0) {
            return 0.0;
        }
        let stem = self.idx.text.is_stem(id);
        occs.map(|o| {
            let (word, stemmed) = self.weights.get(o.field as usize).copied().unwrap_or((1.0, 1.0));
            f64::from(o.freq) * if stem { stemmed } else { word }
        })
        .sum()
    }
}
