//! Scorers (TFIDF, TFIDF.DOCNORM, BM25, DISMAX, DOCSCORE) computed for candidate documents
//! only, following RediSearch's formulas (`logb` IDF, max-frequency normalization).

use crate::error::{Error, Result};
use crate::index::docs::DocRecord;
use crate::index::{FieldIndex, Index};
use crate::query::exec::{ScoreTerm, SlopChild, SlopShape};

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
    /// Sum over query terms of the largest frequency among each term's expansions.
    DisMax,
    /// The document score.
    DocScore,
}

impl Scorer {
    /// Parses a SCORER name.
    pub fn parse(name: &str) -> Result<Scorer> {
        match name.to_ascii_uppercase().as_str() {
            "TFIDF" => Ok(Scorer::TfIdf),
            "TFIDF.DOCNORM" => Ok(Scorer::TfIdfDocNorm),
            "BM25" => Ok(Scorer::Bm25),
            "BM25STD" => Ok(Scorer::Bm25Std),
            "DISMAX" => Ok(Scorer::DisMax),
            "DOCSCORE" => Ok(Scorer::DocScore),
            _ => Err(Error::new("Invalid scorer name")),
        }
    }
}

/// RediSearch's IDF: `logb(1 + N / df)`.
pub fn idf(total_docs: u64, df: u64) -> f64 {
    let x = 1.0 + total_docs as f64 / (df.max(1) as f64);
    x.log2().floor()
}

/// BM25STD's IDF: `ln(1 + (N - df + 0.5) / (df + 0.5))`.
pub fn bm25_idf(total_docs: u64, df: u64) -> f64 {
    (1.0 + (total_docs as f64 - df as f64 + 0.5) / (df as f64 + 0.5)).ln()
}

/// Precomputed per-term data for one query.
pub struct ScoreContext<'a> {
    idx: &'a Index,
    terms: &'a [ScoreTerm],
    idfs: Vec<Vec<f64>>,
    weights: Vec<f64>,
    scorer: Scorer,
    avg_len: f64,
    /// Text (term id, term index, idf) sorted by id, for merge-joining with a document's
    /// occurrences when a query has many expansions.
    lookup: Vec<(u32, usize, f64)>,
    /// The root's children for the slop divisor.
    slop: &'a SlopShape,
}

/// Above this many text expansions, scoring merge-joins instead of binary-searching.
const MERGE_JOIN_THRESHOLD: usize = 8;

impl<'a> ScoreContext<'a> {
    /// Prepares scoring of `terms` with `scorer`; `slop` is the query root's shape (see
    /// [`SlopShape`]).
    pub fn new(idx: &'a Index, terms: &'a [ScoreTerm], slop: &'a SlopShape, scorer: Scorer) -> ScoreContext<'a> {
        let n = idx.docs.len();
        let idfs = terms
            .iter()
            .map(|t| {
                t.ids
                    .iter()
                    .map(|&id| {
                        let df = match t.tag_field.and_then(|f| idx.fields.get(f as usize)) {
                            Some(FieldIndex::Tag(ti)) => ti.docs(id).map_or(0, |b| b.len()),
                            _ => idx.text.doc_freq(id),
                        };
                        if scorer == Scorer::Bm25Std {
                            bm25_idf(n, df)
                        } else {
                            idf(n, df)
                        }
                    })
                    .collect()
            })
            .collect();
        let weights = idx
            .spec
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, f)| idx.text_ord(i).map(|o| (o, f.weight)))
            .fold(vec![1.0; 128], |mut w, (o, fw)| {
                if let Some(slot) = w.get_mut(o as usize) {
                    *slot = fw;
                }
                w
            });
        let mut lookup: Vec<(u32, usize, f64)> = terms
            .iter()
            .zip(&idfs)
            .enumerate()
            .filter(|(_, (t, _))| t.tag_field.is_none())
            .flat_map(|(ti, (t, idfs)): (usize, (&ScoreTerm, &Vec<f64>))| {
                t.ids.iter().zip(idfs.iter()).map(move |(&id, &idf)| (id, ti, idf)).collect::<Vec<_>>()
            })
            .collect();
        lookup.sort_by_key(|x| (x.0, x.1));
        ScoreContext { idx, terms, idfs, weights, scorer, avg_len: idx.avg_doc_len(), lookup, slop }
    }

    /// The score of document `doc`.
    pub fn score(&self, doc: u32) -> f64 {
        let Some(rec) = self.idx.docs.get(doc) else { return 0.0 };
        if self.scorer == Scorer::DocScore {
            return f64::from(rec.score);
        }
        if self.scorer == Scorer::DisMax {
            // DISMAX: a term's expansions are a union (the largest frequency counts); the
            // terms of the query add up.
            return self
                .terms
                .iter()
                .map(|t| t.weight * t.ids.iter().map(|&id| self.freq(rec, t, id)).fold(0.0, f64::max))
                .sum();
        }
        if rec.score == 0.0 {
            return 0.0;
        }
        let mut raw = 0.0;
        let mut add = |t: &ScoreTerm, f: f64, idf: f64| {
            if f == 0.0 {
                return;
            }
            raw += t.weight
                * match self.scorer {
                    Scorer::TfIdf | Scorer::TfIdfDocNorm => f * idf,
                    Scorer::Bm25 => {
                        let (k1, b) = (1.2, 0.5);
                        idf * f / (f + k1 * (1.0 - b + b * self.avg_len))
                    }
                    Scorer::Bm25Std => {
                        let (k1, b) = (1.2, 0.5);
                        let rel_len = if self.avg_len > 0.0 { f64::from(rec.len) / self.avg_len } else { 0.0 };
                        idf * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * rel_len))
                    }
                    Scorer::DisMax | Scorer::DocScore => f,
                };
        };
        if self.lookup.len() > MERGE_JOIN_THRESHOLD && !self.idx.spec.no_freqs {
            let mut j = 0;
            for o in rec.occs.iter() {
                while self.lookup.get(j).is_some_and(|l| l.0 < o.term) {
                    j += 1;
                }
                let mut k = j;
                while let Some(&(id, ti, idf)) = self.lookup.get(k) {
                    if id != o.term {
                        break;
                    }
                    if let Some(t) = self.terms.get(ti) {
                        if t.mask & (1u128 << (o.field as u32 % 128)) != 0 {
                            let w = self.weights.get(o.field as usize).copied().unwrap_or(1.0);
                            add(t, f64::from(o.freq) * w, idf);
                        }
                    }
                    k += 1;
                }
            }
            for (t, idfs) in self.terms.iter().zip(&self.idfs).filter(|(t, _)| t.tag_field.is_some()) {
                for (&id, &idf) in t.ids.iter().zip(idfs) {
                    add(t, self.freq(rec, t, id), idf);
                }
            }
        } else {
            for (t, idfs) in self.terms.iter().zip(&self.idfs) {
                for (&id, &idf) in t.ids.iter().zip(idfs) {
                    add(t, self.freq(rec, t, id), idf);
                }
            }
        }
        let score = f64::from(rec.score);
        match self.scorer {
            Scorer::TfIdf => score * raw / f64::from(rec.max_freq.max(1)) / self.slop_divisor(rec, doc),
            Scorer::TfIdfDocNorm => score * raw / f64::from(rec.len.max(1)) / self.slop_divisor(rec, doc),
            Scorer::Bm25 => score * raw / self.slop_divisor(rec, doc),
            Scorer::Bm25Std => score * raw,
            Scorer::DisMax | Scorer::DocScore => raw,
        }
    }

    /// RediSearch's `IndexResult_MinOffsetDelta` for this document: over consecutive root
    /// children that have positions, the minimal distance between their positions, squared
    /// and summed; the integer square root of the sum, or (when it is 0) the number of
    /// children minus one; 1 for a single term.
    fn slop_divisor(&self, rec: &DocRecord, doc: u32) -> f64 {
        let children: Vec<&SlopChild> = match self.slop {
            SlopShape::Single => return 1.0,
            SlopShape::Intersect(c) => c.iter().collect(),
            SlopShape::Union(c) => c.iter().filter(|c| self.child_matches(rec, doc, c)).collect(),
        };
        if children.len() <= 1 {
            return 1.0;
        }
        let mut dist: u64 = 0;
        let mut prev: Option<Vec<u32>> = None;
        for c in &children {
            let Some(ids) = &c.ids else { continue };
            let cur = positions_of(rec, ids);
            if cur.is_empty() {
                continue;
            }
            if let Some(p) = &prev {
                let cd = u64::from(min_delta(p, &cur));
                dist = dist.saturating_add(cd.saturating_mul(cd));
            }
            prev = Some(cur);
        }
        if dist == 0 {
            (children.len() - 1) as f64
        } else {
            ((dist as f64).sqrt() as i64).max(1) as f64
        }
    }

    /// True when a union child matched `doc` (its own bitmap, else any of its terms).
    fn child_matches(&self, rec: &DocRecord, doc: u32, c: &SlopChild) -> bool {
        match (&c.docids, &c.ids) {
            (Some(bm), _) => bm.contains(doc),
            (None, Some(ids)) => ids.iter().any(|&id| !rec.occs_of(id).is_empty()),
            (None, None) => false,
        }
    }

    fn freq(&self, rec: &DocRecord, t: &ScoreTerm, id: u32) -> f64 {
        if let Some(f) = t.tag_field {
            return if rec.tags.contains(&(f, id)) { 1.0 } else { 0.0 };
        }
        let mut occs = rec.occs_of(id).iter().filter(|o| t.mask & (1u128 << (o.field as u32 % 128)) != 0);
        if self.idx.spec.no_freqs {
            // NOFREQS: a document either has the term (frequency 1) or not.
            return if occs.next().is_some() { 1.0 } else { 0.0 };
        }
        occs.map(|o| f64::from(o.freq) * self.weights.get(o.field as usize).copied().unwrap_or(1.0)).sum()
    }
}

/// Sorted positions (all fields) of the occurrences of `ids` in a document.
fn positions_of(rec: &DocRecord, ids: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    rec.scan_positions(|o| ids.contains(&o.term), |_, p| out.push(p));
    out.sort_unstable();
    out
}

/// The distance RediSearch finds between two position lists: it walks both in order from
/// their first positions and stops as soon as a distance of at most 1 is seen.
fn min_delta(a: &[u32], b: &[u32]) -> u32 {
    let (mut i, mut j) = (0, 0);
    let (Some(&p1), Some(&p2)) = (a.first(), b.first()) else { return 0 };
    let (mut p1, mut p2) = (p1, p2);
    let mut cd = p1.abs_diff(p2);
    while cd > 1 {
        cd = cd.min(p1.abs_diff(p2));
        if p2 > p1 {
            i += 1;
            match a.get(i) {
                Some(&x) => p1 = x,
                None => break,
            }
        } else {
            j += 1;
            match b.get(j) {
                Some(&x) => p2 = x,
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
        assert_eq!(min_delta(&[1], &[2]), 1);
        assert_eq!(min_delta(&[1], &[4]), 3);
        assert_eq!(min_delta(&[1, 20], &[10, 22]), 2);
        assert_eq!(min_delta(&[5], &[5]), 0);
        // The walk stops at the first distance <= 1, even if 0 comes later.
        assert_eq!(min_delta(&[3, 9], &[4, 9]), 1);
    }

    #[test]
    fn idf_is_floor_log2() {
        assert_eq!(idf(1, 1), 1.0);
        assert_eq!(idf(10, 1), 3.0);
        assert_eq!(idf(100, 50), 1.0);
        assert!(Scorer::parse("bm25").is_ok());
        assert_eq!(Scorer::parse("x").unwrap_err().0, "Invalid scorer name");
    }
}
