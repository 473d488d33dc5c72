//! folio: RedisJSON- and RediSearch-compatible JSON documents and search, in one Redis module.
//!
//! This crate is the Redis glue only: the command table (below), argument handling, replies, the
//! data type's callbacks, keyspace and server events. JSON semantics live in the `json` crate,
//! search in the `search` crate; neither knows about Redis.
//!
//! Folders: `commands/` one file per command family, `types.rs` the `ReJSON-RL` data type,
//! `keys.rs` key access and the write epilogue, `reply.rs` the reply tree, `args.rs` arguments.

pub mod args;
pub mod commands;
pub mod error;
pub mod events;
pub mod indexing;
pub mod keys;
pub mod reply;
pub mod types;

/// RedisJSON feature level folio implements, reported as the `ReJSON` module version.
pub const REJSON_VERSION: i32 = 20803;

#[cfg(not(test))]
mod module {
    use redis_module::{redis_module, AclCategory, Context, RedisString, Status};

    use crate::commands::{dispatch, ft, json};
    use crate::types::{JSON_TYPE, SEARCH_AUX_TYPE};

    /// Routes a table entry through the dispatcher (catch_unwind, replies, errors).
    macro_rules! route {
        ($handler:path) => {
            |ctx: &Context, args: Vec<RedisString>| dispatch(ctx, args, $handler)
        };
    }

    fn init(ctx: &Context, _args: &[RedisString]) -> Status {
        if let Err(e) = crate::events::subscribe_server_events(ctx) {
            ctx.log_warning(&e);
            return Status::Err;
        }
        ctx.log_notice(&format!("folio {} loaded", env!("CARGO_PKG_VERSION")));
        Status::Ok
    }

    redis_module! {
        name: "ReJSON",
        version: crate::REJSON_VERSION,
        allocator: (redis_module::alloc::RedisAlloc, redis_module::alloc::RedisAlloc),
        data_types: [JSON_TYPE, SEARCH_AUX_TYPE],
        acl_categories: ["json", "search",],
        init: init,
        commands: [
            // name, handler, flags, first key, last key, key step, ACL (mandatory, optional)
            ["JSON.SET", route!(json::set), "write deny-oom", 1, 1, 1, "", "json"],
            ["JSON.GET", route!(json::get), "readonly", 1, 1, 1, "", "json"],
            ["JSON.MGET", route!(json::mget), "readonly", 1, -2, 1, "", "json"],
            ["JSON.MSET", route!(json::mset), "write deny-oom", 1, -1, 3, "", "json"],
            ["JSON.DEL", route!(json::del), "write", 1, 1, 1, "", "json"],
            ["JSON.FORGET", route!(json::del), "write", 1, 1, 1, "", "json"],
            ["JSON.TYPE", route!(json::type_), "readonly", 1, 1, 1, "", "json"],
            ["JSON.DEBUG", route!(json::debug), "readonly", 2, 2, 1, "", "json"],
            ["JSON.MERGE", route!(json::merge), "write deny-oom", 1, 1, 1, "", "json"],
            ["JSON.NUMINCRBY", route!(json::numincrby), "write", 1, 1, 1, "", "json"],
            ["JSON.NUMMULTBY", route!(json::nummultby), "write", 1, 1, 1, "", "json"],
            ["JSON.NUMPOWBY", route!(json::numpowby), "write", 1, 1, 1, "", "json"],
            ["JSON.STRAPPEND", route!(json::strappend), "write deny-oom", 1, 1, 1, "", "json"],
            ["JSON.STRLEN", route!(json::strlen), "readonly", 1, 1, 1, "", "json"],
            ["JSON.ARRAPPEND", route!(json::arrappend), "write deny-oom", 1, 1, 1, "", "json"],
            ["JSON.ARRINDEX", route!(json::arrindex), "readonly", 1, 1, 1, "", "json"],
            ["JSON.ARRINSERT", route!(json::arrinsert), "write deny-oom", 1, 1, 1, "", "json"],
            ["JSON.ARRLEN", route!(json::arrlen), "readonly", 1, 1, 1, "", "json"],
            ["JSON.ARRPOP", route!(json::arrpop), "write", 1, 1, 1, "", "json"],
            ["JSON.ARRTRIM", route!(json::arrtrim), "write", 1, 1, 1, "", "json"],
            ["JSON.OBJKEYS", route!(json::objkeys), "readonly", 1, 1, 1, "", "json"],
            ["JSON.OBJLEN", route!(json::objlen), "readonly", 1, 1, 1, "", "json"],
            ["JSON.CLEAR", route!(json::clear), "write", 1, 1, 1, "", "json"],
            ["JSON.TOGGLE", route!(json::toggle), "write deny-oom", 1, 1, 1, "", "json"],
            ["JSON.RESP", route!(json::resp), "readonly", 1, 1, 1, "", "json"],
            ["FT.CREATE", route!(ft::ft), "write deny-oom", 0, 0, 0, "", "search"],
            ["FT.SEARCH", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT.AGGREGATE", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT.CURSOR", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT.INFO", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT._LIST", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT.DROPINDEX", route!(ft::ft), "write", 0, 0, 0, "", "search"],
            ["FT.DROP", route!(ft::ft), "write", 0, 0, 0, "", "search"],
            ["FT.ALTER", route!(ft::ft), "write deny-oom", 0, 0, 0, "", "search"],
            ["FT.ALIASADD", route!(ft::ft), "write", 0, 0, 0, "", "search"],
            ["FT.ALIASUPDATE", route!(ft::ft), "write", 0, 0, 0, "", "search"],
            ["FT.ALIASDEL", route!(ft::ft), "write", 0, 0, 0, "", "search"],
            ["FT.TAGVALS", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT.EXPLAIN", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT.EXPLAINCLI", route!(ft::ft), "readonly", 0, 0, 0, "", "search"],
            ["FT.CONFIG", route!(ft::ft), "admin", 0, 0, 0, "", "search"],
        ],
        event_handlers: [
            [@GENERIC @STRING @LIST @SET @HASH @ZSET @EXPIRED @EVICTED @STREAM @MODULE @LOADED: crate::events::on_keyspace_event],
        ],
    }
}
