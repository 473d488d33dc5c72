//! FT.AGGREGATE over shards, in one of two ways, which the shard chooses from the request
//! and tells in its answer:
//!
//! - **Split at the first GROUPBY** when the steps before it go row by row (LOAD, APPLY,
//!   FILTER) and the query is no KNN: each shard runs those steps and the GROUPBY over its
//!   own documents and sends one row per group, its key values and each reducer's partial
//!   state (`aggregate::reducers`: COUNT and SUM add, AVG is a sum and a count, STDDEV
//!   Welford's state, COUNT_DISTINCT/QUANTILE/TOLIST their values, COUNT_DISTINCTISH its
//!   hashes or HyperLogLog registers, FIRST_VALUE its candidate with its sort value and key,
//!   RANDOM_SAMPLE its sample and how many values it saw); the node merges the groups, ends
//!   the reducers and runs the rest of the pipeline (`pipeline/split.rs`).
//! - **Documents** otherwise (no GROUPBY, a SORTBY or LIMIT before it, KNN, whose k nearest
//!   are over all shards): each shard sends the documents it matched with every value the
//!   pipeline may read of them (the attributes and paths the request names, the query's
//!   distances, every field under `LOAD *`); the node runs the whole pipeline over all
//!   shards' documents with a loader that reads those values ([`Shipped`]).
//!
//! Either way every reducer is exact and every step behaves as on a single server; what
//! differs is the order rows meet (shard by shard), which shows only where a single server's
//! output depends on indexing order: groups of a pipeline without SORTBY, TOLIST's order,
//! FIRST_VALUE's ties (the smallest key when split), SORTBY ties, RANDOM_SAMPLE's draws.
//! ADDSCORES scores with each shard's own statistics. Cursors live on the node.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::aggregate::pipeline::{DocHit, DocRef, FieldInfo, FieldLoader, LoadRequest, PartialGroup, Plan};
use crate::aggregate::request::{AggregateRequest, RequestLimits, Step};
use crate::aggregate::{query_seed, Value};
use crate::catalog::Catalog;
use crate::config::Config;
use crate::distributed::wire;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::query::syntax::{parse, QueryAst};
use crate::reply::{Protocol, Reply};

const ATTRIBUTE: i64 = 0;
const IMPLICIT: i64 = 1;
const PATH: i64 = 2;

/// The names a request may read of a document: LOAD sources, GROUPBY keys, reducer
/// arguments, SORTBY keys and the properties of APPLY and FILTER expressions.
fn referenced(req: &AggregateRequest) -> (Vec<String>, bool) {
    let mut names: Vec<String> = Vec::new();
    let mut all = false;
    let strip = |s: &str| s.strip_prefix('@').unwrap_or(s).to_string();
    for step in &req.steps {
        match step {
            Step::Load(l) => {
                all |= l.all;
                names.extend(l.fields.iter().map(|(src, _)| strip(src)));
            }
            Step::Group(g) => {
                names.extend(g.keys.iter().map(|k| strip(k)));
                for r in &g.reducers {
                    names.extend(r.args.iter().filter(|a| a.starts_with('@')).map(|a| strip(a)));
                }
            }
            Step::Arrange(a) => names.extend(a.sort_keys.iter().map(|(k, _)| strip(k))),
            Step::Apply { expr, .. } | Step::Filter(expr) => {
                names.extend(expr.properties().into_iter().map(strip))
            }
        }
    }
    let mut seen = HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    (names, all)
}

fn value_reply(v: &Value) -> Reply {
    match v {
        Value::Null => Reply::Nil,
        Value::Number(n) => Reply::Double(*n),
        Value::String(s) => Reply::Bulk(s.to_vec()),
        Value::Array(items) => Reply::Array(items.iter().map(value_reply).collect()),
        // As RediSearch's shards send it: the text a reply shows.
        Value::Duo(d) => value_reply(&d.1),
    }
}

fn reply_value(r: &Reply) -> Value {
    match r {
        Reply::Double(n) => Value::Number(*n),
        Reply::Bulk(b) => Value::String(Arc::from(&b[..])),
        Reply::Array(items) => Value::Array(items.iter().map(reply_value).collect()),
        _ => Value::Null,
    }
}

fn opt_reply(v: Option<Value>) -> Reply {
    match v {
        None => Reply::Int(0),
        Some(v) => Reply::Array(vec![value_reply(&v)]),
    }
}

/// Marks a shard's answer split at the first GROUPBY.
const GROUPS: &str = "groups";

/// A shard's part of `req` planned as `plan` (see the module docs), wire-ready: split,
/// `[total, [yielded name…], [[[key value…], [partial…]]…], "groups"]`; else its documents,
/// `[total, [yielded name…], [[key, score, [yielded…], [kind, name, value]…, all|nil]…]]`.
pub(crate) fn ship(
    req: &AggregateRequest,
    plan: Plan,
    knn: bool,
    hits: impl Iterator<Item = DocHit>,
    total: u64,
    loader: &dyn FieldLoader,
) -> Result<Reply> {
    let yielded = loader.yielded();
    if !knn && plan.split_point().is_some() {
        let groups = plan
            .execute_partial(hits, loader)?
            .into_iter()
            .map(|(keys, partials)| {
                Reply::Array(vec![
                    Reply::Array(keys.iter().map(value_reply).collect()),
                    Reply::Array(partials.iter().map(value_reply).collect()),
                ])
            })
            .collect();
        return Ok(Reply::Array(vec![
            Reply::Int(total as i64),
            Reply::Array(yielded.iter().map(Reply::text).collect()),
            Reply::Array(groups),
            Reply::Simple(GROUPS.into()),
        ]));
    }
    let docs = ship_docs(req, hits, loader);
    Ok(Reply::Array(vec![
        Reply::Int(total as i64),
        Reply::Array(yielded.iter().map(Reply::text).collect()),
        Reply::Array(docs),
    ]))
}

/// `hits` with every value `req`'s steps may read of them (see the module docs), as
/// `[key, score, [yielded…], [kind, name, value]…, all|nil]` each ([`read_doc`] reads one).
pub(crate) fn ship_docs(
    req: &AggregateRequest,
    hits: impl Iterator<Item = DocHit>,
    loader: &dyn FieldLoader,
) -> Vec<Reply> {
    let yielded = loader.yielded();
    let (names, all) = referenced(req);
    hits.map(|h| {
        let doc = DocRef { key: &h.key, id: h.id };
        let y = yielded.iter().map(|n| opt_reply(loader.yielded_value(doc, n))).collect();
        let mut loads = Vec::new();
        for n in &names {
            let asks: Vec<(i64, LoadRequest<'_>)> = if loader.field(n).is_some() {
                vec![(ATTRIBUTE, LoadRequest::Attribute(n)), (IMPLICIT, LoadRequest::Implicit(n))]
            } else {
                vec![(PATH, LoadRequest::Path(n))]
            };
            for (kind, what) in asks {
                if let Some(v) = loader.load(doc, what) {
                    loads.push(Reply::Array(vec![Reply::Int(kind), Reply::text(n), value_reply(&v)]));
                }
            }
        }
        let whole = if all {
            Reply::Array(
                loader
                    .load_all(doc)
                    .into_iter()
                    .flat_map(|(k, v)| [Reply::text(k), value_reply(&v)])
                    .collect(),
            )
        } else {
            Reply::Nil
        };
        Reply::Array(vec![
            Reply::Bulk(h.key.to_vec()),
            Reply::Double(h.score),
            Reply::Array(y),
            Reply::Array(loads),
            whole,
        ])
    })
    .collect()
}

fn read_group(r: Reply) -> Option<PartialGroup> {
    let Reply::Array(items) = r else { return None };
    let [Reply::Array(keys), Reply::Array(partials)] = &items[..] else { return None };
    Some((keys.iter().map(reply_value).collect(), partials.iter().map(reply_value).collect()))
}

/// `FT._SHARD.AGGREGATE idx query [steps…]`: this shard's documents, wire-encoded.
pub fn shard_aggregate(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Reply> {
    if args.len() < 2 {
        return Err(Error::new("wrong number of arguments"));
    }
    let mut shipped = None;
    // The protocol only decides the reply, which the node renders (FORMAT EXPAND is
    // checked there against its client's).
    crate::aggregate::command::run_aggregate(
        cat,
        args,
        docs,
        config,
        Protocol::Resp3,
        None,
        Some(&mut shipped),
    )?;
    Ok(Reply::Bulk(wire::encode(&shipped.unwrap_or(Reply::Nil))))
}

/// One shipped document.
pub(crate) struct Doc {
    /// Its key.
    pub(crate) key: Arc<[u8]>,
    /// Its query score.
    score: f64,
    /// Its values of [`Shipped::yielded`]'s names, in order.
    pub(crate) yielded: Vec<Option<Value>>,
    loads: HashMap<(i64, String), Value>,
    all: Option<Vec<(String, Value)>>,
}

/// The node's loader over shipped documents (document id = position).
pub(crate) struct Shipped<'a> {
    /// The index's schema, as the node has it.
    pub(crate) schema: &'a crate::schema::IndexSpec,
    /// The names the rows yield.
    pub(crate) yielded: Vec<String>,
    /// The documents, by position.
    pub(crate) docs: Vec<Doc>,
}

impl FieldLoader for Shipped<'_> {
    fn field(&self, name: &str) -> Option<FieldInfo> {
        self.schema.field(name).map(|(_, f)| FieldInfo::of(self.schema, f))
    }

    fn load(&self, doc: DocRef<'_>, what: LoadRequest<'_>) -> Option<Value> {
        let d = self.docs.get(doc.id as usize)?;
        let k = match what {
            LoadRequest::Attribute(n) => (ATTRIBUTE, n),
            LoadRequest::SortValue(n) | LoadRequest::Implicit(n) => (IMPLICIT, n),
            LoadRequest::Path(n) => (PATH, n),
        };
        d.loads.get(&(k.0, k.1.to_string())).cloned()
    }

    fn load_all(&self, doc: DocRef<'_>) -> Vec<(String, Value)> {
        self.docs.get(doc.id as usize).and_then(|d| d.all.clone()).unwrap_or_default()
    }

    fn load_all_names_fields(&self) -> bool {
        self.schema.on != crate::document::KeyType::Json
    }

    fn yielded(&self) -> Vec<String> {
        self.yielded.clone()
    }

    fn yielded_value(&self, doc: DocRef<'_>, name: &str) -> Option<Value> {
        let i = self.yielded.iter().position(|n| n == name)?;
        self.docs.get(doc.id as usize)?.yielded.get(i)?.clone()
    }
}

/// Reads one of [`ship_docs`]'s documents.
pub(crate) fn read_doc(r: Reply) -> Option<Doc> {
    let Reply::Array(items) = r else { return None };
    let mut it = items.into_iter();
    let Some(Reply::Bulk(key)) = it.next() else { return None };
    let Some(Reply::Double(score)) = it.next() else { return None };
    let Some(Reply::Array(y)) = it.next() else { return None };
    let Some(Reply::Array(loads)) = it.next() else { return None };
    let yielded = y
        .iter()
        .map(|v| match v {
            Reply::Array(one) => one.first().map(reply_value),
            _ => None,
        })
        .collect();
    let mut map = HashMap::new();
    for l in loads {
        let Reply::Array(l) = l else { return None };
        if let (Some(Reply::Int(kind)), Some(Reply::Bulk(name)), Some(v)) = (l.first(), l.get(1), l.get(2)) {
            map.insert((*kind, String::from_utf8_lossy(name).into_owned()), reply_value(v));
        }
    }
    let all = match it.next()? {
        Reply::Array(flat) => Some(
            flat.chunks(2)
                .filter_map(|p| match p {
                    [Reply::Bulk(k), v] => Some((String::from_utf8_lossy(k).into_owned(), reply_value(v))),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    };
    Some(Doc { key: Arc::from(&key[..]), score, yielded, loads: map, all })
}

/// Runs FT.AGGREGATE `args` (after the command name) over the shards' replies to
/// [`shard_aggregate`], in the node's catalog `cat` (its cursors, its copy of the schema).
pub fn merge_aggregate(
    cat: &Catalog,
    args: &[&[u8]],
    docs_source: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    shards: &[Reply],
) -> Result<Reply> {
    let bad = || Error::new("bad shard reply");
    let name = String::from_utf8_lossy(args[0]).into_owned();
    let limits = RequestLimits {
        max_aggregate_results: config.max_aggregate_results,
        max_search_results: config.max_search_results,
    };
    let req = AggregateRequest::parse_with(&args[2..], limits)?;
    if req.format_expand && proto != Protocol::Resp3 {
        return Err(Error::new("EXPAND format is only supported with RESP3"));
    }
    let mut total = 0;
    let mut yielded = Vec::new();
    let mut docs = Vec::new();
    let mut groups = Vec::new();
    let mut split = None;
    for r in shards {
        let mut it = wire::shard_items(r)?.into_iter();
        let (Some(Reply::Int(t)), Some(Reply::Array(y)), Some(Reply::Array(d))) =
            (it.next(), it.next(), it.next())
        else {
            return Err(bad());
        };
        let grouped = matches!(it.next(), Some(Reply::Simple(s)) if s == GROUPS);
        if *split.get_or_insert(grouped) != grouped {
            return Err(bad());
        }
        total += t as u64;
        yielded = y
            .iter()
            .filter_map(|n| {
                if let Reply::Bulk(b) = n {
                    Some(String::from_utf8_lossy(b).into_owned())
                } else {
                    None
                }
            })
            .collect();
        for d in d {
            if grouped {
                groups.push(read_group(d).ok_or_else(bad)?);
            } else {
                docs.push(read_doc(d).ok_or_else(bad)?);
            }
        }
    }
    let seed = query_seed(args[0], args[1], &args[2..]);
    if split == Some(true) {
        let e = cat.entry(&name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
        let loader = Shipped { schema: &e.index.spec, yielded, docs: Vec::new() };
        let out = Plan::new(&req, &loader, seed)?.execute_merged(groups.iter(), total, &loader)?;
        let index_name = cat.resolve(&name).map(str::to_string);
        return crate::aggregate::command::deliver(
            cat,
            &req,
            index_name,
            out,
            docs_source.caller(),
            config,
            proto,
        );
    }
    // KNN: the k nearest over all shards, nearest first (a single server's row order).
    let dialect = req.dialect.map_or(config.default_dialect, |d| d as u32);
    let params: HashMap<String, String> = req.params.iter().cloned().collect();
    if let Ok(QueryAst::Knn(c)) = parse(&String::from_utf8_lossy(args[1]), dialect, &params) {
        let slot = c.score_as.clone().unwrap_or_else(|| format!("__{}_score", c.field));
        if let Some(i) = yielded.iter().position(|n| *n == slot) {
            let dist = |d: &Doc| match d.yielded.get(i) {
                Some(Some(Value::Number(n))) => *n,
                _ => f64::INFINITY,
            };
            docs.sort_by(|a, b| {
                dist(a)
                    .partial_cmp(&dist(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| a.key.cmp(&b.key))
            });
            docs.truncate(c.k);
            total = total.min(docs.len() as u64);
        }
    }
    let e = cat.entry(&name).ok_or_else(|| Error::new(format!("{name}: no such index")))?;
    let hits: Vec<DocHit> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| DocHit { key: d.key.clone(), id: i as u32, score: d.score, matched_terms: None })
        .collect();
    let loader = Shipped { schema: &e.index.spec, yielded, docs };
    let plan = Plan::new(&req, &loader, seed)?;
    let out = plan.execute(hits.into_iter(), total, &loader)?;
    let index_name = cat.resolve(&name).map(str::to_string);
    crate::aggregate::command::deliver(cat, &req, index_name, out, docs_source.caller(), config, proto)
}
