//! Scorers (TFIDF, TFIDF.DOCNORM, BM25, BM25STD, BM25STD.NORM, BM25STD.TANH, DISMAX,
//! DOCSCORE) computed for candidate documents only, following RediSearch's formulas (`logb`
//! IDF, max-frequency normalization). BM25STD.NORM's division by the largest score of the
//! result set is the caller's ([`max_score`], [`normalized`]), since it needs every result.

pub use bm25std::{
    max_score, normalized, parse_tanh_factor, tanh_factor_error, DEFAULT_TANH_FACTOR, TANH_FACTOR_RANGE,
};
pub use explain::Explanation;

use roaring::RoaringBitmap;

use crate::error::{Error, Result};
use crate::index::docs::{DocRecord, TermOcc};
use crate::index::postings::{Cursor, PosCursor, FREQ_ESCAPE};
use crate::index::{freq_weight, FieldIndex, Index};
use crate::query::exec::{LeafKind, ScoreTerm, SlopShape};
use crate::query::topk::{BoundTerm, SkipPlan};

mod bm25std;
mod expansions;
mod explain;
mod slop;
mod window;

use expansions::{FirstHits, Ranks};
use slop::Scratch;

/// A scoring function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scorer {
    /// Default TF-IDF normalized by the document's max term frequency.
    TfIdf,
    /// TF-IDF normalized by document length.
    TfIdfDocNorm,
    /// RediSearch's legacy BM25.
    Bm25,
    /// Standard Okapi BM25 (RediSearch's BM25STD).
    Bm25Std,
    /// Redis 8's BM25STD.NORM: BM25STD divided by the largest BM25STD score of the whole
    /// result set (RediSearch 8.4's `RPMaxScoreNormalizer`, applied by the caller with
    /// [`max_score`] and [`normalized`]; [`ScoreContext::score`] gives the BM25STD score).
    Bm25StdNorm,
    /// Redis 8's BM25STD.TANH: `tanh((1 / factor) * BM25STD)` (RediSearch 8.4's
    /// `BM25StdTanhScorer`), the factor from the query's `BM25STD_TANH_FACTOR` or the
    /// configuration (see [`Scorer::with_tanh_factor`]).
    Bm25StdTanh(u64),
    /// Sum over query terms of the largest frequency among each term's expansions.
    DisMax,
    /// The document score.
    DocScore,
    /// `1 / (1 + Hamming distance)` between the query's PAYLOAD and the document's, 0 unless
    /// both exist with the same length (the caller computes it: [`hamming`]).
    Hamming,
}

impl Scorer {
    /// Parses a SCORER name.
    pub fn parse(name: &str) -> Result<Scorer> {
        match name.to_ascii_uppercase().as_str() {
            "TFIDF" => Ok(Scorer::TfIdf),
            "TFIDF.DOCNORM" => Ok(Scorer::TfIdfDocNorm),
            "BM25" => Ok(Scorer::Bm25),
            "BM25STD" => Ok(Scorer::Bm25Std),
            "BM25STD.NORM" => Ok(Scorer::Bm25StdNorm),
            "BM25STD.TANH" => Ok(Scorer::Bm25StdTanh(DEFAULT_TANH_FACTOR)),
            "DISMAX" => Ok(Scorer::DisMax),
            "DOCSCORE" => Ok(Scorer::DocScore),
            "HAMMING" => Ok(Scorer::Hamming),
            _ => Err(Error::new("Invalid scorer name")),
        }
    }

    /// This scorer with BM25STD.TANH's stretch factor set to `factor` (other scorers as
    /// they are).
    pub fn with_tanh_factor(self, factor: u64) -> Scorer {
        match self {
            Scorer::Bm25StdTanh(_) => Scorer::Bm25StdTanh(factor),
            s => s,
        }
    }

    /// True for BM25STD and the two scorers built on it (same IDF, same term formula).
    pub fn is_bm25std(self) -> bool {
        matches!(self, Scorer::Bm25Std | Scorer::Bm25StdNorm | Scorer::Bm25StdTanh(_))
    }

    /// Whether the score is divided by the slop measure (RediSearch's `GetSlop`: TFIDF,
    /// TFIDF.DOCNORM and BM25).
    pub fn divides_by_slop(self) -> bool {
        matches!(self, Scorer::TfIdf | Scorer::TfIdfDocNorm | Scorer::Bm25)
    }

    /// Whether the score reads term frequencies (all but DOCSCORE and HAMMING).
    pub fn reads_terms(self) -> bool {
        !matches!(self, Scorer::DocScore | Scorer::Hamming)
    }

    /// Whether a term result's own weight counts (RediSearch's `tfidfRecursive` and
    /// `dismaxRecursive` multiply by it; `bm25Recursive` and `bm25StdRecursive` do not).
    pub fn weighs_terms(self) -> bool {
        matches!(self, Scorer::TfIdf | Scorer::TfIdfDocNorm | Scorer::DisMax)
    }
}

/// BM25's constants, as RediSearch declares them (`static const float`): the float values
/// take part in the double arithmetic, so `k1` is 1.2000000476837158, not 1.2.
const K1: f32 = 1.2;
const B: f32 = 0.5;

/// BM25's `k1 * (1 - b + b * avgDocLen)`, with RediSearch's float/double mix.
fn bm25_len_factor(avg_len: f64) -> f64 {
    f64::from(K1) * (f64::from(1.0f32 - B) + f64::from(B) * avg_len)
}

/// BM25STD's `k1 * (1 - b + b * (float)len / avgDocLen)`.
fn bm25std_len_factor(len: u32, avg_len: f64) -> f64 {
    let rel = if avg_len > 0.0 { f64::from(B * len as f32) / avg_len } else { 0.0 };
    f64::from(K1) * (f64::from(1.0f32 - B) + rel)
}

/// Legacy BM25 of a result of frequency `f`: `x * f / (f + k1 * (1 - b + b * avgDocLen))`, `x`
/// its IDF (a term) or its weight (a result without a term).
fn bm25(x: f64, f: f64, avg_len: f64) -> f64 {
    x * f / (f + bm25_len_factor(avg_len))
}

/// BM25STD of a term of frequency `f` in a document of `len` tokens.
fn bm25std(idf: f64, f: f64, len: u32, avg_len: f64) -> f64 {
    idf * f * f64::from(K1 + 1.0) / (f + bm25std_len_factor(len, avg_len))
}

/// A total order of scores (and other doubles results are sorted by): `nan` (TFIDF's 0 / 0 of a
/// document without text) ranks with `inf`, above every number, so that sorts and heaps see
/// a consistent order (a sort given an inconsistent one may panic).
#[inline]
pub fn score_order(a: f64, b: f64) -> std::cmp::Ordering {
    let key = |x: f64| if x.is_nan() { f64::INFINITY } else { x };
    key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
}

/// RediSearch's IDF: `logb(1 + N / df)`.
pub fn idf(total_docs: u64, df: u64) -> f64 {
    let x = 1.0 + total_docs as f64 / (df.max(1) as f64);
    x.log2().floor()
}

/// TFIDF (and TFIDF.DOCNORM) of a document: its score times the weighted sum of its terms,
/// over its norm and the slop divisor; one expression for every path, so that
/// they agree to the bit.
#[inline]
fn tfidf(score: f64, raw: f64, norm: u32, slop: f64) -> f64 {
    tfidf_undivided(score, raw, norm) / slop
}

/// [`tfidf`] before the slop divisor: a bound of the score, which divides it by at least 1.
/// A norm of 0 (a document without text) divides by 0 as in RediSearch: its score is `inf`
/// (`nan` when the sum is 0 too).
#[inline]
pub(super) fn tfidf_undivided(score: f64, raw: f64, norm: u32) -> f64 {
    score * raw / f64::from(norm)
}

/// A score divided by its slop divisor (`slop`, read only when needed): when the score
/// before it is at most `floor`, that score itself, as the divisor (at least 1) can only
/// lower it (rounding is monotonic) and a caller asking with a floor needs no more.
#[inline]
fn divided_above(undivided: f64, floor: f64, slop: impl FnOnce() -> f64) -> f64 {
    if undivided <= floor {
        undivided
    } else {
        undivided / slop()
    }
}

/// BM25STD's IDF: `ln(1 + (N - df + 0.5) / (df + 0.5))`, the ratio in single precision as
/// RediSearch computes it (`log(1.0F + (totalDocs - termDocs + 0.5F) / (termDocs + 0.5F))`:
/// the integers meet float constants), N at least df (RediSearch 8's guard).
pub fn bm25_idf(total_docs: u64, df: u64) -> f64 {
    let n = total_docs.max(df);
    let ratio = ((n - df) as f32 + 0.5f32) / (df as f32 + 0.5f32);
    f64::from(1.0f32 + ratio).ln()
}

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

/// RediSearch's HAMMING scorer: `1 / (1 + bits that differ)` between two payloads of the
/// same non-zero length, else 0.
pub fn hamming(query: &[u8], doc: &[u8]) -> f64 {
    if doc.is_empty() || doc.len() != query.len() {
        return 0.0;
    }
    let bits: u32 = query.iter().zip(doc).map(|(a, b)| (a ^ b).count_ones()).sum();
    1.0 / f64::from(bits + 1)
}

/// A document being scored: its record (a cache miss of its own; the scoring figures come
/// from [`crate::index::docs::DocHot`]) is read only when a path needs it.
pub(super) struct Doc<'a> {
    id: u32,
    idx: &'a Index,
    rec: std::cell::OnceCell<Option<&'a DocRecord>>,
}

impl<'a> Doc<'a> {
    /// The document's record.
    pub(super) fn rec(&self) -> Option<&'a DocRecord> {
        *self.rec.get_or_init(|| self.idx.docs.get(self.id))
    }
}

/// Expansions of the root term a document matched (see [`SlopShape::Expansions`]).
#[derive(Default)]
struct ExpansionHits {
    count: u32,
    stem: bool,
    last: Option<u32>,
    /// The matched expansion ids.
    ids: Vec<u32>,
}

impl ExpansionHits {
    /// Expansion `id` matched (`stem`: the root's `+stem` id); each id counts once.
    fn add(&mut self, id: u32, stem: Option<u32>) {
        if self.last != Some(id) && !self.ids.contains(&id) {
            self.last = Some(id);
            self.count += 1;
            self.stem |= stem == Some(id);
            self.ids.push(id);
        }
    }
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
        // Per text field ordinal: what an occurrence adds to a frequency (word, stem).
        let weights = idx
            .spec
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, f)| idx.text_ord(i).map(|o| (o, f.weight)))
            .fold(vec![(1.0, 1.0); 128], |mut w, (o, fw)| {
                if let Some(slot) = w.get_mut(o as usize) {
                    *slot = (f64::from(freq_weight(fw, false)), f64::from(freq_weight(fw, true)));
                }
                w
            });
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
    fn score_in_general(&self, doc: u32, floor: f64) -> f64 {
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
    fn slop_of(&self, d: &Doc, hits: &ExpansionHits) -> f64 {
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
    fn add_term(
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

    fn cursor(&self, ti: usize, k: usize) -> Option<&Cursor> {
        self.cursors.get(ti).and_then(|c| c.get(k))
    }

    /// The frequency of expansion `id` of term `t` in document `doc`: from the term's
    /// postings (walked forward with `at`) when the index keeps them, else from the record.
    fn freq(&self, d: &Doc, t: &ScoreTerm, id: u32, at: Option<&Cursor>) -> f64 {
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
    fn occs_freq(&self, d: &Doc, t: &ScoreTerm, id: u32) -> f64 {
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
    fn term_freq(&self, occs: impl Iterator<Item = TermOcc> + Clone, mask: u128, id: u32) -> f64 {
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
