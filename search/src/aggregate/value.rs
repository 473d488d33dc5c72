//! The dynamic value that flows through FT.AGGREGATE rows and expressions.
//!
//! Contract: conversions and comparisons follow RediSearch's `RSValue` rules
//! (`value.c`): strings that parse completely as numbers convert, NULL is
//! falsy and never a number, numbers print as `%lld` when integral and
//! `%.12g` otherwise.

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One value of a row field or of an expression.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// Absent or explicit `NULL`.
    #[default]
    Null,
    /// Every number is a double, as in RediSearch.
    Number(f64),
    /// Byte string (Redis strings are binary).
    String(Arc<[u8]>),
    /// Multi-valued field or `split()` result.
    Array(Arc<[Value]>),
}

/// Why a comparison could not be made (number against a non-numeric string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmpError(pub String);

impl Value {
    /// A string value from text.
    pub fn str(s: &str) -> Value {
        Value::String(Arc::from(s.as_bytes()))
    }

    /// A string value from bytes.
    pub fn bytes(b: &[u8]) -> Value {
        Value::String(Arc::from(b))
    }

    /// An array value.
    pub fn array(items: Vec<Value>) -> Value {
        Value::Array(Arc::from(items))
    }

    /// True for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The bytes of a string value.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// `RSValue_ToNumber`: numbers as is, strings when the whole text parses.
    pub fn to_number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::String(s) => parse_number(s),
            Value::Null | Value::Array(_) => None,
        }
    }

    /// `RSValue_BoolTest`: non-zero numbers, non-empty strings and arrays.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Number(n) => *n != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
        }
    }

    /// `RSValue_ToString`: numbers formatted by [`format_number`], NULL and
    /// arrays as the empty string.
    pub fn to_text(&self) -> Vec<u8> {
        match self {
            Value::String(s) => s.to_vec(),
            Value::Number(n) => format_number(*n).into_bytes(),
            Value::Null | Value::Array(_) => Vec::new(),
        }
    }

    /// Type code as RediSearch prints it in argument-type errors.
    pub fn type_code(&self) -> u8 {
        match self {
            Value::Number(_) => 1,
            Value::String(_) => 3,
            Value::Null => 4,
            Value::Array(_) => 6,
        }
    }

    /// `RSValue_Equal` (no error reporting: a failed conversion is "not equal").
    pub fn loose_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Null, Value::Null) => true,
            (Value::Array(a), Value::Array(b)) => compare_arrays_first(a, b) == Ordering::Equal,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Number(a), o) | (o, Value::Number(a)) => o.to_number() == Some(*a),
            (a, b) => a.fallback_text() == b.fallback_text(),
        }
    }

    /// `RSValue_Cmp` with error reporting: comparing a number with a string
    /// that is not a number is an error, as in RediSearch's predicates.
    pub fn compare(&self, other: &Value) -> Result<Ordering, CmpError> {
        match (self, other) {
            (Value::Number(a), Value::Number(b)) => Ok(cmp_f64(*a, *b)),
            (Value::String(a), Value::String(b)) => Ok(a.as_ref().cmp(b.as_ref())),
            (Value::Null, Value::Null) => Ok(Ordering::Equal),
            (Value::Array(a), Value::Array(b)) => Ok(compare_arrays_first(a, b)),
            (Value::Null, _) => Ok(Ordering::Less),
            (_, Value::Null) => Ok(Ordering::Greater),
            (Value::Number(a), o) => Ok(cmp_f64(*a, o.number_or_err()?)),
            (o, Value::Number(b)) => Ok(cmp_f64(o.number_or_err()?, *b)),
            (a, b) => Ok(a.fallback_text().cmp(&b.fallback_text())),
        }
    }

    /// Total order used by SORTBY and FIRST_VALUE: like [`Value::compare`] but
    /// a failed number conversion falls back to comparing text.
    pub fn sort_cmp(&self, other: &Value) -> Ordering {
        self.compare(other).unwrap_or_else(|_| self.fallback_text().cmp(&other.fallback_text()))
    }

    fn number_or_err(&self) -> Result<f64, CmpError> {
        self.to_number().ok_or_else(|| {
            CmpError(format!(
                "Error converting string '{}' to number",
                String::from_utf8_lossy(&self.to_text())
            ))
        })
    }

    /// `RSValue_ConvertStringPtrLen`: numbers as `%f`, others as their text.
    fn fallback_text(&self) -> Vec<u8> {
        match self {
            Value::Number(n) => format!("{n:.6}").into_bytes(),
            other => other.to_text(),
        }
    }
}

fn compare_arrays_first(a: &[Value], b: &[Value]) -> Ordering {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) => x.sort_cmp(y),
        _ => a.len().cmp(&b.len()),
    }
}

fn cmp_f64(a: f64, b: f64) -> Ordering {
    if a > b {
        Ordering::Greater
    } else if a < b {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// `strtod` over the whole input: leading spaces allowed, trailing text is not.
pub fn parse_number(s: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(s).ok()?;
    let t = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    if t.is_empty() {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "inf" | "infinity") {
        return Some(if lower.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if unsigned == "nan" {
        return Some(f64::NAN);
    }
    if lower.starts_with("0x") || lower.starts_with("-0x") || lower.starts_with("+0x") {
        return parse_hex(&lower);
    }
    // Rust's parser accepts "infinity"/"nan" forms handled above and rejects
    // C-only forms like "1e" just as strtod's full-consumption check would.
    let v: f64 = t.parse().ok()?;
    if v.is_infinite() {
        // strtod reports ERANGE on overflow, which RSValue_ToNumber rejects.
        return None;
    }
    Some(v)
}

fn parse_hex(s: &str) -> Option<f64> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let digits = rest.strip_prefix("0x")?;
    let v = u64::from_str_radix(digits, 16).ok()? as f64;
    Some(if neg { -v } else { v })
}

/// RediSearch's `RSValue_NumToString`: `%lld` when the double is integral and
/// fits a `long long`, else `%.12g`.
pub fn format_number(n: f64) -> String {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.2e18 {
        return format!("{}", n as i64);
    }
    format_g(n, 12)
}

/// C's `%.{prec}g`.
pub fn format_g(n: f64, prec: usize) -> String {
    if n.is_nan() {
        return if n.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if n.is_infinite() {
        return if n < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if n == 0.0 {
        return if n.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let p = prec.max(1);
    // Exponent after rounding to p significant digits.
    let sci = format!("{:.*e}", p - 1, n);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    if exp < -4 || exp >= p as i32 {
        let m = strip_zeros(&mantissa);
        let mut out = String::with_capacity(m.len() + 5);
        out.push_str(&m);
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", exp.abs());
        out
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, n))
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// A hashable identity of a value, for GROUPBY keys and distinct counts:
/// numbers by value (`-0` = `0`, all NaNs equal), strings by bytes.
#[derive(Debug, Clone)]
pub struct ValueKey(pub Value);

impl ValueKey {
    fn hash_into<H: Hasher>(v: &Value, h: &mut H) {
        match v {
            Value::Null => 0u8.hash(h),
            Value::Number(n) => {
                1u8.hash(h);
                canonical_bits(*n).hash(h);
            }
            Value::String(s) => {
                2u8.hash(h);
                s.hash(h);
            }
            Value::Array(a) => {
                3u8.hash(h);
                a.len().hash(h);
                for x in a.iter() {
                    Self::hash_into(x, h);
                }
            }
        }
    }

    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Null, Value::Null) => true,
            (Value::Number(x), Value::Number(y)) => canonical_bits(*x) == canonical_bits(*y),
            (Value::String(x), Value::String(y)) => x == y,
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| Self::same(p, q))
            }
            _ => false,
        }
    }
}

fn canonical_bits(n: f64) -> u64 {
    if n.is_nan() {
        f64::NAN.to_bits()
    } else if n == 0.0 {
        0
    } else {
        n.to_bits()
    }
}

impl Hash for ValueKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Self::hash_into(&self.0, state)
    }
}

impl PartialEq for ValueKey {
    fn eq(&self, other: &Self) -> bool {
        Self::same(&self.0, &other.0)
    }
}

impl Eq for ValueKey {}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::str(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_format_like_c() {
        assert_eq!(format_number(850.0), "850");
        assert_eq!(format_number(-3.0), "-3");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(format_number(1.0 / 3.0), "0.333333333333");
        assert_eq!(format_number(1e20), "1e+20");
        assert_eq!(format_number(1.5e-7), "1.5e-07");
        assert_eq!(format_number(f64::NAN), "nan");
        assert_eq!(format_number(f64::INFINITY), "inf");
        assert_eq!(format_number(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_number(123456789.125), "123456789.125");
        assert_eq!(format_number(2.0f64.powi(62)), "4611686018427387904");
    }

    #[test]
    fn string_to_number_needs_whole_text() {
        assert_eq!(Value::str("12.5").to_number(), Some(12.5));
        assert_eq!(Value::str(" 7").to_number(), Some(7.0));
        assert_eq!(Value::str("7 ").to_number(), None);
        assert_eq!(Value::str("abc").to_number(), None);
        assert_eq!(Value::str("").to_number(), None);
        assert_eq!(Value::str("-inf").to_number(), Some(f64::NEG_INFINITY));
        assert_eq!(Value::str("0x10").to_number(), Some(16.0));
        assert_eq!(Value::str("1e999").to_number(), None);
        assert_eq!(Value::Null.to_number(), None);
    }

    #[test]
    fn comparisons_follow_rsvalue() {
        let n = Value::Number(5.0);
        assert_eq!(n.compare(&Value::str("10")), Ok(Ordering::Less));
        assert!(n.compare(&Value::str("x")).is_err());
        assert_eq!(Value::Null.compare(&n), Ok(Ordering::Less));
        assert!(n.loose_eq(&Value::str("5")));
        assert!(!n.loose_eq(&Value::str("x")));
        assert!(!Value::Null.loose_eq(&n));
        assert!(Value::Null.loose_eq(&Value::Null));
        assert_eq!(Value::str("ab").compare(&Value::str("abc")), Ok(Ordering::Less));
    }
}
