//! Command handlers and the dispatcher every command goes through.
//!
//! The dispatcher is the last line of defence: a handler runs under `catch_unwind`, so a bug that
//! panics becomes an error reply and a log line instead of aborting Redis. A panic found this way is
//! still a bug, with a regression test.

pub mod ft;
pub mod json;

use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::{Context, RedisResult, RedisString, RedisValue};

use crate::error::{CommandResult, Error};
use crate::reply::{emit, Reply};

/// One invocation: the arguments after the command name, as Redis strings (for opening keys) and
/// as byte slices (for parsing).
pub struct Invocation<'a> {
    /// The command name as the client spelled it.
    pub name: &'a [u8],
    /// Arguments after the name.
    pub argv: &'a [RedisString],
    /// The same arguments as bytes.
    pub args: &'a [&'a [u8]],
}

impl Invocation<'_> {
    /// The argument count (command name excluded).
    pub fn len(&self) -> usize {
        self.args.len()
    }

    /// True without arguments.
    pub fn is_empty(&self) -> bool {
        self.args.is_empty()
    }
}

/// Arguments up to this count are viewed without allocating.
const STACK_ARGS: usize = 16;

/// A command handler.
pub type Handler = fn(&Context, &Invocation) -> CommandResult;

/// Runs `handler` for a command and writes its reply.
pub fn dispatch(ctx: &Context, argv: Vec<RedisString>, handler: Handler) -> RedisResult {
    let (name, rest) = match argv.split_first() {
        Some((n, r)) => (n.as_slice(), r),
        None => (&b""[..], &argv[..0]),
    };
    // The byte views live on the stack for the usual few arguments (no allocation per command).
    let mut stack: [&[u8]; STACK_ARGS] = [&[]; STACK_ARGS];
    let heap: Vec<&[u8]>;
    let args: &[&[u8]] = if rest.len() <= STACK_ARGS {
        for (slot, a) in stack.iter_mut().zip(rest) {
            *slot = a.as_slice();
        }
        &stack[..rest.len()]
    } else {
        heap = rest.iter().map(|a| a.as_slice()).collect();
        &heap
    };
    let inv = Invocation { name, argv: rest, args };
    let outcome = catch_unwind(AssertUnwindSafe(|| handler(ctx, &inv)));
    match outcome {
        Ok(Ok(reply)) => emit(ctx, &reply),
        Ok(Err(Error::WrongArity)) => {
            // RedisJSON's wording: the command name in lower case, whatever the client sent.
            let name = String::from_utf8_lossy(name).to_lowercase();
            emit(ctx, &Reply::Error(format!("ERR wrong number of arguments for '{name}' command")));
        }
        Ok(Err(Error::Reply(text))) => emit(ctx, &Reply::Error(text)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            ctx.log_warning(&format!(
                "folio: internal error in {}: {what}",
                String::from_utf8_lossy(name)
            ));
            emit(ctx, &Reply::Error(format!("ERR folio internal error: {what}")));
        }
    }
    Ok(RedisValue::NoReply)
}
