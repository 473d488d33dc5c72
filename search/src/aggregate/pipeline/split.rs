//! A plan split at its first GROUPBY, for a cluster: each shard runs the steps up to that
//! GROUPBY over its own documents and sends its groups with their reducers' partials
//! ([`Plan::execute_partial`]); the node that took the query merges the shards' groups, ends
//! the reducers and runs the remaining steps ([`Plan::execute_merged`]). Only a plan whose
//! steps before the GROUPBY go row by row (LOAD, APPLY, FILTER) splits: a SORTBY or LIMIT
//! there needs every shard's rows ([`Plan::split_point`]).

use super::{ExecState, Op, Plan, TIMEOUT_ERROR};
use crate::aggregate::error::AggError;
use crate::aggregate::group::{Grouper, PartialGroup};
use crate::aggregate::pipeline::{run_streaming, DocHit, FieldLoader};

impl Plan {
    /// The step at which the plan splits: its first GROUPBY, when every step before it goes
    /// row by row.
    pub fn split_point(&self) -> Option<usize> {
        let at = self.ops.iter().position(|op| matches!(op, Op::Group { .. }))?;
        self.ops[..at]
            .iter()
            .all(|op| matches!(op, Op::Load(_) | Op::LoadAll | Op::Apply(..) | Op::Filter(_)))
            .then_some(at)
    }

    /// A shard's part: the steps up to the first GROUPBY over `docs`, and that GROUPBY's
    /// groups with their reducers' partials, in first-seen order.
    pub fn execute_partial(
        mut self,
        docs: impl Iterator<Item = DocHit>,
        source: &dyn FieldLoader,
    ) -> Result<Vec<PartialGroup>, AggError> {
        let at = self.split_point().ok_or_else(|| AggError::new("the pipeline does not split"))?;
        let input = self.rows(docs);
        let mut ops = std::mem::take(&mut self.ops);
        let rest = ops.split_off(at);
        let Some(Op::Group { keys, lists, reducers, .. }) = rest.first() else {
            return Err(AggError::new("the pipeline does not split"));
        };
        let mut grouper = Grouper::new(keys, reducers).lists(lists).split();
        let mut state = ExecState { error: None, timeout: self.timeout, timed_out: false };
        run_streaming(input, &ops, &mut self.root, source, &mut state, None, &mut |r| grouper.add(r));
        if state.timed_out && state.timeout.fails() {
            return Err(AggError::new(TIMEOUT_ERROR));
        }
        if let Some(e) = state.error {
            return Err(e);
        }
        Ok(grouper.finish_partial())
    }

    /// The node's part: the shards' groups of the first GROUPBY merged (groups in the order
    /// they first come), then the steps after it; `total_docs`: the documents all shards
    /// matched.
    pub fn execute_merged<'g>(
        mut self,
        groups: impl Iterator<Item = &'g PartialGroup>,
        total_docs: u64,
        source: &dyn FieldLoader,
    ) -> Result<super::AggOutput, AggError> {
        let at = self.split_point().ok_or_else(|| AggError::new("the pipeline does not split"))?;
        let mut ops = std::mem::take(&mut self.ops);
        self.ops = ops.split_off(at + 1);
        let Some(Op::Group { keys, reducers, width, .. }) = ops.pop() else {
            return Err(AggError::new("the pipeline does not split"));
        };
        let mut grouper = Grouper::new(&keys, &reducers).split();
        for g in groups {
            grouper.merge(g);
        }
        let rows = grouper.finish(width);
        let n = rows.len() as u64;
        self.run(Box::new(rows.into_iter()), total_docs, source, Some(n))
    }
}
