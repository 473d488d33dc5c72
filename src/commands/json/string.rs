//! JSON.STRAPPEND and JSON.STRLEN.

use json::ops::string::{str_append, str_len};
use redis_module::Context;

use super::{changed, int_slots, op_err, with_doc, DEFAULT_PATH};
use crate::args::utf8;
use crate::commands::Invocation;
use crate::error::{CommandResult, Error};
use crate::keys::JsonKey;
use crate::reply::Reply;

/// JSON.STRAPPEND <key> [path] <json-string>
pub fn strappend(ctx: &Context, inv: &Invocation) -> CommandResult {
    let (path_arg, value) = match inv.args {
        [_, value] => (DEFAULT_PATH.as_bytes(), *value),
        // Arguments after the value are ignored, as RedisJSON does.
        [_, path, value, ..] => (*path, *value),
        _ => return Err(Error::WrongArity),
    };
    // Read in RedisJSON's order: the path, the value, then the key.
    utf8(path_arg)?;
    let value = utf8(value)?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let doc = key.existing()?;
    let path = super::compile(path_arg)?;
    let outcome = str_append(doc, &path, value).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, c"json.strappend", &path);
    }
    Ok(if path.is_legacy() {
        outcome.last().map(|n| Reply::Int(*n as i64)).unwrap_or(Reply::Nil)
    } else {
        int_slots(&outcome.results)
    })
}

/// JSON.STRLEN <key> [path]
pub fn strlen(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    with_doc(ctx, inv, |doc| {
        let Some(doc) = doc else { return super::missing_key_length(inv) };
        let path = super::lenient_path_at(inv, 1)?;
        Ok(super::lengths_reply(&path, &str_len(doc, &path).map_err(op_err)?))
    })
}
