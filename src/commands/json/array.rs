//! JSON.ARRAPPEND, ARRINDEX, ARRINSERT, ARRLEN, ARRPOP, ARRTRIM.

use json::ops::array::{arr_append, arr_index, arr_insert, arr_len, arr_pop, arr_trim};
use json::Value;
use redis_module::Context;

use super::{
    changed, compile, int_arg, int_slots, op_err, parse_value, to_bulk, to_resp3_native, with_doc,
    ReplyFormat,
};
use crate::args::utf8;
use crate::commands::Invocation;
use crate::error::{CommandResult, Error};
use crate::keys::JsonKey;
use crate::reply::{Protocol, Reply};

fn parse_values(args: &[&[u8]]) -> Result<Vec<Value>, Error> {
    args.iter().map(|a| parse_value(a)).collect()
}

/// Legacy writes reply with the last match's result, JSONPath with one slot per match.
fn length_reply(legacy: bool, results: &[Option<usize>]) -> Reply {
    if legacy {
        results.iter().rev().find_map(|r| *r).map(|n| Reply::Int(n as i64)).unwrap_or(Reply::Nil)
    } else {
        int_slots(results)
    }
}

/// JSON.ARRAPPEND <key> <path> <json> [json ...]
pub fn arrappend(ctx: &Context, inv: &Invocation) -> CommandResult {
    super::path_utf8(inv)?;
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    // RedisJSON reads the path first: one that is not UTF-8 is refused before anything else.
    let values = parse_values(&inv.args[2..])?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let doc = key.existing()?;
    let path = compile(inv.args[1])?;
    let outcome = arr_append(doc, &path, &values).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, c"json.arrappend", &path);
    }
    Ok(length_reply(path.is_legacy(), &outcome.results))
}

/// JSON.ARRINDEX <key> <path> <json> [start [stop]]
pub fn arrindex(ctx: &Context, inv: &Invocation) -> CommandResult {
    super::path_utf8(inv)?;
    // Arguments are read in order, so a bad integer is reported before too many arguments.
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    utf8(inv.args[2])?;
    let start = inv.args.get(3).map(|a| int_arg(a)).transpose()?.unwrap_or(0);
    let stop = inv.args.get(4).map(|a| int_arg(a)).transpose()?.unwrap_or(0);
    if inv.len() > 5 {
        return Err(Error::WrongArity);
    }
    // The value is parsed before the key is looked at, even its type (as RedisJSON does), and
    // a JSON error carries the ERR prefix here (RedisJSON converts it differently).
    let value = parse_value(inv.args[2]).map_err(|e| match e {
        Error::Reply(text) => Error::msg(format!("ERR {text}")),
        other => other,
    })?;
    with_doc(ctx, inv, |doc| {
        let doc = doc.ok_or_else(|| {
            Error::msg(format!("ERR Path '{}' does not exist", String::from_utf8_lossy(inv.args[1])))
        })?;
        let path = compile(inv.args[1])?;
        let slots = arr_index(doc, &path, &value, start, stop).map_err(op_err)?;
        let int = |s: &Option<i64>| s.map(Reply::Int).unwrap_or(Reply::Nil);
        Ok(if path.is_legacy() {
            slots.first().map(int).unwrap_or(Reply::Nil)
        } else {
            Reply::Array(slots.iter().map(int).collect())
        })
    })
}

/// JSON.ARRINSERT <key> <path> <index> <json> [json ...]
pub fn arrinsert(ctx: &Context, inv: &Invocation) -> CommandResult {
    super::path_utf8(inv)?;
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    let index = int_arg(inv.args[2])?;
    if inv.len() < 4 {
        return Err(Error::WrongArity);
    }
    let values = parse_values(&inv.args[3..])?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let doc = key.existing()?;
    let path = compile(inv.args[1])?;
    let outcome = arr_insert(doc, &path, index, &values).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, c"json.arrinsert", &path);
    }
    Ok(length_reply(path.is_legacy(), &outcome.results))
}

/// JSON.ARRLEN <key> [path]
pub fn arrlen(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    with_doc(ctx, inv, |doc| {
        let Some(doc) = doc else { return super::missing_key_length(inv) };
        let path = super::lenient_path_at(inv, 1)?;
        Ok(super::lengths_reply(&path, &arr_len(doc, &path).map_err(op_err)?))
    })
}

/// JSON.ARRPOP <key> [FORMAT STRINGS|EXPAND1|EXPAND] [path [index]]
pub fn arrpop(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    let proto = Protocol::of(ctx);
    let mut rest = &inv.args[1..];
    let mut format = ReplyFormat::String;
    // `FORMAT <value>`: values are case-sensitive, any FORMAT is refused on RESP2 (even
    // STRINGS), as in RedisJSON. A lone trailing `FORMAT` is the path.
    // A FORMAT value that is not UTF-8 leaves `FORMAT` to be the path (RedisJSON).
    if let [first, value, tail @ ..] = rest {
        if first.eq_ignore_ascii_case(b"FORMAT") && std::str::from_utf8(value).is_ok() {
            format = match *value {
                b"STRINGS" => ReplyFormat::String,
                b"EXPAND1" => ReplyFormat::Expand1,
                b"EXPAND" => ReplyFormat::Expand,
                _ => return Err(Error::msg("ERR wrong reply format")),
            };
            if !proto.is_resp3() {
                return Err(Error::msg("ERR FORMAT argument is not supported on RESP2"));
            }
            rest = tail;
        }
    }
    let path_arg = rest.first().copied().unwrap_or(super::DEFAULT_PATH.as_bytes());
    utf8(path_arg)?;
    // An index that does not parse counts as the default, as in RedisJSON.
    let index = rest.get(1).and_then(|a| int_arg(a).ok()).unwrap_or(-1);
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    // A legacy path (judged by its text) with an expanding FORMAT fails before the key is read
    // (even its type).
    let legacy = !std::str::from_utf8(path_arg).is_ok_and(json::path::legacy::is_jsonpath);
    if legacy && format != ReplyFormat::String {
        return Err(Error::msg("Legacy paths are supported only with FORMAT STRINGS"));
    }
    let doc = key.existing()?;
    let path = compile(path_arg)?;
    let outcome = arr_pop(doc, &path, index).map_err(op_err)?;
    // A legacy path notifies once an array matched, even an empty one (RedisJSON).
    if outcome.changed || (path.is_legacy() && outcome.results.iter().any(Option::is_some)) {
        changed(ctx, inv, c"json.arrpop", &path);
    }
    let popped = |v: &Option<Option<Value>>| match v {
        Some(Some(v)) => match format {
            ReplyFormat::String => to_bulk(v),
            ReplyFormat::Expand1 => super::expand1(v),
            ReplyFormat::Expand => to_resp3_native(v),
        },
        _ => Reply::Nil,
    };
    Ok(if path.is_legacy() {
        // The last array match's result, nil when that array was empty (RedisJSON).
        outcome.results.iter().rev().find(|r| r.is_some()).map(popped).unwrap_or(Reply::Nil)
    } else {
        Reply::Array(outcome.results.iter().map(popped).collect())
    })
}

/// JSON.ARRTRIM <key> <path> <start> <stop>
pub fn arrtrim(ctx: &Context, inv: &Invocation) -> CommandResult {
    super::path_utf8(inv)?;
    // Arguments after stop are ignored, as RedisJSON does.
    // Read in order: a bad start is reported before a missing stop.
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    let start = int_arg(inv.args[2])?;
    let stop = int_arg(inv.args.get(3).ok_or(Error::WrongArity)?)?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let doc = key.existing()?;
    let path = compile(inv.args[1])?;
    let outcome = arr_trim(doc, &path, start, stop).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, c"json.arrtrim", &path);
    }
    Ok(length_reply(path.is_legacy(), &outcome.results))
}
