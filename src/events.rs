//! Keyspace and server events: the one route by which changes reach the search indexes.

use std::os::raw::c_void;

use redis_module::{raw, Context, NotifyEvent};

use crate::indexing;

/// Every keyspace event of Redis's own commands (all classes but module events: our own `json.*`
/// writes call [`key_changed`] directly), but those of a TTL set or removed (`expire`, `persist`,
/// and a hash field's `hexpire`, `hpersist`): the value is the same, and RediSearch does not
/// index the key again (a new document id, which would move it after the others in ties).
pub fn on_keyspace_event(ctx: &Context, _class: NotifyEvent, event: &str, key: &[u8]) {
    if matches!(event, "expire" | "persist" | "hexpire" | "hpersist") {
        return;
    }
    key_changed(ctx, key);
}

/// A key changed: the indexes of its database look at it again.
pub fn key_changed(ctx: &Context, key: &[u8]) {
    key_written(ctx, key, None);
}

/// A JSON write changed `key` at `path` (None: anywhere, or unknown): the indexes look at it
/// again, keeping the fields the write cannot have changed.
pub fn key_written(ctx: &Context, key: &[u8], path: Option<&json::path::JsonPath>) {
    // A panic must not unwind into Redis: this runs inside whatever command caused the change.
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| indexing::key_written(ctx, key, path)));
    if outcome.is_err() {
        ctx.log_warning("folio: internal error while indexing a key change");
    }
}

/// RedisModuleSwapDbInfo (version 1), absent from the bindings of redis-module 2.0.8.
#[repr(C)]
struct SwapDbInfo {
    version: u64,
    dbnum_first: i32,
    dbnum_second: i32,
}

unsafe extern "C" fn on_flush(
    ctx: *mut raw::RedisModuleCtx,
    _event: raw::RedisModuleEvent,
    subevent: u64,
    data: *mut c_void,
) {
    if subevent != raw::REDISMODULE_SUBEVENT_FLUSHDB_START || data.is_null() {
        return;
    }
    // SAFETY: for FLUSHDB events Redis passes a RedisModuleFlushInfo that lives for the call.
    let info = unsafe { &*data.cast::<raw::RedisModuleFlushInfo>() };
    let ctx = Context::new(ctx);
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| indexing::flushed(&ctx, info.dbnum)));
}

unsafe extern "C" fn on_swapdb(
    ctx: *mut raw::RedisModuleCtx,
    _event: raw::RedisModuleEvent,
    _subevent: u64,
    data: *mut c_void,
) {
    if data.is_null() {
        return;
    }
    // SAFETY: for SWAPDB events Redis passes a RedisModuleSwapDbInfo that lives for the call.
    let info = unsafe { &*data.cast::<SwapDbInfo>() };
    let ctx = Context::new(ctx);
    let (a, b) = (info.dbnum_first, info.dbnum_second);
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| indexing::swapped(&ctx, a, b)));
}

unsafe extern "C" fn on_loading(
    ctx: *mut raw::RedisModuleCtx,
    _event: raw::RedisModuleEvent,
    subevent: u64,
    _data: *mut c_void,
) {
    let ctx = Context::new(ctx);
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let ended = matches!(
            subevent,
            raw::REDISMODULE_SUBEVENT_LOADING_ENDED | raw::REDISMODULE_SUBEVENT_LOADING_FAILED
        );
        indexing::loading(&ctx, ended)
    }));
}

/// Times the main thread took the GIL back after sleeping (the event loop's after-sleep), so a
/// worker that gave the GIL up can tell when the main thread has had it
/// (`workers::documents`).
pub static MAIN_TURNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

unsafe extern "C" fn on_eventloop(
    ctx: *mut raw::RedisModuleCtx,
    _event: raw::RedisModuleEvent,
    subevent: u64,
    _data: *mut c_void,
) {
    if subevent == raw::REDISMODULE_SUBEVENT_EVENTLOOP_AFTER_SLEEP {
        MAIN_TURNS.fetch_add(1, std::sync::atomic::Ordering::Release);
        crate::workers::gil::lend_gil(ctx);
    }
}

unsafe extern "C" fn on_fork_child(
    ctx: *mut raw::RedisModuleCtx,
    _event: raw::RedisModuleEvent,
    subevent: u64,
    _data: *mut c_void,
) {
    if subevent != raw::REDISMODULE_SUBEVENT_FORK_CHILD_BORN {
        return;
    }
    let ctx = Context::new(ctx);
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::aof_definitions::on_fork(&ctx)));
    if outcome.is_err() {
        ctx.log_warning("folio: internal error while writing index definitions into the AOF");
    }
}

/// Subscribes to FLUSHDB, SWAPDB, loading and fork server events (and, where the server has
/// it, the event loop's after-sleep).
pub fn subscribe_server_events(ctx: &Context) -> Result<(), String> {
    // SAFETY: the API table is filled by RedisModule_Init before OnLoad runs and never changes.
    let subscribe = unsafe { raw::RedisModule_SubscribeToServerEvent }.ok_or("no server events API")?;
    let events: [(u64, raw::RedisModuleEventCallback); 4] = [
        (raw::REDISMODULE_EVENT_FLUSHDB, Some(on_flush)),
        (raw::REDISMODULE_EVENT_SWAPDB, Some(on_swapdb)),
        (raw::REDISMODULE_EVENT_LOADING, Some(on_loading)),
        (raw::REDISMODULE_EVENT_FORK_CHILD, Some(on_fork_child)),
    ];
    for (id, cb) in events {
        let event = raw::RedisModuleEvent { id, dataver: 1 };
        // SAFETY: ctx is the live OnLoad context; the callbacks are 'static functions.
        if unsafe { subscribe(ctx.ctx, event, cb) } != raw::REDISMODULE_OK as i32 {
            return Err(format!("cannot subscribe to server event {id}"));
        }
    }
    let event = raw::RedisModuleEvent { id: raw::REDISMODULE_EVENT_EVENTLOOP, dataver: 1 };
    // SAFETY: as above; a server without the event refuses it, and workers then do without.
    let _ = unsafe { subscribe(ctx.ctx, event, Some(on_eventloop)) };
    Ok(())
}
