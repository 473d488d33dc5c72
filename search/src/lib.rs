//! folio search: schema, analysis, index, query and the FT.* executors. No Redis here.
//!
//! # Contract with the Redis glue
//!
//! The glue (root crate `folio`) keeps one [`Catalog`] per Redis database and one
//! [`Config`] for the whole server. It:
//!
//! 1. splits argv and calls [`Catalog::execute`] with the command name (`"FT.SEARCH"`,
//!    case-insensitive) and the arguments *after* the command name, a [`DocumentSource`]
//!    that reads the current database, the server [`Config`] and the client's [`Protocol`];
//! 2. converts the returned [`Reply`] tree to RESP one node at a time
//!    (`Reply::Map` is a RESP3 map and, under RESP2, a flat array `k1 v1 k2 v2 …`;
//!    `Reply::Set` is a RESP3 set and, under RESP2, an array;
//!    `Reply::Double` is a RESP3 double and, under RESP2, a bulk string formatted like
//!    `RedisModule_ReplyWithDouble`; `Reply::Error` text goes verbatim to
//!    `RedisModule_ReplyWithError`);
//! 3. after a write to a key (HSET, JSON.SET, …) calls [`Catalog::on_key_changed`];
//!    after DEL/EXPIRE/eviction/overwrite by another type calls [`Catalog::on_key_removed`];
//!    RENAME is `on_key_removed(old)` + `on_key_changed(new)`; FLUSHDB calls [`Catalog::clear`];
//! 4. after FT.CREATE / FT.ALTER (see [`Catalog::scan_prefixes`]) scans the keyspace in
//!    time slices, feeding every key to [`Catalog::scan_key`], reporting progress with
//!    [`Catalog::scan_progress`] and finishing with [`Catalog::scan_done`]; while a scan is
//!    pending FT.INFO shows `indexing 1` and `percent_indexed`;
//! 5. for FT.DROPINDEX … DD deletes the keys listed in [`ExecOutcome::delete_keys`]
//!    (see [`Catalog::execute_full`]); for FT.ADD / FT.SAFEADD / FT.DEL performs the
//!    [`ExecOutcome::writes`] ([`KeyWrite`]: DEL, HSET) as Redis commands that propagate,
//!    after releasing the catalog, so the document reaches the indexes through step 3 (FT.DEL
//!    replies with the number of keys its DEL removed);
//! 6. persists the index definitions, aliases and synonym groups of database 0 in RediSearch's
//!    own `ft_index0` aux record ([`rdb::ft_index`]), those of other databases with
//!    [`Catalog::to_definitions`] / [`Catalog::from_definitions`] (index data is never
//!    persisted: indexes fill as the keys load);
//! 7. calls [`Catalog::expired_temporary`] periodically (TEMPORARY indexes) and drops each
//!    index it names with `FT.DROPINDEX name DD`, replicated (as RediSearch's timer does).
//!
//! Commands handled by [`Catalog::execute`]: FT.CREATE, FT.SEARCH, FT.AGGREGATE, FT.HYBRID, FT.CURSOR
//! (both in [`aggregate`]), FT.INFO, FT._LIST, FT.DROPINDEX (and legacy FT.DROP), FT.ALTER,
//! FT.ALIASADD/ALIASUPDATE/ALIASDEL, FT.TAGVALS, FT.CONFIG, FT.EXPLAIN, FT.EXPLAINCLI,
//! FT.PROFILE, FT.ADD/SAFEADD, FT.DEL, FT.GET, FT.MGET, the internal
//! FT._CREATEIFNX/_ALTERIFNX/_DROPIFX/_DROPINDEXIFX/_ALIASADDIFNX/_ALIASDELIFX,
//! FT.SPELLCHECK, FT.DICTADD/DICTDEL/DICTDUMP (the dictionaries live in the server
//! [`Config`]; the glue persists them in RediSearch's `scdtype00` aux record
//! ([`rdb::dictionaries`]) and empties them on FLUSHALL), FT.SYNUPDATE/SYNDUMP (synonym groups travel with the definitions).
//! An index FILTER is evaluated at indexing time with the aggregate expression language.
//!
//! Layout: `schema` (definitions), `analysis/` (tokenizer, stopwords, stemmer), `index/`
//! (doc table with id reuse, term dictionary, text/tag/numeric/geo indexes, extraction,
//! FILTER), `query/` (syntax → exec → score, highlight), `catalog` (plain data: indexes,
//! aliases, cursors, with hooks and persistence), `commands/` (above the catalog: one file
//! per command family, `dispatch` routing them), `codec` (folio's own persisted byte format),
//! `rdb/` (RediSearch's RDB aux encodings over a small reader/writer trait), `restore` (the
//! commands that rebuild every definition, for an AOF rewritten without the RDB preamble).

#![warn(missing_docs)]

pub mod access;
pub mod aggregate;
pub mod analysis;
mod args;
mod catalog;
mod codec;
mod commands;
pub mod config;
mod config_options;
pub mod dictionary;
pub mod distributed;
pub mod document;
pub mod error;
pub mod index;
pub mod limits;
pub mod query;
pub mod rdb;
pub mod reply;
pub mod restore;
pub mod schema;
pub mod shared;
pub mod stats;
pub mod suggest;
pub mod synonyms;
pub mod timeout;
pub mod vector_budget;
pub mod vector_spec;

pub use catalog::{Catalog, PreparedChange, Unchanged};
pub use commands::{ExecOutcome, KeyWrite, Staged, READ_ONLY, STAGED};
pub use config::Config;
pub use document::{DocumentSource, FieldValue, KeyType, NumberArray};
pub use reply::{Protocol, Reply};
