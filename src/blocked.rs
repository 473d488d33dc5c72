//! Blocking only the calling client while other threads work (shards answering a cluster
//! query, query workers): the command blocks its client
//! (`RedisModule_BlockClient`), a background thread does the network work, and its result
//! is turned into the reply back on Redis's main thread (the blocked client's reply
//! callback), where the catalog and config can be read. Redis itself unblocks the client
//! with a timeout error if the thread were ever late past a backstop.

use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Duration;

use redis_module::{raw, Context, ContextFlags};

use crate::reply::{emit, Reply};

/// What the main thread does with the thread's result: builds the reply.
pub type Finish = Box<dyn FnOnce(&Context) -> Reply + Send>;

/// The private data handed from the thread to the reply callback.
struct Pending(Mutex<Option<Finish>>);

/// A blocked client handle that may cross threads (Redis allows UnblockClient from any).
struct Handle(*mut raw::RedisModuleBlockedClient);
// SAFETY: RedisModule_UnblockClient is thread-safe; the handle is used once, by one thread.
unsafe impl Send for Handle {}

/// True when the client cannot be blocked (MULTI, scripts, clients that deny blocking).
pub fn cannot_block(ctx: &Context) -> bool {
    ctx.get_flags().intersects(ContextFlags::MULTI | ContextFlags::LUA | ContextFlags::DENY_BLOCKING)
}

/// A blocked client, to be answered once from any thread ([`Blocked::finish`]).
pub struct Blocked(Handle);

impl Blocked {
    /// The raw handle (for a thread-safe context bound to the client).
    pub fn raw(&self) -> *mut raw::RedisModuleBlockedClient {
        self.0 .0
    }

    /// Starts counting background time for the command (commandstats, slowlog); every
    /// start is ended by [`Blocked::measure_end`].
    pub fn measure_start(&self) {
        // SAFETY: a live blocked client; the call only records a timestamp in it.
        unsafe {
            if let Some(start) = raw::RedisModule_BlockedClientMeasureTimeStart {
                start(self.0 .0);
            }
        }
    }

    /// Adds the time since [`Blocked::measure_start`] to the command's background time.
    pub fn measure_end(&self) {
        // SAFETY: as above.
        unsafe {
            if let Some(end) = raw::RedisModule_BlockedClientMeasureTimeEnd {
                end(self.0 .0);
            }
        }
    }

    /// Unblocks the client: `finish` builds its reply on the main thread.
    pub fn finish(self, finish: Finish) {
        let pending = Box::into_raw(Box::new(Pending(Mutex::new(Some(finish)))));
        // SAFETY: `self.0` is the blocked client, unblocked exactly once (self is consumed);
        // Redis passes `pending` to on_reply and then to free_pending, which frees it.
        unsafe {
            if let Some(unblock) = raw::RedisModule_UnblockClient {
                unblock(self.0 .0, pending.cast::<c_void>());
            }
        }
    }
}

/// Blocks the calling client. `backstop`: Redis answers `Timeout limit was reached` itself if
/// the client is not answered by then (zero: no limit). None when Redis refuses.
pub fn block(ctx: &Context, backstop: Duration) -> Option<Blocked> {
    // SAFETY: the API table is filled at load; ctx is the command's context; the callbacks
    // have the signatures Redis expects.
    let bc = unsafe {
        match raw::RedisModule_BlockClient {
            Some(block) => block(
                ctx.ctx,
                Some(on_reply),
                Some(on_timeout),
                Some(free_pending),
                backstop.as_millis().min(i64::MAX as u128) as i64,
            ),
            None => std::ptr::null_mut(),
        }
    };
    (!bc.is_null()).then_some(Blocked(Handle(bc)))
}

/// Blocks the calling client, runs `work` on a new thread and replies with what its
/// [`Finish`] builds on the main thread. `backstop`: Redis answers `Timeout limit was
/// reached` itself if the thread has not finished by then. Returns [`Reply::Sent`].
pub fn run_blocked(
    ctx: &Context,
    backstop: Duration,
    work: impl FnOnce() -> Finish + Send + 'static,
) -> Reply {
    let Some(blocked) = block(ctx, backstop) else {
        return Reply::Error("ERR cannot block the client for a cluster query".into());
    };
    let spawned = std::thread::Builder::new().name("folio-cluster".into()).spawn(move || {
        let finish = catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| {
            Box::new(|_: &Context| Reply::Error("ERR folio internal error in a cluster query".into()))
        });
        blocked.finish(finish);
    });
    if spawned.is_err() {
        // The client stays blocked until the backstop answers it.
        ctx.log_warning("folio: cannot start a thread for a cluster query");
    }
    Reply::Sent
}

unsafe extern "C" fn on_reply(
    ctx: *mut raw::RedisModuleCtx,
    _argv: *mut *mut raw::RedisModuleString,
    _argc: c_int,
) -> c_int {
    // SAFETY: called by Redis in a blocked client's reply callback with its private data.
    let pending = unsafe { raw::RedisModule_GetBlockedClientPrivateData.map(|get| get(ctx)) };
    let context = Context::new(ctx);
    let finish = pending
        .filter(|p| !p.is_null())
        // SAFETY: the pointer is the `Pending` the thread boxed; it lives until free_pending.
        .and_then(|p| unsafe { &*p.cast::<Pending>() }.0.lock().ok()?.take());
    let reply = match finish {
        Some(f) => catch_unwind(AssertUnwindSafe(|| f(&context)))
            .unwrap_or_else(|_| Reply::Error("ERR folio internal error in a cluster query".into())),
        None => Reply::Error("ERR cluster query lost its result".into()),
    };
    emit(&context, &reply);
    raw::REDISMODULE_OK as c_int
}

unsafe extern "C" fn on_timeout(
    ctx: *mut raw::RedisModuleCtx,
    _argv: *mut *mut raw::RedisModuleString,
    _argc: c_int,
) -> c_int {
    emit(&Context::new(ctx), &Reply::Error(search::error::TIMEOUT_ERROR.into()));
    raw::REDISMODULE_OK as c_int
}

unsafe extern "C" fn free_pending(_ctx: *mut raw::RedisModuleCtx, privdata: *mut c_void) {
    if !privdata.is_null() {
        // SAFETY: `privdata` is the Box the thread leaked, freed exactly once here.
        drop(unsafe { Box::from_raw(privdata.cast::<Pending>()) });
    }
}
