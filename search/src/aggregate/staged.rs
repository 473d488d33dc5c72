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

use super::command::{deliver, query, sort_value, IndexLoader, Indexed};
use super::pipeline::{AggOutput, DocHit, Plan};
use super::request::AggregateRequest;
use super::value::Value;
use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};
use crate::schema::{FieldType, IndexSpec};

/// What the index holds of the pipeline's documents, copied out, by document position.
pub(crate) struct Copied {
    /// The names the query yields (vector distances).
    pub(crate) yielded: Vec<String>,
    /// Per document: (schema field index, value) of its SORTABLE fields (TAG fields aside,
    /// which the pipeline reads from the document).
    sortables: Vec<Vec<(usize, Value)>>,
    /// Per document: the yielded values, in `yielded` order.
    distances: Vec<Vec<Option<f64>>>,
}

impl Copied {
    /// The SORTABLE value of field `fi` of the document at `pos`.
    pub(crate) fn sortable(&self, pos: u32, fi: usize) -> Option<&Value> {
        self.sortables.get(pos as usize)?.iter().find(|(f, _)| *f == fi).map(|(_, v)| v)
    }

    /// The value yielded as `name` for the document at `pos`.
    pub(crate) fn yielded_value(&self, pos: u32, name: &str) -> Option<f64> {
        let at = self.yielded.iter().position(|n| n == name)?;
        *self.distances.get(pos as usize)?.get(at)?
    }
}

/// FT.AGGREGATE once its query ran: every input row with what the index holds of it, owned.
pub struct AggregateWork {
    req: AggregateRequest,
    spec: IndexSpec,
    index_name: Option<String>,
    dialect: u32,
    seed: u64,
    deadline: Option<Instant>,
    total: u64,
    hits: Vec<DocHit>,
    copied: Copied,
}

/// An aggregation's rows, for [`Catalog::finish_aggregate`].
pub struct AggregateDone {
    req: AggregateRequest,
    index_name: Option<String>,
    out: AggOutput,
}

/// Runs FT.AGGREGATE's query (`args` after the command name) and copies out its rows'
/// index data. `started`: when the command arrived (its TIMEOUT counts from then).
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
    let sortable: Vec<usize> = q
        .idx
        .spec
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.sortable && f.kind != FieldType::Tag)
        .map(|(i, _)| i)
        .collect();
    let yielded: Vec<String> = q.distances.fields.iter().map(|(n, _)| n.clone()).collect();
    let mut hits = Vec::with_capacity(q.order.len());
    let mut sortables = Vec::with_capacity(q.order.len());
    let mut distances = Vec::with_capacity(q.order.len());
    for (i, &d) in q.order.iter().enumerate() {
        let (Some(mut hit), Some(rec)) = (q.hit(i), q.idx.docs.get(d)) else { continue };
        sortables.push(
            sortable.iter().filter_map(|&fi| Some((fi, sort_value(rec.sortable(fi as u16)?)))).collect(),
        );
        distances.push(yielded.iter().map(|n| q.distances.get(n, d)).collect());
        hit.id = hits.len() as u32;
        hits.push(hit);
    }
    Ok(AggregateWork {
        spec: q.idx.spec.clone(),
        index_name: q.index_name,
        dialect: q.dialect,
        seed: q.seed,
        deadline: q.deadline,
        total: q.total,
        hits,
        copied: Copied { yielded, sortables, distances },
        req: q.req,
    })
}

impl AggregateWork {
    /// The keys of the pipeline's input rows, in the order it reads them.
    pub fn row_keys(&self) -> Vec<std::sync::Arc<[u8]>> {
        self.hits.iter().map(|h| h.key.clone()).collect()
    }

    /// Makes the rows and runs the pipeline, reading documents from `docs`.
    pub fn run(self, docs: &dyn DocumentSource) -> Result<AggregateDone> {
        let loader = IndexLoader {
            spec: &self.spec,
            docs,
            dialect: self.dialect,
            indexed: Indexed::Copied(&self.copied),
        };
        let plan = Plan::new(&self.req, &loader, self.seed)?.with_deadline(self.deadline);
        // A row whose document changed since the query read the index would mix the two
        // versions (its SORTABLE values are the old ones): it is left out.
        let tag = |n: &str| self.spec.field(n).is_some_and(|(_, f)| f.kind == FieldType::Tag);
        let reads = plan.reads_documents(tag);
        if reads {
            // What each row will read: the fields' sources, then the paths.
            let (attrs, paths) = plan.loaded_names();
            let mut sources: Vec<String> = Vec::new();
            for s in attrs
                .iter()
                .filter_map(|n| self.spec.field(n).map(|(_, f)| f.path.clone()))
                .chain(paths.iter().map(|p| p.to_string()))
            {
                if !sources.contains(&s) {
                    sources.push(s);
                }
            }
            docs.expect_reads(&sources);
        }
        let out = if reads {
            plan.execute(self.hits.into_iter().filter(|h| docs.row_unchanged(&h.key)), self.total, &loader)?
        } else {
            plan.execute(self.hits.into_iter(), self.total, &loader)?
        };
        Ok(AggregateDone { req: self.req, index_name: self.index_name, out })
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
        deliver(self, &done.req, done.index_name, done.out, owner, config, proto)
            .unwrap_or_else(|e| Reply::Error(e.0))
    }
}
