//! FT.SEARCH: evaluation, ordering (score, top k or SORTBY) and paging; the request's
//! parsing is in `request.rs`, SORTBY's keys in `sort_keys.rs`, HAMMING's payloads in
//! `payload.rs`, the reply's rendering (RETURN, JSONPath projection, HIGHLIGHT/SUMMARIZE,
//! RESP2/RESP3 shapes) in `render.rs`.

use crate::catalog::Catalog;
use crate::commands::text;
use crate::config::Config;
use crate::document::{DocumentSource, KeyType};
use crate::error::{Error, Result, TIMEOUT_ERROR};
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::index::Index;
use crate::query::exec::ExecOptions;
use crate::query::score::{Explanation, ScoreContext, Scorer};
use crate::query::syntax::{parse_in, QueryAst};
use crate::query::trace::{execute_traced, Trace};
use crate::reply::{Protocol, Reply};
use crate::schema::FieldType;
use crate::timeout::Timeout;
use std::time::Instant;

mod align;
mod numeric_sort;
mod payload;
mod render;
pub(crate) mod request;
mod sort_keys;

use payload::{hamming_scores, payload_of};
use render::RenderCtx;
pub(crate) use render::{render, Row};
use request::ReturnField;
pub(crate) use request::{parse_dialect, parse_params, parse_request, SearchRequest};
use sort_keys::sort_key;
pub(crate) use sort_keys::{cmp_keys, Key};

/// How a search pages its results.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paging {
    /// As the client asked (a single server).
    Client,
    /// A shard's part of a cluster query: the first offset+num results (every KNN hit),
    /// for the node that asked to merge and page.
    Shard,
    /// No results, only the count (a shard reporting its term statistics).
    CountOnly,
}

/// What a search found: the request, the total, the page's rows and warnings.
pub(crate) struct Searched {
    pub(crate) req: SearchRequest,
    pub(crate) total: u64,
    pub(crate) rows: Vec<Row>,
    pub(crate) warnings: Vec<String>,
}

/// `FT.SEARCH idx query [options…]`.
pub(crate) fn ft_search(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    trace: Option<&mut Trace>,
) -> Result<Reply> {
    let s = run_search(cat, args, docs, config, proto, trace, Paging::Client)?;
    Ok(render(&s.req, s.total, s.rows, &s.warnings, proto))
}

/// Runs FT.SEARCH up to its rows (see [`Paging`]).
pub(crate) fn run_search(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    mut trace: Option<&mut Trace>,
    paging: Paging,
) -> Result<Searched> {
    let mut page = search_page(cat, args, docs, config, proto, trace.as_deref_mut(), paging, Instant::now())?;
    let idx =
        &cat.entry(&page.index).ok_or_else(|| Error::new(format!("{}: no such index", page.index)))?.index;
    // The same catalog borrow since the query ran: the index has not changed.
    let (rows, warnings) = page.read(idx, docs, true)?;
    let SearchPage { req, total, .. } = page;
    if let Some(t) = trace.as_deref_mut() {
        t.timed_out |= warnings.iter().any(|w| w == TIMEOUT_ERROR);
    }
    if let Some(t) = trace.filter(|_| req.offset.saturating_add(req.limit) > 0) {
        // Sortable values RETURNed come from the document table (no loader in RediSearch).
        let sortable = |rf: &ReturnField| idx.spec.field(&rf.source).is_some_and(|(_, f)| f.sortable);
        let from_table = req.returns.as_ref().is_some_and(|r| r.iter().all(sortable));
        if !req.no_content && !from_table {
            t.step("Loader", rows.len() as u64);
        }
        if req.highlight.is_some() || req.summarize.is_some() {
            t.step("Highlighter", rows.len() as u64);
        }
    }
    Ok(Searched { req, total, rows, warnings })
}

/// What a search found before its rows are read from the documents: the request, the total,
/// the page's documents (by key, with what ordering them read from the index) and what
/// rendering them needs. It holds no reference into the index, so the index can change
/// before [`SearchPage::rows`] reads the documents (on another thread, or later).
pub struct SearchPage {
    req: SearchRequest,
    /// The index's real name.
    index: String,
    total: u64,
    warnings: Vec<String>,
    hits: Vec<PageHit>,
    highlight: std::collections::HashSet<String>,
    dist: crate::query::vector::Distances,
    sorted_by_key: bool,
    timeout: Timeout,
}

/// One document of a page.
struct PageHit {
    /// Its id when the query ran (the key to the query's own distances).
    id: u32,
    key: Vec<u8>,
    score: f64,
    /// Its SORTBY key, when the page was sorted by one.
    order: Option<Key>,
    /// EXPLAINSCORE's explanation of its score.
    explain: Option<Explanation>,
}

impl SearchPage {
    /// The page's rows, read from the documents now. A document that left the index since
    /// the query ran is left out; one that changed is shown as it is now (as RediSearch's
    /// loader does); with them, the page's warnings. Past the query's TIMEOUT: under
    /// ON_TIMEOUT RETURN the rows read by then and the timeout warning (crate::timeout), under
    /// FAIL the error.
    pub(crate) fn rows(&mut self, idx: &Index, docs: &dyn DocumentSource) -> Result<(Vec<Row>, Vec<String>)> {
        self.read(idx, docs, false)
    }

    /// [`Self::rows`] (the page's hits move into them); `unchanged`: `idx` is the index the query
    /// ran on, not changed since, so the hits' ids still name their documents (no key lookup
    /// per row).
    fn read(
        &mut self,
        idx: &Index,
        docs: &dyn DocumentSource,
        unchanged: bool,
    ) -> Result<(Vec<Row>, Vec<String>)> {
        let (rows, cut) = self.read_rows(idx, docs, unchanged)?;
        let mut warnings = std::mem::take(&mut self.warnings);
        if cut && !warnings.iter().any(|w| w == TIMEOUT_ERROR) {
            warnings.push(TIMEOUT_ERROR.to_string());
        }
        Ok((rows, warnings))
    }

    /// [`Self::rows`]' rows, and whether the TIMEOUT cut them short.
    fn read_rows(
        &mut self,
        idx: &Index,
        docs: &dyn DocumentSource,
        unchanged: bool,
    ) -> Result<(Vec<Row>, bool)> {
        let hits = std::mem::take(&mut self.hits);
        let req = &self.req;
        let dialect = if req.expand { req.dialect.max(3) } else { req.dialect };
        let dist = &self.dist;
        let ctx = RenderCtx { idx, req, docs, highlight_terms: &self.highlight, dialect, dist };
        let mut rows = Vec::with_capacity(hits.len());
        let prefetch = !req.no_content && idx.spec.on == KeyType::Json;
        let mut hits = hits.into_iter();
        for n in 0.. {
            if prefetch && n % ROWS_PREFETCHED == 0 {
                let ahead: Vec<&[u8]> =
                    hits.as_slice().iter().take(ROWS_PREFETCHED).map(|h| h.key.as_slice()).collect();
                docs.prefetch_rows(&ahead);
            }
            let Some(h) = hits.next() else { break };
            if self.timeout.passed_at(n as u64 + 1, ROWS_PER_CLOCK_CHECK) {
                self.timeout.cut_short()?;
                if req.returns.is_none() {
                    align::align_fields(&mut rows);
                }
                return Ok((rows, true));
            }
            let Some(d) = (if unchanged { Some(h.id) } else { idx.docs.id_of(&h.key) }) else { continue };
            // Its content, read now, would not be the version the query matched.
            if !req.no_content && !docs.row_unchanged(&h.key) {
                continue;
            }
            let payload = if req.with_payloads && !idx.spec.payload_field.is_empty() {
                payload_of(docs, &h.key, &idx.spec.payload_field)
            } else {
                None
            };
            let distance = dist.knn.as_ref().and_then(|k| k.iter().find(|x| x.doc == h.id)).map(|x| x.dist);
            let order_more = if self.sorted_by_key {
                req.sortby_more
                    .iter()
                    .map(|(f, _)| {
                        idx.spec.field(f).and_then(|(i, _)| sort_key(idx, d, Some(i), docs, dialect))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let fields = if req.no_content { None } else { ctx.load(h.id, &h.key) };
            rows.push(Row {
                key: h.key,
                score: h.score,
                payload,
                sortkey: if req.with_sortkeys { h.order.clone() } else { None },
                fields,
                order: if self.sorted_by_key { h.order } else { None },
                order_more,
                distance,
                explain: h.explain,
                raw_id: Some(idx.docs.redisearch_id(d) as i64),
            });
        }
        self.timeout.check_end()?;
        if req.returns.is_none() {
            align::align_fields(&mut rows);
        }
        Ok((rows, false))
    }
}

/// Rows read between two looks at the clock.
const ROWS_PER_CLOCK_CHECK: u64 = 32;

/// Rows whose JSON documents are asked into the cache together ([`DocumentSource::prefetch_rows`]).
const ROWS_PREFETCHED: usize = 16;

/// Documents ordered by a SORTBY key between two looks at the clock.
const KEYS_PER_CLOCK_CHECK: u64 = 1024;

impl Catalog {
    /// The reply to a search run in stages ([`SearchPage`]): its rows read from `docs` now.
    pub fn finish_search(&self, mut page: SearchPage, docs: &dyn DocumentSource, proto: Protocol) -> Reply {
        let Some(e) = self.entry(&page.index) else {
            return Reply::Error(format!("{}: no such index", page.index));
        };
        match page.rows(&e.index, docs) {
            Ok((rows, warnings)) => render(&page.req, page.total, rows, &warnings, proto),
            Err(e) => Reply::Error(e.0),
        }
    }
}

/// FT.SEARCH up to its page ([`SearchPage`]); `started`: when the command arrived (its
/// TIMEOUT counts from then).
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_page(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    mut trace: Option<&mut Trace>,
    paging: Paging,
    started: Instant,
) -> Result<SearchPage> {
    let name = text(args[0]);
    let mut req = parse_request(&args[1..], config)?;
    match paging {
        Paging::Client => {}
        Paging::Shard => {
            req.limit = req.offset.saturating_add(req.limit);
            req.offset = 0;
        }
        Paging::CountOnly => {
            req.limit = 0;
            req.offset = 0;
        }
    }
    let index = cat.resolve(&name).unwrap_or(&name).to_string();
    let e = cat.entry(&name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
    if req.expand {
        if proto != Protocol::Resp3 {
            return Err(Error::new("EXPAND format is only supported with RESP3"));
        }
        if e.index.spec.on != KeyType::Json {
            return Err(Error::new("EXPAND format is only supported with JSON"));
        }
    }
    e.usage.count_query(req.dialect);
    config.mark_dialect(req.dialect);
    let idx = &e.index;
    check_highlighting(&req, idx)?;
    if req.query.len() > crate::limits::MAX_QUERY_LEN {
        return Err(Error::new("Query string too long"));
    }
    let ast = crate::query::global_filters::apply(
        parse_in(&req.query, req.dialect, &req.blobs, (!req.no_stopwords).then_some(&idx.spec.stopwords))?,
        &req.filters,
        &req.geofilters,
        req.inkeys.as_deref(),
    );
    if let Some(t) = trace.as_deref_mut() {
        t.parsed();
    }
    let infields: FieldMask = match &req.infields {
        None => ALL_FIELDS,
        Some(names) => names
            .iter()
            .filter_map(|n| idx.spec.field(n).and_then(|(i, _)| idx.text_ord(i)))
            .fold(0, |m, o| m | (1u128 << o)),
    };
    let timeout = Timeout::of_query(started, req.timeout_ms, config, trace.is_some());
    // Scores as RediSearch's iterators leave them: on a single server, when scores are read.
    let artifacts =
        config.iterator_scores && paging == Paging::Client && (req.with_scores || req.sortby.is_none());
    let opts = ExecOptions {
        verbatim: req.verbatim,
        no_stopwords: req.no_stopwords,
        infields,
        max_expansions: config.max_expansions,
        min_prefix: config.min_prefix,
        slop: req.slop,
        inorder: req.inorder,
        language: req.language.filter(|l| *l != idx.spec.language),
        min_stem_len: config.min_stem_len,
        dialect: req.dialect,
        blobs: std::mem::take(&mut req.blobs),
        visible: crate::access::knn_visible(idx, &ast, docs, config)?,
        deadline: timeout.deadline(),
        explain: req.explain_score,
        range_unions: artifacts && req.scorer.divides_by_slop(),
        term_scores: artifacts && req.scorer.reads_terms(),
    };
    let matched = execute_traced(idx, &ast, &opts, trace.as_deref_mut())?;
    let mut warnings = matched.warnings.clone();
    let mut ids = matched.docids;
    // What the caller may not read is neither counted nor shown.
    crate::access::restrict_hits(idx, &mut ids, opts.visible.as_ref(), docs, config)?;
    let mut total = ids.len();
    if let Some(t) = trace.as_deref_mut() {
        t.step("Index", total);
    }
    let mut want = req.offset.saturating_add(req.limit) as usize;
    if paging == Paging::Shard && matches!(ast, QueryAst::Knn(_)) {
        // The node keeps the k nearest over all shards: each sends all of its own.
        want = ids.len() as usize;
    }
    let mut scorer = ScoreContext::new(idx, &matched.terms, &matched.slop, req.scorer).matching(&ids);
    if req.scorer == Scorer::Hamming {
        let len = req.payload.as_ref().map_or(0, Vec::len);
        scorer = scorer.with_scores(hamming_scores(idx, &ids, req.payload.as_deref(), docs), len);
    }
    let dist = &matched.distances;
    let need_scores = req.with_scores || req.sortby.is_none();
    let mut page: Vec<(u32, f64, Option<Key>)> = Vec::new();
    let mut sorted_by_key = false;
    // BM25STD.NORM's divisor (RediSearch 8.4's `RPMaxScoreNormalizer`).
    let mut norm_max = 0.0;
    if want > 0 {
        if let (None, Some(knn)) = (&req.sortby, &dist.knn) {
            // RediSearch 2.10 does not order KNN results by distance: each carries its
            // filter's score (0 under `*`), highest first, then (RediSearch) document id order.
            let unfiltered = matches!(&ast, QueryAst::Knn(c) if matches!(*c.filter, QueryAst::MatchAll));
            for h in knn {
                idx.docs.prefetch_entry(h.doc);
            }
            // (document, score, RediSearch id): the id read once, not at every comparison.
            let mut rows: Vec<(u32, f64, u64)> = knn
                .iter()
                .map(|h| h.doc)
                .filter(|d| ids.contains(*d))
                .map(|d| (d, if unfiltered { 0.0 } else { scorer.score(d) }, idx.docs.redisearch_id(d)))
                .collect();
            rows.sort_by(|a, b| crate::query::score::score_order(b.1, a.1).then(a.2.cmp(&b.2)));
            norm_max = crate::query::score::max_score(rows.iter().map(|r| r.1));
            page = rows.into_iter().take(want).map(|(d, score, _)| (d, score, None)).collect();
        } else if let Some((field, asc)) = &req.sortby {
            let fi = idx.spec.field(field).map(|(i, _)| i);
            let by_distance = fi.is_none() && dist.has(field);
            if fi.is_none() && !by_distance {
                return Err(Error::new(format!("Property `{field}` not loaded nor in schema")));
            }
            let dialect = if req.expand { req.dialect.max(3) } else { req.dialect };
            let key_of = |d: u32| {
                if by_distance {
                    dist.get(field, d).map(Key::Num)
                } else {
                    sort_key(idx, d, fi, docs, dialect)
                }
            };
            // Further SORTBY fields: their keys break ties of the first, in order.
            let mut more = Vec::with_capacity(req.sortby_more.len());
            for (f, asc) in &req.sortby_more {
                let Some((i, _)) = idx.spec.field(f) else {
                    return Err(Error::new(format!("Property `{f}` not loaded nor in schema")));
                };
                more.push((i, *asc));
            }
            let more_keys = |d: u32| {
                more.iter().map(|&(i, _)| sort_key(idx, d, Some(i), docs, dialect)).collect::<Vec<_>>()
            };
            let numbers = match fi {
                Some(f) if more.is_empty() && !by_distance => {
                    numeric_sort::rows(idx, ids.iter(), f as u16, *asc, |n| {
                        timeout.passed_at(n as u64 + 1, KEYS_PER_CLOCK_CHECK)
                    })
                }
                _ => None,
            };
            // The page's documents in order, with their sort keys.
            let ordered: Vec<(u32, Option<Key>)> = if let Some((mut rows, stopped)) = numbers {
                if stopped {
                    timeout.cut_short()?;
                    warnings.push(TIMEOUT_ERROR.to_string());
                    total = rows.len() as u64;
                }
                numeric_sort::first(&mut rows, want);
                rows.into_iter().map(|r| (r.doc, Some(Key::Num(r.number)))).collect()
            } else {
                let mut rows: Vec<(u32, Option<Key>, Vec<Option<Key>>)> = Vec::new();
                for (n, d) in ids.iter().enumerate() {
                    if timeout.passed_at(n as u64 + 1, KEYS_PER_CLOCK_CHECK) {
                        // ON_TIMEOUT RETURN: the documents ordered so far are the result.
                        timeout.cut_short()?;
                        warnings.push(TIMEOUT_ERROR.to_string());
                        total = rows.len() as u64;
                        break;
                    }
                    rows.push((d, key_of(d), if more.is_empty() { Vec::new() } else { more_keys(d) }));
                }
                // A NUMERIC attribute's array text (before DIALECT 3, above) beside numbers: RediSearch's
                // sorter fails to read the text as a number. (It names the text it compared first;
                // this names the first in document order.)
                let numeric =
                    fi.and_then(|i| idx.spec.fields.get(i)).is_some_and(|f| f.kind == FieldType::Numeric);
                if numeric && dialect < 3 && rows.iter().any(|r| matches!(r.1, Some(Key::Num(_)))) {
                    let first_text = rows
                        .iter()
                        .filter_map(|r| match &r.1 {
                            Some(Key::Str(text)) => Some((idx.docs.redisearch_id(r.0), text)),
                            _ => None,
                        })
                        .min_by_key(|(rs, _)| *rs);
                    if let Some((_, text)) = first_text {
                        return Err(Error::new(format!("Error converting string '{text}' to number")));
                    }
                }
                // Equal keys keep (RediSearch) document order, reversed for DESC (as RediSearch's
                // sorter; with several fields, the first one's direction).
                let rs = |d: u32| idx.docs.redisearch_id(d);
                let cmp = |a: &(u32, Option<Key>, Vec<Option<Key>>),
                           b: &(u32, Option<Key>, Vec<Option<Key>>)| {
                    let mut o = cmp_keys(&a.1, &b.1, *asc);
                    for ((ka, kb), (_, asc)) in a.2.iter().zip(&b.2).zip(&more) {
                        o = o.then_with(|| cmp_keys(ka, kb, *asc));
                    }
                    o.then_with(|| if *asc { rs(a.0).cmp(&rs(b.0)) } else { rs(b.0).cmp(&rs(a.0)) })
                };
                if rows.len() > want {
                    rows.select_nth_unstable_by(want - 1, cmp);
                    rows.truncate(want);
                }
                rows.sort_by(cmp);
                rows.into_iter().map(|(d, k, _)| (d, k)).collect()
            };
            if req.with_scores && req.scorer == Scorer::Bm25StdNorm {
                // BM25STD.NORM divides by the largest score of every result, not the page's.
                norm_max = crate::query::score::max_score(ids.iter().map(|d| scorer.score(d)));
            }
            page = ordered
                .into_iter()
                .map(|(d, k)| (d, if req.with_scores { scorer.score(d) } else { 0.0 }, k))
                .collect();
            sorted_by_key = true;
        } else if need_scores {
            // Scoring is the long phase: top_k looks at the clock every 4096 documents.
            // (`*` alone, like any filter, is scored from per-query constants: `matching`.)
            let score_of = |d: u32, floor: f64| scorer.score_in_order(d, floor);
            // Top k by score, skipping document ranges that cannot enter it (query/topk.rs).
            let plan = if want as u64 >= ids.len() { None } else { scorer.skip_plan() };
            let top = crate::query::topk::top_k(&ids, want, plan.as_ref(), &idx.docs, score_of, || {
                timeout.passed()
            });
            if top.stopped {
                // ON_TIMEOUT RETURN: the best of the documents scored so far.
                timeout.cut_short()?;
                warnings.push(TIMEOUT_ERROR.to_string());
                total = top.seen;
            }
            if let Some(t) = trace.as_deref_mut() {
                t.step("Scorer", top.seen);
            }
            let rows = top.rows;
            // The top rows hold the largest score of the result set.
            norm_max = crate::query::score::max_score(rows.iter().map(|r| r.1));
            page = rows.into_iter().map(|(d, s)| (d, s, None)).collect();
        } else {
            page = ids.iter().take(want).map(|d| (d, 0.0, None)).collect();
        }
    }
    let normalizing = req.scorer == Scorer::Bm25StdNorm && need_scores;
    if normalizing {
        for row in page.iter_mut() {
            row.1 = crate::query::score::normalized(row.1, norm_max);
        }
    }
    let page: Vec<_> = page.into_iter().skip(req.offset as usize).collect();
    if let Some(t) = trace {
        if want == 0 && req.capped_to_count {
            // MAXSEARCHRESULTS 0: scored, then counted; a counter ahead of a loader reports
            // the one call that found nothing to pass on.
            if req.sortby.is_none() {
                t.step("Scorer", total);
            }
            if req.no_content {
                t.step("Counter", 1);
            } else {
                t.step("Counter", 0);
                t.step("Loader", 1);
            }
        } else if want == 0 {
            // LIMIT 0 0: a counter passes the count on.
            t.step("Counter", 1);
        } else {
            if normalizing {
                t.step("Score Max Normalizer", total);
            }
            t.step("Sorter", page.len() as u64);
            if req.offset > 0 {
                t.step("Pager/Limiter", page.len() as u64);
            }
        }
    }
    let names = if req.explain_score { scorer.term_names() } else { Default::default() };
    let mut hits = Vec::with_capacity(page.len());
    for &(d, _, _) in &page {
        idx.docs.prefetch(d);
    }
    for (d, score, order) in page {
        let Some(rec) = idx.docs.get(d) else { continue };
        let order = if sorted_by_key { order } else { None };
        let explain = req.explain_score.then(|| scorer.explain(d, matched.explain.as_ref(), &names));
        hits.push(PageHit { id: d, key: rec.key().to_vec(), score, order, explain });
    }
    Ok(SearchPage {
        req,
        index,
        total,
        warnings,
        hits,
        highlight: matched.highlight,
        dist: matched.distances,
        sorted_by_key,
        timeout,
    })
}

/// HIGHLIGHT and SUMMARIZE need the index's term offsets, and name attributes of its schema
/// (RediSearch 2.10.5's errors, its `NOOFSETS` spelling included).
fn check_highlighting(req: &SearchRequest, idx: &Index) -> Result<()> {
    if req.highlight.is_none() && req.summarize.is_none() {
        return Ok(());
    }
    if idx.spec.no_offsets || idx.spec.no_hl {
        return Err(Error::new(
            "Cannot use highlight/summarize because NOOFSETS was specified at index level",
        ));
    }
    let named = req.highlight.iter().flat_map(|h| h.0.iter().flatten());
    let named = named.chain(req.summarize.iter().flat_map(|s| s.0.iter().flatten()));
    for name in named {
        if idx.spec.field(name).is_none() {
            return Err(Error::new(format!("No such property `{name}`")));
        }
    }
    Ok(())
}
