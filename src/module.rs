//! Module entry point: the command table and registration.
//!
//! One library answers to two module names, because clients gate on them: `ReJSON` (redis-py's
//! helpers, RedisInsight, redis-om) and `search` (RedisVL needs `search` >= 20600, redis-om checks
//! it too). Redis gives a module exactly one name per load, so the first load registers everything
//! as `ReJSON`, and then, once the server runs, loads the same file a second time; that second
//! load (same process, same statics) only claims the name `search` and registers nothing. Loading
//! the file twice by hand (`--loadmodule libfolio.so --loadmodule libfolio.so`) has the same effect.

use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use redis_module::{raw, redis_event_handler, Context, RedisString, RedisValue};

use crate::commands::{dispatch, ft, json, suggest};
use crate::suggest_type::SUGGEST_TYPE;
use crate::types::JSON_TYPE;
use crate::{REJSON_VERSION, SEARCH_VERSION};

/// Document and index memory is allocated through Redis, so it shows in `INFO memory` and counts
/// against `maxmemory`; freed small blocks are kept per thread for the next ([`crate::alloc`]).
#[global_allocator]
static ALLOCATOR: crate::alloc::Cached<crate::alloc::Redis> = crate::alloc::Cached(crate::alloc::Redis);

/// How many times this library's OnLoad ran in this process.
static LOADS: AtomicU8 = AtomicU8::new(0);
/// Absolute path of this library, for the second load.
static LIBRARY_PATH: OnceLock<String> = OnceLock::new();

/// Registers one command: its Redis callback runs `$handler` through the dispatcher
/// (catch_unwind, replies, errors). Arguments: name, handler, flags, first key, last key, key step,
/// ACL category.
macro_rules! command {
    ($ctx:expr, $name:literal, $handler:path, $flags:literal, $first:expr, $last:expr, $step:expr, $acl:expr) => {{
        unsafe extern "C" fn call(
            ctx: *mut raw::RedisModuleCtx,
            argv: *mut *mut raw::RedisModuleString,
            argc: c_int,
        ) -> c_int {
            // SAFETY: Redis calls a command callback with its own valid arguments.
            unsafe { dispatch(ctx, argv, argc, $handler) }
        }
        // SAFETY: `$ctx` is OnLoad's context.
        if unsafe { !create_command($ctx, $name, call, $flags, $first, $last, $step, $acl) } {
            return raw::Status::Err as c_int;
        }
    }};
}

/// `RedisModule_CreateCommand` plus the command's ACL category where the server has them (7.2+).
///
/// # Safety
/// `ctx` must be OnLoad's context.
#[allow(clippy::too_many_arguments)]
unsafe fn create_command(
    ctx: *mut raw::RedisModuleCtx,
    name: &CStr,
    call: unsafe extern "C" fn(*mut raw::RedisModuleCtx, *mut *mut raw::RedisModuleString, c_int) -> c_int,
    flags: &CStr,
    first: c_int,
    last: c_int,
    step: c_int,
    acl: &CStr,
) -> bool {
    // SAFETY: the API table is filled by Init; the strings are NUL-terminated and outlive the
    // call (Redis copies them).
    let created = unsafe {
        raw::RedisModule_CreateCommand.is_some_and(|create| {
            create(ctx, name.as_ptr(), Some(call), flags.as_ptr(), first, last, step)
                == raw::REDISMODULE_OK as c_int
        })
    };
    if !created {
        raw::redis_log(ctx, &format!("folio: cannot create command {}", name.to_string_lossy()));
        return false;
    }
    // SAFETY: as above; GetCommand returns the command just created.
    unsafe {
        if let (Some(get), Some(set_acl)) =
            (raw::RedisModule_GetCommand, raw::RedisModule_SetCommandACLCategories)
        {
            let command = get(ctx, name.as_ptr());
            if !command.is_null() && set_acl(command, acl.as_ptr()) != raw::REDISMODULE_OK as c_int {
                raw::redis_log(
                    ctx,
                    &format!("folio: cannot set the ACL category of {}", name.to_string_lossy()),
                );
            }
        }
    }
    true
}

/// Applies the module arguments as FT.CONFIG options (RediSearch's `NAME [value] ...`); a bad
/// one is logged with RediSearch's text and fails the load, as it does.
///
/// # Safety
/// `argv` holds `argc` valid strings.
unsafe fn load_config(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> bool {
    if argc <= 0 || argv.is_null() {
        crate::workers::configure(crate::indexing::with_state(&Context::new(ctx), |s| s.config.workers));
        return true;
    }
    // SAFETY: as promised by the caller.
    let strings = unsafe { std::slice::from_raw_parts(argv, argc as usize) };
    let mut args: Vec<String> = strings
        .iter()
        .map(|&s| String::from_utf8_lossy(RedisString::string_as_slice(s)).into_owned())
        .collect();
    crate::cluster::take_module_args(&mut args);
    let context = Context::new(ctx);
    match crate::indexing::with_state(&context, |state| state.config.load_args(&args)) {
        Ok(()) => {
            crate::workers::configure(crate::indexing::with_state(&context, |s| s.config.workers));
            true
        }
        Err(e) => {
            context.log_warning(&format!("Failed to load configuration: {e}"));
            false
        }
    }
}

fn init_name(ctx: *mut raw::RedisModuleCtx, name: &CStr, version: i32) -> bool {
    // SAFETY: ctx is OnLoad's context; the name is NUL-terminated and outlives the call.
    let status = unsafe {
        raw::Export_RedisModule_Init(ctx, name.as_ptr(), version, raw::REDISMODULE_APIVER_1 as c_int)
    };
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
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    // No allocation before Init: the allocator is Redis's, ready only after it.
    crate::alloc::claim_main_thread();
    match LOADS.fetch_add(1, Ordering::SeqCst) {
        0 => {
            if !init_name(ctx, c"ReJSON", REJSON_VERSION) {
                return raw::Status::Err as c_int;
            }
            crate::state::note_main_process();
            // SAFETY: as above.
            let status = unsafe { register(ctx) };
            // SAFETY: Redis passes `argc` valid strings.
            if status != raw::Status::Ok as c_int || !unsafe { load_config(ctx, argv, argc) } {
                return raw::Status::Err as c_int;
            }
            status
        }
        1 => {
            // The INFO sections belong to this name (Redis prefixes them with it).
            if init_name(ctx, c"search", SEARCH_VERSION)
                && crate::info::register(&Context::new(ctx))
                // SAFETY: Redis passes `argc` valid strings.
                && unsafe { load_config(ctx, argv, argc) }
            {
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
    let [ft_index0, folio_idx, scdtype00] = crate::rdb::types();
    for t in [&JSON_TYPE, ft_index0, folio_idx, scdtype00, &SUGGEST_TYPE] {
        if t.create_data_type(ctx).is_err() {
            return raw::Status::Err as c_int;
        }
    }
    crate::rdb::prepare();
    crate::rdb::arm(crate::rdb::Contents::default());
    search::schema::set_json_path_check(|p| crate::commands::json::compile(p.as_bytes()).is_ok());
    // Loaders see Redis's IO errors (a short read) as errors instead of Redis exiting at once.
    // SAFETY: the API table is filled by Init; valid context.
    unsafe {
        if let Some(set_options) = raw::RedisModule_SetModuleOptions {
            set_options(ctx, raw::REDISMODULE_OPTIONS_HANDLE_IO_ERRORS as c_int);
        }
    }
    // SAFETY: the API table is filled by Init and never changes afterwards.
    if let Some(add_category) = unsafe { raw::RedisModule_AddACLCategory } {
        for category in [c"json", c"search"] {
            // SAFETY: valid context and NUL-terminated name.
            unsafe { add_category(ctx, category.as_ptr()) };
        }
    }

    crate::cluster::init(&context);
    // On a cluster, FT commands that name an index act for the whole cluster on any node:
    // they declare no key (the index name is no key Redis could route by).
    let k = if crate::cluster::enabled() { 0 } else { 1 };
    let k2 = if crate::cluster::enabled() { 0 } else { 2 };
    // name, handler, flags, first key, last key, key step, ACL (mandatory, optional)
    command!(ctx, c"JSON.SET", json::set, c"write deny-oom", 1, 1, 1, c"json");
    command!(ctx, c"JSON.GET", json::get, c"readonly", 1, 1, 1, c"json");
    command!(ctx, c"JSON.MGET", json::mget, c"readonly", 1, -2, 1, c"json");
    command!(ctx, c"JSON.MSET", json::mset, c"write deny-oom", 1, -1, 3, c"json");
    command!(ctx, c"JSON.MERGE", json::merge, c"write deny-oom", 1, 1, 1, c"json");
    command!(ctx, c"JSON.DEL", json::del, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.FORGET", json::del, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.TYPE", json::type_, c"readonly", 1, 1, 1, c"json");
    command!(ctx, c"JSON.CLEAR", json::clear, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.TOGGLE", json::toggle, c"write deny-oom", 1, 1, 1, c"json");
    command!(ctx, c"JSON.RESP", json::resp, c"readonly", 1, 1, 1, c"json");
    command!(ctx, c"JSON.DEBUG", json::debug, c"readonly", 2, 2, 1, c"json");
    command!(ctx, c"JSON.NUMINCRBY", json::numincrby, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.NUMMULTBY", json::nummultby, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.NUMPOWBY", json::numpowby, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.STRAPPEND", json::strappend, c"write deny-oom", 1, 1, 1, c"json");
    command!(ctx, c"JSON.STRLEN", json::strlen, c"readonly", 1, 1, 1, c"json");
    command!(ctx, c"JSON.ARRAPPEND", json::arrappend, c"write deny-oom", 1, 1, 1, c"json");
    command!(ctx, c"JSON.ARRINDEX", json::arrindex, c"readonly", 1, 1, 1, c"json");
    command!(ctx, c"JSON.ARRINSERT", json::arrinsert, c"write deny-oom", 1, 1, 1, c"json");
    command!(ctx, c"JSON.ARRLEN", json::arrlen, c"readonly", 1, 1, 1, c"json");
    command!(ctx, c"JSON.ARRPOP", json::arrpop, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.ARRTRIM", json::arrtrim, c"write", 1, 1, 1, c"json");
    command!(ctx, c"JSON.OBJKEYS", json::objkeys, c"readonly", 1, 1, 1, c"json");
    command!(ctx, c"JSON.OBJLEN", json::objlen, c"readonly", 1, 1, 1, c"json");
    // FT.*: flags and key positions as RediSearch 2.10 registers them (the index name is the
    // key, so ACL key patterns must allow it; COMMAND INFO measured on the reference), except
    // that commands changing definitions or dictionaries are `write` (RediSearch 2.10 says
    // `readonly` for FT.ALIAS* and FT.DICTADD/DICTDEL, so replicas would run them). ACL
    // categories (Redis 7.2+): RediSearch 2.10 declares none; these are RediSearch 8's, the
    // first to declare any (`@search` on all, plus `@read`, `@write`, `@admin`, ...).
    command!(ctx, c"FT.CREATE", ft::ft, c"write deny-oom", k, k, k, c"search");
    command!(ctx, c"FT.SEARCH", ft::ft, c"readonly", k, k, k, c"search read");
    command!(ctx, c"FT.AGGREGATE", ft::ft, c"readonly", k, k, k, c"search read");
    // Redis 8.4's; RediSearch 8.4 registers it as FT.AGGREGATE.
    command!(ctx, c"FT.HYBRID", ft::ft, c"readonly", k, k, k, c"search read");
    command!(ctx, c"FT.CURSOR", ft::ft, c"readonly", k2, k2, k, c"search read");
    command!(ctx, c"FT.INFO", ft::ft, c"readonly", k, k, k, c"search");
    command!(ctx, c"FT._LIST", ft::ft, c"readonly", 0, 0, 0, c"search slow admin");
    command!(ctx, c"FT.DROPINDEX", ft::ft, c"write", k, k, k, c"search write slow dangerous");
    command!(ctx, c"FT.DROP", ft::ft, c"write", k, k, k, c"search write slow dangerous admin");
    command!(ctx, c"FT.ALTER", ft::ft, c"write", k, k, k, c"search");
    command!(ctx, c"FT.ALIASADD", ft::ft, c"write", k, k2, k, c"search");
    command!(ctx, c"FT.ALIASUPDATE", ft::ft, c"write", k, k2, k, c"search");
    command!(ctx, c"FT.ALIASDEL", ft::ft, c"write", k, k, k, c"search");
    command!(ctx, c"FT.TAGVALS", ft::ft, c"readonly", k, k, k, c"search read admin dangerous");
    command!(ctx, c"FT.EXPLAIN", ft::ft, c"readonly", k, k, k, c"search");
    command!(ctx, c"FT.EXPLAINCLI", ft::ft, c"readonly", k, k, k, c"search");
    command!(ctx, c"FT.CONFIG", ft::ft, c"readonly", 0, 0, 0, c"search admin");
    command!(ctx, c"FT.DEBUG", ft::ft, c"readonly", 0, 0, 0, c"search admin");
    command!(ctx, c"FT.SPELLCHECK", ft::ft, c"readonly", k, k, k, c"search");
    command!(ctx, c"FT.DICTADD", ft::ft, c"write deny-oom", 0, 0, 0, c"search");
    command!(ctx, c"FT.DICTDEL", ft::ft, c"write", 0, 0, 0, c"search");
    command!(ctx, c"FT.DICTDUMP", ft::ft, c"readonly", 0, 0, 0, c"search");
    command!(ctx, c"FT.SYNUPDATE", ft::ft, c"write", k, k, k, c"search");
    command!(ctx, c"FT.SYNDUMP", ft::ft, c"readonly", k, k, k, c"search");
    command!(ctx, c"FT.SYNADD", ft::ft, c"write", k, k, k, c"search admin");
    // RediSearch 2.x's document commands and the internal `IFNX`/`IFX` forms it replicates;
    // key positions as RediSearch declares them (`COMMAND INFO` on RediSearch 2.10), the alias
    // forms `write` like FT.ALIASADD (see README).
    command!(ctx, c"FT.ADD", ft::ft, c"write deny-oom", 1, 2, 1, c"search write");
    command!(ctx, c"FT.SAFEADD", ft::ft, c"write deny-oom", 1, 2, 1, c"search write");
    command!(ctx, c"FT.DEL", ft::ft, c"write", 1, 2, 1, c"search write");
    command!(ctx, c"FT.GET", ft::ft, c"readonly", 1, 2, 1, c"search read");
    command!(ctx, c"FT.MGET", ft::ft, c"readonly", 1, -1, 1, c"search read");
    command!(ctx, c"FT.PROFILE", ft::ft, c"readonly", k, k, k, c"search read");
    command!(ctx, c"FT._CREATEIFNX", ft::ft, c"write deny-oom", k, k, k, c"search");
    command!(ctx, c"FT._ALTERIFNX", ft::ft, c"write", k, k, k, c"search");
    command!(ctx, c"FT._DROPIFX", ft::ft, c"write", k, k, k, c"search write slow dangerous admin");
    command!(ctx, c"FT._DROPINDEXIFX", ft::ft, c"write", k, k, k, c"search write slow dangerous");
    command!(ctx, c"FT._ALIASADDIFNX", ft::ft, c"write", k, k2, k, c"search");
    command!(ctx, c"FT._ALIASDELIFX", ft::ft, c"write", k, k, k, c"search");
    // Internal, on a cluster only: a shard's part of a cluster query, a definition change
    // from another master.
    if crate::cluster::enabled() {
        command!(ctx, c"FT._SHARD.SEARCH", ft::ft_shard, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._SHARD.STATS", ft::ft_shard, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._SHARD.AGGREGATE", ft::ft_shard, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._SHARD.HYBRIDSTATS", ft::ft_shard, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._SHARD.HYBRID", ft::ft_shard, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._SHARD.STATE", ft::ft_shard, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._SHARD.LOCAL", ft::ft_shard, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._LOCAL", ft::ft_local, c"write deny-oom", 0, 0, 0, c"search");
        command!(ctx, c"FT._SHARD.DEFS", ft::ft_shard_defs, c"readonly", 0, 0, 0, c"search");
        command!(ctx, c"FT._LOCAL.DEFS", ft::ft_local_defs, c"write deny-oom", 0, 0, 0, c"search");
    }
    command!(ctx, c"FT.SUGADD", suggest::sugadd, c"write deny-oom", 1, 1, 1, c"search write");
    command!(ctx, c"FT.SUGGET", suggest::sugget, c"readonly", 1, 1, 1, c"search read");
    command!(ctx, c"FT.SUGDEL", suggest::sugdel, c"write", 1, 1, 1, c"search write");
    command!(ctx, c"FT.SUGLEN", suggest::suglen, c"readonly", 1, 1, 1, c"search read");

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
