//! Per-row evaluation of a bound expression tree.
//!
//! Contract (RediSearch `expression.c`): a property without a value is an
//! error (`x: has no value, consider using EXISTS if applicable`) except as
//! the direct argument of `exists()`; arithmetic needs numbers
//! (`Could not convert value to a number`), `/` and `%` by zero give NaN;
//! comparisons return 0/1 and a number compared with a non-numeric string is
//! an error; `&&`/`||` short-circuit; `case()` evaluates one branch only.

use std::cmp::Ordering;

use super::ast::{ArithOp, ExprAst, PredOp};
use super::functions::{self, Function};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

/// Evaluates `e` against `row`.
pub fn eval(e: &ExprAst, row: &Row) -> Result<Value, AggError> {
    match e {
        ExprAst::Literal(v) => Ok(v.clone()),
        // (Binding fails first: never reached for a bound tree.)
        ExprAst::Missing(message) => Err(AggError::new(message.clone())),
        ExprAst::Property { name, slot } => match slot.and_then(|s| row.get(s)) {
            Some(v) => Ok(v.clone()),
            None => Err(missing(name)),
        },
        ExprAst::Arith(op, l, r) => {
            let a = eval(l, row)?;
            let b = eval(r, row)?;
            match (a.to_number(), b.to_number()) {
                (Some(x), Some(y)) => Ok(Value::Number(arith(*op, x, y))),
                _ => Err(AggError::new("Could not convert value to a number")),
            }
        }
        ExprAst::Pred(op, l, r) => predicate(*op, l, r, row),
        ExprAst::Not(c) => Ok(bool_value(!eval(c, row)?.truthy())),
        // Redis 8.2's `case(cond, a, b)` (backported to late 2.10): only the branch taken is
        // evaluated, so `case(exists(@x), @x, 'none')` reads a missing `@x` without failing.
        ExprAst::Call(Function::Case, args) => {
            let [cond, then, otherwise] = args.as_slice() else {
                return Err(AggError::new("Function `case()` requires exactly 3 arguments"));
            };
            if eval(cond, row)?.truthy() {
                eval(then, row)
            } else {
                eval(otherwise, row)
            }
        }
        ExprAst::Call(Function::Exists, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                // A property: whether the row has it (a NULL value counts); anything
                // else: 1 once evaluated (RediSearch passes it by reference).
                vals.push(match a {
                    ExprAst::Property { slot, .. } => match slot.and_then(|s| row.get(s)) {
                        Some(_) => Value::Number(1.0),
                        None => Value::Null,
                    },
                    other => {
                        eval(other, row)?;
                        Value::Number(1.0)
                    }
                });
            }
            functions::call(Function::Exists, &vals, row)
        }
        ExprAst::Call(f, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(eval(a, row)?);
            }
            functions::call(*f, &vals, row)
        }
    }
}

/// The error for a property that has no value in the row.
pub fn missing(name: &str) -> AggError {
    AggError::new(format!("{name}: has no value, consider using EXISTS if applicable"))
}

fn bool_value(b: bool) -> Value {
    Value::Number(if b { 1.0 } else { 0.0 })
}

fn arith(op: ArithOp, x: f64, y: f64) -> f64 {
    match op {
        ArithOp::Add => x + y,
        ArithOp::Sub => x - y,
        ArithOp::Mul => x * y,
        ArithOp::Div => {
            if y != 0.0 {
                x / y
            } else {
                f64::NAN
            }
        }
        ArithOp::Mod => {
            // C: (long long)x % (long long)y, with RediSearch's -1 special case.
            if y == -1.0 {
                0.0
            } else {
                let (a, b) = (c_llong(x), c_llong(y));
                if b == 0 {
                    f64::NAN
                } else {
                    a.wrapping_rem(b) as f64
                }
            }
        }
        ArithOp::Pow => x.powf(y),
    }
}

/// C's `(long long)d` on x86 (`cvttsd2si`): truncation, and `LLONG_MIN` for NaN,
/// infinities and values outside `long long` (Rust's `as` saturates instead).
fn c_llong(d: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if d.is_nan() || !(-LIMIT..LIMIT).contains(&d) {
        i64::MIN
    } else {
        d as i64
    }
}

fn predicate(op: PredOp, l: &ExprAst, r: &ExprAst, row: &Row) -> Result<Value, AggError> {
    let a = eval(l, row)?;
    match op {
        PredOp::Or if a.truthy() => return Ok(bool_value(true)),
        PredOp::And if !a.truthy() => return Ok(bool_value(false)),
        _ => {}
    }
    let b = eval(r, row)?;
    let cmp = |a: &Value, b: &Value| a.compare(b).map_err(|e| AggError::new(e.0));
    let res = match op {
        PredOp::Eq => a.loose_eq(&b),
        PredOp::Ne => !a.loose_eq(&b),
        PredOp::Lt => cmp(&a, &b)? == Ordering::Less,
        PredOp::Le => cmp(&a, &b)? != Ordering::Greater,
        PredOp::Gt => cmp(&a, &b)? == Ordering::Greater,
        PredOp::Ge => cmp(&a, &b)? != Ordering::Less,
        PredOp::And | PredOp::Or => b.truthy(),
    };
    Ok(bool_value(res))
}
