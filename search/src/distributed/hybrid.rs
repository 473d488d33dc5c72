//! FT.HYBRID over shards: each shard runs both sides over its own documents and sends its
//! candidates; the node that took the query keeps each side's best WINDOW over all shards,
//! fuses them and runs the tail, as a single server holding every document would.
//!
//! - **Statistics**: the text side scores with the cluster's figures (`FT._SHARD.HYBRIDSTATS`
//!   records the terms the text side looks up, [`stats`]; `FT._SHARD.HYBRID` then scores with
//!   their sums), so every text score is a single server's. BM25STD.NORM divides by the
//!   highest score over every matched document: the shards score with BM25STD and send their
//!   highest, the node divides by the highest of all.
//! - **Candidates**: each shard sends its best WINDOW of each side (the text side by score,
//!   the vector side by distance: its k nearest for KNN, its in-range vectors for RANGE), with
//!   every value the tail may read of them (LOAD, GROUPBY, reducers, APPLY, FILTER, SORTBY
//!   names, as distributed FT.AGGREGATE ships documents). The node merges each side over the
//!   shards and cuts it to the WINDOW (KNN: to `min(K, WINDOW)`), so ranks are global.
//! - **Fusion and tail** run on the node ([`fuse`], the tail's pipeline over the shipped
//!   values), in the reply's shape of one server; WITHCURSOR's two cursors (one per side) live
//!   on the node.
//!
//! Ties: a single server breaks equal scores and distances by its document ids (indexing
//! order); over shards they are broken by key (byte-wise), in each side's cut, in the fused
//! order and so in the tail. The two agree when documents were indexed in key order.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use crate::aggregate::pipeline::{DocHit, Plan};
use crate::aggregate::query_seed;
use crate::aggregate::Value;
use crate::catalog::Catalog;
use crate::commands::hybrid::fusion::{fuse, normalize};
use crate::commands::hybrid::reply::Sides;
use crate::commands::hybrid::request::{self, VectorMethod};
use crate::commands::hybrid::{self as hybrid, deliver, HybridMeta, Ties};
use crate::config::{Config, TimeoutPolicy};
use crate::distributed::aggregate::{read_doc, ship_docs, Doc, Shipped};
use crate::distributed::search::stats_arg;
use crate::distributed::stats;
use crate::distributed::wire;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};
use crate::timeout::Timeout;

/// How the node runs an FT.HYBRID.
pub struct HybridPlan {
    /// The TIMEOUT in force, in ms (0: none).
    pub timeout_ms: u64,
}

/// Parses FT.HYBRID `args` (after the command name): its [`HybridPlan`], or the error a
/// single server gives for them.
pub fn plan(args: &[&[u8]], config: &Config) -> Result<HybridPlan> {
    let req = request::parse(args, config.max_search_results)?;
    Ok(HybridPlan { timeout_ms: hybrid::timeout_ms(&req, config) })
}

/// `FT._SHARD.HYBRIDSTATS idx …`: this shard's term statistics for the text side (see
/// [`stats`]), wire-encoded.
pub fn shard_hybrid_stats(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Reply> {
    let req = request::parse(args, config.max_search_results)?;
    let guard = stats::record();
    let text = hybrid::text_side(cat, &req, docs, config, Protocol::Resp3, Instant::now(), Ties::Key)?;
    let st = stats::recorded(text.q.idx);
    drop(guard);
    Ok(Reply::Bulk(wire::encode(&st.to_reply())))
}

/// `FT._SHARD.HYBRID <stats> idx …`: this shard's candidates scored with the global
/// statistics `stats` (empty: its own), wire-encoded
/// `[[warning…], text max|nil, [[key, score]…], [[key, distance]…], [document…]]`, each side
/// best first (ties by key), the documents those of both sides with what the tail reads.
pub fn shard_hybrid(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Reply> {
    let (global, args) = args.split_first().ok_or_else(|| Error::new("wrong number of arguments"))?;
    let global = stats_arg(global)?;
    let req = request::parse(args, config.max_search_results)?;
    let guard = match &global {
        Some(g) => {
            let name = &req.index;
            let e = cat.entry(name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
            Some(stats::apply(&e.index, g))
        }
        None => None,
    };
    let s = hybrid::sides(cat, &req, docs, config, Protocol::Resp3, Instant::now(), Ties::Key)?;
    drop(guard);
    let tail = hybrid::tail_request(&req, config)?;
    let idx = s.text_q.idx;
    let key = |d: u32| idx.docs.get(d).map(|r| Arc::<[u8]>::from(r.key()));
    let mut seen = std::collections::HashSet::new();
    let hits = s
        .text
        .iter()
        .chain(&s.vector)
        .filter(|(d, _)| seen.insert(*d))
        .filter_map(|&(d, _)| Some(DocHit { key: key(d)?, id: d, score: 0.0, matched_terms: None }));
    let shipped = ship_docs(&tail, hits, &s.text_q.loader(docs));
    let side = |list: &[(u32, f64)]| {
        Reply::Array(
            list.iter()
                .filter_map(|&(d, v)| {
                    Some(Reply::Array(vec![Reply::Bulk(key(d)?.to_vec()), Reply::Double(v)]))
                })
                .collect(),
        )
    };
    Ok(Reply::Bulk(wire::encode(&Reply::Array(vec![
        Reply::Array(s.warnings.into_iter().map(Reply::Simple).collect()),
        s.text_max.map_or(Reply::Nil, Reply::Double),
        side(&s.text),
        side(&s.vector),
        Reply::Array(shipped),
    ]))))
}

/// One shard's [`shard_hybrid`] answer, read.
struct ShardCandidates {
    warnings: Vec<String>,
    text_max: Option<f64>,
    text: Vec<(Arc<[u8]>, f64)>,
    vector: Vec<(Arc<[u8]>, f64)>,
    docs: Vec<Doc>,
}

fn read_side(r: Reply) -> Option<Vec<(Arc<[u8]>, f64)>> {
    let Reply::Array(rows) = r else { return None };
    rows.into_iter()
        .map(|row| match row {
            Reply::Array(kv) => match &kv[..] {
                [Reply::Bulk(k), Reply::Double(v)] => Some((Arc::from(&k[..]), *v)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn read_shard(r: &Reply) -> Result<ShardCandidates> {
    let bad = || Error::new("bad shard reply");
    let mut it = wire::shard_items(r)?.into_iter();
    let (Some(Reply::Array(w)), Some(max), Some(text), Some(vector), Some(Reply::Array(docs))) =
        (it.next(), it.next(), it.next(), it.next(), it.next())
    else {
        return Err(bad());
    };
    let warnings = wire::warnings(w);
    let text_max = match max {
        Reply::Double(m) => Some(m),
        _ => None,
    };
    Ok(ShardCandidates {
        warnings,
        text_max,
        text: read_side(text).ok_or_else(bad)?,
        vector: read_side(vector).ok_or_else(bad)?,
        docs: docs.into_iter().map(read_doc).collect::<Option<Vec<_>>>().ok_or_else(bad)?,
    })
}

/// Orders one merged side best first (scores higher first, distances lower first), ties by
/// key, and keeps its first `cut`.
fn best(list: &mut Vec<(Arc<[u8]>, f64)>, higher_first: bool, cut: usize) {
    list.sort_by(|a, b| {
        let o = if higher_first { b.1.total_cmp(&a.1) } else { a.1.total_cmp(&b.1) };
        o.then_with(|| a.0.cmp(&b.0))
    });
    list.truncate(cut);
}

/// Runs FT.HYBRID `args` (after the command name) over the shards' [`shard_hybrid`] replies,
/// in the node's catalog `cat` (its copy of the schema); `started`: when the command arrived.
pub fn merge_hybrid(
    cat: &Catalog,
    args: &[&[u8]],
    docs_source: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    shards: &[Reply],
    started: Instant,
) -> Result<Reply> {
    let req = request::parse(args, config.max_search_results)?;
    let mut warnings: Vec<String> = Vec::new();
    let (mut text, mut vector, mut docs) = (Vec::new(), Vec::new(), HashMap::new());
    let mut text_max: Option<f64> = None;
    for r in shards {
        let s = read_shard(r)?;
        for w in s.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        if let Some(m) = s.text_max {
            text_max = Some(text_max.map_or(m, |t| t.max(m)));
        }
        text.extend(s.text);
        vector.extend(s.vector);
        docs.extend(s.docs.into_iter().map(|d| (d.key.clone(), d)));
    }
    // One server warns for the text side first.
    warnings.sort_by_key(|w| w.ends_with("(VSIM)"));
    if let Some(max) = text_max {
        text.iter_mut().for_each(|t| t.1 = crate::query::score::normalized(t.1, max));
    }
    let window = usize::try_from(req.combine.window()).unwrap_or(usize::MAX);
    best(&mut text, true, window);
    let cut = match req.method {
        VectorMethod::Knn { k, .. } => usize::try_from(k).unwrap_or(usize::MAX).min(window),
        VectorMethod::Range { .. } => window,
    };
    best(&mut vector, false, cut);
    let e = cat.entry(&req.index).ok_or_else(|| Error::new(format!("{}: no such index", req.index)))?;
    let metric = match e.index.spec.field(&req.field).and_then(|(_, f)| f.vector.as_ref()) {
        Some(v) => v.metric,
        None => return Err(Error::new("Invalid vector field for normalization")),
    };
    // Ids in key order: the fusion's ties by id are ties by key.
    let mut ids: BTreeMap<Arc<[u8]>, u32> = text.iter().chain(&vector).map(|(k, _)| (k.clone(), 0)).collect();
    let keys: Vec<Arc<[u8]>> = ids.keys().cloned().collect();
    for (i, id) in ids.values_mut().enumerate() {
        *id = i as u32;
    }
    let text: Vec<(u32, f64)> = text.iter().map(|(k, s)| (ids[k], *s)).collect();
    let vector: Vec<(u32, f64)> = vector.iter().map(|(k, d)| (ids[k], normalize(metric, *d))).collect();
    let fused = fuse(&text, &vector, req.combine);
    // WITHCURSOR: the rows load what the LOADs name and each side's cursor takes its own.
    let sides = req.cursor.then(|| {
        let keyed = |list: &[(u32, f64)]| list.iter().map(|&(d, s)| (keys[d as usize].clone(), s)).collect();
        Sides {
            text: keyed(&text),
            vector: keyed(&vector),
            text_alias: req.text_alias.clone(),
            vector_alias: req.vector_alias.clone(),
            show_score: !req.has_load || req.loads_score,
        }
    });
    let yields = if req.cursor { Vec::new() } else { hybrid::yielded(&req, &fused) };
    let tail = hybrid::tail_request(&req, config)?;
    if tail.format_expand && proto != Protocol::Resp3 {
        return Err(Error::new("EXPAND format is only supported with RESP3"));
    }
    // The rows in fused order, document id = position, with what they yield.
    let names: Vec<String> = yields.iter().map(|(n, _)| n.clone()).collect();
    let mut rows = Vec::with_capacity(fused.len());
    let mut hits = Vec::with_capacity(fused.len());
    for f in &fused {
        let key = &keys[f.doc as usize];
        let mut d = docs.remove(key).ok_or_else(|| Error::new("bad shard reply"))?;
        d.yielded = yields.iter().map(|(_, m)| m.get(&f.doc).map(|v| Value::Number(*v))).collect();
        hits.push(DocHit { key: key.clone(), id: rows.len() as u32, score: 0.0, matched_terms: None });
        rows.push(d);
    }
    let loader = Shipped { schema: &e.index.spec, yielded: names, docs: rows };
    let timeout = match config.on_timeout {
        TimeoutPolicy::Fail => Timeout::new(started, hybrid::timeout_ms(&req, config), TimeoutPolicy::Fail),
        TimeoutPolicy::Return => Timeout::never(),
    };
    let seed = query_seed(args[0], &req.query, &args[1..]);
    let plan = Plan::new(&tail, &loader, seed)?.with_timeout(timeout).profiled();
    let out = plan.execute(hits.into_iter(), fused.len() as u64, &loader)?;
    let meta =
        HybridMeta { started, fused: fused.len() as u64, warnings, count_only: tail.count_only, sides };
    let index_name = cat.resolve(&req.index).map(str::to_string);
    deliver(cat, &tail, index_name, out, meta, docs_source.caller(), config, proto)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(rows: &[(&str, f64)]) -> Vec<(Arc<[u8]>, f64)> {
        rows.iter().map(|(k, v)| (Arc::from(k.as_bytes()), *v)).collect()
    }

    #[test]
    fn hybrid_best_orders_ties_by_key_and_cuts() {
        let mut text = side(&[("b", 1.0), ("c", 2.0), ("a", 1.0), ("d", 0.5)]);
        best(&mut text, true, 3);
        assert_eq!(text, side(&[("c", 2.0), ("a", 1.0), ("b", 1.0)]));
        let mut vector = side(&[("z", 0.3), ("y", 0.1), ("x", 0.3)]);
        best(&mut vector, false, 2);
        assert_eq!(vector, side(&[("y", 0.1), ("x", 0.3)]));
    }

    #[test]
    fn hybrid_shard_reply_round_trips() {
        let r = Reply::Array(vec![
            Reply::Array(vec![Reply::Simple("Timeout limit was reached (VSIM)".into())]),
            Reply::Double(2.5),
            Reply::Array(vec![Reply::Array(vec![Reply::Bulk(b"k".to_vec()), Reply::Double(1.0)])]),
            Reply::Array(vec![]),
            Reply::Array(vec![Reply::Array(vec![
                Reply::Bulk(b"k".to_vec()),
                Reply::Double(0.0),
                Reply::Array(vec![]),
                Reply::Array(vec![]),
                Reply::Nil,
            ])]),
        ]);
        let s = read_shard(&Reply::Bulk(wire::encode(&r))).unwrap();
        assert_eq!(s.warnings, ["Timeout limit was reached (VSIM)"]);
        assert_eq!(
            (s.text_max, s.text, s.vector.len(), s.docs.len()),
            (Some(2.5), side(&[("k", 1.0)]), 0, 1)
        );
        assert!(read_shard(&Reply::Bulk(b"junk".to_vec())).is_err());
        assert_eq!(
            read_shard(&Reply::Error("idx: no such index".into())).err().map(|e| e.0),
            Some("idx: no such index".into())
        );
    }
}
