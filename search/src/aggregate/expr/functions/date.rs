//! Date functions (RediSearch `date.c`): `timefmt parsetime hour minute day
//! month dayofweek dayofmonth dayofyear year monthofyear`, all in UTC.
//!
//! Contract: a value that is not a number (or is negative, for the rounding
//! and extraction functions) gives NULL rather than an error; rounding uses
//! exact calendar arithmetic (RediSearch's `fast_timegm` drifts after 2100).

use super::time::{days_from_civil, gmtime, strftime, strptime, timegm, Tm};
use super::{check_arity, string_arg};
use crate::aggregate::error::AggError;
use crate::aggregate::limits::MAX_TIMEFMT_OUTPUT;
use crate::aggregate::value::Value;

const ISO_FORMAT: &[u8] = b"%FT%TZ";
/// Largest |timestamp| converted (beyond it C's `time_t` cast is undefined).
const MAX_TIMESTAMP: f64 = 6.7e16;

/// `timefmt(ts [, fmt="%FT%TZ"])`.
pub(super) fn timefmt(args: &[Value]) -> Result<Value, AggError> {
    check_arity("time", args, 1, 2)?;
    let fmt: &[u8] = match args.get(1) {
        None => ISO_FORMAT,
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(AggError::new(format!(
                "Invalid type ({}) for argument 1 in function 'time'. VALIDATE_ARG__TYPE(v, RSValue_String) was false.",
                other.type_code()
            )))
        }
    };
    let Some(tm) = to_tm(&args[0], true) else {
        return Ok(Value::Null);
    };
    Ok(strftime(fmt, &tm, MAX_TIMEFMT_OUTPUT).map_or(Value::Null, |s| Value::bytes(&s)))
}

/// `parsetime(str, fmt)` → timestamp, or NULL when the text does not match.
pub(super) fn parsetime(args: &[Value]) -> Result<Value, AggError> {
    check_arity("parsetime", args, 2, 2)?;
    let s = string_arg("parsetime", args, 0)?;
    let fmt = string_arg("parsetime", args, 1)?;
    Ok(strptime(s, fmt).map_or(Value::Null, |tm| Value::Number(timegm(&tm) as f64)))
}

/// The timestamp as broken-down time; `allow_negative` for `timefmt`.
fn to_tm(v: &Value, allow_negative: bool) -> Option<Tm> {
    let d = v.to_number()?;
    if d.is_nan() || d.abs() > MAX_TIMESTAMP || (!allow_negative && d < 0.0) {
        return None;
    }
    gmtime(d.trunc() as i64)
}

fn extract(name: &str, args: &[Value], f: fn(&Tm) -> f64) -> Result<Value, AggError> {
    check_arity(name, args, 1, 1)?;
    Ok(to_tm(&args[0], false).map_or(Value::Null, |tm| Value::Number(f(&tm))))
}

/// `hour(ts)`: start of the hour.
pub(super) fn hour(args: &[Value]) -> Result<Value, AggError> {
    extract("hour", args, |tm| timegm(&Tm { min: 0, sec: 0, ..*tm }) as f64)
}

/// `minute(ts)`: start of the minute.
pub(super) fn minute(args: &[Value]) -> Result<Value, AggError> {
    check_arity("minute", args, 1, 1)?;
    match args[0].to_number() {
        Some(d) if d >= 0.0 => Ok(Value::Number((d - d % 60.0).floor())),
        _ => Ok(Value::Null),
    }
}

/// `day(ts)`: start of the day.
pub(super) fn day(args: &[Value]) -> Result<Value, AggError> {
    extract("day", args, |tm| timegm(&Tm { hour: 0, min: 0, sec: 0, ..*tm }) as f64)
}

/// `month(ts)`: start of the month.
pub(super) fn month(args: &[Value]) -> Result<Value, AggError> {
    extract("month", args, |tm| (days_from_civil(tm.year, tm.mon + 1, 1) * 86_400) as f64)
}

/// `dayofweek(ts)`: Sunday = 0.
pub(super) fn dayofweek(args: &[Value]) -> Result<Value, AggError> {
    extract("dayofweek", args, |tm| tm.wday as f64)
}

/// `dayofmonth(ts)`: 1–31.
pub(super) fn dayofmonth(args: &[Value]) -> Result<Value, AggError> {
    extract("dayofmonth", args, |tm| tm.mday as f64)
}

/// `dayofyear(ts)`: 0–365.
pub(super) fn dayofyear(args: &[Value]) -> Result<Value, AggError> {
    extract("dayofyear", args, |tm| tm.yday as f64)
}

/// `year(ts)`.
pub(super) fn year(args: &[Value]) -> Result<Value, AggError> {
    extract("year", args, |tm| tm.year as f64)
}

/// `monthofyear(ts)`: 0–11.
pub(super) fn monthofyear(args: &[Value]) -> Result<Value, AggError> {
    extract("monthofyear", args, |tm| tm.mon as f64)
}
