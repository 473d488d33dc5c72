//! Redis 8's scorers built on BM25STD: BM25STD.TANH's stretch factor (its default, the range
//! FT.CONFIG accepts, the query argument) and BM25STD.NORM's division by the largest score of
//! the result set (RediSearch 8.4's `RPMaxScoreNormalizer`, applied by the caller since it needs
//! every result).

use crate::error::{Error, Result};

/// BM25STD.TANH's default stretch factor (RediSearch 8.4's `DEFAULT_BM25STD_TANH_FACTOR`).
pub const DEFAULT_TANH_FACTOR: u64 = 4;
/// The smallest and largest `BM25STD_TANH_FACTOR` FT.CONFIG accepts (a query's own factor
/// need only be at least 1).
pub const TANH_FACTOR_RANGE: (u64, u64) = (1, 10_000);

/// The error of a bad `BM25STD_TANH_FACTOR` (query argument or FT.CONFIG value above the
/// range), RediSearch 8.4's text.
pub fn tanh_factor_error() -> Error {
    Error::new(format!(
        "BM25STD_TANH_FACTOR must be between {} and {} inclusive",
        TANH_FACTOR_RANGE.0, TANH_FACTOR_RANGE.1
    ))
}

/// A query's `BM25STD_TANH_FACTOR` argument (`None`: the argument is missing): an integer
/// (or an integral double) of at least 1 (RediSearch 8.4 checks no upper bound there: `AC_GetUnsignedLongLong` with
/// `AC_F_GE1`, in `handleCommonArgs`).
pub fn parse_tanh_factor(arg: Option<&str>) -> Result<u64> {
    let s = arg.ok_or_else(|| Error::new("Need an argument for BM25STD_TANH_FACTOR"))?;
    // `AC_GetLongLong`: an integer, or a double with an integral value (`5.0`, `1e3`).
    let n = s.parse::<i64>().ok().or_else(|| {
        let d = s.parse::<f64>().ok().filter(|d| d.is_finite())?;
        ((d as i64) as f64 == d).then_some(d as i64)
    });
    match n {
        Some(n) if n >= 1 => Ok(n as u64),
        _ => Err(tanh_factor_error()),
    }
}

/// BM25STD.NORM's divisor over a result set: the largest score, starting from 0 (RediSearch
/// 8.4's `RPMaxScoreNormalizerNext_innerLoop`).
pub fn max_score(scores: impl IntoIterator<Item = f64>) -> f64 {
    scores.into_iter().fold(0.0f64, f64::max)
}

/// A score of BM25STD.NORM: `score / max`, left as it is when `max` is 0
/// (`RPMaxScoreNormalizer_Yield`).
pub fn normalized(score: f64, max: f64) -> f64 {
    if max != 0.0 {
        score / max
    } else {
        score
    }
}
