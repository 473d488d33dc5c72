//! FT.HYBRID's reply (RediSearch 8.4 `hybrid_exec.c`, `sendChunk_hybrid`): a map (RESP2: a
//! flat array of its keys and values) of `total_results` (the fused documents, less the rows
//! the tail's FILTERs dropped), `results` (one map of fields per row, RESP2 a flat array;
//! none for `LIMIT 0 0`), `warnings` (simple strings, such as `Timeout limit was reached
//! (SEARCH)`) and `execution_time` (milliseconds, a double).

use std::time::Instant;

use crate::aggregate::pipeline::AggOutput;
use crate::aggregate::reply::map_fields;
use crate::aggregate::AggregateRequest;
use crate::catalog::Catalog;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

/// What FT.HYBRID's reply needs besides the tail's rows.
#[derive(Debug, Clone)]
pub struct HybridMeta {
    /// When the command arrived.
    pub(crate) started: Instant,
    /// The fused documents.
    pub(crate) fused: u64,
    /// Warnings of the two sides.
    pub(crate) warnings: Vec<String>,
    /// `LIMIT 0 0`.
    pub(crate) count_only: bool,
}

/// The total: the fused documents less what each FILTER step dropped (RediSearch's filter
/// decrements the total for each row it drops).
fn total(meta: &HybridMeta, out: &AggOutput) -> u64 {
    let mut prev = meta.fused;
    let mut dropped = 0u64;
    for s in &out.steps {
        if s.name.starts_with("Filter") {
            dropped += prev.saturating_sub(s.count);
        }
        prev = s.count;
    }
    meta.fused.saturating_sub(dropped)
}

/// FT.HYBRID's reply from the tail's rows.
#[allow(clippy::too_many_arguments)]
pub(crate) fn deliver(
    _cat: &Catalog,
    req: &AggregateRequest,
    _index: Option<String>,
    out: AggOutput,
    meta: HybridMeta,
    _owner: Option<String>,
    _config: &Config,
    _proto: Protocol,
) -> Result<Reply> {
    if req.cursor.is_some() {
        return Err(Error::new("WITHCURSOR is not supported by FT.HYBRID yet"));
    }
    let mut warnings: Vec<Reply> = meta.warnings.iter().map(|w| Reply::Simple(w.clone())).collect();
    if let Some(w) = &out.warning {
        warnings.push(Reply::Simple(format!("{w} (POST PROCESSING)")));
    }
    let results: Vec<Reply> = if meta.count_only {
        Vec::new()
    } else {
        out.rows.iter().map(|r| Reply::Map(map_fields(&out.names, r, req.format_expand))).collect()
    };
    let ms = meta.started.elapsed().as_secs_f64() * 1000.0;
    Ok(Reply::map(vec![
        ("total_results", Reply::Int(total(&meta, &out) as i64)),
        ("results", Reply::Array(results)),
        ("warnings", Reply::Array(warnings)),
        ("execution_time", Reply::Double(ms)),
    ]))
}
