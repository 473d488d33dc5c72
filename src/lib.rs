//! folio: RedisJSON- and RediSearch-compatible JSON documents and search, in one Redis module.
//!
//! This crate is the Redis glue only: the command table (below), argument handling, replies, the
//! data type's callbacks, keyspace and server events. JSON semantics live in the `json` crate,
//! search in the `search` crate; neither knows about Redis.
//!
//! Folders: `commands/` one file per command family, `types.rs` the `ReJSON-RL` data type,
//! `suggest_type.rs` the `trietype0` data type (suggestion dictionaries),
//! `keys.rs` key access and the write epilogue, `reply.rs` the reply tree, `args.rs` arguments.

pub mod acl;
pub mod alloc;
pub mod aof_definitions;
pub mod args;
pub mod blocked;
pub mod cluster;
pub mod commands;
pub mod documents;
pub mod error;
pub mod events;
pub mod indexing;
pub mod info;
pub mod keys;
pub mod rdb;
pub mod read_key;
pub mod reply;
pub mod state;
pub mod suggest_type;
pub mod text_cache;
pub mod types;
pub mod workers;

/// RedisJSON feature level folio implements, reported as the `ReJSON` module version.
pub const REJSON_VERSION: i32 = 20803;
/// RediSearch feature level folio implements, reported as the `search` module version.
pub const SEARCH_VERSION: i32 = 21005;

#[cfg(not(test))]
mod module;
