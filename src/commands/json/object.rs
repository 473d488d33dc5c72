//! JSON.OBJKEYS and JSON.OBJLEN.

use json::ops::object::{obj_keys, obj_len};
use redis_module::Context;

use super::{lenient_path_at, op_err, with_doc};
use crate::commands::Invocation;
use crate::error::{CommandResult, Error};
use crate::keys::NO_KEY;
use crate::reply::Reply;

fn keys_reply(keys: &[&str]) -> Reply {
    Reply::Array(keys.iter().map(|k| Reply::bulk(*k)).collect())
}

/// JSON.OBJKEYS <key> [path]
pub fn objkeys(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    with_doc(ctx, inv, |doc| {
        let Some(doc) = doc else {
            return if super::legacy_arg(inv, 1) { Ok(Reply::Nil) } else { Err(Error::msg(NO_KEY)) };
        };
        let path = match lenient_path_at(inv, 1) {
            Ok(path) => path,
            // A legacy path that does not compile finds nothing: nil (RedisJSON).
            Err(_) if super::legacy_arg(inv, 1) => return Ok(Reply::Nil),
            Err(e) => return Err(e),
        };
        let slots = obj_keys(doc, &path).map_err(op_err)?;
        Ok(if path.is_legacy() {
            slots.first().and_then(|s| s.as_deref()).map(keys_reply).unwrap_or(Reply::Nil)
        } else {
            Reply::Array(slots.iter().map(|s| s.as_deref().map(keys_reply).unwrap_or(Reply::Nil)).collect())
        })
    })
}

/// JSON.OBJLEN <key> [path]
pub fn objlen(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    with_doc(ctx, inv, |doc| {
        let Some(doc) = doc else {
            return if super::legacy_arg(inv, 1) {
                Ok(Reply::Nil)
            } else {
                // RedisJSON's (odd) text for a missing key here, with the path as given.
                let path = String::from_utf8_lossy(inv.args[1]);
                Err(Error::msg(format!("ERR Path '{path}' does not exist or not an object")))
            };
        };
        let path = match lenient_path_at(inv, 1) {
            Ok(path) => path,
            // A legacy path that does not compile finds nothing: nil (RedisJSON).
            Err(_) if super::legacy_arg(inv, 1) => return Ok(Reply::Nil),
            Err(e) => return Err(e),
        };
        Ok(super::lengths_reply(&path, &obj_len(doc, &path).map_err(op_err)?))
    })
}
