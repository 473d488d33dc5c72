//! FT.AGGREGATE and FT.CURSOR executors: the seam between the aggregation
//! pipeline and the index (query evaluation, document loading, cursors kept
//! in the [`Catalog`]).
//!
//! Contract: `ft_aggregate` runs the query with the index's query engine,
//! feeds the matching documents (in RediSearch's document order) through the planned
//! pipeline, loading field values with [`IndexLoader`], and replies in
//! RediSearch's shapes; `ft_cursor` serves READ / DEL / GC.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use roaring::RoaringBitmap;

pub(crate) use super::loader::{
    property_from_sortable, read_from_document, sort_value, IndexLoader, Indexed,
};
use super::pipeline::{AggOutput, DocHit, Plan};
use super::reply::{render, Chunk};
use super::request::{AggregateRequest, RequestLimits};
use super::{query_seed, AggError};
use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::{DocumentSource, KeyType};
use crate::error::{Error, Result};
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::index::Index;
use crate::query::exec::ExecOptions;
use crate::query::score::{ScoreContext, Scorer};
use crate::query::syntax::parse_in;
use crate::query::trace::{execute_traced, Trace};
use crate::query::vector::Distances;
use crate::reply::{Protocol, Reply};
use crate::timeout::Timeout;

impl From<AggError> for Error {
    fn from(e: AggError) -> Self {
        Error::new(e.message)
    }
}

/// Milliseconds on a process-wide monotonic clock (cursor idle times).
pub(crate) fn now_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// `FT.AGGREGATE idx query [steps…]` (`args` after the command name).
pub(crate) fn ft_aggregate(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    trace: Option<&mut Trace>,
) -> Result<Reply> {
    run_aggregate(cat, args, docs, config, proto, trace, None)
}

/// What the query part of FT.AGGREGATE found: the matching documents, in the pipeline's
/// order, with what the pipeline reads of them from the index.
pub(crate) struct Queried<'c> {
    pub(crate) req: AggregateRequest,
    pub(crate) idx: &'c Index,
    /// The index's real name (an alias resolved).
    pub(crate) index_name: Option<String>,
    pub(crate) dialect: u32,
    pub(crate) seed: u64,
    pub(crate) timeout: Timeout,
    pub(crate) distances: Distances,
    pub(crate) knn: bool,
    /// Documents matched (the pipeline's total).
    pub(crate) total: u64,
    /// Their ids, in the pipeline's order.
    pub(crate) order: Vec<u32>,
    /// Their scores (ADDSCORES), in `order`'s order.
    pub(crate) scores: Option<Vec<f64>>,
    /// Query terms with their dictionary ids, for matched_terms().
    pub(crate) terms: Vec<(String, u32)>,
}

impl Queried<'_> {
    /// The pipeline's input row for the `i`-th document of `order`.
    pub(crate) fn hit(&self, i: usize) -> Option<DocHit> {
        let d = *self.order.get(i)?;
        let rec = self.idx.docs.get(d)?;
        let found: Vec<String> = self
            .terms
            .iter()
            .filter(|(_, id)| rec.occs_of(*id).next().is_some())
            .map(|(t, _)| t.clone())
            .collect();
        Some(DocHit {
            key: Arc::from(rec.key()),
            id: d,
            score: self.scores.as_ref().and_then(|s| s.get(i).copied()).unwrap_or(0.0),
            matched_terms: (!found.is_empty()).then(|| Arc::from(found)),
        })
    }

    /// The loader over the index and `docs`.
    pub(crate) fn loader<'q>(&'q self, docs: &'q dyn DocumentSource) -> IndexLoader<'q> {
        IndexLoader {
            spec: &self.idx.spec,
            docs,
            dialect: self.dialect,
            indexed: Indexed::Live { idx: self.idx, distances: &self.distances },
        }
    }
}

/// Parses FT.AGGREGATE (`args` after the command name) and runs its query.
pub(crate) fn query<'c>(
    cat: &'c Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    trace: Option<&mut Trace>,
    started: Instant,
) -> Result<Queried<'c>> {
    query_with(cat, args, docs, config, proto, trace, started, false, false)
}

/// [`query`]; `redis8_tags`: tag matches score as in Redis 8 (no IDF:
/// [`ScoreContext::without_tag_idf`]), for FT.HYBRID; `shard`: a cluster shard's part (its
/// scores leave out what RediSearch's iterators and trees add, see `Config::iterator_scores`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn query_with<'c>(
    cat: &'c Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    mut trace: Option<&mut Trace>,
    started: Instant,
    redis8_tags: bool,
    shard: bool,
) -> Result<Queried<'c>> {
    let name = String::from_utf8_lossy(args[0]).into_owned();
    let query = String::from_utf8_lossy(args[1]).into_owned();
    let limits = RequestLimits {
        max_aggregate_results: config.max_aggregate_results,
        max_search_results: config.max_search_results,
    };
    let req = AggregateRequest::parse_with(&args[2..], limits)?;
    let dialect = req.dialect.map_or(config.default_dialect, |d| d as u32);
    if req.format_expand && proto != Protocol::Resp3 {
        return Err(Error::new("EXPAND format is only supported with RESP3"));
    }
    let seed = query_seed(args[0], args[1], &args[2..]);
    let index_name = cat.resolve(&name).map(str::to_string);
    let e = cat.entry(&name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
    e.usage.count_query(dialect);
    config.mark_dialect(dialect);
    let idx = &e.index;
    if req.format_expand && idx.spec.on != KeyType::Json {
        return Err(Error::new("EXPAND format is only supported with JSON"));
    }
    if query.len() > crate::limits::MAX_QUERY_LEN {
        return Err(Error::new("Query string too long"));
    }
    let params: HashMap<String, String> = req.params.iter().cloned().collect();
    let blobs: HashMap<String, Vec<u8>> =
        req.params.iter().map(|(k, _)| k.clone()).zip(req.raw_params.iter().cloned()).collect();
    let stopwords = (!req.query_options.no_stopwords).then_some(&idx.spec.stopwords);
    let ast = parse_in(&query, dialect, &params, stopwords)?;
    if let Some(t) = trace.as_deref_mut() {
        if req.cursor.is_some() {
            return Err(Error::new("FT.PROFILE does not support cursor"));
        }
        t.parsed();
    }
    let o = &req.query_options;
    if let Some(l) = &o.language {
        if crate::analysis::Language::parse(l).is_none() {
            return Err(Error::new("No such language"));
        }
    }
    let scorer = match &o.scorer {
        Some(s) => Scorer::parse(s)?,
        None => Scorer::parse(&config.default_scorer).unwrap_or(Scorer::TfIdf),
    }
    .with_tanh_factor(o.tanh_factor.unwrap_or(config.bm25std_tanh_factor));
    let infields: FieldMask = if o.in_fields.is_empty() {
        ALL_FIELDS
    } else {
        o.in_fields
            .iter()
            .filter_map(|n| idx.spec.field(n).and_then(|(i, _)| idx.text_ord(i)))
            .fold(0, |m, ord| m | (1u128 << ord))
    };
    let timeout =
        Timeout::of_query(started, req.timeout_ms.unwrap_or(config.timeout_ms), config, trace.is_some());
    let artifacts = config.iterator_scores && !shard && !redis8_tags && req.add_scores;
    let opts = ExecOptions {
        verbatim: o.verbatim
            || o.expander.as_deref().is_some_and(|e| !crate::commands::search::request::known_expander(e)),
        no_stopwords: o.no_stopwords,
        infields,
        max_expansions: config.max_expansions,
        min_prefix: config.min_prefix,
        slop: o.slop.map(|s| s.clamp(0, i64::from(u32::MAX / 4)) as u32),
        inorder: o.in_order,
        language: None,
        min_stem_len: config.min_stem_len,
        dialect,
        blobs,
        visible: crate::access::knn_visible(idx, &ast, docs, config)?,
        deadline: timeout.deadline(),
        explain: false,
        range_unions: artifacts && scorer.divides_by_slop(),
        term_scores: artifacts && scorer.reads_terms(),
    };
    let matched = execute_traced(idx, &ast, &opts, trace.as_deref_mut())?;
    let mut ids = matched.docids;
    if !o.in_keys.is_empty() {
        let allowed: RoaringBitmap = o.in_keys.iter().filter_map(|k| idx.docs.id_of(k)).collect();
        ids &= allowed;
    }
    // What the caller may not read takes no part: no row, no group member, no count.
    crate::access::restrict_hits(idx, &mut ids, opts.visible.as_ref(), docs, config)?;
    if let Some(t) = &mut trace {
        t.step("Index", ids.len());
    }
    let mut terms: Vec<(String, u32)> = Vec::new();
    if req.uses_matched_terms() {
        terms = matched
            .highlight
            .iter()
            .filter(|t| !t.starts_with(crate::analysis::STEM_PREFIX))
            .filter_map(|t| Some((t.clone(), idx.text.dict.get(t)?)))
            .collect();
        terms.sort();
    }
    // KNN rows come nearest first (RediSearch's vector iterator order), others in
    // RediSearch's document order (its ids: a rewritten document comes after the others).
    let order: Vec<u32> = match &matched.distances.knn {
        Some(knn) => knn.iter().map(|h| h.doc).filter(|d| ids.contains(*d)).collect(),
        None => idx.docs.in_document_order(&ids),
    };
    let scores = req.add_scores.then(|| {
        let mut ctx = ScoreContext::new(idx, &matched.terms, &matched.slop, scorer);
        if redis8_tags {
            ctx = ctx.without_tag_idf();
        }
        // After the IDFs are final: the per-query constants are made from them.
        let ctx = ctx.matching(&ids);
        let mut scores: Vec<f64> = order.iter().map(|&d| ctx.score(d)).collect();
        if scorer == Scorer::Bm25StdNorm {
            // Over every matched row, whatever LIMIT or a cursor's COUNT shows.
            let max = crate::query::score::max_score(scores.iter().copied());
            scores.iter_mut().for_each(|s| *s = crate::query::score::normalized(*s, max));
        }
        scores
    });
    if let Some(t) = trace.filter(|_| req.add_scores && scorer == Scorer::Bm25StdNorm) {
        t.step("Score Max Normalizer", order.len() as u64);
    }
    // FORMAT EXPAND reads JSON values as DIALECT 3 does (RediSearch sends a duo value's
    // expanded matches), whatever the query's dialect.
    let load_dialect = if req.format_expand { dialect.max(3) } else { dialect };
    Ok(Queried {
        req,
        idx,
        index_name,
        dialect: load_dialect,
        seed,
        timeout,
        distances: matched.distances,
        knn: matches!(ast, crate::query::syntax::QueryAst::Knn(_)),
        total: ids.len(),
        order,
        scores,
        terms,
    })
}

/// FT.AGGREGATE; with `ship`, a shard's part of a cluster query instead: the matched
/// documents with the values the pipeline reads, left in `ship` for the node that asked
/// (`distributed::aggregate`), which runs the pipeline.
pub(crate) fn run_aggregate(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    mut trace: Option<&mut Trace>,
    ship: Option<&mut Option<Reply>>,
) -> Result<Reply> {
    let q = query_with(
        cat,
        args,
        docs,
        config,
        proto,
        trace.as_deref_mut(),
        Instant::now(),
        false,
        ship.is_some(),
    )?;
    let loader = q.loader(docs);
    let mut plan = Plan::new(&q.req, &loader, q.seed)?.with_timeout(q.timeout);
    if trace.is_some() {
        plan = plan.profiled();
    }
    let hits = (0..q.order.len()).filter_map(|i| q.hit(i));
    if let Some(slot) = ship {
        *slot = Some(crate::distributed::aggregate::ship(&q.req, plan, q.knn, hits, q.total, &loader)?);
        return Ok(Reply::Nil);
    }
    let mut out = plan.execute(hits, q.total, &loader)?;
    if let Some(t) = trace {
        t.timed_out |= out.warning.as_deref() == Some(crate::error::TIMEOUT_ERROR);
        t.steps.extend(out.steps.drain(..).filter(|s| !s.name.is_empty()).map(|s| (s.name, s.time, s.count)));
    }
    out.live_ids = true;
    deliver(cat, &q.req, q.index_name.clone(), out, docs.caller(), config, proto)
}

/// An aggregation's rows to the client: at most MAXAGGREGATERESULTS of them in the reply, or,
/// WITHCURSOR, a cursor on `index` owned by `owner` holding them all.
pub(crate) fn deliver(
    cat: &Catalog,
    req: &AggregateRequest,
    index: Option<String>,
    mut out: AggOutput,
    owner: Option<String>,
    config: &Config,
    proto: Protocol,
) -> Result<Reply> {
    if req.cursor.is_none() {
        out.rows.truncate(usize::try_from(config.max_aggregate_results).unwrap_or(usize::MAX));
    }
    out.sortkey = req.sortkey_name().map(|name| name.and_then(|n| out.names.iter().position(|x| x == n)));
    match (req.cursor, index) {
        (Some(copts), Some(index)) => {
            let mut cursors = cat.cursors();
            cursors.max_idle_cap_ms = config.cursor_max_idle;
            Ok(cursors.start_owned(&index, owner, out, copts, req.format_expand, proto, now_ms())?)
        }
        _ => Ok(render(&Chunk::of(&out, req.format_expand), proto)),
    }
}

/// `FT.CURSOR READ idx cid [COUNT n] | DEL idx cid | GC idx cid`. A cursor's rows are what
/// the user who opened it may read: another user reads or deletes it only if that user may
/// read every key (for anyone else it does not exist).
pub(crate) fn ft_cursor(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    proto: Protocol,
) -> Result<Reply> {
    let sub = String::from_utf8_lossy(args[0]).to_ascii_uppercase();
    let id: u64 = std::str::from_utf8(args[2])
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| Error::new("Bad cursor ID"))? as u64;
    let now = now_ms();
    let mut cursors = cat.cursors();
    let foreign = cursors
        .owner_of(id)
        .is_some_and(|owner| owner.map(str::to_string) != docs.caller() && !docs.may_read_all());
    match sub.chars().next() {
        Some('R') if foreign => Err(Error::new("Cursor not found")),
        Some('D') if foreign => Err(Error::new("Cursor does not exist")),
        Some('R') => {
            let count = match args.get(4) {
                Some(c) => Some(
                    std::str::from_utf8(c)
                        .ok()
                        .and_then(|s| s.parse::<i64>().ok())
                        .ok_or_else(|| Error::new("Bad value for COUNT"))?
                        .max(0) as u64,
                ),
                None => None,
            };
            if let Some(index) = cursors.index_of(id) {
                if cat.resolve(index).is_none() {
                    let _ = cursors.delete(id, now);
                    return Err(Error::new("The index was dropped while the cursor was idle"));
                }
            }
            // A row's document is gone when the index no longer holds its key.
            let idx = cursors.index_of(id).and_then(|n| cat.resolve(n)).and_then(|n| cat.index(n));
            let live = |key: &[u8]| idx.is_none_or(|i| i.docs.id_of(key).is_some());
            Ok(cursors.read(id, count, proto, now, &live)?)
        }
        Some('D') => {
            cursors.delete(id, now)?;
            Ok(Reply::ok())
        }
        Some('G') => Ok(Reply::Int(cursors.gc(now) as i64)),
        _ => Err(Error::new("Unknown subcommand")),
    }
}
