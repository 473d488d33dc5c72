//! Planning and execution of the FT.AGGREGATE step pipeline.
//!
//! Contract: [`Plan::new`] resolves every property name of a parsed
//! [`AggregateRequest`] to a row slot once (RediSearch's `RLookup` rules:
//! APPLY/FILTER read only what is loaded, computed or SORTABLE; GROUPBY,
//! REDUCE and SORTBY load schema fields implicitly; GROUPBY starts a new set
//! of properties); [`Plan::execute`] streams the matching documents through
//! the steps in order. Streaming steps (LOAD, APPLY, FILTER, LIMIT) run row by
//! row and stop early once a LIMIT is satisfied; GROUPBY and SORTBY consume
//! their whole input. An evaluation error before the first output row fails
//! the query; after it, the rows so far are returned with a warning, as
//! RediSearch does. On a cluster the pipeline splits at its first GROUPBY (`split.rs`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::AggError;
use super::expr::Expr;
use super::group::Grouper;
use super::limits::DEFAULT_SORT_LIMIT;
use super::reducers::{self, Reducer};
use super::request::{AggregateRequest, ArrangeStep, GroupStep, LoadStep, Step};
use super::row::Row;
use super::sort::sort_rows;
use super::value::Value;
use crate::timeout::Timeout;

mod plan;
mod split;

pub use super::group::PartialGroup;

/// What the schema says about an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldInfo {
    /// SORTABLE: its (normalized) value is readable without LOAD.
    pub sortable: bool,
    /// A hash TAG's separator: GROUPBY on its value read without LOAD makes one group per
    /// value of the list (README's differences: "FT.AGGREGATE GROUPBY on a hash's
    /// multi-value TAG"), where every other step sees the list as RediSearch does.
    pub list_separator: Option<char>,
}

impl FieldInfo {
    /// What the pipeline needs to know of schema field `f` of `spec`.
    pub fn of(spec: &crate::schema::IndexSpec, f: &crate::schema::FieldSpec) -> FieldInfo {
        let hash_tag = f.kind == crate::schema::FieldType::Tag && spec.on == crate::document::KeyType::Hash;
        FieldInfo { sortable: f.sortable, list_separator: hash_tag.then(|| f.separator.unwrap_or(',')) }
    }
}

/// What a LOAD asks the document source for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadRequest<'a> {
    /// A schema attribute's document value (by attribute name).
    Attribute(&'a str),
    /// A SORTABLE attribute's sort value (normalized unless UNF), read
    /// implicitly by APPLY/FILTER/GROUPBY/REDUCE/SORTBY.
    SortValue(&'a str),
    /// A non-SORTABLE attribute read implicitly by GROUPBY/REDUCE/SORTBY
    /// (multi-valued fields should come back as arrays, so GROUPBY splits
    /// them).
    Implicit(&'a str),
    /// A non-schema name: a hash field or a JSONPath.
    Path(&'a str),
}

/// The caller's view of the index schema and documents.
pub trait FieldLoader {
    /// The schema attribute called `name`, if any.
    fn field(&self, name: &str) -> Option<FieldInfo>;
    /// One value of a document.
    fn load(&self, doc: DocRef<'_>, what: LoadRequest<'_>) -> Option<Value>;
    /// Every field of the document (`LOAD *`), in document order.
    fn load_all(&self, doc: DocRef<'_>) -> Vec<(String, Value)>;
    /// Whether `LOAD *` makes every schema field readable by name afterwards (hashes);
    /// on JSON it loads only the serialized document, so RediSearch clears
    /// `RLOOKUP_OPT_ALL_LOADED` and a later APPLY of a non-SORTABLE field is an error.
    fn load_all_names_fields(&self) -> bool {
        true
    }
    /// Names the query itself yields for each document (vector distances), which lead
    /// every row.
    fn yielded(&self) -> Vec<String> {
        Vec::new()
    }
    /// The value the query yields under `name` for a document.
    fn yielded_value(&self, doc: DocRef<'_>, name: &str) -> Option<Value> {
        let _ = (doc, name);
        None
    }
    /// The document is no longer there to load from (its key expired or was deleted).
    fn gone(&self, doc: DocRef<'_>) -> bool {
        let _ = doc;
        false
    }
}

/// A document as a [`FieldLoader`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct DocRef<'a> {
    /// Its key.
    pub key: &'a [u8],
    /// The caller's id for it ([`DocHit::id`]).
    pub id: u32,
}

/// A document matched by the query.
#[derive(Debug, Clone, Default)]
pub struct DocHit {
    /// Its key.
    pub key: Arc<[u8]>,
    /// The caller's document id, handed back to the loader.
    pub id: u32,
    /// Its query score.
    pub score: f64,
    /// Query terms it matched (for `matched_terms()`).
    pub matched_terms: Option<Arc<[String]>>,
}

/// The result of running a plan.
#[derive(Debug, Clone, Default)]
pub struct AggOutput {
    /// Property names by slot (the last segment's).
    pub names: Vec<String>,
    /// Output rows.
    pub rows: Vec<Row>,
    /// `total` as RediSearch reports it: the number of groups of the last GROUPBY; the
    /// matched documents after a SORTBY; otherwise the documents read until the first row
    /// came out (all of them when none did), as RediSearch's lazy pipeline counts them.
    pub total: u64,
    /// Documents the query matched.
    pub matched: u64,
    /// Per step, when the plan was [`Plan::profiled`].
    pub steps: Vec<StepStat>,
    /// A non-fatal evaluation error that cut the result short.
    pub warning: Option<String>,
    /// A GROUPBY ran.
    pub grouped: bool,
    /// A GROUPBY or SORTBY consumed the input before the first row.
    pub blocking: bool,
    /// `LIMIT 0 0`: send the count only.
    pub count_only: bool,
    /// WITHSORTKEYS: the slot of each row's sort key (`Some(None)`: no sort key, a nil).
    pub sortkey: Option<Option<usize>>,
    /// The rows are documents of the index the cursor reads (not rows shipped from other
    /// shards), so a cursor can tell which were deleted since.
    pub live_ids: bool,
}

/// Property table of one segment.
#[derive(Debug, Clone, Default)]
struct Lookup {
    names: Vec<String>,
    index: HashMap<String, usize>,
    /// After `LOAD *`: unknown names resolve to (possibly empty) slots.
    load_all: bool,
}

impl Lookup {
    fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    fn add(&mut self, name: &str) -> usize {
        if let Some(s) = self.get(name) {
            return s;
        }
        let s = self.names.len();
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), s);
        s
    }
}

#[derive(Debug, Clone)]
enum LoadKind {
    Attribute(String),
    Implicit(String),
    SortValue(String),
    Path(String),
    DocKey,
    Yielded(String),
}

enum Op {
    Load(Vec<(usize, LoadKind)>),
    LoadAll,
    Apply(Expr, usize),
    Filter(Expr),
    Page {
        offset: u64,
        limit: u64,
    },
    Sort {
        keys: Vec<(usize, bool)>,
        limit: u64,
    },
    Group {
        keys: Vec<usize>,
        /// Per key, the separator of a hash TAG list read without LOAD, split per value.
        lists: Vec<Option<char>>,
        reducers: Vec<(Box<dyn Reducer>, usize)>,
        width: usize,
    },
    Count,
}

impl Op {
    fn is_blocking(&self) -> bool {
        matches!(self, Op::Sort { .. } | Op::Group { .. } | Op::Count)
    }
}

/// A planned FT.AGGREGATE pipeline.
pub struct Plan {
    ops: Vec<Op>,
    root: Lookup,
    /// Lookup of the last GROUPBY (None: output uses the root lookup).
    last: Option<Lookup>,
    score_slot: Option<usize>,
    count_only: bool,
    timeout: Timeout,
    /// FT.PROFILE: measure each step.
    profiled: bool,
}

/// FT.PROFILE's figures for one pipeline step: RediSearch's result processor name, the
/// rows the step passed on and the time it spent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepStat {
    /// `Loader`, `Projector - …`, `Filter - …`, `Pager/Limiter`, `Sorter`, `Grouper`, `Counter`.
    pub name: String,
    /// Rows the step passed on.
    pub count: u64,
    /// Time spent in the step itself.
    pub time: Duration,
}

impl Op {
    /// The step's result processor name as RediSearch's FT.PROFILE prints it.
    fn profile_name(&self) -> String {
        match self {
            // Sortable values come from the document table, where RediSearch's next step
            // reads them itself: no loader of its own (the empty name hides the step).
            Op::Load(loads) if loads.iter().all(|(_, k)| matches!(k, LoadKind::SortValue(_))) => {
                String::new()
            }
            Op::Load(_) | Op::LoadAll => "Loader".into(),
            Op::Apply(e, _) => format!("Projector - {}", e.ast.profile_kind()),
            Op::Filter(e) => format!("Filter - {}", e.ast.profile_kind()),
            Op::Page { .. } => "Pager/Limiter".into(),
            Op::Sort { .. } => "Sorter".into(),
            Op::Group { .. } => "Grouper".into(),
            Op::Count => "Counter".into(),
        }
    }
}

/// Error state shared by the streaming runs of one execution.
struct ExecState {
    /// A row-evaluation error (the run stopped there).
    error: Option<AggError>,
    /// The query's TIMEOUT.
    timeout: Timeout,
    /// The TIMEOUT ran out while rows were read: no later step looks at the clock (under
    /// ON_TIMEOUT RETURN the steps after a SORTBY or GROUPBY see every row it passes on).
    timed_out: bool,
}

pub use crate::error::TIMEOUT_ERROR;

/// Rows between two deadline checks.
const DEADLINE_CHECK_ROWS: u64 = 256;

impl Plan {
    /// Stops reading rows once `timeout` runs out: under ON_TIMEOUT FAIL the execution fails
    /// with `Timeout limit was reached`, under RETURN it goes on with the rows read by then
    /// and warns (crate::timeout).
    pub fn with_timeout(mut self, timeout: Timeout) -> Plan {
        self.timeout = timeout;
        self
    }

    /// True when running the plan reads documents: a LOAD of a path, LOAD *, or a field read
    /// for which `from_document(name, explicit)` says so (`explicit`: a LOAD of the attribute,
    /// else a property read, from its SORTABLE value when it has one).
    pub fn reads_documents(&self, from_document: impl Fn(&str, bool) -> bool) -> bool {
        self.ops.iter().any(|op| match op {
            Op::Load(loads) => loads.iter().any(|(_, k)| match k {
                LoadKind::DocKey | LoadKind::Yielded(_) => false,
                LoadKind::Attribute(n) => from_document(n, true),
                LoadKind::SortValue(n) | LoadKind::Implicit(n) => from_document(n, false),
                LoadKind::Path(_) => true,
            }),
            Op::LoadAll => true,
            _ => false,
        })
    }

    /// The names the plan loads as schema attributes (LOAD @name, and properties read from a
    /// field) and as paths (LOAD $.path), in order.
    pub fn loaded_names(&self) -> (Vec<&str>, Vec<&str>) {
        let (mut attrs, mut paths) = (Vec::new(), Vec::new());
        for op in &self.ops {
            if let Op::Load(loads) = op {
                for (_, k) in loads {
                    match k {
                        LoadKind::Attribute(n) | LoadKind::Implicit(n) | LoadKind::SortValue(n) => {
                            attrs.push(n.as_str())
                        }
                        LoadKind::Path(p) => paths.push(p.as_str()),
                        LoadKind::DocKey | LoadKind::Yielded(_) => {}
                    }
                }
            }
        }
        (attrs, paths)
    }

    /// Measures every step (FT.PROFILE): [`AggOutput::steps`].
    pub fn profiled(mut self) -> Plan {
        self.profiled = true;
        self
    }

    /// Runs the plan over the matching documents (`total_docs` of them).
    pub fn execute(
        self,
        docs: impl Iterator<Item = DocHit>,
        total_docs: u64,
        source: &dyn FieldLoader,
    ) -> Result<AggOutput, AggError> {
        let input = self.rows(docs);
        self.run(input, total_docs, source, None)
    }

    /// The pipeline's first rows: one per document.
    fn rows<'d>(&self, docs: impl Iterator<Item = DocHit> + 'd) -> Box<dyn Iterator<Item = Row> + 'd> {
        let width = self.root.names.len();
        let score_slot = self.score_slot;
        let mut read = 0u64;
        Box::new(docs.map(move |d| {
            read += 1;
            let mut row = Row {
                seq: read,
                values: vec![None; width],
                key: Some(d.key),
                doc_id: d.id,
                score: d.score,
                matched_terms: d.matched_terms,
                expired: false,
            };
            if let Some(s) = score_slot {
                row.set(s, Value::Number(d.score));
            }
            row
        }))
    }

    /// Runs the plan's steps over `input`; `groups`: the input is the groups of a GROUPBY
    /// already done (that many), which the plan's steps follow.
    fn run(
        mut self,
        mut input: Box<dyn Iterator<Item = Row> + '_>,
        total_docs: u64,
        source: &dyn FieldLoader,
        groups: Option<u64>,
    ) -> Result<AggOutput, AggError> {
        let mut total = groups.unwrap_or(total_docs);
        let mut grouped = groups.is_some();
        let mut blocking = groups.is_some();
        let ops = std::mem::take(&mut self.ops);
        let mut steps: Vec<StepStat> = if self.profiled {
            ops.iter().map(|op| StepStat { name: op.profile_name(), ..StepStat::default() }).collect()
        } else {
            Vec::new()
        };
        let mut batch: Vec<Op> = Vec::new();
        let mut first = 0;
        let mut state = ExecState { error: None, timeout: self.timeout, timed_out: false };
        for (at, op) in ops.into_iter().enumerate() {
            if !op.is_blocking() {
                batch.push(op);
                continue;
            }
            blocking |= !matches!(op, Op::Count);
            let (batch_steps, rest) = split_steps(&mut steps, first, at);
            let mut spent = Duration::ZERO;
            let rows = match op {
                Op::Sort { keys, limit } => {
                    let mut rows = Vec::new();
                    run_streaming(input, &batch, &mut self.root, source, &mut state, batch_steps, &mut |r| {
                        rows.push(r)
                    });
                    let t = Instant::now();
                    let (out, error) = sort_rows(rows, &keys, limit);
                    spent += t.elapsed();
                    if state.error.is_none() {
                        state.error = error;
                    }
                    out
                }
                Op::Group { keys, lists, reducers, width } => {
                    let mut grouper = Grouper::new(&keys, &reducers).lists(&lists);
                    let profiled = rest.is_some();
                    run_streaming(input, &batch, &mut self.root, source, &mut state, batch_steps, &mut |r| {
                        let t = profiled.then(Instant::now);
                        grouper.add(r);
                        spent += t.map_or(Duration::ZERO, |t| t.elapsed());
                    });
                    let t = Instant::now();
                    let out = grouper.finish(width);
                    spent += t.elapsed();
                    total = out.len() as u64;
                    grouped = true;
                    out
                }
                _ => {
                    run_streaming(
                        input,
                        &batch,
                        &mut self.root,
                        source,
                        &mut state,
                        batch_steps,
                        &mut |_| {},
                    );
                    Vec::new()
                }
            };
            if let Some(s) = rest {
                // LIMIT 0 0's counter passes on one result: the count.
                s.count = if s.name == "Counter" { 1 } else { rows.len() as u64 };
                s.time = spent;
            }
            batch.clear();
            first = at + 1;
            if state.timed_out && state.timeout.fails() {
                return Err(AggError::new(TIMEOUT_ERROR));
            }
            if let Some(e) = state.error {
                return Err(e);
            }
            input = Box::new(rows.into_iter());
        }
        let mut rows = Vec::new();
        let end = first + batch.len();
        let (batch_steps, _) = split_steps(&mut steps, first, end);
        run_streaming(input, &batch, &mut self.root, source, &mut state, batch_steps, &mut |r| rows.push(r));
        if state.timeout.check_end().is_err() {
            return Err(AggError::new(TIMEOUT_ERROR));
        }
        if let Some(e) = &state.error {
            if rows.is_empty() {
                return Err(e.clone());
            }
        }
        if !blocking {
            total = rows.first().map_or(total_docs, |r| r.seq);
        }
        let names = self.last.as_ref().unwrap_or(&self.root).names.clone();
        Ok(AggOutput {
            matched: total_docs,
            steps,
            names,
            rows: if self.count_only { Vec::new() } else { rows },
            total,
            warning: if state.timed_out {
                Some(TIMEOUT_ERROR.to_string())
            } else {
                state.error.map(|e| e.message)
            },
            grouped,
            blocking,
            count_only: self.count_only,
            sortkey: None,
            live_ids: false,
        })
    }
}

/// The statistics of the streaming steps `first..at` and of the blocking step `at` (when
/// profiling).
fn split_steps(
    steps: &mut [StepStat],
    first: usize,
    at: usize,
) -> (Option<&mut [StepStat]>, Option<&mut StepStat>) {
    if steps.is_empty() {
        return (None, None);
    }
    let (head, tail) = steps.split_at_mut(at.min(steps.len()));
    (head.get_mut(first..), tail.first_mut())
}

/// Runs LOAD/APPLY/FILTER/LIMIT row by row; stops at the first error
/// (recorded in `error`) or once every row a LIMIT can pass has passed.
fn run_streaming(
    input: Box<dyn Iterator<Item = Row> + '_>,
    ops: &[Op],
    root: &mut Lookup,
    source: &dyn FieldLoader,
    state: &mut ExecState,
    mut steps: Option<&mut [StepStat]>,
    sink: &mut dyn FnMut(Row),
) {
    let mut pages: Vec<(u64, u64)> = vec![(0, 0); ops.len()];
    let mut seen: u64 = 0;
    'rows: for mut row in input {
        seen += 1;
        if !state.timed_out && state.timeout.passed_at(seen, DEADLINE_CHECK_ROWS) {
            state.timed_out = true;
            break;
        }
        let mut exhausted = false;
        for (i, op) in ops.iter().enumerate() {
            let started = steps.is_some().then(Instant::now);
            match op {
                Op::Load(loads) => {
                    if let Some(key) = row.key.clone() {
                        let d = DocRef { key: &key, id: row.doc_id };
                        let mut loaded = false;
                        for (slot, kind) in loads {
                            // A property read finds a value LOAD * put in the row first, as
                            // RediSearch's `RLookup_GetItem` prefers the row's to the sorting
                            // vector's (`Hello`, not `hello`).
                            if matches!(kind, LoadKind::SortValue(_) | LoadKind::Implicit(_))
                                && row.get(*slot).is_some()
                            {
                                continue;
                            }
                            let v = match kind {
                                LoadKind::DocKey => Some(Value::bytes(&key)),
                                LoadKind::Attribute(n) => source.load(d, LoadRequest::Attribute(n)),
                                LoadKind::SortValue(n) => source.load(d, LoadRequest::SortValue(n)),
                                LoadKind::Implicit(n) => source.load(d, LoadRequest::Implicit(n)),
                                LoadKind::Path(p) => source.load(d, LoadRequest::Path(p)),
                                LoadKind::Yielded(n) => source.yielded_value(d, n),
                            };
                            if let Some(v) = v {
                                loaded |= !matches!(kind, LoadKind::DocKey | LoadKind::Yielded(_));
                                row.set(*slot, v);
                            }
                        }
                        // Nothing read: was the document there at all?
                        row.expired |= !loaded && source.gone(d);
                    }
                }
                Op::LoadAll => {
                    if let Some(key) = row.key.clone() {
                        let d = DocRef { key: &key, id: row.doc_id };
                        let all = source.load_all(d);
                        row.expired |= all.is_empty() && source.gone(d);
                        for (name, v) in all {
                            let slot = root.add(&name);
                            row.set(slot, v);
                        }
                    }
                }
                Op::Apply(e, slot) => match e.eval(&row) {
                    Ok(v) => row.set(*slot, v),
                    Err(err) => {
                        state.error = Some(err);
                        break 'rows;
                    }
                },
                Op::Filter(e) => match e.eval(&row) {
                    Ok(v) if v.truthy() => {}
                    Ok(_) => continue 'rows,
                    Err(err) => {
                        state.error = Some(err);
                        break 'rows;
                    }
                },
                Op::Page { offset, limit } => {
                    let (skipped, taken) = &mut pages[i];
                    if *skipped < *offset {
                        *skipped += 1;
                        continue 'rows;
                    }
                    if *taken >= *limit {
                        break 'rows;
                    }
                    *taken += 1;
                    exhausted |= *taken >= *limit;
                }
                Op::Sort { .. } | Op::Group { .. } | Op::Count => {}
            }
            if let (Some(s), Some(t)) = (steps.as_deref_mut().and_then(|s| s.get_mut(i)), started) {
                s.count += 1;
                s.time += t.elapsed();
            }
        }
        sink(row);
        if exhausted {
            break;
        }
    }
}
