//! `JSON.NUMINCRBY`, `JSON.NUMMULTBY`, `JSON.NUMPOWBY`: arithmetic on every numeric match.
//!
//! Integer ⊕ integer stays an integer: an `i64` result, or a `u64` one when an operand already was
//! above `i64::MAX`; anything else overflows with `ERR numeric overflow` (RedisJSON 8's rule;
//! RedisJSON 2.x wraps silently); anything involving a float is
//! computed in `f64` and stays a float (`3.0`), and a non-finite result is
//! `ERR result is not a number`. `NUMPOWBY` with a negative integer exponent is computed in `f64`.
//! The argument is parsed only when some match is a number, as RedisJSON does: invalid JSON is
//! `ERR <parse error>`, other JSON is `bad input number`.

use super::{application_order, matches, OpError, Outcome};
use crate::path::location::set_num_at;
use crate::path::JsonPath;
use crate::{Num, Value};

/// The arithmetic of one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumOp {
    /// `JSON.NUMINCRBY`: `x + n`.
    Incr,
    /// `JSON.NUMMULTBY`: `x * n`.
    Mult,
    /// `JSON.NUMPOWBY`: `x ^ n`.
    Pow,
}

/// `JSON.NUMINCRBY root path number`.
pub fn num_incr_by(root: &mut Value, path: &JsonPath, number: &str) -> Result<Outcome<Num>, OpError> {
    num_op(root, path, number, NumOp::Incr)
}

/// `JSON.NUMMULTBY root path number`.
pub fn num_mult_by(root: &mut Value, path: &JsonPath, number: &str) -> Result<Outcome<Num>, OpError> {
    num_op(root, path, number, NumOp::Mult)
}

/// `JSON.NUMPOWBY root path number`.
pub fn num_pow_by(root: &mut Value, path: &JsonPath, number: &str) -> Result<Outcome<Num>, OpError> {
    num_op(root, path, number, NumOp::Pow)
}

/// Applies `op` with the argument text `number` to every numeric match: one slot per match
/// (`None` for non-numbers) holding the new value. A legacy path with no numeric match fails
/// with `ERR Path '<path>' does not exist or does not contains a number` (sic).
pub fn num_op(root: &mut Value, path: &JsonPath, number: &str, op: NumOp) -> Result<Outcome<Num>, OpError> {
    let found = matches(root, path, Value::is_number);
    let order = application_order(&found);
    if order.is_empty() {
        if path.is_legacy() {
            return Err(OpError::path_missing_or(path.converted(), "does not contains a number"));
        }
        return Ok(Outcome { results: vec![None; found.len()], changed: false });
    }
    let arg = parse_number(number)?;
    // Compute everything first (a duplicated location sees the previous result), then write.
    // When several matches fail, the first match's error is reported (RedisJSON applies the
    // matches in order and stops at the first failure).
    let mut results: Vec<Option<Num>> = vec![None; found.len()];
    let mut previous: Option<(usize, Num)> = None;
    let mut first_error: Option<(usize, OpError)> = None;
    for &i in &order {
        let current = match previous {
            Some((p, n)) if found[p].0 == found[i].0 => Some(n),
            _ => crate::path::location::resolve(root, &found[i].0).and_then(|v| v.as_num()),
        };
        let Some(current) = current else { continue };
        match apply(op, current, arg) {
            Ok(new) => {
                results[i] = Some(new);
                previous = Some((i, new));
            }
            Err(e) => {
                if first_error.as_ref().is_none_or(|(j, _)| i < *j) {
                    first_error = Some((i, e));
                }
            }
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    for &i in &order {
        if let Some(new) = results[i] {
            // An FPHA array stores the result rounded: reply what is stored.
            if let Some(stored) = set_num_at(root, &found[i].0, new) {
                results[i] = Some(stored);
            }
        }
    }
    Ok(Outcome { results, changed: true })
}

/// The command's number argument: a JSON number.
fn parse_number(text: &str) -> Result<Num, OpError> {
    match Value::parse(text.as_bytes()) {
        Ok(v) => v.as_num().ok_or_else(|| OpError::text("bad input number")),
        Err(e) => Err(OpError::text(&format!("ERR {e}"))),
    }
}

/// `current op arg` with the integer/float rules of this module.
pub fn apply(op: NumOp, current: Num, arg: Num) -> Result<Num, OpError> {
    if let (Some(a), Some(b)) = (int(current), int(arg)) {
        let exact = match op {
            NumOp::Incr => a.checked_add(b),
            NumOp::Mult => a.checked_mul(b),
            NumOp::Pow if b < 0 => return float(op, current, arg),
            NumOp::Pow => int_pow(a, b),
        };
        // An i64 result must stay an i64 (RedisJSON 8: `ERR numeric overflow`); only a number
        // that was already above i64::MAX may give a u64 result.
        let wide = matches!(current, Num::U64(_)) || matches!(arg, Num::U64(_));
        return exact.and_then(|n| to_num(n, wide)).ok_or_else(|| OpError::text("ERR numeric overflow"));
    }
    float(op, current, arg)
}

fn float(op: NumOp, current: Num, arg: Num) -> Result<Num, OpError> {
    let (a, b) = (current.as_f64(), arg.as_f64());
    let r = match op {
        NumOp::Incr => a + b,
        NumOp::Mult => a * b,
        NumOp::Pow => a.powf(b),
    };
    if r.is_finite() {
        Ok(Num::F64(r))
    } else {
        Err(OpError::text("ERR result is not a number"))
    }
}

fn int(n: Num) -> Option<i128> {
    match n {
        Num::I64(i) => Some(i128::from(i)),
        Num::U64(u) => Some(i128::from(u)),
        Num::F64(_) => None,
    }
}

/// `a ^ b` for `b >= 0`, `None` beyond `i128`.
fn int_pow(a: i128, b: i128) -> Option<i128> {
    match a {
        0 | 1 => Some(if b == 0 { 1 } else { a }),
        -1 => Some(if b % 2 == 0 { 1 } else { -1 }),
        _ => a.checked_pow(u32::try_from(b).ok()?),
    }
}

/// An exact integer as a stored number: `i64`, else (when `wide`) `u64`, else `None` (overflow).
fn to_num(n: i128, wide: bool) -> Option<Num> {
    if let Ok(i) = i64::try_from(n) {
        Some(Num::I64(i))
    } else if wide {
        u64::try_from(n).ok().map(Num::U64)
    } else {
        None
    }
}
