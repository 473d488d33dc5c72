//! FT.HYBRID's fusion of its two ranked lists (RediSearch 8.4 `hybrid_scoring.c`,
//! `RPHybridMerger`, `vector_normalization.h`).
//!
//! Rules:
//! - Each side brings at most WINDOW results, best first: the text side by score (higher
//!   first), the vector side by distance (nearer first); ties in document order.
//! - **RRF** (the default): a document's score is the sum over the sides that returned it of
//!   `1 / (CONSTANT + rank)`, ranks from 1; CONSTANT 60, WINDOW 20 by default.
//! - **LINEAR**: `ALPHA * text score + BETA * vector score` over the sides that returned it
//!   (a side that did not adds nothing); ALPHA 0.3, BETA 0.7, WINDOW 20 by default. The text
//!   score is the scorer's, unnormalized; the vector score is the distance normalized to
//!   `[0, 1]` by the field's metric ([`normalize`]).
//! - The fused list is ordered by fused score, higher first, ties by document order (lower
//!   id first, as RediSearch's sorter breaks them; on a cluster the ids are given in key
//!   order, so ties go by key there).

use crate::vector_spec::Metric;

/// How the two lists are combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Combine {
    /// Reciprocal rank fusion.
    Rrf {
        /// CONSTANT.
        constant: f64,
        /// WINDOW.
        window: u64,
    },
    /// A weighted sum of the scores.
    Linear {
        /// ALPHA, the text score's weight.
        alpha: f64,
        /// BETA, the vector score's weight.
        beta: f64,
        /// WINDOW.
        window: u64,
    },
}

/// RRF's default CONSTANT.
pub const DEFAULT_RRF_CONSTANT: f64 = 60.0;
/// The default WINDOW of both methods.
pub const DEFAULT_WINDOW: u64 = 20;
/// LINEAR's default ALPHA.
pub const DEFAULT_ALPHA: f64 = 0.3;
/// LINEAR's default BETA.
pub const DEFAULT_BETA: f64 = 0.7;

impl Default for Combine {
    fn default() -> Self {
        Combine::Rrf { constant: DEFAULT_RRF_CONSTANT, window: DEFAULT_WINDOW }
    }
}

impl Combine {
    /// How many results each side contributes.
    pub fn window(&self) -> u64 {
        match *self {
            Combine::Rrf { window, .. } | Combine::Linear { window, .. } => window,
        }
    }
}

/// A distance as the vector side's score in `[0, 1]`, 1 the best (RediSearch's
/// `VectorNorm_*`): L2 `1 / (1 + d)`; IP `(1 + ip) / 2` of the inner product (RediSearch
/// passes it the distance as the index reports it, `1 - ip`, so that is what is used
/// here too); COSINE `(1 + (1 - d)) / 2`.
pub fn normalize(metric: Metric, distance: f64) -> f64 {
    match metric {
        Metric::L2 => 1.0 / (1.0 + distance),
        Metric::Ip => (1.0 + distance) / 2.0,
        Metric::Cosine => (1.0 + (1.0 - distance)) / 2.0,
    }
}

/// One fused document.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    /// Its document id.
    pub doc: u32,
    /// The combined score.
    pub score: f64,
    /// Its text score, when the text side returned it.
    pub text: Option<f64>,
    /// Its normalized vector score, when the vector side returned it.
    pub vector: Option<f64>,
}

/// Fuses the text side (`(doc, score)`, best first) and the vector side (`(doc, normalized
/// score)`, best first), each cut to the window, into one list in fused order.
pub fn fuse(text: &[(u32, f64)], vector: &[(u32, f64)], how: Combine) -> Vec<Fused> {
    let window = usize::try_from(how.window()).unwrap_or(usize::MAX);
    let mut out: Vec<Fused> = Vec::new();
    let mut at: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for (side, list) in [text, vector].into_iter().enumerate() {
        for (rank, &(doc, score)) in list.iter().take(window).enumerate() {
            let part = match how {
                Combine::Rrf { constant, .. } => 1.0 / (constant + (rank + 1) as f64),
                Combine::Linear { alpha, beta, .. } => (if side == 0 { alpha } else { beta }) * score,
            };
            let i = *at.entry(doc).or_insert_with(|| {
                out.push(Fused { doc, score: 0.0, text: None, vector: None });
                out.len() - 1
            });
            let f = &mut out[i];
            f.score += part;
            if side == 0 {
                f.text = Some(score);
            } else {
                f.vector = Some(score);
            }
        }
    }
    // Recomputed in side order so the sum is the same whatever order the sides came in.
    for f in &mut out {
        f.score = match how {
            Combine::Rrf { .. } => f.score,
            Combine::Linear { alpha, beta, .. } => {
                f.text.map_or(0.0, |t| alpha * t) + f.vector.map_or(0.0, |v| beta * v)
            }
        };
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    out
}

/// Orders one side best first: scores higher first (`higher_first`) or lower first
/// (distances), ties by `tie` (document id on one server).
pub fn rank(list: &mut [(u32, f64)], higher_first: bool, tie: impl Fn(u32, u32) -> std::cmp::Ordering) {
    list.sort_by(|a, b| {
        let o = if higher_first { b.1.total_cmp(&a.1) } else { a.1.total_cmp(&b.1) };
        o.then_with(|| tie(a.0, b.0))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn hybrid_rrf_sums_reciprocal_ranks() {
        // redis-py's test_hybrid_search_query_with_combine: WINDOW 3, CONSTANT 0.5.
        let text = [(0, 0.0), (2, 0.0), (5, 0.0)];
        let vector = [(2, 0.33), (7, 0.33), (12, 0.33)];
        let f = fuse(&text, &vector, Combine::Rrf { constant: 0.5, window: 3 });
        let got: Vec<(u32, f64)> = f.iter().map(|f| (f.doc, f.score)).collect();
        assert_eq!(got.len(), 5);
        assert_eq!(got[0].0, 2);
        assert!(close(got[0].1, 1.0 / 2.5 + 1.0 / 1.5));
        assert_eq!(got[1].0, 0);
        assert!(close(got[1].1, 1.0 / 1.5));
        assert_eq!(got[2].0, 7);
        assert!(close(got[2].1, 0.4));
        // 5 (text rank 3) and 12 (vector rank 3) tie at 1/3.5: document order.
        assert_eq!((got[3].0, got[4].0), (5, 12));
        assert!(close(got[3].1, 1.0 / 3.5) && close(got[4].1, 1.0 / 3.5));
    }

    #[test]
    fn hybrid_rrf_defaults_and_window_cut() {
        let text: Vec<(u32, f64)> = (0..30).map(|d| (d, 30.0 - d as f64)).collect();
        let f = fuse(&text, &[], Combine::default());
        assert_eq!(f.len(), 20);
        assert!(close(f[0].score, 1.0 / 61.0));
        assert!(close(f[19].score, 1.0 / 80.0));
        assert_eq!(f[0].text, Some(30.0));
        assert_eq!(f[0].vector, None);
    }

    #[test]
    fn hybrid_linear_weights_present_sides_only() {
        let text = [(1, 2.0), (2, 1.0)];
        let vector = [(2, 0.5), (3, 0.25)];
        let f = fuse(&text, &vector, Combine::Linear { alpha: 0.3, beta: 0.7, window: 20 });
        let got: Vec<(u32, f64)> = f.iter().map(|f| (f.doc, f.score)).collect();
        assert_eq!(got[0].0, 2);
        assert!(close(got[0].1, 0.3 + 0.35));
        assert_eq!(got[1].0, 1);
        assert!(close(got[1].1, 0.6));
        assert_eq!(got[2].0, 3);
        assert!(close(got[2].1, 0.175));
        // ALPHA 1 BETA 0 is the text score alone.
        let f = fuse(&text, &vector, Combine::Linear { alpha: 1.0, beta: 0.0, window: 20 });
        assert!(close(f.iter().find(|x| x.doc == 3).unwrap().score, 0.0));
    }

    #[test]
    fn hybrid_normalize_by_metric() {
        assert!(close(normalize(Metric::L2, 0.0), 1.0));
        assert!(close(normalize(Metric::L2, 2.0), 1.0 / 3.0));
        assert!(close(normalize(Metric::Cosine, 0.0), 1.0));
        assert!(close(normalize(Metric::Cosine, 1.0), 0.5));
        assert!(close(normalize(Metric::Cosine, 2.0), 0.0));
        assert!(close(normalize(Metric::Ip, 1.0), 1.0));
    }

    #[test]
    fn hybrid_rank_orders_with_ties_by_doc() {
        let mut l = vec![(5, 1.0), (2, 3.0), (1, 1.0)];
        rank(&mut l, true, |a, b| a.cmp(&b));
        assert_eq!(l, vec![(2, 3.0), (1, 1.0), (5, 1.0)]);
        rank(&mut l, false, |a, b| a.cmp(&b));
        assert_eq!(l, vec![(1, 1.0), (5, 1.0), (2, 3.0)]);
    }
}
