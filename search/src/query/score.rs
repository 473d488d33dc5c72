//! Scorers (TFIDF, TFIDF.DOCNORM, BM25, DISMAX, DOCSCORE) computed for candidate documents
//! only, following RediSearch's formulas (`logb` IDF, max-frequency normalization).

use crate::error::{Error, Result};
use crate::index::docs::DocRecord;
use crate::index::{FieldIndex, Index};
use crate::query::exec::ScoreTerm;

/// A scoring function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scorer {
    /// Default TF-IDF normalized by the document's max term frequency.
    TfIdf,
    /// TF-IDF normalized by document length.
    TfIdfDocNorm,
    /// RediSearch's BM25.
    Bm25,
    /// Sum of raw frequencies.
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
            "BM25" | "BM25STD" => Ok(Scorer::Bm25),
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
}

/// Above this many text expansions, scoring merge-joins instead of binary-searching.
const MERGE_JOIN_THRESHOLD: usize = 8;

impl<'a> ScoreContext<'a> {
    /// Prepares scoring of `terms` with `scorer`.
    pub fn new(idx: &'a Index, terms: &'a [ScoreTerm], scorer: Scorer) -> ScoreContext<'a> {
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
                        idf(n, df)
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
        ScoreContext { idx, terms, idfs, weights, scorer, avg_len: idx.avg_doc_len(), lookup }
    }

    /// The score of document `doc`.
    pub fn score(&self, doc: u32) -> f64 {
        let Some(rec) = self.idx.docs.get(doc) else { return 0.0 };
        if self.scorer == Scorer::DocScore {
            return f64::from(rec.score);
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
                    Scorer::DisMax | Scorer::DocScore => f,
                };
        };
        if self.lookup.len() > MERGE_JOIN_THRESHOLD {
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
            Scorer::TfIdf => score * raw / f64::from(rec.max_freq.max(1)),
            Scorer::TfIdfDocNorm => score * raw / f64::from(rec.len.max(1)),
            Scorer::Bm25 => score * raw,
            Scorer::DisMax | Scorer::DocScore => raw,
        }
    }

    fn freq(&self, rec: &DocRecord, t: &ScoreTerm, id: u32) -> f64 {
        if let Some(f) = t.tag_field {
            return if rec.tags.contains(&(f, id)) { 1.0 } else { 0.0 };
        }
        rec.occs_of(id)
            .iter()
            .filter(|o| t.mask & (1u128 << (o.field as u32 % 128)) != 0)
            .map(|o| f64::from(o.freq) * self.weights.get(o.field as usize).copied().unwrap_or(1.0))
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
    }
}
