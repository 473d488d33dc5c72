//! FT.HYBRID (Redis 8.4): a text query and a vector query over one index, their ranked
//! lists fused (RRF or LINEAR), then FT.AGGREGATE's steps over the fused rows.
//!
//! Layout: `request.rs` (arguments and their errors; `tail.rs` the steps after COMBINE), `fusion.rs` (the fusion math),
//! `reply.rs` (the reply's shape), this file (running the two queries and handing the fused
//! rows to the aggregation pipeline).
//!
//! Rules:
//! - The text side is the SEARCH query scored by its SCORER (BM25STD, Redis 8's default,
//!   when none is given; HAMMING, with no payload to compare, scores 0), best first, cut to
//!   the WINDOW. As in Redis 8, a tag match adds nothing to the score (its term has no IDF). The vector side is
//!   `FILTER=>[KNN min(K, WINDOW) @field $vector]` nearest first, or the RANGE query's
//!   vectors within RADIUS, nearest first, cut to the WINDOW. Both read the same PARAMS and
//!   run at DIALECT 2 or the configured default if higher.
//! - Each fused row holds what the index yields for it: the fused score under COMBINE's
//!   YIELD_SCORE_AS (else `__score`, shown when no LOAD is given or a LOAD names
//!   `@__score`), the text score under SEARCH's YIELD_SCORE_AS and the normalized vector
//!   score under VSIM's, for the rows of that side. With no LOAD the rows load `@__key`.
//! - The tail then runs as FT.AGGREGATE's pipeline over the fused rows in fused order: LOAD
//!   steps first (RediSearch loads in the subqueries), then the other steps in order. SORTBY
//!   and LIMIT of one segment (between GROUPBYs) make one step that keeps offset + count
//!   rows (10 by default); without SORTBY the rows keep the fused order; without NOSORT the
//!   last segment always has that step, so at most 10 rows come back by default.
//! - It runs in the same stages as FT.AGGREGATE ([`stage`] in the index stage, the pipeline
//!   with documents after it), so it runs on the workers and inline alike.
//! - On a cluster each shard runs [`sides`] with ties by key ([`Ties::Key`]) and the node that
//!   was asked fuses and runs the tail (`crate::distributed::hybrid`).

pub(crate) mod fusion;
pub(crate) mod reply;
pub(crate) mod request;
mod tail;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::aggregate::command::{query, query_with, Queried};
use crate::aggregate::request::{ArrangeStep, RequestLimits, Step};
use crate::aggregate::staged::{stage_queried, AggregateWork};
use crate::aggregate::AggregateRequest;
use crate::catalog::Catalog;
use crate::config::{Config, TimeoutPolicy};
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::query::vector::Distances;
use crate::reply::{Protocol, Reply};
use crate::timeout::Timeout;
use crate::vector_spec::Metric;
use fusion::{fuse, normalize, rank, Fused};
pub(crate) use reply::{deliver, HybridMeta};
use request::{HybridRequest, VectorArg, VectorMethod};

/// The name the vector query yields its distances under.
const DISTANCE: &str = "__hybrid_distance";
/// The PARAMS name of a vector given as a blob.
const BLOB_PARAM: &str = "__hybrid_vector";
/// RediSearch's DEFAULT_LIMIT: rows an arrange step keeps without LIMIT.
const DEFAULT_LIMIT: u64 = 10;
/// FT.HYBRID's lowest dialect.
const MIN_DIALECT: u32 = 2;

/// `FT.HYBRID idx …` whole (`args` after the command name), as with `WORKERS 0`.
pub(crate) fn ft_hybrid(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
) -> Result<Reply> {
    let work = stage(cat, args, docs, config, proto, Instant::now())?;
    let done = work.run(docs)?;
    Ok(cat.finish_aggregate(done, docs.caller(), config, proto))
}

/// FT.HYBRID's index stage: both queries, the fusion, and the tail's rows with what the index
/// holds of them (`started`: when the command arrived; TIMEOUT counts from then).
pub(crate) fn stage(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    started: Instant,
) -> Result<AggregateWork> {
    let req = request::parse(args, config.max_search_results)?;
    let SideLists { text_q, text, vector, metric, warnings, timeout_ms, .. } =
        sides(cat, &req, docs, config, proto, started, Ties::DocId)?;
    let idx = text_q.idx;
    let vector: Vec<(u32, f64)> = vector.into_iter().map(|(d, dist)| (d, normalize(metric, dist))).collect();
    let fused = fuse(&text, &vector, req.combine);
    let mut yields = Distances::default();
    let show_score = !req.has_load || req.loads_score;
    // WITHCURSOR: the rows load what the tail's LOADs name, and each side's cursor takes its
    // own (reply.rs).
    let sides = req.cursor.then(|| {
        let keyed = |list: &[(u32, f64)]| -> Vec<(std::sync::Arc<[u8]>, f64)> {
            list.iter()
                .filter_map(|&(d, s)| Some((std::sync::Arc::from(idx.docs.get(d)?.key()), s)))
                .collect()
        };
        reply::Sides {
            text: keyed(&text),
            vector: keyed(&vector),
            text_alias: req.text_alias.clone(),
            vector_alias: req.vector_alias.clone(),
            show_score,
        }
    });
    if sides.is_none() {
        yields.fields = yielded(&req, &fused);
    }

    let tail = tail_request(&req, config)?;
    if tail.format_expand && proto != Protocol::Resp3 {
        return Err(Error::new("EXPAND format is only supported with RESP3"));
    }
    let meta =
        HybridMeta { started, fused: fused.len() as u64, warnings, count_only: tail.count_only, sides };
    let q = Queried {
        req: tail,
        idx,
        index_name: text_q.index_name.clone(),
        dialect: text_q.dialect,
        seed: crate::aggregate::query_seed(args[0], &req.query, &args[1..]),
        // A side past TIMEOUT has already warned or failed (check_time); the fused rows'
        // pipeline stops under ON_TIMEOUT FAIL only.
        timeout: match config.on_timeout {
            TimeoutPolicy::Fail => Timeout::new(started, timeout_ms, TimeoutPolicy::Fail),
            TimeoutPolicy::Return => Timeout::never(),
        },
        distances: yields,
        knn: false,
        total: fused.len() as u64,
        order: fused.iter().map(|f| f.doc).collect(),
        scores: None,
        terms: Vec::new(),
    };
    stage_queried(q, docs, Some(Box::new(meta)))
}

/// What the fused rows yield (no cursor): the text score under SEARCH's YIELD_SCORE_AS, the
/// normalized vector score under VSIM's (for the rows of that side), the fused score under
/// COMBINE's (else `__score`, when no LOAD is given or a LOAD names `@__score`).
pub(crate) fn yielded(req: &HybridRequest, fused: &[Fused]) -> Vec<(String, HashMap<u32, f64>)> {
    let mut out = Vec::new();
    if let Some(a) = &req.text_alias {
        out.push((a.clone(), fused.iter().filter_map(|f| Some((f.doc, f.text?))).collect()));
    }
    if let Some(a) = &req.vector_alias {
        out.push((a.clone(), fused.iter().filter_map(|f| Some((f.doc, f.vector?))).collect()));
    }
    if req.combined_alias.is_some() || !req.has_load || req.loads_score {
        let name = req.combined_alias.clone().unwrap_or_else(|| "__score".to_string());
        out.push((name, fused.iter().map(|f| (f.doc, f.score)).collect()));
    }
    out
}

/// How a side orders results of equal score (or distance) before the WINDOW cut.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Ties {
    /// By document id (indexing order): a single server's rule.
    DocId,
    /// By key, byte-wise: a shard's, so that the cluster's order does not depend on which
    /// shard indexed what first.
    Key,
}

impl Ties {
    /// The order of documents `a` and `b` of `idx`.
    fn order(self, idx: &Index, a: u32, b: u32) -> std::cmp::Ordering {
        match self {
            Ties::DocId => a.cmp(&b),
            Ties::Key => idx.docs.get(a).map(|r| r.key()).cmp(&idx.docs.get(b).map(|r| r.key())),
        }
    }
}

/// Both sides of a parsed FT.HYBRID, each best first and cut to the WINDOW.
pub(crate) struct SideLists<'c> {
    /// The text side's query (its index, its name, its loader).
    pub(crate) text_q: Queried<'c>,
    /// The text side: (document, score).
    pub(crate) text: Vec<(u32, f64)>,
    /// The vector side: (document, distance), not normalized.
    pub(crate) vector: Vec<(u32, f64)>,
    /// The vector field's metric.
    pub(crate) metric: Metric,
    /// The sides' TIMEOUT warnings.
    pub(crate) warnings: Vec<String>,
    /// The TIMEOUT in force, in ms (0: none).
    pub(crate) timeout_ms: u64,
    /// With [`Ties::Key`] and SCORER BM25STD.NORM: the text scores are BM25STD's, and this is
    /// the highest over every matched document (the cluster normalizes with the highest of
    /// all shards).
    pub(crate) text_max: Option<f64>,
}

/// Runs both sides of `req` (`started`: when the command arrived).
pub(crate) fn sides<'c>(
    cat: &'c Catalog,
    req: &HybridRequest,
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    started: Instant,
    ties: Ties,
) -> Result<SideLists<'c>> {
    let dialect = config.default_dialect.max(MIN_DIALECT);
    let timeout_ms = timeout_ms(req, config);
    let mut warnings = Vec::new();
    let window = usize::try_from(req.combine.window()).unwrap_or(usize::MAX);
    let TextSide { q: text_q, list: text, max: text_max } =
        text_side(cat, req, docs, config, proto, started, ties)?;
    let idx = text_q.idx;
    check_time(started, timeout_ms, config, "(SEARCH)", &mut warnings)?;

    // The vector side.
    let metric = match idx.spec.field(&req.field).and_then(|(_, f)| f.vector.as_ref()) {
        Some(v) => v.metric,
        None => {
            // Let the vector query name the problem as FT.SEARCH would, else RediSearch's.
            query(cat, &refs(&vector_args(req, dialect, window as u64)), docs, config, proto, None, started)?;
            return Err(Error::new("Invalid vector field for normalization"));
        }
    };
    let vector_args = vector_args(req, dialect, window as u64);
    let vec_q = query(cat, &refs(&vector_args), docs, config, proto, None, started)?;
    let mut vector: Vec<(u32, f64)> =
        vec_q.order.iter().filter_map(|&d| Some((d, vec_q.distances.get(DISTANCE, d)?))).collect();
    rank(&mut vector, false, |a, b| ties.order(idx, a, b));
    vector.truncate(window);
    check_time(started, timeout_ms, config, "(VSIM)", &mut warnings)?;
    Ok(SideLists { text_q, text, vector, metric, warnings, timeout_ms, text_max })
}

/// The text side of a parsed FT.HYBRID.
pub(crate) struct TextSide<'c> {
    /// Its query.
    pub(crate) q: Queried<'c>,
    /// Its best WINDOW (document, score).
    list: Vec<(u32, f64)>,
    /// [`SideLists::text_max`].
    max: Option<f64>,
}

/// Runs the text side of `req`.
pub(crate) fn text_side<'c>(
    cat: &'c Catalog,
    req: &HybridRequest,
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    started: Instant,
    ties: Ties,
) -> Result<TextSide<'c>> {
    let dialect = config.default_dialect.max(MIN_DIALECT);
    let window = usize::try_from(req.combine.window()).unwrap_or(usize::MAX);
    let norm =
        ties == Ties::Key && req.scorer.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("BM25STD.NORM"));
    let text_args = text_args(req, dialect, norm);
    let text_q = query_with(cat, &refs(&text_args), docs, config, proto, None, started, true, false)?;
    let mut text: Vec<(u32, f64)> = match &text_q.scores {
        Some(s) => text_q.order.iter().copied().zip(s.iter().copied()).collect(),
        None => text_q.order.iter().map(|&d| (d, 0.0)).collect(),
    };
    let text_max = norm.then(|| crate::query::score::max_score(text.iter().map(|t| t.1)));
    rank(&mut text, true, |a, b| ties.order(text_q.idx, a, b));
    text.truncate(window);
    Ok(TextSide { q: text_q, list: text, max: text_max })
}

/// The TIMEOUT in force for `req`, in ms (0: none).
pub(crate) fn timeout_ms(req: &HybridRequest, config: &Config) -> u64 {
    match &req.timeout {
        Some(t) => String::from_utf8_lossy(t).parse::<u64>().unwrap_or(0),
        None => config.timeout_ms,
    }
}

/// A side that ran past TIMEOUT: under ON_TIMEOUT FAIL the error, else the warning (its
/// results are complete: folio does not cut a query short under RETURN).
fn check_time(
    started: Instant,
    timeout_ms: u64,
    config: &Config,
    side: &str,
    warnings: &mut Vec<String>,
) -> Result<()> {
    if timeout_ms == 0 || started.elapsed() <= Duration::from_millis(timeout_ms) {
        return Ok(());
    }
    if config.on_timeout == TimeoutPolicy::Fail {
        return Err(Error::timeout());
    }
    warnings.push(format!("Timeout limit was reached {side}"));
    Ok(())
}

/// PARAMS (with a blob vector's own) and TIMEOUT for a subquery.
fn common_args(req: &HybridRequest, dialect: u32, out: &mut Vec<Vec<u8>>) {
    let mut params = req.params.clone();
    if let VectorArg::Blob(b) = &req.vector {
        params.push(BLOB_PARAM.as_bytes().to_vec());
        params.push(b.clone());
    }
    if !params.is_empty() {
        out.push(b"PARAMS".to_vec());
        out.push(params.len().to_string().into_bytes());
        out.extend(params);
    }
    if let Some(t) = &req.timeout {
        out.push(b"TIMEOUT".to_vec());
        out.push(t.clone());
    }
    out.push(b"DIALECT".to_vec());
    out.push(dialect.to_string().into_bytes());
}

/// The text side as FT.AGGREGATE arguments (`raw`: BM25STD for BM25STD.NORM, see
/// [`SideLists::text_max`]).
fn text_args(req: &HybridRequest, dialect: u32, raw: bool) -> Vec<Vec<u8>> {
    let mut out = vec![req.index.as_bytes().to_vec(), req.query.clone()];
    let scorer = if raw { "BM25STD".into() } else { req.scorer.clone().unwrap_or_else(|| "BM25STD".into()) };
    // HAMMING compares the document's payload with the query's, and FT.HYBRID sends none:
    // RediSearch scores every document 0 then.
    if !scorer.eq_ignore_ascii_case("HAMMING") {
        out.extend([b"ADDSCORES".to_vec(), b"SCORER".to_vec(), scorer.into_bytes()]);
    }
    common_args(req, dialect, &mut out);
    out
}

/// The vector side as FT.AGGREGATE arguments: its query text yields the distance as
/// [`DISTANCE`].
fn vector_args(req: &HybridRequest, dialect: u32, window: u64) -> Vec<Vec<u8>> {
    let param = match &req.vector {
        VectorArg::Param(p) => p.clone(),
        VectorArg::Blob(_) => BLOB_PARAM.to_string(),
    };
    let filter = req.filter.as_ref().map(|f| String::from_utf8_lossy(f).into_owned());
    // A FILTER of `*` (in parentheses or not) filters nothing; a star may not stand inside
    // the query built below.
    let filter =
        filter.filter(|f| f.trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace()) != "*");
    let field = &escape(&req.field);
    let text = match &req.method {
        VectorMethod::Knn { k, ef_runtime } => {
            let ef = ef_runtime.as_ref().map(|e| format!(" EF_RUNTIME {e}")).unwrap_or_default();
            let base = filter.map_or("*".to_string(), |f| format!("({f})"));
            format!("{base}=>[KNN {} @{field} ${param}{ef} AS {DISTANCE}]", (*k).min(window))
        }
        VectorMethod::Range { radius, epsilon } => {
            let eps = epsilon.as_ref().map(|e| format!("; $EPSILON: {e}")).unwrap_or_default();
            let range =
                format!("@{field}:[VECTOR_RANGE {radius} ${param}]=>{{$YIELD_DISTANCE_AS: {DISTANCE}{eps}}}");
            match filter {
                Some(f) => format!("({f}) {range}"),
                None => range,
            }
        }
    };
    let mut out = vec![req.index.as_bytes().to_vec(), text.into_bytes()];
    common_args(req, dialect, &mut out);
    out
}

/// A field name as query text: every character but letters, digits and `_` escaped.
fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars() {
        if !(ch.is_alphanumeric() || ch == '_') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

fn refs(args: &[Vec<u8>]) -> Vec<&[u8]> {
    args.iter().map(Vec::as_slice).collect()
}

/// The tail as an FT.AGGREGATE request over the fused rows (module docs: LOAD first, one
/// arrange step per segment keeping 10 rows unless LIMIT says otherwise).
pub(crate) fn tail_request(req: &HybridRequest, config: &Config) -> Result<AggregateRequest> {
    let mut args: Vec<Vec<u8>> = Vec::new();
    if !req.has_load {
        args.extend([b"LOAD".to_vec(), b"1".to_vec(), b"@__key".to_vec()]);
    }
    args.extend(req.tail.iter().cloned());
    let limits = RequestLimits {
        max_aggregate_results: config.max_aggregate_results.max(config.max_search_results),
        max_search_results: config.max_search_results,
    };
    let mut tail = AggregateRequest::parse_with(&args, limits)?;
    if req.cursor {
        // Each side's cursor holds that side's rows with what the LOADs name.
        tail.steps.retain(|s| matches!(s, Step::Load(_)));
        return Ok(tail);
    }
    let mut steps: Vec<Step> = Vec::with_capacity(tail.steps.len() + 1);
    // Where the current segment's arrange step is.
    let mut arrange: Option<usize> = None;
    for step in std::mem::take(&mut tail.steps) {
        match step {
            Step::Group(g) => {
                arrange = None;
                steps.push(Step::Group(g));
            }
            Step::Arrange(a) => match arrange {
                Some(i) => {
                    if let Step::Arrange(prev) = &mut steps[i] {
                        if !a.sort_keys.is_empty() {
                            prev.sort_keys = a.sort_keys;
                        }
                        if a.limited {
                            (prev.offset, prev.limit, prev.limited) = (a.offset, a.limit, true);
                        }
                    }
                }
                None => {
                    arrange = Some(steps.len());
                    steps.push(Step::Arrange(a));
                }
            },
            other => steps.push(other),
        }
    }
    if arrange.is_none() && !req.no_sort {
        steps.push(Step::Arrange(ArrangeStep::default()));
    }
    for s in &mut steps {
        if let Step::Arrange(a) = s {
            if !a.limited || (a.offset == 0 && a.limit == 0 && !tail.count_only) {
                (a.offset, a.limit, a.limited) = (0, DEFAULT_LIMIT, true);
            }
        }
    }
    tail.steps = steps;
    Ok(tail)
}
