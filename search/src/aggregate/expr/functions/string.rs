//! String functions (RediSearch `string.c`): `upper lower startswith contains
//! strlen substr format split matched_terms to_number to_str exists`.
//!
//! Contract: byte semantics as in C (ASCII case mapping, byte lengths);
//! argument errors worded as RediSearch's `VALIDATE_*` macros word them.

use std::sync::Arc;

use super::{check_arity, number_arg, string_arg};
use crate::aggregate::error::AggError;
use crate::aggregate::limits::{MAX_MATCHED_TERMS, MAX_SPLIT_VALUES};
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

/// `upper(s)` / `lower(s)`: a non-string gives NULL.
pub(super) fn case_map(name: &str, args: &[Value], f: fn(&u8) -> u8) -> Result<Value, AggError> {
    check_arity(name, args, 1, 1)?;
    // `RSValue_StringPtrLen`: a duo's string is its first value's.
    Ok(match args[0].primary() {
        Value::String(s) => Value::String(s.iter().map(f).collect::<Vec<u8>>().into()),
        _ => Value::Null,
    })
}

/// `startswith(s, prefix)` → 1 or 0.
pub(super) fn startswith(args: &[Value]) -> Result<Value, AggError> {
    check_arity("startswith", args, 2, 2)?;
    let s = string_arg("startswith", args, 0)?;
    let p = string_arg("startswith", args, 1)?;
    Ok(Value::Number(if s.starts_with(p) { 1.0 } else { 0.0 }))
}

/// `contains(s, needle)` → number of (overlapping) occurrences; an empty
/// needle gives `strlen(s) + 1`.
pub(super) fn contains(args: &[Value]) -> Result<Value, AggError> {
    check_arity("contains", args, 2, 2)?;
    let s = string_arg("contains", args, 0)?;
    let p = string_arg("contains", args, 1)?;
    let n = if p.is_empty() { s.len() + 1 } else { s.windows(p.len()).filter(|w| *w == p).count() };
    Ok(Value::Number(n as f64))
}

/// `strlen(s)` in bytes.
pub(super) fn strlen(args: &[Value]) -> Result<Value, AggError> {
    check_arity("strlen", args, 1, 1)?;
    Ok(Value::Number(string_arg("strlen", args, 0)?.len() as f64))
}

/// `substr(s, offset, count)`: negative offset counts from the end; a
/// negative count stops that many bytes before the end (RediSearch's
/// arithmetic: `count = len - offset + count`). As its C does: both numbers are
/// cast to `int` (x86: NaN, ±inf and out-of-range values become `INT_MIN`), and
/// its `MAX(0, MIN(offset, sz))` compares unsigned, so an offset still negative
/// after counting from the end (`substr(@t, -1000, 2)`) is the end: `""`.
pub(super) fn substr(args: &[Value]) -> Result<Value, AggError> {
    check_arity("substr", args, 3, 3)?;
    let off = number_arg("substr", args, 1)?;
    let cnt = number_arg("substr", args, 2)?;
    let Value::String(s) = &args[0] else {
        return Err(AggError::new("Invalid type for substr. Expected string"));
    };
    let sz = s.len() as i64;
    let mut offset = c_int(off);
    let mut len = c_int(cnt);
    if offset < 0 {
        offset += sz;
    }
    offset = if offset < 0 { sz } else { offset.min(sz) };
    if len < 0 {
        len = (sz - offset + len).max(0);
    }
    if offset + len > sz {
        len = sz - offset;
    }
    let (a, b) = (offset as usize, (offset + len) as usize);
    Ok(Value::bytes(s.get(a..b).unwrap_or_default()))
}

/// C's `(int)d` on x86 (`cvttsd2si`): truncation, and `INT_MIN` for NaN, infinities
/// and values outside `int`.
fn c_int(d: f64) -> i64 {
    let t = d.trunc();
    if t.is_nan() || t < f64::from(i32::MIN) || t > f64::from(i32::MAX) {
        i64::from(i32::MIN)
    } else {
        t as i64
    }
}

/// `format(fmt, args…)`: only `%s` and `%%`.
pub(super) fn format(args: &[Value]) -> Result<Value, AggError> {
    if args.is_empty() {
        return Err(AggError::new("Need at least one argument for format"));
    }
    let fmt = string_arg("format", args, 0)?;
    let mut out = Vec::with_capacity(fmt.len());
    let mut next = 1;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&spec) = fmt.get(i + 1) else {
            return Err(AggError::new("Bad format string!"));
        };
        i += 2;
        if spec == b'%' {
            out.push(b'%');
            continue;
        }
        let Some(arg) = args.get(next) else {
            return Err(AggError::new("Not enough arguments for format"));
        };
        next += 1;
        if spec != b's' {
            return Err(AggError::new("Unknown format specifier passed"));
        }
        match arg {
            Value::Null => out.extend_from_slice(b"(null)"),
            other => out.extend_from_slice(&other.to_text()),
        }
    }
    Ok(Value::bytes(&out))
}

/// `split(s [, separators=","] [, strip=" "])`: any byte of `separators`
/// splits; tokens are trimmed of `strip` bytes; empty tokens are dropped.
pub(super) fn split(args: &[Value]) -> Result<Value, AggError> {
    if args.is_empty() || args.len() > 3 {
        return Err(AggError::new("Invalid number of arguments for split"));
    }
    let s = string_arg("split", args, 0)?;
    let sep: &[u8] = if args.len() >= 2 { string_arg("split", args, 1)? } else { b"," };
    let strip: &[u8] = if args.len() == 3 { string_arg("split", args, 2)? } else { b" " };
    let mut out = Vec::new();
    for tok in s.split(|b| sep.contains(b)) {
        if out.len() >= MAX_SPLIT_VALUES {
            break;
        }
        let start = tok.iter().position(|b| !strip.contains(b)).unwrap_or(tok.len());
        let end = tok.iter().rposition(|b| !strip.contains(b)).map_or(start, |e| e + 1);
        if end > start {
            out.push(Value::bytes(&tok[start..end]));
        }
    }
    Ok(Value::Array(Arc::from(out)))
}

/// `matched_terms([max=100])`: the query terms that matched, or NULL.
pub(super) fn matched_terms(args: &[Value], row: &Row) -> Result<Value, AggError> {
    let mut max = 0usize;
    if let [arg] = args {
        if let Some(d) = arg.to_number() {
            if d > 0.0 {
                max = d as usize;
            }
        }
    }
    if max == 0 {
        max = MAX_MATCHED_TERMS;
    }
    max = max.min(MAX_MATCHED_TERMS);
    match &row.matched_terms {
        Some(terms) if !terms.is_empty() => {
            Ok(Value::array(terms.iter().take(max).map(|t| Value::str(t)).collect()))
        }
        _ => Ok(Value::Null),
    }
}

/// `to_number(x)`: strings that are numbers convert; others are an error.
pub(super) fn to_number(args: &[Value]) -> Result<Value, AggError> {
    check_arity("to_number", args, 1, 1)?;
    match args[0].to_number() {
        Some(n) => Ok(Value::Number(n)),
        None => {
            let shown = match &args[0] {
                Value::String(s) => String::from_utf8_lossy(s).into_owned(),
                _ => "(null)".to_string(),
            };
            Err(AggError::new(format!("to_number: cannot convert string '{shown}'")))
        }
    }
}

/// `to_str(x)`: numbers as RediSearch prints them; NULL as "".
pub(super) fn to_str(args: &[Value]) -> Result<Value, AggError> {
    check_arity("to_str", args, 1, 1)?;
    Ok(match &args[0] {
        s @ Value::String(_) => s.clone(),
        other => Value::bytes(&other.to_text()),
    })
}

/// `exists(x)`: the evaluator passes `Some(())`/`None` for a property argument
/// (whether the row has it); any other argument evaluated without error is 1,
/// as in RediSearch, where only a property without a value reaches
/// `func_exists` as NULL (`exists(NULL)` and `exists(upper(5))` are 1).
pub(super) fn exists(args: &[Value]) -> Result<Value, AggError> {
    check_arity("exists", args, 1, 1)?;
    Ok(Value::Number(if args[0].is_null() { 0.0 } else { 1.0 }))
}
