//! JSON.* command semantics as pure functions over a document: `(&mut Value, &JsonPath, args)`.
//!
//! One file per family: [`set`] (SET, MERGE), [`del`], [`num`] (NUMINCRBY, NUMMULTBY,
//! NUMPOWBY), [`string`] (STRAPPEND, STRLEN), [`array`](mod@array) (ARRAPPEND, ARRINDEX, ARRINSERT,
//! ARRLEN, ARRPOP, ARRTRIM), [`object`] (OBJKEYS, OBJLEN), [`clear`], [`toggle`].
//!
//! Result conventions (the glue in `src/commands/json.rs` turns them into replies):
//! - Per-match results are `Vec<Option<T>>`, one slot per match in match order; `None` marks a
//!   match of the wrong type. A JSONPath reply is that list (`[]` when nothing matched).
//! - Legacy paths: the op has already applied RedisJSON's legacy error rules, so the reply is
//!   [`Outcome::last`] for writes (the last match of the right type) and the first slot for
//!   reads (`[]` means a nil reply, e.g. `JSON.OBJLEN` of a missing path).
//! - Writes return an [`Outcome`] whose `changed` is RedisJSON's "notify and replicate"
//!   condition; the glue emits the keyspace event and replicates only then.
//! - Errors are [`OpError`]s holding RedisJSON 2.8.3's exact text. Errors are detected before
//!   anything is modified: an op either fails with the document untouched or applies fully.
//! - Several matches are mutated deepest-first and highest-index-first
//!   ([`crate::path::location::mutation_order`]) so that a change never moves a location that
//!   is still to be changed; `SET`, `MERGE` and `DEL` touch only the top-most of nested matches.
//! - The key-level rules (missing key, `new objects must be created at the root`, deleting the
//!   key for a root `DEL`) belong to the glue. `JSON.MSET` validates every key first with
//!   [`set::plan_set`] and then applies the plans ([`set::SetPlan::apply`]).

pub mod array;
pub mod clear;
pub mod del;
mod error;
pub mod num;
pub mod object;
pub mod set;
pub mod string;
pub mod toggle;

pub use error::OpError;

use crate::path::location::{is_proper_prefix, mutation_order, resolve_mut};
use crate::path::{JsonPath, Location};
use crate::Value;

/// What a write op did at each match, and whether the document changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome<T> {
    /// One slot per match, in match order; `None` for a match of the wrong type.
    pub results: Vec<Option<T>>,
    /// True when the glue must notify and replicate.
    pub changed: bool,
}

impl<T> Outcome<T> {
    /// The last result of a right-typed match: the reply for a legacy path.
    pub fn last(&self) -> Option<&T> {
        self.results.iter().rev().find_map(Option::as_ref)
    }
}

/// The matches of `path` with their locations, each flagged by `accept` (the type check).
fn matches(root: &Value, path: &JsonPath, accept: impl Fn(&Value) -> bool) -> Vec<(Location, bool)> {
    path.select_located(root).into_iter().map(|(loc, v)| (loc, accept(&v))).collect()
}

/// Indices of the accepted matches, in mutation order (stable: duplicates keep match order).
fn application_order(found: &[(Location, bool)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..found.len()).filter(|&i| found[i].1).collect();
    order.sort_by(|&a, &b| mutation_order(&found[a].0, &found[b].0));
    order
}

/// Applies `f` to each accepted match in mutation order; results come back in match order.
fn apply<T>(
    root: &mut Value,
    found: &[(Location, bool)],
    mut f: impl FnMut(&mut Value) -> Option<T>,
) -> Vec<Option<T>> {
    let mut results: Vec<Option<T>> = found.iter().map(|_| None).collect();
    for i in application_order(found) {
        if let (Some(node), Some(slot)) = (resolve_mut(root, &found[i].0), results.get_mut(i)) {
            *slot = f(node);
        }
    }
    results
}

/// The distinct locations that are not inside another one (for SET, MERGE, DEL), in mutation
/// order.
fn top_most(mut locations: Vec<Location>) -> Vec<Location> {
    // Document order puts an ancestor right before its (contiguous) descendants.
    locations.sort_by(|a, b| mutation_order(b, a));
    locations.dedup();
    let mut kept: Vec<Location> = Vec::with_capacity(locations.len());
    for loc in locations {
        if !kept.last().is_some_and(|k| is_proper_prefix(k, &loc)) {
            kept.push(loc);
        }
    }
    kept.reverse();
    kept
}
