//! The function library of the expression language (RediSearch `functions/`).
//!
//! Contract: names resolve case-insensitively at parse time ([`Function::lookup`]);
//! argument counts and types are checked at call time, per row, with
//! RediSearch's error texts; most runtime failures yield NULL or NaN.

mod date;
mod geo;
mod math;
mod string;
pub mod time;

use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

/// Every function of the expression language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Function {
    Log,
    Abs,
    Ceil,
    Floor,
    Log2,
    Exp,
    Sqrt,
    Upper,
    Lower,
    StartsWith,
    Contains,
    Strlen,
    Substr,
    Format,
    Split,
    MatchedTerms,
    ToNumber,
    ToStr,
    Exists,
    TimeFmt,
    ParseTime,
    Day,
    Hour,
    Minute,
    Month,
    DayOfWeek,
    DayOfMonth,
    DayOfYear,
    Year,
    MonthOfYear,
    GeoDistance,
}

const NAMES: &[(&str, Function)] = &[
    ("log", Function::Log),
    ("abs", Function::Abs),
    ("ceil", Function::Ceil),
    ("floor", Function::Floor),
    ("log2", Function::Log2),
    ("exp", Function::Exp),
    ("sqrt", Function::Sqrt),
    ("upper", Function::Upper),
    ("lower", Function::Lower),
    ("startswith", Function::StartsWith),
    ("contains", Function::Contains),
    ("strlen", Function::Strlen),
    ("substr", Function::Substr),
    ("format", Function::Format),
    ("split", Function::Split),
    ("matched_terms", Function::MatchedTerms),
    ("to_number", Function::ToNumber),
    ("to_str", Function::ToStr),
    ("exists", Function::Exists),
    ("timefmt", Function::TimeFmt),
    ("parsetime", Function::ParseTime),
    ("day", Function::Day),
    ("hour", Function::Hour),
    ("minute", Function::Minute),
    ("month", Function::Month),
    ("dayofweek", Function::DayOfWeek),
    ("dayofmonth", Function::DayOfMonth),
    ("dayofyear", Function::DayOfYear),
    ("year", Function::Year),
    ("monthofyear", Function::MonthOfYear),
    ("geodistance", Function::GeoDistance),
];

impl Function {
    /// Case-insensitive lookup by name.
    pub fn lookup(name: &str) -> Option<Function> {
        NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, f)| *f)
    }

    /// The registered (lower-case) name.
    pub fn name(self) -> &'static str {
        NAMES.iter().find(|(_, f)| *f == self).map_or("", |(n, _)| n)
    }
}

/// Calls `f` on evaluated arguments (`case` is handled by the evaluator).
pub fn call(f: Function, args: &[Value], row: &Row) -> Result<Value, AggError> {
    use Function::*;
    match f {
        Log => math::unary("log", args, f64::ln),
        Abs => math::unary("fabs", args, f64::abs),
        Ceil => math::unary("ceil", args, f64::ceil),
        Floor => math::unary("floor", args, f64::floor),
        Log2 => math::unary("log2", args, f64::log2),
        Exp => math::unary("exp", args, f64::exp),
        Sqrt => math::unary("sqrt", args, f64::sqrt),
        Upper => string::case_map("upper", args, u8::to_ascii_uppercase),
        Lower => string::case_map("lower", args, u8::to_ascii_lowercase),
        StartsWith => string::startswith(args),
        Contains => string::contains(args),
        Strlen => string::strlen(args),
        Substr => string::substr(args),
        Format => string::format(args),
        Split => string::split(args),
        MatchedTerms => string::matched_terms(args, row),
        ToNumber => string::to_number(args),
        ToStr => string::to_str(args),
        Exists => string::exists(args),
        TimeFmt => date::timefmt(args),
        ParseTime => date::parsetime(args),
        Day => date::day(args),
        Hour => date::hour(args),
        Minute => date::minute(args),
        Month => date::month(args),
        DayOfWeek => date::dayofweek(args),
        DayOfMonth => date::dayofmonth(args),
        DayOfYear => date::dayofyear(args),
        Year => date::year(args),
        MonthOfYear => date::monthofyear(args),
        GeoDistance => geo::geodistance(args),
    }
}

/// `VALIDATE_ARGS`: `Invalid arguments for function 'name'`.
fn check_arity(name: &str, args: &[Value], min: usize, max: usize) -> Result<(), AggError> {
    if args.len() < min || args.len() > max {
        return Err(AggError::new(format!("Invalid arguments for function '{name}'")));
    }
    Ok(())
}

/// `VALIDATE_ARG_ISSTRING`: the argument must be a string.
fn string_arg<'a>(name: &str, args: &'a [Value], idx: usize) -> Result<&'a [u8], AggError> {
    match args.get(idx) {
        Some(Value::String(s)) => Ok(s),
        other => Err(AggError::new(format!(
            "Invalid type ({}) for argument {idx} in function '{name}'. VALIDATE_ARG__STRING(v, 0) was false.",
            other.map_or(0, Value::type_code)
        ))),
    }
}

/// `VALIDATE_ARG_TYPE(.., RSValue_Number)`: the argument must be a number.
fn number_arg(name: &str, args: &[Value], idx: usize) -> Result<f64, AggError> {
    match args.get(idx) {
        Some(Value::Number(n)) => Ok(*n),
        other => Err(AggError::new(format!(
            "Invalid type ({}) for argument {idx} in function '{name}'. VALIDATE_ARG__TYPE(v, RSValue_Number) was false.",
            other.map_or(0, Value::type_code)
        ))),
    }
}
