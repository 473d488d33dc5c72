//! JSON.* command handlers: arguments in, `json` crate operations, replies out.
//!
//! Reply shapes follow RedisJSON 2.8: a legacy path (`.a.b`) answers with a single value (the
//! first match for reads, the last for writes), a JSONPath (`$…`) answers with one entry per
//! match, nil for a match of the wrong type. One file per command family.

mod array;
mod core;
mod number;
mod object;
mod other;
mod string;

pub use array::{arrappend, arrindex, arrinsert, arrlen, arrpop, arrtrim};
pub use core::{debug, del, get, mget, mset, set, type_};
pub use number::{numincrby, nummultby, numpowby};
pub use object::{objkeys, objlen};
pub use other::{clear, merge, resp, toggle};
pub use string::{strappend, strlen};

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::c_char;

use json::path::JsonPath;
use json::{Format, Value};
use redis_module::{raw, Context};

use crate::args::utf8;
use crate::commands::Invocation;
use crate::error::{CommandResult, Error};
use crate::keys;
use crate::reply::{Protocol, Reply};

/// The path used when a command's path argument is omitted.
pub(crate) const DEFAULT_PATH: &str = ".";

/// Paths of at most this many bytes are kept compiled in [`PATHS`].
const PATH_CACHE_MAX_LEN: usize = 256;
/// [`PATHS`] is emptied when it holds this many paths (bounds it to about 1 MB).
const PATH_CACHE_ENTRIES: usize = 1024;

thread_local! {
    /// Compiled paths by their text: a workload repeats a few paths, so each is parsed once
    /// rather than per command. (Commands run on Redis's main thread; `JsonPath` clones share
    /// the compiled form.) Only paths that compile are kept.
    static PATHS: RefCell<HashMap<Box<[u8]>, JsonPath>> = RefCell::new(HashMap::new());
}

/// Compiles a path argument, with the reference's error text when it does not parse.
pub(crate) fn compile(path: &[u8]) -> Result<JsonPath, Error> {
    if let Some(hit) = PATHS.with(|c| c.borrow().get(path).cloned()) {
        return Ok(hit);
    }
    let text = utf8(path)?;
    let compiled = JsonPath::parse(text).map_err(|e| Error::msg(path_error_text(text, &e)))?;
    if path.len() <= PATH_CACHE_MAX_LEN {
        PATHS.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= PATH_CACHE_ENTRIES {
                c.clear();
            }
            c.insert(path.into(), compiled.clone());
        });
    }
    Ok(compiled)
}

/// RedisJSON 2.8's text for a path that does not compile: the position, the JSONPath spelling
/// with a marker at the error, and what the grammar expected there:
/// `Error occurred on position 4, "$.x[ <<<<----", expected one of the following: … .`
fn path_error_text(text: &str, e: &json::path::PathError) -> String {
    if e.expected().is_empty() {
        return e.to_string();
    }
    let converted = json::path::legacy::to_jsonpath(text);
    let p = e.position();
    let marked = match converted.get(..p).zip(converted.get(p..)) {
        Some((head, tail)) if !tail.is_empty() => format!("{head} ---->>>> {tail}"),
        _ => format!("{converted} <<<<----"),
    };
    format!("Error occurred on position {p}, \"{marked}\", {}.", e.message())
}

/// RedisJSON reads the key and then the path of most commands with `next_str`: a path that is
/// not UTF-8 is refused before the other arguments are counted or read.
pub(crate) fn path_utf8(inv: &Invocation) -> Result<(), Error> {
    match inv.args.get(1) {
        Some(p) => utf8(p).map(|_| ()),
        None => Ok(()),
    }
}

/// The path argument at `i`, or the default path.
pub(crate) fn path_at(inv: &Invocation, i: usize) -> Result<JsonPath, Error> {
    compile(inv.args.get(i).copied().unwrap_or(DEFAULT_PATH.as_bytes()))
}

/// The optional path argument at `i` of JSON.TYPE, OBJKEYS, OBJLEN, STRLEN, ARRLEN and DEBUG
/// MEMORY: the default path when absent or not UTF-8 (RedisJSON 2.8.3 reads it with
/// `next_str().ok()` there, measured).
pub(crate) fn lenient_path_arg<'a>(inv: &Invocation<'a>, i: usize) -> &'a [u8] {
    inv.args.get(i).copied().filter(|a| std::str::from_utf8(a).is_ok()).unwrap_or(DEFAULT_PATH.as_bytes())
}

/// [`path_at`] for the commands of [`lenient_path_arg`].
pub(crate) fn lenient_path_at(inv: &Invocation, i: usize) -> Result<JsonPath, Error> {
    compile(lenient_path_arg(inv, i))
}

/// An integer argument, with redis-module's wording (which RedisJSON replies); no `+` sign.
pub(crate) fn int_arg(bytes: &[u8]) -> Result<i64, Error> {
    std::str::from_utf8(bytes)
        .ok()
        .filter(|s| !s.starts_with('+'))
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| Error::msg("Couldn't parse as integer"))
}

/// Parses a JSON argument (command input: depth-limited), with serde_json's error text.
pub(crate) fn parse_value(text: &[u8]) -> Result<Value, Error> {
    Value::parse(text).map_err(|e| Error::msg(e.to_string()))
}

/// Parses a value argument with `JSON.SET … FPHA <type>`: every non-empty array of numbers is
/// stored as that float type; a number out of its range fails with Redis 8.8's text
/// (`value out of range for F16 at line 1 column 13`).
pub(crate) fn parse_value_fpha(text: &[u8], fpha: Option<json::FpType>) -> Result<Value, Error> {
    match fpha {
        None => parse_value(text),
        Some(ty) => Value::parse_fpha(text, ty).map_err(|e| Error::msg(e.to_string())),
    }
}

/// The input format of JSON.SET and JSON.MERGE (`FORMAT JSON|STRING|BSON`, case-sensitive;
/// `STRING` is JSON text too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InputFormat {
    Json,
    Bson,
}

impl InputFormat {
    /// The value after `FORMAT`, or RedisJSON's error.
    pub(crate) fn parse(value: &[u8]) -> Result<InputFormat, Error> {
        match value {
            b"JSON" | b"STRING" => Ok(InputFormat::Json),
            b"BSON" => Ok(InputFormat::Bson),
            _ => Err(Error::msg("ERR wrong format")),
        }
    }

    /// Parses a value argument: JSON text, or the first element of a BSON document read as
    /// RedisJSON 2.8.3 does ([`json::bson`]). The argument must be UTF-8 either way.
    pub(crate) fn read(self, arg: &[u8]) -> Result<Value, Error> {
        self.read_fpha(arg, None)
    }

    /// [`InputFormat::read`] with JSON.SET's `FPHA` type, if given.
    pub(crate) fn read_fpha(self, arg: &[u8], fpha: Option<json::FpType>) -> Result<Value, Error> {
        match self {
            InputFormat::Json => parse_value_fpha(arg, fpha),
            InputFormat::Bson => {
                let text =
                    std::str::from_utf8(arg).map_err(|_| Error::msg("Couldn't parse as UTF-8 string"))?;
                parse_value_fpha(
                    json::bson::to_json_text(text.as_bytes()).map_err(Error::msg)?.as_bytes(),
                    fpha,
                )
            }
        }
    }
}

/// An op error as a reply error.
pub(crate) fn op_err(e: json::ops::OpError) -> Error {
    Error::msg(e.message().to_owned())
}

/// Compact JSON text of `v`.
pub(crate) fn to_bulk(v: &Value) -> Reply {
    Reply::Bulk(v.to_json().into_bytes())
}

/// JSON text of `v` with formatting.
pub(crate) fn serialize(v: &Value, fmt: &Format) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    v.write_json(&mut out, fmt);
    out
}

/// Replies with the bulk string `write` produces, written into a buffer kept between commands and
/// sent from there (no allocation per reply, no copy into a reply value). Returns [`Reply::Sent`]:
/// call it last, once nothing can fail.
pub(crate) fn send_bulk(ctx: &Context, write: impl FnOnce(&mut Vec<u8>)) -> Reply {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.clear();
        write(&mut s);
        raw::reply_with_string_buffer(ctx.ctx, s.as_ptr().cast::<c_char>(), s.len());
        if s.capacity() > SCRATCH_KEEP {
            *s = Vec::new();
        }
    });
    Reply::Sent
}

/// [`SCRATCH`] is released after a reply larger than this.
const SCRATCH_KEEP: usize = 1 << 20;

thread_local! {
    /// Output buffer of [`send_bulk`], reused between commands.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Replies with the compact JSON text of a whole document, `[text]` when `wrapped` (path `$`),
/// through the cache of documents read whole repeatedly ([`crate::text_cache`]).
pub(crate) fn send_document(ctx: &Context, doc: &Value, wrapped: bool) -> Reply {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        crate::text_cache::with_text(doc, &mut s, |text| {
            if wrapped {
                let mut framed = Vec::with_capacity(text.len() + 2);
                framed.push(b'[');
                framed.extend_from_slice(text);
                framed.push(b']');
                raw::reply_with_string_buffer(ctx.ctx, framed.as_ptr().cast::<c_char>(), framed.len());
            } else {
                raw::reply_with_string_buffer(ctx.ctx, text.as_ptr().cast::<c_char>(), text.len());
            }
        });
        if s.capacity() > SCRATCH_KEEP {
            *s = Vec::new();
        }
    });
    Reply::Sent
}

/// Per-match lengths (STRLEN, ARRLEN, OBJLEN): a legacy path answers with its first match (nil
/// when there is none), a JSONPath with one slot per match.
pub(crate) fn lengths_reply(path: &JsonPath, slots: &[Option<usize>]) -> Reply {
    if path.is_legacy() {
        slots.first().copied().flatten().map(|n| Reply::Int(n as i64)).unwrap_or(Reply::Nil)
    } else {
        int_slots(slots)
    }
}

/// A length read (STRLEN, ARRLEN) of a missing key: nil for a legacy path, else the key error.
pub(crate) fn missing_key_length(inv: &Invocation) -> CommandResult {
    if legacy_arg(inv, 1) {
        Ok(Reply::Nil)
    } else {
        Err(Error::msg(crate::keys::NO_KEY))
    }
}

/// Per-match integers: `[n | nil, …]`.
pub(crate) fn int_slots(slots: &[Option<usize>]) -> Reply {
    Reply::Array(slots.iter().map(|s| s.map(|n| Reply::Int(n as i64)).unwrap_or(Reply::Nil)).collect())
}

/// True when the path argument at `i` (or the default path) is a legacy path, judged by its text.
pub(crate) fn legacy_arg(inv: &Invocation, i: usize) -> bool {
    let text = inv.args.get(i).copied().unwrap_or(DEFAULT_PATH.as_bytes());
    !std::str::from_utf8(text).is_ok_and(json::path::legacy::is_jsonpath)
}

/// Runs `f` on the document at the first argument, read-only; `None` when the key is missing.
pub(crate) fn with_doc<R>(
    ctx: &Context,
    inv: &Invocation,
    f: impl FnOnce(Option<&Value>) -> Result<R, Error>,
) -> Result<R, Error> {
    let key = keys::open(ctx, &inv.argv[0]);
    f(keys::read(&key)?)
}

/// A value as nested RESP (JSON.RESP, FORMAT EXPAND): objects `["{", k, v, …]`, arrays
/// `["[", …]`, booleans as simple strings, doubles as bulk strings on RESP2.
pub(crate) fn to_resp(v: &Value, proto: Protocol) -> Reply {
    use json::Kind;
    match v.kind() {
        Kind::Null => Reply::Nil,
        Kind::Bool => Reply::Simple(if v.as_bool() == Some(true) { "true" } else { "false" }),
        Kind::Integer => match v.as_i64() {
            Some(i) => Reply::Int(i),
            None => Reply::Bulk(v.to_json().into_bytes()),
        },
        Kind::Number => number_reply(v, proto),
        Kind::String => Reply::Bulk(v.as_str().unwrap_or_default().as_bytes().to_vec()),
        Kind::Array => {
            let mut items = Vec::with_capacity(v.len().unwrap_or(0) + 1);
            items.push(Reply::Simple("["));
            items.extend(v.iter().map(|x| to_resp(&x, proto)));
            Reply::Array(items)
        }
        Kind::Object => {
            let mut items = Vec::with_capacity(2 * v.obj_len().unwrap_or(0) + 1);
            items.push(Reply::Simple("{"));
            for (k, x) in v.obj_iter() {
                items.push(Reply::Bulk(k.as_bytes().to_vec()));
                items.push(to_resp(x, proto));
            }
            Reply::Array(items)
        }
    }
}

/// A float as RESP double (on RESP2 Redis sends it as a `%.17g` bulk string, as RedisJSON does).
fn number_reply(v: &Value, _proto: Protocol) -> Reply {
    v.as_f64().map(Reply::Double).unwrap_or_else(|| Reply::Bulk(v.to_json().into_bytes()))
}

/// A value as native RESP3 (FORMAT EXPAND): maps, arrays, booleans, numbers, nulls.
pub(crate) fn to_resp3_native(v: &Value) -> Reply {
    use json::Kind;
    match v.kind() {
        Kind::Null => Reply::Nil,
        Kind::Bool => Reply::Bool(v.as_bool() == Some(true)),
        Kind::Integer => {
            v.as_i64().map(Reply::Int).unwrap_or_else(|| Reply::Double(v.as_f64().unwrap_or(f64::NAN)))
        }
        Kind::Number => Reply::Double(v.as_f64().unwrap_or(f64::NAN)),
        Kind::String => Reply::Bulk(v.as_str().unwrap_or_default().as_bytes().to_vec()),
        Kind::Array => Reply::Array(v.iter().map(|x| to_resp3_native(&x)).collect()),
        Kind::Object => Reply::Map(
            v.obj_iter().map(|(k, x)| (Reply::Bulk(k.as_bytes().to_vec()), to_resp3_native(x))).collect(),
        ),
    }
}

/// A value under FORMAT EXPAND1 (compact): numbers, booleans and null are native RESP3,
/// strings and containers JSON text (as RedisJSON).
pub(crate) fn expand1(v: &Value) -> Reply {
    match v.kind() {
        json::Kind::String | json::Kind::Array | json::Kind::Object => to_bulk(v),
        _ => to_resp3_native(v),
    }
}

/// The reply FORMAT asks for (JSON.GET, JSON.ARRPOP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReplyFormat {
    /// Serialized JSON (the default).
    String,
    /// Native RESP3, one level deep.
    Expand1,
    /// Native RESP3, fully.
    Expand,
}

/// Parses a FORMAT value: RESP3 only; `STRING` is the default, `EXPAND1` and `EXPAND` expand.
/// (Values are case-sensitive, as in RedisJSON.)
pub(crate) fn reply_format(value: &[u8]) -> Result<ReplyFormat, Error> {
    match value {
        b"STRING" => Ok(ReplyFormat::String),
        b"EXPAND1" => Ok(ReplyFormat::Expand1),
        b"EXPAND" => Ok(ReplyFormat::Expand),
        _ => Err(Error::msg("ERR wrong reply format")),
    }
}

/// Announces a change of the key at the first argument, made at `path` (notify, index,
/// replicate).
pub(crate) fn changed(ctx: &Context, inv: &Invocation, event: &CStr, path: &JsonPath) {
    keys::changed_at(ctx, event, &inv.argv[0], Some(path));
}
