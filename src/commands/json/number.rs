//! JSON.NUMINCRBY, JSON.NUMMULTBY, JSON.NUMPOWBY.

use json::ops::num::{num_op, NumOp};
use json::{Num, Value};
use redis_module::Context;
use std::ffi::CStr;

use super::{changed, compile, op_err};
use crate::args::utf8;
use crate::commands::Invocation;
use crate::error::{CommandResult, Error};
use crate::keys::JsonKey;
use crate::reply::{Protocol, Reply};

/// A new value on RESP3: integer, or double.
fn resp3_number(n: &Num) -> Reply {
    match n {
        Num::I64(i) => Reply::Int(*i),
        Num::U64(u) => i64::try_from(*u).map(Reply::Int).unwrap_or(Reply::Double(*u as f64)),
        Num::F64(f) => Reply::Double(*f),
    }
}

fn num_command(ctx: &Context, inv: &Invocation, op: NumOp, event: &CStr) -> CommandResult {
    super::path_utf8(inv)?;
    // Arguments after the number are ignored, as RedisJSON does.
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    let number = utf8(inv.args[2])?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let doc = key.existing()?;
    let mut path = compile(inv.args[1])?;
    let resp3 = Protocol::of(ctx).is_resp3();
    if resp3 && path.is_legacy() {
        // On RESP3 RedisJSON answers a legacy path like its JSONPath spelling: one slot per match.
        path = compile(path.converted().as_bytes())?;
    }
    let outcome = num_op(doc, &path, number, op).map_err(op_err)?;
    if outcome.changed {
        changed(ctx, inv, event, &path);
    }
    Ok(match (path.is_legacy(), resp3) {
        (true, _) => {
            let last = outcome.last().copied().ok_or_else(|| Error::msg("ERR no number at path"))?;
            Reply::Bulk(Value::from(last).to_json().into_bytes())
        }
        (false, false) => {
            // RESP2 with a JSONPath: a bulk string holding a JSON array of the new values.
            let arr = Value::array(
                outcome.results.iter().map(|r| r.map(Value::from).unwrap_or_else(Value::null)).collect(),
            );
            Reply::Bulk(arr.to_json().into_bytes())
        }
        (false, true) => Reply::Array(
            outcome.results.iter().map(|r| r.as_ref().map(resp3_number).unwrap_or(Reply::Nil)).collect(),
        ),
    })
}

/// JSON.NUMINCRBY <key> <path> <number>
pub fn numincrby(ctx: &Context, inv: &Invocation) -> CommandResult {
    num_command(ctx, inv, NumOp::Incr, c"json.numincrby")
}

/// JSON.NUMMULTBY <key> <path> <number>
pub fn nummultby(ctx: &Context, inv: &Invocation) -> CommandResult {
    num_command(ctx, inv, NumOp::Mult, c"json.nummultby")
}

/// JSON.NUMPOWBY <key> <path> <number>
pub fn numpowby(ctx: &Context, inv: &Invocation) -> CommandResult {
    num_command(ctx, inv, NumOp::Pow, c"json.numpowby")
}
