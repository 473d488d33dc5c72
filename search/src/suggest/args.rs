//! Arguments of FT.SUGADD and FT.SUGGET, with RediSearch's error texts (src/suggest.c and
//! rmutil's ArgsCursor). The key and the string are the glue's; these parse the rest.

use super::search::Query;
use crate::limits::{SUGGEST_DEFAULT_MAX, SUGGEST_MAX_PREFIX};

/// FT.SUGADD's options after the score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddOptions<'a> {
    /// INCR: add the score to the existing one.
    pub incr: bool,
    /// PAYLOAD (an empty payload is no payload).
    pub payload: Option<&'a [u8]>,
}

/// FT.SUGGET's options after the prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GetOptions {
    /// What to look up.
    pub query: Query,
    /// WITHSCORES.
    pub with_scores: bool,
    /// WITHPAYLOADS.
    pub with_payloads: bool,
}

/// rmutil's `AC_Strerror` texts.
mod ac {
    pub const ELIMIT: &str = "Value is outside acceptable bounds";
    pub const NOARG: &str = "Expected an argument, but none provided";
    pub const PARSE: &str = "Could not convert argument to expected type";
}

/// The error for a bad FT.SUGADD score.
pub const INVALID_SCORE: &str = "ERR invalid score";
/// The error for an FT.SUGGET prefix of too many bytes.
pub const INVALID_QUERY_LENGTH: &str = "Invalid query length";
/// The error for an FT.SUGGET prefix of too many characters.
pub const INVALID_QUERY: &str = "Invalid query";

/// `RedisModule_StringToDouble` (Redis's `string2d`): C's `strtod` over the whole string,
/// no blank first, no NaN, no overflow or underflow to zero (`ERANGE`). Hex (`0x10`,
/// `0x1p4`), `inf` and `infinity` are numbers.
pub fn redis_double(s: &[u8]) -> Option<f64> {
    let first = *s.first()?;
    if matches!(first, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) || s.contains(&0) {
        return None;
    }
    crate::aggregate::value::strtod_whole(s).filter(|v| !v.is_nan())
}

/// The score argument of FT.SUGADD.
pub fn parse_score(s: &[u8]) -> Result<f64, String> {
    redis_double(s).ok_or_else(|| INVALID_SCORE.to_string())
}

/// FT.SUGADD's `[INCR] [PAYLOAD p]` (repeats allowed, the last payload wins).
pub fn parse_add_options<'a>(args: &[&'a [u8]]) -> Result<AddOptions<'a>, String> {
    let mut opts = AddOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.eq_ignore_ascii_case(b"INCR") {
            opts.incr = true;
        } else if a.eq_ignore_ascii_case(b"PAYLOAD") {
            let p = it.next().ok_or_else(|| format!("Invalid payload: {}", ac::NOARG))?;
            opts.payload = Some(*p).filter(|p| !p.is_empty());
        } else {
            return Err(format!("Unknown argument `{}`", c_text(a)));
        }
    }
    Ok(opts)
}

/// How RediSearch prints an argument with `%s`: up to its first NUL.
fn c_text(a: &[u8]) -> String {
    let end = a.iter().position(|&b| b == 0).unwrap_or(a.len());
    String::from_utf8_lossy(a.get(..end).unwrap_or_default()).into_owned()
}

/// rmutil's `AC_GetUnsigned` with `AC_F_COALESCE | AC_F_GE1`.
fn parse_max(a: Option<&&[u8]>) -> Result<usize, &'static str> {
    let a = a.ok_or(ac::NOARG)?;
    let n: i64 = match std::str::from_utf8(a).ok().and_then(strict_i64) {
        Some(n) => n,
        None => {
            let d = redis_double(a).ok_or(ac::PARSE)?;
            // C's (long long) conversion: out of range gives LLONG_MIN on x86.
            const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
            if d > -LIMIT && d < LIMIT {
                d as i64
            } else {
                i64::MIN
            }
        }
    };
    if n < 1 || n > i64::from(u32::MAX) {
        return Err(ac::ELIMIT);
    }
    usize::try_from(n).map_err(|_| ac::ELIMIT)
}

/// `RedisModule_StringToLongLong`: an optional minus, digits, no leading zeros or plus sign.
fn strict_i64(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    s.parse().ok()
}

/// Checks FT.SUGGET's prefix before anything else: at most `2 * TRIE_MAX_PREFIX - 1` bytes.
pub fn check_prefix(prefix: &[u8]) -> Result<(), String> {
    if prefix.len() >= SUGGEST_MAX_PREFIX * 2 {
        return Err(INVALID_QUERY_LENGTH.to_string());
    }
    Ok(())
}

/// FT.SUGGET's `[FUZZY] [MAX n] [WITHSCORES] [WITHPAYLOADS] [TRIM] [OPTIMIZE]`.
pub fn parse_get_options(args: &[&[u8]]) -> Result<GetOptions, String> {
    let mut opts = GetOptions {
        query: Query { max: SUGGEST_DEFAULT_MAX, max_dist: 0, trim: false },
        with_scores: false,
        with_payloads: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let is = |name: &str| a.eq_ignore_ascii_case(name.as_bytes());
        if is("FUZZY") {
            opts.query.max_dist = 1;
        } else if is("MAX") {
            opts.query.max = parse_max(it.next()).map_err(|e| format!("MAX: {e}"))?;
        } else if is("WITHSCORES") {
            opts.with_scores = true;
        } else if is("OPTIMIZE") {
            // Accepted and ignored, as by RediSearch.
        } else if is("TRIM") {
            opts.query.trim = true;
        } else if is("WITHPAYLOADS") {
            opts.with_payloads = true;
        } else {
            return Err(format!("Unrecognized argument: {}", c_text(a)));
        }
    }
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_parse_like_redis() {
        assert_eq!(redis_double(b"1.5"), Some(1.5));
        assert_eq!(redis_double(b"-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(redis_double(b"0"), Some(0.0));
        for bad in [&b""[..], b" 1", b"1 ", b"nan", b"abc", b"1e400", b"1e-400", b"1e"] {
            assert_eq!(redis_double(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn max_follows_args_cursor() {
        assert_eq!(parse_max(Some(&&b"3"[..])), Ok(3));
        assert_eq!(parse_max(Some(&&b"2.9"[..])), Ok(2));
        assert_eq!(parse_max(Some(&&b"0"[..])), Err(ac::ELIMIT));
        assert_eq!(parse_max(Some(&&b"-1"[..])), Err(ac::ELIMIT));
        assert_eq!(parse_max(Some(&&b"x"[..])), Err(ac::PARSE));
        assert_eq!(parse_max(None), Err(ac::NOARG));
        assert_eq!(parse_max(Some(&&b"4294967296"[..])), Err(ac::ELIMIT));
    }
}
