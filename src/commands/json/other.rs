//! JSON.CLEAR, JSON.TOGGLE, JSON.MERGE, JSON.RESP.

use json::ops::set::SetOutcome;
use redis_module::Context;

use super::{changed, compile, op_err, path_at, to_resp, with_doc, InputFormat};
use crate::args::{utf8, Args};
use crate::commands::Invocation;
use crate::error::{CommandResult, Error, SYNTAX};
use crate::keys::JsonKey;
use crate::reply::{Protocol, Reply};

/// JSON.CLEAR <key> [path]
///
/// Only the first path is used; later arguments are ignored, as in RedisJSON.
pub fn clear(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    // RedisJSON reads every argument as a path (and uses the first): all must be UTF-8.
    for a in &inv.args[1..] {
        utf8(a)?;
    }
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let doc = key.existing()?;
    let path = path_at(inv, 1)?;
    let count = json::ops::clear::clear(doc, &path);
    if count > 0 {
        changed(ctx, inv, c"json.clear", &path);
    }
    Ok(Reply::Int(count as i64))
}

/// JSON.TOGGLE <key> <path>
pub fn toggle(ctx: &Context, inv: &Invocation) -> CommandResult {
    super::path_utf8(inv)?;
    if inv.len() < 2 {
        return Err(Error::WrongArity);
    }
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let doc = key.existing()?;
    let path = compile(inv.args[1])?;
    let outcome = json::ops::toggle::toggle(doc, &path).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, c"json.toggle", &path);
    }
    Ok(if path.is_legacy() {
        match outcome.last() {
            Some(true) => Reply::bulk("true"),
            Some(false) => Reply::bulk("false"),
            None => Reply::Nil,
        }
    } else {
        Reply::Array(
            outcome
                .results
                .iter()
                .map(|r| r.map(|b| Reply::Int(i64::from(b))).unwrap_or(Reply::Nil))
                .collect(),
        )
    })
}

/// JSON.MERGE <key> <path> <json> [FORMAT JSON|STRING|BSON]
pub fn merge(ctx: &Context, inv: &Invocation) -> CommandResult {
    super::path_utf8(inv)?;
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    // RedisJSON's order: the path and the patch must be UTF-8, then each option in turn.
    utf8(inv.args[2])?;
    let mut input = InputFormat::Json;
    let mut args = Args::new(&inv.args[3..]);
    while let Some(a) = args.next_opt() {
        if !utf8(a)?.eq_ignore_ascii_case("FORMAT") {
            return Err(Error::msg(SYNTAX));
        }
        input = InputFormat::parse(args.next_str()?.as_bytes())?;
    }
    // RedisJSON's order: key type, patch, then the path (only compiled for an existing key).
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let exists = key.value()?.is_some();
    let patch = input.read(inv.args[2])?;
    if !exists && !matches!(inv.args[1], b"$" | b".") {
        return Err(Error::msg("ERR new objects must be created at the root"));
    }
    let path = compile(inv.args[1])?;
    match key.value()? {
        None => {
            if !path.is_root() {
                return Err(Error::msg("ERR new objects must be created at the root"));
            }
            // Merging into nothing: the patch with its nulls removed.
            let mut doc = json::Value::null();
            json::ops::set::merge_patch(&mut doc, &patch);
            key.put(doc)?;
        }
        Some(doc) => {
            if json::ops::set::merge(doc, &path, &patch).map_err(op_err)? == SetOutcome::NotSet {
                return Ok(Reply::Nil);
            }
        }
    }
    changed(ctx, inv, c"json.merge", &path);
    Ok(Reply::OK)
}

/// JSON.RESP <key> [path]
pub fn resp(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    if let Some(p) = inv.args.get(1) {
        utf8(p)?;
    }
    let proto = Protocol::of(ctx);
    with_doc(ctx, inv, |doc| {
        let Some(doc) = doc else { return Ok(Reply::Nil) };
        let path = path_at(inv, 1)?;
        if path.is_legacy() {
            let first = path
                .first(doc)
                .ok_or_else(|| Error::msg(format!("ERR Path '{}' does not exist", path.converted())))?;
            Ok(to_resp(&first, proto))
        } else {
            Ok(Reply::Array(path.select(doc).into_iter().map(|v| to_resp(&v, proto)).collect()))
        }
    })
}
