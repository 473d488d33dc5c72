//! Replies: one Redis-agnostic reply tree for every command, written to the client in order.
//!
//! Handlers build a [`Reply`]; [`emit`] writes it with the raw reply API so that map order is kept
//! (redis-module's `RedisValue::Map` is a `HashMap`) and RESP2/RESP3 differences are left to Redis
//! itself (a map is a flat array on RESP2, a double is a bulk string on RESP2, null is `$-1`/`_`).

use std::ffi::CString;
use std::os::raw::{c_char, c_long};

use redis_module::{raw, Context, ContextFlags};

/// The protocol the calling client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// RESP2 (the default).
    Resp2,
    /// RESP3 (after `HELLO 3`).
    Resp3,
}

impl Protocol {
    /// The protocol of the client that sent the current command.
    pub fn of(ctx: &Context) -> Protocol {
        if ctx.get_flags().contains(ContextFlags::FLAGS_RESP3) {
            Protocol::Resp3
        } else {
            Protocol::Resp2
        }
    }

    /// True on RESP3.
    pub fn is_resp3(self) -> bool {
        self == Protocol::Resp3
    }
}

/// A reply, built by a handler and written by [`emit`].
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `$-1` on RESP2, `_` on RESP3.
    Nil,
    /// An integer.
    Int(i64),
    /// A double: a bulk string on RESP2, `,` on RESP3.
    Double(f64),
    /// A boolean: an integer on RESP2, `#` on RESP3.
    Bool(bool),
    /// A simple string (`+OK`).
    Simple(&'static str),
    /// A simple string built at run time.
    Status(String),
    /// A bulk string.
    Bulk(Vec<u8>),
    /// An array.
    Array(Vec<Reply>),
    /// A map: a flat array of pairs on RESP2.
    Map(Vec<(Reply, Reply)>),
    /// A set: an array on RESP2.
    Set(Vec<Reply>),
    /// An error reply; the text is sent as is (`ERR …`, `WRONGTYPE …`, or RedisJSON's bare texts).
    Error(String),
    /// A search reply, written in the client's protocol as [`crate::commands::ft::convert`]
    /// would convert it, without building the converted tree.
    Search(search::Reply),
    /// Nothing more: the handler wrote its reply itself (large bulk strings sent straight from a
    /// reused buffer).
    Sent,
}

impl Reply {
    /// `+OK`.
    pub const OK: Reply = Reply::Simple("OK");

    /// A bulk string from anything byte-like.
    pub fn bulk(bytes: impl Into<Vec<u8>>) -> Reply {
        Reply::Bulk(bytes.into())
    }
}

impl From<Option<Reply>> for Reply {
    fn from(r: Option<Reply>) -> Reply {
        r.unwrap_or(Reply::Nil)
    }
}

/// Writes `reply` to the client of `ctx`.
pub fn emit(ctx: &Context, reply: &Reply) {
    let c = ctx.ctx;
    match reply {
        Reply::Nil => {
            raw::reply_with_null(c);
        }
        Reply::Int(i) => {
            raw::reply_with_long_long(c, *i);
        }
        Reply::Double(d) => {
            raw::reply_with_double(c, *d);
        }
        Reply::Bool(b) => {
            raw::reply_with_bool(c, i32::from(*b));
        }
        Reply::Simple(s) => simple(ctx, s),
        Reply::Status(s) => simple(ctx, s),
        Reply::Bulk(b) => {
            raw::reply_with_string_buffer(c, b.as_ptr().cast::<c_char>(), b.len());
        }
        Reply::Array(items) => {
            raw::reply_with_array(c, items.len() as c_long);
            for item in items {
                emit(ctx, item);
            }
        }
        Reply::Map(pairs) => {
            raw::reply_with_map(c, pairs.len() as c_long);
            for (k, v) in pairs {
                emit(ctx, k);
                emit(ctx, v);
            }
        }
        Reply::Set(items) => {
            raw::reply_with_set(c, items.len() as c_long);
            for item in items {
                emit(ctx, item);
            }
        }
        Reply::Sent => {}
        Reply::Search(r) => emit_search(ctx, r, Protocol::of(ctx)),
        Reply::Error(text) => error(ctx, text),
    }
}

/// Writes an error reply (`text` as one line).
fn error(ctx: &Context, text: &str) {
    let line = resp_line(text);
    // SAFETY: ctx.ctx is the live context of this call; `line` is NUL-terminated.
    unsafe {
        if let Some(reply_error) = raw::RedisModule_ReplyWithError {
            reply_error(ctx.ctx, line.as_ptr());
        }
    }
}

/// Writes a search reply in `proto`: RediSearch 2.10 runs on Redis >= 7.2, whose RESP2
/// doubles are the shortest text that reads back as the same number (Redis 7.0 here would
/// print 17 digits).
fn emit_search(ctx: &Context, reply: &search::Reply, proto: Protocol) {
    use search::Reply as R;
    let c = ctx.ctx;
    let bulk = |b: &[u8]| {
        raw::reply_with_string_buffer(c, b.as_ptr().cast::<c_char>(), b.len());
    };
    match reply {
        R::Nil => {
            raw::reply_with_null(c);
        }
        R::Int(i) => {
            raw::reply_with_long_long(c, *i);
        }
        R::Double(d) if proto == Protocol::Resp2 => bulk(shortest_double(*d).as_bytes()),
        R::Double(d) => {
            raw::reply_with_double(c, *d);
        }
        R::Simple(s) => simple(ctx, s),
        R::Bulk(b) => bulk(b),
        R::Array(items) => {
            raw::reply_with_array(c, items.len() as c_long);
            for item in items {
                emit_search(ctx, item, proto);
            }
        }
        R::Map(pairs) => {
            raw::reply_with_map(c, pairs.len() as c_long);
            for (k, v) in pairs {
                emit_search(ctx, k, proto);
                emit_search(ctx, v, proto);
            }
        }
        R::Set(items) => {
            raw::reply_with_set(c, items.len() as c_long);
            for item in items {
                emit_search(ctx, item, proto);
            }
        }
        R::Error(text) => error(ctx, text),
    }
}

/// Text for a one-line RESP reply (simple string, error): CR, LF and NUL become spaces and UTF-8
/// stays intact. (redis-module's own helper keeps one byte per character, which mangles non-ASCII
/// text and panics when a character's low byte is 0, as in U+0100.)
pub fn resp_line(text: &str) -> CString {
    let bytes: Vec<u8> =
        text.bytes().map(|b| if matches!(b, b'\r' | b'\n' | 0) { b' ' } else { b }).collect();
    CString::new(bytes).unwrap_or_default()
}

fn simple(ctx: &Context, s: &str) {
    // `+OK` answers most writes: no allocation for it.
    if s == "OK" {
        raw::reply_with_simple_string(ctx.ctx, c"OK".as_ptr());
        return;
    }
    // The line and its NUL in a buffer kept between replies (FT.INFO sends dozens).
    thread_local! {
        static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    LINE.with(|line| {
        let mut line = line.borrow_mut();
        line.clear();
        escape_simple(s, &mut line);
        line.push(0);
        raw::reply_with_simple_string(ctx.ctx, line.as_ptr().cast::<c_char>());
        if line.capacity() > 4096 {
            *line = Vec::new();
        }
    });
}

/// [`simple_line`]'s bytes, without the NUL, appended to `out`.
fn escape_simple(text: &str, out: &mut Vec<u8>) {
    for b in text.bytes() {
        match b {
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0 => out.push(b' '),
            b => out.push(b),
        }
    }
}

/// Text for a simple string reply: CR and LF written as `\r` and `\n`, as RediSearch escapes
/// names and values it sends as simple strings (index names, FT.INFO, FT.EXPLAIN lines); NUL
/// becomes a space.
pub fn simple_line(text: &str) -> CString {
    let mut bytes = Vec::with_capacity(text.len());
    escape_simple(text, &mut bytes);
    CString::new(bytes).unwrap_or_default()
}

/// A double as Redis 7.2's `addReplyDouble` writes it (`fpconv_dtoa`): the shortest digits
/// that read back as `d`, plain up to 7 zeros of padding, scientific (`1.5e+21`) beyond.
pub fn shortest_double(d: f64) -> String {
    if d.is_nan() {
        return "nan".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf" } else { "-inf" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // A whole number below 1e15 is its own shortest digits: plain while it ends in at most
    // 7 zeros, as below (FT.INFO's counters take this path).
    if d.fract() == 0.0 && d.abs() < 1e15 {
        let text = (d as i64).to_string();
        let zeros = text.bytes().rev().take_while(|b| *b == b'0').count();
        if zeros <= 7 {
            return text;
        }
    }
    shortest_digits(d)
}

/// [`shortest_double`] of a finite, non-zero `d`, from Rust's shortest round-trip digits.
fn shortest_digits(d: f64) -> String {
    // `{:e}` gives the shortest round-trip digits: `5.454545454545454e-1`.
    let sci = format!("{:e}", d.abs());
    let (mantissa, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n = digits.len() as i32;
    let k = e - (n - 1);
    let exp = e.abs();
    let mut out = String::with_capacity(24);
    if d < 0.0 {
        out.push('-');
    }
    if k >= 0 && exp < n + 7 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', k as usize));
    } else if k < 0 && (k > -7 || exp < 4) {
        let offset = n + k;
        if offset <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-offset) as usize));
            out.push_str(&digits);
        } else {
            let (int, frac) = digits.split_at(offset as usize);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&exp.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::resp_line;

    #[test]
    fn one_line_replies_keep_utf8_and_never_hold_nul_or_newlines() {
        assert_eq!(resp_line("ERR Path '.nope[\"é\"]'").to_bytes(), "ERR Path '.nope[\"é\"]'".as_bytes());
        assert_eq!(resp_line("a\u{100}b\u{1F600}").to_bytes(), "a\u{100}b\u{1F600}".as_bytes());
        assert_eq!(resp_line("x\r\ny\0z").to_bytes(), b"x  y z");
        assert_eq!(super::simple_line("x\r\ny\0z").to_bytes(), b"x\\r\\ny z");
    }
}

#[cfg(test)]
mod double_tests {
    use super::{shortest_digits, shortest_double};

    #[test]
    fn whole_numbers_take_a_shortcut_to_the_same_text() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut cases: Vec<f64> =
            vec![1.0, -1.0, 40.0, 1e7, -1e7, 1e8, 1.2e8, 1e14, 999_999_999_999_999.0, 1e15];
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 16) as i32;
            let zeros = ((x >> 8) % 10) as i32;
            let v = ((x >> 16) % 10u64.pow(digits.clamp(1, 15) as u32)) as f64 * 10f64.powi(zeros);
            cases.push(if x & 1 == 0 { v } else { -v });
        }
        for d in cases.into_iter().filter(|d| *d != 0.0) {
            assert_eq!(shortest_double(d), shortest_digits(d), "{d}");
        }
    }

    #[test]
    fn doubles_read_as_redis_7_2_writes_them() {
        // Expected texts: Redis 7.2's fpconv_dtoa (RediSearch 2.10 WITHSCORES replies).
        for (d, s) in [
            (0.5454545454545454, "0.5454545454545454"),
            (4.0, "4"),
            (3.3333333333333335, "3.3333333333333335"),
            (0.4, "0.4"),
            (-2.5, "-2.5"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.00012, "0.00012"),
            (123456789.0, "123456789"),
            (1e7, "10000000"),
        ] {
            assert_eq!(shortest_double(d), s, "{d}");
        }
    }
}
