//! FT.SEARCH over shards: what each shard computes and sends (its first offset+num rows,
//! with what orders them), and how the node that took the query merges the shards' rows
//! into the reply a single server holding every document gives.
//!
//! Order of the merged results: by score (highest first), by the SORTBY value, or for KNN
//! the k nearest over all shards (by distance, then key) in the reply's order (score, as a
//! single server orders them). Results that tie (equal score or SORTBY value) come in key
//! order (byte-wise ascending, for ASC and DESC alike); a single server orders them by its
//! document ids, i.e. the order the documents were indexed.

use crate::catalog::Catalog;
use crate::commands::search::{cmp_keys, parse_request, render, run_search, Key, Paging, Row};
use crate::commands::text;
use crate::config::Config;
use crate::distributed::stats::{self, GlobalStats};
use crate::distributed::wire;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::query::syntax::{parse, QueryAst};
use crate::reply::{Protocol, Reply};

/// `FT._SHARD.STATS idx query [options…]`: this shard's term statistics for the query (see
/// [`stats`]), wire-encoded.
pub fn shard_stats(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Reply> {
    let name = text(args.first().ok_or_else(|| Error::new("wrong number of arguments"))?);
    let guard = stats::record();
    run_search(cat, args, docs, config, Protocol::Resp2, None, Paging::CountOnly)?;
    let e = cat.entry(&name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
    let st = stats::recorded(&e.index);
    drop(guard);
    Ok(Reply::Bulk(wire::encode(&st.to_reply())))
}

/// Reads a wire-encoded [`GlobalStats`] (empty: none).
pub(crate) fn stats_arg(b: &[u8]) -> Result<Option<GlobalStats>> {
    if b.is_empty() {
        return Ok(None);
    }
    wire::decode(b)
        .and_then(|r| GlobalStats::from_reply(&r))
        .map(Some)
        .ok_or_else(|| Error::new("bad shard statistics"))
}

/// `FT._SHARD.SEARCH <stats> <2|3> idx query [options…]`: this shard's first offset+num rows
/// (every KNN hit), scored with the global statistics `stats` (empty: its own), fields
/// rendered for the protocol given; wire-encoded `[total, [warning…], [row…]]`.
pub fn shard_search(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Reply> {
    if args.len() < 4 {
        return Err(Error::new("wrong number of arguments"));
    }
    let global = stats_arg(args[0])?;
    let proto = if args[1] == b"3" { Protocol::Resp3 } else { Protocol::Resp2 };
    let args = &args[2..];
    let name = text(args[0]);
    let guard = match &global {
        Some(g) => {
            let e = cat.entry(&name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
            Some(stats::apply(&e.index, g))
        }
        None => None,
    };
    let s = run_search(cat, args, docs, config, proto, None, Paging::Shard)?;
    drop(guard);
    let rows = s.rows.into_iter().map(encode_row).collect();
    let warnings = s.warnings.into_iter().map(Reply::Simple).collect();
    Ok(Reply::Bulk(wire::encode(&Reply::Array(vec![
        Reply::Int(s.total as i64),
        Reply::Array(warnings),
        Reply::Array(rows),
    ]))))
}

fn key_reply(k: &Option<Key>) -> Reply {
    match k {
        None | Some(Key::Several(None)) => Reply::Nil,
        Some(Key::Num(n)) => Reply::Double(*n),
        Some(Key::Str(s)) => Reply::text(s),
        // A shard sends a duo's first value (`reeval_key`).
        Some(Key::Several(Some(first))) => key_reply(&Some((**first).clone())),
    }
}

fn reply_key(r: &Reply) -> Option<Key> {
    match r {
        Reply::Double(n) => Some(Key::Num(*n)),
        Reply::Bulk(s) => Some(Key::Str(String::from_utf8_lossy(s).into_owned())),
        _ => None,
    }
}

fn encode_row(r: Row) -> Reply {
    Reply::Array(vec![
        Reply::Bulk(r.key),
        Reply::Double(r.score),
        r.payload.map_or(Reply::Nil, Reply::Bulk),
        key_reply(&r.sortkey),
        key_reply(&r.order),
        r.distance.map_or(Reply::Nil, Reply::Double),
        match r.fields {
            None => Reply::Nil,
            Some(f) => Reply::Array(f.into_iter().flat_map(|(k, v)| [Reply::text(k), v]).collect()),
        },
        Reply::Array(r.order_more.iter().map(key_reply).collect()),
        r.explain.as_ref().map_or(Reply::Nil, crate::query::score::Explanation::reply),
    ])
}

fn decode_row(r: Reply) -> Option<Row> {
    let Reply::Array(items) = r else { return None };
    let mut it = items.into_iter();
    let Some(Reply::Bulk(key)) = it.next() else { return None };
    let Some(Reply::Double(score)) = it.next() else { return None };
    let payload = match it.next()? {
        Reply::Bulk(b) => Some(b),
        _ => None,
    };
    let sortkey = reply_key(&it.next()?);
    let order = reply_key(&it.next()?);
    let distance = match it.next()? {
        Reply::Double(d) => Some(d),
        _ => None,
    };
    let fields = match it.next()? {
        Reply::Array(flat) => {
            let mut out = Vec::with_capacity(flat.len() / 2);
            let mut flat = flat.into_iter();
            while let (Some(Reply::Bulk(k)), Some(v)) = (flat.next(), flat.next()) {
                out.push((String::from_utf8_lossy(&k).into_owned(), v));
            }
            Some(out)
        }
        _ => None,
    };
    let order_more = match it.next() {
        Some(Reply::Array(keys)) => keys.iter().map(reply_key).collect(),
        _ => Vec::new(),
    };
    let explain = it.next().as_ref().and_then(crate::query::score::Explanation::from_reply);
    Some(Row { key, score, payload, sortkey, fields, order, order_more, distance, explain, raw_id: None })
}

/// One shard's answer to [`shard_search`].
pub struct ShardRows {
    total: u64,
    warnings: Vec<String>,
    rows: Vec<Row>,
}

/// Reads a shard's [`shard_search`] reply; an error reply is returned as the error.
pub fn read_shard_rows(r: &Reply) -> Result<ShardRows> {
    let bad = || Error::new("bad shard reply");
    let mut it = wire::shard_items(r)?.into_iter();
    let (Some(Reply::Int(total)), Some(Reply::Array(w)), Some(Reply::Array(rows))) =
        (it.next(), it.next(), it.next())
    else {
        return Err(bad());
    };
    let warnings = wire::warnings(w);
    let rows = rows.into_iter().map(decode_row).collect::<Option<Vec<_>>>().ok_or_else(bad)?;
    Ok(ShardRows { total: total as u64, warnings, rows })
}

/// Sums shards' [`shard_stats`] replies into the `<stats>` argument of [`shard_search`].
pub fn merge_stats(replies: &[Reply]) -> Result<Vec<u8>> {
    let mut g = GlobalStats::default();
    for r in replies {
        match r {
            Reply::Bulk(b) => {
                let s = wire::decode(b)
                    .and_then(|r| GlobalStats::from_reply(&r))
                    .ok_or_else(|| Error::new("bad shard statistics"))?;
                g.add(&s);
            }
            Reply::Error(e) => return Err(Error::new(e.clone())),
            _ => return Err(Error::new("bad shard statistics")),
        }
    }
    Ok(wire::encode(&g.to_reply()))
}

/// How the node runs FT.SEARCH `args` (after the command name) over shards.
pub struct Plan {
    /// Results are ordered or shown by score: the shards need the global statistics first.
    pub needs_stats: bool,
    /// The query's TIMEOUT (or the configured one), in ms; 0: none.
    pub timeout_ms: u64,
}

/// The [`Plan`] for `args`; errors in the arguments are left for the shards to report.
pub fn plan(args: &[&[u8]], config: &Config) -> Plan {
    match parse_request(args.get(1..).unwrap_or(&[]), config) {
        // `LIMIT 0 0` shows no score and orders nothing (KNN still keeps its k nearest, by
        // distance).
        Ok(req) => Plan {
            needs_stats: req.with_scores
                || (req.sortby.is_none() && req.offset.saturating_add(req.limit) > 0),
            timeout_ms: req.timeout_ms,
        },
        Err(_) => Plan { needs_stats: false, timeout_ms: config.timeout_ms },
    }
}

/// The KNN clause's k, when the query is a KNN query.
fn knn_k(query: &str, dialect: u32, params: &dyn crate::query::syntax::Params) -> Option<usize> {
    match parse(query, dialect, params) {
        Ok(QueryAst::Knn(c)) => Some(c.k),
        _ => None,
    }
}

/// Merges shards' rows (in any order of shards) into the FT.SEARCH reply for `args`, with
/// `warnings` added (a shard that did not answer in time).
pub fn merge_search(
    args: &[&[u8]],
    config: &Config,
    proto: Protocol,
    shards: Vec<ShardRows>,
    extra_warnings: &[String],
) -> Result<Reply> {
    let req = parse_request(args.get(1..).unwrap_or(&[]), config)?;
    let mut total = 0;
    let mut warnings: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for s in shards {
        total += s.total;
        for w in s.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        rows.extend(s.rows);
    }
    for w in extra_warnings {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let by_key = |a: &Row, b: &Row| a.key.cmp(&b.key);
    if let Some(k) = knn_k(&req.query, req.dialect, &req.blobs) {
        rows.sort_by(|a, b| {
            let (x, y) = (a.distance.unwrap_or(f64::INFINITY), b.distance.unwrap_or(f64::INFINITY));
            crate::query::score::score_order(x, y).then_with(|| by_key(a, b))
        });
        rows.truncate(k);
        total = total.min(rows.len() as u64);
    }
    match &req.sortby {
        Some((_, asc)) => rows.sort_by(|a, b| {
            let mut o = cmp_keys(&a.order, &b.order, *asc);
            // Further SORTBY fields break ties of the first, in order.
            for ((ka, kb), (_, asc)) in a.order_more.iter().zip(&b.order_more).zip(&req.sortby_more) {
                o = o.then_with(|| cmp_keys(ka, kb, *asc));
            }
            o.then_with(|| by_key(a, b))
        }),
        None => {
            rows.sort_by(|a, b| crate::query::score::score_order(b.score, a.score).then_with(|| by_key(a, b)))
        }
    }
    let page: Vec<Row> = rows.into_iter().skip(req.offset as usize).take(req.limit as usize).collect();
    Ok(render(&req, total, page, &warnings, proto))
}
