//! JSON.ARRAPPEND, ARRINDEX, ARRINSERT, ARRLEN, ARRPOP, ARRTRIM.

use json::ops::array::{arr_append, arr_index, arr_insert, arr_len, arr_pop, arr_trim};
use json::Value;
use redis_module::Context;

use super::{changed, compile, int_slots, op_err, parse_value, to_bulk, to_resp3_native, with_doc, ReplyFormat};
use crate::commands::Invocation;
use crate::error::{CommandResult, Error};
use crate::keys::{JsonKey, NO_KEY};
use crate::reply::{Protocol, Reply};

/// An integer argument, with redis-module's wording (which RedisJSON replies).
fn int_arg(bytes: &[u8]) -> Result<i64, Error> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| Error::msg("Couldn't parse as integer"))
}

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
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    let path = compile(inv.args[1])?;
    let values = parse_values(&inv.args[2..])?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let outcome = arr_append(key.existing()?, &path, &values).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, "json.arrappend");
    }
    Ok(length_reply(path.is_legacy(), &outcome.results))
}

/// JSON.ARRINDEX <key> <path> <json> [start [stop]]
pub fn arrindex(ctx: &Context, inv: &Invocation) -> CommandResult {
    if !(3..=5).contains(&inv.len()) {
        return Err(Error::WrongArity);
    }
    let path = compile(inv.args[1])?;
    let value = parse_value(inv.args[2])?;
    let start = inv.args.get(3).map(|a| int_arg(a)).transpose()?.unwrap_or(0);
    let stop = inv.args.get(4).map(|a| int_arg(a)).transpose()?.unwrap_or(0);
    with_doc(ctx, inv, |doc| {
        let doc = doc.ok_or_else(|| Error::msg(format!("ERR Path '{}' does not exist", path.original())))?;
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
    if inv.len() < 4 {
        return Err(Error::WrongArity);
    }
    let path = compile(inv.args[1])?;
    let index = int_arg(inv.args[2])?;
    let values = parse_values(&inv.args[3..])?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let outcome = arr_insert(key.existing()?, &path, index, &values).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, "json.arrinsert");
    }
    Ok(length_reply(path.is_legacy(), &outcome.results))
}

/// JSON.ARRLEN <key> [path]
pub fn arrlen(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    let path = super::path_at(inv, 1)?;
    with_doc(ctx, inv, |doc| {
        let Some(doc) = doc else {
            return if path.is_legacy() { Ok(Reply::Nil) } else { Err(Error::msg(NO_KEY)) };
        };
        let slots = arr_len(doc, &path).map_err(op_err)?;
        Ok(if path.is_legacy() {
            slots.first().copied().flatten().map(|n| Reply::Int(n as i64)).unwrap_or(Reply::Nil)
        } else {
            int_slots(&slots)
        })
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
    if rest.first().is_some_and(|a| a.eq_ignore_ascii_case(b"FORMAT")) {
        let value = rest.get(1).ok_or(Error::WrongArity)?;
        format = if value.eq_ignore_ascii_case(b"STRINGS") {
            ReplyFormat::String
        } else if value.eq_ignore_ascii_case(b"EXPAND1") || value.eq_ignore_ascii_case(b"EXPAND") {
            if !proto.is_resp3() {
                return Err(Error::msg("ERR FORMAT argument is not supported on RESP2"));
            }
            if value.eq_ignore_ascii_case(b"EXPAND1") { ReplyFormat::Expand1 } else { ReplyFormat::Expand }
        } else {
            return Err(Error::msg("ERR wrong reply format"));
        };
        rest = &rest[2..];
    }
    let path = compile(rest.first().copied().unwrap_or(super::DEFAULT_PATH.as_bytes()))?;
    if path.is_legacy() && format != ReplyFormat::String {
        return Err(Error::msg("Legacy paths are supported only with FORMAT STRINGS"));
    }
    // An index that does not parse counts as the default, as in RedisJSON.
    let index = rest.get(1).and_then(|a| int_arg(a).ok()).unwrap_or(-1);
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let outcome = arr_pop(key.existing()?, &path, index).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, "json.arrpop");
    }
    let popped = |v: &Option<Option<Value>>| match v {
        Some(Some(v)) => match format {
            ReplyFormat::String => to_bulk(v),
            ReplyFormat::Expand1 => to_resp3_native(v, Some(0)),
            ReplyFormat::Expand => to_resp3_native(v, None),
        },
        _ => Reply::Nil,
    };
    Ok(if path.is_legacy() {
        outcome.results.iter().rev().find(|r| r.is_some()).map(popped).unwrap_or(Reply::Nil)
    } else {
        Reply::Array(outcome.results.iter().map(popped).collect())
    })
}

/// JSON.ARRTRIM <key> <path> <start> <stop>
pub fn arrtrim(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.len() != 4 {
        return Err(Error::WrongArity);
    }
    let path = compile(inv.args[1])?;
    let start = int_arg(inv.args[2])?;
    let stop = int_arg(inv.args[3])?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let outcome = arr_trim(key.existing()?, &path, start, stop).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, "json.arrtrim");
    }
    Ok(length_reply(path.is_legacy(), &outcome.results))
}
