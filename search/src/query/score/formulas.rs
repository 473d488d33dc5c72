//! The scorers and their formulas as RediSearch computes them (`logb` IDF, max-frequency
//! normalization, BM25's float constants in double arithmetic), for one term or document;
//! [`super::ScoreContext`] applies them to the candidates.

use super::DEFAULT_TANH_FACTOR;
use crate::error::{Error, Result};

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
pub(super) fn bm25_len_factor(avg_len: f64) -> f64 {
    f64::from(K1) * (f64::from(1.0f32 - B) + f64::from(B) * avg_len)
}

/// BM25STD's `k1 * (1 - b + b * (float)len / avgDocLen)`.
pub(super) fn bm25std_len_factor(len: u32, avg_len: f64) -> f64 {
    let rel = if avg_len > 0.0 { f64::from(B * len as f32) / avg_len } else { 0.0 };
    f64::from(K1) * (f64::from(1.0f32 - B) + rel)
}

/// Legacy BM25 of a result of frequency `f`: `x * f / (f + k1 * (1 - b + b * avgDocLen))`, `x`
/// its IDF (a term) or its weight (a result without a term).
pub(super) fn bm25(x: f64, f: f64, avg_len: f64) -> f64 {
    x * f / (f + bm25_len_factor(avg_len))
}

/// BM25STD of a term of frequency `f` in a document of `len` tokens.
pub(super) fn bm25std(idf: f64, f: f64, len: u32, avg_len: f64) -> f64 {
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
pub(super) fn tfidf(score: f64, raw: f64, norm: u32, slop: f64) -> f64 {
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
pub(super) fn divided_above(undivided: f64, floor: f64, slop: impl FnOnce() -> f64) -> f64 {
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

/// RediSearch's HAMMING scorer: `1 / (1 + bits that differ)` between two payloads of the
/// same non-zero length, else 0.
pub fn hamming(query: &[u8], doc: &[u8]) -> f64 {
    if doc.is_empty() || doc.len() != query.len() {
        return 0.0;
    }
    let bits: u32 = query.iter().zip(doc).map(|(a, b)| (a ^ b).count_ones()).sum();
    1.0 / f64::from(bits + 1)
}
