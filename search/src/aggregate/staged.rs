//! FT.AGGREGATE in stages, for a caller that runs the query under a shared lock of the
//! catalog and the rest without it (the glue's worker threads): [`stage`] runs the query and
//! copies out what the pipeline reads of the index (keys, scores, matched terms, SORTABLE
//! values, yielded distances); [`AggregateWork::run`] makes and aggregates the rows, loading
//! documents through the caller's source, with no index at hand; then
//! [`Catalog::finish_aggregate`] hands the rows to the client or to a cursor.
//!
//! Rows carry document positions, not ids: ids are reused once the index is released, so
//! nothing after [`stage`] looks a document up in the index.

use std::time::Instant;

use super::command::{
    deliver, property_from_sortable, query, read_from_document, sort_value, IndexLoader, Indexed,
};
use super::pipeline::{AggOutput, DocHit, Plan};
use super::request::AggregateRequest;
use super::value::Value;
use crate::catalog::Catalog;
use crate::commands::hybrid::HybridMeta;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::index::docs::Column;
use crate::reply::{Protocol, Reply};
use crate::schema::{FieldType, IndexSpec};
use crate::timeout::Timeout;

/// What the index holds of the pipeline's documents, copied out, by document position: one
/// column per field the pipeline reads (no allocation per row).
pub(crate) struct Copied {
    /// The names the query yields (vector distances).
    pub(crate) yielded: Vec<String>,
    /// (schema field index, value per document) of the SORTABLE fields the pipeline reads
    /// (TAG fields aside, which it reads from the document).
    sortables: Vec<(usize, Vec<Option<Value>>)>,
    /// The yielded values per document, in `yielded` order.
    distances: Vec<Vec<Option<f64>>>,
    /// (schema field index, value per document) of the NUMERIC fields the pipeline reads,
    /// where the index holds the document's value ([`crate::index::docs::DocRecord::served_number`]).
    served: Vec<(usize, Vec<Option<f64>>)>,
    /// The fields of `served` that every document has there: the pipeline reads them from
    /// no document.
    served_by_all: Vec<usize>,
}

/// The value at `pos` of field `fi`'s column.
fn cell<T>(columns: &[(usize, Vec<Option<T>>)], pos: u32, fi: usize) -> Option<&T> {
    columns.iter().find(|(f, _)| *f == fi)?.1.get(pos as usize)?.as_ref()
}

impl Copied {
    /// The SORTABLE value of field `fi` of the document at `pos`.
    pub(crate) fn sortable(&self, pos: u32, fi: usize) -> Option<&Value> {
        cell(&self.sortables, pos, fi)
    }

    /// The value of NUMERIC field `fi` of the document at `pos`, when the index holds it as
    /// the document's.
    pub(crate) fn served(&self, pos: u32, fi: usize) -> Option<f64> {
        cell(&self.served, pos, fi).copied()
    }

    /// The value yielded as `name` for the document at `pos`.
    pub(crate) fn yielded_value(&self, pos: u32, name: &str) -> Option<f64> {
        let at = self.yielded.iter().position(|n| n == name)?;
        *self.distances.get(at)?.get(pos as usize)?
    }
}

/// FT.AGGREGATE once its query ran.
pub struct AggregateWork {
    req: AggregateRequest,
    index_name: Option<String>,
    rows: Rows,
    /// FT.HYBRID's tail: its reply's shape and figures.
    hybrid: Option<Box<HybridMeta>>,
}

/// An aggregation's rows after the index stage.
enum Rows {
    /// Made and aggregated already: the pipeline reads no document, so it ran whole in the
    /// index stage.
    Done(AggOutput),
    /// Still to make, reading documents.
    Pending(Box<Pending>),
}

/// Every input row with what the index holds of it, owned.
struct Pending {
    spec: IndexSpec,
    dialect: u32,
    seed: u64,
    timeout: Timeout,
    total: u64,
    hits: Vec<DocHit>,
    copied: Copied,
    /// Count each step's rows (FT.HYBRID's total counts what its FILTERs drop).
    profiled: bool,
}

/// An aggregation's rows, for [`Catalog::finish_aggregate`].
pub struct AggregateDone {
    req: AggregateRequest,
    index_name: Option<String>,
    out: AggOutput,
    hybrid: Option<Box<HybridMeta>>,
}

/// Runs FT.AGGREGATE's query (`args` after the command name) and copies out its rows'
/// index data; a pipeline that reads no document (its fields SORTABLE, or NUMERIC values the
/// index holds as the documents') runs whole here, as inline. `started`: when the command
/// arrived (its TIMEOUT counts from then).
pub(crate) fn stage(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
    started: Instant,
) -> Result<AggregateWork> {
    if args.len() < 2 {
        return Err(Error::new("No query string provided"));
    }
    let q = query(cat, args, docs, config, proto, None, started)?;
    stage_queried(q, docs, None)
}

/// The index stage of a query that ran: [`stage`]'s, and FT.HYBRID's over its fused rows
/// (`hybrid`: its reply's shape; its plan counts each step's rows).
pub(crate) fn stage_queried(
    q: super::command::Queried<'_>,
    docs: &dyn DocumentSource,
    hybrid: Option<Box<HybridMeta>>,
) -> Result<AggregateWork> {
    let profiled = hybrid.is_some();
    let spec = &q.idx.spec;
    // The fields the pipeline reads (planned here only to learn which): their SORTABLE
    // values and the NUMERIC values the index holds as the documents'.
    let (mut sortable, mut numeric): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let loader = q.loader(docs);
    let mut plan = Plan::new(&q.req, &loader, q.seed)?.with_timeout(q.timeout);
    if profiled {
        plan = plan.profiled();
    }
    for n in plan.loaded_names().0 {
        let Some((fi, f)) = spec.field(n) else { continue };
        if property_from_sortable(spec, f) && !sortable.contains(&fi) {
            sortable.push(fi);
        }
        if f.kind == FieldType::Numeric && !numeric.contains(&fi) {
            numeric.push(fi);
        }
    }
    // Whether every row has what the pipeline reads of field `fi` in the index: when every
    // document of the index has it (counted as records come and go, so no pass over the rows).
    let everywhere = |fi: usize, number: bool| {
        let what = if number { Column::Served } else { Column::Sortable };
        q.idx.docs.in_every_record(fi as u16, what)
    };
    let served: Vec<usize> = numeric.iter().copied().filter(|&fi| everywhere(fi, true)).collect();
    let from_document = |n: &str, explicit: bool| {
        read_from_document(
            spec,
            n,
            explicit,
            q.dialect,
            |fi| served.contains(&fi),
            |fi| everywhere(fi, false),
        )
    };
    if !plan.reads_documents(from_document) {
        let hits = (0..q.order.len()).filter_map(|i| q.hit(i));
        let out = plan.execute(hits, q.total, &loader)?;
        return Ok(AggregateWork { req: q.req, index_name: q.index_name, rows: Rows::Done(out), hybrid });
    }
    let yielded: Vec<String> = q.distances.fields.iter().map(|(n, _)| n.clone()).collect();
    let rows = q.order.len();
    let mut hits = Vec::with_capacity(rows);
    let mut sortables: Vec<(usize, Vec<Option<Value>>)> =
        sortable.iter().map(|&fi| (fi, Vec::with_capacity(rows))).collect();
    let mut served: Vec<(usize, Vec<Option<f64>>)> =
        numeric.iter().map(|&fi| (fi, Vec::with_capacity(rows))).collect();
    let mut distances: Vec<Vec<Option<f64>>> = yielded.iter().map(|_| Vec::with_capacity(rows)).collect();
    for (i, &d) in q.order.iter().enumerate() {
        let (Some(mut hit), Some(rec)) = (q.hit(i), q.idx.docs.get(d)) else { continue };
        for (fi, col) in &mut sortables {
            col.push(q.idx.docs.sortable(d, *fi as u16).map(sort_value));
        }
        for (fi, col) in &mut served {
            col.push(rec.served_number(*fi as u16));
        }
        for (n, col) in yielded.iter().zip(&mut distances) {
            col.push(q.distances.get(n, d));
        }
        hit.id = hits.len() as u32;
        hits.push(hit);
    }
    let served_by_all =
        served.iter().filter(|(_, col)| col.iter().all(Option::is_some)).map(|(fi, _)| *fi).collect();
    let pending = Pending {
        spec: q.idx.spec.clone(),
        dialect: q.dialect,
        seed: q.seed,
        timeout: q.timeout,
        total: q.total,
        hits,
        copied: Copied { yielded, sortables, distances, served, served_by_all },
        profiled,
    };
    Ok(AggregateWork { req: q.req, index_name: q.index_name, rows: Rows::Pending(Box::new(pending)), hybrid })
}

impl AggregateWork {
    /// The keys of the pipeline's input rows, in the order it reads them (none when it
    /// reads no document).
    pub fn row_keys(&self) -> Vec<std::sync::Arc<[u8]>> {
        match &self.rows {
            Rows::Done(_) => Vec::new(),
            Rows::Pending(p) => p.hits.iter().map(|h| h.key.clone()).collect(),
        }
    }

    /// Makes the rows and runs the pipeline, reading documents from `docs`.
    pub fn run(self, docs: &dyn DocumentSource) -> Result<AggregateDone> {
        let out = match self.rows {
            Rows::Done(out) => out,
            Rows::Pending(p) => p.run(&self.req, docs)?,
        };
        Ok(AggregateDone { req: self.req, index_name: self.index_name, out, hybrid: self.hybrid })
    }
}

impl Pending {
    fn run(self, req: &AggregateRequest, docs: &dyn DocumentSource) -> Result<AggOutput> {
        let loader = IndexLoader {
            spec: &self.spec,
            docs,
            dialect: self.dialect,
            indexed: Indexed::Copied(&self.copied),
        };
        let mut plan = Plan::new(req, &loader, self.seed)?.with_timeout(self.timeout);
        if self.profiled {
            plan = plan.profiled();
        }
        // A row whose document changed since the query read the index would mix the two
        // versions (its SORTABLE values are the old ones): it is left out.
        // SORTABLE values were copied for every row (a row without one reads the document).
        let served = |fi: usize| self.copied.served_by_all.contains(&fi);
        let reads = plan.reads_documents(|n, explicit| {
            read_from_document(&self.spec, n, explicit, self.dialect, served, |_| true)
        });
        if reads {
            // What each row will read: the fields' sources, then the paths.
            let (attrs, paths) = plan.loaded_names();
            let mut sources: Vec<String> = Vec::new();
            for s in attrs
                .iter()
                .filter_map(|n| self.spec.field(n))
                .filter(|(fi, _)| !served(*fi))
                .map(|(_, f)| f.path.clone())
                .chain(paths.iter().map(|p| p.to_string()))
            {
                if !sources.contains(&s) {
                    sources.push(s);
                }
            }
            docs.expect_reads(&sources);
        }
        Ok(if reads {
            plan.execute(self.hits.into_iter().filter(|h| docs.row_unchanged(&h.key)), self.total, &loader)?
        } else {
            plan.execute(self.hits.into_iter(), self.total, &loader)?
        })
    }
}

impl Catalog {
    /// The reply to an aggregation run in stages: its rows, or a cursor over them owned by
    /// `owner` (the caller's user name).
    pub fn finish_aggregate(
        &self,
        done: AggregateDone,
        owner: Option<String>,
        config: &Config,
        proto: Protocol,
    ) -> Reply {
        match done.hybrid {
            Some(meta) => crate::commands::hybrid::deliver(
                self, &done.req, done.index_name, done.out, *meta, owner, config, proto,
            ),
            // Rows made on a worker stay in a cursor whatever is deleted meanwhile (the liveness
            // check misses their documents: see the closing note of 2026-12-05).
            // The rows are the index's documents: a cursor skips those deleted since.
            None => {
                let mut out = done.out;
                out.live_ids = true;
                deliver(self, &done.req, done.index_name, out, owner, config, proto)
            }
        }
        .unwrap_or_else(|e| Reply::Error(e.0))
    }
}
