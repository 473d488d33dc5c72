//! GROUPBY reducers (RediSearch `reducers/*.c`), one file each.
//!
//! Contract: [`build`] validates a `REDUCE name nargs args…` clause once per
//! query (argument-count and type errors worded as RediSearch's) and returns
//! a [`Reducer`]; the grouper asks it for one [`Accumulator`] per group, feeds
//! every row of the group with [`Accumulator::add`] and reads the result
//! with [`Accumulator::finish`].
//!
//! On a cluster a GROUPBY splits in two: each shard feeds its rows to accumulators from
//! [`Reducer::split_accumulator`] and sends [`Accumulator::partial`] per group; the node that
//! took the query folds the shards' partials of a group with [`Accumulator::merge`] into a
//! fresh split accumulator and reads [`Accumulator::finish`]. Every partial merges exactly:
//! counts and sums add, MIN/MAX compare, AVG is a sum and a count, STDDEV a count, mean and
//! sum of squared deviations (Chan's parallel update of Welford's), COUNT_DISTINCT, TOLIST
//! and QUANTILE their values, COUNT_DISTINCTISH its exact hashes or its HyperLogLog
//! registers, FIRST_VALUE its candidate with its sort value and document key, RANDOM_SAMPLE
//! its sample with the number of values it saw.

mod avg;
mod count;
mod count_distinct;
mod count_distinctish;
mod dict_order;
mod first_value;
mod minmax;
mod quantile;
mod random_sample;
mod stddev;
mod sum;
mod tolist;

use super::error::AggError;
use super::row::Row;
use super::value::Value;

/// A configured reducer: a factory of per-group accumulators.
pub trait Reducer: Send + Sync {
    /// A fresh accumulator for a new group.
    fn accumulator(&self) -> Box<dyn Accumulator>;
    /// A fresh accumulator for a group split over shards (see the module docs): the same as
    /// [`Reducer::accumulator`] except where a single server's result depends on the order
    /// rows come in (FIRST_VALUE's ties then go to the smallest document key).
    fn split_accumulator(&self) -> Box<dyn Accumulator> {
        self.accumulator()
    }
}

/// Per-group state of a reducer.
pub trait Accumulator: Send {
    /// Folds one row of the group in.
    fn add(&mut self, row: &Row);
    /// The group's result.
    fn finish(&mut self) -> Value;
    /// The state so far, for another node's [`Accumulator::merge`].
    fn partial(&mut self) -> Value;
    /// Folds in another accumulator's [`Accumulator::partial`] of the same group.
    fn merge(&mut self, partial: &Value);
}

/// Resolves a reducer's property argument (without `@`) to a row slot, or
/// fails with ``Property `x` not present in document or pipeline``.
pub type KeyResolver<'a> = dyn FnMut(&str) -> Result<usize, AggError> + 'a;

/// Builds the reducer `name` (case-insensitive) from its arguments; `seed`
/// makes RANDOM_SAMPLE deterministic per query.
pub fn build(
    name: &str,
    args: &[String],
    resolve: &mut KeyResolver<'_>,
    seed: u64,
) -> Result<Box<dyn Reducer>, AggError> {
    let mut a = ReducerArgs { name, args, at: 0 };
    let upper = name.to_ascii_uppercase();
    let r: Box<dyn Reducer> = match upper.as_str() {
        "COUNT" => count::build(&mut a)?,
        "COUNT_DISTINCT" => count_distinct::build(&mut a, resolve)?,
        "COUNT_DISTINCTISH" => count_distinctish::build(&mut a, resolve)?,
        "SUM" => sum::build(&mut a, resolve)?,
        "AVG" => avg::build(&mut a, resolve)?,
        "MIN" => minmax::build_min(&mut a, resolve)?,
        "MAX" => minmax::build_max(&mut a, resolve)?,
        "STDDEV" => stddev::build(&mut a, resolve)?,
        "QUANTILE" => quantile::build(&mut a, resolve)?,
        "TOLIST" => tolist::build(&mut a, resolve)?,
        "FIRST_VALUE" => first_value::build(&mut a, resolve)?,
        "RANDOM_SAMPLE" => random_sample::build(&mut a, resolve, seed)?,
        _ => return Err(AggError::new(format!("No such reducer: {name}"))),
    };
    Ok(r)
}

/// The default output name of a reducer without AS:
/// `__generated_alias` + lower-cased name and arguments (without `@`).
pub fn default_alias(name: &str, args: &[String]) -> String {
    let mut out = String::from("__generated_alias");
    out.push_str(name);
    let stripped: Vec<&str> = args.iter().map(|a| a.trim_start_matches('@')).collect();
    out.push_str(&stripped.join(","));
    out.to_ascii_lowercase()
}

/// A cursor over one reducer's arguments.
pub(crate) struct ReducerArgs<'a> {
    name: &'a str,
    args: &'a [String],
    at: usize,
}

impl ReducerArgs<'_> {
    /// `ReducerOpts_GetKey`: the next argument as a property slot.
    fn key(&mut self, resolve: &mut KeyResolver<'_>) -> Result<usize, AggError> {
        let Some(s) = self.args.get(self.at) else {
            return Err(AggError::new(format!("Missing arguments for {}", self.name)));
        };
        self.at += 1;
        resolve(s.strip_prefix('@').unwrap_or(s))
    }

    /// The next argument if it equals `word` (case-insensitive).
    fn advance_if(&mut self, word: &str) -> bool {
        match self.args.get(self.at) {
            Some(s) if s.eq_ignore_ascii_case(word) => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    fn at_end(&self) -> bool {
        self.at >= self.args.len()
    }

    /// The next argument as a double (`AC_GetDouble`), errors named `what`.
    fn double(&mut self, what: &str) -> Result<f64, AggError> {
        let s = self.args.get(self.at).ok_or_else(|| bad_args(what, NOARG))?;
        let v = s.trim().parse::<f64>().map_err(|_| bad_args(what, PARSE))?;
        self.at += 1;
        Ok(v)
    }

    /// The next argument as an unsigned integer (`AC_GetUnsigned`).
    fn unsigned(&mut self, what: &str) -> Result<u64, AggError> {
        let s = self.args.get(self.at).ok_or_else(|| bad_args(what, NOARG))?;
        let v = s.parse::<u64>().map_err(|_| bad_args(what, PARSE))?;
        self.at += 1;
        Ok(v)
    }

    /// `ReducerOpts_EnsureArgsConsumed`.
    fn ensure_consumed(&self) -> Result<(), AggError> {
        match self.args.get(self.at) {
            None => Ok(()),
            Some(s) => Err(AggError::new(format!(
                "Unknown argument `{s}` at position {} for {}",
                self.at, self.name
            ))),
        }
    }
}

/// `AC_Strerror(AC_ERR_NOARG)`.
pub(crate) const NOARG: &str = "Expected an argument, but none provided";
/// `AC_Strerror(AC_ERR_PARSE)`.
pub(crate) const PARSE: &str = "Could not convert argument to expected type";

/// `QERR_MKBADARGS_AC`: `Bad arguments for <what>: <reason>`.
pub(crate) fn bad_args(what: &str, reason: &str) -> AggError {
    AggError::new(format!("Bad arguments for {what}: {reason}"))
}

/// Builds a one-property reducer whose accumulator is `make(slot)`.
fn single_key<A, F>(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
    make: F,
) -> Result<Box<dyn Reducer>, AggError>
where
    A: Accumulator + 'static,
    F: Fn(usize) -> A + Send + Sync + 'static,
{
    let slot = a.key(resolve)?;
    a.ensure_consumed()?;
    Ok(Box::new(FnReducer(move || Box::new(make(slot)) as Box<dyn Accumulator>)))
}

/// A reducer defined by its accumulator constructor.
struct FnReducer<F>(F);

impl<F> Reducer for FnReducer<F>
where
    F: Fn() -> Box<dyn Accumulator> + Send + Sync,
{
    fn accumulator(&self) -> Box<dyn Accumulator> {
        (self.0)()
    }
}

/// A partial's number (0 for anything else).
fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => *n,
        _ => 0.0,
    }
}

/// A partial's elements (none for anything but an array).
fn items(v: &Value) -> &[Value] {
    match v {
        Value::Array(items) => items,
        _ => &[],
    }
}

/// Calls `f` on each number of a value (each element of an array).
fn for_each_number(v: &Value, mut f: impl FnMut(f64)) {
    match v {
        Value::Array(items) => items.iter().filter_map(Value::to_number).for_each(f),
        other => {
            if let Some(n) = other.to_number() {
                f(n)
            }
        }
    }
}
