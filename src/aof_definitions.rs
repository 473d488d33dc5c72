//! Index definitions in an AOF rewritten without the RDB preamble (`aof-use-rdb-preamble no`).
//!
//! With the preamble, a rewrite's base file is an RDB and its aux records carry every index,
//! alias, synonym group and dictionary (`crate::rdb`). Without it, the base file is commands
//! written by the fork child from the keys alone (`JSON.SET` from the `ReJSON-RL` type's
//! `aof_rewrite`, `HSET` from Redis), and nothing else reaches it: a module can only write
//! into it from a key's callback, and a database of hashes has no module key at all. So the
//! definitions go into the first incremental file instead, as commands
//! ([`search::Catalog::restore_commands`], [`search::dictionary::Dictionaries::restore_commands`]).
//!
//! # Where the commands land (Redis 7.0's `src/aof.c`, `server.c`, `module.c`)
//! Since Redis 7.0 an AOF is a base file and incremental files, replayed in that order
//! (multi-part AOF). `rewriteAppendOnlyFileBackground` first flushes the buffer into the old
//! incremental file, then opens the new one (`openNewIncrAofForAppend`: every later write to the
//! AOF goes there; while `CONFIG SET appendonly yes` waits for its first rewrite, a temporary
//! one that the rewrite's end renames into the manifest), then forks (`redisFork`). In the
//! parent, right after `fork()`, with `child_type` already `CHILD_TYPE_AOF`, `redisFork` fires
//! `REDISMODULE_EVENT_FORK_CHILD` / `FORK_CHILD_BORN` ([`on_fork`]); nothing else runs between
//! the new file's opening and this event, and from then on every write to the AOF goes to the
//! new file, after the keys the child writes into the base. (The persistence event `AOF_START`
//! is no use: it fires in the child, from `rewriteAppendOnlyFile`.)
//!
//! The commands are not propagated from the event itself: inside the command that started the
//! rewrite (BGREWRITEAOF, CONFIG SET appendonly yes), `RedisModule_Replicate` counts a change
//! (`server.dirty++`), and `call()` then propagates that command too (seen: the AOF held
//! `MULTI … BGREWRITEAOF EXEC`, and replicas got the BGREWRITEAOF). So the event only marks
//! them due; they are written, generated from the state at that moment, at the first of:
//! - a timer of 0 ms ([`emit_due`]): outside any command, so nothing else is propagated (the
//!   commands are written as the timer's context is freed: `moduleFreeContext` calls
//!   `propagatePendingCommands` on 7.0, `postExecutionUnitOperations` on 7.2+);
//! - the start of any folio command that changes definitions ([`before_definition_change`]),
//!   which can come first (a client's pipeline after the BGREWRITEAOF, another client ready in
//!   the same event-loop turn). A module command is never propagated by `call()` itself, so
//!   writing them there adds nothing else.
//!
//! They go out with `RedisModule_Replicate`'s `R` modifier: to the AOF only, not to replicas
//! (which have the definitions from their master, and rewrite their own AOF the same way);
//! several are wrapped in MULTI/EXEC, which Redis also sends to replicas (an empty, harmless
//! transaction).
//!
//! # Why that order replays to the same state
//! Between the fork and the commands, the new incremental file can receive only commands that
//! do not change definitions through folio: key writes, expiries, evictions, FLUSHALL/FLUSHDB,
//! SWAPDB. A restart replays the base file (the keys as the child saw them, and no index:
//! loading drops every definition first), those commands, then the definitions, which create
//! each index and index every key it matches as the keyspace is then (`indexing::initial_scan`
//! completes a scan at once while loading), then whatever came after. Since the definitions
//! are generated when they are written, after those commands ran, and an index's contents
//! follow from its definition and the keyspace alone, the replay ends where the server was. If
//! the rewrite fails, the old base and incremental files stay in the manifest with the new file
//! after them: there the definitions exist already and the commands change nothing (`IFNX`
//! forms, terms already present).
//!
//! # Clients paused
//! While clients are paused for writes (CLIENT PAUSE, a failover), Redis asserts that nothing
//! is propagated, and aborts if something is (`RedisModule_AvoidReplicaTraffic` tells). Writes
//! to definitions wait for the pause as every write does, so the commands simply stay due, and
//! the timer looks again every 200 ms.

use std::os::raw::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use redis_module::{raw, Context, RedisString, RedisValue};

use crate::indexing::{select_db, selected_db, with_state};

/// Definitions are due in the AOF (an AOF rewrite without preamble began, and they were not
/// written yet).
static DUE: AtomicBool = AtomicBool::new(false);
/// How often due definitions look again whether clients are still paused.
const PAUSE_POLL: Duration = Duration::from_millis(200);

/// A fork was born (in the parent): an AOF rewrite that writes no RDB preamble makes the
/// definitions due.
pub fn on_fork(ctx: &Context) {
    if !aof_rewrite_in_progress(ctx) || rdb_preamble(ctx) {
        return;
    }
    if !DUE.swap(true, Ordering::AcqRel) {
        ctx.create_timer(Duration::ZERO, emit_due, ());
    }
}

/// The timer: writes the due definitions, unless clients are paused (then later).
fn emit_due(ctx: &Context, _: ()) {
    if !DUE.load(Ordering::Acquire) {
        return;
    }
    if ctx.avoid_replication_traffic() {
        ctx.create_timer(PAUSE_POLL, emit_due, ());
        return;
    }
    emit(ctx);
}

/// Called by every folio command that changes definitions, before it does: writes the due
/// definitions first, so the change follows them in the AOF.
pub fn before_definition_change(ctx: &Context) {
    if DUE.load(Ordering::Acquire) && !ctx.avoid_replication_traffic() {
        emit(ctx);
    }
}

/// Writes every database's definitions and the dictionaries into the AOF, then selects the
/// context's database again (a command's context is its client's).
fn emit(ctx: &Context) {
    DUE.store(false, Ordering::Release);
    let (per_db, dictionaries) = with_state(ctx, |s| {
        let mut dbs: Vec<(i32, Vec<search::restore::Command>)> = s
            .catalogs
            .iter()
            .filter(|(_, c)| !c.is_empty())
            .map(|(db, c)| (*db, c.restore_commands()))
            .collect();
        dbs.sort_by_key(|(db, _)| *db);
        (dbs, s.config.dictionaries.restore_commands())
    });
    let original = selected_db(ctx);
    for (db, commands) in &per_db {
        if !select_db(ctx, *db) {
            continue;
        }
        for c in commands {
            replicate_to_aof(ctx, c);
        }
    }
    // Dictionaries belong to the server, not to a database.
    if !dictionaries.is_empty() && select_db(ctx, 0) {
        for c in &dictionaries {
            replicate_to_aof(ctx, c);
        }
    }
    select_db(ctx, original);
}
fn aof_rewrite_in_progress(ctx: &Context) -> bool {
    ctx.server_info("persistence").field("aof_rewrite_in_progress").is_some_and(|v| v.as_slice() == b"1")
}

/// `aof-use-rdb-preamble`, read at the fork (the child reads the same value).
fn rdb_preamble(ctx: &Context) -> bool {
    match ctx.call("CONFIG", &["GET", "aof-use-rdb-preamble"]) {
        Ok(RedisValue::Array(items)) => !matches!(items.get(1), Some(v) if value_is(v, b"no")),
        _ => true,
    }
}

fn value_is(v: &RedisValue, want: &[u8]) -> bool {
    match v {
        RedisValue::SimpleString(s) | RedisValue::BulkString(s) => s.as_bytes() == want,
        RedisValue::StringBuffer(b) => b.as_slice() == want,
        RedisValue::BulkRedisString(s) => s.as_slice() == want,
        _ => false,
    }
}

/// Propagates one command (name, then at least one argument) to the AOF only.
fn replicate_to_aof(ctx: &Context, command: &[Vec<u8>]) {
    let Some((name, args)) = command.split_first() else { return };
    if args.is_empty() {
        return;
    }
    let Ok(name) = std::ffi::CString::new(name.clone()) else { return };
    let strings: Vec<RedisString> = args.iter().map(|a| ctx.create_string(a.as_slice())).collect();
    let mut argv: Vec<*mut raw::RedisModuleString> = strings.iter().map(|s| s.inner).collect();
    // SAFETY: Replicate is variadic; "v" takes an array of RedisModuleString* and its length
    // (not 0: Redis sizes its vector by length - 1), "R" excludes replicas. The strings live
    // until the call returns (Redis takes its own references).
    let status = unsafe {
        raw::RedisModule_Replicate.map(|replicate| {
            replicate(ctx.ctx, name.as_ptr(), c"vR".as_ptr() as *const c_char, argv.as_mut_ptr(), argv.len())
        })
    };
    if status != Some(raw::REDISMODULE_OK as i32) {
        ctx.log_warning(&format!(
            "folio: could not write {} into the AOF",
            String::from_utf8_lossy(command[0].as_slice())
        ));
    }
}
