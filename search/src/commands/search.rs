//! FT.SEARCH: option parsing, query evaluation, legacy filters, ordering (score or
//! SORTBY), paging, field loading (RETURN, JSONPath projection), HIGHLIGHT/SUMMARIZE and
//! the RESP2/RESP3 reply shapes.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use roaring::RoaringBitmap;

use crate::aggregate::value::format_g;
use crate::args::{parse_f64, Args};
use crate::catalog::Catalog;
use crate::commands::expand::expand_json;
use crate::commands::profile::Trace;
use crate::commands::text;
use crate::config::{Config, TimeoutPolicy};
use crate::document::{DocumentSource, FieldValue, KeyType};
use crate::error::{Error, Result};
use crate::index::docs::SortValue;
use crate::index::geo::unit_factor;
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::index::Index;
use crate::limits::MAX_DIALECT;
use crate::query::exec::ExecOptions;
use crate::query::highlight::{highlight, summarize, trim_field, Summary};
use crate::query::score::{ScoreContext, Scorer};
use crate::query::syntax::{parse, QueryAst};
use crate::query::vector::{format_distance, Distances};
use crate::reply::{Protocol, Reply};
use crate::schema::FieldType;

/// A RETURN entry: source (attribute or JSONPath) and output name.
struct ReturnField {
    source: String,
    name: String,
}

/// Parsed FT.SEARCH options.
pub(crate) struct SearchRequest {
    pub(crate) query: String,
    pub(crate) no_content: bool,
    verbatim: bool,
    no_stopwords: bool,
    pub(crate) with_scores: bool,
    explain_score: bool,
    with_payloads: bool,
    with_sortkeys: bool,
    filters: Vec<(String, f64, bool, f64, bool)>,
    geofilters: Vec<(String, f64, f64, f64)>,
    inkeys: Option<Vec<Vec<u8>>>,
    infields: Option<Vec<String>>,
    returns: Option<Vec<ReturnField>>,
    highlight: Option<(Option<Vec<String>>, String, String)>,
    summarize: Option<(Option<Vec<String>>, Summary)>,
    slop: Option<u32>,
    inorder: bool,
    scorer: Scorer,
    pub(crate) sortby: Option<(String, bool)>,
    /// SORTBY's further fields (`SORTBY <count> @a ASC @b DESC …`), tie-breakers in order.
    pub(crate) sortby_more: Vec<(String, bool)>,
    pub(crate) offset: u64,
    pub(crate) limit: u64,
    pub(crate) params: HashMap<String, String>,
    /// PARAMS as raw bytes (vector blobs).
    blobs: HashMap<String, Vec<u8>>,
    pub(crate) dialect: u32,
    /// DIALECT given explicitly.
    dialect_given: bool,
    /// LIMIT given explicitly (only then is it checked against MAXSEARCHRESULTS).
    limit_given: bool,
    /// FORMAT EXPAND (RESP3, JSON): values as native replies.
    expand: bool,
    pub(crate) timeout_ms: u64,
    language: Option<crate::analysis::Language>,
}

/// `DIALECT d`.
pub(crate) fn parse_dialect(a: &mut Args) -> Result<u32> {
    let bad = || Error::new(format!("DIALECT requires a non negative integer >=1 and <= {MAX_DIALECT}"));
    let d = a.next_str("DIALECT").map_err(|_| bad())?.parse::<u32>().map_err(|_| bad())?;
    if !(1..=MAX_DIALECT).contains(&d) {
        return Err(bad());
    }
    Ok(d)
}

/// `PARAMS n k v …`.
pub(crate) fn parse_params(a: &mut Args) -> Result<HashMap<String, String>> {
    Ok(text_params(&parse_params_raw(a)?))
}

/// `PARAMS n k v …` with the values as raw bytes (vector blobs are binary).
pub(crate) fn parse_params_raw(a: &mut Args) -> Result<HashMap<String, Vec<u8>>> {
    let n = a.next_u64("PARAMS")? as usize;
    if !n.is_multiple_of(2) || n > a.remaining() {
        return Err(Error::new("Parameters must be specified in PARAM VALUE pairs"));
    }
    let mut p = HashMap::new();
    for _ in 0..n / 2 {
        let k = a.next_str("PARAMS")?;
        let v = a.next_bytes().unwrap_or_default();
        p.insert(k, v.to_vec());
    }
    Ok(p)
}

/// The text view of raw PARAMS (what the query parser substitutes).
pub(crate) fn text_params(raw: &HashMap<String, Vec<u8>>) -> HashMap<String, String> {
    raw.iter().map(|(k, v)| (k.clone(), String::from_utf8_lossy(v).into_owned())).collect()
}

fn list(a: &mut Args, what: &str) -> Result<Vec<String>> {
    let n = a.next_u64(what)? as usize;
    if n > a.remaining() {
        return Err(Error::new(format!("Bad arguments for {what}: Expected an argument, but none provided")));
    }
    (0..n).map(|_| a.next_str(what)).collect()
}

pub(crate) fn parse_request(args: &[&[u8]], config: &Config) -> Result<SearchRequest> {
    let mut a = Args::new(args);
    let mut r = SearchRequest {
        query: a.next_str("query")?,
        no_content: false,
        verbatim: false,
        no_stopwords: false,
        with_scores: false,
        explain_score: false,
        with_payloads: false,
        with_sortkeys: false,
        filters: Vec::new(),
        geofilters: Vec::new(),
        inkeys: None,
        infields: None,
        returns: None,
        highlight: None,
        summarize: None,
        slop: None,
        inorder: false,
        scorer: Scorer::parse(&config.default_scorer).unwrap_or(Scorer::TfIdf),
        sortby: None,
        sortby_more: Vec::new(),
        offset: 0,
        limit: 10,
        params: HashMap::new(),
        blobs: HashMap::new(),
        dialect: config.default_dialect,
        dialect_given: false,
        limit_given: false,
        expand: false,
        timeout_ms: config.timeout_ms,
        language: None,
    };
    while let Some(tok) = a.peek() {
        if a.eat("NOCONTENT") {
            r.no_content = true;
        } else if a.eat("VERBATIM") {
            r.verbatim = true;
        } else if a.eat("NOSTOPWORDS") {
            r.no_stopwords = true;
        } else if a.eat("WITHSCORES") {
            r.with_scores = true;
        } else if a.eat("EXPLAINSCORE") {
            r.explain_score = true;
        } else if a.eat("WITHPAYLOADS") {
            r.with_payloads = true;
        } else if a.eat("WITHSORTKEYS") {
            r.with_sortkeys = true;
        } else if a.eat("INORDER") {
            r.inorder = true;
        } else if a.eat("FILTER") {
            let f = a.next_str("FILTER")?;
            let (lo, lo_incl) = bound(&a.next_str("FILTER")?)?;
            let (hi, hi_incl) = bound(&a.next_str("FILTER")?)?;
            r.filters.push((f, lo, lo_incl, hi, hi_incl));
        } else if a.eat("GEOFILTER") {
            let f = a.next_str("GEOFILTER")?;
            let lon = a.next_f64("GEOFILTER")?;
            let lat = a.next_f64("GEOFILTER")?;
            let rad = a.next_f64("GEOFILTER")?;
            let unit = a.next_str("GEOFILTER")?;
            let factor = unit_factor(&unit).ok_or_else(|| Error::new("Invalid GeoFilter unit"))?;
            r.geofilters.push((f, lon, lat, rad * factor));
        } else if a.eat("INKEYS") {
            r.inkeys = Some(list(&mut a, "INKEYS")?.into_iter().map(String::into_bytes).collect());
        } else if a.eat("INFIELDS") {
            r.infields = Some(list(&mut a, "INFIELDS")?);
        } else if a.eat("RETURN") {
            let n = a.next_u64("RETURN")? as usize;
            if n > a.remaining() {
                return Err(Error::new("Bad arguments for RETURN: Expected an argument, but none provided"));
            }
            let mut fields = Vec::new();
            let mut consumed = 0;
            while consumed < n {
                let source = a.next_str("RETURN")?;
                consumed += 1;
                let mut name = source.clone();
                let as_next = a.peek().is_some_and(|p| p.eq_ignore_ascii_case(b"AS"));
                if as_next && consumed + 1 == n {
                    return Err(Error::new("RETURN path AS name - must be accompanied with NAME"));
                }
                if consumed + 2 <= n && as_next {
                    a.eat("AS");
                    name = a.next_str("RETURN")?;
                    consumed += 2;
                }
                // A name already returned is the same output (RediSearch's lookup keys are
                // by name): `RETURN 4 $.n AS x x` returns x once, read from `$.n`.
                if !fields.iter().any(|f: &ReturnField| f.name == name) {
                    fields.push(ReturnField { source, name });
                }
            }
            if fields.is_empty() {
                r.no_content = true;
            }
            r.returns = Some(fields);
        } else if a.eat("HIGHLIGHT") {
            let mut fields = None;
            let (mut open, mut close) = ("<b>".to_string(), "</b>".to_string());
            loop {
                if a.eat("FIELDS") {
                    fields = Some(list(&mut a, "HIGHLIGHT")?);
                } else if a.eat("TAGS") {
                    open = a.next_str("TAGS")?;
                    close = a.next_str("TAGS")?;
                } else {
                    break;
                }
            }
            r.highlight = Some((fields, open, close));
        } else if a.eat("SUMMARIZE") {
            let mut fields = None;
            let mut s = Summary { frags: 3, len: 20, separator: "... ".into() };
            loop {
                if a.eat("FIELDS") {
                    fields = Some(list(&mut a, "SUMMARIZE")?);
                } else if a.eat("FRAGS") {
                    s.frags = a.next_u64("FRAGS")? as usize;
                } else if a.eat("LEN") {
                    s.len = a.next_u64("LEN")? as usize;
                } else if a.eat("SEPARATOR") {
                    s.separator = a.next_str("SEPARATOR")?;
                } else {
                    break;
                }
            }
            r.summarize = Some((fields, s));
        } else if a.eat("SLOP") {
            r.slop = Some(a.next_u64("SLOP")?.min(u64::from(u32::MAX / 4)) as u32);
        } else if a.eat("TIMEOUT") {
            r.timeout_ms = a.next_u64("TIMEOUT")?;
        } else if a.eat("LANGUAGE") {
            let l = a.next_str("LANGUAGE")?;
            r.language =
                Some(crate::analysis::Language::parse(&l).ok_or_else(|| Error::new("No such language"))?);
        } else if a.eat("EXPANDER") || a.eat("PAYLOAD") {
            a.next_str("option")?;
        } else if a.eat("SCORER") {
            r.scorer = Scorer::parse(&a.next_str("SCORER")?)?;
        } else if a.eat("SORTBY") {
            if r.sortby.is_some() {
                return Err(Error::new("Multiple SORTBY steps are not allowed"));
            }
            let f = a.next_str("SORTBY")?;
            if let Ok(n) = f.parse::<usize>() {
                // The counted form, as FT.AGGREGATE's: `SORTBY 4 @a ASC @b DESC` (a field
                // named by digits is then given as `@name`).
                let mut keys: Vec<(String, bool)> = Vec::new();
                let mut left = n;
                while left > 0 {
                    let tok = a.next_str("SORTBY")?;
                    left -= 1;
                    match tok.to_ascii_uppercase().as_str() {
                        "ASC" | "DESC" => match keys.last_mut() {
                            Some(k) => k.1 = tok.eq_ignore_ascii_case("ASC"),
                            None => return Err(Error::new("Bad arguments for SORTBY: expected a property")),
                        },
                        _ => keys.push((tok.strip_prefix('@').unwrap_or(&tok).to_string(), true)),
                    }
                }
                let mut keys = keys.into_iter();
                let Some(first) = keys.next() else {
                    return Err(Error::new("Bad arguments for SORTBY: expected a property"));
                };
                r.sortby = Some(first);
                r.sortby_more = keys.collect();
                continue;
            }
            let f = f.strip_prefix('@').unwrap_or(&f).to_string();
            let mut asc = true;
            if a.eat("DESC") {
                asc = false;
            } else {
                a.eat("ASC");
            }
            if a.eat("MAX") {
                return Err(Error::new("SORTBY MAX is not supported by FT.SEARCH"));
            }
            if !a.eat("WITHCOUNT") {
                a.eat("WITHOUTCOUNT");
            }
            r.sortby = Some((f, asc));
        } else if a.eat("LIMIT") {
            r.offset = a.next_u64("LIMIT")?;
            r.limit = a.next_u64("LIMIT")?;
            r.limit_given = true;
        } else if a.eat("PARAMS") {
            r.blobs = parse_params_raw(&mut a)?;
            r.params = text_params(&r.blobs);
        } else if a.eat("DIALECT") {
            r.dialect = parse_dialect(&mut a)?;
            r.dialect_given = true;
        } else if a.eat("FORMAT") {
            let f = a.next_str("FORMAT").map_err(|_| Error::new("Need an argument for FORMAT"))?;
            if f.eq_ignore_ascii_case("EXPAND") {
                r.expand = true;
            } else if f.eq_ignore_ascii_case("STRING") {
                r.expand = false;
            } else {
                return Err(Error::new(format!("FORMAT {f} is not supported")));
            }
        } else if a.eat("ADDSCORES") {
            return Err(Error::new("ADDSCORES is not supported on FT.SEARCH"));
        } else {
            // Positions count from the query string (0), as in RediSearch's message.
            let at = args.len() - a.remaining();
            return Err(Error::new(format!("Unknown argument `{}` at position {at} for <main>", text(tok))));
        }
    }
    if r.expand && r.dialect_given && r.dialect < 3 {
        return Err(Error::new("EXPAND format requires dialect 3 or greater"));
    }
    if r.explain_score && !r.with_scores {
        return Err(Error::new("EXPLAINSCORE must be accompanied with WITHSCORES"));
    }
    let max = config.max_search_results;
    if r.limit_given && r.limit > max {
        return Err(Error::new(format!("LIMIT exceeds maximum of {max}")));
    }
    if r.limit_given && r.offset > max {
        return Err(Error::new(format!("OFFSET exceeds maximum of {max}")));
    }
    // No result past the MAXSEARCHRESULTS-th is returned: `LIMIT 1 20` under 20 gives 19, the
    // default `LIMIT 0 10` under 0 only the count (as RediSearch 2.10 answers).
    r.limit = r.limit.min(max.saturating_sub(r.offset));
    Ok(r)
}

fn bound(s: &str) -> Result<(f64, bool)> {
    let (incl, v) = match s.strip_prefix('(') {
        Some(rest) => (false, rest),
        None => (true, s),
    };
    parse_f64(v).map(|x| (x, incl)).ok_or_else(|| Error::new("Bad upper range: ".to_string() + s))
}

/// A sort key value for ordering.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Key {
    Num(f64),
    Str(String),
}

pub(crate) fn cmp_keys(a: &Option<Key>, b: &Option<Key>, asc: bool) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => {
            let o = match (x, y) {
                (Key::Num(p), Key::Num(q)) => p.partial_cmp(q).unwrap_or(Ordering::Equal),
                (Key::Str(p), Key::Str(q)) => p.cmp(q),
                (Key::Num(_), Key::Str(_)) => Ordering::Less,
                (Key::Str(_), Key::Num(_)) => Ordering::Greater,
            };
            if asc {
                o
            } else {
                o.reverse()
            }
        }
    }
}

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
    cat: &mut Catalog,
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
    cat: &mut Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    mut trace: Option<&mut Trace>,
    paging: Paging,
) -> Result<Searched> {
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
    let e = cat.entry_mut(&name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
    if req.expand {
        if proto != Protocol::Resp3 {
            return Err(Error::new("EXPAND format is only supported with RESP3"));
        }
        if e.index.spec.on != KeyType::Json {
            return Err(Error::new("EXPAND format is only supported with JSON"));
        }
    }
    e.index.stats.uses += 1;
    config.mark_dialect(req.dialect);
    if let Some(slot) = e.dialects_used.get_mut(req.dialect.saturating_sub(1) as usize) {
        *slot = true;
    }
    let idx = &e.index;
    if req.query.len() > crate::limits::MAX_QUERY_LEN {
        return Err(Error::new("Query string too long"));
    }
    let ast = crate::query::global_filters::apply(
        parse(&req.query, req.dialect, &req.params)?,
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
        blobs: req.blobs.clone(),
        visible: knn_visible(idx, &ast, docs, config)?,
    };
    let matched = crate::commands::profile::execute_traced(idx, &ast, &opts, trace.as_deref_mut())?;
    let mut warnings = matched.warnings.clone();
    let mut ids = matched.docids;
    // What the caller may not read is neither counted nor shown.
    crate::access::restrict_hits(idx, &mut ids, opts.visible.as_ref(), docs, config)?;
    let total = ids.len();
    if let Some(t) = trace.as_deref_mut() {
        t.step("Index", total);
    }
    let mut want = req.offset.saturating_add(req.limit) as usize;
    if paging == Paging::Shard && matches!(ast, QueryAst::Knn(_)) {
        // The node keeps the k nearest over all shards: each sends all of its own.
        want = ids.len() as usize;
    }
    let scorer = ScoreContext::new(idx, &matched.terms, &matched.slop, req.scorer);
    let dist = &matched.distances;
    let need_scores = req.with_scores || req.sortby.is_none();
    let mut page: Vec<(u32, f64, Option<Key>)> = Vec::new();
    let mut sorted_by_key = false;
    if want > 0 {
        if let (None, Some(knn)) = (&req.sortby, &dist.knn) {
            // RediSearch 2.10 does not order KNN results by distance: each carries its
            // filter's score (0 under `*`), highest first, then document id order.
            let unfiltered = matches!(&ast, QueryAst::Knn(c) if matches!(*c.filter, QueryAst::MatchAll));
            let mut rows: Vec<(u32, f64)> = knn
                .iter()
                .map(|h| h.doc)
                .filter(|d| ids.contains(*d))
                .map(|d| (d, if unfiltered { 0.0 } else { scorer.score(d) }))
                .collect();
            rows.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then(a.0.cmp(&b.0)));
            page = rows.into_iter().take(want).map(|(d, score)| (d, score, None)).collect();
        } else if let Some((field, asc)) = &req.sortby {
            let fi = idx.spec.field(field).map(|(i, _)| i);
            let by_distance = fi.is_none() && dist.has(field);
            if fi.is_none() && !by_distance {
                return Err(Error::new(format!("Property `{field}` not loaded nor in schema")));
            }
            let key_of = |d: u32| {
                if by_distance {
                    dist.get(field, d).map(Key::Num)
                } else {
                    sort_key(idx, d, fi, docs)
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
            let more_keys =
                |d: u32| more.iter().map(|&(i, _)| sort_key(idx, d, Some(i), docs)).collect::<Vec<_>>();
            let mut rows: Vec<(u32, Option<Key>, Vec<Option<Key>>)> = ids
                .iter()
                .map(|d| (d, key_of(d), if more.is_empty() { Vec::new() } else { more_keys(d) }))
                .collect();
            // Equal keys keep document order, reversed for DESC (as RediSearch's sorter; with
            // several fields, the first one's direction).
            let cmp = |a: &(u32, Option<Key>, Vec<Option<Key>>), b: &(u32, Option<Key>, Vec<Option<Key>>)| {
                let mut o = cmp_keys(&a.1, &b.1, *asc);
                for ((ka, kb), (_, asc)) in a.2.iter().zip(&b.2).zip(&more) {
                    o = o.then_with(|| cmp_keys(ka, kb, *asc));
                }
                o.then(if *asc { a.0.cmp(&b.0) } else { b.0.cmp(&a.0) })
            };
            if rows.len() > want {
                rows.select_nth_unstable_by(want - 1, cmp);
                rows.truncate(want);
            }
            rows.sort_by(cmp);
            page = rows
                .into_iter()
                .map(|(d, k, _)| (d, if req.with_scores { scorer.score(d) } else { 0.0 }, k))
                .collect();
            sorted_by_key = true;
        } else if need_scores {
            // Scoring is the long phase: check TIMEOUT every 4096 documents.
            let started = Instant::now();
            let budget = Duration::from_millis(req.timeout_ms);
            // `*` alone under TFIDF: one virtual result of frequency 1 per document, so the
            // score is the document's score over its norm (what the general scorer computes,
            // without its per-term machinery: `FT.SEARCH idx *` reads every document).
            let wildcard = matches!(ast, QueryAst::MatchAll)
                && matches!(req.scorer, Scorer::TfIdf | Scorer::TfIdfDocNorm);
            let score_of = |d: u32| -> f64 {
                if !wildcard {
                    return scorer.score(d);
                }
                idx.docs.get(d).map_or(0.0, |rec| {
                    let norm = if req.scorer == Scorer::TfIdf { rec.max_freq } else { rec.len };
                    f64::from(rec.score) / f64::from(norm.max(1))
                })
            };
            // Top k by score, skipping document ranges that cannot enter it (query/topk.rs).
            let plan = if wildcard || want as u64 >= ids.len() { None } else { scorer.skip_plan() };
            let timed_out = || req.timeout_ms > 0 && started.elapsed() > budget;
            let top = crate::query::topk::top_k(&ids, want, plan.as_ref(), score_of, timed_out);
            if top.stopped {
                if config.on_timeout == TimeoutPolicy::Fail {
                    return Err(Error::new("Timeout limit was reached"));
                }
                warnings.push("Timeout limit was reached".to_string());
            }
            if let Some(t) = trace.as_deref_mut() {
                t.step("Scorer", top.seen);
            }
            let rows = top.rows;
            page = rows.into_iter().map(|(d, s)| (d, s, None)).collect();
        } else {
            page = ids.iter().take(want).map(|d| (d, 0.0, None)).collect();
        }
    }
    let page: Vec<_> = page.into_iter().skip(req.offset as usize).collect();
    if let Some(t) = trace.as_deref_mut() {
        if want == 0 {
            // LIMIT 0 0: a counter passes the count on.
            t.step("Counter", 1);
        } else {
            t.step("Sorter", page.len() as u64);
            if req.offset > 0 {
                t.step("Pager/Limiter", page.len() as u64);
            }
        }
    }
    let dialect = if req.expand { req.dialect.max(3) } else { req.dialect };
    let ctx = RenderCtx { idx, req: &req, docs, highlight_terms: &matched.highlight, dialect, dist };
    let mut rows = Vec::with_capacity(page.len());
    for (d, score, key) in page {
        let Some(rec) = idx.docs.get(d) else { continue };
        let payload = if req.with_payloads && !idx.spec.payload_field.is_empty() {
            docs.values(&rec.key, &idx.spec.payload_field).ok().and_then(|v| match v.into_iter().next() {
                Some(FieldValue::String(s)) => Some(s.into_bytes()),
                _ => None,
            })
        } else {
            None
        };
        let distance = dist.knn.as_ref().and_then(|k| k.iter().find(|h| h.doc == d)).map(|h| h.dist);
        let order = if sorted_by_key { key.clone() } else { None };
        rows.push(Row {
            key: rec.key.to_vec(),
            score,
            payload,
            sortkey: if req.with_sortkeys { key.or_else(|| sort_key(idx, d, None, docs)) } else { None },
            fields: if req.no_content { None } else { ctx.load(d, &rec.key) },
            order,
            distance,
        });
    }
    if let Some(t) = trace.filter(|_| want > 0) {
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

/// The documents a KNN query may take its nearest from, when the caller may not read every
/// one (KNN is a top-level clause).
pub(crate) fn knn_visible(
    idx: &Index,
    ast: &QueryAst,
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Option<RoaringBitmap>> {
    if matches!(ast, QueryAst::Knn(_)) {
        crate::access::visible(idx, docs, config)
    } else {
        Ok(None)
    }
}

fn sort_key(idx: &Index, d: u32, field: Option<usize>, docs: &dyn DocumentSource) -> Option<Key> {
    let fi = field?;
    let rec = idx.docs.get(d)?;
    if let Some(v) = rec.sortable(fi as u16) {
        return Some(match v {
            SortValue::Num(n) => Key::Num(*n),
            SortValue::Str(s) => Key::Str(s.clone()),
        });
    }
    let f = idx.spec.fields.get(fi)?;
    let vals = docs.values(&rec.key, &f.path).ok()?;
    let first = vals.into_iter().find(|v| !matches!(v, FieldValue::Null))?;
    match (first, f.kind) {
        (FieldValue::Number(n, _), _) => Some(Key::Num(n)),
        (FieldValue::String(s), FieldType::Numeric) => parse_f64(s.trim()).map(Key::Num),
        (FieldValue::String(s), _) => Some(Key::Str(if f.unf { s } else { s.to_lowercase() })),
        (FieldValue::Bool(b), _) => Some(Key::Str(b.to_string())),
        (FieldValue::Array(items), _) => items.into_iter().find_map(|v| match v {
            FieldValue::Number(n, _) => Some(Key::Num(n)),
            FieldValue::String(s) => Some(Key::Str(s)),
            _ => None,
        }),
        _ => None,
    }
}

/// One result: what the reply shows of it, and what orders it among shards' results.
pub(crate) struct Row {
    pub(crate) key: Vec<u8>,
    pub(crate) score: f64,
    pub(crate) payload: Option<Vec<u8>>,
    pub(crate) sortkey: Option<Key>,
    pub(crate) fields: Option<Vec<(String, Reply)>>,
    /// The SORTBY value the result was ordered by (None without SORTBY).
    pub(crate) order: Option<Key>,
    /// The KNN distance (KNN queries).
    pub(crate) distance: Option<f64>,
}

struct RenderCtx<'a> {
    idx: &'a Index,
    req: &'a SearchRequest,
    docs: &'a dyn DocumentSource,
    highlight_terms: &'a std::collections::HashSet<String>,
    /// The dialect values are read with (EXPAND reads as dialect 3 at least).
    dialect: u32,
    /// Vector distances of the query.
    dist: &'a Distances,
}

impl<'a> RenderCtx<'a> {
    /// FORMAT EXPAND: each returned field as the array of its matches, expanded.
    fn load_expanded(&self, key: &[u8]) -> Option<Vec<(String, Reply)>> {
        self.docs.key_type(key)?;
        let sources: Vec<(String, String)> = match &self.req.returns {
            None => vec![("$".to_string(), "$".to_string())],
            Some(fields) => fields
                .iter()
                .map(|rf| {
                    let path =
                        self.idx.spec.field(&rf.source).map_or(rf.source.clone(), |(_, f)| f.path.clone());
                    (rf.name.clone(), path)
                })
                .collect(),
        };
        let mut out = Vec::new();
        for (name, path) in sources {
            let Some(matches) = self.docs.json_at(key, &path) else { continue };
            if !matches.is_empty() {
                out.push((name, Reply::Array(matches.iter().map(|m| expand_json(m)).collect())));
            }
        }
        Some(out)
    }

    /// The (name, value) pairs to return for document `d`, or None when the key vanished:
    /// its distance fields first (those RETURN names, when given), then its fields.
    fn load(&self, d: u32, key: &[u8]) -> Option<Vec<(String, Reply)>> {
        let fields = self.load_fields(key)?;
        let mut out: Vec<(String, Reply)> = Vec::new();
        for (name, _) in &self.dist.fields {
            let Some(v) = self.dist.get(name, d) else { continue };
            let shown = match &self.req.returns {
                None => Some(name.clone()),
                Some(rs) => rs.iter().find(|r| r.source == *name).map(|r| r.name.clone()),
            };
            if let Some(shown) = shown {
                out.push((shown, self.distance_reply(v)));
            }
        }
        out.extend(fields);
        Some(out)
    }

    /// A distance as a reply: text (`%.12g`), or under FORMAT EXPAND a number (an integer
    /// when integral, as RediSearch sends it).
    fn distance_reply(&self, v: f64) -> Reply {
        if !self.req.expand {
            return Reply::text(format_distance(v));
        }
        if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.2e18 {
            Reply::Int(v as i64)
        } else {
            Reply::Double(v)
        }
    }

    /// The document's own (name, value) pairs.
    fn load_fields(&self, key: &[u8]) -> Option<Vec<(String, Reply)>> {
        if self.req.expand {
            return self.load_expanded(key);
        }
        let json = self.idx.spec.on == KeyType::Json;
        let mut out: Vec<(String, Vec<u8>)> = match &self.req.returns {
            None => {
                // The SORTBY attribute comes first (RediSearch loads it for the sorter), under its
                // name, then the document's own fields without a second copy of that name.
                let mut out = Vec::new();
                if let Some((field, _)) = &self.req.sortby {
                    if let Some((_, spec)) = self.idx.spec.field(field) {
                        let value = if json {
                            self.load_json_first(key, &spec.path)
                        } else {
                            self.load_one(key, field, false)
                        };
                        if let Some(v) = value {
                            out.push((spec.name.clone(), v));
                        }
                    }
                }
                for (k, v) in self.docs.whole(key)? {
                    // From DIALECT 3 a JSON document comes back as the array of its matches.
                    let v = if json && self.dialect >= 3 { [&b"["[..], &v, b"]"].concat() } else { v };
                    let k = String::from_utf8_lossy(&k).into_owned();
                    if !out.iter().any(|(name, _)| *name == k) && !self.idx.spec.is_rule_field(&k) {
                        out.push((k, v));
                    }
                }
                out
            }
            Some(fields) => {
                let mut v = Vec::new();
                // A returned SORTBY attribute comes first (RediSearch loads it for the sorter);
                // the others keep RETURN's order.
                let sort_attr =
                    self.req.sortby.as_ref().and_then(|(f, _)| self.idx.spec.field(f)).map(|(_, s)| &s.name);
                let is_sort = |rf: &ReturnField| {
                    sort_attr.is_some_and(|a| {
                        rf.name == *a || self.idx.spec.field(&rf.source).is_some_and(|(_, s)| s.name == *a)
                    })
                };
                for rf in
                    fields.iter().filter(|rf| is_sort(rf)).chain(fields.iter().filter(|rf| !is_sort(rf)))
                {
                    // `__key` is the document's key name (RediSearch's special lookup key).
                    if rf.source == "__key" {
                        v.push((rf.name.clone(), key.to_vec()));
                    } else if let Some(val) = self.load_one(key, &rf.source, json) {
                        v.push((rf.name.clone(), val));
                    }
                }
                v
            }
        };
        if self.req.highlight.is_some() || self.req.summarize.is_some() {
            for (name, val) in out.iter_mut() {
                let Some(src) = self.returned_field(name) else { continue };
                let Some((_, spec)) = self.idx.spec.field(&src) else { continue };
                if spec.kind != FieldType::Text {
                    continue;
                }
                let s = String::from_utf8_lossy(val).into_owned();
                let mut s2 = s.clone();
                // Without byte offsets (NOHL) RediSearch cannot place tags: SUMMARIZE returns
                // the trimmed head of the field and HIGHLIGHT leaves it as it is.
                let no_hl = self.idx.spec.no_hl || self.idx.spec.no_offsets;
                if let Some((fields, sm)) = &self.req.summarize {
                    if fields.as_ref().is_none_or(|f| f.contains(&src) || f.contains(name)) {
                        s2 = if no_hl {
                            trim_field(&s2, sm)
                        } else {
                            summarize(&s2, self.highlight_terms, &self.idx.stemmer, sm)
                        };
                    }
                }
                if let Some((fields, open, close)) = &self.req.highlight {
                    if !no_hl && fields.as_ref().is_none_or(|f| f.contains(&src) || f.contains(name)) {
                        s2 = highlight(&s2, self.highlight_terms, &self.idx.stemmer, open, close);
                    }
                }
                if s2 != s {
                    *val = s2.into_bytes();
                }
            }
        }
        Some(out.into_iter().map(|(k, v)| (k, Reply::Bulk(v))).collect())
    }

    /// The schema attribute behind a returned name.
    fn returned_field(&self, name: &str) -> Option<String> {
        match &self.req.returns {
            Some(fields) => fields.iter().find(|f| f.name == name).map(|f| f.source.clone()),
            None => {
                // hash field names are paths; map to the attribute name
                self.idx.spec.fields.iter().find(|f| f.path == name || f.name == name).map(|f| f.name.clone())
            }
        }
    }

    /// The first match of a JSONPath as RediSearch's `jsonIterToValue` gives it: a string as
    /// its text (`RETURN 1 $.t` gives `riceratops`, not `"riceratops"`), a boolean as 1 or 0,
    /// anything else as JSON.
    fn load_json_first(&self, key: &[u8], path: &str) -> Option<Vec<u8>> {
        match self.docs.values(key, path).ok()?.into_iter().next() {
            Some(FieldValue::String(s)) => Some(s.into_bytes()),
            Some(FieldValue::Bool(b)) => Some(if b { b"1".to_vec() } else { b"0".to_vec() }),
            _ => self.docs.json_at(key, path)?.into_iter().next().map(String::into_bytes),
        }
    }

    fn load_one(&self, key: &[u8], source: &str, json: bool) -> Option<Vec<u8>> {
        let attr = self.idx.spec.field(source).map(|(_, f)| f);
        if json {
            let path = attr.map_or(source, |f| f.path.as_str());
            let matches = self.docs.json_at(key, path)?;
            if matches.is_empty() {
                return None;
            }
            // Before DIALECT 3 only the first match comes back; from DIALECT 3 every match
            // comes back, as a JSON array.
            if self.dialect < 3 {
                return self.load_json_first(key, path);
            }
            Some(format!("[{}]", matches.join(",")).into_bytes())
        } else {
            let path = attr.map(|f| f.path.as_str()).unwrap_or(source);
            let vals = self.docs.values(key, path).ok()?;
            match vals.into_iter().next()? {
                FieldValue::String(s) => Some(s.into_bytes()),
                FieldValue::Number(_, t) => Some(t.into_bytes()),
                FieldValue::Bool(b) => Some(b.to_string().into_bytes()),
                _ => None,
            }
        }
    }
}

fn sortkey_reply(k: &Option<Key>) -> Reply {
    match k {
        None => Reply::Nil,
        Some(Key::Num(n)) => Reply::text(format!("#{}", format_g(*n, 17))),
        Some(Key::Str(s)) => Reply::text(format!("${s}")),
    }
}

pub(crate) fn render(
    req: &SearchRequest,
    total: u64,
    rows: Vec<Row>,
    warnings: &[String],
    proto: Protocol,
) -> Reply {
    let score_reply = |s: f64| {
        if req.explain_score {
            Reply::Array(vec![Reply::Double(s), Reply::Array(vec![Reply::text(format!("Final score {s}"))])])
        } else {
            Reply::Double(s)
        }
    };
    match proto {
        Protocol::Resp2 => {
            let mut out = vec![Reply::Int(total as i64)];
            for r in rows {
                out.push(Reply::Bulk(r.key));
                if req.with_scores {
                    out.push(score_reply(r.score));
                }
                if req.with_payloads {
                    out.push(r.payload.clone().map_or(Reply::Nil, Reply::Bulk));
                }
                if req.with_sortkeys {
                    out.push(sortkey_reply(&r.sortkey));
                }
                if !req.no_content {
                    out.push(match r.fields {
                        Some(f) => {
                            Reply::Array(f.into_iter().flat_map(|(k, v)| [Reply::text(k), v]).collect())
                        }
                        None => Reply::Nil,
                    });
                }
            }
            Reply::Array(out)
        }
        Protocol::Resp3 => {
            let results = rows
                .into_iter()
                .map(|r| {
                    let mut m = vec![("id", Reply::Bulk(r.key))];
                    if req.with_scores {
                        m.push(("score", score_reply(r.score)));
                    }
                    if req.with_payloads {
                        m.push(("payload", r.payload.clone().map_or(Reply::Nil, Reply::Bulk)));
                    }
                    if req.with_sortkeys {
                        m.push(("sortkey", sortkey_reply(&r.sortkey)));
                    }
                    if !req.no_content {
                        m.push((
                            "extra_attributes",
                            match r.fields {
                                Some(f) => {
                                    Reply::Map(f.into_iter().map(|(k, v)| (Reply::text(k), v)).collect())
                                }
                                None => Reply::Nil,
                            },
                        ));
                    }
                    m.push(("values", Reply::Array(Vec::new())));
                    Reply::map(m)
                })
                .collect();
            // RediSearch 2.10's key order (not alphabetical).
            Reply::map(vec![
                ("attributes", Reply::Array(Vec::new())),
                ("total_results", Reply::Int(total as i64)),
                ("format", Reply::Simple(if req.expand { "EXPAND" } else { "STRING" }.into())),
                ("results", Reply::Array(results)),
                ("warning", Reply::Array(warnings.iter().map(|w| Reply::Simple(w.clone())).collect())),
            ])
        }
    }
}
