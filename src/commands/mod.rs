//! Command handlers and the dispatcher every command goes through.
//!
//! The dispatcher is the last line of defence: a handler runs under `catch_unwind`, so a bug that
//! panics becomes an error reply and a log line instead of aborting Redis. A panic found this way is
//! still a bug, with a regression test.

pub mod ft;
pub mod json;
pub mod suggest;

use std::ffi::c_int;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::{raw, Context, RedisString};

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

/// Runs `handler` for one call of a command and writes its reply: Redis's command callback for
/// every entry of the command table (see `module.rs`).
///
/// The arguments are viewed in place: Redis keeps `argv` alive for the whole call, so they are
/// neither retained nor copied, and their byte views live on the stack for the usual few
/// arguments (no allocation per command).
///
/// # Safety
/// `ctx`, `argv` and `argc` must be the arguments Redis passed to a command callback.
pub unsafe fn dispatch(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
    handler: Handler,
) -> c_int {
    let context = Context::new(ctx);
    let raw_args: &[*mut raw::RedisModuleString] = match usize::try_from(argc) {
        // SAFETY: Redis passes `argc` valid string pointers in `argv` for the call.
        Ok(n) if n > 0 && !argv.is_null() => unsafe { std::slice::from_raw_parts(argv, n) },
        _ => &[],
    };
    // Borrowed, not owned: `ManuallyDrop` keeps them from being freed (Redis owns argv).
    let borrow =
        |s: &*mut raw::RedisModuleString| ManuallyDrop::new(RedisString::from_redis_module_string(ctx, *s));
    let mut stack_strings: [ManuallyDrop<RedisString>; STACK_ARGS + 1] = std::array::from_fn(|_| {
        ManuallyDrop::new(RedisString::from_redis_module_string(ctx, std::ptr::null_mut()))
    });
    let heap_strings: Vec<ManuallyDrop<RedisString>>;
    let strings: &[ManuallyDrop<RedisString>] = if raw_args.len() <= STACK_ARGS + 1 {
        for (slot, a) in stack_strings.iter_mut().zip(raw_args) {
            *slot = borrow(a);
        }
        &stack_strings[..raw_args.len()]
    } else {
        heap_strings = raw_args.iter().map(borrow).collect();
        &heap_strings
    };
    // SAFETY: `ManuallyDrop<T>` is `repr(transparent)` over `T`: same layout, so the slice can be
    // viewed as `&[RedisString]`; the view never drops its elements.
    let strings: &[RedisString] =
        unsafe { std::slice::from_raw_parts(strings.as_ptr().cast::<RedisString>(), strings.len()) };
    let (name, rest) = match strings.split_first() {
        Some((n, r)) => (n.as_slice(), r),
        None => (&b""[..], strings),
    };
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
    run(&context, name, rest, args, handler);
    raw::REDISMODULE_OK as c_int
}

/// Runs `handler` under `catch_unwind` and writes its reply or error.
fn run(ctx: &Context, name: &[u8], rest: &[RedisString], args: &[&[u8]], handler: Handler) {
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
            ctx.log_warning(&format!("folio: internal error in {}: {what}", String::from_utf8_lossy(name)));
            emit(ctx, &Reply::Error(format!("ERR folio internal error: {what}")));
        }
    }
}
