//! FT.HYBRID's reply (RediSearch 8.4 `hybrid_exec.c`, `sendChunk_hybrid`): a map (RESP2: a
//! flat array of its keys and values) of `total_results` (the fused documents, less the rows
//! the tail's FILTERs dropped), `results` (one map of fields per row, RESP2 a flat array;
//! none for `LIMIT 0 0`), `warnings` (simple strings, such as `Timeout limit was reached
//! (SEARCH)`) and `execution_time` (milliseconds, a double). WITHCURSOR: a map of `SEARCH`
//! and `VSIM`, the ids of a cursor over each side's results (its score as `__score` when no
//! LOAD is given, its YIELD_SCORE_AS, the LOADed fields), and `warnings`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::aggregate::command::now_ms;
use crate::aggregate::pipeline::AggOutput;
use crate::aggregate::reply::map_fields;
use crate::aggregate::{AggregateRequest, Row, Value};
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
    /// WITHCURSOR: each side's results.
    pub(crate) sides: Option<Sides>,
}

/// WITHCURSOR's two lists: each side's documents, best first, with that side's score.
#[derive(Debug, Clone)]
pub struct Sides {
    /// The text side: keys and text scores.
    pub(crate) text: Vec<(Arc<[u8]>, f64)>,
    /// The vector side: keys and normalized vector scores.
    pub(crate) vector: Vec<(Arc<[u8]>, f64)>,
    /// SEARCH's YIELD_SCORE_AS.
    pub(crate) text_alias: Option<String>,
    /// VSIM's YIELD_SCORE_AS.
    pub(crate) vector_alias: Option<String>,
    /// Whether the rows show `__score` (no LOAD, or a LOAD of `@__score`).
    pub(crate) show_score: bool,
}

impl Sides {
    /// One side's rows: its score (`__score`, its alias), then what the LOADs read.
    fn output(&self, vector: bool, loaded: &AggOutput) -> AggOutput {
        let (list, alias) =
            if vector { (&self.vector, &self.vector_alias) } else { (&self.text, &self.text_alias) };
        let by_key: HashMap<&[u8], &Row> =
            loaded.rows.iter().filter_map(|r| Some((r.key.as_deref()?, r))).collect();
        let mut names = Vec::new();
        if self.show_score {
            names.push("__score".to_string());
        }
        if let Some(a) = alias {
            names.push(a.clone());
        }
        let lead = names.len();
        names.extend(loaded.names.iter().cloned());
        let rows: Vec<Row> = list
            .iter()
            .filter_map(|(key, score)| {
                let row = by_key.get(&key[..])?;
                let mut values: Vec<Option<Value>> = vec![Some(Value::Number(*score)); lead];
                values.extend(row.values.iter().cloned());
                Some(Row { values, key: Some(key.clone()), ..Row::default() })
            })
            .collect();
        let n = rows.len() as u64;
        AggOutput { names, rows, total: n, matched: n, blocking: true, ..AggOutput::default() }
    }
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
    cat: &Catalog,
    req: &AggregateRequest,
    index: Option<String>,
    out: AggOutput,
    meta: HybridMeta,
    owner: Option<String>,
    config: &Config,
    _proto: Protocol,
) -> Result<Reply> {
    if let (Some(copts), Some(sides)) = (req.cursor, &meta.sides) {
        // RediSearch 8.4's standalone reply: a cursor per side, read with FT.CURSOR READ.
        let index = index.ok_or_else(|| Error::new("Unknown index name"))?;
        let mut cursors = cat.cursors();
        cursors.max_idle_cap_ms = config.cursor_max_idle;
        let now = now_ms();
        let search = cursors.reserve_owned(
            &index,
            owner.clone(),
            sides.output(false, &out),
            copts,
            req.format_expand,
            now,
        )?;
        let vsim = match cursors.reserve_owned(
            &index,
            owner,
            sides.output(true, &out),
            copts,
            req.format_expand,
            now,
        ) {
            Ok(id) => id,
            Err(e) => {
                let _ = cursors.delete(search, now);
                return Err(e.into());
            }
        };
        let warnings = meta.warnings.iter().map(|w| Reply::Simple(w.clone())).collect();
        return Ok(Reply::map(vec![
            ("SEARCH", Reply::Int(search as i64)),
            ("VSIM", Reply::Int(vsim as i64)),
            ("warnings", Reply::Array(warnings)),
        ]));
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
