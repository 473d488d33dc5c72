//! The dynamic value that flows through FT.AGGREGATE rows and expressions.
//!
//! Contract: conversions and comparisons follow RediSearch's `RSValue` rules
//! (`value.c`): strings that parse completely as numbers convert, NULL is
//! falsy and never a number, numbers print as `%lld` when integral and
//! `%.12g` otherwise.

use std::cmp::Ordering;
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
    /// A JSON field read from DIALECT 3 on (RediSearch's duo value): its first match, which
    /// every conversion, comparison and GROUPBY key uses, and the text a reply shows (the
    /// JSON array of every match).
    Duo(Arc<(Value, Value)>),
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

    /// A duo value of `first`, shown as `shown`.
    pub fn duo(first: Value, shown: Value) -> Value {
        Value::Duo(Arc::new((first, shown)))
    }

    /// The value conversions and comparisons use: a duo's first match, else itself.
    pub fn primary(&self) -> &Value {
        match self {
            Value::Duo(d) => d.0.primary(),
            v => v,
        }
    }

    /// True for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The bytes of a string value.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self.primary() {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// `RSValue_ToNumber`: numbers as is, strings when `strtod` reads the whole
    /// text ([`strtod_whole`]: the empty string is 0).
    pub fn to_number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::String(s) => strtod_whole(s),
            Value::Null | Value::Array(_) => None,
            Value::Duo(d) => d.0.to_number(),
        }
    }

    /// `RSValue_BoolTest`: non-zero numbers, non-empty strings and arrays.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Number(n) => *n != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Duo(d) => d.0.truthy(),
        }
    }

    /// `RSValue_ToString`: numbers formatted by [`format_number`], NULL and
    /// arrays as the empty string.
    pub fn to_text(&self) -> Vec<u8> {
        match self {
            Value::String(s) => s.to_vec(),
            Value::Number(n) => format_number(*n).into_bytes(),
            Value::Null | Value::Array(_) => Vec::new(),
            Value::Duo(d) => d.0.to_text(),
        }
    }

    /// Type code as RediSearch prints it in argument-type errors.
    pub fn type_code(&self) -> u8 {
        match self {
            Value::Number(_) => 1,
            Value::String(_) => 3,
            Value::Null => 4,
            Value::Array(_) => 6,
            Value::Duo(d) => d.0.type_code(),
        }
    }

    /// `RSValue_Equal` (no error reporting: a failed conversion is "not equal").
    pub fn loose_eq(&self, other: &Value) -> bool {
        if let (Value::Duo(a), Value::Duo(b)) = (self, other) {
            return a.0.loose_eq(&b.0);
        }
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
    ///
    /// Two duos compare by their first matches; a duo against any other value is not a
    /// string to `RSValue_Cmp` (its text is empty) but converts to a number as its first
    /// match does, so `["b"]` sorts before `"a"` and never equals `"b"` (RediSearch 2.10.5).
    pub fn compare(&self, other: &Value) -> Result<Ordering, CmpError> {
        if let (Value::Duo(a), Value::Duo(b)) = (self, other) {
            return a.0.compare(&b.0);
        }
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
    /// a failed number conversion falls back to comparing text, and a duo sorts before a
    /// string or an array even when `RSValue_Cmp` would find them equal (the empty string,
    /// whose text is a duo's there), so that the order stays total.
    pub fn sort_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Duo(a), Value::Duo(b)) => return a.0.sort_cmp(&b.0),
            (Value::Duo(_), Value::String(_) | Value::Array(_)) => return Ordering::Less,
            (Value::String(_) | Value::Array(_), Value::Duo(_)) => return Ordering::Greater,
            _ => {}
        }
        if let (Value::Number(a), Value::Number(b)) = (self, other) {
            // A total order for sorts: `nan` (equal to every number in comparisons, as in
            // RediSearch) ranks above them here, or a sort could see an inconsistent order.
            return crate::query::score::score_order(*a, *b);
        }
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

    /// `RSValue_ConvertStringPtrLen`: numbers as `%f`, a duo as the empty string (it is
    /// neither a string nor a number there), others as their text.
    fn fallback_text(&self) -> Vec<u8> {
        match self {
            Value::Number(n) => format!("{n:.6}").into_bytes(),
            Value::Duo(_) => Vec::new(),
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

/// `RSValue_ToNumber`'s test of a string (value.c): C's `strtod` over the text up
/// to its first NUL byte, accepted when it stops at the end (so the empty string is 0,
/// as `strtod` converts nothing and stops there, while `" "` or `"+"` are not numbers),
/// and rejected on overflow to ±HUGE_VAL or underflow to zero (`ERANGE`). Leading
/// spaces, a sign, `inf`/`infinity`, `nan`/`nan(chars)`, hex (`0x1.8p3`) as glibc reads them.
pub fn strtod_whole(s: &[u8]) -> Option<f64> {
    let s = s.iter().position(|&b| b == 0).map_or(s, |n| &s[..n]);
    if s.is_empty() {
        return Some(0.0);
    }
    let (v, end) = strtod_prefix(s)?;
    if end != s.len() {
        return None;
    }
    Some(v)
}

/// C `strtod` on `s`: the value and where it stopped, `None` when nothing converts or on
/// `ERANGE` that RediSearch rejects (an infinite result from finite digits, or zero from
/// non-zero digits).
pub(crate) fn strtod_prefix(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let neg = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let sign = |v: f64| if neg { -v } else { v };
    let rest = &s[i..];
    let starts = |kw: &[u8]| rest.len() >= kw.len() && rest[..kw.len()].eq_ignore_ascii_case(kw);
    if starts(b"infinity") {
        return Some((sign(f64::INFINITY), i + 8));
    }
    if starts(b"inf") {
        return Some((sign(f64::INFINITY), i + 3));
    }
    if starts(b"nan") {
        let mut end = i + 3;
        if s.get(end) == Some(&b'(') {
            let mut j = end + 1;
            while j < s.len() && (s[j].is_ascii_alphanumeric() || s[j] == b'_') {
                j += 1;
            }
            if s.get(j) == Some(&b')') {
                end = j + 1;
            }
        }
        return Some((sign(f64::NAN), end));
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        if let Some((v, n)) = hex_float(&rest[2..]) {
            return finite_or_reject(sign(v), v != 0.0 || n == 0, i + 2 + n);
        }
        // `0x` without hex digits: only the `0` converts.
        return Some((sign(0.0), i + 1));
    }
    let digits = |mut k: usize| {
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
        k
    };
    let int_end = digits(i);
    let mut end = int_end;
    let mut frac_digits = 0;
    if s.get(end) == Some(&b'.') {
        let f = digits(end + 1);
        frac_digits = f - end - 1;
        end = f;
    }
    if int_end == i && frac_digits == 0 {
        return None;
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let mut k = end + 1;
        if matches!(s.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let e = digits(k);
        if e > k {
            end = e;
        }
    }
    let text = std::str::from_utf8(&s[i..end]).ok()?;
    let text = if text.starts_with('.') { format!("0{text}") } else { text.to_string() };
    let v: f64 = text.parse().ok()?;
    let nonzero =
        s[i..end].iter().take_while(|b| !matches!(b, b'e' | b'E')).any(|b| (b'1'..=b'9').contains(b));
    finite_or_reject(sign(v), v != 0.0 || !nonzero, end)
}

/// RediSearch's `ERANGE` check: overflow to infinity, or underflow to zero, is rejected.
fn finite_or_reject(v: f64, not_underflow: bool, end: usize) -> Option<(f64, usize)> {
    if v.is_infinite() || !not_underflow {
        return None;
    }
    Some((v, end))
}

/// The hex digits (with an optional `.` and `p[+-]digits`) after `0x`: value and length.
fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut i = 0;
    let mut v = 0f64;
    let mut any = false;
    let mut exp: i32 = 0;
    while let Some(d) = s.get(i).and_then(|&b| hex(b)) {
        v = v * 16.0 + f64::from(d);
        any = true;
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while let Some(d) = s.get(j).and_then(|&b| hex(b)) {
            v = v * 16.0 + f64::from(d);
            exp = exp.saturating_sub(4);
            any = true;
            j += 1;
        }
        if any {
            i = j;
        }
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut k = i + 1;
        let eneg = s.get(k) == Some(&b'-');
        if matches!(s.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let start = k;
        let mut e: i32 = 0;
        while let Some(d) = s.get(k).filter(|b| b.is_ascii_digit()) {
            e = e.saturating_mul(10).saturating_add(i32::from(d - b'0'));
            k += 1;
        }
        if k > start {
            exp = exp.saturating_add(if eneg { -e } else { e });
            i = k;
        }
    }
    Some((v * 2f64.powi(exp), i))
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

pub use super::number_text::format_g;

/// RediSearch's `RSValue_NumToString`: `%lld` when the double is integral and
/// fits a `long long`, else `%.12g`.
pub fn format_number(n: f64) -> String {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.2e18 {
        return format!("{}", n as i64);
    }
    format_g(n, 12)
}

/// A hashable identity of a value, for GROUPBY keys and distinct counts:
/// numbers by value (`-0` = `0`, all NaNs equal), strings by bytes.
#[derive(Debug, Clone)]
pub struct ValueKey(pub Value);

impl ValueKey {
    fn hash_into<H: Hasher>(v: &Value, h: &mut H) {
        match v.primary() {
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
            Value::Duo(d) => Self::hash_into(&d.0, h),
        }
    }

    fn same(a: &Value, b: &Value) -> bool {
        match (a.primary(), b.primary()) {
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

    /// `RSValue_Cmp`/`RSValue_Equal` of a duo (RediSearch 2.10.5): against another duo by
    /// first values; against a string as the empty string; against a number as its first.
    #[test]
    fn duos_compare_as_rsvalue_cmp_does() {
        let duo = |s: &str| Value::duo(Value::str(s), Value::str(&format!("[\"{s}\"]")));
        assert_eq!(duo("a").compare(&duo("b")), Ok(Ordering::Less));
        assert!(duo("b").loose_eq(&duo("b")));
        assert!(!duo("b").loose_eq(&Value::str("b")));
        assert_eq!(duo("b").compare(&Value::str("a")), Ok(Ordering::Less));
        assert_eq!(duo("b").compare(&Value::str("")), Ok(Ordering::Equal));
        assert_eq!(duo("b").sort_cmp(&Value::str("")), Ordering::Less);
        let n = Value::duo(Value::Number(3.0), Value::str("[3,1]"));
        assert_eq!(n.compare(&Value::Number(2.0)), Ok(Ordering::Greater));
        assert!(n.loose_eq(&Value::Number(3.0)));
        assert_eq!(duo("b").compare(&Value::Null), Ok(Ordering::Greater));
    }

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
        assert_eq!(Value::str("").to_number(), Some(0.0));
        assert_eq!(Value::str(" ").to_number(), None);
        assert_eq!(Value::str("+").to_number(), None);
        assert_eq!(Value::str(".5").to_number(), Some(0.5));
        assert_eq!(Value::str("5.").to_number(), Some(5.0));
        assert_eq!(Value::str("1e").to_number(), None);
        assert_eq!(Value::str("1e-400").to_number(), None);
        assert_eq!(Value::str("0e-400").to_number(), Some(0.0));
        assert_eq!(Value::str("1e-310").to_number(), Some(1e-310));
        assert_eq!(Value::str("0x1.8p1").to_number(), Some(3.0));
        assert_eq!(Value::str("0x").to_number(), None);
        assert_eq!(Value::str("INFINITY").to_number(), Some(f64::INFINITY));
        assert!(Value::str("nan(123)").to_number().is_some_and(f64::is_nan));
        assert_eq!(Value::bytes(b"5\0abc").to_number(), Some(5.0));
        assert_eq!(parse_number(b""), None);
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
