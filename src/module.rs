//! Module entry point: the command table and registration.
//!
//! One library answers to two module names, because clients gate on them: `ReJSON` (redis-py's
//! helpers, RedisInsight, redis-om) and `search` (RedisVL needs `search` >= 20600, redis-om checks
//! it too). Redis gives a module exactly one name per load, so the first load registers everything
//! as `ReJSON`, and then, once the server runs, loads the same file a second time; that second
//! load (same process, same statics) only claims the name `search` and registers nothing. Loading
//! the file twice by hand (`--loadmodule libfolio.so --loadmodule libfolio.so`) has the same effect.

use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use redis_module::{raw, redis_command, redis_event_handler, Context, RedisString, RedisValue};

use crate::commands::{dispatch, ft, json};
use crate::types::{JSON_TYPE, SEARCH_AUX_TYPE};
use crate::{REJSON_VERSION, SEARCH_VERSION};

/// Document and index memory is allocated through Redis, so it shows in `INFO memory` and counts
/// against `maxmemory`.
#[global_allocator]
static ALLOCATOR: redis_module::alloc::RedisAlloc = redis_module::alloc::RedisAlloc;

/// How many times this library's OnLoad ran in this process.
static LOADS: AtomicU8 = AtomicU8::new(0);
/// Absolute path of this library, for the second load.
static LIBRARY_PATH: OnceLock<String> = OnceLock::new();

/// Routes a table entry through the dispatcher (catch_unwind, replies, errors).
macro_rules! route {
    ($handler:path) => {
        |ctx: &Context, args: Vec<RedisString>| dispatch(ctx, args, $handler)
    };
}

fn init_name(ctx: *mut raw::RedisModuleCtx, name: &CStr, version: i32) -> bool {
    // SAFETY: ctx is OnLoad's context; the name is NUL-terminated and outlives the call.
    let status =
        unsafe { raw::Export_RedisModule_Init(ctx, name.as_ptr(), version, raw::REDISMODULE_APIVER_1 as c_int) };
    status != raw::Status::Err as c_int
}

/// Called by Redis for each load of this library.
///
/// # Safety
/// Redis calls it with a valid context and argument vector.
#[no_mangle]
#[allow(non_snake_case)]
pub unsafe extern "C" fn RedisModule_OnLoad(
    ctx: *mut raw::RedisModuleCtx,
    _argv: *mut *mut raw::RedisModuleString,
    _argc: c_int,
) -> c_int {
    // No allocation before Init: the allocator is Redis's, ready only after it.
    match LOADS.fetch_add(1, Ordering::SeqCst) {
        0 => {
            if !init_name(ctx, c"ReJSON", REJSON_VERSION) {
                return raw::Status::Err as c_int;
            }
            // SAFETY: as above.
            unsafe { register(ctx) }
        }
        1 => {
            if init_name(ctx, c"search", SEARCH_VERSION) {
                raw::Status::Ok as c_int
            } else {
                raw::Status::Err as c_int
            }
        }
        _ => raw::Status::Err as c_int,
    }
}

/// Registers types, commands and events; schedules the second load.
unsafe fn register(ctx: *mut raw::RedisModuleCtx) -> c_int {
    let context = Context::new(ctx);
    let _ = redis_module::MODULE_CONTEXT.set_context(&context);
    for t in [&JSON_TYPE, &SEARCH_AUX_TYPE] {
        if t.create_data_type(ctx).is_err() {
            return raw::Status::Err as c_int;
        }
    }
    // SAFETY: the API table is filled by Init and never changes afterwards.
    if let Some(add_category) = unsafe { raw::RedisModule_AddACLCategory } {
        for category in [c"json", c"search"] {
            // SAFETY: valid context and NUL-terminated name.
            unsafe { add_category(ctx, category.as_ptr()) };
        }
    }

    // name, handler, flags, first key, last key, key step, ACL (mandatory, optional)
    redis_command!(ctx, "JSON.SET", route!(json::set), "write deny-oom", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.GET", route!(json::get), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.MGET", route!(json::mget), "readonly", 1, -2, 1, "", "json");
    redis_command!(ctx, "JSON.MSET", route!(json::mset), "write deny-oom", 1, -1, 3, "", "json");
    redis_command!(ctx, "JSON.MERGE", route!(json::merge), "write deny-oom", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.DEL", route!(json::del), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.FORGET", route!(json::del), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.TYPE", route!(json::type_), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.CLEAR", route!(json::clear), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.TOGGLE", route!(json::toggle), "write deny-oom", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.RESP", route!(json::resp), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.DEBUG", route!(json::debug), "readonly", 2, 2, 1, "", "json");
    redis_command!(ctx, "JSON.NUMINCRBY", route!(json::numincrby), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.NUMMULTBY", route!(json::nummultby), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.NUMPOWBY", route!(json::numpowby), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.STRAPPEND", route!(json::strappend), "write deny-oom", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.STRLEN", route!(json::strlen), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.ARRAPPEND", route!(json::arrappend), "write deny-oom", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.ARRINDEX", route!(json::arrindex), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.ARRINSERT", route!(json::arrinsert), "write deny-oom", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.ARRLEN", route!(json::arrlen), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.ARRPOP", route!(json::arrpop), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.ARRTRIM", route!(json::arrtrim), "write", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.OBJKEYS", route!(json::objkeys), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "JSON.OBJLEN", route!(json::objlen), "readonly", 1, 1, 1, "", "json");
    redis_command!(ctx, "FT.CREATE", route!(ft::ft), "write deny-oom", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.SEARCH", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.AGGREGATE", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.CURSOR", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.INFO", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT._LIST", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.DROPINDEX", route!(ft::ft), "write", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.DROP", route!(ft::ft), "write", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.ALTER", route!(ft::ft), "write deny-oom", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.ALIASADD", route!(ft::ft), "write", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.ALIASUPDATE", route!(ft::ft), "write", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.ALIASDEL", route!(ft::ft), "write", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.TAGVALS", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.EXPLAIN", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.EXPLAINCLI", route!(ft::ft), "readonly", 0, 0, 0, "", "search");
    redis_command!(ctx, "FT.CONFIG", route!(ft::ft), "admin", 0, 0, 0, "", "search");

    use redis_module::NotifyEvent;
    let classes = NotifyEvent::GENERIC
        | NotifyEvent::STRING
        | NotifyEvent::LIST
        | NotifyEvent::SET
        | NotifyEvent::HASH
        | NotifyEvent::ZSET
        | NotifyEvent::EXPIRED
        | NotifyEvent::EVICTED
        | NotifyEvent::STREAM
        | NotifyEvent::MODULE
        | NotifyEvent::LOADED;
    redis_event_handler!(ctx, classes, crate::events::on_keyspace_event);
    if let Err(e) = crate::events::subscribe_server_events(&context) {
        context.log_warning(&e);
        return raw::Status::Err as c_int;
    }
    if let Some(path) = library_path() {
        let _ = LIBRARY_PATH.set(path);
    }
    context.create_timer(Duration::from_millis(0), load_search_identity, ());
    crate::indexing::start_temporary_expiry(&context);
    context.log_notice(&format!("folio {} loaded", env!("CARGO_PKG_VERSION")));
    raw::Status::Ok as c_int
}

/// The absolute path of this shared library (dladdr on one of its functions).
fn library_path() -> Option<String> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr fills `info` for an address inside a loaded object; the address is our own
    // function's. dli_fname is a NUL-terminated string owned by the loader.
    let found = unsafe { libc::dladdr(library_path as *const libc::c_void, info.as_mut_ptr()) };
    if found == 0 {
        return None;
    }
    // SAFETY: dladdr succeeded, so info is initialised.
    let info = unsafe { info.assume_init() };
    if info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: non-null NUL-terminated string from the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname as *const c_char) }.to_string_lossy().into_owned();
    std::fs::canonicalize(&name).ok().map(|p| p.to_string_lossy().into_owned()).or(Some(name))
}

/// Claims the module name `search` by loading this library again (see the module docs).
fn load_search_identity(ctx: &Context, _: ()) {
    let listed = matches!(ctx.call("MODULE", &["LIST"]), Ok(RedisValue::Array(ref mods))
        if format!("{mods:?}").contains("\"search\""));
    if listed || LOADS.load(Ordering::SeqCst) > 1 {
        return;
    }
    let Some(path) = LIBRARY_PATH.get() else { return };
    if let Err(e) = ctx.call("MODULE", &["LOAD", path.as_str()]) {
        ctx.log_warning(&format!("folio: could not register the module name `search`: {e}"));
    }
}
